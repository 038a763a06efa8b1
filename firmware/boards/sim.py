"""Simulated tile board: the unix port (or CPython) standing in for a Pico.

- Readers: the real MFRC522 driver on emulated chips (firmware/sim/mfrc522_emu.py),
  all on one simulated SPI bus, one chip select each.
- Serial: stdin/stdout, which the virtual table connects to a pseudo-terminal.
- LEDs: the rendered GRB buffer is kept; the control channel reads it.
- Pads: pressed/released by the control channel (raw, or scripted tap/double/hold).
- Watchdog: a software watchdog that ends the process (as a reset would) if not fed;
  a task that fails again and again ends it too (``give_up``), as the hardware
  watchdog would reset a Pico.
- Reboot: the process ends (the virtual table starts it again); a maintenance reboot
  first writes the flag file the rp2 board's main.py looks for, in the working
  directory.
- Control channel: a unix socket the virtual table listens on; one JSON object
  per line each way. Requests carry "op" and an optional "id"; the reply echoes
  the id. See host/virtual/table.py for the list of operations. It is the
  virtual table's, not the tile's: firmware/sim/control.py, loaded with the
  emulated chips, outside the firmware's 64 KB (host/virtual/image.py). A placed
  tag may be read-only ("read_only": true) or hold given pages 4..7 ("pages",
  hex); "lift" answers with the pages the tag held.

Runs under MicroPython (tested with a 64 KB heap) and CPython 3.11.
"""

import asyncio
import binascii
import sys

import select
import socket

from firmware import config
from firmware.drivers.mfrc522 import MFRC522

MICROPYTHON = sys.implementation.name == "micropython"

if MICROPYTHON:
    import gc
    import os
    import time

    ticks_ms = time.ticks_ms
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    ticks_add = time.ticks_add
    sleep_ms = asyncio.sleep_ms
    sleep_us = time.sleep_us

    def urandom32():
        return int.from_bytes(os.urandom(4), "big")

    wall_ns = time.time_ns

    def heap_free():
        gc.collect()
        return gc.mem_free()

    gc_collect = gc.collect

    def sock_connect(sock, path):
        # The unix port passes the address buffer as a raw struct sockaddr_un (Linux's):
        # "@NAME" is NAME in the abstract namespace, a NUL then the name, unterminated.
        if path[0] == "@":
            sock.connect(bytes((socket.AF_UNIX, 0, 0)) + path[1:].encode())
        else:
            sock.connect(bytes((socket.AF_UNIX, 0)) + path.encode() + b"\x00")

    def sock_readinto(sock, buf):
        return sock.readinto(buf)

    def sock_write(sock, data):
        view = memoryview(data)
        while view:
            view = view[sock.send(view):]

    def print_exception(e):
        sys.print_exception(e, sys.stderr)

    def _ready(poll):
        for _ in poll.ipoll(0):   # ipoll reuses its result: no allocation per call
            return True
        return False
else:
    # The same names for CPython, from a module a MicroPython tile never loads.
    from firmware.boards.cpython import *  # noqa: F401,F403

    def _ready(poll):
        return bool(poll.poll(0))


def _unhex(s):
    return binascii.unhexlify(s)


class StdioPort:
    """The serial stream: stdin/stdout in binary, never blocking the loop."""

    def __init__(self):
        self.poll_in = select.poll()
        self.poll_out = select.poll()
        if MICROPYTHON:
            self.rx = sys.stdin.buffer
            self.tx = sys.stdout.buffer
            self.poll_in.register(self.rx, select.POLLIN)
            self.poll_out.register(self.tx, select.POLLOUT)
        else:
            self.poll_in.register(0, select.POLLIN)
            self.poll_out.register(1, select.POLLOUT)
        self.closed = False
        self.deaf_until = None      # control "deaf": drop what arrives, like a noisy line
        # Preallocated, and one USB full-speed CDC packet (64 bytes) a read, as a Pico reads:
        # the link copies what it is given, and a full tile's heap has no room for big copies.
        self.inbuf = bytearray(64)
        self.one = bytearray(1)

    def read(self):
        data = self._read()
        if self.deaf_until is not None:
            if ticks_diff(ticks_ms(), self.deaf_until) < 0:
                return b""
            self.deaf_until = None
        return data

    def _read(self):
        if MICROPYTHON:
            # The unix port's read(n) waits for all n bytes: take what poll says is there.
            buf = self.inbuf
            one = self.one
            rx = self.rx
            n = 0
            while n < 64 and _ready(self.poll_in):
                try:
                    got = rx.readinto(one)
                except OSError:     # the pty's other end is gone
                    got = 0
                if not got:
                    self.closed = True
                    break
                buf[n] = one[0]
                n += 1
            return memoryview(buf)[:n] if n else b""
        if not self.poll_in.poll(0):
            return b""
        data = fd_read(0)  # noqa: F405 (CPython only, from firmware.boards.cpython)
        if not data:
            self.closed = True
        return data

    def write(self, data):
        if not _ready(self.poll_out):
            return False  # nobody drains the line: drop, as USB CDC does with no host
        try:
            if MICROPYTHON:
                self.tx.write(data)
            else:
                fd_write(1, data)  # noqa: F405
        except OSError:
            return False
        return True


class SimBoard:
    """The board backend the main loop drives (see firmware/boards/rp2.py for the real one)."""

    has_watchdog = True

    def __init__(self, uid, control_path=None, buttons=0):
        self.uid = uid
        self.port = StdioPort()
        self.spi = None                 # the emulated bus, made with the emulated readers
        self.emulators = []
        # One entry per pad or button the tile has (a cell tile: one per cell; the dice
        # tray: three pockets but one "dice rolled" button), as on the rp2 board.
        self.pressed = [False] * buttons
        self.script = []                # [(at_ms, slot, pressed)] for tap/double/hold
        self.pad_wall = self.pad_now = ticks_ms()   # see pad_ms: the script's clock
        self.frame = b""
        self.frame_crc = None
        self.frame_no = 0
        self.wdt_ms = 0
        self.wdt_fed = 0
        self.control = None
        if control_path:
            from firmware.sim.control import ControlChannel
            self.control = ControlChannel(control_path)

    # -- what firmware/main.py uses ---------------------------------------------------

    ticks_ms = staticmethod(ticks_ms)
    ticks_us = staticmethod(ticks_us)
    ticks_diff = staticmethod(ticks_diff)
    ticks_add = staticmethod(ticks_add)
    sleep_ms = staticmethod(sleep_ms)
    sleep_us = staticmethod(sleep_us)       # blocking, as on a Pico

    def unique_id(self):
        return self.uid

    def boot_id(self):
        return urandom32()

    def heap_free(self):
        return heap_free()

    def readers(self, n):
        from firmware.sim.mfrc522_emu import Mfrc522Emulator, SimPin, SimSPI
        if self.spi is None:
            self.spi = SimSPI()
        rst = SimPin(value=1)           # one RST line for every reader, as on a tile
        out = []
        for _ in range(n):
            emu = Mfrc522Emulator()
            cs = SimPin()
            self.spi.attach(cs, emu)
            emu.attach_rst(rst)
            self.emulators.append(emu)
            out.append(MFRC522(self.spi, cs, rst, emu.advance))
        self.chip_us = [0] * n
        return out

    def chip_wait(self, slot, start_us):
        """Take as long as a real chip would have taken for the poll just done.

        The emulator keeps a virtual clock of the chip (SPI accesses at a Pico's pace
        plus air time), which a poll on this machine outruns: the rest is slept off
        here, blocking, as a Pico's driver blocks its loop for the whole poll. So a
        virtual tile learns a poll's result when a real one would, and leaves the
        CPU to the other tiles of the table meanwhile.
        """
        emu = self.emulators[slot]
        left = emu.now_us - self.chip_us[slot] - ticks_diff(ticks_us(), start_us)
        self.chip_us[slot] = emu.now_us
        if left > 0:
            sleep_us(left)

    def pad_ms(self, now):
        # The pads' own clock, which a starved process does not make jump. A tile on a
        # busy machine can sleep 300 ms between two samples, and on the wall clock the
        # second press of a double tap would come too late, so it would read as two taps.
        # A real tile is never starved so long; its finger's times are kept here. The
        # clock goes on at the wall clock's pace, but at most 20 ms (two samples) a
        # sample, and never past the script's next change: each change is felt when it
        # is due, and the shortest press (60 ms) is sampled at least once after the
        # recogniser's 30 ms debounce. (A step of 40 ms once skipped over it: a double
        # tap read as a tap.)
        step = min(ticks_diff(now, self.pad_wall), 20)
        self.pad_wall = now
        if self.script:
            step = min(step, ticks_diff(self.script[0][0], self.pad_now))
        if step > 0:
            self.pad_now = ticks_add(self.pad_now, step)
        return self.pad_now

    def pads(self):
        # One scripted change per sample, due on the pads' clock: a pads task that runs
        # late (a busy machine) still sees each press of a tap or double tap, as a
        # finger would be felt.
        if self.script and ticks_diff(self.pad_now, self.script[0][0]) >= 0:
            _, slot, state = self.script.pop(0)
            self.pressed[slot] = state
        return self.pressed

    def show(self, buf):
        # A checksum, not a copy, tells a new frame: the heap is the tile's.
        crc = binascii.crc32(buf)
        self.frame = buf
        if crc != self.frame_crc:
            self.frame_crc = crc
            self.frame_no += 1
            if self.control is not None and self.control.watching:
                self.control.push_frame(self)

    def report(self, task, e):
        print("task %s failed:" % task, file=sys.stderr)
        print_exception(e)

    def start_watchdog(self, timeout_ms):
        self.wdt_ms = timeout_ms
        self.wdt_fed = ticks_ms()

    def feed_watchdog(self):
        self.wdt_fed = ticks_ms()

    def prepare_reboot(self, mode):
        """Before REBOOT is acked: mode 1 leaves the maintenance flag (OSError if it cannot:
        the tile acks ``unsupported`` and stays up)."""
        if mode == 1:
            with open("maintenance", "w") as f:    # the flag main.py looks for
                f.write("1")

    def reboot(self, mode):
        """REBOOT, once acked: the process ends (the virtual table restarts a tile that asked
        for a reboot); mode 2 says what a Pico would do."""
        print("reboot, mode %d" % mode, file=sys.stderr)
        sys.exit(0)

    def give_up(self, task, e):
        # No hardware watchdog ends a crash loop here: a broken test must fail, not spin.
        print("task %s keeps failing: giving up" % task, file=sys.stderr)
        sys.exit(4)

    def service(self, tile, now):
        """Board chores once per link pass: watchdog expiry and control requests."""
        if self.wdt_ms and ticks_diff(now, self.wdt_fed) > self.wdt_ms:
            print("sim watchdog: not fed for %d ms, resetting" % ticks_diff(now, self.wdt_fed),
                  file=sys.stderr)
            sys.exit(3)
        if self.port.closed:
            sys.exit(0)
        if self.control is not None:
            self.control.service(self, tile)


def main(argv=None):
    """Run one simulated tile: argv is ``UID_HEX CONTROL_PATH VARIANT CELLS INDEX``, or,
    with no arguments, the environment variable FAIRYTABLE_TILE holds them (the virtual
    table's way: the unix port interns every argument as a qstr, heap a real tile keeps).

    A crash is reported on stderr (the tile's log), never on the serial stream.
    """
    try:
        _main(argv)
    except SystemExit:
        raise
    except BaseException as e:
        print_exception(e)
        sys.exit(1)


def _main(argv):
    # UID_HEX CONTROL_PATH VARIANT CELLS INDEX [SPARES [CROWDED]] (the virtual table passes
    # all seven; CROWDED is "-" or crowded cells' readers, "3:4" for slot 3 read by 4, or
    # "3:4,5:2": firmware/config.py)
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        import os
        args = os.getenv("FAIRYTABLE_TILE").split()
    uid, control, variant, cells, index = args[:5]
    spares = int(args[5]) if len(args) > 5 else 4
    if len(args) > 6 and args[6] != "-":
        crowded = {}
        for part in args[6].split(","):
            part = part.split(":")
            crowded[int(part[0])] = int(part[1])
        spec = config.variant(variant, int(cells), crowded)
        del crowded, part
    else:
        spec = config.variant(variant, int(cells))
    del args
    # The tags the virtual table's hands put down (a card and three pawns a reader) are
    # made first, in a whole heap, before the firmware loads: placing one later only
    # loads a spare, so the emulated tags never fight the firmware for a block of its
    # fragmented 64 KB (host/virtual/image.py counts them with the emulated chips).
    # SPARES a reader: four (a card and three pawns) for most games, six for a game of
    # stacks (a Fight Club wagon: the virtual table is told by the game). A card beyond
    # them is made on demand (control.py) in the firmware's heap, which a real tile's
    # cards never take: hence a game says how many it stacks. The wire module is loaded
    # first, as the firmware needs it anyway: the spares then lie after it in the heap.
    from firmware.sim.mfrc522_emu import tag_pool
    from shared_rules import wire  # noqa: F401
    pool = tag_pool(spec["readers"] * spares)
    from firmware.main import Tile

    board = SimBoard(_unhex(uid), control, spec["buttons"])
    tile = Tile(board, spec)
    if board.control is not None:
        board.control.tag_pool = pool
        board.control.send({"ev": "ready", "index": int(index),
                            "interpreter": sys.implementation.name, "boot_id": tile.boot_id,
                            "leds_per_cell": spec["segments"] * spec["leds_per_segment"]})
        board.control.wait_for_start(board, tile)
    asyncio.run(tile.main())
