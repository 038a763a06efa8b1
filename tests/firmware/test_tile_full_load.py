"""A fully loaded cell tile in its 64 KB firmware heap: every cell with a card and three pawns.

A Battle Royale tile of the layout holds 7 cells (a cell tile up to 8); each may hold its
face-down card and pawns (4 tags in one field; a slot reports up to wire.MAX_TAGS).
The tile must read them all, report them, keep
room in its heap, and answer a host that reconnects with a snapshot that has every tag
(a full tile's tags do not fit one frame: the slots left over come as TAG events).
"""

import asyncio

import pytest
from mpy import requires_micropython
from vtable_helpers import WAIT_S, wait_for

from host.link import TableLink
from host.table import tags
from shared_rules import wire

# What a full tile must keep free: room for the host's LED scenes, a burst of events, the
# control channel's requests, without a MemoryError (measured with the tags on: ~5 KB).
MARGIN = 4096


def full_load(cells):
    """slot -> [(item, uid, identity)]: a card and three pawns per cell, enrolled."""
    registry = tags.Registry(bytes(range(32)))
    out = {}
    for slot in range(cells):
        items = ["royale:S%d" % (slot + 2)] + ["pawn:%s" % c for c in ("red", "blue", "green")]
        out[slot] = []
        for item in items:
            uid = tags.virtual_uid(item + "@%d" % slot)
            out[slot].append((item, uid, registry.identity_for(uid, item)))
    return out


def stacks_load(sizes):
    """slot -> [(item, uid, identity)]: stacks of Fight Club creature cards, enrolled."""
    registry = tags.Registry(bytes(range(32)))
    out = {}
    n = 0
    for slot, size in enumerate(sizes):
        out[slot] = []
        for _ in range(size):
            n += 1
            item = "fightclub:c%02d-%02d" % (n % 10 + 1, n // 10 + 1)
            uid = tags.virtual_uid(item)
            out[slot].append((item, uid, registry.identity_for(uid, item)))
    return out


@requires_micropython
@pytest.mark.parametrize("cells,shape", [(7, "pawns"), (7, "stacks")])
def test_a_tile_with_a_card_and_three_pawns_on_every_cell_reports_them_all(cells, shape,
                                                                          virtual_table):
    # 7 cells: the cell tiles of the Battle Royale layout (no game puts more than 12 tags on
    # one tile; this is 28). An 8-cell tile with 32 tags is placed and reported (about
    # 4.7 KB free), but its snapshot after a reconnect can still fail in the fragmented
    # heap (a 97-byte frame, 1 run in 3): see BENCHMARKS.md.
    # "stacks": the fullest Fight Club row (host/games/fightclub/layout.toml, row 2): p2's War
    # Wagon with a card too many (six), five Market cells of a 15-card half of
    # the Market, p4's Hand Cart: 24 tags (about 4.8 KB free). The same 28 tags as the
    # pawns in stacks of 6, 6, 5, 5, 3, 3 leave about 4.0 KB, 4.4 KB four a cell: stacked
    # slots' lists and dicts cost more, so the layout spreads the Market over ten cells.
    if shape == "pawns":
        load = full_load(cells)
        assert all(len(v) == 4 for v in load.values())
    else:
        load = stacks_load([6, 3, 3, 3, 3, 3, 3])
        assert max(len(v) for v in load.values()) == 6 <= wire.MAX_TAGS
    want = {s: sorted(uid.hex() for _, uid, _ in load[s]) for s in load}
    vt = virtual_table(tiles=1, cells=cells, heapsize="64k", quiet=True)
    tile = vt.tiles[0]

    async def main():
        link = TableLink(ports=vt.ports())
        await link.start()
        try:
            await wait_for(lambda: tile.uid in link.tiles and link.tiles[tile.uid].online,
                           what="the tile online")
            for slot in sorted(load):
                for _item, uid, identity in load[slot]:
                    await asyncio.to_thread(tile.request, "place", slot=slot,
                                            uid=uid.hex(), identity_hex=identity.hex())

            def seen():
                t = link.tiles[tile.uid]
                return {s: sorted(u for u, _ in t.slots.get(s, ())) for s in load}
            await wait_for(lambda: seen() == want, WAIT_S * 2, "every tag reported")
            # The identities came through too (the tags are enrolled: the host knows them).
            slots = link.tiles[tile.uid].slots
            for slot in load:
                got = dict(slots[slot])
                for _item, uid, identity in load[slot]:
                    assert bytes(got[uid.hex()]) == identity
        finally:
            await link.stop()
        stats = await asyncio.to_thread(tile.stats)
        assert stats["failures"] == 0, tile.log_tail()
        assert stats["heap_free"] >= MARGIN, stats

        # A host that restarts: HELLO, then a snapshot that must give every tag.
        again = TableLink(ports=vt.ports())
        await again.start()
        try:
            await wait_for(lambda: tile.uid in again.tiles, what="the tile again")
            await wait_for(lambda: {s: sorted(u for u, _ in again.tiles[tile.uid].slots
                                              .get(s, ())) for s in load} == want,
                           WAIT_S * 2, "every tag in the snapshot after a reconnect")
        finally:
            await again.stop()
        assert (await asyncio.to_thread(tile.stats))["failures"] == 0, tile.log_tail()
        assert [sorted(r) for r in await asyncio.to_thread(tile.reported)] == \
            [want[s] for s in range(cells)]

    asyncio.run(main())
    log = tile.log_tail()
    assert "MemoryError" not in log and "failed" not in log, log


def test_the_snapshot_of_a_full_tile_is_split_and_nothing_is_lost():
    # The firmware's own split, under CPython: what fits in 128 bytes goes in the SNAPSHOT,
    # the rest as TAG events right after it, each slot exactly once.
    from firmware.main import Tile

    class Link:
        def __init__(self):
            self.sent = []

        def send(self, msg_type, payload, key=None):
            # A TAG comes as pieces (TileLink.send writes a long one without joining them).
            self.sent.append((msg_type, b"".join(payload) if type(payload) is list
                              else payload))

    tile = Tile.__new__(Tile)
    tile.spec = {"dice_pockets": 0, "cells": 8}
    tile.boot_ms = 0
    tile.ticks_ms = lambda: 0
    tile.ticks_diff = lambda a, b: a - b
    cells = 8
    load = full_load(cells - 1)
    tile.reported = [sorted(uid for _item, uid, _identity in load[s])
                     for s in range(cells - 1)] + [[]]
    tile.identities = [{uid: identity for _item, uid, identity in load[s]}
                       for s in range(cells - 1)] + [{}]
    tile.link = Link()
    tile.snapshot()
    kinds = [t for t, _ in tile.link.sent]
    assert kinds[0] == wire.SNAPSHOT and set(kinds[1:]) == {wire.TAG}
    snap = wire.parse(wire.Frame(1, wire.SNAPSHOT, 1, tile.link.sent[0][1]))
    slots = {s["slot"]: s["tags"] for s in snap["slots"]}
    for _t, payload in tile.link.sent[1:]:
        m = wire.parse(wire.Frame(1, wire.TAG, 2, payload))
        assert m["slot"] not in slots
        slots[m["slot"]] = m["tags"]
    assert sorted(slots) == list(range(cells))
    for s in range(cells - 1):
        assert [(t["uid"], t["identity"]) for t in slots[s]] == \
            sorted((uid, identity) for _item, uid, identity in load[s])
    assert slots[cells - 1] == []
    assert all(len(payload) <= 128 for _t, payload in tile.link.sent)
