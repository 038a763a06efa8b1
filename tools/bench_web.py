"""Web table benchmark: from an accepted action to the browser showing it, and the host's CPU
with many spectators connected.

    python tools/bench_web.py [--game storybook] [--seconds 30] [--spectators 50]

1. Latency. A game of bots in every seat (the real virtual tiles, the virtual hands, bots at a
   300 ms pace, stopped after 60 actions) with the web table on; one Chromium page
   (Playwright, Debian's chromium) watches as a spectator. The
   journal stamps each accepted action (time.time() when it is recorded, before it is lit);
   the page notes the wall time it drew each new action count (window.fairytable.shown). The
   latency of an action is the time from its journal stamp to the page drawing it: a view
   that skipped actions (drop-to-latest) counts for the newest one. p50 / p99 / max in ms.
2. CPU. The same kind of game for --seconds, once with no spectator and once with
   --spectators WebSocket clients (aiohttp, on loopback): the host process's own CPU time
   (utime + stime from /proc, the tiles' processes not counted) over the wall time.

    python tools/bench_web.py --views --game fairytale --players 10 [--actions 150]

3. Views (`--views`): no tiles and no browser: a game of greedy bots played on the engine
   through a table session (a scripted link) for --actions actions, then 20 more; after
   each of those the web table builds every kind of viewer's view once (a spectator's and
   each seat's, as it does on every change with every seat's page open). The CPU time of one
   view (median and most, per viewer) and of all of them for one change, in ms.

Prints one JSON object. Machines differ: compare runs on one machine.
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PACE_MS = 300


def start_host(folder, game, port, extra=()):
    journal = os.path.join(folder, "journal.db")
    # Bots in every seat, played through the virtual hands at a brisk pace (each action
    # its own change on the page); the game stops after --max-actions.
    cmd = [FAIRYTABLE, "run", "--new", "--pace", str(PACE_MS), "--seed", "5",
           "--web", "127.0.0.1:%d" % port, "--journal", journal,
           "--staff-pin-file", os.path.join(folder, "staff.pin")]
    if game == "royale":
        cmd += ["--game", "royale", "--players", "3", "--bots", "3"]
    else:
        cmd += ["--bots", "2"]
    out = open(os.path.join(folder, "host-%d.log" % port), "w+")
    proc = subprocess.Popen(cmd + list(extra), stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        out.flush()
        with open(out.name) as f:
            if "web table: http" in f.read():
                return proc, journal
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    stop(proc)
    raise SystemExit("bench_web: the host did not start; see %s" % out.name)


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    values = sorted(values)
    if not values:
        return None
    k = min(len(values) - 1, max(0, int(round(p / 100.0 * (len(values) - 1)))))
    return values[k]


ACTIONS = 60


def latency(game, folder):
    from playwright.sync_api import sync_playwright
    chromium = os.environ.get("FAIRYTABLE_CHROMIUM") or "/usr/bin/chromium"
    port = free_port()
    proc, journal = start_host(folder, game, port, ["--max-actions", str(ACTIONS)])
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto("http://127.0.0.1:%d/" % port)
            while proc.poll() is None:
                time.sleep(0.5)
            page.wait_for_timeout(500)
            shown = page.evaluate("window.fairytable.shown")
            browser.close()
    finally:
        stop(proc)
    db = sqlite3.connect(journal)
    stamps = dict(((g, seq), at) for g, seq, at in
                  db.execute("SELECT game_id, seq, at FROM actions"))
    db.close()
    ms = []
    # The first view is the page connecting, not an action being shown: left out.
    for entry in shown[1:]:
        at = stamps.get((entry["game_id"], entry["actions"] - 1))
        if at is not None:
            ms.append(entry["at"] - at * 1000.0)
    return {"actions_shown": len(ms), "actions": len(stamps),
            "p50_ms": round(percentile(ms, 50), 1), "p99_ms": round(percentile(ms, 99), 1),
            "max_ms": round(max(ms), 1)}


async def spectate(port, n, seconds):
    import aiohttp
    received = [0]

    async def one(http):
        try:
            async with http.ws_connect("http://127.0.0.1:%d/ws" % port) as ws:
                async for msg in ws:
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        received[0] += 1
        except aiohttp.ClientError:
            pass

    async with aiohttp.ClientSession() as http:
        tasks = [asyncio.ensure_future(one(http)) for _ in range(n)]
        await asyncio.sleep(seconds)
        for t in tasks:
            t.cancel()
    return received[0]


def cpu(game, folder, spectators, seconds):
    port = free_port()
    # A long game: bots play on for the whole measurement (it is stopped at the end).
    proc, _ = start_host(folder, game, port, ["--max-actions", "10000"])
    try:
        time.sleep(2)
        before, t0 = cpu_s(proc.pid), time.monotonic()
        received = asyncio.run(spectate(port, spectators, seconds)) if spectators else (
            time.sleep(seconds) or 0)
        used, wall = cpu_s(proc.pid) - before, time.monotonic() - t0
        finished = proc.poll() is not None
    finally:
        stop(proc)
    return {"spectators": spectators, "host_cpu_percent": round(100.0 * used / wall, 1),
            "messages_received": received, "game_ended_early": finished}


def views(game_name, players, actions, rounds=20):
    """Each kind of viewer's view built on a game `actions` actions in (ms)."""
    sys.path.insert(0, ROOT)
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "host"))
    from host import games
    from host.clock import ManualClock
    from host.session import TableSession
    from host.table import layout as layouts
    from host.table import tags
    from host.web.view import WebTable
    from shared_rules.engine import Match
    from test_session_clock import ScriptedLink
    game = games.table_game(game_name)
    layout = layouts.load(layouts.builtin_path(game_name))
    uids = ["e6614104%08x" % (i + 1) for i in range(len(layout.tiles))]
    with tempfile.TemporaryDirectory() as folder:
        registry = tags.Registry(tags.load_key(os.path.join(folder, "key")))
        options = dict(game.options)
        if players:
            options["players"] = players
        match = Match(game_name, options, 5)
        session = TableSession(match, layout, ScriptedLink(ManualClock()), registry, uids,
                               clock=ManualClock())
        web = WebTable(session)
        viewers = [None] + list(match.state.seats)
        took = dict((v, []) for v in viewers)
        changes = []
        while match.engine.status(match.state) == "ongoing" and \
                len(match.actions) < actions + rounds:
            seat = game.actors(match.state)[0]
            session.apply(game.bot_action("greedy", match.engine, match.state, seat, 5))
            if len(match.actions) <= actions:
                continue
            change = 0.0
            for viewer in viewers:
                start = time.process_time()     # CPU time: a shared machine's load aside
                web.view(viewer)
                took[viewer].append(1000.0 * (time.process_time() - start))
                change += took[viewer][-1]
            changes.append(change)

        def middle(xs):
            xs = sorted(xs)
            return round(xs[len(xs) // 2], 1) if xs else None

        return {"game": game_name, "players": len(match.state.seats),
                "actions": len(match.actions), "changes": len(changes),
                "view_ms": dict((v or "spectator", {"median": middle(took[v]), "most": round(
                    max(took[v]), 1) if took[v] else None}) for v in viewers),
                "every_viewer_per_change_ms": {"median": middle(changes), "most": round(
                    max(changes), 1) if changes else None}}


def main(argv=None):
    from host import games
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="storybook", choices=games.names())
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--spectators", type=int, default=50)
    p.add_argument("--views", action="store_true",
                   help="only the time to build each kind of viewer's view")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--actions", type=int, default=150)
    args = p.parse_args(argv)
    if args.views:
        print(json.dumps(views(args.game, args.players, args.actions), sort_keys=True))
        return
    if args.game not in ("storybook", "royale"):
        p.error("the latency and CPU runs play storybook or royale; --views takes any game")
    with tempfile.TemporaryDirectory() as folder:
        out = {"game": args.game, "latency": latency(args.game, os.path.join(folder, "a")
                                                     if os.makedirs(os.path.join(folder, "a"))
                                                     is None else folder)}
        os.makedirs(os.path.join(folder, "b"))
        os.makedirs(os.path.join(folder, "c"))
        out["cpu_idle"] = cpu(args.game, os.path.join(folder, "b"), 0, args.seconds)
        out["cpu_watched"] = cpu(args.game, os.path.join(folder, "c"), args.spectators,
                                 args.seconds)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
