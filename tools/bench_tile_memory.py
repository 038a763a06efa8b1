"""The heap a cell tile has left as tags pile onto it: a card and three pawns per cell.

Starts one cell tile of the virtual table (the real firmware under MicroPython, 64 KB for
the firmware), connects the host link, then puts an enrolled card and three enrolled pawns
on each cell in turn and prints the tile's free heap (its "stats" answer, after a garbage
collection) once the host has seen them. Ends with the free heap a few seconds later.

    python tools/bench_tile_memory.py [--cells 7] [--tags 4]
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


async def bench(cells, per_cell):
    registry = tags.Registry(bytes(range(32)))
    ports, vt = open_table((), tiles=1, cells=cells, heapsize="64k", announce=None)
    tile = vt.tiles[0]
    link = TableLink(ports=ports)
    await link.start()
    try:
        while tile.uid not in link.tiles or not link.tiles[tile.uid].online:
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        stats = await asyncio.to_thread(tile.stats)
        print("tile of %d cells, nothing on it: heap_free %d" % (cells, stats["heap_free"]))
        for slot in range(cells):
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
            print("cells 0..%d with %d tags each: heap_free %d" % (slot, per_cell,
                                                                    stats["heap_free"]))
        await asyncio.sleep(3.0)
        stats = await asyncio.to_thread(tile.stats)
        print("steady, %d tags on the tile: heap_free %d, task failures %d" % (
            cells * per_cell, stats["heap_free"], stats["failures"]))
    finally:
        await link.stop()
        vt.stop()
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cells", type=int, default=7)
    p.add_argument("--tags", type=int, default=4, help="tags per cell (a card and pawns)")
    args = p.parse_args(argv)
    return asyncio.run(bench(args.cells, args.tags))


if __name__ == "__main__":
    sys.exit(main())
