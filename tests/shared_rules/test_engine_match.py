"""A match in progress: undo for staff corrections, save and load."""

import pytest

from shared_rules import canon, storybook
from shared_rules.engine import Match, UndoRefused
from shared_rules.errors import ScenarioError

SETUP = {"board": [{"card": "the_cheshire_cat", "cell": [1, 3], "owner": "hero"},
                   {"card": "the_crocodile", "cell": [3, 3], "owner": "villain"},
                   {"card": "gentleman_starkey", "cell": [4, 3], "owner": "villain",
                    "face_up": False}],
         "hands": {"hero": ["the_white_rabbit"]}, "turn": "hero"}


def test_undo_takes_back_a_spin_and_a_slide():
    m = Match("storybook", {}, 1, SETUP)
    before = canon.dumps(storybook.to_dict(m.state))
    m.apply({"type": "spin", "cell": [1, 3], "dir": "cw"})
    m.apply({"type": "slide", "cell": [1, 3], "dir": "E"})
    assert m.undo()["type"] == "slide"
    assert m.undo()["type"] == "spin"
    assert canon.dumps(storybook.to_dict(m.state)) == before and m.actions == []


def test_undo_is_refused_across_a_reveal():
    m = Match("storybook", {}, 1, SETUP)
    m.apply({"type": "spin", "cell": [1, 3], "dir": "cw"})
    m.apply({"type": "reveal", "cell": [4, 3]})
    with pytest.raises(UndoRefused) as err:
        m.undo()
    assert err.value.code == "undo_refused" and "face up" in err.value.message
    with pytest.raises(UndoRefused):
        m.undo()  # nor the spin before it: "refused across a reveal"


def test_undo_is_refused_after_a_draw():
    m = Match("storybook", {}, 1, SETUP)
    m.apply({"type": "draw"})
    with pytest.raises(UndoRefused) as err:
        m.undo()
    assert "drawn" in err.value.message


def test_save_and_load_resume_the_same_game():
    m = Match("storybook", {}, 9)
    for _ in range(12):
        m.apply(m.legal_actions()[0])
    text = m.save()
    again = Match.load(text)
    assert again.save() == text
    assert canon.dumps(again.legal_actions()) == canon.dumps(m.legal_actions())


def test_a_damaged_save_is_refused_with_a_reason():
    m = Match("storybook", {}, 9)
    m.apply(m.legal_actions()[0])
    data = canon.loads(m.save())
    data["state"]["ap"] = 99
    with pytest.raises(ScenarioError) as err:
        Match.load(canon.dumps(data))
    assert err.value.field == "save.state"
    with pytest.raises(ScenarioError):
        Match.load("{oops")
