"""`fairytable hall`: the hall's console. Reads every table of a hall from the broker and
serves a page and a JSON API on this machine (docs/hall.md).

    fairytable hall --mqtt URL [--hall NAME] [--web 127.0.0.1:PORT]

    GET  /                 the console page: every table as a card, alerts first
    GET  /api/hall         every table: its state, summary, last event, alerts (JSON); the
                           queue of free tables (game over or attract), longest free first;
                           the last commands sent from here with their answers; who is
                           winning each game played in the hall
    POST /api/command      {"table": NAME or "all", "command": "pause"}: sent with a new
                           command id; answers with the tables' acknowledgements

Like the staff page: on loopback by default, answering only requests addressed to this
machine by a loopback name; off loopback only with a web token, which every API request
carries (X-Web-Token; the page takes it from its link's #web=...); a command needs the
staff PIN (X-Staff-Pin; wrong PINs make the device rest) and the header X-Hall-Console (a
page of another site cannot send one without the browser asking first, and nothing here
says yes). What a person reads is words: the tables by their names, never a command's id.
"""

import argparse
import asyncio
import collections
import hmac
import json
import os
import secrets
import signal
import sys
import time

from aiohttp import web

from host.hall import topics
from host import installation
from host.web.server import (PinGuard, is_loopback, make_pin, make_token, parse_bind,
                             secret_file)

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
ACK_WAIT_S = 5.0
EVENTS_KEPT = 20
STATE_WORDS = {
    None: "Not heard from yet",
    "init": "Starting",
    "ready": "Online",
    "disconnected": "Switched off by its operator",
    "lost": "Lost: gone without a goodbye (power or network)",
}


def _text(v, most=500):
    return v[:most] if isinstance(v, str) else None


def _whole(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def clean_summary(body):
    """What the console reads of a table's summary, each field of the type it must have
    (anything else left out): a table with a fault, or another program on the broker,
    never breaks the page of the whole hall."""
    players = []
    for p in body.get("players") if isinstance(body.get("players"), list) else []:
        if isinstance(p, dict) and isinstance(p.get("name"), str):
            players.append({"name": _text(p["name"], 80), "bot": p.get("bot") is True,
                            "score": _whole(p.get("score"))})
    tiles = body.get("tiles") if isinstance(body.get("tiles"), dict) else {}
    offline = tiles.get("offline") if isinstance(tiles.get("offline"), list) else []
    return {
        "game": _text(body.get("game"), 80), "players": players[:20],
        "turn": _whole(body.get("turn")), "actions": _whole(body.get("actions")),
        "status": _text(body.get("status"), 40),
        "status_words": _text(body.get("status_words"), 200),
        "winner": _text(body.get("winner"), 80), "last": _text(body.get("last")),
        "mismatches": [_text(m) for m in body.get("mismatches") or []
                       if isinstance(m, str)][:10]
        if isinstance(body.get("mismatches"), list) else [],
        "tiles": {"online": _whole(tiles.get("online")), "total": _whole(tiles.get("total")),
                  "offline": [_text(w, 200) for w in offline if isinstance(w, str)][:50]}
        if tiles else None,
        "firmware": [_text(f, 40) for f in body.get("firmware") or []
                     if isinstance(f, str)][:10]
        if isinstance(body.get("firmware"), list) else [],
        "dropped_events": _whole(body.get("dropped_events")) or 0,
    }


class TableSeen:
    """What the broker has said of one table."""

    def __init__(self, name):
        self.name = name
        self.state = None
        self.summary = None
        self.health = None
        self.boot = None
        self.last_seq = 0
        self.events = collections.deque(maxlen=EVENTS_KEPT)
        self.duplicates = 0       # events seen twice (QoS 1), dropped
        self.missing = set()      # numbers skipped by a later event, not seen (yet)
        self.late = 0             # events that came after a later one (put in their place)
        self.heard_at = None
        self.free_since = None    # when its game ended or it went to attract (None: busy)

    FREE = ("attract", "finished")     # a summary's statuses of a table ready for players

    def is_free(self):
        """Ready for the next players: connected, its game over or no game (attract)."""
        return self.state == "ready" and (self.summary or {}).get("status") in self.FREE

    def took(self, now):
        """Note when the table became free (the queue's order), after a summary or state."""
        if not self.is_free():
            self.free_since = None
        elif self.free_since is None:
            self.free_since = now

    MISSING_KEPT = 1000

    @property
    def missed(self):
        """Events never seen: gaps in the sequence (the broker lost them, or they are late)."""
        return len(self.missing)

    def take_event(self, ev):
        """One event; False for a copy already seen (dropped). One that comes after a later
        one is put in its place."""
        boot, seq = ev.get("boot"), ev.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            return False
        if boot != self.boot:
            self.boot, self.last_seq = boot, 0
            self.missing = set()
        if seq <= self.last_seq:
            if seq not in self.missing:
                self.duplicates += 1
                return False
            self.missing.discard(seq)
            self.late += 1
            self.events = collections.deque(sorted(list(self.events) + [ev],
                                                   key=lambda e: e["seq"]),
                                            maxlen=EVENTS_KEPT)
            return True
        if self.last_seq:
            self.missing.update(range(max(self.last_seq + 1, seq - self.MISSING_KEPT), seq))
            while len(self.missing) > self.MISSING_KEPT:
                self.missing.discard(min(self.missing))
        self.last_seq = seq
        self.events.append(ev)
        return True

    def alerts(self):
        """What staff should look at here, in sentences (most urgent first)."""
        out = []
        if self.state == "lost":
            out.append("The table is lost: its broker connection ended without a goodbye "
                       "(power or network).")
        s = self.summary or {}
        offline = (s.get("tiles") or {}).get("offline") or []
        for where in offline:
            out.append("A tile is offline: the tile of %s." % where)
        for message in s.get("mismatches") or []:
            out.append("The table and the game disagree: %s" % message)
        if s.get("dropped_events"):
            out.append("%d events were dropped while the broker was away."
                       % s["dropped_events"])
        return out

    def view(self):
        s = self.summary or {}
        return {
            "name": self.name,
            "state": self.state,
            "state_words": STATE_WORDS.get(self.state, "Unknown"),
            "alerts": self.alerts(),
            "game": s.get("game"),
            "players": s.get("players") or [],
            "turn": s.get("turn"),
            "actions": s.get("actions"),
            "status": s.get("status"),
            "status_words": s.get("status_words"),
            "winner": s.get("winner"),
            "last": s.get("last"),
            "tiles": s.get("tiles"),
            "firmware": s.get("firmware"),
            "last_seq": self.last_seq,
            "events_missed": self.missed,
            "events_copied": self.duplicates,
            "events": [e.get("words") for e in self.events][-5:],
            "heard_at": self.heard_at,
        }


class Hall:
    """Every table of one hall as the broker says it; the acknowledgements of commands."""

    def __init__(self, hall):
        self.hall = topics.check_name("the hall", hall)
        self.tables = {}
        self.sent = collections.OrderedDict()  # command id -> what was sent, its acks
        self.connected = False

    def table(self, name):
        if name not in self.tables:
            self.tables[name] = TableSeen(name)
        return self.tables[name]

    def take(self, topic, payload, now=None):
        """One message from the broker; anything that is not the hall's is ignored."""
        where = topics.split_topic(topic)
        if where is None or where[0] != self.hall or where[1] == topics.ALL:
            return
        _hall, name, leaf = where
        if leaf == "cmd":
            return
        if not payload:
            # An empty retained message clears a table that was taken out of the hall.
            if leaf == "$state":
                self.tables.pop(name, None)
            return
        t = self.table(name)
        t.heard_at = int(time.time()) if now is None else now
        if leaf == "$state":
            text = bytes(payload).decode("utf-8", "replace")
            t.state = text if text in topics.STATES else None
            t.took(t.heard_at)
            return
        try:
            body = json.loads(bytes(payload).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return
        if not isinstance(body, dict):
            return
        if leaf == "summary":
            t.summary = clean_summary(body)
            t.took(t.heard_at)
        elif leaf == "health":
            t.health = body
        elif leaf == "events":
            t.take_event(body)
        elif leaf == "ack" and isinstance(body.get("id"), str):
            if body["id"] in self.sent:     # a late answer counts too
                self.sent[body["id"]]["acks"].setdefault(name, body)

    SENT_KEPT = 50

    def sending(self, command_id, name, target, expected):
        self.sent[command_id] = {"command": topics.COMMANDS[name], "sent_to": "every table"
                                 if target == "all" else target, "expected": expected,
                                 "acks": {}}
        while len(self.sent) > self.SENT_KEPT:
            self.sent.popitem(last=False)
        return self.sent[command_id]

    def answers(self, command_id):
        """A command sent from here and its answers so far (words, and its id to match)."""
        sent = self.sent[command_id]
        got = sent["acks"]
        return {"id": command_id, "command": sent["command"], "sent_to": sent["sent_to"],
                "acks": [{"table": n, "ok": a.get("ok"), "message": a.get("message")}
                         for n, a in sorted(got.items())],
                "waiting": [n for n in sent["expected"] if n not in got]}

    LEADERS = 10

    def leaderboard(self):
        """Who is winning across the hall, per game (scores of different games do not
        compare): the best `LEADERS` players of the games in play now, best first."""
        by_game = {}
        for t in self.tables.values():
            s = t.summary or {}
            if t.state != "ready" or not isinstance(s.get("game"), str):
                continue
            for p in s.get("players") or []:
                score = p.get("score") if isinstance(p, dict) else None
                if isinstance(score, int) and not isinstance(score, bool):
                    by_game.setdefault(s["game"], []).append(
                        {"table": t.name, "player": str(p.get("name")),
                         "bot": bool(p.get("bot")), "score": score})
        return [{"game": game, "leaders": sorted(rows, key=lambda r: (
            -r["score"], r["table"], r["player"]))[:self.LEADERS]}
            for game, rows in sorted(by_game.items())]

    def free(self, now=None):
        """The queue of free tables, the longest free first (where the next players go):
        each with its name, what it shows and for how many minutes it has been free."""
        now = int(time.time()) if now is None else now
        free = sorted((t for t in self.tables.values() if t.is_free()),
                      key=lambda t: (t.free_since, t.name))
        return [{"table": t.name, "minutes": max(0, now - t.free_since) // 60,
                 "showing": "its demo game" if t.summary.get("status") == "attract"
                 else "its last game's end"} for t in free]

    def view(self):
        tables = [t.view() for t in self.tables.values()]
        # Alerts first (the lost first of those), then by name.
        tables.sort(key=lambda v: (not v["alerts"], v["state"] != "lost", v["name"]))
        return {"hall": self.hall, "connected": self.connected, "tables": tables,
                "free": self.free(),
                "commands": topics.COMMANDS, "leaderboard": self.leaderboard(),
                "sent": [self.answers(i) for i in reversed(list(self.sent)[-10:])]}


class Console:
    """The console's MQTT connection (reconnecting) and its web server."""

    backoff_first_s = 0.5
    backoff_cap_s = 30.0

    def __init__(self, broker, hall, host="127.0.0.1", port=8090, say=print, staff_pin=None,
                 web_token=None):
        if not is_loopback(host) and not web_token:
            raise ValueError("the hall console listens on %s only with a web token: add "
                             "--web-token-file FILE (a random token is made there and "
                             "printed)" % host)
        self.staff_pin = staff_pin      # commands need it; None: commands are off
        self.web_token = web_token      # off loopback, every request needs it
        self.pins = PinGuard()
        self.broker = broker
        self.hall = Hall(hall)
        self.host = host
        self.port = port
        self.say = say
        self.client = None
        self.runner = None
        self._task = None

    # ------------------------------------------------------------ the broker

    async def _listen(self):
        import random

        import aiomqtt
        from host.hall.publisher import NO_DELAY, backoff_s
        rng = random.SystemRandom()
        attempt = 0
        said_down = False
        while True:
            try:
                async with aiomqtt.Client(
                        self.broker.host, self.broker.port, username=self.broker.username,
                        password=self.broker.password, clean_session=True,
                        identifier="fairytable-console-%s-%s" % (self.hall.hall,
                                                                 secrets.token_hex(4)),
                        keepalive=30, timeout=10, socket_options=NO_DELAY) as client:
                    await client.subscribe(topics.hall_wildcard(self.hall.hall), qos=1)
                    self.client = client
                    self.hall.connected = True
                    attempt = 0
                    if said_down:
                        said_down = False
                        self.say("The hall's broker is back.")
                    async for message in client.messages:
                        self.hall.take(str(message.topic), message.payload)
            except Exception as e:  # noqa: BLE001 - the broker gone, or a fault of ours:
                # the console goes on and tries again
                if not isinstance(e, aiomqtt.MqttError):
                    self.say("The console's link to the broker failed (%s: %s): it starts "
                             "again." % (type(e).__name__, e))
                elif not said_down:
                    said_down = True
                    self.say("The hall's broker %r cannot be reached (%s): trying again."
                             % (self.broker, e))
            finally:
                self.client = None
                self.hall.connected = False
            await asyncio.sleep(backoff_s(attempt, self.backoff_first_s, self.backoff_cap_s,
                                          rng))
            attempt += 1

    async def command(self, target, name):
        """Send one command (a new id) to a table or to all; wait a while for the acks.
        Returns {"id", "command", "sent_to", "acks", "waiting"}, in words but for the id
        (to find a late answer in /api/hall's "sent"); ValueError for a bad request."""
        if name not in topics.COMMANDS:
            raise ValueError("there is no command %s: the commands are %s" % (
                json.dumps(name)[:40], ", ".join(sorted(topics.COMMANDS))))
        if target == "all":
            topic = topics.hall_command_topic(self.hall.hall)
            expected = sorted(n for n, t in self.hall.tables.items() if t.state == "ready")
        else:
            try:
                topics.check_name("the table", target)
            except ValueError as e:
                raise ValueError(str(e))
            topic = topics.table_topic(self.hall.hall, target, "cmd")
            expected = [target]
        client = self.client
        if client is None:
            raise ConnectionError("the hall's broker cannot be reached now: the command "
                                  "was not sent")
        command_id = "console-%s" % secrets.token_hex(8)
        sent = self.hall.sending(command_id, name, target, expected)
        await client.publish(topic, json.dumps({"id": command_id, "command": name}).encode(),
                             qos=1)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ACK_WAIT_S
        while loop.time() < deadline and not all(n in sent["acks"] for n in expected):
            await asyncio.sleep(0.05)
        # An answer that comes later is still kept: /api/hall lists the last commands sent.
        return self.hall.answers(command_id)

    # ------------------------------------------------------------ the web

    @web.middleware
    async def _guard(self, request, handler):
        """On loopback, only requests addressed to a loopback name (DNS rebinding); off
        loopback, the web token on every API request (the page itself holds no secret)."""
        if is_loopback(self.host):
            name = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else \
                request.host
            if name.strip("[]") not in ("localhost",) and not is_loopback(name.strip("[]")):
                return web.json_response({"error": "the hall console answers only as "
                                          "127.0.0.1 or localhost."}, status=403)
        if self.web_token and request.path.startswith("/api/"):
            given = request.headers.get("X-Web-Token")
            if not isinstance(given, str) or not hmac.compare_digest(
                    given.encode(), self.web_token.encode()):
                return web.json_response({"error": "this console needs its web token: open "
                                          "the link it printed (it carries the token)."},
                                         status=401)
        try:
            return await handler(request)
        except web.HTTPException as e:
            if e.status < 400:
                raise
            return web.json_response({"error": {404: "there is no such page here.",
                                                405: "this address does not take that kind "
                                                "of request."}.get(
                e.status, "the console refused this request (HTTP %d)." % e.status)},
                status=e.status)

    def _app(self):
        app = web.Application(client_max_size=16 * 1024, middlewares=[self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/api/hall", self._api_hall)
        app.router.add_post("/api/command", self._api_command)
        return app

    async def _page(self, request):
        return web.FileResponse(os.path.join(STATIC, "hall.html"))

    async def _api_hall(self, request):
        return web.json_response(self.hall.view())

    def _pin_refusal(self, request):
        """None if the request carries the staff PIN; else the refusal (a sentence). Wrong
        PINs are counted per device, which then rests (host/web/server.py's PinGuard)."""
        if self.staff_pin is None:
            return 403, "this console has no staff PIN: commands are off."
        address = request.remote or "unknown"
        left = self.pins.resting(address)
        if left:
            return 429, ("too many wrong PINs from this device: it may try again in %d "
                         "seconds." % left)
        given = request.headers.get("X-Staff-Pin")
        if not given:
            return 401, "a command needs the staff PIN: type it on the console page."
        if not hmac.compare_digest(given.encode(), self.staff_pin.encode()):
            rest = self.pins.failed(address)
            return 403, "wrong staff PIN." + (
                " Too many wrong PINs from this device: it may try again in %d seconds."
                % rest if rest else "")
        self.pins.succeeded(address)
        return None

    async def _api_command(self, request):
        if request.headers.get("X-Hall-Console") != "1":
            return web.json_response({"error": "a command needs the header X-Hall-Console: "
                                      "send it from the console page."}, status=403)
        refused = self._pin_refusal(request)
        if refused is not None:
            return web.json_response({"error": refused[1]}, status=refused[0])
        origin = request.headers.get("Origin")
        if origin is not None and origin not in ("http://" + request.host,
                                                 "https://" + request.host):
            return web.json_response({"error": "a page from another site may not steer "
                                      "the hall."}, status=403)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            body = None
        if not isinstance(body, dict):
            return web.json_response({"error": "a command is a JSON object: {\"table\": "
                                      "\"table-1\" or \"all\", \"command\": \"pause\"}."},
                                     status=400)
        try:
            result = await self.command(body.get("table"), body.get("command"))
        except ValueError as e:
            return web.json_response({"error": str(e) + "."}, status=400)
        except ConnectionError as e:
            return web.json_response({"error": str(e) + "."}, status=503)
        except Exception as e:  # noqa: BLE001 - the broker went away while sending
            return web.json_response({"error": "the command could not be sent: %s." % e},
                                     status=503)
        return web.json_response(result)

    # ------------------------------------------------------------ life

    async def start(self):
        self._task = asyncio.ensure_future(self._listen())
        self.runner = web.AppRunner(self._app(), access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port, reuse_address=True)
        try:
            await site.start()
        except OSError as e:
            await self.stop()
            raise ValueError("the hall console cannot listen on %s:%d (%s): choose another "
                             "with --web 127.0.0.1:PORT" % (self.host, self.port, e.strerror))
        self.port = self.runner.addresses[0][1]

    async def stop(self):
        if self._task is not None:
            from host.hall.publisher import cancelled
            await cancelled(self._task, within=5.0)
        if self.runner is not None:
            await self.runner.cleanup()


def parse_args(argv):
    p = argparse.ArgumentParser(prog="fairytable hall", description=__doc__.split("\n\n")[0])
    p.add_argument("--mqtt", required=True, metavar="URL",
                   help="the hall's broker: mqtt://[user[:password]@]host[:port]; a user "
                        "without a password takes $FAIRYTABLE_MQTT_PASSWORD")
    p.add_argument("--hall", default="hall", metavar="NAME",
                   help="the hall's name on the broker (default hall)")
    p.add_argument("--web", default="127.0.0.1:8090", metavar="HOST:PORT",
                   help="where the console listens (default 127.0.0.1:8090; off loopback "
                        "only with --web-token-file)")
    p.add_argument("--web-token-file", default=None, metavar="FILE",
                   help="the web token (made there if missing); needed off loopback")
    p.add_argument("--staff-pin-file", default=None, metavar="FILE",
                   help="the staff PIN that commands need (default: hall-staff.pin in the "
                        "data folder, made on first start and printed once)")
    args = p.parse_args(argv)
    try:
        args.broker = topics.parse_broker(args.mqtt)
        args.hall = topics.check_name("the hall", args.hall)
        args.host, args.port = parse_bind(args.web)
        if not is_loopback(args.host) and not args.web_token_file:
            raise ValueError("--web %s listens beyond this machine: add --web-token-file "
                             "FILE (a random token is made there and printed), or bind "
                             "127.0.0.1" % args.web)
    except ValueError as e:
        p.error(str(e))
    return args


async def serve(args):
    pin_path = args.staff_pin_file or os.path.join(installation.data_folder(),
                                                   "hall-staff.pin")
    pin, made = secret_file(pin_path, make_pin, "staff PIN")
    if made:
        print("staff PIN %s (kept in %s; shown this once)" % (pin, pin_path), flush=True)
    token = None
    if args.web_token_file:
        token, made = secret_file(args.web_token_file, make_token, "web token")
        if made:
            print("web token made in %s" % args.web_token_file, flush=True)
    console = Console(args.broker, args.hall, args.host, args.port,
                      say=lambda line: print(line, flush=True), staff_pin=pin,
                      web_token=token)
    await console.start()
    print("hall console for %s on %r: http://%s:%d/%s" % (
        args.hall, args.broker, args.host, console.port, "#web=" + token if token else ""),
        flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await console.stop()
    print("hall console stopped", flush=True)


def main(argv=None):
    """Ctrl-C or SIGTERM stops the console: its link and its page closed within seconds.
    What the broker's client library may still leave running then is not waited for (it
    can swallow a cancellation); the process ends."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(lambda _loop, _context: None)   # leftovers at the exit
    try:
        loop.run_until_complete(serve(args))
    except ValueError as e:
        print("fairytable hall: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        loop.close()
    return 0
