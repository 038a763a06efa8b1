"""The terminal view of the table (until a web view exists), and typed inputs for it.

The view: one line per row, north at the top, each cell showing its card
(owner, name, facing; a face-down card as ## for everyone but the host's
log) with the colour the LEDs show, then the score, whose turn, AP and the
mismatches in words.

Typed inputs (the virtual table's hands for people at a keyboard; a real
table has cards, pads and buttons instead):

    place CARD C R      lift C R      tap C R      double C R      hold C R
    SEAT draw | SEAT end_turn | SEAT twist        staff undo | pause | resume
"""

from host import lights
from shared_rules import storybook

FACING_MARK = {0: "^", 1: ">", 2: "v", 3: "<"}
HELP = __doc__.split("Typed inputs")[1].split("\n\n", 1)[1].rstrip()


def _ansi(rgb, text):
    r, g, b = rgb
    if (r, g, b) == (0, 0, 0):
        return text
    return "\x1b[48;2;%d;%d;%dm%s\x1b[0m" % (min(255, r * 2), min(255, g * 2), min(255, b * 2),
                                              text)


def _label(state, entry):
    cid, seat, facing, face_up = entry
    side = storybook.side_of(seat)[0].upper()
    if not face_up:
        return "%s##%s" % (side, FACING_MARK[facing])
    name = state.cat.cards[cid][1].replace("The ", "")
    return "%s%s%s" % (side, name[:2], FACING_MARK[facing])


def render_storybook(state, scenes, mismatches=(), colour=True):
    cols, rows = state.grid if state.grid else (7, 7)
    lines = []
    for r in range(rows - 1, -1, -1):
        cells = []
        for c in range(cols):
            entry = state.board.get((c, r))
            text = _label(state, entry) if entry else "  . "
            scene = scenes.get((c, r), lights.DARK_CELL)
            lit = [seg[1] for seg in scene if seg[0] != "off"]
            cells.append(_ansi(lit[0], text) if colour and lit else text)
        lines.append("%d %s" % (r, " ".join(cells)))
    lines.append("  " + " ".join("  %d " % c for c in range(cols)))
    s = state
    lines.append("Hero %d  Villain %d  (to %d)   turn: %s  AP %d  phase: %s%s" % (
        s.scores["hero"], s.scores["villain"], s.target, s.turn, s.ap, s.phase,
        "  OVERTIME" if s.overtime else ""))
    for m in mismatches:
        lines.append("! " + m.message)
    return "\n".join(lines)


def parse_command(line):
    """A typed line as ("hands", op, args) / ("button", seat, name); ValueError says why not."""
    words = line.split()
    if not words:
        raise ValueError("type a command (help lists them)")
    if words[0] in ("place", "lift", "tap", "double", "hold"):
        want = 4 if words[0] == "place" else 3
        if len(words) != want:
            raise ValueError("usage: %s" % ("place CARD C R" if words[0] == "place"
                                            else words[0] + " C R"))
        try:
            cell = (int(words[-2]), int(words[-1]))
        except ValueError:
            raise ValueError("a cell is two whole numbers: column row") from None
        return ("hands", words[0], (words[1], cell) if words[0] == "place" else (cell,))
    if len(words) == 2:
        return ("button", words[0], words[1])
    raise ValueError("unknown command %r:\n%s" % (line, HELP))
