"""The terminal view and its typed inputs."""

import pytest

from host import terminal
from host.games.storybook.scenes import grid_scenes
from host.games import table_game
from host.games.storybook.terminal import render
from shared_rules import storybook


def test_the_view_shows_cards_scores_and_hides_face_down_names():
    s = storybook.new_game({}, 1, {"board": [
        {"card": "the_cheshire_cat", "cell": [2, 3], "owner": "hero"},
        {"card": "the_crocodile", "cell": [3, 3], "owner": "villain", "face_up": False}],
        "turn": "hero", "scores": {"hero": 4, "villain": 2}})
    text = render(table_game("storybook").face, s, grid_scenes(s), colour=False)
    row3 = [line for line in text.splitlines() if line.startswith("3 ")][0]
    assert "HCh^" in row3 and "V##v" in row3 and "Cr" not in row3
    # The score and whose turn in words, as the web table's header says them.
    assert "Heroes 4 · Villains 2 plot points" in text and "Hero's turn" in text
    assert "phase" not in text and "AP" not in text


def test_typed_commands_are_parsed_or_refused_in_words():
    assert terminal.parse_command("place the_dodo 2 3") == ("hands", "place",
                                                             ("the_dodo", (2, 3)))
    assert terminal.parse_command("tap 1 1") == ("hands", "tap", ((1, 1),))
    assert terminal.parse_command("hero end_turn") == ("button", "hero", "end_turn")
    # A seat's card reader (heroes): cards are laid on it and lifted off it.
    assert terminal.parse_command("place heroes-card:axe_attack seat 1") == (
        "hands", "place", ("heroes-card:axe_attack", ("seat", 1)))
    assert terminal.parse_command("lift seat 2") == ("hands", "lift", (("seat", 2),))
    # Its pad (a game whose seats choose by taps and holds on their reader reads them).
    assert terminal.parse_command("tap seat 1") == ("hands", "tap", (("seat", 1),))
    assert terminal.parse_command("hold seat 3") == ("hands", "hold", (("seat", 3),))
    for bad, words in (("place x 1", "usage"), ("tap a b", "two whole numbers"),
                       ("tap seat x", "seat N"), ("lift seat x", "seat N"),
                       ("fly me to the moon", "unknown command")):
        with pytest.raises(ValueError) as err:
            terminal.parse_command(bad)
        assert words in str(err.value)
