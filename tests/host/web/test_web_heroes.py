"""The web table draws a heroes game (Battle Royale with hero teams, Capture the Flag):
walls, figures with their health, flags, the seat's figures and cards to lay down, and the
heroes seat buttons; a seat's view holds no other seat's Bonus Cards. A session on a
scripted link (no tiles, no server)."""

import asyncio
import json

from host.clock import ManualClock
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.web.view import Refused, WebTable
from shared_rules.engine import Match
from test_session_clock import UIDS, ScriptedLink

SETUP = {"characters": [{"id": "tin_woodman", "seat": "red", "cell": [0, 2], "health": 9},
                        {"id": "robin_hood", "seat": "red", "cell": [6, 2]},
                        {"id": "big_bad_wolf", "seat": "blue", "cell": [1, 1]},
                        {"id": "gretel", "seat": "blue", "cell": [6, 4]}],
         "turn": "red", "hands": {"red": ["golden_shield"], "blue": ["flying_carpet"]}}


def heroes_session(tmp_path):
    clock = ManualClock()
    layout = layouts.load(layouts.builtin_path("heroes"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("heroes", {"mode": "ctf"}, 1, SETUP)
    session = TableSession(match, layout, ScriptedLink(clock), registry, UIDS + [
        "e661410400000008"], clock=clock)
    for cell, items in session.table.expected().items():
        session.table.observe_items(cell, items)
    session.table.reconcile(0)
    return session


def items_on(view, cell):
    return [c["items"] for c in view["cells"] if c["cell"] == list(cell)][0]


def test_the_web_view_of_a_heroes_game_draws_walls_figures_health_and_flags(tmp_path):
    web = WebTable(heroes_session(tmp_path))
    v = web.view(None)
    assert json.loads(json.dumps(v)) == v and len(v["cells"]) == 49
    assert v["game"] == "heroes" and v["mode"] == "ctf" and v["current_seat"] == "red"
    assert items_on(v, (1, 3)) == [{"kind": "wall"}]                 # a boulder
    woodman = items_on(v, (0, 2))[0]
    assert (woodman["kind"], woodman["seat"], woodman["health"]) == ("figure", "red", 9)
    assert items_on(v, (4, 0)) == [{"kind": "flag", "team": "red", "carrier": None}]
    assert len(v["tray"]) == 3


def test_a_seat_sees_its_own_cards_to_lay_down_and_not_the_others_bonus_cards(tmp_path):
    web = WebTable(heroes_session(tmp_path))
    red = web.view("red")
    hand = [c["id"] for c in red["you"]["hand"]]
    assert "axe_attack" in hand and "golden_shield" in hand and "longbow_attack" in hand
    assert red["you"]["buttons"] == ["roll", "end_turn", "no_defence"]
    assert "flying_carpet" not in json.dumps(red)
    assert "golden_shield" not in json.dumps(web.view("blue"))
    assert "golden_shield" not in json.dumps(web.view(None))


def test_the_heroes_seat_buttons_reach_the_game_and_others_are_refused(tmp_path):
    session = heroes_session(tmp_path)
    web = WebTable(session, hands=object())
    try:
        asyncio.run(web.control("red", {"op": "button", "name": "swap"}))
        raise AssertionError("swap is not a heroes button")
    except Refused as e:
        assert e.status == 400 and "no_defence" in str(e)
    asyncio.run(web.control("red", {"op": "button", "name": "end_turn"}))
    assert session.match.actions == [{"type": "end_turn"}]
