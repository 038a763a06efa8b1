"""The hall console against a real Mosquitto: tables seen with their summaries, alerts first,
duplicated events dropped, commands sent with an id and answered in words; and one whole
table (`fairytable run --mqtt` on the virtual table) steered from `fairytable hall`."""

import asyncio
import json
import os
import signal
import subprocess
import time
import urllib.request

import aiohttp
import pytest

from hall_helpers import FAIRYTABLE, need_mosquitto, pub, until
from host.hall import topics
from host.hall.console import Console, Hall
from host.hall.publisher import HallPublisher
from mosquitto_broker import free_port

PIN = "246810"


def test_the_console_shows_every_table_alerts_first_and_steers_one(broker):
    async def main():
        console = Console(topics.parse_broker(broker.url), "hall-a", port=0,
                          say=lambda line: None, staff_pin=PIN)
        await console.start()
        carried = []

        async def on_command(command):
            carried.append(command["command"])
            return "The game is paused by staff."
        calm = HallPublisher(topics.parse_broker(broker.url), "hall-a", "table-1",
                             summary=lambda: {"game": "Storybook Battles", "players": [
                                 {"name": "Hero", "bot": True, "score": 2}],
                                 "status_words": "Playing", "tiles": {
                                     "online": 7, "total": 7, "offline": []}},
                             on_command=on_command, log=lambda line: None)
        troubled = HallPublisher(topics.parse_broker(broker.url), "hall-a", "table-2",
                                 summary=lambda: {"game": "Battle Royale", "tiles": {
                                     "online": 4, "total": 5,
                                     "offline": ["cells [0, 0], [0, 1]"]}},
                                 log=lambda line: None)
        base = "http://127.0.0.1:%d" % console.port
        try:
            calm.start()
            troubled.start()
            async with aiohttp.ClientSession() as http:
                async def hall():
                    async with http.get(base + "/api/hall") as r:
                        return await r.json()

                async def both_ready():
                    h = await hall()
                    return h if [t["state"] for t in h["tables"]] == ["ready", "ready"] and \
                        all(t["game"] for t in h["tables"]) else None
                h = await until(both_ready, what="both tables ready with summaries")
                first, second = h["tables"]
                assert first["name"] == "table-2"     # alerts first
                assert first["alerts"] == ["A tile is offline: the tile of cells [0, 0], "
                                           "[0, 1]."]
                assert second["name"] == "table-1" and second["alerts"] == []
                assert second["players"] == [{"name": "Hero", "bot": True, "score": 2}]

                # Events in order; a copy (QoS 1 may deliver one twice) is shown once.
                calm.event("action", "Hero plays The Dodo on [2, 3].")
                calm.event("action", "Hero draws a card.")
                await until(lambda: console.hall.tables["table-1"].last_seq == 2,
                            what="two events")
                copy = {"seq": 2, "boot": calm.boot, "kind": "action",
                        "words": "Hero draws a card."}
                await asyncio.to_thread(pub, broker, topics.table_topic(
                    "hall-a", "table-1", "events"), json.dumps(copy))
                await until(lambda: console.hall.tables["table-1"].duplicates == 1,
                            what="the copy noticed")
                h = await hall()
                t1 = [t for t in h["tables"] if t["name"] == "table-1"][0]
                assert t1["events"] == ["Hero plays The Dodo on [2, 3].", "Hero draws a card."]

                # Commands need the staff PIN: none, or a wrong one, sends nothing.
                for pin, status, words in ((None, 401, "needs the staff PIN"),
                                           ("000000", 403, "wrong staff PIN")):
                    async with http.post(base + "/api/command", json={
                            "table": "table-1", "command": "pause"},
                            headers=dict({"X-Hall-Console": "1"},
                                         **({"X-Staff-Pin": pin} if pin else {}))) as r:
                        assert r.status == status and words in (await r.json())["error"]
                assert carried == []
                # A command from the console: sent with an id, answered in words.
                async with http.post(base + "/api/command", json={
                        "table": "table-1", "command": "pause"},
                        headers={"X-Hall-Console": "1", "X-Staff-Pin": PIN}) as r:
                    answer = await r.json()
                    assert r.status == 200, answer
                assert answer["acks"] == [{"table": "table-1", "ok": True,
                                           "message": "The game is paused by staff."}]
                assert answer["waiting"] == [] and carried == ["pause"]
                assert answer["command"] == "pause the game"
                sent, = (await hall())["sent"]
                assert sent["id"] == answer["id"] and sent["acks"] == answer["acks"]
                # Without the console's header (a form of another site), nothing is sent.
                async with http.post(base + "/api/command", data=json.dumps({
                        "table": "table-1", "command": "pause"}),
                        headers={"X-Staff-Pin": PIN}) as r:
                    assert r.status == 403 and "X-Hall-Console" in (await r.json())["error"]
                async with http.post(base + "/api/command", json={
                        "table": "Table 1!", "command": "pause"},
                        headers={"X-Hall-Console": "1", "X-Staff-Pin": PIN}) as r:
                    assert r.status == 400
                    assert "not a name the hall can use" in (await r.json())["error"]
                assert carried == ["pause"]

                # A table gone hard: lost, and first among the alerts.
                await calm.stop()
                await asyncio.to_thread(pub, broker, topics.table_topic(
                    "hall-a", "table-1", "$state"), "lost", True)
                h = await until(lambda: console.hall.tables["table-1"].state == "lost",
                                what="table-1 lost")
                h = await hall()
                assert h["tables"][0]["name"] == "table-1"
                assert h["tables"][0]["alerts"][0].startswith("The table is lost")
                async with http.get(base + "/") as r:
                    assert r.status == 200 and "Fairytable hall" in await r.text()
        finally:
            await calm.stop()
            await troubled.stop()
            await console.stop()
    asyncio.run(main())


def api(port, path, body=None):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path))
    if body is not None:
        request.data = json.dumps(body).encode()
        request.add_header("Content-Type", "application/json")
        request.add_header("X-Hall-Console", "1")
        request.add_header("X-Staff-Pin", PIN)
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def wait_for(check, timeout_s, what, procs=()):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for p in procs:
            if p.poll() is not None:
                raise AssertionError("%s ended (exit %s) while waiting for %s: %s" % (
                    p.args[:2], p.returncode, what, p.stderr.read()[-3000:]))
        try:
            found = check()
        except (OSError, ValueError, KeyError, IndexError):
            found = None
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("no %s in %d s" % (what, timeout_s))


def table_named(port, name):
    tables = [t for t in api(port, "/api/hall")["tables"] if t["name"] == name]
    return tables[0] if tables else None


def answered(port, answer):
    """The command's answer, from /api/hall's commands sent when it came after the POST
    stopped waiting (a loaded machine)."""
    assert answer["command"] and answer["sent_to"] == "t1"
    if not answer["waiting"]:
        return answer
    return wait_for(lambda: [c for c in api(port, "/api/hall")["sent"]
                             if c["id"] == answer["id"] and not c["waiting"]][0], 60,
                    "the table's answer")


def steady_actions(port, seconds):
    """[the table's action count] if it stays the same for `seconds`, else None."""
    before = table_named(port, "t1")["actions"]
    time.sleep(seconds)
    return [before] if table_named(port, "t1")["actions"] == before else None


def test_a_table_on_the_virtual_table_is_seen_and_paused_from_the_hall(broker, tmp_path):
    console_port = free_port()
    env = dict(os.environ, FAIRYTABLE_HOME=str(tmp_path / "home"))
    (tmp_path / "hall.pin").write_text(PIN + "\n")
    hall = subprocess.Popen([FAIRYTABLE, "hall", "--mqtt", broker.url, "--hall", "hall-a",
                             "--web", "127.0.0.1:%d" % console_port, "--staff-pin-file",
                             str(tmp_path / "hall.pin")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env)
    # Bots at a person's pace (no --headless): the game lasts long enough to be steered.
    table = subprocess.Popen([FAIRYTABLE, "run", "--game", "storybook", "--bots", "2",
                              "--json", "--pace", "400", "--max-actions", "10",
                              "--journal", str(tmp_path / "journal.db"),
                              "--mqtt", broker.url, "--hall", "hall-a", "--table-id", "t1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        t1 = wait_for(lambda: (lambda t: t if t and t["state"] == "ready" and t["game"]
                               else None)(table_named(console_port, "t1")), 120,
                      "table t1 ready in the hall", (hall, table))
        assert t1["game"] == "Storybook Battles"
        assert sorted(p["name"] for p in t1["players"]) == ["Hero", "Villain"]
        assert t1["tiles"]["online"] == t1["tiles"]["total"] == 7
        assert t1["firmware"] and t1["alerts"] == []

        answer = answered(console_port, api(console_port, "/api/command", {
            "table": "t1", "command": "pause"}))
        ack, = answer["acks"]
        assert ack["ok"] is True and ack["message"] == "The game is paused by staff."
        paused = wait_for(lambda: (lambda t: t if t["status"] == "paused" else None)(
            table_named(console_port, "t1")), 30, "the table paused", (table,))
        assert paused["status_words"] == "Paused by staff"
        # A bot's move already in the hands is finished; then nothing moves (at 400 ms a
        # move, the bots would play several in these seconds).
        moves, = wait_for(lambda: steady_actions(console_port, 1.5), 30, "the bots stopping")
        time.sleep(2.0)
        assert table_named(console_port, "t1")["actions"] == moves

        answer = answered(console_port, api(console_port, "/api/command", {
            "table": "t1", "command": "resume"}))
        assert answer["acks"][0]["message"] == "The game is resumed by staff."
        table.wait(120)
        assert table.returncode == 0, table.stderr.read()[-3000:]
        summary = json.loads(table.stdout.read().strip().splitlines()[-1])
        assert summary["actions"] == 10
        gone = wait_for(lambda: (lambda t: t if t["state"] == "disconnected" else None)(
            table_named(console_port, "t1")), 30, "the table's goodbye")
        assert gone["actions"] == 10 and gone["last_seq"] >= 10
        assert gone["alerts"] == []
    finally:
        for p in (table, hall):
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(5)


def test_a_table_stopped_with_sigterm_says_disconnected_not_lost(broker, tmp_path):
    # systemd stops a service with SIGTERM: the table stops as on Ctrl-C (the hall hears
    # "disconnected", never its last will "lost"), closes its tiles and keeps the game.
    from hall_helpers import Sub, last_state
    env = dict(os.environ, FAIRYTABLE_HOME=str(tmp_path / "home"))
    sub = Sub(broker, "fairytable/1/hall-a/t9/$state")
    table = subprocess.Popen([FAIRYTABLE, "run", "--game", "storybook", "--bots", "2",
                              "--json", "--pace", "400", "--journal",
                              str(tmp_path / "journal.db"), "--mqtt", broker.url,
                              "--hall", "hall-a", "--table-id", "t9"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        sub.wait(lambda s: last_state(s) == "ready", 120, "the table ready")
        table.send_signal(signal.SIGTERM)
        out, err = table.communicate(timeout=60)
        assert table.returncode == 0, err[-3000:]
        assert "stopped (SIGTERM)" in err and "Traceback" not in err, err[-3000:]
        sub.wait(lambda s: last_state(s) == "disconnected", 20, "disconnected")
        time.sleep(1.0)
        assert "lost" not in [m.payload for m in sub.of("$state")]
    finally:
        if table.poll() is None:
            table.kill()
            table.wait(10)
        sub.close()
    # The game is in the journal: the same command resumes it.
    from host import journal as journals
    report = journals.check(str(tmp_path / "journal.db"), replay_finished=False)
    assert report.resumable_game("storybook") is not None


def test_a_table_whose_broker_cannot_be_reached_plays_on(tmp_path):
    """No broker at all: the game is played to its end, and the operator is told once."""
    closed = free_port()
    env = dict(os.environ, FAIRYTABLE_HOME=str(tmp_path / "home"))
    done = subprocess.run([FAIRYTABLE, "run", "--game", "storybook", "--headless", "--bots",
                           "2", "--json", "--max-actions", "6", "--journal",
                           str(tmp_path / "journal.db"), "--mqtt",
                           "mqtt://127.0.0.1:%d" % closed, "--table-id", "t1"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["actions"] == 6
    assert done.stderr.count("cannot be reached") == 1, done.stderr
    assert "the game goes on" in done.stderr and "Traceback" not in done.stderr


def test_the_console_catches_up_after_the_broker_restarts(broker):
    async def main():
        console = Console(topics.parse_broker(broker.url), "hall-a", port=0,
                          say=lambda line: None)
        console.backoff_first_s, console.backoff_cap_s = 0.2, 1.0
        table = HallPublisher(topics.parse_broker(broker.url), "hall-a", "table-1",
                              summary=lambda: {"game": "Storybook Battles"},
                              log=lambda line: None)
        table.backoff_first_s, table.backoff_cap_s = 0.2, 1.0
        await console.start()
        table.start()
        try:
            seen = lambda: console.hall.tables.get("table-1")  # noqa: E731
            await until(lambda: seen() and seen().state == "ready", what="table-1 ready")
            table.event("action", "Hero draws a card.")
            await until(lambda: seen().last_seq == 1, what="the first event")
            broker.kill()
            await until(lambda: not console.hall.connected and not table.connected,
                        what="both noticing the broker gone")
            table.event("action", "Villain draws a card.")     # played while it is away
            broker.start()
            await until(lambda: console.hall.connected and table.connections == 2 and
                        table.state == "ready", what="both back")
            table.event("action", "Hero ends the turn.")
            await until(lambda: seen().last_seq == 3, what="the events after the restart")
            # The one sent while the console was reconnecting may be lost to it (the broker
            # kept nothing): then it is counted as missed, never shown out of order.
            words = [e["words"] for e in seen().events]
            assert words[0] == "Hero draws a card." and words[-1] == "Hero ends the turn."
            assert len(words) + seen().missed == 3 and seen().duplicates == 0
        finally:
            await table.stop()
            await console.stop()
    asyncio.run(main())


def test_the_console_drops_copies_counts_gaps_and_ignores_what_is_not_a_tables():
    from host.hall.console import Hall
    hall = Hall("hall-a")
    root = "fairytable/1/hall-a/t1/"

    def event(seq, boot="b1"):
        hall.take(root + "events", json.dumps({"seq": seq, "boot": boot,
                                               "words": "move %d" % seq}).encode())
    for seq in (1, 2, 2, 5, 3, 3):        # a copy of 2, a gap (3, 4), 3 late and twice
        event(seq)
    t1 = hall.tables["t1"]
    assert [e["words"] for e in t1.events] == ["move 1", "move 2", "move 3", "move 5"]
    assert (t1.duplicates, t1.missed, t1.late) == (2, 1, 1)
    event(1, boot="b2")                     # the table restarted: its numbers start again
    assert t1.last_seq == 1 and t1.events[-1]["words"] == "move 1"
    for topic, payload in ((root + "summary", b"\xff not json"), (root + "summary", b"[1]"),
                           (root + "$state", b"exploded"), ("fairytable/1/hall-b/t2/summary",
                                                            b"{}"),
                           ("fairytable/1/hall-a/T 3/summary", b"{}"),
                           ("fairytable/1/hall-a/$all/cmd", b"{}"), ("elsewhere", b"{}")):
        hall.take(topic, payload)
    assert sorted(hall.tables) == ["t1"] and t1.summary is None and t1.state is None
    hall.take(root + "$state", b"lost")
    assert hall.view()["tables"][0]["alerts"][0].startswith("The table is lost")
    hall.take(root + "$state", b"")        # an empty retained state: the table is gone
    assert hall.tables == {}


def test_the_hundred_tables_benchmark_prints_its_figures(capsys):
    need_mosquitto()
    from tools import bench_hall_tables
    assert bench_hall_tables.main(["--tables", "3", "--seconds", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tables"] == 3 and out["probes"] >= 1
    assert out["events_handled_per_s"] >= 0 and out["update_latency_p50_ms"] > 0


def test_the_console_queues_the_free_tables_the_longest_free_first():
    # A convention's queue: which table the next players go to. Free: connected, and its
    # game over or no game at all (its demo game); the one free longest comes first.
    hall = Hall("hall-a")
    root = "fairytable/1/hall-a/"

    def tell(name, status, now, state="ready"):
        hall.take(root + name + "/$state", state.encode(), now)
        hall.take(root + name + "/summary", json.dumps(
            {"game": "Storybook Battles", "status": status}).encode(), now)

    tell("t1", "playing", 1000)
    tell("t2", "finished", 1000)
    tell("t3", "attract", 900)
    tell("t4", "paused", 900)
    assert [f["table"] for f in hall.free(1000)] == ["t3", "t2"]
    assert hall.free(1200)[0] == {"table": "t3", "minutes": 5, "showing": "its demo game"}
    assert hall.free(1200)[1]["showing"] == "its last game's end"
    tell("t2", "finished", 1300)            # still free: it keeps its place in the queue
    tell("t1", "finished", 1400)
    assert [f["table"] for f in hall.free(1500)] == ["t3", "t2", "t1"]
    tell("t3", "playing", 1600)             # players sat down
    hall.take(root + "t2/$state", b"lost", 1600)    # gone from the hall
    assert [f["table"] for f in hall.free(1700)] == ["t1"]
    assert hall.view()["free"][0]["table"] == "t1"


def test_the_leaderboard_ranks_the_players_of_each_game_across_the_hall():
    from host.hall.console import Hall
    hall = Hall("hall-a")

    def table(name, game, players, state=b"ready"):
        hall.take("fairytable/1/hall-a/%s/$state" % name, state)
        hall.take("fairytable/1/hall-a/%s/summary" % name, json.dumps(
            {"game": game, "players": players}).encode())
    table("t1", "Storybook Battles", [{"name": "Hero", "bot": False, "score": 3},
                                      {"name": "Villain", "bot": True, "score": 5}])
    table("t2", "Storybook Battles", [{"name": "Hero", "bot": True, "score": 4},
                                      {"name": "Villain", "bot": False, "score": True}])
    table("t3", "Battle Royale", [{"name": "Red", "bot": False, "score": 1}])
    table("t4", "Battle Royale", [{"name": "Blue", "bot": False, "score": 9}], b"lost")
    board = hall.view()["leaderboard"]
    assert [g["game"] for g in board] == ["Battle Royale", "Storybook Battles"]
    assert [(r["table"], r["player"], r["score"]) for r in board[1]["leaders"]] == [
        ("t1", "Villain", 5), ("t2", "Hero", 4), ("t1", "Hero", 3)]
    assert [(r["table"], r["score"]) for r in board[0]["leaders"]] == [("t3", 1)]


def test_a_summary_of_the_wrong_shape_never_breaks_the_halls_page():
    from host.hall.console import Hall
    hall = Hall("hall-a")
    hall.take("fairytable/1/hall-a/t1/$state", b"ready")
    hall.take("fairytable/1/hall-a/t1/summary", json.dumps({
        "game": ["not", "text"], "players": "Hero", "tiles": [1, 2], "mismatches": 3,
        "firmware": {"a": 1}, "dropped_events": "many", "turn": True}).encode())
    hall.take("fairytable/1/hall-a/t2/$state", b"ready")
    hall.take("fairytable/1/hall-a/t2/summary", json.dumps({
        "game": "Storybook Battles", "players": [{"name": "Hero", "score": "3"}, 7],
        "tiles": {"online": 6, "total": 7, "offline": ["cells [0, 0]", 5]}}).encode())
    view = hall.view()
    assert json.dumps(view)              # JSON-ready, whatever the tables sent
    t1, t2 = sorted(view["tables"], key=lambda t: t["name"])
    assert t1["game"] is None and t1["players"] == [] and t1["alerts"] == []
    assert t2["players"] == [{"name": "Hero", "bot": False, "score": None}]
    assert t2["alerts"] == ["A tile is offline: the tile of cells [0, 0]."]
    assert view["leaderboard"] == []


def test_a_headless_game_is_followed_from_start_to_goodbye(broker, tmp_path):
    """`fairytable run --headless` plays at once: the console, there first, sees every event
    in order, none missed or twice, and the table's goodbye with its last summary."""
    console_port = free_port()
    env = dict(os.environ, FAIRYTABLE_HOME=str(tmp_path / "home"))
    hall = subprocess.Popen([FAIRYTABLE, "hall", "--mqtt", broker.url, "--hall", "hall-a",
                             "--web", "127.0.0.1:%d" % console_port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        wait_for(lambda: api(console_port, "/api/hall")["connected"], 60, "the console",
                 (hall,))
        done = subprocess.run([FAIRYTABLE, "run", "--game", "storybook", "--headless",
                               "--bots", "2", "--json", "--max-actions", "12", "--journal",
                               str(tmp_path / "journal.db"), "--mqtt", broker.url,
                               "--hall", "hall-a", "--table-id", "t1"],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        gone = wait_for(lambda: (lambda t: t if t and t["state"] == "disconnected" else None)(
            table_named(console_port, "t1")), 30, "the table's goodbye")
        assert gone["game"] == "Storybook Battles" and gone["actions"] == 12
        # Every action an event, plus the status ones ("Playing." first).
        assert gone["last_seq"] >= 13
        assert gone["events_missed"] == 0 and gone["events_copied"] == 0
        assert gone["alerts"] == []
    finally:
        hall.send_signal(signal.SIGINT)
        hall.wait(15)


def test_off_loopback_the_console_needs_its_web_token(broker):
    with pytest.raises(ValueError, match="only with a web token"):
        Console(topics.parse_broker(broker.url), "hall-a", host="0.0.0.0", port=0)

    async def main():
        console = Console(topics.parse_broker(broker.url), "hall-a", host="0.0.0.0", port=0,
                          say=lambda line: None, staff_pin=PIN, web_token="tok-en")
        await console.start()
        base = "http://127.0.0.1:%d" % console.port
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(base + "/api/hall") as r:
                    assert r.status == 401 and "web token" in (await r.json())["error"]
                async with http.get(base + "/api/hall",
                                    headers={"X-Web-Token": "tok-en"}) as r:
                    assert r.status == 200 and (await r.json())["hall"] == "hall-a"
                async with http.get(base + "/") as r:      # the page holds no secret
                    assert r.status == 200
        finally:
            await console.stop()
    asyncio.run(main())
