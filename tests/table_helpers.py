"""A Storybook session on a real virtual table, for tests that drive it step by step."""

import asyncio
import contextlib

from host.link import TableLink
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.virtual_hands import StorybookHands
from host.virtual import VirtualTable
from shared_rules.engine import Match


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
        action = session.on_event(ev) if ev is not None else session.table.tick(
            session_now())
        if action is not None:
            session._apply_table_action(action)
        session._count_mismatch()
        session.light()


def session_now():
    from host.session import now_ms
    return now_ms()


@contextlib.asynccontextmanager
async def storybook_table(tmp_path, setup, journal=None):
    """(session, hands, vt) with the setup's cards set out on a 7-tile virtual table."""
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
            session = TableSession(match, layout, link, registry, [t.uid for t in vt.tiles],
                                   journal=journal, game_id=game_id)
            hands = StorybookHands(vt, layout, registry)
            await hands.tidy(match.state, session.table)
            want = set(match.state.board)
            await until(lambda: set(session.table.observed) == want, session)
            yield session, hands, vt
        finally:
            await link.stop()
