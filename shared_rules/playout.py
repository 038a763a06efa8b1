"""Random playouts: a seeded random player for every engine (conformance runs, benchmarks, bots).

Choices come from the engine's own PRNG, so the same seed plays the same
game on CPython and MicroPython.
"""

from shared_rules import games
from shared_rules import prng


def choose(rng, actions):
    """Pick one action uniformly: returns (new rng state, action)."""
    rng, i = prng.below(rng, len(actions))
    return rng, actions[i]


def random_game(game, options, seed, max_actions=100000, on_step=None):
    """Play one game with random legal actions to its end.

    `on_step(state, action, events)` is called after every applied action.
    Returns (final state, number of actions applied).
    """
    engine = games.get(game)
    state = engine.new_game(options, seed)
    rng = prng.seed_state(seed ^ 0x5A5A5A5A)
    n = 0
    while engine.status(state) == "ongoing" and n < max_actions:
        actions = engine.legal_actions(state)
        if not actions:
            break
        rng, action = choose(rng, actions)
        events = engine.apply(state, action)
        n += 1
        if on_step is not None:
            on_step(state, action, events)
    return state, n
