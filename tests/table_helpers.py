"""A Storybook session on a real virtual table, for tests that drive it step by step."""

import asyncio
import json
import contextlib
import os
import signal
import sqlite3
import subprocess
import time

from host.link import TableLink
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.virtual import VirtualTable
from host.games.storybook.hands import StorybookHands
from shared_rules.engine import Match

# Two cards on the board, hero to play: the position the mismatch tests start from.
TWO_CARDS = {"board": [{"card": "the_cheshire_cat", "cell": [2, 3], "owner": "hero"},
                       {"card": "the_crocodile", "cell": [3, 3], "owner": "villain"}],
             "hands": {"hero": 3, "villain": 3}, "turn": "hero"}


def journal_of(journal):
    """The journal's actions, in order, as the host stored them."""
    db = sqlite3.connect(str(journal))
    try:
        return [json.loads(a) for (a,) in db.execute("SELECT action FROM actions ORDER BY seq")]
    finally:
        db.close()


def pull_plug_after(cmd, journal, count, cwd):
    """Start `fairytable run` (`cmd`), wait until it has journalled `count` actions, then
    pull the plug: kill -9 of the host and its tiles at once. Fails if the game ended
    first."""
    host = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        wait_for_journalled(host, journal, count)
        assert host.poll() is None, "the game ended before it could be killed"
    finally:
        os.killpg(host.pid, signal.SIGKILL)
        host.wait()


def wait_for_journalled(host, journal, count, timeout_s=300):
    """Wait until a `fairytable run` process has journalled `count` actions (or ended)."""
    deadline = time.monotonic() + timeout_s
    seen = 0
    while seen < count and time.monotonic() < deadline and host.poll() is None:
        time.sleep(0.2)
        if journal.exists():
            try:
                seen = sqlite3.connect(str(journal)).execute(
                    "SELECT COUNT(*) FROM actions").fetchone()[0]
            except sqlite3.OperationalError:
                seen = 0
    return seen


async def until(predicate, session, timeout=8.0):
    """Run the session's event handling until predicate() holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("timed out; mismatches: %r; log: %r" % (
                session.table.mismatches, session.log.lines[-5:]))
        try:
            ev = await session.link.next_event(timeout=0.05)
        except asyncio.TimeoutError:
            ev = None
        session.handle(ev)
        session.light()


@contextlib.asynccontextmanager
async def storybook_table(tmp_path, setup, journal=None, clock=None):
    """(session, hands, vt) with the setup's cards set out on a 7-tile virtual table.

    `clock`: the session's clock (a ManualClock to travel in time); default the real one.
    """
    layout = layouts.load(layouts.builtin_path("storybook"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("storybook", {"mode": "physical"}, 1, setup)
    with VirtualTable(tiles=7, cells=7, quiet=True) as vt:
        link = TableLink(ports=vt.ports())
        await link.start()
        try:
            while sum(t.online for t in link.tiles.values()) < 7:
                await asyncio.sleep(0.05)
            game_id = journal.start_game(match, {}) if journal is not None else None
            more = {} if clock is None else {"clock": clock}
            session = TableSession(match, layout, link, registry, [t.uid for t in vt.tiles],
                                   journal=journal, game_id=game_id, **more)
            hands = StorybookHands(vt, layout, registry)
            await hands.tidy(match.state, session.table)
            want = set(match.state.board)
            await until(lambda: set(session.table.observed) == want, session)
            yield session, hands, vt
        finally:
            await link.stop()


def lay_out(table):
    """Lay out on `table` what its game expects, as a person setting up would."""
    for cell, items in table.expected().items():
        table.observe_items(cell, items)


def apply(match, table, action):
    """Apply `action` to the match and tell the table what the engine did."""
    events = match.apply(action)
    table.after(events)
    return events


def lay_on_reader(table, seat, items, now=0):
    """Lay `items` (registry item names; [] lifts everything off) on the card reader of
    seat number `seat` (1 the game's first seat), as the session feeds a seat tile's tags;
    returns what the table shows then."""
    table.observe_seat_items(seat, list(items))
    return table.reconcile(now)
