"""What lies on each reader's slot: the tags its polls see, debounced into arrivals and
departures, with their identities.

``SlotTags`` is a base class of the tile (firmware/main.py): the reader schedule
(firmware/readers.py) asks it which tags to select before a poll (``known_tags``) and
hands it what each poll saw (``take_poll``, or ``poll_failed`` when the poll raised);
a slot whose tags changed for good is reported to the host over the tile's link as a
TAG (cell tile) or DICE (dice tray) event. It uses the tile's ``link``, ``spec``,
``timings`` (arrive_polls, gone_polls) and the reader schedule's ``polls``.

A new tag is reported with its identity, read while it is selected; a failed read is
tried again at the next poll, and after ``_UNREADABLE`` polls without a good read the
tag is reported without one, and read again every 8th poll of its slot while it stays
(``_REREAD``; a TAG follows a good read). A slot holds at most ``wire.MAX_TAGS``: a
newcomer on a full slot waits until a missing tag is gone.

The lists here are per reader. A crowded cell read by several readers (the spec's
``slots``, firmware/config.py) is one slot for the host: each of its readers debounces
what it sees, and the slot's TAG holds the tags of all of them, each once (a token
across two readers' loops is seen by both; it leaves when neither sees it).
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import wire
from shared_rules.tag_identity import parse as parse_identity

_UNREADABLE = const(3)   # polls that saw a new tag but could not read its identity
_REREAD = const(7)       # a reported tag whose identity was never read: read again when
#                          a slot's poll count has none of these bits (every 8th poll)


def _identity(raw):
    """A reported tag's identity from its pages: None if they were never read (read again
    now and then), b"" if they hold no record (an unenrolled tag), else its identity."""
    if raw is None:
        return None
    return parse_identity(raw) or b""


class SlotTags:
    """Per slot: the tags reported to the host, their identities, and the tags in doubt."""

    unsent = 0      # see init_slots (a class default: a tile a test builds has it too)

    def init_slots(self, n):
        """``n`` empty slots.

        Per slot: the reported uids, sorted (reported); uid -> the identity pages the
        driver read, replaced by _identity() once the tag is reported (one object per
        tag and no pair: a full cell tile holds 32 tags, and every object per tag costs
        the 64 KB heap) (identities); uid -> consecutive polls contradicting the report
        (doubt, see take_poll). Loops, not list comprehensions: each comprehension is a
        function of its own, whose code object a tile keeps in its heap for good."""
        self.reported = []
        self.identities = []
        self.doubt = []
        # Bit i: slot i changed but its report could not be sent (a MemoryError while
        # the frame was built): it is sent again at the slot's next poll, so a failed
        # send never leaves the host with an old view of the slot.
        self.unsent = 0
        for _ in range(n):
            self.reported.append([])
            self.identities.append({})
            self.doubt.append({})

    def tags(self, i):
        """Reader i's slot's reported tags as (uid, identity) pairs, sorted, for a message:
        of all the slot's readers if it is a crowded cell."""
        m = self.spec.get("slots")
        if not m:
            ids = self.identities[i]
            out = []
            for uid in self.reported[i]:
                out.append((uid, ids.get(uid)))
            return out
        s = m[i]
        out = []
        for r in range(len(m)):
            if m[r] != s:
                continue
            ids = self.identities[r]
            for uid in self.reported[r]:
                for k in range(len(out)):
                    if out[k][0] == uid:
                        if out[k][1] is None:
                            out[k] = (uid, ids.get(uid))
                        break
                else:
                    out.append((uid, ids.get(uid)))
        out.sort()
        return out

    def known_tags(self, i):
        """The tags slot ``i``'s next poll selects by UID: the reported ones, and those seen
        but not reported yet (their identity read failed). The driver reads the identity
        of every tag with no entry in identities[i]: every 8th poll, that includes the
        reported tags whose identity was never read."""
        known = self.reported[i]
        doubt = self.doubt[i]
        ids = self.identities[i]
        if not self.polls[i] & _REREAD:
            for uid in known:
                if uid in ids and ids[uid] is None:
                    del ids[uid]        # the driver reads the tags it has no entry for
        if doubt:
            known = known[:]
            for uid in doubt:
                if uid not in known:
                    known.append(uid)
        return known

    def poll_failed(self, i):
        """Slot ``i``'s poll raised: no pages it read may stay for a tag neither reported
        nor in doubt (they would be taken whenever the tag came back), and a reported tag
        whose pages were to be read again keeps its mark (None)."""
        ids = self.identities[i]
        doubt = self.doubt[i]
        known = self.reported[i]
        while True:             # no list to delete from: the heap is tight
            for uid in ids:
                if uid not in known and uid not in doubt:
                    break
            else:
                break
            del ids[uid]
        for uid in known:
            if uid not in ids:
                ids[uid] = None

    def take_poll(self, i, seen):
        """Debounce slot ``i``'s tags against a poll that saw ``seen``; report the slot
        when a tag came or went for good.

        Each tag is debounced on its own: one not yet reported counts as
        arrived after ``arrive_polls`` consecutive polls that see it and read
        its identity (or ``_UNREADABLE`` polls that could not), a reported one
        as gone after ``gone_polls`` consecutive polls that do not see it. So a
        card swapped for another is reported at once (both for a moment), and
        its predecessor leaves after the gone polls; on a slot that already
        reports ``wire.MAX_TAGS`` tags the newcomer waits for that (a message
        carries no more). A reported tag whose identity was never read gets it
        when a later poll reads it (poll_reader), and the slot is reported again.
        """
        ids = self.identities[i]
        reported = self.reported[i]
        doubt = self.doubt[i]       # uid -> consecutive polls contradicting the report
        m = self.spec.get("slots")    # a crowded cell: its readers' tags are one report
        changed = False
        k = len(reported)
        while k:                    # reported tags not seen: gone after gone_polls
            k -= 1
            uid = reported[k]
            raw = ids.get(uid)
            if raw is None:
                ids[uid] = None     # never read: poll_reader has it read now and then
            elif len(raw) == 16:    # its pages, read just now (an identity is 12 at most)
                raw = _identity(raw)
                ids[uid] = raw
                if raw:
                    changed = True
            if uid in seen:
                doubt.pop(uid, None)
                continue
            n = doubt.get(uid, 0) + 1
            if n >= self.timings["gone_polls"]:
                doubt.pop(uid, None)
                ids.pop(uid, None)      # read its identity again when it comes back
                del reported[k]
                changed = True
            else:
                doubt[uid] = n
        for uid in seen:            # new tags: arrived after arrive_polls
            if uid in reported:
                continue
            n = doubt.get(uid, 0) + 1
            # Every poll that saw it without its identity tried to read it (the driver
            # keeps only good reads): after _UNREADABLE failed reads it goes without.
            if n >= self.timings["arrive_polls"] and (uid in ids or n >= _UNREADABLE) \
                    and (len(self.tags(i)) < wire.MAX_TAGS if m else
                         len(reported) < wire.MAX_TAGS):
                doubt.pop(uid, None)
                ids[uid] = _identity(ids.get(uid))  # the raw pages go: one copy kept
                reported.append(uid)
                changed = True
            else:
                doubt[uid] = n
        if doubt:                   # an unreported tag seen, then not again
            for uid in list(doubt):
                if uid not in seen and uid not in reported:
                    del doubt[uid]
                    ids.pop(uid, None)
        if changed:
            reported.sort()
            self.report_slot(i)
        elif (self.unsent | self.link.lost) >> (m[i] if m else i) & 1:
            self.report_slot(i)     # not yet kept by the link, or dropped from its queue

    def identity_written(self, i, uid, raw):
        """An identity write on slot ``i`` left ``raw`` (the record's pages) in tag ``uid``:
        a reported tag that now holds another identity is reported again; a tag not
        reported yet keeps the pages, parsed when it is."""
        ids = self.identities[i]
        if uid in self.reported[i]:
            new = _identity(raw)
            if ids.get(uid) != new:
                ids[uid] = new
                self.report_slot(i)
        else:
            ids[uid] = raw

    def report_slot(self, i):
        """Send slot ``i``'s tags to the host: a TAG, or a DICE for a dice tray's pocket.

        Until the link has it (kept for resends until the host acks it), the slot stays
        ``unsent`` and is sent again at its next poll: in a fragmented heap, building the
        message or keeping its frame may find no block of its size for a while, and the
        report must wait, not be lost (a TAG or DICE carries the slot's whole state)."""
        m = self.spec.get("slots")
        s = m[i] if m else i    # a crowded cell's extra reader reports its cell's slot
        self.unsent |= 1 << s
        try:
            if self.spec["dice_pockets"]:
                reported = self.reported[i]
                uid = reported[0] if reported else None
                seq = self.link.send(wire.DICE, wire.dice(
                    i, (uid, self.identities[i].get(uid)) if uid else None), i)
            else:
                # Up to wire.MAX_TAGS tags (290 bytes): a TAG longer than the link's buffer
                # is written from short pieces, never built whole (TileLink.send).
                seq = self.link.send(wire.TAG, [bytes((s,))] + wire._tags(self.tags(i)), s)
        except MemoryError:
            return
        if seq is not None:
            self.unsent &= ~(1 << s)
            self.link.lost &= ~(1 << s)
