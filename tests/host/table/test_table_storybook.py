"""The Storybook table interpreter: what the sensors see becomes actions or a mismatch."""

from host.games.storybook.interpreter import StorybookTable
from shared_rules.engine import Match

CAT, RABBIT, CROC, STARKEY = "the_cheshire_cat", "the_white_rabbit", "the_crocodile", \
    "gentleman_starkey"


def table_for(board, hands=None, turn="hero"):
    setup = {"board": [{"card": c, "cell": list(cell), "owner": o, "facing": f, "face_up": up}
                       for c, cell, o, f, up in board],
             "hands": hands or {"hero": 3, "villain": 3}, "turn": turn}
    match = Match("storybook", {"mode": "physical"}, 1, setup)
    table = StorybookTable(match)
    for cell, entry in match.state.board.items():
        table.observe(cell, [entry[0]])
    assert table.reconcile(0) is None and table.mismatches == []
    return match, table


def test_a_placed_card_is_played_when_no_double_tap_follows():
    match, table = table_for([(CROC, (3, 3), "villain", "S", True)])
    table.observe((2, 3), [CAT])
    assert table.reconcile(1000) is None  # waiting: a double tap would make it a Hide
    assert table.tick(1000 + table.hide_window_ms) == {"type": "play", "card": CAT,
                                                        "cell": [2, 3]}


def test_a_double_tap_right_after_placing_hides_the_card():
    match, table = table_for([(CROC, (3, 3), "villain", "S", True)])
    table.observe((2, 3), [CAT])
    table.reconcile(1000)
    assert table.gesture((2, 3), "double", 1300) == {"type": "hide", "card": CAT,
                                                    "cell": [2, 3]}


def test_a_bots_play_carried_out_is_applied_at_once_without_the_hide_window():
    match, table = table_for([(CROC, (3, 3), "villain", "S", True)])
    table.expect_bot_move({"type": "play", "card": CAT, "cell": [2, 3]}, 0)
    table.observe((2, 3), [CAT])
    assert table.reconcile(1000) == {"type": "play", "card": CAT, "cell": [2, 3]}


def test_a_bots_hide_waits_for_its_double_tap_however_long_it_takes():
    match, table = table_for([(CROC, (3, 3), "villain", "S", True)])
    table.expect_bot_move({"type": "hide", "card": CAT, "cell": [2, 3]}, 0)
    table.observe((2, 3), [CAT])
    assert table.reconcile(1000) is None
    assert table.tick(1000 + 10 * table.hide_window_ms) is None   # no Play by the clock
    assert table.gesture((2, 3), "double", 20000) == {"type": "hide", "card": CAT,
                                                     "cell": [2, 3]}


def test_a_card_other_than_the_bots_move_still_waits_the_hide_window():
    match, table = table_for([(CROC, (3, 3), "villain", "S", True)])
    table.expect_bot_move({"type": "hide", "card": RABBIT, "cell": [2, 3]}, 0)
    table.observe((2, 3), [CAT])
    assert table.reconcile(1000) is None
    assert table.tick(1000 + table.hide_window_ms) == {"type": "play", "card": CAT,
                                                        "cell": [2, 3]}


def test_a_card_where_the_rules_do_not_allow_it_is_a_mismatch():
    match, table = table_for([(CROC, (3, 3), "villain", "S", True)])
    table.observe((6, 6), [CAT])
    assert table.reconcile(0) is None
    assert [m.code for m in table.mismatches] == ["not_adjacent"]
    assert table.mismatches[0].cells == [(6, 6)]
    assert "Lift" in table.mismatches[0].message
    table.observe((6, 6), [])
    assert table.reconcile(10) is None and table.mismatches == []


def test_an_opponents_card_cannot_be_played():
    match, table = table_for([(CAT, (3, 3), "hero", "N", True)])
    table.observe((3, 4), [CROC])
    table.reconcile(0)
    assert [m.code for m in table.mismatches] == ["not_your_card"]


def test_lift_and_place_elsewhere_is_a_slide():
    match, table = table_for([(CAT, (0, 3), "hero", "N", True),
                              (CROC, (5, 3), "villain", "S", True)])
    table.observe((0, 3), [])
    assert table.reconcile(0) is None
    # In the player's hand on its way: a move in progress (bots wait), not a mismatch.
    assert table.mismatches == [] and table.lifting == ((0, 3), CAT) and table.busy()
    table.observe((4, 3), [CAT])
    assert table.reconcile(10) == {"type": "slide", "cell": [0, 3], "dir": "E"}
    assert table.lifting is None


def test_a_card_lifted_out_of_its_players_turn_is_a_mismatch():
    match, table = table_for([(CAT, (0, 3), "hero", "N", True),
                              (CROC, (5, 3), "villain", "S", True)])
    table.observe((5, 3), [])   # the villain's card, in the hero's turn
    assert table.reconcile(0) is None
    assert [m.code for m in table.mismatches] == ["lifted"] and table.lifting is None
    table.observe((5, 3), [CROC])
    assert table.reconcile(10) is None and table.mismatches == []


def test_a_slide_to_the_wrong_cell_is_refused():
    match, table = table_for([(CAT, (0, 3), "hero", "N", True),
                              (CROC, (5, 3), "villain", "S", True)])
    table.observe((0, 3), [])
    table.observe((2, 3), [CAT])
    assert table.reconcile(0) is None
    assert table.mismatches[0].code == "bad_slide"
    assert table.mismatches[0].cells == [(0, 3), (2, 3)]


def test_an_unexpected_lift_says_put_it_back():
    match, table = table_for([(CAT, (2, 3), "hero", "N", True),
                              (CROC, (3, 3), "villain", "S", True)])
    table.observe((3, 3), [])
    table.reconcile(0)
    assert table.mismatches[0].code == "lifted" and "Crocodile" in table.mismatches[0].message


def test_a_captured_card_still_on_the_table_must_be_lifted():
    match, table = table_for([(CAT, (2, 3), "hero", "N", True),
                              (CROC, (3, 3), "villain", "S", True),
                              (RABBIT, (4, 3), "hero", "E", True)])
    match.apply({"type": "end_turn"})  # the Crocodile is captured, so is the White Rabbit
    assert table.reconcile(0) is None
    codes = sorted((m.code, m.cells[0]) for m in table.mismatches)
    assert codes == [("captured_on_table", (3, 3)), ("captured_on_table", (4, 3))]
    table.observe((3, 3), [])
    assert table.reconcile(5) is None   # one lifted, the other still says why it must go
    assert [(m.code, m.message) for m in table.mismatches] == [
        ("captured_on_table", "The White Rabbit was captured: lift it off [4, 3].")]
    table.observe((4, 3), [])
    assert table.reconcile(10) is None and table.mismatches == []


def test_a_card_read_on_its_cell_and_where_it_slides_is_on_its_way():
    # A card slid across two readers (or put down before its own reader saw it go) is seen
    # on both cells for a moment: a move in progress, not "already on the table".
    match, table = table_for([(CAT, (0, 3), "hero", "N", True),
                              (CROC, (5, 3), "villain", "S", True)])
    table.observe((4, 3), [CAT])
    assert table.reconcile(0) is None
    assert table.mismatches == [] and table.lifting == ((0, 3), CAT) and table.busy()
    table.observe((0, 3), [])
    assert table.reconcile(10) == {"type": "slide", "cell": [0, 3], "dir": "E"}


def test_a_card_read_on_its_cell_and_on_a_cell_no_slide_reaches_is_lifted_off_that_one():
    match, table = table_for([(CAT, (0, 3), "hero", "N", True),
                              (CROC, (5, 3), "villain", "S", True)])
    table.observe((2, 3), [CAT])   # a slide east stops next to the Crocodile, at [4, 3]
    assert table.reconcile(0) is None and table.lifting is None
    assert [(m.code, m.message) for m in table.mismatches] == [
        ("card_in_play", "The Cheshire Cat lies on [0, 3]: lift it off [2, 3].")]


def test_an_unknown_tag_blocks_until_removed():
    match, table = table_for([(CAT, (2, 3), "hero", "N", True)])
    table.observe((2, 4), [], problems=["tag 04aa is not enrolled."])
    table.reconcile(0)
    assert table.mismatches[0].code == "bad_tag"
    assert table.button("hero", "end_turn") is None  # nothing is applied meanwhile
    table.observe((2, 4), [])
    table.reconcile(10)
    assert table.button("hero", "end_turn") == {"type": "end_turn"}


def test_taps_and_holds():
    match, table = table_for([(CAT, (2, 3), "hero", "N", True),
                              (CROC, (3, 3), "villain", "S", False)])
    assert table.gesture((3, 3), "tap", 0) == {"type": "reveal", "cell": [3, 3]}
    assert table.gesture((2, 3), "hold", 0) == {"type": "spin", "cell": [2, 3], "dir": "cw"}
    assert table.gesture((2, 3), "double", 0) == {"type": "spin", "cell": [2, 3], "dir": "ccw"}
    assert table.gesture((4, 4), "tap", 0) is None


def test_seat_buttons_act_only_for_the_seat_whose_turn_it_is():
    match, table = table_for([(CAT, (2, 3), "hero", "N", True)])
    assert table.button("villain", "draw") is None
    assert table.button("hero", "draw") == {"type": "draw"}
