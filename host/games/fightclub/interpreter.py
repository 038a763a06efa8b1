"""Fairy Tale Fight Club on the table: sensor changes in, game actions (or mismatches) out.

The table (host/games/fightclub/layout.toml draws the map): each seat's four wagons are reader
cells in front of it, the contract area is eight cells in the middle, the Market ten
cells beside it; the hands stay in the players' hands (the host knows them: draws come
from the engine's decks, the web table shows each seat its cards). Creature and contract
cards carry tags; creature cards are compared by their numbers, not their ids (any 7
stands for any 7), contracts by their ids. Gold is the host's: shown on the seat's LEDs
and in the web table.

What the table shows, for the seat whose turn it is:

    creature cards put on an own wagon             load (a group from the hand)
    cards lifted from one own wagon, put on another move
    cards lifted from an own wagon                 discard from that wagon
    a wagon's cards and a contract card lifted     complete the contract (the wagon held
                                                   exactly its creatures)
    cards put into the Market and cards taken out  exchange (one for several, or several
                                                   for one, of equal sums)
    one card put into the Market (Market step)     to_market
    hold a contract's pad                          reserve it (1 gold)
    seat button "end_turn"                         end the actions; in the draw step,
                                                   draw up to the hand size
    seat button "wagon" / "action"                 buy the next wagon with gold / one more
                                                   limited action for 2 gold

A group is read when the table has been still for `hide_window_ms` (a load of three
cards is one action, however slowly it goes down), at once when its player taps the pad of
the wagon (or a Market cell) it went to, and at once when it is the move a bot asked for.
Discarding from the hand, drawing one for one, paying a wagon with creature points,
discarding down, fight cards and passing cards name cards of the hand only: the web table
or a bot makes them (`FightclubGame.is_button_action`).

Anything else is a mismatch in words naming the cells: a card on another seat's wagon, a
card on a cell that holds nothing in this game, a completed contract still on the table,
a new contract or a Market card the engine dealt that is not yet on the table. After an
action the engine changed the table by itself (a contract drawn, the Market dealt again,
a wheelbarrow destroyed), nothing the table shows is read as a move until it matches the
game again.

This module is the interpreter only (host/table/contract.py, TableInterpreter); the
adapter is host/games/fightclub/adapter.py, the virtual hands host/virtual/hands.py.
"""

from host.table.contract import TableInterpreter
from host.table.mismatch import Mismatch
from shared_rules import fightclub

SEAT_WORDS = {"p1": "Red (south)", "p2": "Blue (west)", "p3": "Green (north)",
              "p4": "Yellow (east)"}
WAGON_WORDS = {"wheelbarrow": "Wheelbarrow", "hand_cart": "Hand Cart",
               "horse_wagon": "Horse Wagon", "war_wagon": "War Wagon"}


def _zones():
    """cell -> ("wagon", seat, wagon) | ("contract", i) | ("market", i) | None (unused).

    The map of host/games/fightclub/layout.toml: each seat's wagons left to right as it sees
    them, the contract area in rows 3-4, the Market in rows 1-2."""
    zones = {}
    for c in range(7):
        for r in range(7):
            zones[(c, r)] = None
    rows = {"p1": [(1, 0), (2, 0), (3, 0), (4, 0)],
            "p2": [(0, 5), (0, 4), (0, 3), (0, 2)],
            "p3": [(5, 6), (4, 6), (3, 6), (2, 6)],
            "p4": [(6, 1), (6, 2), (6, 3), (6, 4)]}
    for seat in rows:
        for w, cell in zip(fightclub.WAGONS, rows[seat], strict=True):
            zones[cell] = ("wagon", seat, w)
    for i, cell in enumerate([(2, 4), (3, 4), (4, 4), (5, 4), (2, 3), (3, 3), (4, 3), (5, 3)]):
        zones[cell] = ("contract", i)
    for i, cell in enumerate([(c, r) for r in (2, 1) for c in range(1, 6)]):
        zones[cell] = ("market", i)
    return zones


ZONES = _zones()
WAGON_CELL = dict(((z[1], z[2]), cell) for cell, z in ZONES.items() if z and z[0] == "wagon")
CONTRACT_CELLS = sorted((z[1], cell) for cell, z in ZONES.items() if z and z[0] == "contract")
CONTRACT_CELLS = [cell for _, cell in CONTRACT_CELLS]
MARKET_CELLS = [cell for _, cell in sorted((z[1], cell) for cell, z in ZONES.items()
                                           if z and z[0] == "market")]

# Events of what the engine moves on the table by itself.
ENGINE_MOVES = ("contract_drawn", "market_dealt", "market_discarded", "creatures_reshuffled",
                "wheelbarrow_destroyed")

# Actions read only once the table has been still for the window (a group goes down card
# by card); the others are read at once.
GROUPS = ("load", "move", "discard", "exchange")


def is_creature(item):
    return len(item) == 6 and item[0] == "c" and item[1:3].isdigit() and item[3] == "-"


def values(items):
    return sorted(fightclub.value(c) for c in items if is_creature(c))


def minus(a, b):
    """The multiset a - b of sorted value lists."""
    out = list(a)
    for v in b:
        if v in out:
            out.remove(v)
    return out


def ids_for(lst, wanted):
    """The first ids of `lst` with the values `wanted` (the engine's normal form), or None."""
    pool = sorted(lst)
    out = []
    for v in wanted:
        for c in pool:
            if fightclub.value(c) == v and c not in out:
                out.append(c)
                break
        else:
            return None
    return sorted(out)


def numbers(vals):
    """[7, 3, 3] -> "a 3, a 3 and a 7"."""
    words = ["an %d" % v if v in (8,) else "a %d" % v for v in sorted(vals)]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def at(cell):
    return "[%d, %d]" % (cell[0], cell[1])


def wagon_words(seat, w):
    return "%s's %s %s" % (SEAT_WORDS.get(seat, seat), WAGON_WORDS[w], at(WAGON_CELL[(seat, w)]))


def contract_words(s, cid):
    c = s.cat.contracts.get(cid)
    if c is None:
        return cid
    return 'the contract "%s" (%s)' % (c["name"], ", ".join(str(v) for v in c["creatures"]))


class FightclubTable(TableInterpreter):
    """The Fight Club interpreter: `observed` holds item ids ("c07-03", "L1-05")."""

    hide_window_ms = 3000     # a person puts a few cards down one by one (or taps: done)

    def __init__(self, match, hide_window_ms=None):
        super().__init__(match, hide_window_ms)
        self.pending = None       # (action, since_ms): a group read, waiting for stillness
        self.done_tapped = False  # the player tapped a pad: the group is complete
        self.catching_up = False  # the engine changed the table by itself: not yet shown
        self.moved = False        # something was put down or lifted since the last reading
        self.moved_now = False    # ... before this reading (`reconcile`)

    # ------------------------------------------------------------ inputs

    def observe(self, cell, items, problems=()):
        if sorted(items) != self.observed.get(cell, []):
            self.moved = True
        TableInterpreter.observe(self, cell, items, problems)

    def observe_items(self, cell, items, problems=()):
        """Tags resolved to item names ("fightclub:c07-03", "pawn:red"...) on a cell."""
        self.observe_cards(cell, items, problems, "fightclub:", "Fight Club")

    def after(self, events):
        """The engine applied an action: what it changed on the table by itself (a contract
        drawn, the Market dealt or shuffled away, a wheelbarrow destroyed) must reach the
        table before the table's changes are read as moves again. A button's action that
        changed nothing there leaves a group being put down as it is."""
        self.pending = None
        if any(ev["type"] in ENGINE_MOVES for ev in events):
            self.catching_up = True

    def busy(self):
        return self.pending is not None

    def progress(self):
        """A group of cards being put down: read once the table is still."""
        if self.pending is None:
            return None
        return {"text": "Cards are going down: they are read once the table is still.",
                "cells": []}

    def expect_bot_move(self, action, now):
        self.bot_move = action
        if action is None and self.pending is not None:
            self.pending = (self.pending[0], now)

    def tick(self, now):
        if self.pending is None:
            return None
        return self.reconcile(now)

    # ------------------------------------------------------------ what should lie where

    def contract_cells(self):
        """contract id -> the cell it lies on (seen), for the contracts in play; those not
        seen get the free contract cells in order."""
        s = self.state
        where = {}
        for cell in CONTRACT_CELLS:
            for item in self.observed.get(cell, ()):
                if item in s.area and item not in where:
                    where[item] = cell
        free = [c for c in CONTRACT_CELLS if c not in where.values()
                and not self.observed.get(c)]
        for cid in s.area:
            if cid not in where and free:
                where[cid] = free.pop(0)
        return where

    def expected(self):
        """cell -> sorted ids: wagons and contracts (the Market is one pile: its cards are
        given to the cells that hold them, the rest to the emptiest cells)."""
        s = self.state
        out = {}
        for x in s.seats:
            for w in fightclub.WAGONS:
                cards = s.players[x].wagons[w]
                if cards:
                    out[WAGON_CELL[(x, w)]] = sorted(cards)
        for cid, cell in self.contract_cells().items():
            out.setdefault(cell, []).append(cid)
        left = list(s.market)
        for cell in MARKET_CELLS:
            for item in self.observed.get(cell, ()):
                if not is_creature(item):
                    continue
                match = [c for c in left if fightclub.value(c) == fightclub.value(item)]
                if match:
                    left.remove(match[0])
                    out.setdefault(cell, []).append(match[0])
        for c in left:
            cell = min(MARKET_CELLS, key=lambda m: (len(out.get(m, ())), MARKET_CELLS.index(m)))
            out.setdefault(cell, []).append(c)
        for cell in out:
            out[cell].sort()
        return out

    # ------------------------------------------------------------ reading the table

    def reconcile(self, now):
        """Compare the table with the game: the action it shows, or None (mismatches set)."""
        s = self.state
        self.mismatches = []
        self.moved_now, self.moved = self.moved, False
        if s.status != "ongoing":
            self.pending = None
        for cell in sorted(self.problems):
            self.mismatches.append(Mismatch("bad_tag", [cell], " ".join(self.problems[cell])))
        diff = self._differences(s)
        if not diff["any"]:
            self.catching_up = False
            self.pending = None
            return None
        if self.mismatches or self.catching_up or s.status != "ongoing":
            self._say_all(s, diff)
            self.pending = None
            return None
        action = self._read(s, diff, now)
        if self.mismatches:
            self.pending = None
        return action

    def _differences(self, s):
        """What differs between the table and the game, by zone."""
        d = {"wagon_extra": {}, "wagon_missing": {}, "wrong_cell": [], "contract_extra": [],
             "contract_missing": [], "market_extra": [], "market_missing": [], "any": False}
        market_seen = []
        contracts_seen = {}
        for cell in sorted(self.observed):
            zone = ZONES.get(cell)
            items = self.observed[cell]
            for item in items:
                creature = is_creature(item)
                if zone is None or (zone[0] == "contract") == creature:
                    d["wrong_cell"].append((cell, item))
                elif zone[0] == "contract":
                    contracts_seen[item] = cell
                elif zone[0] == "market":
                    market_seen.append(item)
        for x in fightclub.SEATS:
            for w in fightclub.WAGONS:
                cell = WAGON_CELL[(x, w)]
                seen = values(self.observed.get(cell, ()))
                engine = []
                if x in s.seats and s.players[x].wagons[w]:
                    engine = values(s.players[x].wagons[w])
                extra, missing = minus(seen, engine), minus(engine, seen)
                if extra:
                    d["wagon_extra"][(x, w)] = extra
                if missing:
                    d["wagon_missing"][(x, w)] = missing
        for cid in sorted(contracts_seen):
            if cid not in s.area:
                d["contract_extra"].append((contracts_seen[cid], cid))
        for cid in s.area:
            if cid not in contracts_seen:
                d["contract_missing"].append(cid)
        seen = values(market_seen)
        engine = values(s.market)
        d["market_extra"] = minus(seen, engine)
        d["market_missing"] = minus(engine, seen)
        d["any"] = bool(d["wagon_extra"] or d["wagon_missing"] or d["wrong_cell"] or
                        d["contract_extra"] or d["contract_missing"] or d["market_extra"] or
                        d["market_missing"])
        return d

    def _say_all(self, s, d):
        """Every difference as a mismatch: what to put back or lift, where."""
        add = self.mismatches.append
        for cell, item in d["wrong_cell"]:
            zone = ZONES.get(cell)
            what = contract_words(s, item) if not is_creature(item) else \
                "a %d" % fightclub.value(item)
            if zone is None:
                add(Mismatch("wrong_cell", [cell], "Nothing goes on %s in Fight Club: lift %s."
                             % (at(cell), what)))
            elif zone[0] == "contract":
                add(Mismatch("wrong_cell", [cell], "%s is the contract area: lift the creature "
                             "card (%s) off it." % (at(cell), what)))
            else:
                add(Mismatch("wrong_cell", [cell], "Contract %s belongs in the contract area, "
                             "not on %s: lift it." % (what, at(cell))))
        for key in sorted(d["wagon_extra"]):
            cell = WAGON_CELL[key]
            add(Mismatch("wagon_extra", [cell], "Lift %s off %s." % (
                numbers(d["wagon_extra"][key]), wagon_words(*key))))
        for key in sorted(d["wagon_missing"]):
            cell = WAGON_CELL[key]
            add(Mismatch("wagon_missing", [cell], "Put %s back on %s." % (
                numbers(d["wagon_missing"][key]), wagon_words(*key))))
        for cell, cid in d["contract_extra"]:
            done = [x for x in s.seats if cid in s.players[x].contracts]
            why = ("%s completed it" % done[0]) if done else "it is not in play"
            add(Mismatch("contract_extra", [cell], "Contract %s: %s; lift it off %s."
                         % (contract_words(s, cid), why, at(cell))))
        if d["contract_missing"]:
            where = self.contract_cells()
            for cid in d["contract_missing"]:
                cell = where.get(cid)
                add(Mismatch("contract_missing", [cell] if cell else list(CONTRACT_CELLS),
                             "Put %s on %s (the contract area)." % (
                                 contract_words(s, cid), at(cell) if cell else
                                 "a free cell")))
        if d["market_extra"]:
            cells = [c for c in MARKET_CELLS if self.observed.get(c)]
            add(Mismatch("market_extra", cells, "Take %s out of the Market (cells %s to %s)." %
                         (numbers(d["market_extra"]), at(MARKET_CELLS[0]),
                          at(MARKET_CELLS[-1]))))
        if d["market_missing"]:
            add(Mismatch("market_missing", list(MARKET_CELLS), "Put %s into the Market (cells "
                         "%s to %s)." % (numbers(d["market_missing"]), at(MARKET_CELLS[0]),
                                         at(MARKET_CELLS[-1]))))

    def _read(self, s, d, now):
        """The action the differences show for the seat whose turn it is, or None."""
        seat = s.turn
        others = [k for k in list(d["wagon_extra"]) + list(d["wagon_missing"]) if k[0] != seat]
        if others or d["wrong_cell"] or d["contract_extra"] or s.phase not in ("play", "market"):
            self._say_all(s, d)
            return None
        extra = d["wagon_extra"]
        missing = d["wagon_missing"]
        p = s.players[seat]
        action = None
        if s.phase == "market":
            if not extra and not missing and not d["contract_missing"] and \
                    not d["market_missing"] and len(d["market_extra"]) == 1:
                ids = ids_for(p.hand, d["market_extra"])
                if ids is None:
                    return self._refuse_now(s, d, "You do not hold %s to put into the Market." %
                                            numbers(d["market_extra"]))
                return self._checked(s, d, {"type": "to_market", "card": ids[0]})
            self._say_all(s, d)
            return None
        market = d["market_extra"] or d["market_missing"]
        if d["contract_missing"]:
            # A completion: the contract lifted and one wagon emptied of exactly its creatures.
            if market or extra or len(d["contract_missing"]) != 1:
                self._say_all(s, d)
                return None
            cid = d["contract_missing"][0]
            want = s.cat.contracts[cid]["creatures"]
            for w in fightclub.WAGONS:
                cards = p.wagons[w]
                if cards and values(cards) == sorted(want) and \
                        missing == {(seat, w): values(cards)}:
                    return self._checked(s, d, {"type": "complete", "contract": cid, "wagon": w})
            if len(missing) <= 1 and any(p.wagons[w] and values(p.wagons[w]) == sorted(want)
                                         for w in fightclub.WAGONS):
                # The contract lifted first: its wagon's cards are on their way off.
                return self._wait(s, d, None, now)
            self._say_all(s, d)
            return None
        if market:
            if extra or missing:
                self._say_all(s, d)
                return None
            give = ids_for(p.hand, d["market_extra"])
            take = ids_for(s.market, d["market_missing"])
            if not d["market_extra"] or not d["market_missing"]:
                return self._wait(s, d, None, now)     # half an exchange, so far
            if give is None:
                return self._refuse_later(s, d, now, "You do not hold %s to give to the Market."
                                          % numbers(d["market_extra"]))
            action = {"type": "exchange", "give": give, "take": take}
        elif len(extra) == 1 and not missing:
            (key, vals), = extra.items()
            ids = ids_for(p.hand, vals)
            if ids is None:
                return self._refuse_later(s, d, now, "You do not hold %s to put on %s." % (
                    numbers(vals), wagon_words(*key)))
            action = {"type": "load", "wagon": key[1], "cards": ids}
        elif len(missing) == 1 and len(extra) <= 1:
            (src, vals), = missing.items()
            ids = ids_for(p.wagons[src[1]] or [], vals)
            if extra:
                (dst, moved), = extra.items()
                if moved != vals:
                    if not minus(moved, vals):
                        return self._wait(s, d, None, now)    # a move under way
                    self._say_all(s, d)
                    return None
                action = {"type": "move", "from": src[1], "to": dst[1], "cards": ids}
            else:
                cards = p.wagons[src[1]]
                if vals == values(cards) and any(
                        values(cards) == sorted(s.cat.contracts[cid]["creatures"]) and
                        fightclub.validate(s, {"type": "complete", "contract": cid,
                                               "wagon": src[1]}) is None for cid in s.area):
                    # A wagon emptied that completes a contract: the contract card comes
                    # next (a whole wagon's discard of those very cards is not read).
                    return self._wait(s, d, None, now)
                action = {"type": "discard", "from": src[1], "cards": ids}
        else:
            self._say_all(s, d)
            return None
        return self._wait(s, d, action, now)

    def _same_as_bot(self, action):
        return self.bot_move is not None and action is not None and \
            fightclub.normal_form(self.state, self.bot_move) == action

    def _wait(self, s, d, action, now):
        """A group (or a change under way): read once the table has been still long
        enough, or at once if it is the bot's move."""
        if action is not None:
            action = fightclub.normal_form(s, action)
            if self._same_as_bot(action):
                self.pending = None
                return self._checked(s, d, action)
        # Still means nothing moved: a change that leaves the move half made (a contract
        # lifted, then its wagon's cards one by one) starts the wait again.
        if self.pending is None or self.pending[0] != action or self.moved_now:
            self.pending = (action, now)
            self.progress_at = now
            if action is None:
                self.done_tapped = False
        if self.done_tapped and action is not None and self.bot_move is None:
            self.done_tapped = False
            self.pending = None
            return self._checked(s, d, action)
        if now - self.pending[1] < self.hide_window_ms:
            return None
        if self.bot_move is not None:
            return None       # the hands are not done: the bot's patience decides
        if action is None:
            # A change that went no further: say what is out of place.
            self.pending = None
            self._say_all(s, d)
            return None
        self.pending = None
        return self._checked(s, d, action)

    def _checked(self, s, d, action):
        problem = fightclub.validate(s, action)
        if problem is None:
            return action
        self._refuse_now(s, d, problem.message)
        return None

    def _refuse_now(self, s, d, sentence):
        self._say_all(s, d)
        cells = sorted(set(c for m in self.mismatches for c in m.cells))
        self.mismatches.insert(0, Mismatch("not_allowed", cells, sentence + " Put the table "
                                           "back as it was."))
        return None

    def _refuse_later(self, s, d, now, sentence):
        if self.pending is None or self.pending[0] != ("refused", sentence):
            self.pending = (("refused", sentence), now)
        if now - self.pending[1] < self.hide_window_ms and self.bot_move is None:
            return None
        self.pending = None
        return self._refuse_now(s, d, sentence)

    # ------------------------------------------------------------ pads and buttons

    def gesture(self, cell, kind, now):
        """Hold a contract's pad: reserve it. Tap a pad while a group is going down: the
        group is complete, read it now."""
        s = self.state
        zone = ZONES.get(cell)
        if kind == "tap" and self.pending is not None and zone is not None and \
                zone[0] in ("wagon", "market"):
            self.done_tapped = True
            return self.reconcile(now)
        if kind != "hold" or zone is None or zone[0] != "contract" or self.mismatches:
            return None
        here = [c for c in self.observed.get(cell, ()) if c in s.area]
        if not here:
            return None
        action = {"type": "reserve", "contract": here[0]}
        problem = fightclub.validate(s, action)
        if problem is not None:
            return self.refuse([cell], problem.message)
        return action

    def button(self, seat, name):
        s = self.state
        if seat != s.turn or s.status != "ongoing":
            return None
        if name == "end_turn":
            action = {"type": "end_actions"} if s.phase == "play" else \
                {"type": "draw_up"} if s.phase == "draw" else None
        elif name == "draw" and s.phase == "draw":
            action = {"type": "draw_up"}
        elif name == "wagon":
            action = {"type": "buy_wagon", "wagon": fightclub.next_to_buy(s, seat)}
        elif name == "action":
            action = {"type": "buy_action"}
        else:
            return None
        if self.mismatches and action["type"] != "draw_up":
            return None
        problem = fightclub.validate(s, action)
        if problem is not None:
            return self.refuse([], problem.message)
        return action
