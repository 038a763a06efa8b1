"""Line faults: headless games on a noisy line, each compared with its fault-free twin.

    python tools/line_faults.py --games 3 --rates 1,0.1 5,0.5 10,1
    python tools/line_faults.py --games 1 --game storybook --rates 10,1 --json
    python tools/line_faults.py --games 1 --game fightclub --setup short.json --seed 4

Every game the table plays (the games of the host's registry, host/games/__init__.py; `--game`
chooses among them), all bots: as many players as the game usually has (`--players`
chooses), in a game set up by the book unless `--setup FILE` gives the position (one
`--game` only). For each game and each seed, the game is played once on a clean line (the
twin) and once per rate with ``fairytable run --line-faults CORRUPT,DROP,SEED``: every
tile's line (both directions) corrupts CORRUPT % and drops DROP % of its bytes, from the
start (host/link/noisy_line.py). A faulty game matches its twin when the winner, the
scores and the whole action list (read from its journal) are the same. A game that does
not end within ``--deadline`` seconds has stalled.

Reported per game and rate: games, stalled, mismatched, reconnects (summed
over the tiles; a reboot counts as one), tiles offline at the end, and the
time (mean and longest, in seconds; the twin's mean for scale). Each game's
line on stderr adds the reboots, the host's resends and the damaged frames.
Tile errors are the LOG lines of level error the tiles sent (a task that
failed: a MemoryError, say); like a stalled or mismatched game, any fails the run.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def table_games():
    """The games the table plays, by name: the host's registry (host/games/__init__.py)."""
    from host import games
    return games.names()


def run_options(game, setup=None, players=None):
    """The options of `fairytable run` for a new game of `game` with a bot in every seat:
    as many players as the game usually has (with that setup), or `players`.

    At the usual count only --bots is given, not --players: the bots seed their choices
    from the whole state, options included, so a "players" the game was never given would
    make every seed another game than the figures in RELIABILITY.md."""
    from host.run import read_setup
    from host.games import table_game
    if players is None:
        adapter = table_game(game)
        count = len(adapter.seats(dict(adapter.options),
                                  read_setup(setup) if setup is not None else None))
        out = ["--game", game, "--bots", str(count)]
    else:
        out = ["--game", game, "--players", str(players), "--bots", str(players)]
    if setup is not None:
        out += ["--setup", setup]
    return out


def check_game_options(parser, args):
    """The games (`args.game`, else every game) and their --setup and --players, checked
    before any game is played: a refusal is a sentence (parser.error, exit status 2)."""
    if args.setup is not None and len(args.game or []) != 1:
        parser.error("--setup FILE is the position of one game: give exactly one --game")
    if args.players is not None and args.players < 1:
        parser.error("--players must be at least 1")
    games = args.game or table_games()
    for game in games:
        try:
            run_options(game, args.setup, args.players)
        except ValueError as e:     # a setup file the rules refuse (ScenarioError too)
            parser.error("%s: %s" % (game, e))
    return games


def play(game, seed, journal, rates=None, deadline=600.0, keep=None, setup=None,
         players=None):
    """Play one headless game; a dict: the summary, the actions, the time, or why not.

    ``keep``: a folder for the host's whole stderr (``NAME.err``, NAME the journal's) and
    every tile's log (FAIRYTABLE_TILE_LOGS), to read after a stall. ``setup``, ``players``:
    see run_options."""
    cmd = [sys.executable, "-m", "host.cli", "run", "--headless", "--json", "--new",
           "--seed", str(seed), "--journal", journal] + run_options(game, setup, players)
    if rates is not None:
        cmd += ["--line-faults", "%g,%g,%d" % (rates[0], rates[1], seed)]
    env = dict(os.environ)
    name = os.path.splitext(os.path.basename(journal))[0]
    if keep:
        env["FAIRYTABLE_TILE_LOGS"] = os.path.join(keep, name + "-tiles")
    started = time.monotonic()
    # The host must take SIGINT as Ctrl-C even when this tool runs in the background,
    # where a shell starts it with SIGINT ignored and its children would inherit that.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        out, err = proc.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        # Stopped as a person stops it (Ctrl-C): the host closes the table, which keeps
        # the tiles' logs; killed only if it does not end.
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        _keep_stderr(keep, name, err)
        # What the host said last (its mismatch, what it waits for) says where it stopped.
        return {"stalled": True, "seconds": time.monotonic() - started,
                "why": "no end within %.0f s; the host's last words: %s"
                       % (deadline, (err or "").strip()[-600:])}
    _keep_stderr(keep, name, err)
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    seconds = time.monotonic() - started
    try:
        summary = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"stalled": True, "seconds": seconds,
                "why": "exit %d: %s" % (done.returncode, done.stderr.strip()[-300:])}
    from host.journal import Journal
    j = Journal(journal)
    try:
        match, _info = j.load(summary["game_id"])
        actions = match.actions
    finally:
        j.close()
    tiles = summary.get("tiles", {}).values()
    return {"stalled": summary.get("status") != "finished", "seconds": seconds,
            "winner": summary.get("winner"), "scores": summary.get("scores"),
            "actions": actions, "status": summary.get("status"),
            "reconnects": sum(t["health"]["reconnects"] for t in tiles),
            "reboots": sum(t["health"]["reboots"] for t in tiles),
            "offline": sum(1 for t in tiles if not t["online"]),
            "resends": sum(t["health"]["resends"] for t in tiles),
            "crc_errors": sum(t["health"]["crc_errors"] for t in tiles),
            "mended": sum(t["health"].get("mended", 0) for t in tiles),
            # Reports older than one acted on (dropped), and slots a periodic snapshot
            # corrected: a report lost on the way, or overtaken by the snapshot.
            "stale": sum(t["health"].get("stale", 0) for t in tiles),
            "resync_changes": sum(t["health"].get("resync_changes", 0) for t in tiles),
            # A task of a tile that failed (a MemoryError, say) sends a LOG of level error.
            "tile_errors": sum(t["health"].get("errors_logged", 0) for t in tiles),
            "tile_error_lines": [line for line in done.stderr.splitlines()
                                 if line.startswith("tile ") and "Error" in line][:5],
            "why": None if summary.get("status") == "finished"
            else "status %s" % summary.get("status")}


def _keep_stderr(keep, name, text):
    if keep:
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, name + ".err"), "w") as f:
            f.write(text or "")


def same_game(a, b):
    """Why two played games differ, or None."""
    for key in ("status", "winner", "scores"):
        if key not in a and key not in b:
            continue
        if a[key] != b[key]:
            return "%s %r, its twin %r" % (key, a[key], b[key])
    if a["actions"] != b["actions"]:
        pairs = zip(a["actions"], b["actions"], strict=False)
        n = next((i for i, (x, y) in enumerate(pairs) if x != y),
                 min(len(a["actions"]), len(b["actions"])))
        return "actions differ from #%d (%d actions, its twin %d)" % (
            n, len(a["actions"]), len(b["actions"]))
    return None


def parse_rate(text):
    try:
        corrupt, drop = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("a rate is CORRUPT,DROP in percent (e.g. 10,1), "
                                         "not %r" % text) from None
    if not (0 <= corrupt <= 100 and 0 <= drop <= 100):
        raise argparse.ArgumentTypeError("rates are percentages from 0 to 100: %r" % text)
    return corrupt, drop


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=3, help="games of each game per rate")
    p.add_argument("--game", action="append", choices=table_games(),
                   help="only this game (repeatable; default: every game the table plays)")
    p.add_argument("--setup", default=None, metavar="FILE",
                   help="the games' position (the game's setup form; one --game only)")
    p.add_argument("--players", type=int, default=None,
                   help="players, all bots (default: as many as the game usually has)")
    p.add_argument("--rates", nargs="+", type=parse_rate, default=[(1, 0.1), (5, 0.5), (10, 1)],
                   help="CORRUPT,DROP percentages (default: 1,0.1 5,0.5 10,1)")
    p.add_argument("--seed", type=int, default=1000, help="the first game's seed")
    p.add_argument("--deadline", type=float, default=900.0,
                   help="seconds a game may take before it counts as stalled")
    p.add_argument("--json", action="store_true", help="one JSON object at the end")
    p.add_argument("--keep", default=None, metavar="FOLDER",
                   help="keep each game's host stderr and tile logs in FOLDER")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be at least 1")
    games = check_game_options(p, args)
    report = []
    with tempfile.TemporaryDirectory(prefix="line-faults-") as tmp:
        for game in games:
            twins = {}
            for i in range(args.games):
                seed = args.seed + i
                twins[seed] = play(game, seed, os.path.join(tmp, "twin-%s-%d.db" % (game, seed)),
                                   deadline=args.deadline, keep=args.keep, setup=args.setup,
                                   players=args.players)
                if twins[seed]["stalled"]:
                    print("%s seed %d: the fault-free twin did not end (%s)"
                          % (game, seed, twins[seed]["why"]), file=sys.stderr)
            for rates in args.rates:
                row = {"game": game, "corrupt_pct": rates[0], "drop_pct": rates[1], "games": 0,
                       "stalled": 0, "mismatched": 0, "reconnects": 0, "offline_tiles": 0,
                       "mended": 0, "stale": 0, "resync_changes": 0, "tile_errors": 0,
                       "seconds": [], "twin_seconds": [],
                       "problems": []}
                for i in range(args.games):
                    seed = args.seed + i
                    twin = twins[seed]
                    if twin["stalled"]:
                        continue
                    got = play(game, seed, os.path.join(tmp, "noisy-%s-%d-%g-%g.db" % (
                        game, seed, rates[0], rates[1])), rates, args.deadline, args.keep,
                        args.setup, args.players)
                    row["games"] += 1
                    row["seconds"].append(round(got["seconds"], 1))
                    row["twin_seconds"].append(round(twin["seconds"], 1))
                    if got["stalled"]:
                        row["stalled"] += 1
                        row["problems"].append("seed %d stalled: %s" % (seed, got["why"]))
                        print("%s %g/%g %% seed %d: STALLED: %s" % (
                            game, rates[0], rates[1], seed, got["why"]), file=sys.stderr,
                            flush=True)
                        continue
                    row["reconnects"] += got["reconnects"]
                    row["offline_tiles"] += got["offline"]
                    row["mended"] += got["mended"]
                    row["stale"] += got["stale"]
                    row["resync_changes"] += got["resync_changes"]
                    row["tile_errors"] += got["tile_errors"]
                    for line in got["tile_error_lines"]:
                        row["problems"].append("seed %d: %s" % (seed, line))
                    differs = same_game(got, twin)
                    if differs:
                        row["mismatched"] += 1
                        row["problems"].append("seed %d: %s" % (seed, differs))
                    print("%s %g/%g %% seed %d: %s in %.0f s (twin %.0f s), %d reconnects "
                          "(%d of them reboots), %d offline, %d host resends, %d damaged "
                          "frames, %d mended, %d stale, %d corrected by snapshot, %d tile "
                          "errors" % (
                              game, rates[0], rates[1], seed, differs or "same as its twin",
                              got["seconds"], twin["seconds"], got["reconnects"],
                              got["reboots"], got["offline"], got["resends"],
                              got["crc_errors"], got["mended"], got["stale"],
                              got["resync_changes"], got["tile_errors"]),
                          file=sys.stderr, flush=True)
                report.append(row)
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print("%-9s %9s %5s %7s %10s %10s %7s %7s %7s %9s %9s %9s" % (
            "game", "faults %", "games", "stalled", "mismatched", "reconnects", "offline",
            "mended", "t.errs", "mean s", "max s", "twin s"))
        for r in report:
            secs = r["seconds"] or [0]
            twin = r["twin_seconds"] or [0]
            print("%-9s %9s %5d %7d %10d %10d %7d %7d %7d %9.1f %9.1f %9.1f" % (
                r["game"], "%g/%g" % (r["corrupt_pct"], r["drop_pct"]), r["games"],
                r["stalled"], r["mismatched"], r["reconnects"], r["offline_tiles"],
                r["mended"], r["tile_errors"],
                sum(secs) / len(secs), max(secs), sum(twin) / len(twin)))
            for problem in r["problems"]:
                print("    " + problem)
    bad = any(r["stalled"] or r["mismatched"] or r["tile_errors"] for r in report)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
