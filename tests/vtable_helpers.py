"""Helpers for tests that run the virtual table (or fake tiles) and the host link together."""

import asyncio
import os
import select
import threading
import time
import tty

from shared_rules.led_scene import SOLID, uniform_scene
from shared_rules import wire

# Generous: these bound a hung test, they are not latency assertions.
WAIT_S = 30.0


async def wait_event(link, match, timeout=WAIT_S, seen=None):
    """The first TileEvent for which ``match(ev)`` is true; fails after ``timeout``.
    Every event taken from the queue on the way is appended to ``seen`` if given."""
    deadline = time.monotonic() + timeout
    seen = [] if seen is None else seen
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("no matching event; saw: %r" % seen[-20:])
        try:
            ev = await link.next_event(left)
        except asyncio.TimeoutError:
            continue
        seen.append(ev)
        if match(ev):
            return ev


async def drain(link):
    """Take the queued events (after a phase of a test whose events were checked); returns
    them."""
    events = []
    while not link.queue.empty():
        events.append(link.queue.get_nowait())
    return events


async def wait_for(predicate, timeout=WAIT_S, what="condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s" % what)
        await asyncio.sleep(0.01)


def red_scene():
    return uniform_scene(SOLID, (200, 0, 0))


def lit_red(pixels):
    """True if every LED of a cell shows red only (GRB order: G=0, R>0, B=0)."""
    leds = [pixels[i:i + 3] for i in range(0, len(pixels), 3)]
    return bool(leds) and all(g == 0 and r > 0 and b == 0 for g, r, b in leds)


def dark(pixels):
    return not any(pixels)


class Cable:
    """A USB cable between a tile's port and the host, on real pseudo-terminals.

    The host opens ``port``: a fixed path (a symlink, as /dev/serial/by-id/... is on a
    Pi) to a pty whose other end this cable relays to and from ``tile_port``, byte for
    byte. ``unplug()`` pulls the cable at the host's end: the pty goes away (the host's
    reads and writes fail, the path is gone) while the tile keeps running, as a tile
    powered by the table's supply does; what it sends meanwhile is lost. ``replug()``
    puts a new pty behind the same path.
    """

    def __init__(self, tile_port, directory):
        self.tile_fd = os.open(tile_port, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.tile_fd)
        self.port = os.path.join(str(directory), "ttyACM-tile")
        self.lock = threading.Lock()
        self.master = self.slave = None
        self.stopping = False
        self.replug()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def replug(self):
        with self.lock:
            assert self.master is None, "the cable is plugged in"
            master, slave = os.openpty()
            tty.setraw(master)
            tty.setraw(slave)
            if os.path.lexists(self.port):
                os.unlink(self.port)
            os.symlink(os.ttyname(slave), self.port)
            # The cable holds the host's end open too, so the relay never reads EIO
            # before the host opens it by path.
            self.master, self.slave = master, slave

    def unplug(self):
        with self.lock:
            fds, self.master, self.slave = (self.master, self.slave), None, None
            os.unlink(self.port)
            for fd in fds:
                os.close(fd)

    def _run(self):
        while not self.stopping:
            with self.lock:
                master = self.master
            fds = [self.tile_fd] + ([master] if master is not None else [])
            try:
                r, _, _ = select.select(fds, [], [], 0.01)
                with self.lock:
                    if master is not self.master:
                        continue    # unplugged (or replugged) meanwhile
                    if self.tile_fd in r:
                        data = os.read(self.tile_fd, 4096)
                        if master is not None:
                            self._write(master, data)
                    if master is not None and master in r:
                        self._write(self.tile_fd, os.read(master, 4096))
            except OSError:
                if self.stopping:
                    return
                time.sleep(0.01)

    @staticmethod
    def _write(fd, data):
        while data:
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                time.sleep(0.001)
                continue
            data = data[n:]

    def close(self):
        self.stopping = True
        self.thread.join(5)
        if self.master is not None:
            self.unplug()
        os.close(self.tile_fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FakeTile:
    """A tile played by the test on a real pseudo-terminal, with the real codec.

    For what a real tile cannot be made to do on demand: a cloned unique id,
    another protocol version, a flood, events beyond what its HELLO
    announced, a lost frame. The host opens ``port`` with pyserial as it opens
    /dev/ttyACM0. Like firmware/link.py it answers HELLO_REQUEST with HELLO
    (while ``answer`` is true) and SNAPSHOT_REQUEST with ``snapshot`` (empty),
    acks commands once acted on (``ok``, or the status ``status`` names for
    their type: a tile that refuses), ignores resent duplicates, and sends a
    heartbeat when it has sent nothing for a second (while ``answer`` is
    true: a fake that does not answer is a silent device); it sends nothing
    else unless told.

    A thread reads the pty; ``send`` queues frames the thread writes, so a
    test may flood without blocking the event loop the host runs in.
    """

    def __init__(self, uid_hex, cells=7, readers=None, buttons=None, dice_pockets=0,
                 protocol=1, version=1, answer=True, variant="cell", flags=0):
        self.uid = uid_hex
        self.cells = cells
        self.readers = cells if readers is None else readers
        self.buttons = self.readers if buttons is None else buttons
        self.dice_pockets = dice_pockets
        self.protocol = protocol     # announced in HELLO
        self.version = version       # in every frame's header
        self.answer = answer
        self.variant = variant
        self.flags = flags           # HELLO capability bits (wire.CAP_*)
        self.status = {}             # message type name -> the ACK status to answer it with
        self.boot_id = 0x1000 + int(uid_hex[-4:], 16)
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.decoder = wire.Decoder()
        self.seq = 0
        self.lock = threading.Lock()
        self.outbuf = bytearray()
        self.raw = bytearray()      # every byte the host sent
        self.received = []          # the host's messages, parsed, in order
        self.acks = {}              # seq of a frame we sent -> status name the host acked
        self.scene = {}             # cell -> scene bytes, applied in arrival order
        self.scene_log = []         # (seq, {cell: scene}) of each LED_SCENE acted on
        self.lose_scenes = 0        # drop the next N LED_SCENE frames unread (a noisy line)
        self.snapshot = ([], [])    # (slots, pockets) its SNAPSHOT answers with
        self.seen = []
        self.last_tx = time.monotonic()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    # ------------------------------------------------------------ sending

    def send(self, msg_type, payload, version=None, seq=None):
        """Queue one frame; returns its seq."""
        with self.lock:
            if seq is None:
                self.seq = (self.seq + 1) & 0xFFFF
                seq = self.seq
            self.outbuf += wire.encode_frame(msg_type, seq, payload,
                                             version=self.version if version is None
                                             else version)
        return seq

    def send_raw(self, data):
        with self.lock:
            self.outbuf += data

    def hello(self):
        return self.send(wire.HELLO, wire.hello(
            bytes.fromhex(self.uid), (0, 1, 0), self.boot_id, self.cells, 4, 6, self.readers,
            self.buttons, self.dice_pockets, self.flags, self.variant, protocol=self.protocol))

    def reboot_as(self, uid_hex):
        """Come back as another tile (another board behind the same port)."""
        self.uid = uid_hex
        self.boot_id += 1
        self.scene = {}
        self.seen = []
        return self.hello()

    def tag(self, slot, uids, seq=None):
        return self.send(wire.TAG, wire.tag(slot, [(bytes.fromhex(u), None) for u in uids]),
                         seq=seq)

    def gesture(self, slot, kind=wire.TAP, seq=None):
        return self.send(wire.GESTURE, wire.gesture(slot, kind), seq=seq)

    def count(self, name):
        """How many messages of this type (a wire.TYPE_NAMES name) the host sent us."""
        return sum(1 for m in list(self.received) if m["type"] == name)

    def drained(self):
        with self.lock:
            return not self.outbuf

    # ------------------------------------------------------------ the pty

    def _run(self):
        while not self.stopping:
            with self.lock:
                want_write = bool(self.outbuf)
                beat = self.answer and time.monotonic() - self.last_tx >= 1.0
            if beat and not want_write:
                self.send(wire.HEARTBEAT, wire.heartbeat(1000))
                want_write = True
            try:
                r, w, _ = select.select([self.master], [self.master] if want_write else [],
                                        [], 0.01)
                if r:
                    data = os.read(self.master, 4096)
                    self.raw += data
                    for frame in self.decoder.feed(data):
                        self._on_frame(frame)
                if w:
                    with self.lock:
                        n = os.write(self.master, self.outbuf[:4096])
                        del self.outbuf[:n]
                        self.last_tx = time.monotonic()
            except OSError:
                if self.stopping:
                    return
                time.sleep(0.01)

    def _ack(self, seq, status=wire.ACK_OK):
        self.send(wire.ACK, wire.ack(seq, status), version=wire.PROTOCOL_VERSION)

    def _on_frame(self, frame):
        if frame.type == wire.LED_SCENE and self.lose_scenes > 0:
            self.lose_scenes -= 1
            return
        try:
            msg = wire.parse(frame)
        except wire.WireError:
            return
        self.received.append(msg)
        t = frame.type
        if t == wire.ACK:
            self.acks[msg["ack"]] = msg["status"]
        elif t == wire.HELLO_REQUEST:
            if self.answer:
                self.hello()
        elif t == wire.SNAPSHOT_REQUEST:
            if self.answer:
                self.send(wire.SNAPSHOT, wire.snapshot(1000, *self.snapshot))
        elif t in wire.ACKED:
            if frame.seq not in self.seen:
                self.seen = self.seen[-15:] + [frame.seq]
                if t == wire.LED_SCENE:
                    cells = {c["cell"]: c["scene"] for c in msg["cells"]}
                    self.scene.update(cells)
                    self.scene_log.append((frame.seq, cells))
            self._ack(frame.seq, self.status.get(msg["type"], wire.ACK_OK))

    def close(self):
        """Pull the cable: the port goes away."""
        self.stopping = True
        self.thread.join(5)
        fds, self.master, self.slave = (self.master, self.slave), None, None
        for fd in fds:
            if fd is not None:
                os.close(fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
