"""The session on a virtual clock (host/clock.py ManualClock): bots' patience and a tile
that stays offline, with a fake link whose events come from a script. Nothing here waits
for the wall clock: time moves only when the test (or the fake link's idle tick) says so."""

import asyncio
import json

from host.clock import ManualClock
from host.link.tiles import TileEvent
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.web.view import WebTable
from shared_rules.engine import Match
from shared_rules import bots, storybook
from table_helpers import TWO_CARDS
UIDS = ["e66141040000000%d" % i for i in range(1, 8)]


class ScriptedLink:
    """A link with no ports: its events come from a script of (at ms, TileEvent).

    Waiting for an event with none due moves the clock by the wait, as the real link's
    idle tick would take that long."""

    def __init__(self, clock, script=()):
        self.clock = clock
        self.script = sorted(script, key=lambda entry: entry[0])
        self.tiles = {}
        self.pending = {}   # uid -> seqs of commands not yet acknowledged, as the test says

    def pending_commands(self, uid):
        return list(self.pending.get(uid, []))

    def set_field_neighbours(self, uid, masks):
        pass

    def set_scene(self, uid, entries):
        pass

    def resync(self):
        self.resyncs = getattr(self, "resyncs", 0) + 1

    def delivery_s(self):
        return 0.0          # every line is clean

    async def next_event(self, timeout):
        await asyncio.sleep(0)
        if self.script and self.script[0][0] <= self.clock():
            return self.script.pop(0)[1]
        self.clock.advance(int(timeout * 1000))
        raise asyncio.TimeoutError


class FakeHands:
    """Hands that only note what they were asked (a move is never carried out)."""

    def __init__(self):
        self.performed = []
        self.tidied = 0
        self.spared = []

    async def perform(self, state, action, at):
        self.performed.append(action)

    async def tidy(self, state, table, spare=frozenset()):
        self.tidied += 1
        self.spared.append(spare)


def session_on(tmp_path, clock, script=(), **kw):
    layout = layouts.load(layouts.builtin_path("storybook"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("storybook", {"mode": "physical"}, 1, TWO_CARDS)
    session = TableSession(match, layout, ScriptedLink(clock, script), registry, UIDS,
                           clock=clock, **kw)
    for cell, entry in sorted(match.state.board.items()):   # the cards lie as the game says
        session.table.observe(cell, [entry[0]])
    return session


def bots_on(tmp_path, clock, hands=None):
    """A session whose two seats are greedy bots (their moves carried out by `hands`)."""
    return session_on(tmp_path, clock, seats_bots={"hero": "greedy", "villain": "greedy"},
                      hands=hands)


def offline_for_a_while(tmp_path, uid, offline_at, online_at, grace_ms):
    """(session, waits): a session whose tile `uid` goes offline and comes back as scripted;
    `waits` collects what the session says when a wait for a tile starts."""
    clock = ManualClock()
    script = [(offline_at, TileEvent("offline", uid, detail="silent for 3.0 s")),
              (online_at, TileEvent("online", uid, detail="reconnect"))]
    session = session_on(tmp_path, clock, script, offline_grace_ms=grace_ms)
    waits = []
    session.on_waiting = waits.append
    return session, waits


async def bot_asks(session):
    """Drive the bots until one asks for a move a hand must carry out (buttons apply)."""
    for _ in range(20):
        await session.bots.drive()
        await asyncio.sleep(0)
        if session.bots.request is not None:
            return session.bots.request
    raise AssertionError("no bot asked for a move; log: %r" % session.log.lines[-5:])


def test_a_bots_move_not_seen_in_its_patience_is_asked_again(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        hands = FakeHands()
        session = bots_on(tmp_path, clock, hands)
        asked = await bot_asks(session)
        assert hands.performed == [asked] and session.table.bot_move == asked
        patience = session.bots.patience_ms
        clock.advance(patience)                  # exactly the patience: still waiting
        await session.bots.drive()
        assert session.bots.request == asked and hands.tidied == 0
        session.table.progress_at = clock()      # the table moved the change along
        clock.advance(patience)
        await session.bots.drive()
        assert session.bots.request == asked and hands.tidied == 0
        clock.advance(1)                          # past it: given up, the table tidied
        await session.bots.drive()
        assert session.bots.request is None and session.table.bot_move is None
        assert hands.tidied == 1
        assert session.log.lines[-1] == "the table did not show the bot's move; asking again"
        assert session.match.actions == [] or all(
            session.game.is_button_action(a) for a in session.match.actions)
        again = await bot_asks(session)           # and the bot is asked again
        assert again == asked and hands.performed == [asked, asked]

    asyncio.run(scenario())


def test_a_bots_move_asked_before_a_pause_keeps_its_patience_through_it(tmp_path):
    # A table with no virtual hands: a person carries out the bot's move. Staff pause for
    # longer than the bot's patience; after the resume the move is still asked, not given up.
    async def scenario():
        clock = ManualClock(1000)
        session = bots_on(tmp_path, clock)
        asked = await bot_asks(session)
        patience = session.bots.patience_ms
        clock.advance(patience // 2)
        session.paused = True
        await session.bots.drive()
        clock.advance(3 * patience)
        await session.bots.drive()
        session.paused = False
        await session.bots.drive()
        assert session.bots.request == asked, session.log.lines[-3:]
        clock.advance(patience // 2)             # the patience left before the pause
        await session.bots.drive()
        assert session.bots.request == asked
        clock.advance(1)
        await session.bots.drive()
        assert session.bots.request is None
        assert session.log.lines[-1] == "the table did not show the bot's move; asking again"

    asyncio.run(scenario())


def lit_marks(session):
    marks = []
    session.on_lit = lambda: marks.append(session.clock())
    return marks


def test_no_bot_moves_before_the_tiles_acknowledged_the_first_light(tmp_path):
    # After a restart the table is first lit as the game stands; a bot's move shown on
    # the table before that light is on it would be lost among the scenes still coming.
    async def scenario():
        clock = ManualClock(1000)
        hands = FakeHands()
        session = bots_on(tmp_path, clock, hands)
        session.link.pending = {UIDS[0]: [5], UIDS[3]: [9]}   # the first light, in flight
        marks = lit_marks(session)
        await session.run(deadline_s=1)
        assert session.bots.request is None and hands.performed == [] and marks == []
        assert session.match.actions == []
        session.link.pending = {UIDS[0]: [6], UIDS[3]: [9, 10]}   # 5 acknowledged, 9 not
        await session.bots.drive()
        assert session.bots.request is None and marks == []
        # 9 acknowledged; 6 and 10 came after the first light and do not hold the bots back.
        session.link.pending = {UIDS[0]: [6], UIDS[3]: [10]}
        asked = await bot_asks(session)
        assert marks == [clock()] and hands.performed == [asked]
        await session.bots.drive()
        assert len(marks) == 1                 # marked once

    asyncio.run(scenario())


def test_a_tile_that_never_acknowledges_the_first_light_does_not_stop_the_bots(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        hands = FakeHands()
        session = bots_on(tmp_path, clock, hands)
        session.link.pending = {UIDS[2]: [3]}
        marks = lit_marks(session)
        await session.run(deadline_s=2)
        assert session.bots.request is None and hands.performed == []
        clock.advance(session.lit_patience_ms)
        await bot_asks(session)                          # the bots went on; never lit
        assert marks == []
        said = "a tile acknowledged none of its lights for 3 s; the game goes on"
        assert said in session.log.lines, session.log.lines[-5:]

    asyncio.run(scenario())


def test_tiles_slowly_acknowledging_the_first_light_keep_the_bots_waiting_until_lit(tmp_path):
    # Tiles short of time (a loaded machine, a noisy line) acknowledge the first light one
    # command after another, more slowly than the patience in all: each one acknowledged
    # starts the patience again, so the table is lit before any bot moves.
    async def scenario():
        clock = ManualClock(1000)
        hands = FakeHands()
        session = bots_on(tmp_path, clock, hands)
        session.link.pending = {UIDS[0]: [5, 6], UIDS[2]: [3]}
        marks = lit_marks(session)
        await session.run(deadline_s=2)
        since = session.first_light_at
        for pending in ({UIDS[0]: [6], UIDS[2]: [3]}, {UIDS[0]: [6, 7], UIDS[2]: []}):
            clock.advance(since + session.lit_patience_ms - 1 - clock())
            await session.bots.drive()
            assert session.bots.request is None and marks == [], session.log.lines[-3:]
            session.link.pending = pending
            since = clock()
            await session.bots.drive()
            assert session.bots.request is None and marks == []
        clock.advance(since + session.lit_patience_ms - 1 - clock())
        await session.bots.drive()
        assert session.bots.request is None and marks == []
        session.link.pending = {UIDS[0]: [7], UIDS[2]: []}   # 7 came after the first light
        asked = await bot_asks(session)
        assert marks == [clock()] and hands.performed == [asked]
        assert not any("acknowledged none" in line for line in session.log.lines)

    asyncio.run(scenario())


def test_a_tile_offline_past_the_grace_stops_the_game_until_it_is_back(tmp_path):
    async def scenario():
        uid = UIDS[2]
        session, waits = offline_for_a_while(tmp_path, uid, 1000, 9000, 4000)
        summary = await session.run(deadline_s=4)
        # Offline since 1000 ms, 3 s of grace not yet past at 4 s: no mismatch yet.
        assert session.mismatches == [] and summary["waiting_for"] == []
        summary = await session.run(deadline_s=2)
        assert summary["waiting_for"] == [uid] and len(waits) == 1
        m = session.mismatches[0]
        cells = session.layout.tiles[2].cells
        assert m.code == "tile_offline" and m.cells == sorted(cells) and m.tile == uid
        # Words a visitor reads: the cells, not the tile's id (that is the staff page's).
        where = "cells %s" % ", ".join("[%d, %d]" % c for c in cells)
        assert m.message == "The tile of %s is offline: the game waits for it." % where
        assert waits[0] == {"tile": uid, "cells": [list(c) for c in sorted(cells)],
                            "message": m.message}
        assert "Mismatch: " + m.message in session.log.lines
        view = session.view("hero")              # what a web view would be sent
        assert json.loads(json.dumps(view)) == view and view["waiting_for"] == [uid]
        assert view["mismatches"][0]["message"] == m.message
        # Nothing is applied while it lasts: a seat button's end of turn is held back.
        session.apply_from_table({"type": "draw"})
        assert session.match.actions == []
        assert session.log.lines[-1] == "Not applied: the game waits for the tile of %s." % where
        summary = await session.run(deadline_s=5)   # the tile is back at 9 s
        assert summary["waiting_for"] == [] and session.mismatches == []
        assert "The tile of %s is back: the game goes on." % where in session.log.lines
        assert len(waits) == 1
        session.apply_from_table({"type": "draw"})
        assert [a["type"] for a in session.match.actions] == ["draw"]

    asyncio.run(scenario())


def test_a_tile_back_within_the_grace_is_no_mismatch(tmp_path):
    async def scenario():
        session, waits = offline_for_a_while(tmp_path, UIDS[0], 500, 2500, 2500)
        summary = await session.run(deadline_s=10)
        assert summary["waiting_for"] == [] and waits == [] and session.mismatch_count == 0
        # Its going offline was said, so is its coming back (no wait: nothing to go on from).
        gone = [line for line in session.log.lines if "went offline" in line]
        back = [line for line in session.log.lines if " is back" in line]
        assert len(gone) == 1 and back == [gone[0].split(" went offline")[0] + " is back."]

    asyncio.run(scenario())


def test_a_game_that_has_not_moved_for_a_minute_asks_the_tiles_what_lies_on_them(tmp_path):
    # What the host believes lies on a cell may have drifted from what the tile senses (a
    # report lost on the way): the game would wait for ever. No action for a minute: every
    # tile is asked for its snapshot, again each minute while nothing happens.
    async def scenario():
        clock = ManualClock(1000)
        session = session_on(tmp_path, clock)
        await session.run(deadline_s=59)
        assert getattr(session.link, "resyncs", 0) == 0
        await session.run(deadline_s=2)
        assert session.link.resyncs == 1
        said = "no action for 60 s: the tiles are asked what lies on them, and again each " \
               "minute until the game moves"
        assert session.log.lines.count(said) == 1
        await session.run(deadline_s=50)
        assert session.link.resyncs == 1
        await session.run(deadline_s=100)               # asked each minute, said once
        assert session.link.resyncs == 3 and session.log.lines.count(said) == 1
        session.apply_from_table({"type": "draw"})      # the game moves: the minute restarts
        await session.run(deadline_s=30)
        assert session.link.resyncs == 3
        await session.run(deadline_s=40)
        assert session.link.resyncs == 4 and session.log.lines.count(said) == 2

    asyncio.run(scenario())


def test_after_the_game_the_table_is_still_read_and_tidied(tmp_path):
    # The web table stays open after the last action: a card the game left on the table
    # (captured by the last move) must stop being a mismatch once it is lifted, and the
    # virtual players still tidy it up.
    async def scenario():
        clock = ManualClock(1000)
        hands = FakeHands()
        session = bots_on(tmp_path, clock, hands)
        match = session.match
        while match.engine.status(match.state) == "ongoing":
            match.apply(bots.choose("greedy", storybook, match.state, match.state.turn, 1))
        for cell in session.layout.cells:       # the table as the game ended...
            entry = match.state.board.get(cell)
            session.table.observe(cell, [entry[0]] if entry else [])
        stray = next(c for c in sorted(session.layout.cells) if c not in match.state.board)
        on_board = {entry[0] for entry in match.state.board.values()}
        card = next(c for c in ("the_crocodile", "the_cheshire_cat") if c not in on_board)
        session.table.observe(stray, [card])    # ...and a card that should have gone
        session.table.reconcile(clock())
        assert [m.cells for m in session.mismatches] == [[stray]]
        tile, slot = session.layout.slot_of[stray]
        session.link.script.append((clock() + 2000, TileEvent("tags", UIDS[tile], slot=slot,
                                                               tags=())))
        while clock() < 1000 + 1500:
            await session.tend()
        assert hands.tidied >= 1 and session.mismatches    # tidied, not yet seen lifted
        while clock() < 1000 + 2500:
            await session.tend()
        assert session.mismatches == [] and not session.table.observed.get(stray)
        assert session.match.engine.status(session.match.state) == "finished"

    asyncio.run(scenario())


def test_the_virtual_players_tidy_for_a_person_alone_but_never_under_their_hand(tmp_path):
    # A person plays alone on the virtual table (no bot): what the game deals (a contract
    # drawn) is laid out by the virtual players, as at a table with bots; but a piece the
    # person's own hand just moved (the first half of a trade) is theirs, not put back,
    # until their move is applied (or they leave it for a minute).
    async def scenario():
        clock = ManualClock(1000)
        hands = FakeHands()
        session = session_on(tmp_path, clock, hands=hands)
        cell = sorted(session.layout.cells)[0]
        session.table.observe(cell, ["the_crocodile"])      # out of place
        session.table.reconcile(clock())
        assert session.table.mismatches
        session.hand_touched()                              # ...by the person's hand
        for _ in range(20):
            await session.tend()
        assert hands.tidied == 0
        session.bots.applied({"type": "draw"})              # their move was applied
        await session.tend()
        assert hands.tidied == 1
        session.hand_touched()
        clock.advance(61000)                                # left there a minute
        await session.tend()
        assert hands.tidied == 2

    asyncio.run(scenario())


def test_a_person_at_work_on_one_place_does_not_hold_up_tidying_another(tmp_path):
    # A person lays a card on their own place while the virtual players owe the table a
    # piece elsewhere (a bot's new character's token for the map): they put that right and
    # leave the person's place alone. (Seen: the person's card waited a minute, unread,
    # behind the bot's token nobody put down.)
    async def scenario():
        clock = ManualClock(1000)
        hands = FakeHands()
        session = session_on(tmp_path, clock, hands=hands)
        cells = sorted(session.layout.cells)
        mine, elsewhere = cells[0], cells[5]
        session.hand_touched(mine)                          # the person's card, read soon
        session.table.observe(elsewhere, ["the_crocodile"])     # out of place
        session.table.reconcile(clock())
        assert [m.cells for m in session.table.mismatches] == [[elsewhere]]
        await session.tend()
        assert hands.tidied == 1 and hands.spared == [frozenset([mine])]
        # Wrong only where the person works: theirs, not tidied.
        session.table.observe(elsewhere, [])
        session.table.observe(mine, ["the_crocodile"])
        session.table.reconcile(clock())
        assert [m.cells for m in session.table.mismatches] == [[mine]]
        clock.advance(5000)
        for _ in range(5):
            await session.tend()
        assert hands.tidied == 1
        # Where a person's hand was is not known: the whole table is theirs, as before.
        session.hand_touched()
        session.table.observe(elsewhere, ["the_crocodile"])
        session.table.reconcile(clock())
        clock.advance(5000)
        await session.tend()
        assert hands.tidied == 1
        session.bots.applied({"type": "draw"})              # their move was applied
        await session.tend()
        assert hands.tidied == 2 and hands.spared[-1] == frozenset()

    asyncio.run(scenario())


def test_a_card_a_person_lifts_on_the_web_table_is_not_put_back_while_the_tile_answers(tmp_path):
    # The hero lifts their card on the web table. The tile reports it gone before its reply
    # to the lift comes back: the virtual players, tidying in between, must see the person's
    # hand at work there and leave the empty cell to them. (Seen on a loaded machine: the
    # card was put back under the person's hand, and the page's hand never showed it.)
    class SlowReplyHands(FakeHands):
        session = None

        async def lift(self, cell, item=None):
            self.session.table.observe(cell, [])    # the tile's report, before its reply
            self.session.table.reconcile(clock())
            assert self.session.table.mismatches
            for _ in range(3):
                await self.session.tend()           # the bots' loop runs meanwhile
                clock.advance(1000)

    async def scenario():
        hands = SlowReplyHands()
        session = hands.session = session_on(tmp_path, clock, hands=hands)
        said = await WebTable(session, hands=hands).control(
            "hero", {"op": "lift", "cell": [2, 3]})
        assert said == "Lifted off [2, 3]."
        assert hands.tidied == 0 and session.table.mismatches
        clock.advance(61000)                    # left there a minute: tidied then
        await session.tend()
        assert hands.tidied == 1

    clock = ManualClock(1000)
    asyncio.run(scenario())


def test_a_refusal_the_table_makes_is_the_web_seat_s_that_just_acted_there(tmp_path):
    # The table refuses what it read (no seat); a web seat's hand acted on one of its places
    # within touch_owner_ms: its refusal (its page says why, the others' do not). Later, or
    # on another place, or a hand that is nobody's on the web: nobody's.
    clock = ManualClock(1000)
    session = session_on(tmp_path, clock)
    session.hand_touched((3, 2), "villain")
    session.hand_touched(None)                       # the terminal's hands: nobody's seat
    clock.advance(session.touch_owner_ms)
    session.refused_at(None, "Not yet.", [(3, 2)])
    assert session.last_refusal == {"seat": "villain", "text": "Not yet.", "cells": [[3, 2]],
                                    "at": clock()}
    session.refused_at(None, "Not there.", [(4, 4)])
    assert session.last_refusal["seat"] is None
    session.hand_touched((4, 4), "hero")             # the latest hand of the places named
    clock.advance(1)
    session.refused_at(None, "Not both.", [(3, 2), (4, 4)])
    assert session.last_refusal["seat"] == "hero"
    session.web_hand_at((5, 5), "villain")           # where a move of the page puts down
    session.refused_at(None, "Not there either.", [(5, 5)])
    assert session.last_refusal["seat"] == "villain"
    session.refused_at("villain", "A control of the page.", [(4, 4)])
    assert session.last_refusal["seat"] == "villain"
    clock.advance(session.touch_owner_ms)
    session.refused_at(None, "Too late.", [(3, 2), (4, 4)])
    assert session.last_refusal["seat"] is None


def test_the_log_says_what_was_refused_where_and_why(tmp_path):
    # A refused action names the move asked for and the rules' reason, once each; a gesture
    # the table refused names its cells. Never "Not allowed: Not yet: ...".
    session = session_on(tmp_path, ManualClock(1000))
    before = session.match.state
    taken = {"type": "play", "card": "alice", "cell": [2, 3], "facing": "N"}
    assert session.apply(taken) is None                          # the Cheshire Cat is there
    why = session.rejected[-1][1]
    line = session.log.lines[-1]
    assert line == "Refused: play a card on [2, 3]. %s" % why, line
    assert why and line.count(why) == 1 and session.match.state is before
    session.table.refuse([(3, 2), (4, 4)], "Not yet: the Villain plays two cards first.")
    session.table.refuse([], "The pads start working once the game is under way.")
    # A place off the board (Fairytale Games' card reader of a seat) is not a cell.
    session.table.refuse([("seat", 2)], "Nobody plays at this card reader now.")
    session._table_said()
    assert session.log.lines[-3:] == [
        "Refused on [3, 2] and [4, 4]. Not yet: the Villain plays two cards first.",
        "Refused: The pads start working once the game is under way.",
        "Refused: Nobody plays at this card reader now."]


def timing_marks(text):
    return dict((m["timing"], m) for m in map(json.loads, text.splitlines())
                if m.get("timing"))


def test_run_timings_mark_lit_or_say_the_tiles_patience_ran_out(tmp_path, capsys):
    # `fairytable run --timings` (tools/bench_restart.py) tells a table lit from one whose
    # tile never acknowledged its first light: "lit" for one, "unlit" for the other.
    from host.run import Timings, watch_start

    async def scenario(acknowledged):
        clock = ManualClock(1000)
        session = bots_on(tmp_path / str(acknowledged), clock, FakeHands())
        session.link.pending = {UIDS[2]: [3]}
        watch_start(session, Timings(True))
        await session.run(deadline_s=1)
        if acknowledged:
            session.link.pending = {}
        else:
            clock.advance(session.lit_patience_ms)
        await bot_asks(session)
        for _ in range(10):         # the watch sees it too
            await asyncio.sleep(0.01)
        return timing_marks(capsys.readouterr().err)

    marks = asyncio.run(scenario(True))
    assert "lit" in marks and "unlit" not in marks, marks
    assert marks["lit"]["actions"] == 0
    marks = asyncio.run(scenario(False))
    assert "unlit" in marks and "lit" not in marks, marks
    assert marks["unlit"]["actions"] == 0
