"""The greedy bot (shared_rules/bots.py with fairytale.evaluate, imagine and bot_digest) plays
whole Fairytale Games to an ending: every seat a bot seeded with the game's seed, the first of
`actors(state)` moving, as tools/fairytale_games.py plays them (hundreds of seeds per player
count and mode there; the counts are in BENCHMARKS.md). Here a handful of games, most of them
shortened by a day limit (the universal loss ends them), so CI stays fast."""

import pytest

from shared_rules import bots, canon
from shared_rules import fairytale as ft
from shared_rules.engine import Match
from tools import fairytale_games

# Far more actions than these games need (a whole 10-player bot game: about 700-1,000).
BOUND = 5000


def ends(options, seed):
    match = fairytale_games.play_bots(options, seed, BOUND)
    s = match.state
    assert s.status == "finished", "still playing on day %d after %d actions" % (
        s.day, len(match.actions))
    replayed = Match.replay(canon.loads(canon.dumps(match.record())))
    assert canon.dumps(ft.to_dict(replayed.state)) == canon.dumps(ft.to_dict(s))
    return match


def test_the_bot_kills_the_three_hunters_in_a_single_player_game():
    # Seed 6 (tests/golden/fairytale/greedy-1p-hunters-killed-seed6.json): the one way to win
    # alone, "kill all three within 30 days".
    match = ends({"players": 1}, 6)
    s = match.state
    assert (s.end_reason, s.winners, s.epilogue) == ("hunters_killed", ["p1"], 1)
    assert all(h["state"] == "dead" for h in s.hunters)
    kinds = set(a["type"] for a in match.actions)
    assert {"choose", "flip_event", "step", "attack", "defend", "end_turn"} <= kinds


@pytest.mark.parametrize("options,seed", [
    ({"players": 2}, 3),
    ({"players": 4, "max_days": 4}, 1),
    ({"players": 6, "alchemist": True, "max_days": 2}, 2),
    ({"players": 10, "max_days": 1}, 4),
    ({"players": 4, "mode": "adventurer", "max_days": 3}, 5),
    ({"players": 10, "mode": "tournament", "max_days": 2}, 6)])
def test_bot_games_end_for_every_player_count_and_mode(options, seed):
    s = ends(options, seed).state
    assert s.end_reason in ("no_events", "day_limit", "all_out", "kills", "last_standing",
                            "end_quest"), s.end_reason
    if s.end_reason in ("no_events", "day_limit", "all_out"):
        assert s.winners == [] and s.epilogue == 2
    else:
        assert s.winners and s.epilogue in (1, 3, 4)


@pytest.mark.parametrize("seed", [30, 120])
def test_a_two_player_bot_game_with_a_shared_reward_ends(seed):
    # These seeds once ran forever: the two players' negotiation over a minion's reward never
    # ended (seed 30), and the first of `actors` was a seat with nothing to do while the other
    # answered its Conflict (seed 120).
    s = ends({"players": 2}, seed).state
    assert s.end_reason == "no_events" and s.winners == []


@pytest.mark.parametrize("seed", [50, 284])
def test_a_six_player_bot_game_with_healing_super_moves_ends(seed):
    # These seeds once ran forever: two bots traded Super Moves that heal (It's Alive!,
    # Children of the Night) every turn, each back at 5 or less health by its next turn;
    # a Super Move is now used once in a battle.
    s = ends({"players": 6}, seed).state
    assert s.end_reason in ("no_events", "all_out", "last_standing"), s.end_reason


def test_bots_are_deterministic_for_a_seed_and_see_no_hidden_card():
    a = fairytale_games.play_bots({"players": 3, "max_days": 2}, 9, 120)
    b = fairytale_games.play_bots({"players": 3, "max_days": 2}, 9, 120)
    assert a.actions == b.actions
    # What the bot values is what its seat may know: the same for two states that differ only
    # in the order of a face-down deck.
    s = a.state
    t = ft.copy(s)
    t.decks["bonus"].reverse()
    t.decks["battle"].reverse()
    for seat in s.seats:
        assert ft.evaluate(s, seat) == ft.evaluate(t, seat)


def test_the_bot_seed_digest_follows_the_state():
    s = ft.new_game({"players": 2}, 1)
    before = ft.bot_digest(s)
    seat = ft.actors(s)[0]
    ft.apply(s, bots.choose("greedy", ft, s, seat, 1))
    assert ft.bot_digest(s) != before
    assert ft.bot_digest(ft.from_dict(ft.to_dict(s))) == ft.bot_digest(s)
