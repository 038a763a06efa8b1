"""The tile's link reads what the host sent at once in one pass, a USB packet a read.

A scene of several cells is two or three 64-byte packets. Read one packet a pass, with a
reader's poll (up to 9 ms of blocking SPI) between two passes, it reached the LEDs
12 ms after the host sent it (p50, tools/bench_lit.py); read whole in one pass, 4 ms.
A pass reads at most four packets, so a host that floods the line cannot hold the tile's
loop (its readers and LEDs) in one pass.
"""

from firmware.link import TileLink
from shared_rules import wire

PACKET = 64


class Port:
    """A byte port that hands over at most one packet a read, as the boards' ports do."""

    def __init__(self, data):
        self.data = data
        self.reads = 0

    def read(self):
        chunk, self.data = self.data[:PACKET], self.data[PACKET:]
        if chunk:
            self.reads += 1
        return chunk

    def write(self, data):
        return True


def link_on(data):
    port = Port(data)
    t = {"host_timeout_ms": 3000, "resend_ms": 100, "heartbeat_ms": 1000}
    link = TileLink(port, t, lambda: 0, lambda a, b: a - b)
    link.host_heard = True
    return link, port


def scene(seq, cells):
    return wire.encode_frame(wire.LED_SCENE, seq, wire.led_scene(
        [(c, bytes([c]) * wire.SCENE_BYTES) for c in cells]))


def test_a_scene_of_several_packets_is_read_in_one_pass():
    frame = scene(1, range(4))
    assert PACKET < len(frame) <= 2 * PACKET           # two packets on the line
    link, port = link_on(frame + wire.encode_frame(wire.LED_BRIGHTNESS, 2,
                                                   wire.led_brightness(40)))
    got = link.receive()
    assert [(m["type"], m["seq"]) for m in got] == [("led_scene", 1), ("led_brightness", 2)]
    assert [c["cell"] for c in got[0]["cells"]] == [0, 1, 2, 3]
    assert link.receive() == ()


def test_a_pass_reads_four_packets_at_most():
    frames = b"".join(scene(seq, range(seq, seq + 4)) for seq in range(1, 5))
    link, port = link_on(frames)
    first = link.receive()
    assert port.reads == 4                  # 256 bytes: what is left waits a pass
    assert [m["seq"] for m in first] == [1, 2]
    rest = link.receive()
    assert [m["seq"] for m in rest] == [3, 4]
    assert link.receive() == ()
