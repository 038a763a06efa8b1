"""Staff controls on the table: pause, undo, reset to the attract mode, start a new game."""

import asyncio

from host.journal import Journal
from host.link.tiles import TileEvent
from table_helpers import storybook_table, until

SETUP = {"board": [{"card": "the_cheshire_cat", "cell": [2, 3], "owner": "hero"},
                   {"card": "the_crocodile", "cell": [3, 3], "owner": "villain"}],
         "hands": {"hero": 3, "villain": 3}, "turn": "hero"}


def test_staff_pause_undo_reset_and_start(tmp_path):
    journal = Journal(str(tmp_path / "journal.db"))

    async def scenario():
        async with storybook_table(tmp_path, SETUP, journal) as (session, hands, vt):
            match = session.match
            # A port the link will not use is told to the operator, in the link's words.
            problem = TileEvent("problem", None, code="clone", port="/dev/ttyACM1",
                                detail="tile e661 answers on both /dev/ttyACM0 and "
                                       "/dev/ttyACM1: unplug one")
            assert session.on_event(problem) is None
            assert session.log.lines[-1] == "table problem: " + problem.detail
            session.staff("pause")
            await hands.gesture((2, 3), "hold")           # a spin, while paused
            await asyncio.sleep(1.0)
            await until(lambda: any("paused" in line and "spin" in line
                                    for line in session.log.lines), session)
            assert match.actions == []
            session.staff("resume")
            await asyncio.sleep(1.0)  # the first hold's finger leaves the pad
            await hands.gesture((2, 3), "hold")
            await until(lambda: len(match.actions) == 1, session)
            assert match.state.board[(2, 3)][2] == 1       # facing E now
            spun = session.last_words
            session.staff("undo")                          # a spin can be taken back
            assert match.actions == [] and match.state.board[(2, 3)][2] == 0
            # The last move shown is the taking back, no longer the spin.
            assert session.last_words == session.log.lines[-1] != spun
            assert session.last_words.startswith("Staff took the last move back (")
            assert journal.load(session.game_id)[0].actions == []
            await hands.gesture((3, 3), "tap")             # not a face-down card: nothing
            session.staff("reset")
            session.light()
            index, slot = session.layout.slot_of[(0, 0)]
            assert session.link.tiles[vt.tiles[index].uid].scene[slot][0] == 6  # rainbow
            assert journal.latest_unfinished() is None
            session.new_game = lambda: (match, journal.start_game(match, {}))
            session.staff("start")
            assert not session.attract and journal.latest_unfinished() == session.game_id

    asyncio.run(scenario())
