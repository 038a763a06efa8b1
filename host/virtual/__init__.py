"""The virtual table, part of the product: with no table configured the host plays on it.

- ``table``: the tiles, each the real firmware in a process on a pseudo-terminal
  (``VirtualTable``, ``VirtualTile``), with a watchdog that restarts a tile that died;
- ``image``: the firmware compiled into the image the tiles run (and a Pico gets);
- ``hands``: the players' hands that carry moves out on it (bots, typed and web controls);
- ``dice``: the dice those hands throw into the tray.

``open_table`` is the one way run, doctor, enroll and the benchmarks get the serial
ports of a table: the ports they were given, or those of a virtual table it starts.
"""

import sys

from host.virtual.table import ControlError, TileDied, VirtualTable, VirtualTile

__all__ = ["ControlError", "TileDied", "VirtualTable", "VirtualTile", "open_table"]

NO_TABLE = "no table configured: starting the virtual table (%d tiles, firmware under %s)"


def _say_no_table(vtable):
    print(NO_TABLE % (len(vtable.tiles), vtable.interpreter), file=sys.stderr, flush=True)


def open_table(ports=(), layout=None, tiles=7, cells=7, variants=None, interpreter="auto",
               heapsize="64k", announce=_say_no_table, tags_per_reader=4, crowded=None):
    """The serial ports of the table, and the VirtualTable behind them or None.

    With ``ports``, those are the table (real tiles): returns ``(list(ports), None)``.
    Without, no table is configured: a virtual table starts, shaped as ``layout`` (as many
    tiles, their firmware variants, each tile of cells or seat readers with its own number
    of slots, and the layout's crowded cells read by several readers) or else as ``tiles``
    tiles of ``cells`` cells (``variants``: one per tile), its firmware under
    ``interpreter`` ("auto": MicroPython where it is installed) with ``heapsize`` for
    each tile's firmware and ``tags_per_reader`` emulated tags made at its start (the
    most the game stacks on a reader); ``crowded``: {tile index: {slot: readers}}, cells
    read by several readers (firmware/config.py). ``announce(vtable)`` says so before it
    starts (default: the
    "no table configured" line on stderr; None: nothing). The caller stops the virtual
    table (``vtable.stop()``) when it is done with the ports.
    """
    if ports:
        return list(ports), None
    cells_of = None
    if layout is not None:
        tiles = len(layout.tiles)
        # A seat tile is, for the firmware, a cell tile whose slots are seat readers; each
        # tile is as large as the layout makes it (a crowded cell's tile may be of one cell).
        cells = max(t.slots for t in layout.tiles if t.firmware_variant == "cell")
        cells_of = dict((t.index, t.slots) for t in layout.tiles
                        if t.firmware_variant == "cell")
        variants = [t.firmware_variant for t in layout.tiles]
        if crowded is None:
            crowded = layout.crowded()
    vtable = VirtualTable(tiles=tiles, cells=cells, variants=variants, heapsize=heapsize,
                          interpreter=interpreter, quiet=True, tags_per_reader=tags_per_reader,
                          crowded=crowded, cells_of=cells_of)
    if announce is not None:
        announce(vtable)
    try:
        vtable.start()
    except BaseException:
        vtable.stop()
        raise
    return vtable.ports(), vtable
