"""The bots' levels: easy picks among sensible moves, hard (shared_rules/search.py) searches a
re-dealt copy of what its seat knows, never the hidden cards, and plays the same on CPython
and MicroPython."""

import json
import math

import pytest

from mpy import requires_micropython, run_micropython_code
from shared_rules import bots, canon, games, prng, royale_bot, search
from shared_rules.engine import Match

# Small games, so a test plays quickly; each has hidden cards.
GAMES = [("storybook", {}, 3), ("royale", {}, 4), ("heroes", {}, 5), ("fightclub", {}, 6),
         ("fairytale", {"players": 2}, 7)]


def normal(game, engine, state, seat, seed):
    if game == "royale":
        return royale_bot.choose("greedy", state, seat, seed)
    return bots.choose("greedy", engine, state, seat, seed)


def positions(game, options, seed, want=6, limit=400):
    """(state, seat) along a game of normal bots where the seat has a choice to make."""
    match = Match(game, options, seed)
    engine = match.engine
    found = []
    while engine.status(match.state) == "ongoing" and len(match.actions) < limit:
        seat = engine.actors(match.state)[0]
        if len(bots.my_actions(engine, match.state, seat)) > 1 and len(match.actions) % 3 == 0:
            found.append((engine.copy(match.state), seat))
        match.apply(normal(game, engine, match.state, seat, seed))
    step = max(1, len(found) // want)
    return engine, found[::step][:want]


def test_the_fixed_point_log_is_the_log():
    for n in list(range(1, 300)) + [1023, 1024, 1025, 4095]:
        assert abs(search._log2_fixed(n) / 65536.0 - math.log2(n)) < 1.0 / 8192, n
    assert search._log2_fixed(1) == 0 and search._log2_fixed(1024) == 10 << 16


def test_the_integer_square_root():
    for n in list(range(0, 2000)) + [10 ** 12 + 7, 2 ** 40]:
        r = search._isqrt(n)
        assert r * r <= n < (r + 1) * (r + 1), n


@pytest.mark.parametrize("game,options,seed", GAMES, ids=[g[0] for g in GAMES])
def test_the_hard_move_does_not_depend_on_hidden_cards(game, options, seed):
    """The same position with everything the seat cannot see dealt again: the same move."""
    engine, found = positions(game, options, seed)
    assert found
    moved = 0
    for k, (state, seat) in enumerate(found):
        other = engine.determinize(engine.copy(state), seat, prng.seed_state(1000 + k))
        # The scrambled state is another state (hidden cards moved), the seat's view is not.
        if canon.dumps(engine.to_dict(other)) != canon.dumps(engine.to_dict(state)):
            moved += 1
        assert canon.dumps(engine.view(other, seat)) == canon.dumps(engine.view(state, seat))
        mine = search.choose(engine, state, seat, seed, iterations=40)
        theirs = search.choose(engine, other, seat, seed, iterations=40)
        assert canon.dumps(mine) == canon.dumps(theirs), (game, k)
        assert mine in bots.my_actions(engine, state, seat)
    assert moved > 0, "no position had a hidden card to deal again"


@pytest.mark.parametrize("game,options,seed", GAMES[:4], ids=[g[0] for g in GAMES[:4]])
def test_a_hard_move_is_the_same_again_and_leaves_the_state_alone(game, options, seed):
    engine, found = positions(game, options, seed, want=2)
    for state, seat in found:
        before = canon.dumps(engine.to_dict(state))
        first = search.choose(engine, state, seat, seed, iterations=30)
        assert canon.dumps(engine.to_dict(state)) == before
        assert search.choose(engine, state, seat, seed, iterations=30) == first


def test_the_levels_are_kinds_and_an_unknown_one_is_refused():
    engine = games.get("storybook")
    state = engine.new_game({}, 1)
    seat = engine.actors(state)[0]
    for kind in bots.LEVELS + ("greedy", "random"):
        assert bots.choose(kind, engine, state, seat, 1) in bots.my_actions(engine, state, seat)
    with pytest.raises(ValueError, match="unknown bot 'expert'"):
        bots.choose("expert", engine, state, seat, 1)
    assert bots.level_of("greedy") == "normal" and bots.level_of("hard") == "hard"


def test_easy_plays_a_sensible_move_not_always_the_best():
    """Easy's moves lie in the upper half of what the greedy bot sees, and differ from the
    greedy bot's somewhere."""
    engine, found = positions("storybook", {}, 11, want=12)
    differ = 0
    for state, seat in found:
        easy = bots.choose("easy", engine, state, seat, 11)
        rng = bots.seeded_rng(engine, state, 11)
        actions = bots.my_actions(engine, state, seat)
        values = [bots._judge(engine, state, seat, a, None, rng) for a in actions]
        mine = values[actions.index(easy)]
        assert mine >= (max(values) + min(values)) // 2
        differ += easy != bots.choose("normal", engine, state, seat, 11)
    assert differ > 0


CHOOSE = """
from shared_rules import canon, games, search
for game, data, seat in canon.loads(%r):
    engine = games.get(game)
    print(canon.dumps(search.choose(engine, engine.from_dict(data), seat, 5, iterations=60)))
"""


@requires_micropython
@pytest.mark.micropython
def test_the_hard_move_is_the_same_on_micropython():
    runs = []
    mine = []
    for game, options, seed in GAMES[:4]:
        engine, found = positions(game, options, seed, want=2)
        for state, seat in found:
            runs.append((game, engine.to_dict(state), seat))
            mine.append(canon.dumps(search.choose(engine, state, seat, 5, iterations=60)))
    code = CHOOSE % json.dumps(runs)
    assert run_micropython_code(code, timeout=300).splitlines() == mine


class _Toy:
    """A toy engine of two seats, "a" and "b", with nothing hidden; each seat's yardstick is
    its own points only, as Fight Club's is."""

    def seats(self, state):
        return ["a", "b"]

    def copy(self, state):
        return dict(state)

    def determinize(self, state, seat, rng):
        return state

    def view(self, state, seat):
        return state

    def to_dict(self, state):
        return state

    def evaluate(self, state, seat):
        return state[seat]


class _Race(_Toy):
    """A two-seat game of one move each, to see how the search judges a move: "a" takes
    "safe" (it gains 10, "b" nothing) or "greedy" (it gains 12, "b" gains 20)."""

    def __init__(self, relative):
        self.SEARCH = {"iterations": 60, "relative": relative}

    def status(self, state):
        return "ongoing" if state["turn"] is not None else "finished"

    def legal_actions(self, state):
        if state["turn"] == "a":
            return [{"type": "greedy"}, {"type": "safe"}]
        return [{"type": "pass"}] if state["turn"] == "b" else []

    def actor(self, state, action):
        return state["turn"]

    def apply(self, state, action):
        if action["type"] == "safe":
            state["a"] += 10
        elif action["type"] == "greedy":
            state["a"] += 12
            state["b"] += 20
        state["turn"] = "b" if state["turn"] == "a" else None
        return []


def test_a_relative_search_counts_what_a_move_gives_the_other_seat():
    """With `relative` the change judged is the seat's own less the other seat's: the move
    that gives the other seat more than it gains is the worse one. Without it, the seat's own
    gain alone decides."""
    start = {"a": 0, "b": 0, "turn": "a"}
    assert search.choose(_Race(True), dict(start), "a", 1) == {"type": "safe"}
    assert search.choose(_Race(False), dict(start), "a", 1) == {"type": "greedy"}


class _Turn(_Toy):
    """Seat "a" takes two actions a turn, then "b" one. "a"'s first action: "grab" (+6 now;
    its second action can add only +1) or "set_up" (nothing now; its second action can add
    +20). The greedy bot, one action ahead, grabs; a search that plans the turn sets up. "b"
    then passes or "spoils" (-1 to "a")."""

    def __init__(self, turn):
        self.SEARCH = {"iterations": 80, "turn": turn}
        self.applied = []

    def status(self, state):
        return "ongoing" if state["step"] < 3 else "finished"

    def legal_actions(self, state):
        step = state["step"]
        if step == 0:
            return [{"type": "grab"}, {"type": "set_up"}]
        if step == 1:
            return [{"type": "combo"}, {"type": "small"}]
        return [{"type": "pass"}, {"type": "spoil"}]

    def actor(self, state, action):
        return "a" if state["step"] < 2 else "b"

    def apply(self, state, action):
        self.applied.append(self.actor(state, action))
        kind = action["type"]
        if kind == "grab":
            state["a"] += 6
            state["ready"] = False
        elif kind == "set_up":
            state["ready"] = True
        elif kind == "combo":
            state["a"] += 20 if state["ready"] else 0
        elif kind == "small":
            state["a"] += 1
        elif kind == "spoil":
            state["a"] -= 1
        state["step"] += 1
        return []


def test_a_turn_search_plans_the_seats_own_turn_and_stops_where_it_ends():
    """With `turn` the tree holds the seat's own actions only, each path judged where the
    seat's turn ends: the other seat's reply is never played, and the turn is planned as a
    whole (set up, then the combo), where one action ahead grabs."""
    start = {"a": 0, "b": 0, "step": 0, "ready": False}
    engine = _Turn(True)
    assert search.choose(engine, dict(start), "a", 1) == {"type": "set_up"}
    assert engine.applied and set(engine.applied) == {"a"}
    assert bots.choose("greedy", engine, dict(start), "a", 1) == {"type": "grab"}
    # Without it, the tree goes on into the other seat's reply.
    engine = _Turn(False)
    search.choose(engine, dict(start), "a", 1)
    assert "b" in engine.applied


class _PlannedTurn(_Turn):
    """`_Turn` searched by `plan`: the greedy bot's best moves, each turn finished by the
    greedy bot."""

    def __init__(self, plan):
        _Turn.__init__(self, False)
        self.SEARCH = {"plan": plan}

    def actors(self, state):
        if state["step"] >= 3:
            return []
        return ["a"] if state["step"] < 2 else ["b"]


def test_a_plan_search_finishes_the_seats_turn_with_the_greedy_bot():
    """With `plan` each of the greedy bot's best moves is played on by the greedy bot to the
    end of the seat's turn and judged there: setting up wins (the combo follows), where one
    action ahead grabs; the other seat's reply is never played."""
    start = {"a": 0, "b": 0, "step": 0, "ready": False}
    engine = _PlannedTurn([2, 3, 1000])
    assert search.choose(engine, dict(start), "a", 1) == {"type": "set_up"}
    assert engine.applied and set(engine.applied) == {"a"}
    # Two actions judged at the root, then two a turn finished: 2 + 3 deals x 2 moves x 2.
    # A work budget spent by the root's judging leaves no deal: the greedy bot's move.
    engine = _PlannedTurn([2, 3, 2])
    assert search.choose(engine, dict(start), "a", 1) == {"type": "grab"}
    # One candidate: the greedy bot's move, nothing played on.
    engine = _PlannedTurn([1, 3, 1000])
    assert search.choose(engine, dict(start), "a", 1) == {"type": "grab"}


class _PlannedRace(_Race):
    def __init__(self):
        _Race.__init__(self, False)
        self.SEARCH = {"plan": [2, 2, 1000]}

    def actors(self, state):
        return [state["turn"]] if state["turn"] is not None else []


def test_a_plan_search_judges_a_move_by_the_seats_gain_less_the_others():
    start = {"a": 0, "b": 0, "turn": "a"}
    engine = _PlannedRace()
    assert bots.choose("greedy", engine, dict(start), "a", 1) == {"type": "greedy"}
    assert search.choose(engine, dict(start), "a", 1) == {"type": "safe"}


class _Gamble(_Toy):
    """One move of "a": "steady" gains `steady` points; "gamble" rolls a die and gains 30 on
    a six, nothing otherwise (a mean of 5); its outcomes are the six faces, equally likely.
    The engine's own die (no "die" given) rolls a six: the real future, which no bot may
    count on."""

    def __init__(self, steady):
        self.steady = steady
        self.SEARCH = {"expect": True}
        self.tried = []

    def status(self, state):
        return "ongoing" if state["turn"] is not None else "finished"

    def legal_actions(self, state):
        return [{"type": "gamble"}, {"type": "steady"}] if state["turn"] == "a" else []

    def actor(self, state, action):
        return state["turn"]

    def outcomes(self, state, action):
        if action["type"] != "gamble" or "die" in action:
            return None
        return [(1, {"type": "gamble", "die": d}) for d in range(1, 7)]

    def apply(self, state, action):
        self.tried.append(action.get("die"))
        if action["type"] == "steady":
            state["a"] += self.steady
        elif action.get("die", 6) == 6:
            state["a"] += 30
        state["turn"] = None
        return []


def test_an_expect_search_weighs_every_outcome_of_the_dice():
    """`expect` judges a move by its mean over every outcome the engine lists, never by the
    die the state would roll: a steady 6 beats a gamble whose mean is 5 (though the state's
    own die would win it 30), a steady 4 does not."""
    start = {"a": 0, "b": 0, "turn": "a"}
    engine = _Gamble(6)
    assert search.choose(engine, dict(start), "a", 1) == {"type": "steady"}
    assert sorted(d for d in engine.tried if d is not None) == [1, 2, 3, 4, 5, 6]
    assert engine.tried.count(None) == 1     # steady, tried once; the gamble never undiced
    assert search.choose(_Gamble(4), dict(start), "a", 1) == {"type": "gamble"}
    # A mean equal to the best is a tie, settled at random by the seed: both are chosen.
    chosen = set(search.choose(_Gamble(5), dict(start), "a", seed)["type"]
                 for seed in range(1, 30))
    assert chosen == {"gamble", "steady"}
    # Its total over its outcomes, and their weight: the mean as a fraction.
    assert search.mean_standing(_Gamble(5), dict(start), "a", {"type": "gamble"}) == (30, 6)
    assert search.mean_standing(_Gamble(5), dict(start), "a", {"type": "steady"}) == (5, 1)


class _Contrary(_Gamble):
    """`_Gamble`, whose hard bot's yardstick (`hard_evaluate`) counts points against the
    seat: the search judges by it, the greedy bot by `evaluate`."""

    def hard_evaluate(self, state, seat):
        return -state[seat]


def test_the_search_judges_by_the_engines_hard_yardstick_where_it_has_one():
    start = {"a": 0, "b": 0, "turn": "a"}
    assert search.choose(_Gamble(6), dict(start), "a", 1) == {"type": "steady"}
    assert search.choose(_Contrary(6), dict(start), "a", 1) == {"type": "gamble"}
    assert search.standing(_Contrary(6), {"a": 7}, "a") == -7
    assert search.standing(_Gamble(6), {"a": 7}, "a") == 7
