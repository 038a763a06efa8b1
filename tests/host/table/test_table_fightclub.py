"""The Fight Club table interpreter: what the readers see becomes actions or mismatches.

Cells (host/games/fightclub/layout.toml): p1's wagons [1, 0] Wheelbarrow .. [4, 0] War Wagon,
p2's [0, 5] .. [0, 2]; the contract area [2..5, 4] then [2..5, 3]; the Market [1..5, 2]
then [1..5, 1].
"""

from host.games.fightclub import interpreter as ft
from host.games.fightclub.interpreter import FightclubTable
from shared_rules.engine import Match

P1_BARROW, P1_CART, P1_HORSE = (1, 0), (2, 0), (3, 0)
P2_BARROW = (0, 5)
MARKET = ft.MARKET_CELLS
# L1-01 wants 1, 1, 5 (1 gold); L1-02 1, 3, 10; L1-03 1, 2, 7; L1-04 2, 6, 7 (1 gold).
AREA = ["L1-01", "L1-02", "L1-03", "L1-04"]


def table_for(hand=("c01-01", "c01-02", "c05-01", "c07-01", "c09-01"), wagons=None,
              market=("c02-01", "c03-01", "c04-01", "c06-01"), gold=0, p2_wagons=None,
              contract_deck=("L2-01", "L1-05")):
    setup = {"market": list(market), "contracts": [{"id": c} for c in AREA],
             "contract_deck": list(contract_deck),
             "players": {"p1": {"hand": list(hand), "gold": gold,
                                "wagons": wagons or {"wheelbarrow": []}},
                         "p2": {"hand": ["c08-01", "c08-02"],
                                "wagons": p2_wagons or {"wheelbarrow": []}}},
             "turn": "p1", "first": "p1"}
    match = Match("fightclub", {"players": 2}, 3, setup)
    table = FightclubTable(match)
    for cell, items in table.expected().items():
        table.observe(cell, items)
    assert table.reconcile(0) is None and table.mismatches == []
    return match, table


def apply(match, table, action, now):
    events = match.apply(action)
    table.after(events)
    table.reconcile(now)
    return events


def test_the_layout_has_four_wagons_a_seat_eight_contract_cells_and_ten_market_cells():
    assert len(ft.WAGON_CELL) == 16 and len(ft.CONTRACT_CELLS) == 8
    assert len(ft.MARKET_CELLS) == 10
    assert ft.WAGON_CELL[("p1", "wheelbarrow")] == P1_BARROW
    assert ft.WAGON_CELL[("p3", "war_wagon")] == (2, 6)


def test_cards_put_on_a_wagon_are_one_load_once_the_table_is_still():
    match, table = table_for()
    table.observe(P1_BARROW, ["c01-01"])
    assert table.reconcile(1000) is None and table.busy()
    table.observe(P1_BARROW, ["c01-01", "c05-01"])
    assert table.reconcile(1500) is None      # the second card starts the wait again
    assert table.tick(1500 + table.hide_window_ms - 1) is None
    assert table.tick(1500 + table.hide_window_ms) == {
        "type": "load", "wagon": "wheelbarrow", "cards": ["c01-01", "c05-01"]}


def test_a_tap_on_the_wagons_pad_reads_the_group_at_once():
    match, table = table_for()
    table.observe(P1_BARROW, ["c01-01", "c05-01"])
    assert table.reconcile(1000) is None
    assert table.gesture(P1_BARROW, "tap", 1200) == {
        "type": "load", "wagon": "wheelbarrow", "cards": ["c01-01", "c05-01"]}
    assert table.gesture((0, 0), "tap", 1300) is None       # nothing going down


def test_any_card_of_the_number_stands_for_the_one_in_the_hand():
    # The hand holds c01-01 and c01-02; the person put down another 1 and the 5.
    match, table = table_for()
    table.observe(P1_BARROW, ["c01-09", "c05-03"])
    table.reconcile(0)
    assert table.tick(table.hide_window_ms) == {
        "type": "load", "wagon": "wheelbarrow", "cards": ["c01-01", "c05-01"]}


def test_the_bots_load_is_read_at_once():
    match, table = table_for()
    bot = {"type": "load", "wagon": "wheelbarrow", "cards": ["c01-01", "c01-02", "c05-01"]}
    table.expect_bot_move(bot, 0)
    table.observe(P1_BARROW, ["c01-01", "c01-02"])
    assert table.reconcile(10) is None
    table.observe(P1_BARROW, ["c01-01", "c01-02", "c05-01"])
    assert table.reconcile(20) == bot


def test_a_fourth_card_on_a_wheelbarrow_is_refused_in_words():
    match, table = table_for(hand=("c01-01", "c01-02", "c05-01", "c07-01", "c09-01"))
    table.observe(P1_BARROW, ["c01-01", "c01-02", "c05-01", "c07-01"])
    table.reconcile(0)
    assert table.tick(table.hide_window_ms) is None
    words = " ".join(m.message for m in table.mismatches)
    assert "Wheelbarrow" in words and "[1, 0]" in words
    assert table.mismatches[0].code == "not_allowed"


def test_a_card_not_in_the_hand_is_refused():
    match, table = table_for()
    table.observe(P1_BARROW, ["c10-01"])
    table.reconcile(0)
    table.tick(table.hide_window_ms)
    assert "You do not hold a 10" in table.mismatches[0].message


def test_a_card_on_another_seats_wagon_is_a_mismatch_naming_the_cell():
    match, table = table_for()
    table.observe(P2_BARROW, ["c01-01"])
    assert table.reconcile(0) is None
    assert [m.code for m in table.mismatches] == ["wagon_extra"]
    assert "Blue (west)'s Wheelbarrow [0, 5]" in table.mismatches[0].message


def test_a_card_on_a_cell_of_no_zone_is_a_mismatch():
    match, table = table_for()
    table.observe((0, 0), ["c01-01"])
    assert table.reconcile(0) is None
    assert table.mismatches[0].code == "wrong_cell"
    assert "Nothing goes on [0, 0]" in table.mismatches[0].message


def test_lifting_the_wagon_and_the_contract_completes_it_and_the_new_contract_is_asked():
    match, table = table_for(hand=("c09-01",),
                             wagons={"wheelbarrow": ["c01-01", "c01-02", "c05-01"]})
    l101 = table.contract_cells()["L1-01"]
    table.observe(P1_BARROW, [])
    assert table.reconcile(0) is None and table.mismatches == []   # the contract comes next
    table.observe(l101, [])
    action = table.reconcile(10)
    assert action == {"type": "complete", "contract": "L1-01", "wagon": "wheelbarrow"}
    apply(match, table, action, 20)
    assert match.state.players["p1"].gold == 1
    # The engine drew L2-01 (the top of the deck): the table must show it now, where the
    # completed one lay.
    assert [m.code for m in table.mismatches] == ["contract_missing"]
    assert 'Put the contract "Gnome Chimera" (3, 4, 8, 10) on %s' % ft.at(l101) in \
        table.mismatches[0].message
    assert table.mismatches[0].cells == [l101]
    table.observe(l101, ["L2-01"])
    assert table.reconcile(30) is None and table.mismatches == []


def test_the_contract_lifted_first_waits_for_the_wagon():
    match, table = table_for(hand=("c09-01",),
                             wagons={"wheelbarrow": ["c01-01", "c01-02", "c05-01"]})
    l101 = table.contract_cells()["L1-01"]
    table.observe(l101, [])
    assert table.reconcile(0) is None and table.mismatches == [] and table.busy()
    table.observe(P1_BARROW, ["c01-01"])
    assert table.reconcile(100) is None
    table.observe(P1_BARROW, [])
    assert table.reconcile(200)["type"] == "complete"


def test_a_contract_lifted_without_a_wagon_to_complete_it_is_put_back():
    match, table = table_for()
    l102 = table.contract_cells()["L1-02"]
    table.observe(l102, [])
    assert table.reconcile(0) is None
    assert table.mismatches[0].code == "contract_missing"
    assert "Put the contract \"Griffin Cyborg\"" in table.mismatches[0].message


def test_cards_moved_between_own_wagons_are_a_move():
    match, table = table_for(wagons={"wheelbarrow": ["c01-01", "c05-01"], "hand_cart": []},
                             hand=("c07-01",))
    table.observe(P1_BARROW, ["c01-01"])
    table.observe(P1_CART, ["c05-01"])
    table.reconcile(0)
    assert table.tick(table.hide_window_ms) == {
        "type": "move", "from": "wheelbarrow", "to": "hand_cart", "cards": ["c05-01"]}


def test_a_move_card_by_card_is_no_mismatch_halfway():
    match, table = table_for(wagons={"wheelbarrow": ["c01-01", "c05-01", "c09-01"],
                                     "hand_cart": []}, hand=("c07-01",))
    table.observe(P1_BARROW, ["c01-01"])
    table.observe(P1_CART, ["c05-01"])
    assert table.reconcile(0) is None and table.mismatches == []    # the 9 is in the hand
    table.observe(P1_CART, ["c05-01", "c09-01"])
    table.reconcile(100)
    assert table.tick(100 + table.hide_window_ms) == {
        "type": "move", "from": "wheelbarrow", "to": "hand_cart", "cards": ["c05-01", "c09-01"]}


def test_cards_lifted_off_a_wagon_are_a_discard():
    match, table = table_for(wagons={"wheelbarrow": ["c01-01", "c09-01"]}, hand=("c07-01",))
    table.observe(P1_BARROW, ["c01-01"])
    table.reconcile(0)
    assert table.tick(table.hide_window_ms) == {
        "type": "discard", "from": "wheelbarrow", "cards": ["c09-01"]}


def test_a_market_exchange_is_cards_put_in_and_taken_out():
    # A 5 from the hand for the 2 and the 3 of the Market.
    match, table = table_for()
    where = dict((item, cell) for cell in MARKET for item in table.observed.get(cell, ()))
    table.observe(MARKET[5], ["c05-01"])
    assert table.reconcile(0) is None and table.mismatches == []   # half of it, so far
    table.observe(where["c02-01"], [])
    table.observe(where["c03-01"], [])
    table.reconcile(100)
    assert table.tick(100 + table.hide_window_ms) == {
        "type": "exchange", "give": ["c05-01"], "take": ["c02-01", "c03-01"]}


def test_an_exchange_of_unequal_sums_is_refused():
    match, table = table_for()
    where = dict((item, cell) for cell in MARKET for item in table.observed.get(cell, ()))
    table.observe(MARKET[5], ["c07-01"])
    table.observe(where["c02-01"], [])
    table.observe(where["c03-01"], [])
    table.reconcile(0)
    assert table.tick(table.hide_window_ms) is None
    assert table.mismatches[0].code == "not_allowed"


def test_the_market_step_is_one_card_put_into_the_market():
    match, table = table_for()
    apply(match, table, {"type": "end_actions"}, 0)
    if match.state.phase == "draw":
        apply(match, table, {"type": "draw_up"}, 0)
    assert match.state.phase == "market"
    card = match.state.players["p1"].hand[0]
    table.observe(MARKET[7], ["c%02d-77" % int(card[1:3])])
    assert table.reconcile(10) == {"type": "to_market", "card": card}


def test_holding_a_contracts_pad_reserves_it():
    match, table = table_for(gold=2)
    cell = table.contract_cells()["L1-03"]
    assert table.gesture(cell, "hold", 0) == {"type": "reserve", "contract": "L1-03"}


def test_reserving_without_gold_is_refused_in_words():
    match, table = table_for(gold=0)
    cell = table.contract_cells()["L1-03"]
    assert table.gesture(cell, "hold", 0) is None
    notes, refusals = table.take_said()
    assert refusals and refusals[0][0] == [cell]


def test_seat_buttons_end_the_actions_buy_a_wagon_and_an_action():
    match, table = table_for(gold=3)
    assert table.button("p2", "end_turn") is None           # not p2's turn
    assert table.button("p1", "wagon") == {"type": "buy_wagon", "wagon": "hand_cart"}
    assert table.button("p1", "action") == {"type": "buy_action"}
    assert table.button("p1", "end_turn") == {"type": "end_actions"}


def test_a_hand_cart_bought_asks_for_its_new_contract_before_anything_is_read():
    match, table = table_for(gold=3)
    apply(match, table, {"type": "buy_wagon", "wagon": "hand_cart"}, 0)
    assert len(match.state.area) == 5
    assert [m.code for m in table.mismatches] == ["contract_missing"]
    # A card put on a wagon meanwhile is not read as a load: the table catches up first.
    table.observe(P1_BARROW, ["c01-01"])
    assert table.reconcile(10) is None and table.tick(10 + table.hide_window_ms) is None
    table.observe(P1_BARROW, [])
    new = match.state.area[-1]
    table.observe(ft.CONTRACT_CELLS[4], [new])
    assert table.reconcile(20) is None and table.mismatches == []


def test_a_completed_contract_left_on_the_table_is_asked_off():
    match, table = table_for()
    table.observe(ft.CONTRACT_CELLS[6], ["L3-01"])
    table.reconcile(0)
    assert table.mismatches[0].code == "contract_extra"
    assert "not in play" in table.mismatches[0].message


def test_tags_of_another_game_are_refused():
    match, table = table_for()
    table.observe_items(P1_BARROW, ["pawn:red"])
    table.reconcile(0)
    assert table.mismatches[0].code == "bad_tag"
    assert "not a Fight Club card" in table.mismatches[0].message


def test_the_lights_show_each_seats_gold_its_wagons_and_a_reservation():
    from host import lights
    from host.games.fightclub.adapter import GOLD, SEAT_COLOUR, FightclubGame
    match, table = table_for(gold=3)
    game = FightclubGame()
    apply(match, table, {"type": "reserve", "contract": "L1-03"}, 0)
    scenes = game.scenes(match.state, table, list(ft.ZONES))
    assert scenes[P1_BARROW][2] == lights.value(GOLD, 2)     # 3 gold, 1 paid to reserve
    assert scenes[P1_BARROW][0] == lights.pulse(SEAT_COLOUR["p1"], 1600, 40)  # p1's turn
    assert scenes[table.contract_cells()["L1-03"]][0] == lights.solid(SEAT_COLOUR["p1"])
    assert scenes[(0, 0)] == lights.DARK_CELL
    table.observe((0, 0), ["c01-01"])
    table.reconcile(10)
    scenes = game.scenes(match.state, table, list(ft.ZONES))
    assert scenes[(0, 0)] == lights.all_edges(lights.blink(lights.MISMATCH, 500))
    text = game.render(match.state, scenes, table.mismatches, colour=False)
    assert "Red: 2 gold" in text and "The Market: 2, 3, 4 and 6." in text
    # In words: no list brackets, no "0g" (the terminal reads as the web table does).
    assert "[" not in text.replace("[0, 0]", "") and "0g" not in text
    assert "Nothing goes on [0, 0]" in text


def test_a_button_pressed_while_a_group_goes_down_leaves_the_group_to_be_read():
    match, table = table_for(gold=3)
    table.observe(P1_BARROW, ["c01-01"])
    table.reconcile(0)
    apply(match, table, {"type": "buy_action"}, 100)
    assert table.mismatches == []
    table.observe(P1_BARROW, ["c01-01", "c05-01"])
    table.reconcile(200)
    assert table.tick(200 + table.hide_window_ms) == {
        "type": "load", "wagon": "wheelbarrow", "cards": ["c01-01", "c05-01"]}
