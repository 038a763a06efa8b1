"""The Battle Royale deck (shared_rules/data/royale_cards.json): 52 cards, effects as data."""

import pytest

from royale_helpers import player, position
from shared_rules import royale
from shared_rules.errors import ScenarioError


def test_a_standard_52_card_deck_valued_2_to_14():
    deck = royale.base_catalog()
    assert len(deck) == 52
    for suit in "SHDC":
        values = sorted(deck[suit + r]["value"] for r in
                        ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
        assert values == list(range(2, 15))
    assert deck["HJ"]["value"] == 11 and deck["DQ"]["value"] == 12
    assert deck["CK"]["value"] == 13 and deck["SA"]["value"] == 14


def test_every_effect_the_book_names_is_in_the_deck():
    # "+1 to the dice sum", "an additional, movement", "a shield", "Curse" cards, "Black Death"
    effects = [c["effect"] for c in royale.base_catalog().values()]
    assert any(e["dice_bonus"] == 1 for e in effects)
    assert any(e["movement"] >= 1 for e in effects)
    assert any(e["shield"] >= 1 for e in effects)
    assert any(e["curse"] for e in effects)
    assert [c["id"] for c in royale.base_catalog().values() if c["effect"]["black_death"]] == [
        "SA"]


def test_the_deck_is_balanced_by_suit_and_mostly_plain():
    deck = royale.base_catalog()
    plain = [c for c in deck.values() if c["effect"] == royale.check_card(
        {"id": "x", "name": "x", "value": 2}, "x")["effect"]]
    assert len(plain) == 28
    for suit in "SHDC":
        # Each suit has the same shape: a cursed 2, a 7 that moves, a J that adds to the dice,
        # a Q that shields, a K with one +1 effect, an A with the strongest effect.
        assert deck[suit + "2"]["effect"]["curse"]
        assert deck[suit + "7"]["effect"]["movement"] == 1
        assert deck[suit + "J"]["effect"]["dice_bonus"] == 1
        assert deck[suit + "Q"]["effect"]["shield"] == 1
        k = deck[suit + "K"]["effect"]
        assert k["dice_bonus"] + k["shield"] == 1
        a = deck[suit + "A"]["effect"]
        assert a["black_death"] or a["dice_bonus"] + a["shield"] + a["movement"] == 2


def test_every_card_has_a_name_and_text_for_its_effect():
    for card in royale.base_catalog().values():
        assert card["name"]
        has_effect = any(card["effect"][k] for k in card["effect"])
        assert ("text" in card) == has_effect, card["id"]


def test_extra_cards_join_the_deck_and_replace_by_id():
    deck = royale.load_catalog([{"id": "JOKER", "name": "Joker", "value": 2,
                                 "effect": {"movement": 3}},
                                {"id": "H5", "name": "Lucky Five", "value": 5,
                                 "effect": {"dice_bonus": 3}}])
    assert len(deck) == 53
    assert deck["JOKER"]["effect"]["movement"] == 3
    assert deck["H5"]["effect"]["dice_bonus"] == 3
    # "a card without an effect has none"
    deck = royale.load_catalog([{"id": "SJ", "name": "Plain Jack", "value": 11}])
    assert deck["SJ"]["effect"]["dice_bonus"] == 0
    assert royale.base_catalog()["SJ"]["effect"]["dice_bonus"] == 1


def test_an_extra_card_changes_the_game():
    s = position([player("red", (0, 0), ["LUCK"]), player("blue", (0, 3))], [((0, 0), "C9")],
                 cards=[{"id": "LUCK", "name": "Horseshoe", "value": 2,
                         "effect": {"dice_bonus": 3}}])
    events = royale.apply(s, {"type": "attack_card", "dice": [1, 2, 3]})
    assert events[0]["type"] == "card_won" and events[0]["total"] == 9


BAD_CARDS = [
    ("not a card", "cards[0]"),
    ({"name": "Nobody", "value": 3}, "cards[0].id"),
    ({"id": "X1", "value": 3}, "cards[0].name"),
    ({"id": "X1", "name": "X", "value": 15}, "cards[0].value"),
    ({"id": "X1", "name": "X", "value": "7"}, "cards[0].value"),
    ({"id": "X1", "name": "X", "value": 7, "colour": "red"}, "cards[0].colour"),
    ({"id": "X1", "name": "X", "value": 7, "effect": []}, "cards[0].effect"),
    ({"id": "X1", "name": "X", "value": 7, "effect": {"dice_bonus": 9}},
     "cards[0].effect.dice_bonus"),
    ({"id": "X1", "name": "X", "value": 7, "effect": {"shield": True}},
     "cards[0].effect.shield"),
    ({"id": "X1", "name": "X", "value": 7, "effect": {"curse": 1}},
     "cards[0].effect.curse"),
    ({"id": "X1", "name": "X", "value": 7, "effect": {"fly": 1}},
     "cards[0].effect.fly"),
]


def test_a_bad_card_is_refused_naming_the_card_and_field():
    for card, field in BAD_CARDS:
        with pytest.raises(ScenarioError) as e:
            royale.new_game({}, 1, None, [card])
        assert e.value.field == field, (card, e.value.field)
        assert e.value.message


def test_a_card_defined_twice_is_refused():
    with pytest.raises(ScenarioError) as e:
        royale.load_catalog([{"id": "X1", "name": "X", "value": 7},
                             {"id": "X1", "name": "Y", "value": 8}])
    assert e.value.field == "cards[1].id"


def test_the_shipped_file_is_validated_with_the_same_checks():
    from shared_rules import catalog
    broken = {"cards": [{"id": "S2", "name": "Two of Spades", "value": 2,
                         "effect": {"movement": -1}}]}
    saved = royale._base_catalog[:]
    original = catalog._cache.get("royale_cards.json")
    del royale._base_catalog[:]
    catalog._cache["royale_cards.json"] = broken
    try:
        with pytest.raises(ScenarioError) as e:
            royale.base_catalog()
        assert e.value.field == "royale_cards.json: cards[0].effect.movement"
    finally:
        royale._base_catalog[:] = saved
        if original is None:
            del catalog._cache["royale_cards.json"]
        else:
            catalog._cache["royale_cards.json"] = original


def test_the_odds_the_docstring_gives():
    # The module docstring explains the deck by the odds of winning each rank with 3 dice.
    def odds(value):
        wins = 0
        for a in range(1, 7):
            for b in range(1, 7):
                for c in range(1, 7):
                    if a + b + c >= value or a == b == c:
                        wins += 1
        return (wins * 100 + 108) // 216

    assert [odds(v) for v in (2, 7, 11, 12, 13, 14)] == [100, 92, 51, 39, 28, 18]
    doc = getattr(royale, "__doc__", None)  # MicroPython drops docstrings
    if doc is not None:
        for text in ("(92%)", "a Jack 51%, a Queen 39%, a King 28%, an Ace 18%"):
            assert text in " ".join(doc.split())
