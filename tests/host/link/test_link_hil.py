"""Hardware in the loop: the host link against real tiles (pytest --hil --port /dev/ttyACM0)."""

import asyncio

import pytest
from vtable_helpers import red_scene, wait_event, wait_for

from host.link import TableLink


@pytest.mark.hil
def test_real_tiles_say_hello_resync_and_ack_a_scene(hil_ports):
    async def main():
        async with TableLink(ports=hil_ports) as link:
            online = set()
            while len(online) < len(hil_ports):
                ev = await wait_event(link, lambda e: e.kind == "online")
                online.add(ev.tile)
            for uid in online:
                tile = link.tiles[uid]
                assert tile.hello["protocol"] == 1 and tile.hello["readers"] >= 1
                link.set_scene(uid, [(0, red_scene())])
                await wait_for(lambda u=uid: not link.pending_commands(u), what="scene acked")
                link.set_scene(uid, [(0, bytes(24))])
            ev = await wait_event(link, lambda e: e.kind == "health", timeout=15)
            assert all(r["ok"] for r in ev.detail["readers"]), ev.detail
    asyncio.run(main())


@pytest.mark.hil
def test_real_tile_reports_a_card_placed_by_hand(hil_ports):
    print("place a card on cell 0 of the tile on %s within 30 s" % hil_ports[0])

    async def main():
        async with TableLink(ports=hil_ports[:1]) as link:
            await wait_event(link, lambda e: e.kind == "online")
            ev = await wait_event(link, lambda e: e.kind == "tags" and e.slot == 0 and e.tags,
                                  timeout=30)
            assert len(ev.tags[0][0]) in (8, 14, 20)   # 4-, 7- or 10-byte UID in hex
    asyncio.run(main())
