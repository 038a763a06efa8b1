"""The hall's link on a real Mosquitto (started here on a free loopback port): how fast one
table's events reach a subscriber, and how long a command takes to be answered.

    python -m tools.bench_hall [--paced 200] [--rate 50] [--burst 2000] [--commands 100]
                               [--broker-delay] [--json]

- paced: `--paced` events at `--rate` a second (a game's pace, and more): the latency from
  the table's `event()` (the game's call, which never waits) to a subscriber holding it;
- burst: `--burst` events queued at once (a table catching up after the broker was away):
  events per second until the subscriber has the last;
- commands: `--commands` commands one after another from a console-like client, each
  answered on `ack`: the round trip.

Everything runs on this machine (the broker, the table's publisher and the subscriber in
one event loop): figures are the link's cost, not a network's.
"""

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import aiomqtt

from host.hall import topics
from host.hall.publisher import NO_DELAY, HallPublisher


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_broker(folder, nodelay=True):
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.path.exists(mosquitto):
        raise SystemExit("bench_hall: mosquitto is not installed (sh tools/install-test-deps.sh)")
    port = free_port()
    conf = os.path.join(folder, "mosquitto.conf")
    with open(conf, "w") as f:
        # As the README's config: set_tcp_nodelay true.
        f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n%s"
                % (port, "set_tcp_nodelay true\n" if nodelay else ""))
    proc = subprocess.Popen([mosquitto, "-c", conf], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, port
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise SystemExit("bench_hall: mosquitto did not start")
            time.sleep(0.05)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


async def bench(port, paced, rate, burst, commands):
    broker = topics.parse_broker("mqtt://127.0.0.1:%d" % port)

    async def on_command(command):
        return "done"
    table = HallPublisher(broker, "bench", "table-1", summary=lambda: {"game": "bench"},
                          on_command=on_command, log=lambda line: None)
    table.queue_max = max(table.queue_max, burst)
    table.start()
    while table.state != "ready":
        await asyncio.sleep(0.01)
    out = {}
    async with aiomqtt.Client("127.0.0.1", port, identifier="bench-watcher",
                              socket_options=NO_DELAY) as watcher:
        await watcher.subscribe(table.topic("events"), qos=1)
        await watcher.subscribe(table.topic("ack"), qos=1)
        received = []
        acks = asyncio.Queue()

        async def read():
            async for message in watcher.messages:
                now = time.perf_counter()
                body = json.loads(message.payload)
                if str(message.topic).endswith("/ack"):
                    acks.put_nowait((body["id"], now))
                else:
                    received.append((body, now))
        reader = asyncio.ensure_future(read())

        async def until_received(count):
            while len(received) < count:
                await asyncio.sleep(0.001)

        # Paced: the game's call to event() to the subscriber's hands.
        for n in range(paced):
            table.event("action", "move %d" % n, sent=time.perf_counter())
            await asyncio.sleep(1.0 / rate)
        await until_received(paced)
        latencies = [(at - body["sent"]) * 1000 for body, at in received[:paced]]
        seqs = [body["seq"] for body, _ in received[:paced]]
        assert seqs == sorted(seqs) and len(set(seqs)) == paced, "events out of order"
        out["paced"] = {"events": paced, "rate": rate,
                        "p50_ms": round(percentile(latencies, 50), 2),
                        "p99_ms": round(percentile(latencies, 99), 2),
                        "max_ms": round(max(latencies), 2)}

        # Burst: a queue sent at once.
        start = time.perf_counter()
        for n in range(burst):
            table.event("action", "catch-up %d" % n)
        await until_received(paced + burst)
        took = time.perf_counter() - start
        out["burst"] = {"events": burst, "seconds": round(took, 3),
                        "events_per_s": int(burst / took)}

        # Commands, one after another: published, carried out, answered.
        trips = []
        for n in range(commands):
            command_id = "bench-%d" % n
            sent = time.perf_counter()
            await watcher.publish(table.topic("cmd"), json.dumps(
                {"id": command_id, "command": "identify"}).encode(), qos=1)
            while True:
                got, at = await acks.get()
                if got == command_id:
                    trips.append((at - sent) * 1000)
                    break
        out["commands"] = {"commands": commands, "p50_ms": round(percentile(trips, 50), 2),
                           "p99_ms": round(percentile(trips, 99), 2)}
        reader.cancel()
    await table.stop()
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.bench_hall",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--paced", type=int, default=200)
    p.add_argument("--rate", type=int, default=50)
    p.add_argument("--burst", type=int, default=2000)
    p.add_argument("--commands", type=int, default=100)
    p.add_argument("--broker-delay", action="store_true",
                   help="leave Mosquitto's set_tcp_nodelay off (its default), to see its cost")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    for name in ("paced", "rate", "burst", "commands"):
        if getattr(args, name) < 1:
            p.error("--%s must be 1 or more" % name)
    folder = tempfile.mkdtemp(prefix="bench-hall-")
    proc, port = start_broker(folder, nodelay=not args.broker_delay)
    try:
        out = asyncio.run(bench(port, args.paced, args.rate, args.burst, args.commands))
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print("paced: %(events)d events at %(rate)d/s: latency p50 %(p50_ms)s ms, p99 "
              "%(p99_ms)s ms, max %(max_ms)s ms" % out["paced"])
        print("burst: %(events)d events in %(seconds)s s: %(events_per_s)d events/s"
              % out["burst"])
        print("commands: %(commands)d, answered in p50 %(p50_ms)s ms, p99 %(p99_ms)s ms"
              % out["commands"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
