"""Battle Royale (the dice map): every rule of the rulebook *Battle Royale* (the dice map, its
publisher's text), each test quoting the sentence it checks."""

import pytest

from royale_helpers import of_type, player, position, refused, types
from shared_rules import royale
from shared_rules.errors import ScenarioError


# ---------------------------------------------------------------- 1. the grid

def test_the_map_is_a_diamond_of_width_and_height_7():
    # "The cards are arranged in a diamond shape, with a height and width of 7 cards, face down."
    assert len(royale.CELLS) == 25
    xs = sorted(set(c[0] for c in royale.CELLS))
    ys = sorted(set(c[1] for c in royale.CELLS))
    assert xs == ys == [-3, -2, -1, 0, 1, 2, 3]
    assert all(abs(x) + abs(y) <= 3 for x, y in royale.CELLS)
    s = royale.new_game({}, 5)
    assert royale.cards_left(s) == 25
    assert len(set(s.map)) == 25


def test_the_outer_ring_has_12_cells():
    # "Each player must position themselves on the outer edge of the grid"
    assert sorted(royale.CELLS[i] for i in royale.RING) == sorted(
        (x, y) for x, y in royale.CELLS if abs(x) + abs(y) == 3)
    assert len(royale.RING) == 12


def test_the_deal_depends_on_the_seed_only():
    assert royale.new_game({}, 3).map == royale.new_game({}, 3).map
    assert royale.new_game({}, 3).map != royale.new_game({}, 4).map


# ---------------------------------------------------------------- 2. before the game

def test_highest_roll_goes_first():
    # "all players roll a die, and the player with the highest number goes first"
    s = royale.new_game({"players": 3}, 1)
    events = royale.apply(s, {"type": "roll_order", "dice": {"red": 2, "blue": 6, "green": 4}})
    assert s.order == ["blue", "green", "red"]
    assert of_type(events, "turn_order")[0]["order"] == ["blue", "green", "red"]
    assert s.phase == "place" and royale.current(s) == "blue"


def test_tied_players_roll_again_among_themselves_only():
    # "If any of the players roll the same number, those players roll the dice again"
    s = royale.new_game({"players": 4}, 1)
    royale.apply(s, {"type": "roll_order",
                     "dice": {"red": 5, "blue": 5, "green": 3, "yellow": 3}})
    assert s.phase == "order"
    assert royale.view(s, None)["must_roll"] == ["red", "blue", "green", "yellow"]
    # Only the tied players roll now; the others' dice are refused.
    refused(s, {"type": "roll_order", "dice": {"red": 1, "blue": 2}}, "bad_dice")
    royale.apply(s, {"type": "roll_order",
                     "dice": {"red": 2, "blue": 4, "green": 6, "yellow": 1}})
    # green's 6 in the re-roll does not lift green above the 5s of the first roll.
    assert s.order == ["blue", "red", "green", "yellow"]


def test_a_tie_among_some_leaves_the_others_in_place():
    s = royale.new_game({"players": 3}, 1)
    royale.apply(s, {"type": "roll_order", "dice": {"red": 1, "blue": 1, "green": 6}})
    assert royale.view(s, None)["must_roll"] == ["red", "blue"]
    royale.apply(s, {"type": "roll_order", "dice": {"red": 3, "blue": 3}})
    royale.apply(s, {"type": "roll_order", "dice": {"red": 3, "blue": 4}})
    assert s.order == ["green", "blue", "red"]


def test_the_engine_rolls_the_order_when_no_dice_are_given():
    s = royale.new_game({"players": 5}, 9)
    while s.phase == "order":
        royale.apply(s, {"type": "roll_order"})
    assert sorted(s.order) == sorted(s.seats)


def test_players_start_on_the_outer_edge():
    # "Each player must position themselves on the outer edge of the grid (see image 2)."
    s = royale.new_game({"players": 2}, 1)
    royale.apply(s, {"type": "roll_order", "dice": {"red": 6, "blue": 1}})
    assert len(royale.legal_actions(s)) == 12
    refused(s, {"type": "place", "cell": [0, 0]}, "not_outer_ring")
    refused(s, {"type": "place", "cell": [4, 0]}, "off_map")
    royale.apply(s, {"type": "place", "cell": [0, 3]})
    refused(s, {"type": "place", "cell": [0, 3]}, "cell_taken")
    events = royale.apply(s, {"type": "place", "cell": [0, -3]})
    assert s.phase == "play"
    # "The player with the highest roll goes first."
    assert of_type(events, "turn_started")[0]["player"] == "red"
    assert royale.current(s) == "red" and s.actions_left == 2


def test_play_actions_wait_for_the_order_and_the_pawns():
    s = royale.new_game({"players": 2}, 1)
    refused(s, {"type": "move", "to": [0, 0]}, "roll_order_first")
    royale.apply(s, {"type": "roll_order", "dice": {"red": 6, "blue": 1}})
    refused(s, {"type": "end_turn"}, "place_first")
    refused(s, {"type": "roll_order"}, "order_decided")


# ---------------------------------------------------------------- 3.1 movement

def test_a_player_moves_in_8_directions():
    # "The player can move to any squares adjacent to the square they are on, including
    # diagonal movement. Therefore, the player can move in 8 directions"
    s = position([player("red", (0, 0)), player("blue", (0, 3))])
    moves = [a["to"] for a in royale.legal_actions(s) if a["type"] == "move"]
    assert sorted(moves) == sorted([[dx, dy] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                                    if dx or dy])


def test_fewer_directions_at_the_edge_of_the_grid():
    # "(unless they are at the edge of the grid)"
    s = position([player("red", (0, 3)), player("blue", (0, -3))])
    moves = sorted(a["to"] for a in royale.legal_actions(s) if a["type"] == "move")
    assert moves == [[-1, 2], [0, 2], [1, 2]]
    refused(s, {"type": "move", "to": [1, 3]}, "off_map")
    refused(s, {"type": "move", "to": [0, 1]}, "not_adjacent")


def test_moving_costs_an_action_and_players_pass_through_others():
    # "Moving consumes one action or one movement, It is also possible to move through squares
    # occupied by other players."
    s = position([player("red", (0, 0)), player("blue", (1, 0))])
    events = royale.apply(s, {"type": "move", "to": [1, 0]})
    assert events[0]["cost"] == "action" and s.actions_left == 1
    royale.apply(s, {"type": "move", "to": [2, 0]})
    assert s.actions_left == 0
    refused(s, {"type": "move", "to": [1, 0]}, "no_actions_left")


def test_a_movement_card_moves_without_using_an_action():
    # "You can also have cards that give you movement so you don't use your actions."
    s = position([player("red", (0, 0), ["S7"]), player("blue", (0, 3))])
    events = royale.apply(s, {"type": "move", "to": [1, 0]})
    assert events[0]["cost"] == "movement" and s.actions_left == 2
    events = royale.apply(s, {"type": "move", "to": [2, 0]})
    assert events[0]["cost"] == "action" and s.actions_left == 1
    assert royale.view(s, "red")["movement_left"] == 0


def test_movements_come_back_every_turn():
    s = position([player("red", (0, 0), ["DA"]), player("blue", (0, 3))])
    royale.apply(s, {"type": "move", "to": [1, 0]})
    royale.apply(s, {"type": "move", "to": [2, 0]})
    assert s.actions_left == 2
    royale.apply(s, {"type": "end_turn"})
    events = royale.apply(s, {"type": "end_turn"})
    assert events[-1] == {"type": "turn_started", "player": "red", "actions": 2, "movement": 2}


# ---------------------------------------------------------------- 3.2 cards

def test_players_start_without_cards():
    # "Players start the game without any cards."
    s = royale.new_game({"players": 4}, 2)
    assert all(s.players[p].held() == 0 for p in s.seats)


def test_at_most_3_active_cards_and_later_wins_are_set_aside():
    # "A player can have a maximum of 3 active cards at any time. Each subsequent card a player
    # wins is set aside"
    s = position([player("red", (0, 0), ["H3", "H4", "S5"]), player("blue", (0, 3))],
                 [((0, 0), "C9")])
    royale.apply(s, {"type": "attack_card", "dice": [6, 5, 4]})
    assert s.players["red"].active == ["H3", "H4", "S5"]
    assert s.players["red"].reserve == ["C9"]


def test_set_aside_cards_are_hidden_from_opponents():
    # "set aside ... in a way that opponents cannot see it"
    s = position([player("red", (0, 0), ["H3", "H4", "S5"], ["C9"]), player("blue", (0, 3))])
    blue_sees = [p for p in royale.view(s, "blue")["players"] if p["id"] == "red"][0]
    assert "reserve" not in blue_sees and blue_sees["cards"] == 4
    assert "C9" in royale.secrets(s, "blue") and "C9" not in royale.secrets(s, "red")
    red_sees = [p for p in royale.view(s, "red")["players"] if p["id"] == "red"][0]
    assert red_sees["reserve"] == ["C9"]
    spectator = [p for p in royale.view(s, None)["players"] if p["id"] == "red"][0]
    assert "reserve" not in spectator


def test_a_curse_is_equipped_immediately():
    # "(except for some „Curse“ cards which you have to equip immediately)"
    s = position([player("red", (0, 0), ["H9", "H4", "S5"]), player("blue", (0, 3))],
                 [((0, 0), "C2")])
    events = royale.apply(s, {"type": "attack_card", "dice": [1, 1, 2]})
    assert "C2" in s.players["red"].active
    assert s.players["red"].reserve == ["H4"]       # the lowest non-curse goes aside
    assert of_type(events, "curse_equipped")[0]["set_aside"] == "H4"


def test_the_player_may_say_which_card_makes_room_for_a_curse():
    s = position([player("red", (0, 0), ["H9", "H4", "S5"]), player("blue", (0, 3))],
                 [((0, 0), "C2")])
    royale.apply(s, {"type": "attack_card", "dice": [1, 1, 2], "set_aside": "H9"})
    assert sorted(s.players["red"].active) == ["C2", "H4", "S5"]
    refused(position([player("red", (0, 0), ["S2", "H4", "S5"]), player("blue", (0, 3))],
                     [((0, 0), "C2")]),
            {"type": "attack_card", "set_aside": "S2"}, "bad_set_aside")


def test_a_player_holding_3_or_more_always_has_3_active():
    # "A player cannot choose to have 2 active cards if they possess more"
    with pytest.raises(ScenarioError) as e:
        position([player("red", (0, 0), ["H3", "H4"], ["S5"]), player("blue", (0, 3))])
    assert e.value.field == "setup.players[0].active"


def test_using_an_active_card_does_not_cost_an_action():
    # "Active cards modify the player's turn ... Using an active card does not consume an action."
    s = position([player("red", (0, 0), ["HJ"]), player("blue", (0, 3))], [((0, 0), "C9")])
    events = royale.apply(s, {"type": "attack_card", "dice": [3, 3, 2]})
    assert of_type(events, "card_won")[0]["total"] == 9 and s.actions_left == 1


def test_one_swap_at_the_beginning_of_the_turn():
    # "At the beginning of their turn, before any action, a player can exchange one card from
    # the deck with one active card."
    s = position([player("red", (0, 0), ["H3", "H4", "S5"], ["C9", "D8"]),
                  player("blue", (0, 3))])
    swaps = [a for a in royale.legal_actions(s) if a["type"] == "swap"]
    assert len(swaps) == 6
    events = royale.apply(s, {"type": "swap", "active": "H4", "reserve": "C9"})
    assert events == [{"type": "swapped", "player": "red", "activated": "C9", "set_aside": "H4"}]
    assert s.players["red"].active == ["H3", "C9", "S5"]
    assert s.players["red"].reserve == ["H4", "D8"]
    assert s.actions_left == 2
    refused(s, {"type": "swap", "active": "H3", "reserve": "D8"}, "already_swapped")


def test_no_swap_after_the_first_action():
    s = position([player("red", (0, 0), ["H3", "H4", "S5"], ["C9"]), player("blue", (0, 3))])
    royale.apply(s, {"type": "move", "to": [0, 1]})
    refused(s, {"type": "swap", "active": "H4", "reserve": "C9"}, "swap_too_late")
    assert not [a for a in royale.legal_actions(s) if a["type"] == "swap"]


def test_swap_names_own_cards_and_a_curse_stays_active():
    s = position([player("red", (0, 0), ["S2", "H4", "S5"], ["C9"]),
                  player("blue", (0, 3), ["D3"])])
    refused(s, {"type": "swap", "active": "D3", "reserve": "C9"}, "not_active")
    refused(s, {"type": "swap", "active": "H4", "reserve": "H4"}, "not_in_reserve")
    refused(s, {"type": "swap", "active": "S2", "reserve": "C9"}, "curse_stays")


# ---------------------------------------------------------------- 3.3 attacking a card

def test_a_card_is_won_with_its_value_or_higher_on_3_dice():
    # "You have to get that value or higher by rolling 3 dice to „win“ the card."
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")])
    events = royale.apply(s, {"type": "attack_card", "dice": [2, 3, 4]})
    won = of_type(events, "card_won")[0]
    assert (won["card"], won["value"], won["total"]) == ("C9", 9, 9)
    assert s.map[royale.INDEX[(0, 0)]] is None
    assert s.players["red"].active == ["C9"]


def test_a_failed_attack_kills_the_player_who_moves_to_an_adjacent_cell():
    # "If the player fails to win the card, he „dies“ and has to move to one of the adjacent
    # cards."
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")])
    events = royale.apply(s, {"type": "attack_card", "dice": [2, 3, 3], "fall_to": [1, 1]})
    assert types(events) == ["attack_failed", "player_died"]
    assert "card" not in events[0] and "value" not in events[0]   # the card stays secret
    assert events[1] == {"type": "player_died", "player": "red", "cell": [0, 0],
                         "fell_to": [1, 1]}
    assert not s.players["red"].alive and s.players["red"].cell == royale.INDEX[(1, 1)]
    assert s.map[royale.INDEX[(0, 0)]] == "C9"


def test_the_engine_picks_the_fall_cell_when_none_is_given():
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")])
    royale.apply(s, {"type": "attack_card", "dice": [1, 2, 3]})
    assert royale.CELLS[s.players["red"].cell] == (-1, -1)


def test_fall_to_must_be_adjacent():
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")])
    refused(s, {"type": "attack_card", "dice": [1, 2, 3], "fall_to": [2, 0]}, "bad_fall_to")


def test_three_equal_dice_always_win():
    # "Rolling 3 dice and getting the same number on all three, always results in winning a card"
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "SK")])
    events = royale.apply(s, {"type": "attack_card", "dice": [1, 1, 1]})
    assert of_type(events, "card_won")[0]["triple"] is True


def test_dice_bonus_adds_to_the_sum_and_curses_subtract():
    # "influence the player's rolls (+1 to the dice sum...)"
    s = position([player("red", (0, 0), ["CA", "SJ"]), player("blue", (0, 3))],
                 [((0, 0), "D10")])
    assert of_type(royale.apply(s, {"type": "attack_card", "dice": [1, 2, 4]}),
                   "card_won")[0]["total"] == 10
    s = position([player("red", (0, 0), ["S2"]), player("blue", (0, 3))], [((0, 0), "D6")])
    assert of_type(royale.apply(s, {"type": "attack_card", "dice": [1, 2, 3]}),
                   "attack_failed")[0]["total"] == 5


def test_attacking_a_card_costs_an_action_and_needs_a_card_and_a_life():
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")],
                 actions_left=0)
    refused(s, {"type": "attack_card"}, "no_actions_left")
    s = position([player("red", (0, 1)), player("blue", (0, 3))], [((0, 0), "C9")])
    refused(s, {"type": "attack_card"}, "no_card_here")
    s = position([player("red", (0, 0), alive=False), player("blue", (0, 3))], [((0, 0), "C9")])
    refused(s, {"type": "attack_card"}, "dead")


def test_supplied_dice_are_checked():
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")])
    refused(s, {"type": "attack_card", "dice": [1, 2]}, "bad_dice")
    refused(s, {"type": "attack_card", "dice": [1, 2, 7]}, "bad_dice")
    refused(s, {"type": "attack_card", "dice": [1, 2, True]}, "bad_dice")
    refused(s, {"type": "attack_card", "dice": "666"}, "bad_dice")


def test_the_engine_rolls_when_no_dice_are_given():
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")], seed=4)
    events = royale.apply(s, {"type": "attack_card"})
    dice = events[0]["dice"]
    assert len(dice) == 3 and all(1 <= d <= 6 for d in dice)
    t = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")], seed=4)
    assert royale.apply(t, {"type": "attack_card"}) == events


# ---------------------------------------------------------------- 3.4 attacking a player

def duel(red_cards=("H3",), blue_cards=("H4",), red_reserve=(), blue_reserve=(), **kw):
    return position([player("red", (0, 0), red_cards, red_reserve),
                     player("blue", (0, 0), blue_cards, blue_reserve),
                     player("green", (0, 3))], **kw)


def test_a_duel_is_won_with_three_rounds():
    # "both players simultaneously rolling one die each. The higher number wins, and if the roll
    # results in a tie, it doesn't count for either player. The game is played until one player
    # wins three rounds"
    s = duel()
    events = royale.apply(s, {"type": "attack_player", "target": "blue",
                              "dice": [[6, 1], [3, 3], [2, 5], [4, 3], [5, 1]]})
    rounds = of_type(events, "duel_round")
    assert [r["winner"] for r in rounds] == ["red", None, "blue", "red", "red"]
    assert of_type(events, "duel_won")[0] == {"type": "duel_won", "winner": "red",
                                              "loser": "blue", "rounds": {"red": 3, "blue": 1}}
    assert s.actions_left == 1


def test_the_duel_dice_must_decide_the_duel_exactly():
    s = duel()
    refused(s, {"type": "attack_player", "target": "blue", "dice": [[6, 1], [6, 1]]},
            "dice_incomplete")
    refused(s, {"type": "attack_player", "target": "blue",
                "dice": [[6, 1], [6, 1], [6, 1], [6, 1]]}, "too_many_dice")
    refused(s, {"type": "attack_player", "target": "blue", "dice": [[6, 1, 2]]}, "bad_dice")


def test_the_loser_dies_on_an_adjacent_square_and_the_winner_takes_an_active_card():
    # "the loser must choose one of the adjacent squares to move to and die there"
    # "The winner takes: one random card from the loser that was active"
    s = duel(blue_cards=("H4", "D5", "C6"), blue_reserve=("S8",))
    events = royale.apply(s, {"type": "attack_player", "target": "blue", "take": "D5",
                              "fall_to": [0, -1], "dice": [[6, 1], [6, 1], [6, 1]]})
    taken = of_type(events, "card_taken")[0]
    assert (taken["from"], taken["to"], taken["card"]) == ("blue", "red", "D5")
    assert s.players["red"].active == ["H3", "D5"]
    # The loser keeps 3 active: the set-aside card comes in.
    assert s.players["blue"].active == ["H4", "C6", "S8"] and s.players["blue"].reserve == []
    assert not s.players["blue"].alive
    assert royale.CELLS[s.players["blue"].cell] == (0, -1)
    assert s.players["red"].alive


def test_the_random_card_taken_is_one_of_the_losers_active_cards():
    taken = set()
    for seed in range(30):
        s = duel(blue_cards=("H4", "D5", "C6"), seed=seed)
        events = royale.apply(s, {"type": "attack_player", "target": "blue",
                                  "dice": [[6, 1], [6, 1], [6, 1]]})
        taken.add(of_type(events, "card_taken")[0]["card"])
    assert taken == {"H4", "D5", "C6"}
    s = duel(blue_cards=("H4", "D5", "C6"))
    refused(s, {"type": "attack_player", "target": "blue", "take": "H3",
                "dice": [[6, 1], [6, 1], [6, 1]]}, "bad_take")


def test_black_death_is_the_card_the_winner_takes():
    # "or a certain card if for instance the loser had „Black Death“ equipped"
    s = duel(blue_cards=("H4", "SA", "C6"))
    refused(s, {"type": "attack_player", "target": "blue", "take": "H4",
                "dice": [[6, 1], [6, 1], [6, 1]]}, "bad_take")
    events = royale.apply(s, {"type": "attack_player", "target": "blue",
                              "dice": [[6, 1], [6, 1], [6, 1]]})
    taken = of_type(events, "card_taken")[0]
    assert taken["card"] == "SA" and taken["black_death"] is True
    assert "SA" in s.players["red"].active     # a curse: equipped at once


def test_the_defender_can_win_and_the_attacker_dies():
    s = duel()
    events = royale.apply(s, {"type": "attack_player", "target": "blue",
                              "dice": [[1, 6], [1, 6], [1, 6]]})
    assert of_type(events, "duel_won")[0]["winner"] == "blue"
    assert not s.players["red"].alive and s.players["blue"].alive
    assert s.players["blue"].active == ["H4", "H3"]


def test_a_shield_means_more_rounds_to_win():
    # "The game is played until one player wins three rounds(or more if the player has a shield)."
    s = duel(blue_cards=("HQ", "HA"))
    events = royale.apply(s, {"type": "attack_player", "target": "blue",
                              "dice": [[6, 1]] * 5 + [[1, 6]] * 2 + [[6, 1]] * 1})
    assert of_type(events, "duel_started")[0]["rounds_needed"] == {"red": 6, "blue": 3}
    assert of_type(events, "duel_won")[0]["rounds"] == {"red": 6, "blue": 2}


def test_a_broken_shield_curse_means_fewer_rounds():
    s = duel(blue_cards=("H2", "D2"))
    events = royale.apply(s, {"type": "attack_player", "target": "blue", "dice": [[6, 1]]})
    assert of_type(events, "duel_won")[0]["winner"] == "red"


def test_a_player_without_cards_rolls_two_dice_and_keeps_the_lower():
    # "If a player has no cards, they can attack other players by always rolling two dice and
    # taking the value of the lower die."
    s = duel(red_cards=())
    refused(s, {"type": "attack_player", "target": "blue", "dice": [[6, 1]] * 3}, "bad_dice")
    events = royale.apply(s, {"type": "attack_player", "target": "blue",
                              "dice": [[[6, 2], 3], [[5, 5], 4], [[6, 6], 1], [[4, 6], 2]]})
    rounds = of_type(events, "duel_round")
    assert [r["kept"]["red"] for r in rounds] == [2, 5, 6, 4]
    assert of_type(events, "duel_started")[0]["two_dice"] == {"red": True, "blue": False}
    assert of_type(events, "duel_won")[0]["winner"] == "red"
    assert s.players["red"].active == ["H4"]


def test_a_cardless_loser_gives_nothing():
    s = duel(blue_cards=())
    events = royale.apply(s, {"type": "attack_player", "target": "blue",
                              "dice": [[6, [1, 1]]] * 3})
    assert not of_type(events, "card_taken") and not s.players["blue"].alive


def test_duels_need_two_living_players_on_the_same_square():
    # "When two living players find themselves on the same square"
    s = position([player("red", (0, 0), ["H3"]), player("blue", (0, 1), ["H4"]),
                  player("green", (0, 0), alive=False)])
    refused(s, {"type": "attack_player", "target": "blue"}, "not_same_cell")
    refused(s, {"type": "attack_player", "target": "green"}, "target_dead")
    refused(s, {"type": "attack_player", "target": "red"}, "unknown_player")
    refused(s, {"type": "attack_player", "target": "nobody"}, "unknown_player")
    assert not [a for a in royale.legal_actions(s) if a["type"] == "attack_player"]


def test_attacking_a_player_costs_an_action():
    # "Attacking another player costs one action."
    s = duel(actions_left=0)
    refused(s, {"type": "attack_player", "target": "blue"}, "no_actions_left")


def test_duel_targets_are_all_listed():
    s = position([player("red", (0, 0)), player("blue", (0, 0)), player("green", (0, 0)),
                  player("yellow", (0, 0), alive=False)])
    targets = [a["target"] for a in royale.legal_actions(s) if a["type"] == "attack_player"]
    assert targets == ["blue", "green"]


def test_dice_bonuses_do_not_count_in_duels():
    s = duel(red_cards=("CA",))
    events = royale.apply(s, {"type": "attack_player", "target": "blue",
                              "dice": [[3, 4], [3, 4], [3, 4]]})
    assert of_type(events, "duel_won")[0]["winner"] == "blue"


# ---------------------------------------------------------------- 3.5 resurrection

def test_a_dead_player_must_resurrect_before_anything_else():
    # "they must be resurrected before they can perform any other actions"
    s = position([player("red", (0, 0), alive=False), player("blue", (0, 3))], [((0, 0), "C9")])
    refused(s, {"type": "move", "to": [0, 1]}, "dead")
    assert [a["type"] for a in royale.legal_actions(s)] == ["resurrect", "end_turn"]
    events = royale.apply(s, {"type": "resurrect"})
    assert events[0]["type"] == "resurrected" and s.actions_left == 1
    assert s.players["red"].alive


def test_resurrect_in_the_same_turn_with_an_action_left():
    # "If a player has an additional action in the turn in which they died, they can resurrect
    # themselves during that turn. Otherwise, they must wait until the next turn"
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")])
    royale.apply(s, {"type": "attack_card", "dice": [1, 2, 3]})
    royale.apply(s, {"type": "resurrect"})
    assert s.players["red"].alive and s.actions_left == 0
    s = position([player("red", (0, 0)), player("blue", (0, 3))], [((0, 0), "C9")],
                 actions_left=1)
    royale.apply(s, {"type": "attack_card", "dice": [1, 2, 3]})
    refused(s, {"type": "resurrect"}, "no_actions_left")
    royale.apply(s, {"type": "end_turn"})
    royale.apply(s, {"type": "end_turn"})
    royale.apply(s, {"type": "resurrect"})
    assert s.players["red"].alive


def test_the_living_cannot_resurrect():
    s = position([player("red", (0, 0)), player("blue", (0, 3))])
    refused(s, {"type": "resurrect"}, "not_dead")


def test_the_table_of_sips_in_sips_mode():
    # "Resurrection requires consuming alcoholic beverages (See Table 1)."
    s = position([player("red", (0, 0), alive=False), player("blue", (0, 3))],
                 options={"resurrection": "sips"})
    assert [row["sips"] for row in royale.view(s, "blue")["sips_table"]] == [1, 2, 3]
    events = royale.apply(s, {"type": "resurrect"})
    assert events[0]["cost"] == "sips" and events[0]["sips_table"] == royale.SIPS_TABLE
    assert s.actions_left == 1


def test_the_non_alcoholic_default_costs_the_action_alone():
    s = position([player("red", (0, 0), alive=False), player("blue", (0, 3))])
    assert "sips_table" not in royale.view(s, "red")
    events = royale.apply(s, {"type": "resurrect"})
    assert events == [{"type": "resurrected", "player": "red", "cell": [0, 0],
                       "cost": "action_only"}]
    assert s.actions_left == 1


def test_a_dead_player_still_gets_turns():
    s = position([player("red", (0, 0)), player("blue", (0, 3), alive=False)])
    royale.apply(s, {"type": "end_turn"})
    assert royale.current(s) == "blue"


# ---------------------------------------------------------------- 4. end of the game

def test_all_cards_won_then_values_are_summed():
    # "a) All cards on the map are won, and their values are summed up."
    s = position([player("red", (0, 0), ["H3"]), player("blue", (0, 3), ["SK"])],
                 [((0, 0), "C9")], filler=False)
    events = royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    over = of_type(events, "game_over")[0]
    assert over["scores"] == {"red": 12, "blue": 13} and over["reason"] == "all_cards_won"
    assert s.status == "finished" and s.winner == "blue"
    assert royale.legal_actions(s) == []
    refused(s, {"type": "end_turn"}, "game_over")


def test_a_tie_in_value_goes_to_more_cards_then_is_a_draw():
    s = position([player("red", (0, 0), ["H3"]), player("blue", (0, 3), ["S5", "S4", "S3"])],
                 [((0, 0), "C9")], filler=False)
    royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    assert royale.scores(s) == {"red": 12, "blue": 12} and s.winner == "blue"
    s = position([player("red", (0, 0), ["H3"]), player("blue", (0, 3), ["S5", "H7"])],
                 [((0, 0), "C9")], filler=False)
    royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    assert s.status == "finished" and s.winner is None


def test_end_b_one_card_left_and_a_lead_of_4_cards():
    # "b) If there is only one card on the map, and the player with the most cards has 4 more
    # cards than the player with the second-highest number of cards"
    red = ["H3", "H4", "H5"]
    s = position([player("red", (0, 0), red, ["S3", "S4"]), player("blue", (0, 3), ["C3"])],
                 [((0, 0), "C9"), ((3, 0), "D9")], filler=False)
    events = royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    over = of_type(events, "game_over")[0]
    assert over["reason"] == "card_lead" and over["winner"] == "red"
    assert over["cards"] == {"red": 6, "blue": 1}


def test_end_b_not_with_a_lead_of_3():
    s = position([player("red", (0, 0), ["H3", "H4", "H5"]), player("blue", (0, 3), ["C3"])],
                 [((0, 0), "C9"), ((3, 0), "D9")], filler=False)
    royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    assert s.status == "ongoing"


def test_end_b_can_be_switched_off():
    s = position([player("red", (0, 0), ["H3", "H4", "H5"], ["S3", "S4"]),
                  player("blue", (0, 3), ["C3"])],
                 [((0, 0), "C9"), ((3, 0), "D9")], filler=False, options={"end_b": False})
    royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    assert s.status == "ongoing"


def test_only_13s_and_14s_left_count_12():
    # "When only cards with values 13 and 14 remain on the map, the values for all cards on the
    # map are reduced to 12."
    s = position([player("red", (0, 0)), player("blue", (0, 3))],
                 [((0, 0), "C9"), ((1, 0), "SK"), ((2, 0), "HA"), ((-1, 0), "DK")],
                 filler=False)
    assert royale.view(s, "red")["map"][0] == {"cell": [-1, 0]}
    events = royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    reduced = of_type(events, "values_reduced")[0]
    assert reduced["cells"] == [[-1, 0], [1, 0], [2, 0]] and reduced["value"] == 12
    assert [m["value"] for m in royale.view(s, "blue")["map"]] == [12, 12, 12]
    royale.apply(s, {"type": "move", "to": [1, 0]})
    royale.apply(s, {"type": "end_turn"})
    royale.apply(s, {"type": "end_turn"})
    events = royale.apply(s, {"type": "attack_card", "dice": [3, 4, 5]})
    assert of_type(events, "card_won")[0]["value"] == 12
    assert royale.scores(s)["red"] == 9 + 12


def test_with_one_card_left_players_move_toward_it_by_the_fastest_route():
    # "When there is only one card on the map, all players must move towards it by the fastest
    # route and attempt to attack it every turn"
    s = position([player("red", (-2, 0)), player("blue", (0, 3))], [((2, 0), "C9")],
                 filler=False)
    moves = sorted(a["to"] for a in royale.legal_actions(s) if a["type"] == "move")
    assert moves == [[-1, -1], [-1, 0], [-1, 1]]
    assert {"type": "end_turn"} not in royale.legal_actions(s)
    refused(s, {"type": "move", "to": [-3, 0]}, "must_move_toward_last_card")
    refused(s, {"type": "end_turn"}, "must_go_for_last_card")
    royale.apply(s, {"type": "move", "to": [-1, 0]})
    royale.apply(s, {"type": "move", "to": [0, 0]})
    assert royale.legal_actions(s) == [{"type": "end_turn"}]


def test_with_one_card_left_a_player_on_it_must_attack_it():
    s = position([player("red", (2, 0)), player("blue", (0, 3))], [((2, 0), "C9")],
                 filler=False)
    assert royale.legal_actions(s) == [{"type": "attack_card"}]
    refused(s, {"type": "end_turn"}, "must_go_for_last_card")


def test_the_last_card_announced_when_one_is_left():
    s = position([player("red", (0, 0)), player("blue", (0, 3))],
                 [((0, 0), "C9"), ((2, 0), "D9")], filler=False)
    events = royale.apply(s, {"type": "attack_card", "dice": [3, 3, 4]})
    assert of_type(events, "last_card") == [{"type": "last_card", "cell": [2, 0]}]


def test_on_the_last_card_defeating_one_player_is_enough_to_attack_it():
    # "When only one card is on the map and multiple players are alive on that card, it is
    # sufficient to defeat just one player to attack the card, assuming the player has actions
    # remaining for that turn."
    s = position([player("red", (2, 0), ["H3"]), player("blue", (2, 0), ["H4"]),
                  player("green", (2, 0), ["H5"])], [((2, 0), "C9")], filler=False)
    refused(s, {"type": "attack_card"}, "defeat_a_player_first")
    assert sorted(a["target"] for a in royale.legal_actions(s)) == ["blue", "green"]
    royale.apply(s, {"type": "attack_player", "target": "blue", "dice": [[6, 1]] * 3})
    assert {"type": "attack_card"} in royale.legal_actions(s)
    events = royale.apply(s, {"type": "attack_card", "dice": [4, 3, 4]})
    assert of_type(events, "card_won")[0]["card"] == "C9" and s.status == "finished"


def test_a_duel_won_before_the_last_card_was_the_last_does_not_open_it():
    # "When only one card is on the map and multiple players are alive on that card, it is
    # sufficient to defeat just one player to attack the card": the player defeated must be
    # one standing on the last card. With 4 actions red beats blue on [1, 0] while two cards
    # are left, wins the card there, steps onto the last card with the boots' movement and
    # finds green alive on it: that earlier duel does not open the card.
    s = position([player("red", (1, 0), ["S7"]), player("blue", (1, 0), ["H4"]),
                  player("green", (2, 0), ["H5", "D5"])], [((1, 0), "C5"), ((2, 0), "C9")],
                 filler=False, options={"actions_per_turn": 4})
    royale.apply(s, {"type": "attack_player", "target": "blue", "dice": [[6, 1]] * 3,
                     "fall_to": [0, 0]})
    events = royale.apply(s, {"type": "attack_card", "dice": [6, 6, 5]})
    assert of_type(events, "last_card") == [{"type": "last_card", "cell": [2, 0]}]
    assert of_type(royale.apply(s, {"type": "move", "to": [2, 0]}), "moved")[0]["cost"] == \
        "movement"
    assert {"type": "attack_card"} not in royale.legal_actions(s)
    refused(s, {"type": "attack_card", "dice": [6, 6, 6]}, "defeat_a_player_first")
    # Beating green on the last card opens it (red leads blue and green by 3 cards: no end).
    royale.apply(s, {"type": "attack_player", "target": "green", "dice": [[6, 1]] * 3,
                     "fall_to": [1, 0]})
    assert {"type": "attack_card"} in royale.legal_actions(s)


def test_a_failed_attack_on_the_last_card_closes_it_again():
    # Falling off the card ("the loser must choose one of the adjacent squares to move to and
    # die there"), the attacker is no longer one of the players on it: back on the card, with
    # others alive there, they must defeat one again.
    s = position([player("red", (2, 0), ["H3"]), player("blue", (2, 0), ["H4"]),
                  player("green", (2, 0), ["H5"])], [((2, 0), "C9")], filler=False,
                 options={"actions_per_turn": 6})
    royale.apply(s, {"type": "attack_player", "target": "blue", "dice": [[6, 1]] * 3,
                     "fall_to": [1, 0]})
    royale.apply(s, {"type": "attack_card", "dice": [1, 2, 3], "fall_to": [1, 0]})
    royale.apply(s, {"type": "resurrect"})
    royale.apply(s, {"type": "move", "to": [2, 0]})
    refused(s, {"type": "attack_card", "dice": [6, 6, 6]}, "defeat_a_player_first")


def test_with_one_card_left_duels_happen_only_on_it():
    s = position([player("red", (0, 0), ["H3"]), player("blue", (0, 0), ["H4"])],
                 [((2, 0), "C9")], filler=False)
    refused(s, {"type": "attack_player", "target": "blue"}, "must_move_toward_last_card")


def test_with_one_card_left_the_dead_must_resurrect():
    s = position([player("red", (0, 0), alive=False), player("blue", (0, 3))],
                 [((2, 0), "C9")], filler=False)
    assert royale.legal_actions(s) == [{"type": "resurrect"}]


# ---------------------------------------------------------------- turns and options

def test_two_actions_per_turn_by_default_and_an_option():
    s = position([player("red", (0, 0)), player("blue", (0, 3))])
    assert s.actions_left == 2
    s = position([player("red", (0, 0)), player("blue", (0, 3))],
                 options={"actions_per_turn": 3})
    assert s.actions_left == 3


def test_unused_actions_are_lost_and_turns_go_round():
    s = position([player("red", (0, 0)), player("blue", (0, 3)), player("green", (0, -3))],
                 turn="blue")
    events = royale.apply(s, {"type": "end_turn"})
    assert types(events) == ["turn_ended", "turn_started"]
    assert royale.current(s) == "green" and s.actions_left == 2
    royale.apply(s, {"type": "end_turn"})
    assert royale.current(s) == "red"


BAD_OPTIONS = [
    ({"players": 1}, "options.players"),
    ({"players": True}, "options.players"),
    ({"actions_per_turn": 0}, "options.actions_per_turn"),
    ({"resurrection": "shots"}, "options.resurrection"),
    ({"end_b": "yes"}, "options.end_b"),
    ({"colour": "red"}, "options.colour"),
]


def test_bad_options_name_the_field():
    for options, field in BAD_OPTIONS:
        with pytest.raises(ScenarioError) as e:
            royale.new_game(options, 1)
        assert e.value.field == field


BAD_SETUPS = [
    ({"players": [player("red", (0, 0))]}, "setup.players"),
    ({"players": [player("red", (0, 0)), player("red", (0, 1))]}, "setup.players[1].id"),
    ({"players": [player("red", (4, 0)), player("blue", (0, 1))]}, "setup.players[0].cell"),
    ({"players": [player("red", (0, 0), ["ZZ"]), player("blue", (0, 1))]},
     "setup.players[0].active[0]"),
    ({"players": [player("red", (0, 0), ["H3"]), player("blue", (0, 1), ["H3"])]},
     "setup.players[1].active[0]"),
    ({"players": [player("red", (0, 0)), player("blue", (0, 1))], "turn": "pink"}, "setup.turn"),
    ({"players": [player("red", (0, 0)), player("blue", (0, 1))], "actions_left": 3},
     "setup.actions_left"),
    ({"map": [{"cell": [0, 0], "card": "H3"}, {"cell": [0, 0], "card": "H4"}]},
     "setup.map[1].cell"),
    ({"map": [{"cell": [0, 0], "card": "H3", "value": 15}]}, "setup.map[0].value"),
    ({"map": [{"cell": [0, 0], "card": "H3", "face": "up"}]}, "setup.map[0].face"),
    ({"turn": "red"}, "setup.turn"),
    ({"board": []}, "setup.board"),
]


def test_a_bad_setup_names_the_field():
    for setup, field in BAD_SETUPS:
        with pytest.raises(ScenarioError) as e:
            royale.new_game({}, 1, setup)
        assert e.value.field == field, (setup, e.value.field)


def test_unknown_actions_and_fields_are_refused_in_words():
    s = position([player("red", (0, 0)), player("blue", (0, 3))])
    assert refused(s, {"type": "fly"}, "unknown_action").endswith(".")
    refused(s, {"type": "move", "to": [0, 1], "speed": 2}, "bad_field")
    refused(s, "move", "bad_action")
    refused(s, {"type": "move", "to": "north"}, "off_map")


def test_a_bad_take_with_rolled_dice_changes_nothing_not_even_the_dice():
    # The engine rolls the duel before it knows the loser; a "take" that is not the loser's
    # card is refused and the PRNG is put back, so the same action rolls the same dice later.
    s = duel(blue_cards=("H4",))
    refused(s, {"type": "attack_player", "target": "blue", "take": "ZZ"}, "bad_take")
    first = royale.apply(royale.copy(s), {"type": "attack_player", "target": "blue"})
    again = royale.apply(royale.copy(s), {"type": "attack_player", "target": "blue"})
    assert first == again


def test_on_the_physical_table_every_die_comes_from_the_table():
    # "Dice are explicit chance": with the dice, the stolen card and the fall cell supplied, a
    # whole game never draws on the engine's PRNG. The "table" here is a fixed dice sequence.
    faces = [3, 6, 1, 5, 2, 4, 6, 6, 2, 5, 4, 1, 3, 3, 5]
    k = [0]

    def die():
        k[0] += 1
        return faces[k[0] % len(faces)]

    s = royale.new_game({"players": 3}, 21)
    rng = s.rng
    royale.apply(s, {"type": "roll_order", "dice": {"red": 2, "blue": 5, "green": 4}})
    for cell in ([0, 3], [3, 0], [0, -3]):
        royale.apply(s, {"type": "place", "cell": cell})
    steps = 0
    while s.status == "ongoing" and steps < 3000:
        steps += 1
        legal = royale.legal_actions(s)
        kinds = [a["type"] for a in legal]
        me = s.players[royale.current(s)]
        if "attack_card" in kinds:
            action = {"type": "attack_card", "dice": [die(), die(), die()]}
        elif "resurrect" in kinds:
            action = {"type": "resurrect"}
        elif "attack_player" in kinds and steps % 3 == 0:
            target = s.players[[a for a in legal if a["type"] == "attack_player"][0]["target"]]
            mine = [6, 6] if me.held() == 0 else 6
            theirs = [1, 2] if target.held() == 0 else 1
            action = {"type": "attack_player", "target": target.id,
                      "dice": [[mine, theirs]] * royale.rounds_to_beat(s, target),
                      "fall_to": royale.cell_xy(royale.NEIGHBOURS[target.cell][-1])}
            if target.active:
                bd = [c for c in target.active if s.cards[c]["effect"]["black_death"]]
                action["take"] = bd[0] if bd else target.active[-1]
        else:
            # Walk toward the nearest card; end the turn when there is nothing left to do.
            cards = [i for i in range(len(s.map)) if s.map[i] is not None]
            moves = sorted([a for a in legal if a["type"] == "move"], key=lambda a: (min(
                [royale.DIST[royale.INDEX[(a["to"][0], a["to"][1])]][c] for c in cards]),
                a["to"]))
            action = moves[0] if moves else legal[-1]
        royale.apply(s, action)
    assert s.status == "finished"
    assert s.rng == rng


def test_the_view_sums_up_each_players_public_cards():
    s = position([player("red", (0, 0), ["CA", "HQ", "S7"], ["SJ"]), player("blue", (0, 3))])
    red = [p for p in royale.view(s, "blue")["players"] if p["id"] == "red"][0]
    # The set-aside Jack (+1) does not count, and blue does not learn of it.
    assert (red["dice_bonus"], red["movement"], red["rounds_to_beat"]) == (2, 1, 4)
