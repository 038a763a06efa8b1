"""Codec fuzz: the wire decoder against a stream of whole, damaged and foreign bytes.

Runs unchanged under CPython and MicroPython, and prints the same line on both:

    python tools/fuzz_wire.py --frames 1000000 [--seed 1]
    micropython tools/fuzz_wire.py --frames 100000 [--seed 1]    (from the repository root)

Each unit of the stream is one frame of a random type, sequence and payload (a real
message from the builders, or random bytes for the parser to refuse), then either sent
whole or damaged on the way: a bit flipped, a byte dropped or doubled, bytes inserted,
the frame cut short, or a run of garbage with 0x00s of its own. A 0x00 always goes
before each frame, as after any line noise the next delimiter does. What is checked:

- every whole frame comes out of the decoder, once, with its type, seq and payload;
- no damaged frame is ever accepted (all output frames are the whole ones, in order);
- the decoder never raises and ``decoder_errors`` stays 0;
- its buffer never holds more than the COBS form of the largest frame;
- ``parse`` of every accepted frame returns a message or raises ``WireError`` only.

Exit status 0 when every check held, 1 otherwise. The randomness is an integer LCG, so a
seed gives the same stream, and the same output line, on both interpreters.
"""

import sys

try:
    sys.path.insert(0, ".")
except AttributeError:  # pragma: no cover
    pass

from shared_rules import wire  # noqa: E402


class Lcg:
    """A 31-bit linear congruential generator: the same numbers on every interpreter."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 1) & 0x7FFFFFFF

    def below(self, n):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.state >> 4) % n

    def bytes(self, n):
        out = bytearray(n)
        for i in range(n):
            out[i] = self.below(256)
        return out


def _uid(rng):
    return bytes(rng.bytes((4, 7, 10)[rng.below(3)]))


def random_message(rng, seq):
    """(type, payload) of one frame: a well-formed message, or random bytes of any type."""
    kind = rng.below(9)
    if kind == 0:
        tags = [(_uid(rng), None if rng.below(2) else bytes(rng.bytes(rng.below(17))))
                for _ in range(rng.below(wire.MAX_TAGS + 1))]
        return wire.TAG, wire.tag(rng.below(8), tags)
    if kind == 1:
        return wire.GESTURE, wire.gesture(rng.below(8), 1 + rng.below(3))
    if kind == 2:
        cells = [(rng.below(8), bytes(rng.bytes(wire.SCENE_BYTES)))
                 for _ in range(1 + rng.below(wire.MAX_SCENE_CELLS))]
        return wire.LED_SCENE, wire.led_scene(cells)
    if kind == 3:
        return wire.HEARTBEAT, wire.heartbeat(rng.below(1 << 30))
    if kind == 4:
        return wire.ACK, wire.ack(rng.below(1 << 16), rng.below(4))
    if kind == 5:
        return wire.LOG, wire.log(rng.below(4), "reader %d hung" % rng.below(8))
    if kind == 6:
        # The longest frames the decoder must take whole.
        return wire.LOG, bytes(rng.bytes(wire.MAX_PAYLOAD - rng.below(4)))
    # Random bytes under a random type: the decoder passes them, the parser refuses them.
    return rng.below(256), bytes(rng.bytes(rng.below(64)))


def damage(rng, frame):
    """The frame's bytes hurt on the line (its trailing 0x00 stays: the next one resyncs)."""
    body = bytes(frame[:-1])
    i = rng.below(len(body))
    how = rng.below(6)
    if how == 0:
        body = body[:i] + bytes((body[i] ^ (1 << rng.below(8)),)) + body[i + 1:]
    elif how == 1:
        body = body[:i] + body[i + 1:]
    elif how == 2:
        body = body[:i + 1] + body[i:]
    elif how == 3:
        # Non-zero noise: with a 0x00 in it, the frame after it would arrive whole.
        noise = bytes(1 + rng.below(255) for _ in range(1 + rng.below(8)))
        body = body[:i] + noise + body[i:]
    elif how == 4:
        body = body[:i]
    else:
        body = body[:i] + b"\x00" + body[i + 1:]  # a byte that reads as a delimiter
    return body + b"\x00"


def run(frames, seed=1, damaged_per_mille=300):
    rng = Lcg(seed)
    decoder = wire.Decoder()
    expected = []          # whole frames still to come out, as (type, seq, payload)
    results = {"frames": 0, "whole": 0, "damaged": 0, "got": 0, "lost": 0,
               "accepted_damaged": 0, "parse_other_errors": 0, "max_buffer": 0,
               "garbage_runs": 0}
    bound = decoder.max_encoded
    pending = bytearray()

    def drain(data):
        for frame in decoder.feed(data):
            key = (frame.type, frame.seq, bytes(frame.payload))
            if key in expected:
                # Whole frames before it that did not come out are lost.
                at = expected.index(key)
                results["lost"] += at
                del expected[:at + 1]
                results["got"] += 1
            else:
                results["accepted_damaged"] += 1
            try:
                wire.parse(frame)
            except wire.WireError:
                pass
            except Exception:  # noqa: BLE001 - the point is to count these
                results["parse_other_errors"] += 1
        if len(decoder._buf) > results["max_buffer"]:
            results["max_buffer"] = len(decoder._buf)

    for i in range(frames):
        seq = (i * 7919) & 0xFFFF
        msg_type, payload = random_message(rng, seq)
        frame = wire.encode_frame(msg_type, seq, payload)
        results["frames"] += 1
        if rng.below(1000) < damaged_per_mille:
            results["damaged"] += 1
            pending.extend(damage(rng, frame))
        else:
            results["whole"] += 1
            expected.append((msg_type, seq, bytes(payload)))
            pending.extend(b"\x00")
            pending.extend(frame)
        if rng.below(50) == 0:
            results["garbage_runs"] += 1
            pending.extend(rng.bytes(1 + rng.below(700)))
            pending.extend(b"\x00")
        # Feed in chunks of the sizes a serial read returns.
        while len(pending) > 256 or (pending and i == frames - 1):
            step = 1 + rng.below(256)
            drain(bytes(pending[:step]))
            pending = pending[step:]
    results["lost"] += len(expected)
    results["decoder_errors"] = decoder.decoder_errors
    results["over_bound"] = 1 if results["max_buffer"] > bound else 0
    return results


def failed(results):
    return bool(results["lost"] or results["accepted_damaged"] or results["parse_other_errors"]
                or results["decoder_errors"] or results["over_bound"])


def line(results):
    return " ".join("%s=%d" % (k, results[k]) for k in sorted(results))


def main(argv):
    frames, seed = 100000, 1
    args = list(argv)
    while args:
        flag = args.pop(0)
        if flag in ("--frames", "--seed") and args:
            try:
                value = int(args.pop(0))
            except ValueError:
                print("fuzz_wire: %s takes a whole number" % flag)
                return 2
            if flag == "--frames":
                frames = value
            else:
                seed = value
        else:
            print("usage: fuzz_wire.py [--frames N] [--seed S]")
            return 2
    results = run(frames, seed)
    print(line(results))
    return 1 if failed(results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
