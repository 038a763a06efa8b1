"""The journal: an append-only SQLite log of every game's seed, setup and accepted actions.

WAL mode with synchronous=FULL: an action is on disk before the table lights
its result, so a pulled plug loses nothing that was shown. Snapshots of the
canonical state every `snapshot_every` actions let a restart check that the
replayed game is the one that was played. Restarting reads the newest
unfinished game back as a Match (replaying its record).
"""

import sqlite3
import time

from shared_rules import canon
from shared_rules.engine import Match

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    record TEXT NOT NULL,         -- canonical JSON: seed, options, setup, cards
    session TEXT NOT NULL,        -- canonical JSON: seats, bots, layout, as the host ran it
    created REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


class JournalError(RuntimeError):
    pass


class Journal:
    snapshot_every = 25

    def __init__(self, path):
        self.path = path
        try:
            self.db = sqlite3.connect(path, isolation_level=None, timeout=10)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise JournalError("the journal %s cannot be used: %s" % (path, e)) from None

    def close(self):
        self.db.close()

    def start_game(self, match, session):
        rec = match.record()
        record = {k: rec[k] for k in ("schema", "game", "seed", "options", "setup", "cards")
                  if k in rec}
        cur = self.db.execute(
            "INSERT INTO games (game, record, session, created) VALUES (?, ?, ?, ?)",
            (match.game, canon.dumps(record), canon.dumps(session), time.time()))
        game_id = cur.lastrowid
        for seq, action in enumerate(match.actions):
            self._insert(game_id, seq, action)
        return game_id

    def _insert(self, game_id, seq, action):
        self.db.execute("INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
                        (game_id, seq, canon.dumps(action), time.time()))

    def append(self, game_id, seq, action, match=None):
        """Record accepted action number `seq` (0-based); a snapshot every few actions."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self._insert(game_id, seq, action)
            if match is not None and (seq + 1) % self.snapshot_every == 0:
                self.db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state) "
                                "VALUES (?, ?, ?)",
                                (game_id, seq, canon.dumps(match.engine.to_dict(match.state))))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def remove_last(self, game_id, seq):
        """An undo: the action is taken back from the record too."""
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("DELETE FROM actions WHERE game_id = ? AND seq = ?", (game_id, seq))
        self.db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq >= ?", (game_id, seq))
        self.db.execute("COMMIT")

    def finish(self, game_id):
        self.db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game_id,))

    def latest_unfinished(self, game=None):
        sql = "SELECT id FROM games WHERE finished = 0"
        args = ()
        if game is not None:
            sql += " AND game = ?"
            args = (game,)
        row = self.db.execute(sql + " ORDER BY id DESC LIMIT 1", args).fetchone()
        return row[0] if row else None

    def load(self, game_id):
        """(Match, session dict) of a journalled game, replayed and checked against snapshots."""
        row = self.db.execute("SELECT record, session FROM games WHERE id = ?",
                              (game_id,)).fetchone()
        if row is None:
            raise JournalError("no game %r in the journal %s" % (game_id, self.path))
        record = canon.loads(row[0])
        record["actions"] = [canon.loads(a) for (a,) in self.db.execute(
            "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]
        snaps = dict(self.db.execute("SELECT seq, state FROM snapshots WHERE game_id = ?",
                                     (game_id,)).fetchall())
        match = Match(record["game"], record.get("options"), record.get("seed", 0),
                      record.get("setup"), record.get("cards"))
        for seq, action in enumerate(record["actions"]):
            match.apply(action)
            if seq in snaps and canon.dumps(match.engine.to_dict(match.state)) != snaps[seq]:
                raise JournalError("game %d: replaying action %d does not give the state that "
                                   "was journalled (the rules changed?)" % (game_id, seq))
        return match, canon.loads(row[1])
