"""The link's bottom layer: one serial port's bytes and life.

A PortTransport opens its port, hands every byte read to its receiver, writes
what it is given, and when the port fails (unplugged, a USB reset by a
reboot) or the receiver hangs up, closes it and reopens it with backoff. It
knows nothing of frames. Time is the clock it is given (monotonic seconds),
and it moves only when ``poll(now)`` is called: a test can drive it on a
clock it advances by hand, with a fake device.

The receiver (a protocol.PortSession) is told, with the clock's time:
``connected(now)`` after each open, ``received(data, now)`` for bytes read,
``tick(now)`` on each poll while open, ``disconnected(why)`` after each close.

A device is what ``open_device(path, baudrate, on_data, on_error)`` returns:
an object with ``write(data)`` (never blocks; may buffer) and ``close()``; it
calls ``on_data(bytes)`` as bytes arrive and ``on_error(exc)`` when the port
fails. ``SerialDevice`` opens a real port with pyserial on the running
asyncio loop.
"""

import asyncio
import errno
import logging
import os

import serial

from .timings import real_clock

log = logging.getLogger("fairytable.link")

_MAX_OUTBUF = 16384     # bytes queued for a port that is not draining: dropped beyond this


class SerialDevice:
    """A serial port opened with pyserial, read and written without blocking on the
    running asyncio loop (a pty, /dev/ttyACM0, a UART)."""

    def __init__(self, path, baudrate, on_data, on_error):
        self.ser = serial.Serial(path, baudrate=baudrate, timeout=0, write_timeout=0,
                                 exclusive=True)
        self.fd = self.ser.fileno()
        self.on_data = on_data
        self.on_error = on_error
        self.outbuf = bytearray()
        self.loop = asyncio.get_running_loop()
        self.loop.add_reader(self.fd, self._readable)

    def _readable(self):
        try:
            data = self.ser.read(4096)
        except (serial.SerialException, OSError) as e:
            self._stop_watching()
            self.on_error(e)
            return
        if data:
            self.on_data(data)

    def write(self, data):
        self.outbuf.extend(data)
        self._flush()

    def _flush(self):
        if self.fd is None or not self.outbuf:
            return
        try:
            n = os.write(self.fd, self.outbuf)
        except BlockingIOError:
            n = 0
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EINTR):
                self._stop_watching()
                self.on_error(e)
                return
            n = 0
        del self.outbuf[:n]
        if self.outbuf:
            if len(self.outbuf) > _MAX_OUTBUF:  # the tile is not draining: resends recover
                self.outbuf = bytearray()
                self.loop.remove_writer(self.fd)
            else:
                self.loop.add_writer(self.fd, self._flush)
        else:
            self.loop.remove_writer(self.fd)

    def _stop_watching(self):
        try:
            self.loop.remove_reader(self.fd)
            self.loop.remove_writer(self.fd)
        except (ValueError, OSError):
            pass

    def close(self):
        if self.fd is None:
            return
        self._stop_watching()
        self.fd = None
        try:
            self.ser.close()
        except (serial.SerialException, OSError):
            pass


class Backoff:
    """The wait before reopening a port: ``first_s`` after a port that was open closes,
    doubling on each failed open up to ``max_s``."""

    def __init__(self, first_s, max_s):
        self.first_s = first_s
        self.max_s = max_s
        self.next_s = first_s

    def after_close(self):
        """The wait after an open port closed (the next failure waits twice as long)."""
        self.next_s = self.first_s
        return self.wait()

    def wait(self):
        """The wait after a failed open; the next one doubles."""
        wait, self.next_s = self.next_s, min(self.next_s * 2, self.max_s)
        return wait


class PortTransport:
    """One port's bytes and life: open, read, write, close, hang up, reopen with backoff.

    ``opened``: how many times the port was opened; ``is_open``: it is open now.
    """

    def __init__(self, path, receiver, timings, clock=real_clock, open_device=SerialDevice):
        self.path = path
        self.receiver = receiver
        self.timings = timings
        self.clock = clock
        self.open_device = open_device
        self.device = None
        self.opened = 0
        self.failed = None          # why the open port must close, set by callbacks
        self.reopen_at = None       # when a closed port is tried again (None: at once)
        self.backoff = Backoff(timings.backoff_min_s, timings.backoff_max_s)
        self.stopping = False

    @property
    def is_open(self):
        return self.device is not None

    def poll(self, now):
        """Move the port's life on to ``now``: close a failed port, reopen a closed one
        when its backoff is over, let the receiver keep the conversation."""
        if self.stopping:
            return
        if self.device is None:
            if self.reopen_at is None or now >= self.reopen_at:
                self._open(now)
            return
        if self.failed is not None:
            self._close(self.failed)
            self.reopen_at = now + self.backoff.after_close()
            return
        self.receiver.tick(now)

    def _open(self, now):
        self.failed = None
        try:
            self.device = self.open_device(self.path, self.timings.baudrate, self._on_data,
                                           self._on_error)
        except (serial.SerialException, OSError) as e:
            log.info("%s: %s", self.path, e)
            self.reopen_at = now + self.backoff.wait()
            return
        self.opened += 1
        self.receiver.connected(now)

    def _on_data(self, data):
        if self.device is not None:
            self.receiver.received(data, self.clock())

    def _on_error(self, e):
        log.info("%s: %s", self.path, e)
        self.failed = e

    def write(self, data):
        """Queue bytes for the port (dropped while it is closed: the receiver's resends
        recover what matters)."""
        if self.device is not None:
            self.device.write(data)

    def hang_up(self, why):
        """Close the port at the next poll and reopen it after the backoff (a port open
        with nothing answering: a fresh open may wake a stuck USB device)."""
        if self.device is not None and self.failed is None:
            log.info("%s: %s", self.path, why)
            self.failed = why

    def _close(self, why):
        device, self.device = self.device, None
        if device is not None:
            device.close()
            self.receiver.disconnected(str(why))

    def stop(self):
        """Close the port for good."""
        self.stopping = True
        self._close("the link stopped")
