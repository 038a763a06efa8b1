"""The journal: an append-only SQLite log of every game's seed, setup and accepted actions.

WAL mode with synchronous=FULL: an action is on disk before the table lights
its result, so a pulled plug loses nothing that was shown. Snapshots of the
canonical state every `snapshot_every` actions let a restart check that the
replayed game is the one that was played. Restarting reads the newest
unfinished game back as a Match (replaying its record).

A journal is checked before it is used (`check`, and `fairytable journal
check PATH`): SQLite's own integrity check, the file's application id and
version, the tables and their columns, every row's types and CRC-32, every
text as canonical JSON, and every game replayed through the rules. A journal
that fails is refused with what is wrong and what to do, and is never
changed or silently restarted: the game in it may be the one the players
are in the middle of. The check reads a copy of the file (and its
write-ahead log), so even SQLite's recovery never touches a refused journal.
"""

import argparse
import os
import shlex
import shutil
import sqlite3
import sys
import tempfile
import time
import zlib

from shared_rules import canon, games
from shared_rules.engine import Match

# "FtJl": marks the SQLite file as a Fairytable journal (PRAGMA application_id).
APPLICATION_ID = 0x46744A6C
# PRAGMA user_version. 0: the first journals, without row checksums (still read, and
# upgraded on first use); 1: CRC-32 of every row.
VERSION = 1

SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    record TEXT NOT NULL,         -- canonical JSON: seed, options, setup, cards
    session TEXT NOT NULL,        -- canonical JSON: seats, bots, layout, as the host ran it
    created REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    crc INTEGER NOT NULL          -- row_crc(game, record, session, finished)
);
CREATE TABLE actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    crc INTEGER NOT NULL,         -- row_crc(game_id, seq, action)
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE snapshots (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    crc INTEGER NOT NULL,         -- row_crc(game_id, seq, state)
    PRIMARY KEY (game_id, seq)
);
"""

# (name, declared type, not null, primary key position) of each column, per version.
_COLUMNS_V0 = {
    "games": [("id", "INTEGER", 0, 1), ("game", "TEXT", 1, 0), ("record", "TEXT", 1, 0),
              ("session", "TEXT", 1, 0), ("created", "REAL", 1, 0),
              ("finished", "INTEGER", 1, 0)],
    "actions": [("game_id", "INTEGER", 1, 1), ("seq", "INTEGER", 1, 2),
                ("action", "TEXT", 1, 0), ("at", "REAL", 1, 0)],
    "snapshots": [("game_id", "INTEGER", 1, 1), ("seq", "INTEGER", 1, 2),
                  ("state", "TEXT", 1, 0)],
}
COLUMNS = {table: cols + [("crc", "INTEGER", 1, 0)] for table, cols in _COLUMNS_V0.items()}
TABLES = ("games", "actions", "snapshots")


def row_crc(*fields):
    """CRC-32 of a row's meaningful fields: a flipped bit in a text SQLite cannot see."""
    return zlib.crc32("\x1f".join(str(f) for f in fields).encode("utf-8"))


class JournalError(RuntimeError):
    """The journal cannot be used; the message says what is wrong and what to do.

    `kind`: "damaged" (what was written is broken), "foreign" (not a journal of
    this program), "newer" (a later Fairytable's journal), "unusable" (the path
    cannot hold a journal: a folder, no permission) or "missing" (a game id).
    """

    def __init__(self, message, kind="damaged", path=None):
        super().__init__(message)
        self.kind = kind
        self.path = path


class Problem(Exception):
    """What `check` found wrong, before it is put into a sentence with the path."""

    def __init__(self, what, kind="damaged"):
        super().__init__(what)
        self.what = what
        self.kind = kind


def _refusal(path, problem):
    """The sentence a user reads: the path, what is wrong, what to do."""
    quoted = shlex.quote(path)
    wal = path + "-wal"
    moves = ["mv %s %s" % (shlex.quote(p), shlex.quote(p + ".damaged"))
             for p in (path, wal) if os.path.lexists(p)]
    move = " && ".join(moves) or "mv %s %s" % (quoted, shlex.quote(path + ".damaged"))
    if problem.kind == "foreign":
        text = ("the file %s is not a Fairytable journal: %s. Give another --journal, or move "
                "it aside (%s) and run again to start a new journal" % (path, problem.what,
                                                                         move))
    elif problem.kind == "newer":
        text = ("the journal %s %s: update fairytable to use it, or give another --journal"
                % (path, problem.what))
    elif problem.kind == "unusable":
        text = "the journal %s cannot be used: %s" % (path, problem.what)
    else:
        text = ("the journal %s is damaged: %s. Nothing was changed. Keep it for the game it "
                "holds, move it aside (%s) and run again to start a new journal"
                % (path, problem.what, move))
    return JournalError(text, problem.kind, path)


class Report:
    """What a sound journal holds: counts, and the game of each kind that a run resumes."""

    def __init__(self, version, games, unfinished, actions, resumable=None, replayed=None):
        self.version = version
        self.games = games
        self.unfinished = unfinished
        self.actions = actions
        # game name -> (id, record) of its newest unfinished game: what `fairytable run
        # --game NAME` resumes (as Journal.latest_unfinished says), known before the journal
        # is opened for writing, so that a run refused for it changes nothing.
        self.resumable = resumable or {}
        # game id -> (Match, session dict, record text, session text) of each unfinished
        # game as the check replayed it: a resume goes on from there (Journal.resume)
        # instead of replaying it again.
        self.replayed = replayed or {}

    def resumable_game(self, game):
        """(id, record: seed, options, setup) of the game of `game` a run resumes, or None."""
        return self.resumable.get(game)

    def __str__(self):
        return "%d game%s (%d unfinished), %d action%s, journal version %d" % (
            self.games, "" if self.games == 1 else "s", self.unfinished, self.actions,
            "" if self.actions == 1 else "s", self.version)


def check(path, writable=True, replay_finished=True):
    """Check the journal at `path` without changing it: a Report, or None when there is
    no journal there yet (a new one may be made). Raises JournalError saying what is
    wrong and what to do. `writable`: also check that the journal can be written.
    `replay_finished`: replay finished games too, not only the ones that can resume (their
    rows are checked either way; replaying is what grows with the years of games)."""
    try:
        return _check(path, writable, replay_finished)
    except Problem as problem:
        raise _refusal(path, problem) from None


def _check(path, writable, replay_finished):
    wal = path + "-wal"
    if not os.path.lexists(path):
        if os.path.lexists(wal) and (not os.path.isfile(wal) or os.path.getsize(wal) > 0):
            raise Problem("it is missing, but its write-ahead log %s is there (the rest of a "
                          "journal that was moved or deleted)" % wal)
        parent = os.path.dirname(os.path.abspath(path))
        while not os.path.exists(parent) and os.path.dirname(parent) != parent:
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            raise Problem("%s is not a folder" % parent, "unusable")
        return None
    if os.path.isdir(path):
        raise Problem("it is a folder, not a file: give the path of a journal file "
                      "(e.g. %s)" % os.path.join(path, "journal.db"), "unusable")
    if not os.path.isfile(path):
        raise Problem("it is not a regular file (a device, a pipe or a broken link?)",
                      "unusable")
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        raise Problem("it cannot be read (%s)" % e.strerror, "unusable") from None
    if writable:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.access(path, os.W_OK) or not os.access(parent, os.W_OK):
            raise Problem("it cannot be written (no permission on the file or on %s)" % parent,
                          "unusable")
    size = os.path.getsize(path)
    if size == 0:
        raise Problem("it is empty (0 bytes): it holds no journal, and a journal is never "
                      "left empty")
    if not head.startswith(SQLITE_MAGIC):
        if size < len(SQLITE_MAGIC) or SQLITE_MAGIC.startswith(head):
            raise Problem("it is cut short (%d bytes)" % size)
        raise Problem("it is not an SQLite database (it starts with %r)" % head[:16], "foreign")
    if len(head) < 100:
        raise Problem("it is cut short (%d bytes, less than an SQLite header)" % size)
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise Problem("its header is damaged (page size %d)" % page_size)
    # With a write-ahead log left over, a checkpoint may have been cut off half way: the log
    # still holds every page, SQLite puts them back, and only its own check can tell.
    logged = os.path.isfile(wal) and os.path.getsize(wal) > 0
    pages = int.from_bytes(head[28:32], "big")
    if not logged and pages and head[24:28] == head[92:96] and size < pages * page_size:
        raise Problem("it is cut short: its header says %d pages of %d bytes, the file holds "
                      "%d bytes" % (pages, page_size, size))
    if not logged and size % page_size:
        raise Problem("it is cut short or padded: %d bytes is not a whole number of %d-byte "
                      "pages" % (size, page_size))
    _check_wal_header(wal)
    with tempfile.TemporaryDirectory(prefix="fairytable-journal-check-") as scratch:
        # SQLite may recover the write-ahead log into the file as it opens it: it works on a
        # copy, so a journal that is refused is exactly as it was.
        copy = os.path.join(scratch, "journal.db")
        try:
            shutil.copyfile(path, copy)
            if os.path.exists(wal):
                shutil.copyfile(wal, copy + "-wal")
        except OSError as e:
            raise Problem("it cannot be read (%s)" % e.strerror, "unusable") from None
        db = sqlite3.connect(copy, isolation_level=None)
        try:
            db.text_factory = bytes    # bad UTF-8 is a finding, not a crash
            return _check_contents(db, replay_finished)
        except sqlite3.Error as e:
            raise Problem("SQLite cannot read it (%s)" % e) from None
        except UnicodeDecodeError:
            # SQLite's own message quoted the damaged bytes, and they are not even text.
            raise Problem("SQLite cannot read it (its schema is damaged)") from None
        finally:
            db.close()


def _wal_checksum(data, big_endian):
    """SQLite's WAL checksum (https://www.sqlite.org/fileformat.html, "Checksum Algorithm")."""
    s0 = s1 = 0
    order = "big" if big_endian else "little"
    for i in range(0, len(data), 8):
        s0 = (s0 + int.from_bytes(data[i:i + 4], order) + s1) & 0xFFFFFFFF
        s1 = (s1 + int.from_bytes(data[i + 4:i + 8], order) + s0) & 0xFFFFFFFF
    return s0, s1


def _check_wal_header(wal):
    """A write-ahead log left over (after a crash or a kill) holds the last actions and is
    read back; one whose header is not SQLite's is damaged, not something to ignore."""
    if not os.path.lexists(wal):
        return
    if not os.path.isfile(wal):
        raise Problem("its write-ahead log %s is not a file" % wal)
    try:
        with open(wal, "rb") as f:
            head = f.read(32)
    except OSError as e:
        raise Problem("its write-ahead log %s cannot be read (%s)" % (wal, e.strerror),
                      "unusable") from None
    if not head:
        return
    magic = int.from_bytes(head[:4], "big")
    if len(head) < 32 or magic not in (0x377F0682, 0x377F0683) or \
            _wal_checksum(head[:24], magic & 1) != (int.from_bytes(head[24:28], "big"),
                                                     int.from_bytes(head[28:32], "big")):
        raise Problem("its write-ahead log %s is damaged (its header is not SQLite's)" % wal)


def _check_contents(db, replay_finished):
    result = [row[0] for row in db.execute("PRAGMA integrity_check(20)")]
    if result != [b"ok"]:
        found = " ".join(r.decode("utf-8", "replace") for r in result[:3])
        found = " ".join(found.replace("*** in database main ***", "").split())
        raise Problem("SQLite's integrity check finds: %s" % found)
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = sorted(name.decode("utf-8", "replace") for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    if app_id not in (0, APPLICATION_ID):
        raise Problem("it is another program's SQLite database (application id 0x%08x)"
                      % (app_id & 0xFFFFFFFF), "foreign")
    if app_id == APPLICATION_ID and version > VERSION:
        raise Problem("was written by a newer Fairytable (journal version %d; this one reads "
                      "up to %d)" % (version, VERSION), "newer")
    if not set(tables) & set(TABLES):
        raise Problem("it is an SQLite database without the journal's tables (it holds %s)"
                      % (", ".join(tables) or "no tables"), "foreign")
    extra = [t for t in tables if t not in TABLES]
    if extra:
        raise Problem("it holds tables a journal does not have (%s)" % ", ".join(extra),
                      "foreign")
    if app_id == APPLICATION_ID and version == VERSION:
        expected = COLUMNS
    elif app_id == 0 and version == 0:
        expected = _COLUMNS_V0
    else:
        raise Problem("its version marks are not a journal's (application id 0x%08x, "
                      "version %d)" % (app_id & 0xFFFFFFFF, version))
    for table in TABLES:
        if table not in tables:
            continue
        found = [(name.decode("utf-8", "replace"), kind.decode("utf-8", "replace").upper(),
                  notnull, pk) for (_cid, name, kind, notnull, _default, pk)
                 in db.execute("PRAGMA table_info(%s)" % table)]
        if found != expected[table]:
            # Marked as a journal: its tables were ours, so a difference is damage.
            raise Problem("the table %s has the columns %s, not a journal's %s" % (
                table, ", ".join(c[0] for c in found), ", ".join(c[0] for c in expected[table])),
                "damaged" if app_id == APPLICATION_ID else "foreign")
    for table in TABLES:
        if table not in tables:
            raise Problem("the table %s is missing (dropped?): the games in it cannot be "
                          "replayed without it" % table)
    crcs = version >= 1
    return _check_rows(db, crcs, max(version, 0), replay_finished)


def _text(value, kind, where):
    """A TEXT column's value as str: the right type and valid UTF-8."""
    if kind != b"text":
        raise Problem("%s is stored as %s, not text" % (where, kind.decode()))
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Problem("%s is not valid UTF-8 (byte %d)" % (where, e.start)) from None


def _json(text, where):
    """A journalled JSON text as its value; it must be canonical, as the journal wrote it."""
    try:
        value = canon.loads(text)
    except (ValueError, RecursionError) as e:
        raise Problem("%s is not valid JSON (%s)" % (where, e)) from None
    try:
        again = canon.dumps(value)
    except (TypeError, RecursionError):
        again = None
    if again != text:
        raise Problem("%s is not the canonical JSON the journal writes" % where)
    return value


def _integer(value, kind, where):
    if kind != b"integer":
        raise Problem("%s is stored as %s, not a whole number" % (where, kind.decode()))
    return value


def _check_crc(stored, kind, fields, where):
    if _integer(stored, kind, where + "'s checksum") != row_crc(*fields):
        raise Problem("%s does not match its checksum (a changed bit)" % where)


def _check_rows(db, crcs, version, replay_finished):
    crc = ", crc, typeof(crc)" if crcs else ""
    records = {}
    sessions = {}
    finished = {}
    for row in db.execute("SELECT id, game, typeof(game), record, typeof(record), session, "
                          "typeof(session), typeof(created), finished, typeof(finished)%s "
                          "FROM games ORDER BY id" % crc):
        game_id = row[0]
        where = "game %d" % game_id
        game = _text(row[1], row[2], where + "'s game")
        record_text = _text(row[3], row[4], where + "'s record")
        session_text = _text(row[5], row[6], where + "'s session")
        if row[7] not in (b"real", b"integer"):
            raise Problem("%s's start time is stored as %s" % (where, row[7].decode()))
        done = _integer(row[8], row[9], where + "'s finished mark")
        if done not in (0, 1):
            raise Problem("%s's finished mark is %r, not 0 or 1" % (where, done))
        if crcs:
            _check_crc(row[10], row[11], (game, record_text, session_text, done), where)
        if game not in games.names():
            raise Problem("%s is of an unknown game %r" % (where, game[:40]))
        record = _json(record_text, where + "'s record")
        if not isinstance(record, dict) or record.get("game") != game:
            raise Problem("%s's record is not a record of a %s game" % (where, game))
        session = _json(session_text, where + "'s session")
        if not isinstance(session, dict):
            raise Problem("%s's session is not an object" % where)
        records[game_id] = record
        sessions[game_id] = (session, record_text, session_text)
        finished[game_id] = done
    actions = {game_id: [] for game_id in records}
    count = 0
    for row in db.execute("SELECT game_id, typeof(game_id), seq, typeof(seq), action, "
                          "typeof(action), typeof(at)%s FROM actions ORDER BY game_id, seq"
                          % crc):
        game_id = _integer(row[0], row[1], "an action's game")
        seq = _integer(row[2], row[3], "an action of game %d's number" % game_id)
        where = "action %d of game %d" % (seq, game_id)
        if game_id not in records:
            raise Problem("%s belongs to no game in the journal" % where)
        if seq != len(actions[game_id]):
            raise Problem("game %d has no action %d (its actions jump from %d to %d)"
                          % (game_id, len(actions[game_id]), len(actions[game_id]) - 1, seq))
        text = _text(row[4], row[5], where)
        if row[6] not in (b"real", b"integer"):
            raise Problem("%s's time is stored as %s" % (where, row[6].decode()))
        count += 1
        if crcs:
            _check_crc(row[7], row[8], (game_id, seq, text), where)
            if finished[game_id] and not replay_finished:
                # Its checksum vouches for what was written; it is not replayed, so not read.
                actions[game_id].append(None)
                continue
        action = _json(text, where)
        if not isinstance(action, dict):
            raise Problem("%s is not an action object" % where)
        actions[game_id].append(action)
    snapshots = {game_id: {} for game_id in records}
    for row in db.execute("SELECT game_id, typeof(game_id), seq, typeof(seq), state, "
                          "typeof(state)%s FROM snapshots" % crc):
        game_id = _integer(row[0], row[1], "a snapshot's game")
        seq = _integer(row[2], row[3], "a snapshot of game %d's number" % game_id)
        where = "the snapshot after action %d of game %d" % (seq, game_id)
        if game_id not in records:
            raise Problem("%s belongs to no game in the journal" % where)
        text = _text(row[4], row[5], where)
        if crcs:
            _check_crc(row[6], row[7], (game_id, seq, text), where)
        snapshots[game_id][seq] = text
    replayed = {}
    for game_id in sorted(records):
        if finished[game_id] and not replay_finished:
            continue
        match = _replay(game_id, records[game_id], actions[game_id], snapshots[game_id])
        if not finished[game_id]:
            replayed[game_id] = (match,) + sessions[game_id]
    unfinished = sum(1 for done in finished.values() if not done)
    resumable = {}
    for game_id in sorted(records):     # the newest of each kind last
        if not finished[game_id]:
            resumable[records[game_id]["game"]] = (game_id, records[game_id])
    return Report(version, len(records), unfinished, count, resumable, replayed)


def _replay(game_id, record, actions, snapshots):
    """Every journalled action replays through the rules to the journalled snapshots."""
    try:
        match = Match(record["game"], record.get("options"), record.get("seed", 0),
                      record.get("setup"), record.get("cards"))
    except Exception as e:  # any error of the rules on damaged data is a finding
        raise Problem("game %d's record does not start a game (%s)" % (game_id, e)) from None
    for seq, action in enumerate(actions):
        try:
            match.apply(action)
        except Exception as e:
            raise Problem("action %d of game %d does not replay (%s)" % (seq, game_id, e)) \
                from None
        if seq in snapshots and canon.dumps(match.engine.to_dict(match.state)) != \
                snapshots[seq]:
            raise Problem("replaying game %d to action %d does not give the state that was "
                          "journalled (the journal was changed, or the rules were)"
                          % (game_id, seq))
    late = [seq for seq in snapshots if seq >= len(actions)]
    if late:
        raise Problem("game %d has a snapshot after action %d, but only %d actions"
                      % (game_id, min(late), len(actions)))
    return match


class Journal:
    """The journal at `path`, checked first (see `check`); a new one is made when there is
    none. Raises JournalError, having changed nothing, when it cannot be used."""

    snapshot_every = 25

    def __init__(self, path, report=None):
        self.path = path
        if report is None:
            report = check(path)
        if report is None:
            self._create(path)
        try:
            self.db = sqlite3.connect(path, isolation_level=None, timeout=10)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            # The journal is written at its end and read at a resume: SQLite's default
            # page cache (2 MB a connection) only grows with the journal, for nothing. A
            # table left running keeps its memory flat with 256 KB (tools/soak.py).
            self.db.execute("PRAGMA cache_size=-256")
            if report is not None and report.version == 0:
                self._upgrade_from_v0()
        except sqlite3.DatabaseError as e:
            raise JournalError("the journal %s cannot be used: %s" % (path, e),
                               "unusable", path) from None

    @staticmethod
    def _create(path):
        """A new journal appears whole or not at all: it is made beside, then renamed."""
        parent = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(parent, exist_ok=True)
            fd, fresh = tempfile.mkstemp(prefix=".journal-new-", suffix=".db", dir=parent)
            os.close(fd)
        except OSError as e:
            raise JournalError("the journal %s cannot be made: %s (%s)" % (
                path, e.strerror, e.filename or parent), "unusable", path) from None
        try:
            db = sqlite3.connect(fresh, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript("BEGIN;" + SCHEMA + "PRAGMA application_id = %d; "
                                 "PRAGMA user_version = %d; COMMIT;" % (APPLICATION_ID,
                                                                        VERSION))
            finally:
                db.close()
            os.replace(fresh, path)
        except (OSError, sqlite3.DatabaseError) as e:
            raise JournalError("the journal %s cannot be made: %s" % (path, e),
                               "unusable", path) from None
        finally:
            for leftover in (fresh, fresh + "-wal", fresh + "-shm"):
                if os.path.exists(leftover):
                    os.remove(leftover)

    def _upgrade_from_v0(self):
        """A journal from before the row checksums gets them (it was checked just now)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for table in TABLES:
                db.execute("ALTER TABLE %s ADD COLUMN crc INTEGER NOT NULL DEFAULT 0" % table)
            for game_id, game, record, session, finished in db.execute(
                    "SELECT id, game, record, session, finished FROM games").fetchall():
                db.execute("UPDATE games SET crc = ? WHERE id = ?",
                           (row_crc(game, record, session, finished), game_id))
            for table, field in (("actions", "action"), ("snapshots", "state")):
                for game_id, seq, text in db.execute(
                        "SELECT game_id, seq, %s FROM %s" % (field, table)).fetchall():
                    db.execute("UPDATE %s SET crc = ? WHERE game_id = ? AND seq = ?" % table,
                               (row_crc(game_id, seq, text), game_id, seq))
            db.execute("PRAGMA application_id = %d" % APPLICATION_ID)
            db.execute("PRAGMA user_version = %d" % VERSION)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self):
        self.db.close()

    def start_game(self, match, session):
        rec = match.record()
        record = canon.dumps({k: rec[k] for k in ("schema", "game", "seed", "options", "setup",
                                                  "cards") if k in rec})
        session = canon.dumps(session)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cur = self.db.execute(
                "INSERT INTO games (game, record, session, created, crc) VALUES (?, ?, ?, ?, ?)",
                (match.game, record, session, time.time(),
                 row_crc(match.game, record, session, 0)))
            game_id = cur.lastrowid
            for seq, action in enumerate(match.actions):
                self._insert(game_id, seq, action)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return game_id

    def _insert(self, game_id, seq, action):
        text = canon.dumps(action)
        self.db.execute("INSERT INTO actions (game_id, seq, action, at, crc) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (game_id, seq, text, time.time(), row_crc(game_id, seq, text)))

    def append(self, game_id, seq, action, match=None):
        """Record accepted action number `seq` (0-based); a snapshot every few actions."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self._insert(game_id, seq, action)
            if match is not None and (seq + 1) % self.snapshot_every == 0:
                state = canon.dumps(match.engine.to_dict(match.state))
                self.db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state, crc) "
                                "VALUES (?, ?, ?, ?)",
                                (game_id, seq, state, row_crc(game_id, seq, state)))
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
        self.db.execute("BEGIN IMMEDIATE")
        try:
            row = self.db.execute("SELECT game, record, session FROM games WHERE id = ?",
                                  (game_id,)).fetchone()
            self.db.execute("UPDATE games SET finished = 1, crc = ? WHERE id = ?",
                            (row_crc(row[0], row[1], row[2], 1), game_id))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def latest_unfinished(self, game=None):
        sql = "SELECT id FROM games WHERE finished = 0"
        args = ()
        if game is not None:
            sql += " AND game = ?"
            args = (game,)
        row = self.db.execute(sql + " ORDER BY id DESC LIMIT 1", args).fetchone()
        return row[0] if row else None

    def resume(self, game_id, report):
        """(Match, session dict) of the journalled game `game_id` to go on with: the game as
        `report`, the check of this journal just now, replayed it, once the journal is seen
        to hold what was checked (the game's record and session, its number of actions, its
        last action); else replayed again (`load`)."""
        checked = report.replayed.get(game_id) if report is not None else None
        if checked is None:
            return self.load(game_id)
        match, session, record, session_text = checked
        row = self.db.execute("SELECT record, session, (SELECT COUNT(*) FROM actions WHERE "
                              "game_id = ?), (SELECT action FROM actions WHERE game_id = ? "
                              "ORDER BY seq DESC LIMIT 1) FROM games WHERE id = ?",
                              (game_id, game_id, game_id)).fetchone()
        last = canon.dumps(match.actions[-1]) if match.actions else None
        if row is None or (row[0], row[1], row[2], row[3]) != (
                record, session_text, len(match.actions), last):
            return self.load(game_id)   # written since the check: replayed from the file
        return match, session

    def load(self, game_id):
        """(Match, session dict) of a journalled game, replayed and checked against snapshots."""
        row = self.db.execute("SELECT record, session FROM games WHERE id = ?",
                              (game_id,)).fetchone()
        if row is None:
            raise JournalError("no game %r in the journal %s" % (game_id, self.path),
                               "missing", self.path)
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
                                   "was journalled (the rules changed?)" % (game_id, seq),
                                   "damaged", self.path)
        return match, canon.loads(row[1])


def main(argv=None):
    """`fairytable journal check PATH`: 0 sound, 1 damaged or not a journal, 2 bad usage."""
    p = argparse.ArgumentParser(prog="fairytable journal",
                                description="check a journal without changing it")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="say what is wrong with a journal, or that it is sound") \
        .add_argument("path", help="the journal file (e.g. ~/.local/share/fairytable/journal.db)")
    args = p.parse_args(argv)
    if not os.path.lexists(args.path) and not os.path.exists(args.path + "-wal"):
        print("fairytable journal: there is no journal at %s" % args.path, file=sys.stderr)
        return 2
    try:
        report = check(args.path, writable=False)
    except JournalError as e:
        print(e)
        return 1
    print("the journal %s is sound: %s" % (args.path, report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
