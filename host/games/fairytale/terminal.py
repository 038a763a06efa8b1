"""Fairytale Games in the terminal, for a bench engineer: the map as the tiles light it, then
the day, each player's board in short, the battles, what each seat may choose (and how, with
the taps on its reader), the readers and the mismatches. What the room may see: no card of a
hand, no face-down deck."""

from host import lights, terminal
from host.games.fairytale import places
from host.games.fairytale.places import DECK_CELLS, PILE_CELL, SEAT, SIZE, cell_of, tokens
from shared_rules import fairytale as ft
from shared_rules.fairytale import battle, core, world


def _cap(text):
    return text[:1].upper() + text[1:]


def _short(name, n=5):
    words = [w for w in name.replace("'", "").split() if w.lower() not in ("the", "of")]
    text = "".join(w[:3] if i == 0 else w[:2] for i, w in enumerate(words[:2]))
    return text[:n]


def render(face, state, scenes, mismatches=(), colour=True, table=None):
    s = state
    marks = {}
    for _item, t in sorted(tokens(s).items()):
        seat = t["seat"]
        if seat is None and t["unit"] is not None:
            seat = s.allies[t["unit"]]["members"][0]
        marks.setdefault(t["cell"], []).append(str(int(seat[1:]) % 10) if seat else "*")
    lines = []
    for y in range(SIZE - 1, -1, -1):
        row = []
        for x in range(SIZE):
            i = y * SIZE + x
            lid = s.cells[i]
            text = "....." if lid is None else _short(places.name(s, lid)).ljust(5)
            here = marks.get((x, y), [])
            tokens_here = "".join(here) if len(here) <= 3 else "x%d" % len(here)
            text = ("%s %s" % (text, tokens_here)).ljust(9)[:9]
            scene = scenes.get((x, y), lights.DARK_CELL)
            lit = [seg[1] for seg in scene if seg[0] not in ("off", "rainbow")]
            row.append(terminal.ansi(lit[0], text) if colour and lit else text)
        lines.append("%d %s" % (y, "".join(row)))
    lines.append("  " + "".join(("%d" % x).ljust(9) for x in range(SIZE)))
    lines.extend(line for line in face.header_lines(s, table) if line)
    if s.event is not None:
        lines.append("Event in force: %s%s" % (places.name(s, s.event), " (%d more days)" %
                                               s.event_hold if s.event_hold else ""))
    for q in s.seats:
        lines.append("  " + _player_line(s, q))
    for b in s.battles:
        lines.append("  " + _battle_line(s, b))
    for h in s.hunters:
        if h["state"] == "hunting":
            lines.append("  Hunter %s (%d health) on %s" % (places.name(s, h["id"]),
                                                           h["health"],
                                                           places.xy(cell_of(h["cell"]))))
    if table is not None:
        lines.extend(_readers(s, table))
        lines.extend(_choices(s, table))
        said = table.progress()
        if said:
            lines.append("> " + said["text"])
    lines.extend("! " + m.message for m in mismatches)
    return "\n".join(lines)


def _player_line(s, q):
    p = s.players[q]
    who = places.player_words(s, q)
    if p["character"] is None:
        return "%s: choosing a character" % who
    if p["out"]:
        return "%s: out of the Battle Royale" % who
    health = core.health(p["traits"])
    parts = ["%s: %s" % (who, places.name(s, p["active"])),
             "%d/%d health" % (health, core.max_health(s, p)),
             "reputation %d" % p["reputation"],
             "kills %d players, %d characters" % (p["kills"]["players"],
                                                  p["kills"]["characters"])]
    if len(p["party"]) > 1:
        parts.append("party %s" % places.names_of(s, p["party"]))
    if p["poison"]:
        parts.append("poison %d" % p["poison"])
    if p["battle"] is not None:
        parts.append("in battle")
    elif p["ally"] is not None:
        parts.append("in an Ally Party")
    else:
        parts.append("on %s" % places.xy(cell_of(core.cell_of(s, q))))
    if p["quests"]:
        parts.append("quests %s" % places.names_of(s, p["quests"]))
    return ", ".join(parts)


def _battle_line(s, b):
    sides = []
    for fid in sorted(b["fighters"]):
        f = b["fighters"][fid]
        if f["out"] is not None:
            continue
        if battle.is_auto(f):
            sides.append("%s %d/%d" % (places.name(s, f["enemy"]), f["health"], f["max"]))
        else:
            p = s.players[f["seat"]]
            sides.append("%s (%s) %d/%d" % (places.player_words(s, f["seat"]),
                                            places.name(s, f["character"]),
                                            core.health(p["traits"]), core.max_health(s, p)))
    waits = battle.whose_move(s, b)
    return "Battle on %s: %s; waits for %s" % (places.xy(cell_of(b["cell"])),
                                                " vs ".join(sides),
                                                places.player_words(s, waits))


def _readers(s, table):
    out = []
    for place in DECK_CELLS:
        seen = table.observed.get(place)
        if seen:
            # A quest opened goes into its player's hand: the room sees a quest card.
            named = ["a quest card" if place in PILE_CELL.values() else
                     places.item_words(s, i) for i in seen]
            out.append("  %s: %s" % (_cap(places.place_words(s, place)), ", ".join(named)))
    for n in range(1, len(s.seats) + 1):
        seen = table.seat_observed.get(n)
        if seen:
            spent = table.spent.get((SEAT, n), set())
            out.append("  %s: %s" % (_cap(places.reader_words(s, n)), ", ".join(
                places.item_words(s, i) + (" (played: lift it off)" if i in spent else "")
                for i in seen)))
    return out


def _choices(s, table):
    """What each seat the game waits on may choose now, and how (its reader's taps)."""
    out = []
    if s.status != "ongoing":
        return out
    for q in ft.actors(s):
        options = table.choices(q)
        n = places.seat_number(s, q)
        cursor = table.cursor.get(n, 0) % len(options) if options else 0
        what = []
        if s.phase == "choose":
            what.append("lay a character card on the reader")
        elif world.current_seat(s) == q:
            what.append("move their token")
        if any(a.get("seat") == q and a["type"] in places.READER_PLAYS
               for a in table.legal_now()):
            what.append("lay cards on the reader (played once they lie still; hold the reader "
                        "to choose whom they hit or which traits pay, then tap it)")
        if len(options) == 1:
            what.append("tap the reader to %s" % options[0][0])
        elif options:
            what.append("tap the reader to %s (hold it for the next of %d choices)" % (
                options[cursor][0], len(options)))
        if s.clock == "flip" and q == s.sundial:
            what.append("lay the day's event card on the event deck's reader")
        out.append("  %s may %s" % (places.player_words(s, q), "; ".join(what) or "wait"))
    return out
