"""The web table's pieces on their own: redaction, binds, secret files, and the view and the
controls of a session on a scripted link (no tiles, no server)."""

import asyncio
import json
import os
import random
import re

import pytest

from host.clock import ManualClock
from host.web import server
from host.web.view import HIDDEN, Refused, WebTable, redact
from test_session_clock import session_on
from web_helpers import mentions


async def next_view(ws, showing=lambda view: True):
    """The text of the next table view a WebSocket client reads that `showing` accepts."""
    import aiohttp
    while True:
        msg = await asyncio.wait_for(ws.receive(), 30)
        assert msg.type == aiohttp.WSMsgType.TEXT, msg
        view = json.loads(msg.data)
        if view["type"] == "table" and showing(view):
            return msg.data


def on_web_server(tmp_path, body):
    """Run `await body(session, srv, http, url)`: a web table on a manual clock, an aiohttp
    client session and the WebSocket's URL; the server stopped after."""
    import aiohttp

    async def scenario():
        session = session_on(tmp_path, ManualClock())
        srv = server.WebServer(WebTable(session), "127.0.0.1", 0)
        await srv.start()
        try:
            async with aiohttp.ClientSession() as http:
                await body(session, srv, http, "http://127.0.0.1:%d/ws" % srv.port)
        finally:
            await srv.stop(flush_s=0)
    asyncio.run(scenario())


def test_redaction_replaces_whole_words_only():
    words = ["the_dodo", "The Dodo", "C2"]
    out = redact({"log": ["hide card=the_dodo cell=[2, 3]", "team_the_dodo_fans stays",
                           "The Dodo was lifted", "C2 and C22"], "n": 3, "id": "the_dodo"},
                  words)
    assert out["log"] == ["hide card=%s cell=[2, 3]" % HIDDEN, "team_the_dodo_fans stays",
                          "%s was lifted" % HIDDEN, "%s and C22" % HIDDEN]
    assert out["id"] == HIDDEN and out["n"] == 3


def test_redaction_hides_what_a_pattern_of_whole_words_would():
    """The secrets are read word by word (no pattern of hundreds of alternatives compiled
    for each viewer): the same strings come out as with the plain definition, a pattern of
    every word, the longest first, each standing as a word of its own."""
    rng = random.Random(7)
    pieces = ["the", "dodo", "_", " ", "Sea", "Witch", "'s", "Grotto", "é", "x", "1", "-",
              "The", "=", "C2"]
    secrets = ["the_dodo", "The Sea Witch", "Sea", "dodo", "'s Grotto", "x1", "The Sea", "é",
               "C2"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        words = rng.sample(secrets, rng.randint(1, len(secrets)))
        pattern = re.compile(r"(?<![A-Za-z0-9_])(?:%s)(?![A-Za-z0-9_])" % "|".join(
            re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w))))
        assert redact(text, words) == pattern.sub(HIDDEN, text), (text, words)


def test_binds_and_loopback():
    assert server.parse_bind("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert server.parse_bind("[::1]:9000") == ("::1", 9000)
    for bad in ("8080", "host:", "host:99999", ":80"):
        with pytest.raises(ValueError):
            server.parse_bind(bad)
    assert server.is_loopback("127.0.0.1") and server.is_loopback("::1")
    assert server.is_loopback("localhost") and not server.is_loopback("0.0.0.0")
    assert not server.is_loopback("192.168.1.5")


def test_a_non_loopback_server_needs_a_token(tmp_path):
    session = session_on(tmp_path, ManualClock())
    with pytest.raises(ValueError) as e:
        server.WebServer(WebTable(session), "0.0.0.0", 8080)
    assert "--web-token-file" in str(e.value)


def test_secret_files_are_made_once_and_private(tmp_path):
    path = str(tmp_path / "sub" / "staff.pin")
    pin, made = server.secret_file(path, server.make_pin, "staff PIN")
    assert made and len(pin) == 6 and pin.isdigit()
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    again, made = server.secret_file(path, server.make_pin, "staff PIN")
    assert again == pin and not made


def test_the_spectator_view_of_a_session_hides_the_hands(tmp_path):
    session = session_on(tmp_path, ManualClock())
    web = WebTable(session)
    v = web.view(None)
    text = json.dumps(v)
    assert len(v["cells"]) == 49 and "you" not in v
    for cid in session.match.engine.secrets(session.match.state, None):
        assert not mentions(text, cid)
    hero = web.view("hero")
    assert hero["you"]["seat"] == "hero" and hero["you"]["controls"] is False  # a real table
    with pytest.raises(Refused) as e:
        web.view("nobody")
    assert e.value.status == 404


def test_controls_on_a_real_table_are_refused_and_change_nothing(tmp_path):
    session = session_on(tmp_path, ManualClock())
    web = WebTable(session)   # no virtual hands: a real table
    before = json.dumps(web.view(None), sort_keys=True)

    def refused(seat, msg):
        with pytest.raises(Refused) as e:
            asyncio.run(web.control(seat, msg))
        return e.value
    assert refused("hero", {"op": "tap", "cell": [3, 3]}).status == 409
    assert "real table" in refused("hero", {"op": "tap", "cell": [3, 3]}).message
    assert refused(None, {"op": "tap", "cell": [3, 3]}).status == 403
    assert refused("hero", {"op": "tap", "cell": [3, 3], "seat": "villain"}).status == 403
    assert refused("hero", {"op": "fly"}).status == 400
    assert refused("hero", ["op"]).status == 400
    assert json.dumps(web.view(None), sort_keys=True) == before
    assert session.match.actions == []


def test_on_loopback_only_loopback_names_are_answered(tmp_path):
    async def body(session, srv, http, url):
        url = "http://127.0.0.1:%d/api/table" % srv.port
        async with http.get(url) as r:
            assert r.status == 200
        async with http.get(url, headers={"Host": "evil.example:%d" % srv.port}) as r:
            assert r.status == 403
            assert "127.0.0.1" in (await r.json())["error"]
        async with http.get(url, headers={"Host": "localhost:%d" % srv.port}) as r:
            assert r.status == 200

    on_web_server(tmp_path, body)


def test_one_view_is_built_per_change_for_every_spectator_and_all_get_the_same_bytes(tmp_path):
    """Many spectators cost one view and one JSON text per change: the pages that connect
    between two changes get the view already built, and after a change every spectator
    gets the same new text (nothing built or encoded per page)."""

    async def body(session, srv, http, url):
        pages = [await http.ws_connect(url) for _ in range(5)]
        first = [await next_view(ws) for ws in pages]
        assert len(set(first)) == 1 and srv.views_built == 1
        session.log.say("Staff dim the lights")      # the table changes: a log line
        after = [await next_view(ws, lambda v: "Staff dim the lights" in v["log"])
                 for ws in pages]
        assert len(set(after)) == 1 and srv.views_built == 2
        # A seat's page is not a spectator's: its own view, built for it.
        seat = pages[0]
        await seat.send_str(json.dumps({"type": "hello", "seat": "hero",
                                        "token": srv.seat_token("hero")}))
        mine = json.loads(await next_view(seat, lambda v: "you" in v))
        assert mine["you"]["seat"] == "hero" and srv.views_built == 3
        for ws in pages:
            await ws.close()

    on_web_server(tmp_path, body)


def test_pages_taking_deflate_read_every_change_as_the_one_view(tmp_path):
    """Pages that offer permessage-deflate (as browsers do) read each view whole, change
    after change, the same JSON as a page without deflate: the one view of the change."""

    async def body(session, srv, http, url):
        deflating = [await http.ws_connect(url, compress=15) for _ in range(3)]
        plain = await http.ws_connect(url, compress=0)
        for ws in deflating:
            assert ws.compress == 15
        assert not plain.compress
        for n in range(3):
            line = "Staff turn the lights up to %d" % n
            session.log.say(line)
            got = [await next_view(ws, lambda v, line=line: line in v["log"])
                   for ws in deflating + [plain]]
            assert len(set(got)) == 1
            view = srv.view_data(None)
            assert got[0].encode("utf-8") == view.data
        for ws in deflating + [plain]:
            await ws.close()

    on_web_server(tmp_path, body)


def test_pages_asking_for_packed_views_share_one_compression_and_read_every_change(tmp_path):
    """A page that asks for its views packed (/ws?views=deflate, as the table's pages do
    where the browser can inflate) gets each view as one binary zlib message, the same bytes
    for every such page (compressed once per change), without permessage-deflate; inflated,
    it is the JSON a plain page reads as text. Answers stay text."""
    import zlib

    import aiohttp

    async def packed_view(ws, line):
        while True:
            msg = await asyncio.wait_for(ws.receive(), 30)
            assert msg.type == aiohttp.WSMsgType.BINARY, msg
            view = json.loads(zlib.decompress(msg.data))
            if view["type"] == "table" and line in view["log"]:
                return msg.data

    async def body(session, srv, http, url):
        packed = [await http.ws_connect(url + "?views=deflate", compress=15)
                  for _ in range(3)]
        plain = await http.ws_connect(url, compress=0)
        for ws in packed:
            assert not ws.compress      # no per-page compression on top
        for n in range(3):
            line = "Staff turn the lights up to %d" % n
            session.log.say(line)
            got = [await packed_view(ws, line) for ws in packed]
            text = await next_view(plain, lambda v, line=line: line in v["log"])
            assert len(set(got)) == 1
            assert zlib.decompress(got[0]) == text.encode("utf-8")
            view = srv.view_data(None)
            assert view.packed() is view.packed() and view.packed() == got[0]
        await packed[0].send_str("not json")
        msg = await asyncio.wait_for(packed[0].receive(), 30)
        while msg.type == aiohttp.WSMsgType.BINARY:     # a view sent meanwhile
            msg = await asyncio.wait_for(packed[0].receive(), 30)
        assert msg.type == aiohttp.WSMsgType.TEXT and \
            json.loads(msg.data)["type"] == "error"
        for ws in packed + [plain]:
            await ws.close()

    on_web_server(tmp_path, body)
