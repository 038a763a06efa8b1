"""Storybook Battles' determinize(state, seat, rng), the search bot's hook: states along
seeded random games (2 and 4 players, physical and digital), every seat and a spectator.

Plain test functions, so they run under MicroPython too (tests/mpy_run_tests.py); the last
two tests, CPython only, run them there and compare determinized states byte for byte."""

import sys

from shared_rules import canon, playout, prng, storybook

# (options, seed): short games, every few steps a state.
RUNS = [({"players": 2, "mode": "physical", "max_turns": 12}, seed) for seed in (1, 2, 3)]
RUNS += [({"players": 4, "mode": "physical", "max_turns": 12}, seed) for seed in (4, 5)]
RUNS += [({"players": 2, "max_turns": 12}, 6), ({"players": 4, "max_turns": 12}, 7)]
EVERY = 3

_cache = []


def collector(taken):
    def on_step(state, action, events):
        taken.append(storybook.copy(state))
    return on_step


def states():
    """[(state, seats to determinize for)] along the RUNS games (built once)."""
    if not _cache:
        for options, seed in RUNS:
            taken = []
            playout.random_game("storybook", options, seed, on_step=collector(taken))
            for s in taken[::EVERY]:
                _cache.append((s, list(s.seats) + [None]))
    return _cache


def det(state, seat, rng):
    return storybook.determinize(storybook.copy(state), seat, prng.seed_state(rng))


def dump(state):
    return canon.dumps(storybook.to_dict(state))


def card_secrets(state, seat):
    """secrets() without plot twist ids (a hidden plot twist is re-dealt among its four)."""
    return [c for c in storybook.secrets(state, seat) if c not in state.cat.twists]


def own_actions(state, seat):
    return [a for a in storybook.legal_actions(state) if storybook.actor(state, a) == seat]


def places(state, x):
    """Every card in a seat's places: hand, deck, unseen pool, its cards in play."""
    out = [c for c in state.hands[x] + state.decks[x] + state.pool[x] if c is not None]
    out += [e[0] for e in state.board.values() if e[1] == x]
    return sorted(out)


def test_the_view_is_kept():
    for s, seats in states():
        for seat in seats:
            d = det(s, seat, 11)
            assert canon.dumps(storybook.view(d, seat)) == canon.dumps(storybook.view(s, seat))


def scramble(state, seat):
    """A copy that differs from `state` only in what `seat` cannot see, changed by hand: the
    seed and PRNG, deck orders, other seats' hands, face-down cards and plot twists."""
    s = storybook.copy(state)
    s.seed += 1
    s.rng = prng.seed_state(s.seed + 12345)
    for x in s.seats:
        if not s.physical:
            cards = s.hands[x] + s.decks[x] if x != seat else list(s.decks[x])
            cards.reverse()
            if x != seat:
                s.hands[x], s.decks[x] = cards[:len(s.hands[x])], cards[len(s.hands[x]):]
            else:
                s.decks[x] = cards
        if x == seat:
            continue
        down = [c for c in sorted(s.board) if s.board[c][1] == x and not s.board[c][3]]
        unseen = s.pool[x] if s.physical else s.decks[x]
        if down and unseen:
            e = s.board[down[0]]
            s.board[down[0]], unseen[0] = (unseen[0],) + e[1:], e[0]
            s.pool[x].sort()
        tid, used = s.twists[x]
        if tid is not None and not used:
            choices = s.cat.twist_choices(s.teams[x][0], s.teams[x][1], storybook.side_of(x))
            s.twists[x] = [choices[(choices.index(tid) + 1) % len(choices)], False]
    return s


def test_the_result_depends_only_on_what_the_seat_sees():
    for s, seats in states():
        for seat in seats:
            want = dump(det(s, seat, 5))
            assert dump(det(det(s, seat, 99), seat, 5)) == want  # other hidden cards
            other = scramble(s, seat)
            assert storybook.view(other, seat) == storybook.view(s, seat)
            assert storybook.to_dict(other) != storybook.to_dict(s)
            assert dump(det(other, seat, 5)) == want


def test_the_secret_cards_stay_and_stay_in_their_seats():
    for s, seats in states():
        for seat in seats:
            d = det(s, seat, 3)
            assert card_secrets(d, seat) == card_secrets(s, seat)
            for x in s.seats:
                assert places(d, x) == places(s, x)
                assert len(d.hands[x]) == len(s.hands[x])
                assert len(d.decks[x]) == len(s.decks[x])
                tid, used = d.twists[x]
                if s.twists[x][0] is None or s.twists[x][1] or x == seat:
                    assert d.twists[x] == s.twists[x]
                else:
                    team, ally = s.teams[x]
                    assert not used
                    assert tid in s.cat.twist_choices(team, ally, storybook.side_of(x))
                if s.physical:
                    assert d.pool[x] == sorted(d.pool[x])
                    assert len(d.pool[x]) == len(d.decks[x]) + d.hands[x].count(None)
                    if x != seat:
                        assert d.hands[x] == [None] * len(s.hands[x])
            if seat is not None:
                assert d.hands[seat] == s.hands[seat]
                assert d.pool[seat] == s.pool[seat]
            for cell in s.board:
                e, f = s.board[cell], d.board[cell]
                assert f[1:] == e[1:]
                if e[3] or e[1] == seat:
                    assert f[0] == e[0]


def test_the_seats_own_actions_are_unchanged():
    for s, seats in states():
        for seat in seats:
            if seat is not None:
                assert own_actions(det(s, seat, 8), seat) == own_actions(s, seat)


def test_a_game_plays_on_to_its_end():
    for i, (s, seats) in enumerate(states()):
        if i % 2:
            continue
        for seat in seats:
            d = det(s, seat, i)
            rng = prng.seed_state(i + 1000)
            n = 0
            while storybook.status(d) == "ongoing":
                actions = storybook.legal_actions(d)
                assert actions
                rng, action = playout.choose(rng, actions)
                storybook.apply(d, action)
                n += 1
                assert n < 5000
            assert storybook.status(d) == "finished"


def test_hidden_things_do_change():
    """Not the identity: face-down cards, other hands, decks, plot twists, the PRNG."""
    seen = {"face_down": 0, "hand": 0, "deck": 0, "pool": 0, "twist": 0, "rng": 0}
    for s, seats in states():
        for seat in seats:
            d = det(s, seat, 21)
            seen["rng"] += d.rng != s.rng
            for cell in s.board:
                seen["face_down"] += d.board[cell][0] != s.board[cell][0]
            for x in s.seats:
                seen["hand"] += d.hands[x] != s.hands[x]
                seen["deck"] += d.decks[x] != s.decks[x]
                seen["pool"] += d.pool[x] != s.pool[x]
                seen["twist"] += d.twists[x] != s.twists[x]
    for key in sorted(seen):
        assert seen[key] > 10, (key, seen)


def test_a_card_returned_to_the_hand_is_unseen_by_the_others():
    """Physical mode: a plot twist returns a face-down card to the Hero's hand; the Villain
    imagines the Hero's hand as unknown cards, the card among the Hero's unseen ones."""
    s = storybook.new_game({"mode": "physical"}, 1, {
        "board": [{"card": "alice", "cell": [3, 3]},
                  {"card": "the_dodo", "cell": [2, 3], "face_up": False},
                  {"card": "captain_hook", "cell": [3, 4]}],
        "hands": {"hero": 2, "villain": 3}, "turn": "hero",
        "plot_twists": {"hero": "down_the_rabbit_hole", "villain": "walk_the_plank"}})
    storybook.apply(s, {"type": "plot_twist", "card": "down_the_rabbit_hole", "cell": [2, 3]})
    assert s.hands["hero"] == [None, None, "the_dodo"]
    d = det(s, "villain", 4)
    assert d.hands["hero"] == [None, None, None]
    assert "the_dodo" in d.pool["hero"]
    assert d.twists["villain"] == ["walk_the_plank", False]
    assert d.hands["villain"] == [None, None, None]
    mine = det(s, "hero", 4)
    assert mine.hands["hero"] == [None, None, "the_dodo"]
    assert own_actions(mine, "hero") == own_actions(s, "hero")


if sys.implementation.name != "micropython":
    import json

    import pytest
    from mpy import requires_micropython, run_micropython_code, run_portable_tests

    DETERMINIZE = """
from shared_rules import canon, playout, prng, storybook
for options, seed in %s:
    taken = []
    playout.random_game("storybook", options, seed,
                        on_step=lambda s, a, e, taken=taken: taken.append(storybook.copy(s)))
    for i in range(0, len(taken), 7):
        for seat in list(taken[i].seats) + [None]:
            d = storybook.determinize(storybook.copy(taken[i]), seat, prng.seed_state(i + 1))
            print(canon.dumps(storybook.to_dict(d)))
"""

    @requires_micropython
    @pytest.mark.micropython
    def test_determinized_states_are_byte_identical_on_both_interpreters():
        code = DETERMINIZE % json.dumps([list(r) for r in RUNS]).replace("null", "None")
        mine = []
        exec(compile(code, "determinize", "exec"), {"print": mine.append})
        assert len(mine) > 100
        assert run_micropython_code(code, timeout=300).splitlines() == mine

    @requires_micropython
    @pytest.mark.micropython
    def test_these_tests_pass_under_micropython():
        run_portable_tests("test_determinize_storybook")
