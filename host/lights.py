"""Lighting: the game state, its latest events and the table's mismatches as a scene per cell.

A scene is four edge segments (N, E, S, W); a segment is
(effect, (r, g, b), a, b) with the effect names and parameters of
shared_rules/led_scene.py (the tiles render them). Scenes are computed from data
only, so the same state always lights the same way, after a restart too.
"""

from shared_rules import led_scene

OFF = ("off", (0, 0, 0), 0, 0)
DARK_CELL = (OFF, OFF, OFF, OFF)

SIDE_COLOUR = {"hero": (40, 110, 255), "villain": (255, 40, 30)}
SIDE_DIM = {"hero": (6, 16, 40), "villain": (40, 6, 5)}
SWORDS = (255, 150, 0)
HINT = (0, 40, 10)
HINT_SLIDE = (0, 160, 40)
TEAM_CAPTURE = (170, 0, 255)
MISMATCH = (255, 0, 0)
CAPTURED = (255, 0, 200)
BOT_MOVE = (255, 255, 255)
PAWN_COLOURS = {"red": (255, 0, 0), "blue": (0, 60, 255), "green": (0, 200, 30),
                "yellow": (255, 180, 0), "purple": (150, 0, 255), "orange": (255, 80, 0),
                "white": (200, 200, 200), "black": (30, 30, 60)}


def encode(scene):
    """The 24 bytes the tiles take for a cell (shared_rules/led_scene.py's format)."""
    return led_scene.cell_scene(*[led_scene.segment(led_scene.effect_id(seg[0]),
                                                    seg[1], min(255, seg[2]), min(255, seg[3]))
                                  for seg in scene])


def solid(rgb):
    return ("solid", rgb, 0, 0)


def blink(rgb, period_ms=400, duty=50):
    return ("blink", rgb, max(1, period_ms // 20), duty)


def pulse(rgb, period_ms=2000, low=30):
    return ("pulse", rgb, max(1, period_ms // 20), low)


def value(rgb, count, unlit=8):
    return ("value", rgb, count, unlit)


def chase(rgb, period_ms=1000, tail=2):
    return ("chase", rgb, max(1, period_ms // 20), tail | 0x40)


def all_edges(segment):
    return (segment, segment, segment, segment)


def attract_scenes(cells):
    """The attract mode: every cell runs a rainbow, offset so the table swirls."""
    return {cell: all_edges(("rainbow", (0, 0, 0), 150, 0)) for cell in cells}


# ---------------------------------------------------------------- Storybook Battles

def storybook_scenes(state, events=(), mismatches=(), hints=(), bot_cells=()):
    """cell -> scene for every cell of the grid.

    - a face-up card: each edge facing a face-up enemy shows its swords (amber),
      the other edges its shields in the side's colour; numbers of a face-down
      card are never shown (a dim side colour);
    - the last battle: the edges that bested blink, an overwhelm blinks fast;
    - mismatch cells blink red, captured cards still on the table flash magenta;
    - hint cells (where a card may go) glow; a bot's move for a human to carry
      out chases in white.
    """
    from shared_rules import storybook
    scenes = {}
    if state.grid is not None:
        for c in range(state.grid[0]):
            for r in range(state.grid[1]):
                scenes[(c, r)] = DARK_CELL
    for cell in hints:
        scenes[cell] = all_edges(pulse(HINT, 2000, 60))
    board = state.board
    for cell in sorted(board):
        cid, seat, facing, face_up = board[cell]
        side = storybook.side_of(seat)
        if not face_up:
            scenes[cell] = all_edges(solid(SIDE_DIM[side]))
            continue
        segs = []
        for d in range(4):
            swords, shields = storybook._edge(state, board[cell], d)
            dx, dy = storybook.STEPS[d]
            other = board.get((cell[0] + dx, cell[1] + dy))
            if other is not None and other[3] and storybook.side_of(other[1]) != side:
                segs.append(value(SWORDS, swords))
            else:
                segs.append(value(SIDE_COLOUR[side], shields))
        scenes[cell] = tuple(segs)
    # The last battle, on the edges that fought: a best blinks amber, an overwhelm blinks red
    # fast, the cards of a team capture chase purple toward their prey.
    team = {}
    for ev in events:
        if ev["type"] == "team_capture":
            for by in ev["by_cells"]:
                team[(tuple(by), tuple(ev["cell"]))] = True
    for ev in events:
        if ev["type"] in ("bested", "overwhelmed"):
            by = tuple(ev["by_cell"])
            if by in board:
                tx, ty = ev["cell"]
                d = storybook.STEPS.index((tx - by[0], ty - by[1]))
                segs = list(scenes[by])
                if ev["type"] == "overwhelmed":
                    segs[d] = blink(MISMATCH, 250)
                elif (by, (tx, ty)) in team:
                    segs[d] = ("chase", TEAM_CAPTURE, 25, 2)
                else:
                    segs[d] = blink(SWORDS, 600)
                scenes[by] = tuple(segs)
    for cell in bot_cells:
        scenes[cell] = all_edges(chase(BOT_MOVE, 800))
    for m in mismatches:
        colour = CAPTURED if m.code == "captured_on_table" else MISMATCH
        for cell in m.cells:
            scenes[cell] = all_edges(blink(colour, 300 if colour is CAPTURED else 500))
        if m.code == "lifted" and len(m.cells) == 1:
            # A card in a player's hand on its way somewhere: light where it may slide to.
            for target in slide_targets(state, m.cells[0]):
                scenes[target] = all_edges(pulse(HINT_SLIDE, 1000, 40))
    return scenes


def slide_targets(state, cell):
    """The cells a Storybook card at `cell` may slide to now (its controller's turn only)."""
    from shared_rules import storybook
    entry = state.board.get(cell)
    if entry is None or entry[1] != state.turn:
        return []
    out = []
    for d in range(4):
        try:
            out.append(storybook._slide_target(state, cell, d))
        except storybook.IllegalAction:
            continue
    return out


# ---------------------------------------------------------------- Battle Royale

CARD_DOWN = (24, 16, 6)
REDUCED = (255, 140, 0)
TRAY = (0, 140, 60)


def rainbow(period_ms=2000, level=255):
    return ("rainbow", (0, 0, 0), max(1, period_ms // 20), level)


def royale_scenes(state, mismatches=(), pockets=(), bot_cells=(), move_cells=(), colours=None,
                  falls=()):
    """cell -> scene for the diamond, and ("pocket", i) -> scene for the dice tray.

    - a face-down card glows dim on every edge, or pulses amber once the 13s and 14s
      count 12 (the reduction is public); the last card runs a rainbow;
    - a won (empty) cell is dark;
    - each pawn on a cell takes one edge (N, E, S, W: up to 4) in its player's colour,
      blinking slowly while the player is dead;
    - the pockets the tray waits for are lit; where a lifted pawn may go glows;
    - a bot's move for a human to carry out chases in white; mismatch cells blink red,
      and the cell a dead player must fall to (`falls`: (player, cell) while their
      pawn is not there yet) chases in their colour.
    """
    from shared_rules import royale
    scenes = {}
    last = royale.last_card(state)
    for i, cell in enumerate(royale.CELLS):
        if state.map[i] is None:
            scenes[cell] = DARK_CELL
        elif i == last:
            scenes[cell] = all_edges(rainbow(2000))
        elif state.reduced:
            scenes[cell] = all_edges(pulse(REDUCED, 1600, 40))
        else:
            scenes[cell] = all_edges(solid(CARD_DOWN))
    for cell in move_cells:
        scenes[cell] = all_edges(pulse(HINT, 1000, 60))
    on_cell = {}
    for n, pid in enumerate(state.seats):
        p = state.players[pid]
        if p.cell >= 0:
            on_cell.setdefault(royale.CELLS[p.cell], []).append((n, pid))
    for cell in sorted(on_cell):
        segs = list(scenes[cell])
        for edge, (n, pid) in enumerate(on_cell[cell][:4]):
            rgb = PAWN_COLOURS[colours[n]] if colours else PAWN_COLOURS.get(pid, BOT_MOVE)
            segs[edge] = solid(rgb) if state.players[pid].alive else blink(rgb, 1600, 60)
        scenes[cell] = tuple(segs)
    for pocket in pockets:
        scenes[("pocket", pocket)] = all_edges(pulse(TRAY, 800, 40))
    for cell in bot_cells:
        scenes[cell] = all_edges(chase(BOT_MOVE, 800))
    for m in mismatches:
        for cell in m.cells:
            scenes[cell] = all_edges(blink(MISMATCH, 500))
    for pid, cell in sorted(falls):
        n = state.seats.index(pid)
        scenes[cell] = all_edges(chase(PAWN_COLOURS[colours[n]] if colours else BOT_MOVE, 600))
    return scenes
