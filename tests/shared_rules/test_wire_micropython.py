"""The wire codec under MicroPython: a decoder fuzz run, and byte-identical frames."""

import os
import subprocess
import sys

from mpy import REPO, requires_micropython, run_micropython
from tile_mpy import run_tile_code

from shared_rules import wire

ENCODE_SCRIPT = r"""
import binascii
from shared_rules import wire
frames = [
    wire.encode_frame(wire.HELLO, 1, wire.hello(b"\xe6\x61\x41\x04\x03\x2b\x4c\x2a", (0, 1, 0),
                      0xDEADBEEF, 8, 4, 5, 8, 8, 0, flags=3, variant="cell")),
    wire.encode_frame(wire.TAG, 2, wire.tag(7, [(b"\x04\x11\x22\x33\x44\x55\x66", b"card:17"),
                                                (b"\x01\x02\x03\x04", None)])),
    wire.encode_frame(wire.LED_SCENE, 65535, wire.led_scene(
        [(c, bytes(range(c, c + 24))) for c in range(8)])),
    wire.encode_frame(wire.SNAPSHOT, 3, wire.snapshot(123456, [(0, []), (1, [(b"\x00" * 7, None)])],
                      [(0, None), (2, (b"\x09\x08\x07\x06", b"d6:4"))])),
    wire.encode_frame(wire.HEALTH, 4, wire.health(99, [(True, 0, 0)] * 8, 1, 2, 3, 40000, 9)),
    wire.encode_frame(wire.ACK, 5, wire.ack(65535, 2)),
    wire.encode_frame(wire.LOG, 6, wire.log(2, "heap low")),
    wire.encode_frame(wire.GESTURE, 7, wire.gesture(3, wire.DOUBLE_TAP)),
    wire.encode_frame(wire.DICE, 8, wire.dice(2, None)),
    wire.encode_frame(wire.WRITE_IDENTITY, 9, wire.write_identity(
        6, b"\x04\x11\x22\x33\x44\x55\x66", b"FT\x01\x0c" + bytes(range(12)))),
    wire.encode_frame(wire.WRITE_RESULT, 10, wire.write_result(
        9, 6, False, b"\x04\x11\x22\x33\x44\x55\x66", "read-only tag: NAK on page 4")),
    # long text is cut between UTF-8 characters
    wire.encode_frame(wire.LOG, 11, wire.log(1, "\u00e9" * 300)),
    wire.encode_frame(wire.WRITE_RESULT, 12, wire.write_result(
        9, 6, False, b"\x01\x02\x03\x04", "xx" + "\u2615" * 30)),
]
def show(v):
    # canonical text: dict order differs between the interpreters
    if isinstance(v, dict):
        return "{" + ",".join("%s:%s" % (k, show(v[k])) for k in sorted(v)) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(show(x) for x in v) + "]"
    if isinstance(v, bytes):
        return binascii.hexlify(v).decode()
    return str(v)
for f in frames:
    print(binascii.hexlify(f).decode())
    m = wire.parse(wire.Decoder().feed(f)[0])
    print(show(m))
# what parse makes of payloads that break the rules
for t, p in ((wire.TAG, wire.tag(2, [(b"\x04\x01\x02\x03\x04", None)])),
             (wire.DICE, wire.dice(1, (b"\x01" * 8, None))),
             (wire.WRITE_RESULT, wire.write_result(3, 0, True, b"", "written")),
             (wire.LOG, b"\x02\xff\xfe\x80"),
             (wire.HELLO, wire.hello(b"\x01" * 8, (0, 1, 0), 1, 7, 4, 6, 7, 7, 0)[:-5] +
              b"\x02\xe2\x98")):
    try:
        print(show(wire.parse(wire.Frame(1, t, 1, p))))
    except wire.WireError as e:
        print("WireError:", e)
"""


@requires_micropython
def test_frames_are_byte_identical_on_both_interpreters():
    mp = run_micropython(["-c", ENCODE_SCRIPT])
    assert mp.returncode == 0, mp.stderr.decode()
    cp = subprocess.run([sys.executable, "-c", ENCODE_SCRIPT], cwd=REPO, capture_output=True)
    assert cp.returncode == 0, cp.stderr.decode()
    assert mp.stdout.decode().splitlines() == cp.stdout.decode().splitlines()
    lines = mp.stdout.decode().splitlines()
    assert len(lines) == 31
    assert "text:" + "\u00e9" * 251 in lines[23]          # 502 of the 503 bytes that fit
    assert "reason:xx" + "\u2615" * 20 + "," in lines[25]  # 64 bytes split the 21st
    assert lines[26:29] == ["WireError: tag: uid of 5 bytes is not 4, 7 or 10",
                            "WireError: dice: uid of 8 bytes is not 4, 7 or 10",
                            "WireError: write_result: uid of 0 bytes is not 4, 7 or 10"]
    assert "text:<3 bytes not UTF-8: fffe80>" in lines[29]
    assert "variant:<2 bytes not UTF-8: e298>" in lines[30]


@requires_micropython
def test_decoder_fuzz_under_micropython_matches_cpython():
    code = "import wire_fuzz_script\nwire_fuzz_script.run(400)\n"
    # 64 KB heap and the compiled codec, as on a tile.
    mp_out = run_tile_code(code, heapsize="64k", timeout=200)
    cp = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                        env={"PYTHONPATH": os.pathsep.join([REPO, os.path.join(REPO, "tests")])})
    assert cp.returncode == 0, cp.stderr.decode()
    lines = mp_out.splitlines()
    assert lines == cp.stdout.decode().splitlines()
    assert lines[0] == "sent 400 got 400"
    assert lines[2] == "buffered 0"
    too_big = lines[3].split()
    assert int(too_big[2]) > 0 and too_big[3:] == ["oversize", too_big[2], "frames", "0"]
    assert lines[4] == "decoder_errors 1"
    counts = lines[1].split()
    assert int(counts[counts.index("oversize") + 1]) > 0
    assert int(counts[counts.index("cobs") + 1]) + int(counts[counts.index("crc") + 1]) > 0


def test_fuzz_script_is_the_same_codec_the_host_uses():
    # Guard against the script drifting to a private copy of the codec.
    with open(os.path.join(REPO, "tests", "wire_fuzz_script.py")) as f:
        src = f.read()
    assert "from shared_rules import wire" in src
    assert wire.MAX_FRAME == 512
