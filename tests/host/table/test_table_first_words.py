"""True first words and bots at a human pace, on the session's virtual clock: a table still
reporting what lies on it at start is no mismatch; a card really missing still is; bots wait
`pace_ms` before each move only when a person is at the table or someone watches."""

import asyncio

from host.clock import ManualClock
from host.link.tiles import TileEvent
from test_session_clock import UIDS, FakeHands, ScriptedLink, bot_asks
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from shared_rules.engine import Match
from table_helpers import TWO_CARDS


class CleanLink(ScriptedLink):
    """The scripted link on a clean line (events take no extra time to arrive whole)."""

    def resync(self):
        self.resyncs = getattr(self, "resyncs", 0) + 1

    def delivery_s(self):
        return 0.0


def fresh_session(tmp_path, clock, script, **kw):
    """A session on an empty table whose tiles report the cards set out as `script` says."""
    layout = layouts.load(layouts.builtin_path("storybook"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("storybook", {"mode": "physical"}, 1, TWO_CARDS)
    session = TableSession(match, layout, CleanLink(clock, script), registry, UIDS,
                           clock=clock, **kw)
    return session, registry


def report(session, registry, cell, card):
    """The TileEvent a tile sends when `card` lies on `cell`."""
    index, slot = session.layout.slot_of[cell]
    item = "storybook:" + card
    uid = tags.virtual_uid(item)
    return TileEvent("tags", UIDS[index], slot=slot,
                     tags=((uid.hex(), registry.identity_for(uid, item)),))


def test_cards_still_being_reported_at_start_are_no_mismatch(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        session, registry = fresh_session(tmp_path, clock, [])
        # The tiles report the two cards 200 and 450 ms after the session starts.
        session.link.script = [(1200, report(session, registry, (2, 3), "the_cheshire_cat")),
                               (1450, report(session, registry, (3, 3), "the_crocodile"))]
        await session.run(deadline_s=2)
        assert session.mismatch_count == 0 and session.mismatches == []
        assert not [line for line in session.log.lines if line.startswith("mismatch")]
    asyncio.run(scenario())


def test_a_card_really_missing_at_start_is_still_a_mismatch(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        session, registry = fresh_session(tmp_path, clock, [])
        session.link.script = [(1200, report(session, registry, (2, 3), "the_cheshire_cat"))]
        assert session.settling is False
        await session.run(deadline_s=2)
        assert [m.code for m in session.mismatches] == ["lifted"]
        assert session.mismatches[0].cells == [(3, 3)]
        assert session.mismatch_count == 1
    asyncio.run(scenario())


def ready_session(tmp_path, clock):
    session, registry = fresh_session(tmp_path, clock, [],
                                      seats_bots={"hero": "greedy", "villain": "greedy"},
                                      hands=FakeHands())
    for cell, entry in sorted(session.match.state.board.items()):
        session.table.observe(cell, [entry[0]])
    session.table.reconcile(clock())
    return session


def test_bots_wait_the_pace_when_a_person_is_at_the_table(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        session = ready_session(tmp_path, clock)
        session.bots.pace_ms = 1200
        session.bots.people = True
        for _ in range(3):
            await session.bots.drive()
        assert session.bots.request is None and session.match.actions == []
        clock.advance(1199)
        await session.bots.drive()
        assert session.bots.request is None and session.match.actions == []
        clock.advance(1)
        await bot_asks(session)
    asyncio.run(scenario())


def test_bots_wait_the_pace_only_while_someone_watches(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        session = ready_session(tmp_path, clock)
        session.bots.pace_ms = 1200
        watching = [True]
        session.bots.watched = lambda: watching[0]
        await session.bots.drive()
        assert session.bots.request is None and session.match.actions == []
        watching[0] = False       # the browser closed: nobody to follow the game
        await bot_asks(session)
    asyncio.run(scenario())


def test_headless_bots_play_at_once(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        session = ready_session(tmp_path, clock)
        session.bots.pace_ms = 1200   # people False, nobody watching: pace does not apply
        await bot_asks(session)
    asyncio.run(scenario())
