"""`machine` as the rp2 board backend uses it, to run that backend under the unix port.

Not a Pico: enough of one to start a tile (tests/firmware/test_tile_rp2.py). Each chip-select
pin of the pin map gets an emulated MFRC522 (firmware/sim/mfrc522_emu.py) on one SPI
bus and one RST line; a card lies on reader 0. Input pins read 0, except the GPIOs
listed in the environment variable STUB_HELD, which read 1. The watchdog counts its
feeds and, after STUB_FEEDS of them, ends the run with a summary on stderr; reset()
and bootloader() end it too, with exit codes 5 and 6.
"""

import gc
import os
import sys

from mfrc522_emu import Mfrc522Emulator, NtagCard, SimPin, SimSPI

_CS = (17, 20, 21, 26, 27, 28, 14, 15)
_RST = 22
_bus = SimSPI()
_emus = []
_rst = []
_held = [int(x) for x in (os.getenv("STUB_HELD") or "").split() if x.isdigit()]
counts = {"feeds": 0, "writes": 0}


class Pin(SimPin):
    def __init__(self, id, mode=None, pull=None, value=None):
        SimPin.__init__(self, id, mode, pull, 0 if value is None else value)
        self.mode = mode
        if id == _RST:
            _rst.append(self)
        elif id in _CS and mode == Pin.OUT:
            emu = Mfrc522Emulator()
            _bus.attach(self, emu)
            for line in _rst:
                emu.attach_rst(line)
            if not _emus:
                emu.place(NtagCard(b"\x04\x01\x02\x03\x04\x05\x06"))
            _emus.append(emu)

    def value(self, v=None):
        if v is None and self.mode == Pin.IN:
            return 1 if self.id in _held else 0
        return SimPin.value(self, v)

    def __call__(self, v=None):
        return self.value(v)


def SPI(id, **kwargs):
    return _bus


def unique_id():
    return b"\xe6\x61\x41\x04\x00\x00\x00\x07"


def _end(why, code):
    gc.collect()
    print("stub: %s feeds=%d writes=%d free=%d" % (why, counts["feeds"], counts["writes"],
                                                     gc.mem_free()), file=sys.stderr)
    sys.exit(code)


class WDT:
    def __init__(self, timeout=0):
        self.timeout = timeout

    def feed(self):
        counts["feeds"] += 1
        if counts["feeds"] >= int(os.getenv("STUB_FEEDS") or "5"):
            _end("watchdog fed", 0)


def reset():
    _end("machine.reset", 5)


def bootloader():
    _end("machine.bootloader", 6)
