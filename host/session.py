"""A game bound to the table: tile events in, actions applied and journalled, scenes lit.

One `TableSession` owns one Match. Tile events arrive from the link (tags on
a slot, gestures, dice), the layout turns tile slots into cells, the tag
registry turns tags into cards, pawns and die faces, and the game's table
interpreter turns sensor changes into actions or mismatches. A slot of the layout's seat
tile is a seat's card reader: its tags go to the interpreter as that seat's
(`observe_seat_items`), and its light is the scene keyed ("seat", n). An accepted
action is journalled before its result is lit. Bots play empty seats
(host/bots_at_table.py). The game is reached only through its contract
(host/table/contract.py): a TableGame adapter and its TableInterpreter.

A tile of the layout that stays offline longer than `offline_grace_ms` is a
"tile offline" mismatch naming the tile and its cells: nothing is applied while
it lasts, and the game goes on when the tile is back. Time comes from the clock
the session is given (monotonic ms; host/clock.py), never from the wall.
"""

import asyncio

from host import lights
from host.attract import Demo
from host.bots_at_table import BotsAtTable
from host.clock import monotonic_ms
from host.secrets import redactor, secret_words
from host.session_log import SessionLog
from host.games import table_game
from host.table.mismatch import Mismatch
from host.table.tags import TagRefused
from shared_rules.engine import UndoRefused
from shared_rules.errors import IllegalAction
from host.web.face import and_list, cell_words

__all__ = ["SessionLog", "TableSession", "TileOffline"]


class TileOffline(Mismatch):
    """A tile of the layout offline past the grace: the game waits for it."""

    def __init__(self, tile, cells, message):
        super().__init__("tile_offline", cells, message)
        self.tile = tile


def refusal_line(cells, message):
    """The log's line for a gesture the table refused: where, then why ("Refused on [3, 2].
    Not yet: the Villain plays two cards first."). Only the board's cells are named; a
    place off the board (a seat's card reader) is said by the message itself."""
    grid = [c for c in cells if len(c) == 2 and isinstance(c[0], int) and isinstance(c[1], int)]
    if not grid:
        return "Refused: %s" % message
    return "Refused on %s. %s" % (and_list(cell_words(c) for c in grid), message)


class TableSession:
    idle_tick_s = 0.05
    flash_ms = 1500               # an illegal action's cells blink this long
    offline_grace_ms = 5000       # a tile offline longer than this is a mismatch

    def __init__(self, match, layout, link, registry, tile_uids, journal=None, game_id=None,
                 seats_bots=None, bot_seed=0, hands=None, log=None, hide_window_ms=None,
                 clock=monotonic_ms, offline_grace_ms=None, lit_patience_ms=None):
        self.match = match
        self.layout = layout
        self.link = link
        self.registry = registry
        self.journal = journal
        self.game_id = game_id
        self.clock = clock
        if offline_grace_ms is not None:
            self.offline_grace_ms = offline_grace_ms
        if lit_patience_ms is not None:
            self.lit_patience_ms = lit_patience_ms
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
        self.hide_window_ms = hide_window_ms
        self.table = self.game.new_interpreter(match, hide_window_ms)
        self.bots = BotsAtTable(self, seats_bots, bot_seed, hands, clock)
        self.recent_events = []
        self.max_actions = None    # run()'s limit: no bot move past it (tend() has none)
        self.sent_scenes = {}     # cell -> scene last sent
        self.led_scenes_sent = 0
        self.mismatch_count = 0
        self.on_change = None     # called when the game or the mismatches change (a view)
        self.on_applied = None    # called with (action, events) once applied (a bench view)
        self.first_light = None   # {uid: commands unacknowledged at a game's first light}
        self.first_light_at = None
        self._lit_waiting = None  # (first-light commands unacknowledged, since when)
        self.on_lit = None        # called once the tiles acknowledged the first light
        self.on_waiting = None    # called with {"tile", "cells", "message"} when a wait starts
        self.attract = False      # no game: the attract mode's demo plays (host/attract.py)
        self.demo = None          # the attract mode's Demo, while attract
        self.attract_after_ms = None   # nobody played this long: the attract mode (None: never)
        self.last_activity = clock()   # an action applied, a piece touched, a tap
        self.new_game = None      # () -> (match, game_id), for staff "start"
        self._last_mark = None
        self._resync_mark = None   # (actions, ms that count was first seen, snapshots since)
        self.paused = False
        self.rejected = []        # (action, reason) shown on the host
        self.flash = {}           # cell -> until ms: an illegal action's cells
        self._was_mismatched = False
        self._logged_mismatches = set()
        self.offline_since = {}   # uid -> ms the layout's tile went offline
        self.tile_mismatches = []  # tiles offline past the grace, as mismatches
        self.settling = False     # reading the tiles' first reports: nothing judged yet
        self.mismatch_since = {}  # message -> ms it was first seen (a mismatch is news
        self.last_words = None    # once it lasts: shown_mismatches); the last action in words
        self.last_refusal = None  # {"seat", "text", "cells", "at"}: shown where it was made
        self.touched_by = {}      # place -> (seat, ms): a web seat's hand acted there last

    @property
    def mismatches(self):
        """Everything that disagrees now: tiles waited for, then the interpreter's (not
        while the tiles' first reports are still coming in: `settle`)."""
        if self.settling:
            return list(self.tile_mismatches)
        return self.tile_mismatches + self.table.mismatches

    mismatch_news_ms = 2000   # a mismatch is shown and logged once it lasts this long

    def shown_mismatches(self):
        """The mismatches people should hear of: tiles waited for at once, the table's once
        they last `mismatch_news_ms` (a disagreement the hands are about to put right,
        a card on its way, is not news), or at once when no bot's move is under way (a
        person is blocked)."""
        now = self.clock()
        out = list(self.tile_mismatches)
        for m in ([] if self.settling else self.table.mismatches):
            since = self.mismatch_since.get(m.message, now)
            if now - since >= self.mismatch_news_ms or (
                    self.bots.request is None and not self.bots.seats):
                out.append(m)
        return out

    def _track_mismatches(self):
        now = self.clock()
        current = set(m.message for m in ([] if self.settling else self.table.mismatches))
        self.mismatch_since = {msg: self.mismatch_since.get(msg, now) for msg in current}

    touch_owner_ms = 5000   # the table refused a move on a place a web seat acted on this
                            # recently: that seat's move (its page says why)

    def refused_at(self, seat, sentence, cells=()):
        """A refusal made where a person acted (a web control, an illegal gesture): the
        page shows it beside the cells for a while; nothing was applied. `seat` None: the
        table refused what it read (a card, a gesture); the seat whose web hand acted on
        one of those places in the last `touch_owner_ms` made it, else nobody on the web
        did (a hand at the table itself: every page may say why)."""
        now = self.clock()
        if seat is None:
            last = None
            for c in cells:
                got = self.touched_by.get(tuple(c))
                if got is not None and now - got[1] <= self.touch_owner_ms and (
                        last is None or got[1] > last[1]):
                    last = got
            seat = last[0] if last is not None else None
        self.last_refusal = {"seat": seat, "text": sentence,
                             "cells": [list(c) for c in cells], "at": now}

    def waiting_for(self):
        """The tiles the game waits for (offline past the grace), by unique id."""
        return [m.tile for m in self.tile_mismatches]

    # ------------------------------------------------------------ sensors

    def on_event(self, ev):
        """Handle one TileEvent; returns an action to apply, or None."""
        index = self.tile_index.get(ev.tile)
        if ev.kind == "online":
            if index is None:
                self.log.say("tile %s is online but not in the layout: ignored" % ev.tile,
                             staff=True)
            elif self.offline_since.pop(ev.tile, None) is not None:
                # Its going offline was said: its coming back is said too (the game waited
                # for it only when it stayed away past the grace).
                self.log.say("The tile of %s is back%s." % (
                    self._where(index), ": the game goes on" if ev.tile in self.waiting_for()
                    else ""))
            if index is not None:
                self.forget_scenes(index)
            return None
        if ev.kind == "offline":
            if index is not None:
                self.log.say("The tile of %s went offline (%s)." % (self._where(index),
                                                                     ev.detail))
            if index is not None:
                self.offline_since.setdefault(ev.tile, self.clock())
            return None
        if ev.kind == "problem":
            # A port or tile the link will not use (a clone, another protocol version, a
            # flood): the operator must hear what to do, whether or not it is in the layout.
            self.log.say("table problem: %s" % ev.detail, staff=True)
            return None
        if index is None:
            return None
        if ev.kind in ("tags", "gesture", "dice"):
            self.last_activity = self.clock()
        if ev.kind == "tags":
            cell = self.layout.cell_of.get((index, ev.slot))
            seat = self.layout.seat_of.get((index, ev.slot))
            if cell is None and seat is None:
                return None
            items, problems = [], []
            for uid_hex, identity in ev.tags:
                try:
                    items.append(self.registry.resolve(bytes.fromhex(uid_hex), identity))
                except TagRefused as e:
                    problems.append(e.message)
            if cell is not None:
                self.table.observe_items(cell, items, problems)
            else:
                # A seat's card reader: a card played off the board, by that seat.
                self.table.observe_seat_items(seat, items, problems)
            return self.table.reconcile(self.clock())
        if ev.kind == "dice":
            item, problem = None, None
            if ev.die is not None:
                try:
                    item = self.registry.resolve(bytes.fromhex(ev.die[0]), ev.die[1])
                except TagRefused as e:
                    problem = e.message
            return self.table.dice(ev.pocket, item, problem, self.clock())
        if ev.kind == "gesture":
            cell = self.layout.cell_of.get((index, ev.slot))
            if cell is None:
                if (index, ev.slot) in self.layout.seat_of:
                    # The pad of a seat's card reader: the game's to read (or to say so).
                    return self.table.seat_gesture(self.layout.seat_of[(index, ev.slot)],
                                                   ev.gesture, self.clock())
                return None
            action = self.table.gesture(cell, ev.gesture, self.clock())
            if action is None and self.table.mismatches:
                self.log.say("The %s on [%d, %d] did nothing: first put the table as the game "
                             "has it." % ({"tap": "tap", "double": "double tap", "hold": "hold"}
                                         .get(ev.gesture, ev.gesture), cell[0], cell[1]))
            return action
        return None

    def _where(self, index):
        """What tile `index` of the layout holds, in words (tile ids are for staff)."""
        return self.layout.place_words(self.layout.tiles[index])

    def forget_scenes(self, index):
        """Forget the scenes sent to tile `index` (it restarted, or staff lit a test on it):
        the next light sends them again."""
        self.sent_scenes = {k: v for k, v in self.sent_scenes.items()
                            if self.layout.tile_of(k) != index}

    def _check_offline(self):
        """Tiles offline past the grace become mismatches; say when a wait starts."""
        now = self.clock()
        waited = []
        for uid in sorted(self.offline_since):
            if now - self.offline_since[uid] <= self.offline_grace_ms:
                continue
            tile = self.layout.tiles[self.tile_index[uid]]
            where = self.layout.place_words(tile)
            waited.append(TileOffline(uid, tile.cells, "The tile of %s is offline: the game "
                                      "waits for it." % where))
        before = set(self.waiting_for())
        self.tile_mismatches = waited
        for m in waited:
            if m.tile not in before and self.on_waiting is not None:
                self.on_waiting({"tile": m.tile, "cells": [list(c) for c in m.cells],
                                 "message": m.message})

    def button(self, seat, name):
        """A seat button or a staff control (seat "staff": undo, pause, resume, reset)."""
        if seat == "staff":
            return self.staff(name)
        action = self.table.button(seat, name)
        self._table_said()
        return action

    def _table_said(self):
        """What the interpreter has to say: notes for the log, refused gestures flashed."""
        notes, refusals = self.table.take_said()
        for note in notes:
            self.log.say(note)
        for cells, message in refusals:
            self.rejected.append((None, message))
            self.log.say(refusal_line(cells, message))
            self.refused_at(None, message, cells)
            for cell in cells:
                self.flash[tuple(cell)] = self.clock() + self.flash_ms

    def staff(self, name):
        if name == "undo":
            try:
                action = self.match.undo()
            except UndoRefused as e:
                self.log.say("Staff cannot take the last move back: " + e.message)
                return None
            if self.journal is not None:
                self.journal.remove_last(self.game_id, len(self.match.actions))
            # What the page shows as the last move is now this, not the move taken back.
            self.last_words = "Staff took the last move back (%s)." % \
                self.game.face.request_words(self.match.state, action)
            self.log.say(self.last_words)
            self.table.reconcile(self.clock())
        elif name in ("pause", "resume"):
            self.paused = name == "pause"
            self.log.say("The game is %s by staff." % ("paused" if self.paused else "resumed"))
        elif name == "reset":
            self.go_attract("Staff ended the game; the table plays a demo until the next one.")
        elif name == "start" and self.attract:
            if self.new_game is None:
                self.log.say("this table cannot start a new game by itself")
                return None
            self._start_game()
            self.log.say("Staff started a new game of %s." % self.game.title)
        else:
            self.log.say("unknown staff control %r (undo, pause, resume, reset, start)" % name)
        return None

    # ------------------------------------------------------------ the attract mode

    def go_attract(self, sentence):
        """No game: the game is closed in the journal (it stays readable) and a demo game
        plays on the table's lights until someone starts the next (host/attract.py)."""
        if self.journal is not None:
            self.journal.finish(self.game_id)
        self._seal_log()
        self.attract = True
        self.bots.ask(None)
        self.demo = Demo(self.game, self.match.game, self.match.options, self.bots.seed,
                         self.clock)
        self.log.say(sentence)

    def play_requested(self, who):
        """Someone at the table in the attract mode asked to play (a tap on the table, the
        web table's "Play a game"): the next game starts. Returns what happened, in words."""
        if not self.attract:
            return "A game is already being played."
        if self.new_game is None:
            return "This table cannot start a game by itself: ask the staff."
        self.log.say("%s: a new game of %s starts." % (who, self.game.title))
        self._start_game()
        return "A new game of %s has started." % self.game.title

    def _seal_log(self):
        """The game on the table is over for the log: its lines keep its own secrets hidden
        and no later game's (host/session_log.py)."""
        self.log.seal(redactor(secret_words(self.match.state, self.match.engine,
                                            self.game.face)))

    def _start_game(self):
        """From the attract mode to the next game (`new_game`), the table's interpreter
        taking over what lies on it; whoever started it says so."""
        old = self.table
        self._seal_log()
        self.match, self.game_id = self.new_game()
        self.table = self.game.new_interpreter(self.match, self.hide_window_ms)
        self.table.take_over(old)
        self.table.reconcile(self.clock())
        self.attract = False
        self.demo = None
        self.last_activity = self.clock()
        self.recent_events = []
        self.last_words = None
        self.last_refusal = None
        self.touched_by = {}

    def _attract_tick(self):
        """The demo's next move; or, with `attract_after_ms`, the attract mode once nobody
        has played for that long (a game waiting on a person who left, or a game over)."""
        if self.attract:
            if self.demo is not None:
                self.demo.tick()
            return
        if self.attract_after_ms is None or self.paused:
            return
        idle = self.clock() - self.last_activity
        if idle >= self.attract_after_ms:
            minutes = idle // 60000
            self.go_attract("Nobody has played for %s: the table plays a demo game until "
                            "someone taps it." % ("%d minute%s" % (minutes, "" if minutes == 1
                                                                   else "s") if minutes else
                                                  "%d seconds" % (idle // 1000)))

    # ------------------------------------------------------------ applying

    def apply(self, action):
        """Apply an action the table showed; returns its events, or None if refused."""
        if self.paused and not self.bots.finishing(action):
            self.log.say("The game is paused by staff: %s was not applied." %
                         self.game.face.request_words(self.match.state, action))
            return None
        if self.tile_mismatches:
            self.log.say("Not applied: the game waits for %s." % " and ".join(
                "the tile of %s" % self._where(self.tile_index[u]) for u in self.waiting_for()))
            return None
        try:
            events = self.match.apply(action)
        except IllegalAction as e:
            self.rejected.append((action, e.message))
            self.log.say("Refused: %s. %s" % (
                self.game.face.request_words(self.match.state, action), e.message))
            until = self.clock() + self.flash_ms
            cells = self.game.action_cells(self.match.state, action)
            self.refused_at(None, e.message, cells)
            for cell in cells:
                self.flash[tuple(cell)] = until
            return None
        if self.journal is not None:
            self.journal.append(self.game_id, len(self.match.actions) - 1, action, self.match)
            if self.match.engine.status(self.match.state) == "finished":
                self.journal.finish(self.game_id)
        self.bots.applied(action)
        self.last_activity = self.clock()
        if self.on_applied is not None:
            self.on_applied(action, events)
        self.recent_events = events
        self.table.after(events)
        self.last_words = self.game.face.describe(self.match.state, action, events)
        self.log.say(self.last_words)
        self.table.reconcile(self.clock())
        return events

    def hand_touched(self, place=None, seat=None):
        """A person's hand (the web table's or the terminal's virtual hands) moved a piece at
        `place` (None: unknown): the virtual players leave it to them there until an action
        is applied. `seat`: the web seat whose hand it was (a refusal there is theirs)."""
        now = self.clock()
        self.bots.touched(now, place)
        self.last_activity = now
        if seat is not None and place is not None:
            self.web_hand_at(place, seat)

    def web_hand_at(self, place, seat):
        """The web seat `seat`'s hand acts at `place` (a move's cell it puts down on, too):
        a refusal the table makes there soon is that seat's (refused_at)."""
        self.touched_by[tuple(place)] = (seat, self.clock())

    def apply_from_table(self, action):
        """An action the table showed (tiles, a seat button): applied unless it is not the
        move a bot asked for (then it is put back and the bot asked again)."""
        if self.bots.showed(action):
            self.apply(action)

    # ------------------------------------------------------------ lights and views

    def scenes(self):
        if self.attract:
            return self.demo.scenes(self.layout.cells)
        scenes = self.game.scenes(self.match.state, self.table, self.layout.cells,
                                  self.recent_events, self.bots.request)
        now = self.clock()
        for cell, until in list(self.flash.items()):
            if until < now:
                del self.flash[cell]
            else:
                scenes[cell] = lights.all_edges(lights.blink(lights.MISMATCH, 200))
        return scenes

    def view(self, seat=None):
        """What a viewer (a spectator, or `seat`) may see of the table, JSON-able."""
        out = self.game.table_view(self.match, self.table, self.mismatches, seat)
        out["waiting_for"] = self.waiting_for()
        out["paused"] = self.paused
        out["attract"] = self.attract
        return out

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
        dice_tile = self.layout.dice_tile
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
        for (index, slot), seat in sorted(self.layout.seat_of.items()):
            # The seats' card readers: scenes keyed ("seat", n), dark unless a game lights them.
            key = ("seat", seat)
            scene = scenes.get(key, lights.DARK_CELL)
            if self.sent_scenes.get(key) != scene:
                per_tile.setdefault(index, []).append((slot, scene, key))
        for index in sorted(per_tile):
            uid = self.uid_of.get(index)
            tile = self.link.tiles.get(uid) if uid else None
            if tile is None or not tile.online:
                continue
            entries = [(slot, lights.encode(scene)) for slot, scene, _ in per_tile[index]]
            try:
                self.link.set_scene(uid, entries)
            except ValueError as e:
                self.log.say("lighting tile %s failed: %s" % (uid, e), staff=True)
                continue
            self.led_scenes_sent += 1
            for _slot, scene, cell in per_tile[index]:
                self.sent_scenes[cell] = scene

    # ------------------------------------------------------------ the loop

    def handle(self, ev):
        """One round of the loop without the bots: an event (or None: time passing) read,
        what the interpreter said said, a tile wait checked, the action shown applied. In the
        attract mode a tap on the table starts the next game."""
        if self.attract and ev is not None and ev.kind == "gesture" and \
                ev.tile in self.tile_index and self.new_game is not None:
            self.play_requested("Someone tapped the table")
            return
        action = self.on_event(ev) if ev is not None else self.table.tick(self.clock())
        self._table_said()
        self._check_offline()
        if action is not None and not self.attract:
            self.apply_from_table(action)
        self._count_mismatch()

    async def run(self, max_actions=None, deadline_s=None):
        """Play until the game ends (or max_actions, or deadline); returns a summary."""
        started = self.clock()
        await self.settle()
        self.table.reconcile(self.clock())
        self.light()
        self.first_light = dict((uid, set(self.link.pending_commands(uid)))
                                for uid in self.uid_of.values())
        self.first_light_at = self.clock()
        self._lit_waiting = (sum(len(c) for c in self.first_light.values()),
                             self.first_light_at)
        self.max_actions = max_actions
        try:
            while self.attract or self.match.engine.status(self.match.state) == "ongoing":
                if max_actions is not None and len(self.match.actions) >= max_actions:
                    break
                if deadline_s is not None and self.clock() - started > deadline_s * 1000:
                    self.log.say("stopped: the game took longer than %d s" % deadline_s)
                    break
                await self._round(resync=True)
        finally:
            self.max_actions = None
        self.light()
        return self.summary()

    async def _round(self, resync):
        """Read one event (or let the idle tick pass), let the bots and hands act, light."""
        try:
            ev = await self.link.next_event(timeout=self.idle_tick_s)
        except asyncio.TimeoutError:
            ev = None
        applied = len(self.match.actions)
        self.handle(ev)
        if len(self.match.actions) != applied:
            # The result lit at once (journalled already): the bots think and the hands
            # tidy after a person sees it, not before (tools/bench_lit.py).
            self.light()
        self._attract_tick()
        if self.max_actions is None or len(self.match.actions) < self.max_actions:
            # (A bot's button move is applied in drive: not one past --max-actions.)
            await self.bots.drive()
        if resync:
            self._resync_if_stuck()
        self.light()
        self._notify()

    async def tend(self):
        """One round of a table whose game has ended (the web table stays open for the next):
        the tiles are still read and lit, and the virtual players still tidy up, so a
        captured card lifted after the last action stops being a "lift it off" on every
        page. No action can be applied (the engine has none) and no snapshot is asked."""
        await self._round(resync=False)

    resync_after_ms = 60000     # no action for this long: the tiles are asked for snapshots

    def _resync_if_stuck(self):
        """A game that has not moved for a minute asks every tile for its snapshot, and
        again each minute while it stays so: if what the host believes lies on the table
        has drifted from what the tiles sense (a report lost on the way), the game would
        otherwise wait for ever for a change nobody will make. A player thinking for long
        costs a snapshot a minute, nothing else."""
        now = self.clock()
        moved = len(self.match.actions)
        if self._resync_mark is None or moved != self._resync_mark[0]:
            self._resync_mark = (moved, now, 0)     # (actions, since, snapshots asked)
        elif now - self._resync_mark[1] >= self.resync_after_ms:
            # Said once a quiet spell (a demo or a pause may last hours), not each minute.
            if self._resync_mark[2] == 0:
                self.log.say("no action for %d s: the tiles are asked what lies on them, "
                             "and again each minute until the game moves"
                             % (self.resync_after_ms // 1000), staff=True)
            self._resync_mark = (moved, now, self._resync_mark[2] + 1)
            self.link.resync()

    lit_patience_ms = 3000  # a tile that acknowledges none of its first lights for so long

    def table_lit(self):
        """True once the tiles acknowledged the commands that carried the game's first
        scenes (`run`: after a restart, the table as it stood), or once `lit_patience_ms`
        went by without any of them acknowledged (a tile that does not answer must not stop
        the game; the link goes on resending). A tile that acknowledges some is working
        through them (a table of slow tiles, a noisy line): the patience starts again. Until
        then the bots do not move: nobody sees a bot's move on a table not yet lit as the
        game stands. Commands sent after the first light do not count (while a game plays
        on, a tile may never be without one in flight). `on_lit` is called once, when the
        acknowledgements are in, before any bot moves."""
        if self.first_light is None:
            return True
        now = self.clock()
        waiting = sum(len(self.first_light[uid].intersection(self.link.pending_commands(uid)))
                      for uid in self.first_light)
        if waiting:
            if waiting < self._lit_waiting[0]:
                self._lit_waiting = (waiting, now)      # (commands unacknowledged, since)
            if now - self._lit_waiting[1] < self.lit_patience_ms:
                return False
            self.log.say("a tile acknowledged none of its lights for %d s; the game goes on"
                         % (self.lit_patience_ms // 1000), staff=True)
        elif self.on_lit is not None:
            self.on_lit()
        self.first_light = None
        return True

    settle_quiet_ms = 600   # the tiles' first reports are in once none came for this long
    settle_max_ms = 5000

    async def settle(self):
        """Read the tiles' first reports (their snapshots, the cards just set out) before the
        table is judged: a table still reporting what lies on it is not a mismatch ("Alice
        was lifted" before anyone touched anything). An action the table shows meanwhile
        is applied as usual."""
        self.settling = True
        try:
            start = quiet_since = self.clock()
            while self.clock() - quiet_since < self.settle_quiet_ms and \
                    self.clock() - start < self.settle_max_ms:
                if self._table_shows_game():
                    break   # every tile is in and reports what the game has: no more to wait
                try:
                    ev = await self.link.next_event(timeout=self.settle_quiet_ms / 4000)
                except asyncio.TimeoutError:
                    continue
                if ev.kind in ("tags", "dice", "online"):
                    quiet_since = self.clock()
                action = self.on_event(ev)
                self._table_said()
                if action is not None and not self.attract:
                    self.apply_from_table(action)
        finally:
            self.settling = False

    def _table_shows_game(self):
        """Every tile of the layout online and the cells holding what the game has, with
        nothing the interpreter finds wrong: no report still to come can make a mismatch
        that is not one (a card still on its way is awaited; a stray one is a mismatch)."""
        return all(uid in self.link.tiles and self.link.tiles[uid].online
                   for uid in self.uid_of.values()) and not self.table.mismatches and \
            self.table.observed == self.table.expected() and not self.table.problems

    def _notify(self):
        if self.on_change is None:
            return
        mark = (len(self.match.actions), tuple(m.message for m in self.mismatches),
                self.attract, self.demo.moves if self.demo is not None else None)
        if mark != self._last_mark:
            self._last_mark = mark
            self.on_change()

    def _count_mismatch(self):
        """Count the table's disagreements, and log the ones that last (`shown_mismatches`):
        a game over, what is left lying is tidied quietly."""
        self._track_mismatches()
        mismatched = bool(self.mismatches)
        if mismatched and not self._was_mismatched:
            self.mismatch_count += 1
            self._logged_mismatches = set()
        self._was_mismatched = mismatched
        if self.match.engine.status(self.match.state) != "ongoing":
            return
        for m in self.shown_mismatches():
            if m.message not in self._logged_mismatches:
                self._logged_mismatches.add(m.message)
                self.log.say("Mismatch: " + m.message)

    def result_words(self):
        """The game's end in words for the terminal's last line ("Game over: the Heroes win,
        10 plot points to 9, after 75 actions."), or where a game not over stopped."""
        s = self.match.state
        n = len(self.match.actions)
        if self.match.engine.status(s) == "ongoing":
            return ("The game stopped after %d actions, before its end: the same command goes "
                    "on with it." % n)
        return "%s, after %d actions." % (self.game.face.ending(s).rstrip("."), n)

    def summary(self):
        s = self.match.state
        result = self.match.engine.result(s)
        tiles = {}
        for uid in sorted(self.link.tiles):
            tile = self.link.tiles[uid]
            tiles[uid] = {"online": tile.online, "health": tile.health}
        return {"game": self.match.game, "winner": result.get("winner"),
                "scores": result.get("scores"),
                "turns": self.game.turns(self.match),
                "actions": len(self.match.actions), "led_scenes_sent": self.led_scenes_sent,
                "mismatches": self.mismatch_count, "tiles": tiles,
                "waiting_for": self.waiting_for(),
                "status": result.get("status")}
