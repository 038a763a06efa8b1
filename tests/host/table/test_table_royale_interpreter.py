"""The Battle Royale table interpreter: pawns, pads and dice become actions, or a mismatch.

Pure: observations are fed by hand, as the session feeds them from the tiles.
"""

from host.games.royale import interpreter as royale_table
from host.games.royale.interpreter import RoyaleTable
from host.games.royale.dice import table_dice
from shared_rules import royale
from shared_rules.engine import Match
from table_helpers import apply, lay_out

FILLER = [{"cell": [3, 0], "card": "H5"}, {"cell": [-3, 0], "card": "H6"}]


def player(pid, cell, active=(), reserve=(), alive=True):
    return {"id": pid, "cell": list(cell), "alive": alive, "active": list(active),
            "reserve": list(reserve)}


def table_for(players, cards=(), **setup):
    rows = [{"cell": list(c), "card": cid} for c, cid in cards] + [dict(r) for r in FILLER]
    match = Match("royale", {}, 1, dict(setup, players=players, map=rows))
    table = RoyaleTable(match)
    lay_out(table)
    assert table.reconcile(0) is None and table.mismatches == []
    return match, table


def roll(table, values, now=0):
    """Dice settling in pockets 1.. in order; returns the last answer of the tray."""
    out = None
    for pocket, v in enumerate(values):
        out = table.dice(pocket, "die:%d:%d" % (pocket + 1, v), None, now)
    return out


def empty_tray(table):
    for pocket in range(3):
        table.dice(pocket, None, None, 0)


def codes(table):
    return [m.code for m in table.mismatches]


# ---------------------------------------------------------------- before the game

def test_everybody_rolls_a_die_for_the_turn_order_in_the_tray():
    match = Match("royale", {"players": 3}, 5)
    table = RoyaleTable(match)
    lay_out(table)
    assert table.reconcile(0) is None
    assert table.pockets_wanted() == [0, 1, 2]  # red, blue, green: pockets 1, 2, 3
    assert table.dice(0, "die:1:6", None, 0) is None
    assert table.dice(1, "die:2:2", None, 0) is None
    assert table.dice(2, "die:3:4", None, 0) == {
        "type": "roll_order", "dice": {"red": 6, "blue": 2, "green": 4}}


def test_tied_players_roll_again_after_taking_the_dice_out():
    match = Match("royale", {"players": 3}, 5)
    table = RoyaleTable(match)
    lay_out(table)
    table.reconcile(0)
    action = roll(table, [5, 5, 1])
    apply(match, table, action)
    assert match.state.phase == "order"
    table.reconcile(0)
    assert table.pockets_wanted() == [0, 1]  # red and blue roll again
    # The dice still lying in the tray are not a new roll.
    assert table.dice(0, "die:1:5", None, 0) is None
    empty_tray(table)
    assert roll(table, [2, 3]) == {"type": "roll_order", "dice": {"red": 2, "blue": 3}}


def test_a_seat_button_lets_the_engine_roll_the_order():
    match = Match("royale", {"players": 2}, 5)
    table = RoyaleTable(match)
    table.reconcile(0)
    assert table.button("red", "roll") == {"type": "roll_order"}


def test_a_pawn_put_on_the_outer_ring_is_placed():
    match = Match("royale", {"players": 2}, 5)
    table = RoyaleTable(match)
    lay_out(table)
    table.reconcile(0)
    apply(match, table, {"type": "roll_order", "dice": {"red": 6, "blue": 1}})
    cell = (0, 3)
    table.observe_items(cell, table.observed[cell] + ["pawn:red"])
    assert table.reconcile(0) == {"type": "place", "cell": [0, 3]}


def test_a_pawn_inside_the_ring_is_a_mismatch_and_not_placed():
    match = Match("royale", {"players": 2}, 5)
    table = RoyaleTable(match)
    lay_out(table)
    table.reconcile(0)
    apply(match, table, {"type": "roll_order", "dice": {"red": 6, "blue": 1}})
    table.observe_items((0, 0), table.observed[(0, 0)] + ["pawn:red"])
    assert table.reconcile(0) is None
    assert codes(table) == ["not_outer_ring"]
    assert "outer edge" in table.mismatches[0].message and table.mismatches[0].cells == [(0, 0)]


def test_the_other_players_pawn_waits_its_turn_to_be_placed():
    match = Match("royale", {"players": 2}, 5)
    table = RoyaleTable(match)
    lay_out(table)
    table.reconcile(0)
    apply(match, table, {"type": "roll_order", "dice": {"red": 6, "blue": 1}})
    table.observe_items((0, 3), table.observed[(0, 3)] + ["pawn:blue"])
    assert table.reconcile(0) is None and codes(table) == ["not_yet"]
    assert "Red's turn" in table.mismatches[0].message


# ---------------------------------------------------------------- moving

def test_lift_your_pawn_and_put_it_on_a_neighbouring_cell_is_a_move():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9"), ((1, 1), "S8")])
    table.observe_items((0, 0), ["royale:S9"])
    assert table.reconcile(0) is None
    assert table.mismatches == [] and table.busy()  # the pawn is in the hand
    table.observe_items((1, 1), ["pawn:red", "royale:S8"])
    assert table.reconcile(0) == {"type": "move", "to": [1, 1]}


def test_a_pawn_put_two_cells_away_is_a_mismatch():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))])
    table.observe_items((0, 0), [])
    table.observe_items((0, 2), ["pawn:red"])
    assert table.reconcile(0) is None
    assert codes(table) == ["not_adjacent"]
    m = table.mismatches[0]
    assert m.cells == [(0, 0), (0, 2)] and "Put the red pawn back on [0, 0]" in m.message


def test_a_pawn_of_the_player_whose_turn_it_is_not_is_a_mismatch_when_lifted():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))])
    table.observe_items((2, 0), [])
    assert table.reconcile(0) is None
    assert codes(table) == ["lifted"] and table.mismatches[0].cells == [(2, 0)]


# ---------------------------------------------------------------- attacking a card

def test_tap_then_three_dice_attack_the_card():
    """ "You have to get that value or higher by rolling 3 dice to win the card." """
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9")])
    assert table.gesture((0, 0), "tap", 0) is None
    assert table.pockets_wanted() == [0, 1, 2] and table.busy()
    assert table.dice(0, "die:2:6", None, 0) is None
    assert table.dice(2, "die:1:2", None, 0) is None
    assert table.dice(1, "die:3:1", None, 0) == {"type": "attack_card", "dice": [6, 1, 2]}


def test_a_won_card_left_on_the_map_is_a_mismatch_until_lifted():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9")])
    table.gesture((0, 0), "tap", 0)
    apply(match, table, roll(table, [6, 5, 4]))
    assert table.reconcile(0) is None
    assert codes(table) == ["won_on_map"]
    assert "Nine of Spades" in table.mismatches[0].message and "lift it off" in \
        table.mismatches[0].message
    assert table.gesture((0, 0), "tap", 0) is None  # nothing more until the table matches
    table.observe_items((0, 0), ["pawn:red"])
    assert table.reconcile(0) is None and table.mismatches == []


def test_a_failed_attack_lights_the_fall_cell_until_the_pawn_is_there():
    """ "If the player fails to win the card, he dies and has to move to one of the
    adjacent cards." """
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "SK")])
    table.gesture((0, 0), "tap", 0)
    events = apply(match, table, roll(table, [1, 2, 3]))
    fell = [tuple(e["fell_to"]) for e in events if e["type"] == "player_died"][0]
    assert table.reconcile(0) is None
    assert codes(table) == ["fall"]
    assert table.mismatches[0].cells == sorted([(0, 0), fell])
    assert "%r" % (list(fell),) in table.mismatches[0].message
    table.observe_items((0, 0), ["royale:SK"])
    table.observe_items(fell, table.observed.get(fell, []) + ["pawn:red"])
    assert table.reconcile(0) is None and table.mismatches == []


def test_dice_already_in_the_tray_do_not_count_for_a_new_attack():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9")])
    roll(table, [6, 6, 6])
    table.gesture((0, 0), "tap", 0)
    assert table.dice(2, "die:3:6", None, 0) is None
    empty_tray(table)
    assert roll(table, [1, 1, 1]) == {"type": "attack_card", "dice": [1, 1, 1]}


def test_a_tap_on_a_cell_without_a_card_is_refused_with_the_reason():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))])
    assert table.gesture((0, 0), "tap", 0) is None
    assert table.throw is None
    assert table.refusals == [([(0, 0)], "There is no card on your cell to attack.")]


def test_a_tap_on_another_cell_is_refused():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9")])
    table.gesture((1, 0), "tap", 0)
    assert table.throw is None and "Red's pawn stands on [0, 0]" in table.refusals[0][1]


# ---------------------------------------------------------------- dice that are not dice

def test_a_card_in_a_pocket_is_not_a_die():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9")])
    table.gesture((0, 0), "tap", 0)
    assert table.dice(0, "royale:S2", None, 0) is None
    assert codes(table) == ["not_a_die"] and "Pocket 1" in table.mismatches[0].message


def test_the_same_die_in_two_pockets_is_a_copy():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9")])
    table.gesture((0, 0), "tap", 0)
    table.dice(0, "die:1:6", None, 0)
    table.dice(1, "die:2:6", None, 0)
    assert table.dice(2, "die:1:4", None, 0) is None
    assert codes(table) == ["two_dice"]
    table.dice(2, None, None, 0)
    assert table.dice(2, "die:3:4", None, 0) == {"type": "attack_card", "dice": [6, 6, 4]}


def test_a_forged_die_tag_is_a_mismatch_in_words():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((0, 0), "S9")])
    table.gesture((0, 0), "tap", 0)
    assert table.dice(1, None, "tag 04aa has an identity this installation did not write", 0) \
        is None
    assert codes(table) == ["bad_die"] and "Pocket 2" in table.mismatches[0].message


# ---------------------------------------------------------------- attacking a player

def test_hold_starts_a_duel_and_each_round_is_two_dice():
    """ "both players simultaneously rolling one die each. The higher number wins, and if
    the roll results in a tie, it doesn't count" """
    match, table = table_for([player("red", (0, 0), ["S9"]), player("blue", (0, 0), ["H9"])])
    assert table.gesture((0, 0), "hold", 0) is None
    assert table.throw.target == "blue" and table.pockets_wanted() == [0, 1]
    answers = []
    for a, b in [(6, 1), (3, 3), (2, 5), (5, 4), (6, 2)]:
        answers.append(roll(table, [a, b]))
        empty_tray(table)
    assert answers[:4] == [None] * 4
    # Said as a person says it: the players by their colour, each round by who rolled what.
    notes, _ = table.take_said()
    assert notes[0] == ("Red duels Blue: each round, Red's die in pocket 1, Blue's die in "
                        "pocket 2.")
    assert notes[1:3] == ["Duel round 1: Red 6, Blue 1", "Duel round 2: Red 3, Blue 3"]
    assert answers[4] == {"type": "attack_player", "target": "blue",
                          "dice": [[6, 1], [3, 3], [2, 5], [5, 4], [6, 2]]}
    events = match.apply(answers[4])
    assert [e for e in events if e["type"] == "duel_won"][0]["winner"] == "red"


def test_a_further_hold_picks_the_next_living_player_there():
    match, table = table_for([player("red", (0, 0), ["S9"]), player("blue", (0, 0), ["H9"]),
                              player("green", (0, 0), ["D9"])])
    table.gesture((0, 0), "hold", 0)
    assert table.throw.target == "blue"
    table.gesture((0, 0), "hold", 0)
    assert table.throw.target == "green"
    table.gesture((0, 0), "hold", 0)
    assert table.throw is None  # called off


def test_a_duellist_holding_no_card_rolls_two_dice_and_keeps_the_lower():
    match, table = table_for([player("red", (0, 0), ["S9"]), player("blue", (0, 0))])
    table.gesture((0, 0), "hold", 0)
    assert table.pockets_wanted() == [0, 1, 2]  # red's die, then blue's two
    assert roll(table, [4, 6, 2]) is None
    assert table.throw.rounds == [[4, [6, 2]]]


def test_when_both_hold_no_card_a_round_is_two_throws():
    match, table = table_for([player("red", (0, 0)), player("blue", (0, 0))])
    table.gesture((0, 0), "hold", 0)
    assert table.pockets_wanted() == [0, 1]
    roll(table, [5, 6])
    empty_tray(table)
    roll(table, [1, 2])
    assert table.throw.rounds == [[[5, 6], [1, 2]]]


def test_hold_with_nobody_else_on_the_cell_is_refused():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))])
    table.gesture((0, 0), "hold", 0)
    assert table.throw is None and "no other living player" in table.refusals[0][1]


# ---------------------------------------------------------------- resurrect, swap, end turn

def test_double_tap_your_pawns_cell_resurrects():
    match, table = table_for([player("red", (0, 0), alive=False), player("blue", (2, 0))])
    assert table.gesture((0, 0), "double", 0) == {"type": "resurrect"}


def test_swap_cycles_the_choices_and_end_turn_confirms():
    match, table = table_for([player("red", (0, 0), ["S9", "S8", "S7"], ["S6", "S5"]),
                              player("blue", (2, 0))])
    assert table.button("red", "swap") is None
    assert table.notes[-1] == ("Red: swap the Nine of Spades (active) for the Six of Spades "
                               "(set aside)? End the turn to confirm.")
    table.button("red", "swap")
    assert table.button("red", "end_turn") == {"type": "swap", "active": "S9", "reserve": "S5"}
    assert table.button("red", "end_turn") == {"type": "end_turn"}
    assert table.button("blue", "end_turn") is None  # not blue's turn


# ---------------------------------------------------------------- the table's map

def test_a_forged_or_unknown_tag_on_a_cell_is_a_mismatch():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))])
    table.observe_items((1, 0), [], ["tag 04de has an identity this installation did not "
                                     "write (edited, copied or from another installation)"])
    assert table.reconcile(0) is None and codes(table) == ["bad_tag"]
    assert table.mismatches[0].cells == [(1, 0)]


def test_a_pawn_of_a_colour_nobody_plays_is_a_mismatch():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))])
    table.observe_items((1, 0), ["pawn:purple"])
    assert table.reconcile(0) is None and codes(table) == ["no_player"]


def test_a_map_card_lifted_is_a_mismatch():
    match, table = table_for([player("red", (0, 0)), player("blue", (2, 0))],
                             [((1, 1), "S9")])
    table.observe_items((1, 1), [])
    assert table.reconcile(0) is None and codes(table) == ["lifted"]
    assert table.mismatches[0].message == "Put the face-down map card back on [1, 1]."


def test_the_hands_dice_are_those_of_the_seed_and_the_state():
    match, table = table_for([player("red", (0, 0), ["S9"]), player("blue", (0, 0), ["H9"])])
    a = table_dice(match.state, {"type": "attack_player", "target": "blue"}, 7, 0)
    b = table_dice(match.state, {"type": "attack_player", "target": "blue"}, 7, 0)
    assert a == b and royale_table.duel_decided(match.state, "red", "blue", a["dice"])
    assert royale.validate(match.state, a) is None


def test_a_new_game_takes_over_the_dice_lying_in_the_tray():
    """Staff start a new game (or a visitor taps the attract mode's table) with the last
    game's dice still in the tray: a die left where it lay is no change a tile reports, so
    the new game must know them, and light them to be taken out and thrown for its first
    roll (before, the order roll waited for ever)."""
    old_match = Match("royale", {}, 3)
    old = RoyaleTable(old_match)
    lay_out(old)
    for pocket, face in enumerate((2, 5, 4)):
        old.dice(pocket, "die:%d:%d" % (pocket + 1, face), None, 0)
    match = Match("royale", {}, 3)        # (the same map: the cards need not move)
    table = RoyaleTable(match)
    table.take_over(old)
    assert table.observed == old.observed and table.pocket_die(1) == 5
    assert table.reconcile(0) is None and table.mismatches == []
    assert table.pockets_wanted() == [0, 1, 2]
    assert table.used == {0, 1, 2}          # lying there: not this game's throw
    for pocket in range(3):
        assert table.dice(pocket, None, None, 10) is None        # taken out
    assert table.dice(0, "die:1:6", None, 20) is None
    assert table.dice(1, "die:2:1", None, 20) is None
    action = table.dice(2, "die:3:3", None, 20)
    assert action is not None and action["type"] == "roll_order", action
