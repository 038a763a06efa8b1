"""A tile that dies on the virtual table (its process killed, as a power cut) and stays
offline past the grace: the table says which tile and cells it waits for, applies nothing,
and goes on once the tile is back (restarted by hand here, as staff would power-cycle it).
The session runs on a virtual clock; only the link's own detection of silence is real."""

import asyncio

from host.clock import ManualClock
from table_helpers import TWO_CARDS, storybook_table, until



async def scenario(tmp_path):
    clock = ManualClock()
    async with storybook_table(tmp_path, TWO_CARDS, clock=clock) as (session, hands, vt):
        index = session.layout.slot_of[(0, 0)][0]
        tile = vt.tiles[index]
        cells = session.layout.tiles[index].cells
        waits = []
        session.on_waiting = waits.append
        await asyncio.to_thread(tile.kill)
        await until(lambda: tile.uid in session.offline_since, session, 20)
        await until(lambda: True, session)
        assert session.mismatches == []          # within the grace: no mismatch yet
        clock.advance(session.offline_grace_ms + 1)
        await until(lambda: session.mismatches, session)
        m = session.mismatches[0]
        assert m.code == "tile_offline" and m.cells == sorted(cells)
        assert m.tile == tile.uid
        assert m.message.startswith("The tile of cells [%d, %d], " % cells[0])
        assert m.message.endswith(" is offline: the game waits for it.")
        assert [w["tile"] for w in waits] == [tile.uid]
        assert session.summary()["waiting_for"] == [tile.uid]
        assert session.button("hero", "draw") == {"type": "draw"}
        session.apply_from_table({"type": "draw"})
        assert session.match.actions == []      # nothing applied while it lasts
        await asyncio.to_thread(tile.restart)
        await until(lambda: not session.mismatches, session, 30)
        assert session.summary()["waiting_for"] == []
        session.apply_from_table({"type": "draw"})
        assert [a["type"] for a in session.match.actions] == ["draw"]


def test_a_killed_tile_is_waited_for_by_name_and_the_game_goes_on_when_it_returns(tmp_path):
    asyncio.run(scenario(tmp_path))
