"""Fairy Tale Fight Club on the web table: its words, the wagons, contracts and Market on the
grid, a seat's hand and the choices its cards give, and how a seat's clicks become cards put
down and lifted (host/web/face.py).

A seat is named by its colour ("Red", sitting at the south edge); a creature card by its
number; a contract by the creatures it wants ("1 1 5"), its name in the title. Everything on
a Fight Club table lies face up; the hands, the decks and the fight cards chosen are secret:
the log says how many cards were drawn or passed, never which.

A seat's choices name their cards in words ("Load 1, 1 and 5 onto your Wheelbarrow", "Buy the
Hand Cart with 2, 3 and 5"): a few that matter now, not every combination the rules allow.
A table move is carried out by the hands as a person's would be: cards put on a wagon and the
wagon's pad tapped (one load), a contract card lifted and then the wagon's cards (a
delivery), Market cards taken and the hand's cards given (a trade); what no table move shows
(a swap, a purchase with creatures, a fight card) is an action sent as a button is.
"""

from host.web.errors import Refused
from host.web.face import WebFace, and_list, cell_words, css, item
from shared_rules import fightclub

from host.games.fightclub.interpreter import (MARKET_CELLS, WAGON_CELL, ZONES, ids_for,
                                              is_creature, minus, values)

NAMES = {"p1": "Red", "p2": "Blue", "p3": "Green", "p4": "Yellow"}
EDGES = {"p1": "south", "p2": "west", "p3": "north", "p4": "east"}
ACTIONS = {"buy_wagon": "buy a wagon", "load": "load a wagon", "move": "move creatures",
           "discard": "discard", "swap_draw": "swap a card", "exchange": "trade with the Market",
           "complete": "deliver a contract", "buy_action": "buy an action",
           "reserve": "reserve a contract", "end_actions": "end the actions",
           "draw_up": "draw up", "discard_down": "discard down",
           "to_market": "put a creature into the Market", "fight_card": "choose a fight card",
           "pass_cards": "choose cards to pass"}
FIGHTS = {"lowest_creature": "the lowest creature", "highest_creature": "the highest creature",
          "lowest_gold": "the least gold", "highest_gold": "the most gold"}
ENDINGS = {"four_left": "only four contracts are left and the deck is empty",
           "rounds": "the 16 rounds are played",
           "round_limit": "the round limit is reached",
           "dead_end": "nobody can ever deliver the contracts left (the table's rule: the "
                       "book has none for it)"}
MOST_CHOICES = 3     # of each kind a seat is offered (loads, trades, swaps...)


def _adapter():
    """The adapter's colours (it imports this module, so not at the top)."""
    from host.games.fightclub import adapter
    return adapter


def num(v):
    """7 -> "a 7", 8 -> "an 8"."""
    return ("an %d" if v == 8 else "a %d") % v


def nums(cards):
    """Creature ids (or numbers) in words: "a 7", "1, 1 and 5"."""
    vals = sorted(fightclub.value(c) if isinstance(c, str) else c for c in cards)
    if len(vals) == 1:
        return num(vals[0])
    return and_list(str(v) for v in vals)


def listed(cards):
    """Creature ids (or numbers) as bare numbers: "7", "1, 1 and 5"."""
    return and_list(str(v) for v in sorted(fightclub.value(c) if isinstance(c, str) else c
                                           for c in cards))


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def wagon_name(state, w):
    return state.cat.wagons[w]["name"]


def contract_name(state, cid):
    c = state.cat.contracts.get(cid)
    return c["name"] if c is not None else "a contract"


def sub_multiset(small, big):
    return not minus(small, big)


class FightclubFace(WebFace):
    """Fairy Tale Fight Club: seats by colour and edge, wagons and their creatures, contracts
    with what they want, the Market; a seat's hand is the creatures it holds."""

    # The interpreter's gestures (host/games/fightclub/interpreter.py), as the page's tools.
    gestures_for = "move, reserve or tap a wagon"
    gestures = (
        ("move", "a creature card from one of your wagons to another: moves it."),
        ("lift", "cards off one of your wagons: discards them; with a contract, completes "
                 "it."),
        ("hold", "a contract's cell: reserves it for 1 gold."),
        ("tap", "a wagon's (or the Market's) cell after cards went onto it: reads them at "
                "once."))

    # ------------------------------------------------------------ seats and words

    def seat_name(self, state, seat):
        return NAMES.get(seat, str(seat).capitalize())

    def book_colour(self, state, seat):
        return _adapter().SEAT_COLOUR[seat]

    def action_words(self, kind):
        return ACTIONS.get(kind, kind.replace("_", " "))

    def turn_banner(self, match, table, seat, who):
        s = match.state
        actor = who[0]
        mine = actor == seat
        name = "you" if mine else self.seat_name(s, actor)
        head = "Your turn" if mine else "%s's turn" % self.seat_name(s, actor)
        if s.phase == "play":
            left = s.actions_left
            if left:
                return "%s: %s left (load wagons, trade, deliver contracts)" % (
                    head, plural(left, "action"))
            return "%s: no actions left (deliver a contract, or end the actions)" % head
        if s.phase == "draw":
            size = fightclub.hand_size(s, actor)
            held = len(s.players[actor].hand)
            if held > size:
                return "%s: discard down to %d cards" % (head, size)
            return "%s: draw up to %d cards" % (head, size)
        if s.phase == "market":
            return "%s: put a creature from the hand into the Market" % head
        known = fightclub.view(s, seat)
        pend = known.get("pending") or {}
        if s.phase == "fight":
            return "Fight Club (%s): %s wins; %s %s a fight card in secret" % (
                pend.get("name", "an event"), FIGHTS.get(pend.get("fight"), "the best card"),
                name, "choose" if mine else "chooses")
        if s.phase == "pass":
            ev = s.cat.events[s.pending["event"]]
            return "%s: %s %s %s to pass to the %s" % (
                ev["name"], name, "choose" if mine else "chooses",
                plural(ev["amount"], "card"), ev["direction"])
        return WebFace.turn_banner(self, match, table, seat, who)

    def ending(self, state):
        s = state
        scores = fightclub.scores(s)
        reason = ENDINGS.get(s.end_reason)
        why = " (%s)" % reason if reason else ""
        if s.solo:
            seat = s.seats[0]
            band = fightclub.solo_band(scores[seat])
            return "Game over%s: %s scores %s. %s" % (why, self.seat_name(s, seat),
                                                      plural(scores[seat], "point"), band)
        ranked = sorted(s.seats, key=lambda q: (-scores[q], s.seats.index(q)))
        if s.winner is None:
            return "Game over%s: no winner, %s tie on %s, gold and contracts" % (
                why, and_list(self.seat_name(s, q) for q in ranked
                              if scores[q] == scores[ranked[0]]), plural(scores[ranked[0]],
                                                                         "point"))
        rest = [scores[q] for q in ranked if q != s.winner]
        text = "Game over%s: %s wins with %s to %s" % (
            why, self.seat_name(s, s.winner), plural(scores[s.winner], "point"),
            and_list(str(v) for v in rest))
        tied = [q for q in s.seats if q != s.winner and scores[q] == scores[s.winner]]
        if tied:
            gold = dict((q, s.players[q].gold) for q in s.seats)
            if all(gold[q] < gold[s.winner] for q in tied):
                text += ", ahead on gold"
            else:
                text += ", with fewer contracts"
        return text

    def facts(self, match):
        s = match.state
        out = []
        for q in s.seats:
            b = fightclub.score_breakdown(s, q)
            if s.status == "ongoing":
                out.append("%s %s, %d gold, %s" % (
                    self.seat_name(s, q), plural(b["total"], "point"), s.players[q].gold,
                    plural(len(s.players[q].hand), "card")))
            else:
                out.append("%s %s (%d gold, %s delivered)" % (
                    self.seat_name(s, q), plural(b["total"], "point"), b["gold_held"],
                    plural(b["contracts_completed"], "contract")))
        if s.status == "ongoing":
            out.append("round %d%s" % (s.round, " of %d" % fightclub.SOLO_ROUNDS
                                       if s.solo else ""))
            out.append("%s in the deck" % plural(len(s.contract_deck), "contract"))
        return out

    def legend(self, match, layout):
        s = match.state
        colours = _adapter()
        out = [{"colour": css(self.seat_colour(s, q)), "shape": self.seat_shape(s, q),
                "words": "%s, at the %s edge, and its wagons" % (self.seat_name(s, q),
                                                                  EDGES[q])}
               for q in s.seats]
        out.append({"colour": css((200, 200, 200)), "shape": "▭", "words": (
            "each player's wagons, in a row in front of it from its left: Wheelbarrow "
            "(holds 3 creatures), Hand Cart (3), Horse Wagon (4), War Wagon (5); faintly "
            "lit until bought; the numbers are the creatures loaded")})
        out.append({"colour": css(colours.GOLD), "shape": "▁", "words": (
            "gold lights on a wagon's lower edge: its player's gold; on a contract: the gold "
            "it pays")})
        out.append({"colour": css((217, 201, 163)), "shape": "▤", "words": (
            "the contract area in the middle: each contract shows the creatures it wants; lit "
            "in a player's colour: reserved by that player")})
        out.append({"colour": css((0, 200, 60)), "shape": "▦", "words": (
            "the Market (the green cells): creatures to trade for on one's turn")})
        return out

    # ------------------------------------------------------------ the log

    def request_words(self, state, action):
        """A move asked of the table (a bot's), before it is made: a fight card or cards to
        pass are never named."""
        s = state
        kind = action.get("type")
        if kind == "load":
            return "load %s onto the %s" % (nums(action["cards"]),
                                            wagon_name(s, action["wagon"]))
        if kind == "move":
            return "move %s from the %s to the %s" % (
                nums(action["cards"]), wagon_name(s, action["from"]),
                wagon_name(s, action["to"]))
        if kind == "discard":
            src = action.get("from")
            return "discard %s from the %s" % (nums(action["cards"]), "hand" if src == "hand"
                                               else wagon_name(s, src))
        if kind == "complete":
            return "deliver %s from the %s" % (contract_name(s, action["contract"]),
                                               wagon_name(s, action["wagon"]))
        if kind == "exchange":
            return "trade %s for %s from the Market" % (nums(action["give"]),
                                                        nums(action["take"]))
        if kind == "to_market":
            return "put %s into the Market" % nums([action["card"]])
        if kind == "buy_wagon":
            words = "buy the %s" % wagon_name(s, action["wagon"])
            if action.get("cards"):
                words += " with %s" % nums(action["cards"])
            return words
        if kind == "swap_draw":
            return "swap %s for a new card" % nums([action["card"]])
        if kind == "reserve":
            return "reserve %s" % contract_name(s, action.get("contract"))
        if kind == "discard_down":
            return "discard %s" % nums(action["cards"])
        return self.action_words(kind)

    def describe(self, state, action, events):
        s = state
        said = []
        grouped = {}
        for ev in events:
            kind = ev["type"]
            if kind in ("gold_gained", "gold_paid", "creatures_drawn") and \
                    ev.get("why") == "event":
                if kind not in grouped:
                    grouped[kind] = []
                    said.append((kind, grouped[kind]))
                grouped[kind].append(ev)
                continue
            said.append((None, self._event_words(s, action, ev)))
        words = []
        for kind, part in said:
            if kind is None:
                words.extend(part)
            else:
                words.append(self._grouped_words(s, kind, part))
        if words:
            return " ".join(words)
        who = fightclub.actor(s, action) or s.turn
        return "%s: %s." % (self.seat_name(s, who), self.request_words(s, action))

    def _grouped_words(self, s, kind, evs):
        each = ", ".join("%s %d" % (self.seat_name(s, ev["seat"]),
                                     ev["amount"] if "amount" in ev else ev["count"])
                         for ev in evs)
        return {"gold_gained": "Gold found: %s.", "gold_paid": "Gold paid to the bank: %s.",
                "creatures_drawn": "Cards drawn: %s."}[kind] % each

    def _event_words(self, s, action, ev):
        kind = ev["type"]
        name = lambda q: self.seat_name(s, q)   # noqa: E731
        wagon = lambda w: wagon_name(s, w)   # noqa: E731
        if kind == "wagon_bought":
            if "cards" in ev:
                return ["%s buys the %s with %s." % (name(ev["seat"]), wagon(ev["wagon"]),
                                                    nums(ev["cards"]))]
            return ["%s buys the %s for %d gold." % (name(ev["seat"]), wagon(ev["wagon"]),
                                                    ev["gold"])]
        if kind == "loaded":
            return ["%s loads %s onto the %s." % (name(ev["seat"]), nums(ev["cards"]),
                                                  wagon(ev["wagon"]))]
        if kind == "moved":
            return ["%s moves %s from the %s to the %s." % (
                name(ev["seat"]), nums(ev["cards"]), wagon(ev["from"]), wagon(ev["to"]))]
        if kind == "discarded":
            if ev["from"] != "hand":
                return ["%s discards %s from the %s." % (name(ev["seat"]), nums(ev["cards"]),
                                                         wagon(ev["from"]))]
            if action.get("type") == "swap_draw":
                return ["%s swaps %s for a new card." % (name(ev["seat"]), nums(ev["cards"]))]
            if action.get("type") == "discard_down":
                return ["%s discards %s, down to %s." % (
                    name(ev["seat"]), nums(ev["cards"]),
                    plural(len(s.players[ev["seat"]].hand), "card"))]
            return ["%s discards %s from the hand." % (name(ev["seat"]), nums(ev["cards"]))]
        if kind == "creatures_drawn":
            why = ev.get("why")
            count = ev["count"]
            if why == "swap_draw" and count == 1:
                return []
            if count == 0:
                return ["%s draws nothing: no creature is left to draw." % name(ev["seat"])]
            cards = "a card" if count == 1 else plural(count, "card")
            if why == "fight":
                return ["%s draws %s as the prize." % (name(ev["seat"]), cards)]
            if why == "came_up_short":
                return ["%s draws %s to make up the hand." % (name(ev["seat"]), cards)]
            return ["%s draws %s." % (name(ev["seat"]), cards)]
        if kind == "exchanged":
            return ["%s trades %s for %s from the Market." % (
                name(ev["seat"]), nums(ev["give"]), nums(ev["take"]))]
        if kind == "action_bought":
            return ["%s buys one more action for %d gold." % (name(ev["seat"]), ev["gold"])]
        if kind == "reserved":
            released = ev.get("released")
            return ["%s reserves %s for %d gold%s." % (
                name(ev["seat"]), contract_name(s, ev["contract"]), ev["gold"],
                " and lets %s go" % contract_name(s, released) if released else "")]
        if kind == "contract_completed":
            return ["%s delivers %s from the %s: %s%s." % (
                name(ev["seat"]), contract_name(s, ev["contract"]), wagon(ev["wagon"]),
                plural(ev["vp"], "point"), " and %d gold" % ev["gold"] if ev["gold"] else "")]
        if kind == "contract_drawn":
            c = s.cat.contracts[ev["contract"]]
            return ["A new contract: %s, wanting %s%s." % (
                c["name"], nums(c["creatures"]), ", with %d gold on it" % ev["gold"]
                if ev["gold"] else "")]
        if kind == "event_drawn":
            fight = ev.get("fight")
            return ["Event: %s. %s%s" % (ev["name"], ev["text"], (
                " Fight Club: %s wins." % FIGHTS[fight]) if fight and not s.solo else "")]
        if kind == "fight":
            shown = ev.get("values") or {}
            what = FIGHTS.get(ev["fight"], "the fight")
            if not shown and ev.get("winner"):
                return ["%s wins the fight for %s, the only one holding creatures." % (
                    name(ev["winner"]), what)]
            held = ", ".join("%s %d" % (name(q), shown[q]) for q in s.seats if q in shown)
            if ev.get("winner") is None:
                return ["Fight for %s (%s): tied, nobody wins." % (what, held)]
            return ["Fight for %s (%s): %s wins." % (what, held, name(ev["winner"]))]
        if kind == "gold_gained":
            why = " as the prize" if ev.get("why") == "fight" else ""
            return ["%s gains %d gold%s." % (name(ev["seat"]), ev["amount"], why)]
        if kind == "gold_paid":
            return ["%s pays %d gold to the bank." % (name(ev["seat"]), ev["amount"])]
        if kind == "fight_ignored":
            return ["No fight in a solo game."]
        if kind == "event_ignored":
            return ["A solo game skips what the event asks of other players."]
        if kind == "cards_passed":
            counts = ev.get("counts") or {}
            return ["Cards are passed to the %s (%s)." % (ev["direction"], ", ".join(
                "%s %d" % (name(q), counts[q]) for q in s.seats if q in counts))]
        if kind == "gold_passed":
            amounts = ev.get("amounts") or {}
            return ["Gold is passed to the %s (%s)." % (ev["direction"], ", ".join(
                "%s %d" % (name(q), amounts[q]) for q in s.seats if q in amounts))]
        if kind == "wheelbarrow_destroyed":
            lost = ev.get("discarded") or []
            return ["%s's Wheelbarrow is destroyed%s." % (
                name(ev["seat"]), " (%s discarded)" % nums(lost) if lost else "")]
        if kind == "contract_gold_added":
            return ["%d more gold on %s." % (ev["amount"], contract_name(s, ev["contract"]))]
        if kind == "market_discarded":
            return ["The Market is discarded."]
        if kind == "market_dealt":
            return ["A new Market: %s." % nums(ev["market"])] if ev["market"] else []
        if kind == "creatures_reshuffled":
            return ["The creature deck ran out: the Market and the discards are shuffled into "
                    "a new deck and the Market dealt again (%s)." % nums(ev["market"])
                    if ev["market"] else "The creature deck ran out and is shuffled again."]
        if kind == "actions_ended":
            return ["%s ends the actions." % name(ev["seat"])]
        if kind == "to_market":
            return ["%s puts %s into the Market." % (name(ev["seat"]), nums([ev["card"]]))]
        if kind == "turn_started":
            if ev["seat"] == s.first and not (s.solo and ev["round"] == 1):
                return ["Round %d: %s's turn." % (ev["round"], name(ev["seat"]))]
            return ["%s's turn." % name(ev["seat"])]
        if kind == "fight_card_chosen":
            return ["%s chooses a fight card in secret." % name(ev["seat"])]
        if kind == "pass_chosen":
            return ["%s chooses the cards to pass, in secret." % name(ev["seat"])]
        if kind == "game_over":
            words = self.ending(s)
            return [words if words.endswith(".") else words + "."]
        return []

    # ------------------------------------------------------------ the board

    def items(self, match, table, seat, reveal=False):
        """Each owned wagon as a card in its seat's colour (the creatures it holds), the
        contracts in play with the creatures they want, the Market's creatures; what lies on
        the table but not in the game (a load going down, a card to lift off) dashed.
        Everything on the table is face up, so `reveal` shows nothing more."""
        s = match.state
        out = {}
        expected = table.expected()
        for x in s.seats:
            p = s.players[x]
            for w in fightclub.WAGONS:
                if p.wagons[w] is None:
                    continue
                cell = WAGON_CELL[(x, w)]
                cards = p.wagons[w]
                lifted = minus(values(cards), values(table.observed.get(cell, ())))
                cap = s.cat.wagons[w]["capacity"]
                title = "%s's %s: %s (holds %d)%s" % (
                    self.seat_name(s, x), wagon_name(s, w),
                    nums(cards) if cards else "empty", cap,
                    "; %s lifted off the table" % nums(lifted) if lifted else "")
                # The creatures it holds (the wagon's name is its title: a phone's cell
                # has room for a few numbers, not for "Wheelbarrow").
                label = " ".join(str(v) for v in values(cards)) or "empty"
                out[cell] = [item("card", label, title, colour=css(self.seat_colour(s, x)),
                                  shape=self.seat_shape(s, x), owner=x)]
        reserved = dict((s.players[x].reserved, x) for x in s.seats
                        if s.players[x].reserved is not None)
        for cid, cell in sorted(table.contract_cells().items(), key=lambda kv: kv[1]):
            c = s.cat.contracts[cid]
            gold = s.area_gold.get(cid, 0)
            by = reserved.get(cid)
            title = "%s: wants %s; %s%s, a %s castle flag%s%s" % (
                c["name"], nums(c["creatures"]), plural(c["vp"], "point"),
                ", %d gold" % gold if gold else "", c["flag"],
                ", reserved by %s" % self.seat_name(s, by) if by else "",
                "" if any(cid in seen for seen in table.observed.values())
                else " (not on the table)")
            out.setdefault(cell, []).append(item(
                "contract", " ".join(str(v) for v in c["creatures"]) + (
                    " (%d gold)" % gold if gold else ""), title, id=cid,
                colour=css(self.seat_colour(s, by)) if by else None,
                shape=self.seat_shape(s, by) if by else None, owner=by))
        for cell in MARKET_CELLS:
            # The Market's cards where the table shows them (one taken out for a trade is
            # not drawn: it is in a hand).
            seen = [fightclub.value(c) for c in table.observed.get(cell, ()) if is_creature(c)]
            for cid in expected.get(cell, ()):
                if is_creature(cid) and fightclub.value(cid) in seen:
                    seen.remove(fightclub.value(cid))
                    out.setdefault(cell, []).append(item(
                        "card", str(fightclub.value(cid)), "%s in the Market" % nums([cid]),
                        id=cid))
        for cell, seen in sorted(table.observed.items()):
            for words in self._extras(s, cell, seen, expected.get(cell, [])):
                out.setdefault(cell, []).append(words)
        return out

    def _extras(self, s, cell, seen, wanted):
        """The pieces lying on `cell` that the game does not have there (creatures count
        by number): dashed, no id (the card may still be in a hand, for the game)."""
        out = []
        left = [fightclub.value(c) for c in wanted if is_creature(c)]
        zone = ZONES.get(cell)
        for cid in seen:
            if is_creature(cid):
                v = fightclub.value(cid)
                if v in left:
                    left.remove(v)
                    continue
                where = "going down" if zone is not None and zone[0] in ("wagon", "market") \
                    else "to lift off"
                out.append(item("card", str(v), "%s %s (not in the game here)" % (
                    nums([cid]), where), unplaced=True))
            elif cid not in wanted:
                c = s.cat.contracts.get(cid)
                label = " ".join(str(v) for v in c["creatures"]) if c else "?"
                out.append(item("contract", label, "%s: not in play here, to lift off" % (
                    c["name"] if c else "a card of another game"), unplaced=True))
        return out

    # ------------------------------------------------------------ a seat

    def _targets(self, s, seat):
        """The contracts in play the seat may work toward (not reserved by another)."""
        return [cid for cid in s.area if all(
            s.players[x].reserved != cid for x in s.seats if x != seat)]

    def _need(self, s, seat):
        """number -> the most cards of it one contract in play asks for."""
        need = {}
        for cid in self._targets(s, seat):
            counts = {}
            for v in s.cat.contracts[cid]["creatures"]:
                counts[v] = counts.get(v, 0) + 1
            for v in counts:
                need[v] = max(need.get(v, 0), counts[v])
        return need

    def _spare(self, s, seat, cards):
        """The cards of `cards` no contract in play asks for (beyond what one may ask)."""
        need = self._need(s, seat)
        seen = {}
        out = []
        for c in sorted(cards):
            v = fightclub.value(c)
            seen[v] = seen.get(v, 0) + 1
            if seen[v] > need.get(v, 0):
                out.append(c)
        return out

    def _useful(self, need, vals):
        counts = {}
        for v in vals:
            counts[v] = counts.get(v, 0) + 1
        return sum(min(counts[v], need.get(v, 0)) for v in counts)

    def _on_table(self, table):
        out = set()
        for seen in table.observed.values():
            out.update(seen)
        return out

    def _in_hand(self, s, table, seat):
        """The creature ids the seat's hand holds on this table. The engine names a hand's
        cards by number (the first copy of each number, its normal form), while the hand
        may hold another copy: a trade took whichever 1 lay in the Market, and the engine's
        1 still lies there. So: the engine's hand by number, less the cards put down and
        not read yet, each number given an id that does not lie on the table (the engine's
        own id first, else the copy it took)."""
        lying = self._on_table(table)
        down = values([c for c in lying if is_creature(c)])
        wanted = values([c for cells in table.expected().values() for c in cells
                         if is_creature(c)])
        hand = s.players[seat].hand
        out = []
        for v in minus(values(hand), minus(down, wanted)):
            mine = [c for c in sorted(hand) if fightclub.value(c) == v and c not in lying
                    and c not in out]
            # The copy a hand took instead lies where the engine still has it: in the
            # Market or on a wagon (public places, so the seat may see its id), not there.
            other = [c for c in sorted(self._public_creatures(s)) if fightclub.value(c) == v
                     and c not in lying and c not in out and c not in hand]
            if mine or other:
                out.append((mine or other)[0])
        return out

    def _public_creatures(self, s):
        out = list(s.market)
        for x in s.seats:
            for cards in s.players[x].wagons.values():
                out.extend(cards or ())
        return out

    def _engine_ids(self, s, seat, ids):
        """The engine's ids for cards the hand holds (by number: `_in_hand`)."""
        return ids_for(s.players[seat].hand, values(ids)) or list(ids)

    def _market_diff(self, s, table):
        """(taken, given): the Market's numbers the table lacks, and those it has more."""
        seen = []
        for cell in MARKET_CELLS:
            seen.extend(c for c in table.observed.get(cell, ()) if is_creature(c))
        return minus(values(s.market), values(seen)), minus(values(seen), values(s.market))

    def _market_card(self, table, v):
        """(cell, id) of a creature numbered `v` lying in the Market, or None."""
        for cell in MARKET_CELLS:
            for c in table.observed.get(cell, ()):
                if is_creature(c) and fightclub.value(c) == v:
                    return cell, c
        return None

    def _emptiest_market(self, table):
        return min(MARKET_CELLS, key=lambda c: (len(table.observed.get(c, ())),
                                                MARKET_CELLS.index(c)))

    def _delivering(self, s, table, seat):
        """(contract, wagon) when the seat lifted a contract it can deliver and its wagon's
        cards are on their way off, else None."""
        if s.phase != "play" or table.catching_up:
            return None
        lying = self._on_table(table)
        for cid in s.area:
            if cid in lying:
                continue
            for w in fightclub.WAGONS:
                if fightclub.validate(s, {"type": "complete", "contract": cid,
                                          "wagon": w}) is None and \
                        table.observed.get(WAGON_CELL[(seat, w)]):
                    return cid, w
        return None

    def you(self, match, table, seat, held=None):
        s = match.state
        if s.status != "ongoing":
            return {"hand": [], "choices": [], "note": None}     # nothing left to play
        p = s.players[seat]
        acting = seat in self.game.actors(s)
        legal = fightclub.legal_actions(s) if acting else []
        hand = []
        targets = self._hand_targets(s, table, seat, legal)
        # (a card put down already, not yet read, shows on the board, not in the hand)
        for cid in self._in_hand(s, table, seat):
            hand.append({"id": cid, "label": str(fightclub.value(cid)), "kind": "card",
                         "targets": targets.get(fightclub.value(cid), [])})
        if not acting:
            return {"hand": hand, "choices": self._idle_choices(s),
                    "note": self._waiting_note(s, seat)}
        note = None
        if s.phase == "play":
            choices, note = self._play_choices(s, table, seat, legal)
        elif s.phase == "draw":
            choices = self._draw_choices(s, seat, legal)
        elif s.phase == "market":
            spot = self._emptiest_market(table)
            order = self._spare(s, seat, p.hand)
            acts = [a for a in legal if a["type"] == "to_market"]
            acts.sort(key=lambda a: (a["card"] not in order, fightclub.value(a["card"])))
            held = self._in_hand(s, table, seat)
            choices = []
            for a in acts:
                card = [c for c in held if fightclub.value(c) == fightclub.value(a["card"])]
                if card:
                    choices.append({"label": "Put your %d into the Market" % fightclub.value(
                        a["card"]), "control": {"op": "place", "cell": list(spot),
                                                "card": card[0]}, "enabled": True})
            note = "One creature of your hand goes into the Market: a button, or a card of " \
                   "your hand and then a Market cell."
        elif s.phase == "fight":
            choices = [{"label": "Fight with your %d" % fightclub.value(a["card"]),
                        "control": {"op": "action", "action": a}, "enabled": True}
                       for a in legal if a["type"] == "fight_card"]
            note = "The cards are shown when everyone has chosen; they stay in the hands."
        else:
            choices = self._pass_choices(s, seat, legal)
        moves = {}
        if s.phase == "play":
            for w in fightclub.WAGONS:
                cards = p.wagons[w]
                if not cards:
                    continue
                to = [list(WAGON_CELL[(seat, v)]) for v in fightclub.WAGONS
                      if v != w and fightclub.validate(s, {
                          "type": "move", "from": w, "to": v, "cards": cards[-1:]}) is None]
                if to:
                    moves["%d,%d" % WAGON_CELL[(seat, w)]] = to
        return {"hand": hand, "choices": choices, "note": note, "moves": moves}

    def _hand_targets(self, s, table, seat, legal):
        """card number -> the cells it may go on now: the seat's wagons with room (its actions),
        the Market (the Market step, or a trade that gives it)."""
        out = {}
        if not legal:
            return out
        p = s.players[seat]
        if s.phase == "market":
            cells = [list(c) for c in MARKET_CELLS]
            return dict((fightclub.value(c), cells) for c in p.hand)
        if s.phase != "play":
            return out
        given = set()
        for a in legal:
            if a["type"] == "exchange":
                given.update(fightclub.value(c) for c in a["give"])
        for cid in p.hand:
            cells = []
            for w in fightclub.WAGONS:
                if p.wagons[w] is None:
                    continue
                cell = WAGON_CELL[(seat, w)]
                going = len(minus(values(table.observed.get(cell, ())), values(p.wagons[w])))
                if fightclub.validate(s, {"type": "load", "wagon": w, "cards": [cid]}) is None \
                        and len(p.wagons[w]) + going < s.cat.wagons[w]["capacity"]:
                    cells.append(list(cell))
            if fightclub.value(cid) in given:
                cells.extend(list(c) for c in MARKET_CELLS)
            out[fightclub.value(cid)] = cells
        return out

    def _idle_choices(self, s):
        """What a seat's buttons do, greyed while another seat plays."""
        labels = {"end_turn": "End your actions", "draw": "Draw up",
                  "wagon": "Buy the next wagon", "action": "Buy one more action (2 gold)"}
        return [{"label": labels.get(name, label), "control": {"op": "button", "name": name},
                 "enabled": False} for name, label in self.game.buttons]

    def _waiting_note(self, s, seat):
        who = self.seat_name(s, self.game.actors(s)[0])
        if s.phase in ("fight", "pass"):
            mine = (fightclub.view(s, seat).get("pending") or {}).get("mine")
            if mine:
                if s.phase == "fight":
                    return "You chose to fight with your %d; the cards are shown when " \
                           "everyone has chosen. Waiting for %s." % (
                               fightclub.value(mine[0]), who)
                return "You chose to pass your %s. Waiting for %s." % (listed(mine), who)
        return "Waiting for %s." % who

    def _play_choices(self, s, table, seat, legal):
        """A seat's choices during its actions, the move under way first; (choices, note)."""
        p = s.players[seat]
        choices = []
        note = "Pick a card, then a lit wagon: cards put down one after another are one " \
               "load, read when you stop (or tap the wagon)."
        going = self._delivering(s, table, seat)
        if going is not None:
            cid, w = going
            cell = WAGON_CELL[(seat, w)]
            left = len(table.observed.get(cell, ()))
            choices.append({"label": "Lift a card off your %s (%d to go)" % (
                wagon_name(s, w), left), "control": {"op": "lift", "cell": list(cell)},
                "enabled": True, "step": True})
            note = "Lift every card off your %s to deliver %s." % (wagon_name(s, w),
                                                                   contract_name(s, cid))
        trading = self._trade_steps(s, table, seat, legal)
        if trading is not None:
            steps, note = trading
            choices.extend(steps)
        if going is None and trading is None:
            choices.extend(self._deliveries(s, table, seat, legal))
            choices.extend(self._loads(s, table, seat, legal))
            choices.extend(self._trades(s, table, seat, legal))
        choices.extend(self._purchases(s, seat, legal))
        choices.extend(self._reserves(s, seat, legal))
        spare = self._spare(s, seat, p.hand)
        shown = set()
        for a in legal:
            if a["type"] == "swap_draw" and a["card"] in spare and \
                    fightclub.value(a["card"]) not in shown and len(shown) < MOST_CHOICES:
                shown.add(fightclub.value(a["card"]))
                choices.append({"label": "Swap your %d for a new card" % fightclub.value(
                    a["card"]), "control": {"op": "action", "action": a}, "enabled": True})
        if len(spare) >= 2:
            action = fightclub.normal_form(s, {"type": "discard", "from": "hand",
                                               "cards": spare})
            if fightclub.validate(s, action) is None:
                choices.append({"label": "Discard your spare %s" % listed(spare),
                                "control": {"op": "action", "action": action},
                                "enabled": True})
        kinds = set(a["type"] for a in legal)
        choices.append({"label": "Buy one more action for 2 gold",
                        "control": {"op": "button", "name": "action"},
                        "enabled": "buy_action" in kinds})
        choices.append({"label": "End your actions", "control": {"op": "button",
                                                                  "name": "end_turn"},
                        "enabled": "end_actions" in kinds})
        if going is None and trading is None and table.busy():
            note = "Cards are going down: tap the wagon when they are all there, or wait."
        if table.mismatches:
            # The seat buttons wait for the table to show the game (the interpreter's).
            for c in choices:
                if c["control"]["op"] == "button":
                    c["enabled"] = False
        return choices, note

    def _reserves(self, s, seat, legal):
        """Reserving a contract one of the seat's wagons is one card short of."""
        p = s.players[seat]
        found = []
        for a in legal:
            if a["type"] != "reserve" or p.reserved == a["contract"]:
                continue
            want = s.cat.contracts[a["contract"]]["creatures"]
            for w in fightclub.WAGONS:
                cards = values(p.wagons[w] or [])
                if cards and len(cards) >= len(want) - 1 and sub_multiset(cards, want):
                    found.append((-s.cat.contracts[a["contract"]]["vp"], a["contract"], a))
                    break
        found.sort(key=lambda f: f[:2])
        return [{"label": "Reserve %s for 1 gold" % contract_name(s, a["contract"]),
                 "control": {"op": "action", "action": a}, "enabled": True}
                for _vp, _cid, a in found[:MOST_CHOICES - 1]]

    def _deliveries(self, s, table, seat, legal):
        where = table.contract_cells()
        out = []
        for a in legal:
            if a["type"] != "complete":
                continue
            cell = where.get(a["contract"])
            if cell is None or a["contract"] not in table.observed.get(cell, ()):
                continue
            if a["wagon"] != self._delivery_wagon(s, seat, a["contract"]):
                continue        # (one choice a contract: the wagon its delivery empties)
            c = s.cat.contracts[a["contract"]]
            gold = s.area_gold.get(a["contract"], 0)
            out.append({"label": "Deliver %s from your %s (%s%s)" % (
                c["name"], wagon_name(s, a["wagon"]), plural(c["vp"], "point"),
                ", %d gold" % gold if gold else ""),
                "control": {"op": "lift", "cell": list(where[a["contract"]]),
                            "card": a["contract"], "whole": True}, "enabled": True})
        return out

    @staticmethod
    def _delivery_wagon(s, seat, cid):
        """The wagon a delivery of contract `cid` empties: the first of the seat's that
        holds what it wants."""
        for w in fightclub.WAGONS:
            if fightclub.validate(s, {"type": "complete", "contract": cid, "wagon": w}) is None:
                return w
        return None

    def _loads(self, s, table, seat, legal):
        """Loads toward a contract in play: the hand's cards a wagon still lacks for it."""
        p = s.players[seat]
        if not any(a["type"] == "load" for a in legal):
            return []
        free = self._in_hand(s, table, seat)
        found = []
        for w in fightclub.WAGONS:
            cards = p.wagons[w]
            if cards is None:
                continue
            cell = WAGON_CELL[(seat, w)]
            if minus(values(table.observed.get(cell, ())), values(cards)):
                continue        # cards going down there already
            room = s.cat.wagons[w]["capacity"] - len(cards)
            for cid in self._targets(s, seat):
                want = s.cat.contracts[cid]["creatures"]
                if len(want) > s.cat.wagons[w]["capacity"] or \
                        not sub_multiset(values(cards), want):
                    continue
                rest = minus(want, values(cards))
                pick = []
                pool = list(free)
                for v in rest:
                    for c in pool:
                        if fightclub.value(c) == v:
                            pick.append(c)
                            pool.remove(c)
                            break
                pick = sorted(pick)[:room]
                if not pick:
                    continue
                action = {"type": "load", "wagon": w, "cards": self._engine_ids(s, seat, pick)}
                if fightclub.validate(s, action) is not None:
                    continue
                whole = len(pick) == len(rest)
                found.append(((not whole, -len(pick), -s.cat.contracts[cid]["vp"], w, cid),
                              w, pick, cid, whole))
        found.sort()
        out = []
        seen = set()
        for _key, w, pick, cid, whole in found:
            if (w, tuple(values(pick))) in seen or len(out) >= MOST_CHOICES:
                continue
            seen.add((w, tuple(values(pick))))
            out.append({"label": "Load %s onto your %s (%s %s)" % (
                nums(pick), wagon_name(s, w), "completes" if whole else "toward",
                contract_name(s, cid)), "control": {
                    "op": "place", "cell": list(WAGON_CELL[(seat, w)]),
                    "card": "+".join(pick), "whole": True}, "enabled": True})
        return out

    def _trades(self, s, table, seat, legal):
        """Trades with the Market that bring the hand closer to a contract in play; the
        first step of each (a Market card taken)."""
        p = s.players[seat]
        need = self._need(s, seat)
        now = self._useful(need, values(p.hand))
        found = []
        for a in legal:
            if a["type"] != "exchange":
                continue
            after = minus(values(p.hand), values(a["give"])) + values(a["take"])
            gain = self._useful(need, after) - now
            if gain > 0:
                found.append((-gain, len(a["give"]) + len(a["take"]),
                              values(a["give"]), values(a["take"]), a))
        found.sort(key=lambda f: f[:4])
        out = []
        for _g, _n, give, take, _a in found[:MOST_CHOICES]:
            first = self._market_card(table, take[0])
            if first is None:
                continue
            out.append({"label": "Trade your %s for %s from the Market" % (
                listed(give), nums(take)), "control": {
                    "op": "lift", "cell": list(first[0]), "card": first[1]}, "enabled": True})
        return out

    def _trade_steps(self, s, table, seat, legal):
        """A trade under way (Market cards taken, or the hand's given): the steps that
        finish it, and a note; None when the Market is as the game has it."""
        if s.phase != "play" or table.catching_up:
            return None
        taken, given = self._market_diff(s, table)
        if not taken and not given:
            return None
        steps = []
        for a in legal:
            if a["type"] != "exchange":
                continue
            take, give = values(a["take"]), values(a["give"])
            if not sub_multiset(taken, take) or not sub_multiset(given, give):
                continue
            more = minus(take, taken)
            if more:
                spot = self._market_card(table, more[0])
                if spot is None:
                    continue
                label = "Take %s from the Market (for your %s)" % (num(more[0]), listed(give))
                control = {"op": "lift", "cell": list(spot[0]), "card": spot[1]}
            else:
                rest = minus(give, given)
                ids = []
                pool = self._in_hand(s, table, seat)
                for v in rest:
                    for c in pool:
                        if fightclub.value(c) == v and c not in ids:
                            ids.append(c)
                            break
                if len(ids) != len(rest) or not ids:
                    continue
                label = "Give your %s to the Market (for %s)" % (listed(ids), nums(take))
                control = {"op": "place", "cell": list(self._emptiest_market(table)),
                           "card": "+".join(sorted(ids))}
            if label not in [c["label"] for c in steps]:
                steps.append({"label": label, "control": control, "enabled": True,
                              "step": True})
        words = []
        if taken:
            words.append("taken %s from the Market" % nums(taken))
        if given:
            words.append("given it %s" % nums(given))
        if not steps:
            return [], "You have %s: no trade is made of that; put the Market back as it " \
                       "was." % " and ".join(words)
        return steps[:MOST_CHOICES], "You have %s: finish the trade." % " and ".join(words)

    def _purchases(self, s, seat, legal):
        """The next wagon for gold (greyed when the gold is short) and for the cheapest
        group of creatures, and a destroyed Wheelbarrow bought back."""
        p = s.players[seat]
        spare = self._spare(s, seat, p.hand)
        out = []
        wagons = [w for w in ("wheelbarrow",) + fightclub.BUY_ORDER if p.wagons[w] is None]
        nxt = fightclub.next_to_buy(s, seat)
        for w in wagons:
            if w != "wheelbarrow" and w != nxt:
                continue
            info = s.cat.wagons[w]
            if info["gold"] is not None:
                ok = any(a["type"] == "buy_wagon" and a["wagon"] == w and "cards" not in a
                         for a in legal)
                out.append({"label": "Buy the %s for %d gold" % (info["name"], info["gold"]),
                            "control": {"op": "action", "action": {
                                "type": "buy_wagon", "wagon": w}}, "enabled": ok})
            groups = [a for a in legal if a["type"] == "buy_wagon" and a["wagon"] == w and
                      a.get("cards")]
            if groups:
                best = min(groups, key=lambda a: (
                    sum(1 for c in a["cards"] if c not in spare),
                    sum(fightclub.value(c) for c in a["cards"]), len(a["cards"]), a["cards"]))
                out.append({"label": "Buy the %s with your %s" % (info["name"],
                                                                  listed(best["cards"])),
                            "control": {"op": "action", "action": best}, "enabled": True})
        return out

    def _draw_choices(self, s, seat, legal):
        p = s.players[seat]
        size = fightclub.hand_size(s, seat)
        out = []
        if len(p.hand) <= size:
            out.append({"label": "Draw up to %d cards" % size,
                        "control": {"op": "button", "name": "draw"},
                        "enabled": any(a["type"] == "draw_up" for a in legal)})
        spare = self._spare(s, seat, p.hand)
        acts = [a for a in legal if a["type"] == "discard_down"]
        acts.sort(key=lambda a: (sum(1 for c in a["cards"] if c not in spare),
                                 sum(fightclub.value(c) for c in a["cards"]), a["cards"]))
        for a in acts[:MOST_CHOICES + 1]:
            out.append({"label": "Discard %s, down to %d cards" % (nums(a["cards"]), size),
                        "control": {"op": "action", "action": a}, "enabled": True})
        return out

    def _pass_choices(self, s, seat, legal):
        ev = s.cat.events[s.pending["event"]]
        i = s.seats.index(seat)
        to = s.seats[(i + (1 if ev["direction"] == "left" else -1)) % len(s.seats)]
        spare = self._spare(s, seat, s.players[seat].hand)
        acts = [a for a in legal if a["type"] == "pass_cards"]
        acts.sort(key=lambda a: (sum(1 for c in a["cards"] if c not in spare),
                                 sum(fightclub.value(c) for c in a["cards"]), a["cards"]))
        return [{"label": "Pass your %s to %s" % (listed(a["cards"]), self.seat_name(s, to)),
                 "control": {"op": "action", "action": a}, "enabled": True}
                for a in acts[:MOST_CHOICES + 3]]

    # ------------------------------------------------------------ a seat's controls

    def _acting_in(self, s, seat, phases, place):
        if s.status != "ongoing":
            raise Refused(409, "The game is over.", [place])
        who = self.game.actors(s)
        if seat not in who:
            raise Refused(409, "It is %s's turn: wait for yours." % self.seat_name(s, who[0]),
                          [place])
        if s.phase not in phases:
            raise Refused(409, {
                "draw": "Draw up (or discard down) first: the buttons do it.",
                "market": "Now one creature of your hand goes into the Market: pick it, "
                          "then a Market cell.",
                "fight": "Choose your fight card with the buttons: it stays in your hand.",
                "pass": "Choose the cards to pass with the buttons.",
                "play": "That is done during your actions."}.get(s.phase, "Not now."), [place])

    def place_steps(self, match, table, seat, card, place, face_down=False, whole=False):
        """A card of the hand on a wagon (a load) or into the Market (the Market step, or
        the cards a trade gives); several ids joined by "+" (a choice's group) go down
        together and the pad is tapped, so they are read as one move at once. A single card
        is tapped too when it is a whole move: the Market step's one card, or a load the
        page's choice says is `whole` (a card put down from the hand by itself may be the
        first of a group: the table waits for the rest, or for the person's tap)."""
        s = match.state
        if place[0] == "seat":
            raise Refused(400, "Fight Club has no card readers: creatures go on your wagons "
                          "or into the Market.")
        if not isinstance(card, str) or not card:
            raise Refused(400, 'Say which card to put down: {"card": ID}.')
        ids = card.split("+")
        lying = self._on_table(table)
        for c in ids:
            if c in lying:
                where = [cell for cell, seen in table.observed.items() if c in seen]
                raise Refused(409, "Your %d lies on the table already." % fightclub.value(c),
                              where[:1])
        held = self._in_hand(s, table, seat)
        if len(set(ids)) != len(ids) or any(c not in held for c in ids):
            raise Refused(403, "%s does not hold that card." % self.seat_name(s, seat))
        zone = ZONES.get(place)
        if zone is None:
            # Said beside the cell: "that cell" is the one the person clicked.
            raise Refused(409, "Nothing goes on that cell in Fight Club: creatures go on your "
                          "wagons or into the Market.", [place])
        if zone[0] == "contract":
            raise Refused(409, "That is the contract area: creatures go on your wagons or "
                          "into the Market.", [place])
        if zone[0] == "wagon":
            if zone[1] != seat:
                raise Refused(403, "That is %s's %s: put your creatures on your own wagons."
                              % (self.seat_name(s, zone[1]), wagon_name(s, zone[2])), [place])
            self._acting_in(s, seat, ("play",), place)
            w = zone[2]
            problem = fightclub.validate(s, {"type": "load", "wagon": w,
                                             "cards": self._engine_ids(s, seat, ids)})
            if problem is not None:
                raise Refused(409, problem.message, [place])
            cards = s.players[seat].wagons[w]
            going = minus(values(table.observed.get(place, ())), values(cards))
            room = s.cat.wagons[w]["capacity"] - len(cards) - len(going)
            if len(ids) > room:
                raise Refused(409, "The %s has room for %s more." % (
                    wagon_name(s, w), plural(room, "creature")), [place])
            steps = [("place", place, "fightclub:" + c) for c in ids]
            if len(ids) > 1 or whole:
                steps.append(("gesture", place, "tap"))
            return steps
        self._acting_in(s, seat, ("play", "market"), place)
        if s.phase == "market":
            if len(ids) != 1:
                raise Refused(409, "One creature goes into the Market.", [place])
            problem = fightclub.validate(s, {"type": "to_market",
                                             "card": self._engine_ids(s, seat, ids)[0]})
            if problem is not None:
                raise Refused(409, problem.message, [place])
            return [("place", place, "fightclub:" + ids[0]), ("gesture", place, "tap")]
        # A trade: the hand's cards given to the Market.
        taken, given = self._market_diff(s, table)
        given = given + [fightclub.value(c) for c in ids]
        fits, whole = False, False
        for a in fightclub.legal_actions(s):
            if a["type"] == "exchange" and sub_multiset(given, values(a["give"])) and \
                    sub_multiset(taken, values(a["take"])):
                fits = True
                whole = whole or (sorted(given) == values(a["give"]) and
                                  sorted(taken) == values(a["take"]))
        if not fits:
            raise Refused(409, "No trade gives the Market that: one card for several of the "
                          "same sum, or several for one.", [place])
        steps = [("place", place, "fightclub:" + c) for c in ids]
        if whole:
            steps.append(("gesture", place, "tap"))
        return steps

    def liftable(self, match, table, seat, place, card=None):
        """A card the seat may lift: its own creatures during its actions, a Market card or
        a contract on its turn, or anything the game does not have there (tidying)."""
        s = match.state
        if place[0] == "seat":
            raise Refused(400, "Fight Club has no card readers.")
        seen = list(table.observed.get(place, ()))
        if not seen:
            raise Refused(409, "Nothing lies on %s." % cell_words(place), [place])
        if card is not None:
            if card not in seen:
                raise Refused(409, "That card does not lie on %s." % cell_words(place), [place])
            cid = card
        else:
            cid = seen[-1]
        wanted = table.expected().get(place, [])
        if is_creature(cid):
            v = fightclub.value(cid)
            extra = [fightclub.value(c) for c in seen].count(v) > \
                [fightclub.value(c) for c in wanted if is_creature(c)].count(v)
        else:
            extra = cid not in wanted
        if extra:
            return "fightclub:" + cid
        zone = ZONES.get(place)
        if zone is not None and zone[0] == "wagon" and zone[1] != seat:
            raise Refused(403, "Those are %s's creatures: lift only your own." %
                          self.seat_name(s, zone[1]), [place])
        self._acting_in(s, seat, ("play",), place)
        return "fightclub:" + cid

    def lift_steps(self, match, table, seat, place, item, whole=False):
        """A delivery chosen on the page (`whole`): the contract, then every card of the
        wagon it empties, one after another, as a hand delivers on the table."""
        s = match.state
        cid = self.observed_name(item)
        if whole and not is_creature(cid) and cid in s.area:
            w = self._delivery_wagon(s, seat, cid)
            if w is not None:
                cell = WAGON_CELL[(seat, w)]
                return [("lift", place, item)] + [("lift", cell, "fightclub:" + c)
                                                  for c in table.observed.get(cell, ())]
        return [("lift", place, item)]

    def check_move(self, match, table, seat, place, to, item):
        s = match.state
        src, dst = ZONES.get(place), ZONES.get(to)
        cid = self.observed_name(item)
        if not (src and dst and src[0] == dst[0] == "wagon" and src[1] == dst[1] == seat and
                is_creature(cid)):
            raise Refused(409, "Creatures move from one of your wagons to another of yours.",
                          [to])
        cards = s.players[seat].wagons[src[2]] or []
        same = [c for c in cards if fightclub.value(c) == fightclub.value(cid)]
        problem = fightclub.validate(s, {"type": "move", "from": src[2], "to": dst[2],
                                         "cards": same[:1] or [cid]})
        if problem is not None:
            raise Refused(409, problem.message, [to])

    def observed_name(self, item):
        return item.split(":", 1)[1]
