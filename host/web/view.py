"""The one place the web table reads the session: the table as JSON per viewer, and controls.

Everything the browser sees goes through `WebTable.view(seat)`: a spectator
(seat None) gets the engine's public view, the LED scenes the tiles were
sent, what lies on each cell as far as a spectator may know (a face-down card
is `{"kind": "card", "face_up": false, "owner": SEAT}`, no id), mismatches,
the log and the tiles. A seat's view adds that seat's knowledge (its hand,
its face-down cards, where a picked card may go). As a last guard every
string of a view is checked against the engine's `secrets(state, seat)`: a
hidden card's id or name in a log line or a mismatch sentence is replaced by
"a hidden card" before the view leaves this module.

Controls (`WebTable.control`) are the physical gestures of a seat on the
virtual table: they go through the virtual hands to the tiles' control
channel, exactly the path a real hand takes, and the seat buttons through
the session's `button`. Each is checked against the seat first and refused
with a sentence (`Refused`) that changes nothing.
"""

import asyncio
import random

from host import lights

from host.virtual.hands import HandsSlipped

HIDDEN = "a hidden card"
LOG_LINES = 40
GESTURES = ("tap", "double", "hold")
CONTROL_OPS = ("place", "lift", "move", "tap", "double", "hold", "button", "throw", "action")
# Seat buttons per game (the web table's, and the Pi's for the games it wires).
BUTTONS = {"storybook": ("draw", "end_turn", "twist"), "royale": ("roll", "swap", "end_turn"),
           "heroes": ("roll", "end_turn", "no_defence"),
           "fightclub": ("end_turn", "draw", "wagon", "action")}


class Refused(Exception):
    """A request the web table will not carry out: an HTTP status and a sentence."""

    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status
        self.message = message


def scene_json(scene):
    """A scene (four segments) as JSON: [[effect, [r, g, b], a, b] x4]."""
    return [[seg[0], list(seg[1]), seg[2], seg[3]] for seg in scene]


def cell_key(cell):
    return "%d,%d" % (cell[0], cell[1])


def _redact(obj, words):
    """Replace every secret word in the strings of obj (a JSON-like value)."""
    if isinstance(obj, str):
        if obj in words:
            return HIDDEN
        for word in words:
            if word in obj:
                obj = _replace_word(obj, word)
        return obj
    if isinstance(obj, list):
        return [_redact(x, words) for x in obj]
    if isinstance(obj, dict):
        return {k: _redact(v, words) for k, v in obj.items()}
    return obj


def _replace_word(text, word):
    """Replace `word` where it stands as a word (not inside another word)."""
    out, i = [], 0
    while True:
        j = text.find(word, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        before = text[j - 1] if j > 0 else " "
        after = text[j + len(word)] if j + len(word) < len(text) else " "
        if before.isalnum() or before == "_" or after.isalnum() or after == "_":
            out.append(text[i:j + len(word)])
        else:
            out.append(text[i:j] + HIDDEN)
        i = j + len(word)


def secret_words(state, engine, seat=None):
    """The ids and names the viewer may not see (every form a hidden card can take in text)."""
    words = set()
    for cid in engine.secrets(state, seat):
        words.add(cid)
        cat = getattr(state, "cat", None)
        if isinstance(cat, dict):   # heroes: its catalog is data; the secrets are Bonus Cards
            card = cat.get("bonus", {}).get(cid)
            if card is not None:
                words.add(card["name"])
        elif cat is not None:
            card = getattr(cat, "cards", {}).get(cid)
            if card is not None:
                words.add(card[1])
            twist = getattr(cat, "twists", {}).get(cid)
            if twist is not None and twist.get("name"):
                words.add(twist["name"])
    return sorted(words, key=lambda w: (-len(w), w))


class WebTable:
    """The session as the web sees it: views per viewer, controls, staff operations."""

    def __init__(self, session, hands=None, journal=None):
        self.session = session
        self.hands = hands          # the virtual hands (None on a real table)
        self.journal = journal
        self.control_lock = asyncio.Lock()
        self.rng = random.SystemRandom()  # a person's dice on the virtual table

    # ------------------------------------------------------------ what changes

    @property
    def virtual(self):
        return self.hands is not None

    def game_name(self):
        return self.session.match.game

    def seats(self):
        return list(self.session.match.state.seats)

    def bot_seats(self):
        return dict(self.session.bots.seats)

    def signature(self):
        """Changes whenever anything a view shows may have changed (cheap: no view built)."""
        s = self.session
        table = s.table
        tiles = tuple((uid, t.online) for uid, t in sorted(s.link.tiles.items()))
        pockets = tuple(sorted(getattr(table, "pockets", {}).items()))
        throw = getattr(table, "throw", None)
        return (id(s.match), len(s.match.actions), s.led_scenes_sent,
                tuple(m.message for m in s.mismatches), tiles, len(s.log.lines),
                s.attract, s.paused, pockets, id(throw), repr(s.bots.request),
                repr(getattr(table, "pending_place", None)), repr(getattr(table, "in_hand", None)),
                repr(getattr(table, "lifting", None)), repr(getattr(table, "attacker", None)),
                repr(getattr(table, "card_play", None)),
                repr(sorted(table.seat_observed.items())),
                repr(sorted(table.seat_problems.items())),
                len(getattr(s, "flash", ())))

    # ------------------------------------------------------------ the view

    def view(self, seat=None):
        """The table as `seat` (None: a spectator) may see it: a JSON-ready dict."""
        s = self.session
        match = s.match
        state = match.state
        engine = match.engine
        if seat is not None and seat not in state.seats:
            raise Refused(404, "there is no seat %r at this table (seats: %s)."
                          % (seat, ", ".join(state.seats)))
        # The contract's view (the engine's view for this viewer, whose turn, what the
        # table waits for); the web adds the cells, the LEDs, the log and the tiles.
        base = s.view(seat)
        known = base["state"]
        game = match.game
        out = {"game": game, "status": known.get("status"), "winner": known.get("winner"),
               "phase": known.get("phase"), "turn": known.get("turn"),
               "actions": len(match.actions), "game_id": s.game_id,
               "attract": s.attract, "paused": s.paused, "virtual": self.virtual,
               "viewer": {"seat": seat}, "current_seat": base.get("current_seat"),
               "waiting_for": base.get("waiting_for", []), "busy": base.get("busy"),
               "turns": base.get("turns")}
        out["seats"] = [{"seat": x, "bot": x in s.bots.seats} for x in state.seats]
        if game == "storybook":
            out["scores"] = dict(known["scores"])
            out["target"] = known["target"]
            out["ap"] = known["ap"]
            out["overtime"] = known["overtime"]
            out["hand_sizes"] = known["hand_sizes"]
            out["deck_sizes"] = known["deck_sizes"]
        elif game == "heroes":
            out["scores"] = None
            for key in ("mode", "actions_left", "roll", "turn_number", "battle",
                        "bonus_rolls", "end_reason"):
                out[key] = known.get(key)
            out["characters"] = known["characters"]
            out["flags"] = known["flags"]
        elif game == "fightclub":
            # Gold is the host's: every seat's, with the wagons, contracts and the Market.
            out["scores"] = known.get("scores")
            out["actions_left"] = known.get("actions_left")
            out["round"] = known.get("round")
            out["end_reason"] = known.get("end_reason")
            out["market"] = known.get("market")
            out["contracts"] = known.get("contracts")
            out["pending"] = known.get("pending")
            out["players"] = [dict(known["players"][x], id=x) for x in sorted(known["players"])]
            out["gold"] = dict((x, known["players"][x]["gold"]) for x in known["players"])
        else:
            out["scores"] = known.get("scores")
            out["actions_left"] = known.get("actions_left")
            out["movement_left"] = known.get("movement_left")
            out["reduced"] = known.get("reduced")
            out["players"] = [{"id": p["id"], "alive": p["alive"], "cards": p["cards"],
                               "active": p["active"], "colour": self._colour(state, p["id"]),
                               "cell": p["cell"]} for p in known["players"]]
        out["cells"] = self._cells(state, known, seat)
        out["tray"] = self._tray()
        out["readers"] = self._readers(state)
        out["mismatches"] = [{"code": m["code"], "cells": m["cells"], "message": m["message"]}
                             for m in base["mismatches"]]
        out["in_progress"] = self._in_progress()
        out["bot_request"] = self._bot_request_cells()
        out["log"] = list(s.log.lines[-LOG_LINES:])
        out["last"] = self._last(state, seat)
        out["tiles"] = [{"id": uid, "online": t.online} for uid, t in sorted(s.link.tiles.items())]
        out["knowledge"] = known
        if seat is not None:
            out["you"] = self._seat_part(state, known, seat)
        words = secret_words(state, engine, seat)
        if seat is not None and game == "storybook":
            # The seat's own cards (its hand and, in physical mode, the unseen cards it may
            # be holding) are known to the person in that seat.
            own = self._seat_cards(state, seat)
            own_names = set(state.cat.cards[c][1] for c in own)
            words = [w for w in words if w not in own and w not in own_names]
        return _redact(out, words)

    def _colour(self, state, pid):
        from host.table import royale_table
        return royale_table.colour_of(state, pid)

    def _cells(self, state, known, seat):
        s = self.session
        items = {}
        if s.match.game == "storybook":
            for entry in known["board"]:
                cell = tuple(entry["cell"])
                owner = state.board[cell][1]
                item = {"kind": "card", "face_up": entry["face_up"], "owner": owner,
                        "facing": entry["facing"]}
                if entry["card"] is not None:
                    item["id"] = entry["card"]
                    item["name"] = state.cat.cards[entry["card"]][1]
                items.setdefault(cell, []).append(item)
            for cell, cards in sorted(s.table.observed.items()):
                game_card = state.board.get(cell)
                for cid in cards:
                    if game_card is not None and game_card[0] == cid:
                        continue
                    # On the table but not in the game (yet): a card going down, or one
                    # that should be lifted. Its face is shown only when the game shows it.
                    item = {"kind": "card", "face_up": False, "owner": None, "unplaced": True}
                    if self._public_card(state, cid, seat):
                        item["id"] = cid
                        item["name"] = state.cat.cards[cid][1]
                        item["face_up"] = True
                    items.setdefault(cell, []).append(item)
        elif s.match.game == "heroes":
            self._heroes_items(state, known, items)
        elif s.match.game == "fightclub":
            # Everything on a Fight Club table lies face up: creatures and contracts.
            for cell, seen in sorted(s.table.observed.items()):
                for cid in seen:
                    if cid in state.cat.contracts:
                        c = state.cat.contracts[cid]
                        items.setdefault(cell, []).append(
                            {"kind": "contract", "id": cid, "name": c["name"],
                             "creatures": list(c["creatures"]), "face_up": True})
                    else:
                        items.setdefault(cell, []).append(
                            {"kind": "card", "id": cid, "value": int(cid[1:3]),
                             "face_up": True, "owner": None})
        else:
            for entry in known["map"]:
                cell = tuple(entry["cell"])
                item = {"kind": "card", "face_up": "card" in entry, "owner": None}
                if "card" in entry:
                    item["id"] = entry["card"]
                if "value" in entry:
                    item["value"] = entry["value"]
                items.setdefault(cell, []).append(item)
            for p in known["players"]:
                if p["cell"] is not None:
                    items.setdefault(tuple(p["cell"]), []).append(
                        {"kind": "pawn", "player": p["id"], "colour": self._colour(state, p["id"]),
                         "alive": p["alive"]})
        flashing = set(tuple(c) for c in getattr(s, "flash", {}))
        out = []
        for cell in sorted(s.layout.cells):
            scene = s.sent_scenes.get(cell, lights.DARK_CELL)
            out.append({"cell": list(cell), "leds": scene_json(scene),
                        "items": items.get(cell, []), "flash": cell in flashing})
        return out

    def _heroes_items(self, state, known, items):
        """What lies on each cell of a heroes game: walls, figures, flags, cards laid."""
        from host.table import heroes_table
        for i, blocked in enumerate(state.map["blocked"]):
            if blocked:
                items.setdefault(heroes_table.cell_of(i), []).append({"kind": "wall"})
        for ch in known["characters"]:
            if ch["cell"] is not None:
                items.setdefault(tuple(ch["cell"]), []).append(
                    {"kind": "figure", "id": ch["id"], "name": heroes_table.name_of(
                        state, ch["id"]), "seat": ch["seat"], "colour": ch["seat"],
                     "health": ch["health"], "max_health": ch["max_health"],
                     "state": ch["state"]})
        for f in known["flags"]:
            items.setdefault(tuple(f["cell"]), []).append(
                {"kind": "flag", "team": f["team"], "carrier": f["carrier"]})
        # A card laid on a cell is face up for everyone: it is being played.
        for cell, seen in sorted(self.session.table.observed.items()):
            for item in seen:
                if item.startswith(heroes_table.CARD):
                    cid = item[len(heroes_table.CARD):]
                    card = heroes_table.card_of(state, cid)
                    items.setdefault(cell, []).append(
                        {"kind": "card", "id": cid, "name": card["name"] if card else cid,
                         "face_up": True, "owner": None, "unplaced": True})

    def _public_card(self, state, cid, seat):
        """Is a Storybook card's identity known to everyone (or to `seat`)?"""
        for side in state.captured:
            if cid in state.captured[side]:
                return True
        return seat is not None and cid in self._seat_cards(state, seat)

    def _seat_cards(self, state, seat):
        cards = set(c for c in state.hands[seat] if c is not None)
        cards.update(state.pool.get(seat, ()))
        return cards

    def _tray(self):
        s = self.session
        dice_tile = getattr(s.layout, "dice_tile", None)
        if dice_tile is None:
            return None
        pockets = [t.pockets for t in s.layout.tiles if t.index == dice_tile][0]
        table = s.table
        out = []
        for p in range(pockets):
            item = getattr(table, "pockets", {}).get(p)
            face = None
            if item and item.startswith("die:"):
                face = int(item.split(":")[2])
            out.append({"pocket": p, "die": face,
                        "leds": scene_json(s.sent_scenes.get(("pocket", p), lights.DARK_CELL))})
        return out

    def _readers(self, state):
        """The seats' card readers (the layout's seat tile): whose each is, the cards lying
        on it (face up: a card laid there is being played, or should be lifted off), and
        its light. [] for a table without them."""
        s = self.session
        readers = sorted(s.layout.seat_slot) if hasattr(s.layout, "seat_slot") else []
        if not readers:
            return []
        table = s.table
        seats = list(state.seats)
        flashing = set(tuple(c) for c in getattr(s, "flash", {}))
        out = []
        for n in readers:
            cards = []
            for item in table.seat_observed.get(n, ()):
                cid = item.split(":", 1)[1]
                card = None
                if s.match.game == "heroes":
                    from host.table import heroes_table
                    card = heroes_table.card_of(state, cid)
                cards.append({"kind": "card", "id": cid, "name": card["name"] if card else cid,
                              "face_up": True})
            out.append({"reader": n, "seat": seats[n - 1] if n <= len(seats) else None,
                        "cards": cards, "problems": list(table.seat_problems.get(n, ())),
                        "leds": scene_json(s.sent_scenes.get(("seat", n), lights.DARK_CELL)),
                        "flash": ("seat", n) in flashing})
        return out

    def _in_progress(self):
        """A change under way that is not a mismatch: a card waiting for its double tap."""
        table = self.session.table
        pending = getattr(table, "pending_place", None)
        if pending is not None:
            return {"kind": "placing", "cells": [list(pending[0])]}
        lifting = getattr(table, "lifting", None)
        if lifting is not None:
            return {"kind": "sliding", "cells": [list(lifting[0])]}
        if getattr(table, "in_hand", None) is not None:
            return {"kind": "pawn_in_hand", "player": table.in_hand, "cells": []}
        throw = getattr(table, "throw", None)
        if throw is not None:
            if hasattr(throw, "missing"):   # heroes: dice by colour
                return {"kind": "throw", "throw": throw.action["type"],
                        "dice": throw.missing(), "cells": []}
            return {"kind": "throw", "throw": throw.kind, "cells": []}
        return None

    def _bot_request_cells(self):
        req = self.session.bots.request
        if req is None:
            return None
        cells = [req[k] for k in ("cell", "to") if k in req]
        return {"type": req["type"], "cells": cells}

    def _last(self, state, seat=None):
        """The last action's events, as the game lets `seat` see them."""
        events = self.session.recent_events or []
        return [dict(self.session.game.event_view(ev, seat)) for ev in events]

    def _seat_part(self, state, known, seat):
        s = self.session
        you = {"seat": seat, "bot": seat in s.bots.seats,
               "controls": self.virtual and seat not in s.bots.seats}
        # What the seat may do now (its turn only), to light the controls it can use.
        you["legal"] = []
        if s.match.engine.status(state) == "ongoing" and s.game.current_seat(state) == seat:
            you["legal"] = sorted(set(a["type"] for a in s.match.engine.legal_actions(state)))
        if s.match.game == "storybook":
            hand = [c for c in state.hands[seat] if c is not None]
            unknown = sum(1 for c in state.hands[seat] if c is None)
            you["hand"] = [{"id": c, "name": state.cat.cards[c][1]} for c in hand]
            # A card of the seat's lifted off the table (a slide on its way) is in the hand too.
            seen = set(c for cards in s.table.observed.values() for c in cards)
            you["lifted"] = [{"id": e[0], "name": state.cat.cards[e[0]][1], "from": list(cell)}
                             for cell, e in sorted(state.board.items())
                             if e[1] == seat and e[0] not in seen]
            you["unseen"] = unknown
            # In physical mode a drawn card is unknown until placed: any unseen card of the
            # seat's may be the one in the hand (the person picks which they hold).
            if unknown:
                you["pool"] = [{"id": c, "name": state.cat.cards[c][1]}
                               for c in sorted(state.pool.get(seat, ()))]
            you["targets"] = self._storybook_targets(state, seat, hand + (
                sorted(state.pool.get(seat, ())) if unknown else []))
            for c in you["lifted"]:
                you["targets"][c["id"]] = [c["from"]] + [
                    list(x) for x in lights.slide_targets(state, tuple(c["from"]))]
            you["slides"] = {}
            for cell, entry in sorted(state.board.items()):
                if entry[1] == seat and entry[3]:
                    you["slides"][cell_key(cell)] = [list(c) for c in
                                                     lights.slide_targets(state, cell)]
            you["buttons"] = ["draw", "end_turn", "twist"]
            you["plot_twist_choices"] = known.get("plot_twist_choices")
        elif s.match.game == "heroes":
            you.update(self._heroes_seat_part(state, seat))
        elif s.match.game == "fightclub":
            p = state.players[seat]
            you["hand"] = [{"id": c, "value": int(c[1:3])} for c in p.hand]
            you["gold"] = p.gold
            you["buttons"] = list(BUTTONS["fightclub"])
            # Where a picked card may go: the seat's own wagons and the Market.
            from host.table import fightclub_table
            own = [list(fightclub_table.WAGON_CELL[(seat, w)]) for w in p.wagons
                   if p.wagons[w] is not None]
            you["targets"] = {"place": own + [list(c) for c in fightclub_table.MARKET_CELLS],
                              "move": own}
            # What this seat makes on the web table (its hand's cards, no table move).
            you["web_actions"] = []
            if you["legal"]:
                you["web_actions"] = [a for a in s.match.engine.legal_actions(state)
                                      if s.game.is_button_action(a)]
        else:
            from shared_rules import royale
            you["colour"] = self._colour(state, seat)
            you["pawn_on_table"] = state.players[seat].cell >= 0
            targets = {"place": [], "move": []}
            if royale.current(state) == seat or state.phase == "place":
                for a in s.match.engine.legal_actions(state):
                    if a["type"] == "place" and royale.current(state) == seat:
                        targets["place"].append(list(a["cell"]))
                    elif a["type"] == "move" and royale.current(state) == seat:
                        targets["move"].append(list(a["to"]))
            you["targets"] = targets
            you["buttons"] = ["roll", "swap", "end_turn"]
        return you

    def _heroes_seat_part(self, state, seat):
        """A heroes seat's hand: its free characters while picking (put on a cell), its
        characters' face-up cards and its Bonus Cards (laid on the seat's card reader,
        `reader`, to play them)."""
        from host.table import heroes_table
        hand = []
        if state.phase == "pick":
            hand = [{"id": c, "name": heroes_table.name_of(state, c)}
                    for c in state.cat["character_order"] if c not in state.heroes]
        else:
            for cid in state.roster:
                h = state.heroes[cid]
                if h["seat"] != seat or h["state"] != "standing":
                    continue
                for card in state.cat["characters"][cid]["cards"]:
                    if card not in h["face_down"]:
                        hand.append({"id": card, "name": "%s (%s)" % (
                            heroes_table.card_of(state, card)["name"],
                            heroes_table.name_of(state, cid))})
            hand += [{"id": c, "name": heroes_table.card_of(state, c)["name"] + " (Bonus)"}
                     for c in state.hands[seat]]
        for entry in hand:
            entry["kind"] = "figure" if entry["id"] in state.cat["characters"] else "card"
        readers = getattr(self.session.layout, "seat_slot", {})
        mine = list(state.seats).index(seat) + 1
        return {"colour": seat, "hand": hand, "targets": {"place": [], "move": []},
                "reader": mine if mine in readers else None,
                "buttons": ["roll", "end_turn", "no_defence"]}

    def _storybook_targets(self, state, seat, cards):
        """card id -> cells where it may go now (lit in the seat's view while picked)."""
        from shared_rules import storybook
        if state.turn != seat or state.phase not in ("play", "setup_hide", "setup_play"):
            return {}
        kinds = ["hide"] if state.phase == "setup_hide" else ["play"] if \
            state.phase == "setup_play" else ["play", "hide"]
        out = {}
        cells = sorted(self.session.layout.cells)
        for cid in cards:
            ok = []
            for cell in cells:
                if cell in state.board:
                    continue
                for kind in kinds:
                    action = {"type": kind, "card": cid, "cell": list(cell)}
                    if storybook.validate(state, action) is None:
                        ok.append(list(cell))
                        break
            out[cid] = ok
        return out

    # ------------------------------------------------------------ controls

    def _own_reader(self, seat, value, op):
        """The place ("seat", n) of the seat's own card reader, for a place or a lift."""
        s = self.session
        if op not in ("place", "lift"):
            raise Refused(400, "a card reader takes a place or a lift, not %s." % (op,))
        seats = list(s.match.state.seats)
        mine = seats.index(seat) + 1
        if value != mine or isinstance(value, bool):
            raise Refused(403, "%s plays its cards on its own card reader (reader %d), not %r."
                          % (seat, mine, value))
        if mine not in getattr(s.layout, "seat_slot", {}):
            raise Refused(409, "this table has no card reader for %s." % seat)
        return ("seat", mine)

    def _cell(self, value):
        s = self.session
        if not (isinstance(value, list) and len(value) == 2 and
                all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise Refused(400, "a cell is a list of two whole numbers, like [3, 2].")
        cell = (value[0], value[1])
        if cell not in s.layout.slot_of:
            raise Refused(400, "%r is not a cell of this table." % (value,))
        return cell

    async def control(self, seat, msg):
        """Carry out one control of `seat` (a dict from the browser); returns a sentence.

        Refused (4xx + sentence) when the control is malformed, for another seat, or on a
        real table. Nothing is changed by a refused control.
        """
        s = self.session
        if not isinstance(msg, dict):
            raise Refused(400, 'a control is a JSON object like {"op": "tap", "cell": [3, 3]}.')
        op = msg.get("op")
        if op not in CONTROL_OPS:
            raise Refused(400, "unknown control %r: one of %s." % (op, ", ".join(CONTROL_OPS)))
        if seat is None:
            raise Refused(403, "spectators cannot play: open the table with a seat's link.")
        if seat not in s.match.state.seats:
            raise Refused(403, "there is no seat %r at this table." % (seat,))
        if seat in s.bots.seats:
            raise Refused(403, "seat %s is played by a bot." % seat)
        asked = msg.get("seat", seat)
        if asked != seat:
            raise Refused(403, "this link is for seat %s, not %s: use %s's own link."
                          % (seat, asked, asked))
        if s.attract:
            raise Refused(409, "no game is running (attract mode): staff start a new game.")
        if op == "button":
            name = msg.get("name")
            valid = BUTTONS.get(s.match.game, ())
            if name not in valid:
                raise Refused(400, "unknown button %r: one of %s." % (name, ", ".join(valid)))
            # A press the rules refuse (out of turn, not allowed now) is an error with the
            # rule's sentence, not an "ok": nothing was played.
            refused, played = len(s.rejected), len(s.match.actions)
            action = s.button(seat, name)
            if action is not None:
                s.apply_from_table(action)
            if len(s.rejected) > refused:
                raise Refused(409, s.rejected[-1][1])
            if action is not None and len(s.match.actions) == played:
                raise Refused(409, "the game is paused by staff: nothing is played until it "
                              "resumes." if s.paused else "the table did not take it: look "
                              "at the table's messages.")
            if action is None and s.match.engine.status(s.match.state) != "ongoing":
                raise Refused(409, "the game is over.")
            if action is None and s.game.current_seat(s.match.state) != seat:
                raise Refused(409, "it is not %s's turn." % seat)
            return "%s pressed %s" % (seat, name)
        if op == "action":
            return self._web_action(seat, msg.get("action"))
        if not self.virtual:
            raise Refused(409, "this is a real table: play with the cards on it.")
        if op == "throw":
            return await self._throw(seat)
        if "reader" in msg:
            cell = self._own_reader(seat, msg["reader"], op)
        else:
            cell = self._cell(msg.get("cell"))
        state = s.match.state
        async with self.control_lock:
            try:
                return await self._hands_control(op, seat, state, cell, msg)
            except HandsSlipped as e:
                raise Refused(503, "the tile did not take it (%s): try again." % e)

    async def _hands_control(self, op, seat, state, cell, msg):
        if True:
            if op in GESTURES:
                await self.hands.gesture(cell, op)
                return "%s on %s" % (op, cell_key(cell))
            if op == "place" and cell[0] == "seat":
                item = self._hand_item(state, seat, msg.get("card"), cell)
                if not item.startswith("heroes-card:"):
                    raise Refused(409, "a figure stands on the board, not on a card reader.")
                if self.session.table.seat_observed.get(cell[1]):
                    raise Refused(409, "a card already lies on your card reader: lift it off "
                                  "first.")
                await self.hands.place(cell, item)
                return "laid on %s's card reader" % seat
            if op == "lift" and cell[0] == "seat":
                seen = self.session.table.seat_observed.get(cell[1], [])
                if not seen and not self.session.table.seat_problems.get(cell[1]):
                    raise Refused(409, "nothing lies on your card reader.")
                await self.hands.lift(cell, seen[0] if seen else None)
                return "lifted off %s's card reader" % seat
            if op == "place":
                item = self._hand_item(state, seat, msg.get("card"), cell)
                if self.session.match.game == "heroes" and item.startswith("heroes-card:") \
                        and getattr(self.session.layout, "seat_slot", {}):
                    raise Refused(409, "a card is played on your card reader, not on the "
                                  "board: lay it on the reader.")
                await self.hands.place(cell, item)
                return "placed on %s" % cell_key(cell)
            if op == "lift":
                item = self._liftable(state, seat, cell)
                if state is not None and self.session.match.game == "fightclub" and \
                        msg.get("card") in self.session.table.observed.get(cell, ()):
                    item = "fightclub:" + msg["card"]   # one card named out of a stack
                await self.hands.lift(cell, item)
                return "lifted from %s" % cell_key(cell)
            # move: lift and put down elsewhere, one motion of the hand.
            to = self._cell(msg.get("to"))
            item = self._liftable(state, seat, cell)
            if item is None:
                raise Refused(409, "nothing of yours lies on %s to move." % cell_key(cell))
            await self.hands.lift(cell, item)
            # As a hand does: the piece is up (the tile saw it go) before it goes down, so
            # the table never reads one piece on two cells.
            await self._seen_gone(cell, item)
            await self.hands.place(to, item)
            return "moved from %s to %s" % (cell_key(cell), cell_key(to))

    def _web_action(self, seat, action):
        """An action of the seat's own cards made on the web table (Fight Club: discard
        from the hand, draw one for one, pay a wagon in creatures, discard down, a fight
        card, cards to pass): what no table move shows. Applied as a button press is."""
        s = self.session
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise Refused(400, 'an action is a JSON object with a "type".')
        if not s.game.is_button_action(action):
            raise Refused(400, "%s is made on the table, not on the web." % action["type"])
        state = s.match.state
        if s.match.engine.status(state) != "ongoing" or s.game.current_seat(state) != seat:
            raise Refused(409, "it is not %s's move." % seat)
        problem = s.match.engine.validate(state, action)
        if problem is not None:
            raise Refused(409, problem.message)
        s.apply_from_table(action)
        return "%s made %s" % (seat, action["type"])

    async def _seen_gone(self, cell, item, timeout_s=3.0):
        name = item.split(":", 1)[1] if self.session.match.game in ("storybook", "fightclub") \
            else item
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while name in self.session.table.observed.get(cell, ()):
            if loop.time() > deadline:
                raise Refused(503, "the tile did not see the piece lifted off %s: try again."
                              % cell_key(cell))
            await asyncio.sleep(0.02)

    def _hand_item(self, state, seat, card, cell):
        if self.session.match.game == "fightclub":
            # A creature card of the seat's hand; cards stack on a wagon or in the Market.
            if not isinstance(card, str) or card not in state.players[seat].hand:
                raise Refused(403, "%r is not in %s's hand." % (card, seat))
            return "fightclub:" + card
        if self.session.match.game == "storybook":
            if not isinstance(card, str):
                raise Refused(400, "say which card to place: {\"card\": ID}.")
            lifted = [c for c, e in state.board.items() if e[0] == card and e[1] == seat and
                      not any(card in seen for seen in self.session.table.observed.values())]
            if card not in self._seat_cards(state, seat) and not lifted:
                raise Refused(403, "%s is not in %s's hand." % (card, seat))
            if self.session.table.observed.get(cell):
                raise Refused(409, "a card already lies on %s: one card per cell." % cell_key(cell))
            return "storybook:" + card
        if self.session.match.game == "heroes":
            return self._heroes_hand_item(state, seat, card)
        # Battle Royale: the seat's hand holds its pawn while it is off the map.
        colour = self._colour(state, seat)
        if card not in (None, "pawn", "pawn:" + colour):
            raise Refused(403, "%s holds only its own pawn (%s)." % (seat, colour))
        for items in self.session.table.observed.values():
            if "pawn:" + colour in items:
                raise Refused(409, "%s's pawn is already on the table: move it." % seat)
        return "pawn:" + colour

    def _heroes_hand_item(self, state, seat, card):
        from host.table import heroes_table
        mine = [c["id"] for c in self._heroes_seat_part(state, seat)["hand"]]
        if not isinstance(card, str) or card not in mine:
            raise Refused(403, "%s is not in %s's hand." % (card, seat))
        if card in state.cat["characters"]:
            return heroes_table.FIGURE + card
        return heroes_table.CARD + card

    def _liftable(self, state, seat, cell):
        """The item the seat may lift off `cell` (its own card or pawn, or one to tidy)."""
        seen = list(self.session.table.observed.get(cell, []))
        if self.session.match.game == "fightclub":
            # The top card of the stack: what a hand takes first.
            if not seen:
                raise Refused(409, "nothing lies on %s." % cell_key(cell))
            return "fightclub:" + seen[-1]
        if self.session.match.game == "storybook":
            if not seen:
                raise Refused(409, "nothing lies on %s." % cell_key(cell))
            cid = seen[0]
            entry = state.board.get(cell)
            if entry is not None and entry[0] == cid and entry[1] != seat:
                raise Refused(403, "the card on %s is not %s's." % (cell_key(cell), seat))
            return "storybook:" + cid
        if self.session.match.game == "heroes":
            return self._heroes_liftable(state, seat, cell, seen)
        colour = self._colour(state, seat)
        pawn = "pawn:" + colour
        if pawn in seen:
            return pawn
        # A won card (out of the game) may be lifted off by anyone; the map is not touched.
        cards = [i for i in seen if i.startswith("royale:")]
        if cards and cell not in self._map_cells(state):
            return cards[0]
        raise Refused(403, "%s may lift only its own pawn (%s) or a won card." % (seat, colour))

    def _heroes_liftable(self, state, seat, cell, seen):
        """A seat lifts its own figure, a card laid there, a flag (carried along), or a
        piece the game does not have there (tidying)."""
        from host.table import heroes_table
        for item in seen:
            cid = item[len(heroes_table.FIGURE):] if item.startswith(heroes_table.FIGURE) \
                else None
            if cid in state.heroes and state.heroes[cid]["seat"] == seat:
                return item
        expected = self.session.table.expected().get(cell, [])
        for item in seen:
            if item.startswith(heroes_table.CARD) or item.startswith(heroes_table.FLAG) or \
                    item not in expected:
                return item
        raise Refused(403, "%s may lift only its own figures, a card laid down, a flag, or a "
                      "piece that should not be there." % seat)

    def _map_cells(self, state):
        from host.table import royale_table
        return set(royale_table.cell_of(i) for i, c in enumerate(state.map) if c is not None)

    async def _throw(self, seat):
        """Roll dice into the pockets the tray waits for (the lit ones), a person's throw."""
        s = self.session
        if s.match.game == "heroes":
            return await self._throw_heroes(seat)
        if s.match.game != "royale":
            raise Refused(400, "this game has no dice.")
        table = s.table
        pockets = table.pockets_wanted()
        if not pockets:
            raise Refused(409, "the tray waits for no dice now: tap your cell to attack a card, "
                          "hold it to attack a player.")
        values = [self.rng.randint(1, 6) for _ in pockets]
        async with self.control_lock:
            try:
                await self.hands.roll(table, values)
            except HandsSlipped as e:
                raise Refused(503, "the dice were not read (%s): throw again." % e)
        return "%s rolled %s" % (seat, ", ".join(str(v) for v in values))

    async def _throw_heroes(self, seat):
        """The dice the tray waits for (red, white, green), each rolled by the person."""
        table = self.session.table
        if table.throw is None or not table.throw.missing():
            raise Refused(409, "the tray waits for no dice now: tap an attacker, then its "
                          "target, to attack.")
        colours = table.throw.missing()
        values = [self.rng.randint(1, 6) for _ in colours]
        async with self.control_lock:
            try:
                await self.hands.throw_dice(table, [(c, None) for c in colours], values)
            except HandsSlipped as e:
                raise Refused(503, "the dice were not read (%s): throw again." % e)
        return "%s rolled %s" % (seat, ", ".join("%s %d" % cv for cv in zip(colours, values,
                                                                          strict=True)))

    # ------------------------------------------------------------ staff

    STAFF_OPS = ("pause", "resume", "undo", "reset", "start", "end", "led_test", "tile_off",
                 "tile_on")

    async def staff_async(self, op, params):
        """Staff operations that wait for a tile (the virtual table's power switch)."""
        if op not in ("tile_off", "tile_on"):
            return self.staff(op, params)
        if not self.virtual:
            raise Refused(409, "a real tile is switched by its cable, not from here.")
        uid = params.get("tile") if isinstance(params, dict) else None
        tiles = {t.uid: t for t in self.hands.vtable.tiles}
        if uid not in tiles:
            raise Refused(400, "no virtual tile %r (tiles: %s)." % (uid, ", ".join(sorted(tiles))))
        tile = tiles[uid]
        if op == "tile_off":
            await asyncio.to_thread(tile.kill)
            self.session.log.say("staff switched virtual tile %s off" % uid)
            return "tile %s is off" % uid
        await asyncio.to_thread(tile.restart)
        self.session.log.say("staff switched virtual tile %s on" % uid)
        return "tile %s is starting" % uid

    def staff(self, op, params):
        """A staff operation; returns a sentence. `start` takes seed, bots, players."""
        s = self.session
        if op not in self.STAFF_OPS:
            raise Refused(404, "unknown staff operation %r: one of %s."
                          % (op, ", ".join(self.STAFF_OPS)))
        if not isinstance(params, dict):
            raise Refused(400, "staff parameters are a JSON object.")
        before = len(s.log.lines)
        if op in ("pause", "resume", "undo"):
            s.button("staff", op)
        elif op in ("reset", "end"):
            if s.attract:
                raise Refused(409, "no game is running.")
            s.button("staff", "reset")
        elif op == "start":
            self._start(params)
        elif op == "led_test":
            return self.led_test(params.get("tile"))
        said = s.log.lines[before:]
        return " ".join(said) if said else "%s done" % op

    def _start(self, params):
        s = self.session
        game = params.get("game", s.match.game)
        if game != s.match.game:
            raise Refused(409, "this table is laid out for %s: restart `fairytable run --game %s`"
                          " to play %s." % (s.match.game, game, game))
        seed = params.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise Refused(400, "seed must be a whole number of 0 or more.")
        players = params.get("players")
        seats_now = len(s.match.state.seats)
        if game == "royale" and players is not None:
            if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 8:
                raise Refused(400, "players must be 2 to 8 for Battle Royale.")
        elif game == "heroes" and players is not None:
            if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
                raise Refused(400, "players must be 2 to 4 for Battle Royale with hero teams "
                              "(2 in Capture the Flag).")
            if self.session.match.options.get("mode") == "ctf" and players != 2:
                raise Refused(400, "Capture the Flag is played by 2 seats.")
        elif players is not None and players != seats_now:
            raise Refused(400, "Storybook Battles is played by %d seats." % seats_now)
        bots = params.get("bots", len(s.bots.seats))
        seats = self._seats_of(game, players)
        if not isinstance(bots, int) or isinstance(bots, bool) or not 0 <= bots <= len(seats):
            raise Refused(400, "bots must be 0 to %d." % len(seats))
        if self.make_match is None:
            raise Refused(409, "this table cannot start a new game by itself.")
        if not s.attract:
            s.button("staff", "reset")
        bot_kind = "greedy"
        if s.bots.seats:
            bot_kind = sorted(s.bots.seats.values())[0]
        bot_seats = {x: bot_kind for x in seats[len(seats) - bots:]}
        s.new_game = lambda: self.make_match(seed, players, bot_seats)
        s.bots.seats = bot_seats
        if bot_seats and s.bots.hands is None:
            s.bots.hands = self.hands   # the virtual hands carry out the new bots' moves
        s.button("staff", "start")

    make_match = None  # (seed, players, bots) -> (match, game_id): set by the host

    def _seats_of(self, game, players):
        from shared_rules import games
        engine = games.get(game)
        options = dict(self.session.match.options)
        if players is not None:
            options["players"] = players
        return list(engine.seats(engine.new_game(options, 0, None)))

    def tiles(self):
        """Every tile with its health numbers (what `fairytable doctor` reports)."""
        from host.doctor import numbers_for
        s = self.session
        out = []
        for uid, tile in sorted(s.link.tiles.items()):
            row = numbers_for(tile)
            row["index"] = s.tile_index.get(uid)
            out.append(row)
        return out

    def led_test(self, uid):
        """Light every cell of a tile with the doctor's check pattern; the game's scenes
        come back with the next change (the scenes sent are forgotten for that tile)."""
        from host.doctor import CHECK_SCENE
        s = self.session
        tile = s.link.tiles.get(uid) if isinstance(uid, str) else None
        if tile is None:
            raise Refused(400, "no tile %r (tiles: %s)." % (uid, ", ".join(sorted(s.link.tiles))))
        if not tile.online:
            raise Refused(409, "tile %s is offline." % uid)
        index = s.tile_index.get(uid)
        slots = s.layout.tiles[index].slots if index is not None else tile.cells
        s.link.set_scene(uid, [(slot, CHECK_SCENE) for slot in range(slots)])
        s.sent_scenes = {k: v for k, v in s.sent_scenes.items()
                         if index is None or s._tile_of_scene(k) != index}
        s.log.say("staff: LED test on tile %s (each cell's edges chase white)" % uid)
        readers = (tile.health or {}).get("readers") or []
        bad = [i for i, r in enumerate(readers)
               if not (r[0] if isinstance(r, (list, tuple)) else r.get("ok"))]
        return "tile %s: LEDs lit for the test; readers %s" % (
            uid, "all ok" if not bad else "not ok: " + ", ".join(map(str, bad)))

    def journal_games(self, limit=50):
        if self.journal is None:
            return []
        rows = self.journal.db.execute(
            "SELECT g.id, g.game, g.finished, g.created, COUNT(a.seq) FROM games g LEFT JOIN "
            "actions a ON a.game_id = g.id GROUP BY g.id ORDER BY g.id DESC LIMIT ?",
            (limit,)).fetchall()
        return [{"id": r[0], "game": r[1], "finished": bool(r[2]), "created": r[3],
                 "actions": r[4], "current": r[0] == self.session.game_id} for r in rows]

    def replay(self, game_id, step):
        """The table of a journalled game after `step` actions (staff: everything shown)."""
        from host.journal import JournalError
        if self.journal is None:
            raise Refused(404, "this table keeps no journal.")
        try:
            match, _info = self.journal.load(game_id)
        except JournalError as e:
            raise Refused(404, str(e))
        actions = list(match.actions)
        if not isinstance(step, int) or not 0 <= step <= len(actions):
            raise Refused(400, "step must be 0 to %d." % len(actions))
        from shared_rules.engine import Match
        again = Match(match.game, match.options, match.seed, match.setup, match.cards)
        events = []
        for action in actions[:step]:
            events = again.apply(action)
        state = again.state
        if match.game == "storybook":
            scenes = lights.storybook_scenes(state, events)
        elif match.game == "heroes":
            from host.table import heroes_game
            scenes = heroes_game.heroes_scenes(state)
        else:
            from host.table import royale_table
            scenes = lights.royale_scenes(state, colours=[royale_table.colour_of(state, p)
                                                          for p in state.seats])
        cells = []
        for cell in sorted(self.session.layout.cells if self.session.match.game == match.game
                           else scenes):
            if not isinstance(cell[0], int):
                continue
            items = []
            if match.game == "storybook":
                from shared_rules import storybook
                entry = state.board.get(cell)
                if entry is not None:
                    items.append({"kind": "card", "id": entry[0], "owner": entry[1],
                                  "face_up": entry[3], "name": state.cat.cards[entry[0]][1],
                                  "facing": storybook.FACINGS[entry[2]]})
            elif match.game == "heroes":
                from host.table import heroes_table
                i = heroes_table.index_of(cell)
                for cid in state.roster:
                    h = state.heroes[cid]
                    if h["cell"] == i:
                        items.append({"kind": "figure", "id": cid, "seat": h["seat"],
                                      "colour": h["seat"], "health": h["health"],
                                      "state": h["state"]})
                for team in sorted(state.flags):
                    if state.flags[team]["cell"] == i:
                        items.append({"kind": "flag", "team": team})
            else:
                from shared_rules import royale
                i = royale.INDEX.get(cell)
                if i is not None and state.map[i] is not None:
                    items.append({"kind": "card", "id": state.map[i], "face_up": False,
                                  "owner": None})
                for pid in state.seats:
                    if state.players[pid].cell == i:
                        items.append({"kind": "pawn", "player": pid, "alive":
                                      state.players[pid].alive})
            cells.append({"cell": list(cell), "leds": scene_json(scenes.get(cell,
                          lights.DARK_CELL)), "items": items})
        result = again.engine.result(state)
        return {"game": match.game, "game_id": game_id, "step": step, "steps": len(actions),
                "action": actions[step - 1] if step else None, "events": events,
                "status": result.get("status"), "winner": result.get("winner"),
                "scores": result.get("scores"), "cells": cells,
                "turn": result.get("turn", getattr(state, "turn", None))}
