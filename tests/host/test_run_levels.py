"""`fairytable run --level`: the bots' level for every bot (--level hard) or seat by seat
(--level 2=hard, seats counted from 1 as --bots counts them), the older --bot-kind, the levels
a game that resumes keeps, and who plays each seat in words. The refusals are in
test_run_options.py with every other option's."""

import os
import subprocess
import sys

from host import run as run_command
from mpy import REPO

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
ROYALE = ["red", "blue", "green"]
STORYBOOK = ["villain", "hero"]


def bots(argv, seats, journalled=None):
    """{seat: level} of the bots `fairytable run ARGV` puts in a game of these seats."""
    return run_command.bots_of(run_command.parse_args(argv), seats, journalled)


def test_the_bots_play_at_the_normal_level_unless_told():
    assert bots(["--bots", "2"], ROYALE) == {"blue": "normal", "green": "normal"}
    assert bots(["--bots", "0"], ROYALE) == {}
    assert bots(["--headless", "--bots", "2"], STORYBOOK) == {"villain": "normal",
                                                              "hero": "normal"}


def test_a_level_for_every_bot_and_a_seats_own_level_wins():
    assert bots(["--bots", "2", "--level", "hard"], ROYALE) == {"blue": "hard", "green": "hard"}
    assert bots(["--bots", "2", "--level", "3=easy"], ROYALE) == {"blue": "normal",
                                                                  "green": "easy"}
    for argv in (["--level", "hard", "--level", "2=easy"], ["--level", "2=easy", "--level",
                                                            "hard"]):
        assert bots(["--bots", "2"] + argv, ROYALE) == {"blue": "easy", "green": "hard"}, argv
    # The same level given twice for a seat is no contradiction.
    assert bots(["--bots", "1", "--level", "3=easy", "--level", "3=easy"], ROYALE) == \
        {"green": "easy"}
    # A level for every bot with no bot at all: nothing to do, nothing refused.
    assert bots(["--level", "hard"], ROYALE) == {}


def test_the_older_bot_kind_still_works():
    assert bots(["--bots", "1", "--bot-kind", "greedy"], STORYBOOK) == {"hero": "normal"}
    assert bots(["--bots", "1", "--bot-kind", "random"], STORYBOOK) == {"hero": "random"}
    # A seat's own --level wins over it, as over --level LEVEL.
    assert bots(["--bots", "2", "--bot-kind", "random", "--level", "3=hard"], ROYALE) == \
        {"blue": "random", "green": "hard"}


def test_a_resumed_game_keeps_its_bots_levels_unless_the_command_line_gives_one():
    journalled = {"blue": "hard", "green": "easy"}
    assert bots(["--bots", "2"], ROYALE, journalled) == journalled
    assert bots(["--bots", "2", "--level", "2=normal"], ROYALE, journalled) == \
        {"blue": "normal", "green": "easy"}
    assert bots(["--bots", "2", "--level", "normal"], ROYALE, journalled) == \
        {"blue": "normal", "green": "normal"}
    assert bots(["--bots", "2", "--bot-kind", "random"], ROYALE, journalled) == \
        {"blue": "random", "green": "random"}
    # A person takes over a bot's seat; a bot takes over a person's at the normal level.
    assert bots(["--bots", "1"], ROYALE, journalled) == {"green": "easy"}
    assert bots(["--bots", "3"], ROYALE, journalled) == {"red": "normal", "blue": "hard",
                                                         "green": "easy"}


def test_old_journals_bot_kinds_resume_as_their_levels():
    """A journal of before the levels names the kinds "greedy" and "random"."""
    assert bots(["--bots", "2"], STORYBOOK, {"villain": "random", "hero": "greedy"}) == \
        {"villain": "random", "hero": "normal"}
    # A kind no host knows (a journal from a later version): the usual level.
    assert bots(["--bots", "1"], STORYBOOK, {"hero": "grandmaster"}) == {"hero": "normal"}


def test_who_plays_says_the_levels_only_when_a_bot_is_not_normal():
    who = run_command.who_plays
    seats = ["red", "blue", "green", "yellow"]
    # The usual case, as before the levels.
    assert who(seats, {"blue": "normal", "green": "normal", "yellow": "normal"}) == \
        "a person plays seat 1, bots seats 2, 3 and 4"
    assert who(seats, {"yellow": "normal"}) == "people play seats 1, 2 and 3, a bot seat 4"
    assert who(seats, {}) == "people play every seat"
    assert who(seats, dict.fromkeys(seats, "normal")) == "bots play every seat"
    assert who(["p1"], {"p1": "normal"}) == "a bot plays"
    # A bot of another level: every bot's level is said.
    assert who(seats, {"blue": "hard"}) == "people play seats 1, 3 and 4, a hard bot seat 2"
    assert who(seats, {"blue": "easy", "green": "normal", "yellow": "easy"}) == \
        "a person plays seat 1, easy bots seats 2 and 4, a normal bot seat 3"
    assert who(seats, dict.fromkeys(seats, "hard")) == "hard bots play every seat"
    assert who(["p1"], {"p1": "easy"}) == "an easy bot plays"
    assert who(STORYBOOK, {"villain": "random", "hero": "normal"}) == \
        "a random bot plays seat 1, a normal bot seat 2"


def test_the_help_says_the_levels_in_words():
    proc = subprocess.run([FAIRYTABLE, "run", "--help"], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 0
    words = " ".join(proc.stdout.split())
    assert ("the bots' level: easy (picks a sensible move at random), normal (picks the move "
            "that looks best one move ahead) or hard (weighs what the moves ahead could "
            "bring, guessing what it cannot see)") in words
    assert "--level N=LEVEL for the bot in seat N" in words
    assert "a game that resumes keeps its bots' levels unless --level gives one" in words
    assert "--level sets their level (easy, normal or hard), for every bot or seat by seat" \
        in words
