"""The set of tiles the host talks to: ports, tile identities, events and LED scenes.

See the package docstring (host/link/__init__.py) for how the table layer uses it.
"""

import asyncio
import binascii
import logging
import time

from shared_rules import wire

from .session import LinkError, LinkTimings, PortSession

log = logging.getLogger("fairytable.link")

# USB vendor id of the Raspberry Pi Pico (MicroPython's CDC device).
PICO_VID = 0x2E8A


class TileEvent:
    """Something a tile reported, or a change in its connection.

    kind: "online", "offline", "tags", "gesture", "dice", "health", "log".
    tile: the tile's unique id (hex). Fields present per kind:
    tags -> slot, tags (tuple of (uid hex, identity bytes or None), sorted by uid);
    gesture -> slot, gesture ("tap", "double", "hold"); dice -> pocket, die
    ((uid hex, identity) or None); online -> detail ("new", "reboot",
    "reconnect"); offline/log -> detail (a sentence).
    """

    __slots__ = ("kind", "tile", "slot", "tags", "gesture", "pocket", "die", "detail", "at")

    def __init__(self, kind, tile, slot=None, tags=None, gesture=None, pocket=None, die=None,
                 detail=None):
        self.kind = kind
        self.tile = tile
        self.slot = slot
        self.tags = tags
        self.gesture = gesture
        self.pocket = pocket
        self.die = die
        self.detail = detail
        self.at = time.monotonic()

    def __repr__(self):
        fields = [self.kind, self.tile]
        for name in ("slot", "tags", "gesture", "pocket", "die", "detail"):
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
    """What the host knows about one tile, kept across reconnects and reboots."""

    def __init__(self, uid):
        self.uid = uid
        self.online = False
        self.session = None
        self.port = None
        self.hello = None
        self.slots = {}         # slot -> tuple of (uid hex, identity)
        self.pockets = {}       # pocket -> (uid hex, identity) or None
        self.scene = {}         # cell -> 24 scene bytes: what the host wants lit
        self.last_seen = 0.0
        self.health = {"firmware": None, "uptime_ms": 0, "readers": [], "crc_errors": 0,
                       "garbage_bytes": 0, "resends": 0, "tile_rx_crc_errors": 0,
                       "tile_resends": 0, "heap_free": None, "loop_max_ms": None,
                       "reboots": 0, "reconnects": 0, "protocol_errors": 0}

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
    """All tile links of a table. See host/link/__init__.py."""

    def __init__(self, ports=(), discover=False, timings=None, rescan_s=2.0):
        self.ports = list(ports)
        self.discover = discover
        self.timings = timings or LinkTimings()
        self.rescan_s = rescan_s
        self.tiles = {}         # unique id hex -> TileState
        self.sessions = {}      # port path -> PortSession
        self.queue = asyncio.Queue()
        self._scan_task = None

    # ------------------------------------------------------------ life cycle

    async def start(self):
        for path in self.ports:
            self._start_session(path)
        if self.discover:
            self._scan_task = asyncio.create_task(self._scan())

    async def stop(self):
        if self._scan_task is not None:
            self._scan_task.cancel()
        for s in list(self.sessions.values()):
            s.stop()
        tasks = [s.task for s in self.sessions.values() if s.task is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.sessions = {}

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc):
        await self.stop()

    def add_port(self, path):
        """Talk to one more port (no-op if already open)."""
        if path not in self.sessions:
            self._start_session(path)

    def _start_session(self, path):
        s = PortSession(self, path, self.timings)
        s.task = asyncio.create_task(s.run())
        self.sessions[path] = s

    async def _scan(self):
        from serial.tools import list_ports
        while True:
            try:
                present = set()
                for p in list_ports.comports():
                    if p.vid == PICO_VID:
                        present.add(p.device)
                        self.add_port(p.device)
                for path, s in list(self.sessions.items()):
                    if path not in present and path not in self.ports:
                        s.stop()
                        s.task.cancel()
                        del self.sessions[path]
            except Exception:
                log.exception("port scan failed")
            await asyncio.sleep(self.rescan_s)

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

        A scene is the 24 bytes firmware/effects.py defines (4 edge segments
        N, E, S, W of 6 bytes: effect, r, g, b, a, b); build it with
        ``firmware.effects.cell_scene``/``segment``/``uniform_scene``. The
        scene is remembered: sent now if the tile is online, resent until
        acknowledged, and sent again after a reconnect or reboot. Returns
        the frame's sequence number, or None if the tile is offline (it
        gets the scene when it comes back). Raises ValueError for an
        unknown tile, a cell the tile does not have, or a malformed scene.
        """
        tile = self.tiles.get(tile_uid)
        if tile is None:
            raise ValueError("no tile %s has said hello" % tile_uid)
        entries = []
        for cell, scene in cells:
            if not 0 <= cell < tile.cells:
                raise ValueError("tile %s has %d cells; there is no cell %r"
                                 % (tile_uid, tile.cells, cell))
            entries.append((cell, bytes(scene)))
        payload = wire.led_scene(entries)
        for cell, scene in entries:
            tile.scene[cell] = scene
        if tile.online and tile.session is not None:
            return tile.session.send(wire.LED_SCENE, payload,
                                     key=("scene",) + tuple(e[0] for e in entries))
        return None

    def set_brightness(self, tile_uid, level):
        tile = self.tiles[tile_uid]
        if tile.online and tile.session is not None:
            return tile.session.send(wire.LED_BRIGHTNESS, wire.led_brightness(level),
                                     key=("brightness",))
        return None

    async def write_identity(self, tile_uid, slot, uid, record, timeout=5.0):
        """Write an identity record into tag ``uid`` (bytes) on reader ``slot`` of a tile.

        ``record`` is the 16 bytes of NTAG pages 4..7 (``identity_record()`` in
        firmware/drivers/mfrc522.py). Returns a WriteResult once the tile has written
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
        if not tile.online or session is None or session.ser is None:
            raise LinkError("tile %s is offline; check its cable (fairytable doctor)"
                            % tile_uid)
        seq = session.send(wire.WRITE_IDENTITY, payload)
        fut = session.waiters[seq] = asyncio.get_running_loop().create_future()
        try:
            msg = await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            raise LinkError("tile %s gave no result for the write to slot %d within %.1f s"
                            % (tile_uid, slot, timeout)) from None
        finally:
            session.waiters.pop(seq, None)
            session.pending.pop(seq, None)      # given up on: stop resending it
        return WriteResult(tile_uid, msg["slot"], binascii.hexlify(msg["uid"]).decode(),
                           msg["ok"], msg["reason"])

    def pending_commands(self, tile_uid):
        """Sequence numbers of commands sent to a tile and not yet acknowledged."""
        tile = self.tiles.get(tile_uid)
        if tile is None or tile.session is None:
            return []
        return sorted(tile.session.pending)

    # ------------------------------------------------------------ called by sessions

    def _emit(self, ev):
        self.queue.put_nowait(ev)

    def _tile_hello(self, session, msg):
        uid = binascii.hexlify(msg["uid"]).decode()
        tile = self.tiles.get(uid)
        if (tile is not None and tile.online and tile.session is session and tile.hello
                and tile.hello["boot_id"] == msg["boot_id"]):
            return tile  # the same boot answering again (e.g. its boot HELLO, then ours)
        detail = "reconnect"
        if tile is None:
            tile = self.tiles[uid] = TileState(uid)
            detail = "new"
        elif tile.hello is not None and tile.hello["boot_id"] != msg["boot_id"]:
            detail = "reboot"
            tile.health["reboots"] += 1
        if tile.session is not None and tile.session is not session and tile.online:
            log.warning("tile %s moved from %s to %s", uid, tile.port, session.path)
        if detail != "new":
            tile.health["reconnects"] += 1
        tile.hello = msg
        tile.session = session
        tile.port = session.path
        tile.online = True
        tile.last_seen = time.monotonic()
        tile.health["firmware"] = "%d.%d.%d" % msg["firmware"]
        self._emit(TileEvent("online", uid, detail=detail))
        return tile

    def _tile_resend_scene(self, tile, session):
        cells = sorted(tile.scene)
        for i in range(0, len(cells), wire.MAX_SCENE_CELLS):
            chunk = [(c, tile.scene[c]) for c in cells[i:i + wire.MAX_SCENE_CELLS]]
            session.send(wire.LED_SCENE, wire.led_scene(chunk),
                         key=("scene",) + tuple(c[0] for c in chunk))

    def _tile_offline(self, tile, why):
        if tile.online:
            tile.online = False
            self._emit(TileEvent("offline", tile.uid, detail=why))

    def _tile_snapshot(self, tile, msg):
        tile.health["uptime_ms"] = msg["uptime_ms"]
        for s in msg["slots"]:
            self._tile_tags(tile, s["slot"], s["tags"])
        for p in msg["pockets"]:
            self._tile_dice(tile, p["pocket"], p["die"])

    def _tile_tags(self, tile, slot, tags):
        tags = _tags(tags)
        if tile.slots.get(slot, ()) != tags:
            tile.slots[slot] = tags
            self._emit(TileEvent("tags", tile.uid, slot=slot, tags=tags))

    def _tile_gesture(self, tile, slot, gesture):
        self._emit(TileEvent("gesture", tile.uid, slot=slot, gesture=gesture))

    def _tile_dice(self, tile, pocket, die):
        die = _die(die)
        if tile.pockets.get(pocket) != die:   # an unseen pocket counts as empty
            tile.pockets[pocket] = die
            self._emit(TileEvent("dice", tile.uid, pocket=pocket, die=die))

    def _tile_health(self, tile, msg):
        h = tile.health
        h["uptime_ms"] = msg["uptime_ms"]
        h["readers"] = msg["readers"]
        h["tile_rx_crc_errors"] = msg["rx_crc_errors"]
        h["tile_resends"] = msg["resends"]
        h["heap_free"] = msg["heap_free"]
        h["loop_max_ms"] = msg["loop_max_ms"]
        self._emit(TileEvent("health", tile.uid, detail=dict(h)))

    def _tile_log(self, tile, level, text):
        uid = tile.uid if tile is not None else None
        log.log(logging.WARNING if level in ("warning", "error") else logging.INFO,
                "tile %s: %s", uid, text)
        self._emit(TileEvent("log", uid, detail="%s: %s" % (level, text)))

    def _protocol_error(self, session, frame, error):
        tile = session.tile
        if tile is not None:
            tile.health["protocol_errors"] += 1
        log.warning("%s: dropped %r: %s", session.path, frame, error)
