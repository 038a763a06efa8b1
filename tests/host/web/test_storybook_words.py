"""Storybook Battles in words: the sides are the Heroes and the Villains, in every capture and
every ending (it once said "the Heros win"); a face-down card slid is told without its name
(its event names none: the words once failed on it)."""

from host import games
from shared_rules.playout import random_game


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
