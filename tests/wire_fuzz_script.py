"""Decoder fuzz run shared by CPython and MicroPython (tests/shared_rules/test_wire_micropython.py).

Deterministic: an integer LCG drives it, so both interpreters must print the
same lines. Valid frames are interleaved with random garbage; every valid
frame that follows a delimiter must come out, and the decoder must never raise.
Bodies just over MAX_FRAME whose zeros keep their COBS form under the buffer
bound go to a fresh decoder too: every one must be dropped as oversize.
"""
import binascii

from shared_rules import wire


class Lcg:
    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self, n):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.state >> 8) % n


def run(rounds):
    rng = Lcg(20261121)
    d = wire.Decoder()
    sent = 0
    got = 0
    big = 0
    big_d = wire.Decoder()
    for i in range(rounds):
        # garbage, possibly containing delimiters, possibly a truncated real frame
        g = bytearray()
        for _ in range(rng.next(40)):
            g.append(rng.next(256))
        if rng.next(4) == 0:
            f = wire.encode_frame(wire.TAG, i, wire.tag(i % 8, [(bytes((4, i & 255, 1, 2)), None)]))
            g.extend(f[:rng.next(len(f))])
        if rng.next(10) == 0:
            g.extend(bytes(rng.next(256) | 1 for _ in range(700)))  # oversize run
        frame = wire.encode_frame(wire.GESTURE, i & 0xFFFF, wire.gesture(i % 8, 1 + i % 3))
        stream = bytes(g) + b"\x00" + frame
        if rng.next(8) == 0:
            body = bytearray((1, wire.GESTURE, 0, 1))
            for _ in range(wire.MAX_PAYLOAD + 1 + rng.next(2)):   # a body of 513 or 514 bytes
                body.append(rng.next(256) if rng.next(4) == 0 else 0)
            body.extend((binascii.crc32(body) & 0xFFFFFFFF).to_bytes(4, "big"))
            too_big = wire.cobs_encode(bytes(body)) + b"\x00"
            big += 1
            big_d.feed(too_big)
            stream = bytes(g) + b"\x00" + too_big + frame
        sent += 1
        # feed in random chunk sizes
        pos = 0
        while pos < len(stream):
            step = 1 + rng.next(64)
            for fr in d.feed(stream[pos:pos + step]):
                m = wire.parse(fr)
                if m["type"] == "gesture" and m["seq"] == (i & 0xFFFF):
                    got += 1
            pos += step
    print("sent", sent, "got", got)
    print("crc", d.crc_errors, "cobs", d.cobs_errors, "short", d.short_frames,
          "oversize", d.oversize, "garbage", d.garbage_bytes, "frames", d.frames)
    print("buffered", len(d._buf))
    print("too big", big, "oversize", big_d.oversize, "frames", big_d.frames)
    d.feed(None)    # not bytes: the catch-all inside feed() counts it
    print("decoder_errors", d.decoder_errors)
