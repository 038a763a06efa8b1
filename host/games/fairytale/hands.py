"""The virtual hands of Fairytale Games: they carry out its moves on the virtual table as a person
would (host/virtual/hands.py has the machinery every game's hands share).

A step lifts the token and puts it on the neighbouring cell, laying the top location card
there first when the cell is unexplored; the Sundial lays the top event card on the event
deck's reader (the old one lifted off); a quest opened is laid on its pile's reader; a play
lays its cards on the seat's card reader (what lay there before is lifted off first); an
enemy's turn and a flight are a press of the seat's button, then the dice; the dice of any
play that takes them go into the tray's two pockets, two at a time, each throw read before
the next. The cards and dice are `host.games.fairytale.chance.table_chance`'s, so the outcome
reaches the engine through the tags as in real play and a resumed game draws and throws what
the uninterrupted one did.
"""

from host.games.fairytale import places
from host.games.fairytale.chance import table_chance
from host.games.fairytale.places import CARD, EVENTS, PILE_CELL, SEAT
from host.virtual.hands import HandsSlipped, PieceHands


class FairytaleHands(PieceHands):
    """Hands that carry out Fairytale Games moves: tokens, location and event cards, the cards
    of a seat's hand on its reader, the seat buttons and the two dice."""

    item_prefix = CARD

    async def perform(self, state, action, at):
        """Carry out a bot's table move (its choices are applied without hands)."""
        table = at.table
        kind = action["type"]
        seat = action["seat"]
        step = at.step
        chance = table_chance(state, action, at.seed, step)

        def done():
            return at.step != step

        await self.lift_spent(table)
        if kind == "step":
            token, home = self.mover_token(state, action)
            to = tuple(action["to"])
            if chance.get("cards"):
                card = CARD + chance["cards"][0]
                await self.place(to, card)
                await self.needs(lambda: done() or card in table.observed.get(to, ()),
                                 "the location card")
            await self.lift(home, token)
            await self.needs(lambda: done() or token not in table.observed.get(home, ()),
                             "the lift")
            await self.place(to, token)
        elif kind == "flip_event":
            # The old event card off the reader (seen gone), then the new one laid.
            old = list(table.observed.get(EVENTS, ()))
            for item in old:
                await self.lift(EVENTS, item)
            await self.needs(lambda: not set(old) & set(table.observed.get(EVENTS, ())),
                             "the old event lifted")
            await self.place(EVENTS, CARD + chance["cards"][0])
        elif kind == "open_quest":
            pile = places.quest_pile(action["quest"])
            await self.place(PILE_CELL[pile], CARD + action["quest"])
        elif kind in places.THROWS.values():
            name = [k for k, v in places.THROWS.items() if v == kind][0]
            at.press(seat, name)
            await self.needs(lambda: done() or (table.throw is not None and
                                                table.throw.seat == seat), "the throw")
            await self.throw(table, chance.get("dice", []), done)
        elif kind in places.READER_PLAYS:
            n = places.seat_number(state, seat)
            await self.clear_reader(table, n)
            await self.needs(lambda: not table.seat_observed.get(n), "an empty reader")
            for card in places.reader_cards(state, chance) or []:
                await self.place((SEAT, n), CARD + card)
            if chance.get("dice"):
                await self.needs(lambda: done() or (table.throw is not None and
                                                    table.throw.seat == seat), "the play read")
                await self.throw(table, chance["dice"], done)
        else:
            raise ValueError("the hands cannot carry out %r" % (kind,))

    def mover_token(self, state, action):
        """(token item, its cell) of the token a step moves."""
        wanted = action.get("character")
        for item, character in sorted(places.movable(state, action["seat"]).items()):
            if character == wanted:
                return item, places.tokens(state)[item]["cell"]
        raise HandsSlipped("no token of %s moves now" % places.player_words(
            state, action["seat"]))

    async def throw(self, table, values, done):
        """The dice into the tray's pockets, two at a time, each throw read before the next."""
        for first in range(0, len(values), places.POCKETS):
            pair = values[first:first + places.POCKETS]
            await self.empty_tray(table)
            for pocket, v in enumerate(pair):
                await self.set_die(pocket, "%s%d" % (places.DIE_ITEMS[pocket], v))
            count = len(pair)
            await self.needs(lambda n=count: done() or all(p in table.used for p in range(n)),
                             "the dice read")

    async def lift_spent(self, table):
        """Take up what was played and lies on the quest readers (a quest opened goes into
        its player's hand) before the next move."""
        for place in sorted(set(PILE_CELL.values())):
            for item in sorted(table.spent.get(place, ())):
                await self.lift(place, item)

    async def clear_reader(self, table, n):
        """Lift whatever lies on seat `n`'s card reader."""
        if table.seat_observed.get(n) or n in table.seat_problems:
            tile, slot = self._tile_slot((SEAT, n))
            await self._call(tile.clear, slot)
            self.cards_on.pop((SEAT, n), None)

    async def tidy(self, state, table, spare=frozenset()):
        """The map and the deck readers as the game has them (what the interpreter
        expects, nothing else), the tray emptied, and the cards played on the seats'
        readers lifted off (a play being laid is left). Send, never wait."""
        await super().tidy(state, table, spare)
        for n in sorted(set(table.seat_observed) | set(table.seat_problems)):
            if n not in self.layout.seat_slot or (SEAT, n) in spare:
                continue
            spent = table.spent.get((SEAT, n), set())
            if n in table.seat_problems or any(i in spent for i in table.seat_observed.get(
                    n, ())) or any(m.cells == [(SEAT, n)] for m in table.mismatches):
                await self.clear_reader(table, n)
