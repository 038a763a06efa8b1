"""Bots in the empty seats of a game on the table: asked for moves, patient, tidy.

A bot's move is lit for a person to carry out (or carried out by the virtual hands)
and applied only once the tiles show it. A move not seen within `patience_ms` (counted
from the ask, or from the table's last progress on it: a duel read round by round) is
given up: the hands tidy the table and the bot is asked again. The time comes from the
clock the session was given (host/clock.py).
"""

import asyncio

from host.virtual.hands import HandsSlipped


class BotsAtTable:
    patience_ms = 5000   # a bot's move not seen on the table by then is asked again
    tidy_gap_ms = 500    # let the tiles report before the virtual hands tidy again
    # A person's hand at work (a card lifted from the Market, the rest of the trade still to
    # come) is left alone this long before the virtual players put the table back.
    person_patience_ms = 60000

    def __init__(self, session, seats, seed, hands, clock):
        self.session = session
        self.seats = dict(seats or {})   # seat -> its bot's level (host/bot_levels.py)
        self.seed = seed
        self.hands = hands
        self.clock = clock
        self.request = None       # the action a bot asked a human to carry out
        self.request_at = 0
        self._tidied_at = 0
        self._hands_task = None
        self.touched_at = None    # a person's hand last moved a piece (None: since an action)
        self.touched_places = set()     # ... where, since the last action (None: unknown)
        # Bots at a human pace: with a person at the table (`people`) or someone watching
        # (`watched()`, e.g. a browser on the web table) a bot waits `pace_ms` before each
        # move, so people can follow; with nobody there it plays at once.
        self.pace_ms = 0
        self.people = False
        self.watched = lambda: False
        self._ready_since = None  # when the bot that moves next could have moved
        self._paused_since = None  # when staff paused the game (the bots wait meanwhile)

    # What the virtual hands may use while they carry out a move (host/virtual/hands.py).

    @property
    def table(self):
        return self.session.table

    @property
    def step(self):
        """The actions applied so far: the state's place in the game."""
        return len(self.session.match.actions)

    def press(self, seat, name):
        return self.session.button(seat, name)

    # ------------------------------------------------------------ the request

    def ask(self, action):
        """The bot's move the table lights now (None: nothing asked); the interpreter knows."""
        self.request = action
        self.session.table.expect_bot_move(action, self.clock())

    def showed(self, action):
        """The table showed `action`: True if it may be applied (it is the bot's move, or
        no move is asked); a move that is not the bot's is refused and asked again."""
        if self.request is None:
            return True
        if self.session.game.carries_out(action, self.request):
            return True
        state = self.session.match.state
        engine = self.session.match.engine
        who = engine.actor(state, action)
        if who not in self.seats and who != engine.actor(state, self.request):
            # A person's move at another seat while a bot's hands work (a game where
            # several seats act at once): theirs to make; the bot's move stays asked.
            return True
        face = self.session.game.face
        self.session.log.say("The table shows %s, but the bot asked for %s: put it back."
                             % (face.request_words(state, action),
                                face.request_words(state, self.request)))
        self.request_at = -self.patience_ms  # tidy up and ask again
        return False

    def finishing(self, action):
        """Is `action` the bot's move the virtual hands are carrying out? Asked before a
        pause (none is asked during one), it is finished and applied even while paused: a
        hand does not stop half-way, and a move left on the table unapplied would be a
        card the game does not know."""
        return self.hands is not None and self.request is not None and \
            self.session.game.carries_out(action, self.request)

    def touched(self, now, place=None):
        """A person's hand moved a piece on the table at `place` (the web table's or the
        terminal's virtual hands, for a person; None: where is not known): a move of
        theirs may be under way there."""
        self.touched_at = now
        self.touched_places.add(place)

    def spare(self, now):
        """The places tidying leaves alone: where a person at work moved pieces."""
        return frozenset(self.touched_places) if self.person_at_work(now) else frozenset()

    def tidy_is_ours(self, now):
        """May the virtual players tidy now? Not while a person is at work on the places
        the table has wrong; yes where none of them is one a person touched (a bot's new
        token to put on the map while a person lays a card on their reader), and whenever
        no person is at work."""
        spare = self.spare(now)
        if not spare:
            return True
        if None in spare:
            return False
        return any(set(m.cells) - spare for m in self.session.table.mismatches)

    def person_at_work(self, now):
        """A person moved a piece since the last action, not long ago: what lies out of place
        may be their move under way, not the virtual players' to put right."""
        return self.touched_at is not None and now - self.touched_at < self.person_patience_ms

    def applied(self, action):
        """An action was applied: the bot's move is done if it was that, and a person's
        move under way is over."""
        self.touched_at = None
        self.touched_places.clear()
        if self.request is not None and self.session.game.carries_out(action, self.request):
            self.ask(None)

    # ------------------------------------------------------------ each round of the loop

    def seat_to_move(self):
        """The bot that should act now, or None."""
        session = self.session
        s = session.match.state
        if s.status != "ongoing" or session.mismatches or session.table.busy():
            return None
        for seat in session.game.actors(s):
            if seat in self.seats:
                return seat
        return None

    def action_of(self, seat, state=None):
        """The move the bot in `seat` makes now (in `state`, default the game's), as the
        table will show it; None: nothing."""
        match = self.session.match
        action = self.session.game.bot_action(self.seats[seat], match.engine,
                                              match.state if state is None else state, seat,
                                              self.seed)
        return None if action is None else self.session.game.normal_bot_action(action)

    async def think(self, seat):
        """The bot's move, as `action_of`. A hard bot searches for up to a quarter of a
        second: it thinks in a worker thread, on a copy of the state, while the table's loop
        goes on reading the tiles and serving the pages. A move thought for a state that
        changed meanwhile (a person's move, a pause) is dropped: None, asked again."""
        if self.seats[seat] != "hard":
            return self.action_of(seat)
        session = self.session
        step = self.step
        state = session.match.engine.copy(session.match.state)
        action = await asyncio.get_running_loop().run_in_executor(
            None, self.action_of, seat, state)
        if self.step != step or session.paused or session.attract or \
                self.request is not None or self.seat_to_move() != seat:
            return None
        return action

    async def drive(self):
        """Ask a bot, give up on a move not seen in time, or let the hands tidy."""
        session = self.session
        now = self.clock()
        if session.attract:
            return
        if session.paused:
            # Paused by staff: no bot asks, the hands neither move nor tidy, and a move
            # asked before the pause does not run out of patience meanwhile.
            if self._paused_since is None:
                self._paused_since = now
            self._ready_since = None
            return
        if self._paused_since is not None:
            self.request_at += now - self._paused_since   # the pause does not count
            self._paused_since = None
        if not session.table_lit():
            return      # the table not yet lit as the game stands: no bot moves on it
        # A change the table moves along (a duel read round by round) keeps the bot waiting.
        last_seen = max(self.request_at, session.table.progress_at)
        # On a noisy line the tiles' events come late: wait for them as much longer.
        patience = self.patience_ms + int(10000 * session.link.delivery_s())
        if self.request is not None and now - last_seen > patience:
            session.log.say("the table did not show the bot's move; asking again")
            self.ask(None)
            await self._tidy(now)
            return
        if self.hands is not None and session.table.mismatches and self.request is None \
                and now - self._tidied_at > self.tidy_gap_ms and self.tidy_is_ours(now):
            # The virtual players tidy up: captured cards lifted off, a dropped card put back,
            # what the game dealt laid out (a new contract); never where a person's move is
            # under way.
            await self._tidy(now)
            return
        seat = self.seat_to_move()
        if seat is None or self.request is not None:
            self._ready_since = None
            return
        if self.pace_ms > 0 and (self.people or self.watched()):
            if self._ready_since is None:
                self._ready_since = now
            if now - self._ready_since < self.pace_ms:
                return
        self._ready_since = None
        action = await self.think(seat)
        if action is None:
            return
        if session.game.is_button_action(action):
            session.apply(action)
            return
        self.ask(action)
        self.request_at = now
        session.log.say("%s's bot: %s." % (
            session.game.face.seat_name(session.match.state, seat),
            session.game.face.request_words(session.match.state, action)))
        if self.hands is not None:
            session.light()
            self._hands_task = asyncio.ensure_future(self._perform(action))

    async def _perform(self, action):
        try:
            await self.hands.perform(self.session.match.state, action, self)
        except HandsSlipped as e:
            self.session.log.say("the move slipped (%s): it will be asked again" % e)

    async def _tidy(self, now):
        if self.hands is None or (self._hands_task is not None and not self._hands_task.done()):
            return
        self._tidied_at = now
        try:
            await self.hands.tidy(self.session.match.state, self.session.table,
                                  self.spare(now))
        except HandsSlipped as e:
            self.session.log.say("tidying slipped (%s)" % e)

