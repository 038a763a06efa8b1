"""The tile firmware's main loop under MicroPython: 8 readers, a 64 KB firmware heap.

One tile process of the virtual table (firmware/main.py, sim board, the
mpy-cross compiled image mounted as ROMFS), spoken to frame by frame with
pyserial over its pseudo-terminal: this is the tile side of
hardware/protocol.md, checked without the host link in between.
"""

import time

import pytest
import serial
from mpy import requires_micropython

from host.virtual import image as tile_image
from shared_rules.led_scene import CHASE, PULSE, SOLID, uniform_scene
from shared_rules import wire
from host.virtual import VirtualTable

pytestmark = requires_micropython

WAIT_S = 30.0   # bounds a hung test; not a latency assertion


class Host:
    """A minimal host: frames out, parsed messages in, acks what needs one."""

    def __init__(self, port):
        self.ser = serial.Serial(port, timeout=0.05)
        self.decoder = wire.Decoder()
        self.seq = 0
        self.auto_ack = True
        self.log = []
        self.unread = []
        self.pending = {}

    def send(self, msg_type, payload=b""):
        self.seq += 1
        frame = wire.encode_frame(msg_type, self.seq, payload)
        self.ser.write(frame)
        if msg_type in wire.ACKED:   # resent until acked, as hardware/protocol.md says
            self.pending[self.seq] = [frame, time.monotonic()]
        return self.seq

    def pump(self):
        out = []
        now = time.monotonic()
        for entry in self.pending.values():
            if now - entry[1] >= 0.1:
                entry[1] = now
                self.ser.write(entry[0])
        for frame in self.decoder.feed(self.ser.read(4096)):
            msg = wire.parse(frame)
            if msg["type"] == "ack":
                self.pending.pop(msg["ack"], None)
            if self.auto_ack and frame.type in wire.ACKED:
                self.ser.write(wire.encode_frame(wire.ACK, 0, wire.ack(frame.seq)))
            self.log.append(msg)
            out.append(msg)
        return out

    def wait(self, match, what):
        """The first message not yet taken that matches; earlier ones are dropped."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            self.unread.extend(self.pump())
            while self.unread:
                msg = self.unread.pop(0)
                if match(msg):
                    return msg
        raise AssertionError("no %s; last messages: %r" % (what, self.log[-10:]))


@pytest.fixture(scope="module")
def tile():
    vt = VirtualTable(tiles=1, cells=8, heapsize="64k")
    vt.start()
    yield vt.tiles[0]
    vt.stop()


@pytest.fixture
def host(tile):
    h = Host(tile.port)
    h.ser.write(b"\x00")
    h.send(wire.HELLO_REQUEST)
    h.wait(lambda m: m["type"] == "hello", "hello")
    yield h
    h.ser.close()


def test_tile_process_gets_64k_for_the_firmware_and_the_rest_for_rom_and_chips(tile):
    romfs = tile.table.romfs
    heap = tile_image.heapsize_for(romfs, 64 * 1024, 8)
    assert heap == 64 * 1024 + tile_image.os.path.getsize(romfs) + \
        tile_image.hardware_bytes(romfs, 8) + 256
    cmd = " ".join(tile.proc.args)
    assert "heapsize=%d" % heap in cmd


def test_hello_announces_eight_readers_and_cells(host):
    host.send(wire.HELLO_REQUEST)
    hello = host.wait(lambda m: m["type"] == "hello", "hello")
    assert (hello["readers"], hello["cells"], hello["buttons"]) == (8, 8, 8)
    assert hello["segments"] == 4 and hello["leds_per_segment"] == 6
    assert hello["uid"] == bytes.fromhex("e661410400000001")
    assert hello["flags"] & wire.CAP_IDENTITY


def test_cards_on_all_eight_readers_are_reported_and_in_the_snapshot(tile, host):
    for slot in range(8):
        tile.place(slot, "04aa00000000%02x" % slot, "card:%d" % slot)
    seen = {}
    while len(seen) < 8:
        msg = host.wait(lambda m: m["type"] == "tag", "tag events")
        seen[msg["slot"]] = msg["tags"]
    for slot in range(8):
        assert seen[slot] == [{"uid": bytes.fromhex("04aa00000000%02x" % slot),
                               "identity": b"card:%d" % slot}]
    host.send(wire.SNAPSHOT_REQUEST)
    snap = host.wait(lambda m: m["type"] == "snapshot", "snapshot")
    # What does not fit a small SNAPSHOT follows as TAG events (hardware/protocol.md).
    got = {s["slot"]: s["tags"] for s in snap["slots"]}
    assert got and list(got) == list(range(len(got)))
    while len(got) < 8:
        msg = host.wait(lambda m: m["type"] == "tag", "the slots after the snapshot")
        assert msg["slot"] not in got
        got[msg["slot"]] = msg["tags"]
    assert sorted(got) == list(range(8))
    for slot in range(8):
        assert got[slot] == seen[slot]
    for slot in range(8):
        tile.clear(slot)
    gone = set()
    while len(gone) < 8:
        msg = host.wait(lambda m: m["type"] == "tag" and m["tags"] == [], "tags gone")
        gone.add(msg["slot"])
    stats = tile.stats()
    assert stats["heap_free"] > 4096, stats


def test_unacknowledged_event_is_resent_with_the_same_seq(tile, host):
    host.auto_ack = False
    tile.place(2, "04bb000000002a")
    first = host.wait(lambda m: m["type"] == "tag" and m["slot"] == 2, "tag")
    again = host.wait(lambda m: m["type"] == "tag" and m["slot"] == 2, "resent tag")
    assert again["seq"] == first["seq"] and again["tags"] == first["tags"]
    host.ser.write(wire.encode_frame(wire.ACK, 0, wire.ack(first["seq"])))
    host.auto_ack = True
    tile.clear(2)
    host.wait(lambda m: m["type"] == "tag" and m["slot"] == 2 and m["tags"] == [], "lifted")


def test_animated_scene_on_eight_cells_is_acked_and_rendered(tile, host):
    scenes = [(c, uniform_scene(CHASE if c % 2 else PULSE, (0, 120, 200), 10, 2))
              for c in range(8)]
    seq = host.send(wire.LED_SCENE, wire.led_scene(scenes))
    ack = host.wait(lambda m: m["type"] == "ack" and m["ack"] == seq, "ack")
    assert ack["status"] == "ok"
    tile.watch_leds()
    frames = set()
    deadline = time.monotonic() + WAIT_S
    while len(frames) < 3 and time.monotonic() < deadline:
        host.pump()
        frames.add(bytes(tile.frame))
    assert len(frames) >= 3, "an animated scene changes from frame to frame"
    assert all(any(tile.cell_pixels(c)) for c in range(8))
    host.send(wire.LED_SCENE, wire.led_scene([(c, uniform_scene(SOLID, (0, 0, 0)))
                                              for c in range(8)]))


def test_scene_for_a_cell_the_tile_lacks_is_refused_in_the_ack(host):
    seq = host.send(wire.LED_SCENE, wire.led_scene([(9, bytes(24))]))
    ack = host.wait(lambda m: m["type"] == "ack" and m["ack"] == seq, "ack")
    assert ack["status"] == "unsupported"


def test_malformed_command_is_refused_and_changes_nothing(tile, host):
    before = tile.reported()
    host.ser.write(wire.encode_frame(wire.LED_SCENE, 77, b"\x01\x00\x01"))
    ack = host.wait(lambda m: m["type"] == "ack" and m["ack"] == 77, "ack")
    assert ack["status"] == "bad_payload"
    assert tile.reported() == before


def test_silent_host_gives_idle_animation_and_a_heard_host_ends_it(tile, host):
    seq = host.send(wire.SET_CONFIG, wire.set_config(wire.CONFIG_HOST_TIMEOUT_MS, 300))
    host.wait(lambda m: m["type"] == "ack" and m["ack"] == seq, "ack")
    deadline = time.monotonic() + WAIT_S
    while not tile.stats()["idle"]:
        assert time.monotonic() < deadline, "tile never went idle"
        time.sleep(0.1)
    host.send(wire.HEARTBEAT, wire.heartbeat(0))
    deadline = time.monotonic() + WAIT_S
    while tile.stats()["idle"]:
        assert time.monotonic() < deadline, "tile stayed idle"
        host.send(wire.HEARTBEAT, wire.heartbeat(0))
        time.sleep(0.05)
    seq = host.send(wire.SET_CONFIG, wire.set_config(wire.CONFIG_HOST_TIMEOUT_MS, 3000))
    host.wait(lambda m: m["type"] == "ack" and m["ack"] == seq, "ack")


def test_hung_reader_is_reinitialised_and_the_others_keep_reading(tile, host):
    tile.fault(5, "hang")
    seq = host.send(wire.SET_CONFIG, wire.set_config(wire.CONFIG_HEALTH_PERIOD_MS, 200))
    host.wait(lambda m: m["type"] == "ack" and m["ack"] == seq, "ack")
    health = host.wait(lambda m: m["type"] == "health" and m["readers"][5]["reinits"] >= 1,
                       "health with reader 5 re-initialised")
    assert all(r["ok"] for i, r in enumerate(health["readers"]) if i != 5)
    tile.place(6, "04cc0000000006")
    host.wait(lambda m: m["type"] == "tag" and m["slot"] == 6 and m["tags"], "tag on 6")
    tile.clear(6)
    seq = host.send(wire.SET_CONFIG, wire.set_config(wire.CONFIG_HEALTH_PERIOD_MS, 5000))
    host.wait(lambda m: m["type"] == "ack" and m["ack"] == seq, "ack")


def test_firmware_files_compile_with_mpy_cross_for_both_boards():
    for board in ("rp2", "sim"):
        tree = tile_image.build(board)
        assert tile_image.os.path.exists(tile_image.os.path.join(tree, "firmware", "main.mpy"))
    assert tile_image.os.path.exists(tile_image.os.path.join(
        tile_image.build("rp2"), "firmware", "boards", "rp2.mpy"))


def test_the_firmwares_own_names_stay_within_the_fifth_qstr_pool():
    # MicroPython grows its qstr pools by doubling; the fifth holds about 620 names in
    # all. A sim tile's emulated chips and control channel bring about 160 names of their
    # own and open a sixth pool (about 7 KB), which host/virtual/image.py counts with them:
    # a real tile has none of those names. The firmware's own modules (its board backend
    # included) must stay within the fifth pool, or the sixth would be the firmware's to
    # pay from its 64 KB.
    import subprocess

    from mpy import micropython_path
    romfs = tile_image.build_romfs("sim")
    code = tile_image.launcher(romfs, (
        "import micropython\n"
        "import firmware.main, firmware.boards.sim\n"
        "micropython.qstr_info()\n"))
    proc = subprocess.run([micropython_path(), "-X", "heapsize=512k", "-c", code],
                          capture_output=True, text=True, cwd=tile_image.tempfile.gettempdir())
    assert proc.returncode == 0, proc.stderr
    info = dict(kv.split("=") for kv in proc.stdout.split(":", 1)[1].replace(",", " ").split())
    assert int(info["n_pool"]) <= 5, "the firmware's names spilled into a sixth pool: %s" % (
        proc.stdout,)
