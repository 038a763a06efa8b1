"""Sensor-to-host and host-to-LED latency on the virtual table (a developer's benchmark).

    python -m tools.bench latency --cells 49 --events 200 --json
    python -m tools.bench render --cells 8 --seconds 5 --json
    python -m tools.bench rounds --cards 0,1,5 --json

Run from the repository root.

Starts the virtual table (tiles of 7 cells, real firmware under MicroPython
on pseudo-terminals), connects the host link with pyserial, then measures:

- tag_to_host: from the moment a card enters a reader's emulated field (the
  tile stamps it, on the machine's clock) to the host link decoding the TAG
  event for that cell;
- control_to_host: the same from the host's control request that places the
  card, i.e. plus the virtual table's control channel (no part of a real
  table: a tile reads its control socket every few milliseconds);
- scene_to_led: from the host queueing an LED scene for a cell to the tile's
  LED buffer (read back over the control channel) showing it;
- rounds: how long one tile of 7 cells takes to poll every reader once (its round, the
  longest a card put down waits for its reader), with cards lying on ``--cards``.

Events are sequential (one in flight at a time) over random cells; each
card is lifted again right after its event. ``--resident K`` leaves K
other cards lying on the table as in a game (each costs its reader a full
anticollision every round, so its tile's rounds get longer); the events
then use the cells left free.
An event that does not arrive within ``--timeout`` seconds counts as lost.
Prints one JSON object (``--json``) or a short table.
"""

import argparse
import asyncio
import json
import random
import sys
import threading
import time

CELLS_PER_TILE = 7


def percentile(values, p):
    """Nearest-rank percentile of a non-empty list (p in 0..100)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


async def tile_stats(tiles):
    """{tile index: its stats} of the virtual tiles that answer (one gone is left out)."""
    stats = {}
    for t in tiles:
        try:
            stats[t.index] = await asyncio.to_thread(t.stats)
        except Exception:
            pass
    return stats


def print_result(result, as_json):
    """A latency run's figures: one JSON object, or a line each."""
    if as_json:
        print(json.dumps(result, sort_keys=True))
    else:
        for k in sorted(result):
            print("%-22s %s" % (k, result[k]))


class _LedWatch:
    """Timestamps the first LED frame of a tile in which a cell matches a predicate."""

    def __init__(self, tile):
        self.tile = tile
        self.cond = None
        self.hit = None
        self.lock = threading.Lock()
        tile.watch_leds(self._on_frame)

    def arm(self, cell, predicate):
        with self.lock:
            self.hit = None
            self.cond = (cell, predicate)

    def _on_frame(self, frame_no, frame, _t):
        now = time.monotonic()
        with self.lock:
            if self.cond is not None and self.hit is None:
                cell, pred = self.cond
                if pred(self.tile.cell_pixels(cell, frame)):
                    self.hit = now


async def _latency(args):
    from shared_rules.led_scene import SOLID, uniform_scene
    from host.link import TableLink
    from host.virtual import open_table

    tiles = (args.cells + CELLS_PER_TILE - 1) // CELLS_PER_TILE
    ports, table = await asyncio.to_thread(open_table, (), tiles=tiles, cells=CELLS_PER_TILE,
                                           heapsize=args.heap, announce=None)
    link = TableLink(ports=ports)
    await link.start()
    rng = random.Random(args.seed)
    cells = [(t, c) for t in table.tiles for c in range(CELLS_PER_TILE)][:args.cells]
    tag_ms, ctl_ms, scene_ms = [], [], []
    # The tiles stamp placements with the wall clock; the link stamps events with the
    # monotonic one.
    wall_minus_mono = (time.time_ns() - time.monotonic_ns()) / 1e9
    lost = 0
    try:
        online = set()
        deadline = time.monotonic() + 30
        while len(online) < tiles and time.monotonic() < deadline:
            ev = await link.next_event(30)
            if ev.kind == "online":
                online.add(ev.tile)
        if len(online) < tiles:
            raise RuntimeError("only %d of %d tiles came online" % (len(online), tiles))
        # Cards left lying on the table, as in a game: each makes its reader's polls
        # longer (a full anticollision every round), so every round of its tile too.
        lying = rng.sample(cells, args.resident)
        for k, (tile, cell) in enumerate(lying):
            await asyncio.to_thread(tile.place, cell, "04%012x" % (0xA000000000 + k),
                                    identity="lying%d" % k)
        free = [c for c in cells if c not in lying]
        await asyncio.sleep(0.2 + 0.02 * len(lying))
        # -- tag placed -> TAG event at the host
        for k in range(args.events):
            tile, cell = free[rng.randrange(len(free))]
            uid = "04%012x" % (0xB000000000 + k)
            while not link.queue.empty():
                link.queue.get_nowait()
            t0 = time.monotonic()
            placed = asyncio.ensure_future(asyncio.to_thread(tile.request, "place",
                                                             slot=cell, uid=uid))
            got = None
            end = t0 + args.timeout
            while got is None and time.monotonic() < end:
                try:
                    ev = await link.next_event(max(0.001, end - time.monotonic()))
                except asyncio.TimeoutError:
                    break
                if (ev.kind == "tags" and ev.tile == tile.uid and ev.slot == cell
                        and any(t[0] == uid for t in ev.tags)):
                    got = ev.at
            reply = await placed
            if got is None:
                lost += 1
            else:
                tag_ms.append((got - (reply["at_ns"] / 1e9 - wall_minus_mono)) * 1000.0)
                ctl_ms.append((got - t0) * 1000.0)
            # The player takes the card away again: the table stays as sparse as in play
            # between moves, and the next event does not wait for this removal.
            tile.send_nowait("lift", slot=cell, uid=uid)
        # -- LED scene from the host -> the tile's LED buffer
        watches = {t.index: _LedWatch(t) for t in table.tiles}
        lit = {}
        for k in range(args.events):
            tile, cell = cells[rng.randrange(len(cells))]
            w = watches[tile.index]
            turn_on = not lit.get((tile.index, cell), False)
            scene = uniform_scene(SOLID, (0, 0, 160 + k % 64)) if turn_on else bytes(24)
            w.arm(cell, (lambda px: any(px)) if turn_on else (lambda px: not any(px)))
            t0 = time.monotonic()
            link.set_scene(tile.uid, [(cell, scene)])
            end = t0 + args.timeout
            while w.hit is None and time.monotonic() < end:
                await asyncio.sleep(0.0005)
            if w.hit is None:
                lost += 1
            else:
                scene_ms.append((w.hit - t0) * 1000.0)
                lit[(tile.index, cell)] = turn_on
        stats = await tile_stats(table.tiles)
    except Exception:
        for t in table.tiles:
            if not t.alive() or t.log_tail():
                print("bench: tile %d (%s); its log:\n%s" % (
                    t.index, "running" if t.alive() else "dead", t.log_tail()), file=sys.stderr)
        raise
    finally:
        await link.stop()
        await asyncio.to_thread(table.stop)
    if args.slowest:
        print("slowest tag_to_host (ms):", sorted(round(x, 1) for x in tag_ms)[-args.slowest:],
              file=sys.stderr)
    result = {
        "cells": args.cells,
        "events": args.events,
        "resident": args.resident,
        "lost": lost,
        "tag_to_host_p50_ms": round(percentile(tag_ms, 50), 2) if tag_ms else None,
        "tag_to_host_p99_ms": round(percentile(tag_ms, 99), 2) if tag_ms else None,
        "control_to_host_p50_ms": round(percentile(ctl_ms, 50), 2) if ctl_ms else None,
        "control_to_host_p99_ms": round(percentile(ctl_ms, 99), 2) if ctl_ms else None,
        "scene_to_led_p50_ms": round(percentile(scene_ms, 50), 2) if scene_ms else None,
        "scene_to_led_p99_ms": round(percentile(scene_ms, 99), 2) if scene_ms else None,
        "tiles": tiles,
        "interpreter": table.interpreter,
        "firmware_heap": args.heap,
        "tile_heap_free_min": min((s.get("heap_free") or 0 for s in stats.values()),
                                  default=None),
        "tile_render_max_ms": max((s.get("render_max_ms") or 0 for s in stats.values()),
                                  default=None),
    }
    return result


async def _render(args):
    """One tile of 8 cells with an animated scene on every cell: render time per frame."""
    from firmware.config import timings
    from shared_rules.led_scene import CHASE, PULSE, uniform_scene
    from host.link import TableLink
    from host.virtual import open_table

    ports, table = await asyncio.to_thread(open_table, (), tiles=1, cells=args.cells,
                                           heapsize=args.heap, announce=None)
    tile = table.tiles[0]
    try:
        async with TableLink(ports=ports) as link:
            while (await link.next_event(30)).kind != "online":
                pass
            link.set_scene(tile.uid, [(c, uniform_scene(CHASE if c % 2 else PULSE,
                                                        (0, 140, 255), 25, 3))
                                      for c in range(args.cells)])
            before = await asyncio.to_thread(tile.stats)
            await asyncio.sleep(args.seconds)
            after = await asyncio.to_thread(tile.stats)
    finally:
        await asyncio.to_thread(table.stop)
    frames = after["frames"] - before["frames"]
    return {"cells": args.cells, "seconds": args.seconds, "frame_ms": timings()["frame_ms"],
            "frames": frames, "fps": round(frames / args.seconds, 1),
            "render_max_ms": after["render_max_ms"], "interpreter": table.interpreter,
            "firmware_heap": args.heap, "tile_heap_free": after["heap_free"]}


async def _rounds(args):
    """One tile of 7 cells, a card lying on each of ``args.cards``: its round, measured from
    the tile's round counter over ``args.seconds``, ``args.samples`` times."""
    from host.link import TableLink
    from host.virtual import open_table

    ports, table = await asyncio.to_thread(open_table, (), tiles=1, cells=CELLS_PER_TILE,
                                           heapsize=args.heap, announce=None)
    tile = table.tiles[0]
    rounds_ms = []
    try:
        async with TableLink(ports=ports) as link:
            while (await link.next_event(30)).kind != "online":
                pass
            for k, cell in enumerate(args.cards):
                await asyncio.to_thread(tile.place, cell, "04%012x" % (0xA000000000 + k),
                                        identity="lying%d" % k)
            await asyncio.sleep(1.0)        # found, reported, and lying still
            for _ in range(args.samples):
                before = await asyncio.to_thread(tile.stats)
                t0 = time.monotonic()
                await asyncio.sleep(args.seconds)
                after = await asyncio.to_thread(tile.stats)
                done = after["rounds"] - before["rounds"]
                rounds_ms.append(round((time.monotonic() - t0) * 1000.0 / done, 1)
                                 if done else None)
            reported = link.tiles[tile.uid].slots
    finally:
        await asyncio.to_thread(table.stop)
    return {"cards": args.cards, "cards_reported": sorted(c for c in reported if reported[c]),
            "seconds": args.seconds, "round_ms": rounds_ms, "interpreter": table.interpreter,
            "firmware_heap": args.heap, "tile_heap_free": after["heap_free"]}


def main(argv):
    p = argparse.ArgumentParser(prog="python -m tools.bench", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="bench", required=True)
    lat = sub.add_parser("latency", help="tag-to-host and scene-to-LED latency")
    lat.add_argument("--cells", type=int, default=49)
    lat.add_argument("--events", type=int, default=200)
    lat.add_argument("--timeout", type=float, default=2.0, help="seconds before an event is lost")
    lat.add_argument("--seed", type=int, default=1)
    lat.add_argument("--heap", default="64k", help="firmware heap of each tile")
    lat.add_argument("--json", action="store_true", help="print one JSON object")
    lat.add_argument("--resident", type=int, default=0, metavar="K",
                     help="leave K cards lying on random cells (events use the others)")
    lat.add_argument("--slowest", type=int, default=0, metavar="N",
                     help="also print the N slowest tag_to_host times on stderr")
    ren = sub.add_parser("render", help="LED render time of one tile with every cell animated")
    ren.add_argument("--cells", type=int, default=8)
    ren.add_argument("--seconds", type=float, default=5.0)
    ren.add_argument("--heap", default="64k", help="firmware heap of the tile")
    ren.add_argument("--json", action="store_true", help="print one JSON object")
    rnd = sub.add_parser("rounds", help="a 7-cell tile's round with cards lying on it")
    rnd.add_argument("--cards", default="", help="the cells a card lies on: 0,1,5 (none: empty)")
    rnd.add_argument("--seconds", type=float, default=4.0, help="each sample's length")
    rnd.add_argument("--samples", type=int, default=3)
    rnd.add_argument("--heap", default="64k", help="firmware heap of the tile")
    rnd.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.bench == "rounds":
        given = args.cards
        try:
            args.cards = sorted(set(int(c) for c in given.split(",") if c.strip()))
        except ValueError:
            args.cards = [-1]
        if any(not 0 <= c < CELLS_PER_TILE for c in args.cards):
            p.error("--cards: cell numbers 0 to 6 with commas between, not %r" % given)
        if args.samples < 1 or not args.seconds > 0:
            p.error("--samples must be at least 1 and --seconds more than 0")
        result = asyncio.run(_rounds(args))
        print_result(result, args.json)
        return 0
    if args.bench == "render":
        result = asyncio.run(_render(args))
        print(json.dumps(result, sort_keys=True) if args.json else result)
        return 0
    if args.cells < 1 or args.events < 1:
        p.error("--cells and --events must be at least 1")
    if not 0 <= args.resident < args.cells:
        p.error("--resident must be at least 0 and less than --cells")
    result = asyncio.run(_latency(args))
    print_result(result, args.json)
    return 0 if result["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
