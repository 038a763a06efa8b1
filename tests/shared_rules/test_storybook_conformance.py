"""Storybook Battles against the conformance kit: random games to the end, every contract check."""

import pytest

from conformance import check_random_games

VARIANTS = {
    "duel": {"max_turns": 200},
    "team": {"players": 4, "max_turns": 200},
    "physical": {"mode": "physical", "max_turns": 200},
    "unbounded": {"grid": None, "max_turns": 120},
}


@pytest.mark.parametrize("variant,games", [("duel", 1000), ("team", 300), ("physical", 400),
                                           ("unbounded", 300)])
def test_thousands_of_random_games_end_and_replay(variant, games):
    finished = check_random_games("storybook", VARIANTS[variant], range(games))
    assert finished == games


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_step_keeps_the_contract(variant):
    # Per step: save/load, copy, undo, rejected actions, completeness of legal_actions, no leak.
    seeds = range(100, 104) if variant == "duel" else range(200, 202)
    assert check_random_games("storybook", VARIANTS[variant], seeds, deep=True) == len(seeds)
