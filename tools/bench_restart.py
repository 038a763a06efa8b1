"""Back in play after a crash: kill -9 of the host at several points of a game, for every
game the table plays, and how long the restarted host takes to light the table as before.

    python tools/bench_restart.py [--game fairytale --game royale] [--kills 4] [--seed 3]
                                  [--players fairytale=10] [--json]

For each game (the host's registry, host/games/__init__.py; `--game` chooses), all bots, as
many players as the game usually has (`--players GAME=N`; Fairytale Games plays 10 by
default, its longest game): first the uninterrupted twin, a headless `fairytable run` with a
fresh journal, which gives the game's length and its end. Then the same game again, killed
with `kill -9` once the journal holds each of `--kills` action counts spread evenly over
the game, and each time restarted with the same
command and journal, plus `--timings` (host/run.py): the restarted host says, in ms since
its process started, when it had imported its modules ("imports"), checked the journal
("journal"), replayed the game ("replay"), seen every tile's HELLO ("tiles"), had the
virtual hands set out the journal's cards ("set_out"), had every tile acknowledge the
scenes of the game's state ("lit") and accepted its first action ("first_action").
The last restart plays to the end, which must be the twin's (winner, scores, every action).

One JSON line per restart, then one per game with the median and the worst "lit", and a
Markdown table (`--json`: the JSON lines only). Exit status 1 if a game ended otherwise
than its twin, or a restart said no "lit".
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill_games import journal_count, outcome  # noqa: E402
from line_faults import run_options, same_game, table_games  # noqa: E402
# (scripts beside this one)

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
MARKS = ("imports", "journal", "replay", "tiles", "set_out", "lit", "first_action")
# The longest game of each game the table plays, in players (Fairytale Games: ten players,
# about 400-500 actions); the others at their usual count.
LONG_PLAYERS = {"fairytale": 10}


def command(game, seed, journal, players=None, setup=None):
    return [FAIRYTABLE, "run", "--headless", "--json", "--seed", str(seed),
            "--journal", journal] + run_options(game, setup, players)


class Host:
    """One `fairytable run` process; its --timings lines read as they come."""

    def __init__(self, cmd, env=None):
        self.timings = {}
        self.more = {}
        self.stderr = []
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True, env=env)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").strip()
            self.stderr.append(line)
            if line.startswith('{"') and '"timing"' in line:
                try:
                    mark = json.loads(line)
                except ValueError:
                    continue
                self.timings[mark["timing"]] = mark["ms"]
                self.more[mark["timing"]] = mark

    def kill(self):
        """kill -9 of the host alone, as a crash; then of what it left (its tiles end by
        themselves; a tile still running would only slow the next start down)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.reader.join(5)

    def finish(self, timeout):
        stdout = self.proc.stdout.read()
        self.proc.wait(timeout)
        self.reader.join(5)
        return stdout


def kill_points(length, kills):
    """`kills` action counts spread evenly inside a game of `length` actions (a kill once
    the journal holds k actions; never at the end, where the game is over before the kill
    lands)."""
    return sorted(set(length * (i + 1) // (kills + 1) for i in range(kills)) - {0})


def twin(game, seed, players, workdir, timeout, env=None, setup=None):
    """The uninterrupted game: its outcome (kill_games.outcome: status, winner, scores,
    the journal's actions)."""
    journal = os.path.join(workdir, "twin-%s.db" % game)
    proc = subprocess.run(command(game, seed, journal, players, setup) + ["--new"],
                          capture_output=True, timeout=timeout, env=env)
    result = outcome(proc.stdout, journal)
    if proc.returncode != 0 or result is None or result["status"] != "finished":
        raise SystemExit("bench_restart: the uninterrupted %s game (seed %d) did not finish:\n%s"
                         % (game, seed, proc.stderr.decode()[-2000:]))
    return result


LIT_GRACE_S = 30


def wait_for(host, journal, count, timeout):
    deadline = time.monotonic() + timeout
    while host.proc.poll() is None and journal_count(journal) < count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return host.proc.poll() is None


def chain(game, seed, players, points, workdir, timeout, env=None, setup=None,
          lit_patience=None):
    """Play the game killed at each of `points` (journalled actions) and restarted; returns
    ([one record per restart], the finished game's outcome or None, the last host).
    `lit_patience`: `fairytable run --lit-patience` (seconds; None: its default)."""
    journal = os.path.join(workdir, "chain-%s.db" % game)
    cmd = command(game, seed, journal, players, setup)
    if lit_patience is not None:
        cmd += ["--lit-patience", str(lit_patience)]
    host = Host(cmd + ["--new"], env)
    records = []
    for point in points:
        if not wait_for(host, journal, point, timeout):
            ended = host.proc.poll()
            host.kill()
            raise SystemExit("bench_restart: the %s game %s before action %d (the journal "
                             "holds %d); the host's last words:\n%s"
                             % (game, "stalled" if ended is None else
                                "ended (exit status %d)" % ended, point,
                                journal_count(journal), "\n".join(host.stderr[-15:])))
        host.kill()
        at = journal_count(journal)
        host = Host(cmd + ["--timings"], env)
        # Wait for the restart's first action and its "lit" mark (or its end), then the next
        # kill. A bot's first move may be applied before every tile has acknowledged the
        # first scenes (a button needs no tile), so "lit" may come just after it: it is
        # awaited up to LIT_GRACE_S more.
        deadline = time.monotonic() + timeout
        while "first_action" not in host.timings and host.proc.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        deadline = min(deadline, time.monotonic() + LIT_GRACE_S)
        while "lit" not in host.timings and "unlit" not in host.timings and \
                host.proc.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        if host.proc.poll() is not None:
            host.reader.join(5)     # a host that ended: read the marks it wrote last
        record = {"game": game, "killed_at_action": at}
        record.update({m: host.timings.get(m) for m in MARKS})
        lit = host.more.get("lit") or {}
        record["lit_actions"] = lit.get("actions")
        record["lit_scenes"] = lit.get("scenes")
        record["lit_cpu_ms"] = lit.get("cpu_ms")
        # When a tile left its first lights unacknowledged past its patience (the game
        # went on without "lit"), or None.
        record["unlit"] = host.timings.get("unlit")
        record["cpu_ms"] = dict((m, host.more[m]["cpu_ms"]) for m in MARKS
                                if "cpu_ms" in host.more.get(m, {}))
        records.append(record)
    stdout = host.finish(timeout)
    return records, outcome(stdout, journal), host


def median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", action="append", choices=table_games(),
                   help="a game (repeatable; default: every game the table plays)")
    p.add_argument("--kills", type=int, default=4, help="kills per game (default 4)")
    p.add_argument("--seed", type=int, default=3, help="the games' seed")
    p.add_argument("--players", action="append", default=[], metavar="GAME=N",
                   help="players of a game (default: fairytale=10, the others their usual)")
    p.add_argument("--timeout", type=int, default=900, help="seconds a game may take")
    p.add_argument("--json", action="store_true", help="JSON lines only")
    p.add_argument("--no-bytecode", action="store_true",
                   help="hosts compile every module at each start, as with "
                   "PYTHONDONTWRITEBYTECODE=1 (default: they keep compiled bytecode, as an "
                   "installed host does: pip compiles it at install)")
    args = p.parse_args(argv)
    if args.kills < 1:
        p.error("--kills must be at least 1")
    players = dict(LONG_PLAYERS)
    for text in args.players:
        name, _, count = text.partition("=")
        if name not in table_games() or not count.isdigit():
            p.error("--players takes GAME=N with GAME one of %s" % ", ".join(table_games()))
        players[name] = int(count)
    games = args.game or table_games()
    env = dict(os.environ)
    if args.no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    bad = 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as workdir:
        for game in games:
            ref = twin(game, args.seed, players.get(game), workdir, args.timeout, env)
            points = kill_points(len(ref["actions"]), args.kills)
            records, result, host = chain(game, args.seed, players.get(game), points,
                                          workdir, args.timeout, env)
            for record in records:
                print(json.dumps(record, sort_keys=True), flush=True)
            why = same_game(result, ref) if result is not None else \
                "no summary; the host's last words: %s" % " | ".join(host.stderr[-3:])
            lits = [r["lit"] for r in records if r["lit"] is not None]
            summary = {"game": game, "players": players.get(game), "seed": args.seed,
                       "load": open("/proc/loadavg").read().split()[0] if os.path.exists(
                           "/proc/loadavg") else None,
                       "actions": len(ref["actions"]), "kills": len(records),
                       "lit_median_ms": median(lits), "lit_max_ms": max(lits) if lits else None,
                       "same_end": why is None}
            if why is not None:
                summary["why"] = why
            if why is not None or len(lits) != len(records):
                bad += 1
            print(json.dumps(summary, sort_keys=True), flush=True)
            rows.append((summary, records))
    if not args.json:
        print()
        print("| game | actions | killed after | " + " | ".join(MARKS) + " | lit, CPU |")
        print("|---|---|---|" + "---|" * len(MARKS) + "---|")
        for summary, records in rows:
            for r in records:
                print("| %s | %d | %d | %s | %s |" % (
                    summary["game"], summary["actions"], r["killed_at_action"],
                    " | ".join("-" if r[m] is None else "%.0f" % r[m] for m in MARKS),
                    "-" if r["lit_cpu_ms"] is None else "%.0f" % r["lit_cpu_ms"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
