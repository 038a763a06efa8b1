"""fightclub.determinize, the deal an information-set search imagines for one seat: states
taken along seeded random games (1 to 4 players, with fights and passes waiting for
choices), every seat of each. The result depends only on what the seat sees and the rng
(byte-identical for states that differ only in hidden things), shows the seat the same
view, keeps the secret cards as a multiset, leaves the seat's own legal actions as they
were, can be played to the end, and does change hidden things. Plain test functions: the
module runs under MicroPython too (tests/mpy_run_tests.py), and one test checks that both
interpreters determinize alike."""


from shared_rules import canon, fightclub, playout, prng

from determinize_helpers import deal_alike_on_micropython, random_playout

try:
    from mpy import requires_micropython
except ImportError:     # under MicroPython: the cross-interpreter test does not run there
    requires_micropython = None

E = fightclub

# (options, seed, every): one state in `every` along the game, and every state where a
# fight or a pass waits for choices. These seeds reach fights and passes (found by playing
# them): 2 players seed 3, 3 players seeds 1 and 13, 4 players seeds 9 and 15 reach both.
RUNS = [({"players": 1}, 1, 9),
        ({"players": 2, "max_rounds": 20}, 3, 25),
        ({"players": 3, "max_rounds": 20}, 1, 50),
        ({"players": 3, "max_rounds": 20}, 13, 50),
        ({"players": 4, "max_rounds": 20}, 9, 80),
        ({"players": 4, "max_rounds": 20}, 15, 80)]


def states_along(options, seed, every):
    """Copies of the state after every `every`-th action and at every event choice."""
    out = []
    count = [0]

    def on_step(state, action, events):
        count[0] += 1
        if state.status == "ongoing" and (count[0] % every == 0 or
                                          state.phase in ("fight", "pass")):
            out.append(E.copy(state))
    playout.random_game("fightclub", options, seed, on_step=on_step)
    return out


def dump(state):
    return canon.dumps(E.to_dict(state))


def hidden(state, seat):
    """What `seat` cannot see, in order: the decks and the other hands and choices."""
    out = {"deck": list(state.deck), "contract_deck": list(state.contract_deck),
           "hands": {}, "choices": {}}
    for x in state.seats:
        if x != seat:
            out["hands"][x] = list(state.players[x].hand)
    if state.pending is not None:
        for x in state.pending["choices"]:
            if x != seat:
                out["choices"][x] = list(state.pending["choices"][x])
    return canon.dumps(out)


def segments(state):
    """The contract deck's kinds by the book's sets, bottom first (what the seat knows)."""
    deck = state.contract_deck
    out = []
    lo = 0
    for sets in E.DECK_SETS:
        hi = lo + sum(sets[len(state.seats)])
        out.append(sorted([E._deck_kind(state, c) for c in deck[lo:hi]]))
        lo = hi
    return out


def check_state(state, seat, k):
    """Every property for one state and seat; True if a hidden card moved."""
    before = dump(state)
    r1 = prng.seed_state(1000 + k)
    r2 = prng.seed_state(2000 + k)
    a = E.copy(state)
    got = E.determinize(a, seat, r1)
    assert got is a
    assert dump(state) == before, "determinize changed the state it was not given"
    # 4: the seat's view is the same
    assert canon.dumps(E.view(a, seat)) == canon.dumps(E.view(state, seat))
    # the secret cards are the same multiset, each deck's card in a deck of its kind
    assert E.secrets(a, seat) == E.secrets(state, seat)
    assert sorted(a.deck + [c for x in a.seats if x != seat for c in a.players[x].hand]) == \
        sorted(state.deck + [c for x in state.seats if x != seat
                             for c in state.players[x].hand])
    assert sorted(a.contract_deck) == sorted(state.contract_deck)
    assert segments(a) == segments(state)
    # a hidden choice is still a choice from the chooser's hand, of the same size
    if state.pending is not None:
        assert sorted(a.pending["choices"]) == sorted(state.pending["choices"])
        for x in a.pending["choices"]:
            chosen = a.pending["choices"][x]
            assert len(chosen) == len(state.pending["choices"][x])
            assert all([c in a.players[x].hand for c in chosen])
    # 3: only the seat's view and the rng decide: another deal of the same view (Y) gives
    # the same bytes, whatever its hidden things are
    y = E.determinize(E.copy(state), seat, r2)
    assert dump(E.determinize(E.copy(y), seat, r1)) == dump(a)
    # the same rng, the same deal
    assert dump(E.determinize(E.copy(state), seat, r1)) == dump(a)
    # 5: the seat's own legal actions are unchanged, and the game plays on to the end
    if E.actor(state, None) == seat:
        assert canon.dumps(E.legal_actions(a)) == canon.dumps(E.legal_actions(state))
    assert E.from_dict(canon.loads(dump(a))) is not None
    assert a.rng != state.rng and a.seed == 0
    random_playout(E, a, k)
    return hidden(y, seat) != hidden(state, seat)


def test_determinize_along_random_games_for_every_seat():
    checked = changed = choices = 0
    k = 0
    for options, seed, every in RUNS:
        for state in states_along(options, seed, every):
            if state.phase in ("fight", "pass"):
                choices += 1
            for seat in state.seats:
                k += 1
                checked += 1
                changed += check_state(state, seat, k)
    assert choices >= 10, "too few states where an event waits for choices"
    assert checked >= 100
    # an identity function would fail: nearly every deal moves a hidden card (a hand of
    # one card, a deck of a few may come back the same by chance)
    assert changed >= checked * 9 // 10, (changed, checked)
    print("%d states and seats, %d with hidden cards moved, %d event choices" % (
        checked, changed, choices))


def test_the_deal_is_random_not_the_state_shuffled_the_same_way():
    # Two rngs give two different deals of the hidden cards (not just a new PRNG state).
    state = states_along({"players": 4, "max_rounds": 20}, 9, 80)[3]
    a = E.determinize(E.copy(state), "p1", prng.seed_state(1))
    b = E.determinize(E.copy(state), "p1", prng.seed_state(2))
    assert a.players["p2"].hand != b.players["p2"].hand or a.deck != b.deck
    assert a.deck != state.deck and a.contract_deck != state.contract_deck
    assert a.players["p1"].hand == state.players["p1"].hand
    assert a.seed == 0 and a.rng != state.rng


def fight_waiting():
    """p1 completes a contract, a creature fight (E05, lowest creature) waits for choices."""
    c = E.creature_id
    setup = {"players": {"p1": {"hand": [c(2, 1), c(9, 1)],
                                "wagons": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)]}},
                         "p2": {"hand": [c(2, 2), c(7, 1), c(7, 2)]},
                         "p3": {"hand": [c(6, 1), c(3, 1)]}},
             "creature_deck": [c(8, 1), c(8, 2), c(10, 1), c(4, 4)],
             "market": [c(1, 12), c(2, 11), c(3, 10), c(4, 9)],
             "contracts": [{"id": k} for k in ("L1-01", "L1-02", "L1-03", "L1-04")],
             "contract_deck": ["E05", "L1-05", "L1-06"]}
    s = E.new_game({"players": 3}, 1, setup)
    E.apply(s, {"type": "complete", "contract": "L1-01", "wagon": "wheelbarrow"})
    assert s.phase == "fight"
    return s


def test_a_hidden_fight_card_is_dealt_again_the_seats_own_is_kept():
    s = fight_waiting()
    E.apply(s, {"type": "fight_card", "card": E.creature_id(9, 1)})
    E.apply(s, {"type": "fight_card", "card": E.creature_id(7, 1)})
    assert E.actor(s, None) == "p3"
    seen_p2 = {}
    for r in range(1, 40):
        a = E.determinize(E.copy(s), "p1", prng.seed_state(r))
        # p1's own choice stays; p2's is a card of p2's new hand
        assert a.pending["choices"]["p1"] == [E.creature_id(9, 1)]
        assert a.pending["choices"]["p2"][0] in a.players["p2"].hand
        assert len(a.players["p2"].hand) == 3 and len(a.players["p3"].hand) == 2
        seen_p2[a.pending["choices"]["p2"][0]] = True
        b = E.determinize(E.copy(s), "p3", prng.seed_state(r))
        # p3 is the chooser: its hand and legal actions stay
        assert b.players["p3"].hand == s.players["p3"].hand
        assert E.legal_actions(b) == E.legal_actions(s)
        if r <= 8:
            random_playout(E, b, r)
    assert len(seen_p2) > 3


def test_a_whole_hand_passed_without_choosing_stays_the_whole_hand():
    # E01 (pass two to the left): p2 and p3 hold no more than two and pass everything.
    c = E.creature_id
    setup = {"players": {"p1": {"hand": [c(1, 1), c(2, 1), c(3, 1)], "gold": 1,
                                "wagons": {"wheelbarrow": [c(1, 4), c(5, 2), c(5, 3)]}},
                         "p2": {"hand": [c(9, 1)], "gold": 1},
                         "p3": {"hand": [c(4, 1), c(5, 1)], "gold": 1}},
             "creature_deck": [c(8, 1), c(8, 2), c(6, 6)],
             "market": [c(1, 12), c(2, 11), c(3, 10), c(4, 9)],
             "contracts": [{"id": k} for k in ("L1-06", "L1-02", "L1-03", "L1-04")],
             "contract_deck": ["E01", "L1-05", "L1-07"]}
    s = E.new_game({"players": 3}, 1, setup)
    E.apply(s, {"type": "complete", "contract": "L1-06", "wagon": "wheelbarrow"})
    assert s.phase == "pass" and E.actor(s, None) == "p1"
    for r in range(1, 9):
        a = E.determinize(E.copy(s), "p1", prng.seed_state(r))
        for x in ("p2", "p3"):
            assert a.pending["choices"][x] == a.players[x].hand
        assert canon.dumps(E.view(a, "p1")) == canon.dumps(E.view(s, "p1"))
        assert E.legal_actions(a) == E.legal_actions(s)
        random_playout(E, a, r)


def test_level_three_contracts_stay_at_the_bottom_of_the_contract_deck():
    # The book stacks the sets: Level III contracts only in the bottom set, the four Level I
    # on top; a new deal keeps every set's kinds, so no Level III comes up early.
    s = E.new_game({"players": 4}, 3)
    for r in range(1, 30):
        a = E.determinize(E.copy(s), "p2", prng.seed_state(r))
        assert segments(a) == segments(s)
        size = sum(E.DECK_SETS[0][4])
        assert all([E._deck_kind(a, cid) != 3 for cid in a.contract_deck[size:]])


# One source for both interpreters: determinized states along two games.
DEALS = """
from shared_rules import canon, fightclub, playout, prng

def deals(options, seed, every):
    out = []
    count = [0]

    def on_step(state, action, events):
        count[0] += 1
        if state.status == "ongoing" and count[0] % every == 0:
            for seat in state.seats:
                s = fightclub.determinize(fightclub.copy(state), seat,
                                          prng.seed_state(count[0]))
                out.append(canon.dumps(fightclub.to_dict(s)))
    playout.random_game("fightclub", options, seed, on_step=on_step)
    return out
"""
DEAL_RUNS = [[{"players": 2, "max_rounds": 12}, 3, 10], [{"players": 4, "max_rounds": 8}, 5, 25]]


def _requires_micropython(f):
    return f if requires_micropython is None else requires_micropython(f)


@_requires_micropython
def test_both_interpreters_deal_alike():
    if requires_micropython is None:
        return      # under MicroPython itself
    deal_alike_on_micropython(DEALS, DEAL_RUNS)
