"""The attract mode on the virtual table (real tile firmware): nobody plays for
--attract-after, the game is closed and a demo game plays on the tiles' lights; a tap on the
table, or "Play a game" on a seat's page, starts the next game. Time travels on a manual
clock; the tiles are real."""

import asyncio

from host.clock import ManualClock
from host.journal import Journal
from host.secrets import secret_words
from host.web.view import Refused, WebTable
from shared_rules.engine import Match
from table_helpers import storybook_table, until

SETUP = {"board": [{"card": "the_cheshire_cat", "cell": [2, 3], "owner": "hero"},
                   {"card": "the_crocodile", "cell": [3, 3], "owner": "villain"}],
         "hands": {"hero": 3, "villain": 3}, "turn": "hero"}


def test_idle_minutes_bring_the_demo_and_a_tap_or_play_brings_the_next_game(tmp_path):
    journal = Journal(str(tmp_path / "journal.db"))
    clock = ManualClock(1000)

    async def scenario():
        async with storybook_table(tmp_path, SETUP, journal, clock) as (session, hands, vt):
            started = []

            def new_game():
                match = Match("storybook", {"mode": "physical"}, 50 + len(started))
                started.append(match)
                return match, journal.start_game(match, {})
            session.new_game = new_game
            session.attract_after_ms = 10 * 60000
            first = session.game_id
            web = WebTable(session, hands, journal)

            clock.advance(9 * 60000)
            await session.tend()
            assert not session.attract                       # 9 minutes: still the game
            clock.advance(60000)
            await session.tend()
            assert session.attract and session.demo is not None
            assert session.log.lines[-1] == ("Nobody has played for 10 minutes: the table "
                                             "plays a demo game until someone taps it.")
            assert journal.latest_unfinished() is None      # the game left is closed
            assert web.view()["banner"] == "A demo game: the table plays Storybook Battles " \
                                           "by itself"

            # The demo plays on the tiles' lights, one move a step; nothing is journalled.
            lit = []
            for _ in range(4):
                clock.advance(session.demo.step_ms)
                await session.tend()
                lit.append(dict(session.sent_scenes))
            assert session.demo.moves == 4 and lit[0] != lit[-1]
            view = web.view()
            assert view["demo"] and view["last"] == session.demo.words
            assert view["facts"][0] == "To play: open a seat's link and press Play a game"
            demo_cells = [c for c in view["cells"] if c["items"]]
            assert len(demo_cells) >= 2       # the demo's cards on the page, not the table's
            assert journal.load(first)[0].actions == []

            # A seat's page offers Play a game; anything else is refused in words.
            you = web.view("hero")["you"]
            assert [c["label"] for c in you["choices"]] == ["Play a game"]
            try:
                await web.control("hero", {"op": "tap", "cell": [0, 0]})
                raise AssertionError("a tap from the page was taken in the attract mode")
            except Refused as e:
                assert e.message == "no game is running: press Play a game to start one."
            said = await web.control("hero", {"op": "button", "name": "play"})
            assert said == "A new game of Storybook Battles has started."
            assert not session.attract and session.demo is None and len(started) == 1
            assert journal.latest_unfinished() == session.game_id != first

            # Idle again, then a tap on the table itself starts the next game.
            clock.advance(10 * 60000)
            await session.tend()
            assert session.attract
            await hands.gesture((1, 1), "tap")
            await until(lambda: not session.attract, session)
            assert len(started) == 2 and session.match is started[1]
            assert "Someone tapped the table: a new game of Storybook Battles starts." in \
                session.log.lines
            assert session.match.actions == []          # the tap started it, played nothing

    asyncio.run(scenario())


def test_without_attract_after_a_table_never_goes_to_the_demo_by_itself(tmp_path):
    clock = ManualClock(0)

    async def scenario():
        async with storybook_table(tmp_path, SETUP, None, clock) as (session, hands, vt):
            clock.advance(24 * 3600 * 1000)
            await session.tend()
            assert not session.attract and session.demo is None
    asyncio.run(scenario())


def test_the_last_games_lines_keep_its_open_cards_named_through_the_demo_and_the_next_game(
        tmp_path):
    """A card open in the last game (the Cheshire Cat on the board) is hidden in the next
    one, still in its deck: the last game's lines keep its name, through the demo and the
    next game, and keep the last game's own hidden cards hidden."""
    journal = Journal(str(tmp_path / "journal.db"))
    clock = ManualClock(1000)

    async def scenario():
        async with storybook_table(tmp_path, SETUP, journal, clock) as (session, hands, vt):
            def new_game():
                match = Match("storybook", {"mode": "physical"}, 77)
                return match, journal.start_game(match, {})
            session.new_game = new_game
            web = WebTable(session, hands, journal)
            held = [w for w in secret_words(session.match.state, session.match.engine,
                                            session.game.face) if w[0].isupper()][0]
            open_line = "The Cheshire Cat on [2, 3] bests the Crocodile."
            hidden_line = "The Hero holds %s." % held
            session.log.say(open_line)
            session.log.say(hidden_line)
            hidden_read = "The Hero holds a hidden card."
            assert web.view()["log"][-2:] == [open_line, hidden_read]

            # A card lifted in the game (a mismatch: put it back), then staff end the game:
            # the demo asks nobody to put back a piece of a game nobody plays.
            await hands.lift((2, 3))
            await until(lambda: web.view()["mismatches"], session)
            session.button("staff", "reset")             # the demo: its own hidden cards
            assert session.attract
            assert web.view("hero")["mismatches"] == [] and web.view()["mismatches"] == []
            assert web.view()["tidy"] is None
            assert [open_line, hidden_read] == [
                line for line in web.view()["log"] if line in (open_line, hidden_read)]

            said = await web.control("hero", {"op": "button", "name": "play"})
            assert said == "A new game of Storybook Battles has started."
            assert "The Cheshire Cat" in secret_words(session.match.state, session.match.engine,
                                                      session.game.face)
            session.log.say("The Hero plays The Cheshire Cat.")   # the new game's line
            for seat in (None, "hero", "villain"):
                log = web.view(seat)["log"]
                assert open_line in log and hidden_read in log, (seat, log)
            # Hidden from all but the Hero, whose deck it is.
            assert web.view("hero")["log"][-1] == "The Hero plays The Cheshire Cat."
            for seat in (None, "villain"):
                assert web.view(seat)["log"][-1] == "The Hero plays a hidden card."
            assert hidden_line in session.log.lines      # the terminal's and staff's, whole

    asyncio.run(scenario())
