"""The tile's main loop: poll readers, sense pads, render LEDs, talk to the host.

One asyncio task per job, none blocking longer than one reader poll:

- readers: round robin over the readers; a slot's tag set counts as changed
  after ``arrive_polls`` (tags added) or ``gone_polls`` (a tag missing)
  consistent polls, then a TAG (cell tile) or DICE (dice tray) event goes
  to the host, acked and resent by the link until acknowledged. A new tag
  is reported with its identity, read while it is selected; a failed read is
  tried again at the next poll, and after ``_UNREADABLE`` polls without a
  good read the tag is reported without one, and read again every 8th poll
  of its slot while it stays (``_REREAD``; a TAG follows a good read). A
  slot holds at most ``wire.MAX_TAGS``: a newcomer on a full slot waits until
  a missing tag is gone. A reader whose poll fails (the driver raises
  OSError) reports nothing, so no tag counts as gone, and is revived at once;
  one that fails again before a good poll is revived ever less often;
- pads: touch pad samples -> tap, double tap, hold (firmware/gestures.py);
- render: the LED scene at a fixed frame rate (firmware/effects.py), the idle
  animation while the host is silent;
- link: host commands (HELLO request, snapshot, LED scene, brightness,
  config, reboot, identity writes for enrollment), resends and heartbeats;
  board chores (the sim control channel);
- watchdog: fed only while every other task still completes its iterations (a
  task that keeps failing gets the tile reset; see ``guarded``);
- health: a HEALTH report, and a check of one reader per tick (VersionReg and
  its timer set-up; a hung chip is revived with soft reset, then the shared
  RST line, waiting out each reset without blocking; a reader that stays dead
  is tried less and less often: see ``reader_down``).

The board backend (firmware/boards/rp2.py or sim.py) supplies the hardware.
"""

import asyncio

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from firmware import config
from firmware.effects import EffectsEngine
from firmware.gestures import CellPads
from firmware.link import TileLink
from shared_rules import wire
from shared_rules.tag_identity import parse as parse_identity

_TASKS = ("readers", "pads", "render", "link", "health")
_UNREADABLE = const(3)   # polls that saw a new tag but could not read its identity
_REREAD = const(7)       # a reported tag whose identity was never read: read again when
#                          a slot's poll count has none of these bits (every 8th poll)
_RST_TRIES = const(2)    # a revival may pulse the shared RST line while the reader's
#                          failures since its last good poll are fewer than this
_BACKOFF_MAX_MS = const(60000)   # a dead reader is checked at most this far apart
_CHECK_TICK_MS = const(20)       # the health task's pace: one reader checked per tick


def _identity(raw):
    """A reported tag's identity from its pages: None if they were never read (read again
    now and then), b"" if they hold no record (an unenrolled tag), else its identity."""
    if raw is None:
        return None
    return parse_identity(raw) or b""


def row_neighbours(n, spacing):
    """Per slot, the bit mask of the slots closer than `spacing`: the neighbours of a row
    of cells (the tile's default until the host says where its cells lie)."""
    near = []
    for i in range(n):
        mask = 0
        for j in range(n):
            if j != i and -spacing < j - i < spacing:
                mask |= 1 << j
        near.append(mask)
    return near


def field_phases(near, most):
    """The readers' phases: in slot order, each reader joins the first phase that holds
    none of its neighbours (`near`: per slot, their bit mask) and fewer than `most`
    readers ([[0, 2, 4, 6], [1, 3, 5]] for a row of 7 with 4 fields at most)."""
    phases = []
    members = []                # per phase, the bit mask of its readers
    for i in range(len(near)):
        for k in range(len(phases)):
            if not members[k] & near[i] and len(phases[k]) < most:
                phases[k].append(i)
                members[k] |= 1 << i
                break
        else:
            phases.append([i])
            members.append(1 << i)
    return phases


class Tile:
    """One tile: its readers, pads and LEDs, and its link to the host."""

    up_ms = 0       # uptime: ms counted, and the ticks_ms it was counted to (class
    up_at = 0       # defaults: a Tile a test builds field by field has them too)

    def __init__(self, board, spec, timings=None):
        self.board = board
        self.spec = spec
        # The tile's one copy of its timings (SET_CONFIG changes them in place).
        t = config.TIMINGS
        if timings:
            t.update(timings)
        self.timings = t
        self.ticks_ms = board.ticks_ms
        self.ticks_diff = board.ticks_diff
        self.boot_ms = self.up_at = board.ticks_ms()
        self.boot_id = board.boot_id()
        n = spec["readers"]
        self.readers = board.readers(n)
        for r in self.readers:
            r.field_settle_us = t["field_settle_us"]
        self.reader_ok = [False] * n
        self.checked = [self.boot_ms] * n        # per reader: ticks_ms of its last check, or
        #                                          None: check it at once (a poll failed)
        self.fails = [0] * n                     # per reader: failures since its last good
        #                                          poll (see reader_down)
        # Per slot: the reported uids, sorted (reported); uid -> the identity pages the
        # driver read, replaced by _identity() once the tag is reported (one object
        # per tag and no pair: a full cell tile holds 32 tags, and every object per tag
        # costs the 64 KB heap) (identities); see take_poll (doubt). Loops, not list
        # comprehensions: each comprehension is a function of its own, whose code object
        # a tile keeps in its heap for good.
        self.reported = []
        self.identities = []
        self.doubt = []
        for _ in range(n):
            self.reported.append([])
            self.identities.append({})
            self.doubt.append({})
        # Field scheduling (see readers_task and field_phases): readers closer than
        # spec["field_spacing"] slots never have their fields on at the same time.
        self.on_at = [None] * n                  # per slot: ticks_us its field went on, or None
        self.polls = [0] * n                     # per slot: polls done (round counter)
        self.rounds = 0                          # full rounds done (min of polls)
        # Per slot, the bit mask of its neighbours: a row by default, the host's
        # FIELD_NEIGHBOURS once it says where the cells lie (set_neighbours).
        self.near = row_neighbours(n, spec.get("field_spacing") or n)
        self.max_fields = spec.get("max_fields") or 1      # fields on at once (power)
        self.phases = field_phases(self.near, self.max_fields)
        self.phase = len(self.phases) - 1        # the phase being polled (0 comes first)
        self.todo = []                           # its readers still to poll this round
        self.link = TileLink(board.port, t, board.ticks_ms, board.ticks_diff)
        cells = spec["cells"]
        self.effects = EffectsEngine(cells, spec["leds_per_segment"],
                                     fps=1000 // t["frame_ms"])
        self.idle = False
        self.scene_changed = True
        self.animated = False
        self.pads = CellPads(spec["buttons"]) if spec["buttons"] else None
        self.beats = {}
        self.loop_max_ms = 0
        self.render_max_ms = 0
        self.frames = 0
        self.running = True
        self.failures = 0
        self.snapshot_wanted = False

    # ------------------------------------------------------------ helpers

    def uptime(self, now=None):
        """Milliseconds since boot, wrapping at 2**32 as the wire's u32 does. A sum of
        ticks_diff steps: a Pico's ticks_ms wraps every 12.4 days and one ticks_diff spans
        half that, so the health task's calls (every health period) keep it right."""
        if now is None:
            now = self.ticks_ms()
        d = self.ticks_diff(now, self.up_at)
        if d > 0:
            self.up_at = now
            self.up_ms = (self.up_ms + d) & 0xFFFFFFFF
        return self.up_ms

    def beat(self, name, now):
        self.beats[name] = now

    def hello(self):
        s = self.spec
        flags = wire.CAP_IDENTITY | wire.CAP_WRITE_IDENTITY | wire.CAP_FIELD_NEIGHBOURS | (
            wire.CAP_WATCHDOG if self.board.has_watchdog else 0)
        return wire.hello(self.board.unique_id(), config.FIRMWARE_VERSION, self.boot_id,
                          s["cells"], s["segments"], s["leds_per_segment"], s["readers"],
                          s["buttons"], s["dice_pockets"], flags, s["variant"])

    def snapshot(self):
        """Send a SNAPSHOT; the slots it has no room for follow as TAG events.

        A full cell tile (8 slots, a card and three pawns on each) holds more tags than
        one frame carries (about 700 bytes), and its fragmented heap has no room to build
        big frames: the SNAPSHOT takes what fits in 128 bytes, each slot left over goes
        as a TAG (under 100 bytes).
        """
        dice = self.spec["dice_pockets"]
        slots = []
        pockets = []
        rest = []
        room = 128 - 6                          # uptime, slot count, pocket count
        for i in range(len(self.reported)):
            tags = self.tags(i)
            size = 2                            # slot (or pocket) and count (or flag)
            for t in tags:
                size += 2 + len(t[0]) + (len(t[1]) if t[1] else 0)
            if dice:
                pockets.append((i, tags[0] if tags else None))
                room -= size
            elif size <= room and not rest:
                slots.append((i, tags))
                room -= size
            else:
                rest.append(i)
        self.link.send(wire.SNAPSHOT, wire.snapshot(self.uptime(), slots, pockets))
        for i in rest:
            self.link.send(wire.TAG, wire.tag(i, self.tags(i)), i)

    def tags(self, i):
        """Slot i's reported tags as (uid, identity) pairs, for a message."""
        ids = self.identities[i]
        out = []
        for uid in self.reported[i]:
            out.append((uid, ids.get(uid)))
        return out

    def health(self):
        """HEALTH: a reader is ok while it polls (one that failed, and was revived but has
        not polled well since, is not); loop_max_ms is the worst since the last HEALTH."""
        readers = []
        for i in range(len(self.readers)):
            r = self.readers[i]
            readers.append((self.reader_ok[i] and not self.fails[i], r.errors, r.reinits))
        d = self.link.decoder
        return wire.health(self.uptime(), readers, d.crc_errors, d.garbage_bytes,
                           self.link.resends, self.board.heap_free(), self.loop_max_ms)

    # ------------------------------------------------------------ readers

    def start_readers(self):
        """Reset every reader (the shared RST line, if there is one: a reader may have hung
        before the Pico restarted), wait once, and configure each."""
        rs = self.readers
        if not rs:
            return
        if not rs[0].hard_reset(False):
            for r in rs:
                r.soft_reset()
        self.board.sleep_us(rs[0].reset_ms * 1000)
        for i in range(len(rs)):
            try:
                rs[i].configure()
                self.reader_ok[i] = True
            except OSError as e:
                self.reader_ok[i] = False
                self.fails[i] = _RST_TRIES      # it had its RST pulse: soft resets from now
                self.link.send(wire.LOG, wire.log(3, "reader %d %s" % (i, e)))

    def poll_reader(self, i):
        """One inventory of reader ``i`` (which switches its field off): the uids seen, or
        None if the reader failed. The identities of new tags land in identities[i]; so
        do, every 8th poll, those of reported tags never read (take_poll passes them on)."""
        r = self.readers[i]
        if not self.reader_ok[i]:
            try:
                r.antenna(False)        # it failed while its field was on
            except OSError:
                pass
            return None
        # The tags of the last polls: the reported ones, and those seen but not reported
        # yet (their identity read failed): the driver wakes each and selects it by UID.
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
        seen = None
        try:
            seen = r.inventory(wire.MAX_TAGS, ids, known)
        except OSError:
            self.reader_down(i)         # a hung chip: revive it now, not at the next check
        finally:
            if seen is None:
                # It raised: no pages it read may stay for a tag neither reported nor in
                # doubt (they would be taken whenever the tag came back), and a reported
                # tag whose pages were to be read again keeps its mark (None).
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
        return seen

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
                    and len(reported) < wire.MAX_TAGS:
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
        if not changed:
            return
        reported.sort()
        if self.spec["dice_pockets"]:
            uid = reported[0] if reported else None
            self.link.send(wire.DICE, wire.dice(i, (uid, ids.get(uid)) if uid else None), i)
        else:
            self.link.send(wire.TAG, wire.tag(i, self.tags(i)), i)

    def reader_down(self, i, failed=True):
        """Take reader ``i`` out of the polls (field off) until the health task revives it.

        ``failed``: it failed (a poll, its check, an identity write, its field), which
        counts in ``fails`` until its next good poll (readers_task). The first failure is
        said in a LOG and revived at once; one more before a good poll (a reader that
        configures fine but fails each poll, say a brown-out when its field goes on) is
        quiet and revived after a wait that doubles with each (health_task). Its slot
        keeps what it last reported meanwhile: a failed reader invents no lift, and
        HEALTH says it is not ok. (Not ``failed``: the shared RST line reset it.)"""
        if failed:
            if not self.fails[i]:
                self.link.send(wire.LOG, wire.log(3, "reader %d %s" % (i, "failed")))
            self.fails[i] += 1
            self.checked[i] = None if self.fails[i] < 2 else self.ticks_ms()
        self.reader_ok[i] = False
        if self.on_at[i] is not None:
            self.on_at[i] = None
            try:
                self.readers[i].antenna(False)
            except OSError:
                pass
        if i in self.todo:
            self.todo.remove(i)         # its turn is over
            self.polls[i] += 1

    async def revive(self, i):
        """Revive reader ``i``, which failed its check or a poll.

        A soft reset first; then, if that did not help and it has not failed too often,
        the RST line, which resets every reader on the tile: each is configured again,
        so none polls with its reset defaults. Each reset's wait (``reset_ms``) is an
        asyncio sleep: the LEDs, the pads and the other readers go on meanwhile.
        """
        rs = self.readers
        r = rs[i]
        self.reader_down(i, self.reader_ok[i])     # its check failed; else counted already
        r.errors += 1
        r.reinits += 1
        group = (i,)
        for hard in (False, True):
            if not hard:
                try:
                    r.soft_reset()
                except OSError:
                    pass
            elif self.fails[i] < _RST_TRIES and r.hard_reset(False):
                # Every chip on the line is reset now, its field off: none may poll
                # before it is configured again.
                # (Their reinits do not count it: HEALTH's reinits say which chip hung.)
                group = range(len(rs))
                for j in group:
                    self.reader_down(j, False)
            else:
                break
            await self.board.sleep_ms(r.reset_ms)
            for j in group:
                try:
                    rs[j].configure()
                except OSError:
                    if j != i and not self.fails[j]:
                        self.reader_down(j)     # it worked until the RST pulse
                    continue
                self.reader_ok[j] = True
                self.checked[j] = self.ticks_ms()
            if self.reader_ok[i]:
                return      # back in the polls; "back" once one of them is good
        self.fails[i] += 1
        self.checked[i] = self.ticks_ms()

    async def readers_task(self):
        """Poll every reader, phase by phase, each with its own field on and settled.

        A card needs `field_settle_us` of field before it must answer (ISO/IEC
        14443-3: 5 ms), neighbouring readers never have their fields on
        together, and at most `max_fields` are on at once (the readers' power
        budget, hardware/tile.md). So the readers are split into fixed phases
        of readers that are no neighbours (every other cell of a row: 0 2 4 6,
        then 1 3 5), polled phase after phase. A field goes on as soon as no
        neighbour's field is on and the budget allows: the next phase's fields
        go on while the current phase is still being read, so they settle
        while the loop polls, serves the host and renders the LEDs. A round of
        a row of 7 cells takes about two settle times, where one field at a
        time would take seven. The fixed phases bound every reader's wait:
        between two polls of a reader each other reader is polled once,
        whatever a slow poll (a new card's identity read) does to the timing.
        hardware/protocol.md ("Tile timings") has the numbers.

        The task starts (and, after an exception, starts over) with every field off and
        a fresh round: a round cut short may have left fields on, of readers that no
        longer wait their turn, and their neighbours could never go on.
        """
        sleep_ms = self.board.sleep_ms
        ticks_us = self.board.ticks_us
        diff = self.ticks_diff
        on_at = self.on_at
        phases = self.phases
        todo = self.todo                # the current phase's readers still to poll
        lit = False                     # a field went on this round
        self._fields_off()
        while self.running:
            if not todo:
                # The phase is over: on to the next.
                self.phase = (self.phase + 1) % len(phases)
                if self.phase == 0:
                    self._round_done()
                    if self.idle or not lit:
                        # With no host listening, poll at a walk: a round, then a pause
                        # with every field off (less RF, less power, less CPU). With no
                        # reader working, do not spin.
                        self.beat("readers", self.ticks_ms())
                        await sleep_ms(self.timings["idle_poll_gap_ms" if self.idle
                                                     else "poll_gap_ms"])
                    lit = False
                for i in phases[self.phase]:
                    if self.reader_ok[i]:
                        todo.append(i)
                    else:
                        self.polls[i] += 1  # its turn passes; the health check revives it
                continue
            if self._fields_on(ticks_us()):
                lit = True
            # The reader to poll: the current phase's whose field has been on longest.
            best = -1
            for i in todo:
                if on_at[i] is not None and (best < 0 or diff(on_at[best], on_at[i]) > 0):
                    best = i
            if best < 0:
                # None could go on (a reader failing to switch): do not spin.
                await sleep_ms(self.timings["poll_gap_ms"])
                continue
            wait = self.timings["field_settle_us"] - diff(ticks_us(), on_at[best])
            if wait > 1000:
                # The loop's sleeps count whole milliseconds: sleep what surely ends
                # before the settle time does, and the last fraction of it below.
                await sleep_ms(wait // 1000)
                continue
            if wait > 0:
                self.board.sleep_us(wait)
            start = ticks_us()
            todo.remove(best)
            self.polls[best] += 1
            seen = False
            try:
                seen = self.poll_reader(best)       # switches the field off again
            finally:
                on_at[best] = None
                if seen is False:
                    # It raised (a MemoryError, say): its field may be on still.
                    try:
                        self.readers[best].antenna(False)
                    except OSError:
                        pass
            # A board whose readers are quicker than real chips (the sim's emulators)
            # takes the rest of the poll's chip time here.
            self.board.chip_wait(best, start)
            if seen is not None:
                if self.fails[best]:
                    self.fails[best] = 0
                    self.link.send(wire.LOG, wire.log(2, "reader %d %s" % (best, "back")))
                self.take_poll(best, seen)
            self.beat("readers", self.ticks_ms())
            await sleep_ms(0)

    def _fields_on(self, now_us):
        """Switch on the fields that may go on: first the current phase's readers still to
        poll, then the next phase's. A field goes on when no neighbour's field is on and
        fewer than `max_fields` are on. With the host silent, the next round's fields wait
        until this round is over (it ends with every field off). True if any went on."""
        on_at = self.on_at
        fields = 0
        for i in range(len(on_at)):
            if on_at[i] is not None:
                fields += 1
        went_on = False
        nxt = (self.phase + 1) % len(self.phases)
        for group in (self.todo, None if self.idle and nxt == 0 else self.phases[nxt]):
            if group is None:
                break
            for i in group:
                if fields >= self.max_fields or on_at[i] is not None \
                        or not self.reader_ok[i] or self._neighbour_on(i):
                    continue
                try:
                    self.readers[i].antenna(True)
                    on_at[i] = now_us
                    fields += 1
                    went_on = True
                except OSError:
                    self.readers[i].errors += 1
                    self.reader_down(i)         # the health check revives it
        return went_on

    def _neighbour_on(self, i):
        on_at = self.on_at
        near = self.near[i]
        for j in range(len(on_at)):
            if near >> j & 1 and on_at[j] is not None:
                return True
        return False

    def set_neighbours(self, masks):
        """FIELD_NEIGHBOURS: the host says which readers are neighbours on the table (its
        cells need not lie in a row). An ACK status: unsupported, and nothing changes,
        unless there is a mask per reader, none names a slot the tile lacks or the reader
        itself, and each neighbour names the other back. Every field goes off and the
        next round polls in the new phases."""
        n = len(self.readers)
        if len(masks) != n:
            return wire.ACK_UNSUPPORTED
        for i in range(n):
            if masks[i] >> n or masks[i] >> i & 1:
                return wire.ACK_UNSUPPORTED
            for j in range(n):
                if (masks[i] >> j & 1) != (masks[j] >> i & 1):
                    return wire.ACK_UNSUPPORTED
        self.near = masks
        # In place: the readers task holds these lists. Readers left to poll this round
        # wait for the next one.
        self.phases[:] = field_phases(masks, self.max_fields)
        self._fields_off()
        return wire.ACK_OK

    def _fields_off(self):
        """Every field off; the next round starts from the first phase."""
        on_at = self.on_at
        for i in range(len(on_at)):
            if on_at[i] is not None:
                on_at[i] = None
                try:
                    self.readers[i].antenna(False)
                except OSError:
                    self.readers[i].errors += 1
        del self.todo[:]
        self.phase = len(self.phases) - 1

    def _round_done(self):
        """Count rounds (every reader polled once more); True when one just ended."""
        low = self.polls[0]
        for p in self.polls:
            if p < low:
                low = p
        if low <= self.rounds:
            return False
        self.rounds = low
        if low == 1:                    # the first round: the tile knows what lies on it
            if self.snapshot_wanted:
                self.snapshot_wanted = False
                self.snapshot()
        return True

    # ------------------------------------------------------------ pads

    async def pads_task(self):
        sleep_ms = self.board.sleep_ms
        while self.running:
            now = self.ticks_ms()
            if self.pads is not None:
                pressed = self.board.pads()
                for cell in range(len(pressed)):
                    g = self.pads.feed(cell, now, pressed[cell])
                    if g:
                        self.link.send(wire.GESTURE, wire.gesture(cell, g))
            self.beat("pads", now)
            await sleep_ms(self.timings["button_ms"])

    # ------------------------------------------------------------ LEDs

    def set_scene(self, cells):
        status = wire.ACK_OK
        for c in cells:
            try:
                self.effects.set_cell(c["cell"], c["scene"])
            except ValueError:
                status = wire.ACK_UNSUPPORTED
        self.scene_moved()
        return status

    def scene_moved(self):
        """Note a new scene, and whether any segment of it changes with time."""
        self.scene_changed = True
        self.animated = self.effects.animated()

    def render_now(self):
        """Show a new scene at once instead of at the next frame (the host just spoke)."""
        now = self.ticks_ms()
        self.idle = self.effects.idle = self.link.host_silent(now)
        self.board.show(self.effects.render(now))
        self.scene_changed = False

    async def render_task(self):
        sleep_ms = self.board.sleep_ms
        ticks_add = self.board.ticks_add
        frame_ms = self.timings["frame_ms"]
        next_at = self.ticks_ms()
        while self.running:
            now = self.ticks_ms()
            idle = self.link.host_silent(now)
            if idle != self.idle:
                self.idle = self.effects.idle = idle
                self.scene_changed = True
            # A still scene (off, solid, value) is rendered once, not every frame.
            if self.scene_changed or idle or self.animated:
                self.scene_changed = False
                self.board.show(self.effects.render(now))
            spent = self.ticks_diff(self.ticks_ms(), now)
            if spent > self.render_max_ms:
                self.render_max_ms = spent
            self.frames += 1
            self.beat("render", now)
            next_at = ticks_add(next_at, frame_ms)
            wait = self.ticks_diff(next_at, self.ticks_ms())
            if wait < 0:  # late: skip frames rather than fall further behind
                next_at = self.ticks_ms()
                wait = 0
            await sleep_ms(wait)

    # ------------------------------------------------------------ host link

    def handle(self, msg):
        t = msg["type"]
        status = wire.ACK_OK
        if t == "hello_request":
            self.link.forget_pending()
            self.link.send(wire.HELLO, self.hello())
        elif t == "snapshot_request":
            # Before the first round of polls the tile does not know what lies on it yet.
            if self.rounds:
                self.snapshot()
            else:
                self.snapshot_wanted = True
        elif t == "led_scene":
            status = self.set_scene(msg["cells"])
            self.render_now()
        elif t == "led_brightness":
            self.effects.brightness = msg["level"]
            self.render_now()
        elif t == "set_config":
            # A timing, or the LEDs' current budget in mA. A value of 0 makes no sense
            # for any of them: refused (ACK unsupported), nothing changes.
            key = msg["key"]
            if msg["value"] == 0:
                status = wire.ACK_UNSUPPORTED
            elif key == "led_budget_ma":
                self.effects.budget_ma = msg["value"]
                self.scene_changed = True
            else:
                self.timings[key] = msg["value"]
        elif t == "reboot":
            # The maintenance flag first: a tile that cannot leave it stays up and says so.
            try:
                self.board.prepare_reboot(msg["mode"])
            except OSError:
                status = wire.ACK_UNSUPPORTED
            else:
                self.link.ack(msg["seq"])   # then the ACK: the board does not come back
                self.board.reboot(msg["mode"])
        elif t == "write_identity":
            self.write_identity(msg)
        elif t == "field_neighbours":
            status = self.set_neighbours(msg["masks"])
        else:
            status = wire.ACK_UNSUPPORTED
        if msg["type"] in ("led_scene", "led_brightness", "set_config", "reboot",
                           "write_identity", "field_neighbours"):
            self.link.ack(msg["seq"], status)

    def write_identity(self, msg):
        """Enrollment through this tile's reader: write a tag's identity record, answer
        WRITE_RESULT, and report the tag's new identity (hardware/protocol.md)."""
        i = msg["slot"]
        uid = msg["uid"]
        raw = None
        if i >= len(self.readers):
            ok, why = False, "no such slot"
        elif not self.reader_ok[i]:
            ok, why = False, "reader failed"
        else:
            r = self.readers[i]
            hung = False
            try:
                # A field the poll loop switched on a moment ago may not have powered the
                # card yet: from off, the driver waits the whole settle time itself.
                r.antenna(False)
                self.on_at[i] = None        # its poll's field starts again from off
                ok, why = r.write_identity(uid, msg["record"])
                # A failed write may have blanked the record: read what the tag holds now.
                raw = msg["record"] if ok else r.read_identity(uid)
            except OSError:
                r.errors += 1
                hung = True
            if hung or r.suspect:
                # The chip hung on the way: its polls would find nothing (the driver
                # raises for a suspect chip), so revive it now, as after a failed poll.
                if hung or not ok:
                    ok, why = False, "reader failed"
                self.reader_down(i)
            # The driver's words go to the host as they are; it phrases them for people
            # (every string here costs the tile heap).
        if raw is not None:
            ids = self.identities[i]
            if uid in self.reported[i]:
                # A reported tag keeps its parsed identity; a new one goes to the host.
                new = _identity(raw)
                if ids.get(uid) != new:
                    ids[uid] = new
                    if self.spec["dice_pockets"]:
                        self.link.send(wire.DICE, wire.dice(i, (uid, new)), i)
                    else:
                        self.link.send(wire.TAG, wire.tag(i, self.tags(i)), i)
            else:
                ids[uid] = raw      # pages, parsed when the tag is reported
        self.link.send(wire.WRITE_RESULT, wire.write_result(msg["seq"], i, ok, uid, why))

    async def link_task(self):
        sleep_ms = self.board.sleep_ms
        while self.running:
            now = self.ticks_ms()
            for msg in self.link.receive():
                # One command that fails (a MemoryError in a fragmented heap) is neither
                # acked nor remembered, so the host's resend is handled again; the rest
                # of the read is handled all the same.
                try:
                    self.handle(msg)
                except Exception as e:
                    self.failed("link", e)
            self.link.service(now, self)    # the tile's uptime only for a heartbeat
            self.board.service(self, now)
            spent = self.ticks_diff(self.ticks_ms(), now)
            if spent > self.loop_max_ms:
                self.loop_max_ms = spent
            self.beat("link", now)
            await sleep_ms(self.timings["link_ms"])

    async def health_task(self):
        """Check one reader per tick (the one due first), and send HEALTH every period."""
        sleep_ms = self.board.sleep_ms
        reported = self.ticks_ms()
        checked = self.checked
        fails = self.fails
        while self.running:
            now = self.ticks_ms()
            # One reader a tick, the first that is due: a failed one at once, a healthy
            # one every health period (VersionReg and the timer set-up, 3 SPI
            # transactions), a dead one ever less often.
            period = self.timings["health_period_ms"]
            for i in range(len(checked)):
                wait = period << (fails[i] if fails[i] < 5 else 5)
                if checked[i] is None or self.ticks_diff(now, checked[i]) >= (
                        wait if wait < _BACKOFF_MAX_MS else _BACKOFF_MAX_MS):
                    ok = False
                    if self.reader_ok[i]:
                        try:
                            ok = self.readers[i].check()
                        except OSError:
                            pass
                    if ok:
                        checked[i] = now
                    else:
                        await self.revive(i)
                    break
            if self.ticks_diff(now, reported) >= self.timings["health_period_ms"]:
                reported = now
                self.link.send(wire.HEALTH, self.health())
                self.loop_max_ms = 0        # HEALTH says the worst since the last one
            self.beat("health", now)
            await sleep_ms(_CHECK_TICK_MS)

    async def watchdog_task(self):
        sleep_ms = self.board.sleep_ms
        limit = self.timings["watchdog_ms"] // 2
        while self.running:
            now = self.ticks_ms()
            alive = True
            for name in _TASKS:
                last = self.beats.get(name)
                if last is None or self.ticks_diff(now, last) > limit:
                    alive = False
            if alive:
                self.board.feed_watchdog()
            self.beat("watchdog", now)
            await sleep_ms(100)

    async def guarded(self, name, job):
        """Run a task for good: an exception is reported and the task starts over.

        A task beats (``beat``) only when an iteration of its loop completed, so one that
        fails again and again stops feeding the watchdog, which resets the tile. A task
        that failed with no completed iteration for the watchdog's time makes the board
        give up (``board.give_up``: a Pico resets at once, a sim tile ends its process with
        a message on stderr, where no hardware watchdog would end the crash loop)."""
        while self.running:
            try:
                await job()
            except Exception as e:  # one bad poll or frame must not stop the tile
                self.failed(name, e)
                if self.ticks_diff(self.ticks_ms(), self.beats.get(name, self.boot_ms)) \
                        > self.timings["watchdog_ms"]:
                    self.board.give_up(name, e)
                await self.board.sleep_ms(10)

    def failed(self, name, e):
        """Count, report and LOG an exception in task ``name``."""
        self.failures += 1
        self.board.report(name, e)
        try:
            self.link.send(wire.LOG, wire.log(3, "%s: %r" % (name, e)))
        except Exception:
            pass

    async def main(self):
        self.start_readers()
        # A lone delimiter first: whatever the host's decoder holds (a traceback, REPL
        # text from before this boot) ends there instead of swallowing the HELLO.
        self.board.port.write(b"\x00")
        self.link.send(wire.HELLO, self.hello())
        now = self.ticks_ms()
        for name in _TASKS:
            self.beat(name, now)
        self.board.start_watchdog(self.timings["watchdog_ms"])
        g = self.guarded
        await asyncio.gather(g("readers", self.readers_task), g("pads", self.pads_task),
                             g("render", self.render_task), g("link", self.link_task),
                             g("health", self.health_task), g("watchdog", self.watchdog_task))


def run(board, spec, timings=None):
    """Start a tile on ``board`` and run it forever."""
    tile = Tile(board, spec, timings)
    asyncio.run(tile.main())
