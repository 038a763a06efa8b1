"""Battle Royale in the terminal."""

from host import lights, terminal
from shared_rules import royale


def render(state, scenes, mismatches=(), colour=True):
    """The Battle Royale diamond: ## a face-down card, .. a won cell, pawns by initial
    (lower case while dead), then the players, whose turn, and the mismatches."""
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
