"""Whole Fairy Tale Fight Club games between greedy bots, engine only: do they end?

    python tools/fightclub_bots.py                       # seeds 1-200, 1 to 4 players
    python tools/fightclub_bots.py --seeds 1-50 --players 4 --limit 5000 --verbose

Every seat is a greedy bot seeded with the game's seed, as `fairytable run --headless
--bots N --seed S` plays them (host/run.py). A game not finished within --limit actions
is counted as stalled and described: the contracts in play, the deck sizes and each
player's gold and wagons. A game at a dead end by the rules (the contract deck empty,
every contract in play needing a wagon nobody owns, and nobody able to buy it) is ended
by the engine (end_reason "dead_end"): counted apart, as the bots did not end it the
book's way. Prints one line per stalled or dead-end game (all games with --verbose) and
a summary per player count: games finished, mean and max actions of the finished games.
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from shared_rules import bots, fightclub  # noqa: E402
from shared_rules.engine import Match  # noqa: E402


def play(players, seed, limit, setup=None):
    """The game `fairytable run --game fightclub --headless --bots N --seed S` plays, with
    no table: a greedy bot in every seat, seeded with the game's seed; stopped after
    ``limit`` actions. The tests compare table games with it."""
    match = Match("fightclub", {"players": players}, seed, setup)
    while fightclub.status(match.state) == "ongoing" and len(match.actions) < limit:
        s = match.state
        match.apply(bots.choose("greedy", fightclub, s, fightclub.actor(s, {"type": "x"}),
                                seed))
    return match


SHORT = {"wheelbarrow": "WB", "hand_cart": "HC", "horse_wagon": "HW", "war_wagon": "WW"}


def stall_words(s):
    """What a stalled game looks like, in one line."""
    levels = sorted(s.cat.contracts[c]["level"] for c in s.area)
    parts = ["round %d" % s.round, "contract deck %d" % len(s.contract_deck),
             "area levels %s" % "".join(str(x) for x in levels),
             "creature deck %d" % len(s.deck), "market %d" % len(s.market)]
    for seat in s.seats:
        p = s.players[seat]
        owned = "+".join(SHORT[w] for w in fightclub.WAGONS if p.wagons[w] is not None)
        parts.append("%s %d gold %s" % (seat, p.gold, owned or "no wagon"))
    return ", ".join(parts)


def seed_range(text):
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="1-200", help="a seed or a range, e.g. 1-200")
    p.add_argument("--players", default="1,2,3,4", help="player counts, e.g. 2,4")
    p.add_argument("--limit", type=int, default=5000, help="actions before a game is stalled")
    p.add_argument("--verbose", action="store_true", help="a line for every game")
    args = p.parse_args(argv)
    counts = [int(x) for x in args.players.split(",")]
    stalled_any = False
    for players in counts:
        done = []
        dead = []
        stalled = []
        for seed in seed_range(args.seeds):
            match = play(players, seed, args.limit)
            n = len(match.actions)
            if fightclub.status(match.state) == "finished":
                done.append(n)
                if match.state.end_reason == "dead_end":
                    dead.append(seed)
                    print("players %d seed %d: a dead end at %d actions, ended by the engine"
                          % (players, seed, n), flush=True)
                elif args.verbose:
                    print("players %d seed %d: finished in %d actions (%s)"
                          % (players, seed, n, match.state.end_reason), flush=True)
            else:
                stalled.append(seed)
                print("players %d seed %d: STALLED at %d actions: %s"
                      % (players, seed, n, stall_words(match.state)), flush=True)
        total = len(done) + len(stalled)
        print("players %d: %d of %d finished; actions mean %s, max %s; dead ends %s; stalled "
              "seeds %s" % (players, len(done), total,
                            "%.1f" % (float(sum(done)) / len(done)) if done else "-",
                            max(done) if done else "-", dead or "none", stalled or "none"),
              flush=True)
        stalled_any = stalled_any or bool(stalled)
    return 1 if stalled_any else 0


if __name__ == "__main__":
    sys.exit(main())
