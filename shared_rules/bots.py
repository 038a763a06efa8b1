"""Bots for empty seats: a random player and a one-move-lookahead greedy player.

A bot is deterministic for a given seed and game state: its random choices
come from the engine PRNG seeded with the seed and a CRC-32 of the canonical
state, so a game that is killed and resumed plays on exactly as it would have.
Pure rules code: runs on CPython and MicroPython.

An engine may offer `evaluate(state, seat) -> int` (higher is better for
that seat); otherwise the greedy bot compares `result(state)["scores"]`. An engine
whose actions roll the engine's own dice or draw from a hidden deck offers
`imagine(state, seat, rng) -> state`: the state as that seat may imagine it, with the
dice to come and what the seat cannot know (a deck's order) dealt again from `rng` (it
may change and return the copy it is given). The greedy bot tries its actions on such
copies, the same imagined luck for every action, so a trial draw or roll shows a sample
and never the game's real future; an action that takes a chance (its undo is blocked) is
judged by the mean of IMAGINED_SAMPLES imagined outcomes.
"""

import binascii

from shared_rules import canon
from shared_rules import prng

KINDS = ("random", "greedy")
IMAGINED_SAMPLES = 4


def seeded_rng(engine, state, seed):
    """The PRNG of a bot's choice: from the seed and a CRC-32 of the canonical state (or of
    the engine's `bot_digest(state)`, canonical text of the parts of a large state that move
    with every action: any function of the saved state keeps a resumed game's bots the same)."""
    digest = getattr(engine, "bot_digest", None)
    text = digest(state) if digest is not None else canon.dumps(engine.to_dict(state))
    return prng.seed_state((seed * 2654435761 + binascii.crc32(text.encode())) & 0xFFFFFFFF)


def my_actions(engine, state, seat):
    """The legal actions this seat may take now (an hourglass twist may be out of turn)."""
    return [a for a in engine.legal_actions(state) if engine.actor(state, a) == seat]


def evaluate(engine, state, seat):
    if hasattr(engine, "evaluate"):
        return engine.evaluate(state, seat)
    scores = engine.result(state).get("scores") or {}
    mine = scores.get(seat, 0)
    others = [scores[k] for k in sorted(scores) if k != seat]
    return mine - (max(others) if others else 0)


def choose(kind, engine, state, seat, seed):
    """The bot's action for `seat` now, or None if it has nothing to do."""
    actions = my_actions(engine, state, seat)
    if not actions:
        return None
    rng = seeded_rng(engine, state, seed)
    if kind == "random":
        rng, i = prng.below(rng, len(actions))
        return actions[i]
    if kind != "greedy":
        raise ValueError("unknown bot %r (one of %s)" % (kind, ", ".join(KINDS)))
    best = None
    best_actions = []
    imagine = getattr(engine, "imagine", None)
    for action in actions:
        value = _judge(engine, state, seat, action, imagine, rng)
        if best is None or value > best:
            best, best_actions = value, [action]
        elif value == best:
            best_actions.append(action)
    rng, i = prng.below(rng, len(best_actions))
    return best_actions[i]


def _judge(engine, state, seat, action, imagine, rng):
    """The greedy bot's value of `action` (scaled by IMAGINED_SAMPLES)."""
    trial = engine.copy(state)
    if imagine is None:
        engine.apply(trial, action)
        return evaluate(engine, trial, seat) * IMAGINED_SAMPLES
    trial = imagine(trial, seat, prng.seed_state(rng))
    events = engine.apply(trial, action)
    first = evaluate(engine, trial, seat)
    if engine.undo_blocker(action, events) is None:
        return first * IMAGINED_SAMPLES
    total = first
    for k in range(1, IMAGINED_SAMPLES):
        trial = imagine(engine.copy(state), seat, prng.seed_state(rng + k))
        engine.apply(trial, action)
        total += evaluate(engine, trial, seat)
    return total
