"""Fairytale Games: the state as one seat may imagine it, for a search bot that must not see
what the seat cannot know (`determinize`, exported by the engine module)."""

from shared_rules import prng
from shared_rules.fairytale import battle
from shared_rules.fairytale import core
from shared_rules.fairytale import world

# The decks each dealt from a pool of their own: their cards are never anywhere else hidden.
_OWN_POOL = ("alliance", "betrayal", "locations")
_QUEST_PILES = world.QUEST_PILES


def _kind(cat, cid):
    """What can hold the card: "Q" a quest, "E" an epic item, "I" another item or action card
    (the kinds a quest hand holds), "C" a character, "N" an NPC."""
    if cid in cat.decks["quests"]:
        return "Q"
    if cid in cat.decks["characters"]:
        return "C"
    if cid in cat.decks["npcs"]:
        return "N"
    if cat.decks["bonus"][cid]["kind"] == "epic":
        return "E"
    return "I"


def _shuffled(cards, rng):
    out = sorted(cards)
    rng = prng.shuffle(rng, out)
    return out, rng


def _take(pool, fits, n):
    """Remove from `pool` and return its first n cards that fit (then any, if too few fit)."""
    out = []
    keep = []
    for c in pool:
        if len(out) < n and fits(c):
            out.append(c)
        else:
            keep.append(c)
    pool[:] = keep
    while len(out) < n and pool:
        out.append(pool.pop(0))
    return out


def open_piles(s, seat):
    """The quest piles the seat's legal actions list now (it may search them and choose: at
    the Dragon Inn, in its turn's action, the reputation enough): it sees them, in order."""
    t = s.turn
    if seat is None or t is None or world.current_seat(s) != seat or s.status != "ongoing" or \
            world.pending_for(s, seat) or t["opened"] or \
            world.PHASES.index(t["phase"]) > 2 or core.cell_of(s, seat) != core.CENTRE:
        return ()
    th = world.THRESHOLDS[s.options["quest_thresholds"]]
    rep = s.players[seat]["reputation"]
    return tuple([pile for pile in _QUEST_PILES if rep >= th[pile]])


def determinize(state, seat, rng):
    """A state `seat` cannot tell from `state`: every card it cannot see dealt again from `rng`.

    It changes and returns the state it is given (pass a copy from `copy`: it replaces the
    decks' lists and the hidden hands, hunters and decisions it deals, which `copy` copies).

    Kept: everything view(state, seat) shows (the map, the boards, equipped items, quests under
    way, victory cards, the face-up piles, the seat's own quest hand, battle hand and
    decisions, every deck's size, every hand's size, how many hunters are face down), and what
    the seat's own choices show it: the quest piles it may open a quest from now (it searches
    them: the piles stay as they are, in order), the top card of the bonus deck when it has a
    peek at it waiting, and the bonus deck's cards (not their order) when it chooses how to
    continue after a death (it searches the deck for a character).

    Dealt again, each card only to a place that can hold its kind, sizes kept: the victory
    stacks and the location deck (their order); the events to come and those set aside for
    the game (one pool: 30 of the 51 are used, which ones is hidden); the battle deck and the
    other players' battle hands (one pool); the bonus cards and quests (one pool): the epic
    items' deck, the quest piles, the face-down hunters and the characters others are
    deciding on (characters), the others' quest hands (items, action cards, epic items and
    quests: every quest the piles do not take goes to a hand), the bonus cards others have
    drawn and may rummage (any bonus card), the bonus deck (the rest; an epic item only when
    the hands cannot hold them all). A face-down hunter takes its new character's health.
    Another player's peek shows the new top of the bonus deck. Each pool is sorted, shuffled
    with `rng`, and dealt in that fixed order, so the result depends only on what the seat
    sees and on `rng`. The engine's PRNG (dice, later shuffles) is replaced from `rng`, and
    the seed (only new_game reads it) is set to 0.

    Not kept (the view does not say it, although a player at the table may remember it):
    cards seen before and since hidden, such as the location put at the bottom of the deck by
    a change, a card someone drew in sight of all, the events already flipped once in
    adventurer mode's second time through the event deck.
    """
    s = state
    cat = s.cat
    s.seed = 0
    decks = s.decks
    for d in _OWN_POOL:
        decks[d], rng = _shuffled(decks[d], rng)

    # The events: those of the game and those set aside are one pool.
    pool, rng = _shuffled(decks["events"] + decks["events_out"], rng)
    n = len(decks["events"])
    decks["events"] = pool[:n]
    decks["events_out"] = pool[n:]

    # Battle cards: the deck and the other players' battle hands.
    hands = []
    for b in s.battles:
        for fid in sorted(b["fighters"]):
            f = b["fighters"][fid]
            if not battle.is_auto(f) and f["seat"] != seat and f["hand"]:
                hands.append(f)
    cards = list(decks["battle"])
    for f in hands:
        cards.extend(f["hand"])
    pool, rng = _shuffled(cards, rng)
    n = len(decks["battle"])
    decks["battle"] = pool[:n]
    for f in hands:
        k = len(f["hand"])
        f["hand"] = pool[n:n + k]
        n += k

    # Bonus cards and quests.
    own = [d for d in s.pending if d["seat"] == seat]
    others = [d for d in s.pending if d["seat"] != seat and "card" in d]
    top = None
    if [d for d in own if d["kind"] == "peek"] and decks["bonus"]:
        top = decks["bonus"][0]
    searched = [d for d in own if d["kind"] == "continue"]
    kept = open_piles(s, seat)
    piles = [d for d in _QUEST_PILES if d not in kept]
    hunters = [h for h in s.hunters if h["state"] == "hidden"]
    chosen = [d for d in others if d["kind"] == "character"]
    rummage = [d for d in others if d["kind"] == "rummage"]
    quest_hands = [s.players[q] for q in s.seats if q != seat and s.players[q]["hand"]]
    cards = list(decks["epic"])
    for d in piles:
        cards.extend(decks[d])
    cards.extend([h["id"] for h in hunters])
    cards.extend([d["card"] for d in chosen + rummage])
    for p in quest_hands:
        cards.extend(p["hand"])
    bonus = decks["bonus"]
    if top is not None:
        bonus = bonus[1:]
    if searched:
        bonus, rng = _shuffled(bonus, rng)
    else:
        cards.extend(bonus)
    pool, rng = _shuffled(cards, rng)
    kinds = {}
    for c in pool:
        kinds[c] = _kind(cat, c)

    def of(kind):
        return lambda c: kinds[c] == kind

    def of_pile(pile):
        return lambda c: kinds[c] == "Q" and cat.decks["quests"][c]["pile"] == pile

    decks["epic"] = _take(pool, of("E"), len(decks["epic"]))
    for d in piles:
        decks[d] = _take(pool, of_pile(d), len(decks[d]))
    for h in hunters:
        h["id"] = _take(pool, of("C"), 1)[0]
        h["health"] = core.char(s, h["id"])["health"]
    for d in chosen:
        d["card"] = _take(pool, of("C"), 1)[0]
    # The quest hands take every quest left (a quest is nowhere else), then the epic items
    # left (most likely in a hand: one reaches the bonus deck only through the discards),
    # then other items and action cards; where too few are left (an odd setup), any card.
    room = 0
    for p in quest_hands:
        room += len(p["hand"])
    held = {}
    for kind in ("Q", "E", "I"):
        for c in pool:
            if room and kinds[c] == kind:
                held[c] = True
                room -= 1
    dealt = [c for c in pool if c in held]
    pool[:] = [c for c in pool if c not in held]
    dealt.extend(_take(pool, lambda c: True, room))
    n = 0
    for p in quest_hands:
        k = len(p["hand"])
        p["hand"] = dealt[n:n + k]
        n += k
    for d in rummage:
        d["card"] = pool.pop(0)
    if not searched:
        bonus = pool
    if top is not None:
        bonus = [top] + bonus
    decks["bonus"] = bonus
    for d in others:
        if d["kind"] == "peek" and bonus:
            d["card"] = bonus[0]
    rng, x = prng.next32(rng)
    s.rng = prng.seed_state(x)
    return s
