"""Table layouts: which tile slot is which cell, read from TOML (built in: host/layouts/).

A layout file:

    game = "storybook"            # or "royale"
    name = "Storybook Battles, 7 x 7"

    [[tile]]                      # one per tile, in the order the virtual table starts them
    uid = "e661410400000001"      # optional: the tile's unique id (HELLO); bind by order if absent
    variant = "cell"              # "cell" (a reader, pad and 4 LED edges per slot) or "dice"
    cells = [[0, 0], [1, 0]]      # slot i of the tile is this cell

    [[tile]]
    variant = "dice"
    pockets = 3                   # the dice tray: slot i is die pocket i

Cells are [column, row] for Storybook and [x, y] with |x|+|y| <= 3 for the
Battle Royale diamond. Errors name the file, the line, and what is wrong.
"""

import re
import tomllib

GAMES = ("storybook", "royale")
MAX_SLOTS = {"cell": 8, "dice": 3}


class LayoutError(ValueError):
    def __init__(self, path, line, message):
        super().__init__("%s, line %s: %s" % (path, line if line else "?", message))
        self.path = path
        self.line = line
        self.message = message


class TileSlots:
    """One tile of the layout: its variant, its bound uid (or None), its cells per slot."""

    def __init__(self, index, uid, variant, cells, pockets):
        self.index = index
        self.uid = uid
        self.variant = variant
        self.cells = cells        # list of cells, slot order (cell tiles)
        self.pockets = pockets    # number of dice pockets (dice tile)

    def field_neighbours(self):
        """Per slot, the bit mask of the tile's slots whose cells border it (a side in
        common, 100 mm centre to centre): readers whose fields must not be on together
        (hardware/tile.md, "Reader spacing and cross-talk"). None for the dice tray, which
        reads one pocket at a time anyway."""
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
        return "TileSlots(%d, %s, %s, %d cells, %d pockets)" % (
            self.index, self.uid, self.variant, len(self.cells), self.pockets)


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
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = re.search(r"line (\d+)", str(e))
        lineno = int(found.group(1)) if found else None
        raise LayoutError(path, lineno, "not valid TOML (%s)" % e) from None
    for key in sorted(doc):
        if key not in ("game", "name", "tile"):
            raise LayoutError(path, _top_line(text, key), "unknown key %r (game, name, [[tile]])"
                              % key)
    game = doc.get("game")
    if game not in GAMES:
        raise LayoutError(path, _top_line(text, "game"), "game must be one of %s, not %r"
                          % (", ".join(GAMES), game))
    raw_tiles = doc.get("tile")
    if not isinstance(raw_tiles, list) or not raw_tiles:
        raise LayoutError(path, None, "a layout needs at least one [[tile]]")
    tiles = []
    seen_cells = {}
    seen_uids = {}
    for i, raw in enumerate(raw_tiles):
        def fail(key, message, i=i):
            raise LayoutError(path, _line_of(text, i, key), "tile %d: %s" % (i + 1, message))
        for key in sorted(raw):
            if key not in ("uid", "variant", "cells", "pockets"):
                fail(key, "unknown key %r (uid, variant, cells, pockets)" % key)
        variant = raw.get("variant", "cell")
        if variant not in MAX_SLOTS:
            fail("variant", 'variant must be "cell" or "dice", not %r' % (variant,))
        uid = raw.get("uid")
        if uid is not None:
            if not isinstance(uid, str) or len(uid) < 8 or any(
                    c not in "0123456789abcdef" for c in uid.lower()):
                fail("uid", "uid must be the tile's unique id in hex, not %r" % (uid,))
            uid = uid.lower()
            if uid in seen_uids:
                fail("uid", "uid %s is already tile %d" % (uid, seen_uids[uid] + 1))
            seen_uids[uid] = i
        cells = []
        pockets = 0
        if variant == "cell":
            raw_cells = raw.get("cells")
            if not isinstance(raw_cells, list) or not raw_cells:
                fail("cells", "a cell tile needs cells = [[column, row], ...]")
            if len(raw_cells) > MAX_SLOTS["cell"]:
                fail("cells", "a tile has at most %d cells, this one lists %d"
                     % (MAX_SLOTS["cell"], len(raw_cells)))
            for cell in raw_cells:
                if not (isinstance(cell, list) and len(cell) == 2
                        and all(isinstance(v, int) and not isinstance(v, bool) for v in cell)):
                    fail("cells", "each cell is [column, row] in whole numbers, not %r" % (cell,))
                c = (cell[0], cell[1])
                if c in seen_cells:
                    fail("cells", "cell %r is already slot %d of tile %d"
                         % (list(c), seen_cells[c][1], seen_cells[c][0] + 1))
                seen_cells[c] = (i, len(cells))
                cells.append(c)
        else:
            pockets = raw.get("pockets", 3)
            if pockets != 3:
                fail("pockets", "the dice tray has 3 pockets (one die each), not %r" % (pockets,))
            if "cells" in raw:
                fail("cells", "a dice tile has pockets, not cells")
        tiles.append(TileSlots(i, uid, variant, cells, pockets))
    layout = Layout(game, doc.get("name", game), tiles, path)
    _check_game_shape(layout, text, path)
    return layout


def _check_game_shape(layout, text, path):
    cells = set(layout.slot_of)
    if layout.game == "storybook":
        cols = max(c for c, _ in cells) + 1
        rows = max(r for _, r in cells) + 1
        want = set((c, r) for c in range(cols) for r in range(rows))
        if min(c for c, _ in cells) < 0 or min(r for _, r in cells) < 0 or cells != want:
            missing = sorted(want - cells)
            raise LayoutError(path, None, "a Storybook layout covers a full grid from [0, 0]; "
                              "missing %s" % ([list(m) for m in missing[:5]],))
    else:
        diamond = set((x, y) for x in range(-3, 4) for y in range(-3, 4) if abs(x) + abs(y) <= 3)
        extra = sorted(cells - diamond)
        if extra:
            line = _line_of(text, layout.slot_of[extra[0]][0], "cells")
            raise LayoutError(path, line, "cell %r is off the Battle Royale diamond "
                              "(|x| + |y| <= 3)" % (list(extra[0]),))
        missing = sorted(diamond - cells)
        if missing:
            raise LayoutError(path, None, "the diamond's 25 cells are all needed; missing %s"
                              % ([list(m) for m in missing[:5]],))
        if layout.dice_tile is None:
            raise LayoutError(path, None, "Battle Royale needs a dice tile "
                              '([[tile]] variant = "dice")')


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise LayoutError(path, None, "cannot read the layout (%s)" % e.strerror) from None
    return parse(text, path)


def builtin_path(game):
    """The layout that comes with the product for ``game`` (package data of host)."""
    import os
    host = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(host, "layouts", "%s.toml" % game)
