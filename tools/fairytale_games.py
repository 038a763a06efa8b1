"""Whole Fairytale Games: The Battle Royale games, engine only or on the virtual table: do they
all end, and how?

    python tools/fairytale_games.py random --seeds 0-499          # random players, every config
    python tools/fairytale_games.py bots --seeds 1-500 --configs 1,2,4
    python tools/fairytale_games.py bots --seeds 1-20 --configs ten --verbose
    python tools/fairytale_games.py bots --seeds 1-5 --configs 1,2,4,6,10 --table --verbose
    python tools/fairytale_games.py table --seeds 1 --configs 1,2,4,6,10
    python tools/fairytale_games.py bots --seeds 1-100 --configs two --setup FILE.json

`random`: seeded random players (shared_rules/playout.py), each game checked by the
conformance kit (tests/conformance.py: the end state replays from its record, save and load
agree). `bots`: the greedy bot (shared_rules/bots.py with fairytale.evaluate and imagine) in
every seat, seeded with the game's seed; the seat that moves is the first of `actors(state)`,
as the table's bots take their turns (host/bots_at_table.py); with --table, each bot's action
carries the cards the table reads and the dice it throws (host/games/fairytale/chance.py): the
game `fairytable run --game fairytale --headless --bots N --seed S` must end as. `table`:
that game played on the virtual table, each compared with the engine alone (the same
actions, winner and ending), with its wall time and the tiles' least heap free; a game that
differs is counted as stuck. A game not finished within --limit actions is stuck, and
described. `--setup FILE`: every bot game starts from the setup in that JSON file (a
scenario's "setup": its players, say the five of a faction in one party, to play a rule
that random draws seldom reach); its players are the config's player count.

Configs (--configs, comma separated; a number N is N players in the standard mode): solo (1),
two (2), four (4), six (6), ten (10), adventurer (4 players as one party), tournament (10),
alchemist (4 players, potions as tokens). Prints one line per config: the games, how they
ended (the end reason, with the epilogue: 1 the Battle Royale won, 2 everyone loses, 3 and 4
the End Game quests), the stuck seeds, the actions (mean and max) and the games per second.
Exits 1 if a game is stuck.
"""

import argparse
import os
import signal
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from shared_rules import bots  # noqa: E402
from shared_rules import fairytale as ft  # noqa: E402
from shared_rules.engine import Match  # noqa: E402

CONFIGS = {
    "solo": {"players": 1},
    "two": {"players": 2},
    "four": {"players": 4},
    "six": {"players": 6},
    "ten": {"players": 10},
    "adventurer": {"players": 4, "mode": "adventurer"},
    "tournament": {"players": 10, "mode": "tournament"},
    "alchemist": {"players": 4, "alchemist": True},
}
NUMBERS = {"1": "solo", "2": "two", "4": "four", "6": "six", "10": "ten"}
ALL = ("solo", "two", "four", "six", "ten", "adventurer", "tournament", "alchemist")


def play_bots(options, seed, limit, setup=None, table=False):
    """A greedy bot in every seat, seeded with the game's seed, the first of the actors moving;
    stopped after `limit` actions. Returns the Match.

    `table`: the game `fairytable run --game fairytale --headless --bots N --seed S` plays on
    the virtual table, without the table: each bot's action with the cards the table reads
    and the dice it throws (host/games/fairytale/chance.py), as the virtual hands draw and
    throw them. The table game must end exactly as this one (its journal the same actions)."""
    chance = None
    if table:
        from host.games.fairytale.chance import table_chance
        chance = table_chance
    match = Match("fairytale", options, seed, setup)
    while ft.status(match.state) == "ongoing" and len(match.actions) < limit:
        s = match.state
        seat = ft.actors(s)[0]
        action = bots.choose("greedy", ft, s, seat, seed)
        if action is None:
            break       # the game waits on a seat that has nothing to do: stuck
        if chance is not None:
            action = chance(s, action, seed, len(match.actions))
        match.apply(action)
    return match


def play_random(options, seed, limit):
    """A random game checked by the conformance kit (replay, save and load); the Match."""
    from conformance import check_random_games
    out = []
    check_random_games("fairytale", options, [seed], max_actions=limit,
                       on_end=lambda sd, m: out.append(m))
    return out[0]


def play_table(options, seed, limit, workdir, deadline=1800):
    """The bots' game on the virtual table (`fairytable run --game fairytale --headless
    --json`), compared with the same bots and the table's cards and dice without a table.
    Returns (the engine's Match, what differs or None, the table's wall seconds, the tiles'
    least heap free in bytes). A game not over after `deadline` seconds is stopped (Ctrl-C)
    and compared as far as it went."""
    import json
    import subprocess
    from host.journal import Journal
    n = options["players"]
    journal = os.path.join(workdir, "table-%s-%d.db" % ("-".join(
        "%s%s" % (k, options[k]) for k in sorted(options)), seed))
    cmd = [sys.executable, "-m", "host.cli", "run", "--game", "fairytale", "--players",
           str(n), "--headless", "--bots", str(n), "--json", "--new", "--seed", str(seed),
           "--journal", journal, "--max-actions", str(limit)]
    if "mode" in options:
        cmd += ["--mode", options["mode"]]
    if options.get("alchemist"):
        cmd += ["--option", "alchemist=true"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        out, err = proc.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)      # as a person stops it: the host closes the table
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    proc = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    wall = time.perf_counter() - started
    twin = play_bots(options, seed, limit, table=True)
    try:
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return twin, "no summary (exit %d): %s" % (proc.returncode, proc.stderr[-600:]), wall, 0
    j = Journal(journal)
    try:
        actions = j.load(summary["game_id"])[0].actions
    finally:
        j.close()
    heap = min(t["health"]["heap_free"] for t in summary["tiles"].values())
    from shared_rules import canon
    differs = None
    if summary["winner"] != twin.state.winner or summary["status"] != twin.state.status:
        differs = "ended %s %s, the engine alone %s %s" % (
            summary["status"], summary["winner"], twin.state.status, twin.state.winner)
    elif canon.dumps(actions) != canon.dumps(twin.actions):
        first = next((i for i, (a, b) in enumerate(zip(actions, twin.actions, strict=False))
                      if a != b), min(len(actions), len(twin.actions)))
        differs = "actions differ from #%d (%d actions, the engine alone %d)" % (
            first, len(actions), len(twin.actions))
    return twin, differs, wall, heap


def ending(s):
    return "%s (epilogue %d)" % (s.end_reason, s.epilogue)


def stuck_words(s):
    """What a game still playing looks like, in one line."""
    parts = ["day %d" % s.day, "events left %d" % len(s.decks["events"]),
             "battles %d" % len(s.battles), "pending %d" % len(s.pending),
             "actors %s" % ",".join(ft.actors(s))]
    return ", ".join(parts)


def seed_range(text):
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def run(kind, name, seeds, limit, verbose=False, table=False, setup=None):
    """Play the games of one config; print and return its summary line and the stuck seeds
    (`table`: the bots' games as the table plays them, with the table's cards and dice;
    `setup`: the setup every bot game starts from)."""
    options = CONFIGS[name]
    endings = {}
    lengths = []
    stuck = []
    t0 = time.perf_counter()
    workdir = None
    if kind == "table":
        import tempfile
        workdir = tempfile.mkdtemp(prefix="fairytale-table-")
    if kind == "table" and set(options) - set(["players", "mode", "alchemist"]):
        line = "table %s: `fairytable run` has no option for %s: not played" % (
            name, ", ".join(sorted(set(options) - set(["players", "mode", "alchemist"]))))
        print(line, flush=True)
        return line, []
    for seed in seeds:
        if kind == "table":
            match, differs, wall, heap = play_table(options, seed, limit, workdir)
            print("table %s seed %d: %s; %d actions, %s, %.0f s on the virtual table, the "
                  "tiles' least heap free %d bytes" % (
                      name, seed, "DIFFERS: " + differs if differs else
                      "ends as the engine alone", len(match.actions),
                      ending(match.state) if match.state.status == "finished" else "unfinished",
                      wall, heap), flush=True)
            if differs:
                stuck.append(seed)
                continue
        else:
            match = play_bots(options, seed, limit, setup, table=table) if kind == "bots" else \
                play_random(options, seed, limit)
        s = match.state
        n = len(match.actions)
        if ft.status(s) == "finished":
            lengths.append(n)
            key = ending(s)
            endings[key] = endings.get(key, 0) + 1
            if verbose:
                print("%s %s seed %d: %s in %d actions, day %d, winners %s" % (
                    kind, name, seed, key, n, s.day, ",".join(s.winners) or "none"),
                    flush=True)
        else:
            stuck.append(seed)
            print("%s %s seed %d: STUCK at %d actions: %s" % (kind, name, seed, n,
                                                           stuck_words(s)), flush=True)
    wall = time.perf_counter() - t0
    games = len(lengths) + len(stuck)
    line = "%s %s %s: %d games, %s; stuck %s; actions mean %s, max %s; %.2f games/s" % (
        kind, name, canon_options(options), games,
        ", ".join("%s %d" % (k, endings[k]) for k in sorted(endings)) or "no ending",
        ",".join(str(x) for x in stuck) or "none",
        "%.0f" % (float(sum(lengths)) / len(lengths)) if lengths else "-",
        max(lengths) if lengths else "-", games / wall if wall > 0 else 0.0)
    print(line, flush=True)
    return line, stuck


def canon_options(options):
    from shared_rules import canon
    return canon.dumps(options)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=("random", "bots", "table"),
                   help="random players, greedy bots (engine only), or greedy bots on the "
                   "virtual table compared with the engine alone")
    p.add_argument("--seeds", default="1-500", help="a seed or a range, e.g. 1-500")
    p.add_argument("--configs", default=",".join(ALL),
                   help="comma separated: %s, or a player count 1,2,4,6,10" % ", ".join(ALL))
    p.add_argument("--limit", type=int, default=20000, help="actions before a game is stuck")
    p.add_argument("--verbose", action="store_true", help="a line for every game")
    p.add_argument("--table", action="store_true",
                   help="bots: with the cards and dice the table supplies, as `fairytable run "
                   "--game fairytale --headless` plays (what its games must end as)")
    p.add_argument("--setup", help="a JSON file: the setup every bot game starts from")
    args = p.parse_args(argv)
    setup = None
    if args.setup:
        if args.kind != "bots":
            p.error("--setup is for bot games")
        from shared_rules import canon
        from shared_rules.errors import ScenarioError
        try:
            with open(args.setup) as f:
                setup = canon.loads(f.read())
        except (OSError, ValueError) as e:
            p.error("cannot read the setup %s: %s" % (args.setup, e))
        for name in args.configs.split(","):
            try:
                ft.new_game(CONFIGS[NUMBERS.get(name, name)], 1, setup)
            except (KeyError, ScenarioError) as e:
                p.error("the setup %s does not fit %s: %s" % (args.setup, name, e))
    names = [NUMBERS.get(c, c) for c in args.configs.split(",")]
    for name in names:
        if name not in CONFIGS:
            p.error("unknown config %r" % name)
    any_stuck = False
    for name in names:
        line, stuck = run(args.kind, name, seed_range(args.seeds), args.limit, args.verbose,
                          args.table, setup)
        any_stuck = any_stuck or bool(stuck)
    return 1 if any_stuck else 0


if __name__ == "__main__":
    sys.exit(main())
