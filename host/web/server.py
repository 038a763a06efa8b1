"""The web table's server: aiohttp in the host's event loop (docs/web.md has the contract).

    GET  /                 the table page (spectator; a seat's link adds #seat=S&token=T)
    GET  /tv, /kiosk       the same page laid out for a TV or the Pi's 7-inch screen
    GET  /staff            the staff page (asks for the PIN)
    GET  /api/table        the spectator view; ?seat=S with X-Seat-Token: that seat's view
    POST /api/control      a seat's control on the virtual table (X-Seat-Token)
    GET  /ws               WebSocket: the view on connect and on every change; controls
    GET/POST /api/staff/…  staff state and operations (X-Staff-Pin)

Rights are checked on the server for every request and WebSocket message.
Secrets never travel in a URL the server sees: the page keeps seat tokens in
the URL fragment and sends them in a header or in the WebSocket hello. Off
loopback, every request also needs the web token (X-Web-Token, or
"web_token" in the hello).

A slow or dead browser never slows the table: the table loop never awaits a
client. A watcher task notices changes (a cheap signature, polled and woken
by the session's on_change), builds one view per kind of viewer and hands it
to each client's sender, which keeps only the latest one (drop-to-latest: a
client that cannot keep up skips states, never queues them).
"""

import asyncio
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import socket
import time

from aiohttp import WSMsgType, web

from host import installation
from host.web.view import Refused

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
WATCH_S = 0.05           # how often the watcher looks for a change nobody announced
SEND_TIMEOUT_S = 10.0    # a client that takes longer to take one message is dropped
MAX_REPLIES = 16         # acks and errors waiting for a slow client, beyond: dropped
PIN_TRIES = 5            # wrong PINs before the staff API rests
PIN_REST_S = 30.0


def is_loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_bind(text):
    """"HOST:PORT" (or "[v6]:PORT") as (host, port); ValueError says what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ValueError("--web takes HOST:PORT, like 127.0.0.1:8080, not %r" % text)
    host = host.strip("[]")
    try:
        port = int(port)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise ValueError("--web %s: the port must be a number from 0 to 65535" % text)
    return host, port


def secret_file(path, make, what):
    """The secret in `path`, made (mode 600) when missing; returns (secret, made)."""
    try:
        with open(path, encoding="utf-8") as f:
            value = f.read().strip()
    except FileNotFoundError:
        value = ""
    except OSError as e:
        raise ValueError("cannot read the %s file %s: %s" % (what, path, e.strerror))
    if value:
        return value, False
    value = make()
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(value + "\n")
    except OSError as e:
        raise ValueError("cannot write the %s file %s: %s" % (what, path, e.strerror))
    return value, True


def make_pin():
    return "%06d" % secrets.randbelow(10 ** 6)


def make_token():
    return secrets.token_urlsafe(24)


class Client:
    """One WebSocket: its viewer and what waits to be sent (the latest view, a few replies)."""

    def __init__(self, ws, seat=None):
        self.ws = ws
        self.seat = seat
        self.ready = False        # it may receive views (hello done, or none needed)
        self.latest = None        # the newest view not sent yet (older ones are dropped)
        self.replies = []
        self.wake = asyncio.Event()
        self.sent = 0
        self.dropped = 0

    def offer(self, text):
        if self.latest is not None:
            self.dropped += 1
        self.latest = text
        self.wake.set()

    def reply(self, obj):
        if len(self.replies) < MAX_REPLIES:
            self.replies.append(json.dumps(obj))
        self.wake.set()


class WebServer:
    def __init__(self, table, host="127.0.0.1", port=8080, web_token=None, staff_pin=None,
                 seat_secret=None, say=print):
        if not is_loopback(host) and not web_token:
            raise ValueError("the web table listens on %s only with a web token: add "
                             "--web-token-file FILE (a random token is made there and printed)"
                             % host)
        self.table = table
        self.host = host
        self.port = port
        self.web_token = web_token
        self.staff_pin = staff_pin
        self.seat_secret = seat_secret or make_token()
        self.say = say
        self.clients = set()
        self.runner = None
        self._changed = asyncio.Event()
        self._watch_task = None
        self._signature = None
        self._pin_failures = []
        self.views_built = 0
        self.app = self._make_app()

    # ------------------------------------------------------------ life

    @web.middleware
    async def _host_check(self, request, handler):
        """On loopback, answer only requests addressed to this machine by a loopback name:
        a page elsewhere whose DNS name was re-pointed at 127.0.0.1 (DNS rebinding) gets
        nothing, not even the spectator view."""
        if is_loopback(self.host):
            name = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else \
                request.host
            if name.strip("[]") not in ("127.0.0.1", "localhost", "::1") and \
                    not is_loopback(name.strip("[]")):
                return web.json_response({"error": "this table answers only as 127.0.0.1 or "
                                          "localhost."}, status=403)
        return await handler(request)

    def _make_app(self):
        app = web.Application(client_max_size=64 * 1024, middlewares=[self._host_check])
        r = app.router
        r.add_get("/", self._page)
        r.add_get("/tv", self._page)
        r.add_get("/kiosk", self._page)
        r.add_get("/staff", self._staff_page)
        r.add_get("/favicon.ico", self._no_icon)
        r.add_static("/static", STATIC)
        r.add_get("/api/table", self._api_table)
        r.add_post("/api/control", self._api_control)
        r.add_get("/ws", self._ws)
        r.add_get("/api/staff/state", self._staff_state)
        r.add_get("/api/staff/qr", self._staff_qr)
        r.add_get("/api/staff/replay", self._staff_replay)
        r.add_post("/api/staff/{op}", self._staff_op)
        return app

    async def start(self):
        self.runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port, reuse_address=True)
        try:
            await site.start()
        except OSError as e:
            await self.runner.cleanup()
            raise ValueError("the web table cannot listen on %s:%d (%s): choose another with "
                             "--web HOST:PORT, or --no-web" % (self.host, self.port, e.strerror))
        if self.port == 0:
            self.port = site._server.sockets[0].getsockname()[1]
        self._watch_task = asyncio.ensure_future(self._watch())
        # Someone watching the web table: the bots play at a human pace.
        self.table.session.bots.watched = lambda: any(c.ready for c in self.clients)
        previous = self.table.session.on_change

        def changed():
            if previous is not None:
                previous()
            self._changed.set()
        self.table.session.on_change = changed

    async def stop(self, flush_s=1.0):
        """Send the last state (the game's end) to every client, then close."""
        if self.runner is None:
            return
        self._publish()
        deadline = time.monotonic() + flush_s
        while time.monotonic() < deadline and any(c.latest is not None for c in self.clients):
            await asyncio.sleep(0.02)
        if self._watch_task is not None:
            self._watch_task.cancel()
        for c in list(self.clients):
            await c.ws.close(code=1001, message=b"the table is shutting down")
        await self.runner.cleanup()
        self.runner = None

    async def after_game(self, args, summary):
        """A game ended with people at the table: the web table stays open (the final
        state on every page, the staff page able to start the next game) until Ctrl-C.
        Headless runs, --json and --max-actions end as before."""
        if args.headless or args.json or args.max_actions is not None:
            return summary
        session = self.table.session
        self.say("game %s: %s; scores %s after %d actions" % (
            summary["status"], "winner " + str(summary["winner"]), summary["scores"],
            summary["actions"]))
        self.say("the web table stays open at %s: Ctrl-C stops it; staff can start a new "
                 "game from %sstaff" % (self.url, self.url))
        while True:
            if session.attract or session.match.engine.status(session.match.state) == \
                    "ongoing":
                summary = await session.run()
            else:
                await session.tend()

    @property
    def public_host(self):
        if self.host in ("0.0.0.0", "::", ""):
            return socket.gethostname()
        return "[%s]" % self.host if ":" in self.host else self.host

    @property
    def url(self):
        return "http://%s:%d/" % (self.public_host, self.port)

    def _fragment(self, **parts):
        if self.web_token:
            parts["web"] = self.web_token
        return "&".join("%s=%s" % (k, v) for k, v in parts.items())

    def page_url(self):
        return self.url + ("#" + self._fragment() if self.web_token else "")

    def seat_token(self, seat):
        mac = hmac.new(self.seat_secret.encode(), ("seat:" + seat).encode(), hashlib.sha256)
        return mac.hexdigest()[:24]

    def seat_link(self, seat):
        return self.url + "#" + self._fragment(seat=seat, token=self.seat_token(seat))

    def seat_links(self):
        bots = self.table.bot_seats()
        return [{"seat": s, "bot": s in bots, "url": self.seat_link(s)}
                for s in self.table.seats()]

    # ------------------------------------------------------------ publishing

    async def _watch(self):
        while True:
            try:
                await asyncio.wait_for(self._changed.wait(), WATCH_S)
            except asyncio.TimeoutError:
                pass
            self._changed.clear()
            try:
                sig = self.table.signature()
                if sig != self._signature:
                    self._signature = sig
                    self._publish()
            except Exception as e:  # a view that fails must not stop the watcher
                self.say("web table: cannot build the view (%s: %s)" % (type(e).__name__, e))
                await asyncio.sleep(1.0)

    def view_text(self, seat):
        self.views_built += 1
        view = self.table.view(seat)
        view["type"] = "table"
        view["server_ms"] = int(time.time() * 1000)
        text = json.dumps(view, separators=(",", ":"))
        # A last guard: no other seat's token, no web token, no PIN in any view.
        for secret in self._secrets_except(seat):
            if secret in text:
                text = text.replace(secret, "(a secret)")
        return text

    def _secrets_except(self, seat):
        out = [self.seat_token(s) for s in self.table.seats() if s != seat]
        if self.web_token:
            out.append(self.web_token)
        return out

    def _publish(self):
        texts = {}
        for c in list(self.clients):
            if not c.ready:
                continue
            if c.seat not in texts:
                texts[c.seat] = self.view_text(c.seat)
            c.offer(texts[c.seat])

    async def _sender(self, client):
        ws = client.ws
        try:
            while not ws.closed:
                await client.wake.wait()
                client.wake.clear()
                replies, client.replies = client.replies, []
                for text in replies:
                    await asyncio.wait_for(ws.send_str(text), SEND_TIMEOUT_S)
                text, client.latest = client.latest, None
                if text is not None:
                    await asyncio.wait_for(ws.send_str(text), SEND_TIMEOUT_S)
                    client.sent += 1
        except (asyncio.TimeoutError, ConnectionError, RuntimeError):
            # A browser that does not take its messages is let go; it reconnects.
            await ws.close(code=1008, message=b"too slow")

    # ------------------------------------------------------------ rights

    def _check_web_token(self, given):
        if self.web_token is None:
            return
        if not isinstance(given, str) or not hmac.compare_digest(given, self.web_token):
            raise Refused(401, "this table needs its web token: open the link the host "
                          "printed (it carries the token).")

    def _check_seat(self, seat, token):
        """The seat a token opens; None for a spectator. Refused for a wrong token."""
        if seat is None or seat == "":
            return None
        if not isinstance(seat, str) or seat not in self.table.seats():
            raise Refused(404, "there is no seat %r at this table." % (seat,))
        if not isinstance(token, str) or not hmac.compare_digest(token, self.seat_token(seat)):
            raise Refused(403, "this link does not open seat %s: use the seat link the host "
                          "printed." % seat)
        return seat

    def _check_pin(self, request):
        now = time.monotonic()
        self._pin_failures = [t for t in self._pin_failures if now - t < PIN_REST_S]
        if len(self._pin_failures) >= PIN_TRIES:
            raise Refused(429, "too many wrong PINs: the staff page rests for %d seconds."
                          % PIN_REST_S)
        given = request.headers.get("X-Staff-Pin")
        if self.staff_pin is None:
            raise Refused(403, "this table has no staff PIN: staff controls are off.")
        if given is None:
            raise Refused(401, "the staff API needs the staff PIN (X-Staff-Pin).")
        if not hmac.compare_digest(given.encode(), self.staff_pin.encode()):
            self._pin_failures.append(now)
            raise Refused(403, "wrong staff PIN.")

    def _check_origin(self, request):
        origin = request.headers.get("Origin")
        if origin is None:
            return  # not a browser: Origin protects browsers from other sites' pages
        host = request.headers.get("Host", "")
        if origin not in ("http://" + host, "https://" + host):
            raise Refused(403, "this page (%s) may not open the table's WebSocket." % origin)

    # ------------------------------------------------------------ pages and API

    async def _no_icon(self, request):
        return web.Response(status=204)

    async def _page(self, request):
        return web.FileResponse(os.path.join(STATIC, "index.html"))

    async def _staff_page(self, request):
        return web.FileResponse(os.path.join(STATIC, "staff.html"))

    @staticmethod
    def _error(e):
        body = {"error": e.message}
        if getattr(e, "cells", None):
            body["cells"] = e.cells
        return web.json_response(body, status=e.status)

    async def _api_table(self, request):
        try:
            self._check_web_token(request.headers.get("X-Web-Token"))
            seat = self._check_seat(request.query.get("seat"), request.headers.get("X-Seat-Token"))
            return web.Response(text=self.view_text(seat), content_type="application/json")
        except Refused as e:
            return self._error(e)

    async def _json_body(self, request):
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, "the request body is not JSON.")
        if not isinstance(body, dict):
            raise Refused(400, "the request body must be a JSON object.")
        return body

    async def _api_control(self, request):
        try:
            self._check_web_token(request.headers.get("X-Web-Token"))
            body = await self._json_body(request)
            seat = self._check_seat(body.get("seat"), request.headers.get("X-Seat-Token"))
            if seat is None:
                raise Refused(403, "spectators cannot play: open the table with a seat's link.")
            message = await self.table.control(seat, body)
            self._changed.set()
            return web.json_response({"ok": True, "message": message})
        except Refused as e:
            return self._error(e)

    async def _ws(self, request):
        try:
            self._check_origin(request)
        except Refused as e:
            return self._error(e)
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=16 * 1024)
        await ws.prepare(request)
        client = Client(ws)
        self.clients.add(client)
        sender = asyncio.ensure_future(self._sender(client))
        if self.web_token is None:
            client.ready = True
            client.offer(self.view_text(None))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    client.reply({"type": "error", "status": 400,
                                  "message": "send JSON text messages."})
                    continue
                await self._ws_message(client, msg.data)
        finally:
            self.clients.discard(client)
            sender.cancel()
        return ws

    async def _ws_message(self, client, data):
        ref = None
        try:
            try:
                msg = json.loads(data)
            except ValueError:
                raise Refused(400, "a message is a JSON object; this was not JSON.")
            if not isinstance(msg, dict):
                raise Refused(400, "a message is a JSON object.")
            ref = msg.get("id")
            kind = msg.get("type")
            if kind == "hello":
                self._check_web_token(msg.get("web_token"))
                client.seat = self._check_seat(msg.get("seat"), msg.get("token"))
                client.ready = True
                client.reply({"type": "welcome", "id": ref, "seat": client.seat,
                              "seats": self.seat_links_public()})
                client.offer(self.view_text(client.seat))
            elif kind == "control":
                if not client.ready:
                    raise Refused(401, "say hello first (with the web token).")
                message = await self.table.control(client.seat, msg)
                self._changed.set()
                client.reply({"type": "ack", "id": ref, "message": message})
            elif kind == "ping":
                client.reply({"type": "pong", "id": ref})
            else:
                raise Refused(400, "unknown message type %r (hello, control, ping)." % (kind,))
        except Refused as e:
            client.reply({"type": "error", "id": ref, "status": e.status, "message": e.message,
                          "cells": e.cells})

    def seat_links_public(self):
        bots = self.table.bot_seats()
        return [{"seat": s, "bot": s in bots} for s in self.table.seats()]

    # ------------------------------------------------------------ staff

    async def _staff_state(self, request):
        try:
            self._check_web_token(request.headers.get("X-Web-Token"))
            self._check_pin(request)
            table = self.table
            return web.json_response({
                "game": table.game_name(), "game_id": table.session.game_id,
                "attract": table.session.attract, "paused": table.session.paused,
                "tiles": table.tiles(), "seats": self.seat_links(), "page": self.page_url(),
                "games": table.journal_games(), "form": table.new_game_form(),
                "palette": table.face.palette,
                "clients": len(self.clients)})
        except Refused as e:
            return self._error(e)

    async def _staff_qr(self, request):
        try:
            self._check_web_token(request.headers.get("X-Web-Token"))
            self._check_pin(request)
            seat = request.query.get("seat")
            if seat not in self.table.seats():
                raise Refused(404, "there is no seat %r at this table." % (seat,))
            import segno
            svg = segno.make(self.seat_link(seat), error="m").svg_inline(scale=4, border=2)
            return web.Response(text=svg, content_type="image/svg+xml")
        except Refused as e:
            return self._error(e)

    async def _staff_replay(self, request):
        try:
            self._check_web_token(request.headers.get("X-Web-Token"))
            self._check_pin(request)
            try:
                game_id = int(request.query.get("game", ""))
                step = int(request.query.get("step", "0"))
            except ValueError:
                raise Refused(400, "game and step are whole numbers.")
            return web.json_response(self.table.replay(game_id, step))
        except Refused as e:
            return self._error(e)

    async def _staff_op(self, request):
        try:
            self._check_web_token(request.headers.get("X-Web-Token"))
            self._check_pin(request)
            op = request.match_info["op"]
            body = await self._json_body(request) if request.can_read_body else {}
            message = await self.table.staff_async(op, body)
            self._changed.set()
            return web.json_response({"ok": True, "message": message})
        except Refused as e:
            return self._error(e)


# ---------------------------------------------------------------- `fairytable run`

def add_arguments(p):
    """The web options of `fairytable run`."""
    p.add_argument("--web", default=None, metavar="HOST:PORT",
                   help="serve the web table there (default 127.0.0.1:8080; headless runs "
                        "serve nothing unless --web is given)")
    p.add_argument("--no-web", action="store_true", help="do not serve the web table")
    p.add_argument("--web-token-file", default=None,
                   help="the web token (made there if missing); needed off loopback")
    p.add_argument("--pace", type=int, default=1200, metavar="MS",
                   help="with a person at the table or a browser watching, bots wait this "
                        "long before each move (headless runs nobody watches play at once)")
    p.add_argument("--staff-pin-file", default=None,
                   help="the staff PIN (default: staff.pin in the data folder, made on first "
                        "start and printed once)")


def check_arguments(args):
    """Refuse a bad web option before anything starts (ValueError: a sentence)."""
    if args.pace < 0 or args.pace > 60000:
        raise ValueError("--pace is 0 to 60000 ms, not %d" % args.pace)
    if args.no_web and args.web:
        raise ValueError("--web and --no-web contradict each other: give one")
    if args.web:
        host, _port = parse_bind(args.web)
        if not is_loopback(host) and not args.web_token_file:
            raise ValueError("--web %s listens beyond this machine: add --web-token-file FILE "
                             "(a random token is made there and printed), or bind 127.0.0.1"
                             % args.web)


async def start_for_run(args, session, hands, journal, say=None):
    """Start the web table for `fairytable run` (None when it serves nothing).

    Its links are printed for the person who started the table, never put in the session's
    log (which every spectator reads).
    """
    import sys
    from host.web.view import WebTable
    if say is None:
        out = sys.stderr if args.json else sys.stdout

        def say(line):
            print(line, file=out, flush=True)
    check_arguments(args)
    session.bots.pace_ms = args.pace
    session.bots.people = not args.headless
    if args.no_web or (not args.web and (args.headless or args.json)):
        return None
    host, port = parse_bind(args.web) if args.web else ("127.0.0.1", 8080)
    # The staff PIN and the seat key live beside the journal: in the data folder unless
    # --journal put it elsewhere (host/installation.py).
    data = os.path.dirname(os.path.abspath(installation.journal_path(args.journal)))
    web_token = None
    if args.web_token_file:
        web_token, made = secret_file(args.web_token_file, make_token, "web token")
        if made:
            say("web token made in %s" % args.web_token_file)
    pin_path = args.staff_pin_file or os.path.join(data, "staff.pin")
    pin, made = secret_file(pin_path, make_pin, "staff PIN")
    if made:
        say("staff PIN %s (kept in %s; shown this once)" % (pin, pin_path))
    seat_secret, _ = secret_file(os.path.join(data, "web-seats.key"), make_token, "seat key")
    table = WebTable(session, hands, journal)
    table.make_match = _match_maker(args, session, journal)
    server = WebServer(table, host, port, web_token, pin, seat_secret, say)
    try:
        await server.start()
    except ValueError:
        if args.web:
            raise
        # The default port is taken (another table, another program): any free port will do.
        server = WebServer(table, host, 0, web_token, pin, seat_secret, say)
        await server.start()
        say("port %d is in use: the web table took port %d" % (port, server.port))
    say("web table: %s" % server.page_url())
    for link in server.seat_links():
        say("  seat %s%s: %s" % (link["seat"], " (bot)" if link["bot"] else "", link["url"]))
    say("  staff: %sstaff" % server.url)
    return server


def _match_maker(args, session, journal):
    from shared_rules.engine import Match

    def make(seed, options, bot_seats):
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "big")
        fresh = Match(session.match.game, options, seed)
        game_id = journal.start_game(fresh, {"bots": bot_seats, "seed": seed,
                                             "layout": session.layout.path})
        return fresh, game_id
    return make
