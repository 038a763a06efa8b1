"""Fairy Tale Fight Club: the rules engine for the rulebook *Fairy Tale Fight Club* (Gary
Kagan), 1-4 bounty hunters and the solo variant. This docstring states the rules as
implemented, in our words; the book's words are quoted only where they were unclear.

The rules in short. Seats are "p1".."p4", clockwise in that order. Creature cards are
numbered 1-10 (twelve 1s ... three 10s, 75 cards); ids are "c<value>-<n>" with the value
two digits ("c03-07" is the seventh 3), so ids sort by value. The creature deck is
shuffled, the top four go face up as the Market, every player gets five cards; the player
with the highest sum goes first and every other player gets one more card. The contract
deck is built from the book's four tables for the player count (below) and the top four
(all Level I) go face up in the contract area, each getting the gold of its coin symbol.
Everybody starts with a Wheelbarrow; the Hand Cart, Horse Wagon and War Wagon are bought
in that order, one of each (catalog "wagons": capacity, gold price, creature-point price,
VP, hand size). A turn: up to two limited actions and any free actions ("play" phase,
ended by "end_actions"), then draw up to / discard down to the hand size ("draw" phase),
then one creature from the hand into the Market ("market" phase). When the creature deck
runs out it is rebuilt at once from the Market and the discard pile, shuffled, and four
cards go back to the Market. A contract is completed (a free action) when one wagon holds
exactly its creatures: they are discarded, the player takes the contract and its gold,
and a new contract is drawn into the area; an event drawn instead is resolved at once and
the drawing goes on until a contract comes. Once the contract deck is empty the game ends
as soon as only four contracts are left in play. Score: contract VP + wagon VP + one VP
per three gold + 3 per set of three matching castle flags + 3 per set of five different
flags. The highest score wins; ties: most gold, then fewest contracts, else no winner.

The contract deck ("bottom", "middle", "top" sets, each shuffled on its own and stacked,
then four Level I on top), counts for 1/2/3/4 players, taken at random from the pools:
  bottom: Level I 1/1/1/0, Level II 1/2/2/3, Level III 2/4/5/6, events 1/2/3/4
  middle: Level I 1/1/3/3, Level II 3/4/6/8, events 1/2/3/4
  top:    Level I 5/4/6/8, events 1/2/3/4
  first:  Level I 4/4/4/4                      (totals 20/26/36/44 cards)

Decisions where the book is unclear (each in the catalog or stated here):
- The catalog (shared_rules/data/fightclub_cards.json) holds what the book does not
  print: each contract's creatures (Level I three, II four, III five), VP (I 2-4, II 4-6,
  III 7-9, higher for higher creature sums), coins (the "Gold Coin Symbol": 1 gold on a
  third of the Level I and II contracts, 2 on a third of the Level III) and castle flag
  (one of five: rose, thorn, glass, beanstalk, tower; "the five castle arenas"), and the
  24 events with their texts. An owner of the printed cards edits the data.
- Gold: "40 Gold tokens" is the bank. Gold paid goes back to it; gold given (a coin
  symbol, a prize, an event) comes from it, as much as it holds.
- "Player with the highest creature value sum goes first": a tie goes to the tied seat
  first in seat order.
- Hand Cart: "the next Contract card should be put into" play: the purchase draws a
  contract (events resolved, drawing again until a contract comes), so the area grows by
  one per player's first Hand Cart. Wagons other than the Wheelbarrow are never lost, so
  a player buys each at most once.
- Wheelbarrow: "5+ Creature Points from hand if destroyed": a destroyed Wheelbarrow may be
  bought back for creature points only (no gold price is printed), as a limited action,
  and is never needed before the next wagon. The War Wagon has no creature-point price
  ("3 gold"); wagon VP: Hand Cart 1, Horse Wagon 3, others 0.
- Paying creature points: any group from the hand whose sum is at least the price.
- "Market exchange": one hand card for two or more Market cards whose sum equals it, or
  two or more hand cards for one Market card equal to their sum (a one-for-one trade of
  equal numbers is no exchange). "Discard any one card, draw one creature" takes the card
  from the hand.
- The end of a turn: the Order of play says "3. Put one creature card into The Market",
  the End of Turn list "2. Add one new creature to 'The Market'". Decision: the player
  puts one creature card from the hand, chosen, after drawing up to (or discarding down
  to) the hand size. Reason: the Order of play, the list the book prints on every
  player's reference card, says "Put", the word it uses for a player laying down its own
  cards ("Put down MANY hand creature cards into the Market"), and its three steps are
  the player's own; wherever a creature comes from the deck the book says "draw" ("draw
  one new creature card into your hand") or names the deck ("put the top four cards face
  up"). So "new" in the End of Turn list is read as one more creature for the Market,
  not a card turned up from the deck. The other reading (the top card of the creature
  deck, every hand left at its maximum between turns) is not offered as an option.
- Reserving: "Spend 1 Gold coin to reserve a maximum of 1 Creature Contract ... You can
  discard and reserve another": the contract stays in the area (it counts among the
  contracts in play) but only its reserver may complete it; reserving another releases
  the first (the gold spent is gone). A reserved contract scores nothing unless completed.
- Completed contracts are kept "face down" on the table, but everybody saw them taken:
  the views show them.
- Fight Club: "Players that tie are eliminated ... then continue to check": the winner
  is the lowest (or highest) value held by exactly one player; with none, nobody wins.
  Creature fights: every player holding a creature chooses one in turn order from the
  player whose turn it is ("fight_card"); choices are hidden until the last, then shown;
  the cards stay in the hands. A lone player with cards wins without choosing. Gold fights
  count everybody. Prizes: lowest creature draws a creature, highest creature gains a
  gold, lowest gold gains a gold, highest gold draws a creature.
- Passing: "left" is the next seat in turn order, "right" the one before. Each player
  chooses the cards to pass ("pass_cards") in turn order; a player with no more cards than
  asked passes the whole hand without choosing. All passes happen together, then "Players
  that come up short should draw new creature cards to replace the ones they have
  passed": a player left with fewer cards than before the pass draws back up to that
  number. Passing gold ("Gift Exchange") passes as much as one has.
- The ending: "As soon as there are only four Contract cards left in play, the game ends
  immediately", checked once the contract deck is empty, after every action (and at set
  up); a completed contract is then not replaced.
- A game that cannot end: only the War Wagon carries a Level III contract (five
  creatures), it costs 3 gold and nothing else, and gold comes only from coins on
  contracts, events and fights. Once the contract deck is empty no event comes, so if
  more than four contracts are left in play, all Level III, and nobody owns a War Wagon
  or holds 3 gold, nobody can ever complete one and the ending never comes (with 3-4
  players the deck holds more Level III contracts than may be left at the end, so one
  must be completed). The book has no rule for it. Players at a table would stop and
  count; a table left running at a fair must not wait for ever. So the engine ends the
  game there (reason "dead_end", checked with the ending after every action), scored as
  the book's ending is: our rule, not the book's. `dead_end(state)` is that test; it
  never says so of a game that could still end. The greedy bot saves gold for the War
  Wagon (`evaluate`), so it rarely comes to that.
- Castle flag sets: every disjoint set of three matching flags gives 3 VP, and every
  disjoint set of five different flags 3 VP; one contract may be in one set of each kind.
- Solo: "16 rounds of play": the game ends after the 16th turn (or earlier by the normal
  ending); turns are as in the normal game. The Fight Club part of every event and the
  events that pass cards or gold ("events that require other players") are ignored. The
  score bands: "< 20" and "21 - 29" leave 20 out; 20 counts in the second band.
- `max_rounds` (option, default none): the game ends after that many rounds, scored as
  usual. A guard for random play and bots, not a rule of the book.

Chance. Every shuffle and draw uses the engine's PRNG (shared_rules/prng.py) seeded by
the game's seed; a setup can fix the decks in order.

Options: {"players": 1-4 (default 2), "solo": bool (default false; true needs 1 player;
1 player means solo), "max_rounds": n or null}.

Setup (a scenario position; every field optional; the play phase of a turn starts from it):
{"creature_deck": [ids, the next drawn first], "discard": [ids], "market": [ids],
 "contract_deck": [contract or event ids, the next drawn first],
 "contracts": [{"id", "gold"?: n, "reserved_by"?: seat}]  (the contract area),
 "players": {seat: {"hand": [ids], "gold": n, "contracts": [ids completed],
             "wagons": {wagon id: [creature ids] or null (not owned; a wheelbarrow
             destroyed)}}},
 "turn": seat, "first": seat (who started the game: a round ends before it; default
 "p1"), "actions_left": 0-20, "round": n}
Without "creature_deck" the creatures found nowhere else are shuffled into it; with it,
those go to the discard pile. Without "contract_deck" and "contracts" the deck is built
from the tables; with only "contracts", the deck is built from the cards left. A player
without "wagons" has a Wheelbarrow only. Without "market"/"players", they are dealt.

Actions (JSON). Limited (each uses one of the turn's actions):
  {"type": "buy_wagon", "wagon": W}                      pay its gold price
  {"type": "buy_wagon", "wagon": W, "cards": [ids]}      pay creature points from the hand
  {"type": "load", "wagon": W, "cards": [ids]}           a group from the hand into W
  {"type": "move", "from": W, "to": W2, "cards": [ids]}  cards of W into W2
  {"type": "discard", "from": "hand" or W, "cards": [ids]}
  {"type": "swap_draw", "card": id}                      discard a hand card, draw one
  {"type": "exchange", "give": [ids], "take": [ids]}     hand cards for Market cards
Free:
  {"type": "complete", "contract": id, "wagon": W}
  {"type": "buy_action"}                                  2 gold: one more limited action
  {"type": "reserve", "contract": id}                     1 gold
  {"type": "end_actions"}                                 to the draw/discard step
Turn steps and event choices:
  {"type": "draw_up"}  |  {"type": "discard_down", "cards": [ids]}
  {"type": "to_market", "card": id}
  {"type": "fight_card", "card": id}  |  {"type": "pass_cards", "cards": [ids]}
W is "wheelbarrow", "hand_cart", "horse_wagon" or "war_wagon". legal_actions names
cards by the first ids of each value where they lie (`normal_form`); any ids of the same
values are accepted. The choosing seat of an event choice is `actor(state, action)`.
Undo: an action that drew a card, dealt the Market, shuffled, or showed fight cards or
passed cards cannot be undone.

Events carry every card id (the referee's record); `event_view(event, seat)` leaves out
the ids of cards drawn or passed that the seat may not know.

The scenario runner's output ("result"): "status", "winner", "end_reason" (null, or
"four_left", "rounds" for the solo game, "round_limit", "dead_end"), "scores"
({seat: VP}), "score_breakdown" ({seat: {"contracts", "wagons", "gold", "matching_flags",
"different_flags", "total", "gold_held", "contracts_completed"}}, plus "band" in solo),
"turn", "phase", "round", "actions_left", "market", "contracts" (the area with gold and
reservations), "creature_deck"/"contract_deck" (counts), "discard", "pending", "players"
({seat: {"hand", "wagons", "gold", "contracts", "reserved"}}).
"""

from shared_rules import canon
from shared_rules import catalog
from shared_rules import prng
from shared_rules.errors import IllegalAction, ScenarioError, shown
from shared_rules.games import copy, seats, status, winner  # noqa: F401 (the contract)

NAME = "fightclub"
# The hard bot's search (shared_rules/search.py). With two players: the greedy bot's 6 best
# moves, each turn finished by the greedy bot in the same 6 deals (fewer once 3,000 actions
# were judged), judged by what the seat gains less what the other player gains (`evaluate`
# counts the seat's own holdings only). With more: the tree plans the seat's own turn (its
# actions, judged where the turn ends), the greedy move starting with 10 visits
# (BENCHMARKS.md "The hard bot").
SEARCH = {"prior": 10, "relative": True, "turn": True, "plan": [6, 6, 3000]}
# Every draw and shuffle in play shows in its action's events (`undo_blocker`), and
# `evaluate` reads no deck's order: the greedy bot judges an action that drew nothing
# without imagining the decks (shared_rules/bots.py).
CHANCE_SHOWN = True

INFO = {"title": "Fairy Tale Fight Club", "min_players": 1, "max_players": 4,
        "default_players": 2, "modes": {}, "chance": True, "hidden": True}

SEATS = ("p1", "p2", "p3", "p4")
WAGONS = ("wheelbarrow", "hand_cart", "horse_wagon", "war_wagon")
BUY_ORDER = ("hand_cart", "horse_wagon", "war_wagon")
FIGHTS = ("lowest_creature", "highest_creature", "lowest_gold", "highest_gold")
EFFECTS = ("find_gold", "lose_gold", "draw", "pass_cards", "pass_gold", "destroy_wheelbarrow",
           "contract_gold", "market_refresh")
NEEDS_OTHERS = ("pass_cards", "pass_gold")
FLAGS = ("rose", "thorn", "glass", "beanstalk", "tower")
HAND_SIZE = 5
MARKET_SIZE = 4
AREA_START = 4
ACTIONS_PER_TURN = 2
EXTRA_ACTION_GOLD = 2
RESERVE_GOLD = 1
BANK_GOLD = 40
SOLO_ROUNDS = 16
SET_VP = 3
GOLD_PER_VP = 3
# The greedy bot's weights (evaluate): points per VP held, per gold coin, per coin saved
# toward the War Wagon, per creature of wagon capacity, for owning the War Wagon, and for
# winning.
EVAL_VP = 100
EVAL_GOLD = 30
EVAL_SAVINGS = 100
EVAL_CAPACITY = 25
EVAL_WAR_WAGON = 300
EVAL_WIN = 100000
LEVEL_SIZE = {1: 3, 2: 4, 3: 5}
POOL_SIZE = {1: 35, 2: 25, 3: 15}
EVENT_CARDS = 24
# The book's tables: per player count, (Level I, Level II, Level III, events) in each set,
# bottom first; the last set is the four Level I cards on top.
DECK_SETS = (
    {1: (1, 1, 2, 1), 2: (1, 2, 4, 2), 3: (1, 2, 5, 3), 4: (0, 3, 6, 4)},
    {1: (1, 3, 0, 1), 2: (1, 4, 0, 2), 3: (3, 6, 0, 3), 4: (3, 8, 0, 4)},
    {1: (5, 0, 0, 1), 2: (4, 0, 0, 2), 3: (6, 0, 0, 3), 4: (8, 0, 0, 4)},
    {1: (4, 0, 0, 0), 2: (4, 0, 0, 0), 3: (4, 0, 0, 0), 4: (4, 0, 0, 0)},
)
# "How did you do?": (lowest score of the band, the book's words).
SOLO_BANDS = (
    (50, "The Castles will relish in the coming Battles of the Fairy Tale Creatures! "
         "Victory!"),
    (40, "Great Hunting skills! Victory is forthcoming!"),
    (30, "You are an apprentice Fairy Tale Bounty Hunter. Good job!"),
    (20, "Keep at it, bounty hunting isn't always easy."),
    (None, "You have been destroyed in the middle of the market place and never deliver "
           "the creatures."),
)
LIMITED = ("buy_wagon", "load", "move", "discard", "swap_draw", "exchange")
FREE = ("complete", "buy_action", "reserve", "end_actions")
STEPS = ("draw_up", "discard_down", "to_market")
CHOICES = ("fight_card", "pass_cards")
ACTION_TYPES = LIMITED + FREE + STEPS + CHOICES


def value(cid):
    """A creature card's number, from its id ("c07-03" is a 7)."""
    return int(cid[1:3])


def creature_id(v, n):
    return "c%02d-%02d" % (v, n)


# ---------------------------------------------------------------- catalog

def _need(cond, field, message):
    if not cond:
        raise ScenarioError(field, message)


def _int_in(v, lo, hi):
    return catalog.is_int(v) and lo <= v <= hi


class Catalog:
    """Creatures, wagons, contracts and events, validated; immutable once built."""

    def __init__(self, doc):
        _need(isinstance(doc, dict), "catalog", "must be an object")
        creatures = doc.get("creatures")
        _need(isinstance(creatures, list) and creatures, "creatures",
              "must be a list of {value, count}")
        self.creature_ids = []
        self.creature_counts = {}  # value -> how many cards of it the game has
        seen = {}
        for i, row in enumerate(creatures):
            at = "creatures[%d]" % i
            _need(isinstance(row, dict), at, "must be an object {value, count}")
            _need(_int_in(row.get("value"), 1, 10), at + ".value",
                  "must be a whole number from 1 to 10")
            _need(row["value"] not in seen, at + ".value", "%d appears twice" % row["value"])
            _need(_int_in(row.get("count"), 0, 99), at + ".count",
                  "must be a whole number from 0 to 99")
            seen[row["value"]] = True
            self.creature_counts[row["value"]] = row["count"]
            for n in range(1, row["count"] + 1):
                self.creature_ids.append(creature_id(row["value"], n))
        self.creature_ids.sort()
        self.wagons = {}
        wagons = doc.get("wagons")
        _need(isinstance(wagons, list) and len(wagons) == len(WAGONS), "wagons",
              "must list the %d wagons (%s)" % (len(WAGONS), ", ".join(WAGONS)))
        for i, w in enumerate(wagons):
            at = "wagons[%d]" % i
            _need(isinstance(w, dict), at, "must be an object")
            _need(w.get("id") == WAGONS[i], at + ".id", "must be %s (the wagons in order: %s)"
                  % (shown(WAGONS[i]), ", ".join(WAGONS)))
            _need(isinstance(w.get("name"), str) and w["name"], at + ".name",
                  "must be a non-empty string")
            _need(_int_in(w.get("capacity"), 1, 10), at + ".capacity",
                  "must be a whole number from 1 to 10")
            for key in ("gold", "creature_points", "hand_size"):
                _need(w.get(key) is None or _int_in(w[key], 0, 60), at + "." + key,
                      "must be a whole number from 0 to 60, or null")
            _need(_int_in(w.get("vp"), 0, 20), at + ".vp", "must be a whole number from 0 to 20")
            _need(w.get("draws_contract") in (True, False), at + ".draws_contract",
                  "must be true or false")
            self.wagons[w["id"]] = w
        self.contracts = {}
        self.needs = {}  # contract id -> [(creature number, how many)], for evaluate
        self.events = {}
        self.pools = {1: [], 2: [], 3: []}
        contracts = doc.get("contracts")
        _need(isinstance(contracts, list), "contracts", "must be a list")
        for i, c in enumerate(contracts):
            at = "contracts[%d]" % i
            _need(isinstance(c, dict), at, "must be an object")
            _need(isinstance(c.get("id"), str) and c["id"], at + ".id",
                  "must be a non-empty string")
            _need(c["id"] not in self.contracts, at + ".id", "%s appears twice" % shown(c["id"]))
            _need(isinstance(c.get("name"), str) and c["name"], at + ".name",
                  "must be a non-empty string")
            _need(c.get("level") in (1, 2, 3) and c["level"] is not True, at + ".level",
                  "must be 1, 2 or 3")
            size = LEVEL_SIZE[c["level"]]
            cr = c.get("creatures")
            _need(isinstance(cr, list) and len(cr) == size and
                  all(_int_in(v, 1, 10) for v in cr), at + ".creatures",
                  "must be %d creature numbers from 1 to 10 (Level %d)" % (size, c["level"]))
            _need(_int_in(c.get("vp"), 0, 20), at + ".vp", "must be a whole number from 0 to 20")
            _need(_int_in(c.get("coins"), 0, 5), at + ".coins",
                  "must be a whole number from 0 to 5")
            _need(c.get("flag") in FLAGS, at + ".flag", "must be one of " + ", ".join(FLAGS))
            self.contracts[c["id"]] = {"id": c["id"], "name": c["name"], "level": c["level"],
                                       "creatures": sorted(cr), "vp": c["vp"],
                                       "coins": c["coins"], "flag": c["flag"]}
            self.pools[c["level"]].append(c["id"])
            need = {}
            for v in cr:
                need[v] = need.get(v, 0) + 1
            self.needs[c["id"]] = sorted(need.items())
        events = doc.get("events")
        _need(isinstance(events, list), "events", "must be a list")
        for i, e in enumerate(events):
            at = "events[%d]" % i
            _need(isinstance(e, dict), at, "must be an object")
            _need(isinstance(e.get("id"), str) and e["id"], at + ".id",
                  "must be a non-empty string")
            _need(e["id"] not in self.events and e["id"] not in self.contracts, at + ".id",
                  "%s appears twice" % shown(e["id"]))
            for key in ("name", "text"):
                _need(isinstance(e.get(key), str) and e[key], at + "." + key,
                      "must be a non-empty string")
            _need(e.get("fight") is None or e["fight"] in FIGHTS, at + ".fight",
                  "must be null or one of " + ", ".join(FIGHTS))
            eff = e.get("effect")
            _need(isinstance(eff, dict) and eff.get("kind") in EFFECTS, at + ".effect.kind",
                  "must be one of " + ", ".join(EFFECTS))
            amount = eff.get("amount", 1)
            _need(_int_in(amount, 1, 5), at + ".effect.amount",
                  "must be a whole number from 1 to 5")
            direction = eff.get("direction", "left")
            _need(direction in ("left", "right"), at + ".effect.direction",
                  'must be "left" or "right"')
            self.events[e["id"]] = {"id": e["id"], "name": e["name"], "text": e["text"],
                                    "fight": e["fight"], "kind": eff["kind"],
                                    "amount": amount, "direction": direction}
        for level in (1, 2, 3):
            self.pools[level].sort()
            need = sum(DECK_SETS[k][4][level - 1] for k in range(len(DECK_SETS)))
            _need(len(self.pools[level]) >= need, "contracts",
                  "a 4-player deck needs %d Level %d contracts; the catalog has %d" % (
                      need, level, len(self.pools[level])))
        self.event_ids = sorted(self.events)
        _need(len(self.event_ids) >= 12, "events",
              "a 4-player deck needs 12 events; the catalog has %d" % len(self.event_ids))


_catalogs = {}


def load_catalog():
    if "" not in _catalogs:
        _catalogs[""] = Catalog(catalog.load("fightclub_cards.json"))
    return _catalogs[""]


# ---------------------------------------------------------------- state

class Player:
    __slots__ = ("hand", "wagons", "gold", "contracts", "reserved")

    def copy(self):
        p = Player()
        p.hand = list(self.hand)
        p.wagons = {}
        for w in WAGONS:
            p.wagons[w] = None if self.wagons[w] is None else list(self.wagons[w])
        p.gold = self.gold
        p.contracts = list(self.contracts)
        p.reserved = self.reserved
        return p


def _new_player():
    p = Player()
    p.hand = []
    p.wagons = {"wheelbarrow": [], "hand_cart": None, "horse_wagon": None, "war_wagon": None}
    p.gold = 0
    p.contracts = []
    p.reserved = None
    return p


class State:
    __slots__ = ("options", "seed", "cat", "seats", "solo", "max_rounds", "rng", "deck",
                 "discard", "market", "contract_deck", "area", "area_gold", "bank", "players",
                 "turn", "first", "phase", "actions_left", "round", "status", "winner",
                 "end_reason", "pending", "refill")

    def copy(self):
        s = State()
        for key in ("options", "seed", "cat", "seats", "solo", "max_rounds", "rng", "bank",
                    "turn", "first", "phase", "actions_left", "round", "status", "winner",
                    "end_reason", "refill"):
            setattr(s, key, getattr(self, key))
        s.deck = list(self.deck)
        s.discard = list(self.discard)
        s.market = list(self.market)
        s.contract_deck = list(self.contract_deck)
        s.area = list(self.area)
        s.area_gold = dict(self.area_gold)
        s.players = {}
        for x in self.seats:
            s.players[x] = self.players[x].copy()
        s.pending = _copy_pending(self.pending)
        return s


def _copy_pending(p):
    if p is None:
        return None
    out = dict(p)
    out["order"] = list(p["order"])
    out["choices"] = {}
    for k in p["choices"]:
        out["choices"][k] = list(p["choices"][k])
    return out


def _option(options, key, default):
    return options[key] if key in options and options[key] is not None else default


def _parse_options(options):
    _need(isinstance(options, dict), "options", "must be an object")
    known = ("players", "solo", "max_rounds")
    for key in sorted(options):
        _need(key in known, canon.path("options", key), "unknown option (known: %s)" %
              ", ".join(known))
    solo = _option(options, "solo", False)
    _need(solo in (True, False), "options.solo", "must be true or false")
    players = _option(options, "players", 1 if solo else 2)
    _need(_int_in(players, 1, 4), "options.players", "must be 1, 2, 3 or 4")
    _need(not solo or players == 1, "options.solo", "the solo variant is for 1 player")
    max_rounds = _option(options, "max_rounds", None)
    _need(max_rounds is None or _int_in(max_rounds, 1, 10000), "options.max_rounds",
          "must be a whole number of rounds, or null")
    return players, players == 1, max_rounds


def new_game(options, seed, setup=None, cards=None):
    """A new game, dealt by the seed, or from a scenario position."""
    options = options or {}
    players, solo, max_rounds = _parse_options(options)
    _need(cards is None, "cards", "Fairy Tale Fight Club takes no extra cards: edit "
          "shared_rules/data/fightclub_cards.json")
    _need(catalog.is_int(seed), "seed", "must be an integer")
    s = State()
    s.options = options
    s.seed = seed
    s.cat = load_catalog()
    s.seats = SEATS[:players]
    s.solo = solo
    s.max_rounds = max_rounds
    s.rng = prng.seed_state(seed)
    s.deck = []
    s.discard = []
    s.market = []
    s.contract_deck = []
    s.area = []
    s.area_gold = {}
    s.bank = BANK_GOLD
    s.players = {}
    for x in s.seats:
        s.players[x] = _new_player()
    s.phase = "play"
    s.actions_left = ACTIONS_PER_TURN
    s.round = 1
    s.status = "ongoing"
    s.winner = None
    s.end_reason = None
    s.pending = None
    s.refill = 0
    if setup is not None:
        _need(isinstance(setup, dict), "setup", "must be an object")
        _load_setup(s, setup)
    else:
        _deal(s)
    _check_end(s, [])
    return s


def _shuffled(s, items):
    items = sorted(items)
    s.rng = prng.shuffle(s.rng, items)
    return items


def build_contract_deck(s, players, exclude=None):
    """The contract deck by the book's tables (top = the last item), from the cards not in
    `exclude`; the level pools and the events are each shuffled once, then every set."""
    exclude = exclude or {}
    pools = []
    for level in (1, 2, 3):
        pools.append(_shuffled(s, [c for c in s.cat.pools[level] if c not in exclude]))
    pools.append(_shuffled(s, [e for e in s.cat.event_ids if e not in exclude]))
    deck = []
    for sets in DECK_SETS:
        chosen = []
        counts = sets[players]
        for k in range(4):
            for _ in range(counts[k]):
                if not pools[k]:
                    raise ScenarioError("setup.contracts", "too few cards are left to build "
                                        "the contract deck")
                chosen.append(pools[k].pop())
        deck.extend(_shuffled(s, chosen))
    return deck


def _deal(s):
    s.deck = _shuffled(s, s.cat.creature_ids)
    for _ in range(MARKET_SIZE):
        s.market.append(s.deck.pop())
    s.market.sort()
    for x in s.seats:
        for _ in range(HAND_SIZE):
            s.players[x].hand.append(s.deck.pop())
        s.players[x].hand.sort()
    best = None
    for x in s.seats:
        total = sum([value(c) for c in s.players[x].hand])
        if best is None or total > best:
            best, s.first = total, x
    for x in s.seats:
        if x != s.first:
            s.players[x].hand.append(s.deck.pop())
            s.players[x].hand.sort()
    s.turn = s.first
    s.contract_deck = build_contract_deck(s, len(s.seats))
    for _ in range(AREA_START):
        _place_contract(s, s.contract_deck.pop(), [])


def _place_contract(s, cid, events):
    coins = min(s.cat.contracts[cid]["coins"], s.bank)
    s.bank -= coins
    s.area.append(cid)
    s.area_gold[cid] = coins
    events.append({"type": "contract_drawn", "contract": cid, "gold": coins})


# ---------------------------------------------------------------- setup

def _id_list(value_, field, known, placed, what):
    _need(isinstance(value_, list), field, "must be a list of %s ids" % what)
    for j, cid in enumerate(value_):
        at = "%s[%d]" % (field, j)
        _need(isinstance(cid, str) and cid in known, at, "unknown %s %s" % (what, shown(cid)))
        _need(cid not in placed, at, "%s is already at %s" % (shown(cid), placed.get(cid)))
        placed[cid] = field
    return list(value_)


def _gold(v, field):
    _need(_int_in(v, 0, BANK_GOLD), field, "must be a whole number of gold from 0 to %d" %
          BANK_GOLD)
    return v


def _load_setup(s, setup):
    known = ("creature_deck", "discard", "market", "contract_deck", "contracts", "players",
             "turn", "first", "actions_left", "round")
    for key in sorted(setup):
        _need(key in known, canon.path("setup", key), "unknown field (known: %s)" %
              ", ".join(known))
    cat = s.cat
    creatures = {}
    for c in cat.creature_ids:
        creatures[c] = True
    cards = {}
    for c in cat.contracts:
        cards[c] = True
    for e in cat.events:
        cards[e] = True
    placed = {}
    cplaced = {}
    players = setup.get("players") or {}
    _need(isinstance(players, dict), "setup.players", "must be an object {seat: player}")
    for x in sorted(players):
        _need(x in s.seats, canon.path("setup.players", x), "no such seat (seats: %s)" %
              ", ".join(s.seats))
    for x in s.seats:
        row = players.get(x)
        if row is None:
            continue
        at = "setup.players." + x
        _need(isinstance(row, dict), at, "must be an object")
        for key in sorted(row):
            _need(key in ("hand", "gold", "contracts", "wagons"), canon.path(at, key),
                  "unknown field (known: hand, gold, contracts, wagons)")
        p = s.players[x]
        if "hand" in row:
            p.hand = sorted(_id_list(row["hand"], at + ".hand", creatures, placed, "creature"))
        p.gold = _gold(row.get("gold", 0), at + ".gold")
        done = _id_list(row.get("contracts", []), at + ".contracts", cat.contracts, cplaced,
                        "contract")
        p.contracts = done
        wagons = row.get("wagons")
        if wagons is not None:
            _need(isinstance(wagons, dict), at + ".wagons", "must be an object {wagon: "
                  "[creature ids] or null}")
            for w in sorted(wagons):
                _need(w in WAGONS, canon.path(at + ".wagons", w), "unknown wagon (wagons: %s)"
                      % ", ".join(WAGONS))
            for w in WAGONS:
                cell = wagons.get(w, [] if w == "wheelbarrow" else None)
                if cell is None:
                    p.wagons[w] = None
                    continue
                field = at + ".wagons." + w
                p.wagons[w] = sorted(_id_list(cell, field, creatures, placed, "creature"))
                _need(len(p.wagons[w]) <= cat.wagons[w]["capacity"], field,
                      "the %s holds at most %d creatures" % (cat.wagons[w]["name"],
                                                             cat.wagons[w]["capacity"]))
            for k in range(1, len(BUY_ORDER)):
                if p.wagons[BUY_ORDER[k]] is not None:
                    _need(p.wagons[BUY_ORDER[k - 1]] is not None, at + ".wagons." +
                          BUY_ORDER[k], "the %s is bought after the %s" % (
                              cat.wagons[BUY_ORDER[k]]["name"],
                              cat.wagons[BUY_ORDER[k - 1]]["name"]))
    if "market" in setup:
        s.market = sorted(_id_list(setup["market"], "setup.market", creatures, placed,
                                   "creature"))
    if "discard" in setup:
        s.discard = _id_list(setup["discard"], "setup.discard", creatures, placed, "creature")
    if "creature_deck" in setup:
        deck = _id_list(setup["creature_deck"], "setup.creature_deck", creatures, placed,
                        "creature")
        deck.reverse()  # a draw takes the last item
        s.deck = deck
        for c in cat.creature_ids:
            if c not in placed:
                s.discard.append(c)
    else:
        s.deck = _shuffled(s, [c for c in cat.creature_ids if c not in placed])
    if "market" not in setup:
        for _ in range(MARKET_SIZE):
            if s.deck:
                s.market.append(s.deck.pop())
        s.market.sort()
    for x in s.seats:
        if "hand" not in (players.get(x) or {}):
            for _ in range(HAND_SIZE):
                if s.deck:
                    s.players[x].hand.append(s.deck.pop())
            s.players[x].hand.sort()
    gold_out = 0
    for x in s.seats:
        gold_out += s.players[x].gold
    contracts = setup.get("contracts")
    if contracts is not None:
        _need(isinstance(contracts, list), "setup.contracts", "must be a list of {id, gold}")
        for i, row in enumerate(contracts):
            at = "setup.contracts[%d]" % i
            _need(isinstance(row, dict), at, "must be an object {id, gold, reserved_by}")
            for key in sorted(row):
                _need(key in ("id", "gold", "reserved_by"), canon.path(at, key),
                      "unknown field (known: id, gold, reserved_by)")
            cid = row.get("id")
            _need(isinstance(cid, str) and cid in cat.contracts, at + ".id",
                  "unknown contract %s" % shown(cid))
            _need(cid not in cplaced, at + ".id", "%s is already at %s" % (shown(cid),
                                                                          cplaced.get(cid)))
            cplaced[cid] = at
            s.area.append(cid)
            s.area_gold[cid] = _gold(row.get("gold", cat.contracts[cid]["coins"]), at + ".gold")
            gold_out += s.area_gold[cid]
            by = row.get("reserved_by")
            if by is not None:
                _need(isinstance(by, str) and by in s.seats, at + ".reserved_by",
                      "must be a seat (%s) or null" % ", ".join(s.seats))
                _need(s.players[by].reserved is None, at + ".reserved_by",
                      "%s already reserved %s (one contract at most)" % (
                          by, s.players[by].reserved))
                s.players[by].reserved = cid
    if "contract_deck" in setup:
        s.contract_deck = _id_list(setup["contract_deck"], "setup.contract_deck", cards,
                                   cplaced, "contract or event")
        s.contract_deck.reverse()
    else:
        s.contract_deck = build_contract_deck(s, len(s.seats), cplaced)
    if contracts is None:
        for _ in range(AREA_START):
            _need(s.contract_deck and s.contract_deck[-1] in cat.contracts,
                  "setup.contract_deck", "the top four cards must be contracts when no "
                  "contract area is given")
            _place_contract(s, s.contract_deck.pop(), [])
            gold_out += s.area_gold[s.area[-1]]
    _need(gold_out <= BANK_GOLD, "setup", "%d gold is handed out; there are %d" % (
        gold_out, BANK_GOLD))
    s.bank = BANK_GOLD - gold_out
    turn = setup.get("turn", s.seats[0])
    _need(isinstance(turn, str) and turn in s.seats, "setup.turn", "must be one of " +
          ", ".join(s.seats))
    s.turn = turn
    first = setup.get("first", s.seats[0])
    _need(isinstance(first, str) and first in s.seats, "setup.first", "must be one of " +
          ", ".join(s.seats))
    s.first = first
    s.actions_left = setup.get("actions_left", ACTIONS_PER_TURN)
    _need(_int_in(s.actions_left, 0, 20), "setup.actions_left",
          "must be a whole number from 0 to 20")
    s.round = setup.get("round", 1)
    _need(_int_in(s.round, 1, 10000), "setup.round", "must be a whole number from 1")


# ---------------------------------------------------------------- cards moving

def _reshuffle(s, events):
    """The creature deck ran out: the Market and the discards become the deck, four go back
    to the Market."""
    if s.deck or not s.discard:
        return
    s.deck = _shuffled(s, s.market + s.discard)
    s.market = []
    s.discard = []
    while s.deck and len(s.market) < MARKET_SIZE:
        s.market.append(s.deck.pop())
    s.market.sort()
    events.append({"type": "creatures_reshuffled", "deck": len(s.deck),
                   "market": list(s.market)})


def _draw(s, seat, n, events, why):
    """`seat` draws up to n creatures; returns how many it got."""
    got = []
    for _ in range(n):
        if not s.deck:
            _reshuffle(s, events)
        if not s.deck:
            break
        got.append(s.deck.pop())
        if not s.deck:
            _reshuffle(s, events)
    p = s.players[seat]
    p.hand.extend(got)
    p.hand.sort()
    # The card ids drawn are the drawer's secret: events only say how many.
    events.append({"type": "creatures_drawn", "seat": seat, "count": len(got), "why": why,
                   "cards": got})
    return len(got)


def _discard_cards(s, cards):
    s.discard.extend(cards)


def _remove(lst, cards):
    for c in cards:
        lst.remove(c)


def _give_gold(s, seat, n):
    n = min(n, s.bank)
    s.bank -= n
    s.players[seat].gold += n
    return n


def _pay_gold(s, seat, n):
    n = min(n, s.players[seat].gold)
    s.players[seat].gold -= n
    s.bank += n
    return n


def hand_size(s, seat):
    p = s.players[seat]
    size = HAND_SIZE
    for w in WAGONS:
        extra = s.cat.wagons[w]["hand_size"]
        if p.wagons[w] is not None and extra is not None and extra > size:
            size = extra
    return size


def next_to_buy(s, seat):
    """The next wagon of the purchase order the seat has not bought, or None."""
    for w in BUY_ORDER:
        if s.players[seat].wagons[w] is None:
            return w
    return None


def _turn_order(s, start):
    i = s.seats.index(start)
    return [s.seats[(i + k) % len(s.seats)] for k in range(len(s.seats))]


def _neighbour(s, seat, direction):
    i = s.seats.index(seat)
    step = 1 if direction == "left" else -1
    return s.seats[(i + step) % len(s.seats)]


# ---------------------------------------------------------------- contracts and events

def _refill(s, n, events):
    """Draw contracts into the area until n came, resolving events on the way; stops at a
    choice an event waits for (s.refill keeps the rest)."""
    while n > 0 and s.contract_deck:
        cid = s.contract_deck.pop()
        if cid in s.cat.contracts:
            _place_contract(s, cid, events)
            n -= 1
            continue
        ev = s.cat.events[cid]
        events.append({"type": "event_drawn", "event": cid, "name": ev["name"],
                       "fight": ev["fight"], "text": ev["text"]})
        s.pending = {"event": cid, "stage": "start", "order": [], "choices": {},
                     "hands": {}}
        s.refill = n
        if not _run_event(s, events):
            return
        n = s.refill
    s.refill = 0


def _run_event(s, events):
    """Carry the pending event on; False while it waits for a player's choice."""
    pend = s.pending
    ev = s.cat.events[pend["event"]]
    if pend["stage"] == "start":
        pend["stage"] = "fight"
        if ev["fight"] is not None and not s.solo:
            if ev["fight"] in ("lowest_gold", "highest_gold"):
                values = {}
                for x in s.seats:
                    values[x] = [s.players[x].gold]
                _fight_result(s, ev, values, events)
            else:
                holders = [x for x in _turn_order(s, s.turn) if s.players[x].hand]
                if len(holders) == 1:
                    _fight_result(s, ev, {holders[0]: []}, events)
                elif holders:
                    pend["order"] = holders
                    s.phase = "fight"
                    return False
        elif ev["fight"] is not None:
            events.append({"type": "fight_ignored", "event": ev["id"], "why": "solo"})
    if pend["stage"] == "fight" and s.phase == "fight":
        values = {}
        for x in pend["order"]:
            values[x] = [value(pend["choices"][x][0])]
        events.append({"type": "fight_cards_shown", "cards": dict(
            [(x, pend["choices"][x][0]) for x in pend["order"]])})
        pend["choices"] = {}
        pend["order"] = []
        s.phase = "play"
        _fight_result(s, ev, values, events)
    if pend["stage"] == "fight":
        pend["stage"] = "effect"
        if ev["kind"] in NEEDS_OTHERS and s.solo:
            events.append({"type": "event_ignored", "event": ev["id"], "why": "solo"})
        elif ev["kind"] == "pass_cards":
            pend["order"] = []
            for x in _turn_order(s, s.turn):
                hand = s.players[x].hand
                pend["hands"][x] = len(hand)
                if len(hand) > ev["amount"]:
                    pend["order"].append(x)
                else:
                    pend["choices"][x] = list(hand)
            if pend["order"]:
                s.phase = "pass"
                return False
            _pass_cards(s, ev, events)
        else:
            _event_effect(s, ev, events)
    elif pend["stage"] == "effect" and s.phase == "pass":
        s.phase = "play"
        _pass_cards(s, ev, events)
    s.pending = None
    s.phase = "play"
    return True


def _fight_result(s, ev, values, events):
    """The winner: the extreme value held by exactly one player ("Players that tie are
    eliminated")."""
    count = {}
    for x in values:
        for v in values[x]:
            count[v] = count.get(v, 0) + 1
    unique = sorted([v for v in count if count[v] == 1])
    win = None
    if len(values) == 1:
        win = list(values)[0]
    elif unique:
        best = unique[0] if ev["fight"].startswith("lowest") else unique[-1]
        for x in sorted(values):
            if values[x] == [best]:
                win = x
    shown_values = {}
    for x in values:
        if values[x]:
            shown_values[x] = values[x][0]
    events.append({"type": "fight", "event": ev["id"], "fight": ev["fight"],
                   "values": shown_values, "winner": win})
    if win is None:
        return
    if ev["fight"] in ("highest_creature", "lowest_gold"):
        got = _give_gold(s, win, 1)
        events.append({"type": "gold_gained", "seat": win, "amount": got, "why": "fight"})
    else:
        _draw(s, win, 1, events, "fight")


def _pass_cards(s, ev, events):
    pend = s.pending
    moving = {}
    for x in s.seats:
        cards = pend["choices"].get(x, [])
        _remove(s.players[x].hand, cards)
        moving[x] = cards
    received = {}
    for x in s.seats:
        to = _neighbour(s, x, ev["direction"])
        s.players[to].hand.extend(moving[x])
        s.players[to].hand.sort()
        received[to] = list(moving[x])
    events.append({"type": "cards_passed", "direction": ev["direction"],
                   "counts": dict([(x, len(moving[x])) for x in s.seats]),
                   "cards": moving, "received": received})
    pend["choices"] = {}
    pend["order"] = []
    for x in _turn_order(s, s.turn):
        short = pend["hands"].get(x, 0) - len(s.players[x].hand)
        if short > 0:
            _draw(s, x, short, events, "came_up_short")


def _event_effect(s, ev, events):
    kind = ev["kind"]
    amount = ev["amount"]
    order = _turn_order(s, s.turn)
    if kind == "find_gold":
        for x in order:
            events.append({"type": "gold_gained", "seat": x, "amount": _give_gold(s, x, amount),
                           "why": "event"})
    elif kind == "lose_gold":
        for x in order:
            events.append({"type": "gold_paid", "seat": x, "amount": _pay_gold(s, x, amount),
                           "why": "event"})
    elif kind == "draw":
        for x in order:
            _draw(s, x, amount, events, "event")
    elif kind == "pass_gold":
        moving = {}
        for x in s.seats:
            moving[x] = min(amount, s.players[x].gold)
            s.players[x].gold -= moving[x]
        for x in s.seats:
            s.players[_neighbour(s, x, ev["direction"])].gold += moving[x]
        events.append({"type": "gold_passed", "direction": ev["direction"], "amounts": moving})
    elif kind == "destroy_wheelbarrow":
        for x in order:
            cards = s.players[x].wagons["wheelbarrow"]
            if cards is not None:
                _discard_cards(s, cards)
                s.players[x].wagons["wheelbarrow"] = None
                events.append({"type": "wheelbarrow_destroyed", "seat": x,
                               "discarded": list(cards)})
    elif kind == "contract_gold":
        for cid in s.area:
            if s.cat.contracts[cid]["coins"] > 0:
                n = min(amount, s.bank)
                s.bank -= n
                s.area_gold[cid] += n
                events.append({"type": "contract_gold_added", "contract": cid, "amount": n})
    elif kind == "market_refresh":
        _discard_cards(s, s.market)
        events.append({"type": "market_discarded", "cards": list(s.market)})
        s.market = []
        for _ in range(MARKET_SIZE):
            if not s.deck:
                _reshuffle(s, events)
            if not s.deck:
                break
            s.market.append(s.deck.pop())
        s.market.sort()
        events.append({"type": "market_dealt", "market": list(s.market)})


# ---------------------------------------------------------------- checks

def _fail(code, message):
    raise IllegalAction(code, message)


def _wagon_name(s, w):
    return s.cat.wagons[w]["name"]


def _owned_wagon(s, seat, w, field):
    if not isinstance(w, str) or w not in WAGONS:
        _fail("bad_action", 'The action needs "%s": one of %s.' % (field, ", ".join(WAGONS)))
    if s.players[seat].wagons[w] is None:
        _fail("no_such_wagon", "You have no %s." % _wagon_name(s, w))
    return w


def _cards_from(lst, cards, where, field="cards", minimum=1):
    """Check that `cards` is a list of distinct ids, all in `lst`; returns it."""
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        _fail("bad_action", 'The action needs "%s": a list of creature card ids.' % field)
    if len(cards) < minimum:
        _fail("bad_action", 'Give at least %d card%s in "%s".' % (
            minimum, "" if minimum == 1 else "s", field))
    seen = {}
    for c in cards:
        if c in seen:
            _fail("bad_action", "%s is listed twice." % shown(c))
        seen[c] = True
        if c not in lst:
            _fail("card_not_there", "%s is not in %s." % (shown(c), where))
    return cards


def _one_card(lst, cid, where, field="card"):
    if not isinstance(cid, str):
        _fail("bad_action", 'The action needs "%s": a creature card id.' % field)
    if cid not in lst:
        _fail("card_not_there", "%s is not in %s." % (shown(cid), where))
    return cid


def _total(cards):
    return sum([value(c) for c in cards])


def _contract_in_area(s, seat, cid):
    if not isinstance(cid, str) or cid not in s.area:
        _fail("no_such_contract", "%s is not a contract in play." % (shown(cid),))
    for x in s.seats:
        if x != seat and s.players[x].reserved == cid:
            _fail("reserved", "%s reserved that contract." % x)
    return cid


def _check_limited(s, seat, action, kind):
    p = s.players[seat]
    if s.actions_left < 1:
        _fail("no_actions_left", "You have no limited actions left (buy one for %d gold)." %
              EXTRA_ACTION_GOLD)
    if kind == "buy_wagon":
        w = action.get("wagon")
        if not isinstance(w, str) or w not in WAGONS:
            _fail("bad_action", 'Say which wagon: "wagon": one of %s.' % ", ".join(WAGONS))
        info = s.cat.wagons[w]
        if p.wagons[w] is not None:
            _fail("wagon_owned", "You already have a %s." % info["name"])
        if w != "wheelbarrow" and next_to_buy(s, seat) != w:
            _fail("wagon_order", "Wagons are bought in order: the %s comes first." %
                  _wagon_name(s, next_to_buy(s, seat)))
        if "cards" in action:
            if info["creature_points"] is None:
                _fail("no_creature_price", "The %s is bought with gold only." % info["name"])
            cards = _cards_from(p.hand, action["cards"], "your hand")
            if _total(cards) < info["creature_points"]:
                _fail("not_enough_points", "The %s costs %d or more creature points; those "
                      "cards make %d." % (info["name"], info["creature_points"], _total(cards)))
        else:
            if info["gold"] is None:
                _fail("no_gold_price", "The %s is bought back with %d or more creature points "
                      "only." % (info["name"], info["creature_points"]))
            if p.gold < info["gold"]:
                _fail("not_enough_gold", "The %s costs %d gold and you have %d." % (
                    info["name"], info["gold"], p.gold))
        return
    if kind == "load":
        w = _owned_wagon(s, seat, action.get("wagon"), "wagon")
        cards = _cards_from(p.hand, action.get("cards"), "your hand")
        room = s.cat.wagons[w]["capacity"] - len(p.wagons[w])
        if len(cards) > room:
            _fail("wagon_full", "The %s has room for %d more creature%s." % (
                _wagon_name(s, w), room, "" if room == 1 else "s"))
        return
    if kind == "move":
        a = _owned_wagon(s, seat, action.get("from"), "from")
        b = _owned_wagon(s, seat, action.get("to"), "to")
        if a == b:
            _fail("same_wagon", "Move cards to a different wagon.")
        cards = _cards_from(p.wagons[a], action.get("cards"), "your " + _wagon_name(s, a))
        room = s.cat.wagons[b]["capacity"] - len(p.wagons[b])
        if len(cards) > room:
            _fail("wagon_full", "The %s has room for %d more creature%s." % (
                _wagon_name(s, b), room, "" if room == 1 else "s"))
        return
    if kind == "discard":
        src = action.get("from")
        if src == "hand":
            _cards_from(p.hand, action.get("cards"), "your hand")
        else:
            w = _owned_wagon(s, seat, src, "from")
            _cards_from(p.wagons[w], action.get("cards"), "your " + _wagon_name(s, w))
        return
    if kind == "swap_draw":
        _one_card(p.hand, action.get("card"), "your hand")
        return
    # exchange
    give = _cards_from(p.hand, action.get("give"), "your hand", "give")
    take = _cards_from(s.market, action.get("take"), "the Market", "take")
    if len(give) > 1 and len(take) > 1:
        _fail("several_for_several", "Never trade several cards for several: one card for "
              "several, or several for one.")
    if len(give) == 1 and len(take) == 1:
        _fail("one_for_one", "An exchange is one card for several, or several for one.")
    if _total(give) != _total(take):
        _fail("sums_differ", "The numbers must add up the same: you give %d and take %d." % (
            _total(give), _total(take)))


def _check(s, action):
    """Raise IllegalAction unless `action` is allowed now; returns the acting seat."""
    if not isinstance(action, dict):
        _fail("bad_action", 'An action is an object with a "type".')
    kind = action.get("type")
    if s.status != "ongoing":
        _fail("game_over", "The game is over.")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        _fail("unknown_action", "%s is not an action of Fairy Tale Fight Club." % (
            shown(kind),))
    if kind in CHOICES:
        want = "fight" if kind == "fight_card" else "pass"
        if s.phase != want:
            _fail("wrong_phase", "Nobody is choosing cards for %s now." % (
                "a fight" if want == "fight" else "passing"))
        seat = _chooser(s)
        hand = s.players[seat].hand
        if kind == "fight_card":
            _one_card(hand, action.get("card"), "your hand")
        else:
            ev = s.cat.events[s.pending["event"]]
            cards = _cards_from(hand, action.get("cards"), "your hand")
            if len(cards) != ev["amount"]:
                _fail("pass_count", "Pass %d card%s." % (ev["amount"],
                                                         "" if ev["amount"] == 1 else "s"))
        return seat
    seat = s.turn
    p = s.players[seat]
    if s.phase in ("fight", "pass"):
        _fail("event_choice", "An event waits for %s to choose %s." % (
            _chooser(s), "a fight card" if s.phase == "fight" else "cards to pass"))
    if kind in STEPS:
        if kind == "to_market":
            if s.phase != "market":
                _fail("wrong_phase", "A creature goes to the Market at the end of the turn.")
            _one_card(p.hand, action.get("card"), "your hand")
            return seat
        if s.phase != "draw":
            _fail("wrong_phase", "Draw up or discard down after your actions (end_actions).")
        size = hand_size(s, seat)
        if kind == "draw_up":
            if len(p.hand) >= size:
                _fail("hand_full", "Your hand already holds %d cards (hand size %d)." % (
                    len(p.hand), size))
            return seat
        cards = _cards_from(p.hand, action.get("cards"), "your hand")
        if len(p.hand) - len(cards) != size:
            _fail("discard_count", "Discard down to %d: that is %d card%s." % (
                size, len(p.hand) - size, "" if len(p.hand) - size == 1 else "s"))
        return seat
    if s.phase != "play":
        _fail("wrong_phase", "Your actions are over this turn (now: %s)." % s.phase)
    if kind in LIMITED:
        _check_limited(s, seat, action, kind)
        return seat
    if kind == "buy_action":
        if p.gold < EXTRA_ACTION_GOLD:
            _fail("not_enough_gold", "Another action costs %d gold and you have %d." % (
                EXTRA_ACTION_GOLD, p.gold))
    elif kind == "reserve":
        cid = _contract_in_area(s, seat, action.get("contract"))
        if p.reserved == cid:
            _fail("already_reserved", "You already reserved that contract.")
        if p.gold < RESERVE_GOLD:
            _fail("not_enough_gold", "Reserving costs %d gold and you have %d." % (
                RESERVE_GOLD, p.gold))
    elif kind == "complete":
        cid = _contract_in_area(s, seat, action.get("contract"))
        w = _owned_wagon(s, seat, action.get("wagon"), "wagon")
        want = s.cat.contracts[cid]["creatures"]
        have = sorted([value(c) for c in p.wagons[w]])
        if have != want:
            _fail("no_match", "The %s holds %s; the contract wants exactly %s." % (
                _wagon_name(s, w), _values_text(have), _values_text(want)))
    return seat


def _values_text(values):
    return "nothing" if not values else ", ".join([str(v) for v in values])


def _chooser(s):
    for x in s.pending["order"]:
        if x not in s.pending["choices"]:
            return x
    return None


def validate(state, action):
    """The problem with `action` now (an IllegalAction), or None. Never raises."""
    try:
        _check(state, action)
    except IllegalAction as e:
        return e
    return None


def actor(state, action):
    """The seat that takes `action`: the chooser of an event choice, else the turn's seat."""
    if state.phase in ("fight", "pass") and state.pending is not None:
        return _chooser(state)
    return state.turn


# ---------------------------------------------------------------- apply

def apply(state, action):
    """Apply a legal action and return its events; IllegalAction leaves the state unchanged."""
    seat = _check(state, action)
    s = state
    kind = action["type"]
    events = []
    p = s.players[seat]
    if kind in LIMITED:
        s.actions_left -= 1
    if kind == "buy_wagon":
        w = action["wagon"]
        info = s.cat.wagons[w]
        ev = {"type": "wagon_bought", "seat": seat, "wagon": w}
        if "cards" in action:
            cards = list(action["cards"])
            _remove(p.hand, cards)
            _discard_cards(s, cards)
            ev["cards"] = cards
        else:
            ev["gold"] = _pay_gold(s, seat, info["gold"])
        p.wagons[w] = []
        events.append(ev)
        if info["draws_contract"]:
            _refill(s, 1, events)
    elif kind == "load":
        w = action["wagon"]
        _remove(p.hand, action["cards"])
        p.wagons[w].extend(action["cards"])
        p.wagons[w].sort()
        events.append({"type": "loaded", "seat": seat, "wagon": w,
                       "cards": list(action["cards"])})
    elif kind == "move":
        a, b = action["from"], action["to"]
        _remove(p.wagons[a], action["cards"])
        p.wagons[b].extend(action["cards"])
        p.wagons[b].sort()
        events.append({"type": "moved", "seat": seat, "from": a, "to": b,
                       "cards": list(action["cards"])})
    elif kind == "discard":
        src = action["from"]
        _remove(p.hand if src == "hand" else p.wagons[src], action["cards"])
        _discard_cards(s, action["cards"])
        events.append({"type": "discarded", "seat": seat, "from": src,
                       "cards": list(action["cards"])})
    elif kind == "swap_draw":
        p.hand.remove(action["card"])
        _discard_cards(s, [action["card"]])
        events.append({"type": "discarded", "seat": seat, "from": "hand",
                       "cards": [action["card"]]})
        _draw(s, seat, 1, events, "swap_draw")
    elif kind == "exchange":
        _remove(p.hand, action["give"])
        _remove(s.market, action["take"])
        p.hand.extend(action["take"])
        p.hand.sort()
        s.market.extend(action["give"])
        s.market.sort()
        events.append({"type": "exchanged", "seat": seat, "give": list(action["give"]),
                       "take": list(action["take"])})
    elif kind == "buy_action":
        _pay_gold(s, seat, EXTRA_ACTION_GOLD)
        s.actions_left += 1
        events.append({"type": "action_bought", "seat": seat, "gold": EXTRA_ACTION_GOLD})
    elif kind == "reserve":
        cid = action["contract"]
        _pay_gold(s, seat, RESERVE_GOLD)
        ev = {"type": "reserved", "seat": seat, "contract": cid, "gold": RESERVE_GOLD}
        if p.reserved is not None:
            ev["released"] = p.reserved
        p.reserved = cid
        events.append(ev)
    elif kind == "complete":
        cid, w = action["contract"], action["wagon"]
        cards = p.wagons[w]
        p.wagons[w] = []
        _discard_cards(s, cards)
        s.area.remove(cid)
        gold = s.area_gold.pop(cid)
        p.gold += gold
        p.contracts.append(cid)
        if p.reserved == cid:
            p.reserved = None
        events.append({"type": "contract_completed", "seat": seat, "contract": cid,
                       "wagon": w, "cards": list(cards), "gold": gold,
                       "vp": s.cat.contracts[cid]["vp"]})
        _refill(s, 1, events)
    elif kind == "end_actions":
        s.actions_left = 0
        events.append({"type": "actions_ended", "seat": seat})
        s.phase = "draw"
        _skip_steps(s, events)
    elif kind == "draw_up":
        _draw(s, seat, hand_size(s, seat) - len(p.hand), events, "hand_size")
        s.phase = "market"
        _skip_steps(s, events)
    elif kind == "discard_down":
        _remove(p.hand, action["cards"])
        _discard_cards(s, action["cards"])
        events.append({"type": "discarded", "seat": seat, "from": "hand",
                       "cards": list(action["cards"])})
        s.phase = "market"
        _skip_steps(s, events)
    elif kind == "to_market":
        p.hand.remove(action["card"])
        s.market.append(action["card"])
        s.market.sort()
        events.append({"type": "to_market", "seat": seat, "card": action["card"]})
        _next_turn(s, events)
    elif kind == "fight_card":
        s.pending["choices"][seat] = [action["card"]]
        events.append({"type": "fight_card_chosen", "seat": seat})
        if _chooser(s) is None:
            _resume_event(s, events)
    elif kind == "pass_cards":
        s.pending["choices"][seat] = list(action["cards"])
        events.append({"type": "pass_chosen", "seat": seat})
        if _chooser(s) is None:
            _resume_event(s, events)
    _check_end(s, events)
    return events


def _resume_event(s, events):
    if _run_event(s, events):
        _refill(s, s.refill, events)


def _skip_steps(s, events):
    """Pass over the draw/discard step when the hand is at its size, and the Market step
    when the hand is empty."""
    seat = s.turn
    if s.phase == "draw" and len(s.players[seat].hand) == hand_size(s, seat):
        s.phase = "market"
    if s.phase == "draw" and len(s.players[seat].hand) < hand_size(s, seat) and \
            not s.deck and not s.discard:
        s.phase = "market"  # nothing left to draw
    if s.phase == "market" and not s.players[seat].hand:
        _next_turn(s, events)


def _next_turn(s, events):
    ended = s.turn
    s.turn = _neighbour(s, ended, "left")
    events.append({"type": "turn_ended", "seat": ended})
    if s.turn == s.first:
        s.round += 1
        if s.solo and s.round > SOLO_ROUNDS:
            _finish(s, "rounds", events)
            return
        if s.max_rounds is not None and s.round > s.max_rounds:
            _finish(s, "round_limit", events)
            return
    s.phase = "play"
    s.actions_left = ACTIONS_PER_TURN
    events.append({"type": "turn_started", "seat": s.turn, "round": s.round})


def _check_end(s, events):
    """"As soon as there are only four Contract cards left in play, the game ends
    immediately" (once the contract deck is empty)."""
    if s.status != "ongoing" or s.phase in ("fight", "pass"):
        return
    if not s.contract_deck and len(s.area) <= AREA_START:
        _finish(s, "four_left", events)
    elif dead_end(s):
        _finish(s, "dead_end", events)


def _finish(s, reason, events):
    s.status = "finished"
    s.phase = "finished"
    s.end_reason = reason
    s.actions_left = 0
    s.winner = _winner(s)
    events.append({"type": "game_over", "reason": reason, "winner": s.winner,
                   "scores": scores(s)})


def undo_blocker(action, events):
    """Why this action cannot be taken back (a card drawn, dealt or shown), or None."""
    for ev in events:
        t = ev["type"]
        if t in ("creatures_drawn", "contract_drawn", "event_drawn", "creatures_reshuffled",
                 "market_dealt"):
            return "a card was drawn"
        if t in ("fight_cards_shown", "cards_passed"):
            return "cards were shown or passed"
    return None


# ---------------------------------------------------------------- scoring

def score_breakdown(s, seat):
    p = s.players[seat]
    contract_vp = 0
    flags = {}
    for cid in p.contracts:
        c = s.cat.contracts[cid]
        contract_vp += c["vp"]
        flags[c["flag"]] = flags.get(c["flag"], 0) + 1
    wagon_vp = 0
    for w in WAGONS:
        if p.wagons[w] is not None:
            wagon_vp += s.cat.wagons[w]["vp"]
    matching = 0
    for f in FLAGS:
        matching += flags.get(f, 0) // 3
    different = min([flags.get(f, 0) for f in FLAGS])
    out = {"contracts": contract_vp, "wagons": wagon_vp, "gold": p.gold // GOLD_PER_VP,
           "matching_flags": matching * SET_VP, "different_flags": different * SET_VP,
           "gold_held": p.gold, "contracts_completed": len(p.contracts)}
    out["total"] = (out["contracts"] + out["wagons"] + out["gold"] + out["matching_flags"] +
                    out["different_flags"])
    if s.solo:
        out["band"] = solo_band(out["total"])
    return out


def solo_band(total):
    for low, words in SOLO_BANDS:
        if low is None or total >= low:
            return words
    return None


def scores(s):
    out = {}
    for x in s.seats:
        out[x] = score_breakdown(s, x)["total"]
    return out


def _winner(s):
    """Most VP; ties: most gold, then fewest contracts; still tied: nobody."""
    if s.solo:
        return s.seats[0]
    keys = {}
    for x in s.seats:
        b = score_breakdown(s, x)
        keys[x] = (b["total"], b["gold_held"], -b["contracts_completed"])
    best = max([keys[x] for x in s.seats])
    top = [x for x in s.seats if keys[x] == best]
    return top[0] if len(top) == 1 else None


# ---------------------------------------------------------------- legal actions

def _by_value(cards):
    out = []
    for c in sorted(cards):
        v = value(c)
        if out and out[-1][0] == v:
            out[-1][1].append(c)
        else:
            out.append((v, [c]))
    return out


def groups(cards, lo, hi, max_sum=1000):
    """Every sub-multiset of `cards` by value with lo..hi cards and sum <= max_sum, each
    named by the first ids of each value (the normal form)."""
    vals = _by_value(cards)
    out = []

    def rec(i, chosen, n, total):
        if i == len(vals):
            if n >= lo:
                out.append(list(chosen))
            return
        v, ids = vals[i]
        k = 0
        while k <= len(ids):
            if n + k > hi or total + k * v > max_sum:
                break
            rec(i + 1, chosen + ids[:k], n + k, total + k * v)
            k += 1
    rec(0, [], 0, 0)
    return out


def _singles(cards):
    return [ids[0] for v, ids in _by_value(cards)]


def _candidates(s, relaxed=False):
    """The legal actions now, in a fixed order; `relaxed`, a superset of them (every wagon,
    owned or not, every group whatever its sum or size).

    Without `relaxed` each candidate is filtered here by the same tests `_check` makes, so
    that the search's many calls never build a refusal's message (a test holds the two
    lists equal: the relaxed ones `validate` accepts, in the same order)."""
    if s.status != "ongoing":
        return []
    if s.phase in ("fight", "pass"):
        seat = _chooser(s)
        hand = s.players[seat].hand
        if s.phase == "fight":
            return [{"type": "fight_card", "card": c} for c in _singles(hand)]
        n = s.cat.events[s.pending["event"]]["amount"]
        return [{"type": "pass_cards", "cards": g} for g in groups(hand, n, n)]
    seat = s.turn
    p = s.players[seat]
    out = []
    if s.phase == "draw":
        if len(p.hand) < hand_size(s, seat) or relaxed:
            out.append({"type": "draw_up"})
        excess = len(p.hand) - hand_size(s, seat)
        if excess > 0 or relaxed:
            k = max(excess, 1)
            for g in groups(p.hand, k, k):
                out.append({"type": "discard_down", "cards": g})
        return out
    if s.phase == "market":
        return [{"type": "to_market", "card": c} for c in _singles(p.hand)]
    owned = [w for w in WAGONS if p.wagons[w] is not None or relaxed]
    area = [cid for cid in s.area if relaxed or not _reserved_by_other(s, seat, cid)]
    for cid in area:
        want = s.cat.contracts[cid]["creatures"]
        for w in owned:
            if relaxed or len(p.wagons[w]) == len(want) and sorted(
                    [value(c) for c in p.wagons[w]]) == want:
                out.append({"type": "complete", "contract": cid, "wagon": w})
    if p.gold >= EXTRA_ACTION_GOLD or relaxed:
        out.append({"type": "buy_action"})
    for cid in area:
        if relaxed or p.reserved != cid and p.gold >= RESERVE_GOLD:
            out.append({"type": "reserve", "contract": cid})
    out.append({"type": "end_actions"})
    if s.actions_left < 1 and not relaxed:
        return out
    hand_groups = groups(p.hand, 1, len(p.hand))
    for w in WAGONS:
        info = s.cat.wagons[w]
        if p.wagons[w] is not None and not relaxed:
            continue
        if w != "wheelbarrow" and next_to_buy(s, seat) != w and not relaxed:
            continue
        if info["gold"] is not None and p.gold >= info["gold"] or relaxed:
            out.append({"type": "buy_wagon", "wagon": w})
        if info["creature_points"] is not None or relaxed:
            need = info["creature_points"] or 0
            for g in hand_groups:
                if _total(g) >= need or relaxed:
                    out.append({"type": "buy_wagon", "wagon": w, "cards": g})
    for w in owned:
        room = s.cat.wagons[w]["capacity"] - len(p.wagons[w] or [])
        for g in hand_groups:
            if len(g) <= room or relaxed:
                out.append({"type": "load", "wagon": w, "cards": g})
    for a in owned:
        for b in owned:
            if a == b and not relaxed:
                continue
            room = 5 if relaxed else s.cat.wagons[b]["capacity"] - len(p.wagons[b])
            for g in groups(p.wagons[a] or [], 1, room):
                out.append({"type": "move", "from": a, "to": b, "cards": g})
    for g in hand_groups:
        out.append({"type": "discard", "from": "hand", "cards": g})
    for w in owned:
        for g in groups(p.wagons[w] or [], 1, 5):
            out.append({"type": "discard", "from": w, "cards": g})
    for c in _singles(p.hand):
        out.append({"type": "swap_draw", "card": c})
    for c in _singles(p.hand):
        for g in groups(s.market, 2, 10, value(c)):
            if _total(g) == value(c) or relaxed:
                out.append({"type": "exchange", "give": [c], "take": g})
    for c in _singles(s.market):
        for g in groups(p.hand, 2, 10, value(c)):
            if _total(g) == value(c) or relaxed:
                out.append({"type": "exchange", "give": g, "take": [c]})
    return out


def legal_actions(state):
    """Every legal action now, in a fixed order, cards in their normal form."""
    return _candidates(state)


def action_space(state):
    """A superset of the legal actions (the conformance kit's completeness check): every
    wagon, owned or not, every group whatever its sum or size, and the same groups named
    by the last ids of each value."""
    out = _candidates(state, relaxed=True)
    extra = []
    for a in out:
        b = _mirror(state, a)
        if b is not None:
            extra.append(b)
    return out + extra + [{"type": "exchange", "give": [], "take": []},
                          {"type": "discard", "from": "hand", "cards": []}]


def _location(s, action):
    """Where the cards an action names lie, as {field: list of ids}."""
    kind = action.get("type")
    seat = actor(s, action)
    if seat is None:
        return {}
    p = s.players[seat]
    if kind in ("load", "swap_draw", "discard_down", "to_market", "fight_card", "pass_cards",
                "buy_wagon"):
        field = "card" if kind in ("swap_draw", "to_market", "fight_card") else "cards"
        return {field: p.hand}
    if kind == "move" and action.get("from") in WAGONS:
        return {"cards": p.wagons[action["from"]] or []}
    if kind == "discard":
        src = action.get("from")
        if src == "hand":
            return {"cards": p.hand}
        if src in WAGONS:
            return {"cards": p.wagons[src] or []}
    if kind == "exchange":
        return {"give": p.hand, "take": s.market}
    return {}


def _renamed(lst, cards, last):
    """The same values as `cards`, named by the first (or last) ids of each value in lst."""
    want = {}
    for c in cards:
        want[value(c)] = want.get(value(c), 0) + 1
    out = []
    for v, ids in _by_value(lst):
        k = want.get(v, 0)
        if k > len(ids):
            return None
        out.extend(ids[len(ids) - k:] if last else ids[:k])
    return out if len(out) == len(cards) else None


def _rename(s, action, last):
    out = dict(action)
    for field, lst in sorted(_location(s, action).items()):
        if field not in action:
            continue
        v = action[field]
        if isinstance(v, str):
            if v[:1] != "c" or len(v) < 3 or not v[1:3].isdigit():
                return None
            r = _renamed(lst, [v], last)
            if r is None:
                return None
            out[field] = r[0]
        elif isinstance(v, list) and all(isinstance(c, str) and c[:1] == "c" and len(c) >= 3
                                         and c[1:3].isdigit() for c in v):
            r = _renamed(lst, v, last)
            if r is None:
                return None
            out[field] = r
        else:
            return None
    return out


def normal_form(state, action):
    """The action as legal_actions names it (the first ids of each value where they lie)."""
    if not isinstance(action, dict):
        return action
    return _rename(state, action, False) or action


def _mirror(s, action):
    b = _rename(s, action, True)
    if b is None or canon.dumps(b) == canon.dumps(action):
        return None
    return b


def evaluate(state, seat):
    """How good the position is for `seat`, for the greedy bot (shared_rules/bots.py), in
    points (100 per VP); it reads only what the seat may know.

    What it values, and why:
    - VP held (contracts, wagons, castle flag sets): EVAL_VP each.
    - Gold: EVAL_GOLD per coin (three gold are one VP at the end), but EVAL_SAVINGS per
      coin up to the War Wagon's price while the seat has no War Wagon. The War Wagon is
      the only wagon that carries five creatures, so the only way to a Level III contract,
      and it costs gold only; gold comes only from luck (coin symbols, events, fights) and
      an event may take it. In a 3-4 player game the deck holds more Level III contracts
      than may be left in play at the end, so somebody must complete one for the game to
      end; if nobody has the War Wagon or its price when the deck runs out, nobody ever
      will (`dead_end`). So a bot pays for the other wagons with creatures when it can,
      and a contract's coins weigh more. Saving makes such games rare, not impossible:
      how much gold comes is luck. Owning the War Wagon is worth EVAL_WAR_WAGON over its
      capacity, more than the savings it costs, so a bot with the gold buys it.
    - Each owned wagon: EVAL_CAPACITY per creature it holds (room to work).
    - Creatures in a wagon: on the way to the best contract in play they still fit, one
      the seat may still complete (`_targets`), they add 30 each plus a twentieth of
      that contract's worth (its VP, its coins), less 10 per creature still missing;
      fitting none, they cost 20 each (a wagon to empty).
    - The hand (as many cards as the hand size keeps): 8 per creature some contract in
      play asks for, 2 for another.
    - A finished game is valued on the same scale, with EVAL_WIN more for the winner; a
      loss costs nothing more. Were a loss worse than every unfinished position, the
      one-move look-ahead would see each game-ending completion as the worst move there
      is, and a bot behind on points would keep the game going for ever rather than
      complete the contract that ends it (four greedy bots, seed 1, stalled so with every
      War Wagon bought and the contracts ready in the wagons).
    """
    s = state
    p = s.players[seat]
    b = score_breakdown(s, seat)
    total = EVAL_VP * (b["contracts"] + b["wagons"] + b["matching_flags"] +
                       b["different_flags"])
    total += _gold_worth(s, p, p.gold)
    coin = _gold_worth(s, p, p.gold + 1) - _gold_worth(s, p, p.gold)
    if p.wagons["war_wagon"] is not None:
        total += EVAL_WAR_WAGON
    targets = _targets(s, seat)
    for w in WAGONS:
        cards = p.wagons[w]
        if cards is None:
            continue
        total += EVAL_CAPACITY * s.cat.wagons[w]["capacity"]
        if not cards:
            continue
        have = [value(c) for c in cards]
        best = None
        for cid in targets:
            c = s.cat.contracts[cid]
            if len(c["creatures"]) > s.cat.wagons[w]["capacity"]:
                continue
            if _sub_multiset(have, c["creatures"]):
                worth = EVAL_VP * c["vp"] + coin * s.area_gold.get(cid, 0)
                gain = 30 * len(have) + worth // 20 - 10 * (len(c["creatures"]) - len(have))
                if best is None or gain > best:
                    best = gain
        total += best if best is not None else -20 * len(have)
    wanted = {}
    for cid in targets:
        for v in s.cat.contracts[cid]["creatures"]:
            wanted[v] = True
    kept = sorted(p.hand)[:hand_size(s, seat)]
    for c in kept:
        total += 8 if value(c) in wanted else 2
    if s.status == "finished" and s.winner == seat:
        total += EVAL_WIN
    return total


def _gold_worth(s, p, gold):
    """What `gold` coins are worth to player p (evaluate): savings toward the War Wagon
    count more while it is still to buy."""
    if p.wagons["war_wagon"] is not None:
        return EVAL_GOLD * gold
    saving = min(gold, s.cat.wagons["war_wagon"]["gold"] or 0)
    return EVAL_SAVINGS * saving + EVAL_GOLD * (gold - saving)


def dead_end(state):
    """True if the game can never end by the book's rules: no round limit (solo or
    `max_rounds`), the contract deck empty, more than four contracts in play, and none of
    them fits a wagon anybody owns or can still buy. With the deck empty no event comes
    (the only source of gold but the coins on contracts), so a player without the War
    Wagon and without its gold price never gets it, and a Level III contract (five
    creatures) fits no other wagon. The book has no rule for this; the engine ends the game
    here, scored as usual (module docstring; tools/fightclub_bots.py counts such games).
    Reservations are left
    out: a contract reserved by a player who cannot complete it is not a dead end, since
    another reservation releases it."""
    s = state
    if s.status != "ongoing" or s.solo or s.max_rounds is not None or s.contract_deck:
        return False
    if len(s.area) <= AREA_START:
        return False
    room = 0
    for seat in s.seats:
        p = s.players[seat]
        gold = p.gold
        for w in WAGONS:
            info = s.cat.wagons[w]
            # creature points can always be found (cards come and go); gold cannot now
            if p.wagons[w] is not None or info["creature_points"] is not None or (
                    info["gold"] is not None and gold >= info["gold"]):
                room = max(room, info["capacity"])
    return all(len(s.cat.contracts[cid]["creatures"]) > room for cid in s.area)


def _targets(s, seat):
    """The contracts in play `seat` may still complete (evaluate): not reserved by another
    seat, and asking no more creatures of a number than the game has outside the other
    seats' wagons (which everybody sees). Three greedy bots each holding one of the three
    10s in a wagon, for contracts that ask for two, would otherwise wait for ever."""
    free = dict(s.cat.creature_counts)
    for x in s.seats:
        if x == seat:
            continue
        for w in WAGONS:
            for c in s.players[x].wagons[w] or []:
                free[value(c)] -= 1
    out = []
    for cid in s.area:
        if _reserved_by_other(s, seat, cid):
            continue
        for v, n in s.cat.needs[cid]:
            if n > free.get(v, 0):
                break
        else:
            out.append(cid)
    return out


def _reserved_by_other(s, seat, cid):
    for x in s.seats:
        if x != seat and s.players[x].reserved == cid:
            return True
    return False


def _sub_multiset(small, big):
    rest = list(big)
    for v in small:
        if v not in rest:
            return False
        rest.remove(v)
    return True


def imagine(state, seat, rng):
    """The state as a seat may imagine it (shared_rules/bots.py): the order of the creature
    and contract decks, which nobody knows, shuffled again with `rng`, so that a bot's trial
    draw shows a sample, not the real next card; it changes and returns the state it is
    given (a copy). (The other hands stay: a bot's evaluation reads only its own.)"""
    s = state
    s.rng = rng
    s.deck = _shuffled(s, s.deck)
    s.contract_deck = _shuffled(s, s.contract_deck)
    return s


def determinize(state, seat, rng):
    """The state dealt again as `seat` may imagine it (information-set search): everything
    the seat cannot know is dealt at random from `rng`, consistent with what it sees; it
    changes and returns the state it is given (pass a copy).

    Re-dealt: the creatures in the creature deck and in the other seats' hands are pooled,
    sorted, shuffled and dealt back, each other hand getting as many as it holds (sorted,
    as hands are) and the deck the rest, in a new order. An event that waits for choices
    keeps who has chosen, but another seat's hidden choice (its fight card, the cards it
    passes) is drawn again from its new hand, as many cards as it chose (a whole hand
    passed without choosing stays the whole hand). The contract deck keeps its cards (which
    contracts and events were taken from the catalog's pools is not known to anybody, and
    `secrets` keeps them) but not their order: the deck is cut into the book's sets (bottom,
    middle, top, the four Level I on top, by their sizes for the player count; a deck longer
    than the tables is one set), each set keeps how many Level I, II, III and events it
    holds (known from the tables and from the cards drawn), and the cards of each kind are
    shared out among the sets and shuffled within them at random. The engine's PRNG (the
    shuffles to come) is replaced from `rng`, and the game's seed, which would re-deal the
    real start, is set to 0.

    Kept: everything `view(state, seat)` shows (the seat's own hand and its own pending
    choice, the Market, the discard pile in order, wagons, gold, contracts in play, counts
    of every hand and deck, the phase). What the seat saw earlier but the state does not
    record is not kept: cards it passed to a neighbour, cards another seat took from the
    Market or showed in a fight, events already drawn; those places are re-dealt like any
    hidden card. Only the seat's view and `rng` decide the result.
    """
    s = state
    rng = rng or prng.seed_state(0)
    others = [x for x in s.seats if x != seat]
    pool = list(s.deck)
    for x in others:
        pool.extend(s.players[x].hand)
    pool.sort()
    rng = prng.shuffle(rng, pool)
    k = 0
    for x in others:
        n = len(s.players[x].hand)
        s.players[x].hand = sorted(pool[k:k + n])
        k += n
    s.deck = pool[k:]
    pend = s.pending
    if pend is not None and pend["choices"]:
        choices = {}
        for x in sorted(pend["choices"]):
            chosen = pend["choices"][x]
            hand = s.players[x].hand
            if x == seat:
                choices[x] = list(chosen)
            elif len(chosen) >= len(hand):
                choices[x] = list(hand)
            else:
                pick = list(hand)
                rng = prng.shuffle(rng, pick)
                choices[x] = sorted(pick[:len(chosen)])
        pend["choices"] = choices
    s.contract_deck, rng = _redeal_contracts(s, rng)
    s.rng = rng
    s.seed = 0
    return s


def _deck_kind(s, cid):
    """A contract deck card's kind: its level, or 0 for an event."""
    c = s.cat.contracts.get(cid)
    return 0 if c is None else c["level"]


def _redeal_contracts(s, rng):
    """The contract deck shuffled within the book's sets (determinize): returns (deck, rng)."""
    deck = s.contract_deck
    n = len(deck)
    cuts = []
    lo = 0
    for sets in DECK_SETS:
        hi = lo + sum(sets[len(s.seats)])
        if lo < n:
            cuts.append((lo, min(hi, n)))
        lo = hi
    if n > lo:
        cuts = [(0, n)]
    kinds = {}
    for cid in deck:
        kind = _deck_kind(s, cid)
        if kind not in kinds:
            kinds[kind] = []
        kinds[kind].append(cid)
    for kind in sorted(kinds):
        kinds[kind].sort()
        rng = prng.shuffle(rng, kinds[kind])
    out = []
    for lo, hi in cuts:
        part = []
        for cid in deck[lo:hi]:
            part.append(kinds[_deck_kind(s, cid)].pop())
        part.sort()
        rng = prng.shuffle(rng, part)
        out.extend(part)
    return out, rng


# ---------------------------------------------------------------- views, save, load

def _area_form(s, reveal_rules=True):
    out = []
    for cid in s.area:
        row = {"id": cid, "gold": s.area_gold[cid], "reserved_by": None}
        for x in s.seats:
            if s.players[x].reserved == cid:
                row["reserved_by"] = x
        if reveal_rules:
            c = s.cat.contracts[cid]
            row["creatures"] = list(c["creatures"])
            row["vp"] = c["vp"]
            row["flag"] = c["flag"]
            row["level"] = c["level"]
        out.append(row)
    return out


def _wagons_form(p):
    out = {}
    for w in WAGONS:
        out[w] = None if p.wagons[w] is None else list(p.wagons[w])
    return out


def view(state, seat=None):
    """What `seat` may know (None: a spectator): no hand but its own, no deck order."""
    s = state
    if seat is not None and seat not in s.seats:
        raise ValueError("no seat %r (seats: %s)" % (seat, ", ".join(s.seats)))
    players = {}
    for x in s.seats:
        p = s.players[x]
        players[x] = {"hand_count": len(p.hand), "wagons": _wagons_form(p), "gold": p.gold,
                      "contracts": list(p.contracts), "reserved": p.reserved,
                      "hand_size": hand_size(s, x), "next_wagon": next_to_buy(s, x),
                      "score": score_breakdown(s, x)}
        if x == seat:
            players[x]["hand"] = list(p.hand)
    out = {"game": NAME, "seat": seat, "status": s.status, "winner": s.winner,
           "end_reason": s.end_reason, "phase": s.phase, "turn": s.turn, "round": s.round,
           "actions_left": s.actions_left, "solo": s.solo, "market": list(s.market),
           "contracts": _area_form(s), "creature_deck": len(s.deck),
           "contract_deck": len(s.contract_deck), "discard": list(s.discard), "bank": s.bank,
           "players": players, "scores": scores(s)}
    if s.pending is not None:
        ev = s.cat.events[s.pending["event"]]
        pend = {"event": ev["id"], "name": ev["name"], "text": ev["text"], "fight": ev["fight"],
                "chooser": _chooser(s) if s.phase in ("fight", "pass") else None,
                "chosen": sorted(s.pending["choices"])}
        if seat is not None and seat in s.pending["choices"] and s.phase in ("fight", "pass"):
            pend["mine"] = list(s.pending["choices"][seat])
        out["pending"] = pend
    return out


def event_view(event, seat=None):
    """An event as `seat` may see it (None: a spectator): the ids of cards drawn or passed
    are left out for everybody but the seat whose hand they went to or came from."""
    kind = event.get("type")
    if kind == "creatures_drawn" and event.get("seat") != seat:
        out = dict(event)
        out.pop("cards", None)
        return out
    if kind == "cards_passed":
        out = dict(event)
        out["cards"] = dict([(x, event["cards"][x]) for x in event["cards"] if x == seat])
        out["received"] = dict([(x, event["received"][x]) for x in event["received"]
                                if x == seat])
        return out
    return event


def secrets(state, seat=None):
    """Card ids that must not appear in view(state, seat): the decks and other hands."""
    s = state
    out = {}
    for c in s.deck:
        out[c] = True
    for c in s.contract_deck:
        out[c] = True
    for x in s.seats:
        if x != seat:
            for c in s.players[x].hand:
                out[c] = True
    return sorted(out)


def _pending_form(p):
    if p is None:
        return None
    return {"event": p["event"], "stage": p["stage"], "order": list(p["order"]),
            "choices": dict([(k, list(p["choices"][k])) for k in p["choices"]]),
            "hands": dict(p["hands"])}


def _player_form(p):
    return {"hand": list(p.hand), "wagons": _wagons_form(p), "gold": p.gold,
            "contracts": list(p.contracts), "reserved": p.reserved}


def to_dict(state):
    """The whole state as JSON data (canonical-ready)."""
    s = state
    return {"schema": canon.SCHEMA_VERSION, "game": NAME, "options": s.options, "seed": s.seed,
            "rng": s.rng, "deck": list(s.deck), "discard": list(s.discard),
            "market": list(s.market), "contract_deck": list(s.contract_deck),
            "area": list(s.area), "area_gold": dict(s.area_gold), "bank": s.bank,
            "players": dict([(x, _player_form(s.players[x])) for x in s.seats]),
            "turn": s.turn, "first": s.first, "phase": s.phase,
            "actions_left": s.actions_left, "round": s.round, "status": s.status,
            "winner": s.winner, "end_reason": s.end_reason,
            "pending": _pending_form(s.pending), "refill": s.refill}


def from_dict(data):
    """Rebuild a state from to_dict(); ScenarioError if it is not one."""
    if not isinstance(data, dict) or data.get("game") != NAME:
        raise ScenarioError("state", "is not a saved Fairy Tale Fight Club state")
    if data.get("schema") != canon.SCHEMA_VERSION:
        raise ScenarioError("state.schema", "unsupported version %s" % (
            shown(data.get("schema")),))
    try:
        s = new_game(data["options"], data["seed"], {
            "contracts": [], "contract_deck": [], "creature_deck": [],
            "players": dict([(x, {"hand": []}) for x in data["players"]])})
        for key in ("rng", "bank", "turn", "first", "phase", "actions_left", "round",
                    "status", "winner", "end_reason", "refill"):
            setattr(s, key, data[key])
        s.deck = list(data["deck"])
        s.discard = list(data["discard"])
        s.market = list(data["market"])
        s.contract_deck = list(data["contract_deck"])
        s.area = list(data["area"])
        s.area_gold = dict(data["area_gold"])
        for x in s.seats:
            row = data["players"][x]
            p = s.players[x]
            p.hand = list(row["hand"])
            p.wagons = {}
            for w in WAGONS:
                p.wagons[w] = None if row["wagons"][w] is None else list(row["wagons"][w])
            p.gold = row["gold"]
            p.contracts = list(row["contracts"])
            p.reserved = row["reserved"]
        s.pending = _copy_pending(data["pending"])
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ScenarioError("state", "is incomplete or damaged (%r)" % (e,))
    return s


def result(state):
    """The scenario runner's output (without "events")."""
    s = state
    breakdown = {}
    for x in s.seats:
        breakdown[x] = score_breakdown(s, x)
    return {"game": NAME, "status": s.status, "winner": s.winner,
            "end_reason": s.end_reason, "scores": scores(s), "score_breakdown": breakdown,
            "turn": s.turn, "phase": s.phase, "round": s.round,
            "actions_left": s.actions_left, "market": list(s.market),
            "contracts": _area_form(s, False), "creature_deck": len(s.deck),
            "contract_deck": len(s.contract_deck), "discard": list(s.discard),
            "bank": s.bank, "pending": _pending_form(s.pending),
            "players": dict([(x, _player_form(s.players[x])) for x in s.seats])}


def actors(state):
    """The seats that may act now: the chooser of a fight or a pass, else the seat whose turn
    it is ([] once the game is over). One at a time."""
    if state.status != "ongoing":
        return []
    return [actor(state, {"type": "fight_card"})]
