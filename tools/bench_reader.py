"""Benchmark: what one reader poll costs, in SPI transactions, air time and CPU time.

    python tools/bench_reader.py [polls]
    micropython tools/bench_reader.py [polls]
    python tools/bench_reader.py --crowded [most]
    python tools/bench_reader.py --inn


Runs the MFRC522 driver against the emulator (firmware/sim/mfrc522_emu.py)
for an empty cell, one card, a card with its identity read, and a card with
three pawns (collisions); then cards lying still (their UIDs known from the last poll),
a card lying alone checked with the quick anticollision frame, and a pawn put down on a
card lying alone, found by a full poll and by a quick one. SPI transactions are counted
by the emulator and are what a Pico would do too; "chip time" is the emulator's virtual clock
(40 us per SPI transaction plus the ISO/IEC 14443-3 air time), an estimate
of the poll's duration on a Pico; CPU time (the fastest batch of 10 polls,
so other processes' load counts least) is what the emulation costs on this
machine, i.e. in the virtual table. The field-settle wait is left out
(`field_settle_us` = 0): add 5 ms per poll on hardware.

``--crowded``: one reader's poll as tags crowd its field (1 to ``most`` NTAG tags, 7-byte
UIDs of no common prefix): the first poll that finds them all (anticollision, identity
read), a poll of them lying still (each selected by UID), and a poll that finds one
newcomer among the others lying still (what a token put down on a crowded cell costs).
Chip time only (emulator clock); hardware/stacks.md uses the figures.

``--inn``: the Dragon Inn's tile (one cell, a reader under each quadrant: firmware/config.py)
with its location card and ten tokens put down one by one on the reader with the fewest
tags (as players fill its twelve spots, three a quadrant; the virtual table's hands do the
same), then an eleventh token: each reader's poll lying still and with that newcomer, the
round of the four polls (their fields never on together: add 5.1 ms of settle each), and
the worst a quadrant may hold (the card, its three spots and one token too many).
"""

import sys

try:
    _here = __file__.rsplit("/", 2)[0] if "/" in __file__ else "."
    if _here.endswith("tools"):
        _here = _here[:-5] or "."
    sys.path.insert(0, _here if _here else ".")
except NameError:
    pass

from firmware.drivers.mfrc522 import MFRC522  # noqa: E402
from shared_rules.tag_identity import record as identity_record  # noqa: E402
from firmware.sim.mfrc522_emu import Mfrc522Emulator, NtagCard, SimPin, SimSPI  # noqa: E402

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    from time import perf_counter_ns

    def ticks_us():
        return perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b


def reader_with(uids):
    spi = SimSPI()
    cs = SimPin(value=1)
    emu = Mfrc522Emulator()
    spi.attach(cs, emu)
    drv = MFRC522(spi, cs, None, emu.advance)
    drv.field_settle_us = 0
    drv.reset_ms = 0
    drv.init()
    for uid in uids:
        emu.place(NtagCard(uid, identity_record(b"bench")))
    return drv, emu


def measure(name, uids, polls, with_identity, known=False, quick=False):
    """known: the tags lie still, so each poll is given the last poll's UIDs (as the tile
    does) and selects them by UID before it searches for newcomers. quick: a card lying
    alone is checked with one anticollision frame (the driver's `check`, which the tile
    passes on three polls in four)."""
    drv, emu = reader_with(uids)
    last = sorted(drv.inventory(4)) if known else None
    if quick:
        drv.inventory(4, None, last)        # it found the one known tag alone: quick next
    t0 = emu.transactions
    v0 = emu.now_us
    # The fastest batch of 10 polls: other processes on a shared machine only add time.
    cpu = None
    for _ in range(max(1, polls // 10)):
        c0 = ticks_us()
        for _ in range(10):
            ids = {} if with_identity else None
            found = drv.inventory(4, ids, last, quick)
            assert len(found) == len(uids), found
        dt = ticks_diff(ticks_us(), c0) // 10
        if cpu is None or dt < cpu:
            cpu = dt
    n = max(1, polls // 10) * 10
    spent = (emu.transactions - t0) // n
    chip_us = (emu.now_us - v0) // n
    print("%s: %s: %d SPI transactions, chip time %d.%d ms, CPU %d us per poll (errors %d)"
          % (sys.implementation.name, name, spent, chip_us // 1000, chip_us % 1000 // 100,
             cpu, drv.errors))


def newcomer(card, pawn, quick):
    """Chip time of the poll that finds ``pawn`` put down on ``card`` lying alone (its
    identity read), with or without the quick check, in 0.1 ms."""
    drv, emu = reader_with([card])
    ids = {}
    known = drv.inventory(4, ids)
    drv.inventory(4, ids, known)
    emu.place(NtagCard(pawn, identity_record(b"bench")))
    t = emu.now_us
    found = drv.inventory(4, ids, known, quick)
    assert sorted(found) == sorted([card, pawn]) and drv.errors == 0, found
    return (emu.now_us - t) // 100


def crowded_uids(n):
    """``n`` distinct 7-byte NTAG UIDs (NXP's 0x04 first), spread like a roll's (an LCG)."""
    out = []
    x = 12345
    for _ in range(n):
        b = [4]
        for _ in range(6):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            b.append(x >> 16 & 0xFF)
        out.append(bytes(b))
    return out


def chip_ms(emu, since):
    us = emu.now_us - since
    return "%d.%d ms" % (us // 1000, us % 1000 // 100)


def crowded(most):
    """One reader, 1..most tags: chip time of a first poll, a still poll, a newcomer's."""
    print("tags | first poll (all new, identities read) | lying still | "
          "one newcomer among the rest lying still")
    for n in range(1, most + 1):
        uids = crowded_uids(n)
        drv, emu = reader_with(uids)
        ids = {}
        t = emu.now_us
        found = drv.inventory(most, ids)
        first = chip_ms(emu, t)
        assert len(found) == n, found
        t = emu.now_us
        assert len(drv.inventory(most, ids, sorted(found))) == n
        still = chip_ms(emu, t)
        drv, emu = reader_with(uids[:-1])
        ids = {}
        known = sorted(drv.inventory(most, ids))
        emu.place(NtagCard(uids[-1], identity_record(b"bench")))
        t = emu.now_us
        assert len(drv.inventory(most, ids, known)) == n
        print("%d | %s | %s | %s (errors %d)" % (n, first, still, chip_ms(emu, t), drv.errors))


def poll_ms(uids, newcomer=None):
    """Chip time of one reader's poll of ``uids`` lying still (and ``newcomer`` put down),
    in 0.1 ms."""
    drv, emu = reader_with(uids)
    ids = {}
    known = sorted(drv.inventory(16, ids))
    assert len(known) == len(uids)
    if newcomer is not None:
        emu.place(NtagCard(newcomer, identity_record(b"bench")))
    t = emu.now_us
    found = drv.inventory(16, ids, known)
    assert len(found) == len(uids) + (newcomer is not None) and drv.errors == 0
    return (emu.now_us - t) // 100


def inn():
    uids = crowded_uids(12)
    readers = [[], [], [], []]
    for uid in uids[:11]:                 # the card, then ten tokens: the fewest first
        min(readers, key=len).append(uid)
    late = min(range(4), key=lambda k: len(readers[k]))
    rnd = 0
    worst = 0
    for k in range(4):
        still = poll_ms(readers[k])
        new = poll_ms(readers[k], uids[11]) if k == late else None
        rnd += 51 + still
        worst = max(worst, still, new or 0)
        print("reader %d: %d tags lying still %d.%d ms%s" % (
            k, len(readers[k]), still // 10, still % 10,
            "; the eleventh token put down on it: %d.%d ms" % (new // 10, new % 10)
            if new is not None else ""))
    print("the Inn's most crowded poll: %d.%d ms; a round of its four readers (5.1 ms of "
          "settle each): %d.%d ms" % (worst // 10, worst % 10, rnd // 10, rnd % 10))
    full = poll_ms(uids[:4], uids[4])
    print("a quadrant's worst (the card, three tokens, a fourth put down on it): %d.%d ms"
          % (full // 10, full % 10))
    one = poll_ms(uids[:11], uids[11])
    print("for comparison, one reader under the whole Inn, the eleventh token put down on "
          "it: %d.%d ms" % (one // 10, one % 10))


def main(argv):
    if len(argv) > 1 and argv[1] == "--inn":
        inn()
        return
    if len(argv) > 1 and argv[1] == "--crowded":
        crowded(int(argv[2]) if len(argv) > 2 else 16)
        return
    polls = int(argv[1]) if len(argv) > 1 else 200
    card = bytes.fromhex("04112233445566")
    pawns = [bytes.fromhex("04112233445567"), bytes.fromhex("04A1B2C3D4E5F6"),
             bytes.fromhex("DEADBEEF")]
    measure("empty cell", [], polls, False)
    measure("one card (7-byte UID)", [card], polls, False)
    measure("one card + identity read", [card], polls, True)
    measure("card + 3 pawns (collisions)", [card] + pawns, polls, False)
    measure("one card lying still (known UID)", [card], polls, False, known=True)
    measure("card + 3 pawns lying still (known UIDs)", [card] + pawns, polls, False, known=True)
    measure("one card lying still, quick check", [card], polls, False, known=True, quick=True)
    for quick in (False, True):
        t = newcomer(card, pawns[1], quick)
        print("%s: a pawn put down on a card lying still, %s: chip time %d.%d ms" % (
            sys.implementation.name, "quick check" if quick else "full poll", t // 10, t % 10))


main(sys.argv)
