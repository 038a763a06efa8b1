"""Fairytale Games: The Battle Royale against the conformance kit: random games for 1, 2, 4, 6
and 10 players in every mode (standard, adventurer, tournament, alchemist) end with a winner or
the universal loss and replay from their record; every contract check at every step of a few
short games.

Thousands of games, and the counts of their endings: tools/fairytale_games.py (BENCHMARKS.md).
CI plays about 70 random games here (the kit's replay check doubles each)."""

import pytest

from conformance import check_no_leak, check_random_games, check_rejected_changes_nothing
from shared_rules import canon, playout
from shared_rules import fairytale as ft

VARIANTS = {
    "solo": {"players": 1},
    "two": {"players": 2},
    "four": {"players": 4},
    "six": {"players": 6},
    "ten": {"players": 10},
    "adventurer_four": {"players": 4, "mode": "adventurer"},
    "adventurer_six": {"players": 6, "mode": "adventurer"},
    "tournament_ten": {"players": 10, "mode": "tournament"},
    "alchemist_two": {"players": 2, "alchemist": True},
    "alchemist_six": {"players": 6, "alchemist": True},
}

# The ways a game ends: the reasons with a winner (Epilogue 1: the Battle Royale won; 3 and 4:
# an End Game quest) and those of the universal loss (Epilogue 2: everyone loses).
WINNING = {"last_standing": 1, "kills": 1, "hunters_killed": 1}
LOSING = ("no_events", "day_limit", "all_out")


def check_ending(s):
    """A finished game ends with a winner or the universal loss, in the book's words."""
    assert s.status == "finished", "still playing on day %d" % s.day
    if s.end_reason in LOSING:
        assert s.winners == [] and s.epilogue == 2, (s.end_reason, s.winners)
    elif s.end_reason == "end_quest":
        assert s.winners and s.epilogue in (3, 4), (s.winners, s.epilogue)
    else:
        assert WINNING.get(s.end_reason) == s.epilogue, (s.end_reason, s.epilogue)
        assert len(s.winners) >= 1 and set(s.winners) <= set(s.seats), s.winners
    return s.end_reason


def reasons_of(variant, games, deep=False, **extra):
    reasons = []
    options = dict(VARIANTS[variant], **extra)
    finished = check_random_games(
        "fairytale", options, range(games), deep=deep, max_actions=20000,
        on_end=lambda seed, match: reasons.append(check_ending(match.state)))
    assert finished == games
    return reasons


@pytest.mark.parametrize("variant,games", [
    ("solo", 24), ("two", 12), ("four", 5), ("six", 3), ("ten", 1), ("adventurer_four", 3),
    ("adventurer_six", 2), ("tournament_ten", 2), ("alchemist_two", 8), ("alchemist_six", 2)])
def test_random_games_end_and_replay(variant, games):
    reasons = reasons_of(variant, games)
    assert len(reasons) == games


@pytest.mark.parametrize("variant,seed,days", [
    ("solo", 3, 6), ("two", 1, 4), ("adventurer_four", 2, 3), ("alchemist_two", 4, 4),
    ("six", 5, 2), ("tournament_ten", 1, 1)])
def test_every_step_keeps_the_contract(variant, seed, days):
    # Per step: save/load, copy, undo, rejected actions, legal actions all valid, no leak,
    # actors. A day limit keeps the games short (the universal loss ends them).
    options = dict(VARIANTS[variant], max_days=days)
    reasons = []
    assert check_random_games("fairytale", options, [seed], deep=True, max_actions=20000,
                              on_end=lambda sd, m: reasons.append(check_ending(m.state))) == 1
    assert reasons in (["day_limit"], ["no_events"], ["all_out"], ["last_standing"],
                       ["kills"], ["hunters_killed"], ["end_quest"])


def test_a_peek_at_the_bonus_deck_is_shown_to_the_peeker_only():
    # Found by the conformance kit: the Spyglass shows its user the top bonus card, and
    # `secrets` counted that card (still in the face-down deck) as hidden from the user too.
    s = ft.new_game({"players": 2}, 1, {
        "players": [{"character": "captain_hook", "hand": ["spyglass"]},
                    {"character": "robin_hood"}],
        "event": "quiet_day", "decks": {"bonus": ["snow", "magic_lamp", "steel_sword"]}})
    ft.apply(s, {"type": "equip", "seat": "p1", "item": "spyglass",
                 "character": "captain_hook"})
    ft.apply(s, {"type": "use", "seat": "p1", "card": "spyglass"})
    assert '"snow"' in canon.dumps(ft.view(s, "p1"))
    for seat in ("p2", None):
        assert '"snow"' not in canon.dumps(ft.view(s, seat))
        assert "snow" in ft.secrets(s, seat)
    assert "snow" not in ft.secrets(s, "p1") and "magic_lamp" in ft.secrets(s, "p1")
    check_no_leak(ft, s)


def test_random_games_reach_the_endings_and_many_kinds_of_event():
    seen = set()
    reasons = set()

    def note(state, action, events):
        seen.update(ev["type"] for ev in events)
    for options, seeds in (({"players": 1}, range(6)), ({"players": 2}, range(6)),
                           ({"players": 4, "mode": "adventurer"}, range(2))):
        for seed in seeds:
            state, n = playout.random_game("fairytale", options, seed, on_step=note)
            reasons.add(check_ending(state))
            # The end state's views hide nothing of what the referee's record calls secret.
            check_no_leak(ft, state)
    assert "no_events" in reasons
    for kind in KINDS:
        assert kind in seen, kind


KINDS = ("day_begins", "turn_begins", "turn_ends", "discovered", "bonus_drawn",
         "battle_begins", "damage", "left_battle", "equipped", "used", "game_over")


def test_a_refused_action_changes_nothing_mid_game():
    state, n = playout.random_game("fairytale", {"players": 4}, 7, max_actions=150)
    for bad in ({"type": "step", "seat": "p1", "to": [9, 9]},
                {"type": "attack", "seat": "p2", "card": "no_such_card", "target": "p3"},
                {"type": "equip", "seat": "p3", "item": 7},
                {"type": "burn", "seat": "p9", "trait": "magic"},
                {"type": "choose", "seat": "p1", "character": "captain_hook"},
                {"seat": "p1"}):
        check_rejected_changes_nothing(ft, state, bad)
    assert state.status == "ongoing" and n == 150


def test_events_are_data_no_later_action_changes():
    # Found by the golden playthroughs: "alliance_formed" named the party's own list of members,
    # so a later departure rewrote the event (MicroPython's replay, which encodes each event at
    # once, printed another list than CPython's).
    log = []
    playout.random_game("fairytale", {"players": 4, "alchemist": True, "max_days": 8}, 3,
                        on_step=lambda s, a, events: log.append((events, canon.dumps(events))))
    kinds = set(e["type"] for events, text in log for e in events)
    assert "alliance_formed" in kinds and "left_battle" in kinds
    for events, text in log:
        assert canon.dumps(events) == text


def test_a_decision_waits_on_its_deciders_not_on_a_conflicts_causer():
    # Found by a random game: p2 caused a Conflict (the decision waits on the Ally Party, p1 and
    # p4) and drew a character; legal_actions offered p2 "ignore", which was refused as if p2
    # had the Conflict to decide first.
    s = ft.new_game({"players": 4}, 1, {
        "players": [{"character": "captain_hook"}, {"character": "count_dracula"},
                    {"character": "red"}, {"character": "robin_hood"}],
        "event": "quiet_day", "turn": "p2"})
    s.pending = [{"seat": "p2", "causer": "p2", "seats": ["p1", "p4"], "kind": "conflict",
                  "enemy": "wolf", "rewards": [0], "faced": [], "ignored": []},
                 {"seat": "p2", "kind": "character", "card": "snow"}]
    mine = [a for a in ft.legal_actions(s) if a["seat"] == "p2"]
    assert {"type": "ignore", "seat": "p2"} in mine
    for a in mine:
        assert ft.validate(s, a) is None, a
    ft.apply(s, {"type": "ignore", "seat": "p2"})
    assert [d["kind"] for d in s.pending] == ["conflict"]
