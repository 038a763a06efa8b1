"""Battle Royale with hero teams (engine name "heroes"): the rules engine for the rulebook
*Battle Royale* with hero teams and its *Capture the Flag* mode (the book's two modes of one
game on a square grid). The rules are stated here in our words, as implemented; where the
book is unclear a short quote says which sentence, and what we chose.

The board. A 7x7 grid (the table): cells [x, y], x the column 0..6, y the row 0..6. A map
(catalog data) blacks out some cells as walls, and for Capture the Flag gives each team a
base (cells that block like walls), the cells "behind" it, its flag's start and its
characters' start cells; for Battle Royale it gives up to four start zones. Two cells are
adjacent when they touch, diagonals included ("Adjacent is defined by any touching
square"); a diagonal step or attack between two blocked cells (walls or bases) would pass
through the wall's corner and is not allowed.

Seats are colours: "red", "blue" (then "green", "yellow" in the 3/4-player variant). Each
seat is one player with a team of characters. A game runs through phases: "pick_roll"
(everybody rolls the green die: `roll_off`; the highest picks first, tied highest roll
again), "pick" (in turn from the first picker, round and round, each player picks a free
character and puts it on a free start cell of their zone: `pick`), "turn_roll" (the green
die again, for who plays first), "play", "finished". A setup that gives the characters
starts in "play".

Actions (JSON; ID is a character or card id, CELL is [x, y]):
  {"type": "roll_off", "dice"?: {seat: 1..6}}          (every seat that must roll now)
  {"type": "pick", "character": ID, "cell": CELL}
  {"type": "roll_move", "die"?: 1..6}                  (the turn's green die; not an action)
  {"type": "move", "character": ID, "to": CELL, "flag_to"?: CELL}
  {"type": "move", "character": ID, "path": [CELL, ...], "flag_to"?: CELL}
  {"type": "attack", "attacker": ID, "target": ID, "dice"?: DICE, "respawn_to"?: RESPAWN}
  {"type": "play_card", "character": ID, "card": ID, "target"?: ID, "to"?: CELL,
       "path"?: [CELL, ...], "flag_to"?: CELL, "dice"?: DICE, "respawn_to"?: RESPAWN}
  {"type": "defend", "card": ID, "target"?: ID, "to"?: CELL, "path"?: [CELL, ...]}
  {"type": "no_defence"}
  {"type": "roll_bonus", "dice"?: {seat: 1..6}, "card"?: ID}
  {"type": "end_turn"}
DICE is {"red": 1..6, "white": {target ID: 1..6}} (with one target "white" may be a
plain die). RESPAWN is {character ID: CELL} (Capture the Flag: where a character that the
attack defeats is laid down). Chance is explicit: every action that rolls takes the dice the
table read, or the engine rolls them with its seeded PRNG when they are left out; a
`roll_bonus` may also name the Bonus Card drawn ("card", read from the physical deck),
else the engine draws the top card of its shuffled deck.

A turn (phase "play"):
- "Each turn has a total of 4 actions" (Capture the Flag: 3); in the 3/4-player variant
  the number is the number of starting characters. Option "actions_per_turn" (default: the
  team size in Battle Royale, 3 in Capture the Flag). Moving, playing a card on your own
  turn and attacking are actions; `roll_move`, `end_turn`, cards played in the opponent's
  battle phase (`defend`) and `roll_bonus` are not. Unused actions are lost.
- Movement: one green-die roll for the whole turn ("One die roll applies for the whole
  turn"). `roll_move` rolls it, once a turn, before the turn's first move; every move of
  the turn uses it. "A character that has yet to move this turn may move up to the number
  of spaces on the die" (plus the character's "move_bonus", an ability from the catalog):
  each character moves at most once a turn with the die, and not after a movement card
  moved it this turn (a card's move is a move: the character no longer "has yet to move").
  Decision: the other way round is allowed: a movement card moves a character that has
  already moved with the die. The book's limit sits under "Moving a character", the die's
  move; a card is "Playing an Action Card" ("Follow the directions on the card"), a move
  the book allows even in the opponent's battle phase, so no die limit binds it. A
  character can thus move twice in a turn only die first, then card, each for an action
  (`moved` in the output lists the characters that moved this turn by either). A move
  steps from cell to touching cell (option "diagonal_moves", default true; false: only
  horizontal and vertical steps), never onto or through a wall, a base, a character
  ("Characters cannot move through each other") or a flag, except its own team's flag,
  which it may pass but not stop on ("may move through their own flags"). A move names the
  destination ("to", the engine finds a way) or the whole way ("path", each step checked).
  Moving zero spaces is no move.
- Attacks: "Characters must be adjacent to attack unless an action card allows them to
  attack from a distance": `attack` is a character attacking one adjacent enemy. The
  attacker rolls the red die and the target the white; red + the attacker's
  "attack_bonus" (+ the card's "bonus") against white + the target's "defence_bonus" (+
  a defence card's bonus): the difference, when the attack is higher, comes off the
  target's health; otherwise nothing. Only standing characters are attacked.
- Ranged attacks: "up to three spaces away ... the spaces may be horizontal, vertical, or
  diagonal". Option "ranged_lines": "straight" (default) reads it as a straight line in
  one of the 8 directions, at most that many spaces, every cell between free of walls,
  bases and characters ("Characters cannot attack through each other"); "path" lets the
  shot bend: at most that many steps through free cells.
- Cards with an area ("Some cards allow characters to attack multiple adjacent
  characters") hit every standing character adjacent to the attacker ("adjacent_all":
  team-mates too, "Characters can damage teammates per the effect of a card";
  "adjacent_enemies": enemies only). The attacker rolls one red die; every target rolls
  its own white die.
- Action cards. Each character brings its own cards, all face up at the start. Playing
  one on your own turn is an action: the character named in the action uses it. Kinds:
  "attack" (as above), "move" (move that character up to the card's spaces, even if it has
  moved with the die this turn; needs no die; it counts as the character's move, above),
  "heal" (give back health, never above the character's starting health, to the character
  or a team-mate within the card's range; a card that would heal nothing is refused),
  "defend" (only in a battle phase: adds its bonus to the white die). A played card turns
  face down: in Battle Royale for the rest of the game, in Capture the Flag until its
  character's Respawn Phase ends, unless it "stays_face_up".
- The battle phase, for a defender: "Action cards played during your opponent's battle
  phase may be played after both players have rolled" and "the defending character may
  choose to play an available action card that does not have 'attack' in its name". After
  an attack's dice are rolled, each target belonging to another player who holds a card it
  could play now (one of its own face-up cards without "attack" in their name, or any
  Bonus Card in its player's hand: their kinds are hidden) waits for that player:
  `defend` (one card, not an action) or `no_defence`. A movement card moves the defender
  away ("as a defensive maneuver"): it takes no damage from this attack. A defence card
  adds to the white die; a heal card heals first, then the damage is taken. Only the
  defending character's cards and its player's Bonus Cards may be played, one per target.
- Battle Royale deaths: "When a character's health reaches the 'R', they are out of play
  and cannot return this game": health 0 is R; the character leaves the board. A player
  with no character left is out; "The winner is the player who has the last hero or
  villain standing" (if a card's area defeats the last characters of everyone, the game is
  a draw).
- Bonus Cards: "When a character dies, both players must roll the green die": the dead
  character's player and the player whose turn it is roll (`roll_bonus`; tied players
  roll again); when they are one player (a card hit its own team) the other player of a
  2-player game rolls too, and in the 3/4-player variant that player draws without a
  roll. The higher draws the top Bonus Card into their hand (hidden from the other
  players; how many they hold is public). A Bonus Card is played like an action card, by
  any standing character of its player ("Bonus Cards drawn after a character dies are
  treated as Action Cards"), and then discarded. Option "bonus_cards" (default true in
  Battle Royale, false in Capture the Flag, whose rules do not mention them).

Capture the Flag (option "mode": "ctf"): two players, teams of two, 3 actions a turn.
- Setup: "Place each flag behind the right side of your team's base" and "each character
  on either side of the flag": the map gives each team's flag cell and the two start cells.
- "When a character's health reaches the 'R', they must be placed on their side in either
  empty space behind their base's line": the defeated character is laid down at once on an
  empty cell behind its base (the action's "respawn_to", else the first empty one in the
  map's order; "either empty space" is any empty cell of that row or zone; if it is full,
  the nearest empty cell; a "respawn_to" cell taken by the time the damage is dealt falls
  back to that default). Lying down it occupies the cell but is not in play: it cannot
  act, cannot be attacked and does not guard a flag. The Respawn Phase is its player's
  next turn ("may not move or complete any actions for one turn"); at that turn's end it
  stands up with its starting health and all its cards face up.
- Flags: "To capture a flag, a player must land adjacent to the space a flag occupies":
  a character whose move ends next to the other team's flag, while nobody controls that
  flag, captures it (it now controls it) and "must stop movement until the next turn" (no
  more moves, even by card, until its player's next turn). "the character with the flag
  moves and then places the flag in an adjacent space": a controlling character that
  starts a move next to the flag may carry it: "flag_to" is a free cell next to where it
  stops. Without "flag_to" the flag stays; a controller that ends its move away from the
  flag lets go of it ("The flag must remain in this space until the controlling character
  moves it or it is captured by another player"). "If a character from the opposing team
  lands on an adjacent space, then neither player may move the flag": while a standing
  character of the flag's own team stands next to the flag, it cannot be carried. A
  defeated controller lets go; the flag stays where it lies. A team never captures or
  moves its own flag (the book gives no way to return it).
- "The winner is the player who takes their opponent's flag to a space behind their own
  team's base": the game ends when a flag is put down behind its captors' base.

Options: {"mode": "royale" | "ctf", "players": 2..4 (Capture the Flag: 2), "team_size"
(Battle Royale: 2 players 1..4, default 4, or with a setup the largest team it gives;
3/4 players 2..3, default 3; Capture the Flag: 2; a setup may give smaller teams),
"actions_per_turn": 1..6, "map": a catalog map id (default "the_crossroads", Capture the
Flag "twin_keeps"), "diagonal_moves": bool, "ranged_lines": "straight" |
"path", "bonus_cards": bool, "max_turns": null | 1.. (the book has no limit; when the
limit is reached the game ends without a winner, "turn_limit")}.

Setup (every field optional; with "characters" the game starts in "play"): {"map": id or
a map object (the catalog's form), "characters": [{"id", "seat", "cell", "health"?,
"state"?: "standing" | "down" | "resting" | "out", "face_down"?: [card ids]}] (in pick
order; "down": laid down, its Respawn Phase is its player's next turn; "resting": in its
Respawn Phase now, standing up at the end of this turn of its player; "out": defeated in
Battle Royale, "cell" null), "flags": [{"team": seat, "cell", "carrier": ID | null}],
"turn": seat, "actions_left": n, "roll": null | 1..6 (the turn's green die), "moved":
[IDs that moved this turn], "stopped": [IDs that captured a flag and may not move until
their next turn], "hands": {seat: [bonus card ids]}, "deck": [bonus card ids, top first]
(default: the rest of the Bonus Cards, shuffled by the seed), "turn_number": n}. Every id
is listed once (a character twice in "moved", a card in a hand and the deck, a team's
flag given twice are refused, naming the field).

The scenario runner's output (`result`): "mode", "status", "winner", "end_reason", "phase",
"turn", "turn_number", "actions_left", "roll", "moved", "characters" (id, seat, cell,
health, max_health, state, face_up, face_down), "flags", "hands", "deck", "discard",
"battle" (a battle phase waiting for a defender), "bonus_rolls" (roll-offs waiting) and
"map". `view(state, seat)` shows the same without the Bonus Cards in other players' hands
and the deck's order.

Undo: an action that rolled dice or drew a card cannot be undone; picks, moves, heals,
end_turn and no_defence can.

The catalog (shared_rules/data/heroes_cards.json, edited as data, validated on load):
"characters" {"id", "name", "tale", "health": 1..30, "move_bonus"?, "attack_bonus"?,
"defence_bonus"? (0..3), "abilities": text, "cards": [action card ids]};
"action_cards" and "bonus_cards" {"id", "name", "text", "kind": "attack" | "move" |
"heal" | "defend", "stays_face_up"?: bool, attack: "range"? 1..3, "area"? "one" |
"adjacent_all" | "adjacent_enemies", "bonus"? 0..6; move: "spaces" 1..6; heal: "amount"
1..10, "range" 0..3; defend: "bonus" 1..6}. Only an attack card may stay face up: a move
card that stayed let a defender step away from every attack (four-player bot games, down
to Hop-o'-My-Thumb against a healer, went on for ever); a heal card that stayed gave back
more at every action than attacks take (Rumpelstiltskin's holder won 89 % of four-player
games of normal bots), and a defence card that stayed left attacks almost nothing to hurt
(with Mirror Splinter's +2 on every white die the Snow Queen's holder won 92 % of
two-player ones): the pick decided those games. An attack card's name contains "Attack"
(the book's test for what may be played in defence), no other card's name does. "maps"
{"id", "name", "modes": ["royale", "ctf"], "walls": [cells], "starts": [2..4 zones of
cells] (royale), "teams": [2 x {"base", "behind", "flag", "start": [2 cells]}] (ctf)}. A scenario's
"cards" adds or replaces entries: each with "type": "character" | "action" | "bonus".
"""

from shared_rules import canon
from shared_rules import catalog
from shared_rules import prng
from shared_rules.errors import IllegalAction, ScenarioError, check_action_shape, shown
from shared_rules.games import copy, seats, status, winner  # noqa: F401 (the contract)

NAME = "heroes"
# The hard bot (shared_rules/search.py `expect`): each move judged by its mean over every
# outcome of its dice (`outcomes`), by `hard_evaluate`, where the tree of 200 iterations
# played no better than the greedy bot (BENCHMARKS.md "Hero teams: the dice weighed, not
# sampled"). Capture the Flag keeps the tree, the greedy move starting with 10 visits: a
# look one action ahead, dice weighed or not, trades blows where the flag wins the game
# (the same BENCHMARKS.md section).
SEARCH = {"expect": True}
SEARCH_CTF = {"prior": 10}


def search_settings(state):
    """The search's settings for this game's mode (shared_rules/search.py)."""
    return SEARCH_CTF if state.options["mode"] == "ctf" else SEARCH

INFO = {"title": "Battle Royale with hero teams", "min_players": 2, "max_players": 4,
        "default_players": 2, "modes": {"mode": ["royale", "ctf"]},
        "mode_titles": {"royale": "Battle Royale", "ctf": "Capture the Flag"}, "chance": True,
        "hidden": True}
SIZE = 7
COLOURS = ("red", "blue", "green", "yellow")
MODES = ("royale", "ctf")
KINDS = ("attack", "move", "heal", "defend")
AREAS = ("one", "adjacent_all", "adjacent_enemies")
HERO_STATES = ("standing", "down", "resting", "out")
DEFAULT_MAP = {"royale": "the_crossroads", "ctf": "twin_keeps"}

OPTION_FIELDS = ("actions_per_turn", "bonus_cards", "diagonal_moves", "map", "max_turns",
                 "mode", "players", "ranged_lines", "team_size")
SETUP_FIELDS = ("actions_left", "characters", "deck", "flags", "hands", "map", "moved",
                "roll", "stopped", "turn", "turn_number")
SETUP_HERO_FIELDS = ("cell", "face_down", "health", "id", "seat", "state")
CHARACTER_FIELDS = ("abilities", "attack_bonus", "cards", "defence_bonus", "health", "id",
                    "move_bonus", "name", "tale")
CARD_FIELDS = ("amount", "area", "bonus", "id", "kind", "name", "range", "spaces",
               "stays_face_up", "text")
MAP_FIELDS = ("id", "modes", "name", "starts", "teams", "text", "walls")
TEAM_FIELDS = ("base", "behind", "flag", "start")

ACTION_FIELDS = {
    "roll_off": ("dice",),
    "pick": ("cell", "character"),
    "roll_move": ("die",),
    "move": ("character", "flag_to", "path", "to"),
    "attack": ("attacker", "dice", "respawn_to", "target"),
    "play_card": ("card", "character", "dice", "flag_to", "path", "respawn_to", "target",
                  "to"),
    "defend": ("card", "path", "target", "to"),
    "no_defence": (),
    "roll_bonus": ("card", "dice"),
    "end_turn": (),
}

is_int = catalog.is_int

# Cells: index = y * 7 + x.
NCELLS = SIZE * SIZE
TOUCHING = []
for _i in range(NCELLS):
    _x, _y = _i % SIZE, _i // SIZE
    TOUCHING.append([(_y + dy) * SIZE + _x + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                     if (dx or dy) and 0 <= _x + dx < SIZE and 0 <= _y + dy < SIZE])
DIRECTIONS = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy]


def cell_xy(i):
    return [i % SIZE, i // SIZE]


def chebyshev(a, b):
    return max(abs(a % SIZE - b % SIZE), abs(a // SIZE - b // SIZE))


def _is_xy(v):
    return catalog.is_cell(v) and 0 <= v[0] < SIZE and 0 <= v[1] < SIZE


def _index(v):
    return v[1] * SIZE + v[0]


# ---------------------------------------------------------------- catalog

def _text(d, key, where, required=True):
    v = d.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or not v:
        raise ScenarioError(where + "." + key, "must be text")
    return v


def _number(d, key, where, lo, hi, default=None):
    if key not in d:
        if default is None:
            raise ScenarioError(where + "." + key, "missing (a whole number from %d to %d)" % (
                lo, hi))
        return default
    v = d[key]
    if not is_int(v) or v < lo or v > hi:
        wanted = "%d" % lo if lo == hi else "a whole number from %d to %d" % (lo, hi)
        raise ScenarioError(where + "." + key, "must be %s, got %s" % (wanted, shown(v)))
    return v


def _ident(d, where):
    v = d.get("id")
    if not isinstance(v, str) or not v or len(v) > 40:
        raise ScenarioError(where + ".id", "must be an id (text of 1 to 40 characters)")
    return v


def _known_fields(d, fields, where, what):
    if not isinstance(d, dict):
        raise ScenarioError(where, "must be an object")
    for key in sorted(d):
        if key not in fields:
            raise ScenarioError(canon.path(where, key), "unknown field (%s has %s)" % (
                what, ", ".join(fields)))


# Why a card of these kinds turns face down once played (only an attack card may stay up).
_MAY_NOT_STAY = {
    "move": "a movement card cannot stay face up: a defender may play it in every battle "
            "phase to step away unhurt, and a game could then never end",
    "heal": "a heal card cannot stay face up: played at every action it gives back more "
            "health than attacks take, and its team could not be beaten",
    "defend": "a defence card cannot stay face up: played in every battle phase it leaves "
              "attacks almost nothing to hurt, and its character could not be beaten",
}


def check_card(card, where):
    """A validated action or Bonus Card, normalised; ScenarioError names the field."""
    _known_fields(card, CARD_FIELDS + ("type",), where, "a card")
    out = {"id": _ident(card, where), "name": _text(card, "name", where),
           "text": _text(card, "text", where)}
    kind = card.get("kind")
    if kind not in KINDS:
        raise ScenarioError(where + ".kind", "must be one of %s, got %s" % (
            ", ".join(KINDS), shown(kind)))
    out["kind"] = kind
    stays = card.get("stays_face_up", False)
    if stays is not True and stays is not False:
        raise ScenarioError(where + ".stays_face_up", "must be true or false")
    if stays and kind in _MAY_NOT_STAY:
        raise ScenarioError(where + ".stays_face_up", _MAY_NOT_STAY[kind])
    out["stays_face_up"] = stays
    named_attack = "attack" in out["name"].lower()
    if (kind == "attack") != named_attack:
        raise ScenarioError(where + ".name", "an attack card's name contains \"Attack\" and "
                            "no other card's does (the book's test for cards a defender "
                            "may play), got %s for a %s card" % (shown(out["name"]), kind))
    allowed = {"attack": ("range", "area", "bonus"), "move": ("spaces",),
               "heal": ("amount", "range"), "defend": ("bonus",)}[kind]
    for key in ("amount", "area", "bonus", "range", "spaces"):
        if key in card and key not in allowed:
            raise ScenarioError(where + "." + key, "a %s card has no %s" % (kind, key))
    if kind == "attack":
        out["range"] = _number(card, "range", where, 1, 3, 1)
        area = card.get("area", "one")
        if area not in AREAS:
            raise ScenarioError(where + ".area", "must be one of %s" % ", ".join(AREAS))
        if area != "one" and out["range"] != 1:
            raise ScenarioError(where + ".range", "an area attack hits adjacent characters: "
                                "its range is 1")
        out["area"] = area
        out["bonus"] = _number(card, "bonus", where, 0, 6, 0)
    elif kind == "move":
        out["spaces"] = _number(card, "spaces", where, 1, 6)
    elif kind == "heal":
        out["amount"] = _number(card, "amount", where, 1, 10)
        out["range"] = _number(card, "range", where, 0, 3)
    else:
        out["bonus"] = _number(card, "bonus", where, 1, 6)
    return out


def check_character(ch, where, cards):
    _known_fields(ch, CHARACTER_FIELDS + ("type",), where, "a character")
    out = {"id": _ident(ch, where), "name": _text(ch, "name", where),
           "tale": _text(ch, "tale", where), "abilities": _text(ch, "abilities", where),
           "health": _number(ch, "health", where, 1, 30)}
    for key in ("move_bonus", "attack_bonus", "defence_bonus"):
        out[key] = _number(ch, key, where, 0, 3, 0)
    ids = ch.get("cards")
    if not isinstance(ids, list) or len(ids) > 4:
        raise ScenarioError(where + ".cards", "must be a list of up to 4 action card ids")
    for j, cid in enumerate(ids):
        if not isinstance(cid, str) or cid not in cards:
            raise ScenarioError("%s.cards[%d]" % (where, j), "unknown action card %s" % (
                shown(cid),))
        if cid in ids[:j]:
            raise ScenarioError("%s.cards[%d]" % (where, j), "%s is listed twice" % cid)
    out["cards"] = list(ids)
    return out


def _cells(v, where, blocked=None, what="cells"):
    if not isinstance(v, list):
        raise ScenarioError(where, "must be a list of cells [x, y]")
    out = []
    for j, c in enumerate(v):
        f = "%s[%d]" % (where, j)
        if not _is_xy(c):
            raise ScenarioError(f, "must be a cell [x, y] with x and y from 0 to 6, got %s" % (
                shown(c),))
        i = _index(c)
        if i in out:
            raise ScenarioError(f, "%s is listed twice" % shown(c))
        if blocked is not None and blocked[i]:
            raise ScenarioError(f, "%s is a wall or a base, not a free cell" % shown(c))
        out.append(i)
    return out


def check_map(m, where):
    """A validated map, normalised: cells as indexes, "blocked" for walls and bases."""
    _known_fields(m, MAP_FIELDS, where, "a map")
    out = {"id": _ident(m, where), "name": _text(m, "name", where),
           "text": _text(m, "text", where, False)}
    modes = m.get("modes")
    if not isinstance(modes, list) or not modes or [x for x in modes if x not in MODES]:
        raise ScenarioError(where + ".modes", 'must list the modes it is for ("royale", "ctf")')
    out["modes"] = sorted(set(modes))
    walls = _cells(m.get("walls", []), where + ".walls")
    blocked = [False] * NCELLS
    for i in walls:
        blocked[i] = True
    out["walls"] = walls
    teams = []
    if "ctf" in modes or "teams" in m:
        rows = m.get("teams")
        if not isinstance(rows, list) or len(rows) != 2:
            raise ScenarioError(where + ".teams", "must be two teams (a Capture the Flag map)")
        for t, row in enumerate(rows):
            f = "%s.teams[%d]" % (where, t)
            _known_fields(row, TEAM_FIELDS, f, "a team")
            base = _cells(row.get("base"), f + ".base", blocked)
            if not base:
                raise ScenarioError(f + ".base", "must hold at least one cell")
            for i in base:
                blocked[i] = True
            teams.append({"base": base})
        for t, row in enumerate(rows):
            f = "%s.teams[%d]" % (where, t)
            behind = _cells(row.get("behind"), f + ".behind", blocked)
            if len(behind) < 3:
                raise ScenarioError(f + ".behind", "must hold at least 3 cells")
            flag = row.get("flag")
            if not _is_xy(flag) or _index(flag) not in behind:
                raise ScenarioError(f + ".flag", "must be one of the team's cells behind its "
                                    "base, got %s" % shown(flag))
            start = _cells(row.get("start"), f + ".start", blocked)
            if len(start) != 2 or _index(flag) in start:
                raise ScenarioError(f + ".start", "must be 2 free cells beside the flag")
            teams[t].update({"behind": behind, "flag": _index(flag), "start": start})
    out["teams"] = teams
    starts = []
    if "royale" in modes:
        zones = m.get("starts")
        if not isinstance(zones, list) or len(zones) < 2 or len(zones) > 4:
            raise ScenarioError(where + ".starts", "must be 2 to 4 start zones (lists of cells)")
        seen = []
        for z, zone in enumerate(zones):
            cells = _cells(zone, "%s.starts[%d]" % (where, z), blocked)
            if len(cells) < 2:
                raise ScenarioError("%s.starts[%d]" % (where, z), "must hold at least 2 cells")
            for i in cells:
                if i in seen:
                    raise ScenarioError("%s.starts[%d]" % (where, z), "shares %s with another "
                                        "zone" % shown(cell_xy(i)))
                seen.append(i)
            starts.append(cells)
    out["starts"] = starts
    out["blocked"] = blocked
    return out


def map_form(m):
    """A normalised map back in the catalog's form (cells as [x, y])."""
    out = {"id": m["id"], "name": m["name"], "modes": list(m["modes"]),
           "walls": [cell_xy(i) for i in m["walls"]],
           "starts": [[cell_xy(i) for i in z] for z in m["starts"]]}
    if m.get("text"):
        out["text"] = m["text"]
    if m["teams"]:
        out["teams"] = [{"base": [cell_xy(i) for i in t["base"]],
                         "behind": [cell_xy(i) for i in t["behind"]],
                         "flag": cell_xy(t["flag"]), "start": [cell_xy(i) for i in t["start"]]}
                        for t in m["teams"]]
    return out


_base = []


def _unique(rows, where, check, *args):
    out = {}
    order = []
    if not isinstance(rows, list):
        raise ScenarioError(where, "must be a list")
    for i, row in enumerate(rows):
        entry = check(row, "%s[%d]" % (where, i), *args)
        if entry["id"] in out:
            raise ScenarioError("%s[%d].id" % (where, i), "%s is used twice" % entry["id"])
        out[entry["id"]] = entry
        order.append(entry["id"])
    return out, order


def base_catalog():
    """The shipped catalog, validated once per process: {"characters", "cards", "bonus",
    "maps", and the order of each}."""
    if not _base:
        data = catalog.load("heroes_cards.json")
        where = "heroes_cards.json"
        if not isinstance(data, dict):
            raise ScenarioError(where, "must be an object")
        cards, card_order = _unique(data.get("action_cards"), where + ": action_cards",
                                    check_card)
        bonus, bonus_order = _unique(data.get("bonus_cards"), where + ": bonus_cards",
                                     check_card)
        for cid in bonus_order:
            if cid in cards:
                raise ScenarioError(where + ": bonus_cards", "%s is also an action card" % cid)
        chars, char_order = _unique(data.get("characters"), where + ": characters",
                                    check_character, cards)
        maps, map_order = _unique(data.get("maps"), where + ": maps", check_map)
        _base.append({"characters": chars, "character_order": char_order, "cards": cards,
                      "bonus": bonus, "bonus_order": bonus_order, "maps": maps,
                      "map_order": map_order})
    return _base[0]


def load_catalog(extra=None):
    """The catalog with a scenario's "cards" added (an entry with a known id replaces it)."""
    base = base_catalog()
    if extra is None:
        return base
    if not isinstance(extra, list):
        raise ScenarioError("cards", "must be a list of definitions")
    cat = {"characters": dict(base["characters"]), "cards": dict(base["cards"]),
           "bonus": dict(base["bonus"]), "maps": base["maps"], "map_order": base["map_order"],
           "character_order": list(base["character_order"]),
           "bonus_order": list(base["bonus_order"])}
    seen = {}
    chars = []
    for i, row in enumerate(extra):
        where = "cards[%d]" % i
        if not isinstance(row, dict):
            raise ScenarioError(where, "must be an object")
        kind = row.get("type")
        if kind not in ("character", "action", "bonus"):
            raise ScenarioError(where + ".type", 'must be "character", "action" or "bonus"')
        cid = _ident(row, where)
        if cid in seen:
            raise ScenarioError(where + ".id", "%s is defined twice" % cid)
        seen[cid] = True
        if kind == "character":
            chars.append((row, where))
            continue
        card = check_card(row, where)
        table, order = (cat["cards"], None) if kind == "action" else (cat["bonus"],
                                                                      cat["bonus_order"])
        if order is not None and cid not in order:
            order.append(cid)
        table[cid] = card
    for row, where in chars:
        ch = check_character(row, where, cat["cards"])
        if ch["id"] not in cat["characters"]:
            cat["character_order"].append(ch["id"])
        cat["characters"][ch["id"]] = ch
    return cat


# ---------------------------------------------------------------- state

# The parts of the state that change as the game goes: plain JSON data, copied deeply.
DYNAMIC = ("rng", "phase", "rollers", "first", "pick_turn", "turn", "turn_number",
           "actions_left", "roll", "moved", "roster", "heroes", "flags", "hands", "deck",
           "discard", "battle", "bonus_rolls", "status", "winner", "end_reason")


def _clone(v):
    if isinstance(v, dict):
        out = {}
        for k in v:
            out[k] = _clone(v[k])
        return out
    if isinstance(v, list):
        return [_clone(x) for x in v]
    return v


class HeroesState:
    """One game. Static parts (options, catalog, map) are shared by copies; the rest is
    plain data (see DYNAMIC). Heroes are {"seat", "cell" (index, -1 when out), "health",
    "state", "face_down", "stopped"}; flags {seat: {"cell", "carrier"}}."""

    def copy(self):
        s = HeroesState()
        s.options = self.options
        s.seed = self.seed
        s.extra_cards = self.extra_cards
        s.cat = self.cat
        s.map = self.map
        s.seats = self.seats
        s.rng = self.rng
        s.phase = self.phase
        s.first = self.first
        s.pick_turn = self.pick_turn
        s.turn = self.turn
        s.turn_number = self.turn_number
        s.actions_left = self.actions_left
        s.roll = self.roll
        s.status = self.status
        s.winner = self.winner
        s.end_reason = self.end_reason
        s.rollers = list(self.rollers)
        s.moved = list(self.moved)
        s.roster = list(self.roster)
        s.heroes = {}
        for cid in self.heroes:
            h = dict(self.heroes[cid])
            h["face_down"] = list(h["face_down"])
            s.heroes[cid] = h
        s.flags = {}
        for team in self.flags:
            s.flags[team] = dict(self.flags[team])
        s.hands = {}
        for q in self.hands:
            s.hands[q] = list(self.hands[q])
        s.deck = list(self.deck)
        s.discard = list(self.discard)
        s.battle = _clone(self.battle)
        s.bonus_rolls = [list(p) for p in self.bonus_rolls]
        return s


def _adopt(s, other):
    for key in DYNAMIC:
        setattr(s, key, getattr(other, key))


def current(s):
    """The seat whose turn it is (None before play)."""
    if s.phase == "play":
        return s.seats[s.turn]
    if s.phase == "pick":
        return s.seats[s.pick_turn]
    return None


def _capital(word):
    """The word with a capital first letter (MicroPython's str has no capitalize)."""
    return word[:1].upper() + word[1:]


def _def(s, cid):
    return s.cat["characters"][cid]


def _card(s, card_id):
    if card_id in s.cat["cards"]:
        return s.cat["cards"][card_id]
    return s.cat["bonus"][card_id]


def _occupant(s, i):
    for cid in s.roster:
        if s.heroes[cid]["cell"] == i:
            return cid
    return None


def _standing(s, cid):
    return s.heroes[cid]["state"] == "standing"


def _flag_at(s, i):
    for team in s.seats:
        f = s.flags.get(team)
        if f is not None and f["cell"] == i:
            return team
    return None


def _zone_of(s, seat):
    return s.map["teams"][s.seats.index(seat)]


def _step_ok(s, a, b):
    """A step or an adjacent attack from a to b: touching, not through a wall's corner."""
    dx = b % SIZE - a % SIZE
    dy = b // SIZE - a // SIZE
    if dx and dy:
        return not (s.map["blocked"][a + dx] and s.map["blocked"][a + dy * SIZE])
    return True


def _step_table(s):
    """The cells one step from each cell (built once per map and option: the map is static)."""
    diag = s.options["diagonal_moves"]
    key = "steps_diagonal" if diag else "steps_straight"
    table = s.map.get(key)
    if table is None:
        table = []
        for i in range(NCELLS):
            table.append([b for b in TOUCHING[i] if _step_ok(s, i, b) and (
                diag or i % SIZE == b % SIZE or i // SIZE == b // SIZE)])
        s.map[key] = table
    return table


def _steps(s, a):
    """The cells one step from a."""
    return _step_table(s)[a]


def _grid(s):
    """(occupant of each cell or None, team of the flag on each cell or None)."""
    occ = [None] * NCELLS
    for cid in s.roster:
        c = s.heroes[cid]["cell"]
        if c >= 0:
            occ[c] = cid
    flags = [None] * NCELLS
    for team in s.flags:
        flags[s.flags[team]["cell"]] = team
    return occ, flags


def _passable(s, cid, i, grid=None):
    """May character cid pass through cell i (not stop)?"""
    if s.map["blocked"][i]:
        return False
    occ, flags = grid or _grid(s)
    if occ[i] is not None and occ[i] != cid:
        return False
    return flags[i] is None or flags[i] == s.heroes[cid]["seat"]


def _may_stop(s, cid, i, grid=None):
    occ, flags = grid or _grid(s)
    return not s.map["blocked"][i] and occ[i] is None and flags[i] is None


def _distances(s, cid, start, spaces, grid, goal=None):
    """{cell: fewest steps} for every cell character cid may pass through within `spaces`
    (the start at 0); the search stops early once it reaches `goal`."""
    occ, flags = grid
    blocked = s.map["blocked"]
    seat = s.heroes[cid]["seat"]
    steps = _step_table(s)
    # The tests of _passable, inlined: moves and the legal actions spend most of their time
    # in this loop.
    dist = {start: 0}
    frontier = [start]
    d = 0
    while frontier and d < spaces:
        d += 1
        nxt = []
        for a in frontier:
            for b in steps[a]:
                if b in dist or blocked[b]:
                    continue
                o = occ[b]
                f = flags[b]
                if (o is None or o == cid) and (f is None or f == seat):
                    dist[b] = d
                    if b == goal:
                        return dist
                    nxt.append(b)
        frontier = nxt
    return dist


def reachable(s, cid, start, spaces, grid=None):
    """{cell: fewest steps} for every cell character cid may stop on within `spaces`."""
    grid = grid or _grid(s)
    occ, flags = grid
    dist = _distances(s, cid, start, spaces, grid)
    out = {}
    for i in dist:
        if i != start and occ[i] is None and flags[i] is None:
            out[i] = dist[i]
    return out


def _line_of_fire(s, a, b, reach, occ=None):
    """May a character on a hit one on b at most `reach` spaces away?"""
    if a == b or chebyshev(a, b) > reach:
        return False
    if chebyshev(a, b) == 1:
        return _step_ok(s, a, b)
    if occ is None:
        occ = _grid(s)[0]
    blocked = s.map["blocked"]
    if s.options["ranged_lines"] == "straight":
        dx = b % SIZE - a % SIZE
        dy = b // SIZE - a // SIZE
        if dx and dy and abs(dx) != abs(dy):
            return False
        n = max(abs(dx), abs(dy))
        sx = (dx > 0) - (dx < 0)
        sy = (dy > 0) - (dy < 0)
        here = a
        for _ in range(n):
            nxt = here + sx + sy * SIZE
            if not _step_ok(s, here, nxt):
                return False
            if nxt != b and (blocked[nxt] or occ[nxt] is not None):
                return False
            here = nxt
        return True
    # "path": at most `reach` steps through free cells.
    seen = {a: True}
    frontier = [a]
    for _ in range(reach):
        nxt = []
        for c in frontier:
            for d in TOUCHING[c]:
                if d in seen or not _step_ok(s, c, d):
                    continue
                if d == b:
                    return True
                if blocked[d] or occ[d] is not None:
                    continue
                seen[d] = True
                nxt.append(d)
        frontier = nxt
    return False


def living_seats(s):
    """Seats that still have a character in the game."""
    alive = {}
    for cid in s.roster:
        h = s.heroes[cid]
        if h["state"] != "out":
            alive[h["seat"]] = True
    return [q for q in s.seats if q in alive]


def _enemy(s, a, b):
    return s.heroes[a]["seat"] != s.heroes[b]["seat"]


# ---------------------------------------------------------------- new game

def _parse_options(options, setup):
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ScenarioError("options", "must be an object")
    for key in sorted(options):
        if key not in OPTION_FIELDS:
            raise ScenarioError(canon.path("options", key), "unknown option (options are %s)" %
                                ", ".join(OPTION_FIELDS))
    mode = options.get("mode", "royale")
    if mode not in MODES:
        raise ScenarioError("options.mode", 'must be "royale" or "ctf", got %s' % shown(mode))
    out = {"mode": mode}
    if mode == "ctf":
        out["players"] = _number(options, "players", "options", 2, 2, 2)
        out["team_size"] = _number(options, "team_size", "options", 2, 2, 2)
    else:
        out["players"] = _number(options, "players", "options", 2, 4, 2)
        if out["players"] == 2:
            default = 4
            if setup and isinstance(setup.get("characters"), list):
                default = min(4, _largest_team(setup["characters"]) or 4)
            out["team_size"] = _number(options, "team_size", "options", 1, 4, default)
        else:
            out["team_size"] = _number(options, "team_size", "options", 2, 3, 3)
    apt = out["team_size"] if mode == "royale" else 3
    out["actions_per_turn"] = _number(options, "actions_per_turn", "options", 1, 6, apt)
    for key, default in (("diagonal_moves", True), ("bonus_cards", mode == "royale")):
        v = options.get(key, default)
        if v is not True and v is not False:
            raise ScenarioError("options." + key, "must be true or false")
        out[key] = v
    lines = options.get("ranged_lines", "straight")
    if lines not in ("straight", "path"):
        raise ScenarioError("options.ranged_lines", 'must be "straight" or "path"')
    out["ranged_lines"] = lines
    mt = options.get("max_turns")
    if mt is not None and (not is_int(mt) or mt < 1 or mt > 100000):
        raise ScenarioError("options.max_turns", "must be null or a whole number from 1 to "
                            "100000")
    out["max_turns"] = mt
    return out


def _largest_team(rows):
    counts = {}
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("seat"), str):
            counts[row["seat"]] = counts.get(row["seat"], 0) + 1
    return max([counts[k] for k in counts]) if counts else 0


def _setup_map(value, cat):
    if isinstance(value, dict):
        return check_map(value, "setup.map")
    if isinstance(value, str) and value in cat["maps"]:
        return cat["maps"][value]
    raise ScenarioError("setup.map", "must be a map id (%s) or a map object" % ", ".join(
        cat["map_order"]))


def new_game(options, seed, setup=None, cards=None):
    """A new game: the draft and the rolls unless a setup gives the characters."""
    if setup is not None and not isinstance(setup, dict):
        raise ScenarioError("setup", "must be an object")
    opts = _parse_options(options, setup)
    if not is_int(seed):
        raise ScenarioError("seed", "must be a whole number")
    cat = load_catalog(cards)
    if isinstance(options, dict) and "map" in options:
        mid = options["map"]
        if not isinstance(mid, str) or mid not in cat["maps"]:
            raise ScenarioError("options.map", "unknown map %s (maps: %s)" % (
                shown(mid), ", ".join(cat["map_order"])))
        opts["map"] = mid
    else:
        opts["map"] = DEFAULT_MAP[opts["mode"]]
    setup = setup or {}
    for key in sorted(setup):
        if key not in SETUP_FIELDS:
            raise ScenarioError(canon.path("setup", key), "unknown field (a setup has %s)" %
                                ", ".join(SETUP_FIELDS))
    s = HeroesState()
    s.options = opts
    s.seed = seed
    s.extra_cards = canon.loads(canon.dumps(cards)) if cards is not None else None
    s.cat = cat
    s.map = _setup_map(setup["map"], cat) if "map" in setup else cat["maps"][opts["map"]]
    field = "setup.map" if "map" in setup else "options.map"
    if opts["mode"] not in s.map["modes"]:
        raise ScenarioError(field, "map %s is not for %s" % (s.map["id"], opts["mode"]))
    if opts["mode"] == "royale" and len(s.map["starts"]) < opts["players"]:
        raise ScenarioError(field, "map %s has start zones for %d players" % (
            s.map["id"], len(s.map["starts"])))
    opts["map"] = s.map["id"]
    if opts["mode"] == "royale" and "characters" not in setup:
        for z in range(opts["players"]):
            if len(s.map["starts"][z]) < opts["team_size"]:
                raise ScenarioError("options.team_size", "map %s's start zone %d holds %d "
                                    "characters" % (s.map["id"], z, len(s.map["starts"][z])))
    s.seats = list(COLOURS[:opts["players"]])
    s.rng = prng.seed_state(seed)
    s.rollers = []
    s.first = 0
    s.pick_turn = 0
    s.turn = 0
    s.turn_number = 0
    s.actions_left = 0
    s.roll = None
    s.moved = []
    s.roster = []
    s.heroes = {}
    s.flags = {}
    s.hands = {}
    for q in s.seats:
        s.hands[q] = []
    s.discard = []
    s.battle = None
    s.bonus_rolls = []
    s.status = "ongoing"
    s.winner = None
    s.end_reason = None
    if opts["mode"] == "ctf":
        for t in range(2):
            s.flags[s.seats[t]] = {"cell": s.map["teams"][t]["flag"], "carrier": None}
    if "characters" in setup:
        _setup_position(s, setup)
    else:
        for key in ("turn", "actions_left", "roll", "moved", "stopped", "flags", "turn_number"):
            if key in setup:
                raise ScenarioError("setup." + key, "needs setup.characters")
        s.phase = "pick_roll"
        s.rollers = list(s.seats)
    _setup_cards(s, setup)
    if s.phase == "play":
        _check_end(s, [])
    return s


def _setup_position(s, setup):
    rows = setup["characters"]
    if not isinstance(rows, list) or not rows:
        raise ScenarioError("setup.characters", "must be a list of characters")
    for i, row in enumerate(rows):
        f = "setup.characters[%d]" % i
        _known_fields(row, SETUP_HERO_FIELDS, f, "a character")
        cid = row.get("id")
        if not isinstance(cid, str) or cid not in s.cat["characters"]:
            raise ScenarioError(f + ".id", "unknown character %s" % shown(cid))
        if cid in s.heroes:
            raise ScenarioError(f + ".id", "%s is listed twice" % cid)
        seat = row.get("seat")
        if seat not in s.seats:
            raise ScenarioError(f + ".seat", "must be one of %s" % ", ".join(s.seats))
        state = row.get("state", "standing")
        if state not in HERO_STATES or (state == "out" and s.options["mode"] == "ctf") or (
                state in ("down", "resting") and s.options["mode"] == "royale"):
            raise ScenarioError(f + ".state", "must be %s" % (
                '"standing" or "out"' if s.options["mode"] == "royale"
                else '"standing", "down" or "resting"'))
        d = _def(s, cid)
        if state == "out":
            if row.get("cell") is not None:
                raise ScenarioError(f + ".cell", "must be null for a character out of the game")
            cell = -1
        else:
            if not _is_xy(row.get("cell")):
                raise ScenarioError(f + ".cell", "must be a cell [x, y] with x and y from 0 to "
                                    "6, got %s" % shown(row.get("cell")))
            cell = _index(row["cell"])
            if s.map["blocked"][cell]:
                raise ScenarioError(f + ".cell", "is a wall or a base")
            if _occupant(s, cell) is not None:
                raise ScenarioError(f + ".cell", "already holds %s" % _occupant(s, cell))
        lo = 0 if state != "standing" else 1
        hi = 0 if state in ("out", "down", "resting") else d["health"]
        health = _number(row, "health", f, lo, hi, hi)
        down = row.get("face_down", [])
        if not isinstance(down, list):
            raise ScenarioError(f + ".face_down", "must be a list of the character's card ids")
        for j, c in enumerate(down):
            if c not in d["cards"] or c in down[:j]:
                raise ScenarioError("%s.face_down[%d]" % (f, j), "must be one of %s's cards (%s)"
                                    % (cid, ", ".join(d["cards"])))
        s.heroes[cid] = {"seat": seat, "cell": cell, "health": health, "state": state,
                         "face_down": list(down), "stopped": False}
        s.roster.append(cid)
    for q in s.seats:
        n = len([c for c in s.roster if s.heroes[c]["seat"] == q])
        if n > s.options["team_size"] or n == 0:
            raise ScenarioError("setup.characters", "%s has %d characters; a team has 1 to %d"
                                % (q, n, s.options["team_size"]))
    for c in s.roster:
        if s.heroes[c]["state"] == "resting" and s.heroes[c]["seat"] != setup.get(
                "turn", s.seats[0]):
            raise ScenarioError("setup.characters", "%s is resting, which only a character of "
                                "the player whose turn it is can be" % c)
    if "flags" in setup:
        _setup_flags(s, setup["flags"])
    for team in sorted(s.flags):
        f = s.flags[team]
        occ = _occupant(s, f["cell"])
        if occ is not None:
            raise ScenarioError("setup.flags", "%s's flag lies on %s, where %s stands" % (
                team, shown(cell_xy(f["cell"])), occ))
    turn = setup.get("turn", s.seats[0])
    if turn not in s.seats:
        raise ScenarioError("setup.turn", "must be one of %s" % ", ".join(s.seats))
    s.turn = s.seats.index(turn)
    s.first = s.turn
    s.phase = "play"
    apt = s.options["actions_per_turn"]
    s.actions_left = _number(setup, "actions_left", "setup", 0, apt, apt)
    s.turn_number = _number(setup, "turn_number", "setup", 1, 1000000, 1)
    roll = setup.get("roll")
    if roll is not None and (not is_int(roll) or roll < 1 or roll > 6):
        raise ScenarioError("setup.roll", "must be null or a die from 1 to 6")
    s.roll = roll
    for key in ("moved", "stopped"):
        ids = setup.get(key, [])
        if not isinstance(ids, list):
            raise ScenarioError("setup." + key, "must be a list of character ids")
        for j, cid in enumerate(ids):
            f = "setup.%s[%d]" % (key, j)
            if not isinstance(cid, str) or cid not in s.heroes:
                raise ScenarioError(f, "must be the id of a character in setup.characters, got "
                                    "%s" % shown(cid))
            if cid in ids[:j]:
                raise ScenarioError(f, "%s is listed twice" % cid)
            if not _standing(s, cid):
                raise ScenarioError(f, "must be a standing character (%s is %s)" % (
                    cid, s.heroes[cid]["state"]))
            if key == "moved":
                if cid not in s.moved:
                    s.moved.append(cid)
            else:
                s.heroes[cid]["stopped"] = True


def _setup_flags(s, rows):
    if s.options["mode"] != "ctf":
        raise ScenarioError("setup.flags", "only Capture the Flag has flags")
    if not isinstance(rows, list):
        raise ScenarioError("setup.flags", "must be a list of {team, cell, carrier}")
    given = {}
    for i, row in enumerate(rows):
        f = "setup.flags[%d]" % i
        _known_fields(row, ("carrier", "cell", "team"), f, "a flag")
        team = row.get("team")
        if team not in s.seats:
            raise ScenarioError(f + ".team", "must be one of %s" % ", ".join(s.seats))
        if team in given:
            raise ScenarioError(f + ".team", "%s's flag is given twice (setup.flags[%d])" % (
                team, given[team]))
        given[team] = i
        if not _is_xy(row.get("cell")) or s.map["blocked"][_index(row["cell"])]:
            raise ScenarioError(f + ".cell", "must be a free cell [x, y] on the board")
        cell = _index(row["cell"])
        other = _flag_at(s, cell)
        if other is not None and other != team:
            raise ScenarioError(f + ".cell", "%s's flag lies there" % other)
        carrier = row.get("carrier")
        if carrier is not None:
            if not isinstance(carrier, str) or carrier not in s.heroes or \
                    s.heroes[carrier]["seat"] == team or not _standing(
                    s, carrier) or chebyshev(s.heroes[carrier]["cell"], cell) != 1:
                raise ScenarioError(f + ".carrier", "must be a standing character of the other "
                                    "team next to the flag, or null")
        s.flags[team] = {"cell": cell, "carrier": carrier}


def _setup_cards(s, setup):
    bonus = s.cat["bonus"]
    used = {}
    hands = setup.get("hands", {})
    if not isinstance(hands, dict):
        raise ScenarioError("setup.hands", "must be an object {seat: [bonus card ids]}")
    for q in sorted(hands):
        if q not in s.seats:
            raise ScenarioError(canon.path("setup.hands", q), "is not a seat (%s)" % ", ".join(
                s.seats))
        if not isinstance(hands[q], list):
            raise ScenarioError(canon.path("setup.hands", q), "must be a list of bonus card ids")
        for j, c in enumerate(hands[q]):
            f = "%s[%d]" % (canon.path("setup.hands", q), j)
            if not isinstance(c, str) or c not in bonus:
                raise ScenarioError(f, "unknown bonus card %s" % shown(c))
            if c in used:
                raise ScenarioError(f, "%s is already %s" % (c, used[c]))
            used[c] = "in a hand"
            s.hands[q].append(c)
    if "deck" in setup:
        deck = setup["deck"]
        if not isinstance(deck, list):
            raise ScenarioError("setup.deck", "must be a list of bonus card ids, top first")
        for j, c in enumerate(deck):
            f = "setup.deck[%d]" % j
            if not isinstance(c, str) or c not in bonus:
                raise ScenarioError(f, "unknown bonus card %s" % shown(c))
            if c in used:
                raise ScenarioError(f, "%s is already %s" % (c, used[c]))
            used[c] = "in the deck"
        s.deck = list(deck)
    elif s.options["bonus_cards"]:
        pool = [c for c in s.cat["bonus_order"] if c not in used]
        s.rng = prng.shuffle(s.rng, pool)
        s.deck = pool
    else:
        s.deck = []


# ---------------------------------------------------------------- checks

def _fail(code, message):
    raise IllegalAction(code, message)


def _die(v, what):
    if not is_int(v) or v < 1 or v > 6:
        _fail("bad_dice", "%s must be a die from 1 to 6, not %s." % (what, shown(v)))
    return v


def _roll(s):
    s.rng, d = prng.below(s.rng, 6)
    return d + 1


def _cell_arg(action, key):
    v = action.get(key)
    if not _is_xy(v):
        _fail("off_board", "%s must be a cell [x, y] with x and y from 0 to 6, not %s." % (
            key, shown(v)))
    return _index(v)


def _my_hero(s, action, key):
    """The standing character of the player whose turn it is named by action[key]."""
    cid = action.get(key)
    if not isinstance(cid, str) or cid not in s.heroes:
        _fail("unknown_character", "%s must be a character in the game, not %s." % (
            key, shown(cid)))
    h = s.heroes[cid]
    if h["seat"] != current(s):
        _fail("not_your_character", "%s is not one of your characters." % _def(s, cid)["name"])
    if h["state"] == "out":
        _fail("out_of_game", "%s is out of the game." % _def(s, cid)["name"])
    if h["state"] != "standing":
        _fail("respawning", "%s is lying down in the Respawn Phase and cannot act." %
              _def(s, cid)["name"])
    return cid


def _needs_action(s):
    if s.actions_left <= 0:
        _fail("no_actions_left", "You have no actions left this turn.")


# ---------------------------------------------------------------- apply

def validate(state, action):
    """The problem with `action` now (an IllegalAction), or None. Never raises."""
    try:
        _apply(state.copy(), action)
    except IllegalAction as e:
        return e
    return None


# Action types whose every check comes before their first change to the state (_apply's
# checks of the phase, then _end_turn, roll_move's, _move, _attack, _play_card): apply plays
# them without a copy.
CHECKED_FIRST = ("attack", "end_turn", "move", "play_card", "roll_move")


def apply(state, action):
    """Apply a legal action and return its events; IllegalAction leaves the state unchanged
    (the other actions may be refused half-way, so the state is copied first and put back
    from the copy when such an action fails)."""
    if isinstance(action, dict) and action.get("type") in CHECKED_FIRST:
        return _apply(state, action)
    before = state.copy()
    try:
        return _apply(state, action)
    except Exception:
        _adopt(state, before)
        raise


def actor(state, action):
    """The seat that takes `action`: the defender in a battle phase, the first of those who
    roll in a roll-off, otherwise the player whose turn it is."""
    s = state
    if s.phase in ("pick_roll", "turn_roll"):
        return s.rollers[0] if s.rollers else None
    if s.phase == "play":
        if s.battle is not None:
            return s.heroes[s.battle["targets"][s.battle["next"]]]["seat"]
        if s.bonus_rolls:
            return s.bonus_rolls[0][0]
    return current(s)


def _apply(s, action):
    kind = check_action_shape(action, ACTION_FIELDS, "this game")
    if s.phase == "finished":
        _fail("game_over", "The game is over.")
    if kind == "roll_off":
        return _roll_off(s, action)
    if s.phase in ("pick_roll", "turn_roll"):
        _fail("roll_first", "Everybody rolls the green die first (%s)." % (
            "who picks first" if s.phase == "pick_roll" else "who plays first"))
    if kind == "pick":
        return _pick(s, action)
    if s.phase == "pick":
        _fail("pick_first", "Pick characters first.")
    if s.battle is not None:
        if kind not in ("defend", "no_defence"):
            _fail("battle_phase", "The battle waits for %s: a card to defend %s, or no "
                  "defence." % (_capital(str(actor(s, action))), _def(s, s.battle["targets"][
                      s.battle["next"]])["name"]))
        events = []
        if kind == "defend":
            _defend(s, action, events)
        else:
            _resolve_target(s, None, events)
        _continue_battle(s, events)
        return events
    if kind in ("defend", "no_defence"):
        _fail("no_battle", "There is no attack to defend against now.")
    if s.bonus_rolls:
        if kind != "roll_bonus":
            _fail("bonus_roll_first", "A character died: %s roll the green die for a Bonus "
                  "Card first." % " and ".join(s.bonus_rolls[0]))
        return _roll_bonus(s, action)
    if kind == "roll_bonus":
        _fail("no_bonus_roll", "Nobody rolls for a Bonus Card now.")
    events = []
    if kind == "end_turn":
        _end_turn(s, events)
        return events
    if kind == "roll_move":
        if s.roll is not None:
            _fail("already_rolled", "The green die is rolled once a turn; this turn's roll is "
                  "%d." % s.roll)
        _needs_action(s)
        if not _movers(s):
            _fail("nobody_can_move", "None of your characters can move this turn.")
        s.roll = _die(action["die"], "die") if "die" in action else _roll(s)
        events.append({"type": "movement_rolled", "seat": current(s), "die": s.roll})
        return events
    if kind == "move":
        _move(s, action, events)
    elif kind == "attack":
        _attack(s, action, events)
    else:
        _play_card(s, action, events)
    _after(s, events)
    return events


def _roll_off(s, action):
    if s.phase not in ("pick_roll", "turn_roll"):
        _fail("no_roll_off", "Nobody rolls for the order now.")
    dice = action.get("dice")
    rolls = {}
    if dice is None:
        for q in s.rollers:
            rolls[q] = _roll(s)
    else:
        if not isinstance(dice, dict) or sorted(dice) != sorted(s.rollers):
            _fail("bad_dice", "dice must give one green die for each player who rolls now: %s." %
                  ", ".join(s.rollers))
        for q in s.rollers:
            rolls[q] = _die(dice[q], "%s's die" % q)
    best = max([rolls[q] for q in s.rollers])
    top = [q for q in s.rollers if rolls[q] == best]
    events = [{"type": "rolled_off", "for": "pick" if s.phase == "pick_roll" else "turn",
               "rolls": rolls}]
    if len(top) > 1:
        s.rollers = top
        events.append({"type": "roll_off_tied", "seats": list(top)})
        return events
    s.rollers = []
    s.first = s.seats.index(top[0])
    if s.phase == "pick_roll":
        s.phase = "pick"
        s.pick_turn = s.first
        events.append({"type": "picks_first", "seat": top[0]})
    else:
        s.phase = "play"
        s.turn = s.first
        events.append({"type": "plays_first", "seat": top[0]})
        _start_turn(s, events)
    return events


def _start_cells(s, seat):
    if s.options["mode"] == "ctf":
        return _zone_of(s, seat)["start"]
    return s.map["starts"][s.seats.index(seat)]


def _pick(s, action):
    if s.phase != "pick":
        _fail("not_picking", "Characters are picked only before the game starts.")
    seat = s.seats[s.pick_turn]
    cid = action.get("character")
    if not isinstance(cid, str) or cid not in s.cat["characters"]:
        _fail("unknown_character", "character must be one of the catalog's characters, not %s."
              % shown(cid))
    if cid in s.heroes:
        _fail("already_picked", "%s is already in %s's team." % (_def(s, cid)["name"],
                                                                s.heroes[cid]["seat"]))
    cell = _cell_arg(action, "cell")
    if cell not in _start_cells(s, seat):
        _fail("not_a_start_cell", "%s's characters start on %s." % (seat, ", ".join(
            [canon.dumps(cell_xy(i)) for i in _start_cells(s, seat)])))
    if _occupant(s, cell) is not None:
        _fail("cell_taken", "%s already stands there." % _def(s, _occupant(s, cell))["name"])
    s.heroes[cid] = {"seat": seat, "cell": cell, "health": _def(s, cid)["health"],
                     "state": "standing", "face_down": [], "stopped": False}
    s.roster.append(cid)
    events = [{"type": "picked", "seat": seat, "character": cid, "cell": cell_xy(cell)}]
    n = len(s.seats)
    for k in range(1, n + 1):
        q = (s.pick_turn + k) % n
        if len([c for c in s.roster if s.heroes[c]["seat"] == s.seats[q]]) < \
                s.options["team_size"]:
            s.pick_turn = q
            return events
    s.phase = "turn_roll"
    s.rollers = list(s.seats)
    events.append({"type": "teams_complete"})
    return events


def _start_turn(s, events):
    seat = s.seats[s.turn]
    s.turn_number += 1
    s.actions_left = s.options["actions_per_turn"]
    s.roll = None
    s.moved = []
    resting = []
    for cid in s.roster:
        h = s.heroes[cid]
        if h["seat"] == seat:
            h["stopped"] = False
            if h["state"] == "down":
                h["state"] = "resting"
                resting.append(cid)
    events.append({"type": "turn_started", "seat": seat, "turn_number": s.turn_number,
                   "actions": s.actions_left, "respawning": resting})


def _end_turn(s, events):
    seat = current(s)
    events.append({"type": "turn_ended", "seat": seat})
    for cid in s.roster:
        h = s.heroes[cid]
        if h["seat"] == seat and h["state"] == "resting":
            h["state"] = "standing"
            h["health"] = _def(s, cid)["health"]
            h["face_down"] = []
            events.append({"type": "respawned", "character": cid, "cell": cell_xy(h["cell"]),
                           "health": h["health"]})
    mt = s.options["max_turns"]
    if mt is not None and s.turn_number >= mt:
        _finish(s, None, "turn_limit", events)
        return
    alive = living_seats(s)
    n = len(s.seats)
    for k in range(1, n + 1):
        q = (s.turn + k) % n
        if s.seats[q] in alive:
            s.turn = q
            break
    _start_turn(s, events)


# ---------------------------------------------------------------- moving

def _way(s, cid, action, spaces):
    """The destination of a move ("to" or "path") within `spaces`; IllegalAction if none."""
    start = s.heroes[cid]["cell"]
    if "path" in action:
        if "to" in action:
            _fail("bad_field", "Give the destination (to) or the whole way (path), not both.")
        path = action["path"]
        if not isinstance(path, list) or not path:
            _fail("bad_path", "path must be the list of cells the character steps on.")
        if len(path) > spaces:
            _fail("too_far", "That way is %d spaces; this move goes up to %d." % (
                len(path), spaces))
        here = start
        for j in range(len(path)):
            c = path[j]
            if not _is_xy(c):
                _fail("off_board", "path[%d] must be a cell [x, y] on the board, not %s." % (
                    j, shown(c)))
            nxt = _index(c)
            if nxt not in _steps(s, here):
                _fail("bad_path", "path[%d] %s is not one step from %s." % (
                    j, shown(c), shown(cell_xy(here))))
            if not _passable(s, cid, nxt):
                _fail("blocked", "path[%d] %s is blocked (a wall, a base, a character or the "
                      "other team's flag)." % (j, shown(c)))
            here = nxt
        if here == start:
            _fail("no_move", "A move goes somewhere else.")
        if not _may_stop(s, cid, here):
            _fail("blocked", "A move cannot end on a flag.")
        return here
    to = _cell_arg(action, "to")
    if to == start:
        _fail("no_move", "A move goes somewhere else.")
    grid = _grid(s)
    if not _may_stop(s, cid, to, grid) or to not in _distances(s, cid, start, spaces, grid,
                                                                 to):
        _fail("unreachable", "%s cannot get to %s in %d spaces (walls, bases, characters and "
              "the other team's flag are in the way)." % (_def(s, cid)["name"],
                                                         shown(cell_xy(to)), spaces))
    return to


def _standoff(s, team):
    """A standing character of `team` next to its own flag: the flag cannot be carried."""
    f = s.flags[team]
    for cid in s.roster:
        h = s.heroes[cid]
        if h["seat"] == team and h["state"] == "standing" and chebyshev(h["cell"],
                                                                        f["cell"]) == 1:
            return True
    return False


def _carried_flag(s, cid):
    for team in s.seats:
        f = s.flags.get(team)
        if f is not None and f["carrier"] == cid:
            return team
    return None


def _flag_carry(s, cid, to, action):
    """(the team of the flag cid controls or None, the cell action["flag_to"] puts it down on
    or None) for a move of cid to `to`; IllegalAction if that flag cannot go there."""
    start = s.heroes[cid]["cell"]
    team = _carried_flag(s, cid)
    flag_to = None
    if action.get("flag_to") is not None:
        if team is None:
            _fail("no_flag", "%s controls no flag to carry." % _def(s, cid)["name"])
        f = s.flags[team]
        if chebyshev(start, f["cell"]) != 1:
            _fail("flag_out_of_reach", "The flag is carried only from a cell next to it.")
        if _standoff(s, team):
            _fail("flag_guarded", "A %s character stands next to its flag: neither side may "
                  "move it until one is defeated or moves away." % team)
        flag_to = _cell_arg(action, "flag_to")
        if chebyshev(flag_to, to) != 1:
            _fail("bad_flag_to", "The flag is put down next to where the character stops.")
        if s.map["blocked"][flag_to] or (_occupant(s, flag_to) not in (None, cid)) or (
                _flag_at(s, flag_to) not in (None, team)):
            _fail("bad_flag_to", "The flag goes on a free cell.")
    return team, flag_to


def _relocate(s, cid, to, carry, events, how):
    """Move cid to `to` with the flag it controls (`carry`, from _flag_carry): flag captures,
    the win by flag."""
    h = s.heroes[cid]
    start = h["cell"]
    team, flag_to = carry
    h["cell"] = to
    events.append({"type": "moved", "character": cid, "from": cell_xy(start), "to": cell_xy(to),
                   "by": how})
    if team is not None:
        f = s.flags[team]
        if flag_to is not None:
            f["cell"] = flag_to
            events.append({"type": "flag_moved", "team": team, "carrier": cid,
                           "to": cell_xy(flag_to)})
            if flag_to in _zone_of(s, h["seat"])["behind"]:
                _finish(s, h["seat"], "flag_home", events)
                return
        elif chebyshev(to, f["cell"]) != 1:
            f["carrier"] = None
            events.append({"type": "flag_released", "team": team, "character": cid,
                           "cell": cell_xy(f["cell"])})
    _capture(s, cid, events)


def _capture(s, cid, events):
    h = s.heroes[cid]
    for team in s.seats:
        f = s.flags.get(team)
        if f is None or team == h["seat"] or f["carrier"] is not None:
            continue
        if chebyshev(h["cell"], f["cell"]) == 1:
            f["carrier"] = cid
            h["stopped"] = True
            events.append({"type": "flag_captured", "team": team, "character": cid,
                           "cell": cell_xy(f["cell"])})


def _can_move_now(s, cid, by_card):
    h = s.heroes[cid]
    if h["stopped"]:
        _fail("stopped", "%s captured a flag and stops until its next turn." %
              _def(s, cid)["name"])
    if not by_card and cid in s.moved:
        _fail("already_moved", "%s has already moved this turn: only a character that has "
              "yet to move moves with the die." % _def(s, cid)["name"])


def _movers(s):
    """The current player's standing characters that may still move with the die."""
    seat = current(s)
    return [c for c in s.roster if s.heroes[c]["seat"] == seat and _standing(s, c)
            and c not in s.moved and not s.heroes[c]["stopped"]]


def _move(s, action, events):
    cid = _my_hero(s, action, "character")
    _needs_action(s)
    _can_move_now(s, cid, False)
    if s.roll is None:
        _fail("roll_first", "Roll the green die for this turn's movement first (roll_move).")
    spaces = s.roll + _def(s, cid)["move_bonus"]
    to = _way(s, cid, action, spaces)
    carry = _flag_carry(s, cid, to, action)
    # Every check above, every change below: apply needs no copy for a move (CHECKED_FIRST).
    s.actions_left -= 1
    s.moved.append(cid)
    _relocate(s, cid, to, carry, events, "die")


# ---------------------------------------------------------------- attacks

def _attack_targets(s, cid, card, target):
    """The targets of cid's attack (plain when card is None); IllegalAction if none."""
    cell = s.heroes[cid]["cell"]
    area = card["area"] if card is not None else "one"
    if area != "one":
        if target is not None:
            _fail("bad_field", "%s hits every character next to the attacker: it takes no "
                  "target." % card["name"])
        out = []
        for other in s.roster:
            o = s.heroes[other]
            if other == cid or o["state"] != "standing" or chebyshev(o["cell"], cell) != 1:
                continue
            if not _step_ok(s, cell, o["cell"]):
                continue
            if area == "adjacent_enemies" and not _enemy(s, cid, other):
                continue
            out.append(other)
        if not out:
            _fail("no_targets", "Nobody stands next to %s to hit." % _def(s, cid)["name"])
        return out
    reach = card["range"] if card is not None else 1
    if not isinstance(target, str) or target not in s.heroes:
        _fail("unknown_character", "target must be a character in the game, not %s." %
              shown(target))
    if not _enemy(s, cid, target):
        _fail("not_an_enemy", "Only a card's area hits team-mates; attack an enemy.")
    if s.heroes[target]["state"] != "standing":
        _fail("not_attackable", "%s is not in play and cannot be attacked." %
              _def(s, target)["name"])
    if not _line_of_fire(s, cell, s.heroes[target]["cell"], reach):
        if reach == 1:
            _fail("not_adjacent", "%s must stand next to %s to attack (no wall corner between)."
                  % (_def(s, cid)["name"], _def(s, target)["name"]))
        _fail("out_of_range", "%s is not within %d spaces in a clear line." % (
            _def(s, target)["name"], reach))
    return [target]


def attack_targets(state, attacker, card=None, target=None):
    """Who an attack would hit now: [target] for a plain attack or a one-target card, every
    character in the area for an area card (the table reads one white die for each, in this
    order). IllegalAction says why there is no such attack."""
    s = state
    if not isinstance(attacker, str) or attacker not in s.heroes or not _standing(s, attacker):
        _fail("unknown_character", "attacker must be a standing character, not %s." %
              shown(attacker))
    c = None
    if card is not None:
        c, bonus = _own_card(s, attacker, card)
        if c["kind"] != "attack":
            _fail("not_an_attack", "%s is not an attack card." % c["name"])
    return _attack_targets(s, attacker, c, target)


def _given_dice(s, action, targets):
    """(red, {target: white}) from the action's "dice", or None when the engine rolls them."""
    dice = action.get("dice")
    if dice is None:
        return None
    if not isinstance(dice, dict) or sorted(dice) != ["red", "white"]:
        _fail("bad_dice", 'dice must be {"red": die, "white": {target: die}}.')
    red = _die(dice["red"], "The red die")
    w = dice["white"]
    if is_int(w) and len(targets) == 1:
        w = {targets[0]: w}
    if not isinstance(w, dict) or sorted(w) != sorted(targets):
        _fail("bad_dice", "white must give one white die for each target: %s." % ", ".join(
            targets))
    white = {}
    for t in targets:
        white[t] = _die(w[t], "%s's white die" % t)
    return red, white


def _respawn_choice(s, action):
    v = action.get("respawn_to")
    if v is None:
        return {}
    if s.options["mode"] != "ctf":
        _fail("bad_field", "respawn_to is for Capture the Flag (characters leave the game in "
              "Battle Royale).")
    if not isinstance(v, dict):
        _fail("bad_respawn", "respawn_to must be {character: cell}.")
    out = {}
    for cid in sorted(v):
        if cid not in s.heroes:
            _fail("bad_respawn", "respawn_to names %s, who is not in the game." % shown(cid))
        cell = v[cid]
        if not _is_xy(cell) or _index(cell) not in _zone_of(s, s.heroes[cid]["seat"])["behind"]:
            _fail("bad_respawn", "%s is laid down behind its own base, not on %s." % (
                cid, shown(cell)))
        out[cid] = _index(cell)
    return out


def _battle_setup(s, action, targets):
    """(the dice the action gives or None, its respawn cells): an attack's checks, made
    before it changes anything."""
    return _given_dice(s, action, targets), _respawn_choice(s, action)


def _start_battle(s, cid, card, targets, setup, events):
    dice, respawn_to = setup
    if dice is None:
        red = _roll(s)
        white = {}
        for t in targets:
            white[t] = _roll(s)
    else:
        red, white = dice
    bonus = _def(s, cid)["attack_bonus"] + (card["bonus"] if card is not None else 0)
    s.battle = {"attacker": cid, "seat": s.heroes[cid]["seat"],
                "card": card["id"] if card is not None else None, "red": red, "bonus": bonus,
                "targets": list(targets), "white": white, "next": 0,
                "respawn_to": respawn_to, "dead": []}
    events.append({"type": "battle", "attacker": cid, "targets": list(targets),
                   "card": s.battle["card"], "red": red, "white": white,
                   "attack": red + bonus})
    _continue_battle(s, events)


def _attack(s, action, events):
    cid = _my_hero(s, action, "attacker")
    _needs_action(s)
    targets = _attack_targets(s, cid, None, action.get("target"))
    setup = _battle_setup(s, action, targets)
    # Every check above, every change below (CHECKED_FIRST).
    s.actions_left -= 1
    _start_battle(s, cid, None, targets, setup, events)


def _waits_for_defender(s, t):
    b = s.battle
    h = s.heroes[t]
    if h["seat"] == b["seat"] or h["state"] != "standing":
        return False
    # Any Bonus Card in hand makes the battle wait, playable or not, so that waiting does
    # not tell the attacker what kind of card is hidden there.
    if s.hands[h["seat"]]:
        return True
    grid = _grid(s)
    for c in _def(s, t)["cards"]:
        card = _card(s, c)
        if c not in h["face_down"] and "attack" not in card["name"].lower() and \
                _card_options(s, t, c, card, True, grid):
            return True
    return False


def _continue_battle(s, events):
    b = s.battle
    while b["next"] < len(b["targets"]):
        if _waits_for_defender(s, b["targets"][b["next"]]):
            t = b["targets"][b["next"]]
            events.append({"type": "defence_awaited", "seat": s.heroes[t]["seat"],
                           "defender": t})
            return
        _resolve_target(s, None, events)
    s.battle = None
    for t in b["dead"]:
        _queue_bonus_roll(s, t, b["seat"])
    _after(s, events)


def _resolve_target(s, defence, events):
    """Damage to the battle's next target; `defence` is {"bonus", "dodged"} from a card."""
    b = s.battle
    t = b["targets"][b["next"]]
    b["next"] += 1
    h = s.heroes[t]
    if h["state"] != "standing":
        return  # defeated earlier in this battle
    attack = b["red"] + b["bonus"]
    defence_total = b["white"][t] + _def(s, t)["defence_bonus"]
    dodged = False
    if defence is not None:
        defence_total += defence["bonus"]
        dodged = defence["dodged"]
    damage = 0 if dodged or attack <= defence_total else attack - defence_total
    h["health"] = max(0, h["health"] - damage)
    events.append({"type": "damage", "character": t, "attack": attack,
                   "defence": defence_total, "damage": damage, "dodged": dodged,
                   "health": h["health"]})
    if h["health"] == 0:
        _defeat(s, t, b["respawn_to"].get(t), events)
        b["dead"].append(t)


def _respawn_cell(s, cid, wanted):
    zone = _zone_of(s, s.heroes[cid]["seat"])["behind"]

    def free(i):
        return not s.map["blocked"][i] and _occupant(s, i) is None and _flag_at(s, i) is None
    if wanted is not None and free(wanted):
        return wanted
    for i in zone:
        if free(i):
            return i
    empties = [i for i in range(NCELLS) if free(i)]
    empties.sort(key=lambda i: (min([chebyshev(i, z) for z in zone]), i))
    return empties[0]


def _defeat(s, cid, wanted, events):
    h = s.heroes[cid]
    team = _carried_flag(s, cid)
    if team is not None:
        s.flags[team]["carrier"] = None
        events.append({"type": "flag_released", "team": team, "character": cid,
                       "cell": cell_xy(s.flags[team]["cell"])})
    h["stopped"] = False
    if cid in s.moved:
        s.moved.remove(cid)
    if s.options["mode"] == "royale":
        events.append({"type": "defeated", "character": cid, "cell": cell_xy(h["cell"]),
                       "out": True})
        h["state"] = "out"
        h["cell"] = -1
        return
    h["cell"] = -1
    cell = _respawn_cell(s, cid, wanted)
    h["cell"] = cell
    h["state"] = "down"
    events.append({"type": "defeated", "character": cid, "out": False,
                   "laid_down_at": cell_xy(cell)})


def _queue_bonus_roll(s, dead, attacking_seat):
    if not s.options["bonus_cards"] or s.status != "ongoing":
        return
    pair = [attacking_seat]
    owner = s.heroes[dead]["seat"]
    if owner != attacking_seat:
        pair.append(owner)
    elif len(s.seats) == 2:
        pair.append([q for q in s.seats if q != attacking_seat][0])
    s.bonus_rolls.append(sorted(pair, key=lambda q: s.seats.index(q)))


def _draw_bonus(s, seat, card, events):
    if not s.deck:
        events.append({"type": "bonus_deck_empty", "seat": seat})
        return
    if card is None:
        card = s.deck[0]
    s.deck.remove(card)
    s.hands[seat].append(card)
    events.append({"type": "bonus_drawn", "seat": seat, "card": card})


def _settle_bonus_rolls(s, events):
    """Draw at once for a roll-off of one player, or with an empty deck nobody rolls."""
    while s.bonus_rolls and (len(s.bonus_rolls[0]) == 1 or not s.deck):
        pair = s.bonus_rolls.pop(0)
        if s.deck:
            _draw_bonus(s, pair[0], None, events)
        else:
            events.append({"type": "bonus_deck_empty", "seat": pair[0]})


def _roll_bonus(s, action):
    pair = s.bonus_rolls[0]
    dice = action.get("dice")
    rolls = {}
    if dice is None:
        for q in pair:
            rolls[q] = _roll(s)
    else:
        if not isinstance(dice, dict) or sorted(dice) != sorted(pair):
            _fail("bad_dice", "dice must give one green die for each of %s." % " and ".join(pair))
        for q in pair:
            rolls[q] = _die(dice[q], "%s's die" % q)
    card = action.get("card")
    if card is not None and (not isinstance(card, str) or card not in s.deck):
        _fail("bad_card", "card must be a Bonus Card still in the deck, not %s." % shown(card))
    events = [{"type": "bonus_rolled", "rolls": rolls}]
    best = max([rolls[q] for q in pair])
    top = [q for q in pair if rolls[q] == best]
    if len(top) > 1:
        events.append({"type": "roll_off_tied", "seats": list(top)})
        return events
    s.bonus_rolls.pop(0)
    _draw_bonus(s, top[0], card, events)
    _settle_bonus_rolls(s, events)
    return events


# ---------------------------------------------------------------- cards

def _own_card(s, cid, card_id):
    """The card cid may play now: one of its face-up cards or its player's Bonus Card."""
    seat = s.heroes[cid]["seat"]
    if isinstance(card_id, str) and card_id in _def(s, cid)["cards"]:
        if card_id in s.heroes[cid]["face_down"]:
            _fail("face_down", "%s is face down: it cannot be played %s." % (
                _card(s, card_id)["name"], "again" if s.options["mode"] == "royale" else
                "until its character's Respawn Phase ends"))
        return _card(s, card_id), False
    if isinstance(card_id, str) and card_id in s.hands[seat]:
        return _card(s, card_id), True
    _fail("not_your_card", "card must be one of %s's face-up cards or a Bonus Card in your "
          "hand, not %s." % (_def(s, cid)["name"], shown(card_id)))


def _turn_over(s, cid, card, bonus, events):
    if bonus:
        seat = s.heroes[cid]["seat"]
        s.hands[seat].remove(card["id"])
        s.discard.append(card["id"])
        events.append({"type": "bonus_discarded", "seat": seat, "card": card["id"]})
    elif not card["stays_face_up"]:
        s.heroes[cid]["face_down"].append(card["id"])
        events.append({"type": "card_turned_over", "character": cid, "card": card["id"]})


def _heal_target(s, cid, card, action):
    """Who cid's heal card heals; IllegalAction if it cannot."""
    target = action.get("target", cid)
    if not isinstance(target, str) or target not in s.heroes:
        _fail("unknown_character", "target must be a character in the game, not %s." %
              shown(target))
    if _enemy(s, cid, target) or s.heroes[target]["state"] != "standing":
        _fail("bad_target", "%s heals a standing character of your own team." % card["name"])
    if card["range"] == 0 and target != cid:
        _fail("bad_target", "%s heals only the character who plays it." % card["name"])
    if target != cid and not _line_of_fire(s, s.heroes[cid]["cell"],
                                           s.heroes[target]["cell"], card["range"]):
        _fail("out_of_range", "%s is not within %d spaces in a clear line." % (
            _def(s, target)["name"], card["range"]))
    if s.heroes[target]["health"] >= _def(s, target)["health"]:
        _fail("full_health", "%s has all its health; there is nothing to heal." %
              _def(s, target)["name"])
    return target


def _heal(s, cid, card, target, events):
    t = s.heroes[target]
    gain = min(card["amount"], _def(s, target)["health"] - t["health"])
    t["health"] += gain
    events.append({"type": "healed", "character": target, "by": cid, "amount": gain,
                   "health": t["health"]})


def _play_card(s, action, events):
    cid = _my_hero(s, action, "character")
    _needs_action(s)
    card, bonus = _own_card(s, cid, action.get("card"))
    kind = card["kind"]
    for key in ("dice", "respawn_to"):
        if key in action and kind != "attack":
            _fail("bad_field", "%s is not an attack: it takes no %s." % (card["name"], key))
    for key in ("to", "path", "flag_to"):
        if key in action and kind != "move":
            _fail("bad_field", "%s is not a movement card: it takes no %s." % (card["name"], key))
    if "target" in action and kind == "move":
        _fail("bad_field", "%s is a movement card: it takes no target." % card["name"])
    if kind == "defend":
        _fail("defence_only", "%s is played when attacked, in the battle phase." % card["name"])
    if kind == "move":
        _can_move_now(s, cid, True)
        to = _way(s, cid, action, card["spaces"])
        carry = _flag_carry(s, cid, to, action)
    elif kind == "heal":
        target = _heal_target(s, cid, card, action)
    else:
        targets = _attack_targets(s, cid, card, action.get("target"))
        setup = _battle_setup(s, action, targets)
    # Every check above, every change below (CHECKED_FIRST).
    s.actions_left -= 1
    events.append({"type": "card_played", "character": cid, "card": card["id"],
                   "bonus_card": bonus})
    if kind == "move":
        _turn_over(s, cid, card, bonus, events)
        if cid not in s.moved:
            s.moved.append(cid)     # it has moved this turn: the die no longer moves it
        _relocate(s, cid, to, carry, events, "card")
    elif kind == "heal":
        _heal(s, cid, card, target, events)
        _turn_over(s, cid, card, bonus, events)
    else:
        _turn_over(s, cid, card, bonus, events)
        _start_battle(s, cid, card, targets, setup, events)


def _defend(s, action, events):
    b = s.battle
    t = b["targets"][b["next"]]
    card_id = action.get("card")
    card, bonus = _own_card(s, t, card_id)
    if "attack" in card["name"].lower():
        _fail("attack_card_in_defence", "%s has \"attack\" in its name: it cannot be played in "
              "the battle phase." % card["name"])
    kind = card["kind"]
    for key in ("to", "path"):
        if key in action and kind != "move":
            _fail("bad_field", "%s is not a movement card: it takes no %s." % (card["name"], key))
    if "target" in action and kind != "heal":
        _fail("bad_field", "%s takes no target." % card["name"])
    events.append({"type": "card_played", "character": t, "card": card["id"],
                   "bonus_card": bonus, "in_defence": True})
    defence = {"bonus": 0, "dodged": False}
    if kind == "move":
        _can_move_now(s, t, True)
        to = _way(s, t, action, card["spaces"])
        _turn_over(s, t, card, bonus, events)
        _relocate(s, t, to, _flag_carry(s, t, to, {}), events, "card")
        defence["dodged"] = True
    elif kind == "heal":
        _heal(s, t, card, _heal_target(s, t, card, action), events)
        _turn_over(s, t, card, bonus, events)
    else:
        defence["bonus"] = card["bonus"]
        _turn_over(s, t, card, bonus, events)
    if s.status == "ongoing":
        _resolve_target(s, defence, events)


# ---------------------------------------------------------------- the end

def _after(s, events):
    if s.status == "ongoing" and s.battle is None:
        _check_end(s, events)
        if s.status == "ongoing":
            _settle_bonus_rolls(s, events)


def _check_end(s, events):
    if s.options["mode"] != "royale" or s.status != "ongoing":
        return
    alive = living_seats(s)
    if len(alive) <= 1:
        _finish(s, alive[0] if alive else None, "last_standing" if alive else "all_defeated",
                events)


def _finish(s, who, reason, events):
    s.phase = "finished"
    s.status = "finished"
    s.winner = who
    s.end_reason = reason
    s.actions_left = 0
    s.battle = None
    s.bonus_rolls = []
    events.append({"type": "game_over", "reason": reason, "winner": who})


def undo_blocker(action, events):
    """Why this action cannot be taken back (dice rolled, a card drawn), or None."""
    for ev in events:
        if ev["type"] in ("rolled_off", "movement_rolled", "battle", "bonus_rolled",
                          "bonus_drawn"):
            return "it rolled dice or drew a card"
    return None


# ---------------------------------------------------------------- legal actions

def _move_variants(s, cid, base, cells, grid):
    """Move actions to each cell, with every way to carry a flag the mover controls."""
    occ, flags = grid
    out = []
    team = _carried_flag(s, cid)
    start = s.heroes[cid]["cell"]
    carry = team is not None and chebyshev(start, s.flags[team]["cell"]) == 1 and \
        not _standoff(s, team)
    for to in cells:
        a = dict(base)
        a["to"] = cell_xy(to)
        out.append(a)
        if not carry:
            continue
        for f in TOUCHING[to]:
            if s.map["blocked"][f] or occ[f] not in (None, cid) or flags[f] not in (None, team):
                continue
            b = dict(a)
            b["flag_to"] = cell_xy(f)
            out.append(b)
    return out


def _card_options(s, cid, card_id, card, defending, grid):
    base = {"type": "defend", "card": card_id} if defending else {
        "type": "play_card", "character": cid, "card": card_id}
    kind = card["kind"]
    h = s.heroes[cid]
    if kind == "move":
        if h["stopped"]:
            return []
        cells = sorted(reachable(s, cid, h["cell"], card["spaces"], grid))
        if defending:
            return [dict(base, to=cell_xy(i)) for i in cells]
        return _move_variants(s, cid, base, cells, grid)
    if kind == "heal":
        out = []
        for t in s.roster:
            th = s.heroes[t]
            if th["seat"] != h["seat"] or th["state"] != "standing" or \
                    th["health"] >= _def(s, t)["health"]:
                continue
            if t == cid or (card["range"] > 0 and _line_of_fire(s, h["cell"], th["cell"],
                                                               card["range"], grid[0])):
                out.append(dict(base, target=t))
        return out
    if kind == "defend":
        return [base] if defending else []
    if defending:
        return []
    if card["area"] != "one":
        try:
            _attack_targets(s, cid, card, None)
        except IllegalAction:
            return []
        return [base]
    out = []
    for t in s.roster:
        th = s.heroes[t]
        if th["seat"] != h["seat"] and th["state"] == "standing" and _line_of_fire(
                s, h["cell"], th["cell"], card["range"], grid[0]):
            out.append(dict(base, target=t))
    return out


def _playable_cards(s, cid):
    h = s.heroes[cid]
    out = [(c, _card(s, c)) for c in _def(s, cid)["cards"] if c not in h["face_down"]]
    out += [(c, _card(s, c)) for c in s.hands[h["seat"]]]
    return out


def legal_actions(state):
    """Every legal action now, in a fixed order (dice, "path" and "respawn_to" left out)."""
    s = state
    if s.phase == "finished":
        return []
    if s.phase in ("pick_roll", "turn_roll"):
        return [{"type": "roll_off"}]
    if s.phase == "pick":
        seat = s.seats[s.pick_turn]
        cells = [i for i in _start_cells(s, seat) if _occupant(s, i) is None]
        return [{"type": "pick", "character": c, "cell": cell_xy(i)}
                for c in s.cat["character_order"] if c not in s.heroes for i in sorted(cells)]
    if s.battle is not None:
        t = s.battle["targets"][s.battle["next"]]
        out = []
        for card_id, card in _playable_cards(s, t):
            if "attack" not in card["name"].lower():
                out.extend(_card_options(s, t, card_id, card, True, _grid(s)))
        out.append({"type": "no_defence"})
        return out
    if s.bonus_rolls:
        return [{"type": "roll_bonus"}]
    seat = current(s)
    grid = _grid(s)
    out = []
    mine = [c for c in s.roster if s.heroes[c]["seat"] == seat and _standing(s, c)]
    if s.actions_left > 0:
        movers = _movers(s)
        if s.roll is None and movers:
            out.append({"type": "roll_move"})
        if s.roll is not None:
            for cid in movers:
                spaces = s.roll + _def(s, cid)["move_bonus"]
                cells = sorted(reachable(s, cid, s.heroes[cid]["cell"], spaces, grid))
                out.extend(_move_variants(s, cid, {"type": "move", "character": cid}, cells,
                                          grid))
        for cid in mine:
            for t in s.roster:
                th = s.heroes[t]
                if th["seat"] != seat and th["state"] == "standing" and _line_of_fire(
                        s, s.heroes[cid]["cell"], th["cell"], 1, grid[0]):
                    out.append({"type": "attack", "attacker": cid, "target": t})
        for cid in mine:
            for card_id, card in _playable_cards(s, cid):
                out.extend(_card_options(s, cid, card_id, card, False, grid))
    out.append({"type": "end_turn"})
    return out


def normal_form(state, action):
    """A legal action in the form legal_actions lists it: "path" as its destination, the
    dice and respawn cells left out, a heal's target spelled out."""
    s = state
    a = dict(action)
    for key in ("dice", "respawn_to", "die"):
        a.pop(key, None)
    if isinstance(a.get("path"), list) and a["path"]:
        a["to"] = a.pop("path")[-1]
    if a.get("type") == "roll_bonus":
        a.pop("card", None)
    if a.get("type") in ("play_card", "defend") and "target" not in a:
        # A heal card without a target heals the character who plays it.
        card = s.cat["cards"].get(a.get("card")) or s.cat["bonus"].get(a.get("card"))
        if card is not None and card["kind"] == "heal":
            if a["type"] == "play_card":
                a["target"] = a.get("character")
            elif s.battle is not None:
                a["target"] = s.battle["targets"][s.battle["next"]]
    return a


def action_space(state):
    """A superset of the legal actions (every character, target, cell and card) for the
    completeness check of the conformance kit; "flag_to" only where a flag is carried."""
    s = state
    out = [{"type": "roll_off"}, {"type": "roll_move"}, {"type": "end_turn"},
           {"type": "no_defence"}, {"type": "roll_bonus"}]
    chars = list(s.roster)
    for c in s.cat["character_order"]:
        if c not in s.heroes:
            chars.append(c)
            break
    all_cards = []
    for c in s.roster:
        all_cards.extend(_def(s, c)["cards"])
    for q in s.seats:
        all_cards.extend(s.hands[q])
    for i in range(NCELLS):
        for c in chars:
            out.append({"type": "pick", "character": c, "cell": cell_xy(i)})
    for a in s.roster:
        for i in range(NCELLS):
            out.append({"type": "move", "character": a, "to": cell_xy(i)})
        for t in s.roster:
            out.append({"type": "attack", "attacker": a, "target": t})
        for card_id in all_cards:
            out.append({"type": "play_card", "character": a, "card": card_id})
            for t in s.roster:
                out.append({"type": "play_card", "character": a, "card": card_id, "target": t})
            card = _card(s, card_id)
            if card["kind"] == "move":
                for i in range(NCELLS):
                    out.append({"type": "play_card", "character": a, "card": card_id,
                                "to": cell_xy(i)})
    for card_id in all_cards:
        out.append({"type": "defend", "card": card_id})
        for t in s.roster:
            out.append({"type": "defend", "card": card_id, "target": t})
        if _card(s, card_id)["kind"] == "move":
            for i in range(NCELLS):
                out.append({"type": "defend", "card": card_id, "to": cell_xy(i)})
    return out


# ---------------------------------------------------------------- views and records

def _hero_form(s, cid):
    h = s.heroes[cid]
    d = _def(s, cid)
    return {"id": cid, "seat": h["seat"], "cell": cell_xy(h["cell"]) if h["cell"] >= 0 else None,
            "health": h["health"], "max_health": d["health"], "state": h["state"],
            "face_up": [c for c in d["cards"] if c not in h["face_down"]],
            "face_down": list(h["face_down"]), "stopped": h["stopped"]}


def _flags_form(s):
    return [{"team": q, "cell": cell_xy(s.flags[q]["cell"]), "carrier": s.flags[q]["carrier"]}
            for q in s.seats if q in s.flags]


def _battle_form(s):
    b = s.battle
    if b is None:
        return None
    return {"attacker": b["attacker"], "seat": b["seat"], "card": b["card"], "red": b["red"],
            "attack": b["red"] + b["bonus"], "targets": list(b["targets"]),
            "white": dict(b["white"]), "waiting_for": b["targets"][b["next"]]}


def _common(s):
    return {"game": NAME, "mode": s.options["mode"], "status": s.status, "winner": s.winner,
            "end_reason": s.end_reason, "phase": s.phase, "turn": current(s),
            "turn_number": s.turn_number, "actions_left": s.actions_left, "roll": s.roll,
            "moved": list(s.moved), "characters": [_hero_form(s, c) for c in s.roster],
            "flags": _flags_form(s), "battle": _battle_form(s),
            "bonus_rolls": [list(p) for p in s.bonus_rolls], "discard": list(s.discard),
            "map": map_form(s.map), "seats": list(s.seats)}


def view(state, seat=None):
    """What `seat` may know (None: a spectator): everything but the Bonus Cards in other
    players' hands and the deck."""
    s = state
    out = _common(s)
    out["seat"] = seat
    out["hand_sizes"] = dict([(q, len(s.hands[q])) for q in s.seats])
    out["deck"] = len(s.deck)
    out["rollers"] = list(s.rollers)
    out["options"] = dict(s.options)
    if seat in s.hands:
        out["hand"] = list(s.hands[seat])
    return out


def secrets(state, seat=None):
    """The Bonus Card ids that must not appear in view(state, seat)."""
    s = state
    out = set(s.deck)
    for q in s.seats:
        if q != seat:
            out.update(s.hands[q])
    return out


def to_dict(state):
    """The whole state as JSON data (canonical-ready)."""
    s = state
    out = {"schema": canon.SCHEMA_VERSION, "game": NAME, "options": dict(s.options),
           "seed": s.seed, "cards": canon.loads(canon.dumps(s.extra_cards))
           if s.extra_cards is not None else None, "map": map_form(s.map),
           "seats": list(s.seats)}
    for key in DYNAMIC:
        out[key] = _clone(getattr(s, key))
    return out


def from_dict(data):
    """Rebuild a state from to_dict(); ScenarioError if it is not one."""
    if not isinstance(data, dict) or data.get("game") != NAME:
        raise ScenarioError("state", "is not a saved heroes (Battle Royale with hero teams) "
                            "state")
    if data.get("schema") != canon.SCHEMA_VERSION:
        raise ScenarioError("state.schema", "unsupported version %s" % shown(data.get("schema")))
    try:
        s = HeroesState()
        s.options = dict(data["options"])
        s.seed = data["seed"]
        s.extra_cards = data["cards"]
        s.cat = load_catalog(data["cards"])
        s.map = check_map(data["map"], "state.map")
        s.seats = list(data["seats"])
        for key in DYNAMIC:
            setattr(s, key, _clone(data[key]))
        for cid in s.roster:
            if cid not in s.cat["characters"] or s.heroes[cid]["seat"] not in s.seats:
                raise ScenarioError("state.heroes", "%s is not a character of this game" %
                                    shown(cid))
    except (KeyError, TypeError, IndexError) as e:
        raise ScenarioError("state", "is incomplete or damaged (%r)" % (e,))
    return s


def result(state):
    """The scenario runner's output (the referee's record; no "events")."""
    s = state
    out = _common(s)
    out["hands"] = dict([(q, list(s.hands[q])) for q in s.seats])
    out["deck"] = list(s.deck)
    return out


# 36 times the mean damage of an attack whose bonuses differ by d (the red die + d against
# the white, the difference taken when it is higher): 35 for d = 0, 56 for +1, 20 for -1.
_DAMAGE36 = {}
for _d in range(-9, 10):
    _DAMAGE36[_d] = sum([max(0, r + _d - w) for r in range(1, 7) for w in range(1, 7)])


def worth(state, cid):
    """What a point of the character's health is worth in a fight, in 36ths of a plain one's
    (the hard bot's yardstick, `hard_evaluate`): the damage its attacks deal (its attack
    bonus against no defence bonus) over the damage it takes (no attack bonus against its
    defence bonus), taken halfway from 36. A plain character 36; +1 to attack (the Giant)
    46, a point each blow deals half again (56 against 35); +1 to defence (the Tin Woodman)
    49, a blow takes little more than half (20 against 35)."""
    d = _def(state, cid)
    ratio = _DAMAGE36[d.get("attack_bonus", 0)] * 36 // _DAMAGE36[-d.get("defence_bonus", 0)]
    return (36 + ratio) // 2


def evaluate(state, seat):
    """How good the position is for `seat` (the greedy bot's yardstick; higher is better).

    Standing characters and health count for, those of the others against; in Capture the
    Flag a flag carried home counts most. Nearness to the enemy (Battle Royale) or to the
    other flag (Capture the Flag) breaks ties, and so do the actions and roll still unused
    this turn, so a greedy player does not end its turn early for nothing.
    """
    return _evaluate(state, seat, False)


def hard_evaluate(state, seat):
    """The hard bot's yardstick (shared_rules/search.py): in Battle Royale, `evaluate` with
    each character's health weighed by its `worth`, so a point of the Giant's (who hits
    harder) or of the Tin Woodman's (who is hit less) counts for more than a plain
    character's, in the pick and in every fight: which character to pick, whom to hit first,
    whom to keep out of reach. The greedy bot counts every point of health alike
    (BENCHMARKS.md "Hero teams: the dice weighed, not sampled"). In Capture the Flag, where a
    character laid down stands up whole a turn later, `evaluate` as it is."""
    return _evaluate(state, seat, state.options["mode"] == "royale")


def _evaluate(state, seat, weighed):
    s = state
    if s.battle is not None and s.status == "ongoing":
        # Judge a battle that waits for a defender as if it answered without a card.
        s = s.copy()
        while s.battle is not None and s.status == "ongoing":
            events = []
            _resolve_target(s, None, events)
            _continue_battle(s, events)
    if s.status == "finished":
        return 100000 if s.winner == seat else (-100000 if s.winner is not None else 0)
    score = 0
    mine = []
    theirs = []
    for cid in s.roster:
        h = s.heroes[cid]
        if h["state"] == "out":
            continue
        points = 4 * h["health"] * worth(s, cid) // 36 if weighed else 4 * h["health"]
        value = 40 + points + (0 if h["state"] == "standing" else -20)
        if h["seat"] == seat:
            score += value
            if h["state"] == "standing":
                mine.append(h["cell"])
        else:
            score -= value
            if h["state"] == "standing":
                theirs.append(h["cell"])
    score += 6 * len(s.hands.get(seat, []))
    if s.options["mode"] == "royale":
        for c in mine:
            if theirs:
                score -= 2 * min([chebyshev(c, t) for t in theirs])
    else:
        for team in s.seats:
            f = s.flags[team]
            if team == seat:
                if f["carrier"] is not None:
                    score -= 60
                continue
            home = _zone_of(s, seat)["behind"]
            to_home = min([chebyshev(f["cell"], z) for z in home])
            if f["carrier"] is not None:
                score += 100 - 12 * to_home
            elif mine:
                score -= 3 * min([chebyshev(c, f["cell"]) for c in mine])
    if current(s) == seat:
        score += s.actions_left + (1 if s.roll is not None else 0)
    return score


def outcomes(state, action):
    """Every outcome of the action's dice, for a bot that weighs them (shared_rules/search.py
    `expect`): [(1, the action with its dice given), ...], equally likely; None when no die
    decides it (a move, a heal, a defence, ending the turn) or the action gives its dice.

    An attack (plain, or an attack card's): the red die against the white, 36 outcomes.
    With several targets (an area card) every target takes the same white die in each
    outcome: each target's own red and white dice still take each of their 36 pairs once, so
    a yardstick that adds up character by character (evaluate) has the same mean as over
    all 6 ** (targets + 1) outcomes, at 36 tries. The turn's green die (`roll_move`): 6."""
    kind = action.get("type")
    if "dice" in action or "die" in action:
        return None
    if kind == "roll_move":
        return [(1, {"type": "roll_move", "die": d}) for d in range(1, 7)]
    if kind not in ("attack", "play_card"):
        return None
    try:
        if kind == "attack":
            targets = attack_targets(state, action.get("attacker"), None, action.get("target"))
        else:
            targets = attack_targets(state, action.get("character"), action.get("card"),
                                     action.get("target"))
    except IllegalAction:
        return None      # not an attack card (a move, a heal), or not legal now
    out = []
    for red in range(1, 7):
        for white in range(1, 7):
            given = dict(action)
            given["dice"] = {"red": red, "white": dict([(t, white) for t in targets])}
            out.append((1, given))
    return out


def imagine(state, seat, rng):
    """The state as a player may imagine it (shared_rules/bots.py): the dice to come and
    the Bonus deck's order replaced, the same for every seat (the greedy bot's lookahead
    must not see the real future)."""
    state.rng = rng or 1
    if state.deck:
        state.rng = prng.shuffle(state.rng, state.deck)
    return state


def determinize(state, seat, rng):
    """The state dealt again as `seat` may imagine it (information-set search): everything
    the seat cannot know is dealt at random from `rng`, consistent with what it sees; it
    changes and returns the state it is given (pass a copy).

    Re-dealt: the Bonus Cards in the deck and in the other seats' hands are pooled, sorted,
    shuffled and dealt back, each other hand getting as many as it holds (sorted by id; the
    order a hand was drawn in is nobody's business) and the deck the rest, in a new order.
    The engine's PRNG (every die still to roll) is replaced from `rng`, and the game's
    seed, which would re-deal the real deck, is set to 0.

    Kept: everything `view(state, seat)` shows: the board, characters, their health and
    face-down cards, flags, a battle's dice and who it waits for, roll-offs waiting, the
    discard pile, the seat's own hand, and how many cards each hand and the deck hold.
    A Bonus Card the seat saw drawn (a "bonus_drawn" event names it) is still in the pool:
    the state does not record what the seat saw, only what it sees now. Only the seat's
    view and `rng` decide the result.
    """
    s = state
    rng = rng or prng.seed_state(0)
    others = [q for q in s.seats if q != seat]
    pool = list(s.deck)
    for q in others:
        pool.extend(s.hands[q])
    pool.sort()
    rng = prng.shuffle(rng, pool)
    k = 0
    for q in others:
        n = len(s.hands[q])
        s.hands[q] = sorted(pool[k:k + n])
        k += n
    s.deck = pool[k:]
    s.rng = rng
    s.seed = 0
    return s


def actors(state):
    """The seats that may act now: a roller, a defender, a Bonus Card roller, or the player
    whose turn it is ([] once the game is over). One at a time."""
    if state.status != "ongoing":
        return []
    who = actor(state, None)
    return [who] if who is not None else []
