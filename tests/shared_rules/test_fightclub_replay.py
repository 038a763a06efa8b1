"""Fairy Tale Fight Club through the scenario runner (`fairytable replay`, `python -m
shared_rules.replay`, `micropython -m shared_rules.replay`): the documented output, exit
status 2 with an error naming the code, the message and the action, or the field."""

import glob
import json
import os

from mpy import REPO, requires_micropython, run_cpython, run_micropython
from replay_helpers import fairytable
from shared_rules import replay

EXAMPLE = os.path.join(REPO, "shared_rules", "examples", "fightclub-example-turn.json")


def write(tmp_path, doc, name="scenario.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def example():
    with open(EXAMPLE) as f:
        return json.load(f)


def test_the_example_prints_the_documented_keys():
    proc = fairytable("replay", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("game", "status", "winner", "scores", "score_breakdown", "market",
                "contracts", "players", "events", "turn", "phase"):
        assert key in out, key
    assert out["game"] == "fightclub" and out["status"] == "ongoing"
    assert out["scores"] == {"p1": 2, "p2": 0}
    assert out["score_breakdown"]["p1"]["contracts"] == 2
    assert out["players"]["p1"]["contracts"] == ["L1-01"]
    assert out["players"]["p1"]["wagons"]["wheelbarrow"] == ["c03-01"]
    assert [c["id"] for c in out["contracts"]] == ["L1-02", "L1-03", "L1-04", "L1-05"]
    kinds = [e["type"] for e in out["events"]]
    assert kinds.index("event_drawn") < kinds.index("gold_gained") < kinds.index(
        "contract_drawn")
    assert proc.stdout == run_cpython(["-m", "shared_rules.replay", EXAMPLE]).stdout


def test_an_illegal_action_exits_2_with_code_message_and_action(tmp_path):
    doc = example()
    doc["actions"].insert(2, {"type": "complete", "contract": "L1-02", "wagon": "wheelbarrow"})
    path = write(tmp_path, doc)
    proc = run_cpython(["-m", "shared_rules.replay", path])
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert out["error"] == {"action": 2, "code": "no_match", "message":
                            "The Wheelbarrow holds nothing; the contract wants exactly 1, 3, "
                            "10."}
    # the state from before that action: L1-01 completed, L1-02 still in play
    assert out["players"]["p1"]["contracts"] == ["L1-01"]
    assert "L1-02" in [c["id"] for c in out["contracts"]]
    assert proc.stderr.decode() == "%s: actions[2]: %s\n" % (path, out["error"]["message"])


def test_malformed_files_name_the_field(tmp_path):
    cases = [
        ('{"game": "fightclub", "actions": [', "file"),
        ({"game": "fightclub", "options": {"players": 6}}, "options.players"),
        ({"game": "fightclub", "options": {"players": 3, "solo": True}}, "options.solo"),
        ({"game": "fightclub", "cards": []}, "cards"),
        ({"game": "fightclub", "setup": {"market": ["c01-01", "c01-01"]}}, "setup.market[1]"),
        ({"game": "fightclub", "setup": {"players": {"p1": {"gold": 41}}}},
         "setup.players.p1.gold"),
        ({"game": "fightclub", "setup": {"contracts": [{"id": "L1-01", "reserved_by": "p9"}]}},
         "setup.contracts[0].reserved_by"),
        ({"game": "fightclub", "setup": {"contract_deck": ["E99"]}}, "setup.contract_deck[0]"),
        ({"game": "fightclub", "actions": [{"wagon": "wheelbarrow"}]}, "actions[0]"),
    ]
    for doc, field in cases:
        status, out = replay.replay_file(write(tmp_path, doc))
        assert status == 2, doc
        assert out["error"]["field"] == field, (doc, out["error"])
        assert out["error"]["message"].startswith(field + ": ")


def test_there_are_golden_playthroughs_for_every_player_count():
    names = sorted(os.path.basename(p) for p in glob.glob(
        os.path.join(REPO, "tests", "golden", "fightclub", "*.json"))
        if not p.endswith(".out.json"))
    assert len(names) >= 6
    counts = set()
    for name in names:
        with open(os.path.join(REPO, "tests", "golden", "fightclub", name)) as f:
            counts.add(json.load(f).get("options", {}).get("players"))
    assert counts >= {1, 2, 3, 4}


@requires_micropython
def test_micropython_gives_the_same_error_bytes(tmp_path):
    doc = example()
    doc["actions"].append({"type": "exchange", "give": ["c07-01"], "take": ["c03-02"]})
    path = write(tmp_path, doc)
    mine = run_cpython(["-m", "shared_rules.replay", path])
    theirs = run_micropython(["-m", "shared_rules.replay", path])
    assert mine.returncode == 2
    assert (theirs.returncode, theirs.stdout, theirs.stderr) == \
        (mine.returncode, mine.stdout, mine.stderr)


@requires_micropython
def test_a_long_four_player_game_replays_in_micropythons_default_heap(tmp_path):
    # About 1,400 actions of four random players: nearly the largest scenario file allowed.
    from shared_rules import playout
    actions = []
    options = {"players": 4, "max_rounds": 200}
    playout.random_game("fightclub", options, 9, max_actions=1400,
                        on_step=lambda state, action, events: actions.append(action))
    doc = {"game": "fightclub", "seed": 9, "options": options, "actions": actions}
    text = json.dumps(doc, separators=(",", ":"))
    assert 40 * 1024 < len(text) <= replay.MAX_FILE_BYTES
    path = write(tmp_path, text)
    mine = run_cpython(["-m", "shared_rules.replay", path])
    theirs = run_micropython(["-m", "shared_rules.replay", path])
    assert mine.returncode == 0 and theirs.returncode == 0, theirs.stdout[-300:]
    assert theirs.stdout == mine.stdout
