"""Battle Royale against the conformance kit: random games to the end, every contract check."""

import pytest

from conformance import check_random_games, check_rejected_changes_nothing
from shared_rules import canon, playout, royale
from shared_rules.engine import Match

VARIANTS = {
    "default": {},
    "duel_3_actions_sips": {"players": 2, "actions_per_turn": 3, "resurrection": "sips"},
    "six_players_no_end_b": {"players": 6, "end_b": False},
}


@pytest.mark.parametrize("variant,games", [("default", 40), ("duel_3_actions_sips", 30),
                                           ("six_players_no_end_b", 15)])
def test_random_games_end_and_replay(variant, games):
    finished = check_random_games("royale", VARIANTS[variant], range(games), max_actions=20000)
    assert finished == games


@pytest.mark.parametrize("variant,seed", [("default", 5), ("six_players_no_end_b", 28)])
def test_every_step_keeps_the_contract(variant, seed):
    # Per step: save/load, copy, undo, rejected actions, completeness of legal_actions, no leak.
    # The seeds are short games (600-800 actions) to keep CI time low.
    assert check_random_games("royale", VARIANTS[variant], [seed], deep=True) == 1


def test_random_games_reach_both_endings_and_every_kind_of_event():
    seen = set()
    reasons = set()
    for seed in range(25):
        match = Match("royale", {}, seed)
        rng = 12345 + seed
        while royale.status(match.state) == "ongoing":
            rng, action = playout.choose(rng, match.legal_actions())
            for ev in match.apply(action):
                seen.add(ev["type"])
        reasons.add(match.state.end_reason)
        # The end state shows everything: no secrets are left.
        assert royale.secrets(match.state, None) == set()
    assert reasons == {"all_cards_won", "card_lead"}
    for kind in ("card_won", "attack_failed", "player_died", "duel_round", "duel_won",
                 "resurrected", "values_reduced", "card_taken", "swapped", "last_card",
                 "curse_equipped", "game_over"):
        assert kind in seen, kind


def test_views_never_show_a_face_down_card_or_its_value():
    s = royale.new_game({"players": 3}, 11)
    for seat in [None] + royale.seats(s):
        text = canon.dumps(royale.view(s, seat))
        for cid in s.map:
            assert '"%s"' % cid not in text
        assert all(set(entry) == {"cell"} for entry in royale.view(s, seat)["map"])
        assert "rng" not in text


def test_undo_is_refused_after_dice_and_allowed_after_a_move():
    match = Match("royale", {"players": 2}, 3, {
        "players": [{"id": "red", "cell": [0, 0]}, {"id": "blue", "cell": [0, 3]}]})
    match.apply({"type": "move", "to": [0, 1]})
    assert match.can_undo()
    match.undo()
    assert match.state.players["red"].cell == royale.INDEX[(0, 0)]
    match.apply({"type": "attack_card", "dice": [6, 6, 6]})
    assert not match.can_undo()


# ---------------------------------------------------------------- bad input, fuzzed

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from shared_rules.errors import IllegalAction, ScenarioError  # noqa: E402

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.sampled_from(
        ["red", "blue", "H3", "SA", "C9", "", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "to", "dice", "target", "take", "fall_to", "active",
                         "reserve", "cell", "set_aside", "red"]), inner, max_size=4),
    max_leaves=12)
_actions = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(royale.ACTION_FIELDS) + ["fly"])},
    optional={"to": _json, "dice": _json, "target": _json, "take": _json,
              "fall_to": _json, "active": _json, "reserve": _json, "cell": _json,
              "set_aside": _json})


def _midgame():
    # A position with a duel, a card underfoot, set-aside cards and a dead player.
    return royale.new_game({}, 3, {
        "map": [{"cell": [0, 0], "card": "C9"}, {"cell": [1, 0], "card": "SK"}],
        "players": [{"id": "red", "cell": [0, 0], "active": ["H3", "SA", "DJ"],
                     "reserve": ["C5"]},
                    {"id": "blue", "cell": [0, 0], "active": ["HQ"]},
                    {"id": "green", "cell": [1, 0], "alive": False}]})


@settings(max_examples=200, deadline=None)
@given(st.one_of(_actions, _json))
def test_validate_never_raises_and_a_refused_action_changes_nothing(action):
    state = _midgame()
    problem = royale.validate(state, action)
    assert problem is None or isinstance(problem, IllegalAction)
    if problem is not None:
        check_rejected_changes_nothing(royale, state, action)
    else:
        royale.apply(state, action)


def test_a_damaged_save_is_refused_in_words():
    data = royale.to_dict(_midgame())
    del data["players"]
    try:
        royale.from_dict(data)
    except ScenarioError as e:
        assert e.field == "state"
    else:
        raise AssertionError("a save without players was accepted")
    try:
        royale.from_dict({"game": "storybook"})
    except ScenarioError as e:
        assert "Battle Royale" in e.message
    else:
        raise AssertionError("a Storybook save was accepted")
