"""The Fairytale Games table interpreter: tokens stepped over the map, location cards laid as
they are discovered, the Sundial's event card, quests opened, cards laid on each seat's card
reader, the two dice and the choices made with a seat's buttons or its reader's pad become
actions, or mismatches in words; bad input changes nothing.

Pure: observations are fed by hand, as the session feeds them from the tiles.
"""

from host import games
from host.games.fairytale.interpreter import FairytaleTable
from host.games.fairytale.places import BOSS, CARD, EASY, EVENTS, INN, SEAT, TOKEN
from shared_rules import fairytale as ft
from shared_rules.engine import Match
from table_helpers import apply, lay_on_reader, lay_out

# The battle deck, top first: p1 then p2 draw five each when they fight, then p3 and p4.
BATTLE = ["heavy_1", "weak_1", "venom_1", "block_1", "heal_1",
          "block_2", "parry_1", "heavy_2", "weak_2", "spell_1",
          "heavy_3", "weak_3", "block_3", "dodge_1", "heal_2",
          "block_4", "heavy_4", "weak_4", "parry_2", "cure_1"]
FOUR = {"players": [
    {"seat": "p1", "character": "captain_hook", "cell": [2, 3]},
    {"seat": "p2", "character": "red", "cell": [2, 3]},
    {"seat": "p3", "character": "alice", "cell": [4, 3]},
    {"seat": "p4", "character": "mowgli", "cell": [4, 3]}],
    "map": [{"cell": [2, 3], "location": "emerald_city"},
            {"cell": [4, 3], "location": "sherwood_forest"}],
    "decks": {"battle": BATTLE, "locations": ["murky_swamp", "pirate_cove", "poppy_field"]},
    "event": "harvest_moon", "turn": "p1", "day": 1}
HOOK = TOKEN + "captain_hook"


def table_for(setup=FOUR, seed=3):
    match = Match("fairytale", {"players": len(setup["players"])}, seed, setup)
    table = FairytaleTable(match, hide_window_ms=1000)
    lay_out(table)
    assert table.reconcile(0) is None and table.mismatches == []
    return match, table


def lift(table, cell, item):
    table.observe_items(cell, [i for i in table.observed.get(cell, []) if i != item])


def put(table, cell, item):
    table.observe_items(cell, table.observed.get(cell, []) + [item])


def messages(table):
    return " ".join(m.message for m in table.mismatches)


def unchanged(match, before):
    """Nothing was applied: the same actions, the same state."""
    from shared_rules import canon
    return canon.dumps(ft.to_dict(match.state)) == before


def snapshot(match):
    from shared_rules import canon
    return canon.dumps(ft.to_dict(match.state))


# ---------------------------------------------------------------- the map

def test_a_token_lifted_and_put_on_a_neighbouring_explored_cell_is_a_step():
    match, table = table_for()
    lift(table, (2, 3), HOOK)
    assert table.reconcile(0) is None and table.busy() and table.mismatches == []
    assert "Captain Hook's token is in hand" in table.progress()["text"]
    put(table, INN, HOOK)
    assert table.reconcile(0) == {"type": "step", "seat": "p1", "to": [3, 3]}


def test_a_location_card_laid_on_the_cell_stepped_onto_is_the_discovery_either_way_round():
    """"Every space you move towards, you will reveal another location card": the card read
    is the outcome (any card of the location deck), the token's step the move."""
    match, table = table_for()
    put(table, (1, 3), CARD + "pirate_cove")            # not the deck's top card: any will do
    assert table.reconcile(0) is None and table.mismatches == []
    assert "Now put Captain Hook's token on [1, 3]" in table.progress()["text"]
    lift(table, (2, 3), HOOK)
    put(table, (1, 3), HOOK)
    action = table.reconcile(0)
    assert action == {"type": "step", "seat": "p1", "to": [1, 3], "cards": ["pirate_cove"]}
    events = apply(match, table, action)
    assert any(e["type"] == "discovered" or e.get("location") == "pirate_cove"
               for e in events) or match.state.cells[3 * 7 + 1] == "pirate_cove"
    assert table.reconcile(0) is None and table.mismatches == [] and not table.catching_up
    # The token first, then the card.
    match, table = table_for()
    lift(table, (2, 3), HOOK)
    put(table, (2, 2), HOOK)
    assert table.reconcile(0) is None and table.mismatches == []
    assert "Lay the top location card face up on [2, 2]" in table.progress()["text"]
    put(table, (2, 2), CARD + "murky_swamp")
    assert table.reconcile(0) == {"type": "step", "seat": "p1", "to": [2, 2],
                                  "cards": ["murky_swamp"]}


def test_a_location_card_laid_on_a_cell_not_next_to_the_mover_is_refused_and_nothing_applied():
    match, table = table_for()
    before = snapshot(match)
    put(table, (5, 5), CARD + "murky_swamp")
    assert table.reconcile(0) is None
    assert [m.code for m in table.mismatches] == ["lone_card"]
    assert messages(table) == ("A location is discovered by stepping onto it: Murky Swamp was "
                               "laid on [5, 5], which is not next to Captain Hook's token on "
                               "[2, 3]. Lift it off.")
    assert table.mismatches[0].cells == [(5, 5)]
    assert unchanged(match, before)
    lift(table, (5, 5), CARD + "murky_swamp")           # lifted: nothing lost
    assert table.reconcile(0) is None and table.mismatches == []


def test_a_token_put_down_two_cells_away_is_refused_and_nothing_applied():
    match, table = table_for()
    before = snapshot(match)
    lift(table, (2, 3), HOOK)
    put(table, (4, 3), HOOK)                            # two cells east, over the Inn
    assert table.reconcile(0) is None
    assert messages(table) == ("You move one step at a time, to a location next to yours. "
                               "Put Captain Hook's token back on [2, 3].")
    assert set(table.mismatches[0].cells) == {(2, 3), (4, 3)}
    lift(table, (4, 3), HOOK)
    put(table, (2, 5), HOOK)                            # two away, onto unexplored land
    assert table.reconcile(0) is None
    assert messages(table) == ("You move one step at a time, to a location next to yours. "
                               "Put Captain Hook's token back on [2, 3].")
    lift(table, (2, 5), HOOK)
    put(table, (2, 3), HOOK)
    assert table.reconcile(0) is None and table.mismatches == []
    assert unchanged(match, before)


def test_a_token_of_another_player_moved_is_put_back():
    match, table = table_for()
    lift(table, (4, 3), TOKEN + "alice")
    put(table, (4, 4), TOKEN + "alice")
    assert table.reconcile(0) is None
    assert messages(table) == "Alice's token belongs on [4, 3], not [4, 4]: move it there."


def test_the_sundial_flips_the_day_by_laying_the_event_card_on_the_event_reader():
    setup = dict(FOUR)
    setup.pop("event")                                  # the Sundial flips first
    match, table = table_for(setup)
    assert match.state.clock == "flip" and table.reconcile(0) is None
    put(table, EVENTS, CARD + "blood_moon")
    assert table.reconcile(0) == {"type": "flip_event", "seat": "p1", "cards": ["blood_moon"]}
    apply(match, table, {"type": "flip_event", "seat": "p1", "cards": ["blood_moon"]})
    assert match.state.event == "blood_moon"
    assert table.reconcile(0) is None and table.mismatches == []


def test_an_event_card_not_in_the_deck_is_refused():
    setup = dict(FOUR)
    setup.pop("event")
    setup["decks"] = dict(FOUR["decks"], events=["blood_moon", "crows"])
    match, table = table_for(setup)
    put(table, EVENTS, CARD + "cold_snap")
    assert table.reconcile(0) is None
    assert messages(table) == ("Cold Snap is not in the event deck (it was dealt out of this "
                               "game, or flipped before): lift it off the event deck's reader.")


def test_a_quest_laid_on_its_piles_reader_at_the_dragon_inn_is_opened():
    setup = dict(FOUR, players=[dict(FOUR["players"][0], cell=[3, 3])] + FOUR["players"][1:])
    match, table = table_for(setup)
    put(table, EASY, CARD + "fishing_trip")
    action = table.reconcile(0)
    assert action == {"type": "open_quest", "seat": "p1", "quest": "fishing_trip"}
    apply(match, table, action)
    # The card goes into the player's hand: lying on the reader until lifted, it is no news.
    assert table.reconcile(0) is None and table.mismatches == []
    lift(table, EASY, CARD + "fishing_trip")
    assert table.reconcile(0) is None and table.mismatches == []
    put(table, BOSS, CARD + "monster_hunter")
    assert table.reconcile(0) is None
    # (A quest taken goes into its player's hand: the table does not name it aloud.)
    assert messages(table) == "That quest card is of the medium pile: lay it on the medium " \
        "quests' reader."


# ---------------------------------------------------------------- the seats' readers

def battles(table_match):
    match, table = table_match
    apply(match, table, {"type": "battle", "seat": "p1", "target": "p2"})
    apply(match, table, {"type": "battle", "seat": "p3", "target": "p4"})
    assert table.reconcile(0) is None
    assert ft.actors(match.state) == ["p1", "p3"]
    return match, table


def test_two_battles_at_once_each_seat_read_for_itself():
    """While two pairs fight, both attackers lay cards on their own readers: each reader is
    read for its seat, and neither play is mixed with the other."""
    match, table = battles(table_for())
    assert lay_on_reader(table, 1, [CARD + "heavy_1", CARD + "venom_1"], 0) is None
    assert lay_on_reader(table, 3, [CARD + "weak_3"], 200) is None
    assert table.mismatches == []
    # Still for the window: each play is read, the first seat's first.
    first = table.reconcile(1100)
    assert first == {"type": "attack", "seat": "p1", "card": "heavy_1", "target": "p2",
                     "with": ["venom_1"]}
    apply(match, table, first)
    second = table.reconcile(1300)
    assert second == {"type": "attack", "seat": "p3", "card": "weak_3", "target": "p4"}
    apply(match, table, second)
    # The cards played lie on the readers until lifted: no news, and never played again.
    assert table.reconcile(5000) is None and table.mismatches == []
    # Each defender answers (and p1, the Sundial, may flip the new day's event).
    assert ft.actors(match.state) == ["p1", "p2", "p4"]
    assert lay_on_reader(table, 2, [CARD + "block_2"], 5000) is None
    assert table.reconcile(6100) == {"type": "defend", "seat": "p2", "card": "block_2"}


def test_without_a_phone_holds_on_the_reader_choose_which_traits_pay_then_a_tap_plays():
    """"Which traits pay a cost" is the player's choice: laid and left, a card pays the usual
    way; a hold goes to the next way to pay (the terminal and the log say which), and the
    play then waits for the tap, however long the player thinks."""
    match, table = battles(table_for())
    lay_on_reader(table, 1, [CARD + "weak_1"], 0)
    usual = table.reconcile(1100)
    assert usual == {"type": "attack", "seat": "p1", "card": "weak_1", "target": "p2"}
    match, table = battles(table_for())
    traits = match.state.players["p1"]["traits"]
    lay_on_reader(table, 1, [CARD + "weak_1"], 0)
    assert "paying 1 " in table.progress()["text"]
    assert table.seat_gesture(1, "hold", 300) is None
    notes, _ = table.take_said()
    other = [t for t in ("intelligence", "strength", "willpower", "magic", "persuasion")
             if traits[t]][1]
    assert notes == ["Player 1's reader: attack with Weak Attack at Player 2, paying 1 %s (tap "
                     "to play it)." % other.capitalize()]
    assert table.reconcile(60000) is None       # held: it waits for the tap
    assert "once they tap it" in table.progress()["text"]
    played = table.seat_gesture(1, "tap", 61000)
    assert played == {"type": "attack", "seat": "p1", "card": "weak_1", "target": "p2",
                      "pay": {other: 1}}
    assert ft.validate(match.state, played) is None


def test_a_seats_tap_on_its_reader_plays_its_cards_at_once():
    match, table = battles(table_for())
    lay_on_reader(table, 1, [CARD + "weak_1"], 0)
    assert table.seat_gesture(1, "tap", 10) == {"type": "attack", "seat": "p1",
                                                "card": "weak_1", "target": "p2"}


def test_a_battle_card_laid_on_another_seats_reader_is_refused_and_nothing_applied():
    match, table = battles(table_for())
    before = snapshot(match)
    lay_on_reader(table, 3, [CARD + "heavy_1"], 0)      # p1's card, on p3's reader
    assert table.reconcile(1100) is None
    assert messages(table) == ("Heavy Attack is in Player 1's hand, not Player 3's: it is "
                               "played from Player 1's card reader. Lift it off Player 3's "
                               "card reader.")
    assert table.mismatches[0].cells == [(SEAT, 3)]
    assert unchanged(match, before)
    lay_on_reader(table, 3, [], 1200)
    assert table.reconcile(1300) is None and table.mismatches == []


def test_a_card_of_another_game_is_refused_on_the_map_and_on_a_reader():
    match, table = table_for()
    before = snapshot(match)
    put(table, (2, 3), "storybook:the_crocodile")
    assert table.reconcile(0) is None
    assert messages(table) == ("That piece (the crocodile) is not a piece of Fairytale Games: "
                               "take it off [2, 3].")
    lift(table, (2, 3), "storybook:the_crocodile")
    assert table.reconcile(0) is None and table.mismatches == []
    table.observe_seat_items(1, ["heroes-card:axe_attack"])
    assert table.reconcile(0) is None
    assert messages(table) == ("That piece (axe attack) is not a card of Fairytale Games: take "
                               "it off Player 1's card reader.")
    assert unchanged(match, before)


def test_a_card_that_is_no_play_now_is_refused_in_the_rules_words():
    match, table = battles(table_for())
    lay_on_reader(table, 1, [CARD + "block_1"], 0)     # a defence, on an attack turn
    assert table.reconcile(1100) is None
    assert messages(table).startswith("Block cannot be played now: ")
    assert messages(table).endswith("Lift it off Player 1's card reader.")


def test_a_play_that_takes_dice_waits_for_them_in_the_tray():
    """A Heal card: "a die's worth of traits": the tray's pockets light, the die is read."""
    match, table = battles(table_for())
    lay_on_reader(table, 1, [CARD + "heal_1"], 0)
    assert table.reconcile(1100) is None and table.throw is not None
    assert table.pockets_wanted() == [0] and table.busy()
    assert "Player 1: throw a die into the tray" in table.progress()["text"]
    assert table.dice(0, "die:1:5", None, 1200) == {"type": "play", "seat": "p1",
                                                   "card": "heal_1", "dice": [5]}


# ---------------------------------------------------------------- choices

def test_the_seat_buttons_end_the_attack_and_roll_for_the_enemy():
    match, table = battles(table_for())
    assert table.button("p1", "end_attack") == {"type": "end_attack", "seat": "p1"}
    # A choice from the wrong seat: p2 is not attacking now.
    assert table.button("p2", "end_attack") is None
    notes, refusals = table.take_said()
    assert refusals == [([], "It is not Player 2's move now.")]


def test_a_choice_from_the_wrong_seat_is_refused_and_nothing_applied():
    match, table = battles(table_for())
    before = snapshot(match)
    # The pad of p4's reader, who is waiting for p3's attack.
    assert table.seat_gesture(4, "tap", 0) is None
    _notes, refusals = table.take_said()
    assert refusals == [([(SEAT, 4)], "Player 4 has no choice to make now.")]
    # The phone: an action of p1's sent from p2's page is not p2's to make.
    game = games.table_game("fairytale")
    assert not game.acts_for(match.state, "p2", {"type": "end_attack", "seat": "p1"})
    assert game.acts_for(match.state, "p1", {"type": "end_attack", "seat": "p1"})
    assert unchanged(match, before)


def test_holds_on_an_empty_reader_walk_the_choices_and_a_tap_makes_one():
    match, table = battles(table_for())
    options = [words for words, _a in table.choices("p1")]
    assert options[0] == "end the attack" and "flee the battle" in options
    assert table.seat_gesture(1, "hold", 0) is None
    notes, _ = table.take_said()
    assert notes == ["Player 1's reader: %s (tap to choose it)." % options[1]]
    chosen = table.choices("p1")[1][1]
    if chosen["type"] == "flee":      # a flight is thrown: two dice
        assert table.seat_gesture(1, "tap", 10) is None and table.pockets_wanted() == [0, 1]
    else:
        assert table.seat_gesture(1, "tap", 10) == chosen


def test_a_flight_is_a_button_then_two_dice():
    match, table = battles(table_for())
    assert table.button("p1", "flee") is None
    assert table.pockets_wanted() == [0, 1]
    assert table.dice(0, "die:1:6", None, 0) is None
    assert table.dice(1, "die:2:2", None, 0) == {"type": "flee", "seat": "p1", "dice": [6, 2]}


def test_dice_still_lying_from_the_last_throw_are_lit_to_throw_again():
    """The last throw's dice lie in both pockets: the next throw lights them (take them out
    and throw again), never a tray that waits with nothing lit."""
    match, table = battles(table_for())
    table.button("p1", "flee")
    table.dice(0, "die:1:6", None, 0)
    assert table.dice(1, "die:2:2", None, 0)["type"] == "flee"
    table.cancel_throw()
    assert table.button("p1", "flee") is None
    assert table.pockets_wanted() == [0, 1]
    assert table.dice(0, None, None, 10) is None and table.dice(1, None, None, 10) is None
    assert table.dice(0, "die:1:3", None, 20) is None
    assert table.dice(1, "die:2:4", None, 20) == {"type": "flee", "seat": "p1", "dice": [3, 4]}


# ---------------------------------------------------------------- the start, and the engine's moves

def test_a_character_card_laid_at_the_start_is_chosen_then_its_token_goes_on_the_inn():
    """Every seat chooses at once, laying its character card on its reader; then the book's
    "Place all character tokens ... on the Dragon Inn" is what the table must show before
    anything else is read."""
    match = Match("fairytale", {"players": 2}, 3)
    table = FairytaleTable(match, hide_window_ms=1000)
    lay_out(table)
    assert table.reconcile(0) is None and table.mismatches == []
    assert ft.actors(match.state) == ["p1", "p2"]
    lay_on_reader(table, 2, [CARD + "red"], 0)
    lay_on_reader(table, 1, [CARD + "captain_hook"], 100)
    first = table.reconcile(1050)
    assert first == {"type": "choose", "seat": "p2", "character": "red"}
    apply(match, table, first)
    second = table.reconcile(1200)
    assert second == {"type": "choose", "seat": "p1", "character": "captain_hook"}
    apply(match, table, second)
    assert table.catching_up
    assert table.reconcile(1300) is None
    assert sorted(m.message for m in table.mismatches) == [
        "Put Captain Hook's token on the Dragon Inn [3, 3].",
        "Put Red's token on the Dragon Inn [3, 3]."]
    put(table, INN, HOOK)
    put(table, INN, TOKEN + "red")
    assert table.reconcile(1400) is None and table.mismatches == [] and not table.catching_up
    # The character cards chosen lie on the readers until lifted, quietly.
    assert table.spent[(SEAT, 1)] == {CARD + "captain_hook"}


def test_the_dragon_inn_reads_ten_tokens_and_its_card():
    """A 10-player start: the Inn's cell holds its card and ten tokens (its tile's four
    readers report them as one slot), and the table matches the game."""
    match = Match("fairytale", {"players": 10}, 3)
    for q in match.state.seats:
        choice = [a for a in ft.legal_actions(match.state) if a["seat"] == q][0]
        match.apply(choice)
    table = FairytaleTable(match)
    lay_out(table)
    assert len(table.observed[INN]) == 11
    assert table.reconcile(0) is None and table.mismatches == []


def test_two_dice_are_read_in_pocket_order_whichever_settles_first():
    """The tray's pockets report one by one, in any order: a throw of two dice is read once
    both have settled, pocket 1's first."""
    match, table = battles(table_for())
    table.button("p1", "flee")
    assert table.dice(1, "die:2:3", None, 0) is None
    assert table.throw.values == []
    assert table.dice(0, "die:1:5", None, 0) == {"type": "flee", "seat": "p1", "dice": [5, 3]}
