"""heroes.determinize, the deal an information-set search imagines for one seat: states taken
along seeded random games (Battle Royale for 2, 3 and 4 players, Capture the Flag with and
without Bonus Cards, battles waiting for a defender, Bonus Card roll-offs), every seat of
each. The result depends only on what the seat sees and the rng (byte-identical for states
that differ only in hidden things), shows the seat the same view, keeps the secret Bonus
Cards as a multiset, leaves the seat's own legal actions as they were, can be played to the
end, and does change hidden things. Plain test functions: the module runs under MicroPython
too (tests/mpy_run_tests.py), and one test checks that both interpreters determinize
alike."""


from shared_rules import canon, heroes, playout, prng

from determinize_helpers import deal_alike_on_micropython, random_playout

try:
    from mpy import requires_micropython
except ImportError:     # under MicroPython: the cross-interpreter test does not run there
    requires_micropython = None

E = heroes

# (options, seed, every): one state in `every` along the game, and every state where a
# battle waits for a defender or a Bonus Card roll-off waits.
RUNS = [({}, 1, 25),
        ({}, 2, 40),
        ({"players": 3, "max_turns": 80}, 1, 25),
        ({"players": 4, "max_turns": 80}, 1, 25),
        ({"team_size": 2, "max_turns": 60}, 1, 15),
        ({"mode": "ctf", "max_turns": 40, "bonus_cards": True}, 2, 10),
        ({"mode": "ctf", "max_turns": 40}, 1, 20)]


def states_along(options, seed, every):
    """Copies of the state after every `every`-th action, at every battle and roll-off."""
    out = []
    count = [0]

    def on_step(state, action, events):
        count[0] += 1
        if state.status == "ongoing" and (count[0] % every == 0 or state.battle is not None
                                          or state.bonus_rolls):
            out.append(E.copy(state))
    playout.random_game("heroes", options, seed, on_step=on_step)
    return out


def dump(state):
    return canon.dumps(E.to_dict(state))


def hidden(state, seat):
    """The Bonus Cards `seat` cannot see, where they lie, in order."""
    out = {"deck": list(state.deck), "hands": {}}
    for q in state.seats:
        if q != seat:
            out["hands"][q] = list(state.hands[q])
    return canon.dumps(out)


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
    # the secret cards are the same multiset; the seat's own hand is untouched
    assert sorted(E.secrets(a, seat)) == sorted(E.secrets(state, seat))
    assert sorted(a.deck + [c for q in a.seats if q != seat for c in a.hands[q]]) == \
        sorted(state.deck + [c for q in state.seats if q != seat for c in state.hands[q]])
    if seat in state.hands:
        assert a.hands[seat] == state.hands[seat]
    # 3: only the seat's view and the rng decide: another deal of the same view (Y) gives
    # the same bytes, whatever its hidden things are
    y = E.determinize(E.copy(state), seat, r2)
    assert dump(E.determinize(E.copy(y), seat, r1)) == dump(a)
    assert dump(E.determinize(E.copy(state), seat, r1)) == dump(a)
    # the dice to come are new, the seed that would re-deal the real deck is gone
    assert a.rng != state.rng and a.seed == 0
    # 5: the seat's own legal actions are unchanged, and the game plays on to the end
    if E.actor(state, None) == seat:
        assert canon.dumps(E.legal_actions(a)) == canon.dumps(E.legal_actions(state))
    assert E.from_dict(canon.loads(dump(a))) is not None
    random_playout(E, a, k, 50000)
    return hidden(y, seat) != hidden(state, seat)


def test_determinize_along_random_games_for_every_seat():
    checked = changed = battles = with_cards = 0
    k = 0
    for options, seed, every in RUNS:
        for state in states_along(options, seed, every):
            if state.battle is not None and state.hands[E.actor(state, None)]:
                battles += 1
            for seat in state.seats:
                k += 1
                checked += 1
                moved = check_state(state, seat, k)
                changed += moved
                if len(E.secrets(state, seat)) >= 2:
                    with_cards += 1
                else:
                    assert not moved
    assert battles >= 10, "too few battles waiting for a defender who holds Bonus Cards"
    assert checked >= 200 and with_cards >= 150
    # an identity function would fail: nearly every deal of two or more hidden cards moves
    # one (two cards may come back as they were by chance)
    assert changed >= with_cards * 8 // 10, (changed, with_cards)
    print("%d states and seats, %d with hidden cards, %d moved, %d battles" % (
        checked, with_cards, changed, battles))


def duel(hands, deck):
    """Red's Giant next to blue's Wolf, the cards given."""
    setup = {"characters": [{"id": "the_giant", "seat": "red", "cell": [3, 3]},
                            {"id": "big_bad_wolf", "seat": "blue", "cell": [3, 4]}],
             "hands": hands, "deck": deck}
    return E.new_game({"team_size": 1}, 1, setup)


def test_a_defenders_hidden_hand_is_dealt_again_its_own_is_kept():
    s = duel({"red": ["flying_carpet"], "blue": ["golden_shield", "water_of_life"]},
             ["magic_beanstalk", "apple_of_youth", "thunderclap_attack"])
    E.apply(s, {"type": "attack", "attacker": "the_giant", "target": "big_bad_wolf",
                "dice": {"red": 6, "white": 1}})
    assert s.battle is not None and E.actor(s, None) == "blue"
    blue_hands = {}
    for r in range(1, 30):
        a = E.determinize(E.copy(s), "red", prng.seed_state(r))
        assert a.hands["red"] == ["flying_carpet"] and len(a.hands["blue"]) == 2
        assert len(a.deck) == 3 and "flying_carpet" not in a.deck
        blue_hands[canon.dumps(a.hands["blue"])] = True
        b = E.determinize(E.copy(s), "blue", prng.seed_state(r))
        assert b.hands["blue"] == s.hands["blue"]
        assert E.legal_actions(b) == E.legal_actions(s)
        if r <= 5:
            random_playout(E, a, r, 50000)
            random_playout(E, b, r, 50000)
    assert len(blue_hands) > 4


def test_a_spectators_deal_hides_every_hand():
    s = duel({"red": ["flying_carpet"], "blue": ["golden_shield"]}, ["magic_beanstalk"])
    deals = {}
    for r in range(1, 30):
        a = E.determinize(E.copy(s), None, prng.seed_state(r))
        assert canon.dumps(E.view(a, None)) == canon.dumps(E.view(s, None))
        deals[canon.dumps([a.hands["red"], a.hands["blue"], a.deck])] = True
    assert len(deals) == 6    # three cards, three places of one card


# One source for both interpreters: determinized states along two games.
DEALS = """
from shared_rules import canon, heroes, playout, prng

def deals(options, seed, every):
    out = []
    count = [0]

    def on_step(state, action, events):
        count[0] += 1
        if state.status == "ongoing" and count[0] % every == 0:
            for seat in state.seats:
                s = heroes.determinize(heroes.copy(state), seat, prng.seed_state(count[0]))
                out.append(canon.dumps(heroes.to_dict(s)))
    playout.random_game("heroes", options, seed, on_step=on_step)
    return out
"""
DEAL_RUNS = [[{}, 1, 25], [{"players": 4, "max_turns": 40}, 1, 30]]


def _requires_micropython(f):
    return f if requires_micropython is None else requires_micropython(f)


@_requires_micropython
def test_both_interpreters_deal_alike():
    if requires_micropython is None:
        return      # under MicroPython itself
    deal_alike_on_micropython(DEALS, DEAL_RUNS)
