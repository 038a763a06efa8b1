"""Where no `micropython` is installed (a Raspberry Pi), the virtual table runs the tile
firmware under CPython, says so, and the host links to it as to any tile."""

import asyncio

from vtable_helpers import wait_event

from host.link import TableLink
from host.virtual import table as virtual_table


def test_without_micropython_the_host_plays_on_cpython_tiles(monkeypatch, capsys):
    monkeypatch.setattr(virtual_table, "find_micropython", lambda: None)
    with virtual_table.VirtualTable(tiles=1, cells=3) as vt:
        tile = vt.tiles[0]
        assert vt.interpreter == "cpython"
        assert tile.ready_info["interpreter"] == "cpython"

        async def main():
            link = TableLink(ports=vt.ports())
            await link.start()
            try:
                await wait_event(link, lambda e: e.kind == "online" and e.tile == tile.uid)
                await asyncio.to_thread(tile.place, 2, "04a1b2c3d4e5f6", "card:17")
                ev = await wait_event(link, lambda e: e.kind == "tags" and e.slot == 2)
                assert ev.tile == tile.uid
                assert ev.tags == (("04a1b2c3d4e5f6", b"card:17"),)
            finally:
                await link.stop()

        asyncio.run(main())
    out = capsys.readouterr().out
    assert "micropython is not installed; running the tile firmware under CPython" in out
