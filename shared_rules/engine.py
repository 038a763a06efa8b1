"""A game in progress: one engine state plus its record (seed, setup, actions) and undo.

`Match` is what the host session and the scenario runner hold. The record is
the source of truth: replaying seed + options + setup + actions rebuilds the
same state, byte for byte, on CPython and MicroPython. Undo restores an
explicit snapshot taken before the last action, and is refused when that
action revealed hidden information or took a chance outcome.
"""

from shared_rules import canon
from shared_rules import games
from shared_rules.errors import IllegalAction, ScenarioError


class UndoRefused(IllegalAction):
    pass


class Match:
    def __init__(self, game, options=None, seed=0, setup=None, cards=None):
        self.engine = games.get(game)
        self.game = game
        self.options = options or {}
        self.seed = seed
        self.setup = setup
        self.cards = cards
        self.state = self.engine.new_game(self.options, seed, setup, cards)
        self.actions = []
        # Snapshots for undo: (state before, action). Cleared by an action that cannot be undone.
        self._undo = []
        self._undo_blocked = "there is nothing to undo yet"

    def legal_actions(self):
        return self.engine.legal_actions(self.state)

    def validate(self, action):
        return self.engine.validate(self.state, action)

    def apply(self, action):
        """Apply one action; returns its events. IllegalAction leaves everything unchanged."""
        before = self.engine.copy(self.state)
        events = self.engine.apply(self.state, action)
        self.actions.append(action)
        blocker = self.engine.undo_blocker(action, events)
        if blocker is None:
            self._undo.append((before, action))
        else:
            self._undo = []
            self._undo_blocked = blocker
        return events

    def can_undo(self):
        return bool(self._undo)

    def undo(self):
        """Take back the last action (a staff correction); returns it."""
        if not self._undo:
            raise UndoRefused("undo_refused", "Cannot undo: " + self._undo_blocked + ".")
        before, action = self._undo.pop()
        self.state = before
        self.actions.pop()
        if not self._undo:
            self._undo_blocked = "the action before it cannot be undone"
        return action

    def view(self, seat=None):
        return self.engine.view(self.state, seat)

    def record(self):
        """The game as data: enough to replay it anywhere."""
        rec = {"schema": canon.SCHEMA_VERSION, "game": self.game, "seed": self.seed,
               "options": self.options, "actions": self.actions}
        if self.setup is not None:
            rec["setup"] = self.setup
        if self.cards is not None:
            rec["cards"] = self.cards
        return rec

    def save(self):
        """Canonical JSON of the record and the current state."""
        return canon.dumps({"record": self.record(), "state": self.engine.to_dict(self.state)})

    @classmethod
    def load(cls, text):
        """Rebuild from save(): replays the record and checks it reaches the saved state."""
        try:
            data = canon.loads(text)
        except ValueError as e:
            raise ScenarioError("save", "not valid JSON (%s)" % e)
        if not isinstance(data, dict) or "record" not in data:
            raise ScenarioError("save", "missing the game record")
        match = cls.replay(data["record"])
        if "state" in data and canon.dumps(match.engine.to_dict(match.state)) != canon.dumps(
                data["state"]):
            raise ScenarioError("save.state", "does not match the replayed game record")
        return match

    @classmethod
    def replay(cls, record):
        rec = record
        if rec.get("schema", canon.SCHEMA_VERSION) != canon.SCHEMA_VERSION:
            raise ScenarioError("schema", "unsupported schema version %r" % (rec.get("schema"),))
        match = cls(rec["game"], rec.get("options"), rec.get("seed", 0), rec.get("setup"),
                    rec.get("cards"))
        for action in rec.get("actions", []):
            match.apply(action)
        return match
