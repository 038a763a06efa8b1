"""The virtual hands of Battle Royale: they carry out its moves on the virtual table
(host/virtual/hands.py has the machinery every game's hands share)."""


from host.games.royale import interpreter as rt
from host.games.royale.dice import table_dice
from host.virtual.hands import HandsSlipped, PieceHands
from shared_rules import royale


class RoyaleHands(PieceHands):
    """Hands that carry out Battle Royale moves: pawns, pads and the dice tray.

    The dice are rolled by the hands: `host.games.royale.dice.table_dice` seeded with the
    game's seed, the number of actions applied so far and the state, so the outcome
    reaches the engine through the tray's tags as in real play, and a resumed game rolls
    what the uninterrupted one rolled.
    """

    item_prefix = "royale:"

    async def perform(self, state, action, at):
        """Carry out a bot's Battle Royale action on the table."""
        table = at.table
        kind = action["type"]
        step = at.step   # the state's place in the game, for the dice
        pid = royale.current(state)
        here = rt.cell_of(state.players[pid].cell) if pid and state.players[pid].cell >= 0 \
            else None
        pawn = "pawn:" + rt.colour_of(state, pid) if pid else None
        if kind == "place":
            await self.place(tuple(action["cell"]), pawn)
        elif kind == "move":
            await self.lift(here, pawn)
            await self.needs(lambda: pawn not in table.observed.get(here, ()), "the lift")
            await self.place(tuple(action["to"]), pawn)
        elif kind == "resurrect":
            await self.gesture(here, "double")
        elif kind == "roll_order":
            rolled = table_dice(state, action, at.seed, step)["dice"]
            await self.needs(lambda: table.throw is not None, "the order roll")
            who = table.throw.who
            for first in range(0, len(who), rt.POCKETS):
                await self.roll(table, [rolled[q] for q in who[first:first + rt.POCKETS]])
        elif kind == "attack_card":
            rolled = table_dice(state, action, at.seed, step)["dice"]
            await self.empty_tray(table)
            if table.throw is None or table.throw.kind != "attack_card":
                await self.gesture(here, "tap")
            await self.needs(lambda: table.throw is not None and
                              table.throw.kind == "attack_card", "the tap")
            await self.roll(table, rolled)
        elif kind == "attack_player":
            rolled = table_dice(state, action, at.seed, step)["dice"]
            await self.empty_tray(table)
            others = [q for q in state.order if q != pid and state.players[q].alive
                      and state.players[q].cell == state.players[pid].cell]
            # Hold until the duel names the target (each further hold picks the next player).
            for _ in range(len(others) + 1):
                throw = table.throw
                if throw is not None and throw.kind == "attack_player" and \
                        throw.target == action["target"]:
                    break
                await self.gesture(here, "hold")
                await self.needs(lambda held=throw: table.throw is not held or (
                    held is not None and table.throw.target != held.target), "the hold")
            else:
                raise HandsSlipped("the holds did not pick %s" % action["target"])
            counts = rt.duel_dice_counts(state, pid, action["target"])
            for pair in rolled:
                flat = {0: pair[0] if counts[0] == 2 else [pair[0]],
                        1: pair[1] if counts[1] == 2 else [pair[1]]}
                for throw in rt.duel_throws(counts):
                    values = []
                    for who, _k in throw:
                        values.extend(flat[who])
                    await self.roll(table, values)
        else:
            raise ValueError("the hands cannot carry out %r" % (kind,))

    async def roll(self, table, values):
        """Take the dice out, then let dice 1.. settle in pockets 1.. showing `values`."""
        await self.empty_tray(table)
        for pocket, v in enumerate(values):
            await self.set_die(pocket, "die:%d:%d" % (pocket + 1, v))
        want = list(range(len(values)))
        await self.needs(lambda: table.throw is None or all(p in table.used for p in want),
                          "the dice read")
