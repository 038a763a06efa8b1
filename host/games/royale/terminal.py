"""Battle Royale in the terminal."""

from host import lights, terminal
from shared_rules import royale


def render(face, state, scenes, mismatches=(), colour=True, table=None):
    """The Battle Royale diamond: ## a face-down card, .. a won cell, pawns by initial
    (lower case while dead), then what the web table's header says (whose turn, in words;
    each player's cards), the dice tray's pockets, and the mismatches."""
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
            cells.append(terminal.ansi(lit[0], text) if colour and lit else text)
        lines.append("%+d %s" % (y, "".join(cells)))
    lines.append("   " + "".join("%+d  " % x for x in range(-royale.RADIUS, royale.RADIUS + 1)))
    lines.extend(line for line in face.header_lines(state, table) if line)
    pockets = sorted(k[1] + 1 for k in scenes if isinstance(k[0], str) and k[0] == "pocket"
                     and scenes[k] != lights.DARK_CELL)
    if pockets:
        lines.append("dice tray: roll into pocket%s %s" % ("s" if len(pockets) > 1 else "",
                                                          ", ".join(map(str, pockets))))
    for m in mismatches:
        lines.append("! " + m.message)
    return "\n".join(lines)
