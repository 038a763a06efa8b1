"""Storybook Battles, rule by rule, as the book says it."""

import pytest

from shared_rules import storybook
from shared_rules.errors import IllegalAction, ScenarioError
from storybook_helpers import card_at, code_of, events_of, position

# Three cards whose numbers the book's example turn fixes.
CAT, RABBIT, CROC, STARKEY = "the_cheshire_cat", "the_white_rabbit", "the_crocodile", \
    "gentleman_starkey"


def example_position():
    return position([(CAT, (2, 3), "hero", "N", True), (CROC, (3, 3), "villain", "S", True),
                     (STARKEY, (2, 4), "villain", "S", True)], hands={"hero": [RABBIT]})


def test_the_books_example_turn():
    """"She spends 3 Action Points to Play the White Rabbit next to her opponent's Crocodile.
    Then she spends her last 2 Action Points to Spin the White Rabbit 90 degrees clockwise."""
    s = example_position()
    storybook.apply(s, {"type": "play", "card": RABBIT, "cell": [4, 3]})
    assert s.ap == 2
    storybook.apply(s, {"type": "spin", "cell": [4, 3], "dir": "cw"})
    assert s.ap == 0
    events = storybook.apply(s, {"type": "end_turn"})
    bests = sorted((e["by"], e["card"], e["swords"], e["shields"])
                   for e in events_of(events, "bested"))
    assert bests == sorted([
        (CAT, CROC, 5, 4),      # "the Cheshire Cat has Bested the Crocodile (5 Swords vs. 4)"
        (RABBIT, CROC, 5, 4),   # "The White Rabbit has also Bested the Crocodile (5 vs. 4)"
        (CROC, CAT, 4, 4),      # "the Crocodile has Bested the Cheshire Cat (4 vs. 4)"
        (CROC, RABBIT, 4, 1),   # "and overwhelmed the White Rabbit (4 Swords vs. 1 Shield)"
    ])
    assert [(e["by"], e["card"]) for e in events_of(events, "overwhelmed")] == [(CROC, RABBIT)]
    assert [e["card"] for e in events_of(events, "team_capture")] == [CROC]
    assert sorted(e["card"] for e in events_of(events, "captured")) == [CROC, RABBIT]
    # "Alice gains 4 Plot Points ... Captain Hook gets 2 Plot Points"
    assert s.scores == {"hero": 4, "villain": 2}
    # "The Cheshire Cat and Gentleman Starkey both stay in play"
    assert card_at(s, (2, 3)) == CAT and card_at(s, (2, 4)) == STARKEY
    assert s.turn == "villain" and s.ap == 5  # "But now it's Captain Hook's turn..."


def test_five_ap_per_turn_and_unused_ap_is_lost():
    s = example_position()
    storybook.apply(s, {"type": "draw"})
    assert s.ap == 4
    storybook.apply(s, {"type": "end_turn"})
    storybook.apply(s, {"type": "end_turn"})
    assert s.turn == "hero" and s.ap == 5


def test_an_action_needs_enough_ap():
    s = position([(CAT, (2, 3), "hero", "N", True)], hands={"hero": [RABBIT]}, ap=2)
    assert code_of(s, {"type": "play", "card": RABBIT, "cell": [3, 3]}) == "not_enough_ap"
    with pytest.raises(IllegalAction) as err:
        storybook.apply(s, {"type": "play", "card": RABBIT, "cell": [3, 3]})
    assert err.value.message == "Play costs 3 action points and you have 2 left."
    assert s.ap == 2 and s.hands["hero"] == [RABBIT]


def test_no_draw_with_five_or_more_in_hand():
    """"If you already have 5 or more cards in your hand, you cannot take a Draw action.\""""
    hand = ["alice", "the_dormouse", "the_march_hare", "the_caterpillar", "the_dodo"]
    s = position([(CAT, (2, 3), "hero", "N", True)], hands={"hero": hand})
    assert code_of(s, {"type": "draw"}) == "hand_full"
    s = position([(CAT, (2, 3), "hero", "N", True)], hands={"hero": hand[:4]})
    storybook.apply(s, {"type": "draw"})
    assert len(s.hands["hero"]) == 5


def test_reveal_any_face_down_card_even_the_opponents():
    """"You may Reveal any face-down card, even your opponent's!" Its name then faces its
    controller."""
    s = position([(CAT, (2, 3), "hero", "N", True), (CROC, (3, 3), "villain", "E", False)])
    storybook.apply(s, {"type": "reveal", "cell": [3, 3]})
    assert s.board[(3, 3)] == (CROC, "villain", 2, True)  # facing S, toward the Villain
    assert s.ap == 4
    assert code_of(s, {"type": "reveal", "cell": [3, 3]}) == "already_face_up"


def test_spin_only_your_own_face_up_cards():
    """"You cannot Spin face-down cards, and you cannot Spin your opponent's cards.\""""
    s = position([(CAT, (2, 3), "hero", "N", True), (CROC, (3, 3), "villain", "S", True),
                  (RABBIT, (2, 2), "hero", "N", False)])
    assert code_of(s, {"type": "spin", "cell": [3, 3], "dir": "cw"}) == "not_your_card"
    assert code_of(s, {"type": "spin", "cell": [2, 2], "dir": "cw"}) == "face_down"
    storybook.apply(s, {"type": "spin", "cell": [2, 3], "dir": "ccw"})
    assert s.board[(2, 3)][2] == 3  # N turned left is W
    assert s.ap == 3


def test_slide_moves_until_adjacent_to_another_card():
    """"The card continues moving until it is adjacent to another card.\""""
    s = position([(CAT, (0, 3), "hero", "N", True), (CROC, (5, 3), "villain", "S", True)])
    storybook.apply(s, {"type": "slide", "cell": [0, 3], "dir": "E"})
    assert card_at(s, (4, 3)) == CAT and s.ap == 3


def test_slide_only_towards_other_cards():
    """"a card cannot Slide in a direction that will take it away from all of the other
    cards in play.\""""
    s = position([(CAT, (2, 3), "hero", "N", True), (CROC, (3, 3), "villain", "S", True)])
    assert code_of(s, {"type": "slide", "cell": [2, 3], "dir": "W"}) == "away_from_cards"
    assert code_of(s, {"type": "slide", "cell": [2, 3], "dir": "E"}) == "blocked"
    assert code_of(s, {"type": "slide", "cell": [3, 3], "dir": "N"}) == "not_your_card"


def test_slide_face_down_and_past_a_neighbour():
    s = position([(CAT, (2, 3), "hero", "N", False), (CROC, (3, 3), "villain", "S", True),
                  (STARKEY, (3, 1), "villain", "S", True)])
    # Moving south, the cat leaves the Crocodile and stops next to Starkey.
    storybook.apply(s, {"type": "slide", "cell": [2, 3], "dir": "S"})
    assert card_at(s, (2, 1)) == CAT and s.board[(2, 1)][3] is False


def test_the_only_card_cannot_slide():
    """"If there is only one card in play, it cannot Slide.\""""
    s = position([(CAT, (2, 3), "hero", "N", True)])
    assert code_of(s, {"type": "slide", "cell": [2, 3], "dir": "E"}) == "only_card"


def test_play_and_hide_go_next_to_any_card_with_the_name_toward_you():
    s = position([(CROC, (3, 3), "villain", "S", True)], hands={"hero": [CAT, RABBIT]}, ap=6)
    assert code_of(s, {"type": "play", "card": CAT, "cell": [5, 5]}) == "not_adjacent"
    assert code_of(s, {"type": "play", "card": CAT, "cell": [3, 3]}) == "cell_taken"
    assert code_of(s, {"type": "play", "card": CAT, "cell": [2, 3], "facing": "S"}) == \
        "wrong_facing"
    assert code_of(s, {"type": "play", "card": STARKEY, "cell": [2, 3]}) == "card_in_play" or \
        code_of(s, {"type": "play", "card": STARKEY, "cell": [2, 3]}) == "not_in_hand"
    storybook.apply(s, {"type": "play", "card": CAT, "cell": [2, 3]})  # next to an enemy card
    storybook.apply(s, {"type": "hide", "card": RABBIT, "cell": [2, 2]})
    assert s.board[(2, 3)] == (CAT, "hero", 0, True)
    assert s.board[(2, 2)] == (RABBIT, "hero", 0, False)
    assert s.ap == 0


def test_face_down_and_friendly_cards_do_not_battle():
    """"Only face-up enemy cards can battle, face-down and allied cards do not battle.\""""
    s = position([(CROC, (3, 3), "villain", "S", True), (RABBIT, (4, 3), "hero", "E", False),
                  (CAT, (2, 3), "hero", "N", True), (STARKEY, (3, 4), "villain", "S", True)])
    events = storybook.apply(s, {"type": "end_turn"})
    assert all(e["card"] != RABBIT and e.get("by") != RABBIT for e in events_of(events, "bested"))
    assert not [e for e in events_of(events, "bested") if e["by"] == CROC and e["card"] == STARKEY]


def test_diagonal_cards_are_not_adjacent():
    """"Cards that touch only at a corner (diagonally) are not adjacent.\""""
    s = position([(CROC, (3, 3), "villain", "S", True), (RABBIT, (4, 4), "hero", "E", True)])
    assert events_of(storybook.apply(s, {"type": "end_turn"}), "bested") == []


def test_two_cards_can_capture_each_other():
    """"All battles occur at the same time, so it is possible for two characters to capture
    each other on the same turn!\""""
    strong = {"id": "a", "name": "A", "side": "hero", "team": "t", "points": 1, "leader": False,
              "edges": {"top": [4, 1], "right": [4, 1], "bottom": [4, 1], "left": [4, 1]}}
    evil = dict(strong, id="b", name="B", side="villain")
    s = storybook.new_game({}, 1, {"board": [
        {"card": "a", "cell": [1, 1], "owner": "hero"},
        {"card": "b", "cell": [2, 1], "owner": "villain"}]}, [strong, evil])
    events = storybook.apply(s, {"type": "end_turn"})
    assert sorted(e["card"] for e in events_of(events, "captured")) == ["a", "b"]
    assert s.scores == {"hero": 1, "villain": 1} and s.board == {}


def test_bested_once_is_not_captured():
    """"Note that the Cheshire Cat was not captured despite being Bested by the Crocodile,
    because it was Bested by only one opponent and it was not overwhelmed.\""""
    s = position([(CAT, (2, 3), "hero", "N", True), (CROC, (3, 3), "villain", "S", True)])
    events = storybook.apply(s, {"type": "end_turn"})
    assert [(e["by"], e["card"]) for e in events_of(events, "bested")] == [
        (CROC, CAT), (CAT, CROC)] or len(events_of(events, "bested")) == 2
    assert events_of(events, "captured") == []


def test_first_to_ten_points_wins():
    s = position([(CAT, (2, 3), "hero", "N", True), (CROC, (3, 3), "villain", "S", True),
                  (RABBIT, (4, 3), "hero", "E", True)], scores={"hero": 6, "villain": 0})
    events = storybook.apply(s, {"type": "end_turn"})
    assert s.status == "finished" and s.winner == "hero" and s.scores["hero"] == 10
    assert events_of(events, "game_over")[0]["winner"] == "hero"
    assert code_of(s, {"type": "draw"}) == "game_over"


def test_both_reach_ten_most_points_wins_and_a_tie_goes_to_overtime():
    """"the player who has the most Plot Points wins. Overtime - If still tied, keep playing
    until one player achieves a higher Plot Point total at the end of any turn.\""""
    s = position([(CAT, (2, 3), "hero", "N", True), (CROC, (3, 3), "villain", "S", True),
                  (RABBIT, (4, 3), "hero", "E", True)], scores={"hero": 6, "villain": 8})
    storybook.apply(s, {"type": "end_turn"})  # hero +4 = 10, villain +2 = 10
    assert s.scores == {"hero": 10, "villain": 10}
    assert s.status == "ongoing" and s.overtime
    storybook.apply(s, {"type": "end_turn"})
    assert s.status == "ongoing"  # still tied at the end of this turn
    s.scores["hero"] += 1  # a capture in overtime
    storybook.apply(s, {"type": "end_turn"})
    assert s.status == "finished" and s.winner == "hero"


def test_team_game_targets_fifteen_with_a_combined_pool_and_turn_order():
    """"Capture a total of 15 Plot Points"; "Villain player A goes first, Hero player 1 goes
    second, Villain player B third, and Hero player 2 last.\""""
    s = storybook.new_game({"players": 4}, 3)
    assert s.target == 15
    while s.phase != "play":
        storybook.apply(s, storybook.legal_actions(s)[0])
    order = []
    for _ in range(5):
        order.append(s.turn)
        storybook.apply(s, {"type": "end_turn"})
    assert order == ["villain_a", "hero_1", "villain_b", "hero_2", "villain_a"]


def test_teams_cannot_mix_sides():
    with pytest.raises(ScenarioError) as err:
        storybook.new_game({"teams": {"hero": "team_captain_hook"}}, 1)
    assert err.value.field == "options.teams.hero"


def test_setup_follows_the_book():
    """Leader face up in the middle; the Hero hides 2 in the L; the Villain plays 2; the
    Villain moves first."""
    s = storybook.new_game({}, 5)
    assert s.board == {(3, 3): ("alice", "hero", 0, True)}
    assert s.phase == "choose_plot_twist"
    assert len(s.hands["hero"]) == 4 and len(s.hands["villain"]) == 4
    choices = [a["card"] for a in storybook.legal_actions(s)]
    assert len(choices) == 4  # "the two that match your Team and the two that match your Ally"
    storybook.apply(s, {"type": "choose_plot_twist", "card": choices[0]})
    storybook.apply(s, {"type": "choose_plot_twist",
                        "card": storybook.legal_actions(s)[0]["card"]})
    assert s.phase == "setup_hide" and s.turn == "hero"
    hand = list(s.hands["hero"])
    assert code_of(s, {"type": "hide", "card": hand[0], "cell": [4, 4]}) == "not_setup_cell"
    storybook.apply(s, {"type": "hide", "card": hand[0], "cell": [2, 3]})
    storybook.apply(s, {"type": "hide", "card": hand[1], "cell": [3, 2]})
    assert s.phase == "setup_play" and s.turn == "villain"
    vh = list(s.hands["villain"])
    assert code_of(s, {"type": "hide", "card": vh[0], "cell": [3, 4]}) == "wrong_phase"
    storybook.apply(s, {"type": "play", "card": vh[0], "cell": [3, 4]})
    storybook.apply(s, {"type": "play", "card": vh[1], "cell": [4, 3]})
    assert s.phase == "play" and s.turn == "villain" and s.ap == 5
    assert s.board[(2, 3)][3] is False and s.board[(3, 4)][3] is True


def test_the_opponent_never_sees_a_face_down_card_or_the_chosen_plot_twist():
    s = storybook.new_game({}, 5)
    storybook.apply(s, {"type": "choose_plot_twist", "card": "curiouser_and_curiouser"})
    storybook.apply(s, storybook.legal_actions(s)[0])
    hand = list(s.hands["hero"])
    storybook.apply(s, {"type": "hide", "card": hand[0], "cell": [2, 3]})
    seen = repr(storybook.view(s, "villain")) + repr(storybook.view(s, None))
    assert hand[0] not in seen and "curiouser_and_curiouser" not in seen
    mine = storybook.view(s, "hero")
    assert hand[0] in repr(mine) and mine["plot_twists"]["hero"]["card"] == \
        "curiouser_and_curiouser"


def test_pinnacle_of_good_form_needs_the_opponent_to_have_more_cards_in_play():
    """"Peter Pan's Pinnacle of Good Form can only be played if your opponent has more cards
    in play than you have.\""""
    opts = {"teams": {"hero": "team_peter_pan"}, "allies": {"hero": "ally_tinker_bell",
                                                            "villain": "ally_mad_hatter"}}
    twist = {"hero": "pinnacle_of_good_form"}
    even = position([("peter_pan", (3, 3), "hero", "N", True),
                     (CROC, (3, 4), "villain", "S", True)], options=opts, twists=twist)
    assert code_of(even, {"type": "plot_twist", "card": "pinnacle_of_good_form"}) == \
        "requirement_not_met"
    more = position([("peter_pan", (3, 3), "hero", "N", True),
                     (CROC, (3, 4), "villain", "S", True), (STARKEY, (4, 3), "villain", "S", True)],
                    options=opts, twists=twist)
    events = storybook.apply(more, {"type": "plot_twist", "card": "pinnacle_of_good_form"})
    assert more.ap == 8 and events[0]["type"] == "plot_twist_played"
    # "you can only use your Plot Twist once per game"
    assert code_of(more, {"type": "plot_twist", "card": "pinnacle_of_good_form"}) == \
        "plot_twist_used"


def test_come_to_the_end_is_an_hourglass_played_on_the_opponents_turn():
    """"the Queen of Hearts Come to the End can be played any time your opponent has two or
    more cards adjacent to the Queen of Hearts." It has a lasting effect."""
    opts = {"teams": {"villain": "team_queen_of_hearts", "hero": "team_peter_pan"},
            "allies": {"hero": "ally_tinker_bell", "villain": "ally_mad_hatter"}}
    twist = {"villain": "come_to_the_end"}
    one = position([("queen_of_hearts", (3, 3), "villain", "S", True),
                    ("peter_pan", (2, 3), "hero", "N", True)], options=opts, twists=twist)
    assert code_of(one, {"type": "plot_twist", "card": "come_to_the_end"}) == \
        "requirement_not_met"
    two = position([("queen_of_hearts", (3, 3), "villain", "S", True),
                    ("peter_pan", (2, 3), "hero", "N", True),
                    ("wendy_darling", (4, 3), "hero", "N", False)], options=opts, twists=twist)
    assert two.turn == "hero"  # the Hero's turn: the Villain plays it anyway
    assert storybook.actor(two, {"type": "plot_twist", "card": "come_to_the_end"}) == "villain"
    storybook.apply(two, {"type": "plot_twist", "card": "come_to_the_end"})
    assert [e["kind"] for e in two.lasting] == ["off_with_their_heads"]
    events = storybook.apply(two, {"type": "end_turn"})
    queen_bests = [e for e in events_of(events, "bested") if e["by"] == "queen_of_hearts"]
    captured = [e["card"] for e in events_of(events, "captured")]
    for best in queen_bests:
        assert best["card"] in captured
    assert two.lasting == []  # "until the effect ends": the end of the next battle


def test_a_non_hourglass_twist_waits_for_your_turn():
    opts = {"teams": {"hero": "team_peter_pan"}, "allies": {"hero": "ally_tinker_bell",
                                                            "villain": "ally_mad_hatter"}}
    s = position([("peter_pan", (3, 3), "hero", "N", True), (CROC, (3, 4), "villain", "S", True),
                  (STARKEY, (4, 3), "villain", "S", True)], options=opts, turn="villain",
                 twists={"hero": "pinnacle_of_good_form"})
    assert code_of(s, {"type": "plot_twist", "card": "pinnacle_of_good_form"}) == "not_your_turn"


def test_the_team_plays_only_one_plot_twist():
    """"Even though you each get one plot twist, your team may only play ONE.\""""
    s = storybook.new_game({"players": 4, "plot_twists": {
        "hero_1": "pinnacle_of_good_form", "hero_2": "curiouser_and_curiouser"}}, 2,
        {"board": [{"card": "peter_pan", "cell": [3, 3], "owner": "hero", "seat": "hero_1"},
                   {"card": CROC, "cell": [3, 4], "owner": "villain"},
                   {"card": STARKEY, "cell": [4, 3], "owner": "villain"}],
         "turn": "hero_1", "scores": {"hero": 0, "villain": 3}})
    storybook.apply(s, {"type": "plot_twist", "card": "pinnacle_of_good_form"})
    storybook.apply(s, {"type": "end_turn"})
    storybook.apply(s, {"type": "end_turn"})
    assert s.turn == "hero_2"
    assert code_of(s, {"type": "plot_twist", "card": "curiouser_and_curiouser"}) == \
        "team_plot_twist_used"


def test_physical_mode_learns_a_card_when_it_is_placed():
    s = storybook.new_game({"mode": "physical"}, 4)
    assert s.hands["hero"] == [None] * 4
    storybook.apply(s, storybook.legal_actions(s)[0])
    storybook.apply(s, storybook.legal_actions(s)[0])
    assert code_of(s, {"type": "hide", "card": "the_crocodile", "cell": [2, 3]}) == \
        "not_your_card"
    storybook.apply(s, {"type": "hide", "card": CAT, "cell": [2, 3]})
    assert s.hands["hero"] == [None] * 3 and CAT not in s.pool["hero"]
    assert code_of(s, {"type": "hide", "card": CAT, "cell": [3, 2]}) == "card_in_play"


def test_digital_mode_is_the_same_game_for_the_same_seed():
    a, b = storybook.new_game({}, 11), storybook.new_game({}, 11)
    assert storybook.to_dict(a) == storybook.to_dict(b)
    assert storybook.to_dict(storybook.new_game({}, 12))["seats"] != storybook.to_dict(a)["seats"]


def test_a_rejected_action_changes_nothing():
    s = example_position()
    before = storybook.to_dict(s)
    for bad in ({"type": "play", "card": RABBIT, "cell": [6, 6]}, {"type": "spin", "cell": [3, 3],
                "dir": "cw"}, {"type": "slide", "cell": [9, 9], "dir": "N"}, {"type": "fly"},
                {"type": "play", "card": RABBIT, "cell": [4, 3], "facing": "E"}):
        with pytest.raises(IllegalAction):
            storybook.apply(s, bad)
        assert storybook.to_dict(s) == before


def test_catalog_errors_name_the_field_as_a_json_path():
    bad = {"id": "x", "name": "X", "side": "hero", "team": "t", "points": 1, "leader": False,
           "edges": {"top": [1, 1], "right": [1, 1], "bottom": [1, 1], "left": [1, "many"]}}
    with pytest.raises(ScenarioError) as err:
        storybook.new_game({}, 1, None, [bad])
    assert err.value.field == "cards[0].edges.left"


def test_catalog_has_the_three_sets_as_the_book_counts_them():
    cat = storybook.load_catalog()
    for team in ("team_peter_pan", "team_captain_hook", "team_alice", "team_queen_of_hearts",
                 "team_aladdin", "team_forty_thieves"):
        members = [c for c in cat.cards.values() if c[3] == team]
        assert len(members) == 10 and len([c for c in members if c[5]]) == 1
    for ally in ("ally_tinker_bell", "ally_mad_hatter", "ally_sinbad"):
        members = [c for c in cat.cards.values() if c[3] == ally]
        assert sorted(c[2] for c in members) == ["hero"] * 5 + ["villain"] * 5
        assert len([t for t in cat.twists.values() if t["team"] == ally]) == 4
    names = " ".join(c[1] for c in cat.cards.values())
    for who in ("Peter Pan", "Alice", "Queen of Hearts", "Captain Hook", "Tinker Bell",
                "Mad Hatter", "Wendy", "Lost Boys", "Cheshire Cat", "White Rabbit", "Crocodile",
                "Gentleman Starkey"):
        assert who in names
    assert cat.twists["pinnacle_of_good_form"]["requires"] == {
        "kind": "opponent_more_cards_in_play"}
    assert cat.twists["come_to_the_end"]["hourglass"] is True


# ---------------------------------------------------------------- scenario setups against sides

def setup_error(setup, options=None):
    """The field a scenario setup is refused for."""
    with pytest.raises(ScenarioError) as err:
        storybook.new_game(options or {}, 7, setup)
    return err.value.field


def test_setup_decks_set_the_draw_order():
    # "Draw the top card from your deck and add it to your hand": a scenario fixes the deck,
    # the first card listed on top.
    s = storybook.new_game({}, 7, {"board": [{"card": "alice", "cell": [3, 3]}],
                                   "decks": {"hero": ["the_dodo", "the_gryphon"]},
                                   "turn": "hero"})
    assert s.decks["hero"] == ["the_gryphon", "the_dodo"]  # drawn from the end of the list
    assert storybook.apply(s, {"type": "draw"})[0]["card"] == "the_dodo"
    assert storybook.apply(s, {"type": "draw"})[0]["card"] == "the_gryphon"
    assert code_of(s, {"type": "draw"}) == "deck_empty"
    # The other seat's deck is still its remaining cards, shuffled by the seed.
    assert sorted(s.decks["villain"]) == sorted(storybook.load_catalog().deck_for(
        "team_captain_hook", "ally_tinker_bell", "villain"))


def test_the_same_setup_decks_give_the_same_game_whatever_the_seed():
    setup = {"board": [{"card": "alice", "cell": [3, 3]}], "turn": "hero",
             "decks": {"hero": ["the_dodo", "the_gryphon", "tweedledum"]}}
    draws = []
    for seed in (1, 2):
        s = storybook.new_game({}, seed, dict(setup))
        draws.append([storybook.apply(s, {"type": "draw"})[0]["card"] for _ in range(3)])
    assert draws[0] == draws[1] == ["the_dodo", "the_gryphon", "tweedledum"]


def test_setup_decks_are_checked_against_sides_and_places():
    board = [{"card": "alice", "cell": [3, 3]}]
    # A Villain card in a Hero deck.
    assert setup_error({"board": board, "decks": {"hero": ["the_crocodile"]}}) == \
        "setup.decks.hero[0]"
    # A card already on the board, in a hand, or twice in the deck.
    assert setup_error({"board": board, "decks": {"hero": ["alice"]}}) == "setup.decks.hero[0]"
    assert setup_error({"board": board, "hands": {"hero": ["the_dodo"]},
                        "decks": {"hero": ["the_gryphon", "the_dodo"]}}) == "setup.decks.hero[1]"
    assert setup_error({"board": board, "decks": {"hero": ["the_dodo", "the_dodo"]}}) == \
        "setup.decks.hero[1]"
    assert setup_error({"board": board, "decks": {"nobody": []}}) == "setup.decks.nobody"
    assert setup_error({"board": board, "decks": {"hero": "the_dodo"}}) == "setup.decks.hero"
    assert setup_error({"board": board, "decks": {"hero": [["the_dodo"]]}}) == \
        "setup.decks.hero[0]"
    assert setup_error({"board": board, "decks": ["the_dodo"]}) == "setup.decks"


def test_setup_decks_in_physical_mode_are_the_unseen_cards():
    # Physical mode has no draw order (the table reads a card when it is placed): the deck
    # given is the set of cards the seat may still hold, and a counted hand comes out of it.
    s = storybook.new_game({"mode": "physical"}, 7, {
        "board": [{"card": "alice", "cell": [3, 3]}], "hands": {"hero": 1},
        "decks": {"hero": ["the_gryphon", "the_dodo"]}, "turn": "hero"})
    assert s.pool["hero"] == ["the_dodo", "the_gryphon"]
    assert s.hands["hero"] == [None] and s.decks["hero"] == [None]
    storybook.apply(s, {"type": "play", "card": "the_gryphon", "cell": [3, 4]})
    assert s.pool["hero"] == ["the_dodo"]


def test_a_setup_board_owner_must_be_the_cards_side():
    # "Villain cards have a black border ... Hero cards have a white border": a card's side
    # is printed on it; the Villain never controls the White Rabbit.
    assert setup_error({"board": [{"card": RABBIT, "cell": [3, 3], "owner": "villain"}]}) == \
        "setup.board[0].owner"
    s = storybook.new_game({}, 7, {"board": [{"card": RABBIT, "cell": [3, 3],
                                              "owner": "hero"}]})
    assert s.board[(3, 3)][1] == "hero"


def test_a_setup_hand_holds_only_the_seats_side():
    assert setup_error({"board": [{"card": "alice", "cell": [3, 3]}],
                        "hands": {"hero": ["the_dodo", CROC]}}) == "setup.hands.hero[1]"
    assert setup_error({"board": [{"card": "alice", "cell": [3, 3]}],
                        "hands": {"villain": [RABBIT]}}) == "setup.hands.villain[0]"
    assert setup_error({"board": [{"card": "alice", "cell": [3, 3]}],
                        "hands": {"hero": [{"card": RABBIT}]}}) == "setup.hands.hero[0]"


def test_setup_plot_twists_are_among_the_seats_four():
    # "Take the two Plot Twist cards that match your Team and the two that match your Ally.
    # Choose one of your four Plot Twist cards": with Alice and the Mad Hatter, the Hero
    # chooses among Alice's two and the Mad Hatter's two.
    board = [{"card": "alice", "cell": [3, 3]}]
    assert setup_error({"board": board, "plot_twists": {"hero": "come_to_the_end"}}) == \
        "setup.plot_twists.hero"  # a Villain twist
    assert setup_error({"board": board, "plot_twists": {"hero": "pinnacle_of_good_form"}}) == \
        "setup.plot_twists.hero"  # Peter Pan's, a team the Hero did not choose
    assert setup_error({"board": board, "plot_twists": {"hero": ["unbirthday"]}}) == \
        "setup.plot_twists.hero"
    assert setup_error({"board": board, "plot_twists": {"villain_a": "walk_the_plank"}}) == \
        "setup.plot_twists.villain_a"
    assert setup_error({"board": board, "plot_twists": "unbirthday"}) == "setup.plot_twists"
    for twist in ("curiouser_and_curiouser", "down_the_rabbit_hole", "change_places",
                  "unbirthday"):
        s = storybook.new_game({}, 7, {"board": board, "plot_twists": {"hero": twist}})
        assert s.twists["hero"] == [twist, False]
