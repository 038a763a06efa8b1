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
