"""Battle Royale with hero teams and Capture the Flag: every rule of the rulebook (its
publisher's text, /work/shared/rulebooks/battle-royale-hero-teams.txt), each test quoting the
sentence it checks; plain test functions, so they run under MicroPython too
(tests/mpy_run_tests.py). Maps used: "the_crossroads" (pillars at [2, 2], [4, 2], [2, 4], [4, 4])
and "twin_keeps" (boulders [1, 3], [3, 3], [5, 3]; red's base [2..4, 1], its flag [4, 0],
blue's base [2..4, 5], its flag [2, 6]; each team's back row is behind its base)."""

import pytest

from shared_rules import canon, heroes, search
from shared_rules.errors import IllegalAction, ScenarioError


def hero(cid, seat, cell, **kw):
    row = {"id": cid, "seat": seat, "cell": list(cell) if cell is not None else None}
    row.update(kw)
    return row


OPEN = {"id": "open", "name": "Open", "modes": ["royale"], "walls": [],
        "starts": [[[0, 0], [1, 0]], [[6, 6], [5, 6]], [[0, 6], [1, 6]]]}


def game(characters, mode="royale", options=None, seed=1, **setup):
    opts = {"mode": mode, "actions_per_turn": 4 if mode == "royale" else 3}
    opts.update(options or {})
    setup["characters"] = characters
    return heroes.new_game(opts, seed, setup)


def refused(state, action, code):
    """Assert the action is illegal with `code` and changed nothing; return the message."""
    before = canon.dumps(heroes.to_dict(state))
    problem = heroes.validate(state, action)
    assert problem is not None, "expected %r to be refused" % (action,)
    assert problem.code == code, (problem.code, problem.message)
    with pytest.raises(IllegalAction):
        heroes.apply(state, action)
    assert canon.dumps(heroes.to_dict(state)) == before
    return problem.message


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]


def cell(state, cid):
    return heroes.cell_xy(state.heroes[cid]["cell"])


def health(state, cid):
    return state.heroes[cid]["health"]


def attack(state, attacker, target, red, white, **kw):
    """A plain attack with the dice given; a defender who could answer answers no_defence."""
    action = {"type": "attack", "attacker": attacker, "target": target,
              "dice": {"red": red, "white": white}}
    action.update(kw)
    events = heroes.apply(state, action)
    if state.battle is not None:
        events += heroes.apply(state, {"type": "no_defence"})
    return events


DUEL = [hero("little_red_riding_hood", "red", [3, 3]), hero("the_snow_queen", "blue", [3, 4])]


# ---------------------------------------------------------------- setup

def test_the_green_die_decides_who_picks_first_and_ties_roll_again():
    # "Roll Green Die to see who picks first."
    s = heroes.new_game({"players": 3}, 1)
    assert s.phase == "pick_roll" and heroes.legal_actions(s) == [{"type": "roll_off"}]
    events = heroes.apply(s, {"type": "roll_off", "dice": {"red": 5, "blue": 5, "green": 2}})
    assert of_type(events, "roll_off_tied")[0]["seats"] == ["red", "blue"]
    refused(s, {"type": "roll_off", "dice": {"red": 1, "blue": 2, "green": 6}}, "bad_dice")
    heroes.apply(s, {"type": "roll_off", "dice": {"red": 1, "blue": 2}})
    assert s.phase == "pick" and heroes.current(s) == "blue"


def test_players_pick_in_turn_until_each_team_has_four():
    # "Then each player picks a character in turn until each has a team of four characters."
    s = heroes.new_game({}, 1)
    heroes.apply(s, {"type": "roll_off", "dice": {"red": 2, "blue": 6}})
    order = []
    while s.phase == "pick":
        order.append(heroes.current(s))
        heroes.apply(s, heroes.legal_actions(s)[0])
    assert order == ["blue", "red"] * 4
    assert s.phase == "turn_roll"
    for seat in ("red", "blue"):
        team = [c for c in s.roster if s.heroes[c]["seat"] == seat]
        assert len(team) == 4
        # "Setup the health counters and place all cards face-up."
        for c in team:
            assert health(s, c) == heroes.base_catalog()["characters"][c]["health"]
            assert s.heroes[c]["face_down"] == []


def test_a_pick_goes_on_a_free_cell_of_the_players_start_zone():
    s = heroes.new_game({}, 1)
    heroes.apply(s, {"type": "roll_off", "dice": {"red": 6, "blue": 1}})
    refused(s, {"type": "pick", "character": "robin_hood", "cell": [3, 6]}, "not_a_start_cell")
    heroes.apply(s, {"type": "pick", "character": "robin_hood", "cell": [3, 0]})
    refused(s, {"type": "pick", "character": "robin_hood", "cell": [3, 6]}, "already_picked")
    heroes.apply(s, {"type": "pick", "character": "the_giant", "cell": [3, 6]})
    refused(s, {"type": "pick", "character": "gretel", "cell": [3, 0]}, "cell_taken")


def test_a_roll_decides_who_goes_first():
    # "Roll to see who goes first."
    s = heroes.new_game({}, 4)
    while s.phase != "turn_roll":
        heroes.apply(s, heroes.legal_actions(s)[0])
    events = heroes.apply(s, {"type": "roll_off", "dice": {"red": 3, "blue": 4}})
    assert of_type(events, "plays_first")[0]["seat"] == "blue"
    assert s.phase == "play" and heroes.current(s) == "blue" and s.actions_left == 4


def test_three_or_four_players_pick_two_or_three_and_have_that_many_actions():
    # "Player selects 2-3 characters and the number of actions is based on the number of
    # starting characters."
    s = heroes.new_game({"players": 4}, 2)
    while s.phase != "play":
        heroes.apply(s, heroes.legal_actions(s)[0])
    assert len(s.roster) == 12 and s.actions_left == 3
    s = heroes.new_game({"players": 3, "team_size": 2}, 2)
    while s.phase != "play":
        heroes.apply(s, heroes.legal_actions(s)[0])
    assert len(s.roster) == 6 and s.actions_left == 2
    with pytest.raises(ScenarioError) as e:
        heroes.new_game({"players": 3, "team_size": 4}, 2)
    assert e.value.field == "options.team_size"


def test_capture_the_flag_setup_flags_behind_the_bases_and_characters_beside_them():
    # "Place each flag behind the right side of your team's base." / "Place each character on
    # either side of the flag." / "Chose a team of two characters"
    s = heroes.new_game({"mode": "ctf"}, 3)
    while s.phase != "play":
        heroes.apply(s, heroes.legal_actions(s)[0])
    flags = dict((f["team"], f["cell"]) for f in heroes.result(s)["flags"])
    assert flags == {"red": [4, 0], "blue": [2, 6]}
    for c in s.roster:
        seat = s.heroes[c]["seat"]
        assert cell(s, c) in ([[3, 0], [5, 0]] if seat == "red" else [[1, 6], [3, 6]])
    assert len(s.roster) == 4
    # "Each turn has a total of 3 actions"
    assert s.actions_left == 3
    with pytest.raises(ScenarioError) as e:
        heroes.new_game({"mode": "ctf", "players": 3}, 1)
    assert e.value.field == "options.players"


# ---------------------------------------------------------------- the turn

def test_a_turn_has_four_actions_in_any_order():
    # "Each turn has a total of 4 actions which may take place in any order."
    s = game([hero("robin_hood", "red", [0, 0]), hero("gretel", "red", [6, 0]),
              hero("the_giant", "blue", [5, 6])], roll=1)
    heroes.apply(s, {"type": "move", "character": "robin_hood", "to": [0, 1]})
    heroes.apply(s, {"type": "move", "character": "gretel", "to": [6, 2]})   # 1, and her +1
    heroes.apply(s, {"type": "play_card", "character": "gretel", "card": "breadcrumb_trail",
                     "to": [6, 5]})
    refused(s, {"type": "move", "character": "gretel", "to": [6, 6]}, "already_moved")
    assert s.actions_left == 1
    attack(s, "gretel", "the_giant", 1, 6)
    assert s.actions_left == 0
    refused(s, {"type": "attack", "attacker": "gretel", "target": "the_giant"},
            "no_actions_left")


def test_the_actions_run_out_and_end_turn_passes_play():
    s = game(DUEL, roll=2, actions_left=1)
    heroes.apply(s, {"type": "move", "character": "little_red_riding_hood", "to": [3, 1]})
    refused(s, {"type": "attack", "attacker": "little_red_riding_hood",
                "target": "the_snow_queen"}, "no_actions_left")
    assert heroes.legal_actions(s) == [{"type": "end_turn"}]
    events = heroes.apply(s, {"type": "end_turn"})
    assert heroes.current(s) == "blue" and s.actions_left == 4 and s.roll is None
    assert of_type(events, "turn_started")[0]["seat"] == "blue"


def test_one_green_die_roll_for_the_whole_turn():
    # "One die roll applies for the whole turn, whether movement takes place at the beginning
    # or end of a turn."
    s = game([hero("robin_hood", "red", [0, 0]), hero("gretel", "red", [6, 0]),
              hero("the_giant", "blue", [3, 6])])
    refused(s, {"type": "move", "character": "robin_hood", "to": [0, 1]}, "roll_first")
    events = heroes.apply(s, {"type": "roll_move", "die": 2})
    assert of_type(events, "movement_rolled")[0]["die"] == 2 and s.actions_left == 4
    refused(s, {"type": "roll_move", "die": 5}, "already_rolled")
    heroes.apply(s, {"type": "move", "character": "robin_hood", "to": [0, 2]})
    refused(s, {"type": "move", "character": "robin_hood", "to": [0, 3]}, "already_moved")
    heroes.apply(s, {"type": "end_turn"})
    heroes.apply(s, {"type": "end_turn"})
    assert s.roll is None                   # a new turn has no roll until it rolls again
    twin = heroes.copy(s)
    events = heroes.apply(s, {"type": "roll_move"})  # the engine's die, from its seeded PRNG
    die = of_type(events, "movement_rolled")[0]["die"]
    assert s.roll == die and die in (1, 2, 3, 4, 5, 6)
    assert of_type(heroes.apply(twin, {"type": "roll_move"}), "movement_rolled")[0]["die"] == die


def test_a_character_moves_up_to_the_die_plus_its_move_bonus():
    # "A character that has yet to move this turn may move up to the number of spaces on the
    # die." Gretel has +1 (the catalog's ability).
    s = game([hero("gretel", "red", [0, 0]), hero("robin_hood", "red", [6, 0]),
              hero("the_giant", "blue", [3, 6])], roll=2)
    refused(s, {"type": "move", "character": "robin_hood", "to": [6, 3]}, "unreachable")
    heroes.apply(s, {"type": "move", "character": "gretel", "to": [0, 3]})
    heroes.apply(s, {"type": "move", "character": "robin_hood", "path": [[6, 1], [6, 2]]})
    assert cell(s, "robin_hood") == [6, 2]


def test_characters_cannot_move_through_each_other_or_walls():
    # "Characters cannot move through each other."
    s = game([hero("gretel", "red", [0, 0]), hero("robin_hood", "red", [1, 0]),
              hero("the_giant", "blue", [0, 1]), hero("big_bad_wolf", "blue", [1, 1])],
             roll=1, options={"diagonal_moves": False})
    assert [a for a in heroes.legal_actions(s) if a.get("character") == "gretel" and
            a["type"] == "move"] == []
    refused(s, {"type": "move", "character": "robin_hood", "path": [[1, 1]]}, "blocked")
    # The pillar at [2, 2] blocks.
    s = game([hero("gretel", "red", [3, 3]), hero("the_giant", "blue", [6, 6])], roll=1)
    refused(s, {"type": "move", "character": "gretel", "path": [[2, 2]]}, "blocked")
    heroes.apply(s, {"type": "move", "character": "gretel", "path": [[2, 3], [1, 2]]})


def test_a_diagonal_step_between_two_blocked_cells_is_not_allowed():
    s = game([hero("gretel", "red", [3, 2]), hero("the_giant", "blue", [6, 6])], roll=1,
             map={"id": "corner", "name": "Corner", "modes": ["royale"],
                  "walls": [[2, 2], [3, 1]], "starts": [[[0, 0], [0, 1]], [[6, 6], [6, 5]]]})
    refused(s, {"type": "move", "character": "gretel", "path": [[2, 1]]}, "bad_path")
    moves = [a["to"] for a in heroes.legal_actions(s) if a["type"] == "move"]
    assert [2, 1] not in moves and [4, 1] in moves


# ---------------------------------------------------------------- attacks

def test_attackers_must_be_adjacent_any_touching_square():
    # "Characters must be adjacent to attack" / "Adjacent is defined by any touching square."
    s = game([hero("little_red_riding_hood", "red", [3, 3]), hero("gretel", "blue", [4, 4]),
              hero("the_snow_queen", "blue", [3, 5])], map=OPEN)
    targets = [a["target"] for a in heroes.legal_actions(s) if a["type"] == "attack"]
    assert targets == ["gretel"]
    refused(s, {"type": "attack", "attacker": "little_red_riding_hood",
                "target": "the_snow_queen"}, "not_adjacent")


def test_damage_is_the_difference_when_the_attack_is_higher():
    # "If the attack is greater than the defense, the difference is subtracted from the
    # defending character's health counter."
    s = game(DUEL)
    events = attack(s, "little_red_riding_hood", "the_snow_queen", 6, 2)
    # The Snow Queen has +1 on the white die: 6 against 3.
    assert of_type(events, "damage")[0]["damage"] == 3 and health(s, "the_snow_queen") == 7
    assert s.actions_left == 3


def test_no_damage_when_the_attack_is_equal_or_lower():
    # "If the attack and defense are equal, no damage is done."
    s = game(DUEL)
    attack(s, "little_red_riding_hood", "the_snow_queen", 4, 3)
    attack(s, "little_red_riding_hood", "the_snow_queen", 1, 6)
    assert health(s, "the_snow_queen") == 10


def test_the_attack_bonus_of_a_brute_adds_to_the_red_die():
    s = game([hero("the_giant", "red", [3, 3]), hero("robin_hood", "blue", [3, 4])])
    events = attack(s, "the_giant", "robin_hood", 3, 2)
    assert of_type(events, "damage")[0] == dict(of_type(events, "damage")[0], attack=4,
                                                defence=2, damage=2)


def test_a_plain_attack_never_hits_a_team_mate():
    s = game([hero("the_giant", "red", [3, 3]), hero("robin_hood", "red", [3, 4]),
              hero("gretel", "blue", [0, 6])])
    refused(s, {"type": "attack", "attacker": "the_giant", "target": "robin_hood"},
            "not_an_enemy")


def test_ranged_cards_reach_up_to_three_spaces_in_a_straight_line():
    # "'up to three spaces away,' is defined as the number of spaces between characters and
    # the spaces may be horizontal, vertical, or diagonal."
    s = game([hero("robin_hood", "red", [0, 0]), hero("the_giant", "blue", [3, 3]),
              hero("gretel", "blue", [0, 4]), hero("big_bad_wolf", "blue", [2, 3])],
             map={"id": "open", "name": "Open", "modes": ["royale"], "walls": [],
                  "starts": [[[0, 0], [1, 0]], [[6, 6], [5, 6]]]})
    targets = [a["target"] for a in heroes.legal_actions(s) if a.get("card") == "longbow_attack"]
    assert targets == ["the_giant"]  # gretel is 4 away; the wolf is off the lines
    s.options = dict(s.options, ranged_lines="path")
    targets = [a["target"] for a in heroes.legal_actions(s) if a.get("card") == "longbow_attack"]
    assert targets == ["the_giant", "big_bad_wolf"]


def test_characters_cannot_attack_through_each_other_or_walls():
    # "Characters cannot attack through each other." / "Players cannot attack through walls"
    s = game([hero("robin_hood", "red", [0, 0]), hero("gretel", "red", [1, 1]),
              hero("the_giant", "blue", [3, 3]), hero("big_bad_wolf", "blue", [0, 3])],
             map={"id": "wall", "name": "Wall", "modes": ["royale"], "walls": [[0, 2]],
                  "starts": [[[0, 0], [1, 0]], [[6, 6], [5, 6]]]})
    refused(s, {"type": "play_card", "character": "robin_hood", "card": "longbow_attack",
                "target": "the_giant"}, "out_of_range")
    refused(s, {"type": "play_card", "character": "robin_hood", "card": "longbow_attack",
                "target": "big_bad_wolf"}, "out_of_range")


def test_an_area_card_hits_every_adjacent_character_team_mates_too():
    # "Some cards allow characters to attack multiple adjacent characters." / "Characters can
    # damage teammates per the effect of a card."
    s = game([hero("the_giant", "red", [3, 3]), hero("robin_hood", "red", [2, 3]),
              hero("gretel", "blue", [4, 4]), hero("big_bad_wolf", "blue", [3, 5])], map=OPEN)
    events = heroes.apply(s, {"type": "play_card", "character": "the_giant",
                              "card": "club_sweep_attack",
                              "dice": {"red": 5, "white": {"robin_hood": 1, "gretel": 2}}})
    # Robin Hood is red's own: no battle-phase answer; Gretel may answer.
    assert heroes.view(s, None)["battle"]["waiting_for"] == "gretel"
    heroes.apply(s, {"type": "no_defence"})
    # One red die for all (5 + 1 brute + 1 card = 7), one white die each.
    assert of_type(events, "battle")[0]["targets"] == ["robin_hood", "gretel"]
    assert health(s, "robin_hood") == 4 and health(s, "gretel") == 4
    assert health(s, "big_bad_wolf") == 12


def test_an_enemies_only_area_card_spares_team_mates():
    s = game([hero("big_bad_wolf", "red", [3, 3]), hero("robin_hood", "red", [2, 3]),
              hero("gretel", "blue", [4, 4])], map=OPEN)
    events = heroes.apply(s, {"type": "play_card", "character": "big_bad_wolf",
                              "card": "huff_and_puff_attack",
                              "dice": {"red": 6, "white": 1}})
    assert of_type(events, "battle")[0]["targets"] == ["gretel"]
    heroes.apply(s, {"type": "no_defence"})
    assert health(s, "robin_hood") == 10 and health(s, "gretel") == 3


# ---------------------------------------------------------------- action cards

def test_a_played_card_turns_over_and_cannot_be_played_again():
    # "Follow the directions on the card then turn the card over as it cannot be played again
    # in this mode"
    s = game([hero("little_red_riding_hood", "red", [3, 3]), hero("the_giant", "blue", [3, 4])])
    action = {"type": "play_card", "character": "little_red_riding_hood",
              "card": "basket_swing_attack", "target": "the_giant", "dice": {"red": 6, "white": 1}}
    events = heroes.apply(s, action)
    assert of_type(events, "card_turned_over")[0]["card"] == "basket_swing_attack"
    heroes.apply(s, {"type": "no_defence"})
    # 6 + 2 against 1: 7 damage.
    assert health(s, "the_giant") == 9
    refused(s, action, "face_down")


def test_a_card_that_stays_face_up_may_be_played_again():
    # "unless a card specifically states that it may remain face-up"
    s = game([hero("robin_hood", "red", [3, 0]), hero("the_giant", "blue", [3, 3])],
             map={"id": "open", "name": "Open", "modes": ["royale"], "walls": [],
                  "starts": [[[0, 0], [1, 0]], [[6, 6], [5, 6]]]})
    for _ in range(3):
        heroes.apply(s, {"type": "play_card", "character": "robin_hood",
                         "card": "longbow_attack", "target": "the_giant",
                         "dice": {"red": 6, "white": 1}})
        heroes.apply(s, {"type": "no_defence"})
    assert health(s, "the_giant") == 16 - 3 * 5 and s.heroes["robin_hood"]["face_down"] == []


def test_a_character_moved_by_a_card_has_moved_this_turn_and_the_die_cannot_move_it():
    # "A character that has yet to move this turn may move up to the number of spaces on the
    # die." A movement card's move is a move: Little Red Riding Hood's Shortcut Through the
    # Woods (3 spaces) takes her from [0, 0] to [3, 0]; the die's 2 no longer moves her on.
    s = game([hero("little_red_riding_hood", "red", [0, 0]), hero("robin_hood", "red", [0, 6]),
              hero("the_giant", "blue", [6, 6])])
    heroes.apply(s, {"type": "play_card", "character": "little_red_riding_hood",
                     "card": "shortcut_through_the_woods", "to": [3, 0]})
    assert heroes.result(s)["moved"] == ["little_red_riding_hood"]
    heroes.apply(s, {"type": "roll_move", "die": 2})
    msg = refused(s, {"type": "move", "character": "little_red_riding_hood", "to": [5, 0]},
                  "already_moved")
    assert msg.startswith("Little Red Riding Hood has already moved this turn")
    refused(s, {"type": "move", "character": "little_red_riding_hood",
                "path": [[4, 0], [5, 0]]}, "already_moved")
    assert [a for a in heroes.legal_actions(s) if a["type"] == "move"
            and a["character"] == "little_red_riding_hood"] == []
    # The roll is the turn's: a character that has yet to move still moves with it.
    heroes.apply(s, {"type": "move", "character": "robin_hood", "to": [0, 4]})
    assert cell(s, "little_red_riding_hood") == [3, 0] and s.actions_left == 2


def test_nobody_rolls_the_green_die_after_cards_moved_every_character():
    s = game([hero("little_red_riding_hood", "red", [0, 0]), hero("the_giant", "blue", [6, 6])])
    heroes.apply(s, {"type": "play_card", "character": "little_red_riding_hood",
                     "card": "shortcut_through_the_woods", "to": [3, 0]})
    refused(s, {"type": "roll_move", "die": 2}, "nobody_can_move")
    assert {"type": "roll_move"} not in heroes.legal_actions(s)


def test_a_movement_card_moves_a_character_that_has_already_moved():
    # Our reading (shared_rules/heroes.py, "Movement"): the die's limit binds the die's
    # move; a card follows "the directions on the card", so it may move a character that
    # moved with the die.
    s = game([hero("hop_o_my_thumb", "red", [0, 0]), hero("the_giant", "blue", [6, 6])], roll=1)
    heroes.apply(s, {"type": "move", "character": "hop_o_my_thumb", "to": [0, 3]})
    heroes.apply(s, {"type": "play_card", "character": "hop_o_my_thumb",
                     "card": "seven_league_boots", "to": [5, 3]})
    assert cell(s, "hop_o_my_thumb") == [5, 3] and s.actions_left == 2


def test_a_healer_gives_back_health_up_to_the_starting_health():
    s = game([hero("fairy_godmother", "red", [0, 0]), hero("the_giant", "red", [3, 3],
                                                          health=15),
              hero("robin_hood", "blue", [6, 6])],
             map={"id": "open", "name": "Open", "modes": ["royale"], "walls": [],
                  "starts": [[[0, 0], [1, 0]], [[6, 6], [5, 6]]]})
    refused(s, {"type": "play_card", "character": "fairy_godmother", "card": "wand_of_kindness",
                "target": "fairy_godmother"}, "full_health")
    events = heroes.apply(s, {"type": "play_card", "character": "fairy_godmother",
                              "card": "wand_of_kindness", "target": "the_giant"})
    assert of_type(events, "healed")[0]["amount"] == 1 and health(s, "the_giant") == 16


def test_the_defender_plays_a_card_after_both_dice_and_it_is_no_action():
    # "During this damage calculation step, the defending character may choose to play an
    # available action card that does not have 'attack' in its name." / "Action cards played
    # during your opponent's battle phase do not count as an action."
    s = game(DUEL)
    events = heroes.apply(s, {"type": "attack", "attacker": "little_red_riding_hood",
                              "target": "the_snow_queen", "dice": {"red": 6, "white": 1}})
    assert of_type(events, "defence_awaited")[0]["defender"] == "the_snow_queen"
    assert heroes.actor(s, {"type": "no_defence"}) == "blue"
    assert heroes.view(s, None)["battle"]["red"] == 6
    refused(s, {"type": "end_turn"}, "battle_phase")
    refused(s, {"type": "defend", "card": "ice_shard_attack"}, "attack_card_in_defence")
    heroes.apply(s, {"type": "defend", "card": "mirror_splinter"})
    # 6 against 1 + 1 (her ability) + 2 (the card): 2 damage; the card turns face down.
    assert health(s, "the_snow_queen") == 8 and s.battle is None
    assert s.actions_left == 3 and heroes.current(s) == "red"
    assert s.heroes["the_snow_queen"]["face_down"] == ["mirror_splinter"]
    # Played, it cannot defend her again: the next attack waits for nobody.
    events = heroes.apply(s, {"type": "attack", "attacker": "little_red_riding_hood",
                              "target": "the_snow_queen", "dice": {"red": 6, "white": 1}})
    assert not of_type(events, "defence_awaited") and health(s, "the_snow_queen") == 4


def test_a_movement_card_in_the_battle_phase_dodges_the_attack():
    # "Movement action cards may be played during the battle phase as a defensive maneuver as
    # long as the title of the card does not contain the work 'attack.'"
    s = game([hero("the_giant", "red", [3, 3]), hero("hop_o_my_thumb", "blue", [3, 4])])
    heroes.apply(s, {"type": "attack", "attacker": "the_giant", "target": "hop_o_my_thumb",
                     "dice": {"red": 6, "white": 1}})
    events = heroes.apply(s, {"type": "defend", "card": "quick_feet", "to": [3, 6]})
    assert of_type(events, "damage")[0]["dodged"] and health(s, "hop_o_my_thumb") == 8
    assert cell(s, "hop_o_my_thumb") == [3, 6]


def test_no_defence_takes_the_damage():
    s = game(DUEL)
    heroes.apply(s, {"type": "attack", "attacker": "little_red_riding_hood",
                     "target": "the_snow_queen", "dice": {"red": 6, "white": 1}})
    heroes.apply(s, {"type": "no_defence"})
    assert health(s, "the_snow_queen") == 6


def test_defence_cards_are_played_only_in_the_battle_phase():
    s = game([hero("the_snow_queen", "red", [3, 3]), hero("the_giant", "blue", [0, 6])])
    refused(s, {"type": "play_card", "character": "the_snow_queen", "card": "mirror_splinter"},
            "defence_only")
    refused(s, {"type": "defend", "card": "mirror_splinter"}, "no_battle")


# ---------------------------------------------------------------- defeat and Bonus Cards

def test_a_character_at_r_is_out_of_the_game_for_good():
    # "When a character's health reaches the 'R,' they are out of play and cannot return this
    # game."
    s = game([hero("the_giant", "red", [3, 3]),
              hero("gretel", "blue", [3, 4], health=2, face_down=["breadcrumb_trail"]),
              hero("robin_hood", "blue", [6, 6])], deck=["golden_shield"])
    events = attack(s, "the_giant", "gretel", 6, 1)
    assert of_type(events, "defeated")[0]["out"] and s.heroes["gretel"]["state"] == "out"
    assert heroes.result(s)["characters"][1]["cell"] is None
    heroes.apply(s, {"type": "roll_bonus"})
    assert [a for a in heroes.legal_actions(s) if a.get("target") == "gretel" or
            a.get("character") == "gretel"] == []


def test_damage_exactly_to_r_defeats_and_one_less_leaves_one_health():
    # "If the attack is greater than the defense, the difference is subtracted from the
    # defending character's health counter." / "When a character's health reaches the 'R,'
    # they are out of play and cannot return this game." Robin Hood's 5 against Gretel's 2:
    # 3 damage.
    def duel(gretel_health, mode="royale"):
        return game([hero("robin_hood", "red", [6, 2]),
                     hero("gretel", "blue", [6, 3], health=gretel_health,
                          face_down=["breadcrumb_trail"]),
                     hero("rumpelstiltskin", "blue", [6, 6])], mode=mode, deck=[])
    s = duel(3)
    events = attack(s, "robin_hood", "gretel", 5, 2)
    assert [(e["damage"], e["health"]) for e in of_type(events, "damage")] == [(3, 0)]
    assert of_type(events, "defeated")[0]["out"] and s.heroes["gretel"]["state"] == "out"
    s = duel(4)
    events = attack(s, "robin_hood", "gretel", 5, 2)
    assert health(s, "gretel") == 1 and s.heroes["gretel"]["state"] == "standing"
    assert of_type(events, "defeated") == []
    # Capture the Flag: "When a character's health reaches the 'R,' they must be placed on
    # their side".
    s = duel(3, "ctf")
    events = attack(s, "robin_hood", "gretel", 5, 2)
    assert health(s, "gretel") == 0 and s.heroes["gretel"]["state"] == "down"
    assert of_type(events, "defeated")[0]["out"] is False


def test_both_players_roll_for_a_bonus_card_and_the_higher_draws_it():
    # "When a character dies, both players must roll the green die. The player who rolls
    # higher gets to draw a Bonus Card from the deck"
    s = game([hero("the_giant", "red", [3, 3]),
              hero("gretel", "blue", [3, 4], health=1, face_down=["breadcrumb_trail"]),
              hero("robin_hood", "blue", [6, 6])], deck=["golden_shield", "flying_carpet"])
    heroes.apply(s, {"type": "attack", "attacker": "the_giant", "target": "gretel",
                     "dice": {"red": 6, "white": 1}})
    assert s.bonus_rolls == [["red", "blue"]]
    refused(s, {"type": "end_turn"}, "bonus_roll_first")
    events = heroes.apply(s, {"type": "roll_bonus", "dice": {"red": 3, "blue": 3}})
    assert of_type(events, "roll_off_tied")
    events = heroes.apply(s, {"type": "roll_bonus", "dice": {"red": 2, "blue": 5}})
    assert of_type(events, "bonus_drawn")[0] == dict(of_type(events, "bonus_drawn")[0],
                                                     seat="blue", card="golden_shield")
    # "it remains in that player's hand": hidden from red, counted for everybody.
    assert "golden_shield" not in canon.dumps(heroes.view(s, "red"))
    assert heroes.view(s, "blue")["hand"] == ["golden_shield"]
    assert heroes.view(s, "red")["hand_sizes"] == {"red": 0, "blue": 1}


def test_a_bonus_card_is_played_as_an_action_and_then_discarded():
    # "The Bonus Card is discarded after being played and cannot be used again."
    s = game([hero("the_giant", "red", [3, 3]), hero("robin_hood", "blue", [6, 6])],
             hands={"red": ["flying_carpet"]})
    heroes.apply(s, {"type": "play_card", "character": "the_giant", "card": "flying_carpet",
                     "to": [5, 5]})
    assert s.hands["red"] == [] and s.discard == ["flying_carpet"] and s.actions_left == 3
    refused(s, {"type": "play_card", "character": "the_giant", "card": "flying_carpet",
                "to": [5, 4]}, "not_your_card")


def test_a_bonus_card_may_defend_in_the_battle_phase():
    # "Bonus Cards drawn after a character dies are treated as Action Cards."
    s = game([hero("the_giant", "red", [3, 3]), hero("robin_hood", "blue", [3, 4],
                                                      face_down=["greenwood_cover"])],
             hands={"blue": ["cloak_of_invisibility"]})
    heroes.apply(s, {"type": "attack", "attacker": "the_giant", "target": "robin_hood",
                     "dice": {"red": 6, "white": 3}})
    heroes.apply(s, {"type": "defend", "card": "cloak_of_invisibility"})
    # 6 + 1 (the Giant) against 3 + 4 (the cloak): no damage.
    assert health(s, "robin_hood") == 10 and s.discard == ["cloak_of_invisibility"]


def test_the_last_player_standing_wins():
    # "The winner is the player who has the last hero or villain standing."
    s = game([hero("the_giant", "red", [3, 3]),
              hero("gretel", "blue", [3, 4], health=1, face_down=["breadcrumb_trail"])])
    events = attack(s, "the_giant", "gretel", 6, 1)
    assert s.status == "finished" and s.winner == "red"
    assert of_type(events, "game_over")[0]["reason"] == "last_standing"
    refused(s, {"type": "end_turn"}, "game_over")


def test_an_eliminated_player_is_skipped_in_a_three_player_game():
    s = game([hero("the_giant", "red", [3, 3]),
              hero("gretel", "blue", [3, 4], health=1, face_down=["breadcrumb_trail"]),
              hero("robin_hood", "green", [0, 6])],
             options={"players": 3, "bonus_cards": False}, map=OPEN)
    attack(s, "the_giant", "gretel", 6, 1)
    assert s.status == "ongoing"
    heroes.apply(s, {"type": "end_turn"})
    assert heroes.current(s) == "green"


# ---------------------------------------------------------------- Capture the Flag

def ctf(characters, **setup):
    return game(characters, mode="ctf", **setup)


def test_a_defeated_character_is_laid_down_behind_its_base_and_respawns():
    # "they must be placed on their side in either empty space behind their base's line and
    # enter the Respawn phase." / "The character may not move or complete any actions for one
    # turn." / "Characters cannot be attacked until they are right-side up." / "The character
    # and all their cards are flipped face up at the end of the Respawn phase."
    s = ctf([hero("the_giant", "red", [2, 4]), hero("gretel", "red", [0, 0]),
             hero("robin_hood", "blue", [3, 4], health=1, face_down=["greenwood_cover"]),
             hero("hop_o_my_thumb", "blue", [6, 6])])
    events = attack(s, "the_giant", "robin_hood", 6, 1, respawn_to={"robin_hood": [5, 6]})
    assert of_type(events, "defeated")[0]["laid_down_at"] == [5, 6]
    assert s.heroes["robin_hood"]["state"] == "down"
    assert "robin_hood" not in [a.get("target") for a in heroes.legal_actions(s)]
    heroes.apply(s, {"type": "end_turn"})
    # Blue's turn is Robin Hood's Respawn Phase: he cannot act.
    assert s.heroes["robin_hood"]["state"] == "resting"
    refused(s, {"type": "play_card", "character": "robin_hood", "card": "longbow_attack",
                "target": "the_giant"}, "respawning")
    events = heroes.apply(s, {"type": "end_turn"})
    assert of_type(events, "respawned")[0]["character"] == "robin_hood"
    assert health(s, "robin_hood") == 10 and s.heroes["robin_hood"]["face_down"] == []


def test_a_character_lying_down_cannot_be_attacked():
    # "Characters cannot be attacked until they are right-side up." Robin Hood lies on his
    # side behind blue's base: no plain attack, no ranged card and no area card reaches him.
    s = ctf([hero("the_giant", "red", [6, 5]), hero("the_snow_queen", "red", [5, 4]),
             hero("robin_hood", "blue", [5, 6], state="down"),
             hero("hop_o_my_thumb", "blue", [6, 4])])
    refused(s, {"type": "attack", "attacker": "the_giant", "target": "robin_hood",
                "dice": {"red": 6, "white": 1}}, "not_attackable")
    refused(s, {"type": "play_card", "character": "the_snow_queen", "card": "ice_shard_attack",
                "target": "robin_hood", "dice": {"red": 6, "white": 1}}, "not_attackable")
    assert [a for a in heroes.legal_actions(s) if a.get("target") == "robin_hood"] == []
    # The Giant's Club Sweep hits every standing character next to him, his team-mate too,
    # but not the one lying down.
    assert heroes.attack_targets(s, "the_giant", "club_sweep_attack") == [
        "the_snow_queen", "hop_o_my_thumb"]
    events = heroes.apply(s, {"type": "play_card", "character": "the_giant",
                              "card": "club_sweep_attack",
                              "dice": {"red": 6, "white": {"the_snow_queen": 6,
                                                           "hop_o_my_thumb": 6}}})
    assert of_type(events, "battle")[0]["targets"] == ["the_snow_queen", "hop_o_my_thumb"]
    if s.battle is not None:
        heroes.apply(s, {"type": "no_defence"})
    assert health(s, "robin_hood") == 0 and s.heroes["robin_hood"]["state"] == "down"
    # In his Respawn Phase (his player's turn) he is still on his side: a team-mate's sweep
    # passes over him too.
    s = ctf([hero("the_giant", "blue", [6, 5]), hero("robin_hood", "blue", [5, 6],
                                                     state="resting"),
             hero("hop_o_my_thumb", "red", [6, 4]), hero("gretel", "red", [0, 0])],
            turn="blue")
    assert heroes.attack_targets(s, "the_giant", "club_sweep_attack") == ["hop_o_my_thumb"]
    refused(s, {"type": "attack", "attacker": "the_giant", "target": "robin_hood"},
            "not_an_enemy")


def test_in_capture_the_flag_a_played_card_waits_for_a_respawn():
    # "turn the card over as it can only be played again after a Respawn Phase"
    s = ctf([hero("little_red_riding_hood", "red", [2, 4]), hero("gretel", "red", [0, 0]),
             hero("robin_hood", "blue", [3, 4]), hero("hop_o_my_thumb", "blue", [6, 6])])
    heroes.apply(s, {"type": "play_card", "character": "little_red_riding_hood",
                     "card": "basket_swing_attack", "target": "robin_hood",
                     "dice": {"red": 1, "white": 6}})
    heroes.apply(s, {"type": "no_defence"})
    msg = refused(s, {"type": "play_card", "character": "little_red_riding_hood",
                      "card": "basket_swing_attack", "target": "robin_hood"}, "face_down")
    assert "Respawn Phase" in msg


def test_characters_may_move_through_their_own_flag_but_not_the_others():
    # "Characters cannot move through each other, but may move through their own flags."
    s = ctf([hero("gretel", "red", [3, 0]), hero("tin_woodman", "red", [6, 6]),
             hero("robin_hood", "blue", [6, 4]), hero("hop_o_my_thumb", "blue", [0, 4])],
            roll=1)
    heroes.apply(s, {"type": "move", "character": "gretel", "path": [[4, 0], [5, 0]]})
    assert cell(s, "gretel") == [5, 0]
    s = ctf([hero("gretel", "red", [3, 6]), hero("tin_woodman", "red", [6, 0]),
             hero("robin_hood", "blue", [6, 4]), hero("hop_o_my_thumb", "blue", [0, 4])],
            roll=1)
    refused(s, {"type": "move", "character": "gretel", "path": [[2, 6], [1, 6]]}, "blocked")


def test_landing_next_to_a_flag_captures_it_and_stops_the_character():
    # "To capture a flag, a player must land adjacent to the space a flag occupies. Once a
    # character captures a flag, he must stop movement until the next turn."
    s = ctf([hero("hop_o_my_thumb", "red", [0, 4]), hero("tin_woodman", "red", [6, 0]),
             hero("robin_hood", "blue", [6, 4]), hero("gretel", "blue", [5, 2])], roll=1)
    events = heroes.apply(s, {"type": "move", "character": "hop_o_my_thumb", "to": [1, 6]})
    assert of_type(events, "flag_captured")[0]["team"] == "blue"
    assert s.flags["blue"]["carrier"] == "hop_o_my_thumb"
    refused(s, {"type": "play_card", "character": "hop_o_my_thumb",
                "card": "seven_league_boots", "to": [0, 2]}, "stopped")


def test_the_carrier_moves_and_puts_the_flag_down_next_to_it():
    # "After a roll, the character with the flag moves and then places the flag in an adjacent
    # space."
    s = ctf([hero("hop_o_my_thumb", "red", [1, 5]), hero("tin_woodman", "red", [6, 0]),
             hero("robin_hood", "blue", [6, 4]), hero("gretel", "blue", [5, 2])], roll=1,
            flags=[{"team": "blue", "cell": [2, 6], "carrier": "hop_o_my_thumb"}])
    refused(s, {"type": "move", "character": "hop_o_my_thumb", "to": [0, 2],
                "flag_to": [2, 6]}, "bad_flag_to")
    events = heroes.apply(s, {"type": "move", "character": "hop_o_my_thumb", "to": [0, 2],
                              "flag_to": [1, 2]})
    assert of_type(events, "flag_moved")[0]["to"] == [1, 2]
    assert heroes.result(s)["flags"][1] == {"team": "blue", "cell": [1, 2],
                                            "carrier": "hop_o_my_thumb"}


def test_an_opposing_character_next_to_the_flag_stops_it_moving():
    # "If a character from the opposing team lands on an adjacent space, then neither player
    # may move the flag until the other has been defeated or moves away."
    s = ctf([hero("hop_o_my_thumb", "red", [1, 5]), hero("tin_woodman", "red", [6, 0]),
             hero("robin_hood", "blue", [3, 6]), hero("gretel", "blue", [5, 2])], roll=1,
            flags=[{"team": "blue", "cell": [2, 6], "carrier": "hop_o_my_thumb"}])
    refused(s, {"type": "move", "character": "hop_o_my_thumb", "to": [0, 2],
                "flag_to": [1, 2]}, "flag_guarded")
    events = heroes.apply(s, {"type": "move", "character": "hop_o_my_thumb", "to": [0, 2]})
    assert of_type(events, "flag_released")[0]["cell"] == [2, 6]
    assert s.flags["blue"] == {"cell": 44, "carrier": None}


def test_a_defeated_carrier_lets_go_of_the_flag():
    s = ctf([hero("hop_o_my_thumb", "red", [1, 5], health=1), hero("tin_woodman", "red", [6, 0]),
             hero("the_giant", "blue", [0, 5]), hero("gretel", "blue", [5, 2])],
            flags=[{"team": "blue", "cell": [2, 6], "carrier": "hop_o_my_thumb"}],
            turn="blue")
    events = attack(s, "the_giant", "hop_o_my_thumb", 6, 1)
    assert of_type(events, "flag_released")
    assert s.flags["blue"]["carrier"] is None and heroes.cell_xy(s.flags["blue"]["cell"]) == [2, 6]
    assert s.heroes["hop_o_my_thumb"]["state"] == "down"
    assert s.heroes["hop_o_my_thumb"]["cell"] in s.map["teams"][0]["behind"]


def test_taking_the_flag_behind_your_own_base_wins():
    # "The winner is the player who takes their opponent's flag to a space behind their own
    # team's base."
    s = ctf([hero("hop_o_my_thumb", "red", [0, 2]), hero("tin_woodman", "red", [6, 0]),
             hero("robin_hood", "blue", [6, 4]), hero("gretel", "blue", [5, 2])], roll=1,
            flags=[{"team": "blue", "cell": [1, 2], "carrier": "hop_o_my_thumb"}])
    events = heroes.apply(s, {"type": "move", "character": "hop_o_my_thumb", "to": [0, 1],
                              "flag_to": [0, 0]})
    assert s.status == "finished" and s.winner == "red"
    assert of_type(events, "game_over")[0]["reason"] == "flag_home"


# ---------------------------------------------------------------- options and bad input

def test_the_turn_limit_ends_the_game_without_a_winner():
    s = game(DUEL, options={"max_turns": 2})
    heroes.apply(s, {"type": "end_turn"})
    events = heroes.apply(s, {"type": "end_turn"})
    assert s.status == "finished" and s.winner is None
    assert of_type(events, "game_over")[0]["reason"] == "turn_limit"


BAD_SETUPS = [
    ({"mode": "chess"}, None, "options.mode"),
    ({"map": "atlantis"}, None, "options.map"),
    ({"mode": "ctf", "map": "the_crossroads"}, None, "options.map"),
    ({}, {"characters": [hero("nobody", "red", [0, 0])]}, "setup.characters[0].id"),
    ({}, {"characters": [hero("gretel", "red", [2, 2])]}, "setup.characters[0].cell"),
    ({}, {"characters": [hero("gretel", "pink", [0, 0])]}, "setup.characters[0].seat"),
    ({}, {"characters": [hero("gretel", "red", [0, 0], health=40)]},
     "setup.characters[0].health"),
    ({}, {"characters": [hero("gretel", "red", [0, 0], face_down=["longbow_attack"])]},
     "setup.characters[0].face_down[0]"),
    ({}, {"characters": [hero("gretel", "red", [0, 0]), hero("robin_hood", "blue", [1, 1])],
          "hands": {"red": ["golden_shield"]}, "deck": ["golden_shield"]}, "setup.deck[0]"),
    ({}, {"map": {"id": "m", "name": "M", "modes": ["royale"], "walls": [[7, 0]],
                  "starts": [[[0, 0], [1, 0]], [[6, 6], [5, 6]]]}}, "setup.map.walls[0]"),
    ({"mode": "ctf"}, {"characters": [hero("gretel", "red", [0, 0]),
                                      hero("robin_hood", "blue", [0, 6])],
                       "flags": [{"team": "blue", "cell": [2, 6], "carrier": "robin_hood"}]},
     "setup.flags[0].carrier"),
]


def test_a_bad_setup_is_refused_naming_the_field():
    for options, setup, field in BAD_SETUPS:
        with pytest.raises(ScenarioError) as e:
            heroes.new_game(options, 1, setup)
        assert e.value.field == field, e.value


CTF_PAIR = [hero("the_giant", "red", [0, 2]), hero("gretel", "red", [6, 2]),
            hero("robin_hood", "blue", [0, 4]), hero("hop_o_my_thumb", "blue", [6, 4])]


def test_moved_and_stopped_must_be_lists_of_character_ids_each_once():
    # A value of the wrong shape is named by its field (it was "the rules engine failed on
    # it (TypeError)"); so is a character listed twice.
    for key in ("moved", "stopped"):
        for value, field, words in (
                ([{"id": "the_giant"}], "setup.%s[0]" % key, "must be the id of a character"),
                ([["the_giant"]], "setup.%s[0]" % key, "must be the id of a character"),
                (["the_giant", "the_giant"], "setup.%s[1]" % key, "the_giant is listed twice"),
                (["nobody"], "setup.%s[0]" % key, "must be the id of a character"),
                ({"the_giant": True}, "setup." + key, "must be a list of character ids"),
                ("the_giant", "setup." + key, "must be a list of character ids")):
            with pytest.raises(ScenarioError) as e:
                heroes.new_game({"mode": "ctf"}, 1, {"characters": CTF_PAIR, key: value})
            assert e.value.field == field, (key, value, e.value)
            assert words in e.value.message, e.value
    s = heroes.new_game({"mode": "ctf"}, 1, {"characters": CTF_PAIR, "moved": ["the_giant"],
                                             "stopped": ["gretel"], "roll": 3})
    refused(s, {"type": "move", "character": "the_giant", "to": [0, 3]}, "already_moved")
    refused(s, {"type": "move", "character": "gretel", "to": [6, 3]}, "stopped")


def test_a_flag_is_given_once_and_its_carrier_is_a_character_id():
    red_flag = {"team": "red", "cell": [4, 0], "carrier": None}
    for flags, field in (([red_flag, dict(red_flag, cell=[5, 0])], "setup.flags[1].team"),
                         ([dict(red_flag, carrier={"id": "robin_hood"})],
                          "setup.flags[0].carrier"),
                         ([dict(red_flag, carrier=["robin_hood"])], "setup.flags[0].carrier")):
        with pytest.raises(ScenarioError) as e:
            heroes.new_game({"mode": "ctf"}, 1, {"characters": CTF_PAIR, "flags": flags})
        assert e.value.field == field, (flags, e.value)


# ---------------------------------------------------------------- the catalog

def test_the_catalog_has_the_variety_the_book_implies():
    cat = heroes.base_catalog()
    chars = cat["characters"]
    assert len(chars) >= 12  # four players of three
    cards = dict(cat["cards"])
    assert max(c["move_bonus"] for c in chars.values()) >= 2               # a fast mover
    brute = max(chars.values(), key=lambda c: c["health"])
    assert brute["attack_bonus"] >= 1                                       # a brute
    assert any(cards[k]["kind"] == "attack" and cards[k]["range"] == 3
               for c in chars.values() for k in c["cards"])                 # a ranged attacker
    assert any(cards[k]["kind"] == "heal" for c in chars.values() for k in c["cards"])
    kinds = set((c["kind"], c.get("area")) for c in cards.values())
    assert {("attack", "one"), ("attack", "adjacent_all"), ("attack", "adjacent_enemies"),
            ("move", None), ("heal", None), ("defend", None)} <= kinds
    assert any(c["stays_face_up"] for c in cards.values())
    assert set(c["kind"] for c in cat["bonus"].values()) == set(heroes.KINDS)
    ctf_maps = [m for m in cat["maps"].values() if "ctf" in m["modes"]]
    royale_maps = [m for m in cat["maps"].values() if "royale" in m["modes"]]
    assert len(ctf_maps) >= 2 and len(royale_maps) >= 2
    for m in cat["maps"].values():
        assert m["walls"]


def test_a_bad_catalog_entry_gives_a_sentence_naming_the_field():
    cases = [
        ({"type": "action", "id": "x", "name": "Big Hit", "text": "t", "kind": "attack"},
         "cards[0].name"),
        ({"type": "action", "id": "x", "name": "Dash", "text": "t", "kind": "move"},
         "cards[0].spaces"),
        ({"type": "action", "id": "x", "name": "Dash", "text": "t", "kind": "move",
          "spaces": 2, "stays_face_up": True}, "cards[0].stays_face_up"),
        ({"type": "action", "id": "x", "name": "Mend", "text": "t", "kind": "heal",
          "amount": 2, "range": 1, "stays_face_up": True}, "cards[0].stays_face_up"),
        ({"type": "action", "id": "x", "name": "Ward", "text": "t", "kind": "defend",
          "bonus": 2, "stays_face_up": True}, "cards[0].stays_face_up"),
        ({"type": "action", "id": "x", "name": "Wave Attack", "text": "t", "kind": "attack",
          "area": "adjacent_all", "range": 2}, "cards[0].range"),
        ({"type": "character", "id": "y", "name": "Y", "tale": "T", "abilities": "a",
          "health": 0, "cards": []}, "cards[0].health"),
        ({"type": "character", "id": "y", "name": "Y", "tale": "T", "abilities": "a",
          "health": 5, "cards": ["nothing"]}, "cards[0].cards[0]"),
        ({"type": "spell", "id": "z"}, "cards[0].type"),
    ]
    for entry, field in cases:
        with pytest.raises(ScenarioError) as e:
            heroes.new_game({}, 1, None, [entry])
        assert e.value.field == field, (entry, e.value)
        assert e.value.message


def test_a_scenario_may_add_a_character_and_its_card():
    cards = [{"type": "action", "id": "golden_hair", "name": "Golden Hair", "text": "Climb.",
              "kind": "move", "spaces": 3},
             {"type": "character", "id": "rapunzel", "name": "Rapunzel", "tale": "Grimm",
              "abilities": "Climbs.", "health": 8, "cards": ["golden_hair"]}]
    s = heroes.new_game({}, 1, {"characters": [hero("rapunzel", "red", [0, 0]),
                                               hero("gretel", "blue", [6, 6])]}, cards)
    heroes.apply(s, {"type": "play_card", "character": "rapunzel", "card": "golden_hair",
                     "to": [0, 3]})
    assert cell(s, "rapunzel") == [0, 3]
    assert heroes.from_dict(canon.loads(canon.dumps(heroes.to_dict(s)))).cat[
        "characters"]["rapunzel"]["health"] == 8


def test_nobody_rolls_the_green_die_when_no_character_can_move():
    s = ctf([hero("gretel", "red", [0, 0], state="resting", health=0),
             hero("tin_woodman", "red", [6, 0], state="resting", health=0),
             hero("robin_hood", "blue", [6, 4]), hero("hop_o_my_thumb", "blue", [0, 4])])
    refused(s, {"type": "roll_move"}, "nobody_can_move")
    assert heroes.legal_actions(s) == [{"type": "end_turn"}]
    events = heroes.apply(s, {"type": "end_turn"})
    assert [e["character"] for e in of_type(events, "respawned")] == ["gretel", "tin_woodman"]


def test_a_heal_without_a_target_heals_the_character_who_plays_it():
    s = game([hero("tin_woodman", "red", [3, 3], health=10), hero("gretel", "blue", [0, 6])])
    action = {"type": "play_card", "character": "tin_woodman", "card": "oil_can"}
    assert heroes.validate(s, action) is None
    assert heroes.normal_form(s, action) in heroes.legal_actions(s)
    heroes.apply(s, action)
    assert health(s, "tin_woodman") == 12


def test_the_table_can_ask_who_an_attack_would_hit():
    s = game([hero("the_giant", "red", [3, 3]), hero("robin_hood", "red", [2, 3]),
              hero("gretel", "blue", [4, 4]), hero("big_bad_wolf", "blue", [3, 5])], map=OPEN)
    assert heroes.attack_targets(s, "the_giant", "club_sweep_attack") == ["robin_hood",
                                                                          "gretel"]
    assert heroes.attack_targets(s, "the_giant", None, "gretel") == ["gretel"]
    with pytest.raises(IllegalAction) as e:
        heroes.attack_targets(s, "the_giant", None, "big_bad_wolf")
    assert e.value.code == "not_adjacent"
    with pytest.raises(IllegalAction) as e:
        heroes.attack_targets(s, "the_giant", "fee_fi_fo_fum")
    assert e.value.code == "not_an_attack"


def test_a_bot_can_weigh_every_outcome_of_an_attacks_dice():
    """The hard bot's `outcomes` (shared_rules/search.py `expect`): an attack's 36 pairs of
    the red die and the white, each once; an area card's targets share the white die of each
    outcome; the turn's green die 6; a move, a heal or dice already given: none."""
    s = game([hero("the_giant", "red", [3, 3]), hero("robin_hood", "red", [2, 3]),
              hero("gretel", "blue", [4, 4]), hero("big_bad_wolf", "blue", [3, 5])], map=OPEN)
    plain = {"type": "attack", "attacker": "the_giant", "target": "gretel"}
    got = heroes.outcomes(s, plain)
    assert len(got) == 36 and set(w for w, _ in got) == {1}
    pairs = set((a["dice"]["red"], a["dice"]["white"]["gretel"]) for _, a in got)
    assert pairs == set((r, w) for r in range(1, 7) for w in range(1, 7))
    assert all(a["attacker"] == "the_giant" and a["target"] == "gretel" for _, a in got)
    sweep = heroes.outcomes(s, {"type": "play_card", "character": "the_giant",
                                "card": "club_sweep_attack"})
    assert len(sweep) == 36
    for _, a in sweep:
        assert sorted(a["dice"]["white"]) == ["gretel", "robin_hood"]
        assert a["dice"]["white"]["gretel"] == a["dice"]["white"]["robin_hood"]
    assert heroes.outcomes(s, dict(plain, dice={"red": 6, "white": 1})) is None
    assert heroes.outcomes(s, {"type": "play_card", "character": "the_giant",
                               "card": "fee_fi_fo_fum"}) is None
    assert heroes.outcomes(s, {"type": "move", "character": "gretel", "to": [5, 5]}) is None
    assert [a["die"] for _, a in heroes.outcomes(s, {"type": "roll_move"})] == [1, 2, 3, 4, 5, 6]
    # Every outcome is a legal action, and the mean health Gretel keeps (answering without a
    # card) is the dice's: the Giant's red + 1 against her white, the difference taken when
    # it is higher.
    left = 0
    for _, a in got:
        trial = heroes.copy(s)
        heroes.apply(trial, a)
        heroes.apply(trial, {"type": "no_defence"})
        left += health(trial, "gretel")
    lost = sum(max(0, r + 1 - w) for r in range(1, 7) for w in range(1, 7))
    assert left == 36 * health(s, "gretel") - lost


def test_the_hard_bot_weighs_a_point_of_health_by_what_the_character_deals_and_takes():
    """`worth`: a point of health in 36ths of a plain character's, halfway to the ratio of
    the mean damage the character deals to the mean damage it takes (35 for plain dice, 56
    with +1 to attack, 20 against +1 to defence). The greedy bot's `evaluate` counts every
    point alike; `hard_evaluate` (the hard bot's) weighs them."""
    s = game([hero("the_giant", "red", [3, 3]), hero("tin_woodman", "red", [2, 3]),
              hero("gretel", "blue", [4, 4]), hero("big_bad_wolf", "blue", [3, 5])], map=OPEN)
    assert heroes.worth(s, "gretel") == 36
    assert heroes.worth(s, "the_giant") == (36 + 56 * 36 // 35) // 2 == 46
    assert heroes.worth(s, "tin_woodman") == (36 + 35 * 36 // 20) // 2 == 49
    # A blow of 2 on the Giant or on Gretel: the greedy bot's yardstick moves by 8 for
    # either; the hard bot's by what each point is worth.
    for cid, lost in (("the_giant", 4 * 16 * 46 // 36 - 4 * 14 * 46 // 36),
                      ("gretel", 8)):
        hurt = heroes.copy(s)
        hurt.heroes[cid]["health"] -= 2
        side = s.heroes[cid]["seat"]
        assert heroes.evaluate(s, side) - heroes.evaluate(hurt, side) == 8
        assert heroes.hard_evaluate(s, side) - heroes.hard_evaluate(hurt, side) == lost
    assert heroes.hard_evaluate(s, "red") != heroes.evaluate(s, "red")


def test_capture_the_flag_keeps_the_tree_and_the_plain_yardstick():
    """Only Battle Royale's hard bot weighs dice and health (`expect`, `hard_evaluate`): in
    Capture the Flag, where the flag wins and a character laid down stands up whole, it
    keeps the tree and the greedy bot's yardstick."""
    royale = game([hero("the_giant", "red", [3, 3]), hero("gretel", "blue", [4, 4])],
                  map=OPEN)
    flags = ctf([hero("the_giant", "red", [2, 0]), hero("gretel", "red", [6, 0]),
                 hero("big_bad_wolf", "blue", [0, 6]), hero("tin_woodman", "blue", [4, 6])])
    assert search.settings(heroes, royale)[8] is True          # expect
    assert search.settings(heroes, flags)[8] is False
    assert search.settings(heroes, flags)[3] == 10               # the greedy move's head start
    assert search.settings(heroes)[8] is True                    # no state: SEARCH
    assert heroes.hard_evaluate(flags, "red") == heroes.evaluate(flags, "red")
    assert heroes.hard_evaluate(royale, "red") != heroes.evaluate(royale, "red")
