"""`fairytable sniff`: captures and live links decoded into readable lines."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from mpy import requires_micropython

from host.cli import main as cli_main
from host.link import sniff
from shared_rules import wire


def capture_with_garbage():
    frames = [
        wire.encode_frame(wire.HELLO, 1, wire.hello(b"\xe6\x61\x41\x04\x01\x02\x03\x04", (0, 1, 0),
                                                    7, 7, 4, 6, 7, 7, 0, variant="cell")),
        wire.encode_frame(wire.TAG, 2,
                          wire.tag(3, [(b"\x04\xa1\xb2\xc3\xd4\xe5\xf6", b"card:17")])),
        wire.encode_frame(wire.GESTURE, 3, wire.gesture(3, wire.DOUBLE_TAP)),
    ]
    bad_crc = bytearray(wire.encode_frame(wire.HEARTBEAT, 4, wire.heartbeat(10)))
    bad_crc[2] ^= 0x10
    unknown = wire.encode_frame(0x3D, 5, b"\x01")
    noise = bytes(random.Random(4).randrange(1, 256) for _ in range(40))
    return (b"line noise\x00" + frames[0] + noise + b"\x00" + frames[1] + bytes(bad_crc) +
            unknown + frames[2] + b"\x13\x37")


def test_capture_is_decoded_and_garbage_is_reported(tmp_path, capsys):
    path = tmp_path / "link.bin"
    path.write_bytes(capture_with_garbage())
    assert cli_main(["sniff", "--capture", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "@0 garbage: 10 bytes dropped (bad COBS)",
        "@11 hello #1 boot_id=7 buttons=7 cells=7 dice_pockets=0 firmware=(0,1,0) flags=0 "
        "leds_per_segment=6 protocol=1 readers=7 segments=4 uid=e661410401020304 variant=cell",
        "@50 garbage: 40 bytes dropped (bad COBS)",
        "@91 tag #2 slot=3 tags=[{identity=636172643a3137 uid=04a1b2c3d4e5f6}]",
        "@119 garbage: 13 bytes dropped (bad CRC)",
        "@133 bad message (type 0x3d, seq 5, payload 01): unknown message type 0x3d",
        "@144 gesture #3 gesture=double slot=3",
        "@156 garbage: 2 bytes at the end without a delimiter",
        "3 frames, 5 problems (1 CRC errors, 2 bad COBS, 0 too short, 0 oversize)",
    ]


def test_missing_capture_file_is_a_sentence_not_a_traceback(tmp_path, capsys):
    assert sniff.main(["--capture", str(tmp_path / "nope.bin")]) == 1
    assert "cannot read" in capsys.readouterr().err


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_in_a_capture_never_crash_sniff(data):
    out = []
    s = sniff.Sniffer(out.append)
    s.feed(data)
    s.finish()
    assert out[-1].endswith("oversize)")


@requires_micropython
def test_live_sniff_of_a_virtual_tile_port():
    from tools.virtual_table import VirtualTable
    with VirtualTable(tiles=1, cells=2) as vt:
        out = []
        sniff.sniff_port(vt.tiles[0].port, out=out.append, seconds=2.5)
    assert any(" heartbeat #" in line for line in out), out


def test_an_enrollment_write_and_its_result_read_as_one_line_each(tmp_path, capsys):
    record = b"FT\x01\x0c" + bytes(range(12))
    path = tmp_path / "enroll.bin"
    path.write_bytes(
        wire.encode_frame(wire.WRITE_IDENTITY, 40, wire.write_identity(
            2, b"\x04\xa1\xb2\xc3\xd4\xe5\xf6", record)) +
        wire.encode_frame(wire.WRITE_RESULT, 9, wire.write_result(
            40, 2, True, b"\x04\xa1\xb2\xc3\xd4\xe5\xf6", "written")) +
        wire.encode_frame(wire.WRITE_IDENTITY, 41, b"\x02\x05\x01\x02\x03\x04\x05" + bytes(16)))
    assert cli_main(["sniff", "--capture", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("@0 write_identity #40 record=%s slot=2 uid=04a1b2c3d4e5f6"
                        % record.hex())
    assert lines[1].endswith("write_result #9 ack=40 ok=True reason=written slot=2 "
                             "uid=04a1b2c3d4e5f6")
    assert "bad message (type 0x46, seq 41" in lines[2]
    assert "write_identity: uid of 5 bytes is not 4, 7 or 10" in lines[2]
