"""The one place the web table reads the session: the table as JSON per viewer, and controls.

Everything the browser sees goes through `WebTable.view(seat)`, built through the game's
contract (host/table/contract.py) and its web face (host/web/face.py, one per game in
host/games/<name>/web.py); this module holds no game's name and reads no engine's
internals. A spectator (seat None) gets the game's title, whose turn it is and what they
may do, the facts in words, every cell's pieces as generic kinds, the LED scenes the tiles
were sent, the mismatches that last, the log and how many tiles are online (tile ids are
for the staff page). A seat's view adds that seat's part (its hand, its choices). As a last
guard every string of a view is checked against the engine's `secrets(state, seat)` and
the face's names for them: a hidden card's id or name in a log line or a sentence is
replaced by "a hidden card" before the view leaves this module.

Controls (`WebTable.control`) are the physical gestures of a seat on the virtual table:
they go through the virtual hands to the tiles' control channel, exactly the path a real
hand takes, and the seat buttons through the session's `button`. Each is checked against
the seat and the rules first and refused with a sentence (`Refused`, with the cells where
the person acted) that changes nothing.
"""

import asyncio
import json
import random

from host import bot_levels, lights
from host.secrets import HIDDEN, redact, secret_words
from host.virtual.hands import HandsSlipped
from host.web.errors import Refused
from host.web.face import and_list

__all__ = ["HIDDEN", "Refused", "WebTable", "redact"]

LOG_LINES = 40
GESTURES = ("tap", "double", "hold")
CONTROL_OPS = ("place", "lift", "move", "tap", "double", "hold", "button", "throw", "action")


def scene_json(scene):
    """A scene (four segments) as JSON: [[effect, [r, g, b], a, b] x4]."""
    return [[seg[0], list(seg[1]), seg[2], seg[3]] for seg in scene]


def cell_key(cell):
    return "%d,%d" % (cell[0], cell[1])


class WebTable:
    """The session as the web sees it: views per viewer, controls, staff operations."""

    def __init__(self, session, hands=None, journal=None):
        self.session = session
        self.hands = hands          # the virtual hands (None on a real table)
        self.journal = journal
        self.control_lock = asyncio.Lock()
        self.rng = random.SystemRandom()  # a person's dice on the virtual table
        self._seat_names = (None, None)    # (the options they are for, {count: [name]})

    # ------------------------------------------------------------ what changes

    @property
    def virtual(self):
        return self.hands is not None

    @property
    def face(self):
        return self.session.game.face

    def game_name(self):
        return self.session.match.game

    def seats(self):
        return list(self.session.match.state.seats)

    def seat_name(self, seat):
        """A seat in the game's words ("Player 1", "Red")."""
        return self.face.seat_name(self.session.match.state, seat)

    def bot_seats(self):
        return dict(self.session.bots.seats)

    def signature(self):
        """Changes whenever anything a view shows may have changed (cheap: no view built)."""
        s = self.session
        tiles = tuple((uid, t.online) for uid, t in sorted(s.link.tiles.items()))
        return (id(s.match), len(s.match.actions), s.led_scenes_sent,
                tuple(m.message for m in s.shown_mismatches()), tiles, len(s.log.lines),
                s.attract, s.demo.moves if s.demo is not None else None,
                s.demo.games if s.demo is not None else None,
                s.paused, repr(s.bots.request), s.table.signature(),
                len(s.flash), self.face.palette, repr(s.last_refusal))

    # ------------------------------------------------------------ the view

    def view(self, seat=None):
        """The table as `seat` (None: a spectator) may see it: a JSON-ready dict."""
        s = self.session
        match = s.match
        state = match.state
        engine = match.engine
        face = self.face
        game = s.game
        if seat is not None and seat not in state.seats:
            raise Refused(404, "there is no seat %r at this table (seats: %s)."
                          % (seat, ", ".join(state.seats)))
        # The contract's view (the engine's view for this viewer, who acts, what the table
        # waits for); the web adds the words, the cells, the LEDs, the log and the tiles.
        base = s.view(seat)
        known = base["state"]
        result = engine.result(state)
        finished = engine.status(state) != "ongoing"
        out = {"game": match.game, "title": game.title, "status": engine.status(state),
               "winner": engine.winner(state), "actions": len(match.actions),
               "game_id": s.game_id, "attract": s.attract, "paused": s.paused,
               "virtual": self.virtual, "viewer": {"seat": seat},
               "actors": base["actors"], "busy": base.get("busy"), "turns": base.get("turns"),
               "scores": result.get("scores"), "waiting_for": len(base.get("waiting_for", []))}
        demo = s.demo if s.attract else None
        if demo is not None:
            banner = demo.banner()
        elif s.paused and not finished:
            banner = "Paused by staff: " + face.banner(match, s.table, seat)
        else:
            banner = face.banner(match, s.table, seat)
        out["banner"] = banner
        if demo is not None:
            # The demo's own table in words: its facts, its pieces on the cells, its last move,
            # and how to play (a visitor reads this first).
            out["facts"] = [self._invite()] + face.facts(demo.match)
            out["cells"] = self._cells(demo.match, None, table=demo.table)
        else:
            out["facts"] = [] if s.attract else face.facts(match)
            out["cells"] = self._cells(match, seat)
        out["demo"] = demo is not None
        out["seats"] = face.seats(match, s.bots.seats)
        if s.attract:
            # No game: nobody's turn (the banner is nobody's colour, no seat glows).
            out["actors"] = []
            for entry in out["seats"]:
                entry["acting"] = False
        # What only a seat's page shows (where a picked card may go) is not a spectator's.
        out["legend"] = [e for e in face.legend(match, s.layout)
                         if seat is not None or not e.get("seat")]
        out["panels"] = [] if s.attract else face.panels(match, s.table, seat)
        out["tray"] = self._tray()
        out["readers"] = self._readers(match)
        shown = s.shown_mismatches()
        if finished or s.attract:
            # After the game (or with none: the demo), tidying is a quiet prompt, not a list
            # of red lines asking to put back a piece of a game nobody plays.
            out["mismatches"] = []
            out["tidy"] = ("Clear the table for the next game (%d place%s still hold%s "
                           "pieces)." % (len(self._untidy(shown)), "" if len(
                               self._untidy(shown)) == 1 else "s", "s" if len(
                               self._untidy(shown)) == 1 else "")) if shown and \
                not s.attract else None     # (the next game says what it needs laid out)
        else:
            out["mismatches"] = [{"code": m.code, "cells": [list(c) for c in m.cells],
                                  "message": m.message} for m in shown]
            out["tidy"] = None
        out["progress"] = None if finished else s.table.progress()
        out["refusal"] = s.last_refusal if s.last_refusal and (
            s.last_refusal["seat"] in (None, seat)) else None
        out["bot_request"] = None if s.attract else self._bot_request(match)
        # The games before this one were sealed with their own secrets: this game's hidden
        # cards (or the demo's) may be their open ones (host/session_log.py).
        sealed, out["log"] = s.log.public_parts(LOG_LINES)
        out["last"] = demo.words if demo is not None else s.last_words
        tiles = sorted(s.link.tiles.items())
        out["tiles"] = {"online": sum(1 for _, t in tiles if t.online), "total": len(tiles),
                        "offline": self._offline_words()}
        out["knowledge"] = known
        if seat is not None:
            out["you"] = self._attract_part(match, seat) if s.attract else \
                self._seat_part(match, seat)
        if demo is not None:
            # The demo's hidden cards are as secret as a game's (every viewer a spectator).
            out = redact(out, secret_words(demo.match.state, engine, face, None))
        out = redact(out, secret_words(state, engine, face, seat))
        out["log"] = sealed + out["log"]
        return out

    PLAY = "Play a game"

    def _invite(self):
        """How a visitor starts playing, in the attract mode."""
        if self.session.new_game is None:
            return "Staff start the next game"
        if self.virtual:
            return "To play: open a seat's link and press %s" % self.PLAY
        return "To play: tap the table"

    def _attract_part(self, match, seat):
        """A seat's page in the attract mode: no game to play, a button to start one."""
        s = self.session
        bot = seat in s.bots.seats
        can = s.new_game is not None and not bot
        return {"seat": seat, "name": "%s in the next game" % self.face.seat_name(
                    match.state, seat), "bot": bot,
                "controls": False, "acting": False, "reader": self._reader_of(seat),
                "legal": [],
                "choices": [] if bot else [{
                    "label": self.PLAY, "enabled": can,
                    "title": "Start a new game of %s" % s.game.title if can else
                    "Staff start the next game",
                    "control": {"op": "button", "name": "play"}}]}

    def _untidy(self, shown):
        places = set()
        for m in shown:
            places.update(tuple(c) for c in m.cells)
        return places

    def _offline_words(self):
        """The places of the tiles offline, in words (no tile ids: those are staff's)."""
        s = self.session
        out = []
        for uid, tile in sorted(s.link.tiles.items()):
            index = s.tile_index.get(uid)
            if not tile.online and index is not None:
                out.append(s.layout.place_words(s.layout.tiles[index]))
        return out

    def _cells(self, match, seat, reveal=False, table=None):
        s = self.session
        items = self.face.items(match, table or s.table, seat, reveal)
        flashing = set(tuple(c) for c in s.flash)
        bot = set(tuple(c) for c in (self._bot_request(match) or {}).get("cells", []))
        out = []
        for cell in sorted(s.layout.cells):
            scene = s.sent_scenes.get(cell, lights.DARK_CELL)
            out.append({"cell": list(cell), "leds": scene_json(scene),
                        "items": items.get(cell, []), "flash": cell in flashing,
                        "bot": cell in bot})
        return out

    def _tray(self):
        s = self.session
        dice_tile = s.layout.dice_tile
        if dice_tile is None:
            return None
        pockets = s.layout.tiles[dice_tile].pockets
        wanted = set(s.table.pockets_wanted())
        return [{"pocket": p, "die": s.table.pocket_die(p), "wanted": p in wanted,
                 "leds": scene_json(s.sent_scenes.get(("pocket", p), lights.DARK_CELL))}
                for p in range(pockets)]

    def _readers(self, match):
        """The seats' card readers (the layout's seat tiles): whose each is, the cards lying
        on it and its light; only the readers of the game's seats (a two-player game uses
        two). [] for a table without them."""
        s = self.session
        seats = list(match.state.seats)
        flashing = set(tuple(c) for c in s.flash)
        out = []
        for n in s.layout.seats:
            if n > len(seats):
                continue
            seat = seats[n - 1]
            out.append({"reader": n, "seat": seat,
                        "name": self.face.seat_name(match.state, seat),
                        "cards": self.face.reader_cards(match, s.table, n),
                        "problems": list(s.table.seat_problems.get(n, ())),
                        "leds": scene_json(s.sent_scenes.get(("seat", n), lights.DARK_CELL)),
                        "flash": ("seat", n) in flashing})
        return out

    def _bot_request(self, match):
        req = self.session.bots.request
        if req is None:
            return None
        cells = [list(c) for c in self.session.game.action_cells(match.state, req)]
        return {"cells": cells}

    def _seat_part(self, match, seat):
        s = self.session
        state = match.state
        controls = self.virtual and seat not in s.bots.seats
        you = {"seat": seat, "name": self.face.seat_name(state, seat),
               "bot": seat in s.bots.seats, "controls": controls,
               "acting": seat in s.game.actors(state),
               "reader": self._reader_of(seat)}
        # What the rules let this seat do now (action kinds), for tools and tests.
        you["legal"] = sorted(set(
            a["type"] for a in self._legal_actions(match)
            if s.game.acts_for(state, seat, a))) if match.engine.status(state) == "ongoing" \
            else []
        held = self.face.held(match, seat, match.seed) if self.virtual else None
        part = self.face.you(match, s.table, seat, held)
        if not self.virtual:
            part["note"] = ("A real table: the cards in your hand are yours to play; choices "
                            "no card shows are made here.")
        you.update(part)
        if controls and self.face.gestures:
            # What the page's gestures do in this game, said beside them.
            you["gestures"] = [{"tool": t, "words": w} for t, w in self.face.gestures]
            you["gestures_for"] = self.face.gestures_for
        return you

    def _legal_actions(self, match):
        """The engine's legal actions now, once for all the seats' views of a change (the state
        changes only by an action applied, which counts, or by an undo, which brings another
        state)."""
        memo = self.__dict__.get("_legal_memo")
        if memo is None or memo[0] is not match.state or memo[1] != len(match.actions):
            memo = (match.state, len(match.actions), match.engine.legal_actions(match.state))
            self.__dict__["_legal_memo"] = memo
        return memo[2]

    def _reader_of(self, seat):
        n = self.seats().index(seat) + 1
        return n if n in self.session.layout.seat_slot else None

    # ------------------------------------------------------------ controls

    def _own_reader(self, seat, value, op):
        """The place ("seat", n) of the seat's own card reader, for a place or a lift."""
        if op not in ("place", "lift"):
            raise Refused(400, "a card reader takes a place or a lift, not %s." % (op,))
        mine = self.seats().index(seat) + 1
        if value != mine or isinstance(value, bool):
            raise Refused(403, "%s plays its cards on its own card reader (reader %d), not %r."
                          % (seat, mine, value))
        if mine not in self.session.layout.seat_slot:
            raise Refused(409, "this table has no card reader for %s." % seat)
        return ("seat", mine)

    def _cell(self, value):
        if not (isinstance(value, list) and len(value) == 2 and
                all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise Refused(400, "a cell is a list of two whole numbers, like [3, 2].")
        cell = (value[0], value[1])
        if cell not in self.session.layout.slot_of:
            raise Refused(400, "%r is not a cell of this table." % (value,))
        return cell

    async def control(self, seat, msg):
        """Carry out one control of `seat` (a dict from the browser); returns a sentence.

        Refused (4xx + sentence) when the control is malformed, for another seat, against
        the rules or on a real table. Nothing is changed by a refused control.
        """
        try:
            return await self._control(seat, msg)
        except Refused as e:
            self.session.refused_at(seat, e.message, e.cells)
            raise

    async def _control(self, seat, msg):
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
            if op == "button" and msg.get("name") == "play":
                if s.new_game is None:
                    raise Refused(409, "this table cannot start a game by itself: ask the "
                                  "staff.")
                return s.play_requested("%s pressed %s" % (
                    self.face.seat_name(s.match.state, seat), self.PLAY))
            raise Refused(409, "no game is running: press %s to start one." % self.PLAY)
        if s.paused:
            raise Refused(409, "the game is paused by staff: wait for them to resume it.")
        if op == "button":
            return self._button(seat, msg.get("name"))
        if op == "action":
            return self._web_action(seat, msg.get("action"))
        if not self.virtual:
            raise Refused(409, "this is a real table: play with the cards on it.")
        if op == "throw":
            if seat not in s.game.actors(s.match.state):
                raise Refused(409, "The tray does not wait for %s's dice now." %
                              self.face.seat_name(s.match.state, seat))
            async with self.control_lock:
                try:
                    values = await self.face.throw(self.hands, s.table, self.rng)
                except HandsSlipped as e:
                    raise Refused(503, "the dice were not read (%s): throw again." % e)
            return "%s threw %s" % (self.face.seat_name(s.match.state, seat),
                                    ", ".join(str(v) for v in values))
        if "reader" in msg:
            place = self._own_reader(seat, msg["reader"], op)
        else:
            place = self._cell(msg.get("cell"))
        async with self.control_lock:
            try:
                said = await self._hands_control(op, seat, place, msg)
                s.hand_touched(place, seat)   # and still, once the pieces moved
                return said
            except HandsSlipped as e:
                raise Refused(503, "the tile did not take it (%s): try again." % e,
                              [place] if place[0] != "seat" else None)

    def _button(self, seat, name):
        s = self.session
        valid = [b for b, _ in s.game.buttons]
        if name not in valid:
            raise Refused(400, "unknown button %r: one of %s." % (name, ", ".join(valid)))
        if s.match.engine.status(s.match.state) != "ongoing":
            raise Refused(409, "The game is over.")
        action = s.button(seat, name)
        if action is None and s.table.mismatches:
            raise Refused(409, "Not yet: first put the table as the game has it (%s)" %
                          s.table.mismatches[0].message.rstrip("."), s.table.mismatches[0].cells)
        if action is None and seat not in s.game.actors(s.match.state):
            raise Refused(409, "it is not %s's turn." % self.face.seat_name(s.match.state, seat))
        if action is not None:
            problem = s.match.validate(action)
            if problem is not None:
                raise Refused(409, problem.message)
            if not s.game.acts_for(s.match.state, seat, action):
                raise Refused(409, "it is not %s's move." % self.face.seat_name(
                    s.match.state, seat))
            s.apply_from_table(action)
        label = dict(s.game.buttons)[name]
        return "%s: %s" % (self.face.seat_name(s.match.state, seat), label)

    async def _hands_control(self, op, seat, place, msg):
        """Check the control, then say the person's hand is at work at its places (a move
        of theirs may be under way there), then move the pieces. The touch is said before
        the tile reports a piece gone: else the virtual players could see a card missing
        in between and put it back under the person's hand (said again once the pieces
        moved, as an action applied meanwhile forgets it)."""
        s = self.session
        match = s.match
        if op in GESTURES:
            if place[0] == "seat":
                raise Refused(400, "a card reader takes a card, not a %s." % op)
            s.hand_touched(place, seat)
            await self.hands.gesture(place, op)
            return "%s on [%d, %d]." % ({"tap": "Tapped", "double": "Double-tapped",
                                         "hold": "Held"}[op], place[0], place[1])
        if op == "place":
            steps = self.face.place_steps(match, s.table, seat, msg.get("card"), place,
                                          bool(msg.get("face_down")),
                                          whole=msg.get("whole") is True)
            s.hand_touched(place, seat)
            await self._steps(steps)
            return "Put down on %s." % self._place_words(place)
        if op == "lift":
            item = self.face.liftable(match, s.table, seat, place, msg.get("card"))
            steps = self.face.lift_steps(match, s.table, seat, place, item,
                                         whole=msg.get("whole") is True)
            # Every place the lift (or a whole move) lifts from is the person's from the start.
            places = []
            for _kind, where, _what in steps:
                if where not in places:
                    places.append(where)
                    s.hand_touched(where, seat)
            if len(steps) == 1:
                await self.hands.lift(place, item)
            else:
                await self._steps(steps)
            return "Lifted off %s." % " and ".join(self._place_words(p) for p in places)
        # move: lift and put down elsewhere, one motion of the hand.
        to = self._cell(msg.get("to"))
        item = self.face.liftable(match, s.table, seat, place, msg.get("card"))
        self.face.check_move(match, s.table, seat, place, to, item)
        s.hand_touched(place, seat)
        s.web_hand_at(to, seat)
        await self.hands.lift(place, item)
        # As a hand does: the piece is up (the tile saw it go) before it goes down, so
        # the table never reads one piece on two cells.
        await self._seen_gone(place, item)
        await self.hands.place(to, item)
        return "Moved to %s." % self._place_words(to)

    async def _steps(self, steps):
        """Carry out a face's steps in order, each piece seen down (or gone) before the next."""
        for kind, where, what in steps:
            if kind == "place":
                await self.hands.place(where, what)
                await self._seen(where, what)
            elif kind == "lift":
                await self.hands.lift(where, what)
                await self._seen_gone(where, what)
            else:
                await self.hands.gesture(where, what)

    def _place_words(self, place):
        if place[0] == "seat":
            return "your card reader"
        return "[%d, %d]" % (place[0], place[1])

    def _web_action(self, seat, action):
        """An action of the seat's own cards made on the web table (what no table move
        shows: a Fight Club discard from the hand, a fight card): applied as a button
        press is."""
        s = self.session
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise Refused(400, 'an action is a JSON object with a "type".')
        if not s.game.is_button_action(action):
            raise Refused(400, "that is made on the table, not on the web.")
        state = s.match.state
        if s.match.engine.status(state) != "ongoing" or \
                not s.game.acts_for(state, seat, action):
            raise Refused(409, "it is not %s's move." % self.face.seat_name(state, seat))
        problem = s.match.engine.validate(state, action)
        if problem is not None:
            raise Refused(409, problem.message)
        s.apply_from_table(action)
        return "Done."

    def _names_on(self, place):
        t = self.session.table
        if place[0] == "seat":
            return t.seat_observed.get(place[1], ())
        return t.observed.get(place, ())

    async def _seen(self, place, item, timeout_s=3.0):
        """Wait until the table reads `item` on `place` (as a person waits for the light)."""
        name = self.face.observed_name(item)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while name not in self._names_on(place):
            if loop.time() > deadline:
                return
            await asyncio.sleep(0.02)

    async def _seen_gone(self, place, item, timeout_s=3.0):
        name = self.face.observed_name(item)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while name in self._names_on(place):
            if loop.time() > deadline:
                raise Refused(503, "the tile did not see the piece lifted off %s: try again."
                              % cell_key(place), [place])
            await asyncio.sleep(0.02)

    # ------------------------------------------------------------ staff

    STAFF_OPS = ("pause", "resume", "undo", "reset", "start", "end", "led_test", "tile_off",
                 "tile_on", "palette")

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
        s = self.session
        where = s.layout.place_words(s.layout.tiles[s.tile_index[uid]]) \
            if uid in s.tile_index else "no place of this game"
        if op == "tile_off":
            await asyncio.to_thread(tile.kill)
            s.log.say("Staff switched off the tile of %s." % where)
            return "tile %s (%s) is off" % (uid, where)
        await asyncio.to_thread(tile.restart)
        s.log.say("Staff switched on the tile of %s." % where)
        return "tile %s (%s) is starting" % (uid, where)

    def staff(self, op, params):
        """A staff operation; returns a sentence. `start` takes game, seed, bots, levels,
        players, mode."""
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
        elif op == "palette":
            palette = params.get("palette")
            if palette not in ("book", "contrast"):
                raise Refused(400, 'palette is "book" (the book\'s colours) or "contrast" '
                              "(told apart by colour-blind eyes).")
            self.face.palette = palette
            s.log.say("staff chose the %s palette" % palette)
        said = s.log.lines[before:]
        return " ".join(said) if said else "%s done" % op

    def new_game_form(self):
        """What the staff page's new-game form offers for this table's game: its title, the
        player counts the engine takes, its modes, the count and bots now, the bots' levels
        (those offered, in words, and each bot's now by seat number) and the seats' names at
        each count (the labels of the bots' levels)."""
        s = self.session
        info = s.game.info
        counts = self._player_counts()
        modes = info.get("modes", {})
        titles = info.get("option_titles", {})
        words = info.get("value_titles", {})
        switches = [{"name": k, "title": titles.get(k, k.replace("_", " ").capitalize()),
                     "values": [_value_text(v) for v in modes[k]],
                     "value_titles": {_value_text(v): words.get(k, {}).get(
                         v, _value_text(v).replace("_", " ")) for v in modes[k]},
                     "value": _value_text(s.match.options.get(k, modes[k][0]))}
                    for k in sorted(modes) if k != "mode"]
        return {"game": s.match.game, "title": s.game.title, "players": counts,
                "default_players": len(s.match.state.seats),
                "modes": modes.get("mode", []),
                "mode_titles": info.get("mode_titles", {}), "mode": s.match.options.get("mode"),
                "switches": switches, "bots": len(s.bots.seats),
                "level_choices": [{"level": level, "words": bot_levels.WORDS[level]}
                                  for level in bot_levels.LEVELS],
                "levels": {str(n): s.bots.seats[seat] for n, seat in
                           enumerate(s.match.state.seats, 1) if seat in s.bots.seats},
                "seat_names": self.seat_names()}

    def _player_counts(self):
        info = self.session.game.info
        return info.get("player_counts") or list(range(info["min_players"],
                                                       info["max_players"] + 1))

    def seat_names(self):
        """{count: the seats' names in seat order} of a new game with the table's options at
        each player count (a count its mode does not take is left out). Made once for the
        options."""
        options = dict((k, v) for k, v in self.session.match.options.items()
                       if k != "players")
        made_for, names = self._seat_names
        if made_for != options:
            from shared_rules.errors import ScenarioError
            names = {}
            for n in self._player_counts():
                try:
                    names[str(n)] = self._names_of(dict(options, players=n))
                except ScenarioError:
                    continue
            self._seat_names = (options, names)
        return names

    def _names_of(self, options):
        """The seats' names of a new game with these options, in seat order."""
        engine = self.session.match.engine
        state = engine.new_game(options, 0)
        return [self.face.seat_name(state, q) for q in engine.seats(state)]

    def _start(self, params):
        s = self.session
        game = params.get("game")
        if game is None:
            game = s.match.game
        if game != s.match.game:
            raise Refused(409, "this table is laid out for %s: restart `fairytable run --game "
                          "%s` to play %s." % (s.game.title, game, game))
        seed = params.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise Refused(400, "seed must be a whole number of 0 or more.")
        players = params.get("players")
        if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
            raise Refused(400, "players must be a whole number.")
        options = dict(s.match.options)
        if players is not None:
            options["players"] = players
        mode = params.get("mode")
        if mode is not None:
            modes = s.game.info.get("modes", {}).get("mode", [])
            if mode not in modes:
                raise Refused(400, "%s has %s." % (s.game.title, "the modes " + ", ".join(
                    modes) if modes else "no modes"))
            options["mode"] = mode
        options.update(self._switches(params.get("options")))
        seats = self._seats_of(options)
        bots = params.get("bots", len(s.bots.seats))
        if not isinstance(bots, int) or isinstance(bots, bool) or not 0 <= bots <= len(seats):
            raise Refused(400, "bots must be 0 to %d." % len(seats))
        bot_seats = self._bots_of(options, seats, bots, params.get("levels"))
        missing = [n for n in range(1, len(seats) + 1) if s.layout.seats and
                   n not in s.layout.seat_slot]
        if missing:
            raise Refused(409, "this table has card readers for %d seats: a game of %d "
                          "players needs %d." % (len(s.layout.seats), len(seats), len(seats)))
        if self.make_match is None:
            raise Refused(409, "this table cannot start a new game by itself.")
        if not s.attract:
            s.button("staff", "reset")
        s.new_game = lambda: self.make_match(seed, options, bot_seats)
        s.bots.seats = bot_seats
        if bot_seats and s.bots.hands is None:
            s.bots.hands = self.hands   # the virtual hands carry out the new bots' moves
        s.button("staff", "start")

    def _bots_of(self, options, seats, bots, levels):
        """{seat: level} of the new game's bots, in its last `bots` seats: the level `levels`
        gives the seat ({"seat number": level}, checked), else the level of the bot playing
        that seat now, else normal."""
        first = len(seats) - bots + 1
        given = self._levels(levels, options, seats, first)
        now = self.session.bots.seats
        return dict((seat, given.get(n) or now.get(seat) or bot_levels.DEFAULT)
                    for n, seat in enumerate(seats, 1) if n >= first)

    def _levels(self, levels, options, seats, first):
        """The request's `levels` ({"seat number": level}, a bot's seat each) as {number:
        level}; refused with a sentence naming the field."""
        if levels is None:
            return {}
        if not isinstance(levels, dict):
            raise Refused(400, 'levels is an object of the bots\' seat numbers and their '
                          'levels, such as {"%d": "hard"}.' % len(seats))
        out = {}
        for key, level in levels.items():
            key = str(key)
            n = int(key) if key.isascii() and key.isdigit() else None
            if n is None or not first <= n <= len(seats):
                raise Refused(400, "levels[%s]: %s; %s." % (
                    n if n is not None else _shown(key), self._no_level(n, options, seats),
                    self._bots_words(options, seats, first)))
            if level not in bot_levels.LEVELS:
                raise Refused(400, "levels[%d] must be %s, not %s." % (
                    n, bot_levels.listed(), _shown(level)))
            out[n] = level
        return out

    def _no_level(self, n, options, seats):
        """Why seat number `n` of a new game takes no level: it is no seat, or a person's."""
        if n is None:
            return "a seat is given by its number, 1 to %d" % len(seats)
        if not 1 <= n <= len(seats):
            return "a game of %d players has seats 1 to %d" % (len(seats), len(seats))
        return "seat %d (%s) is a person's" % (n, self._names_of(options)[n - 1])

    def _bots_words(self, options, seats, first):
        """Where a new game's bots play, in words: "the bot plays seat 2 (Hero)"."""
        numbers = list(range(first, len(seats) + 1))
        if not numbers:
            return "no seat is a bot's (bots 0)"
        names = self._names_of(options)
        return "the bot%s %s %s" % (
            "s" if len(numbers) > 1 else "", "play seats" if len(numbers) > 1 else
            "plays seat", and_list("%d (%s)" % (n, names[n - 1]) for n in numbers))

    def _switches(self, given):
        """The new game's other options ({name: "value text"}), as the engine takes them."""
        if given is None:
            return {}
        modes = self.session.game.info.get("modes", {})
        names = sorted(k for k in modes if k != "mode")
        if not isinstance(given, dict):
            raise Refused(400, "options must be an object of the game's options: %s." % (
                ", ".join(names) or "it has none"))
        out = {}
        for k in sorted(given):
            if k not in names:
                raise Refused(400, "%s has %s, not %r." % (self.session.game.title, (
                    "the options " + ", ".join(names)) if names else "no options", k))
            words = dict((_value_text(v), v) for v in modes[k])
            if given[k] not in words:
                raise Refused(400, "options.%s must be one of %s." % (k, ", ".join(words)))
            out[k] = words[given[k]]
        return out

    make_match = None  # (seed, options, bots) -> (match, game_id): set by the host

    def _seats_of(self, options):
        """The seats of a new game with these options; the engine refuses a count it does
        not take, in its own words."""
        from shared_rules.errors import ScenarioError
        try:
            return list(self.session.game.seats(options))
        except ScenarioError as e:
            raise Refused(400, "%s: %s." % (self.session.game.title, e.message.rstrip(".")))

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
        if index is not None:
            s.forget_scenes(index)
        s.log.say("Staff are testing the lights of %s (each cell's edges chase white)." % (
            s.layout.place_words(s.layout.tiles[index]) if index is not None else "a tile"))
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
        return [{"id": r[0], "game": r[1], "title": self._title(r[1]), "finished": bool(r[2]),
                 "created": r[3], "actions": r[4], "current": r[0] == self.session.game_id}
                for r in rows]

    @staticmethod
    def _title(name):
        """A journalled game's kind by its title; a kind this table no longer plays by its
        name in the journal."""
        from host import games
        try:
            return games.table_game(name).title
        except ValueError:
            return name

    def replay(self, game_id, step):
        """The table of a journalled game after `step` actions (staff: everything shown),
        built through the game's own contract: its interpreter, as if the table showed the
        game exactly, its scenes and its face."""
        from host import games
        from host.journal import JournalError
        from shared_rules.engine import Match
        from shared_rules.errors import IllegalAction, ScenarioError
        if self.journal is None:
            raise Refused(404, "this table keeps no journal.")
        try:
            match, _info = self.journal.load(game_id)
        except JournalError as e:
            raise Refused(404, str(e))
        actions = list(match.actions)
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= len(actions):
            raise Refused(400, "step must be 0 to %d." % len(actions))
        try:
            game = games.table_game(match.game)
        except ValueError as e:
            raise Refused(409, "this table cannot show game %d: %s." % (game_id, e))
        try:
            again = Match(match.game, match.options, match.seed, match.setup, match.cards)
            events = []
            for action in actions[:step]:
                events = again.apply(action)
        except (IllegalAction, ScenarioError) as e:
            raise Refused(409, "game %d does not replay: %s" % (game_id, e))
        state = again.state
        table = game.new_interpreter(again)
        for place, seen in sorted(table.expected().items()):
            table.observe(place, seen)
        table.reconcile(0)
        cells = sorted(self.session.layout.cells) if match.game == self.session.match.game \
            else sorted(game.board_cells())
        scenes = game.scenes(state, table, cells, events, None)
        items = game.face.items(again, table, None, reveal=True)
        out_cells = [{"cell": list(c), "leds": scene_json(scenes.get(c, lights.DARK_CELL)),
                      "items": items.get(c, [])} for c in cells]
        result = again.engine.result(state)
        return {"game": match.game, "title": game.title, "game_id": game_id, "step": step,
                "steps": len(actions),
                "action": actions[step - 1] if step else None, "events": events,
                "said": game.face.describe(state, actions[step - 1], events) if step
                else None,
                "status": result.get("status"), "winner": result.get("winner"),
                "scores": result.get("scores"), "cells": out_cells,
                "banner": game.face.banner(again, table, None),
                "facts": game.face.facts(again)}


def _shown(value):
    """A value of a request in a refusal: a short word as it was given ("expert"), anything
    else by its kind (a refusal does not repeat what a request carried)."""
    if isinstance(value, str):
        if len(value) <= 20 and value.isascii() and value.isprintable():
            return json.dumps(value)
        return "a longer text"
    if value is None or value is True or value is False:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def _value_text(v):
    """An option's value as the staff page shows and sends it: a switch "on" or "off"."""
    return ("on" if v else "off") if v is True or v is False else str(v)
