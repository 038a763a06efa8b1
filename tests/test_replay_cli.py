"""The scenario runner is a public contract.

`fairytable replay FILE` and `python -m shared_rules.replay FILE` print the same JSON.
"""

import json
import os
import subprocess
import sys

from mpy import REPO, run_cpython

EXAMPLE = os.path.join(REPO, "shared_rules", "examples", "storybook-example-turn.json")


def fairytable(*args):
    exe = os.path.join(os.path.dirname(sys.executable), "fairytable")
    return subprocess.run([exe] + list(args), capture_output=True, cwd=REPO, timeout=60)


def replay_doc(tmp_path, doc):
    path = tmp_path / "scenario.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    proc = run_cpython(["-m", "shared_rules.replay", str(path)])
    return proc.returncode, json.loads(proc.stdout)


def test_fairytable_replay_prints_one_canonical_json_object():
    proc = fairytable("replay", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert out.count("\n") == 1 and ": " not in out
    result = json.loads(out)
    for key in ("game", "status", "winner", "scores", "turn", "board", "events"):
        assert key in result
    assert result["scores"] == {"hero": 4, "villain": 2}
    assert out == run_cpython(["-m", "shared_rules.replay", EXAMPLE]).stdout.decode()


def test_an_illegal_action_exits_2_with_the_state_before_it(tmp_path):
    doc = json.load(open(EXAMPLE))
    doc["actions"].insert(1, {"type": "reveal", "cell": [2, 3]})
    status, result = replay_doc(tmp_path, doc)
    assert status == 2
    assert result["error"]["code"] == "already_face_up" and result["error"]["action"] == 1
    assert "face up" in result["error"]["message"]
    assert [b["card"] for b in result["board"]].count("the_white_rabbit") == 1
    assert result["scores"] == {"hero": 0, "villain": 0}


def test_malformed_files_name_the_field(tmp_path):
    cases = [
        ("{not json", "file"),
        ({"game": "chess"}, "game"),
        ({"game": "storybook", "seed": "one"}, "seed"),
        ({"game": "storybook", "options": {"players": 3}}, "options.players"),
        ({"game": "storybook", "actions": [{"cell": [1, 1]}]}, "actions[0]"),
        ({"game": "storybook", "setup": {"board": [{"card": "nobody", "cell": [1, 1]}]}},
         "setup.board[0].card"),
        ({"game": "storybook", "cards": [{"id": "x"}]}, "cards[0].name"),
        ({"game": "storybook", "colour": "red"}, "colour"),
    ]
    for doc, field in cases:
        status, result = replay_doc(tmp_path, doc)
        assert status == 2, doc
        assert result["error"]["field"] == field, (doc, result)
        assert result["error"]["message"]


def test_a_missing_file_is_reported_in_words(tmp_path):
    proc = run_cpython(["-m", "shared_rules.replay", str(tmp_path / "nope.json")])
    assert proc.returncode == 2
    assert "cannot read" in json.loads(proc.stdout)["error"]["message"]


def test_fairytable_without_a_command_lists_commands():
    proc = fairytable()
    assert proc.returncode == 0 and b"replay" in proc.stdout
    assert fairytable("fly").returncode == 2
