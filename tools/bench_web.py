"""Web table benchmark: from an accepted action to the browser showing it, and the host's CPU
with many spectators connected.

    python tools/bench_web.py [--game storybook] [--actions 150] [--spectators 0 50 200]
                              [--profile FOLDER]

One run for each number of --spectators: games of bots in every seat (the real virtual
tiles, the virtual hands, bots at a 300 ms pace; a Storybook game is about 50 actions), one
after another until the page has shown --actions actions, with the web table on; one
Chromium page (Playwright, Debian's chromium) watches as a spectator and, all along, that
many more spectators are connected as WebSocket clients (aiohttp, on loopback, in a thread
of this process) that read every message: as the table's pages do in a browser that can
inflate (all current ones), they ask for the views packed (`/ws?views=deflate`: one zlib
compression per change for every page); with --no-packed, as a page that cannot, they take
permessage-deflate instead (aiohttp compresses each message for each page; --no-deflate:
not that either).
1. Latency. The journal stamps each accepted action (time.time() when it is recorded, before
   it is lit); the page notes the wall time it drew each new action count
   (window.fairytable.shown). The latency of an action is the time from its journal stamp to
   the page drawing it: a view that skipped actions (drop-to-latest) counts for the newest
   one. p50 / p99 / max in ms.
2. CPU. The host process's own CPU time (utime + stime from /proc, the tiles' processes not
   counted) over the wall time from every page connected to the game's end, in percent of
   one core, and in ms per action played (which a loaded machine's slower game leaves
   alone).
3. With --profile FOLDER: py-spy (pip install py-spy) samples the host over the same time;
   its raw stacks are kept in FOLDER and the samples are split by where they were: building
   the views (WebTable.view), turning them into JSON (json.dumps and the last guard),
   sending (aiohttp's WebSocket writer, the senders), and everything else.

    python tools/bench_web.py --views --game fairytale --players 10 [--actions 150]

4. Views (`--views`): no tiles and no browser: a game of greedy bots played on the engine
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


ACTIONS = 150


class Spectators:
    """`n` WebSocket spectators (aiohttp, on loopback) in a thread of their own, each reading
    every message, until stop()."""

    def __init__(self, port, n, deflate=True, packed=True):
        import threading
        self.port, self.n, self.deflate, self.packed = port, n, deflate, packed
        self.connected = 0
        self.received = 0
        self.bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._thread.start()

    async def _run(self):
        import aiohttp

        async def one(http):
            try:
                # The views packed, as the table's pages ask (unless --no-packed);
                # permessage-deflate offered, as browsers do (unless --no-deflate).
                async with http.ws_connect("http://127.0.0.1:%d/ws%s" % (
                        self.port, "?views=deflate" if self.packed else ""),
                        max_msg_size=0, compress=15 if self.deflate else 0) as ws:
                    self.connected += 1
                    async for msg in ws:
                        if msg.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                            self.received += 1
                            self.bytes += len(msg.data)
            except aiohttp.ClientError:
                pass

        # No limit on connections (aiohttp's default is 100 at once).
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            tasks = [asyncio.ensure_future(one(http)) for _ in range(self.n)]
            while not self._stop.is_set():
                await asyncio.sleep(0.1)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def wait_connected(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while self.connected < self.n and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.connected

    def stop(self):
        self._stop.set()
        self._thread.join(30)


# Where a sample of the host's stack was, the first that matches (py-spy's raw frames are
# "function (path:line)"): building the views, JSON, sending, the rest.
PARTS = (("views", ("view (host/web/view.py",)),
         ("json", ("json/", "view_text (host/web/server.py")),
         ("sending", ("aiohttp/", "_sender (host/web/server.py", "asyncio/selector_events.py",
                      "offer (host/web/server.py", "_publish (host/web/server.py")))


# A sample whose innermost frame is one of these is a thread waiting, not working
# (py-spy --nonblocking cannot always tell).
IDLE = ("EpollSelector.select (", "VirtualTable._watchdog (host/virtual/table.py:709)",
        "VirtualTable._serve (host/virtual/table.py:741)", "Condition.wait (",
        "_worker (concurrent/futures/thread.py")


def profile_split(raw_paths):
    """The host's busy samples (py-spy raw files) split by PARTS, in percent of the busy
    ones."""
    counts = dict((name, 0) for name, _ in PARTS)
    counts["other"] = 0
    total = idle = 0
    lines = []
    for path in raw_paths:
        with open(path) as f:
            lines += f.readlines()
    for line in lines:
        stack, _, n = line.rstrip("\n").rpartition(" ")
        if not n.isdigit():
            continue
        n = int(n)
        leaf = stack.strip().rsplit(";", 1)[-1]
        if not leaf or leaf.startswith(IDLE):
            idle += n
            continue
        total += n
        for name, marks in PARTS:
            if any(m in stack for m in marks):
                counts[name] += n
                break
        else:
            counts["other"] += n
    return {"busy_samples": total, "idle_samples": idle, "percent": dict(
        (k, round(100.0 * v / total, 1) if total else None) for k, v in counts.items())}


def one_game(game, folder, spectators, raw=None, deflate=True, packed=True):
    """One game watched by Chromium and `spectators` WebSocket clients: (latencies in ms,
    host CPU seconds, wall seconds, the spectators' messages and bytes)."""
    from playwright.sync_api import sync_playwright
    chromium = os.environ.get("FAIRYTABLE_CHROMIUM") or "/usr/bin/chromium"
    port = free_port()
    proc = crowd = spy = None
    try:
        with sync_playwright() as p:
            # The browser first: the game starts with the host, and a loaded machine takes
            # seconds to start Chromium.
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page()
            proc, journal = start_host(folder, game, port, ["--max-actions", "1000"])
            if spectators:
                crowd = Spectators(port, spectators, deflate, packed)
                crowd.wait_connected()
            page.goto("http://127.0.0.1:%d/" % port)
            if raw:
                spy = subprocess.Popen(
                    [os.path.join(os.path.dirname(sys.executable), "py-spy"), "record",
                     "--pid", str(proc.pid), "--format", "raw", "--nonblocking",
                     "--rate", "500", "--output", raw],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            before, t0 = cpu_s(proc.pid), time.monotonic()
            used = wall = 0.0
            while proc.poll() is None:
                try:
                    used, wall = cpu_s(proc.pid) - before, time.monotonic() - t0
                except OSError:
                    break
                time.sleep(0.2)
            page.wait_for_timeout(500)
            shown = page.evaluate("window.fairytable.shown")
            browser.close()
    finally:
        if spy is not None and spy.poll() is None:
            spy.send_signal(signal.SIGINT)
            try:
                spy.wait(30)
            except subprocess.TimeoutExpired:
                spy.kill()
        if crowd is not None:
            crowd.stop()
        if proc is not None:
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
    return (ms, len(stamps), used, wall, crowd.received if crowd else 0,
            crowd.bytes if crowd else 0, crowd.connected if crowd else 0)


def run(game, folder, spectators, actions, profile=None, deflate=True, packed=True):
    """Games watched by Chromium and `spectators` WebSocket clients until the page has shown
    at least `actions` actions: their latencies, the host's CPU, and (profile) where it went."""
    ms, played, used, wall, received, size, connected, raws = [], 0, 0.0, 0.0, 0, 0, [], []
    n = 0
    while len(ms) < actions:
        n += 1
        where = os.path.join(folder, "game-%d" % n)
        os.makedirs(where)
        raw = os.path.join(profile, "host-%d-spectators-game-%d.raw" % (spectators, n)) \
            if profile else None
        g = one_game(game, where, spectators, raw, deflate, packed)
        ms += g[0]
        played += g[1]
        used += g[2]
        wall += g[3]
        received += g[4]
        size += g[5]
        connected.append(g[6])
        if raw and os.path.exists(raw):
            raws.append(raw)
        if not g[0]:
            raise SystemExit("bench_web: the page showed no action (see %s)" % where)
    out = {"spectators": spectators, "games": n, "actions": played, "actions_shown": len(ms),
           "p50_ms": round(percentile(ms, 50), 1), "p99_ms": round(percentile(ms, 99), 1),
           "max_ms": round(max(ms), 1),
           "host_cpu_percent": round(100.0 * used / wall, 1) if wall else None,
           # A loaded machine slows the game (fewer actions a second, a lower percent):
           # the CPU per action played does not depend on how long the game took.
           "host_cpu_ms_per_action": round(1000.0 * used / played, 1) if played else None,
           "seconds": round(wall, 1)}
    if spectators:
        out["spectator_messages"] = received
        out["spectator_mb"] = round(size / 1e6, 1)
        out["spectators_connected"] = min(connected)
    if raws:
        out["profile"] = profile_split(raws)
    return out


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
    p.add_argument("--spectators", type=int, nargs="+", default=[0, 50, 200],
                   help="one run for each number of WebSocket spectators (besides Chromium)")
    p.add_argument("--profile", default=None, metavar="FOLDER",
                   help="sample the host with py-spy; its stacks kept in FOLDER")
    p.add_argument("--no-packed", action="store_true",
                   help="the spectators do not ask for packed views (the table's pages do "
                   "where the browser can inflate them)")
    p.add_argument("--no-deflate", action="store_true",
                   help="the spectators do not ask for permessage-deflate (browsers do)")
    p.add_argument("--views", action="store_true",
                   help="only the time to build each kind of viewer's view")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--actions", type=int, default=None,
                   help="actions of each game (default %d; with --views 150)" % ACTIONS)
    args = p.parse_args(argv)
    if args.views:
        print(json.dumps(views(args.game, args.players, args.actions or 150), sort_keys=True))
        return
    if args.game not in ("storybook", "royale"):
        p.error("the latency and CPU runs play storybook or royale; --views takes any game")
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)
    out = {"game": args.game, "actions": args.actions or ACTIONS,
           "deflate": not args.no_deflate, "packed": not args.no_packed, "runs": []}
    with tempfile.TemporaryDirectory() as folder:
        for i, n in enumerate(args.spectators):
            os.makedirs(os.path.join(folder, str(i)))
            out["runs"].append(run(args.game, os.path.join(folder, str(i)), n,
                                   args.actions or ACTIONS, args.profile,
                                   not args.no_deflate, not args.no_packed))
            print(json.dumps(out["runs"][-1], sort_keys=True), file=sys.stderr, flush=True)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
