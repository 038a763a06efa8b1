"""`fairytable doctor`: find the tiles, check every reader and LED chain, say what is wrong.

    fairytable doctor [--port PORT ...] [--virtual [--interpreter I]] [--wait S] [--json]

Without --port it looks for Picos running MicroPython on USB (and says so when
there are none); --virtual checks a virtual table (the tile firmware under
MicroPython, or CPython where MicroPython is not installed: --interpreter
chooses, and the report says which). For each tile it waits for HELLO and a
HEALTH report, then lights each cell's edges in turn (look: each cell should
light N, E, S, W in white) and reports the tile's numbers: firmware, uptime,
each reader's reads and errors, the link's CRC errors, resends, reboots,
reconnects and protocol errors, free heap. Ports it cannot use are reported
too: a tile of another protocol version (reflash it), two ports answering
with one tile's id, a Pico that does not answer as a tile. --json prints the
same with the raw numbers. Exit status 0 when nothing is wrong, 1 when
something is, 2 when no tile answered.
"""

import argparse
import asyncio
import json
import sys

from shared_rules import led_scene, wire

CHECK_SCENE = led_scene.cell_scene(*[led_scene.segment(led_scene.CHASE, (255, 255, 255), 25,
                                                       0x42) for _ in range(4)])

# The counters a tile's report shows, in order (TileState.health has what each means).
_LINK_NUMBERS = ("crc_errors", "garbage_bytes", "resends", "tile_resends", "tile_rx_crc_errors",
                 "reboots", "reconnects", "protocol_errors", "host_errors", "conflicts",
                 "flood_drops", "coalesced")


def _reader(reader):
    if isinstance(reader, (list, tuple)):
        ok, errors, reinits = reader
    else:
        ok, errors, reinits = reader.get("ok"), reader.get("errors", 0), reader.get("reinits", 0)
    return {"ok": bool(ok), "errors": errors, "reinits": reinits}


def numbers_for(tile):
    """A tile's raw numbers (what --json gives): where it is, what it runs, its counters."""
    health = tile.health or {}
    out = {"uid": tile.uid, "port": tile.port, "online": tile.online, "cells": tile.cells,
           "firmware": health.get("firmware"), "uptime_ms": health.get("uptime_ms"),
           "heap_free": health.get("heap_free"), "loop_max_ms": health.get("loop_max_ms"),
           "readers": [_reader(r) for r in health.get("readers") or []]}
    for name in _LINK_NUMBERS:
        out[name] = health.get(name, 0)
    return out


def _uptime(ms):
    if ms is None:
        return "?"
    s = ms // 1000
    if s < 120:
        return "%d s" % s
    if s < 7200:
        return "%d min" % (s // 60)
    return "%d h %d min" % (s // 3600, s % 3600 // 60)


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def findings_for(tile):
    """Sentences about one tile: its numbers, what is fine and what is wrong (list of
    (ok, text))."""
    out = []
    n = numbers_for(tile)
    hello = tile.hello or {}
    heap = "%d bytes of heap free" % n["heap_free"] if n["heap_free"] is not None else \
        "heap not reported yet"
    out.append((True, "tile %s on %s: firmware %s, %d cells, up %s, %s" % (
        tile.uid, tile.port, n["firmware"] or "?", tile.cells, _uptime(n["uptime_ms"]), heap)))
    readers = n["readers"]
    if not readers:
        out.append((False, "no health report arrived: the tile may be stuck; power-cycle it"))
    for i, r in enumerate(readers):
        counts = "%s, %s" % (_plural(r["errors"], "misread"), _plural(r["reinits"], "re-init"))
        if not r["ok"]:
            out.append((False, "reader %d is failing (it does not answer, or its polls fail; "
                               "%s): check its SPI wiring and chip-select to the Pico, and its "
                               "3.3 V supply" % (i, counts)))
        elif r["reinits"]:
            out.append((False, "reader %d hung and was restarted (%s): check its power and "
                               "the cable length" % (i, counts)))
        else:
            out.append((True, "reader %d ok (%s%s)" % (
                i, counts, ": fine when cards move" if r["errors"] else "")))
    want = hello.get("readers")
    if readers and want is not None and len(readers) < want:
        out.append((False, "only %d of %d readers reported" % (len(readers), want)))
    out.append((True, "link: %s, %s (host) and %d (tile), %s, %s, %s" % (
        _plural(n["crc_errors"], "CRC error"), _plural(n["resends"], "resend"),
        n["tile_resends"], _plural(n["reboots"], "reboot"),
        _plural(n["reconnects"], "reconnect"), _plural(n["protocol_errors"], "protocol error"))))
    if n["crc_errors"]:
        out.append((False, "%d damaged frames from this tile: check the USB cable"
                    % n["crc_errors"]))
    if n["protocol_errors"]:
        out.append((False, "%d frames from this tile were malformed or beyond what it "
                           "announced: deploy this host's firmware to it (hardware/protocol.md, "
                           "\"Deploying a tile\")"
                    % n["protocol_errors"]))
    if n["host_errors"]:
        out.append((False, "the host failed to handle %d frames from this tile: a host bug; "
                           "send the log to the developers" % n["host_errors"]))
    if n["flood_drops"]:
        out.append((False, "this tile sent more gestures or log lines than a table can make "
                           "(%d dropped): check its touch pads and firmware" % n["flood_drops"]))
    return out


def port_findings(link):
    """Sentences about ports the link cannot use (list of (ok, text)): call it before the
    link stops."""
    out = []
    for path in sorted(link.incompatible):
        info = link.incompatible[path]
        out.append((False, "the tile on %s%s speaks protocol %d, this host speaks %d: reflash "
                           "it with this host's firmware (hardware/protocol.md, \"Deploying a "
                           "tile\")" % (path, " (%s)" % info["uid"] if info["uid"] else "",
                                        info["protocol"], wire.PROTOCOL_VERSION)))
    for path, info in sorted(link.conflicts.items()):
        out.append((False, "tile %s answers on both %s and %s: unplug one (two tiles with the "
                           "same id: a cloned board?)" % (info["uid"], info["owner"], path)))
    for path in link.silent_ports:
        out.append((False, "%s is a Pico that does not answer as a tile: flash the tile "
                           "firmware (hardware/protocol.md, \"Deploying a tile\")" % path))
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
    p.add_argument("--interpreter", default="auto", choices=["auto", "micropython", "cpython"],
                   help="what runs the virtual tiles (auto: MicroPython if installed)")
    p.add_argument("--tiles", type=int, default=7)
    p.add_argument("--wait", type=float, default=8.0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    return asyncio.run(run(args))


async def run(args):
    from host.link import TableLink
    vtable = None
    ports = list(args.port)
    interpreter = None
    if args.virtual:
        from host.virtual import open_table

        def announce(vt):
            if not args.json:
                print("virtual table: %d tiles, the tile firmware runs under %s"
                      % (args.tiles, "MicroPython" if vt.interpreter == "micropython" else
                         "CPython (MicroPython is not installed)"), flush=True)
        ports, vtable = open_table((), tiles=args.tiles, cells=7, announce=announce,
                                   interpreter=getattr(args, "interpreter", "auto"))
        interpreter = vtable.interpreter
    link = TableLink(ports=ports, discover=not ports)
    try:
        await link.start()
        report = await examine(link, args.wait)
        ports_report = port_findings(link)
        numbers = {uid: numbers_for(link.tiles[uid]) for uid in report}
    finally:
        await link.stop()
        if vtable is not None:
            vtable.stop()
    if not report and not ports_report:
        msg = ("no tile answered: no Pico running MicroPython found on USB" if not ports else
               "no tile answered on %s" % ", ".join(ports))
        print(json.dumps({"ok": False, "problem": msg}) if args.json else
              msg + ": check the USB cables and that the tiles have the Fairytable firmware "
              "(hardware/protocol.md, \"Deploying a tile\")")
        return 2
    bad = sum(1 for lines in list(report.values()) + [ports_report] for ok, _ in lines
              if not ok)
    if args.json:
        out = {"ok": bad == 0,
               "tiles": {uid: {"findings": [{"ok": ok, "text": text} for ok, text in lines],
                               "health": numbers[uid]}
                         for uid, lines in report.items()},
               "ports": [{"ok": ok, "text": text} for ok, text in ports_report]}
        if interpreter is not None:
            out["interpreter"] = interpreter
        print(json.dumps(out, sort_keys=True))
    else:
        for uid in sorted(report):
            for ok, text in report[uid]:
                print(("  ok  " if ok else "  !!  ") + text)
        for ok, text in ports_report:
            print(("  ok  " if ok else "  !!  ") + text)
        print("%d problem%s found" % (bad, "" if bad == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
