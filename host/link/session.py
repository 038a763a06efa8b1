"""One serial port's conversation with the tile behind it.

A PortSession opens the port with pyserial, asks the tile who it is (HELLO),
resyncs it by snapshot, then keeps it: acks its events, resends host
commands until acknowledged, sends heartbeats, and marks it offline when it
falls silent. When the port fails (unplugged, tile rebooting over USB) it
closes it and reopens with backoff. Nothing a tile sends can raise out of
a session: malformed frames are counted, logged and dropped.
"""

import asyncio
import errno
import logging
import os
import time

import serial

from shared_rules import wire

log = logging.getLogger("fairytable.link")

_SEEN = 64  # recent tile seqs remembered to drop resent duplicates


class LinkError(RuntimeError):
    """A tile command the link could not see through, with the reason in words: the tile is
    offline, lacks the capability, refused the command, rebooted or did not answer in time."""


class LinkTimings:
    """Host-side timings in seconds; hardware/protocol.md explains each."""

    tick_s = 0.02               # session housekeeping period (frames are handled on arrival)
    hello_retry_s = 0.5         # HELLO_REQUEST resend until a HELLO arrives
    snapshot_retry_s = 0.3      # SNAPSHOT_REQUEST resend until a SNAPSHOT arrives
    resend_s = 0.1              # resend an unacknowledged command after this long
    heartbeat_s = 1.0           # host -> tile heartbeat period
    offline_s = 3.0             # tile silent this long: offline
    reopen_s = 10.0             # silent this long on an open port: close and reopen it
    backoff_min_s = 0.1         # reopen backoff doubles from here ...
    backoff_max_s = 5.0         # ... up to here
    baudrate = 115200           # ignored by USB CDC and ptys, used by a real UART


class PortSession:
    """The conversation over one serial port; the tile behind it may change."""

    def __init__(self, link, path, timings=None):
        self.link = link
        self.path = path
        self.t = timings or LinkTimings()
        self.ser = None
        self.decoder = wire.Decoder()
        self.tile = None            # TileState once a HELLO arrived
        self.boot_id = None
        self.seq = 0
        self.pending = {}           # seq -> [frame, sent_at, key, attempts]
        self.waiters = {}           # seq of a command -> future of the tile's answer to it
        self.seen = []
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
        if self.tile is not None and self.tile.online and self.tile.session is self:
            self.link._tile_offline(self.tile, "port closed")
        self.fail_waiters("its port %s closed" % self.path)

    def stop(self):
        self.stopping = True

    def fail_waiters(self, why):
        """Commands awaiting an answer will not get one: say why to whoever waits."""
        waiters, self.waiters = self.waiters, {}
        uid = self.tile.uid if self.tile is not None else self.path
        for seq, fut in waiters.items():
            if not fut.done():
                fut.set_exception(LinkError("tile %s did not answer command #%d: %s"
                                            % (uid, seq, why)))

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
        except Exception:  # keep reading whatever one bad frame did to us
            log.exception("%s: frame handling failed", self.path)

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

    # ------------------------------------------------------------ frames in

    def _on_bytes(self, data, now):
        for frame in self.decoder.feed(data):
            self.last_rx = now
            try:
                msg = wire.parse(frame)
            except wire.WireError as e:
                self.link._protocol_error(self, frame, e)
                if frame.type in wire.ACKED:
                    self.send(wire.ACK, wire.ack(frame.seq, wire.ACK_BAD_PAYLOAD))
                continue
            self._on_message(msg, frame.type, now)
        if self.tile is not None:
            self.tile.health["crc_errors"] = self.decoder.crc_errors
            self.tile.health["garbage_bytes"] = self.decoder.garbage_bytes

    def _on_message(self, msg, msg_type, now):
        if msg_type == wire.HELLO:
            self._on_hello(msg)
            return
        if self.tile is None:
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
        if msg_type in wire.ACKED:
            self.send(wire.ACK, wire.ack(msg["seq"]))
            if msg["seq"] in self.seen:
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

    def _on_hello(self, msg):
        if msg["protocol"] != wire.PROTOCOL_VERSION:
            self.link._tile_log(None, "error", "%s: tile speaks protocol %d, host %d"
                                % (self.path, msg["protocol"], wire.PROTOCOL_VERSION))
            return
        tile = self.link._tile_hello(self, msg)
        rebooted = self.tile is not tile or self.boot_id != msg["boot_id"]
        self.tile = tile
        if rebooted:
            self.boot_id = msg["boot_id"]
            self.seen = []
            # Commands for a previous boot are moot: the full scene goes again below.
            self.pending = {}
            self.fail_waiters("it rebooted (or another tile answered on its port)")
            self.link._tile_resend_scene(tile, self)
        self.snapshot_wanted = True
        self.snapshot_at = 0.0

    # ------------------------------------------------------------ housekeeping

    async def _converse(self):
        t = self.t
        while not self.stopping:
            if self.failed is not None:
                raise serial.SerialException("%s: %s" % (self.path, self.failed))
            now = time.monotonic()
            tile = self.tile
            silent = now - self.last_rx
            if tile is not None and tile.online and tile.session is self \
                    and silent > t.offline_s:
                self.link._tile_offline(tile, "silent for %.1f s" % silent)
                self.fail_waiters("it fell silent")
            if silent > t.reopen_s:
                raise serial.SerialException("silent for %.1f s, reopening" % silent)
            if tile is None or not tile.online or tile.session is not self:
                if now - self.hello_at >= t.hello_retry_s:
                    self.hello_at = now
                    self.send(wire.HELLO_REQUEST, b"")
            elif self.snapshot_wanted and now - self.snapshot_at >= t.snapshot_retry_s:
                self.snapshot_at = now
                self.send(wire.SNAPSHOT_REQUEST, b"")
            if tile is not None and tile.online and tile.session is self:
                for entry in self.pending.values():
                    if now - entry[1] >= t.resend_s:
                        entry[1] = now
                        entry[3] += 1
                        tile.health["resends"] += 1
                        self._write_raw(entry[0])
            if now - self.last_tx >= t.heartbeat_s:
                self.seq = (self.seq + 1) & 0xFFFF
                self._write_raw(wire.encode_frame(wire.HEARTBEAT, self.seq, wire.heartbeat(0)))
            await asyncio.sleep(t.tick_s)
