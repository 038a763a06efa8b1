"""The link's top layer: tiles by unique id, their events and what the host set on them.

TableLink binds each HELLO to a TileState (a new tile, a reboot, a reconnect,
a clone refused), tells the table layer what its tiles report (TileEvent),
and keeps what the host set on a tile (LED scenes, field neighbours) to send
it again each time the tile comes online. It owns one PortSession
(protocol.py) and one PortTransport (transport.py) per port, and drives them
on its clock. See the package docstring (host/link/__init__.py) for how the
table layer uses it.
"""

import asyncio
import binascii
import logging

from shared_rules import wire

from .protocol import Budget, LineCounters, LinkError, PortSession
from .timings import LinkTimings, real_clock
from .transport import PortTransport, SerialDevice

log = logging.getLogger("fairytable.link")

# USB ids of MicroPython's CDC serial device on a Raspberry Pi Pico (rp2 port defaults,
# MICROPY_HW_USB_VID/PID): what a tile shows. Other 0x2E8A products (a debug probe, the
# boot ROM, another firmware) are left alone.
PICO_VID = 0x2E8A
PICO_MICROPYTHON_PID = 0x0005


class TileEvent:
    """Something a tile reported, or a change in its connection.

    kind: "online", "offline", "tags", "gesture", "dice", "health", "log",
    "problem". tile: the tile's unique id (hex; None for a port no tile is
    known on). Fields present per kind: tags -> slot, tags (tuple of (uid hex,
    identity bytes or None), sorted by uid); gesture -> slot, gesture ("tap",
    "double", "hold"); dice -> pocket, die ((uid hex, identity) or None);
    online -> detail ("new", "reboot", "reconnect"); offline/log -> detail (a
    sentence); problem -> code, port and detail, a sentence for the operator
    saying what to do. Problem codes: "clone" (one unique id answers on two
    ports), "incompatible" (a tile of another protocol version), "not_a_tile"
    (a discovered port that does not answer as a tile), "flooding" (a tile
    sends more events than a table can make; the excess is dropped).
    """

    __slots__ = ("kind", "tile", "slot", "tags", "gesture", "pocket", "die", "detail", "code",
                 "port", "at")

    def __init__(self, kind, tile, slot=None, tags=None, gesture=None, pocket=None, die=None,
                 detail=None, code=None, port=None, at=None):
        self.kind = kind
        self.tile = tile
        self.slot = slot
        self.tags = tags
        self.gesture = gesture
        self.pocket = pocket
        self.die = die
        self.detail = detail
        self.code = code
        self.port = port
        self.at = at            # the link's clock when the event was queued

    def __repr__(self):
        fields = [self.kind, self.tile]
        for name in ("slot", "tags", "gesture", "pocket", "die", "code", "port", "detail"):
            v = getattr(self, name)
            if v is not None:
                fields.append("%s=%r" % (name, v))
        return "TileEvent(%s)" % " ".join(str(f) for f in fields)


def _write_reason(words):
    """A tile's WRITE_RESULT words (its driver's, kept short for its heap) as a phrase for
    people (hardware/protocol.md, "Enrollment from a tile's reader")."""
    if words in ("written", "no such slot", "reader failed"):
        return words
    if words == "no answer":
        return "tag not in field"
    if words.startswith("NAK"):
        return "read-only tag: " + words
    return "write failed: " + words


class WriteResult:
    """How an identity write through a tile's reader ended (WRITE_RESULT).

    ok: the record was written and read back. reason: "written", "no such
    slot", "reader failed", "tag not in field", "read-only tag: ..." or
    "write failed: ..."; tile_reason: the tile's own words.
    read_only: the tag refused the write (enroll it by UID instead).
    """

    __slots__ = ("tile", "slot", "uid", "ok", "reason", "tile_reason")

    def __init__(self, tile, slot, uid, ok, tile_reason):
        self.tile = tile
        self.slot = slot
        self.uid = uid
        self.ok = ok
        self.tile_reason = tile_reason
        self.reason = "written" if ok else _write_reason(tile_reason)

    @property
    def read_only(self):
        return self.reason.startswith("read-only tag")

    def __repr__(self):
        return "WriteResult(%s slot %d tag %s: %s)" % (self.tile, self.slot, self.uid,
                                                      self.reason)


class TileState:
    """What the host knows about one tile, kept across reconnects and reboots.

    ``health`` (a dict, read only) joins three sets of figures, each written by
    one owner. What the tile said of itself (``reported``, kept by the table
    link): firmware, uptime_ms, readers (the tile's HEALTH: ok, errors,
    reinits per reader), heap_free, loop_max_ms, tile_rx_crc_errors,
    tile_resends. The line's counts over all its ports (``line``, a
    LineCounters written by the port sessions): crc_errors and garbage_bytes
    (damaged frames from it), resends (commands the host sent again),
    protocol_errors (frames dropped as malformed or beyond what its HELLO
    announced), host_errors (frames the host failed to handle: a host bug),
    mended (frames mended from damaged copies, host/link/mending.py).
    The table link's counts (``counts``): reboots, reconnects, conflicts
    (times its unique id answered on a second port), flood_drops (gestures
    and log lines dropped while it flooded), coalesced (tag, dice and health
    reports merged into a later one while it flooded), errors_logged (LOG
    lines of level error: a task of the tile failed, e.g. ran out of memory),
    resync_changes (slots a snapshot asked by ``resync`` corrected).
    """

    def __init__(self, uid):
        self.uid = uid
        self.online = False
        self.session = None     # the PortSession it talks through now
        self.port = None
        self.hello = None
        self.slots = {}         # slot -> tuple of (uid hex, identity)
        self.pockets = {}       # pocket -> (uid hex, identity) or None
        self.scene = {}         # cell -> 24 scene bytes: what the host wants lit
        self.reported = {"firmware": None, "uptime_ms": 0, "readers": [],
                         "tile_rx_crc_errors": 0, "tile_resends": 0, "heap_free": None,
                         "loop_max_ms": None}
        self.line = LineCounters()
        self.counts = {"reboots": 0, "reconnects": 0, "conflicts": 0, "flood_drops": 0,
                       "coalesced": 0, "errors_logged": 0,
                       "resync_changes": 0}
        # Flood control: what the table layer was last told per slot/pocket/health, what
        # changed since without being told (told when the budget allows), and the budgets.
        self.told = {}
        self.untold = set()
        self.budgets = None
        self.flooding = False

    @property
    def health(self):
        health = dict(self.reported)
        health.update(self.line.as_dict())
        health.update(self.counts)
        return health

    @property
    def cells(self):
        return self.hello["cells"] if self.hello else 0

    def __repr__(self):
        return "TileState(%s %s %s)" % (self.uid, "online" if self.online else "offline",
                                        self.port)


def _tags(tags):
    return tuple(sorted((binascii.hexlify(t["uid"]).decode(), t["identity"]) for t in tags))


def _die(die):
    return None if die is None else (binascii.hexlify(die["uid"]).decode(), die["identity"])


class TableLink:
    """All tile links of a table. See host/link/__init__.py.

    Besides ``tiles``, what the link knows about ports it cannot use:
    ``incompatible`` (port -> {"uid", "protocol"}: a tile of another protocol
    version), ``conflicts`` (port -> {"uid", "owner"}: a tile whose unique id
    is online on port ``owner``), ``silent_ports`` (discovered ports where no
    tile has answered).

    Flood control, per tile (tunables): a tile may send ``gesture_burst``
    gestures at once and ``gesture_rate`` a second after that, ``log_burst`` /
    ``log_rate`` log lines; beyond that they are dropped (counted in
    ``flood_drops``). Tag, dice and health reports carry full state, so beyond
    ``state_burst`` / ``state_rate`` they are merged: the table layer gets the
    latest state of each slot when the budget allows.
    """

    gesture_rate = 20.0     # a hand taps a few times a second; 8 cells of pads, both hands
    gesture_burst = 40
    log_rate = 5.0
    log_burst = 20
    state_rate = 200.0      # tag, dice and health reports a second (far above hands and
    state_burst = 400       # benches: tools/bench.py places and lifts back to back), after a
                            # burst that holds snapshots and a hand sweeping cards

    def __init__(self, ports=(), discover=False, timings=None, rescan_s=2.0, clock=real_clock,
                 open_device=SerialDevice):
        """``clock``: monotonic seconds (a test may pass a clock it advances by hand, and
        call ``poll()`` itself instead of ``start()``); ``open_device``: how a port is
        opened (transport.py; a fake device in a test)."""
        self.ports = list(ports)
        self.discover = discover
        self.timings = timings or LinkTimings()
        self.rescan_s = rescan_s
        self.clock = clock
        self.open_device = open_device
        self.tiles = {}         # unique id hex -> TileState
        self.sessions = {}      # port path -> PortSession
        self.transports = {}    # port path -> PortTransport
        self.incompatible = {}  # port path -> {"uid", "protocol"}
        self.neighbours = {}    # unique id hex -> the readers' neighbour masks (layout)
        self.queue = asyncio.Queue()
        self._tasks = []

    # ------------------------------------------------------------ life cycle

    def open(self):
        """Take the configured ports in hand (they open at the next ``poll``)."""
        for path in self.ports:
            if path not in self.sessions:
                self._start_session(path, configured=True)

    async def start(self):
        """Open the ports and keep them on the running loop until ``stop``."""
        self.open()
        self._tasks.append(asyncio.create_task(self._drive()))
        if self.discover:
            self._tasks.append(asyncio.create_task(self._scan()))

    async def stop(self):
        tasks, self._tasks = self._tasks, []
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for path in list(self.sessions):
            self._end_session(path)

    def poll(self):
        """Move every port on to the clock's now: open, reopen, resend, beat, time out;
        then tell what flood control held back. ``start`` calls it every ``tick_s``."""
        now = self.clock()
        for path, transport in list(self.transports.items()):
            try:
                transport.poll(now)
            except Exception:  # a bug on our side must not stop the other tiles
                log.exception("%s: session failed", path)
                transport.hang_up("the session failed")
        for tile in self.tiles.values():
            if tile.budgets is not None:
                self._release_untold(tile, now)

    async def _drive(self):
        while True:
            self.poll()
            await asyncio.sleep(self.timings.tick_s)

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc):
        await self.stop()

    def add_port(self, path):
        """Talk to one more port (no-op if already open); it is asked for HELLO as a
        configured port is, however long nothing answers."""
        if path not in self.sessions:
            self._start_session(path, configured=True)

    def _start_session(self, path, configured):
        session = PortSession(self, path, self.timings, self.clock, configured=configured)
        transport = PortTransport(path, session, self.timings, self.clock, self.open_device)
        session.attach(transport)
        self.sessions[path] = session
        self.transports[path] = transport

    def _end_session(self, path):
        session = self.sessions.pop(path)
        session.stop()
        self.transports.pop(path).stop()

    @staticmethod
    def is_tile_port(port):
        """A serial port (serial.tools.list_ports entry) that looks like a tile: a Pico
        running MicroPython."""
        return port.vid == PICO_VID and port.pid == PICO_MICROPYTHON_PID

    async def _scan(self):
        from serial.tools import list_ports
        while True:
            try:
                present = set()
                for p in list_ports.comports():
                    if self.is_tile_port(p):
                        present.add(p.device)
                        if p.device not in self.sessions:
                            self._start_session(p.device, configured=False)
                for path, s in list(self.sessions.items()):
                    if path not in present and path not in self.ports and not s.configured:
                        self._end_session(path)
            except Exception:
                log.exception("port scan failed")
            await asyncio.sleep(self.rescan_s)

    @property
    def conflicts(self):
        """Open ports whose tile has the unique id of a tile online on another port."""
        return {path: dict(s.conflict) for path, s in sorted(self.sessions.items())
                if s.conflict is not None and s.is_open}

    def delivery_s(self):
        """How long a tile's event is expected to take to arrive whole on the noisiest
        line of an online tile (0 when every line is clean): whoever waits for the table
        to show something waits this much longer, several times over."""
        return max([s.delivery_s() for s in self.sessions.values() if s.online] or [0.0])

    def noisy_ports(self, within_s=5.0):
        """Ports with no tile online where bytes arrived in the last ``within_s`` seconds:
        on a noisy line, a tile whose HELLO has not got through yet."""
        now = self.clock()
        return sorted(path for path, s in self.sessions.items()
                      if not s.online and s.last_bytes is not None
                      and now - s.last_bytes < within_s)

    @property
    def silent_ports(self):
        """Discovered ports where no tile has answered (after the probe window)."""
        return sorted(path for path, s in self.sessions.items()
                      if s.silent_said and not s.answered)

    # ------------------------------------------------------------ the table layer's API

    async def next_event(self, timeout=None):
        """The next TileEvent; asyncio.TimeoutError after ``timeout`` seconds."""
        if timeout is None:
            return await self.queue.get()
        return await asyncio.wait_for(self.queue.get(), timeout)

    async def events(self):
        """Async iterator over TileEvents, forever."""
        while True:
            yield await self.queue.get()

    def set_scene(self, tile_uid, cells):
        """Light cells of a tile: ``cells`` is a list of (cell, scene) pairs.

        A scene is the 24 bytes shared_rules/led_scene.py defines (4 edge segments
        N, E, S, W of 6 bytes: effect, r, g, b, a, b); build it with
        ``led_scene.cell_scene``/``segment``/``uniform_scene``. The
        scene is remembered: sent now if the tile is online, resent until
        acknowledged while it is, and sent again each time it comes online (a
        reconnect, with or without a reboot). Returns
        the frame's sequence number, or None if the tile is offline (it
        gets the scene when it comes back). The frame also carries the
        current scene of every cell of the tile still waiting for an ack:
        it replaces them, so a late resend never brings back an older scene.
        Raises ValueError for an unknown tile, a cell the tile does not
        have, or a malformed scene.
        """
        tile = self.tiles.get(tile_uid)
        if tile is None:
            raise ValueError("no tile %s has said hello" % tile_uid)
        entries = []
        for cell, scene in cells:
            if len(scene) != wire.SCENE_BYTES:
                raise ValueError("cell %r scene is %d bytes, not %d"
                                 % (cell, len(scene), wire.SCENE_BYTES))
            if not 0 <= cell < tile.cells:
                raise ValueError("tile %s has %d cells; there is no cell %r"
                                 % (tile_uid, tile.cells, cell))
            entries.append((cell, bytes(scene)))
        for cell, scene in entries:
            tile.scene[cell] = scene
        if tile.online and tile.session is not None:
            return self._send_scene(tile, tile.session, [e[0] for e in entries])
        return None

    def set_field_neighbours(self, tile_uid, masks):
        """Tell a tile which of its readers are neighbours on the table: ``masks[i]`` is
        the bit mask of the slots whose cells border slot i's (``TileSlots.
        field_neighbours()`` in host/table/layout.py). Their fields never go on together;
        without this a tile takes its slots for a row. Remembered: sent now if the tile
        is online and again each time it comes online (a reconnect, with or without a
        reboot), to tiles that announce
        CAP_FIELD_NEIGHBOURS; slots the tile has beyond the masks border nothing. Returns
        the frame's sequence number, or None if it was not sent now. Raises ValueError
        for masks that are not a symmetric neighbour relation of up to 8 slots.
        """
        masks = [int(m) for m in masks]
        n = len(masks)
        if n > 8:
            raise ValueError("a tile has at most 8 readers, not %d" % n)
        for i in range(n):
            if not 0 <= masks[i] < 1 << n:
                raise ValueError("slot %d's neighbours %r name a slot beyond %d"
                                 % (i, masks[i], n - 1))
            if masks[i] >> i & 1:
                raise ValueError("slot %d cannot be its own neighbour" % i)
            for j in range(n):
                if (masks[i] >> j & 1) != (masks[j] >> i & 1):
                    raise ValueError("slot %d borders slot %d but not the other way round"
                                     % (i, j))
        self.neighbours[tile_uid] = masks
        tile = self.tiles.get(tile_uid)
        if tile is not None and tile.online and tile.session is not None:
            return self._send_neighbours(tile, tile.session)
        return None

    def _send_neighbours(self, tile, session):
        """Send the tile its readers' neighbours, if the layout gave them and it can use
        them: the frame's seq, or None."""
        masks = self.neighbours.get(tile.uid)
        hello = tile.hello
        if masks is None or hello is None or not hello["flags"] & wire.CAP_FIELD_NEIGHBOURS:
            return None
        readers = hello["readers"]
        if len(masks) > readers:
            log.warning("tile %s has %d readers; its layout names %d cells: its readers keep "
                        "their own field schedule", tile.uid, readers, len(masks))
            return None
        masks = masks + [0] * (readers - len(masks))
        return session.send(wire.FIELD_NEIGHBOURS, wire.field_neighbours(masks),
                            key=("neighbours",))

    def set_brightness(self, tile_uid, level):
        tile = self.tiles[tile_uid]
        if tile.online and tile.session is not None:
            return tile.session.send(wire.LED_BRIGHTNESS, wire.led_brightness(level),
                                     key=("brightness",))
        return None

    async def write_identity(self, tile_uid, slot, uid, record, timeout=5.0):
        """Write an identity record into tag ``uid`` (bytes) on reader ``slot`` of a tile.

        ``record`` is the 16 bytes of NTAG pages 4..7 (``record()`` in
        shared_rules/tag_identity.py). Returns a WriteResult once the tile has written
        and read back the pages, or says why it could not (``ok`` False). Raises
        ValueError, before sending anything, for an unknown tile, a slot the tile does
        not have or a malformed uid or record; LinkError if the tile is offline, cannot
        write identities (no CAP_WRITE_IDENTITY in its HELLO), refuses the command,
        reboots or falls silent, or gives no result within ``timeout`` seconds.
        """
        tile = self.tiles.get(tile_uid)
        if tile is None or tile.hello is None:
            raise ValueError("no tile %s has said hello" % tile_uid)
        if not 0 <= slot < tile.hello["readers"]:
            raise ValueError("tile %s has %d readers; there is no slot %r"
                             % (tile_uid, tile.hello["readers"], slot))
        uid = bytes(uid)
        record = bytes(record)
        if len(uid) not in (4, 7, 10):
            raise ValueError("a tag uid is 4, 7 or 10 bytes (ISO/IEC 14443-3 type A); "
                             "uid of %d bytes: %s" % (len(uid), uid.hex()))
        if len(record) != 16:
            raise ValueError("an identity record is 16 bytes (NTAG pages 4..7); record is "
                             "%d bytes, not 16" % len(record))
        payload = wire.write_identity(slot, uid, record)
        if not tile.hello["flags"] & wire.CAP_WRITE_IDENTITY:
            raise LinkError("tile %s (firmware %s) cannot write tag identities: update its "
                            "firmware, or enroll with the Pi's reader"
                            % (tile_uid, tile.health["firmware"]))
        session = tile.session
        if not tile.online or session is None or not session.is_open:
            raise LinkError("tile %s is offline; check its cable (fairytable doctor)"
                            % tile_uid)
        seq, fut = session.command(wire.WRITE_IDENTITY, payload, asyncio.get_running_loop())
        try:
            msg = await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            raise LinkError("tile %s gave no result for the write to slot %d within %.1f s"
                            % (tile_uid, slot, timeout)) from None
        finally:
            session.withdraw(seq)       # given up on, or answered: stop resending it
        return WriteResult(tile_uid, msg["slot"], binascii.hexlify(msg["uid"]).decode(),
                           msg["ok"], msg["reason"])

    def resync(self):
        """Ask every online tile for its snapshot again: what the host believes lies on a
        slot is checked against the tile (a report lost on the way is corrected, and
        counted in the tile's health as resync_changes)."""
        for uid in sorted(self.tiles):
            tile = self.tiles[uid]
            if tile.online and tile.session is not None:
                tile.session.resync()

    def pending_commands(self, tile_uid):
        """Sequence numbers of commands sent to a tile and not yet acknowledged."""
        tile = self.tiles.get(tile_uid)
        if tile is None or tile.session is None:
            return []
        return tile.session.unacked()

    # ------------------------------------------------------------ called by port sessions
    # The TileRegistry interface (protocol.py): a session tells the link about its tile.

    def _emit(self, ev):
        ev.at = self.clock()
        self.queue.put_nowait(ev)

    def _problem(self, code, tile_uid, port, sentence):
        log.warning("%s", sentence)
        self._emit(TileEvent("problem", tile_uid, code=code, port=port, detail=sentence))

    def tile_hello(self, session, msg, uid, now):
        """A HELLO of protocol ``wire.PROTOCOL_VERSION`` on ``session``: None if that tile
        is online on another port (a clone, refused), else (the tile's LineCounters, True
        if it came online now: what the host set on it is to be sent again)."""
        tile = self.tiles.get(uid)
        if (tile is not None and tile.online and tile.session is session and tile.hello
                and tile.hello["boot_id"] == msg["boot_id"]):
            return tile.line, False  # the same boot answering again (its boot HELLO, then ours)
        owner = tile.session if tile is not None else None
        if owner is not None and owner is not session:
            if tile.online and owner.holds_tile(now):
                if session.refuse_clone(uid, owner.path):
                    tile.counts["conflicts"] += 1
                    self._problem("clone", uid, session.path,
                                  "tile %s answers on both %s and %s: unplug one (two tiles "
                                  "with the same firmware id? a cloned board?); the host keeps "
                                  "using %s" % (uid, owner.path, session.path, owner.path))
                return None
            # Its old port closed or fell silent: the tile moved (or was re-plugged).
            log.info("tile %s moved from %s to %s", uid, owner.path, session.path)
            if owner.uid == uid:
                owner.forget_tile("it moved to port %s" % session.path)
        detail = "reconnect"
        if tile is None:
            tile = self.tiles[uid] = TileState(uid)
            detail = "new"
        elif tile.hello is not None and tile.hello["boot_id"] != msg["boot_id"]:
            detail = "reboot"
            tile.counts["reboots"] += 1
        if detail != "new":
            tile.counts["reconnects"] += 1
        tile.hello = msg
        tile.session = session
        tile.port = session.path
        tile.online = True
        tile.reported["firmware"] = "%d.%d.%d" % msg["firmware"]
        self._emit(TileEvent("online", uid, detail=detail))
        return tile.line, True

    def tile_restore(self, session, uid):
        """A tile that came online (a reboot, a reconnect, a host that met it anew): what
        the host set on it, sent again (a rebooted tile forgot it, a tile that was away
        missed what was set meanwhile). Scenes and neighbours are safe to repeat."""
        tile = self.tiles[uid]
        self._send_neighbours(tile, session)
        self._send_scene(tile, session, tile.scene)

    def tile_lost(self, session, uid, why):
        """The tile ``session`` talked to is not reachable there any more (another tile
        answered on its port, it speaks another protocol now)."""
        tile = self.tiles.get(uid)
        if tile is None or tile.session is not session:
            return
        if tile.online:
            self.tile_offline(session, uid, why)
        else:
            log.info("tile %s: %s", uid, why)
        tile.session = None

    def tile_offline(self, session, uid, why):
        tile = self.tiles.get(uid)
        if tile is None or tile.session is not session:
            return
        if tile.online:
            tile.online = False
            self._emit(TileEvent("offline", tile.uid, detail=why))
        # A port holding a clone of this tile may take over now: ask it at once.
        for s in self.sessions.values():
            if s.conflict is not None and s.conflict["uid"] == tile.uid:
                s.ask_hello_soon()

    def tile_refused(self, session, uid, seq, status):
        """The tile acked command ``seq`` with a status other than ok."""
        self._tile_log(self.tiles.get(uid), "warning", "tile refused command #%d: %s"
                       % (seq, status))

    def tile_message(self, session, uid, msg):
        """A message of the tile in use on ``session``, acked and deduplicated: a
        snapshot, tags, a gesture, a die, a heartbeat, health or a log line."""
        tile = self.tiles[uid]
        kind = msg["type"]
        if kind == "snapshot":
            tile.reported["uptime_ms"] = msg["uptime_ms"]
            if msg.get("resync"):
                self._count_resync(tile, msg)
            for s in msg["slots"]:
                self._tile_tags(tile, s["slot"], s["tags"])
            for p in msg["pockets"]:
                self._tile_dice(tile, p["pocket"], p["die"])
        elif kind == "tag":
            self._tile_tags(tile, msg["slot"], msg["tags"])
        elif kind == "gesture":
            self._tile_gesture(tile, msg["slot"], msg["gesture"])
        elif kind == "dice":
            self._tile_dice(tile, msg["pocket"], msg["die"])
        elif kind == "heartbeat":
            tile.reported["uptime_ms"] = msg["uptime_ms"]
        elif kind == "health":
            self._tile_health(tile, msg)
        elif kind == "log":
            self._tile_log(tile, msg["level"], msg["text"])

    def port_incompatible(self, session, uid, protocol):
        self.incompatible[session.path] = {"uid": uid, "protocol": protocol}
        self._problem("incompatible", uid, session.path,
                      "the tile on %s%s speaks protocol %d, this host speaks %d: reflash the "
                      "tile with this host's firmware (hardware/protocol.md, \"Deploying a "
                      "tile\"), or update the host" % (
                          session.path, " (%s)" % uid if uid else "", protocol,
                          wire.PROTOCOL_VERSION))

    def port_compatible(self, session, uid):
        if self.incompatible.pop(session.path, None) is not None:
            log.info("%s: tile %s now speaks protocol %d", session.path, uid,
                     wire.PROTOCOL_VERSION)

    def port_silent(self, session, waited):
        self._problem("not_a_tile", None, session.path,
                      "%s does not answer as a tile (no frame in %.0f s): a Pico running "
                      "plain MicroPython or another firmware? Flash the tile firmware; the "
                      "host asks it again every %.0f s" % (session.path, waited,
                                                           self.timings.probe_retry_s))

    def port_forgotten(self, session):
        self.incompatible.pop(session.path, None)

    def _send_scene(self, tile, session, cells):
        """Send the current scene of ``cells`` and of every cell of the tile whose scene
        frame is still unacked, in frames that replace those: each cell is in one pending
        frame only, the newest, so a resend cannot bring an older scene back. As many
        cells go in a frame as the line lets through (protocol.py)."""
        cells = set(cells)
        for key in session.withdraw_keys(lambda key: key[0] == "scene"):
            cells.update(key[1:])
        cells = sorted(c for c in cells if c in tile.scene)
        seq = None
        per_frame = session.scene_cells_per_frame()     # fewer on a noisy line
        for i in range(0, len(cells), per_frame):
            chunk = cells[i:i + per_frame]
            seq = session.send(wire.LED_SCENE,
                               wire.led_scene([(c, tile.scene[c]) for c in chunk]),
                               key=("scene",) + tuple(chunk))
        return seq

    # Flood control -----------------------------------------------------------

    def _budgets(self, tile):
        if tile.budgets is None:
            tile.budgets = {"gesture": Budget(self.gesture_rate, self.gesture_burst),
                            "log": Budget(self.log_rate, self.log_burst),
                            "state": Budget(self.state_rate, self.state_burst)}
        return tile.budgets

    def _state_event(self, tile, key):
        """The event telling the table layer the current state of ``key``, or None if it
        was told that state already."""
        kind, n = key
        if kind == "slot":
            tags = tile.slots.get(n, ())
            if tile.told.get(key, ()) != tags:
                return TileEvent("tags", tile.uid, slot=n, tags=tags), tags
        elif kind == "pocket":
            die = tile.pockets.get(n)
            if tile.told.get(key) != die:   # an unseen pocket counts as empty
                return TileEvent("dice", tile.uid, pocket=n, die=die), die
        elif kind == "health":
            return TileEvent("health", tile.uid, detail=dict(tile.health)), None
        return None, None

    def _tell(self, tile, key):
        """Tell the table layer the state of ``key`` now, or later if the tile floods."""
        now = self.clock()
        if key in tile.untold:
            tile.counts["coalesced"] += 1
            return
        ev, state = self._state_event(tile, key)
        if ev is None:
            return
        if self._budgets(tile)["state"].take(now):
            tile.told[key] = state
            self._emit(ev)
        else:
            tile.untold.add(key)
            self._flooding(tile, "tag, dice and health reports")

    def _release_untold(self, tile, now):
        """Tell what flood control held back, as the budget allows."""
        budgets = self._budgets(tile)
        for key in sorted(tile.untold, key=repr):
            if not budgets["state"].take(now):
                break
            tile.untold.discard(key)
            ev, state = self._state_event(tile, key)
            if ev is not None:
                tile.told[key] = state
                self._emit(ev)
        if tile.flooding and not tile.untold and all(b.full(now) for b in budgets.values()):
            tile.flooding = False
            log.info("tile %s stopped flooding; %d gestures and log lines dropped so far",
                     tile.uid, tile.counts["flood_drops"])

    def _flooding(self, tile, what):
        if not tile.flooding:
            tile.flooding = True
            self._problem("flooding", tile.uid, tile.port,
                          "tile %s sends more %s than a table can make: the excess is "
                          "dropped; check its touch pads and firmware (fairytable doctor)"
                          % (tile.uid, what))

    def _tile_tags(self, tile, slot, tags):
        tile.slots[slot] = _tags(tags)
        self._tell(tile, ("slot", slot))

    def _count_resync(self, tile, msg):
        """A snapshot asked by ``resync`` that differs from what the host knew:
        a report lost on the way, or one the snapshot overtook on a noisy line (that
        report, older, is then dropped: protocol.py). Counted and logged: on a clean line
        it should never happen."""
        changed = [s["slot"] for s in msg["slots"]
                   if tile.slots.get(s["slot"], ()) != _tags(s["tags"])]
        changed += ["pocket %d" % p["pocket"] for p in msg["pockets"]
                    if tile.pockets.get(p["pocket"]) != _die(p["die"])]
        if changed:
            tile.counts["resync_changes"] += len(changed)
            log.info("tile %s: its snapshot corrected slots %s (a report lost on the way, "
                     "or overtaken on a noisy line)", tile.uid,
                     ", ".join(str(c) for c in changed))

    def _tile_gesture(self, tile, slot, gesture):
        if self._budgets(tile)["gesture"].take(self.clock()):
            self._emit(TileEvent("gesture", tile.uid, slot=slot, gesture=gesture))
        else:
            tile.counts["flood_drops"] += 1
            self._flooding(tile, "gestures")

    def _tile_dice(self, tile, pocket, die):
        tile.pockets[pocket] = _die(die)
        self._tell(tile, ("pocket", pocket))

    def _tile_health(self, tile, msg):
        h = tile.reported
        h["uptime_ms"] = msg["uptime_ms"]
        h["readers"] = msg["readers"]
        h["tile_rx_crc_errors"] = msg["rx_crc_errors"]
        h["tile_resends"] = msg["resends"]
        h["heap_free"] = msg["heap_free"]
        h["loop_max_ms"] = msg["loop_max_ms"]
        self._tell(tile, ("health", 0))

    def _tile_log(self, tile, level, text):
        uid = tile.uid if tile is not None else None
        if tile is not None and level == "error":
            tile.counts["errors_logged"] += 1    # counted even when the line is dropped
        if tile is not None and not self._budgets(tile)["log"].take(self.clock()):
            tile.counts["flood_drops"] += 1
            self._flooding(tile, "log lines")
            return
        log.log(logging.WARNING if level in ("warning", "error") else logging.INFO,
                "tile %s: %s", uid, text)
        self._emit(TileEvent("log", uid, detail="%s: %s" % (level, text)))
