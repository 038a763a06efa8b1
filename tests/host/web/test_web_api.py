"""The web table's API on a running host (real virtual tiles): the view contract, seats, staff,
and every refusal the issue names, each with a sentence and the table unchanged."""

import asyncio
import json
import re
import subprocess

import aiohttp
import pytest

from web_helpers import FAIRYTABLE, Host, free_port, mentions
from mpy import REPO


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    # Storybook, the hero a bot: the villain's seat waits for a person, so the table holds still.
    h = Host(tmp_path_factory.mktemp("webapi"), "--bots", "1", "--seed", "7", "--new",
             "--pace", "0").start()
    # The hero moves first: once it has, the table waits for the villain and holds still
    # (on a loaded machine the bot's first move comes seconds after the tiles).
    h.wait_for(lambda v: v["tiles"]["online"] == v["tiles"]["total"] == 7 and
               v["actors"] == ["villain"] and not v["mismatches"] and not v["busy"])
    yield h
    h.stop()


def same_table(a, b):
    keep = ("actions", "cells", "mismatches", "status", "actors", "paused")
    return all(a[k] == b[k] for k in keep) and a["knowledge"] == b["knowledge"]


def turn(v):
    return v["knowledge"]["turn"]


def phase(v):
    return v["knowledge"]["phase"]


def test_the_spectator_view_has_the_contract(host):
    v = host.table()
    for key in ("game", "title", "status", "winner", "scores", "banner", "facts", "actors",
                "cells", "mismatches", "log", "tiles", "legend"):
        assert key in v, key
    assert v["game"] == "storybook" and v["title"] == "Storybook Battles"
    assert len(v["cells"]) == 49
    assert sorted(tuple(c["cell"]) for c in v["cells"]) == [(c, r) for c in range(7)
                                                            for r in range(7)]
    for c in v["cells"]:
        assert len(c["leds"]) == 4 and all(len(seg) == 4 for seg in c["leds"])
    # Tile ids are staff's: a spectator hears how many tiles are online, and where one is not.
    assert v["tiles"] == {"online": 7, "total": 7, "offline": []}
    assert not re.search(r"\b[0-9a-f]{16}\b", json.dumps(v))
    assert "you" not in v and v["viewer"]["seat"] is None
    assert [(s["seat"], s["name"]) for s in v["seats"] if s["bot"]] == [("hero", "Hero")]


def test_a_seat_view_needs_that_seats_token(host):
    status, body = host.request("GET", "/api/table?seat=villain")
    assert status == 403 and "seat link" in body["error"]
    status, body = host.request("GET", "/api/table?seat=villain",
                                headers={"X-Seat-Token": host.token("hero")})
    assert status == 403, body
    status, body = host.request("GET", "/api/table?seat=nobody")
    assert status == 404 and "no seat" in body["error"]
    v = host.table("villain")
    assert v["you"]["seat"] == "villain" and v["you"]["controls"] is True
    # Physical mode: the virtual hands drew the villain's cards; the hand holds those cards
    # only (as many as the engine says the villain holds), and a spectator never sees them.
    hand = [c["id"] for c in v["you"]["hand"]]
    assert hand and len(hand) == v["knowledge"]["hand_sizes"]["villain"]
    spectator = json.dumps(host.table())
    assert not [c for c in hand if mentions(spectator, c)]


def control(host, body, token=None, raw=None):
    headers = {} if token is None else {"X-Seat-Token": token}
    return host.request("POST", "/api/control", body, headers, raw=raw)


def test_bad_controls_are_refused_with_a_sentence_and_change_nothing(host):
    before = host.table()
    cases = [
        (control(host, {"seat": "villain", "op": "tap", "cell": [3, 3]}), 403),
        (control(host, {"seat": "villain", "op": "tap", "cell": [3, 3]}, "forged" * 4), 403),
        (control(host, {"seat": "hero", "op": "tap", "cell": [3, 3]}, host.token("villain")), 403),
        (control(host, {"seat": "hero", "op": "button", "name": "draw"}, host.token("hero")), 403),
        (control(host, None, host.token("villain"), raw=b"{not json"), 400),
        (control(host, {"seat": "villain", "op": "tap", "cell": [9, 9]},
                 host.token("villain")), 400),
        (control(host, {"seat": "villain", "op": "tap", "cell": "3,3"}, host.token("villain")),
         400),
        (control(host, {"seat": "villain", "op": "juggle"}, host.token("villain")), 400),
        (control(host, {"seat": "villain", "op": "place", "cell": [0, 0], "card": "peter_pan"},
                 host.token("villain")), 403),
        (control(host, {"seat": "villain", "op": "button", "name": "explode"},
                 host.token("villain")), 400),
    ]
    for (status, body), want in cases:
        assert status == want, (status, body)
        assert isinstance(body["error"], str) and body["error"].endswith("."), body
    assert same_table(before, host.table())


def test_staff_api_needs_the_pin(host):
    before = host.table()
    status, body = host.request("POST", "/api/staff/pause", {})
    assert status == 401 and "PIN" in body["error"]
    status, body = host.staff("pause", pin="000000" if host.pin != "000000" else "111111")
    assert status == 403 and "wrong" in body["error"]
    status, body = host.request("GET", "/api/staff/state")
    assert status == 401
    assert same_table(before, host.table())
    status, body = host.staff("pause")
    assert status == 200, body
    assert host.wait_for(lambda v: v["paused"])["paused"]
    status, body = host.staff("resume")
    assert status == 200
    host.wait_for(lambda v: not v["paused"])
    status, body = host.request("GET", "/api/staff/state", headers={"X-Staff-Pin": host.pin})
    assert status == 200
    assert len(body["tiles"]) == 7 and all("crc_errors" in t for t in body["tiles"])
    assert {s["seat"] for s in body["seats"]} == {"villain", "hero"}
    status, svg = host.request("GET", "/api/staff/qr?seat=villain",
                               headers={"X-Staff-Pin": host.pin})
    assert status == 200 and svg.startswith("<svg")


def test_a_seat_plays_through_the_buttons_and_the_tiles(host):
    v = host.wait_for(lambda x: turn(x) == "villain" or phase(x) != "choose_plot_twist",
                      what="the villain's plot twist choice")
    if phase(v) == "choose_plot_twist":
        status, body = control(host, {"seat": "villain", "op": "button", "name": "end_turn"},
                               host.token("villain"))
        assert status == 200, body
        v = host.wait_for(lambda x: x["actions"] > v["actions"], what="the plot twist chosen")
    # The hero (a bot) hides two cards, then the villain plays two face up: through a tile.
    v = host.wait_for(lambda x: turn(x) == "villain" and phase(x) == "setup_play",
                      timeout=90, what="the villain's setup turn")
    mine = host.table("villain")["you"]
    card, cell = sorted((c["id"], c["targets"][0]) for c in mine["hand"] if c["targets"])[0]
    status, body = control(host, {"seat": "villain", "op": "place", "cell": cell, "card": card},
                           host.token("villain"))
    assert status == 200, body
    after = host.wait_for(lambda x: x["actions"] > v["actions"], what="the play applied")
    here = [c for c in after["cells"] if c["cell"] == cell][0]
    assert here["items"][0]["id"] == card and here["items"][0]["kind"] == "card"
    # The hero's face-down cards: a card back for the spectator and for the villain.
    for view in (after, host.table("villain")):
        backs = [i for c in view["cells"] for i in c["items"] if i["kind"] == "card_back"]
        assert len(backs) == 2
        assert all("id" not in i and i["title"] == "a face-down card of Hero's"
                   for i in backs)


def test_the_websocket_checks_origin_and_rights(host):
    async def go():
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                await http.ws_connect(host.url + "ws", headers={"Origin": "http://evil.example"})
            assert e.value.status == 403
            async with http.ws_connect(host.url + "ws", headers={
                    "Origin": "http://127.0.0.1:%d" % host.port}) as ws:
                first = await ws.receive_json(timeout=10)
                assert first["type"] == "table" and "you" not in first
                await ws.send_str("{nope")
                await ws.send_json({"type": "hello", "seat": "villain", "token": "x" * 24,
                                    "id": 1})
                await ws.send_json({"type": "control", "op": "tap", "cell": [3, 3], "id": 2})
                await ws.send_json({"type": "hello", "seat": "villain",
                                    "token": host.token("villain"), "id": 3})
                await ws.send_json({"type": "control", "seat": "hero", "op": "tap",
                                    "cell": [3, 3], "id": 4})
                replies = {}
                while len(replies) < 5:
                    msg = await ws.receive_json(timeout=10)
                    if msg["type"] != "table":
                        replies[msg.get("id")] = msg
                assert replies[None]["status"] == 400
                assert replies[1]["status"] == 403
                assert replies[2]["status"] == 403   # still a spectator
                assert replies[3]["type"] == "welcome" and replies[3]["seat"] == "villain"
                assert replies[4]["status"] == 403 and "not hero" in replies[4]["message"]
    before = host.table()
    asyncio.run(go())
    assert same_table(before, host.table())


def test_listening_beyond_loopback_needs_a_token(tmp_path):
    r = subprocess.run([FAIRYTABLE, "run", "--web", "0.0.0.0:%d" % free_port(), "--journal",
                        str(tmp_path / "j.db")], capture_output=True, text=True, cwd=REPO,
                       timeout=60)
    assert r.returncode == 2
    assert "--web-token-file" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "j.db").exists() or "virtual table" not in r.stderr
    r = subprocess.run([FAIRYTABLE, "run", "--web", "nowhere", "--journal",
                        str(tmp_path / "j.db")], capture_output=True, text=True, cwd=REPO,
                       timeout=60)
    assert r.returncode == 2 and "HOST:PORT" in r.stderr
