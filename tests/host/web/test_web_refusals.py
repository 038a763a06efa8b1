"""The web server's refusals, each a sentence: requests too long or not HTTP, WebSocket
messages too big or too many, a button the rules refuse, wrong staff PINs per client, and
the seat links of an earlier game. A real aiohttp server on a session whose link is
scripted (no tiles), reached through real sockets and aiohttp's client."""

import asyncio
import contextlib
import json

import aiohttp
import pytest

from host.clock import ManualClock
from host.web import server
from host.web.view import WebTable
from shared_rules.engine import Match
from table_helpers import TWO_CARDS
from test_session_clock import session_on

MARK = "zq<script>echo"      # what a refusal must never repeat


@contextlib.asynccontextmanager
async def serving(tmp_path, **kw):
    session = session_on(tmp_path, ManualClock())
    said = []
    srv = server.WebServer(WebTable(session), "127.0.0.1", 0, staff_pin="246810",
                           seat_secret="k" * 32, say=said.append, **kw)
    srv.said = said
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop(flush_s=0)


async def raw(port, data, read=65536):
    """Send raw bytes; return (status, content type, body text) of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        body = await asyncio.wait_for(reader.readexactly(int(headers["Content-Length"])), 30)
        return status, headers.get("Content-Type", ""), body.decode()
    finally:
        writer.close()


def refused_in_json(answer, status):
    got, ctype, body = answer
    assert got == status, answer
    assert ctype.startswith("application/json"), answer
    error = json.loads(body)["error"]
    assert error.endswith(".") and " " in error, error
    assert MARK not in body and "zq" not in body, body
    return error


def test_too_long_addresses_huge_bodies_and_non_http_are_refused_in_json_without_echo(
        tmp_path):
    async def scenario():
        async with serving(tmp_path) as srv:
            port = srv.port
            host = b"Host: 127.0.0.1:%d\r\n" % port
            long_url = ("/" + MARK + "a" * 10000).encode()
            error = refused_in_json(await raw(port, b"GET " + long_url + b" HTTP/1.1\r\n" +
                                               host + b"\r\n"), 414)
            assert "too long" in error
            # Longer than aiohttp reads at all: refused before routing, still in JSON.
            longer = ("/" + MARK + "a" * 100000).encode()
            refused_in_json(await raw(port, b"GET " + longer + b" HTTP/1.1\r\n" + host +
                                      b"\r\n"), 400)
            # A 10 MB body: refused from its length, not read.
            body = (MARK * 700000).encode()[:10 * 1024 * 1024]
            error = refused_in_json(await raw(port, b"POST /api/control HTTP/1.1\r\n" + host +
                                              b"Content-Type: application/json\r\n"
                                              b"Content-Length: %d\r\n\r\n" % len(body) +
                                              body[:65536]), 413)
            assert "too large" in error
            # The same body without a length (chunked): refused as it grows too long.
            chunk = (MARK * 8000).encode()
            chunked = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(12))
            refused_in_json(await raw(port, b"POST /api/control HTTP/1.1\r\n" + host +
                                      b"Transfer-Encoding: chunked\r\n\r\n" + chunked +
                                      b"0\r\n\r\n"), 413)
            refused_in_json(await raw(port, MARK.encode() + b" / HTTP/1.1\r\n" + host +
                                      b"\r\n"), 400)
            refused_in_json(await raw(port, b"GET / HTTP/1.1\r\n" + host + b"X-Long: " +
                                      (MARK * 10000).encode() + b"\r\n\r\n"), 400)
            refused_in_json(await raw(port, b"GET /" + MARK.encode() + b" HTTP/1.1\r\n" +
                                      host + b"\r\n"), 404)
            refused_in_json(await raw(port, b"GET /static/" + MARK.encode() +
                                      b".css HTTP/1.1\r\n" + host + b"\r\n"), 404)
            refused_in_json(await raw(port, b"DELETE /api/table HTTP/1.1\r\n" + host +
                                      b"\r\n"), 405)
            # A browser opening a wrong address reads a page in words with the way to the
            # table, not JSON (still nothing of the request in it).
            status, ctype, page = await raw(port, b"GET /" + MARK.encode() + b" HTTP/1.1\r\n"
                                            + host + b"Accept: text/html,*/*;q=0.8\r\n"
                                            b"Connection: close\r\n\r\n", read=None)
            assert status == 404 and ctype.startswith("text/html"), (status, ctype)
            assert "There is no such page or file at this table." in page and \
                'href="/"' in page and MARK not in page and "{" not in page.split("</style>")[1]
            # The pages themselves are still served.
            status, ctype, page = await raw(port, b"GET / HTTP/1.1\r\n" + host +
                                            b"Connection: close\r\n\r\n", read=None)
            assert status == 200 and ctype.startswith("text/html")
    asyncio.run(scenario())


async def receive_until(ws, predicate, limit=400):
    """Messages that are not views, until `predicate(msg)`; the list of them."""
    out = []
    while len(out) < limit:
        msg = await ws.receive(timeout=10)
        if msg.type != aiohttp.WSMsgType.TEXT:
            out.append(msg)
            if predicate(msg):
                return out
            break
        data = json.loads(msg.data)
        if data["type"] == "table":
            continue
        out.append(data)
        if predicate(data):
            return out
    raise AssertionError("not seen: %r" % out[-5:])


def test_a_20_kb_websocket_message_is_refused_in_words_and_the_socket_stays_open(tmp_path):
    async def scenario():
        async with serving(tmp_path) as srv, aiohttp.ClientSession() as http:
            async with http.ws_connect("http://127.0.0.1:%d/ws" % srv.port) as ws:
                await ws.send_str(json.dumps({"type": "ping", "id": 1, "pad": "x" * 20480}))
                await ws.send_json({"type": "ping", "id": 2})
                got = await receive_until(ws, lambda m: m.get("id") == 2)
                assert got[0]["type"] == "error" and got[0]["status"] == 413
                assert "16 KB" in got[0]["message"]
                assert got[1] == {"type": "pong", "id": 2}
                assert not ws.closed
    asyncio.run(scenario())


def test_every_ping_at_a_reasonable_rate_gets_its_answer(tmp_path):
    async def scenario():
        async with serving(tmp_path) as srv, aiohttp.ClientSession() as http:
            async with http.ws_connect("http://127.0.0.1:%d/ws" % srv.port) as ws:
                for i in range(1, 51):      # 50 at once: within a burst
                    await ws.send_json({"type": "ping", "id": i})
                got = await receive_until(ws, lambda m: m.get("id") == 50)
                assert [m["id"] for m in got] == list(range(1, 51))
                assert all(m["type"] == "pong" for m in got)
    asyncio.run(scenario())


def test_a_flood_of_pings_is_refused_in_words_and_none_is_dropped_silently(tmp_path):
    async def scenario():
        async with serving(tmp_path) as srv, aiohttp.ClientSession() as http:
            async with http.ws_connect("http://127.0.0.1:%d/ws" % srv.port) as ws:
                for i in range(1, 201):
                    await ws.send_json({"type": "ping", "id": i})
                got = await receive_until(ws, lambda m: not isinstance(m, dict))
                pongs = [m["id"] for m in got if isinstance(m, dict) and m["type"] == "pong"]
                errors = [m for m in got if isinstance(m, dict) and m["type"] == "error"]
                # Every ping before the refusal is answered, in order; then one sentence,
                # and the socket closes with a reason.
                assert pongs == list(range(1, len(pongs) + 1))
                assert server.MESSAGE_BURST <= len(pongs) < 200
                assert len(errors) == 1 and errors[0]["status"] == 429
                assert "too many messages" in errors[0]["message"]
                assert got[-1].type == aiohttp.WSMsgType.CLOSE
                assert got[-1].data == 1008 and got[-1].extra == "too many messages"
    asyncio.run(scenario())


def test_end_turn_out_of_turn_is_an_error_with_the_rule(tmp_path):
    async def scenario():
        async with serving(tmp_path) as srv, aiohttp.ClientSession() as http:
            session = srv.table.session
            assert session.match.state.turn == "hero"
            url = "http://127.0.0.1:%d/api/control" % srv.port
            async with http.post(url, json={"seat": "villain", "op": "button",
                                            "name": "end_turn"},
                                 headers={"X-Seat-Token": srv.seat_token("villain")}) as r:
                assert r.status == 409
                assert (await r.json())["error"] == "it is not Villain's turn."
            async with http.ws_connect("http://127.0.0.1:%d/ws" % srv.port) as ws:
                await ws.send_json({"type": "hello", "seat": "villain", "id": 1,
                                    "token": srv.seat_token("villain")})
                await ws.send_json({"type": "control", "op": "button", "name": "end_turn",
                                    "id": 2})
                got = await receive_until(ws, lambda m: m.get("id") == 2)
                assert got[-1]["type"] == "error" and got[-1]["status"] == 409
            assert session.match.actions == []
            # The seat whose turn it is: pressed and played.
            async with http.post(url, json={"seat": "hero", "op": "button", "name": "end_turn"},
                                 headers={"X-Seat-Token": srv.seat_token("hero")}) as r:
                assert r.status == 200, await r.text()
            assert [a["type"] for a in session.match.actions] == ["end_turn"]
            # Paused by staff: the press is refused in words, nothing played.
            session.staff("pause")
            async with http.post(url, json={"seat": "villain", "op": "button",
                                            "name": "end_turn"},
                                 headers={"X-Seat-Token": srv.seat_token("villain")}) as r:
                assert r.status == 409 and "paused" in (await r.json())["error"]
            assert len(session.match.actions) == 1
    asyncio.run(scenario())


def pin_client(address):
    """An aiohttp client whose connections come from `address` (127.0.0.0/8 is loopback)."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))


async def staff_state(http, port, pin=None, session=None):
    headers = {}
    if pin is not None:
        headers["X-Staff-Pin"] = pin
    if session is not None:
        headers["X-Staff-Session"] = session
    async with http.get("http://127.0.0.1:%d/api/staff/state" % port, headers=headers) as r:
        return r.status, await r.json()


def test_wrong_pins_from_one_client_never_keep_out_the_right_pin_from_another(tmp_path):
    async def scenario():
        async with serving(tmp_path) as srv:
            port = srv.port
            async with pin_client("127.0.0.1") as staff, pin_client("127.0.0.2") as guesser:
                answers = [await staff_state(guesser, port, "%06d" % n) for n in range(6)]
                assert [a[0] for a in answers] == [403] * 5 + [429]
                assert "too many wrong pins" in answers[4][1]["error"].lower()
                assert "try again in" in answers[5][1]["error"]
                # The guesser rests, even with the right PIN (or it could go on guessing)...
                assert (await staff_state(guesser, port, "246810"))[0] == 429
                # ...while the right PIN from anyone else is let in at once.
                status, body = await staff_state(staff, port, "246810")
                assert status == 200, body
                session_key = body["session"]
                # An open staff page (its session key) is never kept out, even when its
                # own address has guessed wrong too often.
                for n in range(5):
                    await staff_state(staff, port, "%06d" % n)
                assert (await staff_state(staff, port, "246810"))[0] == 429
                status, body = await staff_state(staff, port, session=session_key)
                assert status == 200 and "session" not in body
                assert (await staff_state(staff, port, session="forged" * 7))[0] == 429
    asyncio.run(scenario())


def test_a_client_guessing_pins_rests_longer_each_time_and_a_right_pin_clears_it():
    now = [0.0]
    guard = server.PinGuard(clock=lambda: now[0])
    for _ in range(4):
        assert guard.failed("10.0.0.9") == 0
    assert guard.failed("10.0.0.9") == 30 and guard.resting("10.0.0.9") == 30
    assert guard.resting("10.0.0.8") == 0
    now[0] = 31.0
    assert guard.resting("10.0.0.9") == 0
    rests = []
    for _ in range(5):
        rests.append(guard.failed("10.0.0.9"))
    assert rests == [0, 0, 0, 0, 60]             # the second rest is twice as long
    now[0] = 100.0
    guard.succeeded("10.0.0.9")
    assert guard.resting("10.0.0.9") == 0
    assert [guard.failed("10.0.0.9") for _ in range(5)][-1] == 30
    # Wrong PINs spread over more than the window never add up to a rest.
    guard.succeeded("10.0.0.9")
    for i in range(10):
        now[0] = 200.0 + i * guard.window_s
        assert guard.failed("10.0.0.9") == 0


def new_game_maker(session):
    games = [session.game_id or 0]

    def make(seed, players, bot_seats):
        games.append(games[-1] + 1)
        return Match("storybook", {"mode": "physical"}, 99, TWO_CARDS), games[-1]
    return make


def test_a_new_game_has_new_seat_links_and_an_old_link_is_told_so(tmp_path):
    async def scenario():
        async with serving(tmp_path) as srv, aiohttp.ClientSession() as http:
            srv.table.make_match = new_game_maker(srv.table.session)
            port = srv.port
            old = srv.seat_token("villain")
            ws = await http.ws_connect("http://127.0.0.1:%d/ws" % port)
            await ws.send_json({"type": "hello", "seat": "villain", "token": old, "id": 1})
            assert (await receive_until(ws, lambda m: m.get("id") == 1))[-1]["seat"] == \
                "villain"
            async with http.post("http://127.0.0.1:%d/api/staff/start" % port,
                                 json={"bots": 0}, headers={"X-Staff-Pin": "246810"}) as r:
                assert r.status == 200, await r.text()
            new = srv.seat_token("villain")
            assert new != old and srv.game_number() == 1
            # The page that held the old link is told, and watches as a spectator.
            told = await receive_until(ws, lambda m: m.get("status") == 410)
            # In words: the seat by its name, why the page only watches, where the new
            # link is (staff at a convention, the terminal at home).
            said = told[-1]["message"]
            assert said.startswith("this link was Villain's seat in an earlier game "
                                   "(game 0). The table now plays game 1, and every new "
                                   "game gives its seats new links"), said
            assert "ask staff" in said and "where the table was started" in said
            assert "villain" not in said, said
            await ws.send_json({"type": "control", "op": "button", "name": "draw", "id": 2})
            refused = await receive_until(ws, lambda m: m.get("id") == 2)
            assert refused[-1]["status"] == 403      # a spectator now: it controls nothing
            await ws.close()
            # The old link, anywhere: a sentence, never the new game's seat.
            async with http.get("http://127.0.0.1:%d/api/table?seat=villain" % port,
                                headers={"X-Seat-Token": old}) as r:
                assert r.status == 410
                error = (await r.json())["error"]
                assert "open this game's link for your seat: ask staff for it" in error
            async with http.post("http://127.0.0.1:%d/api/control" % port,
                                 json={"seat": "villain", "op": "button", "name": "draw"},
                                 headers={"X-Seat-Token": old}) as r:
                assert r.status == 410
            async with http.ws_connect("http://127.0.0.1:%d/ws" % port) as again:
                await again.send_json({"type": "hello", "seat": "villain", "token": old,
                                       "id": 3})
                got = await receive_until(again, lambda m: m.get("id") == 3)
                assert got[-1]["status"] == 410
                view = json.loads((await again.receive(timeout=10)).data)
                assert view["type"] == "table" and "you" not in view
            async with http.get("http://127.0.0.1:%d/api/table?seat=villain" % port,
                                headers={"X-Seat-Token": new}) as r:
                assert r.status == 200 and (await r.json())["you"]["seat"] == "villain"
            # The new links are printed for the person running the table, and the staff
            # page's links (and their QR codes) are the new ones.
            assert any(new in line for line in srv.said)
            status, body = await staff_state(http, port, "246810")
            assert [s["url"] for s in body["seats"] if s["seat"] == "villain"][0].endswith(
                "token=" + new)
            # A forged token naming the current game is still only a wrong token.
            async with http.get("http://127.0.0.1:%d/api/table?seat=villain" % port,
                                headers={"X-Seat-Token": "1_" + "0" * 24}) as r:
                assert r.status == 403
    asyncio.run(scenario())


@pytest.mark.parametrize("token_mode", [False, True])
def test_the_staff_link_carries_what_the_staff_page_needs(tmp_path, token_mode):
    async def scenario():
        async with serving(tmp_path, web_token="w" * 32 if token_mode else None) as srv:
            link = srv.staff_url()
            assert link.startswith("http://127.0.0.1:%d/staff" % srv.port)
            assert ("#web=" + "w" * 32 in link) == token_mode
    asyncio.run(scenario())
