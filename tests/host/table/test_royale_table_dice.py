"""The virtual hands' dice (host.games.royale.dice.table_dice) with the table's bot: every game
ends.

Seeds 8 and 12 of the small map used to loop for ever: the two players tied the order roll,
a tied roll with the table's dice leaves the state as it was, and dice seeded by the state
alone rolled the same tie again and again. On the full map a failed attack, the fall, the
resurrection and the walk back could bring a position round again, with the same miss.
"""

from host.games.royale.adapter import RoyaleGame
from host.games.royale.interpreter import rollers
from host.games.royale.dice import table_dice
from shared_rules import royale_bot
from shared_rules import royale
from shared_rules.engine import Match

SMALL_MAP = {"map": [{"cell": c, "card": k} for c, k in [
    ([0, 0], "S5"), ([1, 0], "H3"), ([0, 1], "D8"), ([-1, 0], "C7"), ([0, -1], "S4"),
    ([1, 1], "H9")]]}


def bot_game(seed, players, setup, limit):
    """The table's bots with the hands' dice, without a table; None if it passed `limit`."""
    match = Match("royale", {"players": players}, seed, setup)
    while royale.status(match.state) == "ongoing":
        if len(match.actions) >= limit:
            return None
        s = match.state
        action = royale_bot.choose("greedy", s, RoyaleGame().actors(s)[0], seed)
        match.apply(table_dice(s, action, seed, len(match.actions)))
    return match


def test_a_tied_order_roll_is_followed_by_other_dice():
    match = Match("royale", {"players": 2}, 8, SMALL_MAP)
    first = table_dice(match.state, {"type": "roll_order"}, 8, 0)
    assert sorted(first["dice"]) == sorted(rollers(match.state))
    before = royale.to_dict(match.state)
    match.apply({"type": "roll_order", "dice": {"red": 5, "blue": 5}})  # a tie
    assert royale.to_dict(match.state) == before  # the same players roll again
    again = [table_dice(match.state, {"type": "roll_order"}, 8, step)["dice"]
             for step in range(1, 7)]
    assert len(set(tuple(sorted(d.items())) for d in again)) > 1
    # The same seed, state and step: the same dice (a resumed game rolls what it rolled).
    assert table_dice(match.state, {"type": "roll_order"}, 8, 3) == \
        table_dice(match.state, {"type": "roll_order"}, 8, 3)


def test_the_small_map_seeds_that_looped_end():
    for seed in (8, 12):
        match = bot_game(seed, 2, SMALL_MAP, 500)
        assert match is not None, "seed %d did not end in 500 actions" % seed
        assert royale.status(match.state) == "finished"
        assert match.actions[0]["type"] == "roll_order"
        # Both open with a tied order roll (what looped); the roll after it decides.
        rolls = [a["dice"] for a in match.actions if a["type"] == "roll_order"]
        assert len(rolls) >= 2 and rolls[0]["red"] == rolls[0]["blue"]
        assert rolls[-1]["red"] != rolls[-1]["blue"]


def test_many_bot_games_end_on_both_maps():
    for seed in range(1, 41):
        assert bot_game(seed, 2, SMALL_MAP, 500) is not None, "small map, seed %d" % seed
        assert bot_game(seed, 2, None, 3000) is not None, "full map, seed %d" % seed
    for seed in range(1, 11):
        assert bot_game(seed, 4, None, 4000) is not None, "full map, 4 players, seed %d" % seed


def test_the_step_must_be_a_count_of_actions():
    match = Match("royale", {"players": 2}, 1, SMALL_MAP)
    for bad in (-1, None, "3"):
        try:
            table_dice(match.state, {"type": "roll_order"}, 1, bad)
        except ValueError as e:
            assert "step" in str(e)
        else:
            raise AssertionError("step %r accepted" % (bad,))
