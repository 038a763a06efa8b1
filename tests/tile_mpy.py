"""Run code under MicroPython against the tile image (mpy-cross compiled), as a tile does.

Complements tests/mpy.py (which runs the repository sources): a tile imports
precompiled .mpy files, and only that fits the firmware in a 64 KB heap.
"""

import os
import subprocess

from mpy import REPO, micropython_path

from host.virtual import image as tile_image


# MicroPython source: 8 emulated readers on one SPI bus with a shared RST line, as on a
# tile, each driven by an initialised MFRC522 driver (`readers`, `emus`); the importing
# source brings MFRC522 and the emulator's SimSPI, SimPin and Mfrc522Emulator.
EIGHT_READERS = """spi = SimSPI()
rst = SimPin(value=1)
readers = []
emus = []
for i in range(8):
    cs = SimPin(value=1)
    emu = Mfrc522Emulator()
    spi.attach(cs, emu)
    emu.attach_rst(rst)
    r = MFRC522(spi, cs, rst, emu.advance)
    r.field_settle_us = 0
    r.reset_ms = 0
    r.init()
    readers.append(r)
    emus.append(emu)
"""


def run_tile_code(code, heapsize="64k", board="sim", timeout=120):
    """Run ``code`` under MicroPython with the tile image first on the path; return stdout.

    Raises AssertionError with MicroPython's output when the code fails.
    """
    image = tile_image.build(board)
    # cwd is the image: MicroPython puts "" first on the path, and the sources must not win.
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([image, os.path.join(REPO, "tests"), ".frozen"])
    proc = subprocess.run([micropython_path(), "-X", "heapsize=%s" % heapsize, "-c", code],
                          cwd=image, capture_output=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise AssertionError("micropython failed (%d):\n%s\n%s" % (
            proc.returncode, proc.stdout.decode(errors="replace"),
            proc.stderr.decode(errors="replace")))
    return proc.stdout.decode()
