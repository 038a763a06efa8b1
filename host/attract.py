"""The attract mode's demo game: the table plays a game by itself until someone comes.

A table with no game (staff ended it, the hall sent `attract`, or nobody played for
`--attract-after` minutes) shows a demo: the table's own game, every seat a bot, one move
every `step_ms`, lit on the tiles with the game's own scenes (the cells the demo's state
leaves dark swirl with a dim rainbow, so the table still invites from across the hall) and
shown in words on the web table. The demo lives in memory only: it is never journalled and
no piece on the table moves for it, so it changes nothing a game keeps. A finished demo
stays on show for `rest_ms`, then the next one starts.

The demo's moves are the greedy bots' of the game (the adapter's `bot_action`), seeded from
`seed` and counted on: the same seed shows the same demo games.
"""

from host import lights
from shared_rules.engine import Match

RAINBOW_BELOW = lights.all_edges(lights.rainbow(3000, 60))


class Demo:
    step_ms = 1500     # one demo move this often: slow enough to watch
    rest_ms = 6000     # a finished demo stays on show this long

    def __init__(self, game, game_name, options, seed, clock):
        self.game = game                 # the table's adapter (host/table/contract.py)
        self.game_name = game_name
        self.options = dict(options)
        self.seed = seed
        self.clock = clock
        self.games = 0                   # demo games started
        self.moves = 0                   # demo moves played, over all its games
        self.match = None
        self.table = None
        self._new()

    def _new(self):
        self.match = Match(self.game_name, self.options, self.seed + self.games)
        # An interpreter that never sees a tile: the game's scenes of the demo's state, with
        # nothing on the real table to disagree with.
        self.table = self.game.new_interpreter(self.match, None)
        self.games += 1
        self.events = []
        self.words = None
        self.last_at = self.clock()

    @property
    def finished(self):
        return self.match.engine.status(self.match.state) != "ongoing"

    def tick(self):
        """Play the next demo move when its time has come; True if the demo changed."""
        now = self.clock()
        if self.finished:
            if now - self.last_at < self.rest_ms:
                return False
            self._new()
            return True
        if now - self.last_at < self.step_ms:
            return False
        self.last_at = now
        state = self.match.state
        engine = self.match.engine
        for seat in self.game.actors(state):
            action = self.game.bot_action("greedy", engine, state, seat,
                                          self.seed * 7919 + self.moves)
            if action is None:
                continue
            events = engine.apply(state, action)      # (no undo kept: a demo never goes back)
            self.match.actions.append(action)
            self.moves += 1
            self.events = events
            self.words = self.game.face.describe(state, action, events)
            self.table.after(events)
            return True
        # No seat has a move (a game the bots cannot go on with): the next demo.
        self._new()
        return True

    def scenes(self, cells):
        """The demo's lights: the game's scenes of its state; a dim rainbow where it has
        none."""
        scenes = self.game.scenes(self.match.state, self.table, cells, self.events, None)
        for cell in cells:
            if scenes.get(cell, lights.DARK_CELL) == lights.DARK_CELL:
                scenes[cell] = RAINBOW_BELOW
        return scenes

    def banner(self):
        """What the demo is, in words, for a visitor who has never played."""
        if self.finished:
            return "Demo game over: the table plays another in a moment"
        return "A demo game: the table plays %s by itself" % self.game.title
