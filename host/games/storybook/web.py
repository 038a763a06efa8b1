"""Storybook Battles on the web table: its words, its cards on the grid, a seat's hand and
choices (host/web/face.py)."""

import binascii

from host.web.errors import Refused
from host.web.face import WebFace, and_list, cell_words, css, item
from shared_rules import storybook

from host.games.storybook.scenes import SIDE_COLOUR, slide_targets

ACTIONS = {"draw": "draw a card", "play": "play a card", "hide": "hide a card",
           "reveal": "reveal a card", "spin": "spin a card", "slide": "slide a card",
           "plot_twist": "play the plot twist", "end_turn": "end the turn",
           "choose_plot_twist": "choose a plot twist"}
ARROWS = {"N": "↑", "E": "→", "S": "↓", "W": "←"}
SIDES = {"hero": "Heroes", "villain": "Villains"}     # the sides, in words


def card_name(state, cid):
    return state.cat.cards[cid][1]


def short_name(state, cid):
    """A card's name on a cell of the board: without "The " (the title has it whole)."""
    name = card_name(state, cid)
    return name[4:] if name.startswith("The ") else name


class StorybookFace(WebFace):
    """Storybook's cards: a face-up card shows its name and facing, a face-down one only its
    side; a seat's hand is the cards it holds; play face up or hide face down by a choice."""

    strip_prefix = "storybook:"
    # The interpreter's gestures (host/games/storybook/interpreter.py), as the page's tools.
    gestures_for = "spin, slide or reveal a card"
    gestures = (
        ("hold", "a card of yours lying face up: spins it a quarter turn clockwise."),
        ("double", "a card of yours lying face up: spins it a quarter turn the other way; "
                   "a card just put down: hides it face down."),
        ("tap", "a face-down card: reveals it."),
        ("move", "a card of yours to a lit cell: slides it (lift it, then put it there)."),
        ("lift", "a card of yours: picks it up (put it back, or on a lit cell to slide it)."))

    def seat_name(self, state, seat):
        side, _, part = seat.partition("_")
        return side.capitalize() + (" " + part.upper() if part else "")

    def book_colour(self, state, seat):
        return SIDE_COLOUR[storybook.side_of(seat)]

    def seat_shape(self, state, seat):
        return "★" if storybook.side_of(seat) == "hero" else "▼"

    def action_words(self, kind):
        return ACTIONS.get(kind, kind.replace("_", " "))

    def banner(self, match, table, seat):
        text = WebFace.banner(self, match, table, seat)
        s = match.state
        if s.status == "ongoing" and s.phase == "choose_plot_twist":
            return text.split(":")[0] + ": choose a plot twist"
        return text

    def ending(self, state):
        scores = state.scores
        if state.winner is None:
            return "Game over: a draw, %d to %d" % (scores["hero"], scores["villain"])
        side = storybook.side_of(state.winner)
        other = "villain" if side == "hero" else "hero"
        return "Game over: the %s win, %d plot points to %d" % (
            SIDES[side], scores[side], scores[other])

    def facts(self, match):
        s = match.state
        out = ["Heroes %d · Villains %d plot points (%d wins)" % (
            s.scores["hero"], s.scores["villain"], s.target)]
        if s.status == "ongoing" and s.phase == "play":
            out.append("%d action point%s left" % (s.ap, "" if s.ap == 1 else "s"))
            out.append("turn %d" % s.turn_number)
        if s.overtime:
            out.append("overtime: the first side ahead at the end of a turn wins")
        return out

    def describe(self, state, action, events):
        who = self.seat_name(state, storybook.actor(state, action) or state.turn)
        said = []
        for ev in events:
            said.extend(self._event_words(state, ev))
        if said:
            return " ".join(said)
        return "%s: %s." % (who, self.request_words(state, action))

    def _event_words(self, state, ev):
        kind = ev["type"]
        name = lambda cid: card_name(state, cid)   # noqa: E731
        seat = self.seat_name(state, ev["seat"]) if "seat" in ev else None
        if kind == "played":
            return ["%s plays %s on %s." % (seat, name(ev["card"]), cell_words(ev["cell"]))]
        if kind == "hidden":
            return ["%s hides a card face down on %s." % (seat, cell_words(ev["cell"]))]
        if kind == "revealed":
            return ["%s reveals %s on %s." % (seat, name(ev["card"]), cell_words(ev["cell"]))]
        if kind == "spun":
            cell = tuple(ev.get("cell", [0, 0]))
            entry = state.board.get(cell)
            what = name(entry[0]) if entry is not None and entry[3] else "the card"
            return ["%s spins %s on %s." % (seat, what, cell_words(cell))]
        if kind == "slid":
            # A face-down card slides unseen: its event names no card.
            return ["%s slides %s from %s to %s." % (seat, name(ev["card"]) if "card" in ev
                                                     else "a face-down card",
                                                     cell_words(ev["from"]),
                                                     cell_words(ev["to"]))]
        if kind == "drew":
            return ["%s draws a card." % seat]
        if kind == "plot_twist_chosen":
            return ["%s chooses a plot twist (kept secret until played)." % seat]
        if kind == "plot_twist_played":
            return ["%s plays the plot twist %s." % (seat, ev["name"])]
        if kind == "bested":
            return ["%s bests %s, %d swords to %d shields." % (
                name(ev["by"]), name(ev["card"]), ev["swords"], ev["shields"])]
        if kind == "overwhelmed":
            return ["%s overwhelms %s, %d swords to %d shields." % (
                name(ev["by"]), name(ev["card"]), ev["swords"], ev["shields"])]
        if kind == "team_capture":
            return ["%s capture %s together." % (and_list(name(c) for c in ev["by"]),
                                                 name(ev["card"]))]
        if kind == "captured":
            return ["The %s capture %s (%d plot point%s)." % (
                SIDES[ev["by_side"]], name(ev["card"]), ev["points"],
                "" if ev["points"] == 1 else "s")]
        if kind == "returned_to_hand":
            return ["A card goes back to its player's hand."]
        if kind == "turn_ended":
            sc = ev["scores"]
            return ["%s ends the turn: Heroes %d, Villains %d." % (seat, sc["hero"],
                                                                   sc["villain"])]
        if kind == "overtime":
            return ["The scores are tied: overtime."]
        if kind == "game_over":
            return [self.ending(state) + "."]
        return []

    def legend(self, match, layout):
        s = match.state
        out = [{"colour": css(self.seat_colour(s, q)), "shape": self.seat_shape(s, q),
                "words": "%s's cards" % self.seat_name(s, q)} for q in s.seats]
        out.append({"colour": css((255, 150, 0)), "shape": "⚔",
                    "words": "amber edge lights: the swords a card turns on an enemy"})
        out.append({"colour": css((0, 160, 40)), "shape": "◎",
                    "words": "green cells: where the picked card may go", "seat": True})
        return out

    # ------------------------------------------------------------ the board

    def items(self, match, table, seat, reveal=False):
        s = match.state
        out = {}
        known = storybook.view(s, seat)
        for entry in known["board"]:
            cell = tuple(entry["cell"])
            owner = s.board[cell][1]
            cid = s.board[cell][0] if reveal else entry["card"]
            colour = css(self.seat_colour(s, owner))
            arrow = ARROWS.get(entry["facing"], "")
            if cid is not None:
                out.setdefault(cell, []).append(item(
                    "card", short_name(s, cid), "%s (%s's%s)" % (
                        card_name(s, cid), self.seat_name(s, owner),
                        "" if entry["face_up"] else ", face down"),
                    colour=colour, shape=self.seat_shape(s, owner), facing=arrow,
                    id=cid, down=not entry["face_up"] or None))
            else:
                out.setdefault(cell, []).append(item(
                    "card_back", "face down", "a face-down card of %s's"
                    % self.seat_name(s, owner), colour=colour,
                    shape=self.seat_shape(s, owner), facing=arrow))
        for cell, cards in sorted(table.observed.items()):
            game_card = s.board.get(cell)
            for cid in cards:
                if game_card is not None and game_card[0] == cid:
                    continue
                # On the table but not in the game (yet): a card going down, or one that
                # should be lifted. Its face is shown only when the game shows it.
                if reveal or self._public(s, cid, seat):
                    out.setdefault(cell, []).append(item(
                        "card", card_name(s, cid), "%s, not in the game here" %
                        card_name(s, cid), id=cid, unplaced=True))
                else:
                    out.setdefault(cell, []).append(item(
                        "card_back", "a card", "a card going down, or to lift off",
                        unplaced=True))
        return out

    def _public(self, state, cid, seat):
        """Is a card's identity known to everyone (or to `seat`)?"""
        for side in state.captured:
            if cid in state.captured[side]:
                return True
        return seat is not None and cid in self._seat_cards(state, seat)

    def _seat_cards(self, state, seat):
        cards = set(c for c in state.hands[seat] if c is not None)
        cards.update(state.pool.get(seat, ()))
        return cards

    def secret_names(self, state, seat):
        names = []
        for cid in storybook.secrets(state, seat):
            if cid in state.cat.cards:
                names.append(card_name(state, cid))
            twist = state.cat.twists.get(cid)
            if twist is not None and twist.get("name"):
                names.append(twist["name"])
        return names

    def own_words(self, state, seat):
        """The seat's own cards (its hand and, in physical mode, the unseen cards it may be
        holding) are known to the person in that seat."""
        own = self._seat_cards(state, seat)
        return sorted(own) + sorted(card_name(state, c) for c in own)

    # ------------------------------------------------------------ a seat

    def held(self, match, seat, seed):
        """In physical mode a drawn card is unknown to the engine until it is placed; on the
        virtual table the hands draw it for the person: the first unseen cards of the
        seat's in an order seeded by the game (stable: playing one keeps the others)."""
        s = match.state
        unknown = sum(1 for c in s.hands[seat] if c is None)
        if not unknown:
            return None
        order = sorted(s.pool.get(seat, ()), key=lambda cid: (binascii.crc32(
            ("%d:%s:%s" % (seed, seat, cid)).encode()), cid))
        return order[:unknown]

    def you(self, match, table, seat, held=None):
        s = match.state
        hand = [c for c in s.hands[seat] if c is not None] + list(held or [])
        seen = set(c for cards in table.observed.values() for c in cards)
        lifted = [(cell, e[0]) for cell, e in sorted(s.board.items())
                  if e[1] == seat and e[0] not in seen]
        targets = self._targets(s, seat, hand)
        out = []
        for cid in hand:
            entry = {"id": cid, "label": card_name(s, cid), "kind": "card",
                     "targets": targets.get(cid, []),
                     "face_down": s.phase in ("play", "setup_hide") and s.turn == seat}
            if not entry["targets"]:
                entry["why"] = self._why_not(s, seat)
            out.append(entry)
        # A slide costs action points: without them a lifted card only goes back.
        can_slide = not (s.phase == "play" and s.ap < storybook.COST["slide"])
        for cell, cid in lifted:
            out.append({"id": cid, "label": "%s (lifted from %s)" % (
                card_name(s, cid), cell_words(cell)), "kind": "card",
                "targets": [list(cell)] + ([list(x) for x in slide_targets(s, cell)]
                                           if can_slide else []),
                "face_down": False})
        unknown = sum(1 for c in s.hands[seat] if c is None) - len(held or [])
        note = None
        if unknown > 0:
            note = "%d card%s in your hand: play them from the cards you hold." % (
                unknown, "" if unknown == 1 else "s")
        choices = []
        if s.phase == "choose_plot_twist":
            chosen = table.twist_choice.get(seat)
            options = s.cat.twist_choices(s.teams[seat][0], s.teams[seat][1],
                                          storybook.side_of(seat))
            for i, tid in enumerate(options):
                choices.append({"label": "Plot twist: %s" % s.cat.twists[tid]["name"],
                                "control": {"op": "action", "action": {
                                    "type": "choose_plot_twist", "card": tid}},
                                "enabled": s.turn == seat,
                                "chosen": chosen is not None and chosen % len(options) == i})
        else:
            twist = s.twists[seat][0]
            for choice in self.button_choices(match, seat):
                if choice["control"]["name"] == "twist":
                    if twist is None or s.twists[seat][1]:
                        choice["enabled"] = False
                    else:
                        choice["label"] = "Play the plot twist %s" % s.cat.twists[twist]["name"]
                        choice["enabled"] = any(
                            a["type"] == "plot_twist" and storybook.actor(s, a) == seat
                            for a in storybook.legal_actions(s))
                        problem = None if choice["enabled"] else storybook.validate(
                            s, {"type": "plot_twist", "card": twist})
                        if problem is not None and problem.code != "bad_action":
                            choice["why"] = problem.message   # (its card's condition, say)
                elif choice["control"]["name"] == "draw":
                    choice["enabled"] = choice["enabled"] and any(
                        a["type"] == "draw" for a in storybook.legal_actions(s))
                choices.append(choice)
        slides = {}
        for cell, entry in sorted(s.board.items()):
            if entry[1] == seat and entry[3] and can_slide:
                slides["%d,%d" % cell] = [list(c) for c in slide_targets(s, cell)]
        return {"hand": out, "choices": choices, "note": note, "slides": slides}

    def _why_not(self, state, seat):
        """Why no cell is lit for a card of the hand, in words (the page says it when the
        card is picked)."""
        if state.turn != seat:
            return "it is not your turn"
        if state.phase not in ("play", "setup_hide", "setup_play"):
            return "the game is not at playing cards now"
        if state.phase == "play" and state.ap < storybook.COST["play"]:
            return "a card costs %d action points to play and you have %d left" % (
                storybook.COST["play"], state.ap)
        return "no free cell next to the cards on the board takes it now"

    def _targets(self, state, seat, cards):
        """card id -> cells where it may go now (lit in the seat's view while picked)."""
        if state.turn != seat or state.phase not in ("play", "setup_hide", "setup_play"):
            return {}
        kinds = ["hide"] if state.phase == "setup_hide" else ["play"] if \
            state.phase == "setup_play" else ["play", "hide"]
        out = {}
        for cid in cards:
            ok = []
            for cell in sorted(self.game.board_cells()):
                if cell in state.board:
                    continue
                for kind in kinds:
                    if storybook.validate(state, {"type": kind, "card": cid,
                                                  "cell": list(cell)}) is None:
                        ok.append(list(cell))
                        break
            out[cid] = ok
        return out

    # ------------------------------------------------------------ a seat's controls

    def place_steps(self, match, table, seat, card, place, face_down=False, whole=False):
        s = match.state
        if place[0] == "seat":
            raise Refused(400, "Storybook cards go on the board, not on a card reader.")
        if not isinstance(card, str):
            raise Refused(400, "say which card to put down: {\"card\": ID}.")
        lifted = [c for c, e in s.board.items() if e[0] == card and e[1] == seat and
                  not any(card in seen for seen in table.observed.values())]
        held = self.held(match, seat, match.seed) or []
        if card not in [c for c in s.hands[seat] if c is not None] + held and not lifted:
            raise Refused(403, "%s does not hold that card." % self.seat_name(s, seat))
        if table.observed.get(place):
            raise Refused(409, "A card already lies on %s: one card a cell." %
                          cell_words(place), [place])
        if not lifted:
            kind = "hide" if face_down or s.phase == "setup_hide" else "play"
            if s.phase == "setup_play":
                kind = "play"
            problem = storybook.validate(s, {"type": kind, "card": card, "cell": list(place)})
            if problem is not None:
                raise Refused(409, problem.message, [place])
        elif tuple(place) != lifted[0] and list(place) not in [
                list(c) for c in slide_targets(s, lifted[0])]:
            raise Refused(409, "%s slides only to a lit cell, or back to %s." % (
                card_name(s, card), cell_words(lifted[0])), [place])
        steps = [("place", place, "storybook:" + card)]
        if face_down and s.phase == "play" and not lifted:
            steps.append(("gesture", place, "double"))
        return steps

    def liftable(self, match, table, seat, place, card=None):
        s = match.state
        seen = table.observed.get(place, [])
        if place[0] == "seat" or not seen:
            raise Refused(409, "nothing lies on %s." % cell_words(place), [place])
        cid = seen[0]
        entry = s.board.get(place)
        if entry is not None and entry[0] == cid and entry[1] != seat:
            raise Refused(403, "the card on %s is %s's." % (
                cell_words(place), self.seat_name(s, entry[1])), [place])
        return "storybook:" + cid

    def check_move(self, match, table, seat, place, to, item):
        s = match.state
        if list(to) not in [list(c) for c in slide_targets(s, place)]:
            raise Refused(409, "That card slides only to a lit cell: toward the others until "
                          "it touches one.", [to])

    def observed_name(self, item):
        return item.split(":", 1)[1]
