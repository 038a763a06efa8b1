"""`fairytable sniff`: decode a tile link into readable lines.

    fairytable sniff PORT              listen on a live port (read only: sends nothing)
    fairytable sniff --capture FILE    decode a file of raw bytes captured from a link

One line per frame: offset (capture) or time (live), then the message as
wire.describe() writes it. Garbage, bad CRCs, malformed payloads and
unknown types get a line saying what was wrong; nothing in the input can
make the command crash.
"""

import argparse
import sys
import time

from shared_rules import wire


def describe(msg):
    """One readable line for a parsed message (sniff, logs)."""
    keys = sorted(k for k in msg if k not in ("type", "seq"))
    parts = []
    for k in keys:
        parts.append("%s=%s" % (k, _show(msg[k])))
    return "%s #%d %s" % (msg["type"], msg["seq"], " ".join(parts))


def _show(v):
    if isinstance(v, str) and (" " in v or not v):
        return repr(v)  # a sentence (a log line, a write's reason) stays one field
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ",".join(_show(x) for x in v) + ")"
    if isinstance(v, dict):
        return "{" + " ".join("%s=%s" % (k, _show(v[k])) for k in sorted(v)) + "}"
    return str(v)


_REASONS = {"crc_errors": "bad CRC", "cobs_errors": "bad COBS", "short_frames": "too short",
            "oversize": "no delimiter within the frame size limit",
            "decoder_errors": "decoder error"}


class Sniffer:
    """Bytes in, readable lines out; counts what it saw."""

    def __init__(self, out):
        self.out = out
        self.decoder = wire.Decoder(report=True)
        self.offset = 0
        self.pending_at = 0
        self.frames = 0
        self.problems = 0

    def feed(self, data, stamp=None):
        """Decode ``data``; a line per frame, stamped with ``stamp`` or the frame's offset."""
        data = bytes(data)
        start = 0
        while start < len(data):
            end = data.find(b"\x00", start)
            end = len(data) if end < 0 else end + 1
            # the offset where the bytes of this frame (or garbage) began
            where = stamp if stamp is not None else "@%d" % self.pending_at
            self._lines(self.decoder.feed(data[start:end]), where)
            self.offset += end - start
            if data[end - 1:end] == b"\x00":
                self.pending_at = self.offset
            start = end

    def _lines(self, items, where):
        for item in items:
            if isinstance(item, tuple):     # (reason, size): bytes the decoder dropped
                reason, size = item
                self.problems += 1
                self.out("%s garbage: %d bytes dropped (%s)"
                         % (where, size, _REASONS.get(reason, reason)))
                continue
            try:
                msg = wire.parse(item)
            except wire.WireError as e:
                self.problems += 1
                self.out("%s bad message (type 0x%02x, seq %d, payload %s): %s"
                         % (where, item.type, item.seq, item.payload.hex() or "empty", e))
                continue
            self.frames += 1
            self.out("%s %s" % (where, describe(msg)))

    def finish(self):
        tail = len(self.decoder._buf) + self.decoder._overflow
        if tail:
            self.problems += 1
            self.out("@%d garbage: %d bytes at the end without a delimiter"
                     % (self.pending_at, tail))
        self.out("%d frames, %d problems (%d CRC errors, %d bad COBS, %d too short, "
                 "%d oversize)" % (self.frames, self.problems, self.decoder.crc_errors,
                                   self.decoder.cobs_errors, self.decoder.short_frames,
                                   self.decoder.oversize))


def sniff_capture(path, out=print):
    s = Sniffer(out)
    with open(path, "rb") as f:
        while True:
            chunk = f.read(4096)
            if not chunk:
                break
            s.feed(chunk)
    s.finish()
    return s


def sniff_port(path, out=print, seconds=None):
    import serial
    s = Sniffer(out)
    t0 = time.monotonic()
    with serial.Serial(path, timeout=0.1) as ser:
        try:
            while seconds is None or time.monotonic() - t0 < seconds:
                data = ser.read(4096)
                if data:
                    s.feed(data, "%9.3f" % (time.monotonic() - t0))
        except KeyboardInterrupt:
            pass
    s.finish()
    return s


def main(argv):
    p = argparse.ArgumentParser(prog="fairytable sniff",
                                description="decode a tile link into readable lines")
    p.add_argument("port", nargs="?", help="serial port of a live link, e.g. /dev/ttyACM0")
    p.add_argument("--capture", metavar="FILE", help="decode a file of raw captured bytes")
    p.add_argument("--seconds", type=float, help="stop listening to PORT after this long")
    args = p.parse_args(argv)
    if bool(args.port) == bool(args.capture):
        p.error("give either PORT or --capture FILE")
    try:
        if args.capture:
            sniff_capture(args.capture)
        else:
            sniff_port(args.port, seconds=args.seconds)
    except OSError as e:
        print("fairytable sniff: cannot read %s: %s" % (args.capture or args.port, e),
              file=sys.stderr)
        return 1
    return 0
