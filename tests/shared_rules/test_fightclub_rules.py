"""Fairy Tale Fight Club, rule by rule, as the book says it (and as the engine's docstring
decides where the book is unclear). Portable: runs under MicroPython too."""

import pytest

from shared_rules import fightclub
from shared_rules.engine import Match
from shared_rules.errors import IllegalAction, ScenarioError

CAT = fightclub.load_catalog()


def c(v, n):
    """A creature card: c(6, 1) is the first 6."""
    return fightclub.creature_id(v, n)


def position(players=2, hands=None, wagons=None, gold=None, contracts=None, deck=None,
             contract_deck=None, market=None, turn="p1", actions_left=2, solo=False,
             done=None, **options):
    """A scenario position: the creature deck is fixed (`deck`, the next drawn first; the
    rest of the 75 go to the discard pile), as is the contract deck."""
    seats = fightclub.SEATS[:players]
    setup = {"players": {}, "turn": turn, "actions_left": actions_left,
             "creature_deck": deck if deck is not None else [],
             "market": market if market is not None else [c(1, 12), c(2, 11), c(3, 10),
                                                          c(4, 9)],
             "contracts": [{"id": k} for k in (contracts or ["L1-01", "L1-02", "L1-03",
                                                             "L1-04"])],
             "contract_deck": contract_deck if contract_deck is not None else
             ["L1-05", "L1-06", "L1-07"]}
    for x in seats:
        row = {"hand": (hands or {}).get(x, []), "gold": (gold or {}).get(x, 0)}
        if wagons and x in wagons:
            row["wagons"] = wagons[x]
        if done and x in done:
            row["contracts"] = done[x]
        setup["players"][x] = row
    opts = {"players": players}
    if solo:
        opts["solo"] = True
    opts.update(options)
    return fightclub.new_game(opts, 1, setup)


def code_of(s, action):
    problem = fightclub.validate(s, action)
    return problem.code if problem is not None else None


def events_of(events, kind):
    return [e for e in events if e["type"] == kind]


def values(cards):
    return sorted([fightclub.value(x) for x in cards])


# ---------------------------------------------------------------- the cards


def test_the_creature_deck_holds_the_books_75_cards():
    """"There are twelve 1's, eleven 2's, ten 3's, nine 4's, eight 5's, seven 6's, six 7's,
    five 8's, four 9's and three 10's.\""""
    assert len(CAT.creature_ids) == 75
    for v, count in ((1, 12), (2, 11), (3, 10), (4, 9), (5, 8), (6, 7), (7, 6), (8, 5),
                     (9, 4), (10, 3)):
        assert len([x for x in CAT.creature_ids if fightclub.value(x) == v]) == count, v


def test_the_catalog_has_35_25_15_contracts_and_24_events():
    """"35 Level 1 cards, 25 Level 2 cards and 15 Level 3 cards, as well as 24 "Fight Club /
    Event!" (Event) Cards." "3 creatures is a level I card. 4 creatures are a level II. 5
    creatures are level III.\""""
    assert [len(CAT.pools[k]) for k in (1, 2, 3)] == [35, 25, 15]
    for cid in CAT.contracts:
        info = CAT.contracts[cid]
        assert len(info["creatures"]) == info["level"] + 2
        assert info["flag"] in fightclub.FLAGS
    assert len(CAT.events) == 24
    names = [CAT.events[e]["name"] for e in CAT.event_ids]
    assert "Bounty Burglar" in names
    kinds = [CAT.events[e]["kind"] for e in CAT.event_ids]
    for kind in ("find_gold", "destroy_wheelbarrow", "contract_gold", "pass_cards"):
        assert kind in kinds
    assert "All players find one gold." in [CAT.events[e]["text"] for e in CAT.event_ids]
    fights = [CAT.events[e]["fight"] for e in CAT.event_ids]
    for f in fightclub.FIGHTS:
        assert f in fights
    assert None in fights  # "Event! only"


def test_the_wagons_as_the_books_chart():
    w = CAT.wagons
    assert [(x, w[x]["capacity"], w[x]["gold"], w[x]["creature_points"], w[x]["vp"])
            for x in fightclub.WAGONS] == [("wheelbarrow", 3, None, 5, 0),
                                           ("hand_cart", 3, 1, 10, 1),
                                           ("horse_wagon", 4, 2, 15, 3),
                                           ("war_wagon", 5, 3, None, 0)]
    assert w["war_wagon"]["hand_size"] == 6 and w["hand_cart"]["draws_contract"]


def test_a_broken_catalog_is_refused_naming_the_field():
    import json
    with open(fightclub.catalog.data_path("fightclub_cards.json")) as f:
        doc = json.loads(f.read())
    doc["contracts"][3]["creatures"] = [1, 2]
    with pytest.raises(ScenarioError) as err:
        fightclub.Catalog(doc)
    assert err.value.field == "contracts[3].creatures"
    doc["contracts"][3]["creatures"] = [1, 2, 3]
    doc["events"][0]["fight"] = "biggest_nose"
    with pytest.raises(ScenarioError) as err:
        fightclub.Catalog(doc)
    assert err.value.field == "events[0].fight"


# ---------------------------------------------------------------- setup


def level_counts(cards):
    out = [0, 0, 0, 0]
    for k in cards:
        if k in CAT.contracts:
            out[CAT.contracts[k]["level"] - 1] += 1
        else:
            out[3] += 1
    return out


# The book's tables, copied here (not read from the engine): per player count, the
# (Level I, Level II, Level III, Event) cards of the bottom, middle and top sets, and the
# four Level I cards "to the top of the Contract Deck".
BOOK_DECK = {
    1: [(1, 1, 2, 1), (1, 3, 0, 1), (5, 0, 0, 1), (4, 0, 0, 0)],
    2: [(1, 2, 4, 2), (1, 4, 0, 2), (4, 0, 0, 2), (4, 0, 0, 0)],
    3: [(1, 2, 5, 3), (3, 6, 0, 3), (6, 0, 0, 3), (4, 0, 0, 0)],
    4: [(0, 3, 6, 4), (3, 8, 0, 4), (8, 0, 0, 4), (4, 0, 0, 0)],
}


def test_the_contract_deck_by_player_count_20_26_36_44():
    """"Total Cards 20 cards 26 cards 36 cards 44 cards", built bottom, middle, top, then
    "add 4 Level 1 cards to the top", and "put the top four Contract cards face up"."""
    for players, total in ((1, 20), (2, 26), (3, 36), (4, 44)):
        assert sum([sum(row) for row in BOOK_DECK[players]]) == total
        for seed in (10 + players, 99):
            s = fightclub.new_game({"players": players}, seed)
            whole = list(s.contract_deck) + list(reversed(s.area))  # bottom first, top last
            assert len(whole) == total
            start = 0
            for row in BOOK_DECK[players]:
                n = sum(row)
                assert level_counts(whole[start:start + n]) == list(row), (players, row)
                start += n
        # "They should all be Card Level I", with the gold of their coin symbol on them.
        assert len(s.area) == 4
        for cid in s.area:
            assert CAT.contracts[cid]["level"] == 1
            assert s.area_gold[cid] == CAT.contracts[cid]["coins"]


def test_three_players_have_two_level_ii_and_five_level_iii_at_the_bottom():
    """The bottom set for 3 players: "I 1 cards, II 2 cards, III 5 cards, Events 3 cards";
    the middle: "I 3 cards, II 6 cards, Events 3 cards". A deck of the same size with
    another split of Level II and III is not the book's."""
    s = fightclub.new_game({"players": 3}, 5)
    whole = list(s.contract_deck) + list(reversed(s.area))
    assert level_counts(whole[:11]) == [1, 2, 5, 3]
    assert level_counts(whole[11:23]) == [3, 6, 0, 3]
    assert level_counts(whole) == [1 + 3 + 6 + 4, 2 + 6, 5, 3 + 3 + 3]


def test_the_deal_market_hands_and_the_first_player():
    """"put the top four cards face up ... The Market"; "Five Creature cards are dealt to
    each player"; "Player with the highest creature value sum goes first. All other players
    receive one additional card.\""""
    for seed in range(6):
        s = fightclub.new_game({"players": 4}, seed)
        assert len(s.market) == 4
        sums = {}
        for x in s.seats:
            hand = s.players[x].hand
            assert len(hand) == (5 if x == s.first else 6)
            sums[x] = sum([fightclub.value(k) for k in hand])
        assert s.turn == s.first
        assert len(s.deck) == 75 - 4 - 5 - 3 * 6
        assert s.players[s.first].wagons == {"wheelbarrow": [], "hand_cart": None,
                                             "horse_wagon": None, "war_wagon": None}


def test_the_highest_sum_of_the_five_dealt_cards_goes_first():
    """"Player with the highest creature value sum goes first." / "All other players receive
    one additional card." Each other player's first five are its six less the one more card,
    which is at most its highest card: so the first player's five sum to at least each other
    hand's sum less its highest card (and a deal where the lowest sum went first breaks that
    for some of these seeds)."""
    for players in (2, 3, 4):
        for seed in range(12):
            s = fightclub.new_game({"players": players}, seed)
            first = s.players[s.turn].hand
            assert len(first) == 5
            mine = sum([fightclub.value(k) for k in first])
            for x in s.seats:
                if x == s.turn:
                    continue
                hand = s.players[x].hand
                assert len(hand) == 6
                least_five = sum([fightclub.value(k) for k in hand]) - max(
                    [fightclub.value(k) for k in hand])
                assert mine >= least_five, (players, seed, x, mine, least_five)


def test_setup_errors_name_the_field():
    cases = [({"players": {"p3": {}}}, "setup.players.p3"),
             ({"players": {"p1": {"hand": ["c11-01"]}}}, "setup.players.p1.hand[0]"),
             ({"players": {"p1": {"hand": [c(1, 1)]}}, "market": [c(1, 1)]}, "setup.market[0]"),
             ({"players": {"p1": {"wagons": {"wheelbarrow": [c(1, 1), c(1, 2), c(1, 3),
                                                             c(1, 4)]}}}},
              "setup.players.p1.wagons.wheelbarrow"),
             ({"players": {"p1": {"wagons": {"horse_wagon": []}}}},
              "setup.players.p1.wagons.horse_wagon"),
             ({"contracts": [{"id": "L9-99"}]}, "setup.contracts[0].id"),
             ({"turn": "p7"}, "setup.turn"),
             ({"colour": 1}, "setup.colour")]
    for setup, field in cases:
        with pytest.raises(ScenarioError) as err:
            fightclub.new_game({"players": 2}, 1, setup)
        assert err.value.field == field, (setup, err.value.field)
    for options, field in (({"players": 5}, "options.players"),
                           ({"players": 2, "solo": True}, "options.solo"),
                           ({"speed": 1}, "options.speed")):
        with pytest.raises(ScenarioError) as err:
            fightclub.new_game(options, 1)
        assert err.value.field == field


# ---------------------------------------------------------------- wagons


def test_wagons_are_bought_in_order_with_gold_or_creature_points():
    """"Wagons must be purchased in the following order ... Hand cart, Horse wagon, War
    wagon." "To purchase the Hand Cart, spend 1 gold OR 10 or more creature points".\""""
    s = position(hands={"p1": [c(4, 1), c(5, 1), c(9, 1)]}, gold={"p1": 3})
    assert code_of(s, {"type": "buy_wagon", "wagon": "horse_wagon"}) == "wagon_order"
    assert code_of(s, {"type": "buy_wagon", "wagon": "hand_cart",
                       "cards": [c(4, 1), c(5, 1)]}) == "not_enough_points"
    events = fightclub.apply(s, {"type": "buy_wagon", "wagon": "hand_cart",
                                 "cards": [c(4, 1), c(5, 1), c(9, 1)]})
    assert s.players["p1"].wagons["hand_cart"] == [] and s.players["p1"].hand == []
    assert s.players["p1"].gold == 3 and c(9, 1) in s.discard
    # "Immediately draw the top Contract and put it into play": 4 contracts become 5.
    assert events_of(events, "contract_drawn")[0]["contract"] == "L1-05"
    assert len(s.area) == 5
    assert code_of(s, {"type": "buy_wagon", "wagon": "hand_cart"}) == "wagon_owned"
    fightclub.apply(s, {"type": "buy_wagon", "wagon": "horse_wagon"})
    assert s.players["p1"].gold == 1 and s.actions_left == 0
    assert code_of(s, {"type": "buy_wagon", "wagon": "war_wagon"}) == "no_actions_left"


def test_the_horse_wagon_for_15_points_and_the_war_wagon_for_gold_only():
    s = position(hands={"p1": [c(7, 1), c(8, 1)]}, gold={"p1": 3},
                 wagons={"p1": {"wheelbarrow": [], "hand_cart": []}})
    fightclub.apply(s, {"type": "buy_wagon", "wagon": "horse_wagon",
                        "cards": [c(7, 1), c(8, 1)]})
    assert s.players["p1"].wagons["horse_wagon"] == []
    assert code_of(s, {"type": "buy_wagon", "wagon": "war_wagon", "cards": []}) in (
        "no_creature_price", "bad_action")
    fightclub.apply(s, {"type": "buy_wagon", "wagon": "war_wagon"})
    assert s.players["p1"].gold == 0 and fightclub.hand_size(s, "p1") == 6


def test_the_war_wagon_raises_the_hand_size_to_six_at_the_draw_step():
    """"Hand size is increased to six ... This takes effect during the Draw/Discard
    phase.\""""
    deck = [c(1, k) for k in range(1, 8)]
    s = position(hands={"p1": [c(9, 1)]}, gold={"p1": 3}, deck=deck,
                 wagons={"p1": {"wheelbarrow": [], "hand_cart": [], "horse_wagon": []}})
    fightclub.apply(s, {"type": "buy_wagon", "wagon": "war_wagon"})
    fightclub.apply(s, {"type": "end_actions"})
    assert s.phase == "draw"
    fightclub.apply(s, {"type": "draw_up"})
    assert len(s.players["p1"].hand) == 6 and s.phase == "market"


def test_wagon_limits_for_loading_and_moving():
    """"Wagon limits apply." "If there isn't room in the target wagon, you cannot move the
    creature(s)." "you can move ANY of the card(s) from the source wagon".\""""
    hand = [c(1, 1), c(2, 1), c(3, 1), c(4, 1)]
    s = position(hands={"p1": hand}, wagons={"p1": {"wheelbarrow": [c(5, 1)],
                                                    "hand_cart": [c(6, 1), c(7, 1)]}},
                 actions_left=5)
    assert code_of(s, {"type": "load", "wagon": "wheelbarrow",
                       "cards": [c(1, 1), c(2, 1), c(3, 1)]}) == "wagon_full"
    assert code_of(s, {"type": "load", "wagon": "horse_wagon", "cards": [c(1, 1)]}) == \
        "no_such_wagon"
    fightclub.apply(s, {"type": "load", "wagon": "wheelbarrow", "cards": [c(1, 1), c(2, 1)]})
    assert s.players["p1"].wagons["wheelbarrow"] == [c(1, 1), c(2, 1), c(5, 1)]
    assert code_of(s, {"type": "move", "from": "wheelbarrow", "to": "hand_cart",
                       "cards": [c(1, 1), c(2, 1)]}) == "wagon_full"
    fightclub.apply(s, {"type": "move", "from": "wheelbarrow", "to": "hand_cart",
                        "cards": [c(5, 1)]})
    assert s.players["p1"].wagons["hand_cart"] == [c(5, 1), c(6, 1), c(7, 1)]
    assert s.actions_left == 3


def test_discard_a_group_from_hand_or_wagon_and_discard_one_to_draw_one():
    s = position(hands={"p1": [c(1, 1), c(2, 1), c(3, 1)]}, deck=[c(9, 1)],
                 wagons={"p1": {"wheelbarrow": [c(5, 1), c(6, 1)]}}, actions_left=3)
    fightclub.apply(s, {"type": "discard", "from": "hand", "cards": [c(1, 1), c(2, 1)]})
    fightclub.apply(s, {"type": "discard", "from": "wheelbarrow", "cards": [c(6, 1)]})
    assert s.players["p1"].hand == [c(3, 1)]
    assert s.players["p1"].wagons["wheelbarrow"] == [c(5, 1)]
    events = fightclub.apply(s, {"type": "swap_draw", "card": c(3, 1)})
    assert s.players["p1"].hand == [c(9, 1)] and s.actions_left == 0
    assert events_of(events, "creatures_drawn")[0]["count"] == 1


def test_a_destroyed_wheelbarrow_is_bought_back_for_5_points_or_skipped():
    """"If your wheel barrow is destroyed by an event, you do not need to repurchase it
    before buying the next level of wagon." ("5+ Creature Points from hand")"""
    s = position(hands={"p1": [c(2, 1), c(2, 2), c(1, 1)]}, gold={"p1": 1},
                 wagons={"p1": {"wheelbarrow": None}})
    assert code_of(s, {"type": "buy_wagon", "wagon": "wheelbarrow"}) == "no_gold_price"
    assert code_of(s, {"type": "buy_wagon", "wagon": "wheelbarrow",
                       "cards": [c(2, 1), c(2, 2)]}) == "not_enough_points"
    assert code_of(s, {"type": "buy_wagon", "wagon": "hand_cart"}) is None
    fightclub.apply(s, {"type": "buy_wagon", "wagon": "wheelbarrow",
                        "cards": [c(2, 1), c(2, 2), c(1, 1)]})
    assert s.players["p1"].wagons["wheelbarrow"] == []


# ---------------------------------------------------------------- the Market


def test_one_card_for_several_market_cards_of_the_same_sum():
    """"put down a 6 into Market, pick up 1,2,3 or 2,2,2 or 1,5 into hand.\""""
    market = [c(1, 1), c(2, 1), c(2, 2), c(2, 3), c(3, 1), c(5, 1)]
    for take in ([c(1, 1), c(2, 1), c(3, 1)], [c(2, 1), c(2, 2), c(2, 3)], [c(1, 1), c(5, 1)]):
        s = position(hands={"p1": [c(6, 1)]}, market=market)
        fightclub.apply(s, {"type": "exchange", "give": [c(6, 1)], "take": take})
        assert s.players["p1"].hand == sorted(take) and c(6, 1) in s.market
    s = position(hands={"p1": [c(6, 1)]}, market=market)
    assert code_of(s, {"type": "exchange", "give": [c(6, 1)], "take": [c(1, 1), c(2, 1)]}) \
        == "sums_differ"


def test_several_cards_for_one_market_card_of_their_sum():
    """"Put down into Market 1,2,2,3 and pick up an 8 into hand.\""""
    s = position(hands={"p1": [c(1, 1), c(2, 1), c(2, 2), c(3, 1)]}, market=[c(8, 1)])
    fightclub.apply(s, {"type": "exchange", "give": [c(1, 1), c(2, 1), c(2, 2), c(3, 1)],
                        "take": [c(8, 1)]})
    assert s.players["p1"].hand == [c(8, 1)] and values(s.market) == [1, 2, 2, 3]


def test_never_several_for_several_nor_one_for_one():
    """"Do not trade multiple cards for multiple cards in the Market.\""""
    s = position(hands={"p1": [c(1, 1), c(4, 1), c(5, 1)]}, market=[c(2, 1), c(3, 1),
                                                                     c(5, 2)])
    assert code_of(s, {"type": "exchange", "give": [c(1, 1), c(4, 1)],
                       "take": [c(2, 1), c(3, 1)]}) == "several_for_several"
    assert code_of(s, {"type": "exchange", "give": [c(5, 1)], "take": [c(5, 2)]}) == \
        "one_for_one"
    legal = fightclub.legal_actions(s)
    for a in legal:
        if a["type"] == "exchange":
            assert min(len(a["give"]), len(a["take"])) == 1
            assert max(len(a["give"]), len(a["take"])) >= 2


# ---------------------------------------------------------------- contracts


def test_completing_a_contract_takes_it_and_its_gold_and_draws_a_new_one():
    """"match the creatures of a Contract card to the EXACT creatures in one of your
    wagons"; "Take the Contract card and any gold on the card"; "Draw one new Contract
    card". L1-01 wants 1, 1, 5 and carries a coin.\""""
    s = position(wagons={"p1": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)]}}, actions_left=0)
    assert s.area_gold["L1-01"] == 1
    assert code_of(s, {"type": "complete", "contract": "L1-02", "wagon": "wheelbarrow"}) == \
        "no_match"
    events = fightclub.apply(s, {"type": "complete", "contract": "L1-01",
                                 "wagon": "wheelbarrow"})
    p = s.players["p1"]
    assert p.contracts == ["L1-01"] and p.gold == 1 and p.wagons["wheelbarrow"] == []
    assert "L1-01" not in s.area and "L1-05" in s.area and len(s.area) == 4
    assert events_of(events, "contract_completed")[0]["vp"] == 2
    assert values(s.discard[-3:]) == [1, 1, 5]


def test_a_wagon_must_hold_exactly_the_contracts_creatures():
    s = position(wagons={"p1": {"wheelbarrow": [c(1, 1), c(5, 1)]}})
    assert code_of(s, {"type": "complete", "contract": "L1-01", "wagon": "wheelbarrow"}) == \
        "no_match"


def test_an_event_drawn_as_a_replacement_is_resolved_then_drawing_goes_on():
    """"If you draw an Event Card, resolve it immediately. Then draw again until a Contract
    can be replaced." E02: "All players find one gold.\""""
    s = position(wagons={"p1": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)]}},
                 contract_deck=["E02", "L1-05", "L1-06"])
    events = fightclub.apply(s, {"type": "complete", "contract": "L1-01",
                                 "wagon": "wheelbarrow"})
    assert [e["type"] for e in events if e["type"] in ("event_drawn", "gold_gained",
                                                      "contract_drawn")] == \
        ["event_drawn", "gold_gained", "gold_gained", "contract_drawn"]
    assert s.players["p1"].gold == 2 and s.players["p2"].gold == 1
    assert "L1-05" in s.area and s.contract_deck == ["L1-06"]


def test_buying_an_action_for_two_gold_and_reserving_for_one():
    """"Spend 2 Gold coins to purchase another limited action." "Spend 1 Gold coin to
    reserve a maximum of 1 Creature Contract ... You can discard and reserve another".\""""
    s = position(gold={"p1": 3, "p2": 1}, actions_left=0,
                 wagons={"p2": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)]}})
    fightclub.apply(s, {"type": "buy_action"})
    assert s.actions_left == 1 and s.players["p1"].gold == 1
    assert code_of(s, {"type": "buy_action"}) == "not_enough_gold"
    fightclub.apply(s, {"type": "reserve", "contract": "L1-02"})
    assert s.players["p1"].reserved == "L1-02" and s.players["p1"].gold == 0
    s.players["p1"].gold = 1
    events = fightclub.apply(s, {"type": "reserve", "contract": "L1-01"})
    assert events[0]["released"] == "L1-02" and s.players["p1"].reserved == "L1-01"
    # Another player cannot complete the reserved contract.
    s.turn = "p2"
    s.actions_left = 2
    assert code_of(s, {"type": "complete", "contract": "L1-01", "wagon": "wheelbarrow"}) == \
        "reserved"
    assert len(s.area) == 4  # a reserved contract stays among the contracts in play


def gold_in_play(s):
    return s.bank + sum([s.players[x].gold for x in s.seats]) + sum(
        [s.area_gold[k] for k in s.area])


def test_gold_paid_goes_back_to_the_bank():
    """The game has "40 Gold tokens": what a player spends ("spend 1 gold" for the Hand
    Cart, "Spend 2 Gold coins to purchase another limited action", "Spend 1 Gold coin to
    reserve") and what an event takes ("All players pay one gold to the bank", Toll Bridge)
    goes back to the bank, from which coins on contracts and prizes come: the 40 are never
    more nor fewer."""
    s = position(gold={"p1": 7, "p2": 1}, actions_left=1,
                 wagons={"p1": {"wheelbarrow": [c(1, 4), c(3, 3), c(10, 1)]}},
                 contract_deck=["L1-05", "E17", "L1-06", "L1-07"])
    bank = s.bank
    assert gold_in_play(s) == 40
    fightclub.apply(s, {"type": "buy_action"})
    assert s.players["p1"].gold == 5 and s.bank == bank + 2 and gold_in_play(s) == 40
    fightclub.apply(s, {"type": "reserve", "contract": "L1-01"})
    assert s.players["p1"].gold == 4 and s.bank == bank + 3 and gold_in_play(s) == 40
    fightclub.apply(s, {"type": "buy_wagon", "wagon": "hand_cart"})   # draws L1-05, no coin
    assert s.players["p1"].gold == 3 and s.bank == bank + 4 and gold_in_play(s) == 40
    fightclub.apply(s, {"type": "buy_wagon", "wagon": "horse_wagon"})
    assert s.players["p1"].gold == 1 and s.bank == bank + 6 and gold_in_play(s) == 40
    # Completing L1-02 (1, 3, 10; no coin) draws Toll Bridge: both players pay one gold.
    events = fightclub.apply(s, {"type": "complete", "contract": "L1-02",
                                 "wagon": "wheelbarrow"})
    assert [e["amount"] for e in events_of(events, "gold_paid")] == [1, 1]
    assert s.players["p1"].gold == 0 and s.players["p2"].gold == 0
    assert s.bank == bank + 8 and gold_in_play(s) == 40 and "L1-06" in s.area


# ---------------------------------------------------------------- a turn


def test_the_turn_ends_with_draw_up_and_one_creature_to_the_market():
    """"1. Play Actions 2. Draw up/Discard down to max hand size 3. Put one creature card
    into The Market"; "Play goes clockwise.\""""
    s = position(hands={"p1": [c(1, 1), c(2, 1)]}, deck=[c(9, 1), c(9, 2), c(9, 3), c(8, 1)])
    assert code_of(s, {"type": "draw_up"}) == "wrong_phase"
    fightclub.apply(s, {"type": "end_actions"})
    assert code_of(s, {"type": "load", "wagon": "wheelbarrow", "cards": [c(1, 1)]}) == \
        "wrong_phase"
    fightclub.apply(s, {"type": "draw_up"})
    assert values(s.players["p1"].hand) == [1, 2, 9, 9, 9]
    assert code_of(s, {"type": "end_actions"}) == "wrong_phase"
    fightclub.apply(s, {"type": "to_market", "card": c(1, 1)})
    assert c(1, 1) in s.market and len(s.market) == 5
    assert s.turn == "p2" and s.phase == "play" and s.actions_left == 2


def test_discard_down_to_the_hand_size():
    hand = [c(1, k) for k in range(1, 8)]
    s = position(hands={"p1": hand})
    fightclub.apply(s, {"type": "end_actions"})
    assert code_of(s, {"type": "draw_up"}) == "hand_full"
    assert code_of(s, {"type": "discard_down", "cards": hand[:1]}) == "discard_count"
    fightclub.apply(s, {"type": "discard_down", "cards": hand[:2]})
    assert len(s.players["p1"].hand) == 5 and s.phase == "market"


def test_an_empty_creature_deck_is_rebuilt_from_the_market_and_the_discards():
    """"As soon as the creature deck is depleted, shuffle all creatures from the market
    together with the discards. Replace four creature cards into the market face up.\""""
    s = position(hands={"p1": [c(1, 1)]}, deck=[c(9, 1)])
    in_market_or_discard = len(s.market) + len(s.discard)
    events = fightclub.apply(s, {"type": "swap_draw", "card": c(1, 1)})
    assert s.players["p1"].hand == [c(9, 1)]
    assert events_of(events, "creatures_reshuffled")
    assert len(s.market) == 4 and not s.discard
    assert len(s.deck) == in_market_or_discard + 1 - 4


# ---------------------------------------------------------------- events


def test_the_books_bounty_burglar_example():
    """"Player 1 & 2 each show that they have 0 gold. Player 3 has 2 gold and player 4 has 1
    gold. Player 1 & 2 are eliminated from the Fight as they tie. Player 4 wins with 1 gold
    and collects 1 gold as Victor. Then ... "All players pass two....\""""
    hands = {"p1": [c(1, 1), c(1, 2), c(1, 3)], "p2": [c(2, 1), c(2, 2), c(2, 3)],
             "p3": [c(3, 1), c(3, 2)], "p4": [c(4, 1)]}
    # L1-02 (1, 3, 10) carries no coin, so the gold stays as in the book's example.
    s = position(players=4, hands=hands, gold={"p1": 0, "p2": 0, "p3": 2, "p4": 1},
                 wagons={"p1": {"wheelbarrow": [c(1, 4), c(3, 3), c(10, 1)]}},
                 contract_deck=["E01", "L1-05", "L1-06"], deck=[c(7, k) for k in range(1, 7)])
    events = fightclub.apply(s, {"type": "complete", "contract": "L1-02",
                                 "wagon": "wheelbarrow"})
    fight = events_of(events, "fight")[0]
    assert fight["values"] == {"p1": 0, "p2": 0, "p3": 2, "p4": 1}
    assert fight["winner"] == "p4" and s.players["p4"].gold == 2
    # "All players pass two": p1 and p2 choose; p3 and p4 pass all they have.
    assert s.phase == "pass" and fightclub.actor(s, {}) == "p1"
    fightclub.apply(s, {"type": "pass_cards", "cards": [c(1, 1), c(1, 2)]})
    assert fightclub.actor(s, {}) == "p2"
    fightclub.apply(s, {"type": "pass_cards", "cards": [c(2, 1), c(2, 2)]})
    assert s.players["p2"].hand == [c(1, 1), c(1, 2), c(2, 3)]
    assert s.players["p3"].hand == [c(2, 1), c(2, 2)]
    # p4 passed its one card and got two; p1 passed two and got one (p4's): short by one.
    assert s.players["p4"].hand == [c(3, 1), c(3, 2)]
    assert s.players["p1"].hand == [c(1, 3), c(4, 1), c(7, 1)]
    assert s.phase == "play" and "L1-05" in s.area


def test_gold_fight_ties_are_eliminated_as_in_the_book():
    s = position(players=4, gold={"p1": 0, "p2": 0, "p3": 2, "p4": 1}, actions_left=0,
                 wagons={"p1": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)]}},
                 contracts=["L1-02", "L1-03", "L1-04", "L1-06"],
                 contract_deck=["E09", "L1-05"])
    s.area_gold["L1-06"] = 0
    # L1-06 (1, 5, 5) is not matched; use a wagon that matches it.
    s.players["p1"].wagons["wheelbarrow"] = [c(1, 1), c(5, 1), c(5, 2)]
    events = fightclub.apply(s, {"type": "complete", "contract": "L1-06",
                                 "wagon": "wheelbarrow"})
    fight = events_of(events, "fight")[0]
    assert fight["values"] == {"p1": 0, "p2": 0, "p3": 2, "p4": 1}
    assert fight["winner"] == "p4"  # "Player 4 wins with 1 gold and collects 1 gold"
    gains = events_of(events, "gold_gained")
    assert gains[0] == {"type": "gold_gained", "seat": "p4", "amount": 1, "why": "fight"}
    # Then the event for all: "All players find one gold."
    assert [s.players[x].gold for x in s.seats] == [1, 1, 3, 3]


def test_creature_fight_choices_are_hidden_then_ties_eliminated():
    """Lowest creature wins; "Players that tie are eliminated from the Fight then continue
    to check results again for a victor." Creatures "must come from your hand".\""""
    hands = {"p1": [c(2, 1), c(9, 1)], "p2": [c(2, 2)], "p3": [c(6, 1), c(3, 1)]}
    s = position(players=3, hands=hands, deck=[c(8, 1), c(8, 2)],
                 wagons={"p1": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)]}},
                 contract_deck=["E05", "L1-05", "L1-06"])
    fightclub.apply(s, {"type": "complete", "contract": "L1-01", "wagon": "wheelbarrow"})
    assert s.phase == "fight" and fightclub.actor(s, {"type": "fight_card"}) == "p1"
    assert code_of(s, {"type": "fight_card", "card": c(2, 2)}) == "card_not_there"
    assert code_of(s, {"type": "end_actions"}) == "event_choice"
    fightclub.apply(s, {"type": "fight_card", "card": c(2, 1)})
    view = fightclub.view(s, "p2")
    assert c(2, 1) not in str(view) and view["pending"]["chosen"] == ["p1"]
    fightclub.apply(s, {"type": "fight_card", "card": c(2, 2)})
    events = fightclub.apply(s, {"type": "fight_card", "card": c(3, 1)})
    fight = events_of(events, "fight")[0]
    assert fight["values"] == {"p1": 2, "p2": 2, "p3": 3} and fight["winner"] == "p3"
    # The winner of "lowest creature" draws one; the cards stay in the hands.
    assert s.players["p3"].hand == [c(3, 1), c(6, 1), c(8, 1)]
    assert s.players["p1"].hand == [c(2, 1), c(9, 1)]
    assert s.phase == "play" and "L1-05" in s.area


def test_passing_cards_left_and_drawing_when_short():
    """"If there is an event that requires passing cards left/right and you do not have the
    required cards, you only pass what you can. Players that come up short should draw new
    creature cards to replace the ones they have passed." E01 passes two to the left.\""""
    hands = {"p1": [c(1, 1), c(2, 1), c(3, 1)], "p2": [c(9, 1)], "p3": [c(4, 1), c(5, 1)]}
    s = position(players=3, hands=hands, gold={"p1": 1, "p2": 1, "p3": 1},
                 deck=[c(8, 1), c(8, 2)], contract_deck=["E01", "L1-05", "L1-07"],
                 wagons={"p1": {"wheelbarrow": [c(1, 4), c(1, 5), c(5, 2)]}},
                 contracts=["L1-06", "L1-02", "L1-03", "L1-04"])
    s.players["p1"].wagons["wheelbarrow"] = [c(1, 4), c(5, 2), c(5, 3)]
    fightclub.apply(s, {"type": "complete", "contract": "L1-06", "wagon": "wheelbarrow"})
    # Lowest gold: all hold 1 -> all tie, nobody wins. Then p1 chooses two of three; p2 and
    # p3 hold no more than two and pass everything.
    assert s.phase == "pass" and fightclub.actor(s, {}) == "p1"
    assert code_of(s, {"type": "pass_cards", "cards": [c(1, 1)]}) == "pass_count"
    events = fightclub.apply(s, {"type": "pass_cards", "cards": [c(1, 1), c(3, 1)]})
    assert events_of(events, "cards_passed")[0]["counts"] == {"p1": 2, "p2": 1, "p3": 2}
    # p1 -> p2, p2 -> p3, p3 -> p1 ("left" is the next seat in turn order)
    assert s.players["p2"].hand == [c(1, 1), c(3, 1)]
    assert s.players["p1"].hand == [c(2, 1), c(4, 1), c(5, 1)]
    # p3 had 2, passed 2 and got 1: it came up short by one and draws one.
    assert s.players["p3"].hand == [c(8, 1), c(9, 1)]
    assert s.phase == "play"
    # What each seat may see of it: its own pass and what it got, nothing else.
    passed = events_of(events, "cards_passed")[0]
    assert fightclub.event_view(passed, "p2")["received"] == {"p2": [c(1, 1), c(3, 1)]}
    assert fightclub.event_view(passed, "p2")["cards"] == {"p2": [c(9, 1)]}
    assert fightclub.event_view(passed, None)["cards"] == {}
    drawn = events_of(events, "creatures_drawn")[0]
    assert drawn["seat"] == "p3" and drawn["cards"] == [c(8, 1)]
    assert "cards" not in fightclub.event_view(drawn, "p1")
    assert fightclub.event_view(drawn, "p3") == drawn


def test_a_destroyed_wheelbarrow_loses_its_creatures():
    hands = {"p1": [c(9, 1)], "p2": [c(3, 1)]}
    s = position(hands=hands, deck=[c(8, 1)], contract_deck=["E03", "L1-05"],
                 wagons={"p1": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)], "hand_cart": []},
                         "p2": {"wheelbarrow": [c(6, 1)]}})
    fightclub.apply(s, {"type": "move", "from": "wheelbarrow", "to": "hand_cart",
                        "cards": [c(1, 1), c(1, 2), c(5, 1)]})
    fightclub.apply(s, {"type": "complete", "contract": "L1-01", "wagon": "hand_cart"})
    fightclub.apply(s, {"type": "fight_card", "card": c(9, 1)})
    events = fightclub.apply(s, {"type": "fight_card", "card": c(3, 1)})
    assert events_of(events, "fight")[0]["winner"] == "p1"  # highest creature: a gold
    assert s.players["p1"].wagons["wheelbarrow"] is None
    assert s.players["p2"].wagons["wheelbarrow"] is None and c(6, 1) in s.discard


def test_the_coin_symbol_event_puts_gold_on_coin_contracts():
    s = position(wagons={"p1": {"wheelbarrow": [c(1, 2), c(3, 1), c(10, 1)]}},
                 contract_deck=["E06", "L1-05"])
    fightclub.apply(s, {"type": "complete", "contract": "L1-02", "wagon": "wheelbarrow"})
    assert s.area_gold["L1-01"] == 2 and s.area_gold["L1-04"] == 2  # coin contracts
    assert s.area_gold["L1-03"] == 0 and s.area_gold["L1-05"] == 0


# ---------------------------------------------------------------- the end and scoring


def test_the_game_ends_as_soon_as_four_contracts_are_left():
    """"When the last Contract card is played up, the game is in its final rounds. As soon
    as there are only four Contract cards left in play, the game ends immediately.\""""
    s = position(contracts=["L1-01", "L1-02", "L1-03", "L1-04", "L1-05"], contract_deck=[],
                 wagons={"p1": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)],
                                "hand_cart": [c(2, 1), c(6, 1), c(7, 1)]}})
    events = fightclub.apply(s, {"type": "complete", "contract": "L1-01",
                                 "wagon": "wheelbarrow"})
    assert s.status == "finished" and s.end_reason == "four_left"
    assert events[-1]["type"] == "game_over"
    # "No player may claim any of the remaining four Contract cards"
    assert code_of(s, {"type": "complete", "contract": "L1-04", "wagon": "hand_cart"}) == \
        "game_over"
    assert fightclub.legal_actions(s) == []


def test_the_last_contract_drawn_with_four_in_play_ends_the_game():
    s = position(wagons={"p1": {"wheelbarrow": [c(1, 1), c(1, 2), c(5, 1)]}},
                 contract_deck=["L1-05"])
    fightclub.apply(s, {"type": "complete", "contract": "L1-01", "wagon": "wheelbarrow"})
    assert s.status == "finished" and len(s.area) == 4


def test_scoring_contracts_wagons_gold_and_castle_flags():
    """"Add up the victory points on the Contract cards and Wagons. 3 gold coins = 1 VP. A
    set of 3 matching Castle Flag contracts = 3 additional VP. A set of 5 different Castle
    Flag contracts = 3 additional VP. You can use the same Contract to complete both
    Castle Flag sets.\""""
    by_flag = {}
    for cid in CAT.pools[1]:
        by_flag.setdefault(CAT.contracts[cid]["flag"], []).append(cid)
    # three thorn and one of each other flag: one matching set and one different set
    done = by_flag["thorn"][:3] + [by_flag[f][0] for f in fightclub.FLAGS if f != "thorn"]
    s = position(done={"p1": done}, gold={"p1": 7},
                 wagons={"p1": {"wheelbarrow": [], "hand_cart": [], "horse_wagon": []}},
                 contracts=["L2-01", "L2-02", "L2-03", "L2-04"], contract_deck=["L2-05"])
    b = fightclub.score_breakdown(s, "p1")
    assert b["contracts"] == sum([CAT.contracts[k]["vp"] for k in done])
    assert b["wagons"] == 1 + 3 and b["gold"] == 2
    assert b["matching_flags"] == 3 and b["different_flags"] == 3
    assert b["total"] == b["contracts"] + 4 + 2 + 6
    assert fightclub.scores(s)["p1"] == b["total"]


def test_two_matching_flags_are_no_set_three_are_one_six_are_two():
    """"A set of 3 matching Castle Flag contracts = 3 additional VP."""
    thorns = [k for k in sorted(CAT.contracts) if CAT.contracts[k]["flag"] == "thorn"]
    for n, sets in ((1, 0), (2, 0), (3, 1), (4, 1), (5, 1), (6, 2)):
        s = position(done={"p1": thorns[:n]}, contracts=["L3-01", "L3-02", "L3-03", "L3-04"],
                     contract_deck=["L3-05"])
        b = fightclub.score_breakdown(s, "p1")
        assert b["matching_flags"] == 3 * sets, (n, b)
        assert b["different_flags"] == 0
        assert b["total"] == sum([CAT.contracts[k]["vp"] for k in thorns[:n]]) + 3 * sets


def test_ties_go_to_most_gold_then_fewest_contracts_then_nobody():
    """"If there is a tie, most gold wins. If there is still a tie, fewest contracts
    completed wins. If still a tie play again!\""""
    def finished(gold, done):
        s = position(gold=gold, done=done, contracts=["L3-01", "L3-02", "L3-03", "L3-04"],
                     contract_deck=[])
        return s
    # same VP: 2 gold is 0 VP, 1 gold is 0 VP; most gold wins
    s = finished({"p1": 1, "p2": 2}, {"p1": ["L1-01"], "p2": ["L1-03"]})
    assert fightclub.scores(s) == {"p1": 2, "p2": 2} and s.winner == "p2"
    # L1-01 + L1-03 (2 + 2 VP) against L1-02 + ... : one contract of 4 VP is not in level I;
    # two contracts of 2 VP against a 2 VP and gold: build equal VP, equal gold
    s = finished({"p1": 0, "p2": 0}, {"p1": ["L1-01", "L1-03"], "p2": ["L2-02"]})
    assert fightclub.scores(s) == {"p1": 4, "p2": 4} and s.winner == "p2"
    s = finished({"p1": 0, "p2": 0}, {"p1": ["L1-01"], "p2": ["L1-03"]})
    assert s.status == "finished" and s.winner is None


# ---------------------------------------------------------------- solo


def test_solo_lasts_16_rounds_and_ignores_the_fight_club():
    """"Try to complete as many Contracts as possible in 16 rounds of play". "Ignore the
    Fight Club part of the Events, or events that require other players.\""""
    s = position(players=1, solo=True, hands={"p1": [c(1, 1)]},
                 wagons={"p1": {"wheelbarrow": [c(1, 2), c(1, 3), c(5, 1)]}},
                 contract_deck=["E01", "E04", "L1-05", "L1-06"], deck=[c(9, 1)])
    s.players["p1"].gold = 2
    events = fightclub.apply(s, {"type": "complete", "contract": "L1-01",
                                 "wagon": "wheelbarrow"})
    assert events_of(events, "fight_ignored") and events_of(events, "event_ignored")
    assert events_of(events, "gold_paid")[0]["amount"] == 1  # Royal Tax still applies
    assert s.phase == "play"
    turns = 0
    while s.status == "ongoing":
        fightclub.apply(s, {"type": "end_actions"})
        if s.phase == "draw":
            fightclub.apply(s, fightclub.legal_actions(s)[0])
        if s.phase == "market":
            fightclub.apply(s, fightclub.legal_actions(s)[0])
        turns += 1
    assert turns == 16 and s.end_reason == "rounds"


def test_the_solo_score_bands():
    """"< 20 ... 21 - 29 ... 30 - 39 ... 40 - 49 ... 50 +" (20 is read as the second band)."""
    assert fightclub.solo_band(19).startswith("You have been destroyed")
    assert fightclub.solo_band(20).startswith("Keep at it")
    assert fightclub.solo_band(29).startswith("Keep at it")
    assert fightclub.solo_band(30).startswith("You are an apprentice")
    assert fightclub.solo_band(49).startswith("Great Hunting skills")
    assert fightclub.solo_band(50).startswith("The Castles will relish")
    s = position(players=1, solo=True, done={"p1": ["L1-01"]},
                 contracts=["L2-01", "L2-02", "L2-03", "L2-04"])
    assert fightclub.score_breakdown(s, "p1")["band"].startswith("You have been destroyed")
    assert fightclub.result(s)["score_breakdown"]["p1"]["band"]


# ---------------------------------------------------------------- hidden information, undo


def test_views_hide_other_hands_and_the_decks():
    s = fightclub.new_game({"players": 3}, 9)
    for seat in [None] + list(s.seats):
        text = str(fightclub.view(s, seat))
        for secret in fightclub.secrets(s, seat):
            assert "'%s'" % secret not in text
    mine = fightclub.view(s, "p1")["players"]["p1"]["hand"]
    assert mine == s.players["p1"].hand


def test_undo_is_refused_after_a_draw_and_allowed_after_a_load():
    match = Match("fightclub", {"players": 2}, 3)
    seat = match.state.turn
    card = match.state.players[seat].hand[0]
    match.apply({"type": "load", "wagon": "wheelbarrow", "cards": [card]})
    assert match.can_undo()
    match.undo()
    assert match.state.players[seat].hand[0] == card
    match.apply({"type": "swap_draw", "card": card})
    assert not match.can_undo()


def test_an_illegal_action_changes_nothing():
    s = position(hands={"p1": [c(1, 1)]})
    before = fightclub.to_dict(s)
    with pytest.raises(IllegalAction) as err:
        fightclub.apply(s, {"type": "exchange", "give": [c(1, 1)], "take": [c(1, 12)]})
    assert err.value.code == "one_for_one" and fightclub.to_dict(s) == before
