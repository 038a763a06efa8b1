"""The host link against the virtual table: real firmware under MicroPython on real ptys.

Each tile is a `micropython` process running firmware/main.py with the sim
board; the host opens each tile's pseudo-terminal with pyserial, as it
opens /dev/ttyACM0 on a Pi.
"""

import asyncio
import os
import signal

import pytest
from mpy import requires_micropython
from vtable_helpers import Cable, dark, drain, lit_red, red_scene, wait_event, wait_for

from firmware.readers import field_phases
from host.link import TableLink
from shared_rules import wire

pytestmark = requires_micropython

# Tile 0 of host/games/royale/layout.toml (host/table/layout.py field_neighbours()).
ROYALE_TILE_0 = [0b0000100, 0b0100100, 0b1001011, 0b0000100, 0b0100000, 0b1010010,
                 0b0100100]


@pytest.fixture(scope="module")
def table(module_virtual_table):
    vt = module_virtual_table(tiles=2, cells=7)
    assert vt.interpreter == "micropython"
    return vt


def run(table, scenario):
    async def main():
        link = TableLink(ports=table.ports())
        await link.start()
        try:
            uids = {t.uid for t in table.tiles}
            online = set()
            while online != uids:
                ev = await wait_event(link, lambda e: e.kind == "online")
                online.add(ev.tile)
            await scenario(link)
        finally:
            await link.stop()
    asyncio.run(main())


def test_tiles_are_identified_by_unique_id_from_hello(table):
    async def scenario(link):
        for tile in table.tiles:
            state = link.tiles[tile.uid]
            assert state.port == tile.port
            assert state.hello["cells"] == 7 and state.hello["readers"] == 7
            assert state.hello["segments"] == 4 and state.hello["variant"] == "cell"
            assert state.health["firmware"] == "0.1.0"
        assert sorted(link.tiles) == sorted(t.uid for t in table.tiles)
    run(table, scenario)


def test_card_placed_on_a_cell_reaches_the_host_with_its_identity(table):
    tile = table.tiles[1]

    async def scenario(link):
        await asyncio.to_thread(tile.place, 4, "04a1b2c3d4e5f6", "card:17")
        ev = await wait_event(link, lambda e: e.kind == "tags" and e.slot == 4)
        assert ev.tile == tile.uid
        assert ev.tags == (("04a1b2c3d4e5f6", b"card:17"),)
        # a pawn joins the card: the event carries the full set
        await asyncio.to_thread(tile.place, 4, "01020304")
        ev = await wait_event(link, lambda e: e.kind == "tags" and e.slot == 4)
        assert ev.tags == (("01020304", None), ("04a1b2c3d4e5f6", b"card:17"))
        await asyncio.to_thread(tile.clear, 4)
        ev = await wait_event(link, lambda e: e.kind == "tags" and e.slot == 4)
        assert ev.tags == ()
    run(table, scenario)


def test_led_scene_from_host_shows_in_the_tile_led_buffer(table):
    tile = table.tiles[0]

    async def scenario(link):
        tile.watch_leds()
        link.set_scene(tile.uid, [(2, red_scene())])
        await wait_for(lambda: lit_red(tile.cell_pixels(2)), what="cell 2 lit red")
        assert dark(tile.cell_pixels(3))
        await wait_for(lambda: not link.pending_commands(tile.uid), what="scene acked")
    run(table, scenario)


@pytest.mark.parametrize("gesture", ["tap", "double", "hold"])
def test_pad_gestures_reach_the_host(table, gesture):
    tile = table.tiles[0]

    async def scenario(link):
        await asyncio.to_thread(getattr(tile, gesture), 5)
        ev = await wait_event(link, lambda e: e.kind == "gesture")
        assert (ev.tile, ev.slot, ev.gesture) == (tile.uid, 5, gesture)
    run(table, scenario)


def test_killed_tile_goes_offline_and_resyncs_by_snapshot_after_restart(table):
    tile = table.tiles[1]

    async def scenario(link):
        await asyncio.to_thread(tile.place, 0, "04000000000001")
        await wait_event(link, lambda e: e.kind == "tags" and e.slot == 0 and e.tile == tile.uid)
        link.set_scene(tile.uid, [(6, red_scene())])
        # Its cells as a block of the diamond, not a row: [0, 3] [-1, 2] [0, 2] ...
        link.set_field_neighbours(tile.uid, ROYALE_TILE_0)
        await wait_for(lambda: not link.pending_commands(tile.uid), what="scene acked")
        assert tile.stats()["phases"] == field_phases(ROYALE_TILE_0, 4)
        tile.kill()
        ev = await wait_event(link, lambda e: e.kind == "offline")
        assert ev.tile == tile.uid
        assert not link.tiles[tile.uid].online
        # While the tile is off, the card is swapped on the table.
        tile.lift(0, "04000000000001")
        tile.place(0, "04000000000002")
        await asyncio.to_thread(tile.restart)
        ev = await wait_event(link, lambda e: e.kind == "online" and e.tile == tile.uid)
        assert ev.detail == "reboot"
        ev = await wait_event(link, lambda e: e.kind == "tags" and e.tile == tile.uid)
        assert (ev.slot, ev.tags) == (0, (("04000000000002", None),))
        # The host sends the scene it had set before the reboot.
        tile.watch_leds()
        await wait_for(lambda: lit_red(tile.cell_pixels(6)), what="scene restored")
        await wait_for(lambda: tile.stats()["phases"] == field_phases(ROYALE_TILE_0, 4),
                       what="its readers' neighbours told again")
        assert link.tiles[tile.uid].health["reboots"] >= 1
        await asyncio.to_thread(tile.clear, 0)
    run(table, scenario)


def test_field_neighbours_are_checked_before_anything_is_sent(table):
    tile = table.tiles[0]

    async def scenario(link):
        for masks, words in (([0b1], "own neighbour"), ([0b10, 0], "not the other way"),
                             ([0b100, 0], "beyond 1"), ([0] * 9, "at most 8")):
            with pytest.raises(ValueError, match=words):
                link.set_field_neighbours(tile.uid, masks)
        assert tile.uid not in link.neighbours and not link.pending_commands(tile.uid)
    run(table, scenario)


def test_tile_sending_garbage_does_not_stop_the_host(table):
    tile, other = table.tiles

    async def scenario(link):
        crc_before = link.tiles[tile.uid].health["garbage_bytes"]
        bad_crc = bytearray(wire.encode_frame(wire.TAG, 999, wire.tag(1, [])))
        bad_crc[3] ^= 0x40
        unknown_type = wire.encode_frame(0x3E, 1000, b"\x01\x02")
        bad_payload = wire.encode_frame(wire.TAG, 1001, b"\x01\x09")
        # Each well-formed-but-wrong frame goes out whole, after a delimiter: the tile's
        # own frames may land between two control requests, never inside one.
        for blob in (bytes(range(1, 97)), bytes(range(97, 193)), b"\x00" + bytes(bad_crc),
                     b"\x00" + unknown_type, b"\x00" + bad_payload, b"\xff" * 96,
                     b"\xfe" * 96, b"\x00"):
            await asyncio.to_thread(tile.garbage, blob)
        await asyncio.to_thread(tile.place, 3, "04deadbeef0001")
        ev = await wait_event(link, lambda e: e.kind == "tags" and e.tile == tile.uid)
        assert (ev.slot, ev.tags) == (3, (("04deadbeef0001", None),))
        health = link.tiles[tile.uid].health
        assert health["garbage_bytes"] > crc_before
        assert health["protocol_errors"] >= 2
        assert link.tiles[tile.uid].online and link.tiles[other.uid].online
        # the other tile is served as before
        await asyncio.to_thread(other.tap, 1)
        ev = await wait_event(link, lambda e: e.kind == "gesture")
        assert ev.tile == other.uid
        await asyncio.to_thread(tile.clear, 3)
    run(table, scenario)


def test_unacknowledged_command_is_resent_until_acknowledged(table):
    tile = table.tiles[0]

    async def scenario(link):
        await drain(link)
        tile.watch_leds()
        link.set_scene(tile.uid, [(1, red_scene())])
        await wait_for(lambda: lit_red(tile.cell_pixels(1)), what="cell 1 lit")
        resends_before = link.tiles[tile.uid].health["resends"]
        # The tile's line goes deaf: the next scene is lost until a resend gets through.
        await asyncio.to_thread(tile.deaf, 400)
        seq = link.set_scene(tile.uid, [(1, bytes(wire.SCENE_BYTES))])
        assert seq in link.pending_commands(tile.uid)
        await wait_for(lambda: dark(tile.cell_pixels(1)), what="cell 1 dark again")
        await wait_for(lambda: seq not in link.pending_commands(tile.uid), what="ack")
        assert link.tiles[tile.uid].health["resends"] > resends_before
    run(table, scenario)


def test_unplugged_tile_goes_offline_and_is_known_by_its_id_when_plugged_back(table):
    tile = table.tiles[0]

    async def scenario(link):
        old_port = tile.port
        await asyncio.to_thread(tile.place, 2, "04000000000003")
        await wait_event(link, lambda e: e.kind == "tags" and e.tile == tile.uid and e.slot == 2)
        tile.unplug()
        ev = await wait_event(link, lambda e: e.kind == "offline")
        assert ev.tile == tile.uid
        new_port = await asyncio.to_thread(tile.replug)
        link.add_port(new_port)   # what discovery does when a new /dev/ttyACM appears
        ev = await wait_event(link, lambda e: e.kind == "online" and e.tile == tile.uid)
        assert ev.detail == "reboot"
        state = link.tiles[tile.uid]
        assert state.port == new_port and state.online
        assert state.slots[2] == (("04000000000003", None),)   # the card stayed on the cell
        assert old_port in link.sessions   # the old path is retried in case it comes back
        await asyncio.to_thread(tile.clear, 2)
        await wait_event(link, lambda e: e.kind == "tags" and e.tile == tile.uid and e.slot == 2)
    run(table, scenario)


def test_a_tile_unplugged_without_losing_power_gets_what_was_set_while_it_was_away(
        table, tmp_path):
    # A tile powered by the table's supply survives a USB unplug: the port goes away and
    # comes back at the same path (/dev/serial/by-id/...), the tile did not reboot.
    tile = table.tiles[0]
    row = [(1 << i - 1 if i else 0) | (1 << i + 1 if i < 6 else 0) for i in range(7)]

    async def main(cable):
        link = TableLink(ports=[cable.port])
        await link.start()
        try:
            await wait_event(link, lambda e: e.kind == "online" and e.tile == tile.uid)
            starts = tile.starts
            tile.watch_leds()
            link.set_scene(tile.uid, [(6, red_scene())])
            await wait_for(lambda: lit_red(tile.cell_pixels(6)), what="cell 6 lit")
            await asyncio.to_thread(cable.unplug)
            ev = await wait_event(link, lambda e: e.kind == "offline")
            assert ev.tile == tile.uid
            # Set while it is away: the game went on (Battle Royale's field schedule).
            assert link.set_scene(tile.uid, [(3, red_scene())]) is None
            assert link.set_field_neighbours(tile.uid, ROYALE_TILE_0) is None
            await asyncio.to_thread(cable.replug)
            ev = await wait_event(link, lambda e: e.kind == "online" and e.tile == tile.uid)
            assert ev.detail == "reconnect" and tile.starts == starts
            await wait_for(lambda: lit_red(tile.cell_pixels(3)), what="cell 3 lit")
            await wait_for(lambda: tile.stats()["phases"] == field_phases(ROYALE_TILE_0, 4),
                           what="its readers' neighbours told")
            assert lit_red(tile.cell_pixels(6))
            # Leave the tile as the other tests expect it: dark, its readers a row.
            link.set_scene(tile.uid, [(3, bytes(wire.SCENE_BYTES)),
                                      (6, bytes(wire.SCENE_BYTES))])
            link.set_field_neighbours(tile.uid, row)
            await wait_for(lambda: not link.pending_commands(tile.uid), what="acked")
        finally:
            await link.stop()

    with Cable(tile.port, tmp_path) as cable:
        asyncio.run(main(cable))


def test_discovery_opens_pico_ports_and_ignores_others(table, monkeypatch):
    # list_ports cannot see ptys; stand in for it with the table's ports as a Pico running
    # MicroPython (USB 2E8A:0005), and a debug probe (2E8A:000C) and a foreign device on
    # the other tile's port, which must be left alone.
    from serial.tools import list_ports

    class Port:
        def __init__(self, device, vid, pid):
            self.device = device
            self.vid = vid
            self.pid = pid

    fake = [Port(table.tiles[0].port, 0x2E8A, 0x0005), Port(table.tiles[1].port, 0x2E8A, 0x000C),
            Port("/dev/ttyUSB-not-a-tile", 0x0403, 0x6001)]
    monkeypatch.setattr(list_ports, "comports", lambda: fake)

    async def main():
        link = TableLink(discover=True, rescan_s=0.1)
        await link.start()
        try:
            ev = await wait_event(link, lambda e: e.kind == "online")
            assert ev.tile == table.tiles[0].uid
            assert sorted(link.sessions) == [table.tiles[0].port]
        finally:
            await link.stop()
    asyncio.run(main())


@pytest.mark.parametrize("gesture", ["double", "hold"])
def test_a_gesture_is_felt_whole_by_a_tile_starved_in_the_middle(table, gesture):
    """A busy machine can stop a tile's process for longer than the double-tap window
    (CI once read a double tap as a tap). The tile is frozen just after it is asked for
    the gesture, and must still report it, as a real tile, never starved, would."""
    tile = table.tiles[0]

    async def scenario(link):
        await asyncio.to_thread(getattr(tile, gesture), 3)
        os.kill(tile.proc.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(0.6)
        finally:
            os.kill(tile.proc.pid, signal.SIGCONT)
        ev = await wait_event(link, lambda e: e.kind == "gesture")
        assert (ev.tile, ev.slot, ev.gesture) == (tile.uid, 3, gesture)
    run(table, scenario)
