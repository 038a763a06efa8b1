"""Table layouts: which tile slot is which cell, read from TOML (built in: each game's
package, host/games/<name>/layout.toml).

A layout file:

    game = "storybook"            # a game of the registry (host/games/__init__.py)
    name = "Storybook Battles, 7 x 7"

    [[tile]]                      # one per tile, in the order the virtual table starts them
    uid = "e661410400000001"      # optional: the tile's unique id (HELLO); bind by order if absent
    variant = "cell"              # "cell" (a reader, pad and 4 LED edges per slot) or "dice"
    cells = [[0, 0], [1, 0]]      # slot i of the tile is this cell

    [[tile]]
    variant = "dice"
    pockets = 3                   # the dice tray: slot i is die pocket i

    [[tile]]
    variant = "seat"
    seats = [1, 2, 3, 4]          # the seats' card readers: slot i is seat seats[i]'s
                                  # (up to 8 a tile; more seats, more seat tiles)

    [[tile]]
    cells = [[3, 3]]
    readers = {"[3, 3]" = 4}      # optional: a crowded cell, read by several readers (2 to 4,
                                  # one under each part of the cell); others have one

Cells are as the game's engine names them; the game's adapter (host/table/contract.py)
declares its board (`board_cells`, `board_words`), whether it needs a dice tray
(`dice_tray`) and how many seats play cards on readers of their own (`seat_readers`). A
layout covers exactly the game's board: every cell of it on one tile's slot, no cell
beside it. Errors name the file, the line and the field, and what is wrong. Everything is
bounded before it is used: the file's size, the number of tiles (at most one per cell,
the tray and the seat tiles), the cells (the board's, so nothing is ever sized by a number
in the file), the seats (the game's).

A crowded cell (the Dragon Inn of Fairytale Games, where every token of a 10-player game
starts) is read by several readers, one under each quadrant, so that no reader polls more
tags than the latency goal allows (hardware/stacks.md); it is still one slot of its tile,
one cell for the host. `readers` names such cells of a cell tile and their readers (2 to 4
a cell, at most 13 readers a tile: the chip selects of firmware/pins.py).

A seat tile is a tile of card readers, one in front of each seat, for the games whose
cards are played off the board. Seats are numbered in the game's seat order, 1 the first;
a seat has at most one reader, a seat tile at most 8, and a table as many seat tiles as its
seats need. For the firmware a seat tile is a cell tile with one slot per seat (a reader,
a pad and 4 LED edges: the reader's light); the readers are far apart, so their fields may
all be on together. A game whose table has no seat readers refuses a seat tile; a game
that plays cards on them needs one reader per seat it may have.
"""

import re
import tomllib

from host import games

MAX_SLOTS = {"cell": 8, "dice": 3, "seat": 8}
# A crowded cell's readers (a reader under each quadrant) and a tile's readers in all: a chip
# select each, the 8 of the cells and 5 spare GPIOs (firmware/config.py, firmware/pins.py).
MAX_CELL_READERS = 4
MAX_TILE_READERS = 13
VARIANTS = ("cell", "dice", "seat")
# The shipped layouts are about 1.5 kB; a layout of one tile per cell is under 10 kB.
MAX_LAYOUT_BYTES = 64 * 1024
MAX_NAME_CHARS = 200
MAX_UID_HEX = 32            # a tile's unique id: 8 bytes on the RP2040, 16 at most elsewhere


def board_cells(game):
    """The cells of a game's board on the table, as its adapter declares them."""
    return games.table_game(game).board_cells()


class LayoutError(ValueError):
    def __init__(self, path, line, message):
        if line:
            super().__init__("%s, line %s: %s" % (path, line, message))
        else:
            super().__init__("%s: %s" % (path, message))
        self.path = path
        self.line = line
        self.message = message


class TileSlots:
    """One tile of the layout: its variant, its bound uid (or None), its cells per slot."""

    def __init__(self, index, uid, variant, cells, pockets, seats=(), readers=None):
        self.index = index
        self.uid = uid
        self.variant = variant
        self.cells = cells        # list of cells, slot order (cell tiles)
        self.pockets = pockets    # number of dice pockets (dice tile)
        self.seats = list(seats)  # seat numbers, slot order (the seat tile)
        # slot -> readers, for the tile's crowded cells (read by more than one reader)
        self.readers = dict(readers or {})

    @property
    def slots(self):
        """How many slots the tile has: its cells, pockets or seat readers."""
        return len(self.cells) or self.pockets or len(self.seats)

    @property
    def firmware_variant(self):
        """The firmware variant the tile is built as (firmware/config.py): a seat tile is
        a cell tile whose slots are seat readers."""
        return "cell" if self.variant == "seat" else self.variant

    def field_neighbours(self):
        """Per slot, the bit mask of the tile's slots whose cells border it (a side in
        common, 100 mm centre to centre): readers whose fields must not be on together
        (hardware/tile.md, "Reader spacing and cross-talk"). None for the dice tray, which
        reads one pocket at a time anyway; no neighbours at all on the seat tile, whose
        readers lie in front of seats far apart."""
        if self.variant == "seat":
            return [0] * len(self.seats)
        if self.variant != "cell":
            return None
        masks = []
        for x, y in self.cells:
            mask = 0
            for j, (u, v) in enumerate(self.cells):
                if abs(u - x) + abs(v - y) == 1:
                    mask |= 1 << j
            masks.append(mask)
        return masks

    def __repr__(self):
        return "TileSlots(%d, %s, %s, %d cells, %d pockets, seats %s%s)" % (
            self.index, self.uid, self.variant, len(self.cells), self.pockets, self.seats,
            ", readers %s" % self.readers if self.readers else "")


class Layout:
    def __init__(self, game, name, tiles, path="<layout>"):
        self.game = game
        self.name = name
        self.tiles = tiles
        self.path = path
        self.cell_of = {}   # (tile index, slot) -> cell
        self.slot_of = {}   # cell -> (tile index, slot)
        for tile in tiles:
            for slot, cell in enumerate(tile.cells):
                self.cell_of[(tile.index, slot)] = cell
                self.slot_of[cell] = (tile.index, slot)
        dice = [t for t in tiles if t.variant == "dice"]
        self.dice_tile = dice[0].index if dice else None
        self.seat_of = {}       # (tile index, slot) -> seat number (1 = the first seat)
        self.seat_slot = {}     # seat number -> (tile index, slot)
        self.seat_tiles = []    # the seat tiles' indexes, in order
        for tile in tiles:
            if tile.variant == "seat":
                self.seat_tiles.append(tile.index)
                for slot, seat in enumerate(tile.seats):
                    self.seat_of[(tile.index, slot)] = seat
                    self.seat_slot[seat] = (tile.index, slot)

    def tile_of(self, key):
        """The index of the tile that lights a scene key: a cell, ("pocket", i) of the dice
        tray or ("seat", n), seat n's card reader; None if the layout has no such place."""
        if key in self.slot_of:
            return self.slot_of[key][0]
        if key[0] == "seat":
            return self.seat_slot[key[1]][0] if key[1] in self.seat_slot else None
        if key[0] == "pocket":
            return self.dice_tile
        return None

    def place_words(self, tile):
        """What a tile holds, in words: its cells, the dice tray or seats' card readers."""
        if tile.cells:
            return "cells %s" % ", ".join("[%d, %d]" % (c[0], c[1]) for c in tile.cells)
        if tile.seats:
            return "the card readers of seats %s" % ", ".join(str(n) for n in tile.seats)
        return "the dice tray"

    def crowded(self):
        """{tile index: {slot: readers}} for the tiles with crowded cells (the firmware's
        `readers`, the virtual table's `crowded`)."""
        return dict((t.index, dict(t.readers)) for t in self.tiles if t.readers)

    @property
    def seats(self):
        """The seat numbers that have a card reader, in order."""
        return sorted(self.seat_slot)

    @property
    def cells(self):
        return sorted(self.slot_of)

    def bind(self, uids_in_order):
        """Tile index -> uid: the layout's uids, else the given uids in order (virtual table)."""
        out = {}
        for tile in self.tiles:
            if tile.uid is not None:
                out[tile.index] = tile.uid
            elif tile.index < len(uids_in_order):
                out[tile.index] = uids_in_order[tile.index]
        return out


def _line_of(text, tile_index, key=None):
    """The line of the n-th [[tile]] header, or of `key` inside it (1-based)."""
    seen = -1
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("[[tile]]"):
            seen += 1
            if seen == tile_index:
                if key is None:
                    return i + 1
                for j in range(i + 1, len(lines)):
                    stripped = lines[j].strip()
                    if stripped.startswith("["):
                        break
                    if stripped.split("=")[0].strip() == key:
                        return j + 1
                return i + 1
    return None


def _top_line(text, key):
    for i, line in enumerate(text.splitlines()):
        if line.split("=")[0].strip() == key:
            return i + 1
    return 1


def parse(text, path="<layout>"):
    if len(text) > MAX_LAYOUT_BYTES:
        raise LayoutError(path, None, "a layout is at most %d kB; this one is %d kB"
                          % (MAX_LAYOUT_BYTES // 1024, len(text) // 1024))
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = re.search(r"line (\d+)", str(e))
        lineno = int(found.group(1)) if found else None
        raise LayoutError(path, lineno, "not valid TOML (%s)" % e) from None
    except RecursionError:
        raise LayoutError(path, None, "not a layout: arrays or tables nested too deeply") \
            from None
    except ValueError as e:    # e.g. an integer of thousands of digits
        raise LayoutError(path, None, "not a layout: %s" % str(e).split(";")[0]) from None
    for key in sorted(doc):
        if key not in ("game", "name", "tile"):
            raise LayoutError(path, _top_line(text, key), "unknown key %r (game, name, [[tile]])"
                              % key[:40])
    game = doc.get("game")
    known = games.names()
    if game is None:
        raise LayoutError(path, None, "game is missing: a layout starts with game = %s"
                          % " or ".join('"%s"' % g for g in known))
    if game not in known:
        raise LayoutError(path, _top_line(text, "game"), "game must be one of %s, not %s"
                          % (", ".join(known), _shown(game)))
    adapter = games.table_game(game)
    name = doc.get("name", game)
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        raise LayoutError(path, _top_line(text, "name"), "name must be a text of at most %d "
                          "characters" % MAX_NAME_CHARS)
    board = adapter.board_cells()
    raw_tiles = doc.get("tile")
    if not isinstance(raw_tiles, list) or not raw_tiles:
        raise LayoutError(path, None, "a layout needs at least one [[tile]]")
    # One cell per tile at the most, the dice tray and the seat tiles: checked before any
    # tile is read.
    most_seats = adapter.seat_readers
    seat_tiles = (most_seats + MAX_SLOTS["seat"] - 1) // MAX_SLOTS["seat"]
    most = len(board) + 1 + seat_tiles
    if len(raw_tiles) > most:
        raise LayoutError(path, _line_of(text, most), "tile: a %s layout has at most %d "
                          "tiles (one per cell of its %d, the dice tray%s); this one lists %d"
                          % (game, most, len(board), " and the seat tiles" if most_seats
                             else "", len(raw_tiles)))
    tiles = []
    seen_cells = {}
    seen_uids = {}
    dice_tile = None
    seat_readers = {}    # seat number -> (tile, slot) of its reader, across the seat tiles
    for i, raw in enumerate(raw_tiles):
        def fail(key, message, i=i):
            raise LayoutError(path, _line_of(text, i, key), "tile %d, %s: %s"
                              % (i + 1, key, message))
        if not isinstance(raw, dict):
            raise LayoutError(path, None, "tile %d: each tile is a [[tile]] table, not %s"
                              % (i + 1, _shown(raw)))
        for key in sorted(raw):
            if key not in ("uid", "variant", "cells", "pockets", "seats", "readers"):
                fail(key[:40], "unknown key (a tile has uid, variant, cells, pockets, seats, "
                     "readers)")
        variant = raw.get("variant", "cell")
        if not isinstance(variant, str) or variant not in VARIANTS:
            fail("variant", 'variant must be "cell", "dice" or "seat", not %s'
                 % _shown(variant))
        uid = raw.get("uid")
        if uid is not None:
            if not isinstance(uid, str) or not 8 <= len(uid) <= MAX_UID_HEX or any(
                    c not in "0123456789abcdef" for c in uid.lower()):
                fail("uid", "uid must be the tile's unique id in hex (8 to %d digits), not %s"
                     % (MAX_UID_HEX, _shown(uid)))
            uid = uid.lower()
            if uid in seen_uids:
                fail("uid", "uid %s is already tile %d" % (uid, seen_uids[uid] + 1))
            seen_uids[uid] = i
        cells = []
        pockets = 0
        seats = []
        readers = {}
        if variant != "cell" and "readers" in raw:
            fail("readers", "only a cell tile has crowded cells (readers), not a %s tile"
                 % variant)
        if variant != "seat" and "seats" in raw:
            fail("seats", "a %s tile has %s, not seats" % (
                variant, "cells" if variant == "cell" else "pockets"))
        if variant == "seat":
            _seat_tile(raw, adapter, seat_readers, i, fail)
            seats = list(raw["seats"])
        elif variant == "cell":
            if "pockets" in raw:
                fail("pockets", "a cell tile has cells, not pockets")
            raw_cells = raw.get("cells")
            if not isinstance(raw_cells, list) or not raw_cells:
                fail("cells", "a cell tile needs cells = [[column, row], ...]")
            if len(raw_cells) > MAX_SLOTS["cell"]:
                fail("cells", "a tile has at most %d cells, this one lists %d"
                     % (MAX_SLOTS["cell"], len(raw_cells)))
            for cell in raw_cells:
                if not (isinstance(cell, list) and len(cell) == 2
                        and all(isinstance(v, int) and not isinstance(v, bool) for v in cell)):
                    fail("cells", "each cell is [column, row] in whole numbers, not %s"
                         % _shown(cell))
                c = (cell[0], cell[1])
                if c not in board:
                    fail("cells", "cell %s is off %s" % (_shown(cell), adapter.board_words))
                if c in seen_cells:
                    fail("cells", "cell %r is already slot %d of tile %d"
                         % (list(c), seen_cells[c][1], seen_cells[c][0] + 1))
                seen_cells[c] = (i, len(cells))
                cells.append(c)
            if "readers" in raw:
                readers = _crowded(raw["readers"], cells, fail)
        else:
            if dice_tile is not None:
                fail("variant", "tile %d is already the dice tray; a table has one"
                     % (dice_tile + 1))
            dice_tile = i
            pockets = raw.get("pockets", 3)
            if pockets != 3 or isinstance(pockets, bool):
                fail("pockets", "the dice tray has 3 pockets (one die each), not %s"
                     % _shown(pockets))
            if "cells" in raw:
                fail("cells", "a dice tile has pockets, not cells")
        tiles.append(TileSlots(i, uid, variant, cells, pockets, seats, readers))
    missing = sorted(board - set(seen_cells))
    if missing:
        raise LayoutError(path, None, "tile, cells: a layout covers the full grid, "
                          "every cell of %s on a tile; missing %s%s" % (
                              adapter.board_words, [list(m) for m in missing[:5]],
                              " and %d more" % (len(missing) - 5) if len(missing) > 5 else ""))
    layout = Layout(game, name, tiles, path)
    if adapter.dice_tray and layout.dice_tile is None:
        raise LayoutError(path, None, "tile, variant: %s needs a dice tile "
                          '([[tile]] variant = "dice")' % adapter.title)
    if most_seats and not layout.seat_tiles:
        raise LayoutError(path, None, "tile, variant: %s plays its cards on a card reader "
                          'at each seat: it needs a seat tile ([[tile]] variant = "seat", '
                          "seats = [1, 2, ...])" % adapter.title)
    return layout


def _crowded(raw, cells, fail):
    """A cell tile's `readers` ({"[x, y]" = n}: the crowded cells and their readers) as
    {slot: readers}; `fail(key, sentence)` raises."""
    if not isinstance(raw, dict) or not raw:
        fail("readers", "readers names the tile's crowded cells and their readers, like "
             "readers = {\"[3, 3]\" = 4}, not %s" % _shown(raw))
    out = {}
    for key in sorted(raw):
        found = re.fullmatch(r"\s*\[\s*(-?\d{1,3})\s*,\s*(-?\d{1,3})\s*\]\s*", key)
        if found is None:
            fail("readers", 'each crowded cell is named "[column, row]", not %s' % _shown(key))
        cell = (int(found.group(1)), int(found.group(2)))
        if cell not in cells:
            fail("readers", "[%d, %d] is not a cell of this tile (its cells: %s)" % (
                cell[0], cell[1], ", ".join("[%d, %d]" % c for c in cells)))
        slot = cells.index(cell)
        if slot in out:
            fail("readers", "[%d, %d] is named twice" % cell)
        n = raw[key]
        if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= MAX_CELL_READERS:
            fail("readers", "a crowded cell has 2 to %d readers (one under each quadrant), "
                 "not %s" % (MAX_CELL_READERS, _shown(n)))
        out[slot] = n
    total = len(cells) + sum(n - 1 for n in out.values())
    if total > MAX_TILE_READERS:
        fail("readers", "a tile has at most %d readers (a chip select each); %d cells with "
             "these crowded cells need %d" % (MAX_TILE_READERS, len(cells), total))
    return out


def _seat_tile(raw, adapter, seat_readers, i, fail):
    """Check a seat tile's fields (`fail(key, sentence)` raises) and note its readers in
    `seat_readers` (seat -> (tile, slot)): a seat has one reader across the seat tiles."""
    most = adapter.seat_readers
    if not most:
        fail("variant", "%s plays no cards on seat readers: its table has no seat tile"
             % adapter.title)
    for key in ("cells", "pockets"):
        if key in raw:
            fail(key, "a seat tile has seats, not %s" % key)
    seats = raw.get("seats")
    if not isinstance(seats, list) or not seats:
        fail("seats", "a seat tile needs seats = [1, 2, ...]: slot i is the card reader of "
             "seat seats[i]")
    if len(seats) > MAX_SLOTS["seat"]:
        fail("seats", "a tile has at most %d readers, this one lists %d seats"
             % (MAX_SLOTS["seat"], len(seats)))
    for slot, seat in enumerate(seats):
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= most:
            fail("seats", "each seat is a whole number from 1 to %d (%s has at most %d "
                 "seats), not %s" % (most, adapter.title, most, _shown(seat)))
        if seat in seat_readers:
            tile, other = seat_readers[seat]
            fail("seats", "seat %d already has a reader (%sslot %d): a seat has one"
                 % (seat, "tile %d, " % (tile + 1) if tile != i else "", other))
        seat_readers[seat] = (i, slot)


def _shown(value):
    """A value from the file, shortened: a hostile file must not make a huge message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load(path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LAYOUT_BYTES + 1)
    except OSError as e:
        raise LayoutError(path, None, "cannot read the layout (%s)" % e.strerror) from None
    if len(data) > MAX_LAYOUT_BYTES:
        raise LayoutError(path, None, "a layout is at most %d kB; this file is larger"
                          % (MAX_LAYOUT_BYTES // 1024))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise LayoutError(path, line, "not UTF-8 text (byte %d)" % e.start) from None
    return parse(text, path)


def builtin_path(game):
    """The layout that comes with the product for ``game`` (package data of its package)."""
    return games.layout_path(game)
