"""The hall console with many tables: N simulated tables (a HallPublisher each, in this
process) publish at game rates through a real Mosquitto to `fairytable hall` (its own
process), both started here on free loopback ports.

    python -m tools.bench_hall_tables [--tables 100] [--seconds 20] [--rate 1] [--json]

Each table plays `--rate` moves a second (an event and a new summary each, as a table
does). Measured over `--seconds`: the events the console took in (the sum of every
table's last sequence number it shows, so a copy or a loss would show), the update
latency (a probe event every half second from a table in turn, until /api/hall shows it;
polled every 10 ms, so within 10 ms), /api/hall's answer time with every table in it, and
the CPU the broker and the console used (from /proc).
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import aiohttp

from host.hall import topics
from host.hall.publisher import HallPublisher
from tools.bench_hall import free_port, percentile, start_broker

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def cpu_s(pid):
    """CPU seconds (user and system) process `pid` has used."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def bench(port, console_port, console_pid, broker_pid, count, seconds, rate):
    broker = topics.parse_broker("mqtt://127.0.0.1:%d" % port)
    moves = [0] * count

    def summary_of(n):
        return lambda: {"game": "Storybook Battles", "status": "playing",
                        "status_words": "Playing", "actions": moves[n],
                        "players": [{"name": "Hero", "bot": True, "score": moves[n] // 3},
                                    {"name": "Villain", "bot": True, "score": moves[n] // 4}],
                        "tiles": {"online": 7, "total": 7, "offline": []}}
    tables = [HallPublisher(broker, "bench", "table-%d" % n, summary=summary_of(n),
                            log=lambda line: None) for n in range(count)]
    for t in tables:
        t.start()
    deadline = time.monotonic() + 120
    while not all(t.state == "ready" for t in tables):
        if time.monotonic() > deadline:
            raise SystemExit("bench_hall_tables: not every table got ready in 120 s")
        await asyncio.sleep(0.05)
    url = "http://127.0.0.1:%d/api/hall" % console_port
    async with aiohttp.ClientSession() as http:
        async def hall():
            started = time.perf_counter()
            async with http.get(url) as r:
                body = await r.json()
            return body, (time.perf_counter() - started) * 1000

        waited = time.monotonic() + 120
        while True:         # the console started, and showing every table
            try:
                if len((await hall())[0]["tables"]) >= count:
                    break
            except aiohttp.ClientError:
                pass
            if time.monotonic() > waited:
                raise SystemExit("bench_hall_tables: the console did not show every table")
            await asyncio.sleep(0.1)
        rng = random.Random(1)

        async def play(n):
            await asyncio.sleep(rng.uniform(0, 1.0 / rate))
            while True:
                moves[n] += 1
                tables[n].event("action", "Hero plays move %d." % moves[n])
                tables[n].changed()
                await asyncio.sleep(1.0 / rate)
        players = [asyncio.ensure_future(play(n)) for n in range(count)]
        start_view, _ = await hall()
        seq_start = sum(t["last_seq"] for t in start_view["tables"])
        cpu_start = (cpu_s(broker_pid), cpu_s(console_pid))
        started = time.monotonic()
        latencies, answer_ms = [], []
        probe = 0
        while time.monotonic() - started < seconds:
            probe += 1
            table = tables[probe % count]
            words = "probe %d" % probe
            sent = time.perf_counter()
            table.event("probe", words)
            while True:
                view, took = await hall()
                answer_ms.append(took)
                shown = [t for t in view["tables"] if t["name"] == table.table]
                if shown and words in shown[0]["events"]:
                    latencies.append((time.perf_counter() - sent) * 1000)
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(max(0.0, 0.5 - (time.perf_counter() - sent)))
        window = time.monotonic() - started
        cpu_end = (cpu_s(broker_pid), cpu_s(console_pid))
        end_view, _ = await hall()
        seq_end = sum(t["last_seq"] for t in end_view["tables"])
        for task in players:
            task.cancel()
    for t in tables:
        await t.stop()
    return {"tables": count, "seconds": round(window, 1), "rate": rate,
            "events_handled_per_s": int((seq_end - seq_start) / window),
            "update_latency_p50_ms": round(percentile(latencies, 50), 1),
            "update_latency_p99_ms": round(percentile(latencies, 99), 1),
            "api_hall_p50_ms": round(percentile(answer_ms, 50), 1),
            "api_hall_p99_ms": round(percentile(answer_ms, 99), 1),
            "broker_cpu_percent": round(100 * (cpu_end[0] - cpu_start[0]) / window, 1),
            "console_cpu_percent": round(100 * (cpu_end[1] - cpu_start[1]) / window, 1),
            "probes": len(latencies)}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.bench_hall_tables",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--rate", type=float, default=1.0, help="moves a second per table")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.tables < 1 or not args.seconds > 0 or not args.rate > 0:
        p.error("--tables, --seconds and --rate must be more than 0")
    folder = tempfile.mkdtemp(prefix="bench-hall-tables-")
    proc, port = start_broker(folder)
    console_port = free_port()
    console = subprocess.Popen([FAIRYTABLE, "hall", "--mqtt", "mqtt://127.0.0.1:%d" % port,
                                "--hall", "bench", "--web", "127.0.0.1:%d" % console_port,
                                "--staff-pin-file", os.path.join(folder, "hall.pin")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        out = asyncio.run(bench(port, console_port, console.pid, proc.pid, args.tables,
                                args.seconds, args.rate))
    finally:
        console.terminate()
        console.wait(10)
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        for key in sorted(out):
            print("%s: %s" % (key, out[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
