"""Battle Royale benchmark: random full games/s (and eager full games/s) on this interpreter.

    python tools/bench_royale.py                  # CPython: one JSON line
    micropython tools/bench_royale.py             # MicroPython (from the repo root)
    python tools/bench_royale.py --both           # both, as Markdown table rows
    python tools/bench_royale.py --record NAME SEED OPTIONS_JSON
                                                  # an eager full game as a golden scenario

"Random" games pick a uniformly random legal action each step (shared_rules.playout),
from the order roll to the end: long games (about 2,000 actions) that wander the map.
"Eager" games are played by a simple bot that attacks whenever it can and otherwise
walks toward the nearest card: short, realistic games (about 200 actions). Its games are
the golden playthroughs in tests/golden/royale/ (they fit MicroPython's default heap).
Applied actions/s and copies/s for every engine are in tools/bench_rules.py.
"""

import sys

if "" not in sys.path:
    sys.path.insert(0, "")
if sys.implementation.name != "micropython":
    import os
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.bench_rules import elapsed_us, now_us  # noqa: E402
from shared_rules import playout, prng, royale  # noqa: E402


def eager_choice(rng, state, actions):
    """Attack a card if possible, else resurrect, else (half the time) duel, else walk toward
    the nearest card; ties broken with the PRNG. Returns (rng, action)."""
    by_kind = {}
    for a in actions:
        by_kind.setdefault(a["type"], []).append(a)
    for kind in ("attack_card", "resurrect", "roll_order"):
        if kind in by_kind:
            return rng, by_kind[kind][0]
    if "place" in by_kind:
        return playout.choose(rng, by_kind["place"])
    if "attack_player" in by_kind:
        rng, coin = prng.below(rng, 2)
        if coin:
            return playout.choose(rng, by_kind["attack_player"])
    if "move" in by_kind:
        cards = [i for i in range(len(state.map)) if state.map[i] is not None]
        pid = royale.current(state)
        here = state.players[pid].cell
        if state.map[here] is None or not [a for a in actions if a["type"] == "end_turn"]:
            best, moves = None, []
            for a in by_kind["move"]:
                to = royale.INDEX[(a["to"][0], a["to"][1])]
                d = min([royale.DIST[to][c] for c in cards])
                if best is None or d < best:
                    best, moves = d, [a]
                elif d == best:
                    moves.append(a)
            return playout.choose(rng, moves)
    if "end_turn" in by_kind:
        return rng, by_kind["end_turn"][0]
    return playout.choose(rng, actions)


def eager_game(options, seed, on_step=None, max_actions=20000):
    state = royale.new_game(options, seed)
    rng = prng.seed_state(seed ^ 0x3C3C3C3C)
    n = 0
    while royale.status(state) == "ongoing" and n < max_actions:
        rng, action = eager_choice(rng, state, royale.legal_actions(state))
        events = royale.apply(state, action)
        n += 1
        if on_step is not None:
            on_step(state, action, events)
    return state, n


def bench(n_random, n_eager):
    t0 = now_us()
    random_actions = 0
    for seed in range(n_random):
        state, n = playout.random_game("royale", {}, seed)
        random_actions += n
    random_us = elapsed_us(t0)
    t0 = now_us()
    eager_actions = 0
    for seed in range(n_eager):
        state, n = eager_game({}, seed)
        eager_actions += n
    eager_us = elapsed_us(t0)
    return {"interpreter": sys.implementation.name, "random_games": n_random,
            "random_actions": random_actions,
            "random_games_per_s_x10": n_random * 10000000 // max(random_us, 1),
            "eager_games": n_eager, "eager_actions": eager_actions,
            "eager_games_per_s": n_eager * 1000000 // max(eager_us, 1)}


def row(r):
    tenths = r["random_games_per_s_x10"]
    return "| %s | %d | %d | %d.%d | %d | %d | %d |" % (
        r["interpreter"], r["random_games"], r["random_actions"] // r["random_games"],
        tenths // 10, tenths % 10, r["eager_games"], r["eager_actions"] // r["eager_games"],
        r["eager_games_per_s"])


def record(name, seed, options):
    import json
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    actions = []
    state, n = eager_game(options, seed, on_step=lambda s, a, e: actions.append(a))
    doc = {"description": "An eager bot's full game (seed %d), recorded by tools/bench_royale.py "
           "--record: it attacks whenever it can and otherwise walks toward the nearest card; "
           "the engine rolls every die." % seed,
           "game": "royale", "seed": seed, "options": options, "actions": actions}
    path = os.path.join(root, "tests", "golden", "royale", name + ".json")
    with open(path, "w") as f:
        f.write(json.dumps(doc, sort_keys=True) + "\n")
    return path, n, royale.status(state)


def main(argv):
    if argv[:1] == ["--record"]:
        import json
        print(record(argv[1], int(argv[2]), json.loads(argv[3])))
        return 0
    from shared_rules import canon
    if "--both" in argv:
        import json
        import os
        import subprocess
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        exe = os.path.join(os.path.dirname(sys.executable), "micropython")
        rows = [bench(100, 300)]
        proc = subprocess.run([exe, "tools/bench_royale.py"], cwd=root, capture_output=True,
                              env=dict(os.environ, MICROPYPATH=root + ":.frozen"))
        rows.append(json.loads(proc.stdout))
        print("| interpreter | random games | actions/game | random games/s | eager games "
              "| actions/game | eager games/s |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(row(r))
        return 0
    print(canon.dumps(bench(100, 300) if sys.implementation.name != "micropython"
                      else bench(30, 100)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
