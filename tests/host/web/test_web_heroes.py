"""The web table draws a heroes game (Battle Royale with hero teams, Capture the Flag) through
its web face (host/games/heroes/web.py): walls, bases, figures with their health, flags, the
cards on the seats' readers; the banner, facts and log in words; a seat's hand (the free
characters on its pick, its characters' face-up cards and its Bonus Cards), its choices,
where its pieces may go, and its controls checked against the rules before anything is put
down. A session on a scripted link (no tiles, no server)."""

import asyncio
import json
import re

from host.clock import ManualClock
from host.games.heroes.interpreter import POCKET_OF
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.web.view import Refused, WebTable
from shared_rules import heroes
from shared_rules.engine import Match
from test_session_clock import UIDS, ScriptedLink

SETUP = {"characters": [{"id": "tin_woodman", "seat": "red", "cell": [0, 2], "health": 9},
                        {"id": "robin_hood", "seat": "red", "cell": [6, 2]},
                        {"id": "big_bad_wolf", "seat": "blue", "cell": [1, 1]},
                        {"id": "gretel", "seat": "blue", "cell": [6, 4]}],
         "turn": "red", "hands": {"red": ["golden_shield"], "blue": ["flying_carpet"]}}


def heroes_session(tmp_path, options=None, setup=SETUP):
    clock = ManualClock()
    layout = layouts.load(layouts.builtin_path("heroes"))
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match("heroes", dict({"mode": "ctf"}, **(options or {})), 1, setup)
    session = TableSession(match, layout, ScriptedLink(clock), registry, UIDS + [
        "e661410400000008"], clock=clock)
    for cell, items in session.table.expected().items():
        session.table.observe_items(cell, items)
    session.table.reconcile(0)
    return session


def items_on(view, cell):
    return [c["items"] for c in view["cells"] if c["cell"] == list(cell)][0]


def words_of(view):
    """Every sentence a person reads on the page: banner, facts, legend, log, the seat's part."""
    out = [view["banner"], view["last"] or ""] + view["facts"] + view["log"]
    out += [x["words"] for x in view["legend"]]
    for c in view["cells"]:
        out += [it["title"] for it in c["items"]] + [it["label"] for it in c["items"]]
    you = view.get("you") or {}
    out += [h["label"] for h in you.get("hand", [])] + [c["label"] for c in you.get(
        "choices", [])] + [you.get("note") or ""]
    return out


def no_codes(view):
    """No action code, no identifier, no tile id in what a person reads."""
    for text in words_of(view):
        assert not re.search(r"[a-z]_[a-z]|=|\b[0-9a-f]{16}\b", text), text


class Hands:
    """Virtual hands that remember what they were asked and tell the session at once, as
    the tiles would report it."""

    def __init__(self, session):
        self.session = session
        self.done = []

    def _seen(self, place, items):
        table = self.session.table
        if place[0] == "seat":
            table.observe_seat_items(place[1], items)
        else:
            table.observe_items(place, items)
        self._apply(table.reconcile(0))

    def _on(self, place):
        table = self.session.table
        return list(table.seat_observed.get(place[1], []) if place[0] == "seat" else
                    table.observed.get(place, []))

    async def place(self, place, item):
        self.done.append(("place", place, item))
        self._seen(place, self._on(place) + [item])

    async def lift(self, place, item=None):
        self.done.append(("lift", place, item))
        self._seen(place, [i for i in self._on(place) if i != item] if item else [])

    async def gesture(self, place, kind):
        self.done.append((kind, place))
        self._apply(self.session.table.gesture(place, kind, 0))

    async def throw_dice(self, table, wanted, values):
        """Each die in its colour's pocket, one at a time, read as the tray reads it."""
        self.done.append(("throw", [c for c, _ in wanted], list(values)))
        for (colour, _who), v in zip(wanted, values, strict=True):
            pocket = POCKET_OF[colour]
            if table.pockets.get(pocket):
                table.dice(pocket, None, None, 0)
            self._apply(table.dice(pocket, "die:%s:%d" % (colour, v), None, 0))

    def _apply(self, action):
        if action is not None:
            self.session.apply_from_table(action)


def refused(web, seat, msg):
    try:
        asyncio.run(web.control(seat, msg))
    except Refused as e:
        return e
    raise AssertionError("%r was carried out" % (msg,))


# ---------------------------------------------------------------- what everybody sees

def test_the_web_view_of_a_heroes_game_draws_walls_bases_figures_health_and_flags(tmp_path):
    web = WebTable(heroes_session(tmp_path))
    v = web.view(None)
    assert json.loads(json.dumps(v)) == v and len(v["cells"]) == 49
    assert v["title"] == "Battle Royale with hero teams" and v["actors"] == ["red"]
    assert v["banner"].startswith("Red's turn: roll the green die for movement")
    assert v["facts"][0] == "Capture the Flag on Twin Keeps"
    assert "movement die not rolled yet" in v["facts"]
    assert items_on(v, (1, 3)) == [{"kind": "wall", "label": "", "title": "a wall"}]
    base = items_on(v, (3, 1))[0]
    assert base["kind"] == "wall" and base["title"].startswith("Red's base")
    woodman = items_on(v, (0, 2))[0]
    assert (woodman["kind"], woodman["owner"], woodman["badge"]) == ("figure", "red", 9)
    assert woodman["label"] == "Tin Man"      # fits its cell; the title has the whole name
    assert woodman["title"] == "The Tin Woodman (Red): 9 of 14 health"
    assert "down" not in woodman and "unplaced" not in woodman
    flag = items_on(v, (4, 0))[0]
    assert (flag["kind"], flag["title"]) == ("flag", "Red's flag")
    assert flag["shape"].startswith("⚑") and flag["colour"] == "#ff0000"
    assert len(v["tray"]) == 3
    red, blue = v["seats"]
    assert (red["name"], red["acting"], blue["name"], blue["acting"]) == (
        "Red", True, "Blue", False)
    assert red["shape"] != blue["shape"]      # told apart without colour
    no_codes(v)


def test_the_legend_names_the_colours_walls_bases_flags_and_the_readers_in_use(tmp_path):
    v = WebTable(heroes_session(tmp_path)).view(None)
    words = " ".join(x["words"] for x in v["legend"])
    for part in ("Red's characters and flag", "Blue's characters and flag", "walls",
                 "base", "flag", "health", "dice tray", "Red's and Blue's card readers"):
        assert part in words, part
    assert "Green's" not in words and "Yellow's" not in words   # two players, two readers


def test_each_seats_card_reader_is_drawn_with_the_card_on_it_and_its_light(tmp_path):
    session = heroes_session(tmp_path)
    web = WebTable(session)
    v = web.view(None)
    assert [(r["reader"], r["seat"], r["name"]) for r in v["readers"]] == [
        (1, "red", "Red"), (2, "blue", "Blue")]
    assert all(r["cards"] == [] and len(r["leds"]) == 4 for r in v["readers"])
    session.table.observe_seat_items(1, ["heroes-card:axe_attack"])
    session.table.reconcile(0)
    v = web.view("red")
    card = v["readers"][0]["cards"][0]
    assert (card["kind"], card["id"], card["label"]) == ("card", "axe_attack", "Axe Attack")
    assert v["you"]["reader"] == 1


# ---------------------------------------------------------------- a seat's part

def test_a_seat_sees_its_own_cards_to_lay_down_and_not_the_others_bonus_cards(tmp_path):
    web = WebTable(heroes_session(tmp_path))
    red = web.view("red")
    hand = dict((c["id"], c) for c in red["you"]["hand"])
    assert set(hand) == {"axe_attack", "oil_can", "longbow_attack", "greenwood_cover",
                         "golden_shield"}
    assert hand["golden_shield"]["label"] == "Golden Shield (Bonus Card)"
    assert hand["axe_attack"]["label"] == "Axe Attack (Tin Man)"     # as on its figure
    assert all(c["reader"] and c["kind"] == "card" for c in hand.values())
    assert [(c["label"], c["enabled"]) for c in red["you"]["choices"]] == [("End turn", True)]
    assert "flying_carpet" not in json.dumps(red) and "Flying Carpet" not in json.dumps(red)
    for viewer in ("blue", None):
        text = json.dumps(web.view(viewer))
        assert "golden_shield" not in text and "Golden Shield" not in text
    assert [c["enabled"] for c in web.view("blue")["you"]["choices"]] == [False]
    no_codes(red)


def test_while_defending_the_hand_holds_only_the_cards_that_may_answer_the_attack(tmp_path):
    session = heroes_session(tmp_path)
    session.apply({"type": "attack", "attacker": "tin_woodman", "target": "big_bad_wolf",
                   "dice": {"red": 6, "white": 1}})
    blue = WebTable(session, hands=object()).view("blue")     # the virtual table
    assert blue["actors"] == ["blue"]
    assert blue["banner"] == ("You defend The Big Bad Wolf against The Tin Woodman: a card on "
                              "your card reader, or no defence")
    # The Wolf's own card without "Attack" in its name, and the player's Bonus Card.
    assert sorted(c["id"] for c in blue["you"]["hand"]) == ["flying_carpet", "sheeps_clothing"]
    assert [(c["label"], c["enabled"]) for c in blue["you"]["choices"]] == [
        ("End turn", False), ("No defence: take the attack", True)]
    assert "No defence" in blue["you"]["note"]


def test_on_its_pick_a_seat_holds_the_free_characters_and_the_start_cells_light(tmp_path):
    session = heroes_session(tmp_path, {"mode": "royale"}, setup=None)
    match = session.match
    match.apply({"type": "roll_off", "dice": {"red": 6, "blue": 1}})
    session.table.after([])
    web = WebTable(session)
    red = web.view("red")
    assert red["banner"] == "Your pick: choose a character and put its figure on a start cell"
    hand = red["you"]["hand"]
    assert len(hand) == 12 and all(c["kind"] == "figure" for c in hand)
    starts = sorted(a["cell"] for a in heroes.legal_actions(match.state)
                    if a["character"] == "robin_hood")
    robin = [c for c in hand if c["id"] == "robin_hood"][0]
    assert robin["label"] == "Robin Hood" and sorted(robin["targets"]) == starts
    assert web.view("blue")["you"]["hand"] == []     # not its pick: it holds nothing
    assert "Red 0 of 4 picked" in red["facts"]


# ---------------------------------------------------------------- a seat's controls

def test_a_seat_lays_its_card_on_its_own_reader_from_the_web_and_only_there(tmp_path):
    session = heroes_session(tmp_path)
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    said = asyncio.run(web.control("red", {"op": "place", "reader": 1, "card": "axe_attack"}))
    assert said == "Put down on your card reader."
    assert hands.done == [("place", ("seat", 1), "heroes-card:axe_attack")]
    assert session.table.seat_observed == {1: ["heroes-card:axe_attack"]}
    for msg, status in [({"op": "place", "reader": 2, "card": "axe_attack"}, 403),
                        ({"op": "place", "cell": [0, 2], "card": "axe_attack"}, 409),
                        ({"op": "tap", "reader": 1}, 400),
                        ({"op": "place", "reader": 1, "card": "longbow_attack"}, 409)]:
        assert refused(web, "red", msg).status == status, msg
    assert len(hands.done) == 1
    asyncio.run(web.control("red", {"op": "lift", "reader": 1}))
    assert hands.done[-1] == ("lift", ("seat", 1), "heroes-card:axe_attack")
    assert session.table.seat_observed == {}


def test_a_card_the_rules_refuse_is_refused_at_the_reader_with_the_rule_and_nothing_moves(
        tmp_path):
    session = heroes_session(tmp_path)
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    e = refused(web, "blue", {"op": "place", "reader": 2, "card": "flying_carpet"})
    assert (e.status, e.message, e.cells) == (409, "It is Red's turn.", [["seat", 2]])
    e = refused(web, "red", {"op": "place", "cell": [3, 2], "card": "axe_attack"})
    assert e.message.startswith("Axe Attack is played on your card reader") and \
        e.cells == [[3, 2]]
    e = refused(web, "red", {"op": "place", "reader": 1, "card": "flying_carpet"})
    assert e.status == 403 and "Flying Carpet" not in e.message    # nothing told of it
    # A defence card on one's own turn: the engine's sentence.
    e = refused(web, "red", {"op": "place", "reader": 1, "card": "greenwood_cover"})
    assert "is played when attacked" in e.message
    assert hands.done == [] and session.match.actions == []
    assert session.last_refusal["text"] == e.message     # shown where the person acted


def test_a_pick_on_a_cell_outside_the_start_zone_is_refused_before_anything_is_put_down(
        tmp_path):
    session = heroes_session(tmp_path, {"mode": "royale"}, setup=None)
    session.match.apply({"type": "roll_off", "dice": {"red": 6, "blue": 1}})
    session.table.after([])
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    e = refused(web, "red", {"op": "place", "cell": [3, 3], "card": "robin_hood"})
    starts = sorted(set(tuple(a["cell"]) for a in heroes.legal_actions(session.match.state)))
    assert (e.status, e.cells) == (409, [[3, 3]])
    assert e.message == "Red's characters start on %s or [%d, %d]: the lit cells." % (
        ", ".join("[%d, %d]" % c for c in starts[:-1]), starts[-1][0], starts[-1][1])
    e = refused(web, "blue", {"op": "place", "cell": [3, 6], "card": "robin_hood"})
    assert e.message == "It is Red's pick."
    assert hands.done == []
    start = heroes.legal_actions(session.match.state)[0]["cell"]
    asyncio.run(web.control("red", {"op": "place", "cell": start, "card": "robin_hood"}))
    assert hands.done == [("place", tuple(start), "heroes:robin_hood")]
    assert session.match.actions[-1]["type"] == "pick"
    assert session.last_words == "Red picks Robin Hood, on %s." % (
        "[%d, %d]" % tuple(start))


def test_the_move_tool_lights_where_a_figure_may_go_and_refuses_the_rest(tmp_path):
    session = heroes_session(tmp_path)
    session.apply({"type": "roll_move", "die": 2})
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    moves = web.view("red")["you"]["moves"]
    reach = sorted(a["to"] for a in heroes.legal_actions(session.match.state)
                   if a["type"] == "move" and a["character"] == "robin_hood")
    assert sorted(moves["6,2"]) == reach and [6, 6] not in moves["6,2"]
    e = refused(web, "red", {"op": "move", "cell": [6, 2], "to": [6, 6]})
    assert e.status == 409 and e.cells == [[6, 6]] and "cannot get to" in e.message
    e = refused(web, "red", {"op": "move", "cell": [6, 4], "to": [5, 4]})
    assert e.status == 403 and e.message.startswith("Gretel is Blue's")
    assert hands.done == []
    asyncio.run(web.control("red", {"op": "move", "cell": [6, 2], "to": reach[0]}))
    assert hands.done[:2] == [("lift", (6, 2), "heroes:robin_hood"),
                              ("place", tuple(reach[0]), "heroes:robin_hood")]
    assert session.match.actions[-1] == {"type": "move", "character": "robin_hood",
                                         "to": reach[0]}


def test_a_flag_is_carried_from_the_web_lift_it_move_the_figure_put_it_down_beside(tmp_path):
    """Capture the Flag: "the character with the flag moves and then places the flag in an
    adjacent space"."""
    setup = {"characters": [{"id": "tin_woodman", "seat": "red", "cell": [0, 2]},
                            {"id": "robin_hood", "seat": "red", "cell": [1, 5]},
                            {"id": "big_bad_wolf", "seat": "blue", "cell": [0, 4]},
                            {"id": "gretel", "seat": "blue", "cell": [6, 4]}],
             "turn": "red", "roll": 2,
             "flags": [{"team": "red", "cell": [4, 0], "carrier": None},
                       {"team": "blue", "cell": [2, 6], "carrier": "robin_hood"}]}
    session = heroes_session(tmp_path, setup=setup)
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    assert "lift the flag" in web.view("red")["you"]["note"]
    e = refused(web, "blue", {"op": "lift", "cell": [2, 6]})
    assert e.status == 403 and "holds a flag" in e.message
    asyncio.run(web.control("red", {"op": "lift", "cell": [2, 6]}))
    flag = [c for c in web.view("red")["you"]["hand"] if c["kind"] == "flag"]
    assert [c["label"] for c in flag] == ["Blue's flag (lifted)"]
    asyncio.run(web.control("red", {"op": "move", "cell": [1, 5], "to": [1, 4]}))
    assert session.match.actions == []          # the flag is still in hand
    flag = [c for c in web.view("red")["you"]["hand"] if c["kind"] == "flag"][0]
    assert [0, 5] in flag["targets"] and [2, 6] in flag["targets"]
    asyncio.run(web.control("red", {"op": "place", "cell": [0, 5], "card": "flag:blue"}))
    assert session.match.actions == [{"type": "move", "character": "robin_hood",
                                      "to": [1, 4], "flag_to": [0, 5]}]
    assert session.last_words == ("Robin Hood moves from [1, 5] to [1, 4]. Robin Hood "
                                  "carries Blue's flag to [0, 5].")


def test_a_defeated_figure_is_moved_from_the_web_to_where_it_lies_down(tmp_path):
    """Capture the Flag: a defeated character is laid down behind its base; its player's
    Move tool offers that cell, and only that cell."""
    setup = dict(SETUP, characters=[dict(c) for c in SETUP["characters"]], hands={})
    setup["characters"][2]["health"] = 1        # the Big Bad Wolf, next to the Tin Woodman
    session = heroes_session(tmp_path, setup=setup)
    session.apply({"type": "attack", "attacker": "tin_woodman", "target": "big_bad_wolf",
                   "dice": {"red": 6, "white": 1}})
    session.apply({"type": "no_defence"})       # he could answer with Sheep's Clothing
    wolf = session.match.state.heroes["big_bad_wolf"]
    assert wolf["state"] == "down"
    lies = list(heroes.cell_xy(wolf["cell"]))
    assert "lies down on %s" % ("[%d, %d]" % tuple(lies)) in session.last_words
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    v = web.view("blue")
    assert v["you"]["moves"]["1,1"] == [lies]
    down = [it for it in items_on(v, lies) if it["kind"] == "figure"][0]
    assert down["down"] and down["unplaced"] and "defeated" in down["title"]
    e = refused(web, "blue", {"op": "move", "cell": [1, 1], "to": [3, 4]})
    assert e.message == "The Big Bad Wolf belongs on [%d, %d]." % tuple(lies)
    asyncio.run(web.control("blue", {"op": "move", "cell": [1, 1], "to": lies}))
    assert session.table.mismatches == []


def test_throwing_the_dice_rolls_what_the_tray_waits_for(tmp_path):
    session = heroes_session(tmp_path)
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    assert web.view("red")["progress"]["text"] == "Throw the green die into the tray."
    said = asyncio.run(web.control("red", {"op": "throw"}))
    assert hands.done[0][:2] == ("throw", ["green"]) and 1 <= hands.done[0][2][0] <= 6
    assert said == "Red threw %d" % hands.done[0][2][0]
    assert session.match.actions == [{"type": "roll_move", "die": hands.done[0][2][0]}]
    e = refused(web, "red", {"op": "throw"})
    assert e.status == 409 and e.message.startswith("The tray waits for no dice now")


def test_an_attack_card_is_played_from_the_web_reader_then_a_tap_then_the_dice(tmp_path):
    session = heroes_session(tmp_path)
    hands = Hands(session)
    web = WebTable(session, hands=hands)
    asyncio.run(web.control("red", {"op": "place", "reader": 1, "card": "axe_attack"}))
    assert web.view("red")["you"]["note"] == "Axe Attack: tap its target."
    asyncio.run(web.control("red", {"op": "tap", "cell": [1, 1]}))     # the Big Bad Wolf
    red = web.view("red")
    assert red["you"]["note"] == "Axe Attack: throw the dice."
    assert red["progress"]["text"] == "Throw the red die and the white die into the tray."
    asyncio.run(web.control("red", {"op": "throw"}))
    action = session.match.actions[-1]
    assert (action["type"], action["card"], action["target"]) == (
        "play_card", "axe_attack", "big_bad_wolf")
    red_die = action["dice"]["red"]
    assert session.last_words.startswith(
        "The Tin Woodman plays Axe Attack (now face down). The Tin Woodman attacks The Big "
        "Bad Wolf: attack %d (red die %d + 2)." % (red_die + 2, red_die))
    assert "axe_attack" not in [c["id"] for c in web.view("red")["you"]["hand"]]


def test_the_buttons_reach_the_game_and_others_are_refused(tmp_path):
    session = heroes_session(tmp_path)
    web = WebTable(session, hands=object())
    e = refused(web, "red", {"op": "button", "name": "swap"})
    assert e.status == 400 and "no_defence" in str(e)
    end = web.view("red")["you"]["choices"][0]
    asyncio.run(web.control("red", dict(end["control"])))
    assert session.match.actions == [{"type": "end_turn"}]
    assert session.last_words == "Red ends the turn. Blue's turn 2 begins, 3 actions."


# ---------------------------------------------------------------- the log and the end

def test_each_action_is_one_log_line_in_the_books_words(tmp_path):
    session = heroes_session(tmp_path)
    session.apply({"type": "attack", "attacker": "tin_woodman", "target": "big_bad_wolf",
                   "dice": {"red": 6, "white": 1}})
    assert session.last_words == ("The Tin Woodman attacks The Big Bad Wolf: red die 6. Blue "
                                  "may defend The Big Bad Wolf with a card.")
    session.apply({"type": "no_defence"})
    assert session.last_words == ("The Big Bad Wolf takes 5 damage, 6 against 1 defence: "
                                  "7 health left.")
    session.apply({"type": "play_card", "character": "tin_woodman", "card": "oil_can"})
    assert session.last_words == ("The Tin Woodman plays Oil Can (now face down). The Tin "
                                  "Woodman gets 2 health back: 11 now.")
    no_codes(WebTable(session).view(None))


def test_the_log_never_names_a_bonus_card_in_a_hand_or_the_deck(tmp_path):
    session = heroes_session(tmp_path)
    face = session.game.face
    state = session.match.state
    line = face.describe(state, {"type": "roll_bonus"}, [
        {"type": "bonus_rolled", "rolls": {"red": 5, "blue": 2}},
        {"type": "bonus_drawn", "seat": "red", "card": "water_of_life"}])
    assert line == "Green dice for a Bonus Card: Red 5, Blue 2. Red draws a Bonus Card."
    asked = face.request_words(state, {"type": "play_card", "character": "tin_woodman",
                                       "card": "golden_shield"})
    assert asked == "play a Bonus Card with The Tin Woodman"
    # Played, it is face up and discarded: named.
    line = face.describe(state, {}, [{"type": "card_played", "character": "tin_woodman",
                                      "card": "golden_shield", "bonus_card": True}])
    assert line == "The Tin Woodman plays the Bonus Card Golden Shield."


def test_the_end_says_who_won_and_why_and_leaves_no_stale_facts(tmp_path):
    setup = {"characters": [{"id": "tin_woodman", "seat": "red", "cell": [0, 2]},
                            {"id": "gretel", "seat": "blue", "cell": [1, 1], "health": 1}],
             "turn": "red"}
    session = heroes_session(tmp_path, {"mode": "royale", "bonus_cards": False}, setup)
    session.apply({"type": "attack", "attacker": "tin_woodman", "target": "gretel",
                   "dice": {"red": 6, "white": 1}})
    session.apply({"type": "no_defence"})
    v = WebTable(session).view("red")
    assert v["status"] == "finished"
    assert v["banner"] == "Game over: Red wins, the last team standing"
    assert session.last_words.endswith("Gretel is defeated and leaves the game. Game over: "
                                       "Red wins, the last team standing.")
    assert not [f for f in v["facts"] if "movement" in f or "action" in f]
    assert "Blue 0 of 1 standing" in v["facts"]
    assert [c["enabled"] for c in v["you"]["choices"]] == [False]
    no_codes(v)


def test_the_journal_replay_shows_the_pieces_as_the_game_has_them(tmp_path):
    """As the staff page's replay does: the interpreter fed what the game expects."""
    session = heroes_session(tmp_path)
    session.apply({"type": "roll_move", "die": 2})
    game, match = session.game, session.match
    table = game.new_interpreter(match)
    for place, seen in sorted(table.expected().items()):
        table.observe(place, seen)
    table.reconcile(0)
    items = game.face.items(match, table, None, reveal=True)
    figures = sorted((cell, it["id"]) for cell, its in items.items() for it in its
                     if it["kind"] == "figure")
    assert figures == [((0, 2), "tin_woodman"), ((1, 1), "big_bad_wolf"),
                       ((6, 2), "robin_hood"), ((6, 4), "gretel")]
    assert not [it for its in items.values() for it in its if it.get("unplaced")]
