"""The virtual hands of Storybook Battles: they carry out its moves on the virtual table
(host/virtual/hands.py has the machinery every game's hands share)."""


from host.virtual.hands import VirtualHands
from shared_rules import storybook


class StorybookHands(VirtualHands):
    """Hands that carry out Storybook Battles moves."""

    item_prefix = "storybook:"

    async def perform(self, state, action, at):
        """Carry out a bot's storybook action on the table."""
        kind = action["type"]
        if kind in ("play", "hide"):
            cell = tuple(action["cell"])
            await self.place(cell, "storybook:" + action["card"])
            if kind == "hide" and state.phase == "play":
                if await self.wait_seen(at.table, cell, action["card"]):
                    await self.gesture(cell, "double")
        elif kind == "reveal":
            await self.gesture(tuple(action["cell"]), "tap")
        elif kind == "spin":
            await self.gesture(tuple(action["cell"]), "hold" if action["dir"] == "cw" else "double")
        elif kind == "slide":
            src = tuple(action["cell"])
            dst = storybook.slide_target(state, src, storybook.FACINGS.index(action["dir"]))
            item = "storybook:" + state.board[src][0]
            await self.lift(src, item)
            await self.place(dst, item)
        elif kind == "plot_twist":
            seat = storybook.actor(state, action)
            at.press(seat, "twist")
            cell = tuple(action["cell"])
            await self.gesture(cell, "double" if action.get("dir") == "ccw" else
                               ("hold" if action.get("dir") == "cw" else "tap"))
            if state.cat.twists[action["card"]]["effect"]["kind"] == "return_to_hand":
                pass  # the card stays until tidy() lifts it back into the hand
        else:
            raise ValueError("the hands cannot carry out %r" % (kind,))

    async def tidy(self, state, table, spare=frozenset()):
        """Make the table show the game: lift what should not be there, put back what should
        (but on the cells in `spare`)."""
        want = {cell: "storybook:" + entry[0] for cell, entry in state.board.items()
                if cell not in spare}
        for cell in sorted(set(table.observed) | set(table.problems)):
            if cell in spare:
                continue
            seen = ["storybook:" + c for c in table.observed.get(cell, [])]
            if cell in table.problems or seen != ([want[cell]] if cell in want else []):
                for item in seen:
                    await self.lift(cell, item)
                if cell in table.problems:
                    await self.lift(cell, None)
        for cell in sorted(want):
            if table.observed.get(cell) != [want[cell].split(":", 1)[1]]:
                await self.place(cell, want[cell])
