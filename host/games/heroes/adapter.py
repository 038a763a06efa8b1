"""Battle Royale with hero teams and Capture the Flag on the table: the adapter
(host/table/contract.py, TableGame).

It lights the 7 x 7 grid, the dice tray and the seats' card readers, draws the game in the
terminal, lets the greedy bot (shared_rules/bots.py, with heroes.evaluate and
heroes.imagine) choose moves and says when the table carried one out; the interpreter is
host/games/heroes/interpreter.py, the virtual hands host/virtual/hands.py (HeroesHands).

The mode is an option: `fairytable run --game heroes --mode ctf` plays Capture the Flag
(host/run.py passes it as options["mode"]); the default is Battle Royale.
"""

from host import lights
from host.table.contract import TableGame
from host.games.heroes.hands import HeroesHands
from host.games.heroes.web import HeroesFace
from host.games.heroes.interpreter import (CARD, FLAG, POCKET_OF, SEAT, HeroesTable, card_of,
                                           cell_of, current_seat, name_of)
from shared_rules import catalog, heroes

FLOOR = (6, 6, 6)        # a free cell glows faintly; walls and bases are dark
HEALTH = (0, 200, 40)    # a character's health, LED by LED
FLAG_LIGHT = (255, 255, 255)


def team_colour(seat, dim=False):
    rgb = lights.PAWN_COLOURS.get(seat, lights.BOT_MOVE)
    return tuple(v // 8 for v in rgb) if dim else rgb


def bot_cells(state, action):
    """The cells a bot's move concerns, chased in white for a person to carry out."""
    s = state
    out = []
    for key in ("character", "attacker", "target"):
        cid = action.get(key)
        if isinstance(cid, str) and cid in s.heroes and s.heroes[cid]["cell"] >= 0:
            out.append(cell_of(s.heroes[cid]["cell"]))
    for key in ("cell", "to", "flag_to"):
        if isinstance(action.get(key), list):
            out.append(tuple(action[key]))
    if action["type"] == "defend" and s.battle is not None:
        t = s.battle["targets"][s.battle["next"]]
        out.append(cell_of(s.heroes[t]["cell"]))
    return sorted(set(out))


def heroes_scenes(state, mismatches=(), pockets=(), chased=(), moves=(), playing=None):
    """cell -> scene for the grid, ("pocket", i) -> scene for the dice tray, and
    ("seat", n) -> scene for seat n's card reader.

    - walls and bases are blacked out (dark); free cells glow faintly; the cells behind a
      Capture the Flag base breathe dimly in the team's colour;
    - a character: its team's colour on the N and S edges, its health as that many LEDs
      on the E and W edges; a character lying down (Respawn Phase) blinks;
    - a flag lying free chases in its team's colour, a flag a character controls in white;
    - the pockets the tray waits for are lit; where a lifted figure may go glows; a bot's
      move for a person to carry out chases in white; mismatch cells blink red;
    - each seat's card reader glows dimly in its team's colour, and pulses for the seat that
      acts now (a card may be laid there); the reader of the card being played (`playing`)
      chases in white; a reader a mismatch names blinks red.
    """
    s = state
    scenes = {}
    for i in range(heroes.NCELLS):
        scenes[cell_of(i)] = lights.DARK_CELL if s.map["blocked"][i] else \
            lights.all_edges(lights.solid(FLOOR))
    for t, zone in enumerate(s.map["teams"] if s.options["mode"] == "ctf" else ()):
        for i in zone["behind"]:
            scenes[cell_of(i)] = lights.all_edges(lights.pulse(team_colour(s.seats[t], True),
                                                               3000, 20))
    for cell in moves:
        scenes[cell] = lights.all_edges(lights.pulse(lights.HINT, 1000, 60))
    for team in sorted(s.flags):
        f = s.flags[team]
        rgb = FLAG_LIGHT if f["carrier"] is not None else team_colour(team)
        scenes[cell_of(f["cell"])] = lights.all_edges(lights.chase(rgb, 1200))
    for cid in s.roster:
        h = s.heroes[cid]
        if h["cell"] < 0:
            continue
        rgb = team_colour(h["seat"])
        side = lights.solid(rgb) if h["state"] == "standing" else lights.blink(rgb, 1600, 60)
        health = lights.value(HEALTH, h["health"])
        scenes[cell_of(h["cell"])] = (side, health, side, health)
    acting = current_seat(s) if s.status == "ongoing" and s.phase == "play" else None
    for n, seat in enumerate(s.seats, 1):
        key = (SEAT, n)
        if s.status != "ongoing":
            scenes[key] = lights.DARK_CELL
        elif key == playing:
            scenes[key] = lights.all_edges(lights.chase(FLAG_LIGHT, 800))
        elif seat == acting:
            scenes[key] = lights.all_edges(lights.pulse(team_colour(seat), 1500, 60))
        else:
            scenes[key] = lights.all_edges(lights.solid(team_colour(seat, True)))
    return lights.overlay(scenes, pockets, chased, mismatches)


class HeroesGame(TableGame):
    """What the session needs to play Battle Royale with hero teams on the table."""

    name = "heroes"
    options = {}
    board_words = "the heroes grid (7 x 7 cells, [0, 0] to [6, 6])"
    dice_tray = True
    seat_readers = 4
    virtual_heap = "64k"
    players_from_bots = True    # `run --headless --bots N` plays N players (Battle Royale)
    button_actions = ("end_turn", "no_defence")
    buttons = (("roll", "Throw the dice"), ("end_turn", "End turn"),
               ("no_defence", "No defence"))
    interpreter = HeroesTable
    face_class = HeroesFace

    def board_cells(self):
        return frozenset((x, y) for x in range(heroes.SIZE) for y in range(heroes.SIZE))

    def tagged_items(self):
        """Characters (tagged figures), action and Bonus Cards (tagged cards), the flags
        (tagged tokens) and the red, white and green dice's faces."""
        cat = catalog.load("heroes_cards.json")
        return (["heroes:" + c["id"] for c in cat["characters"]] +
                [CARD + c["id"] for c in cat["action_cards"] + cat["bonus_cards"]] +
                [FLAG + team for team in ("red", "blue")] +
                ["die:%s:%d" % (colour, face) for colour in POCKET_OF for face in range(1, 7)])

    def scenes(self, state, table, cells, events=(), bot_request=None):
        s = state
        chased = bot_cells(s, bot_request) if bot_request is not None else []
        moves = []
        if table.in_hand is not None and s.phase == "play":
            moves = sorted(set(tuple(a["to"]) for a in heroes.legal_actions(s)
                               if a.get("character") == table.in_hand and "to" in a))
        playing = table.card_play["place"] if table.card_play is not None else None
        return heroes_scenes(s, table.mismatches, table.pockets_wanted(), chased, moves,
                             playing)

    def render(self, state, scene_map, mismatches, colour=True, table=None):
        """The grid as text: "##" a wall or base, a figure by its team's initial and health,
        "F" a flag; then who acts, each character's health, and what lies on each seat's
        card reader (`table`, the interpreter, says)."""
        s = state
        grid = {}
        for cid in s.roster:
            h = s.heroes[cid]
            if h["cell"] >= 0:
                mark = h["seat"][0].upper() if h["state"] == "standing" else h["seat"][0]
                grid[cell_of(h["cell"])] = "%s%-2d" % (mark, h["health"])
        for team in sorted(s.flags):
            cell = cell_of(s.flags[team]["cell"])
            grid[cell] = "F" + team[0] + " "
        lines = []
        for y in range(heroes.SIZE - 1, -1, -1):
            row = []
            for x in range(heroes.SIZE):
                i = y * heroes.SIZE + x
                row.append(grid.get((x, y), " ## " if s.map["blocked"][i] else "  . ")
                           .rjust(4))
            lines.append("%d %s" % (y, "".join(row)))
        lines.append("  " + "".join("%4d" % x for x in range(heroes.SIZE)))
        # The same words as the web table's header: whose turn and what they may do.
        lines.extend(self.face.header_lines(state, table))
        for cid in s.roster:
            h = s.heroes[cid]
            lines.append("  %-6s %-24s %2d/%-2d %s" % (h["seat"], name_of(s, cid), h["health"],
                                                     s.cat["characters"][cid]["health"],
                                                     h["state"]))
        if table is not None:
            for n, seat in enumerate(s.seats, 1):
                cards = [card_of(s, i.split(":", 1)[1]) for i in table.seat_observed.get(n, ())]
                lines.append("  reader %d (%s): %s" % (n, seat, ", ".join(
                    c["name"] if c else "an unknown card" for c in cards) or "empty"))
        lines.extend("! " + m.message for m in mismatches)
        return "\n".join(lines)

    def action_cells(self, state, action):
        return bot_cells(state, action)

    def turns(self, match):
        return match.state.turn_number

    def status_strip(self, match):
        """Characters still in the game per seat, toward a whole team."""
        s = match.state
        left = {}
        for q in s.seats:
            left[q] = len([c for c in s.roster if s.heroes[c]["seat"] == q
                           and s.heroes[c]["state"] != "out"])
        return left, s.options["team_size"], heroes.current(s)

    def normal_bot_action(self, action):
        return action

    def carries_out(self, table_action, request):
        """True if what the table did is the bot's move (the dice come from the table)."""
        def strip(a):
            return dict((k, v) for k, v in a.items() if k not in ("dice", "die"))
        return strip(table_action) == strip(request)

    def hands(self, vtable, layout, registry):
        return HeroesHands(vtable, layout, registry)
