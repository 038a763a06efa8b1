"""A card put down where it lies already is still one card, on a sim tile in its 64 KB heap.

A four-player Fight Club game on the virtual table (seed 24) logged "readers: MemoryError
... allocating 256 bytes" on the Market's tile again and again, and never ended: the bot's
Market exchange was never seen, so the virtual hands put its card "back" on the same
Market cell at every try, and each put-down added another emulated card with the same UID
to that reader's field (17 copies of one card there when the readers task first failed,
32 later). No reader tells such copies apart, so the tile reported one card, a lift took
one copy and the card stayed; and the emulated chip's list of its cards' answers to one
REQA (32 entries: 256 bytes) no longer found a block in the tile's fragmented heap. A real
card cannot lie on a cell twice: the control channel's "place" of a tag that lies in the
field already puts that tag down again (firmware/sim/control.py).
"""

import asyncio

from mpy import requires_micropython
from vtable_helpers import WAIT_S, wait_for

from host.link import TableLink
from host.table import tags

CELLS = 7
AGAIN = 40      # more put-downs than the tile has spare emulated tags (4 a reader: 28)


@requires_micropython
def test_a_card_put_down_again_and_again_is_one_card_and_one_lift_takes_it(virtual_table):
    registry = tags.Registry(bytes(range(32)))
    vt = virtual_table(tiles=1, cells=CELLS, heapsize="64k", quiet=True)
    tile = vt.tiles[0]
    card = tags.virtual_uid("fightclub:c07-02")
    other = tags.virtual_uid("fightclub:c03-05")    # a card beside it, lifted in between

    def seen(link, slot):
        return sorted(u for u, _ in link.tiles[tile.uid].slots.get(slot, ()))

    async def main():
        link = TableLink(ports=vt.ports())
        await link.start()
        try:
            await wait_for(lambda: tile.uid in link.tiles and link.tiles[tile.uid].online,
                           what="the tile online")
            await asyncio.to_thread(tile.request, "place", slot=2, uid=other.hex(),
                                    identity_hex=registry.identity_for(
                                        other, "fightclub:c03-05").hex())
            for _ in range(AGAIN):
                await asyncio.to_thread(tile.request, "place", slot=2, uid=card.hex(),
                                        identity_hex=registry.identity_for(
                                            card, "fightclub:c07-02").hex())
            await wait_for(lambda: seen(link, 2) == sorted([card.hex(), other.hex()]), WAIT_S,
                           "the two cards reported")
            before = (await asyncio.to_thread(tile.stats))["heap_free"]
            await asyncio.to_thread(tile.request, "lift", slot=2, uid=card.hex())
            # One lift takes the card: no copy of it is left lying on the cell.
            await wait_for(lambda: seen(link, 2) == [other.hex()], WAIT_S, "the card lifted")
            await asyncio.to_thread(tile.request, "lift", slot=2, uid=other.hex())
            await wait_for(lambda: seen(link, 2) == [], WAIT_S, "the cell empty")
            return before, await asyncio.to_thread(tile.stats)
        finally:
            await link.stop()

    before, stats = asyncio.run(main())
    log = tile.log_tail()
    assert "MemoryError" not in log, log
    assert stats["failures"] == 0, log
    assert tile.reported()[2] == []
    # The put-downs took spare tags, not the firmware's heap (measured: about 9 KB free).
    assert before >= 4096 and stats["heap_free"] >= 4096, (before, stats)
