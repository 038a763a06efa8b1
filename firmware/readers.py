"""The tile's readers: their fields switched on phase by phase, each reader polled in
turn, a failing one taken out of the polls and revived.

``ReaderSchedule`` is a base class of the tile (firmware/main.py). Its task
(``readers_task``) polls every reader round after round and hands what each poll saw
to the slot debounce (firmware/presence.py: ``known_tags``, ``take_poll``,
``poll_failed``). The health task calls ``check_reader`` every tick: one reader's
chip is checked (VersionReg and its timer set-up), and a hung chip is revived with a
soft reset, then the shared RST line, waiting out each reset without blocking; a
reader that stays dead is tried less and less often (``reader_down``). A reader whose
poll fails (the driver raises OSError) reports nothing, so no tag counts as gone, and
is revived at once; one that fails again before a good poll is revived ever less
often. It uses the tile's ``board``, ``link``, ``timings`` (field_settle_us,
poll_gap_ms, idle_poll_gap_ms, health_period_ms), ``idle`` and ``beat``, and calls
the tile's ``round_done`` each time every reader has been polled once more.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import wire

_RST_TRIES = const(2)    # a revival may pulse the shared RST line while the reader's
#                          failures since its last good poll are fewer than this
_BACKOFF_MAX_MS = const(60000)   # a dead reader is checked at most this far apart


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


class ReaderSchedule:
    """The readers of a tile, their health, and the phases their fields go on in."""

    def init_readers(self, board, spec, settle_us):
        """The board's readers for ``spec``, each waiting ``settle_us`` after its field
        goes on, none polled yet."""
        n = spec["readers"]
        self.readers = board.readers(n)
        for r in self.readers:
            r.field_settle_us = settle_us
        self.reader_ok = [False] * n
        self.checked = [self.boot_ms] * n        # per reader: ticks_ms of its last check, or
        #                                          None: check it at once (a poll failed)
        self.fails = [0] * n                     # per reader: failures since its last good
        #                                          poll (see reader_down)
        # Field scheduling (see readers_task and field_phases): readers closer than
        # spec["field_spacing"] slots never have their fields on at the same time.
        self.on_at = [None] * n                  # per slot: ticks_us its field went on, or None
        self.polls = [0] * n                     # per slot: polls done (round counter)
        self.rounds = 0                          # full rounds done (min of polls)
        # Per slot, the bit mask of its neighbours: a row by default, the host's
        # FIELD_NEIGHBOURS once it says where the cells lie (set_neighbours).
        cells = spec["cells"]
        self.near = row_neighbours(cells, spec.get("field_spacing") or cells)
        # At most spec["max_fields"] fields on at once (power); not an attribute of its
        # own: each attribute more grows the tile's attribute table (see main.py).
        self.phases = field_phases(self.near, spec.get("max_fields") or 1)
        self.phase = len(self.phases) - 1        # the phase being polled (0 comes first)
        self.todo = []                           # its readers still to poll this round
        if spec.get("slots"):
            # A crowded cell's extra readers border what their cell borders (and each other).
            self.set_neighbours(self.near)

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
        # The driver wakes each known tag and selects it by UID; a card lying alone is
        # checked with one anticollision frame (quick), but every 4th poll, staggered by
        # slot so a round holds few full polls (the driver's inventory says why).
        seen = None
        try:
            seen = r.inventory(wire.MAX_TAGS, self.identities[i], self.known_tags(i),
                               (self.polls[i] + i) & 3)
        except OSError:
            self.reader_down(i)         # a hung chip: revive it now, not at the next check
        finally:
            if seen is None:
                self.poll_failed(i)
        return seen

    async def check_reader(self, now):
        """Check the first reader that is due (at most one a call): a failed one at once, a
        healthy one every health period (VersionReg and the timer set-up, 3 SPI
        transactions), a dead one ever less often; revive it if the check fails."""
        checked = self.checked
        fails = self.fails
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
                return

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
                    # A round is over once every reader has been polled once more (a
                    # failed reader's turn counts): the tile's round_done.
                    low = min(self.polls)
                    if low > self.rounds:
                        self.rounds = low
                        self.round_done()
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
        most = self.spec.get("max_fields") or 1
        nxt = (self.phase + 1) % len(self.phases)
        for group in (self.todo, None if self.idle and nxt == 0 else self.phases[nxt]):
            if group is None:
                break
            for i in group:
                if fields >= most or on_at[i] is not None \
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
        unless there is a mask per slot, none names a slot the tile lacks or the slot
        itself, and each neighbour names the other back. Every field goes off and the
        next round polls in the new phases. (A crowded cell's extra readers are not the
        host's to know: they border what their cell borders, reader_neighbours.)"""
        n = self.spec["cells"]
        if len(masks) != n:
            return wire.ACK_UNSUPPORTED
        for i in range(n):
            if masks[i] >> n or masks[i] >> i & 1:
                return wire.ACK_UNSUPPORTED
            for j in range(n):
                if (masks[i] >> j & 1) != (masks[j] >> i & 1):
                    return wire.ACK_UNSUPPORTED
        m = self.spec.get("slots")
        if m:
            # A crowded cell's readers (their loops 10-15 mm apart under one cell) are each
            # other's neighbours, and border every reader of the cells their cell borders.
            near = []
            for a in range(len(m)):
                mask = 0
                for b in range(len(m)):
                    if b != a and (m[a] == m[b] or masks[m[a]] >> m[b] & 1):
                        mask |= 1 << b
                near.append(mask)
            masks = near
        self.near = masks
        # In place: the readers task holds these lists. Readers left to poll this round
        # wait for the next one.
        self.phases[:] = field_phases(masks, self.spec.get("max_fields") or 1)
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
