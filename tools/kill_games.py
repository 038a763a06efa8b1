"""Kill the host, or one tile, at random moments of whole games; the game must end as if
nothing had happened.

    python tools/kill_games.py --what host --trials 100 [--game storybook --game royale] [--seed 1]
    python tools/kill_games.py --what tile --trials 50
    python tools/kill_games.py --what tile --trials 5 --game fightclub --setup short.json
    python tools/kill_games.py --what host --trials 6 --game storybook --level hard

The games are every game the table plays (the host's registry, host/games/__init__.py;
`--game` chooses among them, in turn), all bots: as many players as the game usually has
(`--players` chooses), normal bots unless `--level` says (the resumed run is not told: the
journal keeps the bots' levels), set up by the book unless `--setup FILE` gives the position (one
`--game` only). Each trial plays a headless game of `fairytable run` on the virtual table
with a fresh journal, and at a random moment inside the game: once the journal holds a
number of
actions drawn from 0 to the uninterrupted game's count less one, and a random fraction of
a second later (a moment counted in actions, not seconds, lands inside the game however
busy the machine is):

- ``--what host``: `kill -9` of the host process alone, as a crash does. Its tile processes
  must go by themselves (a tile left running is an orphan, and counted), then the same
  command runs again and must resume the game from the journal.
- ``--what tile``: `kill -9` of one tile process, as a brown-out does. The virtual table
  restarts it (a real tile's watchdog reboots it) and the game goes on.

Either way the finished game is compared with its uninterrupted twin: the winner, the
scores and the journal's action list must be the same. One JSON line per trial, then a
summary line; exit status 1 when any trial differed, stalled or left an orphan. A trial
whose game ended before its moment came is not a kill: it is counted as ``missed`` and
another moment is drawn, so ``--trials N`` is N kills. A trial that differed says why
(the first field that differs, or the host's last words when it printed no summary).
"""

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from line_faults import check_game_options, run_options, same_game, table_games  # noqa: E402
# (a script beside this one)

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


class Lcg:
    def __init__(self, seed):
        self.state = seed & 0x7FFFFFFF

    def below(self, n):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.state >> 4) % n


def command(game, seed, journal, setup=None, players=None, level=None):
    return [FAIRYTABLE, "run", "--headless", "--json", "--seed", str(seed),
            "--journal", journal] + run_options(game, setup, players) + (
                ["--level", level] if level else [])


def journal_count(path):
    """How many actions the journal holds now (0 before the host has made it)."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
    except sqlite3.Error:
        return 0
    try:
        return db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def journal_finished(path):
    """Whether the journal's game is marked finished (False if it cannot be read)."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT finished FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return bool(row and row[0])
    except sqlite3.Error:
        return False
    finally:
        db.close()


def journal_actions(path):
    db = sqlite3.connect(path)
    try:
        return [a for (a,) in db.execute("SELECT action FROM actions ORDER BY seq")]
    finally:
        db.close()


def outcome(stdout, journal):
    try:
        summary = json.loads(stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
    return {"status": summary.get("status"), "winner": summary.get("winner"),
            "scores": summary.get("scores"), "actions": journal_actions(journal)}


def descendants(pid):
    """Every process whose parent chain leads to pid (Linux /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def tile_processes(host_pid):
    """The host's virtual tiles: processes running the tile firmware."""
    tiles = []
    for pid in descendants(host_pid):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"firmware" in cmd or b"micropython" in cmd or b"tile" in cmd:
            tiles.append(pid)
    return sorted(tiles)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def reference(game, seed, workdir, timeout, setup=None, players=None, level=None):
    journal = os.path.join(workdir, "ref-%s-%d.db" % (game, seed))
    started = time.monotonic()
    proc = subprocess.run(command(game, seed, journal, setup, players, level) + ["--new"],
                          capture_output=True, timeout=timeout)
    took = time.monotonic() - started
    result = outcome(proc.stdout, journal)
    if proc.returncode != 0 or result is None or result["status"] != "finished":
        raise SystemExit("kill_games: the uninterrupted %s game (seed %d) did not finish:\n%s"
                         % (game, seed, proc.stderr.decode()[-2000:]))
    return result, took


def trial(what, game, seed, at, pick, workdir, timeout, number, setup=None, players=None,
          level=None):
    journal = os.path.join(workdir, "trial-%d.db" % number)
    host = subprocess.Popen(command(game, seed, journal, setup, players, level) + ["--new"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    at_action, after_s = at
    record = {"trial": number, "what": what, "game": game, "seed": seed,
              "at_action": at_action, "after_s": after_s}
    orphans = 0
    started = time.monotonic()
    try:
        while host.poll() is None and journal_count(journal) < at_action:
            time.sleep(0.05)
        time.sleep(after_s)
        record["at_s"] = round(time.monotonic() - started, 1)
        if host.poll() is not None:
            record["killed"] = False        # the game ended first: nothing to compare
        elif what == "host":
            tiles = tile_processes(host.pid)
            os.kill(host.pid, signal.SIGKILL)
            host.wait()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(alive(p) for p in tiles):
                time.sleep(0.1)
            orphans = sum(1 for p in tiles if alive(p))
            # A host killed while it shut down after the last action left a finished game:
            # run again, it would start the next game. The moment missed the game.
            record["killed"] = not journal_finished(journal)
        else:
            # Before its tiles have started there is no tile to kill: the moment waits.
            deadline = time.monotonic() + 60
            tiles = tile_processes(host.pid)
            while not tiles and host.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
                tiles = tile_processes(host.pid)
            if tiles and host.poll() is None:
                os.kill(tiles[pick % len(tiles)], signal.SIGKILL)
                record["killed"] = True
            else:
                record["killed"] = False
        if what == "host" and record["killed"]:
            proc = subprocess.run(command(game, seed, journal, setup, players),
                                  capture_output=True, timeout=timeout)
            stdout, stderr = proc.stdout, proc.stderr
        else:
            stdout, stderr = host.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        record["stalled"] = True
        return record, None, orphans, b""
    finally:
        try:
            os.killpg(host.pid, signal.SIGKILL)
        except OSError:
            pass
        host.wait()
    return record, outcome(stdout, journal), orphans, stderr


def why_differs(result, ref, stderr):
    """The first way a finished trial differs from its twin, in words."""
    if result is None:
        lines = stderr.decode(errors="replace").strip().splitlines()
        return "no summary printed; the host's last words: %s" % " | ".join(lines[-3:])
    return same_game(result, ref)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--what", choices=["host", "tile"], required=True)
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--game", action="append", choices=table_games(),
                   help="a game to play (repeatable; default: every game the table plays)")
    p.add_argument("--setup", default=None, metavar="FILE",
                   help="the games' position (the game's setup form; one --game only)")
    p.add_argument("--players", type=int, default=None,
                   help="players, all bots (default: as many as the game usually has)")
    p.add_argument("--level", default=None, choices=["easy", "normal", "hard"],
                   help="the bots' level (default: normal)")
    p.add_argument("--seeds", default="3,11,17", help="game seeds to draw from")
    p.add_argument("--seed", type=int, default=1, help="seed of the kill moments")
    p.add_argument("--timeout", type=int, default=600, help="seconds a game may take")
    args = p.parse_args(argv)
    if args.trials < 1:
        p.error("--trials must be at least 1")
    games = check_game_options(p, args)
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        p.error("--seeds takes whole numbers separated by commas")
    rng = Lcg(args.seed)
    totals = {"trials": 0, "killed": 0, "same": 0, "differed": 0, "stalled": 0,
              "orphans": 0, "missed": 0}
    with tempfile.TemporaryDirectory(prefix="kill-games-") as workdir:
        refs = {}
        number = -1
        while totals["killed"] + totals["stalled"] < args.trials:
            number += 1
            if totals["missed"] > args.trials:
                print("kill_games: more games ended before their moment than trials asked "
                      "for; stopping", file=sys.stderr)
                break
            game = games[number % len(games)]
            seed = seeds[rng.below(len(seeds))]
            if (game, seed) not in refs:
                refs[(game, seed)] = reference(game, seed, workdir, args.timeout, args.setup,
                                               args.players, args.level)
            ref, _took = refs[(game, seed)]
            # A moment inside the game: after action k (0: before the first), before the last.
            at = (rng.below(max(1, len(ref["actions"]) - 1)), rng.below(6) / 10.0)
            record, result, orphans, stderr = trial(args.what, game, seed, at,
                                                    rng.below(1000), workdir, args.timeout,
                                                    number, args.setup, args.players,
                                                    args.level)
            totals["trials"] += 1
            totals["orphans"] += orphans
            record["orphans"] = orphans
            if record.get("stalled"):
                totals["stalled"] += 1
            elif record.get("killed"):
                totals["killed"] += 1
                record["same"] = result == ref
                totals["same" if record["same"] else "differed"] += 1
                if not record["same"]:
                    record["why"] = why_differs(result, ref, stderr)
            else:
                totals["missed"] += 1
            print(json.dumps(record, sort_keys=True), flush=True)
    print(json.dumps({"summary": totals}, sort_keys=True), flush=True)
    bad = totals["differed"] or totals["stalled"] or totals["orphans"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
