"""Battle Royale's determinize(state, seat, rng): what a seat cannot see is dealt again, what
it sees is kept. States along seeded random games (2 to 8 players, both resurrection modes,
end_b on and off) and a few set-up positions, for every seat and the spectator. Plain test
functions, so they run under MicroPython too (tests/mpy_run_tests.py); the last test checks
that both interpreters determinize to the same bytes."""

import sys

from determinize_helpers import random_playout, same_deals_program

try:
    from mpy import requires_micropython, run_micropython_code, run_portable_tests
except ImportError:  # under MicroPython (no subprocess there): these tests are CPython's
    def requires_micropython(test):
        return test

from shared_rules import canon, playout, prng, royale

RUNS = [({"players": 2}, 1, 60), ({}, 2, 90), ({"players": 5, "resurrection": "sips"}, 3, 70),
        ({"players": 8, "end_b": False, "actions_per_turn": 3}, 4, 90)]
if sys.implementation.name == "micropython":
    RUNS = [({"players": 2}, 1, 200), ({"players": 5, "resurrection": "sips"}, 3, 200)]


def sampled_states(options, seed, every):
    """Copies of the state after the first 6 actions, then after every `every`-th."""
    out = []
    step = [0]

    def on(state, action, events):
        step[0] += 1
        if step[0] <= 6 or step[0] % every == 0:
            out.append(royale.copy(state))

    playout.random_game("royale", options, seed, on_step=on)
    return out


def set_up_states():
    """Positions a random game reaches rarely: values reduced, one card left, a reserve."""
    reduced = royale.new_game({}, 5, {
        "players": [{"id": "ann", "cell": [0, 0], "active": ["S3", "H4", "C5"],
                     "reserve": ["D6", "S7"]},
                    {"id": "bob", "cell": [1, 0], "active": ["H8", "C8", "D9"],
                     "reserve": ["S9", "H9", "C9", "DQ"]},
                    {"id": "cat", "cell": [0, 1], "active": ["S2"]}],
        "map": [{"cell": [3, 0], "card": "SK"}, {"cell": [-3, 0], "card": "HA"},
                {"cell": [0, 3], "card": "DK"}]})
    assert reduced.reduced
    last = royale.new_game({"end_b": False}, 6, {
        "players": [{"id": "ann", "cell": [0, 1], "active": ["S3", "H4", "C5"],
                     "reserve": ["D6"]},
                    {"id": "bob", "cell": [0, 0], "active": ["H8", "C8", "D9"],
                     "reserve": ["S9", "H9"]}],
        "map": [{"cell": [0, 0], "card": "S10"}], "turn": "bob"})
    cursed = royale.new_game({}, 7, {
        "players": [{"id": "ann", "cell": [0, 1], "active": ["S2", "C2", "H2"],
                     "reserve": ["D2", "HK"]},
                    {"id": "bob", "cell": [0, 0], "active": ["H8"]}],
        "map": [{"cell": [0, 0], "card": "S10"}, {"cell": [2, 0], "card": "C10"}]})
    return [reduced, last, cursed]


def all_states():
    out = []
    for options, seed, every in RUNS:
        out.extend(sampled_states(options, seed, every))
    return out + set_up_states()


def dumps(state):
    return canon.dumps(royale.to_dict(state))


def hidden_places(state, seat):
    """Each place the seat cannot see, with the cards in it: the map cells, then the other
    players' set-aside cards."""
    out = [("map", i, [state.map[i]]) for i in range(len(state.map))
           if state.map[i] is not None]
    for pid in state.seats:
        if pid != seat:
            out.append(("reserve", pid, list(state.players[pid].reserve)))
    return out


def unseen(state, seat):
    """The cards of the deck the seat cannot place: the secrets and the cards in the box."""
    seen = set()
    for pid in state.seats:
        seen.update(state.players[pid].active)
        if pid == seat or state.phase == "finished":
            seen.update(state.players[pid].reserve)
    return sorted([c for c in royale.base_catalog() if c not in seen])


def moved(state, seat):
    """A copy of the state differing in hidden things only: the map's cards in reverse cell
    order, the first one swapped for a card from the box, the other players' set-aside cards
    rotated among them."""
    y = royale.copy(state)
    if y.phase == "finished":
        return y
    cells = [i for i in range(len(y.map)) if y.map[i] is not None]
    cards = [y.map[i] for i in cells]
    cards.reverse()
    for k in range(len(cells)):
        y.map[cells[k]] = cards[k]
    box = [c for c in unseen(y, seat) if c not in y.cards]
    if cells and box:
        y.cards = dict(y.cards)
        y.values = dict(y.values)
        del y.cards[y.map[cells[0]]]
        del y.values[y.map[cells[0]]]
        y.map[cells[0]] = box[0]
        y.cards[box[0]] = royale.base_catalog()[box[0]]
        y.values[box[0]] = 12 if y.reduced else y.cards[box[0]]["value"]
    hands = [pid for pid in y.seats if pid != seat]
    held = [c for pid in hands for c in y.players[pid].reserve]
    held = held[1:] + held[:1]
    for pid in hands:
        p = y.players[pid]
        for k in range(len(p.reserve)):
            p.reserve[k] = held.pop(0)
    y.rng = prng.seed_state(y.rng)
    y.seed = y.seed + 1
    assert canon.dumps(royale.view(y, seat)) == canon.dumps(royale.view(state, seat))
    return y


def det(state, seat, n):
    return royale.determinize(royale.copy(state), seat, prng.seed_state(n))


def test_determinize_keeps_the_view_and_depends_only_on_it():
    n = 0
    for x in all_states():
        before = dumps(x)
        for seat in [None] + royale.seats(x):
            n += 1
            result = det(x, seat, n)
            assert dumps(x) == before  # the copy was deep enough for what determinize changes
            assert canon.dumps(royale.view(result, seat)) == canon.dumps(royale.view(x, seat))
            # Another deal of the hidden cards (Y) determinizes to the same bytes as X.
            other = det(x, seat, n + 100000)
            assert dumps(det(other, seat, n)) == dumps(result)
            assert dumps(det(result, seat, n)) == dumps(result)
            # And so does X with its hidden cards moved by hand.
            assert dumps(det(moved(x, seat), seat, n)) == dumps(result)


def test_the_hidden_cards_are_the_same_cards_in_places_of_the_same_sizes():
    n = 0
    for x in all_states():
        for seat in [None] + royale.seats(x):
            n += 1
            result = det(x, seat, n)
            assert unseen(result, seat) == unseen(x, seat)
            if x.phase == "finished":
                assert sorted(royale.secrets(result, seat)) == []
                continue
            was, now = hidden_places(x, seat), hidden_places(result, seat)
            assert [(k, w, len(c)) for k, w, c in was] == [(k, w, len(c)) for k, w, c in now]
            placed = [c for pid in result.seats for c in result.players[pid].active +
                      result.players[pid].reserve] + [c for c in result.map if c is not None]
            assert len(placed) == len(set(placed))  # no card in two places
            assert sorted(result.cards) == sorted(placed)
            assert sorted(result.values) == sorted(placed)
            deck = royale.base_catalog()
            map_values = [deck[c]["value"] for c in result.map if c is not None]
            if result.reduced:
                assert min(map_values) >= 13
                assert set(result.values[c] for c in result.map if c is not None) == set([12])
            elif map_values:
                assert min(map_values) < 13  # else the values would have been reduced
            for pid in result.seats:
                p = result.players[pid]
                if not [c for c in p.active if deck[c]["effect"]["curse"]]:
                    assert not [c for c in p.reserve if deck[c]["effect"]["curse"]]
                if pid == seat:
                    assert p.reserve == x.players[pid].reserve
            if seat is not None:
                assert royale.scores(result)[seat] == royale.scores(x)[seat]


def test_the_seat_keeps_its_legal_actions_and_the_game_plays_on_to_its_end():
    n = 0
    for x in all_states():
        seats = royale.seats(x)
        for seat in [None] + seats:
            n += 1
            result = det(x, seat, n)
            if seat is not None and royale.actors(x) == [seat]:
                assert royale.legal_actions(result) == royale.legal_actions(x)
        # One playout per state (the seat turn by turn): a whole game is long.
        seat = seats[n % len(seats)]
        random_playout(royale, det(x, seat, n), n)


def test_something_hidden_changes():
    changed = {"map": 0, "reserve": 0, "rng": 0}
    total = 0
    n = 0
    for x in all_states():
        if x.phase == "finished":
            continue
        for seat in royale.seats(x):
            n += 1
            total += 1
            result = det(x, seat, n)
            if [c for k, w, c in hidden_places(x, seat) if k == "map"] != [
                    c for k, w, c in hidden_places(result, seat) if k == "map"]:
                changed["map"] += 1
            if [c for k, w, c in hidden_places(x, seat) if k == "reserve"] != [
                    c for k, w, c in hidden_places(result, seat) if k == "reserve"]:
                changed["reserve"] += 1
            if result.rng != x.rng:
                changed["rng"] += 1
    assert changed["map"] > total * 9 // 10, (changed, total)
    assert changed["reserve"] > 10, (changed, total)
    assert changed["rng"] == total, (changed, total)


def test_a_finished_game_keeps_every_card():
    x = playout.random_game("royale", {"players": 3}, 8)[0]
    assert x.phase == "finished"
    result = det(x, "red", 1)
    assert result.map == x.map and result.values == x.values
    assert [result.players[q].reserve for q in x.seats] == [x.players[q].reserve
                                                             for q in x.seats]



SAME_RUNS = [({"players": 2}, 11, [3, 40, 400]), ({"players": 6}, 12, [8, 300, 900])]


@requires_micropython
def test_micropython_determinizes_to_the_same_bytes():
    if sys.implementation.name == "micropython":
        return  # this is the CPython side of the comparison
    code = same_deals_program("royale", SAME_RUNS)
    here = []
    exec(code, {"print": here.append})
    assert len(here) == 3 * 3 + 3 * 7
    assert run_micropython_code(code).splitlines() == here


@requires_micropython
def test_this_module_passes_under_micropython():
    if sys.implementation.name == "micropython":
        return  # the module itself, run by tests/mpy_run_tests.py
    run_portable_tests("test_determinize_royale", timeout=300)
