"""Battle Royale with hero teams through the scenario runner (`fairytable replay`,
`python -m shared_rules.replay`, `micropython -m shared_rules.replay`): the documented
output, and exit status 2 with an error naming the field or the action."""

import glob
import json
import os

import pytest

from mpy import REPO, requires_micropython, run_cpython, run_micropython
from replay_helpers import fairytable, replay_doc

EXAMPLES = sorted(glob.glob(os.path.join(REPO, "shared_rules", "examples", "heroes-*.json")))
ROYALE = os.path.join(REPO, "shared_rules", "examples", "heroes-royale-battle.json")


def test_there_are_examples_of_both_modes():
    modes = set(json.load(open(p))["options"]["mode"] for p in EXAMPLES)
    assert modes == {"royale", "ctf"}


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_fairytable_replay_plays_the_examples_to_their_end(path):
    proc = fairytable("replay", path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("game", "mode", "status", "winner", "characters", "flags", "events", "turn",
                "actions_left", "roll", "map"):
        assert key in out, key
    assert out["game"] == "heroes" and out["status"] == "finished" and out["winner"] == "red"
    for c in out["characters"]:
        assert set(["id", "seat", "cell", "health", "state"]) <= set(c)
    assert proc.stdout == run_cpython(["-m", "shared_rules.replay", path]).stdout


def test_an_illegal_action_exits_2_with_code_message_action_and_the_state_before(tmp_path):
    doc = json.load(open(ROYALE))
    # A second Club Sweep: the card was turned over when it was played.
    doc["actions"].insert(5, {"type": "play_card", "character": "the_giant",
                              "card": "club_sweep_attack"})
    status, result, stderr = replay_doc(tmp_path, doc)
    assert status == 2
    err = result["error"]
    assert err["code"] == "face_down" and err["action"] == 5
    assert err["message"] == "Club Sweep Attack is face down: it cannot be played again."
    assert "actions[5]: Club Sweep Attack is face down" in stderr
    # The state from before it: Gretel defeated, red holding the Bonus Card it rolled for.
    assert result["hands"] == {"red": ["golden_shield"], "blue": []}
    assert result["actions_left"] == 2 and result["turn"] == "red"
    assert [c["state"] for c in result["characters"]] == ["standing", "standing", "out",
                                                         "standing"]


def test_malformed_files_name_the_field(tmp_path):
    cases = [
        ({"game": "heroes", "options": {"mode": "capture"}}, "options.mode"),
        ({"game": "heroes", "options": {"players": 5}}, "options.players"),
        ({"game": "heroes", "setup": {"characters": [{"id": "robin_hood", "seat": "red",
                                                      "cell": [9, 9]}]}},
         "setup.characters[0].cell"),
        ({"game": "heroes", "setup": {"map": "atlantis"}}, "setup.map"),
        ({"game": "heroes", "cards": [{"type": "bonus", "id": "x", "name": "X", "text": "t",
                                       "kind": "heal", "amount": 99, "range": 1}]},
         "cards[0].amount"),
        ({"game": "heroes", "setup": {"turn": "red"}}, "setup.turn"),
    ]
    for doc, field in cases:
        status, result, stderr = replay_doc(tmp_path, doc)
        assert status == 2, doc
        assert result["error"]["field"] == field, (doc, result)
        assert result["error"]["message"].startswith(field + ": ")


CTF = os.path.join(REPO, "shared_rules", "examples", "heroes-ctf-flag-run.json")
WRONG_SETUPS = [
    # (setup field, its value, the field the error names, words of the sentence)
    ("moved", [{"id": "the_giant"}], "setup.moved[0]", "must be the id of a character"),
    ("moved", [["the_giant"]], "setup.moved[0]", "must be the id of a character"),
    ("stopped", [{"id": "the_giant"}], "setup.stopped[0]", "must be the id of a character"),
    ("stopped", [["the_giant"]], "setup.stopped[0]", "must be the id of a character"),
    ("moved", ["the_giant", "the_giant"], "setup.moved[1]", "the_giant is listed twice"),
]


@pytest.mark.parametrize("key,value,field,words", WRONG_SETUPS)
def test_moved_or_stopped_of_the_wrong_shape_exits_2_naming_the_field(tmp_path, key, value,
                                                                      field, words):
    # It was exit 1: "the rules engine failed on it (TypeError)".
    doc = json.load(open(CTF))
    doc["setup"][key] = value
    status, result, stderr = replay_doc(tmp_path, doc)
    assert status == 2, result
    assert result["error"]["field"] == field and words in result["error"]["message"]
    assert "Traceback" not in stderr and field in stderr


@requires_micropython
@pytest.mark.micropython
def test_micropython_refuses_them_with_the_same_bytes(tmp_path):
    for n, (key, value, field, _words) in enumerate(WRONG_SETUPS):
        doc = json.load(open(CTF))
        doc["setup"][key] = value
        path = tmp_path / ("wrong-%d.json" % n)
        path.write_text(json.dumps(doc))
        mine = run_cpython(["-m", "shared_rules.replay", str(path)])
        theirs = run_micropython(["-m", "shared_rules.replay", str(path)])
        assert mine.returncode == 2 and json.loads(mine.stdout)["error"]["field"] == field
        assert (theirs.returncode, theirs.stdout, theirs.stderr) == \
            (mine.returncode, mine.stdout, mine.stderr)


def test_an_action_of_the_wrong_shape_is_an_error_not_a_traceback(tmp_path):
    doc = json.load(open(ROYALE))
    doc["actions"][2]["dice"] = {"red": 9, "white": {"robin_hood": 3, "gretel": 2}}
    status, result, stderr = replay_doc(tmp_path, doc)
    assert status == 2 and result["error"]["code"] == "bad_dice"
    assert result["error"]["action"] == 2


@requires_micropython
@pytest.mark.micropython
def test_micropython_gives_the_same_error_bytes(tmp_path):
    doc = json.load(open(ROYALE))
    doc["actions"].insert(5, {"type": "play_card", "character": "the_giant",
                              "card": "club_sweep_attack"})
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(doc))
    mine = run_cpython(["-m", "shared_rules.replay", str(path)])
    theirs = run_micropython(["-m", "shared_rules.replay", str(path)])
    assert (theirs.returncode, theirs.stdout, theirs.stderr) == \
        (mine.returncode, mine.stdout, mine.stderr)
    assert mine.returncode == 2
