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


class Hands:
    """Virtual hands that remember what they were asked and tell the session at once, as
    the seat tile would report it."""

    def __init__(self, session):
        self.session = session
        self.done = []

    async def place(self, place, item):
        self.done.append(("place", place, item))
        if place[0] == "seat":
            seen = self.session.table.seat_observed.get(place[1], [])
            self.session.table.observe_seat_items(place[1], seen + [item])
            self.session.table.reconcile(0)

    async def lift(self, place, item=None):
        self.done.append(("lift", place, item))
        if place[0] == "seat":
            self.session.table.observe_seat_items(place[1], [])
            self.session.table.reconcile(0)


def test_each_seats_card_reader_is_drawn_with_the_card_on_it_and_its_light(tmp_path):
    session = heroes_session(tmp_path)
    web = WebTable(session)
    v = web.view(None)
    assert [(r["reader"], r["seat"]) for r in v["readers"]] == [
        (1, "red"), (2, "blue"), (3, None), (4, None)]
    assert all(r["cards"] == [] and len(r["leds"]) == 4 for r in v["readers"])
    session.table.observe_seat_items(1, ["heroes-card:axe_attack"])
    session.table.reconcile(0)
    v = web.view("red")
    assert v["readers"][0]["cards"] == [{"kind": "card", "id": "axe_attack",
                                         "name": "Axe Attack", "face_up": True}]
    assert v["you"]["reader"] == 1
    kinds = dict((c["id"], c["kind"]) for c in v["you"]["hand"])
    assert kinds["axe_attack"] == "card" and kinds["golden_shield"] == "card"


def test_a_seat_lays_its_card_on_its_own_reader_from_the_web_and_only_there(tmp_path):
    session = heroes_session(tmp_path)
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    said = asyncio.run(web.control("red", {"op": "place", "reader": 1, "card": "axe_attack"}))
    assert said == "laid on red's card reader"
    assert hands.done == [("place", ("seat", 1), "heroes-card:axe_attack")]
    assert session.table.seat_observed == {1: ["heroes-card:axe_attack"]}
    for msg, status in [({"op": "place", "reader": 2, "card": "axe_attack"}, 403),
                        ({"op": "place", "cell": [0, 2], "card": "axe_attack"}, 409),
                        ({"op": "tap", "reader": 1}, 400),
                        ({"op": "place", "reader": 1, "card": "longbow_attack"}, 409)]:
        try:
            asyncio.run(web.control("red", msg))
            raise AssertionError("%r was carried out" % (msg,))
        except Refused as e:
            assert e.status == status, (msg, e.message)
    assert len(hands.done) == 1
    asyncio.run(web.control("red", {"op": "lift", "reader": 1}))
    assert hands.done[-1] == ("lift", ("seat", 1), "heroes-card:axe_attack")
    assert session.table.seat_observed == {}
