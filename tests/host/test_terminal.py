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


def test_the_last_line_says_how_the_game_ended_in_words():
    # What `fairytable run` prints last (and the web table's terminal when a game ends):
    # the ending and its seats by name, never "winner p2; scores {'p1': ...}".
    from types import SimpleNamespace
    from host.session import TableSession
    from shared_rules import bots
    from shared_rules.engine import Match
    match = Match("fightclub", None, 5)
    game = table_game("fightclub")
    said = TableSession.result_words(SimpleNamespace(match=match, game=game))
    assert said == ("The game stopped after 0 actions, before its end: the same command "
                    "goes on with it.")
    while match.engine.status(match.state) == "ongoing":
        seat = match.engine.actors(match.state)[0]
        match.apply(bots.choose("greedy", match.engine, match.state, seat, 5))
    said = TableSession.result_words(SimpleNamespace(match=match, game=game))
    winner = match.engine.result(match.state)["winner"]
    assert said.startswith("Game over") and said.endswith(", after %d actions." %
                                                           len(match.actions))
    assert game.face.seat_name(match.state, winner) in said
    assert "p1" not in said and "p2" not in said and "{" not in said
