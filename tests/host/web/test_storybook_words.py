"""Storybook Battles in words: the sides are the Heroes and the Villains, in every capture and
every ending (it once said "the Heros win"); a face-down card slid is told without its name
(its event names none: the words once failed on it)."""

from host import games
from host.games.storybook.interpreter import StorybookTable
from host.games.storybook.scenes import slide_targets
from shared_rules.engine import Match
from shared_rules.playout import random_game
from storybook_helpers import position


def test_captures_and_endings_name_the_heroes_and_the_villains():
    face = games.table_game("storybook").face
    said = []
    endings = set()
    for seed in range(1, 9):
        def step(state, action, events):
            said.append(face.describe(state, action, events))
        state, _ = random_game("storybook", {}, seed, on_step=step)
        endings.add(face.ending(state))
    words = " ".join(said)
    assert "The Heroes capture " in words or "The Villains capture " in words, words[:2000]
    assert "Heros" not in words and "Villainss" not in words
    assert " slides a face-down card from " in words
    assert any(e.startswith(("Game over: the Heroes win, ", "Game over: the Villains win, "))
               for e in endings), endings
    assert not [e for e in endings if "Heros" in e or "Villainss" in e], endings


def test_a_card_picked_without_the_action_points_says_why_and_lights_no_slide():
    """With 2 action points a card of the hand goes nowhere (a play costs 3): the page says
    so instead of "click a lit cell"; with 1 a lifted card only goes back (a slide costs 2)."""
    face = games.table_game("storybook").face
    s = position([("the_cheshire_cat", (2, 3), "hero", "N", True)],
                 hands={"hero": ["the_white_rabbit"]}, ap=2)
    match = Match("storybook", {}, 1)
    match.state = s
    table = StorybookTable(match)
    for cell, ids in table.expected().items():     # the board laid out as the game has it
        table.observe(cell, ids)
    assert [c["id"] for c in face.you(match, table, "hero")["hand"]] == ["the_white_rabbit"]
    card = face.you(match, table, "hero")["hand"][0]
    assert card["targets"] == [] and card["why"] == (
        "a card costs 3 action points to play and you have 2 left")
    assert face.you(match, table, "hero")["slides"] == {"2,3": [
        list(c) for c in slide_targets(s, (2, 3))]}
    s.ap = 1
    assert face.you(match, table, "hero")["slides"] == {}
    table.observed.pop((2, 3), None)        # the Cheshire Cat lifted off the board
    lifted = [c for c in face.you(match, table, "hero")["hand"] if c["id"] ==
              "the_cheshire_cat"]
    assert lifted and lifted[0]["targets"] == [[2, 3]]


def test_the_banner_offers_a_choice_and_a_spin_names_its_card():
    """The turn's banner says what the seat may do as a choice ("... or end the turn"), not
    as a list of chores; a spin names the card spun (it lies face up)."""
    face = games.table_game("storybook").face
    s = position([("the_cheshire_cat", (2, 3), "hero", "N", True)],
                 hands={"hero": ["the_white_rabbit"]}, ap=5)
    match = Match("storybook", {}, 1)
    match.state = s
    banner = face.banner(match, StorybookTable(match), "hero")
    assert banner.startswith("Your turn: ") and " or " in banner and " and " not in banner, \
        banner
    events = match.apply({"type": "spin", "cell": [2, 3], "dir": "cw"})
    assert "Hero spins The Cheshire Cat on [2, 3]." in face.describe(
        match.state, match.actions[-1], events), face.describe(match.state, None, events)


def test_a_plot_twist_greyed_out_says_why_beside_it():
    """The Pinnacle of Good Form is played only when the opponent has more cards in play:
    greyed out until then, with the card's condition said (a phone shows no tooltips)."""
    opts = {"teams": {"hero": "team_peter_pan"}, "allies": {"hero": "ally_tinker_bell",
                                                            "villain": "ally_mad_hatter"}}
    s = position([("peter_pan", (3, 3), "hero", "N", True),
                  ("the_crocodile", (3, 4), "villain", "S", True)], options=opts,
                 twists={"hero": "pinnacle_of_good_form"})
    match = Match("storybook", opts, 1)
    match.state = s
    face = games.table_game("storybook").face
    twist = [c for c in face.you(match, StorybookTable(match), "hero")["choices"]
             if c["control"].get("name") == "twist"][0]
    assert not twist["enabled"] and twist["why"].startswith(
        "You cannot play Pinnacle of Good Form now: "), twist
