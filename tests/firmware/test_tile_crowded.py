"""Crowded cells: the Dragon Inn with ten players' tokens and its location card.

A crowded cell is read by several readers, one under each quadrant (firmware/config.py
``crowded``; hardware/stacks.md says why), and is one slot for the host: its TAG holds
the tags of all its readers, each once. These tests run the real firmware under
MicroPython in its 64 KB heap, on the virtual table's emulated readers, and a single
reader with twelve tags (a crowded battle on a cell of one reader).
"""

import asyncio

import pytest
from mpy import requires_micropython
from vtable_helpers import WAIT_S, wait_for

from firmware import config
from firmware.readers import field_phases, row_neighbours
from host.link import TableLink
from host.table import tags
from shared_rules import wire

TOKENS = ["fightclub:c%02d-01" % k for k in range(1, 11)] + \
    ["fightclub:c%02d-02" % k for k in range(1, 11)]
MARGIN = 4096       # as tests/firmware/test_tile_full_load.py keeps
INN = 3             # the Dragon Inn: the middle cell of the map's middle row tile


def enrolled(items, where):
    """[(item, uid, identity)] for catalog ids ``items``, their UIDs made for ``where``."""
    registry = tags.Registry(bytes(range(32)))
    out = []
    for item in items:
        uid = tags.virtual_uid("%s@%s" % (item, where))
        out.append((item, uid, registry.identity_for(uid, item)))
    return out


def inn_load(tokens):
    """The Dragon Inn's location card and ``tokens`` character tokens (items of the
    installation's catalogs stand in for the Fairytale Games pieces: a tag is a tag)."""
    return enrolled(["royale:S2"] + TOKENS[:tokens], "inn")


def test_a_crowded_cell_is_one_slot_of_several_readers_that_border_each_other():
    spec = config.variant("cell", 7, {INN: 4})
    assert spec["cells"] == 7 and spec["readers"] == 10
    assert list(spec["slots"]) == [0, 1, 2, 3, 4, 5, 6, 3, 3, 3]
    assert "slots" not in config.variant("cell", 7)
    for bad in ({7: 2}, {INN: 5}, {INN: 0}, {0: 4, 1: 4, 2: 4, 3: 4}):
        with pytest.raises(ValueError):
            config.variant("cell", 7, bad)

    # The readers' neighbours, as the tile works them out from its row (or the host's
    # FIELD_NEIGHBOURS, which names slots): the Inn's four readers border each other and
    # the Inn's neighbours (slots 2 and 4), and no two neighbours share a phase.
    from firmware.main import Tile

    class Link:
        def send(self, *a, **k):
            pass

    class Reader:
        def antenna(self, on):
            pass

    tile = Tile.__new__(Tile)
    tile.spec = spec
    tile.readers = [Reader() for _ in range(10)]
    tile.on_at = [None] * 10
    tile.todo = []
    tile.phases = []
    tile.link = Link()
    assert tile.set_neighbours(row_neighbours(7, 2)) == wire.ACK_OK
    inn = (INN, 7, 8, 9)
    for a in inn:
        for b in inn:
            assert (tile.near[a] >> b & 1) == (a != b)
        assert tile.near[a] >> 2 & 1 and tile.near[a] >> 4 & 1
        assert not tile.near[a] >> 1 & 1 and not tile.near[a] >> 5 & 1
    for p in tile.phases:
        for a in p:
            assert not any(tile.near[a] >> b & 1 for b in p)
            assert sum(1 for _ in p) <= spec["max_fields"]
    assert sorted(r for p in tile.phases for r in p) == list(range(10))
    assert tile.phases == field_phases(tile.near, spec["max_fields"])
    # A mask per reader is not the host's to send: it names the tile's 7 slots.
    assert tile.set_neighbours([0] * 10) == wire.ACK_UNSUPPORTED


def _seen(link, tile, slots):
    """{slot: the tag uids the host holds} of `tile`, or None while the host has not met it
    (after a reconnect, one tile may answer before the other)."""
    t = link.tiles.get(tile.uid)
    if t is None:
        return None
    return {s: sorted(u for u, _ in t.slots.get(s, ())) for s in slots}


def row_load(cells):
    """slot -> [(item, uid, identity)]: a card and three tokens on each cell of a row tile."""
    return {slot: enrolled(["royale:S%d" % (slot + 3)] + TOKENS[:3], "row%d" % slot)
            for slot in range(cells)}


@requires_micropython
def test_the_dragon_inn_with_ten_tokens_and_more_is_read_whole_by_its_four_readers(
        virtual_table):
    # The Dragon Inn's tile (one cell, a reader under each quadrant: hardware/stacks.md)
    # with its location card and eleven tokens (ten players and one more: 12 tags,
    # wire.MAX_TAGS), beside a full row tile of the map (a card and three tokens on each
    # of its 7 cells: 28 tags). Both read every tag and keep their heap margin.
    inn = inn_load(11)
    assert len(inn) == wire.MAX_TAGS == 12
    row = row_load(7)
    want_inn = {0: sorted(uid.hex() for _, uid, _ in inn)}
    want_row = {s: sorted(uid.hex() for _, uid, _ in row[s]) for s in row}
    vt = virtual_table(tiles=2, cells=7, heapsize="64k", quiet=True,
                       crowded={0: {0: 4}}, cells_of={0: 1})
    inn_tile, row_tile = vt.tiles

    async def main():
        link = TableLink(ports=vt.ports())
        await link.start()
        try:
            await wait_for(lambda: all(t.uid in link.tiles and link.tiles[t.uid].online
                                       for t in vt.tiles), what="the tiles online")
            # The host sees a tile of one slot: the Inn's extra readers are the tile's own.
            assert link.tiles[inn_tile.uid].hello["readers"] == 1
            assert link.tiles[inn_tile.uid].hello["cells"] == 1
            for slot in sorted(row):
                for _item, uid, identity in row[slot]:
                    await asyncio.to_thread(row_tile.request, "place", slot=slot,
                                            uid=uid.hex(), identity_hex=identity.hex())
            for _item, uid, identity in inn:
                await asyncio.to_thread(inn_tile.request, "place", slot=0, uid=uid.hex(),
                                        identity_hex=identity.hex())
            await wait_for(lambda: _seen(link, row_tile, row) == want_row, WAIT_S * 2,
                           "every tag of the row reported")
            await wait_for(lambda: _seen(link, inn_tile, [0]) == want_inn, WAIT_S * 2,
                           "the Inn's twelve tags reported as one slot")
            got = dict(link.tiles[inn_tile.uid].slots[0])
            for _item, uid, identity in inn:
                assert bytes(got[uid.hex()]) == identity
            # The sim spread them as players fill the Inn's spots: 3 a reader.
            assert (await asyncio.to_thread(inn_tile.stats))["phases"] == [[0], [1], [2], [3]]

            # A player steps off the Inn: the token is gone from the slot, the rest stay.
            step = inn[5]
            await asyncio.to_thread(inn_tile.request, "lift", slot=0, uid=step[1].hex())
            want_inn[0].remove(step[1].hex())
            await wait_for(lambda: _seen(link, inn_tile, [0]) == want_inn, WAIT_S,
                           "the token lifted off the Inn gone")
            # It comes back across two quadrants' loops: seen by two readers, one tag.
            await asyncio.to_thread(inn_tile.request, "place", slot=0, uid=step[1].hex(),
                                    identity_hex=step[2].hex(), readers=[0, 1])
            want_inn[0] = sorted(want_inn[0] + [step[1].hex()])
            await wait_for(lambda: _seen(link, inn_tile, [0]) == want_inn, WAIT_S,
                           "the token across two readers reported once")
            assert len(link.tiles[inn_tile.uid].slots[0]) == 12
            # A thirteenth tag waits: no message carries it until one of the twelve leaves.
            extra = enrolled(["fightclub:c01-03"], "inn")[0]
            await asyncio.to_thread(inn_tile.request, "place", slot=0, uid=extra[1].hex(),
                                    identity_hex=extra[2].hex(), reader=2)
            await asyncio.sleep(1.0)
            assert _seen(link, inn_tile, [0]) == want_inn
            # HEALTH has one entry for the slot, its four readers in one.
            await wait_for(lambda: len(link.tiles[inn_tile.uid].reported.get("readers")
                                       or ()) == 1, WAIT_S, "the Inn tile's HEALTH")
            assert link.tiles[inn_tile.uid].reported["readers"][0]["ok"]
        finally:
            await link.stop()
        for tile in vt.tiles:
            stats = await asyncio.to_thread(tile.stats)
            assert stats["failures"] == 0, tile.log_tail()
            assert stats["heap_free"] >= MARGIN, (tile.index, stats)

        # A host that restarts: the snapshot (the Inn's TAG follows it) has every tag.
        again = TableLink(ports=vt.ports())
        await again.start()
        try:
            await wait_for(lambda: inn_tile.uid in again.tiles, what="the tile again")
            await wait_for(lambda: _seen(again, inn_tile, [0]) == want_inn, WAIT_S * 2,
                           "the Inn's tags in the snapshot after a reconnect")
            await wait_for(lambda: _seen(again, row_tile, row) == want_row, WAIT_S * 2,
                           "the row's tags in the snapshot after a reconnect")
        finally:
            await again.stop()
        assert [sorted(r) for r in await asyncio.to_thread(inn_tile.reported)] == \
            [want_inn[0]]
        assert (await asyncio.to_thread(inn_tile.stats))["failures"] == 0, inn_tile.log_tail()

    asyncio.run(main())
    for tile in vt.tiles:
        log = tile.log_tail()
        assert "MemoryError" not in log and "failed" not in log, log


@requires_micropython
def test_a_crowded_battle_on_a_cell_of_one_reader_reports_all_twelve_tags(virtual_table):
    # A boss fight away from the Inn: its location card and eleven tokens on a cell of one
    # reader. The reader's poll is slow (hardware/stacks.md: about 47 ms lying still) but
    # it finds every tag; a thirteenth waits until one of them is lifted.
    battle = enrolled(["royale:S4"] + TOKENS[:12], "boss")
    vt = virtual_table(tiles=1, cells=3, heapsize="64k", quiet=True, tags_per_reader=13)
    tile = vt.tiles[0]

    async def main():
        link = TableLink(ports=vt.ports())
        await link.start()
        try:
            await wait_for(lambda: tile.uid in link.tiles and link.tiles[tile.uid].online,
                           what="the tile online")
            for _item, uid, identity in battle[:12]:
                await asyncio.to_thread(tile.request, "place", slot=1, uid=uid.hex(),
                                        identity_hex=identity.hex())
            want = sorted(uid.hex() for _, uid, _ in battle[:12])
            await wait_for(lambda: _seen(link, tile, [1])[1] == want, WAIT_S * 2,
                           "the twelve tags of the battle")
            got = dict(link.tiles[tile.uid].slots[1])
            assert all(bytes(got[uid.hex()]) == identity for _, uid, identity in battle[:12])
            # A thirteenth: no message carries it; it is reported once a token leaves.
            last = battle[12]
            await asyncio.to_thread(tile.request, "place", slot=1, uid=last[1].hex(),
                                    identity_hex=last[2].hex())
            await asyncio.sleep(1.0)
            assert _seen(link, tile, [1])[1] == want
            await asyncio.to_thread(tile.request, "lift", slot=1, uid=battle[3][1].hex())
            want = sorted(set(want) - {battle[3][1].hex()} | {last[1].hex()})
            await wait_for(lambda: _seen(link, tile, [1])[1] == want, WAIT_S * 2,
                           "the thirteenth in the place of the one lifted")
        finally:
            await link.stop()
        stats = await asyncio.to_thread(tile.stats)
        assert stats["failures"] == 0, tile.log_tail()
        assert stats["heap_free"] >= MARGIN, stats

    asyncio.run(main())
    log = tile.log_tail()
    assert "MemoryError" not in log and "failed" not in log, log
