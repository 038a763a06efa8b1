"""Storybook Battles on the table: sensor changes in, game actions (or a mismatch) out.

The gestures:

    place a card on a cell          Play (face up), or Hide when a double tap
                                    follows within `hide_window_ms`
    double tap a just-placed card   Hide (it went down face down)
    tap a face-down card            Reveal
    hold an own face-up card        Spin clockwise
    double tap an own face-up card  Spin counter-clockwise
    lift a card, place it elsewhere Slide (to the cell the rules stop it at)
    seat button "draw" / "end_turn" Draw / End turn (battle)
    seat button "twist"             the seat's plot twist (during setup: the next of
                                    the four choices, confirmed with "end_turn");
                                    a twist that names a cell takes the next tap
                                    (or hold / double tap for a spin direction)

The table and the game must agree before anything is applied. Every
disagreement is a mismatch: an unexpected lift, a card where the rules do
not allow it, an unknown or forged tag, a captured card still on the table.
The interpreter reports what to do about each, in words, with the cells
involved; it applies nothing until the table matches again (a valid slide
or placement in progress is the one change it resolves into an action).

This module is the interpreter only (host/table/contract.py, TableInterpreter); it is
pure: the session feeds it observations and the time, and applies the actions it
returns. The adapter (lights, bots, hands) is host/games/storybook/adapter.py.
"""

from host.games.storybook.scenes import slide_targets
from host.table.contract import TableInterpreter
from host.table.mismatch import Mismatch
from shared_rules import storybook

DIR_NAMES = storybook.FACINGS


def _name(state, cid):
    card = state.cat.cards.get(cid)
    return card[1] if card else cid


def _captured(state, cid):
    return cid in state.captured["hero"] or cid in state.captured["villain"]


class StorybookTable(TableInterpreter):
    """The Storybook interpreter: `observed` holds card ids (cell -> sorted ids).

    The bot's move the table was asked to show (`expect_bot_move`) needs no hide window
    to tell Play from Hide.
    """

    hide_window_ms = 1200

    def __init__(self, match, hide_window_ms=None):
        super().__init__(match, hide_window_ms)
        self.pending_place = None  # (cell, card id, since_ms)
        self.twist_target = None  # (seat, twist id) waiting for a cell
        self.twist_choice = {}    # seat -> index into its choices during setup
        self.to_lift = set()      # (cell, card) that left the game by an action, still seen
        self.lifting = None       # (cell, card id): lifted by its player for a slide, not down

    # ------------------------------------------------------------ inputs

    def after(self, events):
        """Note what the last action took off the board without a hand touching it."""
        for ev in events:
            if ev["type"] == "returned_to_hand":
                entry_cell = tuple(ev["cell"])
                for cid in self.observed.get(entry_cell, []):
                    self.to_lift.add((entry_cell, cid))

    def observe(self, cell, cards, problems=()):
        """The cards now on `cell` (item ids of the storybook catalog) and tag problems."""
        super().observe(cell, cards, problems)
        self.to_lift = set(x for x in self.to_lift if x[1] in self.observed.get(x[0], ()))

    def observe_items(self, cell, items, problems=()):
        """Tags resolved to item names ("storybook:the_dodo", "pawn:red"...) on a cell."""
        self.observe_cards(cell, items, problems, "storybook:", "Storybook")

    def busy(self):
        """True while a change is under way: a placed card waiting for a possible double tap,
        a card lifted for a slide."""
        return self.pending_place is not None or self.lifting is not None

    def progress(self):
        """A card going down (a double tap now hides it), or one lifted for a slide."""
        if self.pending_place is not None:
            cell = self.pending_place[0]
            return {"text": "A card is going down on [%d, %d]: double tap it now to hide it, "
                            "or it is played face up." % cell, "cells": [list(cell)]}
        if self.lifting is not None:
            cell = self.lifting[0]
            return {"text": "A card lifted from [%d, %d] is on its way: put it on a lit cell, "
                            "or back." % cell, "cells": [list(cell)]}
        return None

    def expect_bot_move(self, action, now):
        """A move given up on (None): a card already down is not read as a Play at once (its
        hide window starts again) while the hands put the table right."""
        self.bot_move = action
        if action is None and self.pending_place is not None:
            self.pending_place = self.pending_place[:2] + (now,)

    def reconcile(self, now):
        """Compare the table with the game: returns the action the table shows, or None.

        Sets self.mismatches to what disagrees otherwise.
        """
        s = self.match.state
        self.mismatches = []
        self.lifting = None
        engine_board = {cell: entry[0] for cell, entry in s.board.items()}
        extra = {}    # cell -> card seen where the game has nothing or something else
        missing = {}  # cell -> card the game has that is not seen there
        for cell in sorted(self.problems):
            self.mismatches.append(Mismatch("bad_tag", [cell], " ".join(self.problems[cell])))
        for cell in sorted(self.observed):
            cards = self.observed[cell]
            if len(cards) > 1:
                self.mismatches.append(Mismatch("stacked", [cell], "%s are on one cell: leave "
                                                "one card per cell." % " and ".join(
                                                    _name(s, c) for c in cards)))
                continue
            if engine_board.get(cell) != cards[0]:
                extra[cell] = cards[0]
        for cell in sorted(engine_board):
            if cell not in self.observed or engine_board[cell] not in self.observed[cell]:
                missing[cell] = engine_board[cell]
        action = None
        if not self.mismatches:
            action = self._resolve(s, extra, missing, now)
        return action

    def _resolve(self, s, extra, missing, now):
        where = {}
        for cell in extra:
            where[extra[cell]] = cell
        # A slide: one card gone from its cell and seen at one new cell.
        if len(missing) == 1 and len(extra) == 1:
            (src, cid), = missing.items()
            dst = list(extra)[0]
            if extra[dst] == cid:
                return self._slide(s, src, dst, cid)
        if len(missing) == 1 and not extra:
            (src, cid), = missing.items()
            if self._may_slide(s, src):
                # In the hand of the player whose turn it is, on its way to a lit cell: a
                # move in progress, not a disagreement.
                self.lifting = (src, cid)
                return None
            self.mismatches.append(Mismatch(
                "lifted", [src], "%s was lifted from %r: put it back, or slide it to a "
                "lit cell." % (_name(s, cid) if s.board[src][3] else "A face-down card",
                               list(src))))
            return None
        for cell in sorted(missing):
            cid = missing[cell]
            if cid in where:
                self.mismatches.append(Mismatch("moved", [cell, where[cid]], "%s belongs on %r."
                                                % (_name(s, cid), list(cell))))
            else:
                self.mismatches.append(Mismatch("lifted", [cell], "Put %s back on %r." % (
                    _name(s, cid) if s.board[cell][3] else "the face-down card", list(cell))))
        if missing:
            for cell in sorted(extra):
                if extra[cell] not in missing.values():
                    self.mismatches.append(self._unexpected(s, cell, extra[cell]))
            return None
        if len(extra) > 1:
            for cell in sorted(extra):
                self.mismatches.append(self._unexpected(s, cell, extra[cell]))
            return None
        if not extra:
            self.pending_place = None
            return None
        cell, cid = list(extra.items())[0]
        src = [c for c, e in s.board.items() if e[0] == cid]
        if src and self._slides_to(s, src[0], cell):
            # Seen on its own cell and on the cell a slide takes it to (half-way across, or
            # put down before its own reader saw it go): a move in progress.
            self.lifting = (src[0], cid)
            return None
        if src:
            # Read on its own cell and on this one, which no slide of it reaches.
            self.mismatches.append(Mismatch("card_in_play", [cell], "%s lies on %r: lift it "
                                            "off %r." % (_name(s, cid), list(src[0]),
                                                         list(cell))))
            return None
        if (cell, cid) in self.to_lift or _captured(s, cid):
            # Not a card coming from a hand: a captured card left lying, or one that went
            # back to the hand.
            self.mismatches.append(self._unexpected(s, cell, cid))
            return None
        return self._placement(s, cell, cid, now)

    @staticmethod
    def _slide_stops(s, src):
        """The cells the card on `src` may slide to now, by its controller (a lift starts a
        slide); none if it may not slide."""
        entry = s.board.get(src)
        if s.phase != "play" or entry is None or not entry[3]:
            return []
        return slide_targets(s, src)

    def _may_slide(self, s, src):
        return bool(self._slide_stops(s, src))

    def _slides_to(self, s, src, dst):
        """Could the card on `src` be on its way to `dst` in a slide its player may make?"""
        return dst in self._slide_stops(s, src)

    def _unexpected(self, s, cell, cid):
        if _captured(s, cid):
            return Mismatch("captured_on_table", [cell], "%s was captured: lift it off %r."
                            % (_name(s, cid), list(cell)))
        if (cell, cid) in self.to_lift:
            return Mismatch("returned_to_hand", [cell], "%s went back to the hand: lift it "
                            "off %r." % (_name(s, cid), list(cell)))
        on_board = [c for c, e in s.board.items() if e[0] == cid]
        if on_board:
            return Mismatch("moved", [cell, on_board[0]], "%s belongs on %r, not %r." % (
                _name(s, cid), list(on_board[0]), list(cell)))
        return Mismatch("not_allowed", [cell], "%s cannot go on %r now: lift it." % (
            _name(s, cid), list(cell)))

    def _slide(self, s, src, dst, cid):
        for d in range(4):
            try:
                target = storybook.slide_target(s, src, d)
            except storybook.IllegalAction:
                continue
            if target == dst:
                action = {"type": "slide", "cell": list(src), "dir": DIR_NAMES[d]}
                problem = storybook.validate(s, action)
                if problem is None:
                    return action
                self.mismatches.append(Mismatch(problem.code, [src, dst], problem.message +
                                                " Put the card back on %r." % (list(src),)))
                return None
        self.mismatches.append(Mismatch("bad_slide", [src, dst], "A slide from %r cannot stop on"
                                        " %r: a card slides in a straight line and stops next "
                                        "to the first card it reaches. Put it back on %r." % (
                                            list(src), list(dst), list(src))))
        return None

    def _placement(self, s, cell, cid, now):
        if s.phase == "setup_hide":
            kind = "hide"
        elif s.phase == "setup_play":
            kind = "play"
        else:
            kind = "play"
        action = {"type": kind, "card": cid, "cell": list(cell)}
        problem = storybook.validate(s, action)
        if problem is not None and kind == "play" and s.phase == "play":
            problem_hide = storybook.validate(s, dict(action, type="hide"))
            if problem_hide is None:
                problem = None
        if problem is not None:
            self.pending_place = None
            self.mismatches.append(Mismatch(problem.code, [cell], "%s Lift %s off %r." % (
                problem.message, _name(s, cid), list(cell))))
            return None
        if s.phase != "play":
            return action
        exp = self.bot_move
        if exp is not None and exp["type"] in ("play", "hide") and exp["card"] == cid \
                and tuple(exp["cell"]) == cell:
            if exp["type"] == "play":
                # The card went down as asked: a Play at once, no wait for a double tap.
                self.pending_place = None
                return action
            # A Hide was asked: the double tap will come, however slow the table is.
            if self.pending_place is None or self.pending_place[:2] != (cell, cid):
                self.pending_place = (cell, cid, now)
            return None
        if self.pending_place is None or self.pending_place[:2] != (cell, cid):
            self.pending_place = (cell, cid, now)
        if now - self.pending_place[2] >= self.hide_window_ms:
            self.pending_place = None
            if storybook.validate(s, action) is None:
                return action
            self.mismatches.append(Mismatch("not_enough_ap", [cell], "Playing %s face up costs "
                                            "3 action points. Lift it." % _name(s, cid)))
        return None

    def gesture(self, cell, kind, now):
        """A tap, double tap or hold on a cell's pad: returns an action or None."""
        s = self.match.state
        if self.mismatches:
            return None
        if self.twist_target is not None:
            seat, tid = self.twist_target
            self.twist_target = None
            action = {"type": "plot_twist", "card": tid, "cell": list(cell)}
            effect = s.cat.twists[tid]["effect"]["kind"]
            if effect == "spin_enemy":
                action["dir"] = "ccw" if kind == "double" else "cw"
            return action
        if self.pending_place is not None and self.pending_place[0] == cell:
            if kind == "double":
                cid = self.pending_place[1]
                self.pending_place = None
                return {"type": "hide", "card": cid, "cell": list(cell)}
            return None
        entry = s.board.get(cell)
        if entry is None:
            return None
        if not entry[3]:
            return {"type": "reveal", "cell": list(cell)} if kind == "tap" else None
        if entry[1] == s.turn and kind in ("hold", "double"):
            return {"type": "spin", "cell": list(cell), "dir": "cw" if kind == "hold" else "ccw"}
        if kind in ("hold", "double") and s.phase == "play":
            # Someone spins a card that is not theirs to spin: said, not passed over.
            return self.refuse([cell], "%s on [%d, %d] is not yours to spin: a hold or a "
                               "double tap spins a card of the player whose turn it is." % (
                                   _name(s, entry[0]), cell[0], cell[1]))
        return None

    def button(self, seat, name):
        """A seat button: returns an action or None (a twist may wait for a cell)."""
        s = self.match.state
        if name == "twist" and s.phase == "choose_plot_twist":
            if seat != s.turn:
                return None
            self.twist_choice[seat] = self.twist_choice.get(seat, -1) + 1
            return None
        if name == "end_turn" and s.phase == "choose_plot_twist":
            if seat != s.turn:
                return None
            choices = s.cat.twist_choices(s.teams[seat][0], s.teams[seat][1],
                                          storybook.side_of(seat))
            return {"type": "choose_plot_twist",
                    "card": choices[self.twist_choice.get(seat, 0) % len(choices)]}
        if self.mismatches:
            return None
        if name == "twist":
            tid, used = s.twists[seat]
            if tid is None or used:
                return None
            effect = s.cat.twists[tid]["effect"]["kind"]
            if effect in ("spin_enemy", "return_to_hand"):
                self.twist_target = (seat, tid)
                return None
            return {"type": "plot_twist", "card": tid}
        if seat != s.turn:
            return None
        if name in ("draw", "end_turn"):
            return {"type": name}
        return None

    def tick(self, now):
        """Time passing: a placed card with no double tap becomes a Play."""
        if self.pending_place is None:
            return None
        return self.reconcile(now)

    def expected(self):
        """What should be on each cell now: cell -> [card id]."""
        return {cell: [entry[0]] for cell, entry in self.match.state.board.items()}
