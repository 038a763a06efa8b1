"""The heap a cell tile has left as tags pile onto it: a card and three pawns per cell.

Starts one cell tile of the virtual table (the real firmware under MicroPython, 64 KB for
the firmware), connects the host link, then puts an enrolled card and three enrolled pawns
on each cell in turn and prints the tile's free heap (its "stats" answer, after a garbage
collection) once the host has seen them. Ends with the free heap a few seconds later.

    python tools/bench_tile_memory.py [--cells 7] [--tags 4]
    python tools/bench_tile_memory.py --cells 7 --tags 2 --crowded 3:4 --inn 12

``--crowded SLOT:READERS`` makes the tile's cell SLOT a crowded cell read by READERS
readers (the Dragon Inn's quadrants, firmware/config.py), and ``--inn N`` puts N tags
there (a location card and N - 1 tokens, spread over its readers as players fill its
spots), after the other cells have their ``--tags``.
"""

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host.link import TableLink  # noqa: E402
from host.table import tags  # noqa: E402
from host.virtual import open_table  # noqa: E402

PAWNS = ("red", "blue", "green", "yellow", "purple", "orange", "white")


TOKENS = ["fightclub:c%02d-%02d" % (k % 10 + 1, k // 10 + 1) for k in range(20)]


async def bench(cells, per_cell, crowded=None, inn=0):
    registry = tags.Registry(bytes(range(32)))
    ports, vt = open_table((), tiles=1, cells=cells, heapsize="64k", announce=None,
                           crowded={0: crowded} if crowded else None)
    tile = vt.tiles[0]
    link = TableLink(ports=ports)
    await link.start()
    try:
        while tile.uid not in link.tiles or not link.tiles[tile.uid].online:
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        stats = await asyncio.to_thread(tile.stats)
        print("tile of %d cells%s, nothing on it: heap_free %d" % (
            cells, " (crowded: %r)" % crowded if crowded else "", stats["heap_free"]))
        order = [s for s in range(cells) if s not in (crowded or {})] + sorted(crowded or {})
        for slot in order:
            if crowded and slot in crowded:
                items = ["royale:S%d" % (slot + 2)] + TOKENS[:inn - 1]
            else:
                items = ["royale:S%d" % (slot + 2)] + ["pawn:" + c for c in PAWNS[:per_cell - 1]]
            uids = []
            for item in items:
                uid = tags.virtual_uid("%s@%d" % (item, slot))
                uids.append(uid.hex())
                await asyncio.to_thread(tile.request, "place", slot=slot, uid=uid.hex(),
                                        identity_hex=registry.identity_for(uid, item).hex())
            deadline = time.monotonic() + 30
            while sorted(u for u, _ in link.tiles[tile.uid].slots.get(slot, ())) != \
                    sorted(uids):
                if time.monotonic() > deadline:
                    print("cell %d: the host did not see its tags" % slot)
                    return 1
                await asyncio.sleep(0.02)
            stats = await asyncio.to_thread(tile.stats)
            print("cell %d with %d tags: heap_free %d" % (slot, len(items),
                                                         stats["heap_free"]))
        await asyncio.sleep(3.0)
        stats = await asyncio.to_thread(tile.stats)
        n = (cells - len(crowded or {})) * per_cell + (inn * len(crowded) if crowded else 0)
        print("steady, %d tags on the tile: heap_free %d, task failures %d" % (
            n, stats["heap_free"], stats["failures"]))
    finally:
        await link.stop()
        vt.stop()
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cells", type=int, default=7)
    p.add_argument("--tags", type=int, default=4, help="tags per cell (a card and pawns)")
    p.add_argument("--crowded", default=None, help="SLOT:READERS, a crowded cell")
    p.add_argument("--inn", type=int, default=12, help="tags on the crowded cell")
    args = p.parse_args(argv)
    crowded = None
    if args.crowded:
        slot, readers = args.crowded.split(":")
        crowded = {int(slot): int(readers)}
    return asyncio.run(bench(args.cells, args.tags, crowded, args.inn))


if __name__ == "__main__":
    sys.exit(main())
