"""`fairytable sniff`: decode a tile link into readable lines.

    fairytable sniff PORT              listen on a live port (read only: sends nothing)
    fairytable sniff --capture FILE    decode a file of raw bytes captured from a link

A live sniff opens PORT exclusively, as the host does, so it listens only to
a port no host holds: it sees what the tile sends (tile -> host). A capture
may hold the bytes of either direction.

One line per frame: offset (capture) or time (live), then the message as
describe() writes it. Garbage, bad CRCs, malformed payloads and unknown
types get a line saying what was wrong; text from the wire is escaped (it
never moves the cursor or colours the terminal); nothing in the input can
make the command crash.
"""

import argparse
import errno
import os
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
    if isinstance(v, str) and (" " in v or not v or not v.isprintable()):
        # A sentence (a log line, a write's reason) stays one field, and escapes or
        # newlines from the wire are shown, not obeyed.
        return repr(v)
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

    def finish(self, stamp=None):
        """The bytes left without a delimiter, stamped like feed()'s lines; the summary."""
        # Bytes since the last delimiter: what a capture that ends now leaves undecoded (the
        # sniffer counts them itself; the decoder, deployed to the tiles, keeps no more
        # code than a tile needs).
        tail = self.offset - self.pending_at
        if tail:
            self.problems += 1
            self.out("%s garbage: %d bytes at the end without a delimiter"
                     % (stamp if stamp is not None else "@%d" % self.pending_at, tail))
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


class PortError(Exception):
    """A port sniff cannot listen to, in words."""


def _is_tty(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return True     # cannot tell: pyserial's own words stand
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


def open_port(path):
    """Open ``path`` exclusively, as the host does: a second reader would steal the
    bytes the first is waiting for. Sniff never writes to it."""
    import serial
    try:
        return serial.Serial(path, timeout=0.1, exclusive=True)
    except serial.SerialException as e:
        if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
            raise PortError("%s is in use (is `fairytable run` holding it?); a live sniff "
                            "listens only to a port no host holds" % path) from None
        if os.path.isfile(path):
            raise PortError("%s is not a serial port (to decode a file of captured bytes, "
                            "use --capture %s)" % (path, path)) from None
        if os.path.exists(path) and not _is_tty(path):
            raise PortError("%s is not a serial port" % path) from None
        if e.errno:
            raise PortError("cannot open %s: %s" % (path, os.strerror(e.errno))) from None
        raise


def sniff_port(path, out=print, seconds=None):
    import serial
    s = Sniffer(out)
    t0 = time.monotonic()

    def now():
        return "%9.3f" % (time.monotonic() - t0)
    with open_port(path) as ser:
        try:
            while seconds is None or time.monotonic() - t0 < seconds:
                data = ser.read(4096)
                if data:
                    s.feed(data, now())
        except KeyboardInterrupt:
            pass
        except serial.SerialException:
            # pyserial's "device reports readiness to read but returned no data" and
            # "read failed": the other end hung up.
            out("%s the port closed (tile unplugged?)" % now())
    s.finish(now())
    return s


def main(argv):
    p = argparse.ArgumentParser(prog="fairytable sniff",
                                description="decode a tile link into readable lines")
    p.add_argument("port", nargs="?", help="serial port of a live link that no host holds, "
                   "e.g. /dev/ttyACM0 (what the tile sends)")
    p.add_argument("--capture", metavar="FILE",
                   help="decode a file of raw captured bytes (either direction)")
    p.add_argument("--seconds", type=float, help="stop listening to PORT after this long")
    args = p.parse_args(argv)
    if bool(args.port) == bool(args.capture):
        p.error("give either PORT or --capture FILE")
    if args.capture and args.seconds is not None:
        p.error("--seconds limits listening to a live PORT; --capture reads FILE to its end")
    # Whatever the terminal's encoding, a character it cannot show is escaped, not a crash.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    try:
        if args.capture:
            sniff_capture(args.capture)
        else:
            sniff_port(args.port, seconds=args.seconds)
    except BrokenPipeError:
        # The reader stopped early (`| head`): end quietly, as other command-line tools do.
        # Python flushes stdout at exit; point it at /dev/null so that flush is quiet too.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except PortError as e:
        print("fairytable sniff: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("fairytable sniff: cannot read %s: %s" % (args.capture or args.port, e),
              file=sys.stderr)
        return 1
    return 0
