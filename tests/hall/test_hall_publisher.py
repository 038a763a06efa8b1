"""The table's side of the hall against a real Mosquitto: retained state and summary, events
in order with a growing sequence number, a broker that dies and comes back, a table that
dies (its last will), and the commands it takes."""

import asyncio
import json
import os
import signal
import subprocess
import sys

import pytest

from hall_helpers import Sub, last_state, need_mosquitto, pub, until
from host.hall import topics
from host.hall.publisher import HallPublisher, backoff_s

TABLE = "fairytable/1/hall-a/table-1"


def publisher(broker, table="table-1", **kw):
    log = []
    p = HallPublisher(topics.parse_broker(broker.url), "hall-a", table,
                      summary=kw.pop("summary", lambda: {"game": "Storybook Battles"}),
                      health=lambda: {"tiles": 2}, log=log.append, **kw)
    p.said = log
    return p


def test_a_fresh_subscriber_sees_the_table_ready_with_its_summary(broker):
    async def main():
        p = publisher(broker)
        p.start()
        await until(lambda: p.state == "ready")
        sub = Sub(broker, TABLE + "/#")
        try:
            await sub.await_(lambda s: s.of("$state") and s.of("summary") and s.of("health"),
                             what="retained state, summary and health")
            state, = sub.of("$state")
            assert state.retained and state.payload == "ready"
            summary = sub.of("summary")[-1]
            assert summary.retained
            body = summary.json()
            assert body["game"] == "Storybook Battles"
            assert body["boot"] == p.boot and body["seq"] == 0 and body["dropped_events"] == 0
            assert sub.of("health")[-1].json()["tiles"] == 2
        finally:
            await p.stop()
            sub.close()
        # A clean stop leaves "disconnected", never "lost".
        after = Sub(broker, TABLE + "/$state")
        try:
            after.wait(lambda s: s.messages, what="the retained state after a stop")
            assert after.messages[-1].payload == "disconnected" and after.messages[-1].retained
        finally:
            after.close()
    asyncio.run(main())


def test_events_arrive_in_order_each_with_the_boot_and_a_growing_seq(broker):
    async def main():
        sub = Sub(broker, TABLE + "/events")
        p = publisher(broker)
        p.start()
        try:
            await until(lambda: p.state == "ready")
            for n in range(60):
                p.event("action", "The Dodo is played on [%d, 1]." % n)
            await sub.await_(lambda s: len(s.messages) >= 60, what="60 events")
            events = [m.json() for m in sub.messages]
            assert [e["seq"] for e in events] == list(range(1, 61))
            assert {e["boot"] for e in events} == {p.boot}
            assert not any(m.retained for m in sub.messages)
            assert events[3]["words"] == "The Dodo is played on [3, 1]."
        finally:
            await p.stop()
            sub.close()
    asyncio.run(main())


def test_a_broker_killed_mid_game_costs_no_event_twice_and_the_drops_are_told(broker):
    async def main():
        p = publisher(broker, summary=lambda: {"game": "Storybook Battles"})
        p.queue_max = 20
        p.backoff_first_s, p.backoff_cap_s = 0.2, 1.0
        p.start()
        await until(lambda: p.state == "ready")
        sub = Sub(broker, TABLE + "/#")
        for n in range(10):
            p.event("action", "move %d" % n)
        await sub.await_(lambda s: len(s.of("events")) >= 10, what="the first 10 events")
        # Each is off the queue only once the broker acknowledged it (a subscriber may see it
        # first): until then it would be sent again after the restart.
        await until(lambda: not p.events, what="the broker's acknowledgements")
        sub.close()
        broker.kill()
        await until(lambda: not p.connected, what="the publisher noticing the broker gone")
        # The game goes on: 30 events while the broker is away, the queue holds 20.
        for n in range(10, 40):
            p.event("action", "move %d" % n)
        assert len(p.events) == 20 and p.dropped == 10
        # Blocking calls only from here to the subscription: the publisher's task cannot
        # run, so the watcher is subscribed before the table can reconnect and catch up.
        broker.start()
        sub2 = Sub(broker, TABLE + "/#")
        try:
            await until(lambda: p.connections == 2 and p.state == "ready" and not p.events,
                        what="the publisher reconnected and caught up")
            await sub2.await_(lambda s: len(s.of("events")) >= 20, what="the 20 kept events")
            seqs = [m.json()["seq"] for m in sub2.of("events")]
            assert seqs == list(range(21, 41))           # the oldest 10 dropped, none twice
            await sub2.await_(lambda s: s.of("summary") and
                              s.of("summary")[-1].json()["dropped_events"] == 10,
                              what="a summary telling the 10 dropped events")
            assert [m.payload for m in sub2.of("$state")][:2] == ["init", "ready"]
            assert any("cannot be reached" in line for line in p.said)
            assert any("is back" in line for line in p.said)
            p.event("action", "move 40")
            await sub2.await_(lambda s: s.of("events")[-1].json()["seq"] == 41,
                              what="the next event after the catch-up")
        finally:
            await p.stop()
            sub2.close()
    asyncio.run(main())


def test_the_backoff_doubles_with_jitter_up_to_its_cap():
    import random
    rng = random.Random(7)
    waits = [backoff_s(n, 0.5, 30.0, rng) for n in range(12)]
    assert 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0
    assert all(15.0 <= w <= 30.0 for w in waits[7:])
    assert len(set(waits)) == len(waits)   # jitter: no two tables retry in step


TABLE_SCRIPT = r"""
import asyncio, sys
from host.hall import topics
from host.hall.publisher import HallPublisher

async def main():
    p = HallPublisher(topics.parse_broker(sys.argv[1]), "hall-a", "table-1",
                      summary=lambda: {"game": "Storybook Battles"})
    p.keepalive_s = 2
    p.start()
    while p.state != "ready":
        await asyncio.sleep(0.02)
    print("ready", flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def test_a_table_killed_hard_is_lost(broker, tmp_path):
    script = tmp_path / "table.py"
    script.write_text(TABLE_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), broker.url], stdout=subprocess.PIPE,
                            text=True, cwd=os.getcwd())
    sub = Sub(broker, TABLE + "/$state")
    try:
        assert proc.stdout.readline().strip() == "ready"
        sub.wait(lambda s: last_state(s) == "ready", what="ready")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        sub.wait(lambda s: last_state(s) == "lost", what="the last will, lost")
    finally:
        if proc.poll() is None:
            proc.kill()
        sub.close()
    after = Sub(broker, TABLE + "/#")
    again = None
    try:
        after.wait(lambda s: s.of("$state") and s.of("summary"), what="the retained state")
        assert after.of("$state")[-1].payload == "lost" and after.of("$state")[-1].retained
        first_boot = after.of("summary")[-1].json()["boot"]
        # Started again, the table is ready again, as a new boot (its numbers start again).
        again = subprocess.Popen([sys.executable, str(script), broker.url],
                                 stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
        assert again.stdout.readline().strip() == "ready"
        after.wait(lambda s: last_state(s) == "ready", what="ready again")
        summary = after.of("summary")[-1].json()
        assert summary["boot"] != first_boot and summary["seq"] == 0
    finally:
        if again is not None:
            again.kill()
            again.wait(10)
        after.close()


# ------------------------------------------------------------------ commands

def commanded(broker, table="table-1"):
    """A publisher whose commands are counted; returns (publisher, carried out)."""
    done = []

    async def on_command(command):
        done.append(command["command"])
        return "The game is paused by staff." if command["command"] == "pause" else "done"
    return publisher(broker, table, on_command=on_command), done


def test_a_command_is_carried_out_once_and_a_replay_only_answered(broker):
    async def main():
        p, done = commanded(broker)
        p.start()
        await until(lambda: p.state == "ready")
        acks = Sub(broker, TABLE + "/ack")
        try:
            pub(broker, TABLE + "/cmd", json.dumps({"id": "c-1", "command": "pause"}))
            await acks.await_(lambda s: len(s.messages) >= 1, what="the ack")
            first = acks.messages[0].json()
            assert first == {"id": "c-1", "table": "table-1", "ok": True,
                             "message": "The game is paused by staff.", "boot": p.boot}
            pub(broker, TABLE + "/cmd", json.dumps({"id": "c-1", "command": "pause"}))
            await acks.await_(lambda s: len(s.messages) >= 2, what="the second ack")
            again = acks.messages[1].json()
            assert again["repeat"] is True and again["message"] == first["message"]
            assert done == ["pause"]
            assert any("again" in line for line in p.said)
        finally:
            await p.stop()
            acks.close()
    asyncio.run(main())


def test_a_command_for_another_table_or_malformed_is_refused_in_words(broker):
    async def main():
        p, done = commanded(broker)
        p.start()
        await until(lambda: p.state == "ready")
        acks = Sub(broker, TABLE + "/ack")
        try:
            pub(broker, TABLE + "/cmd", json.dumps({"id": "c-2", "command": "pause",
                                                    "table": "table-9"}))
            await acks.await_(lambda s: s.messages, what="the refusal's ack")
            ack = acks.messages[0].json()
            assert ack["ok"] is False and ack["id"] == "c-2"
            assert "for the table table-9, not this one (table-1)" in ack["message"]
            pub(broker, TABLE + "/cmd", "pause please")          # no JSON, no id: no ack
            pub(broker, TABLE + "/cmd", json.dumps({"id": "c-3", "command": "explode"}))
            await acks.await_(lambda s: len(s.messages) >= 2, what="the second refusal")
            assert "which a table does not do" in acks.messages[1].json()["message"]
            await until(lambda: len(p.said) >= 3, what="the refusals in the log")
            assert any("not JSON" in line for line in p.said)
            assert done == []
            assert len(acks.messages) == 2
        finally:
            await p.stop()
            acks.close()
    asyncio.run(main())


def test_a_hall_wide_command_reaches_every_table_once(broker):
    async def main():
        tables = [commanded(broker, "table-%d" % n) for n in (1, 2, 3)]
        for p, _ in tables:
            p.start()
        await until(lambda: all(p.state == "ready" for p, _ in tables))
        acks = Sub(broker, "fairytable/1/hall-a/+/ack")
        try:
            pub(broker, topics.hall_command_topic("hall-a"),
                json.dumps({"id": "all-1", "command": "identify"}))
            await acks.await_(lambda s: len(s.messages) >= 3, what="three acks")
            assert sorted(m.json()["table"] for m in acks.messages) == [
                "table-1", "table-2", "table-3"]
            assert all(done == ["identify"] for _, done in tables)
        finally:
            for p, _ in tables:
                await p.stop()
            acks.close()
    asyncio.run(main())


@pytest.mark.parametrize("url", ["127.0.0.1:1883", "http://x:1", "mqtt://:1883",
                                 "mqtt://h:99999", "mqtt://h:1883/path"])
def test_a_bad_broker_address_is_refused_naming_the_option(url):
    with pytest.raises(ValueError, match="--mqtt"):
        topics.parse_broker(url)


def test_a_command_that_fails_inside_the_table_is_answered_and_the_next_one_goes_on(broker):
    async def main():
        carried = []

        async def on_command(command):
            if command["command"] == "new_game":
                raise RuntimeError("the journal's disk is full")
            carried.append(command["command"])
            return "The game is paused by staff."
        p = publisher(broker, on_command=on_command)
        p.start()
        await until(lambda: p.state == "ready")
        acks = Sub(broker, TABLE + "/ack")
        try:
            pub(broker, TABLE + "/cmd", json.dumps({"id": "c-1", "command": "new_game"}))
            pub(broker, TABLE + "/cmd", json.dumps({"id": "c-2", "command": "pause"}))
            await acks.await_(lambda s: len(s.messages) >= 2, what="two acks")
            failed, paused = [m.json() for m in acks.messages]
            assert failed["ok"] is False and failed["message"] == (
                "the table could not start a new game: the journal's disk is full")
            assert paused["ok"] is True and carried == ["pause"]
            assert p.connections == 1
        finally:
            await p.stop()
            acks.close()
    asyncio.run(main())


def test_the_hall_benchmark_prints_its_figures(capsys):
    need_mosquitto()
    from tools import bench_hall
    assert bench_hall.main(["--paced", "5", "--rate", "100", "--burst", "20", "--commands",
                            "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["paced"]["events"] == 5 and out["burst"]["events"] == 20
    assert out["commands"]["commands"] == 3


def test_the_health_is_sent_again_every_interval(broker):
    async def main():
        sub = Sub(broker, TABLE + "/health")
        p = publisher(broker)
        p.health_every_s = 0.3
        p.start()
        try:
            await sub.await_(lambda s: len(s.messages) >= 3, what="three health reports")
            assert all(m.json()["tiles"] == 2 and m.json()["boot"] == p.boot
                       for m in sub.messages)
        finally:
            await p.stop()
            sub.close()
    asyncio.run(main())
