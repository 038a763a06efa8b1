"""A Battle Royale tile through a game's worth of moves in its 64 KB heap: never out of memory.

The worst case a Battle Royale cell tile meets (host/games/royale/layout.toml): 7 cells,
each with its card and the three players' pawns (4 tags, the most a slot reports), pawns
moving from cell to cell as in a game, the host lighting every cell after each move, and
the host reconnecting now and then, which asks for a snapshot of all 28 tags. Each move
makes the tile report two slots and take a scene; each event, frame and snapshot is
built in a heap the earlier ones fragmented. On the virtual table before the fix, such
games logged "readers: MemoryError('memory allocation failed, allocating 131 bytes')":
a frame built piece by piece needed a block of its size that the heap no longer had.
"""

import asyncio

from mpy import requires_micropython
from test_tile_full_load import full_load
from vtable_helpers import WAIT_S, wait_for

from host.link import TableLink
from shared_rules.led_scene import CHASE, PULSE, uniform_scene

CELLS = 7
MOVES = 40          # pawn moves: 80 slot reports
RECONNECT_EVERY = 10


@requires_micropython
def test_a_full_royale_tile_moving_pawns_and_reconnecting_never_runs_out_of_memory(virtual_table):
    load = full_load(CELLS)
    where = {}          # pawn item -> (slot, uid, identity) of the pawn's tag
    cards = {}
    for slot in load:
        for item, uid, identity in load[slot]:
            if item.startswith("pawn:"):
                where[(item, slot)] = (slot, uid, identity)
            else:
                cards[slot] = uid.hex()
    pawns = sorted(where)

    vt = virtual_table(tiles=1, cells=CELLS, heapsize="64k", quiet=True)
    tile = vt.tiles[0]

    def want():
        out = {s: [cards[s]] for s in range(CELLS)}
        for slot, uid, _identity in where.values():
            out[slot].append(uid.hex())
        return {s: sorted(v) for s, v in out.items()}

    async def connect():
        link = TableLink(ports=vt.ports())
        await link.start()
        await wait_for(lambda: tile.uid in link.tiles and link.tiles[tile.uid].online,
                       what="the tile online")
        return link

    def seen(link):
        t = link.tiles[tile.uid]
        return {s: sorted(u for u, _ in t.slots.get(s, ())) for s in range(CELLS)}

    async def main():
        link = await connect()
        try:
            for slot in sorted(load):
                for _item, uid, identity in load[slot]:
                    await asyncio.to_thread(tile.request, "place", slot=slot,
                                            uid=uid.hex(), identity_hex=identity.hex())
            await wait_for(lambda: seen(link) == want(), WAIT_S * 2, "every tag reported")
            # The pawns of the last cell leave the table: room for the others to walk.
            for key in [k for k in pawns if where[k][0] == CELLS - 1]:
                await asyncio.to_thread(tile.request, "lift", slot=CELLS - 1,
                                        uid=where.pop(key)[1].hex())
                pawns.remove(key)
            await wait_for(lambda: seen(link) == want(), WAIT_S, "the pawns gone")
            for move in range(MOVES):
                # A pawn walks to the next cell with room (a slot reports 4 tags at most).
                key = pawns[move % len(pawns)]
                slot, uid, identity = where[key]
                counts = want()
                to = (slot + 1) % CELLS
                while len(counts[to]) >= 4:
                    to = (to + 1) % CELLS
                await asyncio.to_thread(tile.request, "lift", slot=slot, uid=uid.hex())
                await asyncio.to_thread(tile.request, "place", slot=to, uid=uid.hex(),
                                        identity_hex=identity.hex())
                where[key] = (to, uid, identity)
                link.set_scene(tile.uid, [(c, uniform_scene(CHASE if (c + move) % 2
                                                            else PULSE, (0, 140, 255), 25, 3))
                                          for c in range(CELLS)])
                await wait_for(lambda lk=link: seen(lk) == want(), WAIT_S,
                               "move %d seen" % move)
                if move % RECONNECT_EVERY == RECONNECT_EVERY - 1:
                    # The host restarts: HELLO, and a snapshot of all 28 tags.
                    await link.stop()
                    link = await connect()
                    await wait_for(lambda lk=link: seen(lk) == want(), WAIT_S * 2,
                                   "the snapshot after reconnect %d" % move)
            # With the host listening (nothing waits for an ack), after the game.
            return await asyncio.to_thread(tile.stats)
        finally:
            await link.stop()

    stats = asyncio.run(main())
    log = tile.log_tail()
    assert "MemoryError" not in log, log
    assert stats["failures"] == 0, log
    # The heap after the game keeps room for the biggest things a tile builds at once
    # (a 7-cell LED scene from the host, a snapshot); measured: about 4 KB.
    assert stats["heap_free"] >= 2048, stats
