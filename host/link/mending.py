"""Mending a frame from its damaged resends: a per-byte plurality vote.

On a noisy line a long frame rarely arrives whole: at 10 % corrupted bytes a
90-byte TAG frame (a Battle Royale cell with a card and three pawns) passes its
CRC 0.08 % of the time, so resending alone never gets it through. But a tile
resends an unacked frame with the very same bytes (firmware/link.py keeps the
encoded frame and writes it again), and random damage rarely hits the same byte
of several copies. So the host keeps the raw (COBS) bytes of the last damaged
frames of each length, and when a damaged frame arrives with enough damaged
copies of its length, it takes each byte's most common value across them and
checks the result as a frame: COBS and CRC-32. With 5 copies at 10 % a byte
comes out wrong only when 4 of them are wrong there (about 0.05 %), so a
90-byte frame is mended about 96 % of the time.

A copy that lost one byte votes too: it is lined up with the copies of full
length (the byte it lost found where its bytes shift by one against theirs)
and has no say on that byte. A copy that lost more, or merged with another
frame, has another length and does not vote with these. Copies of different
frames of the same length (two TAG frames of the same size) may sit in one
group: the vote takes the copies most like the newest first, and what it
makes of a mixture fails the CRC (a false frame passes CRC-32 once in 4 billion tries; the mender
tries a few votes per damaged frame). This is the host's side only: the tile
and the wire format are unchanged.
"""

import binascii

from shared_rules import wire

MIN_BYTES = 24      # shorter frames get through by resends alone (a heartbeat is 14)
PER_LENGTH = 7      # damaged copies kept of one length
LENGTHS = 8         # lengths kept at once (the least recently damaged dropped beyond)
_VOTES = (3, 5, 7)  # copies a vote takes (the newest and the most like it)


def plurality(copies):
    """Each byte's most common value across ``copies`` (equal lengths; None in a copy is
    a byte it lacks, no vote); a tie goes to the value the earliest copy has among those
    tied (copies come most trusted first)."""
    out = bytearray(len(copies[0]))
    for i in range(len(out)):
        counts = {}
        best, best_n = 0, 0
        for c in copies:
            b = c[i]
            if b is None:
                continue
            n = counts.get(b, 0) + 1
            counts[b] = n
            if n > best_n:
                best, best_n = b, n
        out[i] = best
    return bytes(out)


def _agreement(a, b):
    return sum(1 for x, y in zip(a, b, strict=True) if x == y)


def widen(short, ref):
    """``short``, a copy of ``ref`` that lost one byte, with None where it lost it: the
    place where the copy's bytes match ``ref`` before it and ``ref`` shifted by one after
    it best."""
    n = len(short)
    # after[k]: mismatches of short[k:] against ref[k + 1:]
    after = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        after[i] = after[i + 1] + (short[i] != ref[i + 1])
    best_k, best = 0, after[0]
    before = 0
    for k in range(1, n + 1):
        before += short[k - 1] != ref[k - 1]
        if before + after[k] < best:
            best_k, best = k, before + after[k]
    return list(short[:best_k]) + [None] + list(short[best_k:])


def check(raw, max_frame=wire.MAX_FRAME):
    """A wire.Frame if ``raw`` (a frame's COBS bytes, no delimiter) decodes and passes its
    CRC, else None."""
    if 0 in raw:
        return None
    try:
        body = wire.cobs_decode(raw)
    except wire.WireError:
        return None
    if len(body) < 8 or len(body) > max_frame:
        return None
    crc = int.from_bytes(body[-4:], "big")
    if crc != binascii.crc32(body[:-4]) & 0xFFFFFFFF:
        return None
    return wire.Frame(body[0], body[1], (body[2] << 8) | body[3], body[4:-4])


class Mender:
    """The damaged frames of one port, by length, and the votes over them.

    ``damaged(raw)`` with each damaged frame's raw bytes returns a mended ``wire.Frame``
    or None. A copy one byte short (a byte dropped: 1 % dropped bytes leave a 90-byte
    frame whole in length only 40 % of the time) votes too, with the byte it lost left
    out. Memory: at most ``LENGTHS`` x ``PER_LENGTH`` frames of at most a ``max_frame``
    body. ``mended``: frames mended so far."""

    def __init__(self, max_frame=wire.MAX_FRAME):
        self.max_frame = max_frame
        self.copies = {}    # length -> list of raw copies, newest first
        self.mended = 0

    def reset(self):
        self.copies = {}

    def held(self):
        """Damaged copies kept now."""
        return sum(len(c) for c in self.copies.values())

    def damaged(self, raw):
        raw = bytes(raw)
        n = len(raw)
        if n < MIN_BYTES:
            return None
        group = self.copies.pop(n, [])
        group.insert(0, raw)
        del group[PER_LENGTH:]
        self.copies[n] = group      # re-inserted: the most recently damaged length last
        while len(self.copies) > LENGTHS:
            del self.copies[next(iter(self.copies))]
        # This copy may be whole in length, or one byte short of the frame it copies.
        for length in (n, n + 1):
            frame = self._vote(length, raw)
            if frame is not None:
                self.mended += 1
                return frame
        return None

    def _vote(self, n, newest):
        full = self.copies.get(n, [])
        short = self.copies.get(n - 1, [])
        if not full or len(full) + len(short) < _VOTES[0]:
            return None
        # The reference: the newest copy if whole in length, else the newest full one.
        ref = newest if len(newest) == n else full[0]
        if len(full) >= _VOTES[0]:
            ref = plurality([ref] + [c for c in full if c is not ref])
        # Copies of one frame agree on about 80 % of their bytes at 10 % damage, another
        # frame's less: the most like the reference vote first.
        ranked = [(c, list(c)) for c in full] + [(c, widen(c, ref)) for c in short]
        ranked.sort(key=lambda e: (e[0] is not newest, -_agreement(ref, e[1])))
        tried = set()
        for k in _VOTES + (len(ranked),):
            k = min(k, len(ranked))
            if k < _VOTES[0] or k in tried:
                continue
            tried.add(k)
            voters = ranked[:k]
            frame = check(plurality([v for _c, v in voters]), self.max_frame)
            if frame is not None:
                # Its copies are spent: kept, they would only mend it again.
                used = set(id(c) for c, _v in voters)
                for length in (n, n - 1):
                    left = [c for c in self.copies.get(length, []) if id(c) not in used]
                    if left:
                        self.copies[length] = left
                    else:
                        self.copies.pop(length, None)
                return frame
        return None


class MendingDecoder(wire.Decoder):
    """wire.Decoder that hands each frame that fails COBS or CRC to a Mender, and returns
    what it mends among the whole frames (as a ``Mended`` frame: not counted in
    ``frames``, its damaged copy is counted already)."""

    def __init__(self, max_frame=wire.MAX_FRAME):
        self.mender = Mender(max_frame)
        super().__init__(max_frame, mend=self._mend_damaged)

    def _mend_damaged(self, raw):
        frame = self.mender.damaged(raw)
        if frame is None:
            return None
        return Mended(frame.version, frame.type, frame.seq, frame.payload)

    @property
    def mended(self):
        return self.mender.mended


class Mended(wire.Frame):
    """A frame mended from damaged copies."""

    __slots__ = ()
