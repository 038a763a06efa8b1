"""Mismatches on the virtual table: the table and the game disagree, the cells blink, the host
says what to do, and nothing is applied until the table matches again."""

import asyncio

from host.link import TableLink
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.virtual_hands import StorybookHands
from shared_rules.engine import Match
from tools.virtual_table import VirtualTable

SETUP = {"board": [{"card": "the_cheshire_cat", "cell": [2, 3], "owner": "hero"},
                   {"card": "the_crocodile", "cell": [3, 3], "owner": "villain"}],
         "hands": {"hero": 3, "villain": 3}, "turn": "hero"}


async def until(predicate, session, timeout=8.0):
    """Run the session's event handling until predicate() holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("timed out; mismatches: %r" % (session.table.mismatches,))
        try:
            ev = await session.link.next_event(timeout=0.05)
        except asyncio.TimeoutError:
            continue
        action = session.on_event(ev)
        if action is not None:
            session._apply_table_action(action)
        session._count_mismatch()
        session.light()


async def scenario(tmp_path):
    layout = layouts.load(layouts.builtin_path("storybook"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("storybook", {"mode": "physical"}, 1, SETUP)
    with VirtualTable(tiles=7, cells=7, quiet=True) as vt:
        link = TableLink(ports=vt.ports())
        await link.start()
        try:
            while sum(t.online for t in link.tiles.values()) < 7:
                await asyncio.sleep(0.05)
            session = TableSession(match, layout, link, registry, [t.uid for t in vt.tiles])
            hands = StorybookHands(vt, layout, registry)
            await hands.tidy(match.state, session.table)
            await until(lambda: set(session.table.observed) == {(2, 3), (3, 3)}, session)
            assert session.table.mismatches == []
            before = session.mismatch_count  # setting the cards out counts too

            # 1. An unexpected lift: the Crocodile leaves its cell.
            await hands.lift((3, 3), "storybook:the_crocodile")
            await until(lambda: session.table.mismatches, session)
            m = session.table.mismatches[0]
            assert m.code == "lifted" and m.cells == [(3, 3)] and "Crocodile" in m.message
            assert session.button("hero", "end_turn") is None  # nothing applies meanwhile
            index, slot = layout.slot_of[(3, 3)]
            scene = link.tiles[vt.tiles[index].uid].scene[slot]
            assert scene[0] == 2 and scene[1:4] == bytes((255, 0, 0))  # blinking red
            await hands.place((3, 3), "storybook:the_crocodile")
            await until(lambda: not session.table.mismatches, session)

            # 2. A forged tag: a copy of the Crocodile's identity on another tag.
            uid = tags.virtual_uid("storybook:the_crocodile")
            forged = bytes.fromhex("04deadbeef0001")
            tile, slot = vt.tiles[layout.slot_of[(4, 3)][0]], layout.slot_of[(4, 3)][1]
            await asyncio.to_thread(lambda: tile.request(
                "place", slot=slot, uid=forged.hex(),
                identity_hex=registry.identity_for(uid, "storybook:the_crocodile").hex()))
            await until(lambda: session.table.mismatches, session)
            m = session.table.mismatches[0]
            assert m.code == "bad_tag" and "did not write" in m.message
            await asyncio.to_thread(tile.lift, slot, forged.hex())
            await until(lambda: not session.table.mismatches, session)

            # 3. A card where the rules do not allow it (not next to any card).
            await hands.place((6, 6), "storybook:the_dodo")
            await until(lambda: session.table.mismatches, session)
            m = session.table.mismatches[0]
            assert m.code == "not_adjacent" and m.cells == [(6, 6)]
            await hands.lift((6, 6), "storybook:the_dodo")
            await until(lambda: not session.table.mismatches, session)

            # 4. After all that the game is untouched and still takes a legal play.
            assert match.actions == []
            await hands.place((2, 2), "storybook:the_dodo")
            session.table.hide_window_ms = 0
            await until(lambda: match.actions, session)
            assert match.actions == [{"type": "play", "card": "the_dodo", "cell": [2, 2]}]
            assert session.mismatch_count - before == 3
        finally:
            await link.stop()


def test_mismatches_block_and_clear_on_the_virtual_table(tmp_path):
    asyncio.run(scenario(tmp_path))
