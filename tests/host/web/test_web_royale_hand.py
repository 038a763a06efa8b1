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


def test_the_turn_order_roll_is_offered_once_and_marked_as_the_dice_stand_in():
    """At the start the page showed "Roll for the turn order" and "Throw the dice", two
    buttons doing one thing. The roll is marked "dice" (the page that throws the table's
    dice leaves it out), and once the order is settled it is gone, not greyed for ever."""
    match = Match("royale", {"players": 2}, 7)
    table = RoyaleTable(match)
    face = table_game("royale").face
    assert match.state.phase == "order"
    rolls = [c for c in face.you(match, table, "red")["choices"]
             if c["control"] == {"op": "button", "name": "roll"}]
    assert rolls == [{"label": "Roll for the turn order", "enabled": True, "dice": True,
                      "control": {"op": "button", "name": "roll"}}]
    match.apply({"type": "roll_order"})
    assert match.state.phase != "order"
    names = [c["control"].get("name") for c in face.you(match, table, "red")["choices"]]
    assert "roll" not in names and "end_turn" in names


def test_the_legend_draws_a_face_down_card_as_the_board_does():
    """The legend's face-down card was a near-black "▦" (the LED's dim amber) on the dark
    page: it is the board's striped card back now, with its "?"."""
    match = Match("royale", {"players": 2}, 7)
    face = table_game("royale").face
    backs = [g for g in face.legend(match, None) if g.get("look") == "card_back"]
    assert [(g["shape"], g["words"]) for g in backs] == [
        ("?", "a face-down card of the map (its value where known)")]


def test_the_seat_page_shows_the_cards_the_seat_holds():
    """A card won went into the player's hand off the table, and the page showed nothing
    of it: "Your cards" lists those in play and those set aside, with what they do."""
    setup = {"players": [{"id": "red", "cell": [0, 0], "active": ["S9", "S2", "H3"],
                          "reserve": ["H7"]},
                         {"id": "blue", "cell": [2, 0]}],
             "map": [{"cell": [0, 0], "card": "S5"}, {"cell": [2, 0], "card": "H5"}]}
    match = Match("royale", {}, 1, setup)
    table = RoyaleTable(match)
    face = table_game("royale").face
    board = face.you(match, table, "red")["board"]
    assert [p["title"] for p in board] == ["Your cards"]
    rows = [(r["label"], r["value"]) for r in board[0]["rows"]]
    assert rows == [("Nine of Spades (9)", "in play"), ("Two of Spades (2)", "in play"),
                    ("Three of Hearts (3)", "in play"), ("Seven of Hearts (7)", "set aside")]
    assert board[0]["rows"][1]["note"].startswith("Curse:")
    assert face.you(match, table, "blue")["board"] == []
