"""A card placed to its result lit: what a person at the table feels (a developer's benchmark).

    python -m tools.bench_lit --game storybook --moves 200 --json
    python -m tools.bench_lit --game royale --moves 200 --json
    python -m tools.bench_lit --game storybook --moves 200 --mqtt --json

Run from the repository root. It plays on the virtual table with the pieces of
`fairytable run`: the game's layout, real tile firmware under MicroPython on
pseudo-terminals opened with pyserial, the host link, a `TableSession` with a real
journal file (SQLite, WAL, synchronous=FULL: an fsync per action), the tag registry and
the game's virtual hands; with ``--mqtt`` the table also joins a hall on a real
Mosquitto started on a free loopback port (host/hall/table.py, as `fairytable run
--mqtt URL` does).

How the moves are made: bots play every seat (greedy, seeded), the session's own loop
runs (`TableSession.run`), and the virtual hands carry out each bot's move through the
tiles, as in `fairytable run --headless`. The benchmark times the placements that are
the move a person makes and feels:

- Storybook Battles: a card played face up next to a face-up enemy card (it fights:
  its edges light swords toward the enemy). Every game starts from one position with 20
  cards lying on the 7 x 7 table, three or so a tile (`storybook_position`); after
  ``--per-game`` timed plays, staff end the game and start the next one from the same
  position with the next seed (the session's staff "reset" and "start"), so the table
  never drifts far from 20 cards.
- Battle Royale: a pawn's move (lifted, put on the next cell): timed while at least 20
  map cards lie on the diamond; then the next game (next seed).

The table knows the move it asked for, so a Storybook play is applied as soon as its
tag is read. A person's own face-up play waits the interpreter's hide window (a double
tap may follow: Hide; host/games/storybook/interpreter.py, 1.2 s) before it is applied:
that wait is the rules' gesture, not the table's speed, and is not in these figures.

What is measured per timed placement (all on this machine's monotonic clock):

- tag_to_host: the tile stamps the moment the tag enters the emulated reader's field
  (as `python -m tools.bench latency` does) -> the host link decodes the TAG event;
- host: TAG decoded -> the LED command with the result sent to the tile (the session's
  loop picking the event up, the interpreter, the rules, the journal with its fsync,
  the scenes); within it, journal: the journal's append alone; host_to_applied: up to
  the action applied and journalled; applied_to_sent: from there to the LED command;
- scene_to_led: that LED command -> the first frame of the tile's LED buffer (read back
  over the virtual table's control channel, watched only on the tile of the move; the
  tile stamps the moment it showed it, as it stamps the tag) that shows the result: the
  frame equals what the tile's effects engine renders from the scenes the host has sent
  it (or from those after a later command to that tile), at some moment of the 250 ms
  before it was shown, and could not have come from the scenes before;
- tag_to_lit: all of it, from the tag in the field to the result in the LED buffer.

p50 and p99 are nearest-rank. A placement whose result is not seen lit within 3 s is
counted as lost. Prints one JSON object (``--json``) or a short table.
"""

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import threading
import time

from tools.bench import percentile, print_result, tile_stats

TICKS_MASK = (1 << 30) - 1     # a MicroPython tile's ticks_ms wraps here (unix: CLOCK_MONOTONIC)
RENDER_WINDOW_MS = 250         # a frame was rendered at most this long before it arrived
LOST_S = 3.0
STALL_S = 120.0                # a game with no action this long is stuck: the run stops


# ---------------------------------------------------------------- the games' positions

def storybook_position(options):
    """20 cards lying face up on the 7 x 7 table: Heroes on columns 0-1, Villains on 5-6,
    every row (every tile) with two to four cards; columns 2-4 are free, so a card played
    at column 2 or 4 meets an enemy. The cards are of teams neither seat plays, so each
    seat's own deck stays whole; the Villain moves first with 5 cards in hand each."""
    from shared_rules import storybook
    state = storybook.new_game(options, 0)
    used = set(t for seat in state.seats for t in state.teams[seat])
    cat = state.cat
    spare = {"hero": [], "villain": []}
    for cid in sorted(cat.cards):
        card = cat.cards[cid]
        if card[3] not in used and card[2] in spare:
            spare[card[2]].append(cid)
    cells = {"hero": [(1, r) for r in range(7)] + [(0, 1), (0, 3), (0, 5)],
             "villain": [(5, r) for r in range(7)] + [(6, 0), (6, 2), (6, 4)]}
    board = []
    for side in ("hero", "villain"):
        for cell, cid in zip(cells[side], spare[side], strict=False):
            board.append({"card": cid, "cell": list(cell), "owner": side})
    return {"board": board, "hands": {seat: 5 for seat in state.seats},
            "turn": "villain"}


class StorybookMoves:
    game = "storybook"

    def __init__(self):
        from host import games
        self.options = dict(games.table_game("storybook").options)
        self.setup = storybook_position(self.options)

    def new_match(self, seed):
        from shared_rules.engine import Match
        return Match("storybook", self.options, seed, self.setup)

    def timed(self, state, request, cell):
        """Is placing on `cell` the timed move: the bot's face-up play that fights?"""
        from shared_rules import storybook
        if request is None or request["type"] != "play" or state.phase != "play" or \
                tuple(request["cell"]) != cell:
            return False
        side = storybook.side_of(state.turn)
        for dx, dy in storybook.STEPS:
            other = state.board.get((cell[0] + dx, cell[1] + dy))
            if other is not None and other[3] and storybook.side_of(other[1]) != side:
                return True
        return False

    def lying(self, state):
        return len(state.board)

    def game_over_for_us(self, state, timed_in_game, per_game):
        return timed_in_game >= per_game


class RoyaleMoves:
    game = "royale"

    def __init__(self):
        from host import games
        self.options = dict(games.table_game("royale").options)

    def new_match(self, seed):
        from shared_rules.engine import Match
        return Match("royale", self.options, seed)

    def lying(self, state):
        return sum(1 for card in state.map if card is not None)

    def timed(self, state, request, cell):
        """Is placing on `cell` the timed move: a pawn put down at the end of its move, with
        at least 20 map cards lying on the table?"""
        return (request is not None and request["type"] == "move" and
                tuple(request["to"]) == cell and self.lying(state) >= 20)

    def game_over_for_us(self, state, timed_in_game, per_game):
        return self.lying(state) < 20


MOVES = {"storybook": StorybookMoves, "royale": RoyaleMoves}


# ---------------------------------------------------------------- what the tile should show

class FrameJudge:
    """Tells whether an LED frame of a tile shows a set of scenes: the tile's own effects
    engine (firmware/effects.py, on CPython here) renders the scenes at each moment of the
    frame's last RENDER_WINDOW_MS on the tile's clock, budget and brightness included."""

    def __init__(self, cells, leds_per_segment):
        from firmware.effects import EffectsEngine
        self.engine = EffectsEngine(cells, leds_per_segment)

    def could_show(self, scenes, frame, arrived_mono):
        eng = self.engine
        eng.clear()
        for cell, scene in scenes.items():
            eng.set_cell(cell, scene)
        end = int(arrived_mono * 1000) + 1
        if not eng.animated():
            return bytes(eng.render(end & TICKS_MASK)) == frame
        for ms in range(end - RENDER_WINDOW_MS, end + 1):
            if bytes(eng.render(ms & TICKS_MASK)) == frame:
                return True
        return False


# ---------------------------------------------------------------- one timed placement

class Placement:
    def __init__(self, request, cell, tile, slot, uid_hex, lying):
        self.request = request
        self.cell = cell
        self.tile = tile
        self.slot = slot
        self.uid_hex = uid_hex
        self.lying = lying
        self.tag_at = None          # the tag entered the field (monotonic s)
        self.host_at = None         # the link decoded its TAG event
        self.applied_at = None
        self.sent_at = None         # the LED command with the result
        self.scenes_before = None
        self.scenes_after = None
        self.scenes_later = []      # the tile's scenes after each later LED command
        self.journal_s = 0.0
        self.frames = []            # (arrived monotonic s, frame bytes)
        self.lit_at = None


class LitProbe:
    """Hooks on the session, its link, journal and hands that time the chosen placements."""

    def __init__(self, session, moves, vtable):
        self.session = session
        self.moves = moves
        self.vtable = vtable
        self.current = None
        self.done = []
        self.lost = 0
        self.why_lost = []
        self.watching = threading.Lock()
        self.idle = asyncio.Event()
        self.idle.set()
        self.wall_minus_mono = (time.time_ns() - time.monotonic_ns()) / 1e9
        self.judges = {}
        self._hook()

    def _hook(self):
        session = self.session
        hands = session.bots.hands
        link = session.link
        journal = session.journal
        probe = self
        place = hands.place

        async def timed_place(cell, item):
            state = session.match.state
            request = session.bots.request
            if not probe.moves.timed(state, request, cell):
                return await place(cell, item)
            await probe.idle.wait()         # one timed placement at a time
            from host.table import tags
            index, slot = session.layout.slot_of[cell]
            tile = hands.by_index[index]
            p = Placement(request, cell, tile, slot, tags.virtual_uid(item).hex(),
                          probe.moves.lying(state))
            probe.idle.clear()
            await asyncio.to_thread(tile.watch_leds, None, True)
            probe.current = p
            reply = await place(cell, item)
            if reply and reply.get("at_ns"):
                p.tag_at = reply["at_ns"] / 1e9 - probe.wall_minus_mono
            asyncio.ensure_future(probe._finish(p))
            return reply
        hands.place = timed_place

        on_event = session.on_event

        def timed_event(ev):
            p = probe.current
            if p is not None and p.host_at is None and ev.kind == "tags" and \
                    ev.tile == p.tile.uid and ev.slot == p.slot and \
                    any(t[0] == p.uid_hex for t in ev.tags):
                p.host_at = ev.at
            return on_event(ev)
        session.on_event = timed_event

        previous_applied = session.on_applied

        def applied(action, events):
            p = probe.current
            if p is not None and p.applied_at is None and \
                    session.game.carries_out(action, p.request):
                p.applied_at = time.monotonic()
            if previous_applied is not None:
                previous_applied(action, events)
        session.on_applied = applied

        set_scene = link.set_scene

        def timed_set_scene(uid, cells):
            p = probe.current
            if p is not None and p.sent_at is not None and uid == p.tile.uid:
                # A later command to the same tile (another cell's light): a frame rendered
                # after it shows the result too.
                seq = set_scene(uid, cells)
                p.scenes_later.append(dict(link.tiles[uid].scene))
                return seq
            if p is None or p.applied_at is None or p.sent_at is not None or \
                    uid != p.tile.uid or p.slot not in [c for c, _ in cells]:
                return set_scene(uid, cells)
            p.scenes_before = dict(link.tiles[uid].scene)
            p.sent_at = time.monotonic()
            seq = set_scene(uid, cells)
            p.scenes_after = dict(link.tiles[uid].scene)
            return seq
        link.set_scene = timed_set_scene

        append = journal.append

        def timed_append(*args, **kwargs):
            t0 = time.monotonic()
            try:
                return append(*args, **kwargs)
            finally:
                p = probe.current
                if p is not None and p.host_at is not None and p.sent_at is None:
                    p.journal_s += time.monotonic() - t0
        journal.append = timed_append

        for tile in self.vtable.tiles:
            tile.watch_leds(self._frame_of(tile), on=False)

    def _frame_of(self, tile):
        def on_frame(_frame_no, frame, _t):
            # The tile's own stamp of the moment it showed the frame (the tag's is the
            # tile's too): not when this busy process got round to reading it.
            at_ns = tile.frame_at_ns
            now = at_ns / 1e9 - self.wall_minus_mono if at_ns else time.monotonic()
            p = self.current
            if p is not None and p.tile is tile and p.lit_at is None:
                p.frames.append((now, frame))
        return on_frame

    def _judge(self, tile):
        judge = self.judges.get(tile.index)
        if judge is None:
            cells = self.session.link.tiles[tile.uid].cells
            per_segment = tile.ready_info["leds_per_cell"] // 4
            judge = self.judges[tile.index] = FrameJudge(cells, per_segment)
        return judge

    async def _finish(self, p):
        """Wait for the result's frames, then find the first that shows it (off the clock:
        the frames were stamped as they arrived)."""
        try:
            deadline = time.monotonic() + LOST_S
            while time.monotonic() < deadline and (
                    p.sent_at is None or time.monotonic() < p.sent_at + 0.3):
                await asyncio.sleep(0.01)
            self.current = None
            await asyncio.to_thread(p.tile.watch_leds, None, False)
            if p.sent_at is not None and p.tag_at is not None and p.host_at is not None:
                judge = self._judge(p.tile)
                for arrived, frame in list(p.frames):
                    if arrived < p.sent_at:
                        continue
                    if any(judge.could_show(scenes, frame, arrived) for scenes in
                           [p.scenes_after] + p.scenes_later) and \
                            not judge.could_show(p.scenes_before, frame, arrived):
                        p.lit_at = arrived
                        break
            if p.lit_at is None:
                self.lost += 1
                self.why_lost.append(
                    "no tag stamp" if p.tag_at is None else "no TAG event" if p.host_at is None
                    else "not applied" if p.applied_at is None else "no LED command"
                    if p.sent_at is None else "no frame showing it (%d frames)" % len(p.frames))
            else:
                self.done.append(p)
        finally:
            self.idle.set()


# ---------------------------------------------------------------- the run

def _start_broker(folder):
    from tools.bench_hall import start_broker
    return start_broker(folder)


async def measure(args, folder):
    """Play and time (see the module docstring); returns (result, the timed Placements,
    in order). `folder` holds the journal, key and registry."""
    from host import games
    from host import journal as journals
    from host.journal import Journal
    from host.link import TableLink
    from host.run import VIRTUAL_START_S, wait_for_tiles
    from host.session import SessionLog, TableSession
    from host.table import layout as layouts
    from host.table import tags
    from host.virtual import open_table

    from host.run import stop_on_sigterm
    stop_on_sigterm()       # SIGTERM stops it as Ctrl-C does: the tiles and journal closed
    moves = MOVES[args.game]()
    game = games.table_game(args.game)
    layout = layouts.load(layouts.builtin_path(args.game))
    journal_path = os.path.join(folder, "journal.db")
    journal = Journal(journal_path, journals.check(journal_path, replay_finished=False))
    registry = tags.Registry(tags.make_key(os.path.join(folder, "installation.key")),
                             os.path.join(folder, "tags.db"))
    seed = args.seed
    match = moves.new_match(seed)
    seats = game.seats(match.options, match.setup)
    bot_seats = dict((seat, "greedy") for seat in seats)
    game_id = journal.start_game(match, {"bots": bot_seats, "seed": seed, "layout": layout.path})
    ports, vtable = open_table((), layout, heapsize=game.virtual_heap,
                               tags_per_reader=game.virtual_tags_per_reader, announce=None)
    link = TableLink(ports=ports)
    hall = broker = None
    games_played = 1
    try:
        await link.start()
        uids = await wait_for_tiles(link, len(layout.tiles), [t.uid for t in vtable.tiles],
                                    timeout_s=VIRTUAL_START_S)
        hands = game.hands(vtable, layout, registry)
        session = TableSession(match, layout, link, registry, uids, journal, game_id,
                               bot_seats, seed, hands, SessionLog(None), hide_window_ms=900)
        await hands.tidy(match.state, session.table)
        next_seed = [seed]

        def new_game():
            next_seed[0] += 1
            fresh = moves.new_match(next_seed[0])
            return fresh, journal.start_game(fresh, {"bots": bot_seats, "seed": next_seed[0],
                                                     "layout": layout.path})
        session.new_game = new_game
        if args.mqtt:
            from types import SimpleNamespace
            from host.hall.table import check_arguments, start_for_run
            broker, port = _start_broker(folder)
            hall_args = SimpleNamespace(mqtt="mqtt://127.0.0.1:%d" % port, hall=None,
                                        table_id="bench-lit", ha_discovery=False, json=True)
            check_arguments(hall_args)
            hall = await start_for_run(hall_args, session, None)
        probe = LitProbe(session, moves, vtable)
        started = time.monotonic()

        def timed_so_far():
            return len(probe.done) + probe.lost
        while timed_so_far() < args.moves:
            counted = timed_so_far()
            run = asyncio.ensure_future(session.run())
            # Watch the game: when it has given what it can, staff end it and start the next.
            moved = (len(session.match.actions), time.monotonic())
            while not run.done():
                await asyncio.sleep(0.05)
                if time.monotonic() - started > args.deadline:
                    run.cancel()
                    raise RuntimeError("only %d of %d placements timed in %d s" % (
                        timed_so_far(), args.moves, args.deadline))
                if len(session.match.actions) != moved[0]:
                    moved = (len(session.match.actions), time.monotonic())
                elif time.monotonic() - moved[1] > STALL_S:
                    run.cancel()
                    raise RuntimeError("no action for %d s; the session said:\n%s" % (
                        STALL_S, "\n".join(session.log.lines[-30:])))
                if timed_so_far() >= args.moves or (
                        probe.idle.is_set() and session.bots.request is None and
                        moves.game_over_for_us(session.match.state, timed_so_far() - counted,
                                               args.per_game)):
                    break
            await probe.idle.wait()
            if run.done():
                run.result()
            else:
                run.cancel()
                try:
                    await run
                except asyncio.CancelledError:
                    pass
            if timed_so_far() >= args.moves:
                break
            if session.layout.dice_tile is not None:
                # The new game's interpreter starts from what the old one saw on the cells,
                # not in the dice tray: dice left there would not count as thrown, and a
                # die put back showing the face it showed is no change the tile reports (the
                # first order roll waited for ever). The players take the dice out first.
                await session.bots.hands.empty_tray(session.table, wait=False)
                await asyncio.sleep(0.5)
            session.staff("reset")
            session.staff("start")
            session.link.resync()       # and the tiles say what lies on them
            games_played += 1
        stats = await tile_stats(vtable.tiles)
    finally:
        if hall is not None:
            await hall.stop()
        await link.stop()
        await asyncio.to_thread(vtable.stop)
        journal.close()
        if broker is not None:
            broker.terminate()
            broker.wait(10)
    done = probe.done

    def ms(values):
        return [1000.0 * v for v in values]
    series = {
        "tag_to_lit": ms(p.lit_at - p.tag_at for p in done),
        "tag_to_host": ms(p.host_at - p.tag_at for p in done),
        "host": ms(p.sent_at - p.host_at for p in done),
        "journal": ms(p.journal_s for p in done),
        "host_to_applied": ms(p.applied_at - p.host_at for p in done),
        "applied_to_sent": ms(p.sent_at - p.applied_at for p in done),
        "scene_to_led": ms(p.lit_at - p.sent_at for p in done),
    }
    result = {"game": args.game, "moves": len(done), "lost": probe.lost, "games": games_played,
              "why_lost": sorted(set(probe.why_lost)),
              "mqtt": bool(args.mqtt), "seed": args.seed, "interpreter": vtable.interpreter,
              "tiles": len(layout.tiles),
              "cards_lying_min": min((p.lying for p in done), default=None),
              "cards_lying_max": max((p.lying for p in done), default=None),
              "tile_heap_free_min": min((s.get("heap_free") or 0 for s in stats.values()),
                                        default=None)}
    for name, values in sorted(series.items()):
        result[name + "_p50_ms"] = round(percentile(values, 50), 2) if values else None
        result[name + "_p99_ms"] = round(percentile(values, 99), 2) if values else None
        result[name + "_max_ms"] = round(max(values), 2) if values else None
    if args.slowest:
        worst = sorted(done, key=lambda p: p.lit_at - p.tag_at)[-args.slowest:]
        for p in worst:
            print("slow: tile %d cell %r: tag_to_host %.1f host %.1f (journal %.1f) "
                  "scene_to_led %.1f ms" % (
                      p.tile.index, list(p.cell), 1000 * (p.host_at - p.tag_at),
                      1000 * (p.sent_at - p.host_at), 1000 * p.journal_s,
                      1000 * (p.lit_at - p.sent_at)), file=sys.stderr)
    return result, done


def main(argv):
    p = argparse.ArgumentParser(prog="python -m tools.bench_lit",
                                description=__doc__.split("\n")[0])
    p.add_argument("--game", default="storybook", choices=sorted(MOVES))
    p.add_argument("--moves", type=int, default=100, help="timed placements (default 100)")
    p.add_argument("--per-game", type=int, default=5,
                   help="Storybook: timed plays per game before the next (default 5)")
    p.add_argument("--seed", type=int, default=1, help="the first game's seed (default 1)")
    p.add_argument("--mqtt", action="store_true",
                   help="the table also joins a hall on a Mosquitto of its own")
    p.add_argument("--deadline", type=float, default=3600.0,
                   help="give up after this many seconds (default 3600)")
    p.add_argument("--slowest", type=int, default=0, metavar="N",
                   help="also print the N slowest placements, broken down, on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.moves < 1 or args.per_game < 1:
        p.error("--moves and --per-game must be at least 1")
    folder = tempfile.mkdtemp(prefix="bench-lit-")
    try:
        result, _ = asyncio.run(measure(args, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print_result(result, args.json)
    return 0 if result["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
