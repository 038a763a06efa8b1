"""The virtual hands of Fairy Tale Fight Club: they carry out its moves on the virtual table
(host/virtual/hands.py has the machinery every game's hands share)."""


from host.games.fightclub import interpreter as ft
from host.virtual.hands import HandsSlipped, VirtualHands
from shared_rules import fightclub


class FightclubHands(VirtualHands):
    """Hands that carry out Fairy Tale Fight Club moves: creature cards on and off wagons
    and the Market, contract cards lifted and laid out.

    A card put down is the card the engine names (its hand holds that id); a card lifted
    is one the table shows with the value wanted (any 7 is a 7)."""

    item_prefix = "fightclub:"
    wait_s = 5.0
    _table = None       # what the hands see and hold while they act (see place)
    _state = None
    _put = ()

    async def place(self, cell, item):
        """Put `item` down, or a card of its value if its own tag lies on the table already.

        The table counts creatures by value, so a card may lie where the game has
        another of its value (an 8 in the Market standing for the Market's other 8): the
        engine's card id in a hand need not be the tag in a player's hand. A tag cannot
        be put down twice: put down again, the Market never gains the card given to it,
        the exchange is never seen, and the hands put it "back" at every try. So a card
        whose tag lies on the table is put down as one of its value whose tag lies
        nowhere (that card is the one in the hand)."""
        cid = item.split(":", 1)[1]
        table, state = self._table, self._state
        if table is not None and state is not None and ft.is_creature(cid):
            lying = set(self._put)
            for items in table.observed.values():
                lying.update(items)
            if cid in lying:
                for other in state.cat.creature_ids:
                    if fightclub.value(other) == fightclub.value(cid) and other not in lying:
                        cid = other
                        break
            self._put = set(self._put) | {cid}
        await super().place(cell, "fightclub:" + cid)

    def _acting(self, state, table):
        self._state, self._table, self._put = state, table, ()

    async def perform(self, state, action, at):
        """Carry out a bot's table move (the others are applied without hands)."""
        table = at.table
        self._acting(state, table)
        seat = state.turn
        kind = action["type"]
        if kind == "load":
            cell = ft.WAGON_CELL[(seat, action["wagon"])]
            for cid in action["cards"]:
                await self.place(cell, "fightclub:" + cid)
        elif kind == "move":
            src = ft.WAGON_CELL[(seat, action["from"])]
            dst = ft.WAGON_CELL[(seat, action["to"])]
            for _cell, item in self._seen_with(table, [src], action["cards"]):
                await self.lift(src, "fightclub:" + item)
                await self.place(dst, "fightclub:" + item)
        elif kind == "discard" and action["from"] in fightclub.WAGONS:
            src = ft.WAGON_CELL[(seat, action["from"])]
            for cell, item in self._seen_with(table, [src], action["cards"]):
                await self.lift(cell, "fightclub:" + item)
        elif kind == "complete":
            src = ft.WAGON_CELL[(seat, action["wagon"])]
            for item in list(table.observed.get(src, ())):
                await self.lift(src, "fightclub:" + item)
            where = table.contract_cells()
            cell = where.get(action["contract"])
            if cell is not None:
                await self.lift(cell, "fightclub:" + action["contract"])
        elif kind == "exchange":
            for cell, item in self._seen_with(table, ft.MARKET_CELLS, action["take"]):
                await self.lift(cell, "fightclub:" + item)
            for cid in action["give"]:
                await self.place(self._emptiest_market(table), "fightclub:" + cid)
        elif kind == "to_market":
            await self.place(self._emptiest_market(table), "fightclub:" + action["card"])
        else:
            raise ValueError("the hands cannot carry out %r" % (kind,))

    @staticmethod
    def _seen_with(table, cells, cards):
        """(cell, item) on `cells` whose values are those of `cards`, one each: the very
        cards where the table shows them, else others of the same values."""
        out = []
        rest = []
        for cid in cards:
            here = [c for c in cells if cid in table.observed.get(c, ())]
            if here:
                out.append((here[0], cid))
            else:
                rest.append(cid)
        wanted = [fightclub.value(c) for c in rest]
        for cell in cells:
            for item in table.observed.get(cell, ()):
                if ft.is_creature(item) and fightclub.value(item) in wanted and \
                        (cell, item) not in out:
                    wanted.remove(fightclub.value(item))
                    out.append((cell, item))
        if wanted:
            raise HandsSlipped("the table does not show %s" % ft.numbers(wanted))
        return out

    def _emptiest_market(self, table):
        return min(ft.MARKET_CELLS, key=lambda c: (len(table.observed.get(c, ())),
                                                   ft.MARKET_CELLS.index(c)))

    async def tidy(self, state, table, spare=frozenset()):
        """Make the table show the game: what should not be there lifted, what should
        put down (the cards the engine names), but on the cells in `spare`. Send, never
        wait."""
        self._acting(state, table)
        want = table.expected()
        for cell in sorted(set(table.observed) | set(table.problems) | set(want)):
            if cell in spare:
                continue
            seen = list(table.observed.get(cell, []))
            wanted = list(want.get(cell, []))
            if cell in table.problems:
                tile, slot = self._tile_slot(cell)
                await self._call(tile.clear, slot)
                seen = []
            # Creatures count by value: a 7 seen stands for the 7 wanted.
            keep = []
            for item in seen:
                same = [w for w in wanted if w == item or (
                    ft.is_creature(w) and ft.is_creature(item) and
                    fightclub.value(w) == fightclub.value(item))]
                if same:
                    wanted.remove(same[0])
                    keep.append(item)
                else:
                    await self.lift(cell, "fightclub:" + item)
            for item in wanted:
                await self.place(cell, "fightclub:" + item)
