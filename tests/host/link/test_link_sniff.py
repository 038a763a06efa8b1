"""`fairytable sniff`: captures and live links decoded into readable lines."""

import os
import random
import re
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpy import REPO, requires_micropython

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
def test_live_sniff_of_a_virtual_tile_port(virtual_table):
    vt = virtual_table(tiles=1, cells=2)
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


def test_a_capture_file_decodes_either_direction(tmp_path, capsys):
    # A live sniff hears only the tile; a capture of the host's bytes reads the same way.
    path = tmp_path / "host_to_tile.bin"
    path.write_bytes(wire.encode_frame(wire.LED_BRIGHTNESS, 7, wire.led_brightness(40)) +
                     wire.encode_frame(wire.ACK, 8, wire.ack(2)))
    assert sniff.main(["--capture", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "@0 led_brightness #7 level=40", "@11 ack #8 ack=2 status=ok"]


def test_text_from_the_wire_is_escaped_never_obeyed_by_the_terminal(tmp_path, capsys):
    hello = wire.hello(b"\x01" * 8, (0, 1, 0), 1, 7, 4, 6, 7, 7, 0, variant="cell\x1b[2J")
    path = tmp_path / "hostile.bin"
    path.write_bytes(
        wire.encode_frame(wire.LOG, 1, wire.log(3, "\x1b[31mred\nfake: 2 frames")) +
        wire.encode_frame(wire.HELLO, 2, hello) +
        wire.encode_frame(wire.WRITE_RESULT, 3, wire.write_result(
            9, 0, False, b"\x01" * 4, "no\ranswer\u202e")) +
        wire.encode_frame(wire.LOG, 4, wire.log(1, "")))
    assert sniff.main(["--capture", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
    lines = out.splitlines()
    assert len(lines) == 5
    assert lines[0] == r"@0 log #1 level=error text='\x1b[31mred\nfake: 2 frames'"
    assert lines[1].endswith(r" variant='cell\x1b[2J'")
    assert r" reason='no\ranswer\u202e' " in lines[2]
    assert lines[3].endswith("log #4 level=info text=''")


def run_sniff_cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "host.cli", "sniff"] + args, cwd=REPO,
                          capture_output=True, **kw)


def test_a_terminal_that_cannot_show_a_character_gets_it_escaped(tmp_path):
    path = tmp_path / "cafe.bin"
    path.write_bytes(wire.encode_frame(wire.LOG, 1, wire.log(1, "café☕")))
    proc = run_sniff_cli(["--capture", str(path)],
                         env=dict(os.environ, PYTHONIOENCODING="ascii"))
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode("ascii").splitlines()[0] == r"@0 log #1 level=info text=caf\xe9\u2615"


def test_a_reader_that_stops_early_ends_sniff_quietly(tmp_path):
    # `fairytable sniff --capture F | head -1`: far more lines than a pipe holds.
    path = tmp_path / "long.bin"
    path.write_bytes(b"".join(wire.encode_frame(wire.HEARTBEAT, i, wire.heartbeat(i))
                              for i in range(20000)))
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "sniff", "--capture", str(path)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"@0 heartbeat #0")
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait() == 0
    assert err == b""


def test_seconds_with_a_capture_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "link.bin"
    path.write_bytes(b"")
    with pytest.raises(SystemExit) as e:
        sniff.main(["--capture", str(path), "--seconds", "3"])
    assert e.value.code == 2
    assert "--seconds limits listening to a live PORT" in capsys.readouterr().err


def test_a_file_given_as_port_is_not_a_serial_port(tmp_path, capsys):
    path = tmp_path / "link.bin"
    path.write_bytes(wire.encode_frame(wire.HEARTBEAT, 1, wire.heartbeat(0)))
    assert sniff.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err == ("fairytable sniff: %s is not a serial port (to decode a file of captured "
                   "bytes, use --capture %s)\n" % (path, path))
    assert sniff.main([str(tmp_path / "ttyNOPE")]) == 1
    assert capsys.readouterr().err.endswith("ttyNOPE: No such file or directory\n")


@pytest.fixture
def pty():
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    os.close(slave)
    try:
        os.close(master)
    except OSError:
        pass    # the test closed it


def test_a_port_the_host_holds_is_not_sniffed(pty, capsys):
    import serial
    _master, name = pty
    with serial.Serial(name, exclusive=True):     # as host/link/transport.py opens it
        # (--seconds: a sniff that did open the port would end and fail, not hang)
        assert sniff.main(["--seconds", "1", name]) == 1
    assert capsys.readouterr().err == (
        "fairytable sniff: %s is in use (is `fairytable run` holding it?); a live sniff "
        "listens only to a port no host holds\n" % name)


def test_a_port_that_hangs_up_ends_the_sniff_with_its_tail_and_a_sentence(pty, monkeypatch):
    master, name = pty
    opened = threading.Event()
    heard = threading.Event()
    real_open = sniff.open_port

    def open_port(path):
        ser = real_open(path)
        opened.set()
        return ser
    monkeypatch.setattr(sniff, "open_port", open_port)
    out = []

    def line(text):
        out.append(text)
        if " heartbeat #3 " in text:
            heard.set()
    listener = threading.Thread(target=sniff.sniff_port, args=(name, line))
    listener.start()
    assert opened.wait(60)
    os.write(master, wire.encode_frame(wire.HEARTBEAT, 3, wire.heartbeat(5)) + b"\x01\x02")
    assert heard.wait(60)
    os.close(master)    # the tile is unplugged
    listener.join(60)
    assert not listener.is_alive()
    live = r"^ *\d+\.\d{3} "    # every live line is stamped with the time since the start
    assert [re.sub(live, "", x) for x in out] == [
        "heartbeat #3 uptime_ms=5",
        "the port closed (tile unplugged?)",
        "garbage: 2 bytes at the end without a delimiter",
        "1 frames, 1 problems (0 CRC errors, 0 bad COBS, 0 too short, 0 oversize)"]
    assert all(re.match(live, x) for x in out[:3])


def test_a_captures_undecoded_tail_is_counted_by_the_sniffer_itself():
    """The bytes after the last delimiter (a frame under way, an oversize run already let go)
    are said at the end; the sniffer counts them itself, reading none of the decoder's inner
    state (the decoder is deployed to the tiles: it carries no code only a sniffer needs)."""
    frame = wire.encode_frame(wire.HEARTBEAT, 1, wire.heartbeat(10))
    for tail, size in ((frame[:5], 5), (bytes([7]) * 200, 200)):
        out = []
        sniffer = sniff.Sniffer(out.append)
        sniffer.feed(frame + tail)
        sniffer.finish()
        assert out[-2] == "@%d garbage: %d bytes at the end without a delimiter" % (
            len(frame), size), out
        assert sniffer.frames == 1
