"""Start a virtual table for a developer and print its ports; runs until Ctrl-C.

    python -m tools.virtual_table --tiles 7 --cells 7

Each tile is the real firmware in a process on a pseudo-terminal (host/virtual/table.py);
connect to the printed ports with `fairytable run --port ...`, `fairytable sniff` or a
serial terminal. Run it from the repository root.
"""

import argparse
import signal
import sys

from host.virtual import VirtualTable


def _interrupt(signum, frame):
    # SIGTERM (a service manager, `timeout`) stops the tiles as Ctrl-C does.
    raise KeyboardInterrupt


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.virtual_table",
                                description=__doc__.split("\n")[0])
    p.add_argument("--tiles", type=int, default=7)
    p.add_argument("--cells", type=int, default=7)
    p.add_argument("--variant", default="cell", choices=("cell", "dice"))
    p.add_argument("--cpython", action="store_true", help="run the firmware under CPython")
    args = p.parse_args(argv)
    table = VirtualTable(args.tiles, args.cells, args.variant,
                         interpreter="cpython" if args.cpython else "auto")
    signal.signal(signal.SIGTERM, _interrupt)
    table.start()
    print("virtual table: %d tiles under %s" % (args.tiles, table.interpreter))
    for t in table.tiles:
        print("tile %d  uid %s  port %s" % (t.index, t.uid, t.port))
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        table.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
