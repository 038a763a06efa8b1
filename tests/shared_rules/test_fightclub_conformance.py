"""Fairy Tale Fight Club against the conformance kit: random games to the end, every contract
check, and greedy bots that finish games by the book's ending."""

import pytest

from conformance import check_random_games, check_rejected_changes_nothing
from shared_rules import bots, canon, fightclub, playout
from shared_rules.engine import Match

VARIANTS = {
    "solo": {"players": 1, "solo": True},
    "two": {"players": 2, "max_rounds": 12},
    "three": {"players": 3, "max_rounds": 8},
    "four": {"players": 4, "max_rounds": 6},
}


@pytest.mark.parametrize("variant,games", [("solo", 12), ("two", 6), ("three", 4),
                                           ("four", 3)])
def test_random_games_end_and_replay(variant, games):
    assert check_random_games("fightclub", VARIANTS[variant], range(games)) == games


@pytest.mark.parametrize("variant,seed", [("solo", 3), ("two", 1), ("four", 2)])
def test_every_step_keeps_the_contract(variant, seed):
    # Per step: save/load, copy, undo, rejected actions, completeness of legal_actions (against
    # action_space, which names cards by other ids too), no hidden card in any view.
    options = dict(VARIANTS[variant])
    if "max_rounds" in options:
        options["max_rounds"] = 3
    assert check_random_games("fightclub", options, [seed], deep=True) == 1


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_the_legal_actions_are_the_wide_list_validate_accepts(players, seed):
    # legal_actions filters its candidates itself (no refusal is built): at every step of
    # a game, one move in four random, the others greedy, it must be exactly the relaxed list's
    # actions that validate accepts, in the same order.
    from shared_rules import prng

    match = Match("fightclub", {"players": players}, seed)
    rng = prng.seed_state(seed)
    kinds = set()
    n = 0
    while fightclub.status(match.state) == "ongoing" and n < 1500:
        s = match.state
        legal = fightclub.legal_actions(s)
        wide = [a for a in fightclub._candidates(s, relaxed=True)
                if fightclub.validate(s, a) is None]
        assert canon.dumps(legal) == canon.dumps(wide), (n, s.phase)
        kinds.update(a["type"] for a in legal)
        rng, coin = prng.below(rng, 4)
        if coin == 0:
            rng, i = prng.below(rng, len(legal))
            action = legal[i]
        else:
            action = bots.choose("greedy", fightclub, s, fightclub.actor(s, {}), seed)
        match.apply(action)
        n += 1
    assert kinds == set(fightclub.ACTION_TYPES), sorted(set(fightclub.ACTION_TYPES) - kinds)


def greedy_game(players, seed, limit=2500):
    match = Match("fightclub", {"players": players}, seed)
    kinds = ["greedy", "random", "greedy", "greedy"]
    n = 0
    while fightclub.status(match.state) == "ongoing" and n < limit:
        seat = fightclub.actor(match.state, {})
        kind = kinds[fightclub.SEATS.index(seat)] if players > 1 else "greedy"
        match.apply(bots.choose(kind, fightclub, match.state, seat, seed))
        n += 1
    return match


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2)])
def test_greedy_bots_play_to_the_books_ending(players, seed):
    match = greedy_game(players, seed)
    s = match.state
    assert s.status == "finished" and s.end_reason == "four_left"
    assert not s.contract_deck and len(s.area) == 4
    replayed = Match.replay(canon.loads(canon.dumps(match.record())))
    assert canon.dumps(fightclub.to_dict(replayed.state)) == canon.dumps(fightclub.to_dict(s))
    assert max(fightclub.scores(s).values()) > 10


def test_bots_are_deterministic_for_a_seed():
    a = greedy_game(2, 5, limit=120)
    b = greedy_game(2, 5, limit=120)
    assert a.actions == b.actions


@pytest.mark.parametrize("players", [1, 4])
def test_bots_play_legal_moves_for_one_and_four_players(players):
    match = greedy_game(players, 11, limit=80)  # Match.apply refuses an illegal action
    assert len(match.actions) == 80 or fightclub.status(match.state) == "finished"


def test_a_damaged_save_is_refused_in_words():
    data = fightclub.to_dict(fightclub.new_game({"players": 2}, 1))
    del data["players"]
    try:
        fightclub.from_dict(data)
    except fightclub.ScenarioError as e:
        assert e.field == "state"
    else:
        raise AssertionError("a save without players was accepted")


def test_garbage_actions_are_refused_and_change_nothing():
    s = fightclub.new_game({"players": 3}, 4)
    hand = s.players[s.turn].hand
    for bad in ({"type": "load", "wagon": "sled", "cards": hand[:1]},
                {"type": "load", "wagon": "wheelbarrow", "cards": hand[:1] * 2},
                {"type": "load", "wagon": "wheelbarrow", "cards": "c01-01"},
                {"type": "exchange", "give": hand[:2], "take": s.market[:2]},
                {"type": "complete", "contract": ["L1-01"], "wagon": "wheelbarrow"},
                {"type": "to_market", "card": hand[0]},
                {"type": "fight_card", "card": hand[0]},
                {"type": "buy_wagon", "wagon": "war_wagon"},
                {"type": "buy_wagon", "wagon": True},
                {"type": "discard", "from": None, "cards": []},
                {"type": 5}, [], None):
        check_rejected_changes_nothing(fightclub, s, bad)


def test_every_step_keeps_the_contract_through_fights_and_passing():
    # A position where the first completion turns up a creature fight (E05) and a pass of two
    # cards (E01), then more events: every step is checked, choices included.
    from conformance import check_no_leak, check_step, strings_in
    from shared_rules import prng

    setup = {"players": {"p1": {"hand": ["c02-01", "c09-01", "c04-01"],
                                "wagons": {"wheelbarrow": ["c01-01", "c01-02", "c05-01"]}},
                         "p2": {"hand": ["c02-02", "c07-01", "c07-02"], "gold": 1},
                         "p3": {"hand": ["c06-01", "c03-01", "c10-01"]}},
             "contracts": [{"id": "L1-01"}, {"id": "L1-02"}, {"id": "L1-03"}, {"id": "L1-04"}],
             "contract_deck": ["E05", "E01", "L1-05", "E18", "E03", "L1-06", "E13", "L1-07",
                               "L1-08"]}
    match = Match("fightclub", {"players": 3, "max_rounds": 3}, 8, setup)
    kinds = set()
    for ev in check_step(match, {"type": "complete", "contract": "L1-01",
                                 "wagon": "wheelbarrow"}, 0):
        kinds.add(ev["type"])
    rng = prng.seed_state(77)
    seats = list(match.state.seats)
    n = 0
    while match.engine.status(match.state) == "ongoing" and n < 400:
        actions = match.legal_actions()
        completes = [a for a in actions if a["type"] == "complete"]
        rng, i = prng.below(rng, len(actions))
        before = dict([(x, fightclub.secrets(match.state, x)) for x in [None] + seats])
        for ev in check_step(match, completes[0] if completes else actions[i], rng):
            kinds.add(ev["type"])
            if ev["type"] == "fight_cards_shown":
                continue  # shown to all by the rules, though the cards stay in the hands
            for seat in [None] + list(match.state.seats):
                shown = strings_in(fightclub.event_view(ev, seat), set())
                # a card this seat did not know before and may not know now
                hidden = shown.intersection(before[seat]).intersection(
                    fightclub.secrets(match.state, seat))
                assert not hidden, (seat, ev["type"], sorted(hidden))
        n += 1
    check_no_leak(match.engine, match.state)
    assert {"fight_cards_shown", "cards_passed"} <= kinds


# ---------------------------------------------------------------- bad input, fuzzed

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from shared_rules.errors import IllegalAction  # noqa: E402

_ids = st.sampled_from(["c01-01", "c01-02", "c05-01", "c06-01", "c02-01", "c04-01", "c03-01",
                        "c99-01", "c1", "", "L1-01", "L1-02", "E01"])
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | _ids | st.sampled_from(
        ["hand", "wheelbarrow", "hand_cart", "war_wagon", "p2"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "cards", "card", "wagon", "from", "to", "give", "take",
                         "contract"]), inner, max_size=4),
    max_leaves=12)
_actions = st.fixed_dictionaries(
    {"type": st.sampled_from(list(fightclub.ACTION_TYPES) + ["fly"])},
    optional={"cards": st.lists(_ids, max_size=4) | _json, "card": _ids | _json,
              "wagon": _json, "from": _json, "to": _json, "give": st.lists(_ids, max_size=3),
              "take": st.lists(_ids, max_size=3), "contract": _ids | _json})


def _midgame():
    return fightclub.new_game({"players": 2}, 1, {
        "players": {"p1": {"hand": ["c01-01", "c05-01", "c06-01", "c04-01"], "gold": 3,
                           "wagons": {"wheelbarrow": ["c01-02"], "hand_cart": []}},
                    "p2": {"hand": ["c03-01"]}},
        "market": ["c02-01", "c03-02", "c01-03", "c10-01"],
        "contracts": [{"id": "L1-01"}, {"id": "L1-02", "reserved_by": "p2"}, {"id": "L1-03"},
                      {"id": "L1-04"}],
        "contract_deck": ["E01", "L1-05", "L1-06"], "creature_deck": ["c09-01", "c09-02"]})


@settings(max_examples=200, deadline=None)
@given(st.one_of(_actions, _json))
def test_validate_never_raises_and_a_refused_action_changes_nothing(action):
    state = _midgame()
    problem = fightclub.validate(state, action)
    assert problem is None or isinstance(problem, IllegalAction)
    if problem is not None:
        check_rejected_changes_nothing(fightclub, state, action)
    else:
        fightclub.apply(state, action)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_games_keep_the_40_gold_and_the_75_creatures(variant):
    """The game has "40 Gold tokens" and "75 Creature Cards": every step of a random game
    finds each coin in the bank, a purse or on a contract, and each creature card in one
    place (deck, Market, discard pile, a hand or a wagon)."""
    seen = []

    def count(state, action, events):
        s = state
        gold = s.bank + sum([s.players[x].gold for x in s.seats]) + sum(
            [s.area_gold[k] for k in s.area])
        cards = list(s.deck) + list(s.market) + list(s.discard)
        for x in s.seats:
            cards += s.players[x].hand
            for w in fightclub.WAGONS:
                cards += s.players[x].wagons[w] or []
        assert gold == fightclub.BANK_GOLD == 40, (action, events)
        assert sorted(cards) == sorted(fightclub.load_catalog().creature_ids), action
        seen.append(action["type"])

    for seed in range(3):
        playout.random_game("fightclub", VARIANTS[variant], seed, on_step=count)
    # The games paid gold somewhere (a wagon, an action or a reservation), or the test
    # would prove nothing.
    assert set(seen) & {"buy_wagon", "buy_action", "reserve"}
