"""Fairytale Games through the scenario runner (`fairytable replay`, `python -m
shared_rules.replay`, `micropython -m shared_rules.replay`): the examples in
shared_rules/examples/ play with every card and die read from the table, the documented output,
exit status 2 with the refused action's code and message, or the bad field."""

import glob
import json
import os

from mpy import REPO, requires_micropython, run_cpython, run_micropython
from replay_helpers import fairytable, replay_doc

EXAMPLES = os.path.join(REPO, "shared_rules", "examples")
BATTLE = os.path.join(EXAMPLES, "fairytale-first-battle.json")
AMBUSH = os.path.join(EXAMPLES, "fairytale-ambush-inline-wolf.json")


def example(path):
    with open(path) as f:
        return json.load(f)


def test_there_are_fairytale_examples_and_each_replays():
    paths = sorted(glob.glob(os.path.join(EXAMPLES, "fairytale-*.json")))
    assert len(paths) >= 2
    for path in paths:
        proc = fairytable("replay", path)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["game"] == "fairytale" and "error" not in out
        assert len([e for e in out["events"] if e["type"] != "chance_taken"]) > 10


def test_the_first_battle_example_prints_the_table_as_the_actions_left_it():
    proc = fairytable("replay", BATTLE)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("status", "day", "event", "map", "players", "battles", "decks", "events",
                "order", "turn", "winners", "epilogue"):
        assert key in out, key
    assert out["status"] == "ongoing" and out["day"] == 3 and out["event"] == "plague"
    hook, robin = out["players"]["p1"], out["players"]["p2"]
    # The cards read from the table went where the rules send them.
    assert out["map"][0]["location"] == "emerald_city" and out["map"][0]["flipped"]
    assert hook["hand"] == ["steel_chestplate", "magic_lamp"] and hook["reputation"] == 2
    assert hook["equipped"] == {"captain_hook": ["steel_sword"]}
    assert robin["hand"] == ["heal_potion"]
    # Hook: 20, less 1 damage through the Block and 1 trait paid for his attack; Robin lost 4
    # to the sword-backed Heavy Attack and paid 1 for his own; he fled, and is protected.
    assert (hook["health"], robin["health"]) == (18, 12)
    assert out["battles"] == [] and robin["protect"][0]["from"] == "p1"
    kinds = [e["type"] for e in out["events"]]
    assert kinds.index("discovered") < kinds.index("battle_begins") < kinds.index(
        "flee_roll") < kinds.index("battle_ends")
    assert proc.stdout == run_cpython(["-m", "shared_rules.replay", BATTLE]).stdout


def test_an_inline_card_replaces_the_catalogs():
    status, out, err = replay_doc_file(AMBUSH)
    assert status == 0, err
    killed = [e for e in out["events"] if e["type"] == "enemy_killed"]
    assert [e["enemy"] for e in killed] == ["wolf"] and out["battles"] == []
    # The catalog's Wolf has 6 health; the scenario's 3 fall to one 3 ATK Heavy Attack.
    dmg = [e for e in out["events"] if e["type"] == "damage" and e["fighter"] == "e1"]
    assert [(e["n"], e["health"]) for e in dmg] == [(3, 0)]


def replay_doc_file(path):
    proc = run_cpython(["-m", "shared_rules.replay", path])
    return proc.returncode, json.loads(proc.stdout), proc.stderr.decode()


def test_a_refused_action_exits_2_with_its_code_and_the_state_before(tmp_path):
    doc = example(BATTLE)
    doc["actions"].insert(1, {"type": "step", "seat": "p1", "to": [5, 5]})
    status, out, err = replay_doc(tmp_path, doc)
    assert status == 2
    assert out["error"]["action"] == 1 and out["error"]["code"]
    assert err.endswith(": actions[1]: %s\n" % out["error"]["message"])
    # The state after the first action: Hook on the Emerald City, nothing searched yet.
    assert out["players"]["p1"]["cell"] == [3, 2] and out["map"][0]["searched"] == 0


def test_malformed_files_name_the_field(tmp_path):
    cases = [
        ({"game": "fairytale", "options": {"players": 11}}, "options.players"),
        ({"game": "fairytale", "options": {"mode": "arena"}}, "options.mode"),
        ({"game": "fairytale", "setup": {"players": [{"character": "no_such_hero"}]}},
         "setup.players[0].character"),
        ({"game": "fairytale", "actions": [{"seat": "p1"}]}, "actions[0]"),
    ]
    for doc, field in cases:
        status, out, err = replay_doc(tmp_path, doc)
        assert status == 2, doc
        assert out["error"]["field"] == field, (doc, out["error"])
        assert out["error"]["message"].startswith(field + ": ")


@requires_micropython
def test_micropython_replays_an_example_and_an_error_byte_for_byte(tmp_path):
    doc = example(AMBUSH)
    doc["actions"].append({"type": "attack", "seat": "p1", "card": "heavy_2", "target": "e1"})
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(doc))
    for p in (AMBUSH, str(path)):
        mine = run_cpython(["-m", "shared_rules.replay", p])
        theirs = run_micropython(["-m", "shared_rules.replay", p])
        assert (theirs.returncode, theirs.stdout) == (mine.returncode, mine.stdout)
    assert mine.returncode == 2
