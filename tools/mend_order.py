"""How often the host's mender hands over a slot's report older than one already acted on.

A tile's stream of TAG reports (Battle Royale cells: a card and pawns with identities, 60-90
bytes) on a line that corrupts and drops bytes: each slot's newest unacked report is resent
every round until it arrives, whole or mended from its damaged copies
(host/link/mending.py); now and then a slot changes and its newer report replaces the
older one, as firmware/link.py does. A report that arrives after a newer one of its slot was
acted on is counted: the mender kept damaged copies of the older one and voted them into a
frame later. Acted on, it puts the slot back for good (the tile's state did not change, so
it never reports again): protocol.py drops such a report (``stale``).

    python tools/mend_order.py [--rounds 20000] [--seed 1] [--corrupt 10] [--drop 1]
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host.link.mending import MendingDecoder  # noqa: E402
from shared_rules import wire  # noqa: E402


def damage(rng, data, corrupt=0.10, drop=0.01):
    """Bytes as host/link/noisy_line.py damages them: some dropped, some replaced."""
    out = bytearray()
    for b in data:
        r = rng.random()
        if r < drop:
            continue
        if r < drop + corrupt:
            b ^= rng.randrange(1, 256)
        out.append(b)
    return bytes(out)


def report(rng, seq, slot):
    """A TAG frame of a cell holding a card and two or three pawns, with identities."""
    tags = [(b"\x04" + bytes(rng.randrange(1, 256) for _ in range(6)),
             bytes(rng.randrange(256) for _ in range(16))) for _ in range(rng.choice((3, 4)))]
    return wire.encode_frame(wire.TAG, seq, wire.tag(slot, tags))


def run(rounds, seed, corrupt, drop, slots=3, change=0.02):
    rng = random.Random(seed)
    decoder = MendingDecoder()
    seq = 0
    pending = {}    # slot -> (seq, frame): its newest report, until it arrives
    acted = {}      # slot -> seq of the report it was last set from
    sent = arrived = older = 0
    for _ in range(rounds):
        if rng.random() < change:
            slot = rng.randrange(slots)
            seq += 1
            pending[slot] = (seq, report(rng, seq, slot))
            sent += 1
        for slot in sorted(pending):
            for frame in decoder.feed(damage(rng, pending[slot][1], corrupt, drop)):
                msg = wire.parse(frame)
                arrived += 1
                s = msg["slot"]
                if s in acted and frame.seq < acted[s]:
                    older += 1
                    continue
                acted[s] = frame.seq
                if s in pending and pending[s][0] == frame.seq:
                    del pending[s]      # acked
    return {"reports_sent": sent, "arrived": arrived, "mended": decoder.mended,
            "older_than_one_acted_on": older}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--corrupt", type=float, default=10.0, help="percent of bytes corrupted")
    p.add_argument("--drop", type=float, default=1.0, help="percent of bytes dropped")
    args = p.parse_args(argv)
    print(run(args.rounds, args.seed, args.corrupt / 100, args.drop / 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
