"""The virtual table's control channel: dice tray, LED frames, and the CPython fallback."""

import asyncio
import time

import serial
from mpy import requires_micropython
from vtable_helpers import lit_red, red_scene, wait_event, wait_for

from host.link import TableLink
from host.virtual import ControlError, VirtualTable
from shared_rules import wire


@requires_micropython
def test_dice_tray_reports_the_face_tag_settled_in_each_pocket():
    with VirtualTable(tiles=1, variant="dice") as vt:
        tray = vt.tiles[0]

        async def main():
            async with TableLink(ports=vt.ports()) as link:
                ev = await wait_event(link, lambda e: e.kind == "online")
                assert link.tiles[ev.tile].hello["dice_pockets"] == 3
                await asyncio.to_thread(tray.set_die, 1, "04d1e000000005", "d6:5")
                ev = await wait_event(link, lambda e: e.kind == "dice")
                assert (ev.pocket, ev.die) == (1, ("04d1e000000005", b"d6:5"))
                await asyncio.to_thread(tray.set_die, 1, None)
                ev = await wait_event(link, lambda e: e.kind == "dice")
                assert (ev.pocket, ev.die) == (1, None)
        asyncio.run(main())


@requires_micropython
def test_dice_tray_has_one_button_for_three_pockets():
    # The tray has three readers but one "dice rolled" button: its pads are the buttons
    # (a pad per reader made the pads task fail on every sample with an IndexError).
    with VirtualTable(tiles=1, variant="dice") as vt:
        tray = vt.tiles[0]

        async def main():
            async with TableLink(ports=vt.ports()) as link:
                ev = await wait_event(link, lambda e: e.kind == "online")
                hello = link.tiles[ev.tile].hello
                assert (hello["readers"], hello["buttons"]) == (3, 1)
                await asyncio.to_thread(tray.tap, 0)
                ev = await wait_event(link, lambda e: e.kind == "gesture")
                assert (ev.slot, ev.gesture) == (0, "tap")
                for slot in (1, 2, 3, -1):
                    try:
                        await asyncio.to_thread(tray.tap, slot)
                    except ControlError as e:
                        assert "no pad %d: this tile has 1 (0..0)" % slot in str(e)
                    else:
                        raise AssertionError("a tap on pad %d of the tray was accepted" % slot)
                try:
                    await asyncio.to_thread(tray.press, 2, True)
                except ControlError as e:
                    assert "no pad 2" in str(e)
                else:
                    raise AssertionError("a press on pad 2 of the tray was accepted")
                # The refused requests changed nothing: the button still works, nothing failed.
                await asyncio.to_thread(tray.double, 0)
                ev = await wait_event(link, lambda e: e.kind == "gesture")
                assert (ev.slot, ev.gesture) == (0, "double")
                assert (await asyncio.to_thread(tray.stats))["failures"] == 0
        asyncio.run(main())
        log = tray.log_tail()
        assert "task" not in log and "pads" not in log, log


@requires_micropython
def test_gestures_asked_one_after_another_are_each_seen():
    # A hold asked while the previous hold is still pressed is a second hold (the Battle
    # Royale hands pick the second player on a cell so): the finger comes off the pad for
    # longer than the debounce first. Two taps asked together stay two taps.
    with VirtualTable(tiles=1, cells=2) as vt:
        tile = vt.tiles[0]

        async def main():
            async with TableLink(ports=vt.ports()) as link:
                await wait_event(link, lambda e: e.kind == "online")
                await asyncio.to_thread(tile.hold, 1)
                await asyncio.to_thread(tile.hold, 1)
                for _ in range(2):
                    ev = await wait_event(link, lambda e: e.kind == "gesture")
                    assert (ev.slot, ev.gesture) == (1, "hold")
                await asyncio.to_thread(tile.tap, 0)
                await asyncio.to_thread(tile.tap, 0)
                for _ in range(2):
                    ev = await wait_event(link, lambda e: e.kind == "gesture")
                    assert (ev.slot, ev.gesture) == (0, "tap")
        asyncio.run(main())


@requires_micropython
def test_led_frame_is_readable_cell_by_cell():
    with VirtualTable(tiles=1, cells=3) as vt:
        tile = vt.tiles[0]

        async def main():
            async with TableLink(ports=vt.ports()) as link:
                await wait_event(link, lambda e: e.kind == "online")
                link.set_scene(tile.uid, [(1, red_scene())])
                # one-shot reads until the next rendered frame shows the scene
                await wait_for(lambda: lit_red(tile.cell_pixels(1, tile.leds())),
                               what="cell 1 red in a read frame")
                frame = await asyncio.to_thread(tile.leds)
                assert len(frame) == 3 * 4 * 6 * 3
                assert not any(tile.cell_pixels(0, frame)) and not any(tile.cell_pixels(2, frame))
        asyncio.run(main())


def test_without_micropython_the_same_firmware_runs_under_cpython_and_says_so(capsys):
    with VirtualTable(tiles=1, cells=2, interpreter="cpython") as vt:
        assert vt.interpreter == "cpython"
        tile = vt.tiles[0]
        assert tile.ready_info["interpreter"] == "cpython"
        ser = serial.Serial(tile.port, timeout=0.05)
        ser.write(b"\x00" + wire.encode_frame(wire.HELLO_REQUEST, 1))
        tile.place(1, "04c0ffee000001")
        decoder = wire.Decoder()
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(m["type"] == "tag" for m in seen):
            seen += [wire.parse(f) for f in decoder.feed(ser.read(4096))]
        ser.close()
    assert "running the tile firmware under CPython" in capsys.readouterr().out
    assert any(m["type"] == "hello" and m["readers"] == 2 for m in seen)
    tag = [m for m in seen if m["type"] == "tag"][0]
    assert tag["slot"] == 1 and tag["tags"][0]["uid"] == bytes.fromhex("04c0ffee000001")


@requires_micropython
def test_tiles_power_off_when_the_table_process_dies():
    import os
    import signal
    import subprocess
    import sys

    from mpy import REPO
    script = ("from host.virtual import ControlError, VirtualTable\n"
              "import time\n"
              "vt = VirtualTable(tiles=2, cells=2).start()\n"
              "print(' '.join(str(t.proc.pid) for t in vt.tiles), flush=True)\n"
              "time.sleep(600)\n")
    table = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE,
                             text=True)
    pids = [int(p) for p in table.stdout.readline().split()]
    assert len(pids) == 2
    table.send_signal(signal.SIGKILL)   # no clean-up runs: the tiles must notice on their own
    table.wait()
    deadline = time.monotonic() + 30
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().split()[2] != "Z":
                        alive.append(pid)
            except OSError:
                pass
    for pid in alive:   # leave nothing behind, then fail
        os.kill(pid, signal.SIGKILL)
    assert not alive, "tile processes outlived their table: %r" % alive


@requires_micropython
def test_a_table_mixes_cell_tiles_and_a_dice_tray():
    with VirtualTable(tiles=2, cells=4, variants=["cell", "dice"]) as vt:
        async def main():
            async with TableLink(ports=vt.ports()) as link:
                seen = {}
                while len(seen) < 2:
                    ev = await wait_event(link, lambda e: e.kind == "online")
                    seen[ev.tile] = link.tiles[ev.tile].hello
                assert seen[vt.tiles[0].uid]["variant"] == "cell"
                assert seen[vt.tiles[0].uid]["readers"] == 4
                assert seen[vt.tiles[1].uid]["variant"] == "dice"
                assert seen[vt.tiles[1].uid]["dice_pockets"] == 3
        asyncio.run(main())
