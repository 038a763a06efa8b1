"""Mismatches on the virtual table: the table and the game disagree, the cells blink, the host
says what to do, and nothing is applied until the table matches again. The session runs on
a virtual clock: the hide window of a placed card passes only when the test moves it."""

import asyncio

from host.clock import ManualClock
from host.table import tags
from table_helpers import TWO_CARDS, storybook_table, until



async def scenario(tmp_path):
    clock = ManualClock()
    async with storybook_table(tmp_path, TWO_CARDS, clock=clock) as (session, hands, vt):
        match, layout, link, registry = session.match, session.layout, session.link, \
            session.registry
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
        await until(lambda: session.table.observed.get((2, 2)) == ["the_dodo"], session)
        for _ in range(10):     # however long the wall clock runs, the session's stands still
            await until(lambda: True, session)
        assert match.actions == [] and session.table.busy()
        clock.advance(session.table.hide_window_ms)   # no double tap came: a Play
        await until(lambda: match.actions, session)
        assert match.actions == [{"type": "play", "card": "the_dodo", "cell": [2, 2]}]
        assert session.mismatch_count - before == 3


def test_mismatches_block_and_clear_on_the_virtual_table(tmp_path):
    asyncio.run(scenario(tmp_path))
