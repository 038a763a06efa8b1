"""A tile (firmware/main.py) on emulated readers and a virtual clock, under CPython.

The clock moves only when every task waits: a task's ``await board.sleep_ms(ms)``
wakes when the clock reaches its time, the earliest first (a time-travelling
event loop, as Mission Pinball tests its machines). ``Board(ticks_period=P)``
gives ticks that wrap as MicroPython's do (ticks_ms and ticks_us in [0, P),
ticks_diff and ticks_add modulo P; a value outside that range, which on a
Pico would be read as garbage, raises). The readers are the real
driver on the register-level emulator, all on one SPI bus and one RST line, as
on a tile. What the tile sends to the host is decoded into ``board.sent``.
"""

import asyncio
import heapq

from firmware import config
from firmware.drivers.mfrc522 import MFRC522
from firmware.main import Tile
from firmware.sim.mfrc522_emu import Mfrc522Emulator, SimPin, SimSPI
from shared_rules import wire


class GaveUp(BaseException):
    """The tile's board gave up on a task (a Pico resets, a sim tile exits)."""


class Rebooted(BaseException):
    """The tile asked its board to reboot (a sim tile exits: SystemExit)."""


class Port:
    def __init__(self):
        self.inbox = bytearray()
        self.out = bytearray()
        self.accept = True      # False: a host that does not drain the line

    def read(self):
        data = bytes(self.inbox[:64])
        del self.inbox[:64]
        return data

    def write(self, data):
        if not self.accept:
            return False
        self.out += data
        return True


class Board:
    """The board backend firmware/main.py drives, on a virtual clock."""

    has_watchdog = False

    def __init__(self, rst=True, versions=None, ticks_period=None, now_us=1000000):
        self.now_us = now_us
        self.period = ticks_period
        self.flag_fails = False     # prepare_reboot cannot write the maintenance flag
        self._waiters = []
        self._n = 0
        self.port = Port()
        self.spi = SimSPI()
        self.rst = SimPin(value=1) if rst else None
        self.rst_pulses = 0
        if self.rst is not None:
            self.rst.watch(self._rst_changed)
        self.versions = versions or {}
        self.emus = []
        self.decoder = wire.Decoder()
        self.sent = []
        self.feeds = 0
        self.gave_up = []
        self.failures = []
        self.rebooted = []
        self.frames = 0

    def _rst_changed(self, level):
        if level == 0:
            self.rst_pulses += 1

    # -- time -----------------------------------------------------------------------------

    def ticks_ms(self):
        if self.period:
            return self.now_us // 1000 % self.period
        return self.now_us // 1000

    def ticks_us(self):
        if self.period:
            return self.now_us % self.period
        return self.now_us

    def _tick(self, t):
        if not (isinstance(t, int) and 0 <= t < self.period):
            raise AssertionError("%r is no tick of period %d" % (t, self.period))
        return t

    def ticks_diff(self, a, b):
        p = self.period
        if not p:
            return a - b
        return (self._tick(a) - self._tick(b) + p // 2) % p - p // 2

    def ticks_add(self, a, b):
        if not self.period:
            return a + b
        return (self._tick(a) + b) % self.period

    async def sleep_ms(self, ms):
        fut = asyncio.get_running_loop().create_future()
        self._n += 1
        heapq.heappush(self._waiters, (self.now_us + max(0, ms) * 1000, self._n, fut))
        await fut

    def sleep_us(self, us):
        self.now_us += us

    async def run(self, tile, tasks, until=None, most_ms=600000):
        """Run ``tasks`` (names of the tile's task methods, guarded as in Tile.main) until
        ``until()`` is true or ``most_ms`` of virtual time have passed."""
        end = self.now_us + most_ms * 1000
        tile.running = True
        jobs = [asyncio.ensure_future(tile.guarded(name, getattr(tile, name + "_task")))
                for name in tasks]
        try:
            while self.now_us < end and not (until and until()):
                for _ in range(3):
                    await asyncio.sleep(0)
                for j in jobs:
                    if j.done():
                        j.result()      # a task that ended raises here
                if not self._waiters:
                    raise AssertionError("no task is waiting: the loop ended")
                at, _, fut = heapq.heappop(self._waiters)
                if at > self.now_us:
                    self.now_us = at
                fut.set_result(None)
        finally:
            tile.running = False
            for j in jobs:
                j.cancel()
            for _, _, fut in self._waiters:
                fut.cancel()
            self._waiters = []
            await asyncio.sleep(0)

    # -- hardware ---------------------------------------------------------------------------

    def readers(self, n):
        out = []
        self.pressed = [False] * n
        for i in range(n):
            emu = Mfrc522Emulator(self.versions.get(i, 0x92))
            cs = SimPin(value=1)
            self.spi.attach(cs, emu)
            if self.rst is not None:
                emu.attach_rst(self.rst)
            self.emus.append(emu)
            drv = MFRC522(self.spi, cs, self.rst, emu.advance)
            out.append(drv)
        return out

    def chip_wait(self, slot, start_us):
        pass

    def boot_id(self):
        return 7

    def unique_id(self):
        return b"\x01\x02"

    def heap_free(self):
        return 50000

    def pad_ms(self, now):
        return now

    def pads(self):
        return self.pressed

    def show(self, buf):
        self.frames += 1

    def report(self, task, e):
        self.failures.append((task, e))

    def feed_watchdog(self):
        self.feeds += 1

    def start_watchdog(self, ms):
        pass

    def give_up(self, task, e):
        self.gave_up.append(task)
        raise GaveUp(task)

    def prepare_reboot(self, mode):
        if self.flag_fails and mode == 1:
            raise OSError(28, "ENOSPC")

    def reboot(self, mode):
        self.rebooted.append(mode)
        raise Rebooted(mode)

    def service(self, tile, now):
        pass

    # -- what the host heard ---------------------------------------------------------------

    def heard(self):
        """The messages the tile sent so far, parsed (also kept in ``sent``)."""
        data = bytes(self.port.out)
        self.port.out.clear()
        for frame in self.decoder.feed(data):
            self.sent.append(wire.parse(frame))
        return self.sent


def make_tile(cells=4, timings=None, crowded=None, **board_args):
    """A cell tile of ``cells`` readers on a fresh Board, its readers started (``crowded``:
    {slot: readers}, cells read by several readers, firmware/config.py)."""
    board = Board(**board_args)
    t = config.timings()
    t.update({"field_settle_us": 5100, "health_period_ms": 60000})
    t.update(timings or {})
    tile = Tile(board, config.variant("cell", cells, crowded), {})
    tile.timings = t            # this tile's own timings, as the harness sets them
    tile.link.timings = t
    for r in tile.readers:
        r.field_settle_us = 0   # the loop waits the settle time on the virtual clock
    tile.start_readers()
    return tile, board


def tags_sent(board, slot):
    """The tag sets TAG events reported for ``slot``, in order: lists of (uid, identity)."""
    return [[(t["uid"], t["identity"]) for t in m["tags"]]
            for m in board.heard() if m["type"] == "tag" and m["slot"] == slot]
