"""Rules-engine benchmark: applied actions/s, state copies/s, random full games/s.

    python tools/bench_rules.py [GAME]            # CPython
    micropython tools/bench_rules.py [GAME]       # MicroPython (from the repo root)
    python tools/bench_rules.py --both [GAME]     # both, as a Markdown table row each
    python tools/bench_rules.py --both GAME N     # N games on each interpreter (default
                                                  # 200 on CPython, 50 on MicroPython)

Runs on both interpreters (same file). Actions are recorded first from seeded
random games, then replayed with apply() alone, so "actions/s" measures the
engine, not the random player. Prints one JSON object per run.
"""

import sys

try:
    from time import ticks_diff, ticks_us

    def now_us():
        return ticks_us()

    def elapsed_us(t0):
        return ticks_diff(ticks_us(), t0)
except ImportError:
    from time import perf_counter

    def now_us():
        return int(perf_counter() * 1000000)

    def elapsed_us(t0):
        return now_us() - t0

if "" not in sys.path:
    sys.path.insert(0, "")
if sys.implementation.name != "micropython":
    import os
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from shared_rules import games, playout  # noqa: E402

small_heap = sys.implementation.name == "micropython"
if small_heap:
    import gc

# fightclub: random players rarely finish a contract, so a round limit ends their games;
# heroes: random players wander for thousands of actions (2,750 a game on average without a
# limit, beyond MicroPython's default heap for one game's list), so a turn limit ends them.
# A name "GAME-VARIANT" benchmarks GAME with that variant's options.
OPTIONS = {"storybook": {"max_turns": 200}, "royale": {},
           "fightclub": {"players": 2, "max_rounds": 30},
           "heroes": {"max_turns": 60}, "heroes-ctf": {"mode": "ctf", "max_turns": 60},
           "fairytale": {"players": 4}, "fairytale-10": {"players": 10}}


def record(out, action):
    out.append(action)
    if small_heap and len(out) % 64 == 0:
        gc.collect()


def bench(name, n_games):
    game = name.split("-")[0]
    engine = games.get(game)
    options = OPTIONS.get(name, {})
    # Play random games (timed), then replay each one's actions with apply() alone (timed),
    # then copy that game's mid-game state (timed). One game at a time, and nothing of one
    # game kept while the next is timed: MicroPython's heap is small, and every state held
    # on it is marked again by each collection (twenty mid-game Fairytale states kept for
    # the copies made its replay a fifth slower on MicroPython than a game alone).
    games_us = apply_us = copy_us = 0
    n_actions = copies = 0
    for seed in range(n_games):
        actions = []
        t0 = now_us()
        playout.random_game(game, options, seed,
                            on_step=lambda s, a, e, out=actions: record(out, a))
        games_us += elapsed_us(t0)
        n_actions += len(actions)
        state = engine.new_game(options, seed)
        t0 = now_us()
        for i in range(len(actions)):
            if i % 64 == 63 and small_heap:
                gc.collect()  # MicroPython does not move objects: keep the 2 MB heap tidy
            engine.apply(state, actions[i])
        apply_us += elapsed_us(t0)
        if seed < 20:
            # The game's mid-game state (replayed again, untimed), copied 100 times.
            state = engine.new_game(options, seed)
            for action in actions[:len(actions) // 2]:
                engine.apply(state, action)
            actions = None
            if small_heap:
                gc.collect()
            t0 = now_us()
            for _ in range(100):
                engine.copy(state)
            copy_us += elapsed_us(t0)
            copies += 100
        state = actions = None
    return {"interpreter": sys.implementation.name, "game": name, "games": n_games,
            "actions": n_actions,
            "random_games_per_s": n_games * 1000000 // max(games_us, 1),
            "actions_per_s": n_actions * 1000000 // max(apply_us, 1),
            "copies_per_s": copies * 1000000 // max(copy_us, 1)}


def main(argv):
    both = "--both" in argv
    args = [a for a in argv if not a.startswith("--")]
    game = args[0] if args else "storybook"
    count = int(args[1]) if len(args) > 1 else None
    if both:
        import json
        import os
        import subprocess
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        exe = os.path.join(os.path.dirname(sys.executable), "micropython")
        rows = [bench(game, count or 200)]
        proc = subprocess.run([exe, "tools/bench_rules.py", game] + ([str(count)] if count else []),
                              cwd=root, capture_output=True,
                              env=dict(os.environ, MICROPYPATH=root + ":.frozen"))
        if proc.returncode != 0:
            print("bench_rules: micropython failed:\n" + proc.stderr.decode(errors="replace")
                  + proc.stdout.decode(errors="replace")[-2000:], file=sys.stderr)
            return 1
        rows.append(json.loads(proc.stdout))
        print("| interpreter | game | games | actions | actions/s | copies/s | random games/s |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print("| %s | %s | %d | %d | %d | %d | %d |" % (
                r["interpreter"], r["game"], r["games"], r["actions"], r["actions_per_s"],
                r["copies_per_s"], r["random_games_per_s"]))
        return 0
    from shared_rules import canon
    print(canon.dumps(bench(game, count or (200 if sys.implementation.name != "micropython"
                                                else 50))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
