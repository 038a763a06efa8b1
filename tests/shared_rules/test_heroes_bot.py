"""Bots for Battle Royale with hero teams (shared_rules/bots.py with the engine's evaluate and
imagine): rules code, so the same seeds give the same moves on CPython and MicroPython; the
greedy bot plays both modes to the end and beats the random one."""

import json

from mpy import requires_micropython, run_micropython_code
from shared_rules import canon

# One source for both interpreters: bots in every seat, the engine rolling the dice.
BOT_GAME = """
from shared_rules import bots, canon, heroes

def bot_game(options, seed, kinds):
    state = heroes.new_game(options, seed)
    moves = []
    while heroes.status(state) == "ongoing" and len(moves) < 1500:
        seat = heroes.actor(state, None)
        action = bots.choose(kinds[seat], heroes, state, seat, seed)
        heroes.apply(state, action)
        moves.append(action)
    return state, moves
"""
here = {}
exec(BOT_GAME, here)
bot_game = here["bot_game"]
GREEDY_RED = {"red": "greedy", "blue": "random"}


def test_the_greedy_bot_takes_the_flag_home():
    state, moves = bot_game({"mode": "ctf", "max_turns": 100}, 1, GREEDY_RED)
    assert state.end_reason == "flag_home" and state.winner == "red"


def test_the_greedy_bot_beats_the_random_bot_at_battle_royale():
    wins = 0
    for seed in (0, 2):
        state, moves = bot_game({"team_size": 2, "actions_per_turn": 4, "max_turns": 60}, seed,
                                GREEDY_RED)
        assert state.status == "finished"
        wins += state.winner == "red"
    assert wins == 2


def test_the_same_seed_gives_the_same_moves():
    a = bot_game({"mode": "ctf", "max_turns": 20}, 4, {"red": "random", "blue": "greedy"})[1]
    b = bot_game({"mode": "ctf", "max_turns": 20}, 4, {"red": "random", "blue": "greedy"})[1]
    assert canon.dumps(a) == canon.dumps(b)


RUNS = [[{"mode": "ctf", "max_turns": 12}, 5, {"red": "greedy", "blue": "random"}],
        [{"team_size": 2, "max_turns": 8}, 6, {"red": "random", "blue": "greedy"}]]


@requires_micropython
def test_the_same_seeds_give_the_same_moves_on_micropython():
    mine = [canon.dumps(bot_game(*run)[1]) for run in RUNS]
    code = BOT_GAME + "for run in %s:\n    print(canon.dumps(bot_game(*run)[1]))\n" % (
        json.dumps(RUNS).replace("true", "True").replace("false", "False"),)
    theirs = run_micropython_code(code, heapsize="4m").splitlines()
    assert theirs == mine


def test_four_greedy_bots_play_a_battle_royale_to_its_winner():
    # Four players, no turn limit. When Quick Feet stayed face up, Hop-o'-My-Thumb stepped
    # away from every attack with it and his last foe healed faster than he hurt: these
    # seeds' games (1, 2 and 4 of the first ten) went on for ever. A movement card now never
    # stays face up (the catalog's check).
    four = dict((seat, "greedy") for seat in ("red", "blue", "green", "yellow"))
    for seed in (1, 2, 4):
        state, moves = bot_game({"players": 4}, seed, four)
        assert state.status == "finished" and state.end_reason == "last_standing", (
            seed, len(moves))
        assert state.winner in four
