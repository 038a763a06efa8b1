"""Simulated tile board: the unix port (or CPython) standing in for a Pico.

- Readers: the real MFRC522 driver on emulated chips (firmware/sim/mfrc522_emu.py),
  all on one simulated SPI bus, one chip select each.
- Serial: stdin/stdout, which the virtual table connects to a pseudo-terminal.
- LEDs: the rendered GRB buffer is kept; the control channel reads it.
- Pads: pressed/released by the control channel (raw, or scripted tap/double/hold).
- Watchdog: a software watchdog that ends the process (as a reset would) if not fed.
- Control channel: a unix socket the virtual table listens on; one JSON object
  per line each way. Requests carry "op" and an optional "id"; the reply echoes
  the id. See tools/virtual_table.py for the list of operations. A placed tag
  may be read-only ("read_only": true) or hold given pages 4..7 ("pages",
  hex); "lift" answers with the pages the tag held.

Runs under MicroPython (tested with a 64 KB heap) and CPython 3.11.
"""

import asyncio
import binascii
import json
import sys

import select
import socket

from firmware import config
from firmware.drivers.mfrc522 import MFRC522, identity_record
from firmware.sim.mfrc522_emu import Mfrc522Emulator, NtagCard, SimPin, SimSPI

MICROPYTHON = sys.implementation.name == "micropython"

if MICROPYTHON:
    import gc
    import os
    import time

    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
    sleep_ms = asyncio.sleep_ms

    def urandom32():
        return int.from_bytes(os.urandom(4), "big")

    def heap_free():
        gc.collect()
        return gc.mem_free()

    gc_collect = gc.collect

    def sock_connect(sock, path):
        # The unix port passes the address buffer as a raw struct sockaddr_un.
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


def _hex(b):
    return binascii.hexlify(b).decode()


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
        self.inbuf = bytearray(256)  # preallocated: reading a frame allocates nothing
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
            while n < 256 and _ready(self.poll_in):
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


class ControlChannel:
    """JSON lines over a unix socket to the virtual table."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock_connect(self.sock, path)
        self.sock.setblocking(False)
        self.poll = select.poll()
        self.poll.register(self.sock, select.POLLIN)
        self.buf = b""
        self.chunk = bytearray(256)   # preallocated: the heap is small and fragments

    def lines(self):
        out = []
        chunk = self.chunk
        while _ready(self.poll):
            try:
                n = sock_readinto(self.sock, chunk)
            except OSError:
                break
            if not n:
                raise OSError("control channel closed")
            if len(self.buf) + n > 2048:  # no request is this long: drop the line
                self.buf = b""
                continue
            self.buf += chunk[:n]
        while b"\n" in self.buf:
            i = self.buf.index(b"\n")
            line = self.buf[:i]
            self.buf = self.buf[i + 1:]
            if line:
                out.append(line)
        return out

    def send(self, obj):
        self.write((json.dumps(obj) + "\n").encode())

    def write(self, data):
        self.sock.setblocking(True)
        try:
            sock_write(self.sock, data)
        finally:
            self.sock.setblocking(False)


class SimBoard:
    """The board backend the main loop drives (see firmware/boards/rp2.py for the real one)."""

    has_watchdog = True

    def __init__(self, uid, control_path=None):
        self.uid = uid
        self.port = StdioPort()
        self.spi = SimSPI()
        self.emulators = []
        self.pressed = []
        self.script = []                # [(at_ms, slot, pressed)] for tap/double/hold
        self.frame = b""
        self.frame_crc = None
        self.frame_no = 0
        self.watching = False
        self.wdt_ms = 0
        self.wdt_fed = 0
        self.control = ControlChannel(control_path) if control_path else None

    # -- what firmware/main.py uses ---------------------------------------------------

    ticks_ms = staticmethod(ticks_ms)
    ticks_diff = staticmethod(ticks_diff)
    sleep_ms = staticmethod(sleep_ms)

    def unique_id(self):
        return self.uid

    def boot_id(self):
        return urandom32()

    def heap_free(self):
        return heap_free()

    def readers(self, n):
        out = []
        for _ in range(n):
            emu = Mfrc522Emulator()
            cs = SimPin()
            self.spi.attach(cs, emu)
            self.emulators.append(emu)
            out.append(MFRC522(self.spi, cs))
        self.pressed = [False] * n
        self.chip_us = [0] * n
        return out

    def poll_pause_ms(self, slot, ms):
        """What a real chip would still take for the poll the emulator just answered.

        The emulator keeps a virtual clock of the chip (SPI accesses at a Pico's pace
        plus air time): sleeping off the difference makes a virtual tile as slow as a
        real one, and leaves the CPU to the other tiles of the table.
        """
        emu = self.emulators[slot]
        chip_ms = (emu.now_us - self.chip_us[slot]) // 1000
        self.chip_us[slot] = emu.now_us
        return chip_ms - ms if chip_ms > ms else 0

    def pads(self):
        if self.script:
            now = ticks_ms()
            while self.script and ticks_diff(now, self.script[0][0]) >= 0:
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
            if self.watching:
                self.push_frame()

    def push_frame(self):
        """Send the LED frame to the table, in pieces: as one JSON string it would not fit."""
        c = self.control
        if c is None:
            return
        try:
            c.write(b'{"ev": "leds", "frame": %d, "hex": "' % self.frame_no)
            frame = memoryview(self.frame)
            for i in range(0, len(frame), 48):  # small pieces: the heap fragments
                c.write(binascii.hexlify(frame[i:i + 48]))
            c.write(b'"}\n')
        except MemoryError:
            # The table gets a line it cannot parse and skips it; the next frame comes.
            c.write(b'"}\n')

    def report(self, task, e):
        print("task %s failed:" % task, file=sys.stderr)
        print_exception(e)

    def start_watchdog(self, timeout_ms):
        self.wdt_ms = timeout_ms
        self.wdt_fed = ticks_ms()

    def feed_watchdog(self):
        self.wdt_fed = ticks_ms()

    def reset(self):
        sys.exit(0)  # the virtual table restarts a tile that asked for a reboot

    def service(self, tile, now):
        """Board chores once per link pass: watchdog expiry and control requests."""
        if self.wdt_ms and ticks_diff(now, self.wdt_fed) > self.wdt_ms:
            print("sim watchdog: not fed for %d ms, resetting" % ticks_diff(now, self.wdt_fed),
                  file=sys.stderr)
            sys.exit(3)
        if self.port.closed:
            sys.exit(0)
        if self.control is None:
            return
        try:
            lines = self.control.lines()
        except MemoryError:
            # A request we cannot hold is dropped; the firmware carries on.
            self.control.buf = b""
            return
        except OSError:
            # The virtual table is gone: a tile without its table is unplugged, not orphaned.
            sys.exit(0)
        for line in lines:
            req = None
            try:
                req = json.loads(line)
                reply = self.handle(tile, req)
            except MemoryError:
                reply = {"ok": False, "error": "MemoryError"}
            except Exception as e:  # a bad request must not take the tile down
                reply = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
            if reply is None:       # the handler wrote its own reply
                continue
            if isinstance(req, dict) and "id" in req and "id" not in reply:
                reply["id"] = req["id"]
            try:
                self.control.send(reply)
            except MemoryError:
                gc_collect()
                self.control.write(b'{"ok": false, "error": "MemoryError", "id": %d}\n'
                                   % (req.get("id", 0) if isinstance(req, dict) else 0))

    def wait_for_start(self, tile):
        """Before power-on: the table puts the cards that lie on the tile, then says start."""
        poll = select.poll()
        poll.register(self.control.sock, select.POLLIN)
        while True:
            poll.poll(1000)
            for line in self.control.lines():
                req = json.loads(line)
                if req.get("op") == "start":
                    self.control.send({"ok": True, "id": req.get("id")})
                    return
                reply = self.handle(tile, req)
                reply["id"] = req.get("id")
                self.control.send(reply)

    # -- control operations -----------------------------------------------------------

    def _card(self, req):
        identity = req.get("identity")
        pages = None
        if req.get("pages") is not None:        # what a lifted tag held (lift's reply)
            pages = _unhex(req["pages"])
        elif req.get("identity_hex") is not None:  # binary identities (enrollment's MAC'd ids)
            pages = identity_record(_unhex(req["identity_hex"]))
        elif identity is not None:
            pages = identity_record(identity.encode())
        return NtagCard(_unhex(req["uid"]), pages, read_only=bool(req.get("read_only")))

    def _pad_script(self, slot, presses):
        at = ticks_ms()
        if self.script:
            at = self.script[-1][0]
        for down_ms, up_ms in presses:
            at += up_ms
            self.script.append((at, slot, True))
            at += down_ms
            self.script.append((at, slot, False))

    def handle(self, tile, req):
        op = req["op"]
        if op == "place":
            self.emulators[req["slot"]].place(self._card(req))
        elif op == "lift":
            # The reply says what the tag holds (pages 4..7), so a hand can put it down
            # elsewhere as it is, e.g. after enrollment wrote it.
            uid = _unhex(req["uid"])
            emu = self.emulators[req["slot"]]
            held = None
            for card in emu.cards:
                if card.uid == uid:
                    held = _hex(card.mem[16:32])
            emu.lift(uid)
            return {"ok": True, "pages": held}
        elif op == "clear":
            emu = self.emulators[req["slot"]]
            for card in list(emu.cards):
                emu.lift(card.uid)
        elif op == "die":
            emu = self.emulators[req["pocket"]]
            for card in list(emu.cards):
                emu.lift(card.uid)
            if req.get("uid"):
                emu.place(self._card(req))
        elif op == "press":
            self.pressed[req["slot"]] = bool(req["down"])
        elif op == "tap":
            self._pad_script(req["slot"], ((60, 20),))
        elif op == "double":
            self._pad_script(req["slot"], ((60, 20), (60, 120)))
        elif op == "hold":
            self._pad_script(req["slot"], ((1200, 20),))
        elif op == "leds":
            self.push_frame()   # arrives before the reply, on the same stream
            return {"ok": True, "frame": self.frame_no}
        elif op == "watch":
            self.watching = bool(req.get("on", True))
            if self.watching:
                self.push_frame()
            return {"ok": True, "frame": self.frame_no}
        elif op == "fault":
            # The emulator's fault injections: misread, lift_during, hang.
            kind = req["kind"]
            if kind not in ("misread", "lift_during", "hang"):
                return {"ok": False, "error": "unknown fault %r" % (kind,)}
            getattr(self.emulators[req["slot"]], kind)(**(req.get("args") or {}))
        elif op == "deaf":
            self.port.deaf_until = ticks_ms() + req["ms"]
        elif op == "garbage":
            self.port.write(_unhex(req["hex"]))
        elif op == "stats":
            # Small and built whole (id included): a 64 KB heap has no room for more.
            return {"ok": True, "id": req.get("id"), "heap_free": heap_free(),
                    "loop_max_ms": tile.loop_max_ms, "render_max_ms": tile.render_max_ms,
                    "frames": tile.frames, "idle": tile.idle, "failures": tile.failures}
        elif op == "reported":
            # Written in pieces, like LED frames: nothing big is built in the heap.
            c = self.control
            c.write(b'{"ok": true, "id": %d, "reported": [' % req.get("id", 0))
            for i in range(len(tile.reported)):
                c.write(b"[" if i == 0 else b", [")
                tags = tile.reported[i]
                for k in range(len(tags)):
                    c.write(b'"%s"' % binascii.hexlify(tags[k][0]) if k == 0 else
                            b', "%s"' % binascii.hexlify(tags[k][0]))
                c.write(b"]")
            c.write(b"]}\n")
            return None
        else:
            return {"ok": False, "error": "unknown op %r" % (op,)}
        return {"ok": True}


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
    from firmware.main import Tile

    # UID_HEX CONTROL_PATH VARIANT CELLS INDEX (the virtual table passes all five)
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        import os
        args = os.getenv("FAIRYTABLE_TILE").split()
    uid, control, variant, cells, index = args[:5]
    spec = config.variant(variant, int(cells))
    board = SimBoard(_unhex(uid), control)
    tile = Tile(board, spec)
    if board.control is not None:
        board.control.send({"ev": "ready", "index": int(index),
                            "interpreter": sys.implementation.name, "boot_id": tile.boot_id,
                            "leds_per_cell": spec["segments"] * spec["leds_per_segment"]})
        board.wait_for_start(tile)
    asyncio.run(tile.main())
