"""Fairy Tale Fight Club against the conformance kit: random games to the end, every contract
check, and greedy bots that finish games by the book's ending."""

import pytest

from conformance import check_random_games, check_rejected_changes_nothing
from shared_rules import bots, canon, fightclub
from shared_rules.engine import Match

VARIANTS = {
    "solo": {"players": 1, "solo": True},
    "two": {"players": 2, "max_rounds": 12},
    "three": {"players": 3, "max_rounds": 8},
    "four": {"players": 4, "max_rounds": 6},
}


@pytest.mark.parametrize("variant,games", [("solo", 12), ("two", 6), ("three", 4),
                                           ("four", 3)])
def test_random_games_end_and_replay(variant, games):
    assert check_random_games("fightclub", VARIANTS[variant], range(games)) == games


@pytest.mark.parametrize("variant,seed", [("solo", 3), ("two", 1), ("four", 2)])
def test_every_step_keeps_the_contract(variant, seed):
    # Per step: save/load, copy, undo, rejected actions, completeness of legal_actions (against
    # action_space, which names cards by other ids too), no hidden card in any view.
    options = dict(VARIANTS[variant])
    if "max_rounds" in options:
        options["max_rounds"] = 3
    assert check_random_games("fightclub", options, [seed], deep=True) == 1


def greedy_game(players, seed, limit=2500):
    match = Match("fightclub", {"players": players}, seed)
    kinds = ["greedy", "random", "greedy", "greedy"]
    n = 0
    while fightclub.status(match.state) == "ongoing" and n < limit:
        seat = fightclub.actor(match.state, {})
        kind = kinds[fightclub.SEATS.index(seat)] if players > 1 else "greedy"
        match.apply(bots.choose(kind, fightclub, match.state, seat, seed))
        n += 1
    return match


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2)])
def test_greedy_bots_play_to_the_books_ending(players, seed):
    match = greedy_game(players, seed)
    s = match.state
    assert s.status == "finished" and s.end_reason == "four_left"
    assert not s.contract_deck and len(s.area) == 4
    replayed = Match.replay(canon.loads(canon.dumps(match.record())))
    assert canon.dumps(fightclub.to_dict(replayed.state)) == canon.dumps(fightclub.to_dict(s))
    assert max(fightclub.scores(s).values()) > 10


def test_bots_are_deterministic_for_a_seed():
    a = greedy_game(2, 5, limit=120)
    b = greedy_game(2, 5, limit=120)
    assert a.actions == b.actions


def test_a_damaged_save_is_refused_in_words():
    data = fightclub.to_dict(fightclub.new_game({"players": 2}, 1))
    del data["players"]
    try:
        fightclub.from_dict(data)
    except fightclub.ScenarioError as e:
        assert e.field == "state"
    else:
        raise AssertionError("a save without players was accepted")


def test_garbage_actions_are_refused_and_change_nothing():
    s = fightclub.new_game({"players": 3}, 4)
    hand = s.players[s.turn].hand
    for bad in ({"type": "load", "wagon": "sled", "cards": hand[:1]},
                {"type": "load", "wagon": "wheelbarrow", "cards": hand[:1] * 2},
                {"type": "load", "wagon": "wheelbarrow", "cards": "c01-01"},
                {"type": "exchange", "give": hand[:2], "take": s.market[:2]},
                {"type": "complete", "contract": ["L1-01"], "wagon": "wheelbarrow"},
                {"type": "to_market", "card": hand[0]},
                {"type": "fight_card", "card": hand[0]},
                {"type": "buy_wagon", "wagon": "war_wagon"},
                {"type": "buy_wagon", "wagon": True},
                {"type": "discard", "from": None, "cards": []},
                {"type": 5}, [], None):
        check_rejected_changes_nothing(fightclub, s, bad)
