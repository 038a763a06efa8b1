"""Storybook Battles' light: the grid as a scene per cell (host/lights.py's primitives)."""

from host import lights
from shared_rules import storybook

SIDE_COLOUR = {"hero": (40, 110, 255), "villain": (255, 40, 30)}
SIDE_DIM = {"hero": (6, 16, 40), "villain": (40, 6, 5)}
SWORDS = (255, 150, 0)
TEAM_CAPTURE = (170, 0, 255)
CAPTURED = (255, 0, 200)

def grid_scenes(state, events=(), mismatches=(), hints=(), bot_cells=()):
    """cell -> scene for every cell of the grid.

    - a face-up card: each edge facing a face-up enemy shows its swords (amber),
      the other edges its shields in the side's colour; numbers of a face-down
      card are never shown (a dim side colour);
    - the last battle: the edges that bested lights.blink, an overwhelm blinks fast;
    - mismatch cells blink red, captured cards still on the table flash magenta;
    - hint cells (where a card may go) glow; a bot's move for a human to carry
      out chases in white.
    """
    scenes = {}
    if state.grid is not None:
        for c in range(state.grid[0]):
            for r in range(state.grid[1]):
                scenes[(c, r)] = lights.DARK_CELL
    for cell in hints:
        scenes[cell] = lights.all_edges(lights.pulse(lights.HINT, 2000, 60))
    board = state.board
    for cell in sorted(board):
        cid, seat, facing, face_up = board[cell]
        side = storybook.side_of(seat)
        if not face_up:
            scenes[cell] = lights.all_edges(lights.solid(SIDE_DIM[side]))
            continue
        segs = []
        for d in range(4):
            swords, shields = storybook.edge(state, board[cell], d)
            dx, dy = storybook.STEPS[d]
            other = board.get((cell[0] + dx, cell[1] + dy))
            if other is not None and other[3] and storybook.side_of(other[1]) != side:
                segs.append(lights.value(SWORDS, swords))
            else:
                segs.append(lights.value(SIDE_COLOUR[side], shields))
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
                    segs[d] = lights.blink(lights.MISMATCH, 250)
                elif (by, (tx, ty)) in team:
                    segs[d] = ("chase", TEAM_CAPTURE, 25, 2)
                else:
                    segs[d] = lights.blink(SWORDS, 600)
                scenes[by] = tuple(segs)
    for cell in bot_cells:
        scenes[cell] = lights.all_edges(lights.chase(lights.BOT_MOVE, 800))
    for m in mismatches:
        colour = CAPTURED if m.code == "captured_on_table" else lights.MISMATCH
        for cell in m.cells:
            scenes[cell] = lights.all_edges(lights.blink(colour, 300 if colour is CAPTURED
                                                         else 500))
        if m.code == "lifted" and len(m.cells) == 1:
            # A card in a player's hand on its way somewhere: light where it may slide to.
            for target in slide_targets(state, m.cells[0]):
                scenes[target] = lights.all_edges(lights.pulse(lights.HINT_SLIDE, 1000, 40))
    return scenes


def slide_targets(state, cell):
    """The cells a Storybook card at `cell` may slide to now (its controller's turn only)."""
    entry = state.board.get(cell)
    if entry is None or entry[1] != state.turn:
        return []
    out = []
    for d in range(4):
        try:
            out.append(storybook.slide_target(state, cell, d))
        except storybook.IllegalAction:
            continue
    return out
