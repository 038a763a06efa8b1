"""The settle after the tiles' start (host/session.py): the tiles' first reports are read
before the table is judged, and it ends as soon as every tile is online and the cells hold
what the game has (a restarted host lights the table then, not after a quiet spell); while
a card the game has is not reported, it waits on. The session's clock is frozen: only the
table can end the settle here, never its quiet time or its limit."""

import asyncio

from host.clock import ManualClock
from table_helpers import TWO_CARDS, storybook_table, until


async def scenario(tmp_path):
    async with storybook_table(tmp_path, TWO_CARDS, clock=ManualClock()) as (session, hands,
                                                                             vt):
        # The two cards are out and reported: nothing more to wait for.
        await asyncio.wait_for(session.settle(), 30)
        assert not session.settling

        # The Crocodile is not on its cell: the settle waits for the table to show the game.
        await hands.lift((3, 3), "storybook:the_crocodile")
        await until(lambda: (3, 3) not in session.table.observed, session)
        settling = asyncio.ensure_future(session.settle())
        await asyncio.sleep(1.0)
        assert not settling.done() and session.settling
        assert session.mismatches == []     # (nothing is judged while it settles)

        # It is put back and reported: the settle ends.
        await hands.place((3, 3), "storybook:the_crocodile")
        await asyncio.wait_for(settling, 30)
        assert not session.settling
        assert session.table.observed == session.table.expected()


def test_the_settle_ends_once_the_table_shows_the_game_and_waits_while_it_does_not(tmp_path):
    asyncio.run(scenario(tmp_path))
