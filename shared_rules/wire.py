"""The tile <-> host wire codec: COBS frames with version, type, sequence and CRC-32.

One module serves both ends: the host imports it under CPython, and it is
deployed unchanged to the tiles (MicroPython 1.23+). hardware/protocol.md is
the spec; this module is its executable form.

A frame on the wire is ``COBS(body) 0x00`` where

    body = version u8 | type u8 | seq u16 | payload | crc32 u32

all integers big-endian, CRC-32 (``binascii.crc32``) over version..payload.

Layers, each usable alone:

- ``cobs_encode`` / ``cobs_decode``: byte stuffing.
- ``encode_frame(type, seq, payload)`` -> bytes ready to write;
  ``Decoder.feed(data)`` -> whole ``Frame`` objects. The decoder never
  raises on any input, buffers at most the COBS form of a ``max_frame``
  body, resynchronises at the next 0x00 after garbage and drops (and
  counts) frames with a bad CRC.
- Message builders (``hello(...)``, ``tag(...)``, ``led_scene(...)``, ...)
  return payload bytes; ``parse(frame)`` turns a frame into a dict with a
  ``"type"`` name and the message fields, or raises ``WireError`` (a
  ``ValueError``) saying what is wrong with which field.

>>> data = encode_frame(TAG, 7, tag(3, [(b"\\x04\\x01\\x02\\x03\\x04\\x05\\x06", None)]))
>>> d = Decoder()
>>> msg = parse(d.feed(data)[0])
>>> msg["type"], msg["seq"], msg["slot"], msg["tags"][0]["uid"]
('tag', 7, 3, b'\\x04\\x01\\x02\\x03\\x04\\x05\\x06')
"""

import binascii

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

PROTOCOL_VERSION = 1

# Largest decoded body (header + payload + CRC) either side will accept.
MAX_FRAME = 512
_HEADER_LEN = const(4)
_CRC_LEN = const(4)
MAX_PAYLOAD = MAX_FRAME - _HEADER_LEN - _CRC_LEN

# Message types. Tile -> host are 0x01..0x3f, host -> tile 0x40..0x7f,
# either direction 0x80.. (see hardware/protocol.md).
HELLO = 0x01
SNAPSHOT = 0x02
TAG = 0x03
GESTURE = 0x04
DICE = 0x05
HEALTH = 0x06
LOG = 0x07
WRITE_RESULT = 0x08
HELLO_REQUEST = 0x40
SNAPSHOT_REQUEST = 0x41
LED_SCENE = 0x42
LED_BRIGHTNESS = 0x43
SET_CONFIG = 0x44
REBOOT = 0x45
WRITE_IDENTITY = 0x46
FIELD_NEIGHBOURS = 0x47
ACK = 0x80
HEARTBEAT = 0x81

TYPE_NAMES = {
    HELLO: "hello", SNAPSHOT: "snapshot", TAG: "tag", GESTURE: "gesture", DICE: "dice",
    HEALTH: "health", LOG: "log", HELLO_REQUEST: "hello_request",
    SNAPSHOT_REQUEST: "snapshot_request", LED_SCENE: "led_scene",
    LED_BRIGHTNESS: "led_brightness", SET_CONFIG: "set_config", REBOOT: "reboot",
    ACK: "ack", HEARTBEAT: "heartbeat", WRITE_IDENTITY: "write_identity",
    WRITE_RESULT: "write_result", FIELD_NEIGHBOURS: "field_neighbours",
}

# Messages the receiver acknowledges with ACK; the sender resends them until it is.
# Each carries full state (or is deduplicated by seq), so a repeat is harmless.
# Requests (HELLO_REQUEST, SNAPSHOT_REQUEST) are not acked: their answer is the ack.
ACKED = (TAG, GESTURE, DICE, LED_SCENE, LED_BRIGHTNESS, SET_CONFIG, REBOOT, WRITE_IDENTITY,
         WRITE_RESULT, FIELD_NEIGHBOURS)

# ACK status codes.
ACK_OK = 0
ACK_UNKNOWN_TYPE = 1
ACK_BAD_PAYLOAD = 2
ACK_UNSUPPORTED = 3
ACK_STATUS_NAMES = {ACK_OK: "ok", ACK_UNKNOWN_TYPE: "unknown_type",
                    ACK_BAD_PAYLOAD: "bad_payload", ACK_UNSUPPORTED: "unsupported"}

# Gesture kinds.
TAP = 1
DOUBLE_TAP = 2
HOLD = 3
GESTURE_NAMES = {TAP: "tap", DOUBLE_TAP: "double", HOLD: "hold"}

# LED scene of one cell: 4 segments (N, E, S, W) x 6 bytes (effect, r, g, b, a, b), as
# shared_rules/led_scene.py defines it (firmware/effects.py renders it). The codec carries
# it opaque.
SCENE_BYTES = 24
MAX_SCENE_CELLS = 8

# Log levels.
LOG_LEVELS = {0: "debug", 1: "info", 2: "warning", 3: "error"}

# Capability bits in HELLO.
CAP_IDENTITY = 1  # reads the NTAG identity page written by enrollment
CAP_WATCHDOG = 2
CAP_WRITE_IDENTITY = 4  # writes identity records for enrollment (WRITE_IDENTITY)
CAP_FIELD_NEIGHBOURS = 8  # takes its readers' neighbours from the host (FIELD_NEIGHBOURS)

# SET_CONFIG keys.
CONFIG_ARRIVE_POLLS = 1
CONFIG_GONE_POLLS = 2
CONFIG_HOST_TIMEOUT_MS = 3
CONFIG_HEALTH_PERIOD_MS = 4
CONFIG_LED_BUDGET_MA = 5      # the LEDs' current budget in mA (firmware/effects.py)
CONFIG_NAMES = {CONFIG_ARRIVE_POLLS: "arrive_polls", CONFIG_GONE_POLLS: "gone_polls",
                CONFIG_HOST_TIMEOUT_MS: "host_timeout_ms",
                CONFIG_HEALTH_PERIOD_MS: "health_period_ms",
                CONFIG_LED_BUDGET_MA: "led_budget_ma"}

# REBOOT modes: an optional byte; an empty payload is mode 0, a normal reboot.
REBOOT_MAINTENANCE = 1    # the next boot skips the tile: the REPL is free for mpremote
REBOOT_BOOTLOADER = 2     # the UF2 bootloader (machine.bootloader())

MAX_TAGS = 12     # tags reported per slot: a card and pawns, a Fight Club wagon's five
#                   creatures and one more (a sixth is seen, to be refused in words), the
#                   Dragon Inn's location card and ten tokens and one more (hardware/stacks.md)
_MAX_UID = const(10)       # ISO 14443-3A triple-size UID
_MAX_IDENTITY = const(16)
_RECORD_LEN = const(16)    # an identity record: NTAG pages 4..7 (shared_rules/tag_identity.py)
_MAX_REASON = const(64)
_MAX_SLOTS = const(8)      # readers of a tile


class WireError(ValueError):
    """A frame or message that does not follow hardware/protocol.md."""


# ---------------------------------------------------------------- COBS

def cobs_encode(data):
    """Byte-stuff ``data`` so the result contains no 0x00 (no delimiter added)."""
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Undo ``cobs_encode``; raise WireError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise WireError("COBS: malformed at offset %d" % i)
        end = i + code
        if end > n:
            raise WireError("COBS: malformed at offset %d" % i)
        j = i + 1
        while j < end:
            b = data[j]
            if b == 0:
                raise WireError("COBS: malformed at offset %d" % j)
            out.append(b)
            j += 1
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# ---------------------------------------------------------------- frames

def _u16(v):
    return bytes(((v >> 8) & 0xFF, v & 0xFF))


def _u32(v):
    return bytes(((v >> 24) & 0xFF, (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF))


def encode_frame(msg_type, seq, payload=b"", version=PROTOCOL_VERSION):
    """Build the bytes of one frame, delimiter included."""
    buf = bytearray(frame_room(len(payload)))
    n = encode_frame_into(buf, msg_type, seq, payload, version)
    return bytes(memoryview(buf)[:n])


def frame_room(payload_len):
    """The bytes ``encode_frame_into`` needs for a payload of ``payload_len`` bytes."""
    body = _HEADER_LEN + payload_len + _CRC_LEN
    return body + 2 + body // 254


def encode_frame_into(buf, msg_type, seq, payload=b"", version=PROTOCOL_VERSION):
    """Write one frame, delimiter included, into ``buf`` (a bytearray of at least
    ``frame_room(len(payload))`` bytes); returns its length.

    Nothing as big as the frame is allocated: a tile, whose fragmented heap may have no
    such block, encodes every frame in one buffer it made at start-up. The body (header,
    payload, CRC) is written to the end of the room, then byte-stuffed forward in place:
    the COBS output never overtakes the body it reads.
    """
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise WireError("payload of %d bytes exceeds the %d-byte limit" % (n, MAX_PAYLOAD))
    body = _HEADER_LEN + n + _CRC_LEN
    at = 2 + body // 254
    if len(buf) < at + body:
        raise WireError("a buffer of %d bytes cannot hold a frame of %d" % (len(buf), body))
    buf[at] = version & 0xFF
    buf[at + 1] = msg_type & 0xFF
    buf[at + 2] = (seq >> 8) & 0xFF
    buf[at + 3] = seq & 0xFF
    buf[at + _HEADER_LEN:at + _HEADER_LEN + n] = payload
    crc = binascii.crc32(memoryview(buf)[at:at + _HEADER_LEN + n]) & 0xFFFFFFFF
    k = at + _HEADER_LEN + n
    buf[k] = crc >> 24
    buf[k + 1] = (crc >> 16) & 0xFF
    buf[k + 2] = (crc >> 8) & 0xFF
    buf[k + 3] = crc & 0xFF
    # COBS, as cobs_encode does it.
    code_at = 0
    o = 1
    code = 1
    for i in range(at, at + body):
        b = buf[i]
        if b == 0:
            buf[code_at] = code
            code_at = o
            o += 1
            code = 1
        else:
            buf[o] = b
            o += 1
            code += 1
            if code == 0xFF:
                buf[code_at] = code
                code_at = o
                o += 1
                code = 1
    buf[code_at] = code
    buf[o] = 0
    return o + 1


def encode_frame_pieces(write, buf, msg_type, seq, pieces, version=PROTOCOL_VERSION):
    """Write one frame whose payload is ``pieces`` (bytes-like) joined: the bytes
    ``encode_frame`` returns for that payload, through ``write`` (bytes -> bool) in parts
    of at most ``len(buf)`` bytes, each encoded in ``buf`` (a bytearray or memoryview).

    For a tile: nothing as long as the payload is allocated, so a payload longer than its
    transmit buffer (a TAG of twelve tags, 290 bytes) is sent from short pieces however
    fragmented its heap. The CRC is summed piece by piece; each COBS block's code byte is
    found by looking ahead for its zero. Returns the frame's length, or 0 if a write failed
    (the host drops the damaged frame; the caller's resend makes it good).
    """
    n = 0
    for p in pieces:
        n += len(p)
    if n > MAX_PAYLOAD:
        raise WireError("payload of %d bytes exceeds the %d-byte limit" % (n, MAX_PAYLOAD))
    head = bytes((version & 0xFF, msg_type & 0xFF, (seq >> 8) & 0xFF, seq & 0xFF))
    crc = binascii.crc32(head)
    for p in pieces:
        crc = binascii.crc32(p, crc)
    crc &= 0xFFFFFFFF
    tail = bytes((crc >> 24, (crc >> 16) & 0xFF, (crc >> 8) & 0xFF, crc & 0xFF))
    out = memoryview(buf)
    size = len(out)
    last = len(pieces) + 1
    o = 0               # bytes of buf in use
    total = 0
    ok = True
    k = 0               # the cursor: piece k, byte at
    at = 0
    while True:
        # This block's run of non-zero bytes (at most 254) and whether a zero ends it.
        run = 0
        rk = k
        ra = at
        zero = False
        while run < 254 and rk <= last:
            s = head if rk == 0 else pieces[rk - 1] if rk <= len(pieces) else tail
            if ra >= len(s):
                rk += 1
                ra = 0
            elif s[ra] == 0:
                zero = True
                break
            else:
                run += 1
                ra += 1
        run += 1        # the code byte, then the run
        code = True
        while run:
            if code:
                out[o] = run
                code = False
            else:
                while True:
                    s = head if k == 0 else pieces[k - 1] if k <= len(pieces) else tail
                    if at < len(s):
                        break
                    k += 1
                    at = 0
                out[o] = s[at]
                at += 1
            o += 1
            run -= 1
            if o == size:
                ok = write(out[:o]) and ok
                total += o
                o = 0
        if zero:
            k = rk
            at = ra + 1
        elif rk > last:
            break
    out[o] = 0
    o += 1
    ok = write(out[:o]) and ok
    return total + o if ok else 0


class Frame:
    """One frame that passed COBS and CRC checks (payload not yet interpreted)."""

    __slots__ = ("version", "type", "seq", "payload")

    def __init__(self, version, msg_type, seq, payload):
        self.version = version
        self.type = msg_type
        self.seq = seq
        self.payload = payload


class Decoder:
    """Streaming frame decoder: ``feed(bytes)`` -> list of whole frames.

    Never raises on any input. Memory is bounded by ``max_frame``: a run of
    bytes longer than the COBS form of a ``max_frame`` body is discarded up to
    the next 0x00, and so is a frame whose body decodes longer than
    ``max_frame`` (both ``oversize``). Counters: ``frames``, ``crc_errors``,
    ``cobs_errors``, ``short_frames``, ``oversize``, ``garbage_bytes``, and
    ``decoder_errors``: a bug in the decoder itself (any exception inside
    ``feed``), counted, after which the partial frame is forgotten.

    With ``report=True`` (``fairytable sniff``), what is dropped is returned too,
    in order among the frames, as a tuple ``(reason, size)``: reason names the
    counter it went to ("crc_errors", "cobs_errors", "short_frames",
    "oversize", or "decoder_errors"), size the bytes dropped. (A tuple, not a
    class: a class costs a 64 KB tile a few hundred bytes of heap.)

    ``mend`` (the host's, host/link/mending.py) is called with the raw bytes of
    each frame that fails COBS or CRC, after it is counted; a Frame it returns
    (mended from earlier damaged copies) comes out among the whole frames.
    """

    def __init__(self, max_frame=MAX_FRAME, report=False, mend=None):
        # The longest COBS form of a max_frame body: a code byte, plus one per 254 bytes.
        self.max_frame = max_frame
        self.max_encoded = max_frame + 1 + max_frame // 254
        self.report = report
        self.mend = mend
        self._buf = bytearray()
        self._overflow = 0
        self.frames = 0
        self.crc_errors = 0
        self.cobs_errors = 0
        self.short_frames = 0
        self.oversize = 0
        self.garbage_bytes = 0
        self.decoder_errors = 0

    def reset(self):
        """Forget a partial frame (e.g. after a reconnect)."""
        self._buf = bytearray()
        self._overflow = 0

    def feed(self, data):
        out = []
        try:
            self._feed(data, out)
        except Exception:  # the decoder must never raise; keep what was decoded
            size = len(self._buf) + self._overflow
            self._buf = bytearray()
            self._overflow = 0
            self.decoder_errors += 1
            self.garbage_bytes += size
            if self.report:
                out.append(("decoder_errors", size))
        return out

    def _drop(self, counter, size, out):
        setattr(self, counter, getattr(self, counter) + 1)
        self.garbage_bytes += size
        if self.report:
            out.append((counter, size))

    def _feed(self, data, out):
        data = bytes(data)
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                chunk_len = n - start
                if self._overflow or len(self._buf) + chunk_len > self.max_encoded:
                    self._overflow += len(self._buf) + chunk_len
                    self._buf = bytearray()
                else:
                    self._buf.extend(data[start:])
                return
            if self._overflow or len(self._buf) + (end - start) > self.max_encoded:
                size = self._overflow + len(self._buf) + (end - start)
                self._overflow = 0
                self._buf = bytearray()
                self._drop("oversize", size, out)
            else:
                self._buf.extend(data[start:end])
                if self._buf:
                    self._finish(out)
                self._buf = bytearray()
            start = end + 1

    def _finish(self, out):
        size = len(self._buf)
        try:
            body = cobs_decode(self._buf)
        except WireError:
            self._drop("cobs_errors", size, out)
            self._mend(out)
            return
        if len(body) < _HEADER_LEN + _CRC_LEN:
            self._drop("short_frames", size, out)
            return
        if len(body) > self.max_frame:     # zeros in it made its COBS form short enough
            self._drop("oversize", size, out)
            return
        if int.from_bytes(body[-_CRC_LEN:], "big") != binascii.crc32(body[:-_CRC_LEN]) & 0xFFFFFFFF:
            self._drop("crc_errors", size, out)
            self._mend(out)
            return
        self.frames += 1
        out.append(Frame(body[0], body[1], (body[2] << 8) | body[3],
                         body[_HEADER_LEN:-_CRC_LEN]))

    def _mend(self, out):
        if self.mend is not None:
            frame = self.mend(bytes(self._buf))
            if frame is not None:
                out.append(frame)


# ---------------------------------------------------------------- payload reader

class _Reader:
    """Cursor over a payload; every read names the field so errors say what broke."""

    def __init__(self, data, what):
        self.data = data
        self.pos = 0
        self.what = what

    def raw(self, n, field):
        p = self.pos
        if p + n > len(self.data):
            raise WireError("%s: payload ends inside %s (need %d bytes at offset %d, have %d)"
                            % (self.what, field, n, p, len(self.data)))
        self.pos = p + n
        return bytes(self.data[p:p + n])

    def u8(self, field):
        return self.raw(1, field)[0]

    def u16(self, field):
        return int.from_bytes(self.raw(2, field), "big")

    def u32(self, field):
        return int.from_bytes(self.raw(4, field), "big")

    def blob(self, field, limit):
        n = self.u8(field)
        if n > limit:
            raise WireError("%s: %s of %d bytes exceeds %d" % (self.what, field, n, limit))
        return self.raw(n, field)


def _blob(data, field, limit):
    data = bytes(data or b"")
    if len(data) > limit:
        raise WireError("%s: %s of %d bytes exceeds %d" % ("builder", field, len(data), limit))
    return bytes((len(data),)) + data


def _utf8_cut(data, limit):
    """``data[:limit]``, shorter if the cut would split a UTF-8 character."""
    n = limit
    if len(data) > n:
        # A continuation byte (10xxxxxx) at the cut belongs to the character it splits.
        while n > limit - 3 and data[n] & 0xC0 == 0x80:
            n -= 1
    return data[:n]


def _check_u8(v, field):
    if not (0 <= v <= 0xFF):
        raise WireError("%s %r is out of range 0..255" % (field, v))
    return v


# ---------------------------------------------------------------- builders
# Each returns payload bytes for encode_frame(TYPE, seq, payload).

def hello(uid, firmware, boot_id, cells, segments, leds_per_segment, readers, buttons,
          dice_pockets, flags=0, variant="cell", protocol=PROTOCOL_VERSION):
    """HELLO: who the tile is and what it can do. ``firmware`` is (major, minor, patch)."""
    return (_blob(uid, "uid", 16) + bytes((protocol & 0xFF,)) +
            bytes((firmware[0] & 0xFF, firmware[1] & 0xFF, firmware[2] & 0xFF)) +
            _u32(boot_id) +
            bytes((_check_u8(cells, "cells"), _check_u8(segments, "segments"),
                   _check_u8(leds_per_segment, "leds_per_segment"),
                   _check_u8(readers, "readers"), _check_u8(buttons, "buttons"),
                   _check_u8(dice_pockets, "dice_pockets"), flags & 0xFF)) +
            _blob(variant.encode(), "variant", 16))


def _tags(tags):
    """A slot's tags in a TAG or SNAPSHOT, as short pieces (their join is the bytes): a
    tile writes a TAG of up to twelve tags (290 bytes) from them, never built whole
    (encode_frame_pieces)."""
    tags = list(tags)
    if len(tags) > MAX_TAGS:
        raise WireError("%s: %d tags exceed the %d per slot" % ("tag", len(tags), MAX_TAGS))
    out = [bytes((len(tags),))]
    for uid, identity in tags:
        out.append(_blob(uid, "uid", _MAX_UID))
        out.append(_blob(identity, "identity", _MAX_IDENTITY))
    return out


def tag(slot, tags):
    """TAG: the full set of tags now on ``slot``: a list of (uid, identity or None)."""
    return bytes((_check_u8(slot, "slot"),)) + b"".join(_tags(tags))


def gesture(slot, kind):
    if kind not in GESTURE_NAMES:
        raise WireError("gesture: unknown kind %d" % kind)
    return bytes((_check_u8(slot, "slot"), kind))


def dice(pocket, die):
    """DICE: what settled in ``pocket``: (uid, identity) of the face tag, or None if empty."""
    if die is None:
        return bytes((_check_u8(pocket, "pocket"), 0))
    return bytes((_check_u8(pocket, "pocket"), 1)) + _blob(die[0], "uid", _MAX_UID) + \
        _blob(die[1], "identity", _MAX_IDENTITY)


def snapshot(uptime_ms, slots, pockets):
    """SNAPSHOT: ``slots`` is a list of (slot, tags); ``pockets`` a list of (pocket, die)."""
    out = _u32(uptime_ms) + bytes((len(slots),))
    for slot, tags in slots:
        out += bytes((_check_u8(slot, "slot"),)) + b"".join(_tags(tags))
    out += bytes((len(pockets),))
    for pocket, die in pockets:
        out += dice(pocket, die)
    return out


def health(uptime_ms, readers, rx_crc_errors, rx_garbage, resends, heap_free, loop_max_ms):
    """HEALTH: ``readers`` is a list of (ok, errors, reinits)."""
    out = _u32(uptime_ms) + bytes((len(readers),))
    for ok, errors, reinits in readers:
        out += bytes((1 if ok else 0,)) + _u16(min(errors, 0xFFFF)) + _u16(min(reinits, 0xFFFF))
    return out + _u16(min(rx_crc_errors, 0xFFFF)) + _u16(min(rx_garbage, 0xFFFF)) + \
        _u16(min(resends, 0xFFFF)) + _u32(min(heap_free, 0xFFFFFFFF)) + \
        _u16(min(loop_max_ms, 0xFFFF))


def log(level, text):
    data = text.encode() if isinstance(text, str) else bytes(text)
    return bytes((level & 0xFF,)) + _utf8_cut(data, MAX_PAYLOAD - 1)


def ack(seq, status=ACK_OK):
    return _u16(seq & 0xFFFF) + bytes((status & 0xFF,))


def heartbeat(uptime_ms):
    return _u32(uptime_ms & 0xFFFFFFFF)


def led_scene(cells):
    """LED_SCENE: the full scene of each addressed cell: a list of (cell, 24 scene bytes)."""
    cells = list(cells)
    if len(cells) > MAX_SCENE_CELLS:
        raise WireError("%s: %d cells exceed %d per frame" % ("led_scene", len(cells),
                                                             MAX_SCENE_CELLS))
    out = bytes((len(cells),))
    for cell, scene in cells:
        if len(scene) != SCENE_BYTES:
            raise WireError("cell %r scene is %d bytes, not %d" % (cell, len(scene), SCENE_BYTES))
        out += bytes((_check_u8(cell, "cell"),)) + bytes(scene)
    return out


def led_brightness(level):
    return bytes((_check_u8(level, "brightness"),))


def set_config(key, value):
    return bytes((_check_u8(key, "config key"),)) + _u16(value)


def reboot(mode=0):
    """REBOOT: mode 0 (normal) is the empty payload older tiles know."""
    return bytes((_check_u8(mode, "mode"),)) if mode else b""


def write_identity(slot, uid, record):
    """WRITE_IDENTITY: write the 16-byte identity ``record`` into tag ``uid`` (4, 7 or 10
    bytes) on ``slot``. The host checks the lengths (host/link/tiles.py): every string
    here costs the tile heap."""
    return bytes((_check_u8(slot, "slot"),)) + _blob(uid, "uid", _MAX_UID) + bytes(record)


def field_neighbours(masks):
    """FIELD_NEIGHBOURS: per slot, the bit mask of the slots whose readers are its
    neighbours on the table (their fields never go on together)."""
    if len(masks) > _MAX_SLOTS:
        raise WireError("field_neighbours: %d slots exceed %d" % (len(masks), _MAX_SLOTS))
    out = bytearray((len(masks),))
    for m in masks:
        out.append(_check_u8(m, "neighbour mask"))
    return bytes(out)


def write_result(ack, slot, ok, uid, reason):
    """WRITE_RESULT: how the WRITE_IDENTITY numbered ``ack`` ended, ``reason`` in words."""
    text = _utf8_cut(reason.encode(), _MAX_REASON)
    return _u16(ack) + bytes((_check_u8(slot, "slot"), 1 if ok else 0)) + \
        _blob(uid, "uid", _MAX_UID) + _blob(text, "reason", _MAX_REASON)


# ---------------------------------------------------------------- parsers

def _p_uid(r):
    uid = r.blob("uid", _MAX_UID)
    if len(uid) not in (4, 7, 10):
        raise WireError("%s: uid of %d bytes is not 4, 7 or 10" % (r.what, len(uid)))
    return uid


def _p_tags(r):
    n = r.u8("tags")
    if n > MAX_TAGS:
        raise WireError("%s: %d tags exceed the %d per slot" % (r.what, n, MAX_TAGS))
    tags = []
    for _ in range(n):
        uid = _p_uid(r)
        identity = r.blob("identity", _MAX_IDENTITY)
        tags.append({"uid": uid, "identity": identity or None})
    return tags


def _p_die(r):
    present = r.u8("die")
    if present == 0:
        return None
    if present != 1:
        raise WireError("%s: pocket state %d is neither 0 (empty) nor 1" % (r.what, present))
    uid = _p_uid(r)
    identity = r.blob("identity", _MAX_IDENTITY)
    return {"uid": uid, "identity": identity or None}


def _text(data):
    try:
        return data.decode()
    except UnicodeError:
        return "<%d bytes not UTF-8: %s>" % (len(data), binascii.hexlify(data).decode())


def _parse_payload(t, r, m):
    if t == HELLO:
        m["uid"] = r.blob("uid", 16)
        m["protocol"] = r.u8("protocol")
        m["firmware"] = (r.u8("firmware"), r.u8("firmware"), r.u8("firmware"))
        m["boot_id"] = r.u32("boot_id")
        m["cells"] = r.u8("cells")
        m["segments"] = r.u8("segments")
        m["leds_per_segment"] = r.u8("leds_per_segment")
        m["readers"] = r.u8("readers")
        m["buttons"] = r.u8("buttons")
        m["dice_pockets"] = r.u8("dice_pockets")
        m["flags"] = r.u8("flags")
        m["variant"] = _text(r.blob("variant", 16))
    elif t == TAG:
        m["slot"] = r.u8("slot")
        m["tags"] = _p_tags(r)
    elif t == GESTURE:
        m["slot"] = r.u8("slot")
        kind = r.u8("gesture")
        if kind not in GESTURE_NAMES:
            raise WireError("gesture: unknown kind %d" % kind)
        m["gesture"] = GESTURE_NAMES[kind]
    elif t == DICE:
        m["pocket"] = r.u8("pocket")
        m["die"] = _p_die(r)
    elif t == SNAPSHOT:
        m["uptime_ms"] = r.u32("uptime_ms")
        slots = []
        for _ in range(r.u8("slots")):
            slot = r.u8("slot")
            slots.append({"slot": slot, "tags": _p_tags(r)})
        m["slots"] = slots
        pockets = []
        for _ in range(r.u8("pockets")):
            pocket = r.u8("pocket")
            pockets.append({"pocket": pocket, "die": _p_die(r)})
        m["pockets"] = pockets
    elif t == HEALTH:
        m["uptime_ms"] = r.u32("uptime_ms")
        readers = []
        for _ in range(r.u8("readers")):
            ok = r.u8("ok")
            readers.append({"ok": ok == 1, "errors": r.u16("errors"),
                            "reinits": r.u16("reinits")})
        m["readers"] = readers
        m["rx_crc_errors"] = r.u16("rx_crc_errors")
        m["rx_garbage"] = r.u16("rx_garbage")
        m["resends"] = r.u16("resends")
        m["heap_free"] = r.u32("heap_free")
        m["loop_max_ms"] = r.u16("loop_max_ms")
    elif t == LOG:
        level = r.u8("level")
        m["level"] = LOG_LEVELS.get(level, str(level))
        m["text"] = _text(r.raw(len(r.data) - r.pos, "text"))
    elif t == ACK:
        m["ack"] = r.u16("ack")
        status = r.u8("status")
        m["status"] = ACK_STATUS_NAMES.get(status, str(status))
    elif t == HEARTBEAT:
        m["uptime_ms"] = r.u32("uptime_ms")
    elif t == LED_SCENE:
        n = r.u8("cells")
        if n > MAX_SCENE_CELLS:
            raise WireError("%s: %d cells exceed %d per frame" % ("led_scene", n, MAX_SCENE_CELLS))
        cells = []
        for _ in range(n):
            cell = r.u8("cell")
            cells.append({"cell": cell, "scene": r.raw(SCENE_BYTES, "scene")})
        m["cells"] = cells
    elif t == LED_BRIGHTNESS:
        m["level"] = r.u8("level")
    elif t == SET_CONFIG:
        key = r.u8("key")
        if key not in CONFIG_NAMES:
            raise WireError("set_config: unknown key %d" % key)
        m["key"] = CONFIG_NAMES[key]
        m["value"] = r.u16("value")
    elif t == WRITE_IDENTITY:
        m["slot"] = r.u8("slot")
        m["uid"] = _p_uid(r)
        m["record"] = r.raw(_RECORD_LEN, "record")
    elif t == WRITE_RESULT:
        m["ack"] = r.u16("ack")       # the seq of the WRITE_IDENTITY it answers
        m["slot"] = r.u8("slot")
        ok = r.u8("ok")
        if ok > 1:
            raise WireError("%s: ok %d is not 0 or 1" % (r.what, ok))
        m["ok"] = ok == 1
        m["uid"] = _p_uid(r)
        m["reason"] = _text(r.blob("reason", _MAX_REASON))
    elif t == FIELD_NEIGHBOURS:
        n = r.u8("slots")
        if n > _MAX_SLOTS:
            raise WireError("field_neighbours: %d slots exceed %d" % (n, _MAX_SLOTS))
        m["masks"] = list(r.raw(n, "masks"))
    elif t == REBOOT:
        m["mode"] = r.u8("mode") if r.pos < len(r.data) else 0
        if m["mode"] > REBOOT_BOOTLOADER:
            raise WireError("reboot: unknown mode")
    elif t in (HELLO_REQUEST, SNAPSHOT_REQUEST):
        pass
    else:
        raise WireError("unknown message type 0x%02x" % t)


def parse(frame):
    """Interpret a Frame: a dict with "type", "seq" and the message's fields.

    Raises WireError for an unsupported protocol version, an unknown type,
    or a payload that does not match its type.
    """
    if frame.version != PROTOCOL_VERSION:
        raise WireError("protocol version %d is not supported (this end speaks %d)"
                        % (frame.version, PROTOCOL_VERSION))
    name = TYPE_NAMES.get(frame.type)
    if name is None:
        raise WireError("unknown message type 0x%02x" % frame.type)
    m = {"type": name, "seq": frame.seq}
    r = _Reader(frame.payload, name)
    _parse_payload(frame.type, r, m)
    if r.pos != len(r.data):
        raise WireError("%s: %d unexpected bytes after the last field"
                        % (name, len(r.data) - r.pos))
    return m
