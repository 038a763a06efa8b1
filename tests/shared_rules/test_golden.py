"""Golden playthroughs: every scenario in tests/golden/ gives its recorded output, byte for byte,
on CPython (`python -m shared_rules.replay`) and on MicroPython (`micropython -m ...`)."""

import glob
import os

import pytest

from mpy import REPO, requires_micropython, run_cpython, run_micropython

SCENARIOS = sorted(p for p in glob.glob(os.path.join(REPO, "tests", "golden", "*", "*.json"))
                   if not p.endswith(".out.json"))
IDS = [os.path.relpath(p, os.path.join(REPO, "tests", "golden")) for p in SCENARIOS]


def expected(path):
    with open(path[:-len(".json")] + ".out.json", "rb") as f:
        return f.read()


def test_there_are_golden_playthroughs():
    assert len([p for p in SCENARIOS if "/storybook/" in p.replace(os.sep, "/")]) >= 5


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_cpython_replay_matches_golden(path):
    proc = run_cpython(["-m", "shared_rules.replay", path])
    assert proc.stdout == expected(path), proc.stderr.decode()
    assert proc.returncode == (2 if b'"error":' in proc.stdout else 0)


@requires_micropython
@pytest.mark.micropython
@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_micropython_replay_is_byte_identical(path):
    proc = run_micropython(["-m", "shared_rules.replay", os.path.relpath(path, REPO)])
    assert proc.stdout == expected(path), proc.stderr.decode()
    assert proc.returncode == (2 if b'"error":' in proc.stdout else 0)
