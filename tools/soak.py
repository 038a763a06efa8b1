"""Soak: whole headless games of every game, one after another, on one virtual table each.

The game kinds are every game the table plays (the host's registry, host/games/__init__.py;
`--game` chooses among them), all bots: as many players as the game usually has
(`--players` chooses), set up by the book unless `--setup FILE` gives the position (one
`--game` only). For each game kind the virtual table starts once (the real firmware under
MicroPython, 64 KB of heap per tile) and the host keeps one link to it; then GAMES games
are played through it, one after the other, as a table left running at a fair plays them.
At the start and at the end of every game it records the host's resident memory (RSS,
from /proc) and every tile's free heap (the tile's own count after a garbage collection,
the figure its HEALTH reports), so a leak on either end shows as a trend. It prints one
JSON line per game and a summary: first, last and worst figures of each.

    python tools/soak.py [--games 10] [--game storybook --game royale] [--seed 1]
    python tools/soak.py --games 3 --game heroes --setup small.json --seed 17

Exit status 1 if a game did not finish, or a tile logged a MemoryError or restarted.
"""

import argparse
import asyncio
import gc
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from host.journal import Journal  # noqa: E402
from host.link import TableLink  # noqa: E402
from host.run import new_game_setup, wait_for_tiles  # noqa: E402
from host.session import SessionLog, TableSession  # noqa: E402
from host.table import layout as layouts  # noqa: E402
from host.table import tags  # noqa: E402
from host.games import table_game  # noqa: E402
from shared_rules.engine import Match  # noqa: E402
from host.virtual import open_table  # noqa: E402
from line_faults import check_game_options, run_options, table_games  # noqa: E402
# (a script beside this one)


def host_rss_kb():
    """The host process's resident memory in KB (Linux /proc), or None elsewhere."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def host_memory():
    """The host's RSS, and the blocks the Python heap holds after a collection (a leak of
    Python objects grows the second; the first also holds SQLite's and the C heap's)."""
    gc.collect()
    return {"rss_kb": host_rss_kb(), "py_blocks": sys.getallocatedblocks()}


async def tile_heaps(vtable):
    """Every tile's free heap, in tile order (None for a tile that does not answer)."""
    out = []
    for tile in vtable.tiles:
        try:
            out.append((await asyncio.to_thread(tile.stats))["heap_free"])
        except Exception:  # a dead tile is reported as such, not a crash of the soak
            out.append(None)
    return out


async def soak_game_kind(kind, games, seed, workdir, say, setup=None, players=None):
    """Play ``games`` games of ``kind`` on one virtual table; the per-game records (JSON).
    ``setup`` (a file) and ``players``: as tools/line_faults.py's run_options."""
    game = table_game(kind)
    layout = layouts.load(layouts.builtin_path(kind))
    registry = tags.Registry(tags.load_key(os.path.join(workdir, "installation.key")),
                             os.path.join(workdir, "tags.db"))
    journal = Journal(os.path.join(workdir, "%s.db" % kind))
    # The virtual table as `fairytable run` opens it for this game (a seat tile's firmware,
    # the tags a reader may hold stacked).
    ports, vtable = open_table(layout=layout, heapsize=game.virtual_heap,
                               tags_per_reader=game.virtual_tags_per_reader, announce=None)
    records = []
    link = TableLink(ports=ports)
    try:
        await link.start()
        uids = await wait_for_tiles(link, len(layout.tiles), [t.uid for t in vtable.tiles])
        hands = game.hands(vtable, layout, registry)
        # The options `fairytable run` takes for this game with a bot in every seat.
        run_args = run_options(kind, setup, players)
        count = int(run_args[run_args.index("--bots") + 1])
        for k in range(games):
            args = argparse.Namespace(setup=setup, players=players, headless=True, bots=count,
                                      mode=None)
            options, game_setup = new_game_setup(args, game)
            seats = game.seats(options, game_setup)
            bots = {seat: "greedy" for seat in seats}
            game_seed = seed + k
            match = Match(kind, options, game_seed, game_setup)
            game_id = journal.start_game(match, {"bots": bots, "seed": game_seed,
                                                 "layout": layout.path})
            # The last game's cards, pawns and dice come off the table first, as people
            # clear it (the new game's session has not seen them: its tidy would pile the
            # new cards on top of them).
            for tile, spec in zip(vtable.tiles, layout.tiles, strict=True):
                for slot in range(spec.slots):     # cells, dice pockets or seat readers
                    await asyncio.to_thread(tile.clear, slot)
            await asyncio.sleep(1.0)    # the tiles' gone polls, then the host has seen it
            start = dict(host_memory(), tile_heap_free=await tile_heaps(vtable))
            began = time.monotonic()
            session = TableSession(match, layout, link, registry, uids, journal, game_id,
                                   bots, game_seed, hands, SessionLog(None),
                                   hide_window_ms=900)
            await hands.tidy(match.state, session.table)
            summary = await session.run()
            seconds = round(time.monotonic() - began, 1)
            end = dict(host_memory(), tile_heap_free=await tile_heaps(vtable))
            logs = [tile.log_tail() for tile in vtable.tiles]
            record = {"game": kind, "n": k + 1, "seed": game_seed,
                      "status": summary.get("status"), "actions": summary.get("actions"),
                      "seconds": seconds,
                      "start": start, "end": end,
                      "memory_errors": sum(log.count("MemoryError") for log in logs),
                      "tile_restarts": sum(getattr(t, "starts", 1) - 1 for t in vtable.tiles)}
            # Kept as one string a game (one block of the Python heap, not thirty): the
            # soak's own memory must not pass for the host's in py_blocks.
            records.append(json.dumps(record, sort_keys=True))
            for tile, log in zip(vtable.tiles, logs, strict=True):
                if "MemoryError" in log:     # what the tile said, for whoever reads the soak
                    print("tile %s log:\n%s" % (tile.uid, log[-1500:]), file=sys.stderr)
            say(records[-1])
    finally:
        await link.stop()
        vtable.stop()
        journal.close()
    return records


def summarise(records):
    """First, last and worst (largest RSS, smallest tile heap) of the soak's figures."""
    out = {}
    for kind in sorted({r["game"] for r in records}):
        rs = [r for r in records if r["game"] == kind]
        heaps = [h for r in rs for h in r["end"]["tile_heap_free"] + r["start"]["tile_heap_free"]
                 if h is not None]
        out[kind] = {"games": len(rs),
                     "finished": sum(1 for r in rs if r["status"] == "finished"),
                     "rss_kb_first": rs[0]["start"]["rss_kb"],
                     "rss_kb_last": rs[-1]["end"]["rss_kb"],
                     "rss_kb_max": max(r["end"]["rss_kb"] or 0 for r in rs),
                     "py_blocks_first": rs[0]["start"]["py_blocks"],
                     "py_blocks_last": rs[-1]["end"]["py_blocks"],
                     "tile_heap_free_first": rs[0]["start"]["tile_heap_free"],
                     "tile_heap_free_last": rs[-1]["end"]["tile_heap_free"],
                     "tile_heap_free_min": min(heaps) if heaps else None,
                     "memory_errors": sum(r["memory_errors"] for r in rs)}
    return out


async def soak(kinds, games, seed, say, setup=None, players=None):
    records = []
    with tempfile.TemporaryDirectory(prefix="fairytable-soak-") as workdir:
        for kind in kinds:
            records += await soak_game_kind(kind, games, seed, workdir, say, setup, players)
    return records


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=10, help="games of each game kind")
    p.add_argument("--game", action="append", choices=table_games(),
                   help="a game kind to play (repeatable; default: every game the table "
                        "plays)")
    p.add_argument("--setup", default=None, metavar="FILE",
                   help="the games' position (the game's setup form; one --game only)")
    p.add_argument("--players", type=int, default=None,
                   help="players, all bots (default: as many as the game usually has)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game of each kind")
    args = p.parse_args(argv)
    if args.games < 1:
        print("soak: --games must be at least 1", file=sys.stderr)
        return 2
    kinds = check_game_options(p, args)
    records = [json.loads(r) for r in asyncio.run(soak(
        kinds, args.games, args.seed, lambda line: print(line, flush=True), args.setup,
        args.players))]
    summary = summarise(records)
    print(json.dumps({"summary": summary}, sort_keys=True))
    bad = any(r["status"] != "finished" or r["memory_errors"] or r["tile_restarts"]
              for r in records)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
