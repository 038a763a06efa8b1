"""Storybook Battles: the rules engine for the rulebook *Storybook Battles* (Joshua Sprung),
the 2-player game and its 4-player team rules. The book's words quoted below are the
sentences each rule implements; this docstring states the rules as implemented.

The rules in short. Each seat plays one side, Heroes or Villains, with a team
and an ally of that side: its deck is their cards of that side. Before play
each seat chooses one plot twist among four (its team's two and its ally's
two). The Hero leader goes face up in the middle; the Hero hides two cards
and the Villain plays two (see the L shape below). Turns alternate, the
Villain first; a turn has 5 AP to spend on draw (1; not with 5 or more cards
in hand), reveal (1, any face-down card), spin (2, your face-up card, 90
degrees), slide (2, your card, towards the others until it touches one),
play (3, face up) and hide (3, face down), a card always placed next to a
card in play. Then every pair of adjacent face-up enemy cards battles at
once: swords on the edge facing the enemy against its shields there; at
least as many swords bests, twice as many overwhelms and captures, two
cards besting one capture it. A captured card's plot points go to the
captor's side; 10 points win (15 in the team game), a tie goes to overtime.
A plot twist is played once per game (once per team in the team game).

Seats and sides. The 2-player game has the seats "hero" and "villain"; the
team game has "villain_a", "hero_1", "villain_b", "hero_2", in that turn
order ("If Villain player A goes first, Hero player 1 goes second, Villain
player B third, and Hero player 2 last"). A seat's side is the part of its
name before "_". Scores, captures and the plot-twist allowance belong to a
side ("a combined capture pool"; "your team may only play ONE").

The table. Cells are (column, row); rows grow to the north. The Hero side
sits at the south edge, the Villain side at the north. A card's facing is
the table direction its top edge points to: a card goes down "with the name
of the card facing you", so a Hero card is played facing N and a Villain
card facing S. Card edges are given as the controller sees the card (top,
right, bottom, left); with facing f the edge i points to direction (f+i)%4.
The grid is 7x7 by default (the physical table); `"grid": null` makes it
unbounded. The Hero leader goes face up in the middle cell.

Decisions where the book is unclear (each an option or documented here):
- "Hides ... in the spaces highlighted in green in the picture ... creating
  an L shape" and the Villain "Plays ... in the spaces highlighted in red":
  the picture is missing. The Hero hides west and south of the leader, the
  Villain plays north and east of it (the mirror L, point-symmetric). In
  the team game the two Hero leaders sit side by side in the middle row
  ("the two heroes are adjacent"); each Hero hides west/east and south of
  their leader, each Villain plays the two cells north of their partner
  Hero's L.
- "If there are at least as many Swords as there are Shields, that
  character has Bested their opponent": an edge with no swords never
  bests (otherwise 0 swords would best, and overwhelm, 0 shields).
- "Overtime - If still tied, keep playing until one player achieves a
  higher Plot Point total at the end of any turn."
- Face-down cards are seen only by the seat that controls them ("You can
  peek at your own cards at any time"); teammates do not see each other's
  hands ("You cannot directly reveal your hand to each other").
- Plot twists. Requirements and effects are data (the catalog); the effects
  are: extra_ap, draw (past the hand limit), spin_enemy (cell, dir),
  return_to_hand (cell), shield_wall (your cards cannot be overwhelmed until
  the end of the next battle) and off_with_their_heads (until the end of the
  next battle, every enemy card the named card bests is captured: the
  Queen of Hearts' "Come to the End", a lasting effect). An hourglass twist
  may be played whenever its requirement holds during the play phase, in
  any seat's turn; the others only in their owner's turn, before battle
  (which end_turn starts).
- `max_turns` (option, default none) ends a game after that many turns,
  won by the higher score or drawn: a guard for bots and random play, not
  a rule of the book.

Chance. "mode": "digital" shuffles the decks with the engine's PRNG;
"physical": a draw only grows a hand by one unknown card, and a card's
identity arrives when it is placed (it must be one of the seat's unseen
cards). `determinize(state, seat, rng)` deals again what a seat cannot
see, for a search bot (its docstring says what is kept).

Setup (a scenario position; the play phase starts from it; every field optional):
{"board": [{"card", "cell": [c, r], "owner"?: the card's side (it must be that side),
"seat"?: a seat of that side, "facing"?: "N"|"E"|"S"|"W", "face_up"?: true}],
"hands": {seat: [card ids of the seat's side]} (physical mode: or a count of unread cards),
"decks": {seat: [card ids of the seat's side]}: the seat's remaining cards, the first one
drawn next (digital mode: this fixes the draw order; physical mode: the unseen cards a
counted hand and the deck hold); a seat without one gets its team's and ally's cards that
are not placed, shuffled by the seed. No card may be in two places.
"turn": seat, "ap": 0..20, "scores": {side: points}, "plot_twists": {seat: one of the
seat's four plot twists}}.

Actions (JSON): {"type": "draw"} | {"type": "reveal", "cell": [c, r]}
| {"type": "spin", "cell", "dir": "cw"|"ccw"} | {"type": "slide", "cell",
"dir": "N"|"E"|"S"|"W"} | {"type": "play"|"hide", "card", "cell", "facing"?}
| {"type": "plot_twist", "card", "cell"?, "dir"?} | {"type": "end_turn"}
| {"type": "choose_plot_twist", "card"} (setup).
"""

from shared_rules import canon
from shared_rules import catalog
from shared_rules import prng
from shared_rules.errors import IllegalAction, ScenarioError, shown
from shared_rules.games import copy, seats, status, winner  # noqa: F401 (the contract)

NAME = "storybook"
# The hard bot's search (shared_rules/search.py): 500 iterations, a move within 250 ms
# of CPU on the development machine (BENCHMARKS.md "The hard bot").
SEARCH = {"iterations": 500}

INFO = {"title": "Storybook Battles", "min_players": 2, "max_players": 4,
        "default_players": 2, "player_counts": [2, 4], "modes": {}, "chance": True,
        "hidden": True}

FACINGS = ("N", "E", "S", "W")
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))
EDGE_NAMES = ("top", "right", "bottom", "left")
SIDES = ("hero", "villain")
HAND_LIMIT = 5
AP_PER_TURN = 5
COST = {"draw": 1, "reveal": 1, "spin": 2, "slide": 2, "play": 3, "hide": 3}
# What the game is doing before play, in a player's words.
PHASE_WORDS = {"choose_plot_twist": "each player chooses a plot twist first",
               "setup_hide": "the Hero hides two cards first",
               "setup_play": "the Villain plays two cards first"}
ACTION_NAMES = {"draw": "Draw", "reveal": "Reveal", "spin": "Spin", "slide": "Slide",
                "play": "Play", "hide": "Hide"}

SEATS_2 = ("villain", "hero")
SEATS_4 = ("villain_a", "hero_1", "villain_b", "hero_2")
DEFAULT_TEAMS = {
    "hero": ("team_alice", "ally_mad_hatter"),
    "villain": ("team_captain_hook", "ally_tinker_bell"),
    "hero_1": ("team_peter_pan", "ally_tinker_bell"),
    "hero_2": ("team_alice", "ally_mad_hatter"),
    "villain_a": ("team_captain_hook", "ally_sinbad"),
    "villain_b": ("team_queen_of_hearts", "ally_tinker_bell"),
}
EFFECT_KINDS = ("extra_ap", "draw", "spin_enemy", "return_to_hand", "shield_wall",
                "off_with_their_heads")
REQUIREMENT_KINDS = ("opponent_more_cards_in_play", "own_card_in_play", "enemy_adjacent_to",
                     "behind_on_points", "hand_at_most", "none")

_PRINT_DIRS = {"N": 0, "E": 1, "S": 2, "W": 3}


_SIDE_OF = dict((seat, seat.split("_")[0]) for seat in SIDES + SEATS_4)  # every game's seats


def side_of(seat):
    """"hero" or "villain" for a seat ("hero_1": "hero"); a seat of neither side gives its
    own first word (so a check against a side refuses it)."""
    side = _SIDE_OF.get(seat)
    return side if side is not None else seat.split("_")[0]


def other_side(side):
    return "villain" if side == "hero" else "hero"


def home_facing(seat):
    """A card goes down with its name toward its controller: Heroes face N, Villains S."""
    return 0 if side_of(seat) == "hero" else 2


# ---------------------------------------------------------------- catalog

def _check_card(card, where):
    if not isinstance(card, dict):
        raise ScenarioError(where, "must be an object")
    cid = card.get("id")
    if not isinstance(cid, str) or not cid:
        raise ScenarioError(where + ".id", "must be a non-empty string")
    at = where  # a JSON path: cards[3].points
    if not isinstance(card.get("name"), str) or not card["name"]:
        raise ScenarioError(at + ".name", "must be a non-empty string")
    if card.get("side") not in SIDES:
        raise ScenarioError(at + ".side", 'must be "hero" or "villain"')
    if not isinstance(card.get("team"), str) or not card["team"]:
        raise ScenarioError(at + ".team", "must be a team id")
    if not catalog.is_int(card.get("points")) or not 0 <= card["points"] <= 20:
        raise ScenarioError(at + ".points", "must be a whole number from 0 to 20")
    if card.get("leader") not in (True, False):
        raise ScenarioError(at + ".leader", "must be true or false")
    edges = card.get("edges")
    if not isinstance(edges, dict):
        raise ScenarioError(at + ".edges", "must be an object with top, right, bottom, left")
    for name in sorted(edges):
        if name not in EDGE_NAMES:
            raise ScenarioError(canon.path(at + ".edges", name),
                                "unknown edge (top, right, bottom, left)")
    out = []
    for name in EDGE_NAMES:
        pair = edges.get(name)
        if not (isinstance(pair, list) and len(pair) == 2 and catalog.is_int(pair[0])
                and catalog.is_int(pair[1]) and 0 <= pair[0] <= 9 and 0 <= pair[1] <= 9):
            raise ScenarioError(at + ".edges." + name,
                                "must be [swords, shields], whole numbers from 0 to 9")
        out.append((pair[0], pair[1]))
    return (cid, card["name"], card["side"], card["team"], card["points"], card["leader"],
            tuple(out))


def _check_twist_def(tw, known_cards, where):
    if not isinstance(tw, dict) or not isinstance(tw.get("id"), str):
        raise ScenarioError(where, 'must be an object with an "id"')
    at = where
    for key in ("name", "team", "text"):
        if not isinstance(tw.get(key), str):
            raise ScenarioError(at + "." + key, "must be a string")
    if tw.get("side") not in SIDES:
        raise ScenarioError(at + ".side", 'must be "hero" or "villain"')
    if tw.get("hourglass") not in (True, False):
        raise ScenarioError(at + ".hourglass", "must be true or false")
    req, eff = tw.get("requires"), tw.get("effect")
    if not isinstance(req, dict) or req.get("kind") not in REQUIREMENT_KINDS:
        raise ScenarioError(at + ".requires.kind", "must be one of " + ", ".join(REQUIREMENT_KINDS))
    if not isinstance(eff, dict) or eff.get("kind") not in EFFECT_KINDS:
        raise ScenarioError(at + ".effect.kind", "must be one of " + ", ".join(EFFECT_KINDS))
    for part, data in (("requires", req), ("effect", eff)):
        if "card" in data and data["card"] not in known_cards:
            raise ScenarioError(at + "." + part + ".card",
                                "unknown card %s" % (shown(data["card"]),))
        for key in ("count", "amount"):
            if key in data and (not catalog.is_int(data[key]) or data[key] < 0):
                raise ScenarioError(at + "." + part + "." + key, "must be a whole number")
    if req["kind"] in ("own_card_in_play", "enemy_adjacent_to") and "card" not in req:
        raise ScenarioError(at + ".requires.card", "is required for " + req["kind"])
    if eff["kind"] == "off_with_their_heads" and "card" not in eff:
        raise ScenarioError(at + ".effect.card", "is required for off_with_their_heads")
    return tw


class Catalog:
    """Cards (id -> tuple), teams, plot twists; validated; immutable once built."""

    def __init__(self, doc, extra=None):
        if not isinstance(doc, dict):
            raise ScenarioError("catalog", "must be an object")
        self.teams = {}
        for i, team in enumerate(doc.get("teams") or []):
            if not isinstance(team, dict) or not isinstance(team.get("id"), str):
                raise ScenarioError("teams[%d]" % i, 'must be an object with an "id"')
            if team.get("kind") not in ("team", "ally"):
                raise ScenarioError("teams[%d].kind" % i, 'must be "team" or "ally"')
            self.teams[team["id"]] = team
        self.cards = {}
        for i, card in enumerate(doc.get("cards") or []):
            row = _check_card(card, "cards[%d]" % i)
            if row[0] in self.cards:
                raise ScenarioError("cards[%d].id" % i, "%s appears twice in the catalog" % (
                    shown(row[0]),))
            self.cards[row[0]] = row
        for i, card in enumerate(extra or []):
            row = _check_card(card, "cards[%d]" % i)
            self.cards[row[0]] = row  # a scenario card replaces the catalog's
        for cid in sorted(self.cards):
            team = self.cards[cid][3]
            if team not in self.teams:
                self.teams[team] = {"id": team, "name": team, "kind": "team", "side": None}
        self.twists = {}
        for i, tw in enumerate(doc.get("plot_twists") or []):
            tw = _check_twist_def(tw, self.cards, "plot_twists[%d]" % i)
            self.twists[tw["id"]] = tw

    def deck_for(self, team, ally, side):
        """A seat's cards: its team's and its ally's cards of its side, sorted by id."""
        return sorted(cid for cid in self.cards
                      if self.cards[cid][2] == side and self.cards[cid][3] in (team, ally))

    def twist_choices(self, team, ally, side):
        """The four plot twists a seat chooses from: its team's two and its ally's two."""
        return sorted(t for t in self.twists if self.twists[t]["side"] == side
                      and self.twists[t]["team"] in (team, ally))


_catalogs = {}


def load_catalog(extra=None):
    """The shipped catalog, merged with a scenario's extra cards."""
    key = canon.dumps(extra) if extra else ""
    if key not in _catalogs:
        _catalogs[key] = Catalog(catalog.load("storybook_cards.json"), extra)
    return _catalogs[key]


# ---------------------------------------------------------------- state

class State:
    """The whole game. Board: (col, row) -> (card id, seat, facing 0-3, face_up)."""

    __slots__ = ("options", "seed", "extra_cards", "cat", "seats", "physical", "grid",
                 "target", "max_turns", "teams", "board", "hands", "decks", "pool", "scores",
                 "captured", "turn", "ap", "phase", "turn_number", "twists", "twist_used",
                 "lasting", "rng", "status", "winner", "overtime", "setup_cells")

    def copy(self):
        s = State()
        s.options = self.options
        s.seed = self.seed
        s.extra_cards = self.extra_cards
        s.cat = self.cat
        s.seats = self.seats
        s.physical = self.physical
        s.grid = self.grid
        s.target = self.target
        s.max_turns = self.max_turns
        s.teams = self.teams
        s.board = dict(self.board)
        s.hands = {k: list(v) for k, v in self.hands.items()}
        s.decks = {k: list(v) for k, v in self.decks.items()}
        s.pool = {k: list(v) for k, v in self.pool.items()}
        s.scores = dict(self.scores)
        s.captured = {k: list(v) for k, v in self.captured.items()}
        s.turn = self.turn
        s.ap = self.ap
        s.phase = self.phase
        s.turn_number = self.turn_number
        s.twists = {k: list(v) for k, v in self.twists.items()}
        s.twist_used = dict(self.twist_used)
        s.lasting = list(self.lasting)
        s.rng = self.rng
        s.status = self.status
        s.winner = self.winner
        s.overtime = self.overtime
        s.setup_cells = self.setup_cells
        return s


def _cell(c):
    return [c[0], c[1]]


def _setup_cells(seats_, centre):
    """Leader cells and the L-shape setup cells per seat (see the module docstring)."""
    cx, cy = centre
    if len(seats_) == 2:
        leaders = {"hero": (cx, cy)}
        cells = {"hero": [(cx - 1, cy), (cx, cy - 1)], "villain": [(cx, cy + 1), (cx + 1, cy)]}
    else:
        leaders = {"hero_1": (cx, cy), "hero_2": (cx + 1, cy)}
        cells = {"hero_1": [(cx - 1, cy), (cx, cy - 1)],
                 "hero_2": [(cx + 2, cy), (cx + 1, cy - 1)],
                 "villain_a": [(cx - 1, cy + 1), (cx, cy + 1)],
                 "villain_b": [(cx + 1, cy + 1), (cx + 2, cy + 1)]}
    return leaders, cells


def _option(options, key, default):
    return options[key] if key in options and options[key] is not None else default


def _parse_options(options):
    if not isinstance(options, dict):
        raise ScenarioError("options", "must be an object")
    known = ("players", "mode", "teams", "allies", "plot_twists", "grid", "target", "max_turns")
    for key in sorted(options):
        if key not in known:
            raise ScenarioError(canon.path("options", key), "unknown option (known: %s)" %
                                ", ".join(known))
    players = _option(options, "players", 2)
    if players not in (2, 4) or players is True:
        raise ScenarioError("options.players", "must be 2 or 4")
    mode = _option(options, "mode", "digital")
    if mode not in ("digital", "physical"):
        raise ScenarioError("options.mode", 'must be "digital" or "physical"')
    grid = options.get("grid", [7, 7])
    if grid is not None and not (catalog.is_cell(grid) and 3 <= grid[0] <= 99
                                 and 3 <= grid[1] <= 99):
        raise ScenarioError("options.grid", "must be [columns, rows] from 3 to 99, or null")
    target = _option(options, "target", 10 if players == 2 else 15)
    if not catalog.is_int(target) or target < 1:
        raise ScenarioError("options.target", "must be a whole number of plot points")
    max_turns = _option(options, "max_turns", None)
    if max_turns is not None and (not catalog.is_int(max_turns) or max_turns < 1):
        raise ScenarioError("options.max_turns", "must be a whole number of turns, or null")
    for key in ("teams", "allies", "plot_twists"):
        if key in options and options[key] is not None and not isinstance(options[key], dict):
            raise ScenarioError("options." + key, "must be an object {seat: id}")
    return players, mode, grid, target, max_turns


def new_game(options, seed, setup=None, cards=None):
    """A new game: setup phase from the start, or the play phase from a scenario position."""
    options = options or {}
    players, mode, grid, target, max_turns = _parse_options(options)
    if cards is not None and not isinstance(cards, list):
        raise ScenarioError("cards", "must be a list of card definitions")
    cat = load_catalog(cards)
    s = State()
    s.options = options
    s.seed = seed
    s.extra_cards = cards
    s.cat = cat
    s.seats = SEATS_2 if players == 2 else SEATS_4
    s.physical = mode == "physical"
    s.grid = (grid[0], grid[1]) if grid is not None else None
    s.target = target
    s.max_turns = max_turns
    s.rng = prng.seed_state(seed)
    s.teams = {}
    used = {}
    for key in ("teams", "allies"):
        for seat in sorted(options.get(key) or {}):
            if seat not in s.seats:
                raise ScenarioError(canon.path("options." + key, seat), "no such seat (seats: "
                                    "%s)" % ", ".join(s.seats))
    for seat in s.seats:
        side = side_of(seat)
        team = (options.get("teams") or {}).get(seat, DEFAULT_TEAMS[seat][0])
        ally = (options.get("allies") or {}).get(seat, DEFAULT_TEAMS[seat][1])
        for key, tid, kind in (("teams", team, "team"), ("allies", ally, "ally")):
            info = cat.teams.get(tid) if isinstance(tid, str) else None
            if info is None or info["kind"] != kind:
                raise ScenarioError("options.%s.%s" % (key, seat), "unknown %s %s" % (
                    kind, shown(tid)))
            if kind == "team" and info.get("side") != side:
                raise ScenarioError("options.teams." + seat, "%s is not a %s team" % (
                    shown(tid), side))
            if (tid, side) in used:
                raise ScenarioError("options.%s.%s" % (key, seat),
                                    "%s is already used by %s" % (shown(tid), used[(tid, side)]))
            used[(tid, side)] = seat
        s.teams[seat] = (team, ally)
    s.board = {}
    s.hands = {}
    s.decks = {}
    s.pool = {}
    s.scores = {"hero": 0, "villain": 0}
    s.captured = {"hero": [], "villain": []}
    s.twists = {}
    s.twist_used = {"hero": False, "villain": False}
    s.lasting = []
    s.status = "ongoing"
    s.winner = None
    s.overtime = False
    s.turn_number = 0
    preset = options.get("plot_twists") or {}
    for seat in sorted(preset):
        if seat not in s.seats:
            raise ScenarioError(canon.path("options.plot_twists", seat), "no such seat")
        choices = cat.twist_choices(s.teams[seat][0], s.teams[seat][1], side_of(seat))
        if preset[seat] not in choices:
            raise ScenarioError("options.plot_twists." + seat, "%s is not one of %s" % (
                shown(preset[seat]), ", ".join(choices)))
    for seat in s.seats:
        # [chosen twist id or None, used]
        s.twists[seat] = [preset.get(seat), False]
    centre = ((s.grid[0] // 2, s.grid[1] // 2) if s.grid else (0, 0))
    leaders, s.setup_cells = _setup_cells(s.seats, centre)
    if setup is not None:
        _load_position(s, setup)
        return s
    for seat in s.seats:
        team, ally = s.teams[seat]
        cards_ = cat.deck_for(team, ally, side_of(seat))
        if seat in leaders:
            leader = [c for c in cards_ if cat.cards[c][5] and cat.cards[c][3] == team]
            if not leader:
                raise ScenarioError("options.teams." + seat,
                                    "team %s has no leader card" % shown(team))
            cards_.remove(leader[0])
            s.board[leaders[seat]] = (leader[0], seat, home_facing(seat), True)
        _start_deck(s, seat, cards_)
        for _ in range(4):
            _draw_one(s, seat)
    s.phase = "choose_plot_twist"
    s.turn = s.seats[0]
    s.ap = 0
    _advance_setup(s)
    return s


def _start_deck(s, seat, cards_):
    if s.physical:
        s.pool[seat] = sorted(cards_)
        s.decks[seat] = [None] * len(cards_)
    else:
        deck = sorted(cards_)
        s.rng = prng.shuffle(s.rng, deck)
        s.decks[seat] = deck
        s.pool[seat] = []
    s.hands[seat] = []


def _draw_one(s, seat):
    card = s.decks[seat].pop()
    s.hands[seat].append(card)
    return card


def _setup_order(s):
    heroes = [x for x in s.seats if side_of(x) == "hero"]
    villains = [x for x in s.seats if side_of(x) == "villain"]
    return heroes, villains


def _advance_setup(s):
    """Move through the setup phases: choose twists, the Hero hides 2, the Villain plays 2."""
    heroes, villains = _setup_order(s)
    if s.phase == "choose_plot_twist":
        for seat in heroes + villains:
            if s.twists[seat][0] is None:
                s.turn = seat
                return
        s.phase = "setup_hide"
    for phase, group in (("setup_hide", heroes), ("setup_play", villains)):
        if s.phase == phase:
            for seat in group:
                if any(cell not in s.board for cell in s.setup_cells[seat]):
                    s.turn = seat
                    return
            s.phase = "setup_play" if phase == "setup_hide" else "play"
    if s.phase == "play":
        s.turn = s.seats[0]  # "The Villain player always takes the first turn"
        s.ap = AP_PER_TURN
        s.turn_number = 1


def _card_of(cat, cid, field):
    if not isinstance(cid, str) or cid not in cat.cards:
        raise ScenarioError(field, "unknown card %s" % shown(cid))
    return cid


def _seat_map(setup, key, what):
    value = setup.get(key) or {}
    if not isinstance(value, dict):
        raise ScenarioError("setup." + key, "must be an object {seat: %s}" % what)
    return value


def _load_position(s, setup):
    """A scenario position: the play phase starts from the board, hands and scores given.

    Every card is checked against the side that holds it (a Hero card is never the
    Villain's), plot twists against the four a seat chooses from, and `decks` (each seat's
    remaining cards, the next one drawn first) against the seat's side and every other place
    a card can be: no card is in two places.
    """
    known = ("board", "hands", "turn", "ap", "scores", "plot_twists", "decks")
    for key in sorted(setup):
        if key not in known:
            raise ScenarioError(canon.path("setup", key), "unknown field (known: %s)" %
                                ", ".join(known))
    cat = s.cat
    placed = {}
    board = setup.get("board") or []
    if not isinstance(board, list):
        raise ScenarioError("setup.board", "must be a list")
    for i, entry in enumerate(board):
        at = "setup.board[%d]" % i
        if not isinstance(entry, dict):
            raise ScenarioError(at, "must be an object")
        cid = _card_of(cat, entry.get("card"), at + ".card")
        if cid in placed:
            raise ScenarioError(at + ".card", "%s is already at %s" % (shown(cid), placed[cid]))
        if not catalog.is_cell(entry.get("cell")):
            raise ScenarioError(at + ".cell", "must be [column, row]")
        cell = (entry["cell"][0], entry["cell"][1])
        if cell in s.board:
            raise ScenarioError(at + ".cell", "cell %s already holds a card" % (
                shown(entry["cell"]),))
        if not _on_grid(s, cell):
            raise ScenarioError(at + ".cell", "cell %s is off the %dx%d table" % (
                shown(entry["cell"]), s.grid[0], s.grid[1]))
        side = cat.cards[cid][2]
        owner = entry.get("owner", side)
        seat = entry.get("seat")
        if owner not in SIDES:
            raise ScenarioError(at + ".owner", 'must be "hero" or "villain"')
        if owner != side:
            raise ScenarioError(at + ".owner", "%s is a %s card: only the %s side controls it" % (
                cat.cards[cid][1], side, side))
        if seat is None:
            seat = [x for x in s.seats if side_of(x) == owner][0]
        elif seat not in s.seats or side_of(seat) != owner:
            raise ScenarioError(at + ".seat", "must be a %s seat (%s)" % (owner, ", ".join(
                [x for x in s.seats if side_of(x) == owner])))
        facing = entry.get("facing", FACINGS[home_facing(seat)])
        if facing not in FACINGS:
            raise ScenarioError(at + ".facing", 'must be "N", "E", "S" or "W"')
        face_up = entry.get("face_up", True)
        if face_up not in (True, False):
            raise ScenarioError(at + ".face_up", "must be true or false")
        s.board[cell] = (cid, seat, FACINGS.index(facing), face_up)
        placed[cid] = "setup.board[%d]" % i
    hands = _seat_map(setup, "hands", "[card ids]")
    decks = _seat_map(setup, "decks", "[card ids, the next drawn first]")
    for key, lists in (("hands", hands), ("decks", decks)):
        for seat in sorted(lists):
            at = canon.path("setup." + key, seat)
            if seat not in s.seats:
                raise ScenarioError(at, "no such seat (seats: %s)" % ", ".join(s.seats))
            if key == "hands" and s.physical and catalog.is_int(lists[seat]) and \
                    0 <= lists[seat] <= 20:
                continue  # physical mode: a count of cards not read yet
            if not isinstance(lists[seat], list):
                raise ScenarioError(at, "must be a list of card ids" + (
                    " or, in physical mode, a number of cards from 0 to 20"
                    if s.physical and key == "hands" else ""))
            for j, cid in enumerate(lists[seat]):
                where = "%s[%d]" % (at, j)
                _card_of(cat, cid, where)
                if cid in placed:
                    raise ScenarioError(where, "%s is already at %s" % (shown(cid), placed[cid]))
                if cat.cards[cid][2] != side_of(seat):
                    raise ScenarioError(where, "%s is a %s card; %s plays the %s side" % (
                        cat.cards[cid][1], cat.cards[cid][2], seat, side_of(seat)))
                placed[cid] = at
    for seat in s.seats:
        if seat in decks:
            # The scenario fixes the seat's remaining cards and the order they are drawn in.
            rest = list(decks[seat])
            rest.reverse()  # a draw takes the last card of the list
            if s.physical:
                s.pool[seat] = sorted(rest)
                s.decks[seat] = [None] * len(rest)
            else:
                s.decks[seat] = rest
                s.pool[seat] = []
            s.hands[seat] = []
        else:
            team, ally = s.teams[seat]
            rest = [c for c in cat.deck_for(team, ally, side_of(seat)) if c not in placed]
            _start_deck(s, seat, rest)
        held = hands.get(seat, [])
        if catalog.is_int(held):
            held = [None] * min(held, len(s.decks[seat]))
            del s.decks[seat][:len(held)]
        s.hands[seat] = list(held)
    s.phase = "play"
    s.turn = setup.get("turn", s.seats[0])
    if not isinstance(s.turn, str) or s.turn not in s.seats:
        raise ScenarioError("setup.turn", "must be one of %s" % ", ".join(s.seats))
    s.ap = setup.get("ap", AP_PER_TURN)
    if not catalog.is_int(s.ap) or not 0 <= s.ap <= 20:
        raise ScenarioError("setup.ap", "must be a whole number from 0 to 20")
    scores = _seat_map(setup, "scores", "points")
    for side in sorted(scores):
        if side not in SIDES or not catalog.is_int(scores[side]) or not 0 <= scores[side] <= 999:
            raise ScenarioError(canon.path("setup.scores", side), "must be a hero or villain score "
                                "from 0 to 999")
        s.scores[side] = scores[side]
    twists = _seat_map(setup, "plot_twists", "plot twist id")
    for seat in sorted(twists):
        at = canon.path("setup.plot_twists", seat)
        if seat not in s.seats:
            raise ScenarioError(at, "no such seat (seats: %s)" % ", ".join(s.seats))
        # "Take the two Plot Twist cards that match your Team and the two that match your Ally."
        choices = cat.twist_choices(s.teams[seat][0], s.teams[seat][1], side_of(seat))
        if not isinstance(twists[seat], str) or twists[seat] not in choices:
            raise ScenarioError(at, "%s is not one of %s's plot twists (%s)" % (
                shown(twists[seat]), seat, ", ".join(choices)))
        s.twists[seat] = [twists[seat], False]
    s.turn_number = 1


# ---------------------------------------------------------------- geometry

def _on_grid(s, cell):
    g = s.grid
    return g is None or (0 <= cell[0] < g[0] and 0 <= cell[1] < g[1])


def neighbours(cell):
    c, r = cell
    return ((c, r + 1), (c + 1, r), (c, r - 1), (c - 1, r))


def _has_neighbour(board, cell, ignore=None):
    for n in neighbours(cell):
        if n in board and n != ignore:
            return True
    return False


def edge(s, entry, direction):
    """(swords, shields) of a placed card on the edge pointing to table direction 0-3."""
    return s.cat.cards[entry[0]][6][(direction - entry[2]) % 4]


def slide_target(s, cell, d):
    """Where a slide from `cell` in direction d stops, or raise IllegalAction."""
    stop = _slide_stop(s, cell, d)
    if isinstance(stop, tuple):
        return stop
    if stop == "only_card":
        raise IllegalAction(stop, "A card cannot slide when it is the only card in play.")
    if stop == "blocked":
        raise IllegalAction(stop, "The card cannot slide %s: the next space is taken." %
                            FACINGS[d])
    if stop == "away_from_cards":
        raise IllegalAction(stop, "A card can only slide towards the other cards; sliding %s "
                            "takes it away from all of them." % FACINGS[d])
    raise IllegalAction(stop, "Sliding %s would take the card off the table before it "
                        "reaches another card." % FACINGS[d])


def _slide_stop(s, cell, d):
    """Where a slide from `cell` in direction d stops (a cell), or why it cannot (a code):
    slide_target without the exception, which the legal actions' list would raise for
    most directions of most cards."""
    board = s.board
    dx, dy = STEPS[d]
    lo_x = lo_y = hi_x = hi_y = None
    for x in board:
        if x != cell:
            if lo_x is None:
                lo_x = hi_x = x[0]
                lo_y = hi_y = x[1]
            else:
                lo_x = x[0] if x[0] < lo_x else lo_x
                hi_x = x[0] if x[0] > hi_x else hi_x
                lo_y = x[1] if x[1] < lo_y else lo_y
                hi_y = x[1] if x[1] > hi_y else hi_y
    if lo_x is None:
        return "only_card"
    lo_x -= 1
    hi_x += 1
    lo_y -= 1
    hi_y += 1
    pos = cell
    while True:
        nxt = (pos[0] + dx, pos[1] + dy)
        if nxt in board:
            return "blocked"
        # Past the far side of the other cards, or outside their band: never adjacent.
        if dx and (not lo_y <= nxt[1] <= hi_y or (nxt[0] > hi_x if dx > 0 else nxt[0] < lo_x)) \
                or dy and (not lo_x <= nxt[0] <= hi_x
                           or (nxt[1] > hi_y if dy > 0 else nxt[1] < lo_y)):
            return "away_from_cards"
        if not _on_grid(s, nxt):
            return "off_table"
        pos = nxt
        if _has_neighbour(board, pos, ignore=cell):
            return pos


# ---------------------------------------------------------------- checks

def _fail(code, message):
    raise IllegalAction(code, message)


def _get_cell(action, key="cell"):
    cell = action.get(key)
    if not catalog.is_cell(cell):
        _fail("bad_action", 'The action needs "%s": [column, row].' % key)
    return (cell[0], cell[1])


def _card_name(s, cid):
    card = s.cat.cards.get(cid)
    return card[1] if card else repr(cid)


def _at(s, cell):
    entry = s.board.get(cell)
    if entry is None:
        _fail("no_card", "There is no card at %r." % (_cell(cell),))
    return entry


def _own(s, seat, cell, entry):
    if entry[1] != seat:
        _fail("not_your_card", "%s at %r is not yours to move." % (
            _card_name(s, entry[0]) if entry[3] else "That card", _cell(cell)))


def _need_ap(s, kind):
    if s.phase == "play" and s.ap < COST[kind]:
        _fail("not_enough_ap", "%s costs %d action point%s and you have %d left." % (
            ACTION_NAMES[kind], COST[kind], "" if COST[kind] == 1 else "s", s.ap))


def _hand_card(s, seat, cid):
    """Check that `cid` can leave `seat`'s hand; returns what to remove from the hand."""
    if not isinstance(cid, str) or cid not in s.cat.cards:
        _fail("unknown_card", "%s is not a card of this game." % (shown(cid),))
    hand = s.hands[seat]
    if cid in hand:
        return cid
    if s.physical and None in hand and cid in s.pool[seat]:
        return None
    for entry in s.board.values():
        if entry[0] == cid:
            _fail("card_in_play", "%s is already on the table." % _card_name(s, cid))
    owner = [x for x in s.seats if cid in s.hands[x] or cid in s.pool.get(x, ())]
    if owner and owner[0] != seat:
        _fail("not_your_card", "%s is not one of your cards." % _card_name(s, cid))
    if s.physical and None not in hand:
        _fail("hand_empty", "You have no cards in your hand to place.")
    _fail("not_in_hand", "%s is not in your hand." % _card_name(s, cid))


def _check_place(s, seat, action, kind):
    cid = action.get("card")
    removed = _hand_card(s, seat, cid)
    cell = _get_cell(action)
    if not _on_grid(s, cell):
        _fail("off_table", "%r is off the table." % (_cell(cell),))
    if cell in s.board:
        _fail("cell_taken", "There is already a card at %r." % (_cell(cell),))
    facing = action.get("facing", FACINGS[home_facing(seat)])
    if facing != FACINGS[home_facing(seat)]:
        _fail("wrong_facing", "A card goes down with its name toward you: facing %s, not %s." % (
            FACINGS[home_facing(seat)], shown(facing)))
    if s.phase == "play":
        _need_ap(s, kind)
        if not _has_neighbour(s.board, cell):
            _fail("not_adjacent", "A card must go next to a card in play (sharing an edge).")
    else:
        want = "setup_hide" if kind == "hide" else "setup_play"
        if s.phase != want:
            _fail("wrong_phase", "During setup the Hero hides two cards and the Villain "
                  "plays two face up; now %s." % PHASE_WORDS.get(s.phase, s.phase))
        if cell not in s.setup_cells[seat]:
            _fail("not_setup_cell", "During setup your cards go on %s." % " and ".join(
                str(_cell(c)) for c in s.setup_cells[seat]))
    return removed, cell


def _twist_owner(s, cid):
    for seat in s.seats:
        if s.twists[seat][0] == cid:
            return seat
    return None


def _requirement_holds(s, seat, req):
    kind = req["kind"]
    side = side_of(seat)
    if kind == "none":
        return True
    if kind == "opponent_more_cards_in_play":
        mine = len([e for e in s.board.values() if side_of(e[1]) == side])
        return len(s.board) - mine > mine
    if kind == "behind_on_points":
        return s.scores[side] < s.scores[other_side(side)]
    if kind == "hand_at_most":
        return len(s.hands[seat]) <= req["count"]
    cell = _find(s, req["card"])
    if cell is None:
        return False
    if kind == "own_card_in_play":
        return side_of(s.board[cell][1]) == side
    # enemy_adjacent_to: the named card is ours, and enough enemy cards touch it
    if side_of(s.board[cell][1]) != side:
        return False
    n = 0
    for nb in neighbours(cell):
        if nb in s.board and side_of(s.board[nb][1]) != side:
            n += 1
    return n >= req.get("count", 1)


def _find(s, cid):
    for cell in s.board:
        if s.board[cell][0] == cid:
            return cell
    return None


def _check_twist(s, action):
    cid = action.get("card")
    tw = s.cat.twists.get(cid) if isinstance(cid, str) else None
    if tw is None:
        _fail("unknown_plot_twist", "%s is not a plot twist." % (shown(cid),))
    seat = _twist_owner(s, cid)
    if seat is None:
        _fail("not_your_plot_twist", "Nobody chose %s as their plot twist." % tw["name"])
    if s.phase != "play":
        _fail("wrong_phase", "Plot twists are played during the game, not during setup.")
    if s.twists[seat][1]:
        _fail("plot_twist_used", "%s was already played: a plot twist is once per game." %
              tw["name"])
    if s.twist_used[side_of(seat)]:
        _fail("team_plot_twist_used", "Your team already played its one plot twist.")
    if not tw["hourglass"] and seat != s.turn:
        _fail("not_your_turn", "%s has no hourglass: play it during your own turn." % tw["name"])
    if not _requirement_holds(s, seat, tw["requires"]):
        _fail("requirement_not_met", "You cannot play %s now: %s" % (tw["name"], tw["text"]))
    eff = tw["effect"]
    if eff["kind"] == "spin_enemy":
        cell = _get_cell(action)
        entry = _at(s, cell)
        if side_of(entry[1]) == side_of(seat) or not entry[3]:
            _fail("not_enemy_face_up", "%s spins a face-up enemy card." % tw["name"])
        if action.get("dir") not in ("cw", "ccw"):
            _fail("bad_action", 'Say "dir": "cw" or "ccw".')
    elif eff["kind"] == "return_to_hand":
        cell = _get_cell(action)
        _own(s, seat, cell, _at(s, cell))
        if "dir" in action:
            _fail("bad_action", "%s takes a cell, not a direction." % tw["name"])
    elif "cell" in action or "dir" in action:
        _fail("bad_action", "%s takes no cell or direction." % tw["name"])
    return seat, tw


def _check(s, action):
    """Raise IllegalAction if `action` is not allowed now; returns the acting seat."""
    if not isinstance(action, dict):
        _fail("bad_action", "An action is an object with a \"type\".")
    kind = action.get("type")
    if s.status != "ongoing":
        _fail("game_over", "The game is over.")
    if kind == "plot_twist":
        return _check_twist(s, action)[0]
    seat = s.turn
    if kind == "choose_plot_twist":
        if s.phase != "choose_plot_twist":
            _fail("wrong_phase", "Plot twists are chosen before the game starts.")
        choices = s.cat.twist_choices(s.teams[seat][0], s.teams[seat][1], side_of(seat))
        if action.get("card") not in choices:
            _fail("not_a_choice", "Choose one of your four plot twists: %s." % ", ".join(choices))
        return seat
    if kind in ("play", "hide"):
        _check_place(s, seat, action, kind)
        return seat
    if s.phase != "play":
        _fail("wrong_phase", "Not yet: %s." % PHASE_WORDS.get(s.phase, s.phase))
    if kind == "end_turn":
        return seat
    if kind not in COST:
        _fail("unknown_action", "%s is not an action of Storybook Battles." % (shown(kind),))
    _need_ap(s, kind)
    if kind == "draw":
        if len(s.hands[seat]) >= HAND_LIMIT:
            _fail("hand_full", "You cannot draw with %d or more cards in hand." % HAND_LIMIT)
        if not s.decks[seat]:
            _fail("deck_empty", "Your deck is empty.")
        return seat
    cell = _get_cell(action)
    entry = _at(s, cell)
    if kind == "reveal":
        if entry[3]:
            _fail("already_face_up", "%s is already face up." % _card_name(s, entry[0]))
        return seat
    _own(s, seat, cell, entry)
    if kind == "spin":
        if not entry[3]:
            _fail("face_down", "You cannot spin a face-down card.")
        if action.get("dir") not in ("cw", "ccw"):
            _fail("bad_action", 'Spin needs "dir": "cw" or "ccw".')
        return seat
    d = _PRINT_DIRS.get(action.get("dir")) if isinstance(action.get("dir"), str) else None
    if d is None:
        _fail("bad_action", 'Slide needs "dir": "N", "E", "S" or "W".')
    slide_target(s, cell, d)
    return seat


def validate(state, action):
    """The problem with `action` now (an IllegalAction), or None. Never raises."""
    try:
        _check(state, action)
    except IllegalAction as e:
        return e
    return None


def actor(state, action):
    """The seat that takes `action` (an hourglass plot twist may be out of turn)."""
    if isinstance(action, dict) and action.get("type") == "plot_twist":
        return _twist_owner(state, action.get("card"))
    return state.turn


# ---------------------------------------------------------------- apply

def apply(state, action):
    """Apply a legal action and return its events; IllegalAction leaves the state unchanged."""
    seat = _check(state, action)
    s = state
    kind = action["type"]
    if kind == "choose_plot_twist":
        s.twists[seat] = [action["card"], False]
        _advance_setup(s)
        return [{"type": "plot_twist_chosen", "seat": seat}]
    if kind == "plot_twist":
        return _apply_twist(s, seat, action)
    if kind == "end_turn":
        return _end_turn(s)
    if kind in ("play", "hide"):
        removed, cell = _check_place(s, seat, action, kind)
    if s.phase == "play":
        s.ap -= COST[kind]
    if kind == "draw":
        card = _draw_one(s, seat)
        return [{"type": "drew", "seat": seat, "card": card}]
    if kind in ("play", "hide"):
        cid = action["card"]
        s.hands[seat].remove(removed)
        if removed is None:
            s.pool[seat].remove(cid)
        s.board[cell] = (cid, seat, home_facing(seat), kind == "play")
        ev = {"type": "played" if kind == "play" else "hidden", "seat": seat, "cell": _cell(cell),
              "facing": FACINGS[home_facing(seat)]}
        if kind == "play":
            ev["card"] = cid
        elif s.physical:
            ev["identity_read"] = True
        if s.phase != "play":
            _advance_setup(s)
        return [ev]
    cell = (action["cell"][0], action["cell"][1])
    cid, owner, facing, face_up = s.board[cell]
    if kind == "reveal":
        s.board[cell] = (cid, owner, home_facing(owner), True)
        return [{"type": "revealed", "seat": seat, "cell": _cell(cell), "card": cid,
                 "facing": FACINGS[home_facing(owner)]}]
    if kind == "spin":
        nf = (facing + (1 if action["dir"] == "cw" else 3)) % 4
        s.board[cell] = (cid, owner, nf, face_up)
        return [{"type": "spun", "seat": seat, "cell": _cell(cell), "card": cid,
                 "dir": action["dir"], "facing": FACINGS[nf]}]
    d = _PRINT_DIRS[action["dir"]]
    dest = slide_target(s, cell, d)
    del s.board[cell]
    s.board[dest] = (cid, owner, facing, face_up)
    ev = {"type": "slid", "seat": seat, "from": _cell(cell), "to": _cell(dest),
          "dir": action["dir"]}
    if face_up:
        ev["card"] = cid
    return [ev]


def _apply_twist(s, seat, action):
    tw = s.cat.twists[action["card"]]
    side = side_of(seat)
    s.twists[seat][1] = True
    s.twist_used[side] = True
    events = [{"type": "plot_twist_played", "seat": seat, "card": tw["id"], "name": tw["name"]}]
    eff = tw["effect"]
    kind = eff["kind"]
    if kind == "extra_ap":
        s.ap += eff["amount"]
        events.append({"type": "ap_gained", "seat": seat, "amount": eff["amount"]})
    elif kind == "draw":
        for _ in range(eff["amount"]):
            if s.decks[seat]:
                events.append({"type": "drew", "seat": seat, "card": _draw_one(s, seat)})
    elif kind == "spin_enemy":
        cell = (action["cell"][0], action["cell"][1])
        cid, owner, facing, face_up = s.board[cell]
        nf = (facing + (1 if action["dir"] == "cw" else 3)) % 4
        s.board[cell] = (cid, owner, nf, face_up)
        events.append({"type": "spun", "seat": seat, "cell": _cell(cell), "card": cid,
                       "dir": action["dir"], "facing": FACINGS[nf]})
    elif kind == "return_to_hand":
        cell = (action["cell"][0], action["cell"][1])
        cid = s.board.pop(cell)[0]
        s.hands[seat].append(cid)
        events.append({"type": "returned_to_hand", "seat": seat, "cell": _cell(cell)})
    else:
        effect = {"kind": kind, "side": side, "until": "end_of_next_battle", "twist": tw["id"]}
        if "card" in eff:
            effect["card"] = eff["card"]
        s.lasting.append(effect)
        events.append({"type": "lasting_effect", "effect": effect})
    return events


def _battle(s):
    """All battles at once: returns (events, captured cells -> capturing side)."""
    board = s.board
    up = {}      # cell -> its side, for the cards face up (the only ones that fight)
    for cell, a in board.items():
        if a[3]:
            up[cell] = side_of(a[1])
    bested = {}  # cell -> list of (by cell, swords, shields, overwhelm)
    for cell in sorted(up):
        a = board[cell]
        a_side = up[cell]
        for d in range(4):
            dx, dy = STEPS[d]
            other = (cell[0] + dx, cell[1] + dy)
            b_side = up.get(other)
            if b_side is None or b_side == a_side:
                continue
            b = board[other]
            swords = edge(s, a, d)[0]
            shields = edge(s, b, (d + 2) % 4)[1]
            if swords > 0 and swords >= shields:
                bested.setdefault(other, []).append((cell, swords, shields,
                                                     swords >= 2 * shields))
    shield_wall = [e["side"] for e in s.lasting if e["kind"] == "shield_wall"]
    heads = [e["card"] for e in s.lasting if e["kind"] == "off_with_their_heads"]
    events = []
    captured = {}
    for cell in sorted(bested):
        target = board[cell]
        by = bested[cell]
        t_side = side_of(target[1])
        why = None
        for by_cell, swords, shields, overwhelm in by:
            by_card = board[by_cell][0]
            ev = {"type": "bested", "by": by_card, "by_cell": _cell(by_cell), "card": target[0],
                  "cell": _cell(cell), "swords": swords, "shields": shields}
            events.append(ev)
            if overwhelm and t_side not in shield_wall:
                events.append({"type": "overwhelmed", "by": by_card, "by_cell": _cell(by_cell),
                               "card": target[0], "cell": _cell(cell), "swords": swords,
                               "shields": shields})
                why = why or "overwhelmed"
            if by_card in heads:
                why = why or "plot_twist"
        if len(by) >= 2:
            events.append({"type": "team_capture", "by": [board[b[0]][0] for b in by],
                           "by_cells": [_cell(b[0]) for b in by], "card": target[0],
                           "cell": _cell(cell)})
            why = why or "team_capture"
        if why:
            captured[cell] = (other_side(t_side), why)
    return events, captured


def _end_turn(s):
    """Battle, score, check the winner, and pass the turn."""
    events, captured = _battle(s)
    for cell in sorted(captured):
        captor, why = captured[cell]
        cid, owner = s.board[cell][0], s.board[cell][1]
        points = s.cat.cards[cid][4]
        s.scores[captor] += points
        s.captured[captor].append(cid)
        events.append({"type": "captured", "card": cid, "cell": _cell(cell), "owner": owner,
                       "by_side": captor, "points": points, "how": why})
    for cell in captured:
        del s.board[cell]
    if s.lasting:
        for effect in s.lasting:
            events.append({"type": "lasting_effect_ended", "effect": effect})
        s.lasting = []
    hero, villain = s.scores["hero"], s.scores["villain"]
    ended = s.turn
    if s.overtime or max(hero, villain) >= s.target:
        if hero != villain:
            s.status = "finished"
            s.winner = "hero" if hero > villain else "villain"
        elif not s.overtime:
            s.overtime = True
            events.append({"type": "overtime", "scores": dict(s.scores)})
    if s.status == "ongoing" and s.max_turns is not None and s.turn_number >= s.max_turns:
        s.status = "finished"
        s.winner = None if hero == villain else ("hero" if hero > villain else "villain")
        events.append({"type": "turn_limit", "turns": s.turn_number})
    events.append({"type": "turn_ended", "seat": ended, "scores": dict(s.scores)})
    if s.status == "finished":
        events.append({"type": "game_over", "winner": s.winner, "scores": dict(s.scores)})
        s.ap = 0
        return events
    s.turn = s.seats[(s.seats.index(ended) + 1) % len(s.seats)]
    s.ap = AP_PER_TURN
    s.turn_number += 1
    events.append({"type": "turn_started", "seat": s.turn, "turn": s.turn_number})
    return events


def undo_blocker(action, events):
    """Why this action cannot be taken back (hidden information shown, chance taken), or None."""
    for ev in events:
        t = ev["type"]
        if t == "drew":
            return "a card was drawn"
        if t in ("revealed", "played"):
            return "a card was shown face up"
        if t == "plot_twist_played":
            return "a hidden plot twist was shown"
        if ev.get("identity_read"):
            return "the table read the hidden card's identity"
    return None


# ---------------------------------------------------------------- legal actions

def _placement_cells(s):
    cells = {}
    for cell in s.board:
        for n in neighbours(cell):
            if n not in s.board and _on_grid(s, n):
                cells[n] = True
    return sorted(cells)


def _hand_choices(s, seat):
    hand = s.hands[seat]
    ids = {c: True for c in hand if c is not None}
    if s.physical and None in hand:
        for c in s.pool[seat]:
            ids[c] = True
    return sorted(ids)


def legal_actions(state):
    """Every legal action now, in a fixed order (cells sorted, cards sorted)."""
    s = state
    if s.status != "ongoing":
        return []
    seat = s.turn
    out = []
    if s.phase == "choose_plot_twist":
        for t in s.cat.twist_choices(s.teams[seat][0], s.teams[seat][1], side_of(seat)):
            out.append({"type": "choose_plot_twist", "card": t})
        return out
    if s.phase in ("setup_hide", "setup_play"):
        kind = "hide" if s.phase == "setup_hide" else "play"
        for cell in s.setup_cells[seat]:
            if cell not in s.board:
                for cid in _hand_choices(s, seat):
                    out.append({"type": kind, "card": cid, "cell": _cell(cell),
                                "facing": FACINGS[home_facing(seat)]})
        return out
    ap = s.ap
    if ap >= 1 and len(s.hands[seat]) < HAND_LIMIT and s.decks[seat]:
        out.append({"type": "draw"})
    cells = sorted(s.board)
    for cell in cells:
        entry = s.board[cell]
        if ap >= 1 and not entry[3]:
            out.append({"type": "reveal", "cell": _cell(cell)})
        if entry[1] != seat:
            continue
        if ap >= 2 and entry[3]:
            out.append({"type": "spin", "cell": _cell(cell), "dir": "cw"})
            out.append({"type": "spin", "cell": _cell(cell), "dir": "ccw"})
        if ap >= 2:
            for d in range(4):
                if isinstance(_slide_stop(s, cell, d), tuple):
                    out.append({"type": "slide", "cell": _cell(cell), "dir": FACINGS[d]})
    if ap >= 3 and s.hands[seat]:
        facing = FACINGS[home_facing(seat)]
        places = _placement_cells(s)
        for cid in _hand_choices(s, seat):
            for kind in ("play", "hide"):
                for cell in places:
                    out.append({"type": kind, "card": cid, "cell": _cell(cell), "facing": facing})
    for owner in s.seats:
        tid, used = s.twists[owner]
        if tid is None or used or s.twist_used[side_of(owner)]:
            continue
        tw = s.cat.twists[tid]
        if (not tw["hourglass"] and owner != seat) or not _requirement_holds(
                s, owner, tw["requires"]):
            continue
        kind = tw["effect"]["kind"]
        if kind == "spin_enemy":
            for cell in cells:
                e = s.board[cell]
                if e[3] and side_of(e[1]) != side_of(owner):
                    for d in ("cw", "ccw"):
                        out.append({"type": "plot_twist", "card": tid, "cell": _cell(cell),
                                    "dir": d})
        elif kind == "return_to_hand":
            for cell in cells:
                if s.board[cell][1] == owner:
                    out.append({"type": "plot_twist", "card": tid, "cell": _cell(cell)})
        else:
            out.append({"type": "plot_twist", "card": tid})
    out.append({"type": "end_turn"})
    return out


def evaluate(state, seat):
    """How good the position is for `seat` (bots): plot points now, or after the battle that
    ending this turn would start, plus a little for cards in play and in hand."""
    s = state
    side = side_of(seat)
    if s.status == "finished":
        return 100000 if s.winner == side else (-100000 if s.winner else 0)
    trial = s
    if s.phase == "play" and s.turn == seat:
        trial = s.copy()
        _end_turn(trial)
        if trial.status == "finished":
            return 100000 if trial.winner == side else (-100000 if trial.winner else 0)
    points = trial.scores[side] - trial.scores[other_side(side)]
    mine = 0
    for entry in trial.board.values():
        mine += 1 if side_of(entry[1]) == side else -1
    return points * 100 + mine * 3 + len(trial.hands[seat])


def action_space(state):
    """A superset of the legal actions (for the conformance kit's completeness check)."""
    s = state
    seat = s.turn
    if s.grid is not None:
        cells = [(c, r) for c in range(-1, s.grid[0] + 1) for r in range(-1, s.grid[1] + 1)]
    else:
        xs = [c[0] for c in s.board] or [0]
        ys = [c[1] for c in s.board] or [0]
        cells = [(c, r) for c in range(min(xs) - 2, max(xs) + 3)
                 for r in range(min(ys) - 2, max(ys) + 3)]
    out = [{"type": "draw"}, {"type": "end_turn"}]
    for t in s.cat.twist_choices(s.teams[seat][0], s.teams[seat][1], side_of(seat)):
        out.append({"type": "choose_plot_twist", "card": t})
    cards = _hand_choices(s, seat)
    for x in s.seats:
        if x != seat and s.hands[x] and s.hands[x][0] is not None:
            cards.append(s.hands[x][0])
    if s.board:
        cards.append(s.board[sorted(s.board)[0]][0])
    facing = FACINGS[home_facing(seat)]
    for cell in cells:
        c = _cell(cell)
        out.append({"type": "reveal", "cell": c})
        for d in ("cw", "ccw"):
            out.append({"type": "spin", "cell": c, "dir": d})
        for d in FACINGS:
            out.append({"type": "slide", "cell": c, "dir": d})
        for cid in cards:
            for kind in ("play", "hide"):
                out.append({"type": kind, "card": cid, "cell": c, "facing": facing})
        if cards:
            out.append({"type": "play", "card": cards[0], "cell": c,
                        "facing": FACINGS[(home_facing(seat) + 1) % 4]})
    for x in s.seats:
        tid = s.twists[x][0]
        if tid is None:
            continue
        out.append({"type": "plot_twist", "card": tid})
        for cell in sorted(s.board):
            out.append({"type": "plot_twist", "card": tid, "cell": _cell(cell)})
            out.append({"type": "plot_twist", "card": tid, "cell": _cell(cell), "dir": "cw"})
    return out


# ---------------------------------------------------------------- views, save, load

def _board_form(s, cell, entry, show_card):
    out = {"cell": _cell(cell), "owner": side_of(entry[1]), "facing": FACINGS[entry[2]],
           "face_up": entry[3], "card": entry[0] if show_card else None}
    if len(s.seats) == 4:
        out["seat"] = entry[1]
    return out


def view(state, seat=None):
    """What `seat` may know (None: a spectator). Hidden identities are never included."""
    s = state
    if seat is not None and seat not in s.seats:
        raise ValueError("no seat %r (seats: %s)" % (seat, ", ".join(s.seats)))
    board = [_board_form(s, cell, s.board[cell], s.board[cell][3] or s.board[cell][1] == seat)
             for cell in sorted(s.board)]
    twists = {}
    for x in s.seats:
        tid, used = s.twists[x]
        twists[x] = {"chosen": tid is not None, "used": used,
                     "card": tid if (x == seat or used) else None}
    out = {"game": NAME, "seat": seat, "phase": s.phase, "turn": s.turn, "ap": s.ap,
           "turn_number": s.turn_number, "status": s.status, "winner": s.winner,
           "overtime": s.overtime, "scores": dict(s.scores), "target": s.target,
           "board": board, "captured": {k: list(v) for k, v in s.captured.items()},
           "hand_sizes": {x: len(s.hands[x]) for x in s.seats},
           "deck_sizes": {x: len(s.decks[x]) for x in s.seats},
           "plot_twists": twists, "lasting": list(s.lasting),
           "teams": {x: list(s.teams[x]) for x in s.seats}}
    if seat is not None:
        out["hand"] = list(s.hands[seat])
        if s.phase == "choose_plot_twist" and s.turn == seat:
            out["plot_twist_choices"] = s.cat.twist_choices(
                s.teams[seat][0], s.teams[seat][1], side_of(seat))
    return out


def secrets(state, seat=None):
    """Card and plot-twist ids that must not appear anywhere in view(state, seat)."""
    s = state
    out = {}
    for x in s.seats:
        if x != seat:
            for c in s.hands[x]:
                if c is not None:
                    out[c] = True
            if s.twists[x][0] is not None and not s.twists[x][1]:
                out[s.twists[x][0]] = True
        for c in s.decks[x]:
            if c is not None:
                out[c] = True
        for c in s.pool.get(x, ()):
            out[c] = True
    for entry in s.board.values():
        if not entry[3] and entry[1] != seat:
            out[entry[0]] = True
    if seat is not None:
        # What seat holds itself is not a secret from it.
        for c in s.hands[seat]:
            out.pop(c, None)
        if s.twists[seat][0] is not None:
            out.pop(s.twists[seat][0], None)
    return sorted(out)


def determinize(state, seat, rng):
    """The state as `seat` may imagine it, for a search bot: everything the seat cannot know
    dealt again at random from `rng` (a prng state), consistent with view(state, seat).

    Changes and returns the state it is given (pass a copy: copy() copies every list this
    changes). The result depends only on view(state, seat) and `rng`: the hidden cards of
    each place are gathered, sorted, shuffled with `rng` and dealt back in a fixed order.

    Re-dealt, for every other seat (every seat for a spectator, seat None; a teammate too,
    who does not see the seat's cards either), from that seat's own cards that `seat` cannot
    see (its team's and ally's cards of its side that are neither face up in play nor
    captured), so a card never moves to another seat or side:
    - the identities of its face-down cards in play (cells, facings and owners stay);
    - its hand: digital mode, the cards in it (its size stays); physical mode, the hand
      becomes as many unknown cards (None) as it holds, every card in it going back to the
      seat's unseen cards (a card a plot twist returned to the hand is not shown in the
      view, so what it was is not kept);
    - its deck: digital mode, which cards and their order (its size stays); physical mode,
      its unseen cards (the pool a placed card's identity is read from), sorted;
    - its plot twist, when chosen and not yet played: one of its four choices, at random
      (not chosen yet stays None; a played one is public and stays).
    The seat's own deck order (digital mode) is shuffled again: its contents, the seat's
    cards it cannot see elsewhere, stay. The engine's PRNG state and the seed (which a
    digital game's deck order could be worked out from) are replaced from `rng`.
    Kept: the board's cells, owners, facings and face-up cards, the seat's own hand, own
    face-down cards, own unseen cards (physical), own plot twist, every size (hands, decks),
    scores, captures, lasting effects, the turn, AP and phase: all of the view.
    """
    s = state
    rng = rng or 1
    board = s.board
    down = {}  # seat -> its face-down cells that `seat` cannot see, in sorted order
    for cell in sorted(board):
        entry = board[cell]
        if not entry[3] and entry[1] != seat:
            if entry[1] in down:
                down[entry[1]].append(cell)
            else:
                down[entry[1]] = [cell]
    for x in s.seats:
        if x == seat:
            if not s.physical and len(s.decks[x]) > 1:
                deck = sorted(s.decks[x])
                rng = prng.shuffle(rng, deck)
                s.decks[x] = deck
            continue
        cells = down.get(x, ())
        hand = s.hands[x]
        if s.physical:
            hidden = [c for c in hand if c is not None] + s.pool[x]
        else:
            hidden = hand + s.decks[x]
        for cell in cells:
            hidden.append(board[cell][0])
        hidden.sort()
        rng = prng.shuffle(rng, hidden)
        i = 0
        for cell in cells:
            entry = board[cell]
            board[cell] = (hidden[i], entry[1], entry[2], False)
            i += 1
        rest = hidden[i:]
        if s.physical:
            s.hands[x] = [None] * len(hand)
            rest.sort()
            s.pool[x] = rest
        else:
            s.hands[x] = rest[:len(hand)]
            s.decks[x] = rest[len(hand):]
        tid, used = s.twists[x]
        if tid is not None and not used:
            team, ally = s.teams[x]
            choices = s.cat.twist_choices(team, ally, side_of(x))
            rng, k = prng.below(rng, len(choices))
            s.twists[x] = [choices[k], False]
    rng, value = prng.below(rng, 0x40000000)
    s.seed = value
    s.rng = prng.seed_state(value)
    return s


def to_dict(state):
    """The whole state as JSON data (sorted, canonical-ready)."""
    s = state
    return {"schema": canon.SCHEMA_VERSION, "game": NAME, "options": s.options, "seed": s.seed,
            "cards": s.extra_cards, "phase": s.phase, "turn": s.turn, "ap": s.ap,
            "turn_number": s.turn_number, "status": s.status, "winner": s.winner,
            "overtime": s.overtime, "scores": dict(s.scores),
            "board": [_board_form(s, cell, s.board[cell], True) for cell in sorted(s.board)],
            "seats": {x: {"hand": list(s.hands[x]), "deck": list(s.decks[x]),
                          "pool": list(s.pool.get(x, [])), "team": s.teams[x][0],
                          "ally": s.teams[x][1], "plot_twist": s.twists[x][0],
                          "plot_twist_used": s.twists[x][1]} for x in s.seats},
            "captured": {k: list(v) for k, v in s.captured.items()},
            "team_plot_twist_used": dict(s.twist_used), "lasting": list(s.lasting),
            "rng": s.rng}


def from_dict(data):
    """Rebuild a state from to_dict(); ScenarioError if it is not one."""
    if not isinstance(data, dict) or data.get("game") != NAME:
        raise ScenarioError("state", "is not a saved Storybook Battles state")
    if data.get("schema") != canon.SCHEMA_VERSION:
        raise ScenarioError("state.schema", "unsupported version %s" % (shown(data.get("schema")),))
    try:
        s = new_game(data["options"], data["seed"], {"board": []}, data["cards"])
        s.board = {}
        for entry in data["board"]:
            cell = (entry["cell"][0], entry["cell"][1])
            seat = entry.get("seat") or [x for x in s.seats if side_of(x) == entry["owner"]][0]
            s.board[cell] = (entry["card"], seat, FACINGS.index(entry["facing"]),
                             entry["face_up"])
        for x in s.seats:
            row = data["seats"][x]
            s.hands[x] = list(row["hand"])
            s.decks[x] = list(row["deck"])
            s.pool[x] = list(row["pool"])
            s.teams[x] = (row["team"], row["ally"])
            s.twists[x] = [row["plot_twist"], row["plot_twist_used"]]
        for key in ("phase", "turn", "ap", "turn_number", "status", "winner", "overtime", "rng"):
            setattr(s, key, data[key])
        s.scores = dict(data["scores"])
        s.captured = {k: list(v) for k, v in data["captured"].items()}
        s.twist_used = dict(data["team_plot_twist_used"])
        s.lasting = list(data["lasting"])
    except (KeyError, TypeError, IndexError) as e:
        raise ScenarioError("state", "is incomplete or damaged (%r)" % (e,))
    return s


def result(state):
    """The scenario runner's output for this game (without "events")."""
    s = state
    return {"game": NAME, "status": s.status, "winner": s.winner, "scores": dict(s.scores),
            "turn": s.turn, "ap": s.ap, "phase": s.phase, "turn_number": s.turn_number,
            "board": [_board_form(s, cell, s.board[cell], True) for cell in sorted(s.board)],
            "hands": {x: list(s.hands[x]) for x in s.seats}}


def actors(state):
    """The seats that may act now: the seat whose turn it is ([] once the game is over)."""
    return [state.turn] if state.status == "ongoing" else []
