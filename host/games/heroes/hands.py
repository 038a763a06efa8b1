"""The virtual hands of Battle Royale with hero teams: they carry out its moves on the virtual table
(host/virtual/hands.py has the machinery every game's hands share)."""


from host.games.heroes import interpreter as ht
from host.virtual.hands import PieceHands


class HeroesHands(PieceHands):
    """Hands that carry out Battle Royale with hero teams moves: figures, cards laid on the
    playing seat's card reader (then a tap naming who plays a Bonus Card, when several of
    the seat's characters could), flags, taps and the red, white and green dice.

    The dice come from `host.games.heroes.interpreter.table_dice` (seeded as Battle Royale's
    are), so the outcome reaches the engine through the tray's tags as in real play. Each
    die goes in its own pocket (red 1, white 2, green 3), one throw per die: the pocket is
    emptied and seen empty before the die settles, so a second white die of an area attack
    is read as a new throw. Tidying is the pieces' (what `expected()` says, nothing
    else), and the seats' card readers emptied: played cards are lifted off.
    """

    item_prefix = "heroes-card:"

    async def perform(self, state, action, at):
        """Carry out a bot's heroes action on the table."""
        table = at.table
        kind = action["type"]
        # Everything read off the state now: it is the live one, and changes once applied.
        wanted = ht.dice_wanted(state, action)
        rolled = ht.table_dice(state, action, at.seed, at.step)
        values = [dice_value(rolled, kind, colour, who) for colour, who in wanted]
        home = {}
        for cid in state.roster:
            if state.heroes[cid]["cell"] >= 0:
                home[cid] = ht.cell_of(state.heroes[cid]["cell"])
        flag_at = dict((team, ht.cell_of(state.flags[team]["cell"])) for team in state.flags)
        card = None
        if kind in ("play_card", "defend"):
            card = ht.card_of(state, action["card"])
        mover = action.get("character")
        if kind == "defend":
            mover = state.battle["targets"][state.battle["next"]]
        carried = ht.carried_flag(state, mover) if mover else None
        if kind in ("roll_off", "roll_bonus", "roll_move"):
            await self.needs(lambda: table.throw is not None and table.auto and
                              table.throw.action["type"] == kind, "the %s" % kind)
            await self.throw_dice(table, wanted, values)
        elif kind == "pick":
            await self.place(tuple(action["cell"]), ht.FIGURE + action["character"])
        elif kind == "move":
            await self.carry(table, mover, home[mover], action, carried, flag_at)
        elif kind == "attack":
            await self.tap_until(home[action["attacker"]],
                                 lambda: table.attacker == action["attacker"], "the attacker")
            await self.tap_until(home[action["target"]], lambda: table.throw is not None and
                                 not table.auto, "the target")
            await self.throw_dice(table, wanted, values)
        elif kind in ("play_card", "defend"):
            cell = home[mover]
            reader = (ht.SEAT, ht.seat_number(state, state.heroes[mover]["seat"]))
            step = at.step
            await self.place(reader, ht.CARD + action["card"])
            if ht.owner_of(state, action["card"]) is None and kind == "play_card":
                # A Bonus Card: a tap names who plays it when several could.
                await self.needs(lambda: table.card_play is not None or at.step != step or
                                  (table.throw is not None and not table.auto), "the card")
                if table.card_play is not None and table.card_play["character"] is None:
                    await self.tap_until(cell, lambda: at.step != step or (
                        table.card_play is not None and table.card_play["character"] ==
                        mover) or (table.throw is not None and not table.auto),
                        "who plays the card")
            if card["kind"] == "move":
                await self.needs(lambda: table.card_play is not None, "the card")
                await self.carry(table, mover, cell, action, carried if kind == "play_card"
                                 else None, flag_at)
            elif card["kind"] == "attack":
                if card["area"] == "one":
                    await self.needs(lambda: table.card_play is not None, "the card")
                    await self.tap_until(home[action["target"]], lambda: table.throw is not
                                         None and not table.auto, "the target")
                else:
                    await self.needs(lambda: table.throw is not None and not table.auto,
                                      "the card's throw")
                await self.throw_dice(table, wanted, values)
            elif card["kind"] == "heal" and card["range"] > 0:
                await self.needs(lambda: table.card_play is not None, "the card")
                await self.gesture(home[action["target"]], "tap")
        else:
            raise ValueError("the hands cannot carry out %r" % (kind,))

    async def tidy(self, state, table, spare=frozenset()):
        """Battle Royale's tidying, then every seat's card reader emptied (a card lies there
        only while it is played: once played, or given up, it is lifted off)."""
        await super().tidy(state, table, spare)
        await self.clear_seat_readers(table, spare)

    async def tap_until(self, cell, predicate, what):
        await self.gesture(cell, "tap")
        await self.needs(predicate, what)

    async def carry(self, table, cid, here, action, carried, flag_at):
        """Move a figure from `here` to action["to"], with the flag it carries if any."""
        figure = ht.FIGURE + cid
        await self.lift(here, figure)
        flag_to = action.get("flag_to")
        if flag_to is not None:
            await self.lift(flag_at[carried], ht.FLAG + carried)
        await self.needs(lambda: figure not in table.observed.get(here, ()), "the lift")
        await self.place(tuple(action["to"]), figure)
        if flag_to is not None:
            await self.place(tuple(flag_to), ht.FLAG + carried)

    async def throw_dice(self, table, wanted, values):
        """Each die in its pocket, one throw at a time, each read before the next."""
        for (colour, _who), v in zip(wanted, values, strict=True):
            pocket = ht.POCKET_OF[colour]
            if table.pockets.get(pocket) is not None or pocket in table.pocket_problems:
                await self.set_die(pocket, None)
                await self.needs(lambda p=pocket: table.pockets.get(p) is None and
                                  p not in table.pocket_problems, "an empty pocket")
            await self.set_die(pocket, "die:%s:%d" % (colour, v))
            await self.needs(lambda p=pocket: p in table.used, "the %s die read" % colour)


def dice_value(rolled, kind, colour, who):
    """The value of one die of an action with its dice (host.games.heroes.interpreter.with_dice)."""
    if kind == "roll_move":
        return rolled["die"]
    if kind in ("roll_off", "roll_bonus"):
        return rolled["dice"][who]
    return rolled["dice"]["red"] if colour == "red" else rolled["dice"]["white"][who]
