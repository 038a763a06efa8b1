"""The heroes table interpreter (Battle Royale with hero teams, Capture the Flag): figures,
cards laid on a seat's card reader, flags, taps and the red, white and green dice become
actions, or mismatches in words.

Pure: observations are fed by hand, as the session feeds them from the tiles.
"""

from host.games.heroes import interpreter as heroes_table
from host.games.heroes.interpreter import HeroesTable, table_dice
from shared_rules import heroes
from shared_rules.engine import Match
from table_helpers import apply, lay_on_reader, lay_out

# Capture the Flag on Twin Keeps: red's keep is row 1 (x 2..4), its flag [4, 0]; blue's
# keep row 5, its flag [2, 6]; boulders on [1, 3], [3, 3], [5, 3].
TEAMS = [{"id": "tin_woodman", "seat": "red", "cell": [0, 2]},
         {"id": "robin_hood", "seat": "red", "cell": [6, 2]},
         {"id": "big_bad_wolf", "seat": "blue", "cell": [0, 4]},
         {"id": "gretel", "seat": "blue", "cell": [6, 4]}]


def table_for(characters=TEAMS, mode="ctf", **setup):
    setup = dict({"characters": [dict(c) for c in characters], "turn": "red"}, **setup)
    match = Match("heroes", {"mode": mode}, 1, setup)
    table = HeroesTable(match)
    lay_out(table)
    assert table.reconcile(0) is None and table.mismatches == []
    return match, table


def throw(table, dice, now=0):
    """Dice ("red", 5) settling one at a time, each in its colour's pocket, taken out
    first if a die lies there; returns the tray's last answer."""
    out = None
    for colour, face in dice:
        pocket = heroes_table.POCKET_OF[colour]
        if table.pockets.get(pocket):
            table.dice(pocket, None, None, now)
        out = table.dice(pocket, "die:%s:%d" % (colour, face), None, now)
    return out


def move_figure(table, cid, src, dst, now=0):
    """Lift a figure off `src` and put it on `dst`: returns what the table shows then."""
    table.observe_items(src, [i for i in table.observed.get(src, []) if i != "heroes:" + cid])
    lifted = table.reconcile(now)
    assert lifted is None and table.busy() and table.mismatches == []
    table.observe_items(dst, table.observed.get(dst, []) + ["heroes:" + cid])
    return table.reconcile(now)


def codes(table):
    return [m.code for m in table.mismatches]


def messages(table):
    return " ".join(m.message for m in table.mismatches)


# ---------------------------------------------------------------- before the game

def test_each_player_rolls_the_green_die_in_turn_for_who_picks_first_then_picks_by_placing():
    match = Match("heroes", {"mode": "ctf"}, 4)
    table = HeroesTable(match)
    lay_out(table)                                       # the two flags, before anything
    assert table.reconcile(0) is None and table.mismatches == []
    assert table.pockets_wanted() == [2]
    assert throw(table, [("green", 3)]) is None            # red's roll; blue's still to come
    action = throw(table, [("green", 5)])
    assert action == {"type": "roll_off", "dice": {"red": 3, "blue": 5}}
    apply(match, table, action)
    assert heroes.current(match.state) == "blue"
    # Blue picks the Snow Queen by standing her figure on one of blue's start cells.
    table.observe_items((1, 6), ["heroes:the_snow_queen"])
    assert table.reconcile(0) == {"type": "pick", "character": "the_snow_queen",
                                  "cell": [1, 6]}
    # A figure anywhere else is refused in words, naming the cells to use.
    table.observe_items((1, 6), [])
    table.observe_items((3, 3), ["heroes:the_snow_queen"])
    assert table.reconcile(0) is None and codes(table) == ["not_a_start_cell"]
    assert "Take the Snow Queen off [3, 3]." in messages(table)


def test_the_seat_button_roll_lets_the_engine_roll_what_the_tray_waits_for():
    match = Match("heroes", {"mode": "ctf"}, 4)
    table = HeroesTable(match)
    table.reconcile(0)
    assert table.button("blue", "roll") == {"type": "roll_off"}


# ---------------------------------------------------------------- moving

def test_the_green_die_in_the_tray_is_the_turns_movement_roll():
    match, table = table_for()
    assert table.pockets_wanted() == [2]
    assert throw(table, [("green", 4)]) == {"type": "roll_move", "die": 4}
    # A red die is not the movement roll: it is noted and ignored.
    match2, table2 = table_for()
    assert throw(table2, [("red", 4)]) is None
    notes, _ = table2.take_said()
    assert any("red die" in n for n in notes)


def test_lifting_a_figure_and_putting_it_down_is_a_move_the_engine_checks():
    match, table = table_for(roll=2)
    assert move_figure(table, "tin_woodman", (0, 2), (1, 1)) == {
        "type": "move", "character": "tin_woodman", "to": [1, 1]}


def test_a_move_the_rules_refuse_is_a_mismatch_saying_where_to_put_the_figure_back():
    match, table = table_for()          # no movement roll yet this turn
    assert move_figure(table, "tin_woodman", (0, 2), (1, 2)) is None
    assert codes(table) == ["roll_first"]
    assert messages(table).endswith("Put the Tin Woodman back on [0, 2].")
    assert table.mismatches[0].cells == [(0, 2), (1, 2)]


def test_the_other_teams_figures_stay_put_during_a_turn():
    match, table = table_for(roll=3)
    table.observe_items((0, 4), [])
    assert table.reconcile(0) is None and codes(table) == ["lifted"]
    assert messages(table) == "Put the Big Bad Wolf back on [0, 4]."
    table.observe_items((0, 5), ["heroes:big_bad_wolf"])
    assert table.reconcile(0) is None and codes(table) == ["figure_moved"]
    assert messages(table) == "The Big Bad Wolf belongs on [0, 4], not [0, 5]."


def test_a_character_controlling_a_flag_carries_it_when_the_token_goes_down_next_to_it():
    # Robin Hood (red) stands next to blue's flag on [2, 6] and controls it.
    chars = [dict(TEAMS[0]), {"id": "robin_hood", "seat": "red", "cell": [1, 5]},
             dict(TEAMS[2]), dict(TEAMS[3])]
    match, table = table_for(chars, roll=2, flags=[
        {"team": "red", "cell": [4, 0], "carrier": None},
        {"team": "blue", "cell": [2, 6], "carrier": "robin_hood"}])
    table.observe_items((2, 6), [])                      # the flag token in hand
    table.observe_items((1, 5), [])                      # the figure in hand
    assert table.reconcile(0) is None and table.mismatches == [] and table.busy()
    table.observe_items((1, 4), ["heroes:robin_hood"])
    assert table.reconcile(0) is None and table.busy()   # waits for the flag to go down
    table.observe_items((0, 5), ["heroes-flag:blue"])
    action = table.reconcile(0)
    assert action == {"type": "move", "character": "robin_hood", "to": [1, 4],
                      "flag_to": [0, 5]}
    assert heroes.validate(match.state, action) is None


# ---------------------------------------------------------------- attacks and cards

def adjacent_teams():
    return [{"id": "tin_woodman", "seat": "red", "cell": [0, 2]},
            {"id": "robin_hood", "seat": "red", "cell": [6, 2]},
            {"id": "big_bad_wolf", "seat": "blue", "cell": [1, 1]},
            {"id": "gretel", "seat": "blue", "cell": [6, 4]}]


def test_an_attack_is_a_tap_on_the_attacker_then_the_target_then_the_red_and_white_dice():
    match, table = table_for(adjacent_teams())
    assert table.gesture((0, 2), "tap", 10) is None and table.busy()
    assert table.gesture((1, 1), "tap", 20) is None
    assert table.pockets_wanted() == [0, 1]
    assert throw(table, [("white", 2)]) is None          # the order of the dice is free
    action = throw(table, [("red", 6)])
    assert action == {"type": "attack", "attacker": "tin_woodman", "target": "big_bad_wolf",
                      "dice": {"red": 6, "white": {"big_bad_wolf": 2}}}
    assert heroes.validate(match.state, action) is None


def test_a_tap_on_an_enemy_out_of_reach_is_refused_with_the_engines_reason():
    match, table = table_for()
    table.gesture((0, 2), "tap", 0)
    assert table.gesture((6, 4), "tap", 0) is None
    _, refusals = table.take_said()
    assert refusals and "must stand next to" in refusals[-1][1]
    assert table.throw is None or table.auto


def test_an_attack_card_laid_on_the_seats_reader_then_a_tap_on_the_target():
    match, table = table_for(adjacent_teams())
    # Axe Attack is the Tin Woodman's: laid on red's reader (seat 1), he plays it.
    assert lay_on_reader(table, 1, ["heroes-card:axe_attack"]) is None
    assert table.mismatches == [] and table.busy()
    assert table.card_play["character"] == "tin_woodman"
    assert table.gesture((1, 1), "tap", 0) is None
    action = throw(table, [("red", 5), ("white", 1)])
    assert action == {"type": "play_card", "character": "tin_woodman", "card": "axe_attack",
                      "target": "big_bad_wolf",
                      "dice": {"red": 5, "white": {"big_bad_wolf": 1}}}
    apply(match, table, action)
    # The played card is lifted off before the table goes on.
    assert table.reconcile(0) is None and codes(table) == ["card_played"]
    assert messages(table) == "Axe Attack has been played: lift it off red's card reader."
    assert table.mismatches[0].cells == [("seat", 1)]
    assert lay_on_reader(table, 1, []) is None and table.mismatches == []
    if match.state.battle is not None:
        apply(match, table, {"type": "no_defence"})
    # Laid again, it is face down now: refused in the engine's words, nothing applied.
    assert lay_on_reader(table, 1, ["heroes-card:axe_attack"]) is None
    assert codes(table) == ["card_not_playable"] and "face down" in messages(table)
    assert not table.busy()


def test_an_area_card_rolls_at_once_a_white_die_per_target_one_throw_each():
    chars = [{"id": "the_giant", "seat": "red", "cell": [1, 2]},
             {"id": "robin_hood", "seat": "red", "cell": [6, 2]},
             {"id": "big_bad_wolf", "seat": "blue", "cell": [0, 2]},
             {"id": "gretel", "seat": "blue", "cell": [2, 2]}]
    match, table = table_for(chars)
    assert lay_on_reader(table, 1, ["heroes-card:club_sweep_attack"]) is None
    assert table.mismatches == []
    assert throw(table, [("red", 4), ("white", 3)]) is None
    action = throw(table, [("white", 6)])                # the white die rolled again
    targets = heroes.attack_targets(match.state, "the_giant", "club_sweep_attack")
    assert action == {"type": "play_card", "character": "the_giant",
                      "card": "club_sweep_attack",
                      "dice": {"red": 4, "white": {targets[0]: 3, targets[1]: 6}}}


def test_a_heal_on_the_healer_alone_is_played_when_the_card_is_laid():
    chars = [dict(TEAMS[0], health=5)] + TEAMS[1:]
    match, table = table_for(chars)
    assert lay_on_reader(table, 1, ["heroes-card:oil_can"]) == {
        "type": "play_card", "character": "tin_woodman", "card": "oil_can",
        "target": "tin_woodman"}


def test_a_card_laid_by_the_player_who_is_not_playing_is_a_mismatch():
    match, table = table_for()
    assert lay_on_reader(table, 2, ["heroes-card:sheeps_clothing"]) is None
    assert codes(table) == ["card_not_playable"]
    assert messages(table) == ("It is red's turn: take Sheep's Clothing off blue's card "
                               "reader.")


def test_a_defender_answers_with_a_card_on_its_seats_reader_or_the_no_defence_button():
    match, table = table_for(adjacent_teams())
    apply(match, table, {"type": "attack", "attacker": "tin_woodman",
                         "target": "big_bad_wolf",
                         "dice": {"red": 6, "white": {"big_bad_wolf": 1}}})
    assert match.state.battle is not None              # the Wolf holds Sheep's Clothing
    assert table.gesture((0, 2), "tap", 0) is None     # the pads wait for the defence
    assert table.button("blue", "no_defence") == {"type": "no_defence"}
    assert table.button("red", "no_defence") is None
    # On the attacker's reader it is the wrong seat's; on the defender's, the defence.
    assert lay_on_reader(table, 1, ["heroes-card:sheeps_clothing"]) is None
    assert codes(table) == ["wrong_reader"]
    assert lay_on_reader(table, 1, []) is None and table.mismatches == []
    action = lay_on_reader(table, 2, ["heroes-card:sheeps_clothing"])
    assert action == {"type": "defend", "card": "sheeps_clothing"}
    events = apply(match, table, action)
    assert [e for e in events if e["type"] == "damage"][0]["damage"] == 6 - (1 + 2)


def test_the_seat_button_end_turn_ends_the_turn_of_the_player_whose_turn_it_is():
    match, table = table_for()
    assert table.button("blue", "end_turn") is None
    assert table.button("red", "end_turn") == {"type": "end_turn"}


# ---------------------------------------------------------------- defeats

def test_a_character_defeated_in_capture_the_flag_lies_down_on_the_cell_the_engine_chose():
    chars = [dict(TEAMS[0]), dict(TEAMS[1]), dict(adjacent_teams()[2], health=1),
             dict(TEAMS[3])]
    match, table = table_for(chars)
    events = apply(match, table, {"type": "attack", "attacker": "tin_woodman",
                                  "target": "big_bad_wolf",
                                  "dice": {"red": 6, "white": {"big_bad_wolf": 1}}})
    if match.state.battle is not None:
        events = apply(match, table, {"type": "no_defence"})
    down = [e for e in events if e["type"] == "defeated"][0]["laid_down_at"]
    assert table.reconcile(0) is None and codes(table) == ["laid_down"]
    assert messages(table) == ("The Big Bad Wolf was defeated: lay the figure on its side on "
                               "[%d, %d], behind its base." % tuple(down))


def test_a_character_out_of_battle_royale_is_taken_off_the_board():
    chars = [dict(c) for c in adjacent_teams()]
    chars[2]["health"] = 1
    match, table = table_for(chars, mode="royale", map="twin_keeps")
    apply(match, table, {"type": "attack", "attacker": "tin_woodman",
                         "target": "big_bad_wolf",
                         "dice": {"red": 6, "white": {"big_bad_wolf": 1}}})
    if match.state.battle is not None:
        apply(match, table, {"type": "no_defence"})
    assert table.reconcile(0) is None and "out_of_game" in codes(table)
    assert "The Big Bad Wolf is out of the game: take the figure off [1, 1]." in messages(table)


# ---------------------------------------------------------------- the seeded dice

def test_the_tables_dice_are_the_engines_form_and_seeded_by_the_game_and_its_step():
    match, table = table_for(adjacent_teams())
    action = {"type": "attack", "attacker": "tin_woodman", "target": "big_bad_wolf"}
    rolled = table_dice(match.state, action, 7, 3)
    assert rolled == table_dice(match.state, action, 7, 3)
    assert sorted(rolled["dice"]) == ["red", "white"]
    assert list(rolled["dice"]["white"]) == ["big_bad_wolf"]
    assert heroes.validate(match.state, rolled) is None
    rolls = set(canon_dice(table_dice(match.state, action, 7, step)) for step in range(40))
    assert len(rolls) > 10                               # the step changes the dice
    assert table_dice(match.state, {"type": "end_turn"}, 7, 3) == {"type": "end_turn"}


def canon_dice(action):
    return (action["dice"]["red"], action["dice"]["white"]["big_bad_wolf"])


def test_a_defenders_heal_that_reaches_others_waits_for_a_tap_on_the_healed_character():
    # Rumpelstiltskin (blue) is attacked; his Straw into Gold (range 2) may heal the Wolf.
    chars = [{"id": "robin_hood", "seat": "red", "cell": [2, 3]},
             {"id": "gretel", "seat": "red", "cell": [3, 2]},
             {"id": "big_bad_wolf", "seat": "blue", "cell": [4, 3], "health": 5},
             {"id": "rumpelstiltskin", "seat": "blue", "cell": [3, 4]}]
    match, table = table_for(chars, mode="royale", map="the_crossroads")
    apply(match, table, {"type": "attack", "attacker": "robin_hood",
                         "target": "rumpelstiltskin",
                         "dice": {"red": 2, "white": {"rumpelstiltskin": 4}}})
    assert match.state.battle is not None
    assert lay_on_reader(table, 2, ["heroes-card:straw_into_gold"]) is None
    assert table.mismatches == [] and table.busy()
    assert table.gesture((4, 3), "tap", 0) == {"type": "defend", "card": "straw_into_gold",
                                               "target": "big_bad_wolf"}


# ---------------------------------------------------------------- the lights

def test_walls_are_dark_and_each_character_shows_its_health_on_its_cell():
    from host import lights
    from host.games.heroes.adapter import HEALTH, heroes_scenes
    chars = [dict(TEAMS[0], health=7)] + TEAMS[1:]
    match, table = table_for(chars)
    scenes = heroes_scenes(match.state, table.mismatches, table.pockets_wanted())
    assert scenes[(1, 3)] == lights.DARK_CELL and scenes[(3, 1)] == lights.DARK_CELL
    n, e, s, w = scenes[(0, 2)]
    assert e == w == lights.value(HEALTH, 7)
    assert n == s == lights.solid(lights.PAWN_COLOURS["red"])
    assert scenes[(4, 0)][0][0] == "chase"                      # red's flag
    assert scenes[("pocket", 2)] != lights.DARK_CELL           # the green die is awaited


# ---------------------------------------------------------------- the seats' card readers

def test_a_bonus_card_two_characters_could_play_waits_for_the_tap_naming_who_plays_it():
    # Both red characters have an enemy within three spaces in a clear line.
    match, table = table_for(adjacent_teams(), hands={"red": ["enchanted_arrow_attack"]})
    assert lay_on_reader(table, 1, ["heroes-card:enchanted_arrow_attack"]) is None
    assert table.mismatches == [] and table.busy()
    assert table.card_play["character"] is None
    notes, _ = table.take_said()
    assert "tap the cell of the character of Red's who plays it" in notes[-1]
    # A tap on an enemy does not name the player: refused, the card still waits.
    assert table.gesture((1, 1), "tap", 0) is None
    _, refusals = table.take_said()
    assert refusals[-1][1].startswith("Tap the cell of one of red's characters")
    assert table.card_play["character"] is None
    # Robin Hood plays it; then his target, then the dice.
    assert table.gesture((6, 2), "tap", 0) is None
    assert table.card_play["character"] == "robin_hood"
    assert table.gesture((6, 4), "tap", 0) is None
    action = throw(table, [("red", 3), ("white", 2)])
    assert action == {"type": "play_card", "character": "robin_hood",
                      "card": "enchanted_arrow_attack", "target": "gretel",
                      "dice": {"red": 3, "white": {"gretel": 2}}}
    apply(match, table, action)
    if match.state.battle is not None:
        apply(match, table, {"type": "no_defence"})
    # Discarded once played: laid again (after lifting it off) it is not in red's hand.
    assert lay_on_reader(table, 1, []) is None and table.mismatches == []
    assert lay_on_reader(table, 1, ["heroes-card:enchanted_arrow_attack"]) is None
    assert codes(table) == ["not_in_hand"]
    assert "is not a Bonus Card in red's hand" in messages(table)


def test_a_bonus_card_only_one_character_can_play_is_that_ones_at_once():
    # Only the Tin Woodman is hurt: the Apple of Youth heals him, with no tap to say so.
    chars = [dict(TEAMS[0], health=4)] + TEAMS[1:]
    match, table = table_for(chars, hands={"red": ["apple_of_youth"]})
    assert lay_on_reader(table, 1, ["heroes-card:apple_of_youth"]) is None
    assert table.card_play == {"place": ("seat", 1), "card": "apple_of_youth",
                               "character": "tin_woodman", "defending": False}
    assert table.gesture((0, 2), "tap", 0) == {"type": "play_card", "character": "tin_woodman",
                                               "card": "apple_of_youth",
                                               "target": "tin_woodman"}


def test_a_card_on_the_wrong_seats_reader_is_a_mismatch_naming_the_right_reader():
    match, table = table_for(hands={"red": ["golden_shield"]})
    assert lay_on_reader(table, 2, ["heroes-card:axe_attack"]) is None
    assert codes(table) == ["wrong_reader"]
    assert messages(table) == ("Axe Attack is the Tin Woodman's card (red): it is played from "
                               "red's card reader, not blue's; take Axe Attack off blue's card "
                               "reader.")
    assert table.mismatches[0].cells == [("seat", 2)] and not table.busy()
    assert lay_on_reader(table, 2, ["heroes-card:golden_shield"]) is None
    assert codes(table) == ["wrong_reader"] and "Bonus Card of red's hand" in messages(table)


def test_what_is_not_a_playable_card_on_a_reader_is_said_and_nothing_is_applied():
    match, table = table_for(adjacent_teams())
    assert lay_on_reader(table, 1, ["heroes-card:no_such_card"]) is None
    assert codes(table) == ["not_in_game"]
    assert lay_on_reader(table, 1, ["heroes:gretel"]) is None
    assert codes(table) == ["bad_tag"] and table.mismatches[0].cells == [("seat", 1)]
    assert "not on a card reader" in messages(table)
    assert lay_on_reader(table, 1, []) is None and table.mismatches == []
    # Seat 3's reader in a two-player game: nobody plays there.
    assert lay_on_reader(table, 3, ["heroes-card:axe_attack"]) is None
    assert codes(table) == ["no_such_seat"]
    assert "Nobody plays at seat 3" in messages(table)
    lay_on_reader(table, 3, [])
    # Two cards on one reader: the second waits its turn.
    assert lay_on_reader(table, 1, ["heroes-card:axe_attack", "heroes-card:longbow_attack"]) \
        is None
    assert codes(table) == ["one_card"]


def test_a_card_on_the_board_is_refused_it_is_played_on_the_readers():
    match, table = table_for(adjacent_teams())
    table.observe_items((0, 2), ["heroes-card:axe_attack", "heroes:tin_woodman"])
    assert table.reconcile(0) is None and codes(table) == ["card_on_board"]
    assert messages(table) == ("Axe Attack is played on its player's card reader, not on the "
                               "board: take it off [0, 2].")
    assert table.mismatches[0].cells == [(0, 2)] and not table.busy()


def test_lifting_a_card_before_its_play_is_done_calls_the_play_off():
    match, table = table_for(adjacent_teams())
    assert lay_on_reader(table, 1, ["heroes-card:axe_attack"]) is None and table.busy()
    assert lay_on_reader(table, 1, []) is None
    assert table.card_play is None and not table.busy() and table.mismatches == []


def test_the_readers_light_the_seat_that_acts_and_the_card_being_played():
    from host.games.heroes.adapter import HeroesGame
    match, table = table_for(adjacent_teams())
    game = HeroesGame()
    scenes = game.scenes(match.state, table, [])
    assert scenes[("seat", 1)][0][0] == "pulse"                  # red acts
    assert scenes[("seat", 2)][0][0] == "solid"
    lay_on_reader(table, 1, ["heroes-card:axe_attack"])
    assert game.scenes(match.state, table, [])[("seat", 1)][0][0] == "chase"
    lay_on_reader(table, 1, [])
    lay_on_reader(table, 2, ["heroes-card:sheeps_clothing"])
    assert game.scenes(match.state, table, [])[("seat", 2)][0][0] == "blink"  # a mismatch
    text = game.render(match.state, {}, table.mismatches, False, table=table)
    assert "reader 2 (blue): Sheep's Clothing" in text and "reader 1 (red): empty" in text
