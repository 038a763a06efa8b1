"""Battle Royale's seat page when its pawn is lifted: the pawn is in the person's hand, the
page offers it back (its cell and the cells it may move to lit), and lifting it again says
where it is, never "you may lift only your own pawn"."""

import pytest

from host.games import table_game
from host.games.royale.interpreter import RoyaleTable
from host.web.errors import Refused
from shared_rules import royale
from shared_rules.engine import Match
from table_helpers import lay_out

SETUP = {"players": [{"id": "red", "cell": [0, 0], "active": ["S9"]},
                     {"id": "blue", "cell": [2, 0]}],
         "map": [{"cell": [0, 0], "card": "S5"}, {"cell": [1, 0], "card": "H7"},
                 {"cell": [-1, 0], "card": "DK"}, {"cell": [2, 0], "card": "H5"},
                 {"cell": [-3, 0], "card": "H6"}]}


def test_a_lifted_pawn_is_in_the_hand_with_its_cell_and_moves_lit():
    match = Match("royale", {}, 1, SETUP)
    table = RoyaleTable(match)
    lay_out(table)
    assert table.reconcile(0) is None
    face = table_game("royale").face
    assert royale.current(match.state) == "red" and match.state.phase == "play"
    assert [c for c in face.you(match, table, "red")["hand"]] == []   # on the map
    table.observe_items((0, 0), [i for i in table.observed[(0, 0)] if i != "pawn:red"])
    table.reconcile(0)
    hand = face.you(match, table, "red")["hand"]
    assert [(c["id"], c["label"]) for c in hand] == [
        ("pawn", "Your pawn (Red), lifted from [0, 0]")]
    moves = sorted(list(a["to"]) for a in royale.legal_actions(match.state)
                   if a["type"] == "move")
    assert moves and hand[0]["targets"][0] == [0, 0]
    assert sorted(hand[0]["targets"][1:]) == moves
    with pytest.raises(Refused) as e:
        face.liftable(match, table, "red", (0, 0))
    assert e.value.message.startswith("Your pawn is in your hand already: pick it from your "
                                      "hand, then click [0, 0] to put it back")
    # Put back: it is on the map again, and no longer in the hand.
    steps = face.place_steps(match, table, "red", "pawn", (0, 0))
    assert steps == [("place", (0, 0), "pawn:red")]
    table.observe_items((0, 0), sorted(table.observed[(0, 0)] + ["pawn:red"]))
    table.reconcile(0)
    assert face.you(match, table, "red")["hand"] == [] and table.mismatches == []


def test_the_facts_count_actions_and_free_moves_not_steps():
    """"2 actions and 0 steps left" read as if no move were left: a move spends an action
    when no free move (a card's movement) is left, so the facts say only what there is."""
    match = Match("royale", {}, 1, SETUP)
    face = table_game("royale").face
    facts = face.facts(match)
    left = [f for f in facts if f.endswith(" left")]
    assert left and "step" not in left[0], facts
    free = royale.movement_left(match.state, match.state.players["red"])
    want = "%d action%s" % (match.state.actions_left, "" if match.state.actions_left == 1
                            else "s")
    if free:
        want += " and %d free move%s" % (free, "" if free == 1 else "s")
    assert left == [want + " left"], facts
