"""A game bound to the table: tile events in, actions applied and journalled, scenes lit.

One `TableSession` owns one Match. Tile events arrive from the link (tags on
a slot, gestures, dice), the layout turns tile slots into cells, the tag
registry turns tags into cards, pawns and die faces, and the game's table
interpreter turns sensor changes into actions or mismatches. An accepted
action is journalled before its result is lit. Bots play empty seats: their
moves are lit for a human to carry out (or carried out by `hands` on the
virtual table) and applied only once the tiles confirm them.
"""

import asyncio
import time

from host import lights
from host.table.games import table_game
from host.table.tags import TagRefused
from shared_rules import bots
from shared_rules.engine import Match, UndoRefused
from shared_rules.errors import IllegalAction

def now_ms():
    return int(time.monotonic() * 1000)


class SessionLog:
    """Where the session says what happens: a list of lines, and optionally a printer."""

    def __init__(self, printer=None):
        self.lines = []
        self.printer = printer

    def say(self, text):
        self.lines.append(text)
        if self.printer is not None:
            self.printer(text)


class TableSession:
    idle_tick_s = 0.05
    bot_patience_ms = 5000   # a bot's move not seen on the table by then is asked again
    tidy_gap_ms = 500        # let the tiles report before the virtual hands tidy again

    def __init__(self, match, layout, link, registry, tile_uids, journal=None, game_id=None,
                 seats_bots=None, bot_seed=0, hands=None, log=None, hide_window_ms=None):
        self.match = match
        self.layout = layout
        self.link = link
        self.registry = registry
        self.journal = journal
        self.game_id = game_id
        self.bots = dict(seats_bots or {})
        self.bot_seed = bot_seed
        self.hands = hands
        self.log = log or SessionLog()
        self.tile_index = {}  # uid -> layout tile index
        for index, uid in layout.bind(tile_uids).items():
            self.tile_index[uid] = index
            # Which readers border each other on this table (a Battle Royale tile's cells
            # are no row): the tile keeps their fields apart.
            masks = layout.tiles[index].field_neighbours()
            if masks is not None:
                link.set_field_neighbours(uid, masks)
        self.uid_of = {index: uid for uid, index in self.tile_index.items()}
        self.game = table_game(match.game)
        self.table = self.game.interpreter(match)
        if hide_window_ms is not None:
            self.table.hide_window_ms = hide_window_ms
        self.recent_events = []
        self.sent_scenes = {}     # cell -> scene last sent
        self.led_scenes_sent = 0
        self.mismatch_count = 0
        self._bot_request = None  # the action a bot asked a human to carry out
        self.bot_request_at = 0
        self._tidied_at = 0
        self._hands_task = None
        self.on_change = None     # called when the game or the mismatches change (a view)
        self.attract = False      # staff reset: lights the attract animation, no game
        self.new_game = None      # () -> (match, game_id), for staff "start"
        self._last_mark = None
        self.paused = False
        self.rejected = []        # (action, reason) shown on the host
        self.flash = {}           # cell -> until ms: an illegal action's cells
        self._was_mismatched = False

    # ------------------------------------------------------------ sensors

    @property
    def bot_request(self):
        return self._bot_request

    @bot_request.setter
    def bot_request(self, action):
        """The bot's move the table lights; the interpreter knows it is coming."""
        self._bot_request = action
        self.table.bot_move = action
        pending = getattr(self.table, "pending_place", None)
        if action is None and pending is not None:
            # A move given up on: a card already down is not read as a Play at once
            # (its hide window starts again) while the hands put the table right.
            self.table.pending_place = pending[:2] + (now_ms(),)

    def on_event(self, ev):
        """Handle one TileEvent; returns an action to apply, or None."""
        index = self.tile_index.get(ev.tile)
        if ev.kind == "online":
            if index is None:
                self.log.say("tile %s is online but not in the layout: ignored" % ev.tile)
            self.sent_scenes = {c: s for c, s in self.sent_scenes.items()
                                if index is None or self._tile_of_scene(c) != index}
            return None
        if ev.kind == "offline":
            self.log.say("tile %s went offline (%s): the game waits for it" % (ev.tile, ev.detail))
            return None
        if ev.kind == "problem":
            # A port or tile the link will not use (a clone, another protocol version, a
            # flood): the operator must hear what to do, whether or not it is in the layout.
            self.log.say("table problem: %s" % ev.detail)
            return None
        if index is None:
            return None
        if ev.kind == "tags":
            cell = self.layout.cell_of.get((index, ev.slot))
            if cell is None:
                return None
            items, problems = [], []
            for uid_hex, identity in ev.tags:
                try:
                    items.append(self.registry.resolve(bytes.fromhex(uid_hex), identity))
                except TagRefused as e:
                    problems.append(e.message)
            self.table.observe_items(cell, items, problems)
            return self.table.reconcile(now_ms())
        if ev.kind == "dice" and hasattr(self.table, "dice"):
            item, problem = None, None
            if ev.die is not None:
                try:
                    item = self.registry.resolve(bytes.fromhex(ev.die[0]), ev.die[1])
                except TagRefused as e:
                    problem = e.message
            return self.table.dice(ev.pocket, item, problem, now_ms())
        if ev.kind == "gesture":
            cell = self.layout.cell_of.get((index, ev.slot))
            if cell is None:
                return None
            action = self.table.gesture(cell, ev.gesture, now_ms())
            if action is None and self.table.mismatches:
                self.log.say("%s on %r ignored: the table does not match the game yet"
                             % (ev.gesture, list(cell)))
            return action
        return None

    def _tile_of_scene(self, key):
        if key in self.layout.slot_of:
            return self.layout.slot_of[key][0]
        return self.layout.dice_tile  # ("pocket", i)

    def button(self, seat, name):
        """A seat button or a staff control (seat "staff": undo, pause, resume, reset)."""
        if seat == "staff":
            return self.staff(name)
        action = self.table.button(seat, name)
        self._table_said()
        return action

    def _table_said(self):
        """What the interpreter has to say: notes for the log, refused gestures flashed."""
        for note in getattr(self.table, "notes", ()):
            self.log.say(note)
        for cells, message in getattr(self.table, "refusals", ()):
            self.rejected.append((None, message))
            self.log.say("not allowed: %s" % message)
            for cell in cells:
                self.flash[tuple(cell)] = now_ms() + 1500
        if hasattr(self.table, "notes"):
            del self.table.notes[:]
        if hasattr(self.table, "refusals"):
            del self.table.refusals[:]

    def staff(self, name):
        if name == "undo":
            try:
                action = self.match.undo()
            except UndoRefused as e:
                self.log.say("undo refused: " + e.message)
                return None
            if self.journal is not None:
                self.journal.remove_last(self.game_id, len(self.match.actions))
            self.log.say("staff undid %s" % action["type"])
            self.table.reconcile(now_ms())
        elif name in ("pause", "resume"):
            self.paused = name == "pause"
            self.log.say("game %s by staff" % ("paused" if self.paused else "resumed"))
        elif name == "reset":
            # Back to the attract mode: the game is closed in the journal (it stays readable).
            if self.journal is not None:
                self.journal.finish(self.game_id)
            self.attract = True
            self.bot_request = None
            self.log.say("reset by staff: attract mode; staff start begins a new game")
        elif name == "start" and self.attract:
            if self.new_game is None:
                self.log.say("this table cannot start a new game by itself")
                return None
            old = self.table
            self.match, self.game_id = self.new_game()
            self.table = self.game.interpreter(self.match)
            for cell in sorted(set(old.observed) | set(old.problems)):
                self.table.observe(cell, old.observed.get(cell, []), old.problems.get(cell, []))
            self.table.reconcile(now_ms())
            self.attract = False
            self.recent_events = []
            self.log.say("new game %s started by staff" % self.game_id)
        else:
            self.log.say("unknown staff control %r (undo, pause, resume, reset, start)" % name)
        return None

    # ------------------------------------------------------------ applying

    def apply(self, action):
        """Apply an action the table showed; returns its events, or None if refused."""
        if self.paused:
            self.log.say("paused: %s not applied" % action["type"])
            return None
        try:
            events = self.match.apply(action)
        except IllegalAction as e:
            self.rejected.append((action, e.message))
            self.log.say("not allowed: %s" % e.message)
            until = now_ms() + 1500
            if hasattr(self.game, "action_cells"):
                cells = self.game.action_cells(self.match.state, action)
            else:
                cells = [action["cell"]] if "cell" in action else []
            for cell in cells:
                self.flash[tuple(cell)] = until
            return None
        if self.journal is not None:
            self.journal.append(self.game_id, len(self.match.actions) - 1, action, self.match)
            if self.match.engine.status(self.match.state) == "finished":
                self.journal.finish(self.game_id)
        if self.bot_request is not None and self._carries_out(action, self.bot_request):
            self.bot_request = None
        self.recent_events = events
        self.table.after(events)
        self.log.say(describe(action, events))
        self.table.reconcile(now_ms())
        return events

    # ------------------------------------------------------------ lights

    def scenes(self):
        if self.attract:
            return lights.attract_scenes(self.layout.cells)
        scenes = self.game.scenes(self)
        now = now_ms()
        for cell, until in list(self.flash.items()):
            if until < now:
                del self.flash[cell]
            else:
                scenes[cell] = lights.all_edges(lights.blink(lights.MISMATCH, 200))
        return scenes

    def light(self):
        """Send the scenes that changed, one LED command per tile."""
        scenes = self.scenes()
        per_tile = {}
        for cell in self.layout.cells:
            scene = scenes.get(cell, lights.DARK_CELL)
            if self.sent_scenes.get(cell) == scene:
                continue
            index, slot = self.layout.slot_of[cell]
            per_tile.setdefault(index, []).append((slot, scene, cell))
        dice_tile = getattr(self.layout, "dice_tile", None)
        if dice_tile is not None:
            # The dice tray's pockets: scenes keyed ("pocket", i), dark unless a game lights them.
            for tile in self.layout.tiles:
                if tile.index != dice_tile:
                    continue
                for pocket in range(tile.pockets):
                    key = ("pocket", pocket)
                    scene = scenes.get(key, lights.DARK_CELL)
                    if self.sent_scenes.get(key) != scene:
                        per_tile.setdefault(dice_tile, []).append((pocket, scene, key))
        for index in sorted(per_tile):
            uid = self.uid_of.get(index)
            tile = self.link.tiles.get(uid) if uid else None
            if tile is None or not tile.online:
                continue
            entries = [(slot, lights.encode(scene)) for slot, scene, _ in per_tile[index]]
            try:
                self.link.set_scene(uid, entries)
            except ValueError as e:
                self.log.say("lighting tile %s failed: %s" % (uid, e))
                continue
            self.led_scenes_sent += 1
            for _slot, scene, cell in per_tile[index]:
                self.sent_scenes[cell] = scene

    # ------------------------------------------------------------ bots

    def bot_seat(self):
        """The bot that should act now, or None."""
        s = self.match.state
        if s.status != "ongoing" or self.table.mismatches or self.table.busy():
            return None
        seat = self.game.current_seat(s) if hasattr(self.game, "current_seat") else s.turn
        return seat if seat in self.bots else None

    def bot_action(self, seat):
        kind = self.bots[seat]
        if hasattr(self.game, "choose_bot_action"):
            action = self.game.choose_bot_action(kind, self.match.state, seat, self.bot_seed)
        else:
            action = bots.choose(kind, self.match.engine, self.match.state, seat, self.bot_seed)
        return None if action is None else self.game.normal_bot_action(action)

    def _carries_out(self, action, request):
        """Is the action the table showed the bot's move? (A game may read its dice.)"""
        if hasattr(self.game, "carries_out"):
            return self.game.carries_out(action, request)
        return action == request

    # ------------------------------------------------------------ the loop

    async def run(self, max_actions=None, deadline_s=None):
        """Play until the game ends (or max_actions, or deadline); returns a summary."""
        started = time.monotonic()
        self.table.reconcile(now_ms())
        self.light()
        while self.attract or self.match.engine.status(self.match.state) == "ongoing":
            if max_actions is not None and len(self.match.actions) >= max_actions:
                break
            if deadline_s is not None and time.monotonic() - started > deadline_s:
                self.log.say("stopped: the game took longer than %d s" % deadline_s)
                break
            try:
                ev = await self.link.next_event(timeout=self.idle_tick_s)
            except asyncio.TimeoutError:
                ev = None
            action = self.on_event(ev) if ev is not None else self.table.tick(now_ms())
            self._table_said()
            if action is not None and not self.attract:
                self._apply_table_action(action)
            self._count_mismatch()
            await self._drive_bots()
            self.light()
            self._notify()
        self.light()
        return self.summary()

    def _apply_table_action(self, action):
        if self.bot_request is not None and not self._carries_out(action, self.bot_request):
            self.log.say("the table shows %s, but the bot asked for %s: put it back"
                         % (describe(action, ()), describe(self.bot_request, ())))
            self.bot_request_at = -self.bot_patience_ms  # tidy up and ask again
            return
        self.apply(action)

    def _notify(self):
        if self.on_change is None:
            return
        mark = (len(self.match.actions), tuple(m.message for m in self.table.mismatches))
        if mark != self._last_mark:
            self._last_mark = mark
            self.on_change()

    def _count_mismatch(self):
        mismatched = bool(self.table.mismatches)
        if mismatched and not self._was_mismatched:
            self.mismatch_count += 1
            for m in self.table.mismatches:
                self.log.say("mismatch: " + m.message)
        self._was_mismatched = mismatched

    async def _drive_bots(self):
        now = now_ms()
        if self.attract:
            return
        # A change the table moves along (a duel read round by round) keeps the bot waiting.
        last_seen = max(self.bot_request_at, getattr(self.table, "progress_at", 0))
        # On a noisy line the tiles' events come late: wait for them as much longer.
        patience = self.bot_patience_ms + int(10000 * self.link.delivery_s())
        if self.bot_request is not None and now - last_seen > patience:
            # The move was not seen on the table in time: tidy up and ask again.
            self.log.say("the table did not show the bot's move; asking again")
            self.bot_request = None
            await self._tidy(now)
            return
        if self.hands is not None and self.table.mismatches and self.bot_request is None \
                and now - self._tidied_at > self.tidy_gap_ms:
            # The virtual players tidy up: captured cards lifted off, a dropped card put back.
            await self._tidy(now)
            return
        seat = self.bot_seat()
        if seat is None or self.bot_request is not None:
            return
        action = self.bot_action(seat)
        if action is None:
            return
        if self.game.is_button_action(action):
            self.apply(action)
            return
        self.bot_request = action
        self.bot_request_at = now
        self.log.say("%s (bot) asks: %s" % (seat, describe(action, ())))
        if self.hands is not None:
            self.light()
            self._hands_task = asyncio.ensure_future(self._perform(action))

    async def _perform(self, action):
        from host.virtual_hands import HandsSlipped
        try:
            await self.hands.perform(self.match.state, action, self)
        except HandsSlipped as e:
            self.log.say("the move slipped (%s): it will be asked again" % e)

    async def _tidy(self, now):
        from host.virtual_hands import HandsSlipped
        if self.hands is None or (self._hands_task is not None and not self._hands_task.done()):
            return
        self._tidied_at = now
        try:
            await self.hands.tidy(self.match.state, self.table)
        except HandsSlipped as e:
            self.log.say("tidying slipped (%s)" % e)

    def summary(self):
        s = self.match.state
        result = self.match.engine.result(s)
        tiles = {}
        for uid in sorted(self.link.tiles):
            tile = self.link.tiles[uid]
            tiles[uid] = {"online": tile.online, "health": tile.health}
        return {"game": self.match.game, "winner": result.get("winner"),
                "scores": result.get("scores"),
                "turns": self.game.turns(self.match) if hasattr(self.game, "turns")
                else getattr(s, "turn_number", None),
                "actions": len(self.match.actions), "led_scenes_sent": self.led_scenes_sent,
                "mismatches": self.mismatch_count, "tiles": tiles,
                "status": result.get("status")}


def describe(action, events):
    """One line for the host's log."""
    parts = [action["type"]]
    for key in ("card", "cell", "dir"):
        if key in action:
            parts.append("%s=%s" % (key, action[key]))
    for ev in events:
        if ev["type"] == "captured":
            parts.append("captured %s (+%d %s)" % (ev["card"], ev["points"], ev["by_side"]))
        elif ev["type"] == "game_over":
            parts.append("game over: %s wins" % (ev["winner"] or "nobody"))
    return " ".join(parts)


def new_match(game, seed, options):
    return Match(game, options, seed)
