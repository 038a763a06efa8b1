"""The players' hands on the virtual table: they carry out moves with tags, taps and holds.

On a real table a person places, lifts, taps and holds cards; on the virtual
table these hands do it through the tiles' control channel, so every action
still travels as tags and gestures through the real firmware and the link.
Used for bots' moves in headless games, tidying up (lifting captured cards),
and setting the cards back on a fresh virtual table when a game resumes.

A game's hands (a `VirtualHands` subclass, made by its TableGame.hands) carry out
`perform(state, action, at)` and `tidy(state, table)`; `at` is the bots at the table
whose move it is (host/bots_at_table.py): `at.table` the interpreter, `at.step` the
actions applied so far, `at.seed` the game's seed, `at.press(seat, name)` a seat button.
"""

import asyncio

from host.table import fightclub_table as ft
from host.table import royale_table as rt
from host.table import tags
from host.virtual.dice import table_dice
from shared_rules import fightclub, royale, storybook


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

    async def tidy(self, state, table):
        """Must: make the table show the game (`table` is the interpreter)."""
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
        tile, slot = self._tile_slot(cell)
        uid = tags.virtual_uid(item)
        identity = self.registry.identity_for(uid, item)
        # Through place (not a bare request): the tile keeps the card, and puts it back
        # when its watchdog restarts it.
        await self._call(lambda: tile.place(slot, uid.hex(), identity_hex=identity.hex()))
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
        await self._call(lambda: tray.set_die(pocket, uid.hex(), identity_hex=identity.hex()))


class StorybookHands(VirtualHands):
    """Hands that carry out Storybook Battles moves."""

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
            dst = storybook._slide_target(state, src, storybook.FACINGS.index(action["dir"]))
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


class RoyaleHands(VirtualHands):
    """Hands that carry out Battle Royale moves: pawns, pads and the dice tray.

    The dice are rolled by the hands: `host.virtual.dice.table_dice` seeded with the game's seed,
    the number of actions applied so far and the state, so the outcome reaches the engine
    through the tray's tags as in real play, and a resumed game rolls what the
    uninterrupted one rolled.
    """

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

    async def _needs(self, predicate, what):
        if not await self.wait_until(predicate):
            raise HandsSlipped("the table did not show %s" % what)

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
            await self._needs(lambda: pawn not in table.observed.get(here, ()), "the lift")
            await self.place(tuple(action["to"]), pawn)
        elif kind == "resurrect":
            await self.gesture(here, "double")
        elif kind == "roll_order":
            rolled = table_dice(state, action, at.seed, step)["dice"]
            await self._needs(lambda: table.throw is not None, "the order roll")
            who = table.throw.who
            for first in range(0, len(who), rt.POCKETS):
                await self.roll(table, [rolled[q] for q in who[first:first + rt.POCKETS]])
        elif kind == "attack_card":
            rolled = table_dice(state, action, at.seed, step)["dice"]
            await self.empty_tray(table)
            if table.throw is None or table.throw.kind != "attack_card":
                await self.gesture(here, "tap")
            await self._needs(lambda: table.throw is not None and
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
                await self._needs(lambda held=throw: table.throw is not held or (
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
        await self._needs(lambda: table.throw is None or all(p in table.used for p in want),
                          "the dice read")

    async def empty_tray(self, table, wait=True):
        full = [p for p in sorted(table.pockets) if table.pockets[p] is not None
                or p in table.pocket_problems]
        for pocket in full:
            await self.set_die(pocket, None)
        if wait:
            await self._needs(lambda: all(table.pockets.get(p) is None and
                                      p not in table.pocket_problems for p in full),
                              "an empty tray")

    async def tidy(self, state, table):
        """Make the table show the game: won cards off, pawns where they fell, the map laid.

        The session awaits this without reading the tiles meanwhile: send, never wait.
        """
        table.cancel_throw()
        want = table.expected()
        for cell in sorted(set(table.observed) | set(table.problems) | set(want)):
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


class HeroesHands(RoyaleHands):
    """Hands that carry out Battle Royale with hero teams moves: figures, cards laid on the
    playing seat's card reader (then a tap naming who plays a Bonus Card, when several of
    the seat's characters could), flags, taps and the red, white and green dice.

    The dice come from `host.table.heroes_table.table_dice` (seeded as Battle Royale's
    are), so the outcome reaches the engine through the tray's tags as in real play. Each
    die goes in its own pocket (red 1, white 2, green 3), one throw per die: the pocket is
    emptied and seen empty before the die settles, so a second white die of an area attack
    is read as a new throw. Tidying is Battle Royale's (what `expected()` says, nothing
    else), and the seats' card readers emptied: played cards are lifted off.
    """

    async def perform(self, state, action, at):
        """Carry out a bot's heroes action on the table."""
        from host.table import heroes_table as ht
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
            await self._needs(lambda: table.throw is not None and table.auto and
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
                await self._needs(lambda: table.card_play is not None or at.step != step or
                                  (table.throw is not None and not table.auto), "the card")
                if table.card_play is not None and table.card_play["character"] is None:
                    await self.tap_until(cell, lambda: at.step != step or (
                        table.card_play is not None and table.card_play["character"] ==
                        mover) or (table.throw is not None and not table.auto),
                        "who plays the card")
            if card["kind"] == "move":
                await self._needs(lambda: table.card_play is not None, "the card")
                await self.carry(table, mover, cell, action, carried if kind == "play_card"
                                 else None, flag_at)
            elif card["kind"] == "attack":
                if card["area"] == "one":
                    await self._needs(lambda: table.card_play is not None, "the card")
                    await self.tap_until(home[action["target"]], lambda: table.throw is not
                                         None and not table.auto, "the target")
                else:
                    await self._needs(lambda: table.throw is not None and not table.auto,
                                      "the card's throw")
                await self.throw_dice(table, wanted, values)
            elif card["kind"] == "heal" and card["range"] > 0:
                await self._needs(lambda: table.card_play is not None, "the card")
                await self.gesture(home[action["target"]], "tap")
        else:
            raise ValueError("the hands cannot carry out %r" % (kind,))

    async def tidy(self, state, table):
        """Battle Royale's tidying, then every seat's card reader emptied (a card lies there
        only while it is played: once played, or given up, it is lifted off)."""
        await super().tidy(state, table)
        for seat in sorted(set(table.seat_observed) | set(table.seat_problems)):
            if seat not in self.layout.seat_slot:
                continue
            tile, slot = self._tile_slot(("seat", seat))
            await self._call(tile.clear, slot)
            self.cards_on.pop(("seat", seat), None)

    async def tap_until(self, cell, predicate, what):
        await self.gesture(cell, "tap")
        await self._needs(predicate, what)

    async def carry(self, table, cid, here, action, carried, flag_at):
        """Move a figure from `here` to action["to"], with the flag it carries if any."""
        from host.table import heroes_table as ht
        figure = ht.FIGURE + cid
        await self.lift(here, figure)
        flag_to = action.get("flag_to")
        if flag_to is not None:
            await self.lift(flag_at[carried], ht.FLAG + carried)
        await self._needs(lambda: figure not in table.observed.get(here, ()), "the lift")
        await self.place(tuple(action["to"]), figure)
        if flag_to is not None:
            await self.place(tuple(flag_to), ht.FLAG + carried)

    async def throw_dice(self, table, wanted, values):
        """Each die in its pocket, one throw at a time, each read before the next."""
        from host.table import heroes_table as ht
        for (colour, _who), v in zip(wanted, values, strict=True):
            pocket = ht.POCKET_OF[colour]
            if table.pockets.get(pocket) is not None or pocket in table.pocket_problems:
                await self.set_die(pocket, None)
                await self._needs(lambda p=pocket: table.pockets.get(p) is None and
                                  p not in table.pocket_problems, "an empty pocket")
            await self.set_die(pocket, "die:%s:%d" % (colour, v))
            await self._needs(lambda p=pocket: p in table.used, "the %s die read" % colour)


def dice_value(rolled, kind, colour, who):
    """The value of one die of an action with its dice (host.table.heroes_table.with_dice)."""
    if kind == "roll_move":
        return rolled["die"]
    if kind in ("roll_off", "roll_bonus"):
        return rolled["dice"][who]
    return rolled["dice"]["red"] if colour == "red" else rolled["dice"]["white"][who]


class FightclubHands(VirtualHands):
    """Hands that carry out Fairy Tale Fight Club moves: creature cards on and off wagons
    and the Market, contract cards lifted and laid out.

    A card put down is the card the engine names (its hand holds that id); a card lifted
    is one the table shows with the value wanted (any 7 is a 7)."""

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

    async def tidy(self, state, table):
        """Make the table show the game: what should not be there lifted, what should
        put down (the cards the engine names). Send, never wait."""
        self._acting(state, table)
        want = table.expected()
        for cell in sorted(set(table.observed) | set(table.problems) | set(want)):
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
