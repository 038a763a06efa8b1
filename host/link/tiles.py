"""The set of tiles the host talks to: ports, tile identities, events and LED scenes.

See the package docstring (host/link/__init__.py) for how the table layer uses it.
"""

import asyncio
import binascii
import logging
import time

from shared_rules import wire

from .session import Budget, LinkError, LinkTimings, PortSession

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
                 detail=None, code=None, port=None):
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
        self.at = time.monotonic()

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

    ``health``: firmware, uptime_ms, readers (the tile's HEALTH: ok, errors,
    reinits per reader), heap_free, loop_max_ms, tile_rx_crc_errors,
    tile_resends (the tile's counts), and the host's counts for this tile over
    all its ports: crc_errors and garbage_bytes (damaged frames from it),
    resends (commands the host sent again), reboots, reconnects,
    protocol_errors (frames dropped as malformed or beyond what its HELLO
    announced), host_errors (frames the host failed to handle: a host bug),
    conflicts (times its unique id answered on a second port), flood_drops
    (gestures and log lines dropped while it flooded), coalesced (tag, dice
    and health reports merged into a later one while it flooded).
    """

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
                       "reboots": 0, "reconnects": 0, "protocol_errors": 0, "host_errors": 0,
                       "conflicts": 0, "flood_drops": 0, "coalesced": 0}
        # Flood control: what the table layer was last told per slot/pocket/health, what
        # changed since without being told (told when the budget allows), and the budgets.
        self.told = {}
        self.untold = set()
        self.budgets = None
        self.flooding = False

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

    def __init__(self, ports=(), discover=False, timings=None, rescan_s=2.0):
        self.ports = list(ports)
        self.discover = discover
        self.timings = timings or LinkTimings()
        self.rescan_s = rescan_s
        self.tiles = {}         # unique id hex -> TileState
        self.sessions = {}      # port path -> PortSession
        self.incompatible = {}  # port path -> {"uid", "protocol"}
        self.neighbours = {}    # unique id hex -> the readers' neighbour masks (layout)
        self.queue = asyncio.Queue()
        self._scan_task = None

    # ------------------------------------------------------------ life cycle

    async def start(self):
        for path in self.ports:
            self._start_session(path, configured=True)
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
        """Talk to one more port (no-op if already open); it is asked for HELLO as a
        configured port is, however long nothing answers."""
        if path not in self.sessions:
            self._start_session(path, configured=True)

    def _start_session(self, path, configured):
        s = PortSession(self, path, self.timings, configured=configured)
        s.task = asyncio.create_task(s.run())
        self.sessions[path] = s

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
                        s.stop()
                        s.task.cancel()
                        del self.sessions[path]
            except Exception:
                log.exception("port scan failed")
            await asyncio.sleep(self.rescan_s)

    @property
    def conflicts(self):
        """Open ports whose tile has the unique id of a tile online on another port."""
        return {path: dict(s.conflict) for path, s in sorted(self.sessions.items())
                if s.conflict is not None and s.ser is not None}

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

    def _problem(self, code, tile_uid, port, sentence):
        log.warning("%s", sentence)
        self._emit(TileEvent("problem", tile_uid, code=code, port=port, detail=sentence))

    def _tile_hello(self, session, msg, uid, now):
        """A HELLO of protocol ``wire.PROTOCOL_VERSION`` on ``session``: the TileState it
        names, or None if that tile is online on another port (a clone, refused)."""
        tile = self.tiles.get(uid)
        if (tile is not None and tile.online and tile.session is session and tile.hello
                and tile.hello["boot_id"] == msg["boot_id"]):
            return tile  # the same boot answering again (e.g. its boot HELLO, then ours)
        owner = tile.session if tile is not None else None
        if owner is not None and owner is not session:
            if (tile.online and owner.ser is not None and not owner.stopping
                    and now - tile.last_seen < self.timings.offline_s):
                session.refuse_clone(tile, owner)
                return None
            # Its old port closed or fell silent: the tile moved (or was re-plugged).
            log.info("tile %s moved from %s to %s", uid, owner.path, session.path)
            if owner.tile is tile:
                owner.forget_tile("it moved to port %s" % session.path)
        detail = "reconnect"
        if tile is None:
            tile = self.tiles[uid] = TileState(uid)
            detail = "new"
        elif tile.hello is not None and tile.hello["boot_id"] != msg["boot_id"]:
            detail = "reboot"
            tile.health["reboots"] += 1
        if detail != "new":
            tile.health["reconnects"] += 1
        tile.hello = msg
        tile.session = session
        tile.port = session.path
        tile.online = True
        tile.last_seen = now
        tile.health["firmware"] = "%d.%d.%d" % msg["firmware"]
        self._emit(TileEvent("online", uid, detail=detail))
        return tile

    def _tile_replaced(self, tile, session, new_uid):
        """Tile ``new_uid`` answered on the port ``tile`` was using: ``tile`` is gone."""
        why = "tile %s answered on its port %s" % (new_uid, session.path)
        if tile.online:
            self._tile_offline(tile, why)
        else:
            log.info("tile %s: %s", tile.uid, why)
        tile.session = None

    def _tile_offline(self, tile, why):
        if tile.online:
            tile.online = False
            self._emit(TileEvent("offline", tile.uid, detail=why))
        # A port holding a clone of this tile may take over now: ask it at once.
        for s in self.sessions.values():
            if s.conflict is not None and s.conflict["uid"] == tile.uid:
                s.hello_at = 0.0

    def _port_conflict(self, session, tile, owner):
        tile.health["conflicts"] += 1
        self._problem("clone", tile.uid, session.path,
                      "tile %s answers on both %s and %s: unplug one (two tiles with the same "
                      "firmware id? a cloned board?); the host keeps using %s"
                      % (tile.uid, owner.path, session.path, owner.path))

    def _port_incompatible(self, session, uid, protocol):
        self.incompatible[session.path] = {"uid": uid, "protocol": protocol}
        self._problem("incompatible", uid, session.path,
                      "the tile on %s%s speaks protocol %d, this host speaks %d: reflash the "
                      "tile with this host's firmware (hardware/protocol.md, \"Deploying a "
                      "tile\"), or update the host" % (
                          session.path, " (%s)" % uid if uid else "", protocol,
                          wire.PROTOCOL_VERSION))

    def _port_compatible(self, session, uid):
        if self.incompatible.pop(session.path, None) is not None:
            log.info("%s: tile %s now speaks protocol %d", session.path, uid,
                     wire.PROTOCOL_VERSION)

    def _port_silent(self, session, waited):
        self._problem("not_a_tile", None, session.path,
                      "%s does not answer as a tile (no frame in %.0f s): a Pico running "
                      "plain MicroPython or another firmware? Flash the tile firmware; the "
                      "host asks it again every %.0f s" % (session.path, waited,
                                                           self.timings.probe_retry_s))

    def _port_forgotten(self, session):
        self.incompatible.pop(session.path, None)

    def _beyond_hello(self, tile, msg, msg_type):
        """Why an event reaches past what the tile's HELLO announced, or None."""
        hello = tile.hello
        if msg_type in (wire.TAG, wire.GESTURE):
            have = hello["readers"] if msg_type == wire.TAG else hello["buttons"]
            what = "readers" if msg_type == wire.TAG else "touch pads"
            if msg["slot"] >= have:
                return ("it reported a %s on slot %d, but its HELLO announced %d %s"
                        % ("tag" if msg_type == wire.TAG else "gesture", msg["slot"], have,
                           what))
        elif msg_type == wire.DICE:
            if msg["pocket"] >= hello["dice_pockets"]:
                return ("it reported a die in pocket %d, but its HELLO announced %d dice "
                        "pockets" % (msg["pocket"], hello["dice_pockets"]))
        elif msg_type == wire.SNAPSHOT:
            for s in msg["slots"]:
                if s["slot"] >= hello["readers"]:
                    return ("its snapshot has slot %d, but its HELLO announced %d readers"
                            % (s["slot"], hello["readers"]))
            for p in msg["pockets"]:
                if p["pocket"] >= hello["dice_pockets"]:
                    return ("its snapshot has pocket %d, but its HELLO announced %d dice "
                            "pockets" % (p["pocket"], hello["dice_pockets"]))
        return None

    def _send_scene(self, tile, session, cells):
        """Send the current scene of ``cells`` and of every cell of the tile whose scene
        frame is still unacked, in frames that replace those: each cell is in one pending
        frame only, the newest, so a resend cannot bring an older scene back."""
        cells = set(cells)
        for seq in [seq for seq, p in session.pending.items()
                    if p[2] is not None and p[2][0] == "scene"]:
            cells.update(session.pending.pop(seq)[2][1:])
        cells = sorted(c for c in cells if c in tile.scene)
        seq = None
        for i in range(0, len(cells), wire.MAX_SCENE_CELLS):
            chunk = cells[i:i + wire.MAX_SCENE_CELLS]
            seq = session.send(wire.LED_SCENE,
                               wire.led_scene([(c, tile.scene[c]) for c in chunk]),
                               key=("scene",) + tuple(chunk))
        return seq

    def _tile_restore(self, tile, session):
        """A tile that came online (a reboot, a reconnect, a host that met it anew): what
        the host set on it, sent again (a rebooted tile forgot it, a tile that was away
        missed what was set meanwhile)."""
        self._send_neighbours(tile, session)
        self._send_scene(tile, session, tile.scene)

    def _tile_snapshot(self, tile, msg):
        tile.health["uptime_ms"] = msg["uptime_ms"]
        for s in msg["slots"]:
            self._tile_tags(tile, s["slot"], s["tags"])
        for p in msg["pockets"]:
            self._tile_dice(tile, p["pocket"], p["die"])

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

    def _tell(self, tile, key, now=None):
        """Tell the table layer the state of ``key`` now, or later if the tile floods."""
        now = time.monotonic() if now is None else now
        if key in tile.untold:
            tile.health["coalesced"] += 1
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

    def _tile_tick(self, tile, now):
        """Housekeeping of the tile's session: tell what flood control held back."""
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
                     tile.uid, tile.health["flood_drops"])

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

    def _tile_gesture(self, tile, slot, gesture):
        if self._budgets(tile)["gesture"].take(time.monotonic()):
            self._emit(TileEvent("gesture", tile.uid, slot=slot, gesture=gesture))
        else:
            tile.health["flood_drops"] += 1
            self._flooding(tile, "gestures")

    def _tile_dice(self, tile, pocket, die):
        tile.pockets[pocket] = _die(die)
        self._tell(tile, ("pocket", pocket))

    def _tile_health(self, tile, msg):
        h = tile.health
        h["uptime_ms"] = msg["uptime_ms"]
        h["readers"] = msg["readers"]
        h["tile_rx_crc_errors"] = msg["rx_crc_errors"]
        h["tile_resends"] = msg["resends"]
        h["heap_free"] = msg["heap_free"]
        h["loop_max_ms"] = msg["loop_max_ms"]
        self._tell(tile, ("health", 0))

    def _tile_log(self, tile, level, text):
        uid = tile.uid if tile is not None else None
        if tile is not None and not self._budgets(tile)["log"].take(time.monotonic()):
            tile.health["flood_drops"] += 1
            self._flooding(tile, "log lines")
            return
        log.log(logging.WARNING if level in ("warning", "error") else logging.INFO,
                "tile %s: %s", uid, text)
        self._emit(TileEvent("log", uid, detail="%s: %s" % (level, text)))
