"""Raspberry Pi Pico tile board: machine.SPI readers, NeoPixels, pads, USB CDC, watchdog.

Pin map in firmware/pins.py and hardware/. The serial stream
is the USB CDC console in binary (sys.stdin.buffer / sys.stdout.buffer);
Ctrl-C is disabled on it, so a 0x03 in a frame cannot interrupt the loop,
and the REPL never sees the game protocol. The board's main.py (written by
host/virtual/image.py) calls ``main()`` unless the tile boots for maintenance:
REBOOT mode 1 leaves the flag file ``maintenance`` (host/virtual/image.py
``MAINTENANCE_FLAG``) that main.py looks for (hardware/protocol.md, "Deploying
a tile"), before the tile acks the REBOOT.

The LEDs: the rp2 ``neopixel`` module clocks the strip out with
``machine.bitstream``, busy-waiting with interrupts off, about 30 us per LED
(5.8 ms for 192): the loop stands still meanwhile.
"""

import sys
import time

import machine
import micropython
import neopixel
import select

from firmware import config, pins
from firmware.drivers.mfrc522 import MFRC522

try:
    import asyncio
except ImportError:
    import uasyncio as asyncio

ticks_ms = time.ticks_ms
ticks_us = time.ticks_us
ticks_diff = time.ticks_diff
ticks_add = time.ticks_add


def _ready(poll):
    for _ in poll.ipoll(0):     # ipoll reuses its result: no allocation per call
        return True
    return False


class UsbPort:
    """USB CDC stdin/stdout as a byte port that never blocks the loop."""

    def __init__(self):
        self.rx = sys.stdin.buffer
        self.tx = sys.stdout.buffer
        self.poll_in = select.poll()
        self.poll_in.register(self.rx, select.POLLIN)
        self.poll_out = select.poll()
        self.poll_out.register(self.tx, select.POLLOUT)
        self.closed = False
        # Preallocated: one CDC packet (64 bytes) a pass. The link copies what it is
        # given, and a full tile's heap has no room for big copies.
        self.inbuf = bytearray(64)
        self.inview = memoryview(self.inbuf)
        self.one = bytearray(1)

    def read(self):
        # stdin's readinto(n) waits for all n bytes: take one at a time while poll says
        # there is one.
        buf = self.inbuf
        one = self.one
        rx = self.rx
        n = 0
        while n < 64 and _ready(self.poll_in):
            if not rx.readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return self.inview[:n] if n else b""

    def write(self, data):
        if not _ready(self.poll_out):
            return False  # no host draining the CDC endpoint: drop
        try:
            self.tx.write(data)
        except OSError:
            return False
        return True


class Rp2Board:
    has_watchdog = True

    ticks_ms = staticmethod(ticks_ms)
    ticks_us = staticmethod(ticks_us)
    ticks_diff = staticmethod(ticks_diff)
    ticks_add = staticmethod(ticks_add)
    sleep_ms = staticmethod(asyncio.sleep_ms)
    sleep_us = staticmethod(time.sleep_us)  # blocking: a fraction of a millisecond

    def __init__(self, spec, pin_map):
        self.spec = spec
        self.pins = pin_map
        pins = pin_map
        micropython.kbd_intr(-1)  # 0x03 is data on this stream, not Ctrl-C
        self.port = UsbPort()
        self.spi = machine.SPI(pins["spi_id"], baudrate=pins["spi_baud"], polarity=0, phase=0,
                               sck=machine.Pin(pins["sck"]), mosi=machine.Pin(pins["mosi"]),
                               miso=machine.Pin(pins["miso"]))
        self.rst = machine.Pin(pins["reader_rst"], machine.Pin.OUT, value=1)
        n_leds = spec["cells"] * spec["segments"] * spec["leds_per_segment"]
        self.strip = neopixel.NeoPixel(machine.Pin(pins["led_data"]), n_leds)
        pull = machine.Pin.PULL_DOWN if pins["pad_active_high"] else machine.Pin.PULL_UP
        self.pad_pins = [machine.Pin(p, machine.Pin.IN, pull)
                         for p in pins["pads"][:spec["buttons"]]]
        self.pad_level = 1 if pins["pad_active_high"] else 0
        self.pressed = [False] * len(self.pad_pins)
        self.wdt = None

    def unique_id(self):
        return machine.unique_id()

    def boot_id(self):
        import os
        return int.from_bytes(os.urandom(4), "big")

    def heap_free(self):
        import gc
        return gc.mem_free()

    def readers(self, n):
        out = []
        cs_pins = self.pins["reader_cs"] + self.pins.get("extra_reader_cs", ())
        for i in range(n):
            cs = machine.Pin(cs_pins[i], machine.Pin.OUT, value=1)
            out.append(MFRC522(self.spi, cs, self.rst))
        return out

    def pad_ms(self, now):
        # The pads' clock is the tile's (a simulated tile's runs on when it is starved).
        return now

    def pads(self):
        for i in range(len(self.pad_pins)):
            self.pressed[i] = self.pad_pins[i].value() == self.pad_level
        return self.pressed

    def show(self, buf):
        # NeoPixel keeps its own GRB buffer; copy ours in and clock it out.
        self.strip.buf[:] = buf
        self.strip.write()

    def chip_wait(self, slot, start_us):
        pass    # real chips: the poll took what it takes

    def report(self, task, e):
        pass  # stdout is the data stream; the LOG frame the main loop sends says it

    def start_watchdog(self, timeout_ms):
        self.wdt = machine.WDT(timeout=timeout_ms)

    def feed_watchdog(self):
        if self.wdt is not None:
            self.wdt.feed()

    def prepare_reboot(self, mode):
        """Before REBOOT is acked: mode 1 (a maintenance boot: main.py skips the tile, the
        REPL is free for mpremote, no watchdog) leaves the flag file; OSError if it cannot
        (a full or broken filesystem): the tile acks ``unsupported`` and stays up."""
        if mode == 1:
            with open("maintenance", "w") as f:    # the flag main.py looks for
                f.write("1")

    def reboot(self, mode):
        """REBOOT, once acked: 0 the tile again, 1 a maintenance boot (prepare_reboot left
        the flag), 2 the UF2 bootloader (the Pico's RPI-RP2 drive)."""
        time.sleep_ms(100)          # the ACK leaves the USB buffer first
        if mode == 2:
            machine.bootloader()
        machine.reset()

    def give_up(self, task, e):
        machine.reset()             # a task fails again and again: start over

    def service(self, tile, now):
        pass


def main(variant="cell", cells=None, crowded=None):
    """Run the tile; the board's own main.py calls this (e.g. main("dice"))."""
    from firmware.main import run
    spec = config.variant(variant, cells, crowded) if crowded else config.variant(variant, cells)
    run(Rp2Board(spec, pins.variant("cells8" if variant == "cell" else "dice3")), spec)
