"""Fairytale Games for the greedy bot (shared_rules/bots.py): how good a state is for a seat
(`evaluate`, reading only what that seat may know) and the state as the seat may imagine it
(`imagine`: the hidden decks' order and the dice to come dealt again)."""

from shared_rules import canon
from shared_rules import prng
from shared_rules.fairytale import battle
from shared_rules.fairytale import core
from shared_rules.fairytale import world

EVAL_WIN = 100000
HIDDEN_DECKS = ("alliance", "battle", "betrayal", "boss", "bonus", "easy", "epic", "events",
                "locations", "medium")


def evaluate(state, seat):
    """How good the position is for `seat`, in points; higher is better.

    - A finished game is valued on the scale of unfinished ones, with EVAL_WIN more for a
      winner and nothing less for a loser: a one-move bot that saw the end as the worst move
      there is would never make it (docs/adding-a-game.md).
    - Health counts (10 a point), reputation (25: it opens quests), kills most (the goals of
      2-10 players: 400 a character, 300 more a player), each party member (60), items (12
      equipped, 6 in the hand), quests under way and their stages, cards in a battle hand.
    - In battle, the enemies' health counts against (8 a point); an attack waiting for an
      enemy's defence counts as if it landed less 2, so attacking a player is worth it.
    - Single player: each hunter killed 600, a hunter's health against.
    - A little for the map discovered and for time in Quest Mode, so a bot explores.
    """
    s = state
    p = s.players[seat]
    score = 0
    if not p["out"]:
        score += 10 * core.health(p["traits"]) + 25 * p["reputation"]
        score += 60 * len(p["party"]) + 6 * len(p["hand"])
        for c in p["equipped"]:
            score += 12 * len(p["equipped"][c])
        score += 25 * len(p["quests"])
        for q in p["progress"]:
            score += 30 * p["progress"][q]["stage"] + 10 * p["progress"][q]["count"]
        score -= 6 * p["poison"]
        score += 3 * len([t for t in p["tactics"] if p["tactics"][t]])
    score += 400 * p["kills"]["characters"] + 300 * p["kills"]["players"]
    score += 2 * len([c for c in s.cells if c is not None])
    if len(s.seats) == 1:
        for h in s.hunters:
            score += 600 if h["state"] == "dead" else -5 * h["health"]
    score += 10 * p["defeated"]
    b = battle.of_seat(s, seat)
    if b is not None:
        f = b["fighters"][seat]
        score += 2 * len(f["hand"])
        a = b["await"]
        for fid in battle.fighting(b):
            if fid == seat or not battle.hostile(s, b, seat, fid):
                continue
            h, top, weight = _fighter_health(s, b, fid)
            if a is not None and a["kind"] == "defend" and a["seat"] == fid and \
                    a["from"] == seat:
                h = max(0, h - max(0, a["atk"] - 1))
            score += weight * (top - h)
    elif s.status == "ongoing":
        score += 5
        score -= 3 * _distance_to_prey(s, seat)
    if s.status == "finished" and seat in s.winners:
        score += EVAL_WIN
    return score


def _fighter_health(s, b, fid):
    """(health, the most it can have, the worth of a point of damage dealt to it)."""
    f = b["fighters"][fid]
    if battle.is_auto(f):
        return f["health"], f["max"], 10
    p = s.players[f["seat"]]
    return core.health(p["traits"]), core.max_health(s, p), 20


def _distance_to_prey(s, seat):
    """How far the nearest other player is, for a player strong enough to hunt them (kills
    are the goal with 2 players or more; adventurers do not fight each other)."""
    p = s.players[seat]
    if len(s.seats) < 2 or s.options["mode"] == "adventurer" or \
            core.health(p["traits"]) < 12 or not world.in_quest_mode(s, seat):
        return 0
    here = core.cell_of(s, seat)
    best = None
    for q in s.seats:
        if q == seat or not world.in_quest_mode(s, q):
            continue
        c = core.cell_of(s, q)
        d = abs(c % core.SIZE - here % core.SIZE) + abs(c // core.SIZE - here // core.SIZE)
        if best is None or d < best:
            best = d
    return best or 0


def bot_digest(state):
    """What seeds the bots' choices (shared_rules/bots.py): canonical text of the PRNG, the
    clock, the turn, the decisions, the battles and every player's traits, without the decks
    and the boards that make a full dump of the state four times as long."""
    s = state
    return canon.dumps([s.rng, s.phase, s.day, s.cur, s.member, s.turn, s.next_id, s.pending,
                        s.battles, [[q, s.players[q]["traits"]] for q in s.seats]])


def imagine(state, seat, rng):
    """The state as `seat` may imagine it: the face-down decks shuffled again and the dice to
    come from another seed (the greedy bot's lookahead must not see the real future)."""
    s = state
    s.rng = rng or 1
    for d in HIDDEN_DECKS:
        deck = s.decks[d]
        n = len(deck)
        if n > 1:
            # A one-move lookahead draws a card or two: cutting the deck at random puts a
            # random card on top (cheaper than a shuffle, and enough for the next draws).
            s.rng, k = prng.below(s.rng, n)
            deck[:] = deck[k:] + deck[:k]
    return s
