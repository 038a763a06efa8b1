"""`fairytable doctor`: find the tiles, check every reader and LED chain, say what is wrong.

    fairytable doctor [--port PORT ...] [--virtual] [--layout FILE] [--wait S] [--json]

Without --port it looks for Picos on USB (and says so when there are none);
--virtual checks a virtual table (the firmware under MicroPython). For each
tile it waits for HELLO and a HEALTH report, then lights each cell's edges in
turn (look: each cell should light N, E, S, W in white) and reports. Exit
status 0 when nothing is wrong, 1 when something is, 2 when no tile answered.
"""

import argparse
import asyncio
import json
import sys

from firmware import effects

CHECK_SCENE = effects.cell_scene(*[effects.segment(effects.CHASE, (255, 255, 255), 25, 0x42)
                                   for _ in range(4)])


def findings_for(tile, layout_tiles=None):
    """Sentences about one tile: what is fine and what is wrong (list of (ok, text))."""
    out = []
    hello = tile.hello or {}
    health = tile.health or {}
    out.append((True, "tile %s on %s: firmware %s, %d cells" % (
        tile.uid, tile.port, health.get("firmware", "?"), tile.cells)))
    readers = health.get("readers")
    if not readers:
        out.append((False, "no health report arrived: the tile may be stuck; power-cycle it"))
    else:
        for i, reader in enumerate(readers):
            ok, errors, reinits = reader if isinstance(reader, (list, tuple)) else (
                reader.get("ok"), reader.get("errors", 0), reader.get("reinits", 0))
            if not ok:
                out.append((False, "reader %d does not answer (its VersionReg check fails): "
                                   "check its SPI wiring and chip-select to the Pico, and its "
                                   "3.3 V supply" % (i + 1)))
            elif reinits:
                out.append((False, "reader %d hung and was restarted %d times: check its power "
                                   "and the cable length" % (i + 1, reinits)))
            elif errors:
                out.append((True, "reader %d ok (%d misreads: fine when cards move)"
                            % (i + 1, errors)))
        want = hello.get("readers")
        if want is not None and len(readers) < want:
            out.append((False, "only %d of %d readers reported" % (len(readers), want)))
    if health.get("crc_errors"):
        out.append((False, "%d damaged frames from this tile: check the USB cable"
                    % health["crc_errors"]))
    return out


async def examine(link, wait_s):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while loop.time() < deadline:
        online = [t for t in link.tiles.values() if t.online]
        if online and all((t.health or {}).get("readers") for t in online):
            break
        await asyncio.sleep(0.1)
    report = {}
    for uid in sorted(link.tiles):
        tile = link.tiles[uid]
        if not tile.online:
            report[uid] = [(False, "tile %s is offline" % uid)]
            continue
        for cell in range(tile.cells):
            link.set_scene(uid, [(cell, CHECK_SCENE)])
        report[uid] = findings_for(tile)
        report[uid].append((True, "LED chain: every cell of this tile now chases white around "
                                  "its four edges; a dark or wrong-coloured cell means a broken "
                                  "LED or data line after the last good one"))
    return report


def main(argv=None):
    p = argparse.ArgumentParser(prog="fairytable doctor", description=__doc__.split("\n\n")[0])
    p.add_argument("--port", action="append", default=[])
    p.add_argument("--virtual", action="store_true", help="check a virtual table")
    p.add_argument("--tiles", type=int, default=7)
    p.add_argument("--wait", type=float, default=8.0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    return asyncio.run(run(args))


async def run(args):
    from host.link import TableLink
    vtable = None
    ports = list(args.port)
    if args.virtual:
        from tools.virtual_table import VirtualTable
        vtable = VirtualTable(tiles=args.tiles, cells=7, quiet=True)
        vtable.start()
        ports = vtable.ports()
    link = TableLink(ports=ports, discover=not ports)
    try:
        await link.start()
        report = await examine(link, args.wait)
    finally:
        await link.stop()
        if vtable is not None:
            vtable.stop()
    if not report:
        msg = ("no tile answered: no Pico found on USB" if not ports else
               "no tile answered on %s" % ", ".join(ports))
        print(json.dumps({"ok": False, "problem": msg}) if args.json else
              msg + ": check the USB cables and that the tiles have the Fairytable firmware "
              "(tools/flash)")
        return 2
    bad = sum(1 for lines in report.values() for ok, _ in lines if not ok)
    if args.json:
        print(json.dumps({"ok": bad == 0, "tiles": {uid: [{"ok": ok, "text": text}
                                                          for ok, text in lines]
                                                    for uid, lines in report.items()}},
                         sort_keys=True))
    else:
        for uid in sorted(report):
            for ok, text in report[uid]:
                print(("  ok  " if ok else "  !!  ") + text)
        print("%d problem%s found" % (bad, "" if bad == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
