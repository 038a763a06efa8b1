"""The host's line for each action: a game the rules had to end by the engine's own rule
says why it ended (a Fight Club dead end), other endings as before."""

from host.session_log import describe
from tests.shared_rules.test_fightclub_bots import dead_setup, position


def test_a_dead_end_says_why_the_game_ended():
    s = position(dead_setup(), players=4)
    assert s.end_reason == "dead_end"
    line = describe({"type": "end_actions"}, [{"type": "game_over", "reason": "dead_end",
                                                 "winner": s.winner}])
    assert line == ("end_actions game over: nobody wins (no contract in play can ever be "
                    "completed now: the game is scored here (fightclub.py's own rule; the "
                    "book has none for it))")


def test_other_endings_are_said_as_before():
    assert describe({"type": "complete"}, [{"type": "game_over", "reason": "four_left",
                                            "winner": "p2"}]) == "complete game over: p2 wins"
