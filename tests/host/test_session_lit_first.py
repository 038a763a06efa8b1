"""An action read from the tiles is journalled, then lit, and only then do the bots think:
a person sees the result of a card put down before anything slow that need not come first
(a greedy bot's search, the hands tidying). The session runs on a virtual clock with a
scripted link (tests/host/test_session_clock.py); the journal is a real SQLite file."""

import asyncio
from types import SimpleNamespace

from host.clock import ManualClock
from host.journal import Journal
from host.link.tiles import TileEvent
from host.table import tags
from test_session_clock import UIDS, FakeHands, session_on


def test_a_play_read_from_the_tiles_is_journalled_then_lit_before_the_bots_think(tmp_path):
    async def scenario():
        clock = ManualClock(1000)
        journal = Journal(str(tmp_path / "journal.db"))
        session = session_on(tmp_path, clock, seats_bots={"hero": "greedy",
                                                          "villain": "greedy"},
                             hands=FakeHands())
        match = session.match
        session.journal = journal
        session.game_id = journal.start_game(match, {"seed": 1})
        play = session.game.normal_bot_action(next(
            a for a in match.legal_actions() if a["type"] == "play"))
        cell = tuple(play["cell"])
        tile, slot = session.layout.slot_of[cell]
        order = []
        # Every tile of the layout online, so the session lights them.
        session.link.tiles = dict((uid, SimpleNamespace(online=True)) for uid in UIDS)
        append = journal.append
        journal.append = lambda *a, **k: (order.append("journalled"), append(*a, **k))[1]
        session.link.set_scene = lambda uid, entries: order.append(
            ("lit", uid, sorted(s for s, _ in entries)))
        action_of = session.bots.action_of
        session.bots.action_of = lambda seat: (order.append("a bot thinks"),
                                               action_of(seat))[1]
        # The hero's bot asked for this play (as `drive` asks); the hands put the card down.
        session.bots.ask(play)
        item = "storybook:" + play["card"]
        uid = tags.virtual_uid(item)
        identity = session.registry.identity_for(uid, item)
        session.link.script.append((clock(), TileEvent(
            "tags", UIDS[tile], slot=slot, tags=((uid.hex(), identity),))))
        await session._round(resync=False)
        assert match.actions[0] == play
        assert order[0] == "journalled"
        lit = next(i for i, step in enumerate(order) if step[0] == "lit" and
                   step[1] == UIDS[tile] and slot in step[2])
        # The hero has 2 AP left: its bot thinks of its next move (and makes it), after the
        # light.
        assert "a bot thinks" in order
        assert lit < order.index("a bot thinks")
        journal.close()

    asyncio.run(scenario())
