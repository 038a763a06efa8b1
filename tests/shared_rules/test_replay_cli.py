"""The scenario runner is a public contract.

`fairytable replay FILE` and `python -m shared_rules.replay FILE` print the same JSON.
"""

import json
import os

import pytest

from mpy import REPO, requires_micropython, run_cpython, run_micropython
from replay_helpers import fairytable, replay_doc
from shared_rules import replay

EXAMPLE = os.path.join(REPO, "shared_rules", "examples", "storybook-example-turn.json")


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
    status, result, _ = replay_doc(tmp_path, doc)
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
        status, result, _ = replay_doc(tmp_path, doc)
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


# ---------------------------------------------------------------- hostile files

HOSTILE = [
    # (name, bytes, field the error names)
    ("not-utf8", b'{"game": "storybook", "description": "caf\xe9"}', "file"),
    ("deep", b'{"game": "storybook", "setup": ' + b"[" * 1000 + b"]" * 1000 + b"}", "file"),
    ("huge-number", b'{"game": "royale", "seed": 1' + b"0" * 5000 + b"}", "file"),
    ("decimal-in-cards", b'{"game": "storybook", "cards": [{"id": "x", "points": 1.5}]}',
     "cards[0].points"),
    ("list-id", b'{"game": "storybook", "setup": {"board": [{"card": ["a"], "cell": [1, 1]}]}}',
     "setup.board[0].card"),
    ("object-id", b'{"game": "royale", "setup": {"players": [{"id": "red", "cell": [0, 3]}, '
     b'{"id": "blue", "cell": [3, 0]}], "turn": {"id": "red"}}}', "setup.turn"),
    ("lax-json", b'{"game": "storybook", "actions": [1 2]}', "file"),
    ("empty-key", b'{"game": "storybook", "": 1}', '[""]'),
    ("schema", b'{"game": "storybook", "schema": 2}', "schema"),
    ("description", b'{"game": "royale", "description": ["a"]}', "description"),
    # A name given twice: JSON readers keep the last silently, so another action would be
    # played, or another game.
    ("twice-type", b'{"game": "storybook", "actions": [{"type": "end_turn"}, '
     b'{"type": "draw", "type": "end_turn"}]}', "actions[1].type"),
    ("twice-game", b'{"game": "storybook", "seed": 1, "game": "royale"}', "game"),
    ("twice-escaped", b'{"game": "storybook", "seed": 1, "se\\u0065d": 2}', "seed"),
    ("twice-moved", b'{"game": "heroes", "options": {"mode": "ctf"}, "setup": {"moved": [], '
     b'"characters": [], "moved": ["the_giant"]}}', "setup.moved"),
]


@pytest.mark.parametrize("name,data,field", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_files_exit_2_with_a_sentence_naming_file_and_field(tmp_path, name, data, field):
    path = tmp_path / (name + ".json")
    path.write_bytes(data)
    proc = run_cpython(["-m", "shared_rules.replay", str(path)])
    assert proc.returncode == 2, proc.stderr
    assert b"Traceback" not in proc.stderr
    err = json.loads(proc.stdout)["error"]
    assert err["field"] == field and err["message"].startswith(field + ": ")
    assert proc.stderr.decode() == "%s: %s\n" % (path, err["message"])


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b'{"game": "storybook", "description": "' +
                     b"x" * replay.MAX_FILE_BYTES + b'"}')
    status, result = replay.replay_file(str(path))
    assert status == 2 and result["error"]["code"] == "too_large"
    assert str(replay.MAX_FILE_BYTES) in result["error"]["message"]


def test_the_active_count_message_gives_the_actual_count(tmp_path):
    doc = {"game": "royale", "setup": {"players": [
        {"id": "red", "cell": [0, 3], "active": ["S3", "S4"], "reserve": ["S5"]},
        {"id": "blue", "cell": [3, 0]}]}}
    status, result, _ = replay_doc(tmp_path, doc)
    assert status == 2 and result["error"]["field"] == "setup.players[0].active"
    assert "holding 3 cards has 2 active, not 3" in result["error"]["message"]


@requires_micropython
@pytest.mark.micropython
@pytest.mark.parametrize("name,data,field", HOSTILE + [
    ("big", b'{"game": "royale", "description": "' + b"y" * 70000 + b'"}', "file"),
    ("surrogate-bytes", b'{"game": "storybook", "\xed\xa0\x80": 1}', "file"),
    ("overlong", b'{"game": "storybook", "\xc0\xaf": 1}', "file"),
    ("escaped-pair", b'{"game": "storybook", "\\ud83d\\ude00": 1}', '["\\ud83d\\ude00"]'),
], ids=[h[0] for h in HOSTILE] + ["big", "surrogate-bytes", "overlong", "escaped-pair"])
def test_micropython_gives_the_same_error_bytes(tmp_path, name, data, field):
    path = tmp_path / (name + ".json")
    path.write_bytes(data)
    mine = run_cpython(["-m", "shared_rules.replay", str(path)])
    theirs = run_micropython(["-m", "shared_rules.replay", str(path)])
    assert (theirs.returncode, theirs.stdout, theirs.stderr) == \
        (mine.returncode, mine.stdout, mine.stderr)
    assert mine.returncode == 2 and json.loads(mine.stdout)["error"]["field"] == field


@requires_micropython
@pytest.mark.micropython
def test_a_scenario_at_the_size_limit_plays_in_micropythons_default_heap(tmp_path):
    # 3,200 turns of two adjacent face-up cards: a 64 KB file printing 1.2 MB of events.
    doc = {"game": "storybook", "seed": 1, "options": {"max_turns": 100000},
           "setup": {"board": [{"card": "alice", "cell": [3, 3]},
                               {"card": "the_crocodile", "cell": [3, 4]}]},
           "actions": [{"type": "end_turn"}] * 3200}
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    assert os.path.getsize(path) <= replay.MAX_FILE_BYTES
    mine = run_cpython(["-m", "shared_rules.replay", str(path)])
    theirs = run_micropython(["-m", "shared_rules.replay", str(path)])
    assert mine.returncode == 0 and len(mine.stdout) > 1000000
    assert (theirs.returncode, theirs.stdout, theirs.stderr) == (0, mine.stdout, b"")
