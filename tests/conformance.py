"""The conformance kit: one contract check for every game engine (OpenSpiel style).

A game's test module calls these with its engine name and options:

    check_random_games("storybook", {"max_turns": 200}, seeds=range(1000))
    check_random_games("storybook", {...}, seeds=range(50), deep=True)

Plain runs play random games to the end and check the end state replays
from its record. Deep runs check at every step: save/load round trip, undo
equivalence, rejected actions change nothing, legal actions all validate,
no hidden identity in any seat's view, and (where the engine offers
`action_space`) that legal_actions is complete.
"""

from shared_rules import canon
from shared_rules import games
from shared_rules import prng
from shared_rules.engine import Match
from shared_rules.errors import IllegalAction

GARBAGE_ACTIONS = (
    {"type": "no_such_action"},
    {"type": "play"},
    {"type": "play", "card": "no_such_card", "cell": [0, 0]},
    {"type": "reveal", "cell": "north"},
    {"type": "move", "to": [99, 99]},
    {"type": "spin", "cell": [True, False], "dir": "up"},
    {"type": "attack_card", "dice": [0, 7, "x"]},
    {},
)


def dump(engine, state):
    return canon.dumps(engine.to_dict(state))


def strings_in(value, out):
    """Every string anywhere in a JSON value (keys included)."""
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            strings_in(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            strings_in(v, out)
    return out


def check_no_leak(engine, state):
    for seat in [None] + list(engine.seats(state)):
        shown = strings_in(engine.view(state, seat), set())
        leaked = shown.intersection(engine.secrets(state, seat))
        assert not leaked, "view for %r shows hidden %s" % (seat, sorted(leaked))


def check_rejected_changes_nothing(engine, state, action):
    before = dump(engine, state)
    problem = engine.validate(state, action)
    assert isinstance(problem, IllegalAction), "expected %r to be illegal" % (action,)
    assert problem.code and problem.message.endswith((".", "!")), problem.message
    try:
        engine.apply(state, action)
    except IllegalAction as e:
        assert e.code == problem.code
    else:
        raise AssertionError("apply accepted %r which validate refused" % (action,))
    assert dump(engine, state) == before, "a rejected action changed the state: %r" % (action,)


def check_step(match, action, rng):
    """Apply `action` through the Match with every per-step contract check."""
    engine = match.engine
    state = match.state
    legal = engine.legal_actions(state)
    legal_keys = set(canon.dumps(a) for a in legal)
    assert len(legal_keys) == len(legal), "legal_actions lists an action twice"
    for a in legal:
        problem = engine.validate(state, a)
        assert problem is None, "legal action %r refused: %s" % (a, problem)
    if hasattr(engine, "action_space"):
        for a in engine.action_space(state):
            ok = engine.validate(state, a) is None
            assert ok == (canon.dumps(a) in legal_keys) or _alias(engine, state, a, legal_keys), (
                "legal_actions and validate disagree on %r" % (a,))
    for bad in GARBAGE_ACTIONS:
        if engine.validate(state, bad) is not None:
            check_rejected_changes_nothing(engine, state, bad)
    check_no_leak(engine, state)
    check_actors(engine, state, legal)

    before = dump(engine, state)
    loaded = engine.from_dict(canon.loads(before))
    assert dump(engine, loaded) == before, "save/load round trip differs"
    copied = engine.copy(state)

    events = match.apply(action)
    after = dump(engine, match.state)
    assert dump(engine, copied) == before, "a copy shares data with the original"
    assert canon.dumps(events) == canon.dumps(engine.apply(loaded, action)), (
        "the loaded state answered the same action differently")
    assert dump(engine, loaded) == after
    if match.can_undo():
        match.undo()
        assert dump(engine, match.state) == before, "undo did not restore the state"
        match.apply(action)
        assert dump(engine, match.state) == after
    return events


def check_actors(engine, state, legal):
    """`actors` names, in seat order, seats the game waits on, each with a legal action of
    its own; a game in progress always waits on somebody."""
    who = engine.actors(state)
    seats = list(engine.seats(state))
    assert isinstance(who, list) and len(set(who)) == len(who), "actors: %r" % (who,)
    assert who == [q for q in seats if q in who], "actors not seats in seat order: %r" % (who,)
    if engine.status(state) != "ongoing":
        assert who == [], "a finished game waits on nobody, not %r" % (who,)
        return
    assert who, "a game in progress waits on nobody"
    acting = set(engine.actor(state, a) for a in legal)
    for q in who:
        assert q in acting, "actors names %s, who has no legal action" % q


def _alias(engine, state, action, legal_keys):
    """An action legal by validate but listed in a normal form (e.g. facing spelled out)."""
    norm = getattr(engine, "normal_form", None)
    return norm is not None and canon.dumps(norm(state, action)) in legal_keys


def play_checked_game(game, options, seed, max_actions=5000):
    match = Match(game, options, seed)
    rng = prng.seed_state(seed ^ 0x5A5A5A5A)
    n = 0
    while match.engine.status(match.state) == "ongoing" and n < max_actions:
        actions = match.legal_actions()
        rng, i = prng.below(rng, len(actions))
        check_step(match, actions[i], rng)
        n += 1
    check_no_leak(match.engine, match.state)
    return match


def check_random_games(game, options, seeds, deep=False, max_actions=5000, on_end=None):
    """Play random games to the end; returns the number of finished games.

    `on_end(seed, match)` is called with each game as it ended (or stopped)."""
    engine = games.get(game)
    finished = 0
    for seed in seeds:
        if deep:
            match = play_checked_game(game, options, seed, max_actions)
        else:
            match = Match(game, options, seed)
            rng = prng.seed_state(seed ^ 0x5A5A5A5A)
            n = 0
            while engine.status(match.state) == "ongoing" and n < max_actions:
                actions = match.legal_actions()
                rng, i = prng.below(rng, len(actions))
                match.apply(actions[i])
                n += 1
        end = dump(engine, match.state)
        replayed = Match.replay(canon.loads(canon.dumps(match.record())))
        assert dump(engine, replayed.state) == end, "seed %d: replay differs" % seed
        assert Match.load(match.save()).save() == match.save()
        if engine.status(match.state) == "finished":
            finished += 1
        if on_end is not None:
            on_end(seed, match)
    return finished
