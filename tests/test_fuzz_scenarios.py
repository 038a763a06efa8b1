"""The bad-input corpus (tools/fuzz_scenarios.py), short: a few hundred hostile scenario files
are each refused with a sentence naming the field (or played, when a mutation happens to be a
legal scenario), never a traceback; a sample prints the same bytes under MicroPython."""

import os
import sys

from mpy import REPO, requires_micropython

import pytest

sys.path.insert(0, os.path.join(REPO, "tools"))
import fuzz_scenarios  # noqa: E402


def test_a_few_hundred_hostile_files_never_crash_replay():
    report = fuzz_scenarios.run(count=400, seed=12)
    assert report["tried"] == 400
    assert report["failed"] == []
    # Every kind of mutation was tried, and most files were refused (they are hostile).
    assert len(report["by_mutation"]) == len(fuzz_scenarios.MUTATIONS)
    assert report["ok_refused"] > 300


def test_the_judge_counts_what_the_brief_calls_failures():
    judge = fuzz_scenarios.judge
    assert judge(2, {"error": {"code": "malformed", "field": "setup.board[0].card",
                               "message": "setup.board[0].card: unknown card 'x'"}}) is None
    assert judge(2, {"error": {"code": "malformed", "field": "setup",
                               "message": "something is wrong"}}) is not None
    assert judge(1, {"error": {"code": "internal", "field": "file", "message": "file: x"}})
    assert judge(0, {}) is not None
    assert judge(0, {"status": "ongoing", "events": [], "x": 1.5}) is not None


@requires_micropython
@pytest.mark.micropython
def test_a_sample_prints_the_same_bytes_under_micropython():
    report = fuzz_scenarios.run(count=120, seed=13, mpy=24)
    assert report["mpy_tried"] >= 20
    assert report["mpy_failed"] == [] and report["failed"] == []
