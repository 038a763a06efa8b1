"""The bots' levels (host/bot_levels.py): the names players use, the older names journals and
scripts use, and that the rules play each."""

import pytest

from host import bot_levels
from shared_rules import bots
from shared_rules.engine import Match


def test_older_names_are_levels_and_unknown_names_are_none():
    assert [bot_levels.level_of(k) for k in ("easy", "normal", "hard")] == \
        ["easy", "normal", "hard"]
    assert bot_levels.level_of("greedy") == "normal"
    assert bot_levels.level_of("random") == "random"
    assert bot_levels.level_of("expert") is None
    assert bot_levels.level_of("Normal") is None


def test_the_levels_are_said_in_words():
    assert bot_levels.listed() == "easy, normal or hard"
    for level in bot_levels.LEVELS:
        assert "%s (%s)" % (level, bot_levels.WORDS[level]) in bot_levels.explained()


def test_the_host_offers_the_levels_the_rules_take():
    assert tuple(bots.LEVELS) == bot_levels.LEVELS


@pytest.mark.parametrize("kind", ["normal", "greedy", "random", "easy", "hard"])
def test_the_rules_take_the_kind_the_host_gives_them_for_a_level(kind):
    """A game with such a bot plays: the rules choose its move."""
    level = bot_levels.level_of(kind)
    match = Match("storybook", {}, 3)
    for _ in range(6):
        seat = match.engine.actors(match.state)[0]
        action = bots.choose(level, match.engine, match.state, seat, 3)
        assert action in match.legal_actions()
        match.apply(action)
