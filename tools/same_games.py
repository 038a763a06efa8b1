"""Do an engine's games still play out the same? One line per seeded game, to diff.

    python tools/same_games.py GAME [BOT_SEEDS [RANDOM_SEEDS]] > before.txt
    ... change the engine ...
    python tools/same_games.py GAME [BOT_SEEDS [RANDOM_SEEDS]] > after.txt
    diff before.txt after.txt          # no output: the same games
    micropython tools/same_games.py GAME ...   # the same lines on MicroPython

Bot games (shared_rules/bots.py: greedy against random, greedy against greedy; the bots seed
from the state, so any change to what the state holds changes their moves) and random games
(shared_rules/playout.py, the benchmark's games). Each line gives the game's options, seed,
number of actions, and the CRC-32 of the canonical JSON of its action list, of every action's
events, and of the final state (to_dict), so a speed-up that changes no result changes no line.
Defaults: 4 bot seeds and 40 random seeds per option set.
"""

import binascii
import sys

if "" not in sys.path:
    sys.path.insert(0, "")
if sys.implementation.name != "micropython":
    import os
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from shared_rules import bots, canon, games, playout  # noqa: E402

# Option sets per game: a turn or round limit ends the random players' wandering games.
OPTIONS = {
    "heroes": [{"max_turns": 60}, {"mode": "ctf", "max_turns": 60},
               {"team_size": 2, "actions_per_turn": 4, "max_turns": 40,
                "ranged_lines": "path", "diagonal_moves": False},
               {"players": 3, "max_turns": 30},
               {"players": 4, "max_turns": 30, "ranged_lines": "path"}],
    "storybook": [{"max_turns": 200}],
    "royale": [{}],
    "fightclub": [{"players": 2, "max_rounds": 30}],
    "fairytale": [{"players": 4}],
}
BOT_PAIRS = (("greedy", "random"), ("greedy", "greedy"))
MAX_BOT_ACTIONS = 1500


def crc(data):
    return binascii.crc32(canon.dumps(data).encode()) & 0xFFFFFFFF


def bot_game(engine, options, seed, pair):
    state = engine.new_game(options, seed)
    seats = engine.seats(state)
    kinds = {}
    for k in range(len(seats)):
        kinds[seats[k]] = pair[k % len(pair)]
    actions = []
    events = []
    while engine.status(state) == "ongoing" and len(actions) < MAX_BOT_ACTIONS:
        who = engine.actors(state)
        if not who:
            break
        action = bots.choose(kinds[who[0]], engine, state, who[0], seed)
        if action is None:
            break
        events.append(engine.apply(state, action))
        actions.append(action)
    return state, actions, events


def random_game(game, options, seed):
    actions = []
    events = []

    def step(state, action, evs):
        actions.append(action)
        events.append(evs)
    state, n = playout.random_game(game, options, seed, on_step=step)
    return state, actions, events


def line(engine, what, options, seed, played):
    state, actions, events = played
    return "%s %s seed %d: %d actions, actions %08x, events %08x, state %08x" % (
        what, canon.dumps(options), seed, len(actions), crc(actions), crc(events),
        crc(engine.to_dict(state)))


def main(argv):
    if not argv or argv[0] not in OPTIONS:
        print("usage: same_games.py GAME [BOT_SEEDS [RANDOM_SEEDS]] (GAME: %s)" % ", ".join(
            sorted(OPTIONS)))
        return 2
    game = argv[0]
    bot_seeds = int(argv[1]) if len(argv) > 1 else 4
    random_seeds = int(argv[2]) if len(argv) > 2 else 40
    engine = games.get(game)
    for options in OPTIONS[game]:
        for seed in range(bot_seeds):
            for pair in BOT_PAIRS:
                print(line(engine, "bots " + "-".join(pair), options, seed,
                           bot_game(engine, options, seed, pair)))
        for seed in range(random_seeds):
            print(line(engine, "random", options, seed, random_game(game, options, seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
