"""Bots for empty seats, at three levels, and a random player for tests.

The levels, as players choose them (LEVELS):
  easy: random among the sensible moves (the upper half of what the greedy bot sees)
  normal: the one-move-lookahead greedy player ("greedy")
  hard: the search bot (shared_rules/search.py)
"random" is uniformly random among the legal actions (for tests, and older journals).

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
judged by the mean of IMAGINED_SAMPLES imagined outcomes. An engine whose every chance in
play (a draw, a shuffle, a roll) shows in the action's events as a blocked undo, and whose
`evaluate` reads no hidden order, sets CHANCE_SHOWN = True: an action that took no chance is
then judged on a plain copy, with no imagining (the same value, sooner).
"""

import binascii

from shared_rules import canon
from shared_rules import prng

LEVELS = ("easy", "normal", "hard")
KINDS = ("random", "greedy") + LEVELS


def level_of(kind):
    """The level a bot kind plays at: "greedy" is normal; "random" stays "random"."""
    return "normal" if kind == "greedy" else kind
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


def choose(kind, engine, state, seat, seed, actions=None):
    """The bot's action for `seat` now, or None if it has nothing to do (`actions`: the
    seat's legal actions, when the caller has them already)."""
    if actions is None:
        actions = my_actions(engine, state, seat)
    if not actions:
        return None
    if kind not in KINDS:
        raise ValueError("unknown bot %r (one of %s)" % (kind, ", ".join(KINDS)))
    if kind == "hard":
        from shared_rules import search
        return search.choose(engine, state, seat, seed)
    rng = seeded_rng(engine, state, seed)
    if kind == "random":
        rng, i = prng.below(rng, len(actions))
        return actions[i]
    values = judged(engine, state, seat, actions, rng)
    best = max(values)
    if kind == "easy":
        bar = (best + min(values)) // 2
        pool = [actions[i] for i in range(len(actions)) if values[i] >= bar]
    else:
        pool = [actions[i] for i in range(len(actions)) if values[i] == best]
    rng, i = prng.below(rng, len(pool))
    return pool[i]


def judged(engine, state, seat, actions, rng):
    """The greedy bot's value of each of `actions` (scaled by IMAGINED_SAMPLES), from the
    PRNG state `rng` (the dice it imagines)."""
    imagine = getattr(engine, "imagine", None)
    return [_judge(engine, state, seat, a, imagine, rng) for a in actions]


def _judge(engine, state, seat, action, imagine, rng):
    """The greedy bot's value of `action` (scaled by IMAGINED_SAMPLES)."""
    trial = engine.copy(state)
    if imagine is None:
        engine.apply(trial, action)
        return evaluate(engine, trial, seat) * IMAGINED_SAMPLES
    if getattr(engine, "CHANCE_SHOWN", False):
        # Tried on the real state first: an action that took no chance shows nothing of
        # the real future (CHANCE_SHOWN); one that did is judged on imagined copies only.
        events = engine.apply(trial, action)
        if engine.undo_blocker(action, events) is None:
            return evaluate(engine, trial, seat) * IMAGINED_SAMPLES
        trial = engine.copy(state)
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
