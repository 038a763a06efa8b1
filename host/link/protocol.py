"""The link protocol over one port: frames, sequence numbers, acks, resends, heartbeats.

A PortSession sits on a PortTransport (transport.py), which gives it bytes
and the port's life. It asks the tile who it is (HELLO), resyncs it by
snapshot, then keeps it: acks its events, drops resent duplicates, resends
host commands until acknowledged, sends heartbeats, and says the tile is
offline when it falls silent. It counts what went wrong on the line
(``LineCounters``: the one place those counters are written).

What a tile is beyond its port belongs to the table link (tiles.py): the
session tells it, through the public methods of a ``TileRegistry`` (the
TableLink), each HELLO (the table link accepts the tile or refuses it as a
clone), each message from the tile, and the tile going offline or away.

Nothing a tile sends can raise out of a session: malformed frames are counted,
logged and dropped, and a port whose tile cannot be used (another protocol
version, the unique id of a tile online on another port, no tile at all) is
asked again only rarely.
"""

import binascii
import logging
import math

from shared_rules import wire

from .mending import Mended, MendingDecoder
from .timings import LinkTimings, real_clock

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
# Frame sizes the line's timings are worked out for (header, CRC, COBS, delimiter
# included): a heartbeat, a HELLO_REQUEST and its HELLO, a SNAPSHOT_REQUEST and a short
# SNAPSHOT, and the part of a LED_SCENE frame besides its cells.
_HEARTBEAT_BYTES = 14
_HELLO_ROUND_BYTES = 10 + 39
_SNAPSHOT_ROUND_BYTES = 10 + 30
_SCENE_FRAME_BYTES = 11
_TAG_BYTES = 37                 # a TAG frame with one tag and its identity
_TILE_NOISY_RESEND_S = 0.05     # how often a tile resends on a noisy line, at worst
                                # (firmware/link.py: a quarter of 100 ms, or when it may)
_RESEND_BYTES_PER_S = 4000.0    # resent bytes a second at most: a third of a 115200 baud UART
# Reports of a slot's (or dice pocket's) whole state: the newest acted on wins (_current).
_SLOT_REPORTS = (wire.TAG, wire.DICE, wire.SNAPSHOT)


def _older(seq, than):
    """Is tile seq ``seq`` before ``than`` (None: nothing yet), in serial number
    arithmetic (RFC 1982: seqs wrap at 65536)?"""
    return than is not None and 0 < (than - seq) & 0xFFFF < 0x8000


# What a session hands to the table link, once acked and deduplicated.
_TILE_MESSAGES = (wire.SNAPSHOT, wire.TAG, wire.GESTURE, wire.DICE, wire.HEARTBEAT,
                  wire.HEALTH, wire.LOG)


class LinkError(RuntimeError):
    """A tile command the link could not see through, with the reason in words: the tile is
    offline, lacks the capability, refused the command, rebooted or did not answer in time."""


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


def beyond_hello(hello, msg, msg_type):
    """Why a tile's message reaches past what its HELLO announced, or None."""
    if msg_type in (wire.TAG, wire.GESTURE):
        have = hello["readers"] if msg_type == wire.TAG else hello["buttons"]
        what = "readers" if msg_type == wire.TAG else "touch pads"
        if msg["slot"] >= have:
            return ("it reported a %s on slot %d, but its HELLO announced %d %s"
                    % ("tag" if msg_type == wire.TAG else "gesture", msg["slot"], have, what))
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


class LineCounters:
    """What went wrong on the line to one tile, summed over every port it used; written by
    the port sessions only. crc_errors and garbage_bytes: damaged frames and bytes from
    it; resends: commands the host sent again; protocol_errors: frames dropped as
    malformed or beyond what its HELLO announced; host_errors: frames the host failed to
    handle (a host bug); mended: frames mended from damaged copies (mending.py; each of
    those copies counts in crc_errors too); stale: a slot's report (TAG, DICE, or a
    slot of a SNAPSHOT) older than one acted on already, not acted on (a frame mended
    from copies of an earlier report after a newer one came)."""

    NAMES = ("crc_errors", "garbage_bytes", "resends", "protocol_errors", "host_errors",
             "mended", "stale")

    def __init__(self):
        for name in self.NAMES:
            setattr(self, name, 0)

    def as_dict(self):
        return {name: getattr(self, name) for name in self.NAMES}


class LineQuality:
    """How damaged the bytes from one port are lately, and what follows for frames.

    From the frames that arrived whole and the damaged ones the decoder dropped
    (a dropped delimiter merges two frames into one damaged one), over the last
    few hundred frames: ``byte_error`` estimates the chance that a byte is damaged
    (corrupted, or dropped), taken to be the same both ways; ``survival(n)`` the
    chance that a frame of n bytes arrives whole. A clean line has a byte error
    near 0 and every survival near 1.
    """

    _WINDOW = 400       # frames remembered; halved beyond

    def __init__(self):
        self.good = 0.0     # frames that arrived whole
        self.bad = 0.0      # damaged frames dropped
        self.bytes = 0.0    # bytes of both

    def add(self, good, bad, nbytes):
        self.good += good
        self.bad += bad
        self.bytes += nbytes
        if self.good + self.bad > self._WINDOW:
            self.good /= 2
            self.bad /= 2
            self.bytes /= 2

    @property
    def byte_error(self):
        frames = self.good + self.bad
        if self.bad < 0.5 or frames <= 0:
            return 0.0
        mean = max(1.0, self.bytes / frames)
        # One whole frame assumed (a prior), so that a line with no frame whole yet
        # is very bad, not infinitely bad.
        whole = (self.good + 1.0) / (frames + 1.0)
        return min(0.5, 1.0 - whole ** (1.0 / mean))

    def survival(self, nbytes):
        return (1.0 - self.byte_error) ** nbytes


class RoundTrip:
    """The resend timeout from measured round trips (RFC 6298: the smoothed round trip
    and four times its deviation), between ``low`` and ``high``; ``initial`` until a
    first round trip is measured. A resent command is measured from its last copy,
    though its ack may answer an earlier one (Karn would not measure it): on a line
    that loses frames at random, few commands are acked at their first sending, and
    a round trip measured too short costs only a few resent bytes."""

    def __init__(self, initial, low, high):
        self.initial = initial
        self.low = low
        self.high = high
        self.srtt = None
        self.rttvar = None

    def sample(self, rtt):
        if self.srtt is None:
            self.srtt = rtt
            self.rttvar = rtt / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt

    @property
    def timeout(self):
        if self.srtt is None:
            return self.initial
        return min(self.high, max(self.low, self.srtt + 4 * self.rttvar))


class _Pending:
    """A command sent and not yet acknowledged."""

    __slots__ = ("frame", "first_sent", "sent_at", "key", "attempts")

    def __init__(self, frame, sent_at, key):
        self.frame = frame
        self.first_sent = sent_at
        self.sent_at = sent_at
        self.key = key
        self.attempts = 0


class PortSession:
    """The protocol over one port; the tile behind it may change.

    ``registry``: the table link (its tile_* and port_* methods). ``configured``:
    the port was named by the operator; it is asked for HELLO every
    ``hello_retry_s`` however long nothing answers. A discovered port that has not
    answered as a tile for ``probe_window_s`` is asked only every ``probe_retry_s``.

    Public state the table link reads: ``uid`` (the tile in use on this port, or
    None), ``online``, ``hello``, ``snapshot_wanted`` (its snapshot is not in yet),
    ``conflict``, ``incompatible``, ``answered``, ``silent_said``, ``path``.
    """

    def __init__(self, registry, path, timings=None, clock=real_clock, configured=True):
        self.registry = registry
        self.path = path
        self.t = timings or LinkTimings()
        self.clock = clock
        self.configured = configured
        self.transport = None       # set by whoever builds the pair (attach)
        self.decoder = MendingDecoder()
        self.uid = None             # the tile in use on this port, once its HELLO was accepted
        self.hello = None           # its HELLO
        self.online = False         # it is in use and heard from
        self.counters = None        # its LineCounters (the table link's TileState keeps them)
        self.boot_id = None
        self.seq = 0
        self.pending = {}           # seq -> _Pending
        self.waiters = {}           # seq of a command -> future of the tile's answer to it
        self.seen = []              # seqs of the tile's acked frames acted on, oldest first
        self.tile_seq = None        # the newest seq the tile sent (serial number arithmetic)
        self.slot_seqs = {}         # ("s", slot) or ("p", pocket) -> seq it was last set from
        self.last_rx = 0.0          # the last whole frame
        self.last_bytes = None      # the last bytes, whole or damaged
        self.last_heard = 0.0       # the last message of the tile in use
        self.last_tx = 0.0
        self.hello_at = 0.0
        self.snapshot_wanted = False
        self.snapshot_at = 0.0
        self.snapshot_in_at = 0.0     # when its last snapshot came (see LinkTimings.resync_s)
        self.resyncing = False          # the snapshot asked for is a periodic resync
        self.stopping = False
        self.started_at = clock()
        self.answered = False       # a frame of a tile ever arrived on this port
        self.silent_said = False    # "does not answer as a tile" was said
        self.conflict = None        # {"uid", "owner"}: a clone of a tile online elsewhere
        self.incompatible = None    # {"uid", "protocol"}: a tile of another protocol version
        # What went wrong on this port before any tile was known on it (nobody to charge).
        self.port_counters = LineCounters()
        self._decoder_seen = (0, 0, 0)  # decoder (crc_errors, garbage_bytes, mended) charged
        self._decoder_read = (0, 0, 0)  # decoder (frames, damaged, garbage bytes) measured
        self.quality = LineQuality()
        self.round_trip = RoundTrip(self.t.resend_s, self.t.resend_min_s, self.t.resend_max_s)
        self.last_beat = 0.0        # the last heartbeat sent
        self._log_budget = Budget(2.0, 20)  # log lines about one port's bad frames

    def attach(self, transport):
        """The transport this session writes to (it calls back connected/received/...)."""
        self.transport = transport

    @property
    def is_open(self):
        return self.transport is not None and self.transport.is_open

    # ------------------------------------------------------------ the transport's calls

    def connected(self, now):
        self.decoder.reset()
        self.last_rx = now
        self.last_tx = 0.0
        self.hello_at = 0.0
        # A leading delimiter ends whatever partial frame the tile had buffered.
        self._write(b"\x00", now)

    def disconnected(self, why):
        # Only the session the tile talks through now may declare it gone (it may have
        # moved to another port meanwhile).
        self._went_offline("port closed")
        self.fail_waiters("its port %s closed" % self.path)

    def received(self, data, now):
        self.last_bytes = now
        try:
            self._on_bytes(data, now)
        except Exception:  # keep reading whatever one bad read did to us
            self._count("host_errors")
            log.exception("%s: handling what the tile sent failed", self.path)

    # ------------------------------------------------------------ the table link's calls

    def stop(self):
        self.stopping = True
        self.registry.port_forgotten(self)

    def fail_waiters(self, why):
        """Commands awaiting an answer will not get one: say why to whoever waits."""
        waiters, self.waiters = self.waiters, {}
        uid = self.uid if self.uid is not None else self.path
        for seq, fut in waiters.items():
            if not fut.done():
                fut.set_exception(LinkError("tile %s did not answer command #%d: %s"
                                            % (uid, seq, why)))

    def forget_tile(self, why):
        """The tile this port talked to is no longer ours (it answers elsewhere, another
        tile answered here): drop what was meant for it."""
        self.uid = None
        self.hello = None
        self.online = False
        self.counters = None
        self.boot_id = None
        self.pending = {}
        self.seen = []
        self.slot_seqs = {}
        self.tile_seq = None
        self.snapshot_wanted = False
        self.fail_waiters(why)

    def holds_tile(self, now):
        """The tile in use here is online, heard lately, on an open port: a second port
        answering with its unique id is a clone, not the tile moving."""
        return (self.online and self.is_open and not self.stopping
                and now - self.last_heard < self.t.offline_s)

    def refuse_clone(self, uid, owner_path):
        """This port's tile has the unique id ``uid``, online on ``owner_path``: ignore this
        port until the owner goes away. True if that is news (to be said once)."""
        seen = {"uid": uid, "owner": owner_path}
        if self.conflict == seen:
            return False
        self.conflict = seen
        return True

    def ask_hello_soon(self):
        self.hello_at = 0.0

    def send(self, msg_type, payload, key=None):
        """Frame and send a message; acked types are resent until acknowledged. ``key``:
        a new command with the key of an unacked one replaces it. Returns the seq."""
        now = self.clock()
        self.seq = (self.seq + 1) & 0xFFFF
        frame = wire.encode_frame(msg_type, self.seq, payload)
        if msg_type in wire.ACKED:
            if key is not None:
                for s in [s for s, p in self.pending.items() if p.key == key]:
                    del self.pending[s]
            self.pending[self.seq] = _Pending(frame, now, key)
        self._write(frame, now)
        return self.seq

    def command(self, msg_type, payload, loop):
        """Send a command whose answer is a message of its own (WRITE_RESULT): (seq, a
        future of that message). Call ``withdraw(seq)`` when done waiting."""
        seq = self.send(msg_type, payload)
        fut = self.waiters[seq] = loop.create_future()
        return seq, fut

    def withdraw(self, seq):
        """Stop resending command ``seq`` and waiting for its answer."""
        self.waiters.pop(seq, None)
        self.pending.pop(seq, None)

    def withdraw_keys(self, wanted):
        """Stop resending the unacked commands whose key ``wanted(key)`` accepts; their
        keys, oldest first (their content is to go in a newer command)."""
        seqs = [s for s, p in self.pending.items() if p.key is not None and wanted(p.key)]
        return [self.pending.pop(s).key for s in seqs]

    def unacked(self):
        """Sequence numbers of commands sent and not yet acknowledged."""
        return sorted(self.pending)

    # ------------------------------------------------------------ bytes out

    def _write(self, data, now):
        if self.transport is not None:
            self.transport.write(data)
        self.last_tx = now

    def _ask_hello(self, now):
        """HELLO_REQUEST, numbered so that no byte of it is Ctrl-C or Ctrl-D: a port that
        turns out to be a Pico at a plain MicroPython REPL is not interrupted or reset."""
        for _ in range(1024):
            self.seq = (self.seq + 1) & 0xFFFF
            frame = wire.encode_frame(wire.HELLO_REQUEST, self.seq, b"")
            if not any(b in frame for b in _REPL_KEYS):
                break
        self._write(frame, now)

    def _ack(self, seq, status=wire.ACK_OK):
        self.send(wire.ACK, wire.ack(seq, status))

    # ------------------------------------------------------------ counting

    def _count(self, counter):
        """Charge a problem to the tile of this port, or to the port before one is known."""
        counters = self.counters if self.counters is not None else self.port_counters
        setattr(counters, counter, getattr(counters, counter) + 1)

    def _charge_decoder(self):
        """Damaged bytes count against the tile they came from, summed over its ports."""
        crc, garbage = self.decoder.crc_errors, self.decoder.garbage_bytes
        mended = self.decoder.mended
        seen_crc, seen_garbage, seen_mended = self._decoder_seen
        self._decoder_seen = (crc, garbage, mended)
        if self.counters is not None:
            self.counters.crc_errors += crc - seen_crc
            self.counters.garbage_bytes += garbage - seen_garbage
            self.counters.mended += mended - seen_mended

    def _say(self, level, fmt, *args):
        """Log a line about a tile's misbehaviour, a few a second at most per port."""
        if self._log_budget.take(self.clock()):
            log.log(level, fmt, *args)
        else:
            log.debug(fmt, *args)

    # ------------------------------------------------------------ frames in

    def _on_bytes(self, data, now):
        good_bytes = 0
        for frame in self.decoder.feed(data):
            self.last_rx = now
            if not isinstance(frame, Mended):   # a mended frame's bytes came damaged
                good_bytes += len(frame.payload) + 10   # header, CRC, COBS and delimiter
            try:
                self._on_frame(frame, now)
            except Exception:  # lose this frame only, not the rest of the read
                self._count("host_errors")
                log.exception("%s: handling %s failed; dropped it", self.path,
                              describe_frame(frame))
        self._charge_decoder()
        self._measure_line(good_bytes)

    def _measure_line(self, good_bytes):
        d = self.decoder
        frames = d.frames
        damaged = d.crc_errors + d.cobs_errors + d.short_frames + d.oversize + d.decoder_errors
        garbage = d.garbage_bytes
        seen_frames, seen_damaged, seen_garbage = self._decoder_read
        self._decoder_read = (frames, damaged, garbage)
        self.quality.add(frames - seen_frames, damaged - seen_damaged,
                         good_bytes + garbage - seen_garbage)

    def _drop(self, frame, why):
        self._count("protocol_errors")
        self._say(logging.WARNING, "%s: dropped %s: %s", self.path, describe_frame(frame), why)

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
        if self.uid is None:
            if self.conflict is not None or self.incompatible is not None:
                # A tile we do not use: quiet its resends, ignore what it says.
                if msg_type in wire.ACKED:
                    self._ack(msg["seq"])
                return
            # Talking, but we do not know who: ask (rate-limited by the housekeeping tick).
            self.hello_at = 0.0
            return
        self.last_heard = now
        if not self.online:
            self.hello_at = 0.0   # back from silence: check it did not reboot meanwhile
        if msg_type == wire.ACK:
            entry = self.pending.pop(msg["ack"], None)
            if entry is not None:
                self.round_trip.sample(now - entry.sent_at)
            if entry is not None and msg["status"] != "ok":
                self.registry.tile_refused(self, self.uid, msg["ack"], msg["status"])
                fut = self.waiters.pop(msg["ack"], None)
                if fut is not None and not fut.done():
                    fut.set_exception(LinkError("tile %s refused command #%d: %s"
                                                % (self.uid, msg["ack"], msg["status"])))
            return
        problem = beyond_hello(self.hello, msg, msg_type)
        if problem is not None:
            self._count("protocol_errors")
            self._say(logging.WARNING, "%s: dropped %s #%d from tile %s: %s", self.path,
                      msg["type"], msg["seq"], self.uid, problem)
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
        if msg_type in _SLOT_REPORTS and not self._current(msg, msg_type):
            return
        if msg_type == wire.SNAPSHOT:
            self.snapshot_wanted = False
            self.snapshot_in_at = now
            if self.resyncing:
                msg["resync"] = True    # tiles.py counts what it changes
                self.resyncing = False
        if msg_type in _TILE_MESSAGES:
            self.registry.tile_message(self, self.uid, msg)
        elif msg_type == wire.WRITE_RESULT:
            fut = self.waiters.pop(msg["ack"], None)
            if fut is not None and not fut.done():
                fut.set_result(msg)
            else:
                log.info("%s: tile %s answered write #%d after the host gave up: %s",
                         self.path, self.uid, msg["ack"], msg["reason"])

    def _duplicate(self, seq):
        """A resend of a frame acted on already: a seq remembered, and not far behind the
        newest the tile sent. (A tile's seq wraps at 65536: after hours of heartbeats a new
        event may carry the seq of one long past.)"""
        return (seq in self.seen and self.tile_seq is not None
                and (self.tile_seq - seq) & 0xFFFF < _DUP_WINDOW)

    def _current(self, msg, msg_type):
        """Keep only what is newer than the host knows of each slot (or pocket).

        A TAG or DICE carries its slot's whole state, a SNAPSHOT every slot's as of its
        seq. Frames from one tile arrive in order, but a frame mended from damaged copies
        (mending.py) may be an earlier report whose copies the mender kept while the
        newer one came whole: acted on, it would put the slot back to a state the tile
        left long ago, and the tile, whose state did not change, would never correct it.
        So each slot remembers the seq of the report it was last set from; an older one
        is acked, counted (``stale``) and dropped. Returns False if nothing is left of
        ``msg`` (a SNAPSHOT loses only its stale slots)."""
        seq = msg["seq"]
        known = self.slot_seqs
        if msg_type == wire.SNAPSHOT:
            slots = [s for s in msg["slots"] if not self._stale(seq, known.get(("s", s["slot"])))]
            pockets = [p for p in msg["pockets"]
                       if not self._stale(seq, known.get(("p", p["pocket"])))]
            stale = len(msg["slots"]) + len(msg["pockets"]) - len(slots) - len(pockets)
            if stale:
                self._count("stale")
                log.debug("%s: tile %s: %d slots of snapshot #%d are older than reports "
                          "acted on; kept the newer", self.path, self.uid, stale, seq)
                msg["slots"] = slots
                msg["pockets"] = pockets
            for s in slots:
                known[("s", s["slot"])] = seq
            for p in pockets:
                known[("p", p["pocket"])] = seq
            return True
        key = ("s", msg["slot"]) if msg_type == wire.TAG else ("p", msg["pocket"])
        if self._stale(seq, known.get(key)):
            self._count("stale")
            log.debug("%s: tile %s: dropped %s #%d: older than #%d, acted on already",
                      self.path, self.uid, msg["type"], seq, known[key])
            return False
        known[key] = seq
        return True

    def resync(self):
        """Ask the tile for its snapshot again (what it changes is counted: tiles.py)."""
        if self.online and not self.snapshot_wanted:
            self.snapshot_wanted = self.resyncing = True
            self.snapshot_at = 0.0

    def _stale(self, seq, known):
        """Is a report of seq ``seq`` older than one acted on at seq ``known``? Only while
        ``known`` is not ahead of the newest seq the tile sent: after 65,536 frames the
        tile's seq comes round, and a new report must not look older than an old one."""
        return _older(seq, known) and not _older(self.tile_seq, known)

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
            self.registry.port_compatible(self, uid)
        if self.uid is not None and self.uid != uid:
            # Another tile answers on this port (swapped behind a hub, reflashed id): the
            # one we knew here is not reachable here any more.
            old = self.uid
            why = "tile %s answered on its port %s" % (uid, self.path)
            self.forget_tile(why)
            self.registry.tile_lost(self, old, why)
        accepted = self.registry.tile_hello(self, msg, uid, now)
        if accepted is None:        # refused: it is online on another port
            if self.uid is not None:
                self.forget_tile("its unique id answers on another port")
            self.hello_at = now
            return
        counters, came_online = accepted
        self.conflict = None
        rebooted = self.uid != uid or self.boot_id != msg["boot_id"]
        self.uid = uid
        self.hello = msg
        self.online = True
        self.counters = counters
        self.last_heard = now
        # A tile answering HELLO_REQUEST drops its unacked events (firmware/link.py): none
        # of the seqs remembered can come again, and after a long absence the tile's seq
        # may have come round to them.
        self.seen = []
        self.slot_seqs = {}
        self.tile_seq = msg["seq"]
        if rebooted:
            self.boot_id = msg["boot_id"]
            # Commands for a previous boot are moot: the full scene goes again.
            self.pending = {}
            self.fail_waiters("it rebooted (or another tile answered on its port)")
        if came_online:
            # Back from a reboot, or from an absence it survived (a tile powered by the
            # table keeps running through a USB unplug): what was set meanwhile reaches
            # it only now, and a rebooted tile forgot it all.
            self.registry.tile_restore(self, uid)
        self.snapshot_wanted = True
        self.snapshot_at = 0.0
        self.resyncing = False

    def _went_offline(self, why):
        if self.uid is not None and self.online:
            self.online = False
            self.registry.tile_offline(self, self.uid, why)

    def _incompatible_tile(self, uid, protocol, now):
        """A tile that speaks another protocol version: not used, recorded, asked rarely."""
        if self.uid is not None:
            old = self.uid
            why = "it now speaks protocol %d; this host speaks %d" % (protocol,
                                                                     wire.PROTOCOL_VERSION)
            self.forget_tile("it speaks protocol %d" % protocol)
            self.registry.tile_lost(self, old, why)
        if uid is None and self.incompatible is not None \
                and self.incompatible["protocol"] == protocol:
            uid = self.incompatible["uid"]  # a frame that does not say who: the same tile
        seen = {"uid": uid, "protocol": protocol}
        if self.incompatible != seen:
            self.incompatible = seen
            self.conflict = None
            self.registry.port_incompatible(self, uid, protocol)
        if self.hello_at == 0.0:
            self.hello_at = now

    # ------------------------------------------------------------ timings by the line

    def hello_interval(self, now):
        """How often this port is asked for HELLO while no usable tile answers on it: on a
        noisy line as much more often as a request and its answer are lost."""
        t = self.t
        if self.conflict is not None or self.incompatible is not None:
            return t.unusable_retry_s
        if not self.configured and not self.answered \
                and now - self.started_at >= t.probe_window_s:
            if not self.silent_said:
                self.silent_said = True
                self.registry.port_silent(self, now - self.started_at)
            return t.probe_retry_s
        return max(t.resend_min_s, t.hello_retry_s * self.quality.survival(_HELLO_ROUND_BYTES))

    def offline_after(self):
        """How long the tile may be silent (not one whole frame) before it is taken for
        gone: ``offline_s`` on a clean line; on a noisy one, as many of the tile's
        heartbeat periods as make losing every heartbeat by chance less likely than
        ``offline_chance``, up to ``offline_max_s``."""
        t = self.t
        # A heartbeat half as long again: the estimate is of the last few hundred frames,
        # and a tile starved of time (a busy host) beats late.
        lost = 1.0 - self.quality.survival(_HEARTBEAT_BYTES * 3 // 2)
        if lost <= 0.0:
            return t.offline_s
        periods = math.log(t.offline_chance) / math.log(min(lost, 0.999))
        return min(t.offline_max_s, max(t.offline_s, periods * t.tile_heartbeat_s))

    def heartbeat_interval(self):
        """The host's heartbeat period: ``heartbeat_s`` on a clean line; on a noisy one
        short enough that the tile still hears the host several times a second (a tile
        that does not hear the host stops resending its events)."""
        t = self.t
        if self.quality.byte_error <= 0.0:
            return t.heartbeat_s
        # About five whole heartbeats a second: the tile resends its events only a few
        # hundred bytes past the last frame it heard from the host (firmware/link.py).
        return max(t.heartbeat_min_s, 0.2 * self.quality.survival(_HEARTBEAT_BYTES))

    def delivery_s(self):
        """How long an event of the tile (a TAG with an identity) is expected to take to
        arrive whole on this line, resent as the tile resends on a noisy line: 0 on a
        clean line."""
        if self.quality.byte_error <= 0.0:
            return 0.0
        return _TILE_NOISY_RESEND_S / self.quality.survival(_TAG_BYTES)

    def longest_frame(self):
        """The longest frame (bytes) that arrives whole at least half the time: commands
        that can be split (LED scenes) are split to fit it."""
        error = self.quality.byte_error
        if error <= 0.0:
            return wire.MAX_FRAME
        return int(math.log(0.5) / math.log(1.0 - error))

    def scene_cells_per_frame(self):
        """How many cells' scenes go in one LED_SCENE frame on this line."""
        fit = (self.longest_frame() - _SCENE_FRAME_BYTES) // (wire.SCENE_BYTES + 1)
        return max(1, min(wire.MAX_SCENE_CELLS, fit))

    # ------------------------------------------------------------ housekeeping

    def tick(self, now):
        """Housekeeping, called by the transport while the port is open."""
        t = self.t
        silent = now - self.last_rx
        offline_after = self.offline_after()
        if self.online and silent > offline_after:
            self._went_offline("silent for %.1f s" % silent)
            self.fail_waiters("it fell silent")
        if silent > t.reopen_s + offline_after - t.offline_s:
            self.transport.hang_up("silent for %.1f s, reopening" % silent)
            return
        if not self.online:
            if now - self.hello_at >= self.hello_interval(now):
                self.hello_at = now
                self._ask_hello(now)
        elif t.resync_s is not None and now - self.snapshot_in_at >= t.resync_s:
            self.resync()
        if self.online and self.snapshot_wanted and now - self.snapshot_at >= max(
                t.resend_min_s, t.snapshot_retry_s
                * self.quality.survival(_SNAPSHOT_ROUND_BYTES)):
            self.snapshot_at = now
            self.send(wire.SNAPSHOT_REQUEST, b"")
        if self.online:
            self._resend(now)
        # Heartbeats only to a tile we use: a clone or a tile of another version is left
        # alone (it shows its idle animation), a port with no tile gets only requests.
        # On a clean line only when nothing else was sent; on a noisy one on time anyway
        # (a heartbeat is short: the likeliest frame to get through).
        beat = self.heartbeat_interval()
        quiet = now - self.last_tx >= beat or self.quality.byte_error > 0.0
        if self.uid is not None and quiet and now - self.last_beat >= beat:
            self.last_beat = now
            self.seq = (self.seq + 1) & 0xFFFF
            self._write(wire.encode_frame(wire.HEARTBEAT, self.seq, wire.heartbeat(0)), now)

    def _resend(self, now):
        """Resend the commands unacked after the resend timeout, oldest first, within a
        byte budget (a noisy line must not turn resends into a flood)."""
        timeout = self.round_trip.timeout
        allowance = max(_RESEND_BYTES_PER_S * self.t.tick_s, 64)    # a scene frame at least
        for entry in sorted(self.pending.values(), key=lambda e: e.first_sent):
            if now - entry.sent_at < timeout:
                continue
            if allowance < len(entry.frame):
                break
            allowance -= len(entry.frame)
            entry.sent_at = now
            entry.attempts += 1
            self.counters.resends += 1
            self._write(entry.frame, now)
