"""Battle Royale (the dice map): the rules engine for the rulebook *Battle Royale* (its
"Game Instructions" for the diamond map of cards and dice). The book's words quoted below
are the sentences each rule implements; this docstring states the rules as implemented.

The map. Cells are [x, y] around the centre [0, 0]; the map is the diamond
of width and height 7: the 25 cells with |x| + |y| <= 3, each holding one
face-down card. The outer ring (|x| + |y| = 3, 12 cells) is where players
start. A player moves to any of the 8 neighbouring cells that are on the
map, through other players ("including diagonal movement").

Players are seats named by colour ("red", "blue", "green", ... for the
"players" option) or by the ids a setup gives. A game runs through phases:
"order" (everybody rolls a die: `roll_order`), "place" (in turn order each
player puts their pawn on a free outer-ring cell: `place`), "play" and
"finished". A setup that gives the players starts in "play".

Actions (JSON):
  {"type": "roll_order", "dice"?: {player: die}}          (only those who must roll)
  {"type": "place", "cell": [x, y]}
  {"type": "move", "to": [x, y]}
  {"type": "attack_card", "dice"?: [a, b, c], "fall_to"?: [x, y], "set_aside"?: ID}
  {"type": "attack_player", "target": ID, "dice"?: [[mine, theirs], ...],
       "fall_to"?: [x, y], "take"?: ID, "set_aside"?: ID}
  {"type": "resurrect"}
  {"type": "swap", "active": ID, "reserve": ID}
  {"type": "end_turn"}
Dice are explicit chance: an action that rolls takes the dice the table read
("dice"), or the engine rolls them with its PRNG when "dice" is left out. A
die is an int 1..6; a duellist who rolls two dice and keeps the lower gives
a list of two ints in its place. A duel's "dice" must hold every round, up to
the round that decides it, and no more. "fall_to" is where the player who
dies moves (in a duel, the loser); without it the engine picks the first
neighbouring cell in cell order (lowest x, then lowest y). "take" is the
card the duel's winner took from the loser (the physical table says which;
otherwise the engine draws it at random). "set_aside" is the active card
the acting player sets aside when a curse they win must go active while
they already have 3 active cards (default: their lowest-valued active card
that is not a curse); it is ignored when no curse comes in.

Rules as implemented, with the decisions where the book is unclear:
- Turn order: "all players roll a die, and the player with the highest
  number goes first. If any of the players roll the same number, those
  players roll the dice again". Every group of tied players re-rolls among
  themselves only, until the rolls rank everybody; turns then go in that
  ranking, round and round. Start cells: "Each player must position
  themselves on the outer edge of the grid": in turn order, each player
  picks a free outer-ring cell (two pawns never start on one cell).
- Actions per turn: "Every turn you have actions and movements" gives no
  number. Option "actions_per_turn", default 2. Unused actions are lost.
  Movements come from active cards (effect "movement"); a move spends a
  movement while one is left, otherwise an action.
- Swap: "At the beginning of their turn, before any action, a player can
  exchange one card from the deck with one active card": one swap per turn,
  only before the first move or action of the turn (a dead player may swap
  too). A curse cannot be swapped out of the active cards (otherwise "which
  you have to equip immediately" would last one turn).
- Active cards: at most 3; "A player cannot choose to have 2 active cards if
  they possess more": a player holding n cards always has min(n, 3) active.
  A card won goes active while fewer than 3 are active, else it is set
  aside; a curse goes active at once and pushes a non-curse active card to
  the set-aside cards ("set_aside"); if all 3 active cards are curses the
  new curse is set aside. A player who loses an active card in a duel
  activates their oldest set-aside card.
- Attacking a card: 3 dice plus every active "dice_bonus" (negative for
  curses) against the card's value; "Rolling 3 dice and getting the same
  number on all three, always results in winning a card". It costs an
  action and needs a living player on a cell that holds a card. A failed
  attack kills the player, who falls to a neighbouring cell.
- Attacking a player: "When two living players find themselves on the same
  square": both alive, same cell, one action. Each round both roll one die;
  the higher wins the round, a tie counts for no one. "until one player wins
  three rounds (or more if the player has a shield)": to beat a player you
  must win 3 + (that player's active "shield" total) rounds, at least 1 (a
  curse may have a negative shield). The loser dies and falls to a
  neighbouring cell. The winner takes one random active card of the loser,
  or the loser's active Black Death card ("a certain card if for instance
  the loser had Black Death equipped"). "players can only initiate attacks
  if they have at least one card. If a player has no cards, they can attack
  other players by always rolling two dice and taking the value of the lower
  die": the second sentence wins; any duellist holding no card (attacker or
  defender) rolls two dice and keeps the lower. Dice bonuses count for card
  attacks only ("+1 to the dice sum"), not for duel dice.
- Death and resurrection: a dead player can do nothing but swap (before any
  action), resurrect, or end the turn; resurrecting costs an action, in the
  turn of the death if an action is left ("If a player has an additional
  action in the turn in which they died, they can resurrect themselves
  during that turn"), else in a later turn. Option "resurrection":
  "action_only" (default: the non-alcoholic mode for demo installations,
  the action is the whole price) or "sips" (the book's price list: the
  view carries the table of sips and every "resurrected" event repeats it;
  the engine does not check anyone's glass).
- Hidden information. The map cards are face down: their identity and value
  are in no view, for anyone, until they are won (the attack's dice are
  compared by the engine, which knows the map: on the physical table the
  cell readers see the tags through the table top and the host keeps them
  secret; a failed attack only says the total was too low). The set-aside
  cards of a player are in no other player's view; active cards are public.
  A won card is shown when it is won (the "card_won" event names it: the
  table sees the roll beat it); where it goes afterwards is hidden. At the
  end of the game everything is shown.
- Values: the card's printed value (catalog) or the value a setup gives. "When
  only cards with values 13 and 14 remain on the map, the values for all
  cards on the map are reduced to 12": the reduction is public (a
  "values_reduced" event, and the views show 12 on every face-down card);
  those cards also score 12.
- End (a): "All cards on the map are won, and their values are summed up":
  scores are the sums of the values of the cards each player holds (cards
  taken in duels count for the taker). The highest score wins; a tie goes to
  the player holding more cards; still tied, there is no winner (a draw).
- End (b): "If there is only one card on the map, and the player with the
  most cards has 4 more cards than the player with the second-highest
  number of cards ... In that case, the game continues until the last card
  is won." The last sentence contradicts the first; we read it as "otherwise,
  the game continues until the last card is won": with option "end_b" true
  (default) the game ends as soon as one card is left and the leader in
  cards holds at least 4 more than anyone else; the leader wins. With
  "end_b" false only (a) ends the game.
- The last card: "all players must move towards it by the fastest route and
  attempt to attack it every turn, including attacking other players on that
  card". While one card is left, a move must bring the player one step
  closer to it, duels happen only on it, and a turn cannot end while the
  player can still resurrect, step toward it or attack on it. "it is
  sufficient to defeat just one player to attack the card": with other
  living players on the last card, a player must first win a duel there in
  this turn, then may attack the card with an action left. Only a duel
  fought on the last card while it is the last opens it (a duel won earlier
  in the turn, while more cards lay on the map, does not), and it opens it
  only while the winner stays there: a failed attack kills the player, who
  falls off the card and, back on it, must defeat someone again.
Undo: an action that rolled dice or showed a card cannot be undone.

Options: {"players": 2..8 (default 3, or the setup's count), "actions_per_turn":
1..6 (2), "resurrection": "action_only" (default) | "sips", "end_b": true |
false (true)}. Setup (every field optional): {"map": [{"cell": [x, y],
"card": ID, "value": 2..14 (default: the catalog's)}] (without it the PRNG
deals 25 cards of the deck), "players": [{"id", "cell", "alive": true,
"active": [IDs], "reserve": [IDs]}] in turn order (without them the game
starts with the order roll), "turn": ID, "actions_left": n, "reduced":
false}. The scenario runner's output ("result") is the referee's record in
the same form: "map" with each card and the value it counts now, "players"
with their active and set-aside cards, "scores", "turn", "status",
"winner", "end_reason", "phase", "order", "actions_left", "reduced"; what a
seat may see is `view(state, seat)`.

The catalog (shared_rules/data/royale_cards.json) is a standard 52-card deck:
ids are the suit letter and the rank ("S2", "H10", "DJ", "CA"); 2-10 are
worth their number, J 11, Q 12, K 13, A 14. The book names the effects
("+1 to the dice sum", an additional movement, shields, curses, Black
Death) but not which card has which; our sample deck, editable as data:
- the four 2s are curses: any roll wins a 2 (3 dice sum to at least 3), so
  the easiest cards are the trap. 2 of spades and 2 of clubs: -1 to the dice
  sum; 2 of hearts and 2 of diamonds: shield -1 (your opponents need one
  round fewer to beat you).
- the four 7s: +1 movement ("seven-league boots"), easy to win (92%).
- the four Jacks: +1 to the dice sum.
- the four Queens: shield +1.
- King of spades and King of clubs: +1 to the dice sum; King of hearts and
  King of diamonds: shield +1.
- Ace of clubs +2 to the dice sum; Ace of hearts shield +2; Ace of diamonds
  +2 movement; Ace of spades is Black Death: a curse (-1 to the dice sum)
  that passes to whoever beats its holder in a duel, and is worth 14.
- every other card has no effect.
The strong effects sit on the cards that are hard to win (with no bonus, and
counting triples: a Jack 51%, a Queen 39%, a King 28%, an Ace 18%), so a
lucky attack is rewarded.
A card definition: {"id", "name", "value": 2..14, "suit"?, "rank"?, "text"?,
"effect"?: {"dice_bonus": -3..3, "movement": 0..3, "shield": -2..3,
"curse": bool, "black_death": bool}}; a card without "effect" has none.
"""

from shared_rules import canon
from shared_rules import catalog
from shared_rules import prng
from shared_rules.errors import IllegalAction, ScenarioError, check_action_shape, shown
from shared_rules.games import copy, seats, status, winner  # noqa: F401 (the contract)

NAME = "royale"
# The hard bot's search (shared_rules/search.py): a pawn's moves are cheap to try, so
# 1000 iterations fit in 250 ms (BENCHMARKS.md "The hard bot").
SEARCH = {"iterations": 1000}

INFO = {"title": "Battle Royale", "min_players": 2, "max_players": 8,
        "default_players": 3, "modes": {"resurrection": ["action_only", "sips"]},
        "value_titles": {"resurrection": {"action_only": "an action only",
                                          "sips": "the book's sips"}},
        "chance": True, "hidden": True}

RADIUS = 3
MAX_ACTIVE = 3
BASE_ROUNDS = 3
LEAD_TO_END = 4
REDUCED_VALUE = 12
COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")
RESURRECTION_MODES = ("action_only", "sips")

# Table 1 of the book, "Resurrection price list".
SIPS_TABLE = [
    {"drink": "Pure strong liquor (>20% alcohol in the total volume of liquid in the glass)",
     "sips": 1},
    {"drink": "Strong liquor mixed with non-alcoholic beverage; only wine (>10% alcohol in the "
              "total volume of liquid in the glass)", "sips": 2},
    {"drink": "Beer, bamboo, lovranski (a combination of spirits and non-alcoholic beverage), "
              "etc. (<10% alcohol in the total volume of liquid in the glass)", "sips": 3},
]

# The map: cell index <-> [x, y], sorted by x then y.
CELLS = []
for _x in range(-RADIUS, RADIUS + 1):
    for _y in range(-RADIUS, RADIUS + 1):
        if abs(_x) + abs(_y) <= RADIUS:
            CELLS.append((_x, _y))
INDEX = {}
for _i in range(len(CELLS)):
    INDEX[CELLS[_i]] = _i
RING = [i for i in range(len(CELLS)) if abs(CELLS[i][0]) + abs(CELLS[i][1]) == RADIUS]
NEIGHBOURS = []
for _i in range(len(CELLS)):
    _x, _y = CELLS[_i]
    NEIGHBOURS.append([INDEX[(_x + dx, _y + dy)] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                       if (dx or dy) and (_x + dx, _y + dy) in INDEX])


def _distances(start):
    dist = [-1] * len(CELLS)
    dist[start] = 0
    frontier = [start]
    while frontier:
        nxt = []
        for i in frontier:
            for j in NEIGHBOURS[i]:
                if dist[j] < 0:
                    dist[j] = dist[i] + 1
                    nxt.append(j)
        frontier = nxt
    return dist


# DIST[a][b]: the fewest moves from cell a to cell b on the map (the "fastest route").
DIST = [_distances(_i) for _i in range(len(CELLS))]

EFFECT_RANGES = {"dice_bonus": (-3, 3), "movement": (0, 3), "shield": (-2, 3)}
EFFECT_FLAGS = ("black_death", "curse")
CARD_FIELDS = ("effect", "id", "name", "rank", "suit", "text", "value")
OPTION_FIELDS = ("actions_per_turn", "end_b", "players", "resurrection")
SETUP_FIELDS = ("actions_left", "map", "players", "reduced", "turn")
PLAYER_FIELDS = ("active", "alive", "cell", "id", "reserve")

ACTION_FIELDS = {
    "roll_order": ("dice",),
    "place": ("cell",),
    "move": ("to",),
    "attack_card": ("dice", "fall_to", "set_aside"),
    "attack_player": ("dice", "fall_to", "set_aside", "take", "target"),
    "resurrect": (),
    "swap": ("active", "reserve"),
    "end_turn": (),
}

is_int = catalog.is_int


def cell_xy(i):
    """The [x, y] of a cell index."""
    return [CELLS[i][0], CELLS[i][1]]


# ---------------------------------------------------------------- catalog

def check_card(card, where):
    """A validated card definition, normalised (every effect field present); ScenarioError."""
    if not isinstance(card, dict):
        raise ScenarioError(where, "must be an object")
    cid = card.get("id")
    if not isinstance(cid, str) or not cid or len(cid) > 24:
        raise ScenarioError(where + ".id", "must be a card id (text of 1 to 24 characters)")
    label = where  # a JSON path: cards[3].value
    for key in sorted(card):
        if key not in CARD_FIELDS:
            raise ScenarioError(canon.path(label, key),
                                "unknown field (a card has %s)" % ", ".join(CARD_FIELDS))
    if not isinstance(card.get("name"), str) or not card["name"]:
        raise ScenarioError(label + ".name", "must be the card's name as text")
    value = card.get("value")
    if not is_int(value) or value < 2 or value > 14:
        raise ScenarioError(label + ".value", "must be a whole number from 2 to 14, got %s" % (
            shown(value),))
    out = {"id": cid, "name": card["name"], "value": value}
    for key in ("rank", "suit", "text"):
        if key in card:
            if not isinstance(card[key], str):
                raise ScenarioError(label + "." + key, "must be text")
            out[key] = card[key]
    effect = card.get("effect", {})
    if not isinstance(effect, dict):
        raise ScenarioError(label + ".effect", "must be an object")
    norm = {"black_death": False, "curse": False, "dice_bonus": 0, "movement": 0, "shield": 0}
    for key in sorted(effect):
        field = label + ".effect." + key
        v = effect[key]
        if key in EFFECT_FLAGS:
            if v is not True and v is not False:
                raise ScenarioError(field, "must be true or false")
        elif key in EFFECT_RANGES:
            lo, hi = EFFECT_RANGES[key]
            if not is_int(v) or v < lo or v > hi:
                raise ScenarioError(field, "must be a whole number from %d to %d, got %s" % (
                    lo, hi, shown(v)))
        else:
            raise ScenarioError(field, "unknown effect (effects are %s)" % ", ".join(
                sorted(list(EFFECT_FLAGS) + list(EFFECT_RANGES))))
        norm[key] = v
    out["effect"] = norm
    return out


_base_catalog = []


def base_catalog():
    """The shipped deck: {id: normalised card}, validated once per process."""
    if not _base_catalog:
        data = catalog.load("royale_cards.json")
        if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
            raise ScenarioError("royale_cards.json", 'must be an object with a "cards" list')
        cards = {}
        for i, card in enumerate(data["cards"]):
            c = check_card(card, "royale_cards.json: cards[%d]" % i)
            if c["id"] in cards:
                raise ScenarioError("royale_cards.json: cards[%d].id" % i, c["id"] + " is "
                                    "used twice")
            cards[c["id"]] = c
        _base_catalog.append(cards)
    return _base_catalog[0]


def load_catalog(extra=None):
    """The deck with a scenario's "cards" added (a card with a known id replaces it)."""
    cards = dict(base_catalog())
    if extra is None:
        return cards
    if not isinstance(extra, list):
        raise ScenarioError("cards", "must be a list of card definitions")
    seen = {}
    for i, card in enumerate(extra):
        c = check_card(card, "cards[%d]" % i)
        if c["id"] in seen:
            raise ScenarioError("cards[%d].id" % i, "%s is defined twice" % c["id"])
        seen[c["id"]] = True
        cards[c["id"]] = c
    return cards


# ---------------------------------------------------------------- state

class Player:
    __slots__ = ("id", "cell", "alive", "active", "reserve")

    def __init__(self, pid, cell=-1, alive=True, active=None, reserve=None):
        self.id = pid
        self.cell = cell
        self.alive = alive
        self.active = active if active is not None else []
        self.reserve = reserve if reserve is not None else []

    def copy(self):
        return Player(self.id, self.cell, self.alive, list(self.active), list(self.reserve))

    def held(self):
        return len(self.active) + len(self.reserve)


class RoyaleState:
    """One game. `map` is a list indexed by cell: the card id lying there, or None."""

    def copy(self):
        s = RoyaleState()
        s.options = self.options          # never mutated
        s.seed = self.seed
        s.extra_cards = self.extra_cards  # never mutated
        s.cards = self.cards              # never mutated
        s.rng = self.rng
        s.phase = self.phase
        s.seats = self.seats              # never mutated
        s.order = list(self.order)
        s.groups = [list(g) for g in self.groups]
        s.turn = self.turn
        s.players = {}
        for pid in self.seats:
            s.players[pid] = self.players[pid].copy()
        s.map = list(self.map)
        s.values = self.values            # copied on write (_reduce_values)
        s.reduced = self.reduced
        s.actions_left = self.actions_left
        s.moves_used = self.moves_used
        s.acted = self.acted
        s.swapped = self.swapped
        s.duel_won = self.duel_won
        s.status = self.status
        s.winner = self.winner
        s.end_reason = self.end_reason
        return s


def current(state):
    """The id of the player whose turn it is (None while the order is rolled)."""
    if state.phase in ("place", "play") and state.order:
        return state.order[state.turn]
    return None


def _effect(s, p, key):
    total = 0
    for c in p.active:
        total += s.cards[c]["effect"][key]
    return total


def movement_left(s, p):
    return max(0, _effect(s, p, "movement") - s.moves_used)


def rounds_to_beat(s, p):
    """Rounds an opponent must win to beat p: 3, more against a shield, at least 1."""
    return max(1, BASE_ROUNDS + _effect(s, p, "shield"))


def cards_left(s):
    n = 0
    for c in s.map:
        if c is not None:
            n += 1
    return n


def last_card(s):
    """The cell of the last card on the map, or None while more (or none) are left."""
    found = None
    for i in range(len(s.map)):
        if s.map[i] is not None:
            if found is not None:
                return None
            found = i
    return found


def score(s, p):
    total = 0
    for c in p.active:
        total += s.values[c]
    for c in p.reserve:
        total += s.values[c]
    return total


def scores(s):
    out = {}
    for pid in s.seats:
        out[pid] = score(s, s.players[pid])
    return out


# ---------------------------------------------------------------- new game

def _parse_options(options):
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ScenarioError("options", "must be an object")
    for key in sorted(options):
        if key not in OPTION_FIELDS:
            raise ScenarioError(canon.path("options", key),
                                "unknown option (options are %s)"
                                % ", ".join(OPTION_FIELDS))
    out = {"actions_per_turn": 2, "end_b": True, "resurrection": "action_only"}
    if "players" in options:
        n = options["players"]
        if not is_int(n) or n < 2 or n > len(COLOURS):
            raise ScenarioError("options.players", "must be a whole number from 2 to %d" % len(
                COLOURS))
        out["players"] = n
    apt = options.get("actions_per_turn", 2)
    if not is_int(apt) or apt < 1 or apt > 6:
        raise ScenarioError("options.actions_per_turn", "must be a whole number from 1 to 6")
    out["actions_per_turn"] = apt
    mode = options.get("resurrection", "action_only")
    if mode not in RESURRECTION_MODES:
        raise ScenarioError("options.resurrection", 'must be "action_only" or "sips"')
    out["resurrection"] = mode
    end_b = options.get("end_b", True)
    if end_b is not True and end_b is not False:
        raise ScenarioError("options.end_b", "must be true or false")
    out["end_b"] = end_b
    return out


def _setup_cell(value, field):
    if not catalog.is_cell(value) or (value[0], value[1]) not in INDEX:
        raise ScenarioError(field, "must be a cell [x, y] on the map (|x| + |y| <= 3), got %s" % (
            shown(value),))
    return INDEX[(value[0], value[1])]


def _card_id(cards, value, field, used):
    if not isinstance(value, str) or value not in cards:
        raise ScenarioError(field, "unknown card %s" % (shown(value),))
    if value in used:
        raise ScenarioError(field, "card %s is already %s" % (value, used[value]))
    return value


def new_game(options, seed, setup=None, cards=None):
    """A new game: digital (the PRNG deals the map) unless a setup gives the position."""
    opts = _parse_options(options)
    if not is_int(seed):
        raise ScenarioError("seed", "must be a whole number")
    deck = load_catalog(cards)
    if setup is not None and not isinstance(setup, dict):
        raise ScenarioError("setup", "must be an object")
    setup = setup or {}
    for key in sorted(setup):
        if key not in SETUP_FIELDS:
            raise ScenarioError(canon.path("setup", key),
                                "unknown field (a setup has %s)"
                                % ", ".join(SETUP_FIELDS))
    s = RoyaleState()
    s.options = opts
    s.seed = seed
    s.extra_cards = canon.loads(canon.dumps(cards)) if cards is not None else None
    s.rng = prng.seed_state(seed)
    s.reduced = False
    s.actions_left = 0
    s.moves_used = 0
    s.acted = False
    s.swapped = False
    s.duel_won = False
    s.status = "ongoing"
    s.winner = None
    s.end_reason = None
    used = {}
    values = {}
    in_play = {}

    # Players.
    if "players" in setup:
        rows = setup["players"]
        if not isinstance(rows, list) or len(rows) < 2 or len(rows) > len(COLOURS):
            raise ScenarioError("setup.players", "must be a list of 2 to %d players" % len(COLOURS))
        if "players" in opts and opts["players"] != len(rows):
            raise ScenarioError("options.players", "says %d but setup.players lists %d" % (
                opts["players"], len(rows)))
        s.players = {}
        order = []
        for i, row in enumerate(rows):
            field = "setup.players[%d]" % i
            if not isinstance(row, dict):
                raise ScenarioError(field, "must be an object")
            for key in sorted(row):
                if key not in PLAYER_FIELDS:
                    raise ScenarioError(canon.path(field, key), "unknown field (a player has %s)" %
                                        ", ".join(PLAYER_FIELDS))
            pid = row.get("id")
            if not isinstance(pid, str) or not pid or len(pid) > 16:
                raise ScenarioError(field + ".id", "must be a player name (1 to 16 characters)")
            if pid in s.players:
                raise ScenarioError(field + ".id", "player %s is listed twice" % pid)
            if pid in deck:
                raise ScenarioError(field + ".id", "%s is a card id; name the player otherwise" %
                                    pid)
            if "cell" not in row:
                raise ScenarioError(field + ".cell", "missing (where the player's pawn stands)")
            cell = _setup_cell(row["cell"], field + ".cell")
            alive = row.get("alive", True)
            if alive is not True and alive is not False:
                raise ScenarioError(field + ".alive", "must be true or false")
            lists = {}
            for key in ("active", "reserve"):
                ids = row.get(key, [])
                if not isinstance(ids, list):
                    raise ScenarioError(field + "." + key, "must be a list of card ids")
                lists[key] = []
                for j, cid in enumerate(ids):
                    f = "%s.%s[%d]" % (field, key, j)
                    _card_id(deck, cid, f, used)
                    used[cid] = "held by " + pid
                    lists[key].append(cid)
                    values[cid] = deck[cid]["value"]
                    in_play[cid] = deck[cid]
            held = len(lists["active"]) + len(lists["reserve"])
            if len(lists["active"]) != min(held, MAX_ACTIVE):
                raise ScenarioError(field + ".active", "a player holding %d cards has %d active, "
                                    "not %d (at most 3 active, and never fewer while more are "
                                    "held)" % (held, len(lists["active"]), min(held, MAX_ACTIVE)))
            s.players[pid] = Player(pid, cell, alive, lists["active"], lists["reserve"])
            order.append(pid)
        s.seats = list(order)
        s.order = order
        s.groups = [[pid] for pid in order]
        s.phase = "play"
        turn = setup.get("turn", order[0])
        if not isinstance(turn, str) or turn not in s.players:
            raise ScenarioError("setup.turn", "must be one of the players (%s)" % ", ".join(order))
        s.turn = order.index(turn)
    else:
        for key in ("turn", "actions_left"):
            if key in setup:
                raise ScenarioError("setup." + key, "needs setup.players")
        n = opts.get("players", 3)
        s.seats = list(COLOURS[:n])
        s.players = {}
        for pid in s.seats:
            s.players[pid] = Player(pid)
        s.order = []
        s.groups = [list(s.seats)]
        s.phase = "order"
        s.turn = 0
    opts["players"] = len(s.seats)

    # The map.
    s.map = [None] * len(CELLS)
    if "map" in setup:
        rows = setup["map"]
        if not isinstance(rows, list):
            raise ScenarioError("setup.map", "must be a list of {cell, card, value}")
        for i, row in enumerate(rows):
            field = "setup.map[%d]" % i
            if not isinstance(row, dict):
                raise ScenarioError(field, "must be an object")
            for key in sorted(row):
                if key not in ("card", "cell", "value"):
                    raise ScenarioError(canon.path(field, key), "unknown field (cell, card, value)")
            cell = _setup_cell(row.get("cell"), field + ".cell")
            if s.map[cell] is not None:
                raise ScenarioError(field + ".cell", "already holds card %s" % s.map[cell])
            cid = _card_id(deck, row.get("card"), field + ".card", used)
            used[cid] = "on the map"
            value = row.get("value", deck[cid]["value"])
            if not is_int(value) or value < 2 or value > 14:
                raise ScenarioError(field + ".value", "must be a whole number from 2 to 14")
            s.map[cell] = cid
            values[cid] = value
            in_play[cid] = deck[cid]
    else:
        pool = sorted([cid for cid in deck if cid not in used])
        if len(pool) < len(CELLS):
            raise ScenarioError("cards", "the deck has %d free cards; the map needs %d" % (
                len(pool), len(CELLS)))
        s.rng = prng.shuffle(s.rng, pool)
        for i in range(len(CELLS)):
            s.map[i] = pool[i]
            values[pool[i]] = deck[pool[i]]["value"]
            in_play[pool[i]] = deck[pool[i]]
    s.values = values
    s.cards = in_play
    reduced = setup.get("reduced", False)
    if reduced is not True and reduced is not False:
        raise ScenarioError("setup.reduced", "must be true or false")
    s.reduced = reduced

    if s.phase == "play":
        apt = opts["actions_per_turn"]
        left = setup.get("actions_left", apt)
        if not is_int(left) or left < 0 or left > apt:
            raise ScenarioError("setup.actions_left", "must be a whole number from 0 to %d" % apt)
        s.actions_left = left
        _reduce_values(s, [])
        _check_end(s, [])
    return s


# ---------------------------------------------------------------- checks

def _fail(code, message):
    raise IllegalAction(code, message)


def _action_cell(action, key):
    v = action.get(key)
    if not catalog.is_cell(v) or (v[0], v[1]) not in INDEX:
        _fail("off_map", "%s must be a cell [x, y] on the map (|x| + |y| <= 3), not %s." % (
            key, shown(v)))
    return INDEX[(v[0], v[1])]


def _die(v, what):
    if not is_int(v) or v < 1 or v > 6:
        _fail("bad_dice", "%s must be a die from 1 to 6, not %s." % (what, shown(v)))
    return v


def _living_others_on(s, pid, cell):
    out = []
    for q in s.order:
        if q != pid and s.players[q].alive and s.players[q].cell == cell:
            out.append(q)
    return out


def _card_blocked(s, pid, cell):
    """Why the card on `cell` cannot be attacked by pid now (the last-card rule), or None."""
    if cell == last_card(s) and not s.duel_won and _living_others_on(s, pid, cell):
        return ("Other living players stand on the last card: defeat one of them in a duel "
                "before attacking it.")
    return None


def _play_options(s, pid):
    """Every resurrect, move, attack_card and attack_player open to pid now."""
    p = s.players[pid]
    out = []
    if not p.alive:
        if s.actions_left > 0:
            out.append({"type": "resurrect"})
        return out
    lc = last_card(s)
    if s.actions_left > 0 or movement_left(s, p) > 0:
        for j in NEIGHBOURS[p.cell]:
            if lc is None or DIST[j][lc] == DIST[p.cell][lc] - 1:
                out.append({"type": "move", "to": cell_xy(j)})
    if s.actions_left > 0:
        if s.map[p.cell] is not None and _card_blocked(s, pid, p.cell) is None:
            out.append({"type": "attack_card"})
        if lc is None or p.cell == lc:
            for q in _living_others_on(s, pid, p.cell):
                out.append({"type": "attack_player", "target": q})
    return out


def _needs_actor_turn(s):
    if s.phase == "finished":
        _fail("game_over", "The game is over.")
    if s.phase == "order":
        _fail("roll_order_first", "Everybody rolls a die for the turn order first.")
    if s.phase == "place":
        _fail("place_first", "Every player places their pawn on the outer ring first.")
    return s.order[s.turn]


def _needs_alive(p):
    if not p.alive:
        _fail("dead", "You are dead: resurrect before doing anything else.")


def _needs_action(s):
    if s.actions_left <= 0:
        _fail("no_actions_left", "You have no actions left this turn.")


# ---------------------------------------------------------------- apply

def validate(state, action):
    """The problem with `action` now (an IllegalAction), or None. Never raises.

    It applies the action to a copy, so validate and apply cannot disagree.
    """
    try:
        _apply(state.copy(), action)
    except IllegalAction as e:
        return e
    return None


def apply(state, action):
    """Apply a legal action and return its events; IllegalAction leaves the state unchanged.

    Every check runs before the first change (the one exception, a duel whose outcome a bad
    "take" contradicts, puts the PRNG back), so no copy is made: MicroPython's small heap
    fragments under a copy per action.
    """
    return _apply(state, action)


def actor(state, action):
    """The player who takes `action`: the player whose turn it is, and during the order roll
    the first player who rolls (one `roll_order` throws everybody's dice)."""
    if state.phase == "order":
        who = rollers(state)
        return who[0] if who else None
    return current(state)


def _apply(s, action):
    kind = check_action_shape(action, ACTION_FIELDS, "Battle Royale")
    if kind == "roll_order":
        return _roll_order(s, action)
    if kind == "place":
        return _place(s, action)
    pid = _needs_actor_turn(s)
    p = s.players[pid]
    events = []
    if kind == "end_turn":
        return _end_turn(s, pid)
    if kind == "swap":
        _swap(s, p, action, events)
    elif kind == "resurrect":
        if p.alive:
            _fail("not_dead", "You are alive: there is nothing to resurrect.")
        _needs_action(s)
        p.alive = True
        s.actions_left -= 1
        s.acted = True
        ev = {"type": "resurrected", "player": pid, "cell": cell_xy(p.cell),
              "cost": s.options["resurrection"]}
        if s.options["resurrection"] == "sips":
            ev["sips_table"] = SIPS_TABLE
        events.append(ev)
    elif kind == "move":
        _move(s, p, action, events)
    elif kind == "attack_card":
        _attack_card(s, p, action, events)
    else:
        _attack_player(s, p, action, events)
    _check_end(s, events)
    return events


def _roll_order(s, action):
    if s.phase != "order":
        _fail("order_decided", "The turn order is already decided.")
    rollers = []
    for g in s.groups:
        if len(g) > 1:
            rollers.extend(g)
    dice = action.get("dice")
    rolls = {}
    if dice is None:
        for pid in rollers:
            s.rng, d = prng.below(s.rng, 6)
            rolls[pid] = d + 1
    else:
        if not isinstance(dice, dict) or sorted(dice) != sorted(rollers):
            _fail("bad_dice", "dice must give one die for each player who rolls now: %s." %
                  ", ".join(rollers))
        for pid in rollers:
            rolls[pid] = _die(dice[pid], "%s's die" % pid)
    groups = []
    for g in s.groups:
        if len(g) == 1:
            groups.append(g)
            continue
        faces = sorted(set([rolls[pid] for pid in g]))
        faces.reverse()
        for face in faces:
            groups.append([pid for pid in g if rolls[pid] == face])
    s.groups = groups
    events = [{"type": "order_rolled", "rolls": rolls}]
    tied = [g for g in groups if len(g) > 1]
    if tied:
        events.append({"type": "order_tied", "groups": tied})
    else:
        s.order = [g[0] for g in groups]
        s.phase = "place"
        s.turn = 0
        events.append({"type": "turn_order", "order": list(s.order)})
    return events


def _place(s, action):
    if s.phase != "place":
        _fail("not_placing", "Pawns are placed only before the game starts.")
    pid = s.order[s.turn]
    cell = _action_cell(action, "cell")
    if cell not in RING:
        _fail("not_outer_ring", "Players start on the outer edge of the map (|x| + |y| = 3).")
    for q in s.order:
        if s.players[q].cell == cell:
            _fail("cell_taken", "%s already starts on that cell; pick another." % q)
    s.players[pid].cell = cell
    events = [{"type": "placed", "player": pid, "cell": cell_xy(cell)}]
    s.turn += 1
    if s.turn == len(s.order):
        s.phase = "play"
        s.turn = 0
        _start_turn(s, events)
    return events


def _start_turn(s, events):
    pid = s.order[s.turn]
    s.actions_left = s.options["actions_per_turn"]
    s.moves_used = 0
    s.acted = False
    s.swapped = False
    s.duel_won = False
    p = s.players[pid]
    events.append({"type": "turn_started", "player": pid, "actions": s.actions_left,
                   "movement": _effect(s, p, "movement")})


def _end_turn(s, pid):
    if last_card(s) is not None and _play_options(s, pid):
        _fail("must_go_for_last_card", "Only one card is left: you must %s before ending "
              "your turn." % _duty(s, pid))
    events = [{"type": "turn_ended", "player": pid}]
    s.turn = (s.turn + 1) % len(s.order)
    _start_turn(s, events)
    return events


def _duty(s, pid):
    p = s.players[pid]
    if not p.alive:
        return "resurrect"
    if p.cell != last_card(s):
        return "move toward it"
    return "attack it or a player on it"


def _swap(s, p, action, events):
    if s.swapped:
        _fail("already_swapped", "You may swap only one card per turn.")
    if s.acted:
        _fail("swap_too_late", "Swap cards at the beginning of your turn, before any action.")
    a = action.get("active")
    r = action.get("reserve")
    if not isinstance(a, str) or a not in p.active:
        _fail("not_active", "%s is not one of your active cards." % (shown(a),))
    if not isinstance(r, str) or r not in p.reserve:
        _fail("not_in_reserve", "%s is not one of your set-aside cards." % (shown(r),))
    if s.cards[a]["effect"]["curse"]:
        _fail("curse_stays", "%s is a curse: it stays active." % s.cards[a]["name"])
    p.active[p.active.index(a)] = r
    p.reserve[p.reserve.index(r)] = a
    s.swapped = True
    events.append({"type": "swapped", "player": p.id, "activated": r, "set_aside": a})


def _move(s, p, action, events):
    _needs_alive(p)
    to = _action_cell(action, "to")
    if to not in NEIGHBOURS[p.cell]:
        _fail("not_adjacent", "You can move only to one of the 8 cells next to yours.")
    lc = last_card(s)
    if lc is not None and DIST[to][lc] != DIST[p.cell][lc] - 1:
        _fail("must_move_toward_last_card", "Only one card is left: move toward it by the "
              "fastest route.")
    if movement_left(s, p) > 0:
        s.moves_used += 1
        cost = "movement"
    elif s.actions_left > 0:
        s.actions_left -= 1
        cost = "action"
    else:
        _fail("no_actions_left", "You have no actions or movements left this turn.")
    events.append({"type": "moved", "player": p.id, "from": cell_xy(p.cell), "to": cell_xy(to),
                   "cost": cost})
    p.cell = to
    s.acted = True


def _fall_cell(action, cell):
    """The cell a dying player falls to: "fall_to" if given (checked), else the first neighbour."""
    if action.get("fall_to") is None:
        return NEIGHBOURS[cell][0]
    to = _action_cell(action, "fall_to")
    if to not in NEIGHBOURS[cell]:
        _fail("bad_fall_to", "fall_to must be a cell next to %r, where the player dies." % (
            cell_xy(cell),))
    return to


def _set_aside_choice(s, p, action):
    v = action.get("set_aside")
    if v is None:
        return None
    if not isinstance(v, str) or v not in p.active or s.cards[v]["effect"]["curse"]:
        _fail("bad_set_aside", "set_aside must be one of your active cards that is not a "
              "curse, not %s." % (shown(v),))
    return v


def _roll(s, n):
    out = []
    for _ in range(n):
        s.rng, d = prng.below(s.rng, 6)
        out.append(d + 1)
    return out


def _attack_card(s, p, action, events):
    _needs_alive(p)
    _needs_action(s)
    cell = p.cell
    cid = s.map[cell]
    if cid is None:
        _fail("no_card_here", "There is no card on your cell to attack.")
    blocked = _card_blocked(s, p.id, cell)
    if blocked:
        _fail("defeat_a_player_first", blocked)
    fall = _fall_cell(action, cell)
    set_aside = _set_aside_choice(s, p, action)
    dice = action.get("dice")
    if dice is None:
        dice = _roll(s, 3)
    else:
        if not isinstance(dice, list) or len(dice) != 3:
            _fail("bad_dice", "Attacking a card takes 3 dice, e.g. [4, 2, 6].")
        dice = [_die(d, "each die") for d in dice]
    bonus = _effect(s, p, "dice_bonus")
    total = dice[0] + dice[1] + dice[2] + bonus
    triple = dice[0] == dice[1] == dice[2]
    s.actions_left -= 1
    s.acted = True
    if triple or total >= s.values[cid]:
        s.map[cell] = None
        events.append({"type": "card_won", "player": p.id, "cell": cell_xy(cell), "card": cid,
                       "value": s.values[cid], "dice": dice, "bonus": bonus, "total": total,
                       "triple": triple})
        _gain(s, p, cid, set_aside, events)
        _reduce_values(s, events)
        lc = last_card(s)
        if lc is not None:
            events.append({"type": "last_card", "cell": cell_xy(lc)})
    else:
        events.append({"type": "attack_failed", "player": p.id, "cell": cell_xy(cell),
                       "dice": dice, "bonus": bonus, "total": total})
        _kill(s, p, fall, events)
        s.duel_won = False  # fallen off the card: back on it, they must defeat someone again


def _gain(s, p, cid, set_aside, events):
    """p takes card cid: active while fewer than 3 are, else set aside; a curse goes active."""
    if len(p.active) < MAX_ACTIVE:
        p.active.append(cid)
        return
    if s.cards[cid]["effect"]["curse"]:
        free = [c for c in p.active if not s.cards[c]["effect"]["curse"]]
        if free:
            out = set_aside
            if out not in free:
                free.sort(key=lambda c: (s.values[c], c))
                out = free[0]
            p.active[p.active.index(out)] = cid
            p.reserve.append(out)
            events.append({"type": "curse_equipped", "player": p.id, "card": cid,
                           "set_aside": out})
            return
    p.reserve.append(cid)


def _kill(s, p, fall, events):
    events.append({"type": "player_died", "player": p.id, "cell": cell_xy(p.cell),
                   "fell_to": cell_xy(fall)})
    p.alive = False
    p.cell = fall


def _duel_die(v, two, who):
    if two:
        if not isinstance(v, list) or len(v) != 2:
            _fail("bad_dice", "%s holds no card and rolls two dice: give [a, b]." % who)
        return [_die(v[0], who + "'s die"), _die(v[1], who + "'s die")]
    return _die(v, who + "'s die")


def _attack_player(s, p, action, events):
    rng = s.rng
    try:
        _duel(s, p, action, events)
    except IllegalAction:
        s.rng = rng  # the dice were rolled before "take" could be checked against the loser
        raise


def _duel(s, p, action, events):
    _needs_alive(p)
    _needs_action(s)
    target = action.get("target")
    if not isinstance(target, str) or target not in s.players or target == p.id:
        _fail("unknown_player", "target must be another player, not %s." % (shown(target),))
    q = s.players[target]
    if not q.alive:
        _fail("target_dead", "%s is dead; only living players fight." % target)
    if q.cell != p.cell:
        _fail("not_same_cell", "You can attack only a player on your own cell.")
    lc = last_card(s)
    if lc is not None and p.cell != lc:
        _fail("must_move_toward_last_card", "Only one card is left: fight only on it; move "
              "toward it.")
    fall = _fall_cell(action, p.cell)
    set_aside = _set_aside_choice(s, p, action)
    need = {p.id: rounds_to_beat(s, q), q.id: rounds_to_beat(s, p)}
    two = {p.id: p.held() == 0, q.id: q.held() == 0}
    events.append({"type": "duel_started", "attacker": p.id, "defender": q.id,
                   "rounds_needed": need, "two_dice": two})
    wins = {p.id: 0, q.id: 0}
    given = action.get("dice")
    if given is not None and not isinstance(given, list):
        _fail("bad_dice", "A duel's dice are a list of rounds, each [mine, theirs].")
    rnd = 0
    while wins[p.id] < need[p.id] and wins[q.id] < need[q.id]:
        if given is None:
            pair = []
            for who in (p.id, q.id):
                pair.append(_roll(s, 2) if two[who] else _roll(s, 1)[0])
        else:
            if rnd >= len(given):
                _fail("dice_incomplete", "The duel is not decided after %d rounds: give every "
                      "round until one player has won the rounds needed." % len(given))
            pair = given[rnd]
            if not isinstance(pair, list) or len(pair) != 2:
                _fail("bad_dice", "Each duel round is [mine, theirs].")
            pair = [_duel_die(pair[0], two[p.id], p.id), _duel_die(pair[1], two[q.id], q.id)]
        kept = {}
        rolls = {p.id: pair[0], q.id: pair[1]}
        for who in (p.id, q.id):
            r = rolls[who]
            kept[who] = min(r[0], r[1]) if two[who] else r
        rnd += 1
        if kept[p.id] > kept[q.id]:
            round_winner = p.id
        elif kept[q.id] > kept[p.id]:
            round_winner = q.id
        else:
            round_winner = None
        if round_winner is not None:
            wins[round_winner] += 1
        events.append({"type": "duel_round", "round": rnd, "rolls": rolls, "kept": kept,
                       "winner": round_winner})
    if given is not None and rnd < len(given):
        _fail("too_many_dice", "The duel was decided after %d rounds but %d were given." % (
            rnd, len(given)))
    if wins[p.id] >= need[p.id]:
        win, lose = p, q
    else:
        win, lose = q, p
    events.append({"type": "duel_won", "winner": win.id, "loser": lose.id, "rounds": wins})
    taken = _taken_card(s, lose, action.get("take"))
    if taken is not None:
        lose.active.remove(taken)
        if lose.reserve:
            nxt = lose.reserve.pop(0)
            lose.active.append(nxt)
            events.append({"type": "card_activated", "player": lose.id, "card": nxt})
        events.append({"type": "card_taken", "from": lose.id, "to": win.id, "card": taken,
                       "black_death": s.cards[taken]["effect"]["black_death"]})
        _gain(s, win, taken, set_aside if win is p else None, events)
    _kill(s, lose, fall, events)
    s.actions_left -= 1
    s.acted = True
    if win is p and lc is not None:
        # Only a duel won on the last card opens it; a duel won earlier in the turn, while
        # more cards lay on the map, defeated nobody standing on it.
        s.duel_won = True


def _taken_card(s, lose, take):
    """The card the duel's winner takes: Black Death if the loser has it active, else random."""
    if not lose.active:
        if take is not None:
            _fail("bad_take", "%s has no card to take." % lose.id)
        return None
    forced = sorted([c for c in lose.active if s.cards[c]["effect"]["black_death"]])
    if forced:
        if take is not None and take != forced[0]:
            _fail("bad_take", "%s has %s equipped: the winner takes that card." % (
                lose.id, s.cards[forced[0]]["name"]))
        return forced[0]
    if take is not None:
        if not isinstance(take, str) or take not in lose.active:
            _fail("bad_take", "take must be one of %s's active cards, not %s." % (
                lose.id, shown(take)))
        return take
    choices = sorted(lose.active)
    s.rng, i = prng.below(s.rng, len(choices))
    return choices[i]


def _reduce_values(s, events):
    """ "When only cards with values 13 and 14 remain on the map", they all count 12."""
    if s.reduced:
        return
    cells = [i for i in range(len(s.map)) if s.map[i] is not None]
    if not cells:
        return
    for i in cells:
        if s.values[s.map[i]] < 13:
            return
    s.values = dict(s.values)
    for i in cells:
        s.values[s.map[i]] = REDUCED_VALUE
    s.reduced = True
    events.append({"type": "values_reduced", "value": REDUCED_VALUE,
                   "cells": [cell_xy(i) for i in cells]})


def _check_end(s, events):
    if s.phase != "play":
        return
    left = cards_left(s)
    if left == 0:
        ranked = sorted(s.seats, key=lambda q: (-score(s, s.players[q]), -s.players[q].held(), q))
        a, b = ranked[0], ranked[1]
        pa, pb = s.players[a], s.players[b]
        tied = score(s, pa) == score(s, pb) and pa.held() == pb.held()
        _finish(s, None if tied else a, "all_cards_won", events)
    elif left == 1 and s.options["end_b"]:
        counts = sorted([s.players[q].held() for q in s.seats])
        counts.reverse()
        if counts[0] - counts[1] >= LEAD_TO_END:
            leader = [q for q in s.seats if s.players[q].held() == counts[0]][0]
            _finish(s, leader, "card_lead", events)


def _finish(s, who, reason, events):
    s.phase = "finished"
    s.status = "finished"
    s.winner = who
    s.end_reason = reason
    s.actions_left = 0
    events.append({"type": "game_over", "reason": reason, "winner": who, "scores": scores(s),
                   "cards": dict([(q, s.players[q].held()) for q in s.seats])})


def undo_blocker(action, events):
    """Why this action cannot be taken back (dice rolled, a card shown), or None."""
    for ev in events:
        t = ev["type"]
        if t in ("order_rolled", "card_won", "attack_failed", "duel_started"):
            return "it rolled dice"
        if t in ("swapped", "card_activated"):
            return "a set-aside card was shown"
    return None


# ---------------------------------------------------------------- legal actions

def legal_actions(state):
    """Every legal action now, in a fixed order (dice, fall_to, take, set_aside left out)."""
    s = state
    if s.phase == "finished":
        return []
    if s.phase == "order":
        return [{"type": "roll_order"}]
    if s.phase == "place":
        taken = [s.players[q].cell for q in s.order]
        return [{"type": "place", "cell": cell_xy(i)} for i in RING if i not in taken]
    pid = s.order[s.turn]
    p = s.players[pid]
    out = []
    if not s.acted and not s.swapped:
        for a in p.active:
            if not s.cards[a]["effect"]["curse"]:
                for r in p.reserve:
                    out.append({"type": "swap", "active": a, "reserve": r})
    options = _play_options(s, pid)
    out.extend(options)
    if not options or last_card(s) is None:
        out.append({"type": "end_turn"})
    return out


def action_space(state):
    """A superset of the legal actions (every cell, target and card) for completeness checks."""
    s = state
    out = [{"type": "roll_order"}, {"type": "resurrect"}, {"type": "end_turn"},
           {"type": "attack_card"}]
    for i in range(len(CELLS)):
        out.append({"type": "place", "cell": cell_xy(i)})
        out.append({"type": "move", "to": cell_xy(i)})
    for q in s.seats:
        out.append({"type": "attack_player", "target": q})
    pid = current(s)
    if pid is not None:
        p = s.players[pid]
        # The player's own cards both ways, and one card of somebody else's as a decoy.
        others = sorted([c for q in s.seats if q != pid for c in s.players[q].active])
        mine = p.active + p.reserve
        for a in mine + others[:1]:
            for r in mine:
                if a != r:
                    out.append({"type": "swap", "active": a, "reserve": r})
    return out


# ---------------------------------------------------------------- views and records

def _map_view(s, show):
    out = []
    for i in range(len(s.map)):
        cid = s.map[i]
        if cid is None:
            continue
        entry = {"cell": cell_xy(i)}
        if show:
            entry["card"] = cid
            entry["value"] = s.values[cid]
        elif s.reduced:
            entry["value"] = REDUCED_VALUE
        out.append(entry)
    return out


def view(state, seat=None):
    """What `seat` may know (None: a spectator). Face-down map cards are never shown."""
    s = state
    over = s.phase == "finished"
    players = []
    for pid in (s.order if s.order else s.seats):
        p = s.players[pid]
        row = {"id": pid, "cell": cell_xy(p.cell) if p.cell >= 0 else None, "alive": p.alive,
               "active": list(p.active), "cards": p.held(),
               # What the active (public) cards add up to, for the table's display.
               "dice_bonus": _effect(s, p, "dice_bonus"), "movement": _effect(s, p, "movement"),
               "rounds_to_beat": rounds_to_beat(s, p)}
        if over or pid == seat:
            row["reserve"] = list(p.reserve)
            row["score"] = score(s, p)
        players.append(row)
    out = {"game": NAME, "seat": seat, "phase": s.phase, "status": s.status,
           "winner": s.winner, "end_reason": s.end_reason, "turn": current(s),
           "order": list(s.order), "map": _map_view(s, over), "reduced": s.reduced,
           "players": players, "resurrection": s.options["resurrection"],
           "actions_per_turn": s.options["actions_per_turn"]}
    if s.phase == "order":
        out["must_roll"] = [q for g in s.groups if len(g) > 1 for q in g]
    if s.phase == "play":
        out["actions_left"] = s.actions_left
        out["movement_left"] = movement_left(s, s.players[current(s)])
        out["may_swap"] = not s.acted and not s.swapped
        lc = last_card(s)
        out["last_card"] = cell_xy(lc) if lc is not None else None
    if s.options["resurrection"] == "sips":
        out["sips_table"] = SIPS_TABLE
    if over:
        out["scores"] = scores(s)
    return out


def secrets(state, seat=None):
    """The card ids that must not appear in view(state, seat)."""
    s = state
    if s.phase == "finished":
        return set()
    out = set([c for c in s.map if c is not None])
    for pid in s.seats:
        if pid != seat:
            out.update(s.players[pid].reserve)
    return out


_deck_cache = [None, None]  # (the extra_cards list, its deck): copies share extra_cards


def _deck(s):
    """Every card of this game's deck, {id: card} (the shipped deck plus the setup's cards)."""
    if s.extra_cards is None:
        return base_catalog()
    if _deck_cache[0] is not s.extra_cards:
        _deck_cache[1] = load_catalog(s.extra_cards)
        _deck_cache[0] = s.extra_cards
    return _deck_cache[1]


def _take(pool, fits):
    """Remove and return the first card of `pool` that fits (any card if none does)."""
    for i in range(len(pool)):
        if fits(pool[i]):
            return pool.pop(i)
    return pool.pop(0)


def determinize(state, seat, rng):
    """A state `seat` cannot tell from `state`: every card it cannot see dealt again from `rng`.

    It changes and returns the state it is given (pass a copy: `copy` copies the map and the
    players' lists, which are the only ones changed in place; `cards` and `values` are
    replaced). What `seat` sees (view(state, seat)) is kept: every player's active cards,
    cell and life, the number of cards each holds, the seat's own set-aside cards and their
    values (its score), which cells still hold a card, whether the values were reduced, the
    turn, the phase. What it cannot see is dealt again: the face-down map cards, the other
    players' set-aside cards, and which cards of the deck are not in the game at all (the
    digital game deals 25 of the 52 cards, so the cards in the box are as unknown as the map).
    The pool is the deck minus the cards the seat sees, sorted, shuffled with `rng`, then dealt
    in a fixed order: first, once the values are reduced, the map cells in cell order, each
    taking the first card worth 13 or 14 (the reduction says only those are left); then the
    other players' set-aside cards, in seat order, each player as many as they hold, a curse
    only to a player with an active curse (a curse is set aside only when the three active
    cards are curses); then, before the reduction, the map cells in cell order, dealt again
    until at least one is worth less than 13 (else the values would have been reduced); the
    rest go back in the box. Where no card fits, the first card is taken. A map card counts
    12 once the values are reduced, any other newly dealt card its printed value (whether a
    set-aside card was won before or after the reduction is not in the view, so neither is
    its 12). The engine's PRNG (dice, duel takes) is replaced from `rng`, and the seed (only
    new_game reads it) is set to 0. Nothing is hidden once the game is over: only the PRNG
    and the seed change then. It reads nothing but the view and `rng`.
    """
    s = state
    s.seed = 0
    if s.phase != "finished":
        deck = _deck(s)
        seen = {}
        for pid in s.seats:
            p = s.players[pid]
            for c in p.active:
                seen[c] = True
            if pid == seat:
                for c in p.reserve:
                    seen[c] = True
        pool = sorted([c for c in deck if c not in seen])
        cells = [i for i in range(len(s.map)) if s.map[i] is not None]
        hands = [pid for pid in s.seats if pid != seat and s.players[pid].reserve]

        def high(c):
            return deck[c]["value"] >= 13

        def not_curse(c):
            return not deck[c]["effect"]["curse"]

        def anything(c):
            return True

        # Before the reduction one map card at least is worth less than 13: deal until one
        # is (when the pool has such a card at all: it has, unless a setup gave odd values).
        need_low = not s.reduced and cells and len([c for c in pool if not high(c)]) > 0
        tries = 0
        while True:
            rng = prng.shuffle(rng, pool)
            left = list(pool)
            cards = {}
            values = {}
            if s.reduced:
                for i in cells:
                    c = _take(left, high)
                    s.map[i] = c
                    cards[c] = deck[c]
                    values[c] = REDUCED_VALUE
            for pid in hands:
                p = s.players[pid]
                fits = not_curse
                for c in p.active:
                    if not not_curse(c):
                        fits = anything
                for k in range(len(p.reserve)):
                    c = _take(left, fits)
                    p.reserve[k] = c
                    cards[c] = deck[c]
                    values[c] = deck[c]["value"]
            if not s.reduced:
                low = False
                for i in cells:
                    c = left.pop(0)
                    s.map[i] = c
                    cards[c] = deck[c]
                    values[c] = deck[c]["value"]
                    low = low or values[c] < 13
                tries += 1
                if need_low and not low:
                    if tries < 20:
                        continue
                    # Rare: swap the first map card for the first low card left in the box.
                    c = _take(left, lambda c: not high(c))
                    del cards[s.map[cells[0]]]
                    del values[s.map[cells[0]]]
                    s.map[cells[0]] = c
                    cards[c] = deck[c]
                    values[c] = deck[c]["value"]
            break
        for c in seen:
            cards[c] = s.cards[c]
            values[c] = s.values[c]
        s.cards = cards
        s.values = values
    rng, x = prng.next32(rng)
    s.rng = prng.seed_state(x)
    return s


def _player_form(s, p):
    return {"id": p.id, "cell": cell_xy(p.cell) if p.cell >= 0 else None, "alive": p.alive,
            "active": list(p.active), "reserve": list(p.reserve)}


def to_dict(state):
    """The whole state as JSON data (canonical-ready)."""
    s = state
    return {"schema": canon.SCHEMA_VERSION, "game": NAME, "options": dict(s.options),
            "seed": s.seed, "cards": canon.loads(canon.dumps(s.extra_cards))
            if s.extra_cards is not None else None,
            "in_play": sorted(s.cards), "rng": s.rng, "phase": s.phase, "seats": list(s.seats),
            "order": list(s.order), "groups": [list(g) for g in s.groups], "turn": s.turn,
            "players": [_player_form(s, s.players[q]) for q in s.seats],
            "map": list(s.map), "values": dict(s.values), "reduced": s.reduced,
            "actions_left": s.actions_left, "moves_used": s.moves_used, "acted": s.acted,
            "swapped": s.swapped, "duel_won": s.duel_won, "status": s.status,
            "winner": s.winner, "end_reason": s.end_reason}


def from_dict(data):
    """Rebuild a state from to_dict(); ScenarioError if it is not one."""
    if not isinstance(data, dict) or data.get("game") != NAME:
        raise ScenarioError("state", "is not a saved Battle Royale state")
    if data.get("schema") != canon.SCHEMA_VERSION:
        raise ScenarioError("state.schema", "unsupported version %s" % (shown(data.get("schema")),))
    try:
        deck = load_catalog(data["cards"])
        s = RoyaleState()
        s.options = dict(data["options"])
        s.seed = data["seed"]
        s.extra_cards = data["cards"]
        s.cards = {}
        for cid in data["in_play"]:
            s.cards[cid] = deck[cid]
        s.seats = list(data["seats"])
        s.players = {}
        for row in data["players"]:
            cell = INDEX[(row["cell"][0], row["cell"][1])] if row["cell"] is not None else -1
            s.players[row["id"]] = Player(row["id"], cell, row["alive"], list(row["active"]),
                                          list(row["reserve"]))
        s.order = list(data["order"])
        s.groups = [list(g) for g in data["groups"]]
        s.map = list(data["map"])
        s.values = dict(data["values"])
        for key in ("rng", "phase", "turn", "reduced", "actions_left", "moves_used", "acted",
                    "swapped", "duel_won", "status", "winner", "end_reason"):
            setattr(s, key, data[key])
    except (KeyError, TypeError, IndexError) as e:
        raise ScenarioError("state", "is incomplete or damaged (%r)" % (e,))
    return s


def result(state):
    """The scenario runner's output (the referee's record, in the setup form; no "events")."""
    s = state
    return {"game": NAME, "status": s.status, "winner": s.winner, "end_reason": s.end_reason,
            "scores": scores(s), "turn": current(s), "phase": s.phase,
            "actions_left": s.actions_left, "order": list(s.order), "reduced": s.reduced,
            "map": _map_view(s, True),
            "players": [_player_form(s, s.players[q]) for q in (s.order or s.seats)]}


def rollers(state):
    """The players who roll for the turn order now (ties roll again), in the engine's order."""
    return [q for g in state.groups if len(g) > 1 for q in g]


def actors(state):
    """The seats that may act now: the first player who rolls for the turn order, else the
    player whose turn it is ([] once the game is over). One at a time."""
    if state.status != "ongoing":
        return []
    if state.phase == "order":
        return rollers(state)[:1]
    who = current(state)
    return [who] if who is not None else []


def evaluate(state, seat):
    """How good the position is for `seat` (the bots' yardstick, shared_rules/bots.py and
    search.py): its standing less the best other's. A standing is 10 a point of the cards
    held, less 15 for a dead pawn (it costs an action to rise), less 2 a step from the
    nearest card still on the map (the way to the next win). A finished game is 100000 to
    the winner, -100000 to the others. It reads only what every player sees (points of cards
    won are public when won; the map's cards count by where they lie, not what they are)."""
    s = state
    if s.phase == "finished":
        return 100000 if s.winner == seat else (-100000 if s.winner is not None else 0)
    cards = [i for i in range(len(s.map)) if s.map[i] is not None]
    best = None
    mine = 0
    for q in s.seats:
        p = s.players[q]
        value = 10 * score(s, p) - (0 if p.alive else 15)
        if cards and p.cell >= 0:
            value -= 2 * min([DIST[p.cell][c] for c in cards])
        if q == seat:
            mine = value
        elif best is None or value > best:
            best = value
    return mine - (best or 0)
