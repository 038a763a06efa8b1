"""The web table of a Fight Club session (scripted link, no tiles), through the game's web face
(host/games/fightclub/web.py): everybody's gold and points in words, each seat its own hand
and nobody else's, cards drawn or passed and fight cards never named, the seat's choices in
words, each a whole move (a load, a delivery, a trade) carried out by the hands as a person's
would be and checked against the rules before anything moves.

The hands here are a fake of the virtual hands (a unit test of the face and the view's
controls): what they put down or lift goes straight to the session's interpreter, as the
tiles' events would. tests/host/web/test_web_fightclub_browser.py plays through the real
firmware and Chromium."""

import asyncio
import json
import re

import pytest

from host.clock import ManualClock
from host.games.fightclub import interpreter as ft
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.web.view import Refused, WebTable
from shared_rules import fightclub
from shared_rules.engine import Match
from test_session_clock import UIDS, ScriptedLink
from web_helpers import mentions

RED_BARROW, RED_CART = (1, 0), (2, 0)
BLUE_BARROW = (0, 5)
# L1-01 Dwarf Cyborg wants 1, 1, 5 (2 points, 1 gold); L1-02 Griffin Cyborg 1, 3, 10;
# L1-03 Cat Chimera 1, 2, 7; L1-04 Sprite Cyborg 2, 6, 7 (1 gold).
AREA = ["L1-01", "L1-02", "L1-03", "L1-04"]
IDS = re.compile(r"\bc\d\d-\d\d\b|\bL\d-\d\d\b|\bE\d\d\b")


def fightclub_session(tmp_path, setup=None, seed=5):
    layout = layouts.load(layouts.builtin_path("fightclub"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("fightclub", {"players": 2}, seed, setup)
    clock = ManualClock()
    session = TableSession(match, layout, ScriptedLink(clock, ()), registry, UIDS, clock=clock)
    for cell, items in session.table.expected().items():    # the cards lie as the game says
        session.table.observe(cell, items)
    session.table.reconcile(0)
    assert session.table.mismatches == []
    return session


def red_to_play(tmp_path, hand=("c01-01", "c01-02", "c05-01", "c07-01", "c09-01"),
                wagons=None, market=("c02-01", "c03-01", "c04-01", "c06-01"), gold=0,
                contract_deck=("L2-01", "L1-05")):
    """Red (p1) to play its actions, Blue (p2) holding two 8s."""
    return fightclub_session(tmp_path, {
        "market": list(market), "contracts": [{"id": c} for c in AREA],
        "contract_deck": list(contract_deck),
        "players": {"p1": {"hand": list(hand), "gold": gold,
                           "wagons": wagons or {"wheelbarrow": []}},
                    "p2": {"hand": ["c08-01", "c08-02"]}},
        "turn": "p1", "first": "p1"})


class TableHands:
    """Hands whose cards go straight to the session's interpreter, as the tiles' events would
    bring them, and whose tap is the cell's pad; time passes only when the test says."""

    def __init__(self, session):
        self.session = session
        self.done = []

    def _read(self):
        action = self.session.table.reconcile(self.session.clock())
        if action is not None:
            self.session.apply_from_table(action)

    async def place(self, cell, item):
        self.done.append(("place", cell, item))
        table = self.session.table
        table.observe_items(cell, ["fightclub:" + c for c in table.observed.get(cell, [])] +
                            [item])
        self._read()

    async def lift(self, cell, item=None):
        self.done.append(("lift", cell, item))
        seen = list(self.session.table.observed.get(cell, []))
        seen.remove(item.split(":", 1)[1])
        self.session.table.observe(cell, seen)
        self._read()

    async def gesture(self, cell, kind):
        self.done.append(("gesture", cell, kind))
        action = self.session.table.gesture(cell, kind, self.session.clock())
        if action is not None:
            self.session.apply_from_table(action)

    def tidy(self):
        """The table made to show the game (a contract the engine drew laid out)."""
        table = self.session.table
        want = table.expected()
        for cell in sorted(set(table.observed) | set(want)):
            table.observe(cell, want.get(cell, []))
        self._read()

    def wait(self, ms):
        """Time passes with the table still."""
        self.session.clock.advance(ms)
        self.session.handle(None)


def control(web, seat, msg):
    return asyncio.run(web.control(seat, msg))


def choice(view, start):
    """The seat's choice whose label starts with `start`."""
    found = [c for c in view["you"]["choices"] if c["label"].startswith(start)]
    assert found, (start, [c["label"] for c in view["you"]["choices"]])
    return found[0]


def words(view):
    out = [view["banner"], view["last"] or ""] + view["facts"] + view["log"] + \
        [m["message"] for m in view["mismatches"]] + [x["words"] for x in view["legend"]] + \
        [s["name"] for s in view["seats"]]
    for cell in view["cells"]:
        out += [i["label"] for i in cell["items"]] + [i["title"] for i in cell["items"]]
    if view.get("you"):
        out += [c["label"] for c in view["you"]["choices"]] + [view["you"]["note"] or ""]
        out += [c["label"] for c in view["you"]["hand"]]
    return out


def assert_words(view):
    for text in words(view):
        assert "=" not in text and not re.search(r"[a-z]_[a-z]", text), text
        assert not IDS.search(text), text
        assert not re.search(r"\bp[1-4]\b", text), text


def test_a_spectator_sees_everybodys_gold_and_points_in_words_and_no_hand(tmp_path):
    session = fightclub_session(tmp_path)
    state = session.match.state
    state.players["p2"].gold = 4      # the host's gold, as a contract's coins would give
    web = WebTable(session)
    spectator = web.view(None)
    assert json.loads(json.dumps(spectator)) == spectator
    assert spectator["title"] == "Fairy Tale Fight Club" and "you" not in spectator
    # Three gold are a point at the end: the points shown are what the seat would score.
    assert "Blue 1 point, 4 gold, %d cards" % len(state.players["p2"].hand) in \
        spectator["facts"]
    assert "Red 0 points, 0 gold, %d cards" % len(state.players["p1"].hand) in \
        spectator["facts"]
    acting = session.game.actors(state)[0]
    assert spectator["banner"] == "%s's turn: 2 actions left (load wagons, trade, deliver " \
        "contracts)" % {"p1": "Red", "p2": "Blue"}[acting]
    assert len(spectator["cells"]) == 49
    kinds = set(i["kind"] for c in spectator["cells"] for i in c["items"])
    assert kinds == {"card", "contract"}     # the wagons, the Market's creatures, contracts
    pieces = dict((tuple(c["cell"]), c["items"]) for c in spectator["cells"])
    assert pieces[RED_BARROW][0]["label"] == "empty" and \
        pieces[RED_BARROW][0]["title"] == "Red's Wheelbarrow: empty (holds 3)"
    market = sorted(int(i["label"]) for cell in ft.MARKET_CELLS for i in pieces.get(cell, []))
    assert market == sorted(fightclub.value(c) for c in state.market)
    for cid in state.area:
        c = state.cat.contracts[cid]
        mine = [i for cell in ft.CONTRACT_CELLS for i in pieces.get(cell, [])
                if i.get("id") == cid]
        assert mine and mine[0]["label"].startswith(" ".join(map(str, c["creatures"])))
        assert mine[0]["title"].startswith(c["name"] + ": wants ")
    text = json.dumps(spectator)
    for cid in session.match.engine.secrets(state, None):
        assert not mentions(text, cid)
    assert_words(spectator)
    legend = " ".join(x["words"] for x in spectator["legend"])
    assert "Red, at the south edge" in legend and "Blue, at the west edge" in legend
    assert "the Market" in legend and "contract area" in legend and "Wheelbarrow" in legend


def test_a_seat_sees_its_own_hand_where_each_card_may_go_and_nobody_elses(tmp_path):
    session = red_to_play(tmp_path)
    state = session.match.state
    web = WebTable(session, hands=TableHands(session))
    mine = web.view("p1")
    you = mine["you"]
    assert [c["id"] for c in you["hand"]] == state.players["p1"].hand
    assert [c["label"] for c in you["hand"]] == ["1", "1", "5", "7", "9"]
    # A card goes on a wagon of its own (only the Wheelbarrow, so far), and into the Market
    # where a trade gives it (the 5 for the 2 and 3; the 7 for 3 and 4, ...).
    given = set(fightclub.value(c) for a in fightclub.legal_actions(state)
                if a["type"] == "exchange" for c in a["give"])
    assert given
    for card in you["hand"]:
        market = [list(c) for c in ft.MARKET_CELLS] if int(card["label"]) in given else []
        assert card["targets"] == [list(RED_BARROW)] + market, card
    assert you["moves"] == {}                 # one wagon: nothing to move between
    for c in you["choices"]:
        if c["control"]["op"] == "action":
            assert session.game.is_button_action(c["control"]["action"]), c
    assert choice(mine, "End your actions")["enabled"]
    assert not choice(mine, "Buy the Hand Cart for 1 gold")["enabled"]    # no gold yet
    assert_words(mine)
    text = json.dumps(mine)
    for cid in state.players["p2"].hand:
        assert not mentions(text, cid)
    theirs = web.view("p2")
    assert [c["id"] for c in theirs["you"]["hand"]] == ["c08-01", "c08-02"]
    assert all(not c["targets"] for c in theirs["you"]["hand"])
    assert all(not c["enabled"] for c in theirs["you"]["choices"])
    assert theirs["you"]["note"] == "Waiting for Red."
    for cid in state.players["p1"].hand:
        assert not mentions(json.dumps(theirs), cid)


def test_a_card_swapped_and_the_one_drawn_stay_with_the_drawer(tmp_path):
    session = red_to_play(tmp_path)
    state = session.match.state
    web = WebTable(session)
    swap = choice(web.view("p1"), "Swap your 9 for a new card")
    assert swap["control"] == {"op": "action", "action": {"type": "swap_draw",
                                                          "card": "c09-01"}}
    assert control(web, "p1", swap["control"])       # an answer in words (the view's)
    assert session.match.actions == [{"type": "swap_draw", "card": "c09-01"}]
    drawn = [e for e in session.recent_events if e["type"] == "creatures_drawn"][0]["cards"]
    assert session.last_words == "Red swaps a 9 for a new card."
    assert drawn[0] in [c["id"] for c in web.view("p1")["you"]["hand"]]
    for viewer in (None, "p2"):
        text = json.dumps(web.view(viewer))
        assert not mentions(text, drawn[0]) and "swaps a 9 for a new card" in text
    assert state.players["p1"].hand.count(drawn[0]) == 1


def test_a_hand_action_is_made_on_the_web_and_a_table_move_is_not(tmp_path):
    session = fightclub_session(tmp_path)
    state = session.match.state
    seat = session.game.actors(state)[0]
    other = [x for x in state.seats if x != seat][0]
    web = WebTable(session)
    hand = list(state.players[seat].hand)

    def refused(who, action):
        with pytest.raises(Refused) as e:
            control(web, who, {"op": "action", "action": action})
        return e.value
    load = {"type": "load", "wagon": "wheelbarrow", "cards": hand[:1]}
    assert "made on the table" in refused(seat, load).message
    assert refused(other, {"type": "swap_draw", "card": hand[0]}).status == 409
    assert refused(seat, {"type": "swap_draw", "card": "c99-99"}).status == 409
    assert refused(seat, "discard").status == 400
    assert session.match.actions == []
    assert control(web, seat, {"op": "action", "action": {
        "type": "discard", "from": "hand", "cards": hand[:1]}})
    assert session.match.actions == [{"type": "discard", "from": "hand", "cards": hand[:1]}]
    assert session.last_words == "%s discards %s from the hand." % (
        web.face.seat_name(state, seat), ("an %d" if hand[0].startswith("c08") else "a %d")
        % fightclub.value(hand[0]))
    assert control(web, seat, {"op": "button", "name": "end_turn"})
    assert session.match.actions[-1] == {"type": "end_actions"}


def test_a_seat_stacks_its_cards_on_a_wagon_and_lifts_a_named_one(tmp_path):
    session = red_to_play(tmp_path)
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    first, second = "c01-01", "c05-01"
    for card in (first, second):
        control(web, "p1", {"op": "place", "cell": list(RED_BARROW), "card": card})
    assert session.table.observed[RED_BARROW] == [first, second]
    assert session.match.actions == [] and session.table.busy()   # read once still
    # Put down already: the two cards leave the hand's buttons and show on the wagon, dashed.
    view = web.view("p1")
    assert [c["id"] for c in view["you"]["hand"]] == ["c01-02", "c07-01", "c09-01"]
    going = [i for c in view["cells"] if tuple(c["cell"]) == RED_BARROW for i in c["items"]
             if i.get("unplaced")]
    assert sorted(i["label"] for i in going) == ["1", "5"] and all("id" not in i
                                                                   for i in going)
    with pytest.raises(Refused) as e:
        control(web, "p1", {"op": "place", "cell": list(RED_BARROW), "card": "c99-01"})
    assert e.value.status == 403
    control(web, "p1", {"op": "lift", "cell": list(RED_BARROW), "card": first})
    assert session.table.observed[RED_BARROW] == [second]
    assert hands.done[-1] == ("lift", RED_BARROW, "fightclub:" + first)
    hands.wait(ft.FightclubTable.hide_window_ms)
    assert session.match.actions == [{"type": "load", "wagon": "wheelbarrow",
                                      "cards": [second]}]
    assert session.last_words == "Red loads a 5 onto the Wheelbarrow."


def test_a_choice_loads_several_cards_as_one_move_read_at_once(tmp_path):
    session = red_to_play(tmp_path)
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    load = choice(web.view("p1"), "Load 1, 1 and 5 onto your Wheelbarrow")
    assert load["label"] == "Load 1, 1 and 5 onto your Wheelbarrow (completes Dwarf Cyborg)"
    control(web, "p1", load["control"])
    assert hands.done == [("place", RED_BARROW, "fightclub:c01-01"),
                          ("place", RED_BARROW, "fightclub:c01-02"),
                          ("place", RED_BARROW, "fightclub:c05-01"),
                          ("gesture", RED_BARROW, "tap")]
    assert session.match.actions == [{"type": "load", "wagon": "wheelbarrow",
                                      "cards": ["c01-01", "c01-02", "c05-01"]}]
    assert session.last_words == "Red loads 1, 1 and 5 onto the Wheelbarrow."
    view = web.view(None)
    barrow = [c["items"] for c in view["cells"] if tuple(c["cell"]) == RED_BARROW][0]
    assert [(i["label"], i["title"]) for i in barrow] == [
        ("1 1 5", "Red's Wheelbarrow: 1, 1 and 5 (holds 3)")]


def test_one_card_a_choice_calls_whole_is_read_at_once_and_one_from_the_hand_waits(tmp_path):
    """A card put down from the hand alone may be the first of a group: the table waits for
    the rest (or the person's tap). A choice that says its one card is the whole move
    ("whole") taps the pad after it, so the load is read at once, as the person's tap is."""
    session = red_to_play(tmp_path)
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    control(web, "p1", {"op": "place", "cell": list(RED_BARROW), "card": "c05-01"})
    assert session.match.actions == [] and session.table.busy()
    assert hands.done == [("place", RED_BARROW, "fightclub:c05-01")]
    session = red_to_play(tmp_path / "whole")
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    control(web, "p1", {"op": "place", "cell": list(RED_BARROW), "card": "c05-01",
                        "whole": True})
    assert hands.done == [("place", RED_BARROW, "fightclub:c05-01"),
                          ("gesture", RED_BARROW, "tap")]
    assert session.match.actions == [{"type": "load", "wagon": "wheelbarrow",
                                      "cards": ["c05-01"]}]
    assert not session.table.busy()


def test_the_delivery_chosen_on_the_page_lifts_the_contract_and_the_wagons_cards_at_once(
        tmp_path):
    session = red_to_play(tmp_path, hand=("c07-01", "c09-01"),
                          wagons={"wheelbarrow": ["c01-01", "c01-02", "c05-01"]})
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    deliver = choice(web.view("p1"), "Deliver Dwarf Cyborg")
    assert deliver["label"] == "Deliver Dwarf Cyborg from your Wheelbarrow (2 points, 1 gold)"
    control(web, "p1", deliver["control"])
    assert [(kind, cell) for kind, cell, _item in hands.done] == \
        [("lift", tuple(deliver["control"]["cell"]))] + [("lift", RED_BARROW)] * 3
    assert session.match.actions == [{"type": "complete", "contract": "L1-01",
                                      "wagon": "wheelbarrow"}]
    assert not session.table.busy()
    assert session.last_words.startswith("Red delivers Dwarf Cyborg from the Wheelbarrow")


def test_a_delivery_is_the_contract_lifted_then_the_wagons_cards_however_slowly(tmp_path):
    """By hand (the page's Lift on the contract's cell): one card after another."""
    session = red_to_play(tmp_path, hand=("c07-01", "c09-01"),
                          wagons={"wheelbarrow": ["c01-01", "c01-02", "c05-01"]})
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    deliver = choice(web.view("p1"), "Deliver Dwarf Cyborg")
    control(web, "p1", {"op": "lift", "cell": deliver["control"]["cell"]})
    assert hands.done[0][2] == "fightclub:L1-01" and session.match.actions == []
    for left in (3, 2, 1):
        hands.wait(2500)          # a person's pace: each card within the wait of the last
        view = web.view("p1")
        assert view["mismatches"] == [], view["mismatches"]
        assert view["you"]["note"] == "Lift every card off your Wheelbarrow to deliver " \
            "Dwarf Cyborg."
        step = choice(view, "Lift a card off your Wheelbarrow")
        assert step["label"] == "Lift a card off your Wheelbarrow (%d to go)" % left
        assert step["step"] is True and view["busy"]      # the move's own next step
        control(web, "p1", step["control"])
    assert session.match.actions == [{"type": "complete", "contract": "L1-01",
                                      "wagon": "wheelbarrow"}]
    assert session.last_words.startswith(
        "Red delivers Dwarf Cyborg from the Wheelbarrow: 2 points and 1 gold. A new contract: "
        "Gnome Chimera, wanting 3, 4, 8 and 10")
    assert "Red 2 points, 1 gold, 2 cards" in web.view(None)["facts"]


def test_a_trade_takes_the_market_cards_then_gives_the_hands(tmp_path):
    session = red_to_play(tmp_path)
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    trade = choice(web.view("p1"), "Trade your 5 for 2 and 3 from the Market")
    control(web, "p1", trade["control"])
    hands.wait(2000)
    view = web.view("p1")
    assert view["you"]["note"] == "You have taken a 2 from the Market: finish the trade."
    assert view["busy"] and choice(view, "Take a 3 from the Market")["step"] is True
    assert not [c for c in view["you"]["choices"] if c.get("step") and
                not c["label"].startswith(("Take ", "Give "))]
    control(web, "p1", choice(view, "Take a 3 from the Market (for your 5)")["control"])
    hands.wait(2000)
    view = web.view("p1")
    give = choice(view, "Give your 5 to the Market (for 2 and 3)")
    control(web, "p1", give["control"])
    assert session.match.actions == [{"type": "exchange", "give": ["c05-01"],
                                      "take": ["c02-01", "c03-01"]}]
    assert session.last_words == "Red trades a 5 for 2 and 3 from the Market."
    assert hands.done[-1] == ("gesture", tuple(give["control"]["cell"]), "tap")


def test_a_hand_holds_the_copy_a_trade_took_not_the_one_the_engine_names(tmp_path):
    """Creatures count by number: a trade that takes the Market's second 2 gives the engine's
    hand its first 2 (the engine's normal form), which still lies in the Market. The hand
    then offers the 2 it holds, and putting it down is a move, not "lies on the table"."""
    session = red_to_play(tmp_path, market=("c02-01", "c02-02", "c03-01", "c04-01"))
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    spot = [cell for cell in ft.MARKET_CELLS if "c02-02" in session.table.observed.get(cell, [])]
    control(web, "p1", {"op": "lift", "cell": list(spot[0]), "card": "c02-02"})
    hands.wait(2000)
    view = web.view("p1")
    control(web, "p1", choice(view, "Take a 3 from the Market (for your 5)")["control"])
    hands.wait(2000)
    control(web, "p1", choice(web.view("p1"), "Give your 5 to the Market (for 2 and 3)")[
        "control"])
    assert session.match.actions == [{"type": "exchange", "give": ["c05-01"],
                                      "take": ["c02-01", "c03-01"]}]
    state = session.match.state
    assert "c02-01" in state.players["p1"].hand and \
        any("c02-01" in session.table.observed.get(c, []) for c in ft.MARKET_CELLS)
    view = web.view("p1")
    held = [c["id"] for c in view["you"]["hand"]]
    assert "c02-02" in held and "c02-01" not in held       # the copy in the hand
    assert sorted(int(c["label"]) for c in view["you"]["hand"]) == \
        sorted(fightclub.value(c) for c in state.players["p1"].hand)
    # Loading it onto the Wheelbarrow is the engine's load of its 2.
    control(web, "p1", {"op": "place", "cell": list(RED_BARROW), "card": "c02-02"})
    hands.wait(3000)
    assert session.match.actions[-1] == {"type": "load", "wagon": "wheelbarrow",
                                         "cards": ["c02-01"]}
    assert session.table.mismatches == []


def test_a_card_put_where_the_rules_forbid_is_refused_at_the_cell_and_nothing_moves(tmp_path):
    session = red_to_play(tmp_path, wagons={"wheelbarrow": ["c02-02", "c06-02"]},
                          market=("c08-03", "c08-04", "c09-02", "c10-01"))
    hands = TableHands(session)
    web = WebTable(session, hands=hands)

    def refused(seat, msg):
        with pytest.raises(Refused) as e:
            control(web, seat, msg)
        return e.value
    e = refused("p1", {"op": "place", "cell": list(BLUE_BARROW), "card": "c09-01"})
    assert e.status == 403 and e.message == "That is Blue's Wheelbarrow: put your creatures " \
        "on your own wagons." and e.cells == [list(BLUE_BARROW)]
    assert session.last_refusal["cells"] == [list(BLUE_BARROW)]
    contract_cell = ft.CONTRACT_CELLS[0]
    e = refused("p1", {"op": "place", "cell": list(contract_cell), "card": "c09-01"})
    assert "is the contract area" in e.message and e.cells == [list(contract_cell)]
    e = refused("p1", {"op": "place", "cell": [0, 0], "card": "c09-01"})
    assert e.message.startswith("Nothing goes on that cell in Fight Club") and \
        e.cells == [[0, 0]]
    e = refused("p1", {"op": "place", "cell": list(RED_BARROW), "card": "c01-01+c05-01"})
    assert e.message == "The Wheelbarrow has room for 1 more creature." and \
        e.cells == [list(RED_BARROW)]
    e = refused("p2", {"op": "place", "cell": list(BLUE_BARROW), "card": "c08-01"})
    assert e.message == "It is Red's turn: wait for yours."
    e = refused("p2", {"op": "lift", "cell": list(RED_BARROW)})
    assert e.status == 403 and e.message == "Those are Red's creatures: lift only your own."
    # No trade gives a 5: one card for several of the same sum, or several for one.
    e = refused("p1", {"op": "place", "cell": list(ft.MARKET_CELLS[9]), "card": "c05-01"})
    assert e.message.startswith("No trade gives the Market that")
    assert hands.done == [] and session.match.actions == []
    assert [c["label"] for c in web.view("p1")["you"]["hand"]] == ["1", "1", "5", "7", "9"]


def test_the_draw_and_market_steps_a_fight_and_a_pass_are_choices_in_words(tmp_path):
    # E07 "Swap Meet": the lowest creature wins a card; everybody passes one card right.
    session = red_to_play(tmp_path, gold=1, contract_deck=("E07", "L1-05"))
    hands = TableHands(session)
    web = WebTable(session, hands=hands)
    control(web, "p1", choice(web.view("p1"), "Buy the Hand Cart for 1 gold")["control"])
    assert session.last_words.startswith(
        "Red buys the Hand Cart for 1 gold. Event: Swap Meet. All players pass one creature "
        "card to the right. Fight Club: the lowest creature wins.")
    view = web.view("p1")
    assert view["banner"] == "Fight Club (Swap Meet): the lowest creature wins; you choose a " \
        "fight card in secret"
    fight = choice(view, "Fight with your 1")
    assert [c["label"] for c in view["you"]["choices"]] == [
        "Fight with your 1", "Fight with your 5", "Fight with your 7", "Fight with your 9"]
    control(web, "p1", fight["control"])
    assert session.last_words == "Red chooses a fight card in secret."
    for viewer in (None, "p2"):
        assert "Fight with" not in json.dumps(web.view(viewer)["log"])
    assert web.view("p1")["you"]["note"] == "You chose to fight with your 1; the cards are " \
        "shown when everyone has chosen. Waiting for Blue."
    control(web, "p2", choice(web.view("p2"), "Fight with your 8")["control"])
    assert "Fight for the lowest creature (Red 1, Blue 8): Red wins. Red draws a card as " \
        "the prize." in session.last_words
    view = web.view("p1")
    assert view["banner"] == "Swap Meet: you choose 1 card to pass to the right"
    control(web, "p1", choice(view, "Pass your 9 to Blue")["control"])
    control(web, "p2", choice(web.view("p2"), "Pass your 8 to Red")["control"])
    assert "Cards are passed to the right (Red 1, Blue 1)." in session.last_words
    assert not IDS.search(" ".join(session.log.public_lines(40)))
    # The contract drawn is not on the table yet: the buttons wait for it.
    assert not choice(web.view("p1"), "End your actions")["enabled"]
    hands.tidy()
    control(web, "p1", choice(web.view("p1"), "End your actions")["control"])
    view = web.view("p1")
    held = len(session.match.state.players["p1"].hand)
    assert session.match.state.phase == "draw" and held == 6    # 5, the prize, one passed
    assert view["banner"] == "Your turn: discard down to 5 cards"
    discard = view["you"]["choices"][0]
    assert re.match(r"Discard (a|an) \d+, down to 5 cards$", discard["label"]), discard
    control(web, "p1", discard["control"])
    assert re.match(r"Red discards (a|an) \d+, down to 5 cards\.$", session.last_words)
    view = web.view("p1")
    assert view["banner"] == "Your turn: put a creature from the hand into the Market"
    put = view["you"]["choices"][0]
    assert put["label"].startswith("Put your ") and put["control"]["op"] == "place"
    control(web, "p1", put["control"])
    assert session.last_words.startswith("Red puts ") and \
        session.last_words.endswith(" into the Market. Blue's turn.")


def test_a_game_ended_at_a_dead_end_says_why(tmp_path):
    # The engine's own rule (the book has none): the page says why the game ended.
    session = fightclub_session(tmp_path)
    state = session.match.state
    state.contract_deck = []
    state.area = ["L3-%02d" % n for n in range(1, 7)]
    state.area_gold = dict((cid, 0) for cid in state.area)
    # No wagon that carries five creatures, and no gold to buy one: nobody can deliver.
    assert fightclub.dead_end(state)
    state.status, state.end_reason = "finished", "dead_end"
    state.winner = fightclub.result(state)["winner"]
    view = WebTable(session).view(None)
    assert view["status"] == "finished"
    assert view["banner"].startswith("Game over (nobody can ever deliver the contracts left "
                                     "(the table's rule: the book has none for it)): ")
    assert all("cards" not in f and "round" not in f for f in view["facts"])
    assert WebTable(session).view("p1")["you"]["choices"] == []


def test_every_log_line_of_a_whole_game_is_words_and_names_no_card_id(tmp_path):
    session = fightclub_session(tmp_path, seed=4)
    match, game = session.match, session.game
    web = WebTable(session)
    n = 0
    while match.engine.status(match.state) == "ongoing" and n < 2000:
        seat = game.actors(match.state)[0]
        assert session.apply(game.bot_action("greedy", match.engine, match.state, seat, 4))
        line = session.last_words
        assert line.endswith(".") and "\n" not in line, line
        assert "=" not in line and not re.search(r"[a-z]_[a-z]", line), line
        assert not IDS.search(line), line
        for cell, items in session.table.expected().items():    # the hands keep up
            session.table.observe(cell, items)
        for cell in list(session.table.observed):
            if cell not in session.table.expected():
                session.table.observe(cell, [])
        session.table.reconcile(session.clock())
        if n % 25 == 0:
            for viewer in (None, "p1", "p2"):
                assert_words(web.view(viewer))
        n += 1
    assert match.engine.status(match.state) == "finished"
    assert session.last_words.split(". ")[-1].startswith("Game over")
