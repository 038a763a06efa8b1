"""Battle Royale's light: the diamond and the dice tray as scenes (host/lights.py's
primitives)."""

from host import lights
from shared_rules import royale

CARD_DOWN = (24, 16, 6)
REDUCED = (255, 140, 0)


def diamond_scenes(state, mismatches=(), pockets=(), bot_cells=(), move_cells=(),
                   colours=None, falls=()):
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
    palette = lights.PAWN_COLOURS
    scenes = {}
    last = royale.last_card(state)
    for i, cell in enumerate(royale.CELLS):
        if state.map[i] is None:
            scenes[cell] = lights.DARK_CELL
        elif i == last:
            scenes[cell] = lights.all_edges(lights.rainbow(2000))
        elif state.reduced:
            scenes[cell] = lights.all_edges(lights.pulse(REDUCED, 1600, 40))
        else:
            scenes[cell] = lights.all_edges(lights.solid(CARD_DOWN))
    for cell in move_cells:
        scenes[cell] = lights.all_edges(lights.pulse(lights.HINT, 1000, 60))
    on_cell = {}
    for n, pid in enumerate(state.seats):
        p = state.players[pid]
        if p.cell >= 0:
            on_cell.setdefault(royale.CELLS[p.cell], []).append((n, pid))
    for cell in sorted(on_cell):
        segs = list(scenes[cell])
        for edge, (n, pid) in enumerate(on_cell[cell][:4]):
            rgb = palette[colours[n]] if colours else palette.get(pid, lights.BOT_MOVE)
            segs[edge] = lights.solid(rgb) if state.players[pid].alive else \
                lights.blink(rgb, 1600, 60)
        scenes[cell] = tuple(segs)
    lights.overlay(scenes, pockets, bot_cells, mismatches)
    for pid, cell in sorted(falls):
        n = state.seats.index(pid)
        scenes[cell] = lights.all_edges(lights.chase(palette[colours[n]] if colours
                                                     else lights.BOT_MOVE, 600))
    return scenes
