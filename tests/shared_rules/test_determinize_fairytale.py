"""Fairytale Games' determinize(state, seat, rng): what a seat cannot see is dealt again, what
it sees (and what its own choices show it) is kept. States sampled along a few seeded random
games (1 to 10 players, standard, adventurer and tournament play, alchemist) and a few set-up
positions (a rummage, epic items and quests in hands), for every seat and the spectator.
Plain test functions, so they run under MicroPython too (tests/mpy_run_tests.py); the last
test checks that both interpreters determinize to the same bytes."""

import sys

from determinize_helpers import random_playout, same_deals_program

try:
    from mpy import requires_micropython, run_micropython_code, run_portable_tests
except ImportError:  # under MicroPython (no subprocess there): these tests are CPython's
    def requires_micropython(test):
        return test

from shared_rules import canon, playout, prng
from shared_rules import fairytale as ft
from shared_rules.fairytale import battle, hidden

RUNS = [({"players": 1}, 1, 9), ({"players": 2}, 2, 17), ({"players": 4}, 3, 41),
        ({"players": 5, "mode": "adventurer", "max_days": 12}, 4, 23),
        ({"players": 3, "mode": "tournament"}, 5, 13), ({"players": 10}, 6, 150),
        ({"players": 3, "alchemist": True}, 7, 37)]
# The decisions and piles the states must show (the rare ones only in the full sample).
MET = ["open_piles", "own peek", "other peek", "own continue", "other rummage"]
if sys.implementation.name == "micropython":
    # Its heap holds a few large states at a time, not a hundred: two short games.
    RUNS = [({"players": 1}, 1, 40), ({"players": 2}, 2, 60)]
else:
    MET.append("other character")
EVENTS_OF_A_GAME = 30


def sampled_states(options, seed, every):
    """Copies of the state after the first 3 actions, then after every `every`-th, and after
    the first 3 actions that leave a decision with a card waiting (a peek, a character drawn)
    or a continuation to choose."""
    out = []
    step = [0]
    extra = [3]

    def on(state, action, events):
        step[0] += 1
        if step[0] <= 3 or step[0] % every == 0:
            out.append(ft.copy(state))
        elif extra[0] and [d for d in state.pending if "card" in d or d["kind"] == "continue"]:
            extra[0] -= 1
            out.append(ft.copy(state))

    playout.random_game("fairytale", options, seed, on_step=on)
    return out


def set_up_states():
    """A rummage waiting (a Fugitives pair draws at a landmark), hands holding epic items and
    quests, a battle between players with hands of battle cards."""
    out = []
    s = ft.new_game({"players": 3}, 3, {
        "players": [{"character": "red", "party": ["snow"]},
                    {"character": "alice", "hand": ["crown_of_hearts", "lost_lamb",
                                                    "fireball"]},
                    {"character": "merlin", "hand": ["frost_heart_amulet", "wolf_at_the_door"]}],
        "decks": {"locations": ["emerald_city", "enchanted_forest"]}, "event": "quiet_day"})
    ft.apply(s, {"type": "step", "seat": "p1", "to": [3, 2]})
    assert s.pending[0]["kind"] == "rummage"
    out.append(s)
    s = ft.new_game({"players": 2}, 4, {
        "players": [{"character": "red", "hand": ["dragon_scale_shield"]},
                    {"character": "alice", "hand": ["mushroom_hunt"]}], "event": "quiet_day"})
    ft.apply(s, {"type": "battle", "seat": "p1", "target": "p2"})
    assert s.battles
    out.append(s)
    return out


_STATES = []


def all_states():
    if not _STATES:
        for options, seed, every in RUNS:
            _STATES.extend(sampled_states(options, seed, every))
        _STATES.extend(set_up_states())
    return _STATES


def dumps(state):
    return canon.dumps(ft.to_dict(state))


def det(state, seat, n):
    return ft.determinize(ft.copy(state), seat, prng.seed_state(n))


def mine(state, seat):
    return [a for a in ft.legal_actions(state) if ft.actor(state, a) == seat]


def hidden_places(state, seat):
    """Every place the seat cannot see, with its cards, in a fixed order."""
    s = state
    out = []
    for d in sorted(s.decks):
        if d not in ft.FACE_UP:
            out.append(("deck", d, list(s.decks[d])))
    for q in s.seats:
        if q != seat:
            out.append(("hand", q, list(s.players[q]["hand"])))
    for b in s.battles:
        for fid in sorted(b["fighters"]):
            f = b["fighters"][fid]
            if not battle.is_auto(f) and f["seat"] != seat:
                out.append(("battle_hand", fid, list(f["hand"])))
    for i in range(len(s.pending)):
        d = s.pending[i]
        if d["seat"] != seat and "card" in d:
            out.append(("decision", i, [d["card"]]))
    for i in range(len(s.hunters)):
        if s.hunters[i]["state"] == "hidden":
            out.append(("hunter", i, [s.hunters[i]["id"]]))
    return out


def kind_of(state, cid):
    cat = state.cat
    if cid in cat.battle_instances:
        return "battle"
    if cid in cat.decks["quests"]:
        return "quest:" + cat.decks["quests"][cid]["pile"]
    if cid in cat.decks["victory"]:
        return "victory:" + cat.decks["victory"][cid]["deck"]
    for d in ("events", "locations", "characters", "npcs"):
        if cid in cat.decks[d]:
            return d
    return "epic" if cat.decks["bonus"][cid]["kind"] == "epic" else "item"


# What each place may hold. The bonus deck may hold an epic item (discarded, then reshuffled).
HOLDS = {"alliance": ["victory:alliance"], "betrayal": ["victory:betrayal"],
         "locations": ["locations"], "events": ["events"], "events_out": ["events"],
         "battle": ["battle"], "epic": ["epic"], "easy": ["quest:easy"],
         "medium": ["quest:medium"], "boss": ["quest:boss"],
         "bonus": ["characters", "npcs", "item", "epic"]}
HAND = ["item", "epic", "quest:easy", "quest:medium", "quest:boss", "quest:end"]


def check_kinds(state, seat):
    for where, which, cards in hidden_places(state, seat):
        if where == "deck":
            allowed = HOLDS[which]
        elif where == "hand":
            allowed = HAND
        elif where == "battle_hand":
            allowed = ["battle"]
        elif where == "hunter":
            allowed = ["characters"]
        else:
            allowed = ["characters"] if state.pending[which]["kind"] == "character" else (
                HOLDS["bonus"])
        for c in cards:
            assert kind_of(state, c) in allowed, (where, which, c)


def moved(state, seat):
    """A copy differing from the state in hidden things only: the decks' order reversed (the
    piles the seat sees kept), the others' quest hands and battle hands passed round, a card
    of the events swapped with one set aside, a face-down hunter swapped with a character of
    the bonus deck."""
    y = ft.copy(state)
    kept = hidden.open_piles(y, seat)
    own = [d["kind"] for d in y.pending if d["seat"] == seat]
    for d in y.decks:
        if d in ft.FACE_UP or d in kept or (d == "bonus" and "continue" in own):
            continue
        cards = list(y.decks[d])
        if d == "bonus" and "peek" in own:
            rest = cards[1:]
            rest.reverse()
            y.decks[d] = cards[:1] + rest
        else:
            cards.reverse()
            y.decks[d] = cards
    if y.decks["events"] and y.decks["events_out"]:
        a, b = y.decks["events"][0], y.decks["events_out"][0]
        y.decks["events"][0], y.decks["events_out"][0] = b, a
    hands = [y.players[q] for q in y.seats if q != seat]
    cards = [c for p in hands for c in p["hand"]]
    cards = cards[1:] + cards[:1]
    for p in hands:
        k = len(p["hand"])
        p["hand"] = cards[:k]
        cards = cards[k:]
    fighters = [b["fighters"][fid] for b in y.battles for fid in sorted(b["fighters"])
                if not battle.is_auto(b["fighters"][fid]) and b["fighters"][fid]["seat"] != seat]
    cards = [c for f in fighters for c in f["hand"]]
    cards = cards[1:] + cards[:1]
    for f in fighters:
        k = len(f["hand"])
        f["hand"] = cards[:k]
        cards = cards[k:]
    chars = [i for i in range(len(y.decks["bonus"])) if y.decks["bonus"][i] in
             y.cat.decks["characters"] and not (i == 0 and "peek" in own)]
    for h in y.hunters:
        if h["state"] == "hidden" and chars and "continue" not in own:
            i = chars.pop()
            h["id"], y.decks["bonus"][i] = y.decks["bonus"][i], h["id"]
            h["health"] = y.cat.decks["characters"][h["id"]]["health"]
    for d in y.pending:
        if d["seat"] != seat and d["kind"] == "peek" and y.decks["bonus"]:
            d["card"] = y.decks["bonus"][0]
    y.rng = prng.seed_state(y.rng)
    y.seed += 1
    assert ft.view(y, seat) == ft.view(state, seat)
    return y


def test_determinize_keeps_the_view_and_depends_only_on_it():
    n = 0
    for x in all_states():
        before = ft.to_dict(x)
        for seat in [None] + ft.seats(x):
            n += 1
            result = det(x, seat, n)
            # The copy was deep enough for what determinize changes.
            assert ft.to_dict(x) == before
            assert ft.view(result, seat) == ft.view(x, seat)
            # Another deal of the hidden cards (Y), and the state with its hidden cards moved
            # by hand, determinize to the same state as X. The same data; the same bytes
            # (canonical JSON) checked for every fifth, as it is slow on a large state.
            again = det(det(x, seat, n + 100000), seat, n)
            other = det(moved(x, seat), seat, n)
            assert ft.to_dict(again) == ft.to_dict(result)
            assert ft.to_dict(other) == ft.to_dict(result)
            if n % 5 == 0:
                assert dumps(again) == dumps(result) == dumps(other)
                assert canon.dumps(ft.view(result, seat)) == canon.dumps(ft.view(x, seat))


def test_the_hidden_cards_are_the_same_cards_each_in_a_place_of_its_kind():
    n = 0
    for x in all_states():
        for seat in [None] + ft.seats(x):
            n += 1
            result = det(x, seat, n)
            assert sorted(ft.secrets(result, seat)) == sorted(ft.secrets(x, seat))
            was, now = hidden_places(x, seat), hidden_places(result, seat)
            assert [(k, w, len(c)) for k, w, c in was] == [(k, w, len(c)) for k, w, c in now]
            check_kinds(result, seat)
            events = result.decks["events"] + result.decks["events_out"]
            assert len(events) == len(set(events))
            for h in result.hunters:
                if h["state"] == "hidden":
                    assert h["health"] == result.cat.decks["characters"][h["id"]]["health"]
            for d in result.pending:
                if d["seat"] != seat and d["kind"] == "peek" and result.decks["bonus"]:
                    assert d["card"] == result.decks["bonus"][0]
                if d["seat"] == seat and d["kind"] == "peek":
                    assert result.decks["bonus"][:1] == x.decks["bonus"][:1]
                if d["seat"] == seat and d["kind"] == "continue":
                    assert sorted(result.decks["bonus"]) == sorted(x.decks["bonus"])
            for pile in hidden.open_piles(x, seat):
                assert result.decks[pile] == x.decks[pile]


def test_the_seat_keeps_its_legal_actions_and_the_game_plays_on_to_its_end():
    n = 0
    for x in all_states():
        actors = ft.actors(x)
        for seat in [None] + ft.seats(x):
            n += 1
            result = det(x, seat, n)
            if seat in actors:
                listed = mine(x, seat)
                assert mine(result, seat) == listed
                piles = sorted(set([x.cat.decks["quests"][a["quest"]]["pile"] for a in listed
                                    if a["type"] == "open_quest"]) - set(["end"]))
                assert piles == [p for p in hidden.open_piles(x, seat) if x.decks[p]]
        if n % 3 == 0:  # a playout for every third state: the seat turn by turn
            seats = ft.seats(x)
            random_playout(ft, det(x, seats[n % len(seats)], n), n)


def test_something_hidden_changes_and_every_kind_of_place_is_met():
    changed = {}
    met = {}
    for x in all_states():
        for seat in ft.seats(x):
            result = det(x, seat, 7)
            was, now = hidden_places(x, seat), hidden_places(result, seat)
            for i in range(len(was)):
                key = was[i][0] if was[i][0] != "deck" else was[i][1]
                if was[i][2]:
                    met[key] = met.get(key, 0) + 1
                if was[i][2] != now[i][2]:
                    changed[key] = changed.get(key, 0) + 1
            if hidden.open_piles(x, seat):
                met["open_piles"] = met.get("open_piles", 0) + 1
            for d in x.pending:
                if "card" in d or d["kind"] == "continue":
                    key = ("own " if d["seat"] == seat else "other ") + d["kind"]
                    met[key] = met.get(key, 0) + 1
    for key in ("alliance", "betrayal", "battle", "bonus", "easy", "medium", "boss", "epic",
                "events", "events_out", "locations", "hand", "battle_hand", "hunter",
                "decision") + tuple(MET):
        assert met.get(key), (key, met)
    for key in ("alliance", "betrayal", "battle", "bonus", "easy", "medium", "boss",
                "events", "events_out", "locations", "hand", "battle_hand", "hunter"):
        assert changed.get(key, 0) * 2 > met[key], (key, changed, met)


def test_the_events_of_the_game_are_dealt_from_every_event_not_seen():
    x = [x for x in all_states() if x.phase == "play" and x.decks["events_out"]][0]
    seen = set()
    for n in range(40):
        seen.update(det(x, "p1", n).decks["events"])
    # The events to come are any of those not seen: more than the 30 of the game in all.
    assert x.decks["events"] and len(seen) > EVENTS_OF_A_GAME



SAME_RUNS = [({"players": 1}, 11, [2, 60]), ({"players": 4}, 12, [5, 150, 400])]


@requires_micropython
def test_micropython_determinizes_to_the_same_bytes():
    if sys.implementation.name == "micropython":
        return  # this is the CPython side of the comparison
    code = same_deals_program("fairytale", SAME_RUNS)
    here = []
    exec(code, {"print": here.append})
    assert len(here) == 2 * 2 + 3 * 5
    assert run_micropython_code(code, timeout=300).splitlines() == here


@requires_micropython
def test_this_module_passes_under_micropython():
    if sys.implementation.name == "micropython":
        return  # the module itself, run by tests/mpy_run_tests.py
    run_portable_tests("test_determinize_fairytale", timeout=300)
