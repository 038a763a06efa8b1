"""The web table's server: aiohttp in the host's event loop (docs/web.md has the contract).

    GET  /                 the table page (spectator; a seat's link adds #seat=S&token=T)
    GET  /tv, /kiosk       the same page laid out for a TV or the Pi's 7-inch screen
    GET  /staff            the staff page (asks for the PIN)
    GET  /api/table        the spectator view; ?seat=S with X-Seat-Token: that seat's view
    POST /api/control      a seat's control on the virtual table (X-Seat-Token)
    GET  /ws               WebSocket: the view on connect and on every change; controls
                           (?views=deflate: each view as a zlib-compressed binary message)
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
client that cannot keep up skips states, never queues them). A view is encoded once for
every page that gets it, and compressed once for every page that asked for its views packed
(`View`: the table's own pages do); aiohttp compresses it for each other page that takes
permessage-deflate.

Every refusal is JSON with a sentence that echoes nothing of the request, aiohttp's
own included: an address or a body too long, a request that is not HTTP, a page that
does not exist (`_refusals` for what reaches the application, `TableRequestHandler`
for what aiohttp cannot parse).
"""

import asyncio
import hashlib
import hmac
import html
import json
import math
import os
import secrets
import socket
import time
import zlib

from aiohttp import WSMsgType, web

from host import bot_levels, installation
# (the options are light to import: `fairytable run` reads them without aiohttp)
from host.web.options import (add_arguments, check_arguments, is_loopback,  # noqa: F401
                              pace, parse_bind, serves)
from host.web.view import Refused

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
WATCH_S = 0.05           # how often the watcher looks for a change nobody announced
SEND_TIMEOUT_S = 10.0    # a client that takes longer to take one message is dropped
MAX_BODY = 64 * 1024     # a request body, at most
MAX_URL = 2048           # an address (path and query), at most
MAX_LINE = 64 * 1024     # a line aiohttp reads at all (longer: refused before routing)
MAX_MESSAGE = 16 * 1024  # a WebSocket message the table reads; longer: refused in words
MAX_FRAME = 1024 * 1024  # a WebSocket frame at all: longer, aiohttp closes (1009)
MESSAGE_BURST = 60       # WebSocket messages a client may send at once...
MESSAGE_RATE = 20        # ...and each second after that; beyond: refused, the socket closed
MAX_QUEUED = 512         # answers waiting for a client that does not read them: closed
STAFF_SESSIONS = 64      # staff pages open at once (their session keys), the oldest let go


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


class PinGuard:
    """Wrong staff PINs counted per client (its remote address), each with its own rest.

    A client that gives `tries` wrong PINs within `window_s` rests: its PINs are not even
    checked for `rest_s` seconds, doubled for each rest since its last right PIN (up to
    `max_rest_s`). Other clients are never slowed by it, so a spectator guessing PINs never
    keeps staff out; a right PIN clears the client's record.
    """

    tries = 5
    window_s = 60.0
    rest_s = 30.0
    max_rest_s = 900.0
    max_clients = 4096       # clients remembered at once (the quietest forgotten first)

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.clients = {}    # address -> {"wrong": [times], "rests": n, "until": t, "last": t}

    def resting(self, address):
        """Whole seconds the client still rests (0: its PIN may be checked)."""
        record = self.clients.get(address)
        if record is None:
            return 0
        left = record["until"] - self.clock()
        return math.ceil(left) if left > 0 else 0

    def failed(self, address):
        """A wrong PIN from the client; returns the seconds it now rests (0: none)."""
        now = self.clock()
        record = self.clients.get(address)
        if record is None:
            if len(self.clients) >= self.max_clients:
                quietest = min(self.clients, key=lambda a: self.clients[a]["last"])
                del self.clients[quietest]
            record = self.clients[address] = {"wrong": [], "rests": 0, "until": 0.0,
                                              "last": now}
        if now - record["last"] > self.max_rest_s:
            record["rests"] = 0          # quiet for long: its back-off starts again
        record["last"] = now
        record["wrong"] = [t for t in record["wrong"] if now - t < self.window_s] + [now]
        if len(record["wrong"]) < self.tries:
            return 0
        rest = min(self.rest_s * (2 ** record["rests"]), self.max_rest_s)
        record["rests"] += 1
        record["wrong"] = []
        record["until"] = now + rest
        return int(rest)

    def succeeded(self, address):
        self.clients.pop(address, None)


class MessageRate:
    """A client's WebSocket messages: `burst` at once, then `rate` a second (a token bucket)."""

    def __init__(self, burst=MESSAGE_BURST, rate=MESSAGE_RATE, clock=time.monotonic):
        self.burst = burst
        self.rate = rate
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()

    def allow(self):
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


# Sentences for refusals aiohttp itself makes (routing, body size, requests it cannot parse):
# none repeats anything of the request.
REFUSALS = {
    400: "the table could not read this request: it is not HTTP, or a line of it is longer "
         "than %d KB." % (MAX_LINE // 1024),
    403: "this is not yours to open.",
    404: "there is no such page or file at this table.",
    405: "this address does not take that kind of request.",
    413: "the request is too large: a body is at most %d KB." % (MAX_BODY // 1024),
    414: "the address is too long: at most %d characters." % MAX_URL,
    431: "the request's headers are too large.",
    500: "the table could not answer this (a fault of the table's software: the host's "
         "terminal shows it).",
    504: "the table took too long to answer this request.",
}


def refusal(status, page=False):
    """The JSON answer for a refusal `status` (a sentence, nothing of the request in it);
    `page`: a small page in words instead, for a browser that opened an address (a link
    typed wrong), with the way to the table."""
    text = REFUSALS.get(status) or "the table refused this request (HTTP %d)." % status
    if page:
        return web.Response(status=status, content_type="text/html", text=REFUSAL_PAGE % (
            html.escape(text[0].upper() + text[1:])))
    return web.json_response({"error": text}, status=status)


REFUSAL_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Fairytable</title>
<style>body{font-family:system-ui,sans-serif;background:#15151a;color:#eee;margin:0;
padding:24px;font-size:18px}a{color:#9cf}</style></head><body><p>%s</p>
<p><a href="/">Open the table</a></p></body></html>
"""


def opens_a_page(request):
    """A browser opening an address (a GET asking for HTML), not the page's own requests."""
    return request.method == "GET" and "text/html" in request.headers.get("Accept", "")


class TableRequestHandler(web.RequestHandler):
    """aiohttp's handler of one connection, answering what aiohttp cannot parse (a line
    too long, a request that is not HTTP) in the table's way: JSON with a sentence, not
    aiohttp's plain text that quotes the request back. Bad requests are not the table's
    fault: they are not logged; a fault of the table (500) is, for the operator."""

    def handle_error(self, request, status=500, exc=None, message=None):
        if status >= 500 and exc is not None:
            self.log_exception("web table: a request failed", exc_info=exc)
        if request.writer.output_size > 0:
            raise ConnectionError("an answer was already under way: the connection is closed")
        response = refusal(status)
        response.force_close()
        return response


class View:
    """One view's message, prepared once for every page that gets it: its UTF-8 JSON and,
    made on first need, the same compressed (zlib) for the pages that asked for views
    packed (`/ws?views=deflate`): one compression per change for all of them."""

    __slots__ = ("data", "_packed")

    def __init__(self, data):
        self.data = data
        self._packed = None

    def packed(self):
        if self._packed is None:
            self._packed = zlib.compress(self.data, 6)
        return self._packed


class Client:
    """One WebSocket: its viewer and what waits to be sent (the latest view, a few replies)."""

    def __init__(self, ws, seat=None):
        self.ws = ws
        self.seat = seat
        self.game = None          # the game its seat's link was for
        self.ready = False        # it may receive views (hello done, or none needed)
        self.latest = None        # the newest view not sent yet (older ones are dropped)
        self.replies = []         # answers, every one sent, in order
        self.closing = None       # (code, reason): close once the answers are sent
        self.rate = MessageRate()
        self.wake = asyncio.Event()
        self.sent = 0
        self.dropped = 0
        self.packed = False       # views go as zlib-compressed binary messages

    def offer(self, data):
        """The newest view for this client (a `View`: the same one for every client of one
        kind, encoded once, never per client)."""
        if self.latest is not None:
            self.dropped += 1
        self.latest = data
        self.wake.set()

    def reply(self, obj):
        if self.closing is not None:
            return
        self.replies.append(json.dumps(obj))
        if len(self.replies) > MAX_QUEUED:
            # A page that sends and never reads: told why, then let go (it reconnects).
            self.replies.append(json.dumps({
                "type": "error", "status": 429, "message": "this page does not read the "
                "table's answers: the connection is closed; reload the page."}))
            self.closing = (1008, "answers not read")
        self.wake.set()

    def close(self, code, reason, message=None, status=None):
        """Send `message` (an error sentence) after the answers owed, then close."""
        if message is not None:
            self.reply({"type": "error", "status": status, "message": message})
        self.closing = (code, reason)
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
        self._listener = None
        self._changed = asyncio.Event()
        self._watch_task = None
        self._signature = None
        self._texts = {}             # viewer -> its View at _texts_signature
        self._texts_signature = None
        self._game_seen = None
        self.pins = PinGuard()
        self._staff_sessions = {}    # key -> True, oldest first
        self.views_built = 0
        self.app = self._make_app()

    # ------------------------------------------------------------ life

    @web.middleware
    async def _refusals(self, request, handler):
        """What aiohttp would refuse in plain text quoting the request (a route or file not
        found, a body too large), and what is too long to read, refused in JSON with a
        sentence. Nothing of the request is repeated in an answer."""
        if len(request.raw_path) > MAX_URL:
            return refusal(414)
        if request.content_length is not None and request.content_length > MAX_BODY:
            response = refusal(413)
            response.force_close()    # the body is not read: the connection cannot go on
            return response
        try:
            return await handler(request)
        except web.HTTPException as e:
            if e.status < 400:
                raise
            return refusal(e.status, page=e.status == 404 and opens_a_page(request))

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
        app = web.Application(client_max_size=MAX_BODY,
                              middlewares=[self._refusals, self._host_check])
        r = app.router
        r.add_get("/", self._page)
        r.add_get("/tv", self._page)
        r.add_get("/kiosk", self._page)
        r.add_get("/staff", self._staff_page)
        r.add_get("/favicon.ico", self._no_icon)
        r.add_get("/static/{path:.+}", self._static)
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
        loop = asyncio.get_running_loop()
        manager = self.runner.server

        def connection():
            # Each connection gets the table's handler (its refusals are JSON sentences).
            return TableRequestHandler(manager, loop=loop, access_log=None,
                                       max_line_size=MAX_LINE, max_field_size=MAX_LINE)
        try:
            self._listener = await loop.create_server(connection, self.host, self.port,
                                                      reuse_address=True)
        except OSError as e:
            await self.runner.cleanup()
            raise ValueError("the web table cannot listen on %s:%d (%s): choose another with "
                             "--web HOST:PORT, or --no-web" % (self.host, self.port, e.strerror))
        self.port = self._listener.sockets[0].getsockname()[1]
        self._game_seen = self.game_number()
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
        self._listener.close()
        for c in list(self.clients):
            await c.ws.close(code=1001, message=b"the table is shutting down")
        await self.runner.cleanup()
        self.runner = None
        try:
            await asyncio.wait_for(self._listener.wait_closed(), 5.0)
        except asyncio.TimeoutError:
            pass

    async def after_game(self, args, summary):
        """A game ended with people at the table: the web table stays open (the final
        state on every page, the staff page able to start the next game) until Ctrl-C.
        Headless runs, --json and --max-actions end as before."""
        if args.headless or args.json or args.max_actions is not None:
            return summary
        session = self.table.session
        self.say(session.result_words())
        self.say("the web table stays open at %s: Ctrl-C stops it; staff can start a new "
                 "game from %s" % (self.url, self.staff_url()))
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

    def staff_url(self):
        """The staff page's link: off loopback it carries the web token, as the page's does."""
        return self.url + "staff" + ("#" + self._fragment() if self.web_token else "")

    def game_number(self):
        """The game the seat links are for: its number in the journal (0 without one)."""
        game_id = self.table.session.game_id
        return game_id if isinstance(game_id, int) and not isinstance(game_id, bool) else 0

    def seat_token(self, seat):
        """The seat's token in the game now played: a new one for every game (derived from
        the seat key, the game's number and its seed, so a resumed game keeps its links),
        prefixed by the game's number so an old game's link can be told apart."""
        game = self.game_number()
        text = "seat:%d:%d:%s" % (game, self.table.session.match.seed, seat)
        mac = hmac.new(self.seat_secret.encode(), text.encode(), hashlib.sha256)
        return "%d_%s" % (game, mac.hexdigest()[:24])

    def seat_link(self, seat):
        return self.url + "#" + self._fragment(seat=seat, token=self.seat_token(seat))

    def seat_links(self):
        bots = self.table.bot_seats()
        return [{"seat": s, "name": self.table.seat_name(s), "bot": s in bots,
                 "level": bots.get(s), "url": self.seat_link(s)} for s in self.table.seats()]

    def reach_words(self):
        """Why a phone cannot open the seat links, when it cannot (None when it can)."""
        if not is_loopback(self.host):
            return None
        return ("This table answers only on this computer (%s): a phone cannot open these "
                "links. To play from phones on this network, start it with --web "
                "0.0.0.0:%d --web-token-file FILE." % (self.public_host, self.port))

    def seat_lines(self):
        """The seat links as printed for the person who runs the table, by the seat's name
        as the pages say it: "  Villain (bot): URL", the bots' levels said unless every bot
        is normal ("(hard bot)"). The seat itself is in the link (`#seat=`)."""
        links = self.seat_links()
        said = bot_levels.said(link["level"] for link in links if link["bot"])
        return ["  %s%s: %s" % (link["name"], (" (%s bot)" % link["level"] if said else
                                               " (bot)") if link["bot"] else "",
                                link["url"]) for link in links]

    # ------------------------------------------------------------ publishing

    async def _watch(self):
        while True:
            try:
                await asyncio.wait_for(self._changed.wait(), WATCH_S)
            except asyncio.TimeoutError:
                pass
            self._changed.clear()
            try:
                self._follow_game()
                sig = self.table.signature()
                if sig != self._signature:
                    self._signature = sig
                    self._publish()
            except Exception as e:  # a view that fails must not stop the watcher
                self.say("web table: cannot build the view (%s: %s)" % (type(e).__name__, e))
                await asyncio.sleep(1.0)

    def _follow_game(self):
        """A new game: new seat links, printed for the person who runs the table; pages
        still holding an old game's link are told so and watch as spectators."""
        game = self.game_number()
        if game == self._game_seen:
            return
        self._game_seen = game
        self.say("game %d: new seat links (the last game's no longer open a seat)" % game)
        for line in self.seat_lines():
            self.say(line)
        for c in list(self.clients):
            if c.seat is not None and c.game != game:
                c.reply({"type": "error", "status": 410, "message": self._old_link(c)})

    def _old_link(self, client):
        """Turn a page holding an earlier game's seat link into a spectator; the sentence."""
        message = self._old_link_sentence(client.seat, client.game)
        client.seat = None
        client.game = None
        return message

    def _old_link_sentence(self, seat, game):
        # Each game's seats get new links (the next visitors' seats are not the last
        # ones'), so a page left open from the last game watches: say why, and where the
        # new link is, at a convention (staff) and at home (the terminal).
        return ("this link was %s's seat in an earlier game (game %d). The table now plays "
                "game %d, and every new game gives its seats new links, so this page only "
                "watches. To play, open this game's link for your seat: ask staff for it, "
                "or read it where the table was started (it prints every seat's link)."
                % (self.table.seat_name(seat), game, self.game_number()))

    def view_data(self, seat):
        """The viewer's view (a `View`: its UTF-8 JSON), built once
        per change of the table: every client of one kind (every spectator) gets the same
        message, and a page that connects between two changes gets it too, with no view
        built for it."""
        # The game's number too: a new game's Match may reuse a freed one's id().
        sig = (self.game_number(), self.table.signature())
        if sig != self._texts_signature:
            self._texts = {}
            self._texts_signature = sig
        data = self._texts.get(seat)
        if data is None:
            data = self._texts[seat] = View(self.view_text(seat).encode("utf-8"))
        return data

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
        views = {}      # viewer -> View: the table's signature read once per kind, not per page
        for c in list(self.clients):
            if c.ready:
                if c.seat not in views:
                    views[c.seat] = self.view_data(c.seat)
                c.offer(views[c.seat])

    async def _sender(self, client):
        ws = client.ws
        try:
            while not ws.closed:
                await client.wake.wait()
                client.wake.clear()
                # asyncio.timeout, not wait_for: no task made for every message sent.
                while client.replies:
                    text = client.replies.pop(0)
                    async with asyncio.timeout(SEND_TIMEOUT_S):
                        await ws.send_str(text)
                if client.closing is not None:
                    code, reason = client.closing
                    await ws.close(code=code, message=reason.encode())
                    return
                data, client.latest = client.latest, None
                if data is not None:
                    async with asyncio.timeout(SEND_TIMEOUT_S):
                        if client.packed:
                            await ws.send_frame(data.packed(), WSMsgType.BINARY)
                        else:
                            await ws.send_frame(data.data, WSMsgType.TEXT)
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
        """The seat a token opens; None for a spectator. Refused for a wrong token (403)
        and for a link of an earlier game (410)."""
        if seat is None or seat == "":
            return None
        if not isinstance(seat, str) or seat not in self.table.seats():
            raise Refused(404, "there is no seat by that name at this table (seats: %s)."
                          % ", ".join(self.table.seats()))
        if isinstance(token, str):
            game, _, _mac = token.partition("_")
            if game.isdigit() and len(game) <= 9 and int(game) != self.game_number():
                raise Refused(410, self._old_link_sentence(seat, int(game)))
        if not isinstance(token, str) or not hmac.compare_digest(token, self.seat_token(seat)):
            raise Refused(403, "this link does not open %s's seat: use the seat link the "
                          "host printed." % self.table.seat_name(seat))
        return seat

    def _check_pin(self, request):
        """Staff only: a staff page's session key, or the PIN. Wrong PINs are counted per
        client (PinGuard): a client guessing rests, every other client is answered as
        before. Returns a new session key after a right PIN, else None."""
        if self.staff_pin is None:
            raise Refused(403, "this table has no staff PIN: staff controls are off.")
        key = request.headers.get("X-Staff-Session")
        if key is not None and any(hmac.compare_digest(key.encode(), k.encode())
                                   for k in self._staff_sessions):
            return None
        address = request.remote or "unknown"
        left = self.pins.resting(address)
        if left:
            raise Refused(429, "too many wrong PINs from this device: it may try again in %d "
                          "seconds." % left)
        given = request.headers.get("X-Staff-Pin")
        if given is None:
            raise Refused(401, "the staff API needs the staff PIN (X-Staff-Pin).")
        if not hmac.compare_digest(given.encode(), self.staff_pin.encode()):
            rest = self.pins.failed(address)
            raise Refused(403, "wrong staff PIN." + (
                " Too many wrong PINs from this device: it may try again in %d seconds."
                % rest if rest else ""))
        self.pins.succeeded(address)
        key = secrets.token_urlsafe(32)
        self._staff_sessions[key] = True
        while len(self._staff_sessions) > STAFF_SESSIONS:
            del self._staff_sessions[next(iter(self._staff_sessions))]
        return key

    def _check_origin(self, request):
        origin = request.headers.get("Origin")
        if origin is None:
            return  # not a browser: Origin protects browsers from other sites' pages
        host = request.headers.get("Host", "")
        if origin not in ("http://" + host, "https://" + host):
            raise Refused(403, "a page from another site may not open the table's WebSocket.")

    # ------------------------------------------------------------ pages and API

    async def _no_icon(self, request):
        return web.Response(status=204)

    async def _page(self, request):
        return web.FileResponse(os.path.join(STATIC, "index.html"))

    async def _static(self, request):
        """A file of the page from static/ (nothing outside it); missing: a sentence."""
        path = os.path.realpath(os.path.join(STATIC, request.match_info["path"]))
        if not path.startswith(os.path.realpath(STATIC) + os.sep) or not os.path.isfile(path):
            return refusal(404)
        return web.FileResponse(path)

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
        # aiohttp itself closes (1009) on a frame over MAX_FRAME; a message over MAX_MESSAGE
        # is read and refused in words, and the socket stays open. A page that asks for its
        # views packed (the table's pages do, where the browser can inflate them) gets each
        # view compressed once for every such page, as a binary message, and no
        # permessage-deflate (which would compress every message again, page by page).
        packed = request.query.get("views") == "deflate"
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_FRAME, compress=not packed)
        await ws.prepare(request)
        client = Client(ws)
        client.packed = packed
        self.clients.add(client)
        sender = asyncio.ensure_future(self._sender(client))
        if self.web_token is None:
            client.ready = True
            client.offer(self.view_data(None))
        try:
            async for msg in ws:
                if not client.rate.allow():
                    client.close(1008, "too many messages", "too many messages: a page may "
                                 "send %d at once and %d a second after that. This connection "
                                 "is closed; the page reconnects." % (MESSAGE_BURST,
                                                                      MESSAGE_RATE), 429)
                elif msg.type != WSMsgType.TEXT:
                    client.reply({"type": "error", "status": 400,
                                  "message": "send JSON text messages."})
                elif len(msg.data.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
                    client.reply({"type": "error", "status": 413, "message": (
                        "a message is at most %d KB; this one was not read."
                        % (MAX_MESSAGE // 1024))})
                else:
                    await self._ws_message(client, msg.data)
                if client.closing is not None:
                    break
        finally:
            self.clients.discard(client)
            if client.closing is not None and not sender.done():
                # The answers owed and the reason go out before the socket closes.
                await asyncio.wait({sender}, timeout=SEND_TIMEOUT_S + 1)
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
                try:
                    client.seat = self._check_seat(msg.get("seat"), msg.get("token"))
                except Refused as e:
                    if e.status == 410:      # an old game's link: it watches, and is told why
                        client.seat = None
                        client.ready = True
                        client.offer(self.view_data(None))
                    raise
                client.game = self.game_number() if client.seat is not None else None
                client.ready = True
                client.reply({"type": "welcome", "id": ref, "seat": client.seat,
                              "seats": self.seat_links_public()})
                client.offer(self.view_data(client.seat))
            elif kind == "control":
                if not client.ready:
                    raise Refused(401, "say hello first (with the web token).")
                if client.seat is not None and client.game != self.game_number():
                    raise Refused(410, self._old_link(client))
                game = self.game_number()
                message = await self.table.control(client.seat, msg)
                self._changed.set()
                answer = {"type": "ack", "id": ref, "message": message}
                if client.seat is not None and self.game_number() != game and \
                        client.seat in self.table.seats():
                    # This seat started the next game ("Play a game"): it keeps its seat in
                    # it, and its page the new link (the old one no longer opens a seat).
                    client.game = self.game_number()
                    answer["token"] = self.seat_token(client.seat)
                client.reply(answer)
            elif kind == "ping":
                client.reply({"type": "pong", "id": ref})
            else:
                raise Refused(400, "a message is a hello, a control or a ping.")
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
            session_key = self._check_pin(request)
            table = self.table
            state = {
                "game": table.game_name(), "title": table.session.game.title,
                "game_id": table.session.game_id, "reach": self.reach_words(),
                "attract": table.session.attract, "paused": table.session.paused,
                "tiles": table.tiles(), "seats": self.seat_links(), "page": self.page_url(),
                "games": table.journal_games(), "form": table.new_game_form(),
                "palette": table.face.palette,
                "clients": len(self.clients)}
            if session_key is not None:
                state["session"] = session_key   # the page's key from now on (X-Staff-Session)
            return web.json_response(state)
        except Refused as e:
            return self._error(e)

    async def _staff_qr(self, request):
        try:
            self._check_web_token(request.headers.get("X-Web-Token"))
            self._check_pin(request)
            seat = request.query.get("seat")
            if seat not in self.table.seats():
                raise Refused(404, "there is no seat by that name at this table (seats: %s)."
                              % ", ".join(self.table.seats()))
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
    pace(args, session)
    if not serves(args):
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
    for line in server.seat_lines():
        say(line)
    say("  staff: %s" % server.staff_url())
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
