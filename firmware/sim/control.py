"""The virtual table's hands and eyes on a sim tile: the control channel.

Not part of a tile: a real tile has no such channel. Cards placed and lifted, dice set in
pockets, pads pressed, LED frames read, faults injected: JSON lines over a unix socket to
the virtual table (host/virtual/table.py lists the operations). Like the emulated chips
and the tags in their fields (firmware/sim/mfrc522_emu.py), it lives in the tile process
but not in the 64 KB a tile's firmware has: host/virtual/image.py measures what it takes and
adds it to the process heap.
"""

import binascii
import json
import select
import socket
import sys

from firmware.boards.sim import (_ready, gc_collect, heap_free, sock_connect, sock_readinto,
                                 sock_write, ticks_add, ticks_ms, wall_ns)
from shared_rules.tag_identity import record as identity_record
from firmware.sim.mfrc522_emu import NtagCard, free_card


def _readers_of(tile, slot):
    """The emulated readers under slot ``slot``: its own, then a crowded cell's extra ones
    (the tile's spec, firmware/config.py)."""
    m = tile.spec.get("slots")
    if not m:
        return (slot,)
    out = [slot]
    for r in range(len(m)):
        if m[r] == slot and r != slot:
            out.append(r)
    return out


def _unhex(s):
    return binascii.unhexlify(s)


class ControlChannel:
    """JSON lines over a unix socket to the virtual table, and the operations they ask for."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if path is not None:    # None: its objects only (host/virtual/image.py measures them)
            sock_connect(self.sock, path)
        self.sock.setblocking(False)
        self.poll = select.poll()
        self.poll.register(self.sock, select.POLLIN)
        self.buf = b""
        self.chunk = bytearray(256)   # preallocated: the heap is small and fragments
        self.tag_pool = []            # the board's spare tags (firmware/boards/sim.py _main)
        self.watching = False         # "watch": each new LED frame pushed as it is shown

    # -- the channel --------------------------------------------------------------------

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

    # -- serving requests ---------------------------------------------------------------

    def service(self, board, tile):
        """Answer the requests that arrived (once per link pass of the tile)."""
        try:
            lines = self.lines()
        except MemoryError:
            # A request we cannot hold is dropped; the firmware carries on.
            self.buf = b""
            return
        except OSError:
            # The virtual table is gone: a tile without its table is unplugged, not orphaned.
            sys.exit(0)
        for line in lines:
            req = None
            try:
                req = json.loads(line)
                reply = self.handle(board, tile, req)
            except MemoryError:
                reply = {"ok": False, "error": "MemoryError"}
            except Exception as e:  # a bad request must not take the tile down
                reply = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
            if reply is None:       # the handler wrote its own reply
                continue
            if isinstance(req, dict) and "id" in req and "id" not in reply:
                reply["id"] = req["id"]
            try:
                self.send(reply)
            except MemoryError:
                gc_collect()
                self.write(b'{"ok": false, "error": "MemoryError", "id": %d}\n'
                           % (req.get("id", 0) if isinstance(req, dict) else 0))

    def wait_for_start(self, board, tile):
        """Before power-on: the table puts the cards that lie on the tile, then says start."""
        poll = select.poll()
        poll.register(self.sock, select.POLLIN)
        while True:
            poll.poll(1000)
            for line in self.lines():
                req = json.loads(line)
                if req.get("op") == "start":
                    self.send({"ok": True, "id": req.get("id")})
                    return
                reply = self.handle(board, tile, req)
                reply["id"] = req.get("id")
                self.send(reply)

    def push_frame(self, board):
        """Send the LED frame to the table, in pieces: as one JSON string it would not fit."""
        try:
            # Stamped when shown, on the host's clock too (benchmarks: tools/bench_lit.py).
            self.write(b'{"ev": "leds", "frame": %d, "at_ns": %d, "hex": "' % (
                board.frame_no, wall_ns()))
            frame = memoryview(board.frame)
            for i in range(0, len(frame), 48):  # small pieces: the heap fragments
                self.write(binascii.hexlify(frame[i:i + 48]))
            self.write(b'"}\n')
        except MemoryError:
            # The table gets a line it cannot parse and skips it; the next frame comes.
            self.write(b'"}\n')

    # -- the operations -----------------------------------------------------------------

    def _card(self, board, req):
        """The tag a request describes: a spare of the board's pool loaded with it (no big
        allocation), or a new card when every spare lies in a field."""
        identity = req.get("identity")
        pages = None
        if req.get("pages") is not None:        # what a lifted tag held (lift's reply)
            pages = _unhex(req["pages"])
        elif req.get("identity_hex") is not None:  # binary identities (enrollment's MAC'd ids)
            pages = identity_record(_unhex(req["identity_hex"]))
        elif identity is not None:
            pages = identity_record(identity.encode())
        uid = _unhex(req["uid"])
        read_only = bool(req.get("read_only"))
        card = free_card(self.tag_pool, board.emulators)
        if card is None:
            return NtagCard(uid, pages, read_only=read_only)
        card.load(uid, pages, read_only)
        return card

    def _pad(self, board, slot):
        pressed = board.pressed
        if not isinstance(slot, int) or not 0 <= slot < len(pressed):
            raise ValueError("no pad %r: this tile has %d (0..%d)" % (
                slot, len(pressed), len(pressed) - 1))
        return slot

    def _pad_script(self, board, slot, presses):
        self._pad(board, slot)
        script = board.script
        at = board.pad_now      # the pads' clock (SimBoard.pad_ms), not the wall's
        if script:
            # Asked while a gesture is still under way: the finger comes off the pad first,
            # for longer than the double-tap window, so a hold after a hold is a second hold
            # (not one long press through a 20 ms gap the debounce smooths over) and a tap
            # after a tap is two taps.
            at = ticks_add(script[-1][0], 400)
        for down_ms, up_ms in presses:
            at = ticks_add(at, up_ms)
            script.append((at, slot, True))
            at = ticks_add(at, down_ms)
            script.append((at, slot, False))

    def handle(self, board, tile, req):
        op = req["op"]
        emulators = board.emulators
        if op == "place":
            # A tag is one thing: put down where it lies already, it is the same tag
            # (its memory as asked), not a second one with its UID. Copies that no
            # reader can tell apart would pile up in the field as the hands put a card
            # "back" again and again, and a lift would leave the others lying there.
            # A crowded cell (several readers, one slot): the tag goes over the reader
            # "reader" (0 = the cell's own, then its extra ones), else over the one with
            # the fewest tags, as players fill the Inn's token spots; "readers" (a list)
            # puts it across several loops at once (a token on a border).
            uid = _unhex(req["uid"])
            group = _readers_of(tile, req["slot"])
            for r in group:
                emulators[r].lift(uid)
            where = req.get("readers")
            if where is None:
                k = req.get("reader")
                if k is None:
                    k = 0
                    for j in range(len(group)):
                        if len(emulators[group[j]].cards) < len(emulators[group[k]].cards):
                            k = j
                where = (k,)
            for k in where:
                emulators[group[k]].place(self._card(board, req))
            # When the tag entered the field, on the host's clock too (benchmarks).
            return {"ok": True, "at_ns": wall_ns()}
        elif op == "lift":
            # The reply says what the tag holds (pages 4..7), so a hand can put it down
            # elsewhere as it is, e.g. after enrollment wrote it.
            uid = _unhex(req["uid"])
            held = None
            for r in _readers_of(tile, req["slot"]):
                emu = emulators[r]
                for card in emu.cards:
                    if card.uid == uid:
                        held = binascii.hexlify(card.mem[16:32]).decode()
                emu.lift(uid)
            return {"ok": True, "pages": held}
        elif op == "clear":
            for r in _readers_of(tile, req["slot"]):
                emu = emulators[r]
                for card in list(emu.cards):
                    emu.lift(card.uid)
        elif op == "die":
            emu = emulators[req["pocket"]]
            for card in list(emu.cards):
                emu.lift(card.uid)
            if req.get("uid"):
                emu.place(self._card(board, req))
        elif op == "press":
            board.pressed[self._pad(board, req["slot"])] = bool(req["down"])
        elif op == "tap":
            self._pad_script(board, req["slot"], ((60, 20),))
        elif op == "double":
            self._pad_script(board, req["slot"], ((60, 20), (60, 120)))
        elif op == "hold":
            self._pad_script(board, req["slot"], ((1200, 20),))
        elif op == "leds":
            self.push_frame(board)   # arrives before the reply, on the same stream
            return {"ok": True, "frame": board.frame_no}
        elif op == "watch":
            self.watching = bool(req.get("on", True))
            if self.watching:
                self.push_frame(board)
            return {"ok": True, "frame": board.frame_no}
        elif op == "fault":
            # The emulator's fault injections: misread, lift_during, hang.
            kind = req["kind"]
            if kind not in ("misread", "lift_during", "hang"):
                return {"ok": False, "error": "unknown fault %r" % (kind,)}
            getattr(emulators[req["slot"]], kind)(**(req.get("args") or {}))
        elif op == "deaf":
            board.port.deaf_until = ticks_add(ticks_ms(), req["ms"])
        elif op == "garbage":
            board.port.write(_unhex(req["hex"]))
        elif op == "stats":
            # Small and built whole (id included): a 64 KB heap has no room for more.
            return {"ok": True, "id": req.get("id"), "heap_free": heap_free(),
                    "loop_max_ms": tile.loop_max_ms, "render_max_ms": tile.render_max_ms,
                    "frames": tile.frames, "idle": tile.idle, "failures": tile.failures,
                    "rounds": tile.rounds, "phases": tile.phases}
        elif op == "reported":
            # Written in pieces, like LED frames: nothing big is built in the heap.
            self.write(b'{"ok": true, "id": %d, "reported": [' % req.get("id", 0))
            # A slot each: a crowded cell's readers' tags together, each once.
            for i in range(tile.spec["cells"]):
                self.write(b"[" if i == 0 else b", [")
                first = True
                group = _readers_of(tile, i)
                for g in range(len(group)):
                    for uid in tile.reported[group[g]]:
                        dup = False
                        for h in range(g):
                            dup = dup or uid in tile.reported[group[h]]
                        if not dup:
                            self.write(b'"%s"' % binascii.hexlify(uid) if first else
                                       b', "%s"' % binascii.hexlify(uid))
                            first = False
                self.write(b"]")
            self.write(b"]}\n")
            return None
        else:
            return {"ok": False, "error": "unknown op %r" % (op,)}
        return {"ok": True}
