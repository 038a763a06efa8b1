"""One serial port's conversation with the tile behind it.

A PortSession opens the port with pyserial, asks the tile who it is (HELLO),
resyncs it by snapshot, then keeps it: acks its events, resends host
commands until acknowledged, sends heartbeats, and marks it offline when it
falls silent. When the port fails (unplugged, tile rebooting over USB) it
closes it and reopens with backoff. Nothing a tile sends can raise out of
a session: malformed frames are counted, logged and dropped, and a port
whose tile cannot be used (another protocol version, the unique id of a tile
online on another port, no tile at all) is asked again only rarely.
"""

import asyncio
import binascii
import errno
import logging
import os
import time

import serial

from shared_rules import wire

log = logging.getLogger("fairytable.link")

_SEEN = 64  # recent tile seqs remembered to drop resent duplicates ...
_DUP_WINDOW = 1024  # ... when at most this far behind the newest seq the tile sent: a resend
                    # comes within a few seconds of its first copy (the tile stops resending
                    # when it stops hearing the host, and drops its queue on HELLO_REQUEST)
_SHOWN_PAYLOAD = 32  # payload bytes a log line shows of a dropped frame
# Types the host sends (0x40..0x7f): one arriving from a port is an echo or a loopback.
_HOST_TYPES = range(0x40, 0x80)
# Ctrl-C and Ctrl-D: a Pico running a plain MicroPython REPL would interrupt or soft-reset.
_REPL_KEYS = (0x03, 0x04)


class LinkError(RuntimeError):
    """A tile command the link could not see through, with the reason in words: the tile is
    offline, lacks the capability, refused the command, rebooted or did not answer in time."""


class LinkTimings:
    """Host-side timings in seconds; hardware/protocol.md explains each."""

    tick_s = 0.02               # session housekeeping period (frames are handled on arrival)
    hello_retry_s = 0.5         # HELLO_REQUEST resend until a HELLO arrives
    snapshot_retry_s = 0.3      # SNAPSHOT_REQUEST resend until a SNAPSHOT does
    resend_s = 0.1              # resend an unacknowledged command after this long
    heartbeat_s = 1.0           # host -> tile heartbeat period
    offline_s = 3.0             # tile silent this long: offline
    reopen_s = 10.0             # silent this long on an open port: close and reopen it
    backoff_min_s = 0.1         # reopen backoff doubles from here ...
    backoff_max_s = 5.0         # ... up to here
    probe_window_s = 10.0       # a discovered port with no tile answering for this long ...
    probe_retry_s = 10.0        # ... is asked for HELLO only this often
    unusable_retry_s = 10.0     # HELLO_REQUEST period to a tile of another protocol version
                                # or with the unique id of a tile online on another port
    baudrate = 115200           # ignored by USB CDC and ptys, used by a real UART


def describe_frame(frame):
    """A dropped frame in words for a log line: type, seq, version and payload (cut)."""
    name = wire.TYPE_NAMES.get(frame.type, "unknown type")
    payload = bytes(frame.payload)
    shown = binascii.hexlify(payload[:_SHOWN_PAYLOAD]).decode() or "empty"
    if len(payload) > _SHOWN_PAYLOAD:
        shown += "... (%d bytes)" % len(payload)
    return "%s frame (type 0x%02x, version %d, seq %d, payload %s)" % (
        name, frame.type, frame.version, frame.seq, shown)


def _peek_hello(payload):
    """(uid hex, protocol) from a HELLO payload of any version, None for what is unreadable.

    The uid blob and the protocol byte open HELLO in protocol 1; a tile of another
    version is likely to keep them there, and naming it helps the operator find it."""
    payload = bytes(payload)
    if not payload or payload[0] == 0 or payload[0] > 16 or len(payload) < payload[0] + 2:
        return None, None
    n = payload[0]
    return binascii.hexlify(payload[1:1 + n]).decode(), payload[1 + n]


class Budget:
    """A token bucket: ``take(now)`` allows ``burst`` at once and ``rate`` per second after."""

    def __init__(self, rate, burst):
        self.rate = float(rate)
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = None

    def _refill(self, now):
        if self.at is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self, now):
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def full(self, now):
        self._refill(now)
        return self.tokens >= self.burst


class PortSession:
    """The conversation over one serial port; the tile behind it may change.

    ``configured``: the port was named by the operator; it is asked for HELLO every
    ``hello_retry_s`` however long nothing answers. A discovered port that has not
    answered as a tile for ``probe_window_s`` is asked only every ``probe_retry_s``.
    """

    def __init__(self, link, path, timings=None, configured=True):
        self.link = link
        self.path = path
        self.t = timings or LinkTimings()
        self.configured = configured
        self.ser = None
        self.decoder = wire.Decoder()
        self.tile = None            # TileState once a HELLO arrived
        self.boot_id = None
        self.seq = 0
        self.pending = {}           # seq -> [frame, sent_at, key, attempts]
        self.waiters = {}           # seq of a command -> future of the tile's answer to it
        self.seen = []              # seqs of the tile's acked frames acted on, oldest first
        self.tile_seq = None        # the newest seq the tile sent (serial number arithmetic)
        self.outbuf = bytearray()
        self.failed = None          # exception that ended the port, set by callbacks
        self.last_rx = 0.0
        self.last_tx = 0.0
        self.hello_at = 0.0
        self.snapshot_wanted = False
        self.snapshot_at = 0.0
        self.stopping = False
        self.opened = 0
        self.task = None
        self.started_at = time.monotonic()
        self.answered = False       # a frame of a tile ever arrived on this port
        self.silent_said = False    # "does not answer as a tile" was said
        self.conflict = None        # {"uid", "owner"}: a clone of a tile online elsewhere
        self.incompatible = None    # {"uid", "protocol"}: a tile of another protocol version
        # What went wrong on this port before any tile was known on it (nobody to charge).
        self.protocol_errors = 0
        self.host_errors = 0
        self._decoder_seen = (0, 0)     # decoder (crc_errors, garbage_bytes) already charged
        self._log_budget = Budget(2.0, 20)  # log lines about one port's bad frames

    # ------------------------------------------------------------ life cycle

    async def run(self):
        backoff = self.t.backoff_min_s
        while not self.stopping:
            try:
                self._open()
                backoff = self.t.backoff_min_s
                await self._converse()
            except asyncio.CancelledError:
                raise
            except (serial.SerialException, OSError) as e:
                log.info("%s: %s", self.path, e)
            except Exception:  # a bug on our side must not stop the other tiles
                log.exception("%s: session failed", self.path)
            finally:
                self._close()
            if self.stopping:
                break
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self.t.backoff_max_s)

    def _open(self):
        self.failed = None
        self.ser = serial.Serial(self.path, baudrate=self.t.baudrate, timeout=0,
                                 write_timeout=0, exclusive=True)
        self.opened += 1
        self.decoder.reset()
        self.outbuf = bytearray()
        loop = asyncio.get_running_loop()
        loop.add_reader(self.ser.fileno(), self._on_readable)
        now = time.monotonic()
        self.last_rx = now
        self.last_tx = 0.0
        self.hello_at = 0.0
        # A leading delimiter ends whatever partial frame the tile had buffered.
        self._write_raw(b"\x00")

    def _close(self):
        ser, self.ser = self.ser, None
        if ser is not None:
            try:
                asyncio.get_running_loop().remove_reader(ser.fileno())
                asyncio.get_running_loop().remove_writer(ser.fileno())
            except (ValueError, OSError):
                pass
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass
        # Only the session the tile talks through now may declare it gone (it may have
        # moved to another port meanwhile).
        if self._owns_tile() and self.tile.online:
            self.link._tile_offline(self.tile, "port closed")
        self.fail_waiters("its port %s closed" % self.path)

    def stop(self):
        self.stopping = True
        self.link._port_forgotten(self)

    def fail_waiters(self, why):
        """Commands awaiting an answer will not get one: say why to whoever waits."""
        waiters, self.waiters = self.waiters, {}
        uid = self.tile.uid if self.tile is not None else self.path
        for seq, fut in waiters.items():
            if not fut.done():
                fut.set_exception(LinkError("tile %s did not answer command #%d: %s"
                                            % (uid, seq, why)))

    def _owns_tile(self):
        return self.tile is not None and self.tile.session is self

    def forget_tile(self, why):
        """The tile this port talked to is no longer ours (it answers elsewhere, another
        tile answered here): drop what was meant for it."""
        self.tile = None
        self.boot_id = None
        self.pending = {}
        self.seen = []
        self.tile_seq = None
        self.snapshot_wanted = False
        self.fail_waiters(why)

    def _count(self, counter):
        """Charge a problem to the tile of this port, or to the port before one is known."""
        if self._owns_tile():
            self.tile.health[counter] += 1
        else:
            setattr(self, counter, getattr(self, counter) + 1)

    # ------------------------------------------------------------ bytes

    def _on_readable(self):
        try:
            data = self.ser.read(4096)
        except (serial.SerialException, OSError) as e:
            self._fail(e)
            return
        if not data:
            return
        try:
            self._on_bytes(data, time.monotonic())
        except Exception:  # keep reading whatever one bad read did to us
            self._count("host_errors")
            log.exception("%s: handling what the tile sent failed", self.path)

    def _fail(self, e):
        self.failed = e
        try:
            asyncio.get_running_loop().remove_reader(self.ser.fileno())
        except (ValueError, OSError, AttributeError):
            pass

    def _write_raw(self, data):
        self.outbuf.extend(data)
        self._flush()

    def _flush(self):
        if self.ser is None or not self.outbuf:
            return
        fd = self.ser.fileno()
        try:
            n = os.write(fd, self.outbuf)
        except BlockingIOError:
            n = 0
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EINTR):
                n = 0
            else:
                self._fail(e)
                return
        del self.outbuf[:n]
        loop = asyncio.get_running_loop()
        if self.outbuf:
            if len(self.outbuf) > 16384:  # the tile is not draining: drop, resends recover
                self.outbuf = bytearray()
                loop.remove_writer(fd)
            else:
                loop.add_writer(fd, self._flush)
        else:
            loop.remove_writer(fd)
        self.last_tx = time.monotonic()

    def send(self, msg_type, payload, key=None):
        """Frame and send a message; acked types are resent until acknowledged."""
        self.seq = (self.seq + 1) & 0xFFFF
        frame = wire.encode_frame(msg_type, self.seq, payload)
        if msg_type in wire.ACKED:
            if key is not None:
                for s in [s for s, p in self.pending.items() if p[2] == key]:
                    del self.pending[s]
            self.pending[self.seq] = [frame, time.monotonic(), key, 0]
        if self.ser is not None:
            self._write_raw(frame)
        return self.seq

    def _ask_hello(self):
        """HELLO_REQUEST, numbered so that no byte of it is Ctrl-C or Ctrl-D: a port that
        turns out to be a Pico at a plain MicroPython REPL is not interrupted or reset."""
        for _ in range(1024):
            self.seq = (self.seq + 1) & 0xFFFF
            frame = wire.encode_frame(wire.HELLO_REQUEST, self.seq, b"")
            if not any(b in frame for b in _REPL_KEYS):
                break
        self._write_raw(frame)

    def _ack(self, seq, status=wire.ACK_OK):
        self.send(wire.ACK, wire.ack(seq, status))

    # ------------------------------------------------------------ frames in

    def _on_bytes(self, data, now):
        for frame in self.decoder.feed(data):
            self.last_rx = now
            try:
                self._on_frame(frame, now)
            except Exception:  # lose this frame only, not the rest of the read
                self._count("host_errors")
                log.exception("%s: handling %s failed; dropped it", self.path,
                              describe_frame(frame))
        self._charge_decoder()

    def _charge_decoder(self):
        """Damaged bytes count against the tile they came from, summed over its ports."""
        crc, garbage = self.decoder.crc_errors, self.decoder.garbage_bytes
        seen_crc, seen_garbage = self._decoder_seen
        self._decoder_seen = (crc, garbage)
        if self._owns_tile():
            self.tile.health["crc_errors"] += crc - seen_crc
            self.tile.health["garbage_bytes"] += garbage - seen_garbage

    def _drop(self, frame, why):
        self._count("protocol_errors")
        self._say(logging.WARNING, "%s: dropped %s: %s", self.path, describe_frame(frame), why)

    def _say(self, level, fmt, *args):
        """Log a line about a tile's misbehaviour, a few a second at most per port."""
        if self._log_budget.take(time.monotonic()):
            log.log(level, fmt, *args)
        else:
            log.debug(fmt, *args)

    def _on_frame(self, frame, now):
        if frame.version != wire.PROTOCOL_VERSION:
            self.answered = True
            self._count("protocol_errors")
            uid, _ = _peek_hello(frame.payload) if frame.type == wire.HELLO else (None, None)
            self._incompatible_tile(uid, frame.version, now)
            log.debug("%s: dropped %s: protocol version %d", self.path, describe_frame(frame),
                      frame.version)
            return
        if frame.type in _HOST_TYPES:
            # Never acked: acking our own echoed frames would ack them for the tile.
            self._drop(frame, "a host-to-tile message came from the port (an echo or a "
                              "loopback?)")
            return
        self.answered = True
        if frame.type not in wire.TYPE_NAMES:
            self._drop(frame, "unknown message type 0x%02x (a newer tile?)" % frame.type)
            self._ack(frame.seq, wire.ACK_UNKNOWN_TYPE)   # so a newer tile stops resending it
            return
        try:
            msg = wire.parse(frame)
        except wire.WireError as e:
            self._drop(frame, str(e))
            if frame.type in wire.ACKED:
                self._ack(frame.seq, wire.ACK_BAD_PAYLOAD)
            return
        self._on_message(msg, frame.type, now)

    def _on_message(self, msg, msg_type, now):
        if msg_type == wire.HELLO:
            self._on_hello(msg, now)
            return
        if not self._owns_tile():
            if self.conflict is not None or self.incompatible is not None:
                # A tile we do not use: quiet its resends, ignore what it says.
                if msg_type in wire.ACKED:
                    self._ack(msg["seq"])
                return
            # Talking, but we do not know who: ask (rate-limited by the housekeeping loop).
            self.hello_at = 0.0
            return
        tile = self.tile
        tile.last_seen = now
        if not tile.online:
            self.hello_at = 0.0   # back from silence: check it did not reboot meanwhile
        if msg_type == wire.ACK:
            if self.pending.pop(msg["ack"], None) is not None and msg["status"] != "ok":
                self.link._tile_log(tile, "warning", "tile refused command #%d: %s"
                                    % (msg["ack"], msg["status"]))
                fut = self.waiters.pop(msg["ack"], None)
                if fut is not None and not fut.done():
                    fut.set_exception(LinkError("tile %s refused command #%d: %s"
                                                % (tile.uid, msg["ack"], msg["status"])))
            return
        problem = self.link._beyond_hello(tile, msg, msg_type)
        if problem is not None:
            self._count("protocol_errors")
            self._say(logging.WARNING, "%s: dropped %s #%d from tile %s: %s", self.path,
                      msg["type"], msg["seq"], tile.uid, problem)
            if msg_type in wire.ACKED:
                self._ack(msg["seq"], wire.ACK_BAD_PAYLOAD)
            return
        duplicate = self._duplicate(msg["seq"]) if msg_type in wire.ACKED else False
        self._tile_sent(msg["seq"])
        if msg_type in wire.ACKED:
            self._ack(msg["seq"])
            if duplicate:
                return
            self.seen.append(msg["seq"])
            del self.seen[:-_SEEN]
        if msg_type == wire.SNAPSHOT:
            self.snapshot_wanted = False
            self.link._tile_snapshot(tile, msg)
        elif msg_type == wire.TAG:
            self.link._tile_tags(tile, msg["slot"], msg["tags"])
        elif msg_type == wire.GESTURE:
            self.link._tile_gesture(tile, msg["slot"], msg["gesture"])
        elif msg_type == wire.DICE:
            self.link._tile_dice(tile, msg["pocket"], msg["die"])
        elif msg_type == wire.HEARTBEAT:
            tile.health["uptime_ms"] = msg["uptime_ms"]
        elif msg_type == wire.HEALTH:
            self.link._tile_health(tile, msg)
        elif msg_type == wire.LOG:
            self.link._tile_log(tile, msg["level"], msg["text"])
        elif msg_type == wire.WRITE_RESULT:
            fut = self.waiters.pop(msg["ack"], None)
            if fut is not None and not fut.done():
                fut.set_result(msg)
            else:
                log.info("%s: tile %s answered write #%d after the host gave up: %s",
                         self.path, tile.uid, msg["ack"], msg["reason"])

    def _duplicate(self, seq):
        """A resend of a frame acted on already: a seq remembered, and not far behind the
        newest the tile sent. (A tile's seq wraps at 65536: after hours of heartbeats a new
        event may carry the seq of one long past.)"""
        return (seq in self.seen and self.tile_seq is not None
                and (self.tile_seq - seq) & 0xFFFF < _DUP_WINDOW)

    def _tile_sent(self, seq):
        """Follow the newest seq of the tile (a resend is behind it, not newer)."""
        if self.tile_seq is None or 0 < (seq - self.tile_seq) & 0xFFFF < 0x8000:
            self.tile_seq = seq

    def _on_hello(self, msg, now):
        uid = binascii.hexlify(msg["uid"]).decode()
        if msg["protocol"] != wire.PROTOCOL_VERSION:
            self._incompatible_tile(uid, msg["protocol"], now)
            return
        if self.incompatible is not None:
            self.incompatible = None
            self.link._port_compatible(self, uid)
        was_online = self._owns_tile() and self.tile.online
        if self._owns_tile() and self.tile.uid != uid:
            # Another tile answers on this port (swapped behind a hub, reflashed id): the
            # one we knew here is not reachable here any more.
            old = self.tile
            self.link._tile_replaced(old, self, uid)
            self.forget_tile("tile %s answered on its port %s" % (uid, self.path))
        tile = self.link._tile_hello(self, msg, uid, now)
        if tile is None:            # refused: it is online on another port
            if self.tile is not None:
                self.forget_tile("its unique id answers on another port")
            self.hello_at = now
            return
        self.conflict = None
        rebooted = self.tile is not tile or self.boot_id != msg["boot_id"]
        self.tile = tile
        # A tile answering HELLO_REQUEST drops its unacked events (firmware/link.py): none
        # of the seqs remembered can come again, and after a long absence the tile's seq
        # may have come round to them.
        self.seen = []
        self.tile_seq = msg["seq"]
        if rebooted:
            self.boot_id = msg["boot_id"]
            # Commands for a previous boot are moot: the full scene goes again below.
            self.pending = {}
            self.fail_waiters("it rebooted (or another tile answered on its port)")
        if rebooted or not was_online:
            # Back from a reboot, or from an absence it survived (a tile powered by the
            # table keeps running through a USB unplug): what was set meanwhile reaches
            # it only now, and a rebooted tile forgot it all. Scenes and neighbours are
            # safe to repeat.
            self.link._tile_restore(tile, self)
        self.snapshot_wanted = True
        self.snapshot_at = 0.0

    def _incompatible_tile(self, uid, protocol, now):
        """A tile that speaks another protocol version: not used, recorded, asked rarely."""
        if self._owns_tile():
            old = self.tile
            self.link._tile_offline(old, "it now speaks protocol %d; this host speaks %d"
                                    % (protocol, wire.PROTOCOL_VERSION))
            old.session = None
            self.forget_tile("it speaks protocol %d" % protocol)
        if uid is None and self.incompatible is not None \
                and self.incompatible["protocol"] == protocol:
            uid = self.incompatible["uid"]  # a frame that does not say who: the same tile
        seen = {"uid": uid, "protocol": protocol}
        if self.incompatible != seen:
            self.incompatible = seen
            self.conflict = None
            self.link._port_incompatible(self, uid, protocol)
        if self.hello_at == 0.0:
            self.hello_at = now

    def refuse_clone(self, tile, owner):
        """Called by the link: this port's tile has the unique id of ``tile``, online on
        ``owner``. Say it once; ignore this port until the owner goes away."""
        seen = {"uid": tile.uid, "owner": owner.path}
        if self.conflict != seen:
            self.conflict = seen
            self.link._port_conflict(self, tile, owner)

    # ------------------------------------------------------------ housekeeping

    def hello_interval(self, now):
        """How often this port is asked for HELLO while no usable tile answers on it."""
        t = self.t
        if self.conflict is not None or self.incompatible is not None:
            return t.unusable_retry_s
        if not self.configured and not self.answered \
                and now - self.started_at >= t.probe_window_s:
            if not self.silent_said:
                self.silent_said = True
                self.link._port_silent(self, now - self.started_at)
            return t.probe_retry_s
        return t.hello_retry_s

    async def _converse(self):
        t = self.t
        while not self.stopping:
            if self.failed is not None:
                raise serial.SerialException("%s: %s" % (self.path, self.failed))
            now = time.monotonic()
            tile = self.tile if self._owns_tile() else None
            silent = now - self.last_rx
            if tile is not None and tile.online and silent > t.offline_s:
                self.link._tile_offline(tile, "silent for %.1f s" % silent)
                self.fail_waiters("it fell silent")
            if silent > t.reopen_s:
                raise serial.SerialException("silent for %.1f s, reopening" % silent)
            if tile is None or not tile.online:
                if now - self.hello_at >= self.hello_interval(now):
                    self.hello_at = now
                    self._ask_hello()
            elif self.snapshot_wanted and now - self.snapshot_at >= t.snapshot_retry_s:
                self.snapshot_at = now
                self.send(wire.SNAPSHOT_REQUEST, b"")
            if tile is not None and tile.online:
                for entry in self.pending.values():
                    if now - entry[1] >= t.resend_s:
                        entry[1] = now
                        entry[3] += 1
                        tile.health["resends"] += 1
                        self._write_raw(entry[0])
            if tile is not None:
                self.link._tile_tick(tile, now)
            # Heartbeats only to a tile we use: a clone or a tile of another version is left
            # alone (it shows its idle animation), a port with no tile gets only requests.
            if tile is not None and now - self.last_tx >= t.heartbeat_s:
                self.seq = (self.seq + 1) & 0xFFFF
                self._write_raw(wire.encode_frame(wire.HEARTBEAT, self.seq, wire.heartbeat(0)))
            await asyncio.sleep(t.tick_s)
