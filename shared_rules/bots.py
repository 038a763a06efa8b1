"""Bots for empty seats: a random player and a one-move-lookahead greedy player.

A bot is deterministic for a given seed and game state: its random choices
come from the engine PRNG seeded with the seed and a CRC-32 of the canonical
state, so a game that is killed and resumed plays on exactly as it would have.
Pure rules code: runs on CPython and MicroPython.

An engine may offer `evaluate(state, seat) -> int` (higher is better for
that seat); otherwise the greedy bot compares `result(state)["scores"]`. An engine
whose actions roll its own PRNG or draw from a hidden deck offers `blind(state, rng)`:
the greedy bot's trial copies then roll the bot's dice and draw from a reshuffled deck
(the same dice for every action, so actions are compared on equal luck), never the
game's real future; an action that takes a chance (its undo is blocked) is judged by
the mean of BLIND_SAMPLES such imagined outcomes.
"""

import binascii

from shared_rules import canon
from shared_rules import prng

KINDS = ("random", "greedy")
BLIND_SAMPLES = 4


def seeded_rng(engine, state, seed):
    """The PRNG of a bot's choice: from the seed and a CRC-32 of the canonical state."""
    text = canon.dumps(engine.to_dict(state))
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
    blind = getattr(engine, "blind", None)
    for action in actions:
        value = _judge(engine, state, seat, action, blind, rng)
        if best is None or value > best:
            best, best_actions = value, [action]
        elif value == best:
            best_actions.append(action)
    rng, i = prng.below(rng, len(best_actions))
    return best_actions[i]


def _judge(engine, state, seat, action, blind, rng):
    """The greedy bot's value of `action` (scaled by BLIND_SAMPLES)."""
    trial = engine.copy(state)
    if blind is None:
        engine.apply(trial, action)
        return evaluate(engine, trial, seat) * BLIND_SAMPLES
    trial = blind(trial, prng.seed_state(rng))
    events = engine.apply(trial, action)
    first = evaluate(engine, trial, seat)
    if engine.undo_blocker(action, events) is None:
        return first * BLIND_SAMPLES
    total = first
    for k in range(1, BLIND_SAMPLES):
        trial = blind(engine.copy(state), prng.seed_state(rng + k))
        engine.apply(trial, action)
        total += evaluate(engine, trial, seat)
    return total
