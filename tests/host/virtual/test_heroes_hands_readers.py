"""The heroes virtual hands lay cards on the seat tile's card readers: a Bonus Card two
characters could play, then the tap naming who plays it, the target's tap and the dice;
tidying lifts the played card off the reader. The tiles are stand-ins that hand what the
hands do straight to the interpreter, as the session would (no tile processes)."""

import asyncio

from host.table import layout as layouts
from host.table import tags
from host.games.heroes.interpreter import HeroesTable, table_dice
from host.games.heroes.hands import HeroesHands
from shared_rules.engine import Match
from table_helpers import apply, lay_out

CHARS = [{"id": "tin_woodman", "seat": "red", "cell": [0, 2]},
         {"id": "robin_hood", "seat": "red", "cell": [6, 2]},
         {"id": "big_bad_wolf", "seat": "blue", "cell": [1, 1]},
         {"id": "gretel", "seat": "blue", "cell": [6, 4]}]


class Tile:
    """A tile that tells the interpreter at once what lies on its slots and what is tapped."""

    def __init__(self, vtable, index):
        self.vtable, self.index = vtable, index

    def _where(self, slot):
        key = (self.index, slot)
        layout = self.vtable.layout
        return ("seat", layout.seat_of[key]) if key in layout.seat_of else layout.cell_of[key]

    def _show(self, slot, items):
        table = self.vtable.table
        where = self._where(slot)
        if where[0] == "seat":
            table.observe_seat_items(where[1], items)
        else:
            table.observe_items(where, items)
        self.vtable.said(table.reconcile(0))

    def _seen(self, slot):
        where = self._where(slot)
        table = self.vtable.table
        return list(table.seat_observed.get(where[1], []) if where[0] == "seat"
                    else table.observed.get(where, []))

    def place(self, slot, uid_hex, identity_hex=None):
        self._show(slot, self._seen(slot) + [self.vtable.names[uid_hex]])

    def lift(self, slot, uid_hex):
        self._show(slot, [i for i in self._seen(slot) if i != self.vtable.names[uid_hex]])

    def clear(self, slot):
        self._show(slot, [])

    def press(self, slot, down):
        if not down:
            self.vtable.said(self.vtable.table.gesture(self._where(slot), "tap", 0))

    def set_die(self, pocket, uid_hex=None, identity_hex=None):
        item = self.vtable.names[uid_hex] if uid_hex else None
        self.vtable.said(self.vtable.table.dice(pocket, item, None, 0))


class Table:
    def __init__(self, layout, table):
        self.layout, self.table = layout, table
        self.tiles = [Tile(self, t.index) for t in layout.tiles]
        self.names = {}
        self.shown = []
        for item in (["heroes-card:enchanted_arrow_attack", "heroes-card:axe_attack"] +
                     ["die:%s:%d" % (c, f) for c in ("red", "white", "green")
                      for f in range(1, 7)]):
            self.names[tags.virtual_uid(item).hex()] = item

    def said(self, action):
        if action is not None:
            self.shown.append(action)

    def watching(self):
        return True


class Registry:
    def identity_for(self, uid, name):
        return b"\0" * 12


class At:
    def __init__(self, match, table):
        self.match, self.table, self.seed = match, table, 3

    @property
    def step(self):
        return len(self.match.actions)


def test_a_bonus_card_is_laid_on_the_seats_reader_then_its_player_tapped(tmp_path):
    layout = layouts.load(layouts.builtin_path("heroes"))
    match = Match("heroes", {"mode": "ctf"}, 1, {"characters": CHARS, "turn": "red",
                                                 "hands": {"red": ["enchanted_arrow_attack"]}})
    table = HeroesTable(match)
    lay_out(table)
    table.reconcile(0)
    vt = Table(layout, table)
    hands = HeroesHands(vt, layout, Registry())
    hands.tap_ms = hands.gap_ms = 1
    action = {"type": "play_card", "character": "robin_hood", "card": "enchanted_arrow_attack",
              "target": "gretel"}
    rolled = table_dice(match.state, action, 3, 0)
    asyncio.run(hands.perform(match.state, action, At(match, table)))
    assert vt.shown == [rolled]
    assert table.seat_observed == {1: ["heroes-card:enchanted_arrow_attack"]}
    apply(match, table, rolled)
    table.reconcile(0)
    assert [m.code for m in table.mismatches] == ["card_played"]
    asyncio.run(hands.tidy(match.state, table))
    assert table.seat_observed == {} and table.mismatches == []
