"""Battle Royale mismatches on the virtual table (real MicroPython tiles and a dice tray):
the table and the game disagree, the cells blink red, the host says what to do in words,
and nothing is applied until the table matches again."""

import asyncio

from firmware.readers import field_phases

from host.clock import ManualClock
from host.link import TableLink
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.games.royale.adapter import RoyaleGame
from host.games.royale.hands import RoyaleHands
from shared_rules.engine import Match
from table_helpers import until
from host.virtual import VirtualTable

SETUP = {"players": [{"id": "red", "cell": [0, 0], "active": ["S9"]},
                     {"id": "blue", "cell": [1, 0]}],
         "map": [{"cell": [0, 0], "card": "S5"}, {"cell": [1, 0], "card": "H7"},
                 {"cell": [-1, 0], "card": "DK"}]}


def scene_of(session, vt, link, cell):
    index, slot = session.layout.slot_of[cell]
    return link.tiles[vt.tiles[index].uid].scene[slot]


def blinking_red(scene):
    return scene[0] == 2 and scene[1:4] == bytes((255, 0, 0))


async def scenario(tmp_path):
    layout = layouts.load(layouts.builtin_path("royale"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("royale", {}, 1, SETUP)
    with VirtualTable(tiles=5, cells=7, variants=[t.variant for t in layout.tiles],
                      heapsize=RoyaleGame.virtual_heap, quiet=True) as vt:
        link = TableLink(ports=vt.ports())
        await link.start()
        try:
            while sum(t.online for t in link.tiles.values()) < 5:
                await asyncio.sleep(0.05)
            session = TableSession(match, layout, link, registry, [t.uid for t in vt.tiles],
                                   clock=ManualClock())   # no time needs to pass here
            # The diamond's cells are no row: each cell tile polls its readers in the
            # phases of its layout's neighbours (the 4-cell tile's spare readers border
            # nothing), and the dice tray one pocket at a time as it always does.
            for index, layout_tile in enumerate(layout.tiles):
                masks = layout_tile.field_neighbours()
                if masks is None:
                    continue
                masks = masks + [0] * (7 - len(masks))
                stats = await asyncio.to_thread(vt.tiles[index].stats)
                deadline = asyncio.get_running_loop().time() + 20
                while stats["phases"] != field_phases(masks, 4):
                    assert asyncio.get_running_loop().time() < deadline, stats["phases"]
                    await asyncio.sleep(0.1)
                    stats = await asyncio.to_thread(vt.tiles[index].stats)
            hands = RoyaleHands(vt, layout, registry)
            await hands.tidy(match.state, session.table)
            want = session.table.expected()
            await until(lambda: session.table.observed == want, session, 60)
            assert session.table.mismatches == []

            # 1. A pawn on the wrong cell: blue's pawn (not blue's turn) put on [-1, 0].
            await hands.lift((1, 0), "pawn:blue")
            await hands.place((-1, 0), "pawn:blue")
            await until(lambda: [m.code for m in session.table.mismatches] == ["pawn_moved"],
                        session, 40)
            m = session.table.mismatches[0]
            assert m.cells == [(-1, 0), (1, 0)]
            assert m.message == "The blue pawn belongs on [1, 0], not [-1, 0]."
            await until(lambda: blinking_red(scene_of(session, vt, link, (-1, 0))), session, 20)
            assert session.button("red", "end_turn") is None  # nothing applies meanwhile
            await hands.lift((-1, 0), "pawn:blue")
            await hands.place((1, 0), "pawn:blue")
            await until(lambda: not session.table.mismatches, session, 40)

            # 2. A forged tag: a copy of a map card's identity on another tag.
            uid = tags.virtual_uid("royale:S5")
            forged = bytes.fromhex("04deadbeef0001")
            index, slot = layout.slot_of[(0, 2)]
            tile = vt.tiles[index]
            await asyncio.to_thread(lambda: tile.request(
                "place", slot=slot, uid=forged.hex(),
                identity_hex=registry.identity_for(uid, "royale:S5").hex()))
            await until(lambda: session.table.mismatches, session, 40)
            m = session.table.mismatches[0]
            assert m.code == "bad_tag" and m.cells == [(0, 2)] and "did not write" in m.message
            await asyncio.to_thread(tile.lift, slot, forged.hex())
            await until(lambda: not session.table.mismatches, session, 40)
            assert match.actions == []

            # 3. A won card left on the map: red taps, rolls 6 5 4 against the Five of Spades.
            await hands.gesture((0, 0), "tap")
            await until(lambda: session.table.throw is not None, session, 40)
            for pocket, face in enumerate((6, 5, 4)):
                await hands.set_die(pocket, "die:%d:%d" % (pocket + 1, face))
            await until(lambda: match.actions, session, 40)
            assert match.actions == [{"type": "attack_card", "dice": [6, 5, 4]}]
            await until(lambda: session.table.mismatches, session, 40)
            m = session.table.mismatches[0]
            assert m.code == "won_on_map" and m.cells == [(0, 0)]
            assert m.message == "Five of Spades was won by Red: lift it off the map at [0, 0]."
            await until(lambda: blinking_red(scene_of(session, vt, link, (0, 0))), session, 20)
            # Red's pad does nothing while the card lies there.
            await hands.gesture((0, 0), "hold")
            await asyncio.sleep(1.5)
            await until(lambda: True, session)
            assert session.table.throw is None and len(match.actions) == 1
            await hands.lift((0, 0), "royale:S5")
            await until(lambda: not session.table.mismatches, session, 40)
            assert session.mismatch_count >= 3
        finally:
            await link.stop()


def test_royale_mismatches_block_and_clear_on_the_virtual_table(tmp_path):
    asyncio.run(scenario(tmp_path))
