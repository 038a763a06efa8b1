"""The players' hands on the virtual table: they carry out moves with tags, taps and holds.

On a real table a person places, lifts, taps and holds cards; on the virtual
table these hands do it through the tiles' control channel, so every action
still travels as tags and gestures through the real firmware and the link.
Used for bots' moves in headless games, tidying up (lifting captured cards),
and setting the cards back on a fresh virtual table when a game resumes.
"""

import asyncio

from host.table import tags
from shared_rules import storybook


class HandsSlipped(RuntimeError):
    """A move could not be carried out (the tile did not answer); it is asked again."""


class VirtualHands:
    def __init__(self, vtable, layout, registry):
        self.vtable = vtable
        self.layout = layout
        self.registry = registry
        self.by_index = {}
        for tile in vtable.tiles:
            self.by_index[tile.index] = tile
        self.cards_on = {}  # cell -> item name the hands believe is there

    def _tile_slot(self, cell):
        index, slot = self.layout.slot_of[cell]
        return self.by_index[index], slot

    async def _call(self, fn, *args):
        try:
            return await asyncio.to_thread(fn, *args)
        except (OSError, RuntimeError) as e:
            # A tile that died (a crash, a pulled cable): staff power-cycle it; the move
            # is asked again by the session once the tile is back.
            for tile in self.vtable.tiles:
                if not tile.alive():
                    await asyncio.to_thread(tile.restart)
            raise HandsSlipped(str(e)) from None

    async def wait_seen(self, session, cell, card, timeout_s=3.0):
        """Wait until the session has seen `card` on `cell` (as a person waits for the light)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while session.table.observed.get(cell) != [card]:
            if loop.time() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def place(self, cell, item):
        tile, slot = self._tile_slot(cell)
        uid = tags.virtual_uid(item)
        identity = self.registry.identity_for(uid, item)
        await self._call(lambda: tile.request("place", slot=slot, uid=uid.hex(),
                                              identity_hex=identity.hex()))
        self.cards_on[cell] = item

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
        await self._call(lambda: tray.request("die", pocket=pocket, uid=uid.hex(),
                                              identity_hex=identity.hex()))


class StorybookHands(VirtualHands):
    """Hands that carry out Storybook Battles moves."""

    async def perform(self, state, action, session):
        """Carry out a bot's storybook action on the table."""
        kind = action["type"]
        if kind in ("play", "hide"):
            cell = tuple(action["cell"])
            await self.place(cell, "storybook:" + action["card"])
            if kind == "hide" and state.phase == "play":
                if await self.wait_seen(session, cell, action["card"]):
                    await self.gesture(cell, "double")
        elif kind == "reveal":
            await self.gesture(tuple(action["cell"]), "tap")
        elif kind == "spin":
            await self.gesture(tuple(action["cell"]), "hold" if action["dir"] == "cw" else "double")
        elif kind == "slide":
            src = tuple(action["cell"])
            dst = storybook._slide_target(state, src, storybook.FACINGS.index(action["dir"]))
            item = "storybook:" + state.board[src][0]
            await self.lift(src, item)
            await self.place(dst, item)
        elif kind == "plot_twist":
            seat = storybook.actor(state, action)
            session.button(seat, "twist")
            cell = tuple(action["cell"])
            await self.gesture(cell, "double" if action.get("dir") == "ccw" else
                               ("hold" if action.get("dir") == "cw" else "tap"))
            if state.cat.twists[action["card"]]["effect"]["kind"] == "return_to_hand":
                pass  # the card stays until tidy() lifts it back into the hand
        else:
            raise ValueError("the hands cannot carry out %r" % (kind,))

    async def tidy(self, state, table):
        """Make the table show the game: lift what should not be there, put back what should."""
        want = {cell: "storybook:" + entry[0] for cell, entry in state.board.items()}
        for cell in sorted(set(table.observed) | set(table.problems)):
            seen = ["storybook:" + c for c in table.observed.get(cell, [])]
            if cell in table.problems or seen != ([want[cell]] if cell in want else []):
                for item in seen:
                    await self.lift(cell, item)
                if cell in table.problems:
                    await self.lift(cell, None)
        for cell in sorted(want):
            if table.observed.get(cell) != [want[cell].split(":", 1)[1]]:
                await self.place(cell, want[cell])
