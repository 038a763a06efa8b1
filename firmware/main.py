"""The tile: its tasks, and its answers to the host's commands.

One asyncio task per job, none blocking longer than one reader poll:

- readers: the readers polled phase by phase (firmware/readers.py); a slot's
  tag set counts as changed after ``arrive_polls`` (tags added) or
  ``gone_polls`` (a tag missing) consistent polls (firmware/presence.py),
  then a TAG (cell tile) or DICE (dice tray) event goes to the host, acked
  and resent by the link until acknowledged;
- pads: touch pad samples -> tap, double tap, hold (firmware/gestures.py);
- render: the LED scene at a fixed frame rate (firmware/effects.py), the idle
  animation while the host is silent;
- link: host commands (HELLO request, snapshot, LED scene, brightness,
  config, reboot, identity writes for enrollment), resends and heartbeats;
  board chores (the sim control channel);
- watchdog: fed only while every other task still completes its iterations (a
  task that keeps failing gets the tile reset; see ``guarded``);
- health: a HEALTH report, and a check of one reader per tick
  (``ReaderSchedule.check_reader``).

Each tile has its own timings: a copy of the defaults (firmware/config.py) that the
host's SET_CONFIG changes. The board backend (firmware/boards/rp2.py or sim.py)
supplies the hardware.
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
from firmware.presence import SlotTags
from firmware.readers import ReaderSchedule
from shared_rules import wire

_TASKS = ("readers", "pads", "render", "link", "health")
_CHECK_TICK_MS = const(20)       # the health task's pace: one reader checked per tick


class Tile(ReaderSchedule, SlotTags):
    """One tile: its readers, pads and LEDs, and its link to the host."""

    up_ms = 0       # uptime: ms counted, and the ticks_ms it was counted to (class
    up_at = 0       # defaults: a Tile a test builds field by field has them too)

    def __init__(self, board, spec, timings=None):
        self.board = board
        self.spec = spec
        # The tile's own timings: a fresh copy of the defaults with the board's changes,
        # changed further by the host's SET_CONFIG.
        t = config.timings()
        if timings:
            t.update(timings)
        self.timings = t
        self.ticks_ms = board.ticks_ms
        self.ticks_diff = board.ticks_diff
        self.boot_ms = self.up_at = board.ticks_ms()
        self.up_ms = 0
        self.boot_id = board.boot_id()
        self.init_readers(board, spec, t["field_settle_us"])
        self.init_slots(spec["readers"])
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
        # Every attribute is made above: the attribute table holds 37 (up_ms included),
        # and one more would grow it into a block of 752 bytes, which a tile's fragmented
        # heap may not have once it runs.

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
                          s["cells"], s["segments"], s["leds_per_segment"], s["cells"],
                          s["buttons"], s["dice_pockets"], flags, s["variant"])

    def snapshot(self):
        """Send a SNAPSHOT; the slots it has no room for follow as TAG events.

        A full cell tile (8 slots, a card and three pawns on each) holds more tags than
        one frame carries (about 700 bytes), and its fragmented heap has no room to build
        big frames: the SNAPSHOT takes what fits in 128 bytes, each slot left over goes
        as a TAG (under 100 bytes).
        """
        dice = self.spec["dice_pockets"]
        try:
            slots = []
            pockets = []
            rest = []
            room = 128 - 6                          # uptime, slot count, pocket count
            for i in range(self.spec["cells"]):     # a slot each (crowded cells: tags())
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
            for i in rest:
                self.unsent |= 1 << i       # sent below, else at their next poll
            self.link.send(wire.SNAPSHOT, wire.snapshot(self.uptime(), slots, pockets))
        except MemoryError:
            # Built in a heap the game fragmented, it may find no block for a while: it
            # waits, as a slot's report does (report_slot), and goes after the next round
            # of polls (round_done); the host asks again until it comes.
            return
        self.snapshot_wanted = False
        for i in rest:
            self.report_slot(i)

    def health(self):
        """HEALTH: a reader is ok while it polls (one that failed, and was revived but has
        not polled well since, is not); loop_max_ms is the worst since the last HEALTH."""
        readers = []
        m = self.spec.get("slots")
        for i in range(len(self.readers)):
            r = self.readers[i]
            h = (self.reader_ok[i] and not self.fails[i], r.errors, r.reinits)
            s = m[i] if m else i
            if s < i:   # a crowded cell's extra reader: its slot's entry counts it
                h0 = readers[s]
                h = (h0[0] and h[0], h0[1] + h[1], h0[2] + h[2])
                readers[s] = h
            else:
                readers.append(h)
        d = self.link.decoder
        return wire.health(self.uptime(), readers, d.crc_errors, d.garbage_bytes,
                           self.link.resends, self.board.heap_free(), self.loop_max_ms)

    def round_done(self):
        """Every reader has been polled once more: the tile knows what lies on it, and
        sends the snapshot the host asked for before then (or that could not be sent)."""
        if self.snapshot_wanted:
            self.snapshot()

    async def pads_task(self):
        sleep_ms = self.board.sleep_ms
        while self.running:
            now = self.ticks_ms()
            if self.pads is not None:
                at = self.board.pad_ms(now)
                pressed = self.board.pads()
                for cell in range(len(pressed)):
                    g = self.pads.feed(cell, at, pressed[cell])
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
            # Before the first round of polls the tile does not know what lies on it yet;
            # a snapshot that could not be sent (MemoryError) goes after the next round.
            self.snapshot_wanted = True
            if self.rounds:
                self.snapshot()
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
        slot = msg["slot"]
        uid = msg["uid"]
        raw = None
        i = slot if slot < self.spec["cells"] else len(self.readers)
        m = self.spec.get("slots")
        if m and i == slot:
            # A crowded cell: the write goes through the reader that reports the tag.
            for r in range(len(m)):
                if m[r] == slot and uid in self.reported[r]:
                    i = r
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
            self.identity_written(i, uid, raw)
        self.link.send(wire.WRITE_RESULT, wire.write_result(msg["seq"], slot, ok, uid, why))

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
        while self.running:
            now = self.ticks_ms()
            await self.check_reader(now)
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
        # The tasks run for good, side by side, the watchdog's in this coroutine:
        # asyncio.gather would load a module of its own (about 900 bytes of the 64 KB
        # heap) to wait for tasks that never end. The list keeps them referenced (CPython's
        # loop does not), and lives as long as this coroutine: for good.
        tasks = [asyncio.create_task(g("readers", self.readers_task)),
                 asyncio.create_task(g("pads", self.pads_task)),
                 asyncio.create_task(g("render", self.render_task)),
                 asyncio.create_task(g("link", self.link_task)),
                 asyncio.create_task(g("health", self.health_task))]
        await g("watchdog", self.watchdog_task)
        return tasks


def run(board, spec, timings=None):
    """Start a tile on ``board`` and run it forever."""
    tile = Tile(board, spec, timings)
    asyncio.run(tile.main())
