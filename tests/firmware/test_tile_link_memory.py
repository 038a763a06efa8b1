"""The tile's link acks and deduplicates host commands in a fragmented heap, under MicroPython.

A Battle Royale game on a noisy line logged "link: MemoryError('memory allocation failed,
allocating 256 bytes')" 272 times on one tile (its log: ``firmware/link.py`` in ``ack``):
the list of host seqs acted on lately grew as acks came, and on the 17th it asked the
heap for a new block of 32 entries (256 bytes on the 64-bit unix port), which the tile's
fragmented heap no longer had. From then on every ack failed, so no command was ever
acked, and the host resent each one for ever. The seqs now live in a ring made at start
(``TileLink.seen``), and the queue of unacked events is emptied in place.

Here the heap is filled with small blocks and every other one freed, so that no hole
holds 256 bytes, before the link takes 300 host commands (a HELLO_REQUEST among them,
which starts a new host session, and a resent duplicate), acks them and queues events.
"""

from mpy import requires_micropython, run_micropython_code

CODE = r"""
import gc
from firmware.link import TileLink
from shared_rules import wire


class Port:
    def __init__(self, frames):
        self.frames = frames
        self.at = 0
        self.written = 0

    def read(self):
        if self.at >= len(self.frames):
            return b""
        self.at += 1
        return self.frames[self.at - 1]

    def write(self, data):
        self.written += 1
        return True


def fragment(size):
    # Fill the heap with blocks of this size (and then of 16 bytes, into what is left),
    # then free every other one: what is left free is holes of about one block.
    gc.collect()
    hold = [None] * 20000
    n = 0
    for each in (size, 16):
        try:
            while n < len(hold):
                hold[n] = bytearray(each)
                n += 1
        except MemoryError:
            pass
    for i in range(0, n, 2):
        hold[i] = None
    gc.collect()
    return hold


def main():
    frames = []
    for seq in range(1, 301):
        if seq == 150:
            frames.append(wire.encode_frame(wire.HELLO_REQUEST, seq, b""))
        else:
            level = wire.led_brightness(seq & 0xFF)
            frames.append(wire.encode_frame(wire.LED_BRIGHTNESS, seq, level))
    frames.append(frames[295])                      # a resend of a command done
    port = Port(frames)
    t = {"host_timeout_ms": 3000, "resend_ms": 100, "heartbeat_ms": 1000}
    link = TileLink(port, t, lambda: 0, lambda a, b: a - b)
    link.host_heard = True
    # A tile in play: its queue of unacked events has been full once (it reported every
    # slot at start, in a whole heap), so the queue's table is as big as it gets.
    for k in range(12):
        link.send(wire.GESTURE, wire.gesture(k, 1), k)
    link.forget_pending()
    failed = 0
    handled = 0
    hold = fragment(SIZE)
    for i in range(len(frames)):
        try:
            for msg in link.receive():
                handled += 1
                if msg["type"] == "hello_request":
                    link.forget_pending()
                else:
                    link.ack(msg["seq"])
            if i % 3 == 0:
                link.send(wire.GESTURE, wire.gesture(i % 7, 1), i % 7)
        except MemoryError:
            failed += 1
    hold = None
    print(failed, handled, port.written, len(link.pending))


main()
"""


@requires_micropython
def test_the_link_acks_commands_and_queues_events_in_a_fragmented_heap():
    # The heap is big enough to compile the modules; the blocks fill all of it.
    for size in (64, 128):
        out = run_micropython_code(CODE.replace("SIZE", str(size)), heapsize="512k")
        failed, handled, written, pending = [int(x) for x in out.split()]
        assert failed == 0, "%d of 301 passes ran out of memory (blocks of %d)" % (failed, size)
        # Every command once (the resent duplicate is acked again, not handed over) ...
        assert handled == 300
        # ... each acked, the HELLO_REQUEST excepted, the duplicate acked again; and
        # each event sent (the 12 of the warm-up too).
        assert written == 12 + 299 + 1 + 101
        # The events of distinct keys queue until the host acks them (none does here).
        assert pending == 7
