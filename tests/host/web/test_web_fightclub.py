"""The web table of a Fight Club session (scripted link, no tiles): each seat sees its own
hand and everybody's gold, drawn cards stay with their drawer, and the actions of the hand's
cards no table move shows are made on the web."""

import asyncio
import json

import pytest

from host.clock import ManualClock
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.web.view import Refused, WebTable
from shared_rules.engine import Match
from test_session_clock import UIDS, ScriptedLink
from web_helpers import mentions


def fightclub_session(tmp_path):
    layout = layouts.load(layouts.builtin_path("fightclub"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("fightclub", {"players": 2}, 5)
    clock = ManualClock()
    session = TableSession(match, layout, ScriptedLink(clock, ()), registry, UIDS, clock=clock)
    for cell, items in session.table.expected().items():    # the cards lie as the game says
        session.table.observe(cell, items)
    session.table.reconcile(0)
    assert session.table.mismatches == []
    return session


def test_a_seat_sees_its_hand_and_everybodys_gold_and_no_other_hand(tmp_path):
    session = fightclub_session(tmp_path)
    state = session.match.state
    state.players["p2"].gold = 4      # the host's gold, as a contract's coins would give
    web = WebTable(session)
    spectator = web.view(None)
    assert json.loads(json.dumps(spectator)) == spectator
    assert spectator["gold"] == {"p1": 0, "p2": 4} and "you" not in spectator
    assert len(spectator["cells"]) == 49
    kinds = set(i["kind"] for c in spectator["cells"] for i in c["items"])
    assert kinds == {"card", "contract"}     # the Market's creatures and the contracts
    text = json.dumps(spectator)
    for cid in session.match.engine.secrets(state, None):
        assert not mentions(text, cid)
    seat = session.game.actors(state)[0]
    other = [x for x in state.seats if x != seat][0]
    mine = web.view(seat)
    assert [c["id"] for c in mine["you"]["hand"]] == state.players[seat].hand
    assert mine["you"]["buttons"] == ["end_turn", "draw", "wagon", "action"]
    from host.games.fightclub import interpreter as ft
    barrow = list(ft.WAGON_CELL[(seat, "wheelbarrow")])
    assert mine["you"]["targets"]["move"] == [barrow]         # a Wheelbarrow only, so far
    assert len(mine["you"]["targets"]["place"]) == 1 + len(ft.MARKET_CELLS)
    assert all(session.game.is_button_action(a) for a in mine["you"]["web_actions"])
    text = json.dumps(mine)
    for cid in state.players[other].hand:
        assert not mentions(text, cid)


def test_cards_drawn_are_shown_to_the_drawer_only(tmp_path):
    session = fightclub_session(tmp_path)
    state = session.match.state
    seat = session.game.actors(state)[0]
    other = [x for x in state.seats if x != seat][0]
    card = state.players[seat].hand[0]
    session.apply({"type": "swap_draw", "card": card})
    drawn = [e for e in session.recent_events if e["type"] == "creatures_drawn"][0]
    web = WebTable(session)
    theirs = [e for e in web.view(other)["last"] if e["type"] == "creatures_drawn"][0]
    mine = [e for e in web.view(seat)["last"] if e["type"] == "creatures_drawn"][0]
    assert "cards" not in theirs and theirs["count"] == 1
    assert mine["cards"] == drawn["cards"]


def test_a_hand_action_is_made_on_the_web_and_a_table_move_is_not(tmp_path):
    session = fightclub_session(tmp_path)
    state = session.match.state
    seat = session.game.actors(state)[0]
    other = [x for x in state.seats if x != seat][0]
    web = WebTable(session)
    hand = list(state.players[seat].hand)

    def refused(who, action):
        with pytest.raises(Refused) as e:
            asyncio.run(web.control(who, {"op": "action", "action": action}))
        return e.value
    load = {"type": "load", "wagon": "wheelbarrow", "cards": hand[:1]}
    assert "made on the table" in refused(seat, load).message
    assert refused(other, {"type": "swap_draw", "card": hand[0]}).status == 409
    assert refused(seat, {"type": "swap_draw", "card": "c99-99"}).status == 409
    assert refused(seat, "discard").status == 400
    assert session.match.actions == []
    said = asyncio.run(web.control(seat, {"op": "action", "action": {
        "type": "discard", "from": "hand", "cards": hand[:1]}}))
    assert said == "%s made discard" % seat
    assert session.match.actions == [{"type": "discard", "from": "hand", "cards": hand[:1]}]
    assert asyncio.run(web.control(seat, {"op": "button", "name": "end_turn"}))
    assert session.match.actions[-1] == {"type": "end_actions"}


class RecordingHands:
    """Virtual hands that put the cards straight into what the interpreter sees."""

    def __init__(self, table):
        self.table = table
        self.done = []

    async def place(self, cell, item):
        self.done.append(("place", cell, item))
        self.table.observe(cell, self.table.observed.get(cell, []) + [item.split(":", 1)[1]])

    async def lift(self, cell, item=None):
        self.done.append(("lift", cell, item))
        seen = list(self.table.observed.get(cell, []))
        seen.remove(item.split(":", 1)[1])
        self.table.observe(cell, seen)


def test_a_seat_stacks_its_cards_on_a_wagon_and_lifts_a_named_one_on_the_virtual_table(
        tmp_path):
    from host.games.fightclub import interpreter as ft
    session = fightclub_session(tmp_path)
    state = session.match.state
    seat = session.game.actors(state)[0]
    hands = RecordingHands(session.table)
    web = WebTable(session, hands=hands)
    barrow = list(ft.WAGON_CELL[(seat, "wheelbarrow")])
    first, second = state.players[seat].hand[:2]
    for card in (first, second):
        asyncio.run(web.control(seat, {"op": "place", "cell": barrow, "card": card}))
    assert sorted(session.table.observed[tuple(barrow)]) == sorted([first, second])
    with pytest.raises(Refused) as e:
        asyncio.run(web.control(seat, {"op": "place", "cell": barrow, "card": "c99-01"}))
    assert e.value.status == 403
    asyncio.run(web.control(seat, {"op": "lift", "cell": barrow, "card": first}))
    assert session.table.observed[tuple(barrow)] == [second]
    assert hands.done[-1] == ("lift", tuple(barrow), "fightclub:" + first)


def test_a_game_ended_at_a_dead_end_says_so(tmp_path):
    # The engine's own rule (the book has none): the page says why the game ended.
    session = fightclub_session(tmp_path)
    state = session.match.state
    state.contract_deck = []
    state.area = ["L3-%02d" % n for n in range(1, 7)]
    state.area_gold = dict((cid, 0) for cid in state.area)
    from shared_rules import fightclub
    events = []
    fightclub._check_end(state, events)
    assert state.status == "finished" and events[-1]["reason"] == "dead_end"
    view = WebTable(session).view(None)
    assert view["status"] == "finished" and view["end_reason"] == "dead_end"
