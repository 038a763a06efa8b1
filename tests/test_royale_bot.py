"""The Battle Royale bot (shared_rules/royale_bot.py) is rules code: the same seeds give the
same moves on CPython and MicroPython, and it plays a game to the end."""

import json

from mpy import requires_micropython, run_micropython_code
from shared_rules import canon, royale

# One source for both interpreters: the bot in every seat, the engine rolling the dice.
BOT_GAME = """
from shared_rules import canon, royale, royale_bot

def bot_game(players, seed, kind):
    state = royale.new_game({"players": players}, seed)
    moves = []
    while royale.status(state) == "ongoing" and len(moves) < 400:
        if state.phase == "order":
            seat = [q for g in state.groups if len(g) > 1 for q in g][0]
        else:
            seat = royale.current(state)
        action = royale_bot.choose(kind, state, seat, seed)
        royale.apply(state, action)
        moves.append(action)
    return state, moves
"""
RUNS = [[2, 31, "greedy"], [3, 7, "greedy"], [4, 5, "random"]]
here = {}
exec(BOT_GAME, here)
bot_game = here["bot_game"]


def test_the_greedy_bot_plays_a_game_to_the_end():
    state, moves = bot_game(2, 31, "greedy")
    assert royale.status(state) == "finished" and len(moves) < 400
    assert {"attack_card", "move", "end_turn"} <= set(m["type"] for m in moves)


@requires_micropython
def test_the_same_seeds_give_the_same_moves_on_micropython():
    mine = [canon.dumps(bot_game(*run)[1]) for run in RUNS]
    code = BOT_GAME + "for run in %s:\n    print(canon.dumps(bot_game(*run)[1]))\n" % (
        json.dumps(RUNS),)
    theirs = run_micropython_code(code, heapsize="4m").splitlines()
    assert theirs == mine
