"""Battle Royale on the web table: the diamond of face-down cards, the pawns, the dice tray,
in words (host/web/face.py)."""

from host import lights
from host.web.errors import Refused
from host.web.face import WebFace, and_list, cell_words, css, item
from shared_rules import royale

from host.games.royale.interpreter import cell_of, colour_of

ACTIONS = {"roll_order": "roll for the turn order", "place": "put the pawn down",
           "move": "move", "attack_card": "attack the card underfoot",
           "attack_player": "duel a player on the same card", "swap": "swap a card",
           "resurrect": "come back to life", "end_turn": "end the turn"}
ENDINGS = {"all_cards_won": "every card of the map is won",
           "card_lead": "one card is left and nobody can catch the leader"}


class RoyaleFace(WebFace):
    """Battle Royale: players are named by their pawn's colour; a face-down card of the map
    shows its value where the book lets everyone see it."""

    # The interpreter's gestures (host/games/royale/interpreter.py), as the page's tools.
    gestures_for = "move, attack, or come back to life"
    gestures = (
        ("move", "your pawn to a neighbouring cell: moves it."),
        ("lift", "your pawn: picks it up (put it back, or on a neighbouring cell to move "
                 "it)."),
        ("tap", "your pawn's cell: attacks the card lying there (then throw the dice)."),
        ("hold", "your pawn's cell: attacks another player there (hold again for the next "
                 "one, or to call it off)."),
        ("double", "your pawn's cell, once you have died: brings you back to life."))

    def seat_name(self, state, seat):
        return colour_of(state, seat).capitalize()

    def book_colour(self, state, seat):
        return lights.PAWN_COLOURS[colour_of(state, seat)]

    def action_words(self, kind):
        return ACTIONS.get(kind, kind.replace("_", " "))

    def card_name(self, state, cid):
        return state.cards[cid]["name"]

    def secret_names(self, state, seat):
        return [self.card_name(state, cid) for cid in sorted(royale.secrets(state, seat))]

    def ending(self, state):
        text = WebFace.ending(self, state)
        reason = ENDINGS.get(getattr(state, "end_reason", None))
        return text + (" (%s)" % reason if reason else "")

    def facts(self, match):
        s = match.state
        if s.phase == "finished":
            scores = royale.scores(s)
            return ["%s %d points" % (self.seat_name(s, q), scores[q]) for q in s.seats]
        out = []
        for q in s.order or s.seats:
            p = s.players[q]
            out.append("%s %d card%s%s" % (self.seat_name(s, q), p.held(),
                                          "" if p.held() == 1 else "s",
                                          "" if p.alive else " (dead)"))
        who = royale.current(s)
        if s.phase == "play" and who is not None:
            # A move spends a free move (a card's movement) while one is left, else an action.
            free = royale.movement_left(s, s.players[who])
            out.append("%d action%s%s left" % (
                s.actions_left, "" if s.actions_left == 1 else "s",
                " and %d free move%s" % (free, "" if free == 1 else "s") if free else ""))
        if s.reduced:
            out.append("the 13s and 14s count 12 now")
        return out

    def request_words(self, state, action):
        kind = action["type"]
        if kind == "attack_player" and action.get("target"):
            return "duel %s" % self.seat_name(state, action["target"])
        return WebFace.request_words(self, state, action)

    def describe(self, state, action, events):
        said = []
        for ev in events:
            said.extend(self._event_words(state, ev))
        if said:
            return " ".join(said)
        who = royale.actor(state, action)
        return "%s: %s." % (self.seat_name(state, who) if who else "The table",
                            self.request_words(state, action))

    def _event_words(self, state, ev):
        kind = ev["type"]
        name = lambda q: self.seat_name(state, q)   # noqa: E731
        card = lambda cid: self.card_name(state, cid)   # noqa: E731
        if kind == "order_rolled":
            return ["Rolls for the turn order: %s." % ", ".join(
                "%s %d" % (name(q), ev["rolls"][q]) for q in sorted(ev["rolls"]))]
        if kind == "turn_order":
            return ["The turn order is %s." % ", ".join(name(q) for q in ev["order"])]
        if kind == "placed":
            return ["%s puts the pawn on %s." % (name(ev["player"]), cell_words(ev["cell"]))]
        if kind == "moved":
            return ["%s moves to %s." % (name(ev["player"]), cell_words(ev["to"]))]
        if kind == "card_won":
            return ["%s wins the %s on %s with %s (%d)." % (
                name(ev["player"]), card(ev["card"]), cell_words(ev["cell"]),
                " + ".join(str(d) for d in ev["dice"]), ev["total"])]
        if kind == "attack_failed":
            # (the card's value stays hidden: the dice were not enough, that is all)
            rolled = [str(d) for d in ev["dice"]] + (
                ["%d bonus" % ev["bonus"]] if ev.get("bonus") else [])
            return ["%s attacks the card on %s and fails: %s makes %d, not enough." % (
                name(ev["player"]), cell_words(ev["cell"]), " + ".join(rolled), ev["total"])]
        if kind == "player_died":
            return ["%s dies and falls to %s." % (name(ev["player"]),
                                                 cell_words(ev["fell_to"]))]
        if kind == "resurrected":
            return ["%s comes back to life on %s." % (name(ev["player"]),
                                                      cell_words(ev["cell"]))]
        if kind == "duel_started":
            return ["%s duels %s." % (name(ev["attacker"]), name(ev["defender"]))]
        if kind == "duel_won":
            return ["%s wins the duel against %s, %d rounds to %d." % (
                name(ev["winner"]), name(ev["loser"]), ev["rounds"][ev["winner"]],
                ev["rounds"][ev["loser"]])]
        if kind == "card_taken":
            return ["%s takes the %s from %s." % (name(ev["to"]), card(ev["card"]),
                                                  name(ev["from"]))]
        if kind == "curse_equipped":
            return ["The %s is a curse: %s must use it." % (card(ev["card"]),
                                                            name(ev["player"]))]
        if kind == "swapped":
            return ["%s swaps in the %s for the %s." % (name(ev["player"]),
                                                        card(ev["activated"]),
                                                        card(ev["set_aside"]))]
        if kind == "last_card":
            return ["Only the card on %s is left." % cell_words(ev["cell"])]
        if kind == "turn_ended":
            return ["%s ends the turn." % name(ev["player"])]
        if kind == "game_over":
            return [self.ending(state) + "."]
        return []

    def legend(self, match, layout):
        out = WebFace.legend(self, match, layout)
        out.append({"colour": css((255, 255, 255)), "shape": "?", "look": "card_back",
                    "words": "a face-down card of the map (its value where known)"})
        out.append({"colour": css(lights.TRAY), "shape": "⚅",
                    "words": "a lit dice pocket: throw a die into it"})
        return out

    # ------------------------------------------------------------ the board

    def items(self, match, table, seat, reveal=False):
        s = match.state
        out = {}
        known = royale.view(s, seat)
        for entry in known["map"]:
            cell = tuple(entry["cell"])
            cid = entry.get("card")
            if reveal:
                cid = s.map[royale.INDEX[cell]]
            if cid is not None:
                out.setdefault(cell, []).append(item(
                    "card", self.card_name(s, cid), self.card_name(s, cid), id=cid))
            else:
                value = entry.get("value")
                out.setdefault(cell, []).append(item(
                    "card_back", "≤%d" % value if value is not None else "?",
                    "a face-down card%s" % (" worth at most %d" % value
                                            if value is not None else "")))
        for p in known["players"]:
            if p["cell"] is not None:
                out.setdefault(tuple(p["cell"]), []).append(item(
                    "pawn", self.seat_name(s, p["id"]), "%s's pawn%s" % (
                        self.seat_name(s, p["id"]), "" if p["alive"] else " (dead)"),
                    colour=css(self.seat_colour(s, p["id"])),
                    shape=self.seat_shape(s, p["id"]), owner=p["id"],
                    down=not p["alive"] or None))
        return out

    # ------------------------------------------------------------ a seat

    def you(self, match, table, seat, held=None):
        s = match.state
        legal = royale.legal_actions(s) if seat in royale.actors(s) else []
        place = [list(a["cell"]) for a in legal if a["type"] == "place"]
        moves = [list(a["to"]) for a in legal if a["type"] == "move"]
        hand = []
        if s.players[seat].cell < 0 and s.phase in ("order", "place"):
            hand.append({"id": "pawn", "label": "Your pawn (%s)" % self.seat_name(s, seat),
                         "kind": "pawn", "targets": place})
        here = s.players[seat].cell
        pawn = "pawn:" + colour_of(s, seat)
        if here >= 0 and not any(pawn in items for items in table.observed.values()):
            # Lifted (the person's hand holds it): put it back, or on a cell it may move to.
            back = list(cell_of(here))
            hand.append({"id": "pawn", "label": "Your pawn (%s), lifted from %s" % (
                             self.seat_name(s, seat), cell_words(back)),
                         "kind": "pawn", "targets": [back] + [m for m in moves if m != back]})
        choices = []
        kinds = set(a["type"] for a in legal)
        for name, label in self.game.buttons:
            if name == "roll" and s.phase != "order":
                continue    # the turn order is rolled once, at the start
            enabled = {"roll": "roll_order" in kinds, "swap": "swap" in kinds,
                       "end_turn": "end_turn" in kinds}.get(name, False)
            choice = {"label": label, "control": {"op": "button", "name": name},
                      "enabled": enabled}
            if name == "roll":
                # The engine rolls for the players: the page that can throw the table's
                # dice offers that instead (one button, not two doing one thing).
                choice["dice"] = True
            choices.append(choice)
        note = None
        if "attack_card" in kinds or "attack_player" in kinds:
            note = ("Tap your pawn's cell to attack the card under it; hold it to duel a "
                    "player on the same card; then throw the dice.")
        out = {"hand": hand, "choices": choices, "note": note,
               "moves": {"%d,%d" % cell_of(here): moves} if here >= 0 else {},
               "board": self._cards_panel(s, seat)}
        return out

    def _cards_panel(self, s, seat):
        """The cards the seat holds, in its hand off the table: those in play (at most 3,
        they count) and those set aside (kept for a swap), each with what it does."""
        p = s.players[seat]
        rows = []
        for where, cards in (("in play", p.active), ("set aside", p.reserve)):
            for cid in cards:
                card = s.cards[cid]
                rows.append({"label": "%s (%d)" % (card["name"], card["value"]),
                             "value": where, "note": card.get("text")})
        return [{"title": "Your cards", "rows": rows}] if rows else []

    # ------------------------------------------------------------ a seat's controls

    def place_steps(self, match, table, seat, card, place, face_down=False, whole=False):
        s = match.state
        colour = colour_of(s, seat)
        if card not in (None, "pawn", "pawn:" + colour):
            raise Refused(403, "%s holds only the %s pawn." % (self.seat_name(s, seat), colour))
        if place[0] == "seat":
            raise Refused(400, "The pawn goes on the map.")
        for items in table.observed.values():
            if "pawn:" + colour in items:
                raise Refused(409, "Your pawn is already on the map: move it.")
        if royale.current(s) == seat and s.phase == "place":
            problem = royale.validate(s, {"type": "place", "cell": list(place)})
            if problem is not None:
                raise Refused(409, problem.message, [place])
        return [("place", place, "pawn:" + colour)]

    def liftable(self, match, table, seat, place, card=None):
        s = match.state
        seen = list(table.observed.get(place, []))
        pawn = "pawn:" + colour_of(s, seat)
        if pawn in seen:
            return pawn
        # A won card (out of the game) may be lifted off by anyone; the map is not touched.
        on_map = set(cell_of(i) for i, c in enumerate(s.map) if c is not None)
        cards = [i for i in seen if i.startswith("royale:")]
        if cards and place not in on_map:
            return cards[0]
        here = s.players[seat].cell
        if here >= 0 and not any(pawn in items for items in table.observed.values()):
            raise Refused(409, "Your pawn is in your hand already: pick it from your hand, "
                          "then click %s to put it back or a lit cell to move it." %
                          cell_words(list(cell_of(here))), [place])
        raise Refused(403, "You may lift only your own pawn (%s) or a card already won." %
                      colour_of(s, seat), [place])

    def check_move(self, match, table, seat, place, to, item):
        s = match.state
        if item.startswith("pawn:") and royale.current(s) == seat and s.phase == "play":
            problem = royale.validate(s, {"type": "move", "to": list(to)})
            if problem is not None:
                raise Refused(409, problem.message, [to])

    async def throw(self, hands, table, rng):
        pockets = table.pockets_wanted()
        if not pockets:
            raise Refused(409, "The tray waits for no dice now: tap your cell to attack a "
                          "card, hold it to duel a player.")
        values = [rng.randint(1, 6) for _ in pockets]
        await hands.roll(table, values)
        return values

    def banner(self, match, table, seat):
        s = match.state
        if s.status == "ongoing" and s.phase == "order":
            who = royale.rollers(s)
            return "%s roll a die each for the turn order" % and_list(
                self.seat_name(s, q) for q in who)
        return WebFace.banner(self, match, table, seat)
