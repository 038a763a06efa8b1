"""The players' hands on the virtual table: the machinery every game's hands share.

On a real table a person places, lifts, taps and holds cards; on the virtual
table these hands do it through the tiles' control channel, so every action
still travels as tags and gestures through the real firmware and the link.
Used for bots' moves in headless games, tidying up (lifting captured cards),
and setting the cards back on a fresh virtual table when a game resumes.

A game's hands (a `VirtualHands` or `PieceHands` subclass in its package,
host/games/<name>/hands.py, made by its TableGame.hands) carry out
`perform(state, action, at)` and `tidy(state, table)`; `at` is the bots at the table
whose move it is (host/bots_at_table.py): `at.table` the interpreter, `at.step` the
actions applied so far, `at.seed` the game's seed, `at.press(seat, name)` a seat button.
"""

import asyncio

from host.table import tags


class HandsSlipped(RuntimeError):
    """A move could not be carried out (the tile did not answer); it is asked again."""


class VirtualHands:
    item_prefix = ""    # what a typed card's name is short for ("storybook:" + name)

    def __init__(self, vtable, layout, registry):
        self.vtable = vtable
        self.layout = layout
        self.registry = registry
        self.by_index = {}
        for tile in vtable.tiles:
            self.by_index[tile.index] = tile
        self.cards_on = {}  # cell -> item name the hands believe is there

    def _tile_slot(self, cell):
        """The tile and slot of a board cell, or of a seat's card reader ("seat", n)."""
        if cell in self.layout.slot_of:
            index, slot = self.layout.slot_of[cell]
        elif cell[0] == "seat" and cell[1] in self.layout.seat_slot:
            index, slot = self.layout.seat_slot[cell[1]]
        else:
            raise HandsSlipped("the layout has no %s" % (
                "card reader for seat %s" % cell[1] if cell[0] == "seat" else "cell %r" % (
                    cell,)))
        return self.by_index[index], slot

    def item_named(self, word):
        """The item a person typed: a registry name ("pawn:red"), or a card of the game's
        by its id alone ("the_dodo")."""
        return word if ":" in word else self.item_prefix + word

    async def _call(self, fn, *args):
        try:
            return await asyncio.to_thread(fn, *args)
        except (OSError, RuntimeError) as e:
            # A tile that died (a crash, a pulled cable): the virtual table's watchdog
            # restarts it, or else staff power-cycle it; the move is asked again by the
            # session once the tile is back.
            if not self.vtable.watching():
                for tile in self.vtable.tiles:
                    if not tile.alive():
                        await asyncio.to_thread(tile.restart)
            raise HandsSlipped(str(e)) from None

    async def perform(self, state, action, at):
        """Must: carry out a bot's action on the table (HandsSlipped if a tile failed)."""
        raise NotImplementedError("%s.perform" % type(self).__name__)

    async def tidy(self, state, table, spare=frozenset()):
        """Must: make the table show the game (`table` is the interpreter), but for the
        places in `spare` (cells, and ("seat", n) for a seat's reader): a person's move
        may be under way there."""
        raise NotImplementedError("%s.tidy" % type(self).__name__)

    async def wait_seen(self, table, cell, card, timeout_s=3.0):
        """Wait until the interpreter sees `card` on `cell` (as a person waits for the light)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while table.observed.get(cell) != [card]:
            if loop.time() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def place(self, cell, item):
        """Put `item` down on `cell`; returns the tile's reply (its "at_ns": when the tag
        entered the field, on the wall clock: tools/bench_lit.py times from it)."""
        tile, slot = self._tile_slot(cell)
        uid = tags.virtual_uid(item)
        identity = self.registry.identity_for(uid, item)
        # Through place (not a bare request): the tile keeps the card, and puts it back
        # when its watchdog restarts it.
        reply = await self._call(lambda: tile.place(slot, uid.hex(), identity_hex=identity.hex()))
        self.cards_on[cell] = item
        return reply

    async def lift(self, cell, item=None):
        tile, slot = self._tile_slot(cell)
        item = item or self.cards_on.get(cell)
        if item is None:
            await self._call(tile.clear, slot)
        else:
            await self._call(tile.lift, slot, tags.virtual_uid(item).hex())
        self.cards_on.pop(cell, None)

    async def gesture(self, cell, kind):
        tile, slot = self._tile_slot(cell)
        await self._call({"tap": tile.tap, "double": tile.double, "hold": tile.hold}[kind], slot)

    async def set_die(self, pocket, item):
        """Put a die in a pocket of the dice tray with `item` ("die:N:F") facing up; None: empty."""
        tray = self.by_index[self.layout.dice_tile]
        if item is None:
            await self._call(lambda: tray.set_die(pocket))
            return
        uid = tags.virtual_uid(item)
        identity = self.registry.identity_for(uid, item)
        await self._call(lambda: tray.set_die(pocket, uid.hex(), identity_hex=identity.hex()))


class PieceHands(VirtualHands):
    """Hands for a table of pieces lifted and put down, pads pressed and a dice tray: they
    press a pad as a finger does (a tap long enough for a tile whose readers hold a card
    and pieces on every cell to sample it), wait for the table to show each step, and tidy
    the table to what the interpreter expects (`expected()`)."""

    wait_s = 5.0
    # Pad presses held by the hands (ms): long enough for a tile whose readers hold a card
    # and pawns on every cell to sample them, short of a hold (700 ms).
    tap_ms = 250
    gap_ms = 150

    async def gesture(self, cell, kind):
        if kind == "hold":
            return await super().gesture(cell, kind)
        tile, slot = self._tile_slot(cell)
        for n in range(2 if kind == "double" else 1):
            if n:
                await asyncio.sleep(self.gap_ms / 1000)
            await self._call(tile.press, slot, True)
            await asyncio.sleep(self.tap_ms / 1000)
            await self._call(tile.press, slot, False)

    async def wait_until(self, predicate, timeout_s=None):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.wait_s if timeout_s is None else timeout_s)
        while not predicate():
            if loop.time() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def needs(self, predicate, what):
        """Wait until the table shows `what` (HandsSlipped if it does not in time)."""
        if not await self.wait_until(predicate):
            raise HandsSlipped("the table did not show %s" % what)

    async def empty_tray(self, table, wait=True):
        full = [p for p in sorted(table.pockets) if table.pockets[p] is not None
                or p in table.pocket_problems]
        for pocket in full:
            await self.set_die(pocket, None)
        if wait:
            await self.needs(lambda: all(table.pockets.get(p) is None and
                                     p not in table.pocket_problems for p in full),
                             "an empty tray")

    async def tidy(self, state, table, spare=frozenset()):
        """Make the table show the game: what the interpreter expects on each cell, nothing
        else (but the cells in `spare`); the dice tray emptied.

        The session awaits this without reading the tiles meanwhile: send, never wait.
        """
        table.cancel_throw()
        want = table.expected()
        for cell in sorted(set(table.observed) | set(table.problems) | set(want)):
            if cell in spare:
                continue
            seen = table.observed.get(cell, [])
            wanted = want.get(cell, [])
            if cell in table.problems:
                tile, slot = self._tile_slot(cell)
                await self._call(tile.clear, slot)
                seen = []
            for item in seen:
                if item not in wanted:
                    await self.lift(cell, item)
            for item in wanted:
                if item not in seen:
                    await self.place(cell, item)
        # No waiting here: the session reads the tiles only once tidying is done.
        await self.empty_tray(table, wait=False)

    async def clear_seat_readers(self, table, spare=frozenset()):
        """Every seat's card reader emptied (a card lies there only while it is played), but
        the readers in `spare`."""
        for seat in sorted(set(table.seat_observed) | set(table.seat_problems)):
            if seat not in self.layout.seat_slot or ("seat", seat) in spare:
                continue
            tile, slot = self._tile_slot(("seat", seat))
            await self._call(tile.clear, slot)
            self.cards_on.pop(("seat", seat), None)
