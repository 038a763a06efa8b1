"""Put the tile firmware on a Pico: a developer's command over the image builder.

    python -m tools.tile_image rp2 --variant cell --cells 7 --deploy /dev/ttyACM0

builds the tree (host/virtual/image.py: the firmware compiled with mpy-cross,
the same builder the virtual table uses) and main.py for a 7-cell tile, asks
the tile on that port to reboot for maintenance (REBOOT mode 1 over the tile
protocol: a running tile never gives mpremote its REPL), and copies everything
with mpremote (hardware/protocol.md, "Deploying a tile"). Stock rp2 builds
have no ROMFS partition; on a build that has one (MicroPython 1.25+,
MICROPY_HW_ROMFS_BYTES set), `--romfs` deploys the same tree as a ROMFS image.
Run it from the repository root.
"""

import os
import subprocess
import sys
import tempfile

from host.virtual.image import board_main, build, build_romfs

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
    p.add_argument("--crowded", metavar="SLOT:READERS", default=None,
                   help="a cell read by several readers, e.g. 0:4 for the Dragon Inn's tile "
                        "(one cell, a reader under each quadrant: hardware/stacks.md)")
    p.add_argument("--out", help="directory for main.py (and the ROMFS image with --romfs)")
    p.add_argument("--romfs", action="store_true",
                   help="deploy as a ROMFS image (only MicroPython builds with a ROMFS "
                        "partition; stock Pico builds have none)")
    p.add_argument("--deploy", metavar="PORT", help="put it on the Pico at PORT (mpremote)")
    args = p.parse_args(argv)
    if args.variant == "dice" and args.cells not in (None, 3):
        p.error("the dice tray has 3 pockets; --cells is for cell tiles")
    crowded = None
    try:
        if args.crowded:
            slot, readers = args.crowded.split(":")
            crowded = {int(slot): int(readers)}
        source = board_main(args.variant, args.cells, args.romfs, crowded=crowded)
    except ValueError as e:
        p.error("%s (--crowded is SLOT:READERS, 2 to 4 readers)" % e if args.crowded
                else str(e))
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
          "rp2 --variant %s%s%s%s --deploy PORT" % (
              args.variant, " --cells %d" % args.cells if args.cells else "",
              " --crowded %s" % args.crowded if args.crowded else "",
              " --romfs" if args.romfs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
