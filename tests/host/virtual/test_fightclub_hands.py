"""The virtual hands of Fight Club never put down a tag that lies on the table already.

The table counts creatures by value, so the tag of a card a player holds in the engine may
lie in the Market standing for another card of its value. Seed 24 of a four-player game
on the virtual table reached such a table: p2 was to give c08-02 to the Market while the
tag c08-02 lay there for c08-04; the hands put c08-02 down again, the Market never gained
an 8, the exchange was never seen, and the hands put the same tag down at every try (it
piled up copies of one card in one emulated field, until the tile ran out of memory).
"""

import asyncio

from host.games.fightclub import interpreter as ft
from host.table import tags
from host.games.fightclub.hands import FightclubHands
from shared_rules.engine import Match


class FakeTile:
    def __init__(self, index):
        self.index = index
        self.placed = []

    def place(self, slot, uid_hex, identity_hex=None):
        self.placed.append((slot, uid_hex))


class FakeLayout:
    def __init__(self):
        self.slot_of = {(c, r): (r, c) for c in range(7) for r in range(7)}


class FakeVtable:
    def __init__(self):
        self.tiles = [FakeTile(i) for i in range(7)]


class FakeTable:
    def __init__(self, observed):
        self.observed = observed


class At:
    def __init__(self, table):
        self.table = table


def put_down(observed, action):
    vt = FakeVtable()
    hands = FightclubHands(vt, FakeLayout(), tags.Registry(bytes(range(32))))
    state = Match("fightclub", {"players": 4}, 24, None).state
    asyncio.run(hands.perform(state, action, At(FakeTable(observed))))
    return [(tile.index, slot, uid) for tile in vt.tiles for slot, uid in tile.placed]


def uid(cid):
    return tags.virtual_uid("fightclub:" + cid).hex()


def test_a_card_whose_tag_lies_in_the_market_is_put_down_as_another_of_its_value():
    market = ft.MARKET_CELLS
    observed = {market[0]: ["c08-02"], market[1]: ["c08-01", "c02-03"]}
    placed = put_down(observed, {"type": "to_market", "card": "c08-02"})
    # One tag put down, an 8 that lies nowhere (c08-01 and c08-02 lie in the Market).
    assert len(placed) == 1
    assert placed[0][2] not in (uid("c08-02"), uid("c08-01"))
    assert placed[0][2] in [uid("c08-%02d" % n) for n in range(3, 20)]


def test_a_card_whose_tag_lies_nowhere_is_put_down_as_itself():
    market = ft.MARKET_CELLS
    placed = put_down({market[0]: ["c08-01"]}, {"type": "to_market", "card": "c08-02"})
    assert [p[2] for p in placed] == [uid("c08-02")]


def test_two_cards_of_one_value_put_down_at_once_are_two_tags():
    market = ft.MARKET_CELLS
    observed = {market[0]: ["c05-01", "c05-02"]}
    placed = put_down(observed, {"type": "exchange", "give": ["c05-01", "c05-02"],
                                 "take": []})
    uids = [p[2] for p in placed]
    assert len(uids) == 2 and len(set(uids)) == 2
    assert not set(uids) & {uid("c05-01"), uid("c05-02")}
