"""The terminal view of the table (until a web view exists), and typed inputs for it.

The view: one line per row, north at the top, each cell showing its card
(owner, name, facing; a face-down card as ## for everyone but the host's
log) with the colour the LEDs show, then the score, whose turn, AP and the
mismatches in words.

Typed inputs (the virtual table's hands for people at a keyboard; a real
table has cards, pads and buttons instead):

    place CARD C R      lift C R      tap C R      double C R      hold C R
    place CARD seat N   lift seat N   (seat N's card reader, where the table has one)
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
            if words[-2] == "seat" and words[0] in ("place", "lift"):
                cell = ("seat", int(words[-1]))     # a seat's card reader
            else:
                cell = (int(words[-2]), int(words[-1]))
        except ValueError:
            raise ValueError("a cell is two whole numbers: column row (or seat N, a seat's "
                             "card reader)") from None
        return ("hands", words[0], (words[1], cell) if words[0] == "place" else (cell,))
    if len(words) == 2:
        return ("button", words[0], words[1])
    raise ValueError("unknown command %r:\n%s" % (line, HELP))


def render_royale(state, scenes, mismatches=(), colour=True):
    """The Battle Royale diamond: ## a face-down card, .. a won cell, pawns by initial
    (lower case while dead), then the players, whose turn, and the mismatches."""
    from shared_rules import royale
    pawns = {}
    for pid in state.seats:
        p = state.players[pid]
        if p.cell >= 0:
            mark = pid[0].upper() if p.alive else pid[0].lower()
            pawns.setdefault(royale.CELLS[p.cell], []).append(mark)
    lines = []
    for y in range(royale.RADIUS, -royale.RADIUS - 1, -1):
        cells = []
        for x in range(-royale.RADIUS, royale.RADIUS + 1):
            if (x, y) not in royale.INDEX:
                cells.append("    ")
                continue
            has_card = state.map[royale.INDEX[(x, y)]] is not None
            marks = "".join(pawns.get((x, y), []))
            text = (marks + ("##" if has_card else ".."))[:3].ljust(3) + " "
            scene = scenes.get((x, y), lights.DARK_CELL)
            lit = [seg[1] for seg in scene if seg[0] not in ("off", "rainbow")]
            cells.append(_ansi(lit[0], text) if colour and lit else text)
        lines.append("%+d %s" % (y, "".join(cells)))
    lines.append("   " + "".join("%+d  " % x for x in range(-royale.RADIUS, royale.RADIUS + 1)))
    parts = []
    scores = royale.scores(state)
    for pid in state.order or state.seats:
        p = state.players[pid]
        parts.append("%s%s %d cards %d pts" % (pid, "" if p.alive else " (dead)", p.held(),
                                                scores[pid]))
    lines.append("  ".join(parts))
    turn = royale.current(state)
    extra = ""
    if state.phase == "play":
        extra = "  actions %d  movement %d" % (state.actions_left, royale.movement_left(
            state, state.players[turn]))
    lines.append("phase: %s  turn: %s%s%s%s" % (state.phase, turn, extra,
                                                "  VALUES REDUCED" if state.reduced else "",
                                                "  winner: %s" % state.winner
                                                if state.phase == "finished" else ""))
    pockets = sorted(k[1] + 1 for k in scenes if isinstance(k[0], str) and k[0] == "pocket"
                     and scenes[k] != lights.DARK_CELL)
    if pockets:
        lines.append("dice tray: roll into pocket%s %s" % ("s" if len(pockets) > 1 else "",
                                                          ", ".join(map(str, pockets))))
    for m in mismatches:
        lines.append("! " + m.message)
    return "\n".join(lines)
