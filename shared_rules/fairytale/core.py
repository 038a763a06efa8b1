"""The Fairytale Games state and the small rules every part uses: the map's cells, traits and
health, chance (dice and draws, supplied by the table or rolled here), words for events."""

from shared_rules import prng
from shared_rules.errors import IllegalAction, shown
from shared_rules.fairytale import cards

SIZE = 7
NCELLS = SIZE * SIZE
CENTRE = 3 * SIZE + 3          # the Dragon Inn at [3, 3]
TRAITS = cards.TRAITS
MAX_PARTY = 5
MAX_ALLY = 3
HAND = 5
QUEST_SLOTS = {"basic": 2, "boss": 1}

# Orthogonal neighbours: location cards lie edge to edge on the table's grid.
NEIGHBOURS = []
for _i in range(NCELLS):
    _x, _y = _i % SIZE, _i // SIZE
    NEIGHBOURS.append([(_y + dy) * SIZE + _x + dx for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1))
                       if 0 <= _x + dx < SIZE and 0 <= _y + dy < SIZE])

is_int = cards.is_int


def xy(i):
    return [i % SIZE, i // SIZE]


def index(v):
    return v[1] * SIZE + v[0]


def is_xy(v):
    return isinstance(v, list) and len(v) == 2 and is_int(v[0]) and is_int(v[1]) and \
        0 <= v[0] < SIZE and 0 <= v[1] < SIZE


def fail(code, message):
    raise IllegalAction(code, message)


def clone(v):
    if isinstance(v, dict):
        out = {}
        for k in v:
            out[k] = clone(v[k])
        return out
    if isinstance(v, list):
        return [clone(x) for x in v]
    return v


# ---------------------------------------------------------------- the state

# The parts of the state that change: plain JSON data (see FairytaleState).
DYNAMIC = ("rng", "phase", "day", "clock", "event", "event_hold", "sundial", "order", "cur",
           "member", "turn", "players", "cells", "searched", "flipped", "decks", "npcs",
           "hunters", "landmarks", "battles", "next_id", "allies", "pending", "status",
           "winner", "winners", "end_reason", "epilogue", "final_deaths", "wave", "log_day")


class FairytaleState:
    """One game. Static: options, seed, the scenario's cards, the catalog (cat), seats. The rest
    is plain data, copied by copy():
      phase       "choose" (players pick their primary characters), "play", "finished"
      day         the day (round) number, 1.. ; clock "flip" while the Sundial must flip an
                  event, else None; event: the face-up event id; event_hold: days it still holds
      order       the Sundial's turn order: units (a seat, or an ally party id "ally1")
      cur/member  the unit whose turn it is (index into order, None when nobody's) and the
                  member of an ally party taking its part of the grouped turn
      turn        the acting seat's turn: phase, steps taken and allowed, what it used
      players     seat -> player (see new_player)
      cells       49 location ids or None (unexplored); searched: searches made per cell;
                  flipped: exhausted cells
      decks       every deck by name, top first (see world.DECK_NAMES)
      npcs        [{"id", "cell", "last"}]; hunters: single-player hunters
      battles     [battle] (battle.py); allies: ally parties; pending: decisions awaited
    """

    def copy(self):
        s = FairytaleState()
        s.options = self.options
        s.seed = self.seed
        s.extra_cards = self.extra_cards
        s.cat = self.cat
        s.seats = self.seats
        # The plain values, assigned one by one (a loop of setattr costs twice as much).
        s.rng = self.rng
        s.phase = self.phase
        s.day = self.day
        s.clock = self.clock
        s.event = self.event
        s.event_hold = self.event_hold
        s.sundial = self.sundial
        s.cur = self.cur
        s.member = self.member
        s.landmarks = self.landmarks
        s.next_id = self.next_id
        s.status = self.status
        s.winner = self.winner
        s.end_reason = self.end_reason
        s.epilogue = self.epilogue
        s.final_deaths = self.final_deaths
        s.wave = self.wave
        s.log_day = self.log_day
        s.order = list(self.order)
        t = self.turn
        if t is not None:
            t = dict(t)
            for key in ("used", "offered", "unequipped", "interacted"):
                t[key] = list(t[key])
        s.turn = t
        s.players = {}
        for q in self.players:
            s.players[q] = copy_player(self.players[q])
        s.cells = list(self.cells)
        s.searched = list(self.searched)
        s.flipped = list(self.flipped)
        decks = self.decks
        s.decks = {d: decks[d][:] for d in decks}
        s.npcs = [dict(n) for n in self.npcs]
        s.hunters = [dict(h) for h in self.hunters]
        s.battles = [copy_battle(b) for b in self.battles]
        s.allies = {}
        for a in self.allies:
            d = dict(self.allies[a])
            d["members"] = list(d["members"])
            s.allies[a] = d
        s.pending = [clone(d) if "seats" in d else dict(d) for d in self.pending]
        s.winners = list(self.winners)
        s.supply = None
        return s


def copy_battle(b):
    out = dict(b)
    fighters = {}
    for fid in b["fighters"]:
        f = dict(b["fighters"][fid])
        if "hand" in f:
            f["hand"] = list(f["hand"])
            f["used"] = list(f["used"])
        fighters[fid] = f
    out["fighters"] = fighters
    out["order"] = [dict(e) for e in b["order"]]
    if b["await"] is not None:
        out["await"] = clone(b["await"])
    if b["stakes"] is not None:
        out["stakes"] = clone(b["stakes"])
    out["hostages"] = [dict(h) for h in b["hostages"]]
    return out


# Player fields holding lists or dicts of plain values (copied one level deep); "equipped",
# "progress", "protect", "away" and "stand_in" hold more (copy_player copies them deeper).
_PLAYER_LISTS = ("party", "hand", "quests", "victory", "bonus_taken", "visited",
                 "former_allies", "hostages")
_PLAYER_DICTS = ("traits", "boxes", "tactics", "kills", "tokens")


def new_player(seat):
    """A player before choosing: character board (traits, reputation, maximum health), party
    (primary first), the fighting/leading character, items equipped per character, quest
    hand, active quests with their progress, enabled tactics, victory cards, kills."""
    return {"seat": seat, "character": None, "party": [], "active": None,
            "traits": dict([(t, 0) for t in TRAITS]), "reputation": 1, "max": 0,
            "max_bonus": 0, "hand": [], "equipped": {}, "boxes": {}, "quests": [],
            "progress": {}, "tactics": {}, "victory": [], "kills": {"players": 0,
                                                                      "characters": 0},
            "poison": 0, "cell": CENTRE, "ally": None, "battle": None, "out": False,
            "entered": True, "bonus_taken": [], "visited": [], "protect": [],
            "former_allies": [], "tokens": {"heal": 0, "cure": 0}, "away": {},
            "hostages": [], "assist": None, "left_inn": False, "defeated": 0,
            "stand_in": None}


def copy_player(p):
    # The bot copies the state for every action it weighs: each field is copied once, and the
    # empty or absent ones cheaply (the profile in BENCHMARKS.md).
    out = dict(p)
    for key in _PLAYER_LISTS:
        out[key] = p[key][:]
    for key in _PLAYER_DICTS:
        out[key] = p[key].copy()
    eq = p["equipped"]
    out["equipped"] = {c: eq[c][:] for c in eq}
    pr = p["progress"]
    out["progress"] = {q: pr[q].copy() for q in pr} if pr else {}
    out["protect"] = [x.copy() for x in p["protect"]] if p["protect"] else []
    out["away"] = clone(p["away"]) if p["away"] else {}
    if p["stand_in"] is not None:
        out["stand_in"] = clone(p["stand_in"])
    return out


# ---------------------------------------------------------------- chance

def roll(s):
    """A six-sided die: the next die the action supplied, else the engine's PRNG."""
    if s.supply is not None and s.supply["dice"]:
        return s.supply["dice"].pop(0)
    s.rng, d = prng.below(s.rng, 6)
    return d + 1


def draw(s, deck, what):
    """The top card of deck `deck` (or the card the action supplied, which must be in it);
    None when it is empty. `what` names the deck in a sentence."""
    pile = s.decks[deck]
    if s.supply is not None and s.supply["cards"]:
        cid = s.supply["cards"][0]
        if cid not in pile:
            fail("not_in_deck", "%s is not in the %s, so it cannot be the card drawn." % (
                shown(cid), what))
        s.supply["cards"].pop(0)
        pile.remove(cid)
        return cid
    if not pile:
        return None
    return pile.pop(0)


def shuffle_in(s, deck, cid):
    """Put a card back into a deck and shuffle it ("shuffling them back")."""
    s.decks[deck].append(cid)
    s.rng = prng.shuffle(s.rng, s.decks[deck])


def pick(s, items):
    """A random one of `items` (an ambush's minion, ...): the engine's PRNG."""
    s.rng, i = prng.below(s.rng, len(items))
    return items[i]


# ---------------------------------------------------------------- words

def name_of(s, cid):
    """The card's name as printed, for sentences and events."""
    if cid is None:
        return "nobody"
    for deck in ("characters", "enemies", "bonus", "locations", "quests", "events", "npcs",
                 "tactics", "victory"):
        card = s.cat.decks[deck].get(cid)
        if card is not None:
            return card["name"]
    base = s.cat.battle_instances.get(cid)
    if base is not None:
        return s.cat.decks["battle"][base]["name"]
    return cid


def seat_words(s, seat):
    """A player in words: "Player 2 (Captain Hook)"."""
    p = s.players[seat]
    n = "Player " + seat[1:]
    if p["active"] is not None:
        n += " (%s)" % name_of(s, p["active"])
    return n


def trait_words(d):
    return ", ".join(["%d %s" % (d[t], t) for t in TRAITS if d.get(t)]) or "nothing"


# ---------------------------------------------------------------- traits and health

def health(traits):
    return sum([traits[t] for t in TRAITS])


def max_health(s, p):
    """The board's maximum: the primary character's health, plus what cards add."""
    if p["character"] is None:
        return 0
    extra = p["max_bonus"]
    for c in p["party"]:
        for item in p["equipped"].get(c, []):
            extra += s.cat.decks["bonus"][item]["max_health"]
    return s.cat.decks["characters"][p["character"]]["health"] + extra


def check_traits(v, field, allow_zero=True):
    """A trait distribution {trait: n} from an action, normalised; IllegalAction if bad."""
    if not isinstance(v, dict):
        fail("bad_traits", "%s must be an object of traits, e.g. {\"strength\": 2}." % field)
    out = {}
    for key in sorted(v):
        n = v[key]
        if key not in TRAITS:
            fail("bad_traits", "%s names %s, which is not a trait (%s)." % (
                field, shown(key), ", ".join(TRAITS)))
        if not is_int(n) or n < 0 or n > 99:
            fail("bad_traits", "%s.%s must be a whole number from 0 to 99, not %s." % (
                field, key, shown(n)))
        if n or allow_zero:
            out[key] = n
    return out


def split_even(total, order=TRAITS):
    """`total` points spread as evenly as the traits allow (the first traits get the rest)."""
    out = dict([(t, 0) for t in TRAITS])
    n = len(order)
    for i in range(n):
        out[order[i]] = total // n + (1 if i < total % n else 0)
    return out


def payment(traits, cost, chosen, field="pay"):
    """The traits that pay `cost` ({"any": n, trait: n}), from the player's `chosen`
    distribution or, without one, typed costs from their trait and the rest from the largest
    traits. Never the last point of health: IllegalAction when it cannot be paid."""
    need = sum([cost[k] for k in cost])
    if need == 0:
        return {}
    if need >= health(traits):
        fail("not_enough_traits", "That costs %d traits and you have %d health: you cannot spend "
             "your last point of health." % (need, health(traits)))
    if chosen is not None:
        pay = check_traits(chosen, field, False)
        total = 0
        for t in pay:
            if pay[t] > traits[t]:
                fail("not_enough_traits", "You have %d %s, not %d." % (traits[t], t, pay[t]))
            total += pay[t]
        if total != need:
            fail("wrong_payment", "That costs %d traits; %s pays %d." % (need, field, total))
        for t in cost:
            if t != "any" and pay.get(t, 0) < cost[t]:
                fail("wrong_payment", "That costs %d %s." % (cost[t], t))
        return pay
    pay = {}
    left = dict(traits)
    for t in TRAITS:
        if cost.get(t):
            if left[t] < cost[t]:
                fail("not_enough_traits", "That costs %d %s and you have %d." % (
                    cost[t], t, left[t]))
            pay[t] = cost[t]
            left[t] -= cost[t]
    for _ in range(cost.get("any", 0)):
        t = largest(left)
        left[t] -= 1
        pay[t] = pay.get(t, 0) + 1
    return pay


def largest(traits):
    best = None
    for t in TRAITS:
        if best is None or traits[t] > traits[best]:
            best = t
    return best


def smallest(traits, allowed=TRAITS):
    best = None
    for t in allowed:
        if best is None or traits[t] < traits[best]:
            best = t
    return best


def spend(traits, pay):
    for t in pay:
        traits[t] -= pay[t]


def gain_traits(traits, n, cap, trait=None, chosen=None):
    """Regain up to n traits, never above `cap` (the maximum health): a named trait, the
    player's chosen distribution, or else the smallest traits first. Returns what was gained."""
    room = cap - health(traits)
    n = min(n, room)
    got = {}
    if n <= 0:
        return got
    if trait is not None:
        traits[trait] += n
        return {trait: n}
    if chosen is not None:
        for t in TRAITS:
            k = min(chosen.get(t, 0), n - sum([got[x] for x in got]))
            if k > 0:
                traits[t] += k
                got[t] = k
        n -= sum([got[x] for x in got])
    for _ in range(n):
        t = smallest(traits)
        traits[t] += 1
        got[t] = got.get(t, 0) + 1
    return got


def lose_traits(traits, n, trait=None, chosen=None, floor=0):
    """Lose n traits (damage): a named trait first, the player's chosen distribution, else the
    largest traits first; health never below `floor`. Returns what was lost."""
    n = min(n, health(traits) - floor)
    lost = {}
    if n <= 0:
        return lost
    if trait is not None:
        k = min(n, traits[trait])
        if k:
            traits[trait] -= k
            lost[trait] = k
            n -= k
    if chosen is not None:
        for t in TRAITS:
            k = min(chosen.get(t, 0), traits[t], n)
            if k > 0:
                traits[t] -= k
                lost[t] = lost.get(t, 0) + k
                n -= k
    for _ in range(n):
        t = largest(traits)
        traits[t] -= 1
        lost[t] = lost.get(t, 0) + 1
    return lost


# ---------------------------------------------------------------- the party and its bonuses

def party_of(s, seat):
    """The characters of a player's party that are with the main token (not separated)."""
    p = s.players[seat]
    return [c for c in p["party"] if c not in p["away"]]


def faction_counts(s, seat):
    """Faction -> how many characters of it are in the party (the ally party's too; the
    separated ones count: "Bonuses apply even if you're separated")."""
    seats = [seat]
    ally = s.players[seat]["ally"]
    if ally is not None:
        seats = list(s.allies[ally]["members"])
    out = {}
    for q in seats:
        for c in s.players[q]["party"]:
            f = s.cat.decks["characters"][c]["faction"]
            if f is not None:
                out[f] = out.get(f, 0) + 1
    return out


def team_bonus(s, seat, faction):
    """The team bonus count (0, or 2..4 like characters: "up to 4")."""
    n = faction_counts(s, seat).get(faction, 0)
    return min(n, 4) if n >= 2 else 0


def faction_bonus(s, seat, faction):
    """True with all five characters of a faction (the faction bonus)."""
    return faction_counts(s, seat).get(faction, 0) >= 5


def equipped_items(s, seat):
    """Every item equipped on the party's characters (the main token's), in party order."""
    p = s.players[seat]
    out = []
    for c in party_of(s, seat):
        out.extend(p["equipped"].get(c, []))
    return out


def item(s, cid):
    return s.cat.decks["bonus"][cid]


def char(s, cid):
    return s.cat.decks["characters"][cid]


def movement(s, seat):
    """How far the player's token may move this turn (MVM): the leading character's board,
    Steady Pace, equipment, a rightful owner's bonus and this turn's bonuses."""
    p = s.players[seat]
    if p["active"] is None:
        return 0
    mv = char(s, p["active"])["movement"] + team_bonus(s, seat, "wild_ones")
    for it in equipped_items(s, seat):
        card = item(s, it)
        mv += card["mvm"]
        if card["owner"] == p["active"]:
            mv += card["owner_bonus"]["mvm"]
    return mv


def cell_of(s, seat):
    """Where the player's main token stands (an ally party's token when in one)."""
    p = s.players[seat]
    if p["ally"] is not None:
        return s.allies[p["ally"]]["cell"]
    return p["cell"]


def location(s, i):
    lid = s.cells[i]
    return None if lid is None else s.cat.decks["locations"][lid]


def log(events, event_type, **fields):
    ev = {"type": event_type}
    for k in fields:
        ev[k] = fields[k]
    events.append(ev)
    return ev
