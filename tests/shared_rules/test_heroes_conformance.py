"""Battle Royale with hero teams against the conformance kit: random games to the end in both
modes, and every contract check at every step of a few games."""

import pytest

from conformance import check_random_games, check_rejected_changes_nothing
from shared_rules import canon, heroes, playout
from shared_rules.engine import Match
from shared_rules.errors import IllegalAction, ScenarioError

VARIANTS = {
    "royale": {"max_turns": 80},
    "royale_4p_no_diagonals": {"players": 4, "team_size": 2, "diagonal_moves": False,
                               "map": "the_old_mill", "max_turns": 80},
    "royale_3p_bent_shots": {"players": 3, "ranged_lines": "path", "map": "river_ford",
                             "max_turns": 80},
    "ctf": {"mode": "ctf", "max_turns": 80},
    "ctf_river_bonus": {"mode": "ctf", "map": "river_ford", "bonus_cards": True,
                        "max_turns": 80},
}


@pytest.mark.parametrize("variant,games", [("royale", 25), ("royale_4p_no_diagonals", 8),
                                           ("royale_3p_bent_shots", 8), ("ctf", 30),
                                           ("ctf_river_bonus", 12)])
def test_random_games_end_and_replay(variant, games):
    finished = check_random_games("heroes", VARIANTS[variant], range(games), max_actions=20000)
    assert finished == games


@pytest.mark.parametrize("variant,seed", [("royale", 3), ("ctf_river_bonus", 4),
                                          ("royale_3p_bent_shots", 1)])
def test_every_step_keeps_the_contract(variant, seed):
    # Per step: save/load, copy, undo, rejected actions, completeness of legal_actions, no leak.
    options = dict(VARIANTS[variant], max_turns=8)
    assert check_random_games("heroes", options, [seed], deep=True) == 1


def test_random_games_reach_every_ending_and_every_kind_of_event():
    seen = set()
    reasons = set()

    def note(state, action, events):
        seen.update(ev["type"] for ev in events)
    for options in ({"max_turns": 100}, {"mode": "ctf", "bonus_cards": True, "max_turns": 100}):
        for seed in range(10):
            state, n = playout.random_game("heroes", options, seed, on_step=note)
            reasons.add(state.end_reason)
    assert {"last_standing", "flag_home", "turn_limit"} <= reasons
    for kind in ("rolled_off", "roll_off_tied", "picked", "teams_complete", "plays_first",
                 "movement_rolled", "moved", "battle", "damage", "defence_awaited",
                 "card_played", "card_turned_over", "healed", "defeated", "bonus_rolled",
                 "bonus_drawn", "bonus_discarded", "flag_captured", "flag_moved",
                 "flag_released", "respawned", "game_over"):
        assert kind in seen, kind


def test_views_never_show_the_deck_or_another_players_bonus_cards():
    s = heroes.new_game({}, 5, {"characters": [
        {"id": "robin_hood", "seat": "red", "cell": [3, 0]},
        {"id": "the_giant", "seat": "blue", "cell": [3, 6]}],
        "hands": {"red": ["golden_shield"], "blue": ["flying_carpet"]}})
    for seat in [None, "red", "blue"]:
        text = canon.dumps(heroes.view(s, seat))
        for card in s.deck:
            assert '"%s"' % card not in text
        assert ('"golden_shield"' in text) == (seat == "red")
        assert ('"flying_carpet"' in text) == (seat == "blue")
        assert heroes.view(s, seat)["hand_sizes"] == {"red": 1, "blue": 1}
        assert "rng" not in heroes.view(s, seat)


def test_undo_is_refused_after_dice_and_allowed_after_a_move():
    match = Match("heroes", {}, 3, {"characters": [
        {"id": "robin_hood", "seat": "red", "cell": [3, 0]},
        {"id": "the_giant", "seat": "blue", "cell": [3, 3]}], "roll": 3})
    match.apply({"type": "move", "character": "robin_hood", "to": [3, 1]})
    assert match.can_undo()
    match.undo()
    assert match.state.heroes["robin_hood"]["cell"] == 3
    match.apply({"type": "play_card", "character": "robin_hood", "card": "longbow_attack",
                 "target": "the_giant", "dice": {"red": 1, "white": 6}})
    assert not match.can_undo()



def _refused_checked_first_actions(state):
    """Every action of a type apply plays without a copy (heroes.CHECKED_FIRST) that the state
    refuses now: each of the action space's, and each legal one spoilt at its last check (a
    flag put down on the mover's own cell, a path one step too long, a die of 7, a character
    laid down on a cell it may not use)."""
    out = []
    for a in heroes.action_space(state):
        if a["type"] not in heroes.CHECKED_FIRST:
            continue
        out.append(a)
        if heroes.validate(state, a) is not None:
            continue
        if "to" in a:
            out.append(dict(a, flag_to=a["to"]))
            out.append(dict([(k, a[k]) for k in a if k != "to"], path=[a["to"]] * 8))
        if a["type"] == "attack" or "target" in a:
            out.append(dict(a, dice={"red": 7, "white": 1}))
            out.append(dict(a, dice={"red": 3, "white": {"nobody": 2}}))
            out.append(dict(a, respawn_to={a.get("target", "nobody"): [3, 3]}))
    out.append({"type": "roll_move", "die": 7})
    return [a for a in out if heroes.validate(state, a) is not None]


@pytest.mark.parametrize("variant,seed", [("royale", 2), ("ctf_river_bonus", 5),
                                          ("royale_4p_no_diagonals", 1)])
def test_a_refused_move_attack_card_roll_or_end_of_turn_changes_nothing(variant, seed):
    # Those types are applied without a copy of the state: every check must come first.
    options = dict(VARIANTS[variant], max_turns=8)
    refused = set()
    step = 0

    def check(state, action, events):
        nonlocal step
        step += 1
        if step % 8 == 0 and state.status == "ongoing":
            for bad in _refused_checked_first_actions(state):
                check_rejected_changes_nothing(heroes, state, bad)
                refused.add(heroes.validate(state, bad).code)
    playout.random_game("heroes", options, seed, on_step=check)
    assert {"unreachable", "no_flag", "too_far", "bad_dice", "not_adjacent"} <= refused, refused
    assert ("bad_respawn" if variant.startswith("ctf") else "bad_field") in refused



def test_a_refused_heal_changes_nothing():
    # Random games rarely reach a heal: a wounded team, a full one, an enemy in reach.
    state = heroes.new_game({}, 2, {"characters": [
        {"id": "fairy_godmother", "seat": "red", "cell": [3, 3], "health": 5},
        {"id": "tin_woodman", "seat": "red", "cell": [4, 3], "health": 10},
        {"id": "rumpelstiltskin", "seat": "red", "cell": [2, 3]},
        {"id": "the_giant", "seat": "blue", "cell": [3, 4]}], "roll": 3})
    refused = set()
    for bad in _refused_checked_first_actions(state):
        check_rejected_changes_nothing(heroes, state, bad)
        refused.add(heroes.validate(state, bad).code)
    assert {"full_health", "bad_target", "out_of_range"} <= refused, refused
    assert heroes.validate(state, {"type": "play_card", "character": "fairy_godmother",
                                   "card": "wand_of_kindness", "target": "tin_woodman"}) is None


# ---------------------------------------------------------------- bad input, fuzzed

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 8) | st.sampled_from(
        ["red", "blue", "robin_hood", "the_giant", "longbow_attack", "golden_shield",
         "quick_feet", "white", "", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "to", "dice", "target", "red", "white", "character", "card",
                         "cell", "path", "flag_to", "respawn_to", "robin_hood"]), inner,
        max_size=4),
    max_leaves=12)
_actions = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(heroes.ACTION_FIELDS) + ["fly"])},
    optional=dict((k, _json) for k in ("to", "dice", "target", "character", "card", "cell",
                                       "path", "flag_to", "respawn_to", "attacker", "die")))


def _midgame():
    # Capture the Flag: a carrier next to the flag, a guard, a lying character, cards in hand.
    return heroes.new_game({"mode": "ctf", "bonus_cards": True}, 3, {
        "characters": [
            {"id": "robin_hood", "seat": "red", "cell": [1, 5], "face_down": ["greenwood_cover"]},
            {"id": "the_giant", "seat": "red", "cell": [3, 4]},
            {"id": "hop_o_my_thumb", "seat": "blue", "cell": [3, 2]},
            {"id": "fairy_godmother", "seat": "blue", "cell": [5, 6], "state": "down",
             "health": 0}],
        "flags": [{"team": "blue", "cell": [2, 6], "carrier": "robin_hood"}],
        "hands": {"red": ["golden_shield"], "blue": ["flying_carpet"]}, "roll": 2})


@settings(max_examples=200, deadline=None)
@given(st.one_of(_actions, _json))
def test_validate_never_raises_and_a_refused_action_changes_nothing(action):
    state = _midgame()
    problem = heroes.validate(state, action)
    assert problem is None or isinstance(problem, IllegalAction)
    if problem is not None:
        check_rejected_changes_nothing(heroes, state, action)
    else:
        heroes.apply(state, action)


def test_a_damaged_save_is_refused_in_words():
    data = heroes.to_dict(_midgame())
    del data["heroes"]
    with pytest.raises(ScenarioError) as e:
        heroes.from_dict(data)
    assert e.value.field == "state"
    with pytest.raises(ScenarioError) as e:
        heroes.from_dict({"game": "royale"})
    assert "heroes" in e.value.message
