"""Storybook Battles in the terminal: each cell's card (owner, name, facing; a face-down card
as ## for everyone) with the colour the LEDs show, then what the web table's header says
(whose turn and what to do, the score, the action points left) and the mismatches, in words."""

from host import lights, terminal
from shared_rules import storybook

FACING_MARK = {0: "^", 1: ">", 2: "v", 3: "<"}


def _label(state, entry):
    cid, seat, facing, face_up = entry
    side = storybook.side_of(seat)[0].upper()
    if not face_up:
        return "%s##%s" % (side, FACING_MARK[facing])
    name = state.cat.cards[cid][1].replace("The ", "")
    return "%s%s%s" % (side, name[:2], FACING_MARK[facing])


def render(face, state, scenes, mismatches=(), colour=True, table=None):
    cols, rows = state.grid if state.grid else (7, 7)
    lines = []
    for r in range(rows - 1, -1, -1):
        cells = []
        for c in range(cols):
            entry = state.board.get((c, r))
            text = _label(state, entry) if entry else "  . "
            scene = scenes.get((c, r), lights.DARK_CELL)
            lit = [seg[1] for seg in scene if seg[0] != "off"]
            cells.append(terminal.ansi(lit[0], text) if colour and lit else text)
        lines.append("%d %s" % (r, " ".join(cells)))
    lines.append("  " + " ".join("  %d " % c for c in range(cols)))
    lines.extend(line for line in face.header_lines(state, table) if line)
    for m in mismatches:
        lines.append("! " + m.message)
    return "\n".join(lines)
