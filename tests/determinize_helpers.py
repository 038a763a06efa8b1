"""What the engines' determinize tests share (tests/shared_rules/test_determinize_*.py):
playing a re-dealt state on to its end, and comparing deals on the two interpreters.
Portable: imported under MicroPython too."""

from shared_rules import prng


def random_playout(engine, state, seed, limit=20000):
    """Play on to the end with a random player: every listed action must apply."""
    rng = prng.seed_state(seed)
    n = 0
    while engine.status(state) == "ongoing" and n < limit:
        actions = engine.legal_actions(state)
        assert actions
        rng, i = prng.below(rng, len(actions))
        engine.apply(state, actions[i])
        n += 1
    assert engine.status(state) == "finished"


def deal_alike_on_micropython(deals, runs, heapsize="8m"):
    """`deals` (source defining deals(options, seed, every) -> canonical lines) gives the same
    lines for every run on CPython and on MicroPython (CPython only: it runs micropython)."""
    import json

    from mpy import run_micropython_code
    here = {}
    exec(deals, here)
    mine = []
    for run in runs:
        mine.extend(here["deals"](*run))
    assert len(mine) > 20
    code = deals + "for run in %s:\n    for line in deals(*run):\n        print(line)\n" % (
        json.dumps(runs).replace("null", "None"),)
    assert run_micropython_code(code, heapsize=heapsize).splitlines() == mine


# Determinizations of a few states, printed as canonical JSON: the same text on both
# interpreters (the PRNG, the sorts and the deal order are integers and lists only). RUNS:
# [(options, seed, [steps after which a state is kept])].
_SAME = """
from shared_rules import canon, games, playout, prng
E = games.get(%r)
for options, seed, at in RUNS:
    keep = []
    step = [0]
    def on(state, action, events):
        step[0] += 1
        if step[0] in at:
            keep.append(E.copy(state))
    playout.random_game(%r, options, seed, on_step=on)
    for x in keep:
        for seat in [None] + E.seats(x):
            d = E.determinize(E.copy(x), seat, prng.seed_state(seed * 1000 + step[0]))
            print(canon.dumps(E.to_dict(d)))
"""


def same_deals_program(game, runs):
    """The program that prints the determinizations of `runs` for `game`, on either
    interpreter."""
    return "RUNS = %r\n" % (runs,) + _SAME % (game, game)
