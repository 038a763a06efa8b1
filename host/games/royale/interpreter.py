"""Battle Royale on the table: sensor changes in, game actions (or a mismatch) out.

The table: the 25 cells of the
diamond hold face-down map cards ("royale:<id>" tags, read through the table
top); each player has a pawn ("pawn:<colour>"; the engine's seats are colour
names, other player ids take the colours in seat order); the dice tray has
three pockets 1..3, one die each, every face of a die tagged "die:<n>:<face>"
(the face item is the value showing on top).

The gestures:

    order phase     roll one die per player who must roll into pockets 1, 2, 3
                    (seat order; more than three players roll in several throws,
                    taking the dice out between throws); or any seat button
                    "roll" lets the engine roll
    place phase     put your pawn on a free cell of the outer ring
    move            lift your pawn and put it on a neighbouring cell
    attack a card   tap your cell's pad, then roll the three dice into the three
                    pockets: applied when all three have settled
    attack a player hold your cell's pad: the target is the other living player
                    there (with several, each further hold picks the next, until
                    the first die is read); then each round the attacker's die goes
                    in pocket 1 and the defender's in pocket 2; take them out for
                    the next round. A duellist holding no card rolls two dice (keeps
                    the lower): pockets 1-2 for them, the other's die in the next
                    pocket; when both hold no card a round is two throws (the
                    attacker's two dice, then the defender's). Applied when decided.
    call off        a duel: hold again past the last target, before the first die
                    is read; an attack on a card: take another action (move, end turn)
    resurrect       double tap your pawn's cell
    swap            seat button "swap": each press names the next possible swap
                    (active <-> set-aside) on the host, past the last one "no swap";
                    "end_turn" then confirms the swap named (the turn goes on)
    end turn        seat button "end_turn"

Where a player dies, the engine picks the fall cell: it is lit and the pawn
must be moved there. A won card must be lifted off the map. Until then the
table and the game disagree: every disagreement (an unexpected lift, an
unknown or forged tag, a pawn on the wrong cell, a won card still on the map,
dice that are not dice) is a Mismatch in words with its cells, and nothing is
applied until the table matches again. Dice already lying in the tray when a
throw starts do not count: take them out and roll.

This module is the interpreter (host/table/contract.py, TableInterpreter, with the
tray's host/table/dice_tray.py) and the facts of the table it reads by (pawn colours,
who rolls, how a duel's dice are thrown). It is pure: the session feeds it observations,
gestures, dice and the time, and applies the actions it returns. Illegal gestures are
not applied; they land in `refusals` (cells, sentence) for the host to flash and say.
The adapter (lights, bots, hands) is host/games/royale/adapter.py; the virtual hands' dice
host/games/royale/dice.py.
"""

from host.table.dice_tray import DiceTrayInterpreter
from host.table.mismatch import Mismatch, foreign, piece_name
from shared_rules import royale

POCKETS = 3
# A pawn per player, tagged "pawn:<colour>"; players named by colour keep theirs.
PAWN_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")


def cell_of(i):
    return royale.CELLS[i]


def colour_of(state, pid):
    """The pawn colour of a player: its id when that is a colour, else by seat order."""
    if pid in PAWN_COLOURS:
        return pid
    return PAWN_COLOURS[state.seats.index(pid) % len(PAWN_COLOURS)]


def player_of(state, colour):
    for pid in state.seats:
        if colour_of(state, pid) == colour:
            return pid
    return None


def xy(cell):
    return "[%d, %d]" % (cell[0], cell[1])


def rollers(state):
    """The players who roll for the turn order now, in the engine's order."""
    return royale.rollers(state)


def duel_dice_counts(state, attacker, defender):
    """(attacker's dice, defender's dice) per round: 2 for a duellist holding no card."""
    a, d = state.players[attacker], state.players[defender]
    return (2 if a.held() == 0 else 1, 2 if d.held() == 0 else 1)


def duel_throws(counts):
    """The throws of one duel round: lists of (who, how many) filling pockets 1.. in order."""
    if counts[0] + counts[1] <= POCKETS:
        return [[(0, counts[0]), (1, counts[1])]]
    return [[(0, counts[0])], [(1, counts[1])]]


def duel_decided(state, attacker, defender, rounds):
    """True once the rounds given decide the duel (one side won the rounds it needs)."""
    a, d = state.players[attacker], state.players[defender]
    need = (royale.rounds_to_beat(state, d), royale.rounds_to_beat(state, a))
    wins = [0, 0]
    for pair in rounds:
        kept = [min(v) if isinstance(v, list) else v for v in pair]
        if kept[0] > kept[1]:
            wins[0] += 1
        elif kept[1] > kept[0]:
            wins[1] += 1
    return wins[0] >= need[0] or wins[1] >= need[1]

# ---------------------------------------------------------------- the interpreter

class Throw:
    """What the dice tray waits for: the dice of an order roll, a card attack or a duel."""

    def __init__(self, kind, player=None, cell=None, target=None, who=()):
        self.kind = kind          # "roll_order", "attack_card", "attack_player"
        self.player = player
        self.cell = cell
        self.target = target
        self.who = list(who)      # roll_order: the rollers, in pocket order
        self.values = []          # dice read so far (order: per roller; card: 3 values)
        self.rounds = []          # duel: the rounds read so far, [attacker's, defender's]
        self.part = []            # duel: the dice of the round so far, by duellist
        self.throw_no = 0         # duel: the throw of the round (0 or 1)

    def started(self):
        return bool(self.values or self.rounds or self.part)


class RoyaleTable(DiceTrayInterpreter):
    """The Battle Royale interpreter: `observed` holds item names ("royale:S5", "pawn:red")."""

    def __init__(self, match, hide_window_ms=None):
        super().__init__(match, hide_window_ms)
        self.pockets = {}         # pocket -> item name or None
        self.pocket_problems = {}  # pocket -> sentence
        self.used = set()         # pockets whose die was read (or was there before the throw)
        self.throw = None
        self.falls = {}           # player -> the cell the engine made them fall to
        self.in_hand = None       # the player whose pawn is lifted for a move
        self.swap_choice = None   # (seat, index into the legal swaps) shown on the host

    # ------------------------------------------------------------ inputs

    def after(self, events):
        """An action was applied: the tray starts afresh; note who fell where."""
        if self.throw is not None:
            self.used.update(p for p in range(POCKETS) if self.pockets.get(p))
        self.throw = None
        self.swap_choice = None
        for ev in events:
            if ev["type"] == "player_died":
                self.falls[ev["player"]] = tuple(ev["fell_to"])

    def observe_items(self, cell, items, problems=()):
        keep, problems = [], list(problems)
        for item in items:
            if item.startswith("royale:") or item.startswith("pawn:"):
                keep.append(item)
            elif item.startswith("die:"):
                problems.append("A die lies on the map at %s: roll dice in the tray." % xy(cell))
            else:
                problems.append("%s is not a Battle Royale piece: take it off %s." % (
                    foreign(item), xy(cell)))
        self.observe(cell, keep, problems)

    def progress(self):
        """A pawn in hand, or the dice the tray waits for."""
        if self.in_hand is not None:
            return {"text": "%s's pawn is in hand: put it on a lit cell." %
                            self.in_hand.capitalize(), "cells": []}
        throw = self.throw
        if throw is None:
            return None
        pockets = " and ".join(str(p + 1) for p in self.pockets_wanted()) or "the tray"
        if throw.kind == "roll_order":
            text = "Everybody rolls a die for the turn order: dice into pockets %s." % pockets
        elif throw.kind == "attack_card":
            text = "%s attacks the card: three dice into pockets %s." % (
                self.name(throw.player) if throw.player else "A player", pockets)
        else:
            text = "%s duels %s: dice into pockets %s." % (
                self.name(throw.player) if throw.player else "A player",
                self.name(throw.target) if throw.target else "a player", pockets)
        return {"text": text, "cells": [list(throw.cell)] if throw.cell else []}

    def busy(self):
        """True while a change is under way: a pawn in hand, a throw being read."""
        return self.in_hand is not None or (self.throw is not None and
                                            self.throw.kind != "roll_order")

    def expected(self):
        """What should lie on each cell now: cell -> sorted item names."""
        s = self.state
        out = {}
        for i, cid in enumerate(s.map):
            if cid is not None:
                out.setdefault(cell_of(i), []).append("royale:" + cid)
        for pid in s.seats:
            p = s.players[pid]
            if p.cell >= 0:
                out.setdefault(cell_of(p.cell), []).append("pawn:" + colour_of(s, pid))
        for cell in out:
            out[cell].sort()
        return out

    # ------------------------------------------------------------ the table vs the game

    def reconcile(self, now):
        """Compare the table with the game: returns the action the table shows, or None.

        Sets self.mismatches to what disagrees otherwise.
        """
        s = self.state
        self.mismatches = []
        self.in_hand = None
        for cell in sorted(self.problems):
            self.mismatches.append(Mismatch("bad_tag", [cell], " ".join(self.problems[cell])))
        self._check_tray()
        cards_seen, pawns_seen = {}, {}
        for cell in sorted(self.observed):
            for item in self.observed[cell]:
                kind, name = item.split(":", 1)
                if kind == "royale":
                    cards_seen.setdefault(cell, []).append(name)
                else:
                    pawns_seen.setdefault(name, []).append(cell)
        self._check_cards(s, cards_seen)
        candidates = self._check_pawns(s, pawns_seen)
        if s.phase == "order" and self.throw is None:
            self.throw = Throw("roll_order", who=rollers(s))
            self.used.update(p for p in range(POCKETS) if self.pockets.get(p))
        if self.mismatches or len(candidates) != 1:
            return None
        return candidates[0]

    def _check_cards(self, s, cards_seen):
        where = {}
        for i, cid in enumerate(s.map):
            if cid is not None:
                where[cid] = cell_of(i)
        owner = {}
        for pid in s.seats:
            for cid in s.players[pid].active + s.players[pid].reserve:
                owner[cid] = pid
        explained = set()
        for cell in sorted(cards_seen):
            cards = cards_seen[cell]
            if len(cards) > 1:
                self.mismatches.append(Mismatch("stacked", [cell], "%d map cards lie on %s: "
                                                "leave one card per cell." % (len(cards),
                                                                              xy(cell))))
                continue
            cid = cards[0]
            if where.get(cid) == cell:
                continue
            if cid in owner:
                self.mismatches.append(Mismatch(
                    "won_on_map", [cell], "%s was won by %s: lift it off the map at %s." % (
                        self.card_name(cid), self.name(owner[cid]), xy(cell))))
            elif cid in where:
                explained.add(cid)
                self.mismatches.append(Mismatch(
                    "moved", [cell, where[cid]], "The map card on %s belongs on %s: put it "
                    "back there." % (xy(cell), xy(where[cid]))))
            else:
                self.mismatches.append(Mismatch(
                    "not_in_game", [cell], "The card on %s is not part of this map: lift it "
                    "off." % xy(cell)))
        for cid in sorted(where, key=lambda c: where[c]):
            cell = where[cid]
            if cid not in cards_seen.get(cell, ()) and cid not in explained:
                self.mismatches.append(Mismatch(
                    "lifted", [cell], "Put the face-down map card back on %s." % xy(cell)))

    def _check_pawns(self, s, pawns_seen):
        """Mismatches about pawns; returns the actions the pawns show (a move, a place)."""
        candidates = []
        now_pid = royale.current(s)
        for colour in sorted(pawns_seen):
            cells = pawns_seen[colour]
            pid = player_of(s, colour)
            if pid is None:
                for cell in cells:
                    self.mismatches.append(Mismatch(
                        "no_player", [cell], "Nobody plays %s in this game: take the %s pawn "
                        "off %s." % (colour, colour, xy(cell))))
                continue
            if len(cells) > 1:
                self.mismatches.append(Mismatch(
                    "two_pawns", cells, "The %s pawn is seen on %s at once: one is a copy; "
                    "take it off." % (colour, " and ".join(xy(c) for c in cells))))
        for pid in s.seats:
            p = s.players[pid]
            colour = colour_of(s, pid)
            cells = pawns_seen.get(colour, [])
            if len(cells) > 1:
                continue
            seen = cells[0] if cells else None
            home = cell_of(p.cell) if p.cell >= 0 else None
            if seen == home:
                if home is not None and self.falls.get(pid) == home:
                    del self.falls[pid]
                continue
            if home is None:
                if s.phase == "place" and pid == now_pid:
                    action = {"type": "place", "cell": list(seen)}
                    problem = royale.validate(s, action)
                    if problem is None:
                        candidates.append(action)
                    else:
                        self.mismatches.append(Mismatch(problem.code, [seen], "%s Take the %s "
                                                        "pawn off %s." % (problem.message,
                                                                          colour, xy(seen))))
                else:
                    self.mismatches.append(Mismatch(
                        "not_yet", [seen], "%s: take the %s pawn off %s." % (
                            "Roll for the turn order first" if s.phase == "order" else
                            "It is %s's turn to place a pawn" % self.name(now_pid), colour,
                            xy(seen))))
                continue
            if self.falls.get(pid) == home:
                self.mismatches.append(Mismatch(
                    "fall", [home] + ([seen] if seen else []), "%s died and falls to %s: move "
                    "the %s pawn to the lit cell." % (self.name(pid), xy(home), colour)))
                continue
            moving = s.phase == "play" and pid == now_pid and p.alive
            if seen is None:
                if moving and any(a["type"] == "move" for a in royale.legal_actions(s)):
                    self.in_hand = pid
                else:
                    self.mismatches.append(Mismatch(
                        "lifted", [home], "Put the %s pawn back on %s." % (colour, xy(home))))
                continue
            if moving:
                action = {"type": "move", "to": list(seen)}
                problem = royale.validate(s, action)
                if problem is None:
                    candidates.append(action)
                else:
                    self.mismatches.append(Mismatch(problem.code, [home, seen], "%s Put the %s "
                                                    "pawn back on %s." % (problem.message,
                                                                          colour, xy(home))))
                continue
            self.mismatches.append(Mismatch(
                "pawn_moved", [home, seen], "The %s pawn belongs on %s, not %s." % (
                    colour, xy(home), xy(seen))))
        return candidates

    def _check_tray(self):
        dice_at = {}
        for pocket in sorted(self.pocket_problems):
            self.mismatches.append(Mismatch("bad_die", [], "Pocket %d: %s" % (
                pocket + 1, self.pocket_problems[pocket])))
        for pocket in sorted(p for p in self.pockets if self.pockets[p]):
            item = self.pockets[pocket]
            if not item.startswith("die:"):
                self.mismatches.append(Mismatch("not_a_die", [], "Pocket %d holds %s, which is "
                                                "not a die: take it out." % (
                                                    pocket + 1, piece_name(item))))
                continue
            dice_at.setdefault(item.split(":")[1], []).append(pocket + 1)
        for die in sorted(dice_at):
            if len(dice_at[die]) > 1:
                self.mismatches.append(Mismatch(
                    "two_dice", [], "Die %s is seen in pockets %s at once: one of them is not "
                    "a real die; take it out." % (die, " and ".join(map(str, dice_at[die])))))

    # ------------------------------------------------------------ the dice tray

    def pockets_wanted(self):
        """The pockets the tray waits for now (0-based), in order: lit on the table."""
        t = self.throw
        if t is None:
            return []
        if t.kind == "attack_card":
            n = POCKETS
        elif t.kind == "roll_order":
            n = min(POCKETS, len(t.who) - len(t.values))
        else:
            n = sum(k for _, k in duel_throws(self._counts(t))[t.throw_no])
        return [p for p in range(n)]

    def _counts(self, t):
        return duel_dice_counts(self.state, t.player, t.target)

    def _read(self, now):
        t = self.throw
        want = self.pockets_wanted()
        if not want or any(not self.pockets.get(p) or p in self.used for p in want):
            return None
        values = [int(self.pockets[p].split(":")[2]) for p in want]
        self.used.update(want)
        self.progress_at = now
        if t.kind == "attack_card":
            return {"type": "attack_card", "dice": values}
        if t.kind == "roll_order":
            t.values.extend(values)
            if len(t.values) < len(t.who):
                self.note("Order roll: %d of %d dice read; take them out and roll "
                          "the next." % (len(t.values), len(t.who)))
                return None
            rolled = t.values[:len(t.who)]
            return {"type": "roll_order", "dice": dict(zip(t.who, rolled, strict=True))}
        counts = self._counts(t)
        at = 0
        for who, k in duel_throws(counts)[t.throw_no]:
            got = values[at:at + k]
            at += k
            t.part.append((who, got[0] if k == 1 else got))
        t.throw_no += 1
        if t.throw_no < len(duel_throws(counts)):
            return None
        pair = [None, None]
        for who, v in t.part:
            pair[who] = v
        t.rounds.append(pair)
        t.part, t.throw_no = [], 0
        self.note("Duel round %d: %s" % (len(t.rounds), self._pair_words(t, pair)))
        if duel_decided(self.state, t.player, t.target, t.rounds):
            return {"type": "attack_player", "target": t.target, "dice": list(t.rounds)}
        return None

    def _start_throw(self, throw):
        self.throw = throw
        # Dice lying in the tray before the throw do not count: take them out and roll.
        self.used.update(p for p in range(POCKETS) if self.pockets.get(p))

    # ------------------------------------------------------------ pads and buttons

    def gesture(self, cell, kind, now):
        """A tap, double tap or hold on a cell's pad: returns an action or None."""
        s = self.state
        if self.mismatches:
            return None
        if s.phase != "play":
            return self.refuse([cell], "The pads start working once every pawn is placed.")
        pid = royale.current(s)
        p = s.players[pid]
        home = cell_of(p.cell)
        if cell != home:
            return self.refuse([cell], "It is %s's turn: %s's pawn stands on %s." % (
                self.name(pid), self.name(pid), xy(home)))
        t = self.throw
        if kind == "tap":
            if t is not None and t.kind == "attack_card":
                return None  # already waiting for the dice
            problem = royale.validate(s, {"type": "attack_card"})
            if problem is not None:
                return self.refuse([cell], problem.message)
            self._start_throw(Throw("attack_card", pid, cell))
            self.progress_at = now
            self.note("%s attacks the card on %s: roll three dice into the tray." % (
                self.name(pid), xy(cell)))
            return None
        if kind == "hold":
            others = [q for q in s.order if q != pid and s.players[q].alive
                      and s.players[q].cell == p.cell]
            if t is not None and t.kind == "attack_player" and not t.started():
                i = others.index(t.target) + 1 if t.target in others else 0
                if i >= len(others):
                    self.throw = None
                    self.note("%s called off the duel." % self.name(pid))
                    return None
                target = others[i]
            elif not others:
                return self.refuse([cell], "There is no other living player on %s to attack."
                                   % xy(cell))
            else:
                target = others[0]
            problem = royale.validate(s, {"type": "attack_player", "target": target})
            if problem is not None:
                return self.refuse([cell], problem.message)
            self._start_throw(Throw("attack_player", pid, cell, target))
            self.progress_at = now
            counts = self._counts(self.throw)
            self.note("%s duels %s: each round, %s." % (
                self.name(pid), self.name(target), self._round_words(pid, target, counts)))
            return None
        if kind == "double":
            action = {"type": "resurrect"}
            problem = royale.validate(s, action)
            if problem is not None:
                return self.refuse([cell], problem.message)
            return action
        return None

    def name(self, pid):
        """A player as people say it: the pawn's colour ("Red"); "Nobody" for no player."""
        if pid is None:
            return "Nobody"
        return colour_of(self.state, pid).capitalize()

    def card_name(self, cid):
        return self.state.cards[cid]["name"]

    def _pair_words(self, t, pair):
        """A duel round read: "Red 4, Blue 3"; two dice keep the lower ("Red 2 (2 and 5)")."""
        words = []
        for who, v in zip((t.player, t.target), pair, strict=True):
            if isinstance(v, list):
                words.append("%s %d (%d and %d)" % (self.name(who), min(v), v[0], v[1]))
            else:
                words.append("%s %d" % (self.name(who), v))
        return ", ".join(words)

    def _round_words(self, pid, target, counts):
        throws = duel_throws(counts)
        names = (self.name(pid), self.name(target))
        parts = []
        for throw in throws:
            at, words = 1, []
            for who, k in throw:
                pockets = "pocket %d" % at if k == 1 else "pockets %d and %d" % (at, at + 1)
                words.append("%s's %s in %s" % (names[who], "die" if k == 1 else "two dice",
                                                 pockets))
                at += k
            parts.append(", ".join(words))
        return "; then ".join(parts)

    def swap_options(self):
        return [a for a in royale.legal_actions(self.state) if a["type"] == "swap"]

    def button(self, seat, name):
        """A seat button: returns an action or None."""
        s = self.state
        if name == "roll" and s.phase == "order":
            return {"type": "roll_order"}  # the engine rolls for everybody who must
        if self.mismatches:
            return None
        if s.phase != "play" or seat != royale.current(s):
            return None
        if name == "swap":
            options = self.swap_options()
            if not options:
                return self.refuse([], "%s cannot swap now (only before the first action "
                                   "of the turn, with a set-aside card)." % self.name(seat))
            i = 0 if self.swap_choice is None else self.swap_choice[1] + 1
            if i >= len(options):
                self.swap_choice = None
                self.note("%s: no swap." % self.name(seat))
                return None
            self.swap_choice = (seat, i)
            a = options[i]
            self.note("%s: swap the %s (active) for the %s (set aside)? End the turn to "
                      "confirm." % (self.name(seat), self.card_name(a["active"]),
                                    self.card_name(a["reserve"])))
            return None
        if name == "end_turn":
            if self.swap_choice is not None and self.swap_choice[0] == seat:
                options = self.swap_options()
                i = self.swap_choice[1]
                self.swap_choice = None
                if i < len(options):
                    return options[i]
            return {"type": "end_turn"}
        return None

    def cancel_throw(self):
        """Forget a throw under way (its move is asked again)."""
        if self.throw is not None and self.throw.kind != "roll_order":
            self.throw = None
