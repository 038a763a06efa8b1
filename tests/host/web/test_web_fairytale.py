"""Fairytale Games: The Battle Royale's web face (host/games/fairytale/web.py), read against
engine states: games of greedy bots for 1, 2, 6 and 10 players (battles included) and a
scenario two players away from a battle at the Dragon Inn.

Every viewer reads words (no codes, no ids) and a spectator never a hidden card: no hidden
card's id anywhere, and no name of a card the table has not seen face up (`Witness`: the
spectators' engine view after each action; a card seen and then shuffled back into a deck is
no secret by name, only where it lies). The log speaks the book; the seat's page is its
character board (traits, health of the maximum, moves lit when ready, tactic cards, items,
party, quests, the battle hand in battle); its choices are buttons in words, a move the table
shows carried out by the hands (a step with its location card, cards laid on the seat's
reader and tapped), a choice no card shows sent as it is, its payments a second step.

The session-level part uses a scripted link and hands that hand what they put down straight
to the interpreter, as the tiles' events would (a unit test of the face and the view's
controls); tests/host/web/test_web_fairytale_browser.py plays through the real firmware and
Chromium.
"""

import asyncio
import json
import re

import pytest

from host import games
from host.clock import ManualClock
from host.games.fairytale import places
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.web.face import ITEM_KINDS
from host.web.view import Refused, WebTable
from shared_rules import bots
from shared_rules import fairytale as ft
from shared_rules.engine import Match
from test_session_clock import ScriptedLink

GAME = games.table_game("fairytale")
FACE = GAME.face
# Four days of events: a whole game of bots in a few dozen actions.
SHORT = {"decks": {"events": ["harvest_moon", "festival", "rainbow", "war_drums"]}}


class Table:
    """The interpreter's public face where no table is (an engine state read alone)."""
    observed = {}
    seat_observed = {}


def codes(texts):
    """What a person should never read: action codes, ids, tile ids."""
    return [t for t in texts if "=" in t or re.search(r"[a-z]_[a-z]", t) or
            re.search(r"\b[0-9a-f]{16}\b", t)]


def strings(obj, skip=("control", "id", "owner", "colour", "kind")):
    """Every string a person reads in a face's answer (not its controls or ids)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from strings(x, skip)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k not in skip:
                yield from strings(v, skip)


def word(w):
    return re.compile(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(w))


class Witness:
    """What a game's table has seen face up so far (every card id the spectators' engine view
    showed after an action), and what of the hidden cards a text tells: a hidden card's id
    anywhere, or the name of a hidden card no copy of which was ever seen, standing as itself
    (not inside another card's printed name or words: "The Sea Witch" in "The Sea Witch's
    Grotto")."""

    def __init__(self, state):
        cat = state.cat
        self.cards = {}
        for deck in cat.decks:
            if deck != "battle":
                for cid, card in cat.decks[deck].items():
                    self.cards[cid] = (card["name"], card.get("text") or "")
        for cid in cat.battle_instances:
            card = cat.battle_card(cid)
            self.cards[cid] = (card["name"], card.get("text") or "")
        self.names = {}
        for cid, (name, _text) in self.cards.items():
            self.names.setdefault(name, set()).add(cid)
        phrases = set(w for pair in self.cards.values() for w in pair if w)
        phrases |= set(w[4:] for w in phrases if w.startswith("The "))
        self.around = dict((n, [p for p in phrases if n in p and p != n]) for n in self.names)
        self.seen = set()
        self.look(state)

    def look(self, state):
        todo = [ft.view(state, None)]
        while todo:
            v = todo.pop()
            if isinstance(v, dict):
                todo.extend(v.keys())
                todo.extend(v.values())
            elif isinstance(v, list):
                todo.extend(v)
            elif isinstance(v, str) and v in self.cards:
                self.seen.add(v)

    def leaks(self, state, text, seat=None):
        hidden = set(ft.secrets(state, seat))
        found = []
        for c in hidden:
            at = word(c).search(text) if c in text else None
            if at:
                found.append(c + " @ " + text[max(0, at.start() - 80):at.end() + 40])
        for name in sorted(set(self.cards[c][0] for c in hidden if c in self.cards)):
            bearers = self.names[name]
            if name not in text or not bearers <= hidden or bearers & self.seen:
                continue
            spans = [(m.start(), m.end()) for p in self.around[name] if p in text
                     for m in re.finditer(re.escape(p), text)]
            for m in word(name).finditer(text):
                if not [1 for a, b in spans if a <= m.start() and m.end() <= b]:
                    found.append("%s in ...%s..." % (name, text[max(0, m.start() - 60):
                                                               m.end() + 60]))
                    break
        return found


def play(players, seed, limit, setup=None, each=None, before=None):
    """A game of greedy bots, engine only: `before(match, action)` when a bot has chosen,
    `each(match, action, events)` after every action."""
    match = Match("fairytale", {"players": players}, seed, setup)
    while ft.status(match.state) == "ongoing" and len(match.actions) < limit:
        s = match.state
        action = bots.choose("greedy", ft, s, ft.actors(s)[0], seed)
        if before is not None:
            before(match, action)
        events = match.apply(action)
        if each is not None:
            each(match, action, events)
    return match


def everything(match, seat):
    """All a viewer's page holds that the face makes."""
    out = {"banner": FACE.banner(match, Table, seat), "facts": FACE.facts(match),
           "items": list(FACE.items(match, Table, seat).values()),
           "panels": FACE.panels(match, Table, seat),
           "legend": [x["words"] for x in FACE.legend(match, None)]}
    if seat is not None:
        out["you"] = FACE.you(match, Table, seat)
    return out


@pytest.mark.parametrize("players,seed,limit,setup,every", [
    (1, 6, 400, None, 9),           # the three hunters killed (Epilogue 1)
    (2, 11, 400, SHORT, 2),         # a whole short game with a battle
    (6, 11, 400, SHORT, 5),         # a whole short game, two battles
    (10, 4, 120, None, 20),         # the start of a crowded one
])
def test_every_viewer_reads_words_and_a_spectator_never_a_hidden_card(players, seed, limit,
                                                                       setup, every):
    seen_kinds = set()
    witness = []
    lines = []

    def each(match, action, events):
        s = match.state
        if not witness:
            witness.append(Witness(s))
        w = witness[0]
        w.look(s)
        line = FACE.describe(s, action, events)
        lines.append(line)
        assert line and not codes([line]), line
        assert not w.leaks(s, line), w.leaks(s, line)
        if len(match.actions) % every:
            return
        for viewer in [None] + list(s.seats):
            page = everything(match, viewer)
            said = list(strings(page))
            assert not codes(said), codes(said)
            assert all(it["kind"] in ITEM_KINDS for cell in page["items"] for it in cell)
            if viewer is None:
                text = json.dumps(page)
                assert not w.leaks(s, text), w.leaks(s, text)
                for cell in page["items"]:
                    assert not [it for it in cell if it["kind"] == "card_back" and "id" in it]
            else:
                for c in page["you"]["choices"]:
                    seen_kinds.add(c["group"])

    def asked(match, action):
        # A bot's move asked of the table (said in the log before it is made).
        s = match.state
        if witness:
            words = FACE.request_words(s, action)
            assert not codes([words]) and not witness[0].leaks(s, words), words

    match = play(players, seed, limit, setup, each, asked)
    s = match.state
    if limit >= 400:
        assert s.status == "finished"
        assert FACE.banner(match, Table, None).startswith("Game over")
        epilogue = FACE.ending(s).split(" (")[-1]
        assert "Game over: " in lines[-1] and lines[-1].endswith(" (" + epilogue + "."), \
            lines[-1]
    assert {"Battle", "Move"} <= seen_kinds or players == 10, seen_kinds


def test_the_ending_says_who_won_how_and_which_epilogue():
    match = play(1, 6, 400)
    assert FACE.ending(match.state) == "Game over: Player 1 (Frankenstein's Monster) wins the " \
        "Battle Royale, the three hunters are killed (Epilogue 1: the Trinity's Champion)"
    match = play(2, 11, 400, SHORT)
    assert FACE.ending(match.state) == "Game over: everyone loses, the events ran out " \
        "(Epilogue 2: the collars detonate)"


# ---------------------------------------------------------------- a battle at the Dragon Inn

def near_a_battle(extra=None):
    """Day 1, Player 1's turn: Captain Hook (20 health) and Mr. Hyde (5 health left) stand on
    the Dragon Inn; the battle deck deals Hook two Heavy Attacks, two Blocks and a Weak
    Attack, and Hyde three attacks and two modifiers."""
    setup = {"players": [
        {"seat": "p1", "character": "captain_hook",
         "traits": {"intelligence": 7, "strength": 7, "persuasion": 6}},
        {"seat": "p2", "character": "mr_hyde", "traits": {"strength": 3, "intelligence": 2}}],
        "event": "harvest_moon", "turn": "p1", "day": 1,
        "decks": {"events": ["festival", "rainbow", "war_drums"],
                  "battle": ["heavy_1", "heavy_2", "block_1", "block_2", "weak_1",
                             "weak_2", "weak_3", "spell_1", "rabid_1", "venom_1"]}}
    setup.update(extra or {})
    return Match("fairytale", {"players": 2}, 5, setup)


def choice(you, start, enabled=True):
    found = [c for c in you["choices"] if c["label"].startswith(start)]
    assert found, (start, [c["label"] for c in you["choices"]])
    assert found[0]["enabled"] == enabled, found[0]
    return found[0]


def step(c, start):
    """The second step of choice `c` whose label starts so (a target, a way to pay)."""
    found = [x for x in c.get("then", []) if x["label"].startswith(start)]
    assert found, (start, [x["label"] for x in c.get("then", [])])
    return found[0]


def rows(panel):
    return dict((r["label"], r) for r in panel["rows"])


def test_the_log_speaks_the_book():
    match = near_a_battle()
    s = match.state
    step = {"type": "step", "seat": "p1", "to": [3, 2]}
    found = s.decks["locations"][0]
    said = FACE.describe(s, step, match.apply(step))
    assert said.startswith("Player 1 (Captain Hook) steps to [3, 2] and discovers %s." %
                           FACE.name(s, found)), said
    match = near_a_battle()
    s = match.state
    said = [FACE.describe(s, a, match.apply(a)) for a in (
        {"type": "battle", "seat": "p1", "target": "p2"},
        {"type": "attack", "seat": "p1", "card": "heavy_1", "target": "p2"},
        {"type": "defend", "seat": "p2"})]
    assert said == [
        "Battle: Player 1 (Captain Hook) attacks Player 2 (Mr. Hyde).",
        "Player 1 (Captain Hook) attacks Player 2 (Mr. Hyde) with Heavy Attack: 3 ATK.",
        "Player 2 (Mr. Hyde) takes the attack; 3 damage. Player 2 loses 3 health (2 left)."]


def test_the_seat_page_is_the_character_board_and_the_battle_hand_is_its_own():
    match = near_a_battle()
    match.apply({"type": "battle", "seat": "p1", "target": "p2"})
    you = FACE.you(match, Table, "p1")
    board = dict((p["title"], p) for p in you["board"])
    hook = rows(board["Captain Hook, your leading character"])
    assert hook["Health"]["value"] == "20 of 20"
    assert hook["Movement"]["value"] == "3"
    assert hook["Faction"]["value"] == "The Merceneries"
    assert hook["Weakness"]["value"] == "Water" and hook["Element"]["value"] == "none"
    traits = rows(board["Traits (your health)"])
    assert [traits[t]["value"] for t in ("Intelligence", "Strength", "Willpower", "Magic",
                                         "Persuasion")] == ["7", "7", "0", "0", "6"]
    assert traits["Magic"]["state"] == "dim"
    moves = rows(board["Moves"])
    # Hook holds Block + Weak (Gentleman's Feint) and Heavy + Heavy (Hook Slash): both lit.
    assert moves["Signature: Gentleman's Feint"]["state"] == "lit"
    assert moves["Signature: Hook Slash"]["state"] == "lit"
    assert moves["Signature: Walk the Plank"]["state"] == "dim"
    assert moves["Super: Good Form"]["state"] == "dim"        # only with 5 health or less
    assert [r["value"] for r in board["Tactic cards"]["rows"]] == ["dormant"] * 3
    assert rows(board["Items"])["Captain Hook"]["value"] == "2 of 2 slots free"
    hand = board["Battle hand (5)"]["rows"]
    assert [r["label"] for r in hand] == ["Heavy Attack", "Heavy Attack", "Block", "Block",
                                          "Weak Attack"]
    assert [c["label"] for c in you["hand"]] == [r["label"] for r in hand]
    # Player 2's page and a spectator's hold no card of Hook's battle hand.
    for viewer in (None, "p2"):
        page = everything(match, viewer)
        text = json.dumps(page)
        for cid in ("heavy_1", "heavy_2", "block_1", "block_2", "weak_1"):
            assert cid not in text
        assert "Battle hand (5)" not in text or viewer == "p2"
    spectator = dict((p["title"], p) for p in FACE.panels(match, Table, None))
    fight = rows(spectator["Battle at The Dragon Inn [3, 3], round 1"])
    assert fight["Player 1 (Captain Hook)"]["value"] == "20/20 health · 5 cards"
    assert fight["Player 2 (Mr. Hyde)"]["value"] == "5/23 health · 5 cards"
    assert fight["Now"]["value"] == "Player 1 (Captain Hook) attacks"


def test_choices_are_words_the_table_moves_go_to_the_hands_and_the_rest_are_sent():
    match = near_a_battle()
    s = match.state
    you = FACE.you(match, Table, "p1")
    battle = choice(you, "Start a battle with Player 2 (Mr. Hyde)")
    assert battle["control"] == {"op": "action", "action": {"type": "battle", "seat": "p1",
                                                            "target": "p2"}}
    north = choice(you, "Step to [3, 2] and discover it")
    assert north["control"]["op"] == "place" and north["control"]["cell"] == [3, 2]
    # The step as the hands make it: the top location card laid, the token lifted and put
    # down beside it.
    steps = FACE.place_steps(match, Table, "p1", north["control"]["card"], (3, 2))
    hook = places.TOKEN + "captain_hook"
    assert steps == [("place", (3, 2), places.CARD + s.decks["locations"][0]),
                     ("lift", (3, 3), hook), ("place", (3, 2), hook)]
    assert choice(you, "Search here", enabled=False)["group"] == "Move"     # the Inn
    assert choice(you, "End your turn")["control"]["op"] == "action"
    quests = choice(you, "Open a quest (")
    assert "control" not in quests and len(quests["then"]) > 5
    assert quests["then"][0]["control"]["op"] == "place"
    # Not Player 2's turn: no choice of Player 2's is enabled but the standing ones greyed.
    other = FACE.you(match, Table, "p2")
    assert [c["label"] for c in other["choices"] if c["enabled"]] == []
    assert other["note"] == "Wait for your turn: the others are playing."
    match.apply(battle["control"]["action"])
    you = FACE.you(match, Table, "p1")
    # "Spend 1 trait": which trait is the player's choice, the usual way first.
    attack = choice(you, "Attack with Heavy Attack")
    assert [x["label"] for x in attack["then"]] == [
        "at Player 2 (Mr. Hyde): Pay 1 with Intelligence",
        "at Player 2 (Mr. Hyde): Pay 1 with Strength",
        "at Player 2 (Mr. Hyde): Pay 1 with Persuasion"]
    heavy = step(attack, "at Player 2 (Mr. Hyde): Pay 1 with Intelligence")
    assert heavy["control"]["op"] == "place" and heavy["control"]["reader"] == 1
    # The cards laid on Player 1's reader, then a tap: play it now.
    assert FACE.place_steps(match, Table, "p1", heavy["control"]["card"], ("seat", 1)) == [
        ("place", ("seat", 1), places.CARD + "heavy_1"), ("gesture", ("seat", 1), "tap")]
    # Another way to pay: the reader held to it (the second play of the card), then tapped.
    strength = step(attack, "at Player 2 (Mr. Hyde): Pay 1 with Strength")
    assert FACE.place_steps(match, Table, "p1", strength["control"]["card"], ("seat", 1)) == [
        ("place", ("seat", 1), places.CARD + "heavy_1"), ("gesture", ("seat", 1), "hold"),
        ("gesture", ("seat", 1), "tap")]
    slash = choice(you, "Signature Move Hook Slash at Player 2 (Mr. Hyde)")
    assert FACE.place_steps(match, Table, "p1", slash["control"]["card"], ("seat", 1)) == [
        ("place", ("seat", 1), places.CARD + "heavy_1"),
        ("place", ("seat", 1), places.CARD + "heavy_2"), ("gesture", ("seat", 1), "tap")]
    assert choice(you, "Flee")["control"] == {"op": "button", "name": "flee"}
    assert choice(you, "End your attack turn")["control"]["op"] == "action"
    # A card of the hand laid by itself; one the seat does not hold is refused.
    assert FACE.place_steps(match, Table, "p1", "block_1", ("seat", 1)) == [
        ("place", ("seat", 1), places.CARD + "block_1")]
    with pytest.raises(Refused) as e:
        FACE.place_steps(match, Table, "p1", "weak_2", ("seat", 1))
    assert e.value.status == 403 and e.value.message == "Player 1 does not hold that card."
    # Another seat's move, or a move the rules refuse, is refused before anything moves.
    with pytest.raises(Refused) as e:
        FACE.place_steps(match, Table, "p2", heavy["control"]["card"], ("seat", 2))
    assert e.value.status == 400
    stale = "play:" + json.dumps({"type": "attack", "seat": "p1", "card": "spell_1",
                                  "target": "p2"})
    with pytest.raises(Refused) as e:
        FACE.place_steps(match, Table, "p1", stale, ("seat", 1))
    assert e.value.status == 409 and "spell" in e.value.message.lower()
    match.apply(heavy["control"]["action"] if "action" in heavy["control"] else
                {"type": "attack", "seat": "p1", "card": "heavy_1", "target": "p2"})
    defend = FACE.you(match, Table, "p2")
    assert defend["note"] == "Now: defend against 3 ATK from Player 1 (Captain Hook)."
    take = choice(defend, "Take the attack without a defence card")
    assert take["control"] == {"op": "action", "action": {"type": "defend", "seat": "p2"}}
    waiting = FACE.you(match, Table, "p1")
    assert waiting["note"].startswith("Your battle waits for Player 2 (Mr. Hyde).")
    assert choice(waiting, "End your attack turn", enabled=False)


def test_a_cost_paid_from_several_traits_is_a_second_step_each_way_checked():
    # The Enchanted Forest searched once already: its second search costs 2 traits.
    match = near_a_battle({"map": [{"cell": [3, 2], "location": "enchanted_forest",
                                    "searched": 1}]})
    match.apply({"type": "step", "seat": "p1", "to": [3, 2]})
    you = FACE.you(match, Table, "p1")
    search = choice(you, "Search The Enchanted Forest [3, 2]")
    labels = [c["label"] for c in search["then"]]
    assert labels[0] == "Pay 1 with Intelligence and 1 with Strength"     # the largest first
    assert "Pay 2 with Persuasion" in labels and "Pay 2 with Magic" not in labels
    for c in search["then"]:
        assert ft.validate(match.state, c["control"]["action"]) is None
    pay = [c for c in search["then"] if c["label"] == "Pay 2 with Persuasion"][0]
    before = match.state.players["p1"]["traits"]["persuasion"]
    match.apply(pay["control"]["action"])
    assert match.state.players["p1"]["traits"]["persuasion"] == before - 2


def test_a_character_met_is_recruited_ignored_or_ambushed_by_name():
    # Rapunzel on top of the bonus deck: Player 1 enters the Emerald City for the first time
    # ("anyone who enters a Landmark Location the first time gets to draw a bonus card").
    for persuasion, can in ((6, True), (2, False)):
        match = near_a_battle({
            "map": [{"cell": [3, 2], "location": "emerald_city"}],
            "decks": {"bonus": ["rapunzel", "fireball"], "events": ["festival"]}})
        match.state.players["p1"]["traits"]["persuasion"] = persuasion
        action = {"type": "step", "seat": "p1", "to": [3, 2]}
        said = FACE.describe(match.state, action, match.apply(action))
        assert said.endswith("Player 1 meets a character from the bonus deck."), said
        you = FACE.you(match, Table, "p1")
        assert you["note"] == "Decide: recruit, ignore or ambush Rapunzel."
        recruit = choice(you, "Recruit Rapunzel", enabled=can)
        need = match.state.cat.decks["characters"]["rapunzel"]["persuasion"]
        assert recruit["label"] == ("Recruit Rapunzel (needs %d persuasion)" % need if can else
                                    "Recruit Rapunzel (it needs %d persuasion, you have 2)"
                                    % need)
        assert choice(you, "Ignore Rapunzel")["control"]["op"] == "action"
        assert choice(you, "Ambush Rapunzel")["control"]["op"] == "action"
        # Player 2 and a spectator know a character was met, not which.
        for viewer in (None, "p2"):
            text = json.dumps(everything(match, viewer))
            assert "Rapunzel" not in text and "rapunzel" not in text, viewer
        assert FACE.you(match, Table, "p2")["note"] == \
            "Wait for your turn: the others are playing."


# ---------------------------------------------------------------- the web table's controls

class TableHands:
    """Hands whose pieces go straight to the session's interpreter (as the tiles' events
    would bring them): cells, the seats' card readers and their pads."""

    def __init__(self, session):
        self.session = session
        self.done = []

    def _read(self):
        action = self.session.table.reconcile(self.session.clock())
        if action is not None:
            self.session.apply_from_table(action)

    def _lying(self, place):
        t = self.session.table
        return list(t.seat_observed.get(place[1], ()) if place[0] == "seat" else
                    t.observed.get(place, ()))

    def _put(self, place, items):
        t = self.session.table
        if place[0] == "seat":
            t.observe_seat_items(place[1], items)
        else:
            t.observe_items(place, items)

    async def place(self, place, item):
        self.done.append(("place", place, item))
        self._put(place, self._lying(place) + [item])
        self._read()

    async def lift(self, place, item=None):
        self.done.append(("lift", place, item))
        lying = self._lying(place)
        lying.remove(item)
        self._put(place, lying)
        self._read()

    async def gesture(self, place, kind):
        self.done.append(("gesture", place, kind))
        s = self.session
        if place[0] == "seat":
            action = s.table.seat_gesture(place[1], kind, s.clock())
        else:
            action = s.table.gesture(place, kind, s.clock())
        s.handle(None) if action is None else s.apply_from_table(action)


def session_near_a_battle(tmp_path):
    layout = layouts.load(layouts.builtin_path("fairytale"))
    uids = ["e6614104%08x" % (i + 1) for i in range(len(layout.tiles))]
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    clock = ManualClock()
    session = TableSession(near_a_battle(), layout, ScriptedLink(clock), registry, uids,
                           clock=clock)
    for place, items in session.table.expected().items():    # the table shows the game
        session.table.observe_items(place, items)
    session.table.reconcile(0)
    assert session.table.mismatches == []
    web = WebTable(session, hands=TableHands(session))
    return session, web


def control(web, seat, msg):
    return asyncio.run(web.control(seat, msg))


def test_a_seat_plays_its_choices_through_the_web_table_and_a_wrong_one_changes_nothing(
        tmp_path):
    session, web = session_near_a_battle(tmp_path)
    view = web.view("p1")
    assert view["title"] == "Fairytale Games: The Battle Royale"
    assert [p["title"] for p in view["you"]["board"]][:2] == [
        "Captain Hook, your leading character", "Traits (your health)"]
    assert [p["title"] for p in view["panels"]][:2] == ["Players", "Day 1: Harvest Moon"]
    assert len([c for c in view["cells"] if tuple(c["cell"]) in places.MAP]) == 49
    # A choice of Player 1's sent from Player 2's page is refused; nothing changes.
    battle = choice(view["you"], "Start a battle with Player 2 (Mr. Hyde)")
    with pytest.raises(Refused) as e:
        control(web, "p2", dict(battle["control"], seat="p1"))
    assert e.value.status == 403
    with pytest.raises(Refused) as e:
        control(web, "p2", battle["control"])
    assert e.value.status == 409 and e.value.message == "it is not Player 2's move."
    assert len(session.match.actions) == 0
    control(web, "p1", battle["control"])
    assert session.match.actions[-1] == battle["control"]["action"]
    # The attack: Heavy Attack laid on Player 1's reader, held to the payment the person chose
    # (Strength, not the usual Intelligence) and tapped, read by the interpreter.
    heavy = step(choice(web.view("p1")["you"], "Attack with Heavy Attack"),
                 "at Player 2 (Mr. Hyde): Pay 1 with Strength")
    control(web, "p1", heavy["control"])
    assert session.match.actions[-1] == {"type": "attack", "seat": "p1", "card": "heavy_1",
                                         "target": "p2", "pay": {"strength": 1}}
    assert session.match.state.players["p1"]["traits"]["strength"] == 6
    assert web.hands.done[-3:] == [("place", ("seat", 1), "fairytale:heavy_1"),
                                   ("gesture", ("seat", 1), "hold"),
                                   ("gesture", ("seat", 1), "tap")]
    assert "Player 1 (Captain Hook) attacks Player 2 (Mr. Hyde) with Heavy Attack: 3 ATK." in \
        web.view(None)["log"]
    # Player 2 takes the attack from its phone.
    take = choice(web.view("p2")["you"], "Take the attack without a defence card")
    control(web, "p2", take["control"])
    assert session.match.state.players["p2"]["traits"]["strength"] + \
        session.match.state.players["p2"]["traits"]["intelligence"] == 2
    # The Sundial flips the next day's event from its phone: the old card lifted off the
    # event deck's reader, the top card laid there.
    flip = choice(web.view("p1")["you"], "Flip the event of day 2")
    top = session.match.state.decks["events"][0]
    control(web, "p1", flip["control"])
    assert session.match.actions[-1]["type"] == "flip_event"
    assert session.match.state.event == top
    assert web.hands.done[-2:] == [("lift", places.EVENTS, "fairytale:harvest_moon"),
                                   ("place", places.EVENTS, "fairytale:" + top)]
    spectator = web.view(None)
    assert not codes(list(strings([spectator["banner"], spectator["facts"], spectator["log"],
                                   spectator["panels"]])))
    assert "heavy_2" not in json.dumps(spectator) and "block_1" not in json.dumps(spectator)
