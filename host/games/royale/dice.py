"""The dice the virtual hands throw in Battle Royale: seeded, so a resumed game rolls the same.

On a real table people roll; on the virtual table the hands put dice in the tray's pockets
showing these values, and the values reach the engine through the tray's tags as in real
play. Engine-only games (tests, benchmarks) use the same dice to know what the table game
must end as.
"""

import binascii

from host.games.royale.interpreter import duel_decided, duel_dice_counts, rollers
from shared_rules import canon, prng, royale

def table_dice(state, action, seed, step):
    """The dice the table rolls for `action` now (virtual hands and engine-only games alike).

    `step` is the number of actions the game has applied so far. The dice are seeded from
    the seed, the step and the canonical state, like the bots, so a game that is killed
    and resumed rolls the same dice. The step is needed because a roll can leave the state
    as it was: a tied order roll changes nothing (the same players roll again), and a
    failed attack, a resurrection and a walk back can bring a position round again. Dice
    seeded by the state alone would then be rolled again, the same tie or the same miss
    for ever. Returns the action with "dice" filled in (an action that rolls nothing is
    returned unchanged).
    """
    kind = action["type"]
    if kind not in ("roll_order", "attack_card", "attack_player"):
        return action
    if not isinstance(step, int) or step < 0:
        raise ValueError("step is the number of actions applied so far, not %r" % (step,))
    text = canon.dumps(royale.to_dict(state))
    rng = prng.seed_state((seed * 2246822519 + step * 40503 + binascii.crc32(text.encode())
                           + 0xD1CE) & 0xFFFFFFFF)

    def die():
        nonlocal rng
        rng, v = prng.below(rng, 6)
        return v + 1

    out = dict(action)
    if kind == "roll_order":
        out["dice"] = dict((pid, die()) for pid in rollers(state))
    elif kind == "attack_card":
        out["dice"] = [die(), die(), die()]
    else:
        attacker = royale.current(state)
        counts = duel_dice_counts(state, attacker, action["target"])
        rounds = []
        while not duel_decided(state, attacker, action["target"], rounds):
            pair = []
            for n in counts:
                pair.append([die(), die()] if n == 2 else die())
            rounds.append(pair)
        out["dice"] = rounds
    return out

