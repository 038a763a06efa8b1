"""Damaged and foreign journals are refused with a sentence that says what to do, and are
never changed nor silently restarted; a sound journal (even one a kill -9 left with its
write-ahead log) is used as it is. Real SQLite files from real games."""

import os
import random
import shutil
import sqlite3
import subprocess
import sys

import pytest

from host import journal as journals
from host.journal import Journal, JournalError
from mpy import REPO
from shared_rules import bots, canon, storybook
from shared_rules.engine import Match

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def play(journal, seed, actions, finish=False):
    """A Storybook game through the bots, journalled action by action as the session does."""
    match = Match("storybook", {"mode": "physical"}, seed)
    game_id = journal.start_game(match, {"bots": {"hero": "greedy"}, "seed": seed})
    seq = 0
    while storybook.status(match.state) == "ongoing" and (finish or seq < actions):
        action = bots.choose("greedy", storybook, match.state, match.state.turn, seed)
        match.apply(action)
        journal.append(game_id, seq, action, match)
        seq += 1
    if finish:
        journal.finish(game_id)
    return game_id, match


@pytest.fixture(scope="module")
def sound(tmp_path_factory):
    """A journal with a finished game and an unfinished one of 30 actions (a snapshot)."""
    folder = tmp_path_factory.mktemp("sound")
    path = str(folder / "journal.db")
    journal = Journal(path)
    _, finished = play(journal, 5, 0, finish=True)
    game_id, match = play(journal, 7, 30)
    journal.close()
    assert not os.path.exists(path + "-wal")   # closed cleanly: all in the main file
    return path, game_id, match, len(finished.actions) + len(match.actions)


def contents(path):
    """Every game of a journal as canonical text: what must survive untouched."""
    db = sqlite3.connect(path)
    try:
        return canon.dumps([
            [list(g), [a for (a,) in db.execute(
                "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (g[0],))]]
            for g in db.execute("SELECT id, game, record, session, finished FROM games "
                                "ORDER BY id")])
    finally:
        db.close()


def files(folder):
    """Every file of the folder with its bytes: nothing may appear, vanish or change."""
    out = {}
    for name in sorted(os.listdir(folder)):
        full = os.path.join(folder, name)
        out[name] = open(full, "rb").read() if os.path.isfile(full) else "folder"
    return out


def assert_refused(path, *words):
    """Opening the journal is refused with the path and what to do, changing no file."""
    folder = os.path.dirname(path)
    before = files(folder)
    with pytest.raises(JournalError) as err:
        Journal(path)
    message = str(err.value)
    assert path in message, message
    for word in words:
        assert word in message, message
    assert "Traceback" not in message
    assert files(folder) == before, message
    return err.value


def test_a_sound_journal_is_reported_and_resumes(sound, tmp_path):
    path, game_id, match, actions = sound
    report = journals.check(path)
    assert (report.games, report.unfinished, report.actions) == (2, 1, actions)
    again = Journal(path)
    assert again.latest_unfinished("storybook") == game_id
    resumed, _session = again.load(game_id)
    assert resumed.save() == match.save()
    again.close()


def test_a_flipped_bit_anywhere_is_refused_or_changes_nothing_that_matters(sound, tmp_path):
    """Bit flips all over a real journal: each is refused (journal untouched), or the journal
    reads back the very same games (a flip in a time stamp or in unused space)."""
    original, game_id, match, _ = sound
    data = open(original, "rb").read()
    expected = contents(original)
    rng = random.Random(12)
    offsets = list(range(0, 100)) + sorted(rng.sample(range(100, len(data)), 600))
    refused = accepted = 0
    for n, offset in enumerate(offsets):
        folder = tmp_path / ("flip%d" % n)
        folder.mkdir()
        path = str(folder / "journal.db")
        flipped = bytearray(data)
        flipped[offset] ^= 1 << rng.randrange(8)
        open(path, "wb").write(bytes(flipped))
        before = files(str(folder))
        try:
            # The check `fairytable journal check` makes (every game replayed) and the one
            # `fairytable run` makes (finished games vouched for by their checksums) agree.
            full = journals.check(path)
        except JournalError as e:
            full = e
        try:
            journal = Journal(path, journals.check(path, replay_finished=False))
            assert not isinstance(full, JournalError), (offset, str(full))
        except JournalError as e:
            assert isinstance(full, JournalError) and str(full) == str(e), (offset, str(e))
            refused += 1
            assert path in str(e) and files(str(folder)) == before, (offset, str(e))
            assert e.kind != "damaged" or "move it aside (mv " in str(e), (offset, str(e))
            shutil.rmtree(folder)
            continue
        accepted += 1
        try:
            assert journal.latest_unfinished("storybook") == game_id, offset
            assert journal.load(game_id)[0].save() == match.save(), offset
        finally:
            journal.close()
        assert contents(path) == expected, offset
        shutil.rmtree(folder)
    assert refused > 100 and accepted > 0, (refused, accepted)


def make(tmp_path, sound, name="journal.db"):
    path = str(tmp_path / name)
    shutil.copyfile(sound[0], path)
    return path


def sql(path, *statements):
    db = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        db.execute(statement)
    db.close()


def test_a_dropped_table_is_refused_not_restarted(sound, tmp_path):
    for table in ("actions", "games", "snapshots"):
        path = make(tmp_path, sound, table + ".db")
        sql(path, "DROP TABLE %s" % table)
        error = assert_refused(path, "the table %s is missing" % table, "move it aside")
        assert error.kind == "damaged"


def test_a_changed_action_is_refused_naming_the_game_and_action(sound, tmp_path):
    path = make(tmp_path, sound)
    game_id = sound[1]
    sql(path, "UPDATE actions SET action = '{\"type\":\"end_turn\"}' "
              "WHERE game_id = %d AND seq = 3" % game_id)
    assert_refused(path, "action 3 of game %d" % game_id, "checksum")
    # Even with a matching checksum an action that does not replay is refused.
    text = '{"type":"fly"}'
    sql(path, "UPDATE actions SET action = '%s', crc = %d WHERE game_id = %d AND seq = 3"
        % (text, journals.row_crc(game_id, 3, text), game_id))
    assert_refused(path, "action 3 of game %d does not replay" % game_id)


def test_bad_utf8_and_wrong_types_are_findings_not_crashes(sound, tmp_path):
    path = make(tmp_path, sound, "utf8.db")
    sql(path, "UPDATE actions SET action = CAST(x'7b22ff22' AS TEXT) WHERE seq = 2")
    assert_refused(path, "action 2 of game", "not valid UTF-8")
    path = make(tmp_path, sound, "blob.db")
    sql(path, "UPDATE games SET record = x'00' WHERE id = 1")
    assert_refused(path, "game 1's record is stored as blob")
    path = make(tmp_path, sound, "gap.db")
    sql(path, "DELETE FROM actions WHERE seq = 4")
    assert_refused(path, "has no action 4")


def test_a_foreign_database_is_refused_as_not_a_journal(tmp_path):
    path = str(tmp_path / "other.db")
    sql(path, "CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
    error = assert_refused(path, "not a Fairytable journal")
    assert error.kind == "foreign"
    path = str(tmp_path / "app.db")
    sql(path, "PRAGMA application_id = 1234", "CREATE TABLE t (x)")
    assert_refused(path, "another program's")
    path = str(tmp_path / "text.db")
    open(path, "w").write("# my notes\n" * 50)
    assert_refused(path, "not an SQLite database")


def test_a_newer_journal_asks_for_an_update(sound, tmp_path):
    path = make(tmp_path, sound)
    sql(path, "PRAGMA user_version = 9")
    error = assert_refused(path, "newer Fairytable", "update fairytable")
    assert error.kind == "newer"


def test_garbage_pages_truncation_and_empty_files(sound, tmp_path):
    data = open(sound[0], "rb").read()
    page = int.from_bytes(data[16:18], "big")
    cases = {
        "garbage.db": data[:page] + bytes(random.Random(3).randrange(256) for _ in range(page))
        + data[2 * page:],
        "truncated.db": data[:len(data) - page],
        "halfpage.db": data[:len(data) - 100],
        "header.db": data[:60],
        "empty.db": b"",
        "zeros.db": bytes(len(data)),
    }
    for name, content in cases.items():
        path = str(tmp_path / name)
        open(path, "wb").write(content)
        error = assert_refused(path)
        assert error.kind in ("damaged", "foreign"), (name, str(error))


def test_the_path_cannot_hold_a_journal(tmp_path):
    folder = tmp_path / "a_folder.db"
    folder.mkdir()
    assert_refused(str(folder), "is a folder")
    plain = tmp_path / "plain"
    plain.write_text("a file, not a folder")
    path = str(plain / "journal.db")
    before = files(str(tmp_path))
    with pytest.raises(JournalError) as err:
        Journal(path)
    assert path in str(err.value) and "is not a folder" in str(err.value)
    assert files(str(tmp_path)) == before


def test_write_ahead_logs_left_over(sound, tmp_path):
    # What a kill -9 leaves: the last actions only in the write-ahead log. They are read back.
    live = str(tmp_path / "live.db")
    journal = Journal(live)
    game_id, match = play(journal, 9, 12)
    folder = tmp_path / "killed"
    folder.mkdir()
    path = str(folder / "journal.db")
    shutil.copyfile(live, path)
    shutil.copyfile(live + "-wal", path + "-wal")
    journal.close()
    assert os.path.getsize(path + "-wal") > 0
    resumed = Journal(path)
    assert resumed.load(game_id)[0].save() == match.save()
    resumed.close()
    # A log whose journal is gone: refused, so the actions in it are not lost.
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    shutil.copyfile(live, str(lonely / "journal.db-wal"))
    assert_refused(str(lonely / "journal.db"), "write-ahead log", "mv ")
    # A log that is garbage: refused.
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    path = str(garbage / "journal.db")
    shutil.copyfile(sound[0], path)
    open(path + "-wal", "wb").write(bytes(range(256)) * 20)
    assert_refused(path, "write-ahead log", "damaged")


def test_a_journal_from_before_the_checksums_is_upgraded(tmp_path):
    """Journals written before version 1 (no checksums, no marks) are read and upgraded."""
    path = str(tmp_path / "old.db")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, record TEXT NOT NULL,
            session TEXT NOT NULL, created REAL NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE actions (game_id INTEGER NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL, action TEXT NOT NULL, at REAL NOT NULL,
            PRIMARY KEY (game_id, seq));
        CREATE TABLE snapshots (game_id INTEGER NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL, state TEXT NOT NULL, PRIMARY KEY (game_id, seq));""")
    match = Match("storybook", {"mode": "physical"}, 4)
    record = {k: v for k, v in match.record().items() if k != "actions"}
    db.execute("INSERT INTO games VALUES (1, 'storybook', ?, '{}', 0, 0)",
               (canon.dumps(record),))
    for seq in range(5):
        action = bots.choose("greedy", storybook, match.state, match.state.turn, 4)
        match.apply(action)
        db.execute("INSERT INTO actions VALUES (1, ?, ?, 0)", (seq, canon.dumps(action)))
    db.close()
    assert journals.check(path).version == 0
    journal = Journal(path)
    assert journal.load(1)[0].save() == match.save()
    journal.close()
    assert journals.check(path).version == journals.VERSION


def damage(kind, path, sound):
    """Make the journal at `path` damaged (or not a journal) in one way; returns words the
    refusal must hold."""
    if kind == "dropped":
        shutil.copyfile(sound[0], path)
        sql(path, "DROP TABLE actions")
        return "the table actions is missing"
    if kind == "empty":
        open(path, "wb").close()
        return "is empty"
    if kind == "folder":
        os.mkdir(path)
        return "is a folder"
    if kind == "notes":
        open(path, "w").write("not a database\n" * 100)
        return "not an SQLite database"
    if kind == "lonely_log":
        journal = Journal(path + ".live")
        play(journal, 3, 5)
        shutil.copyfile(path + ".live-wal", path + "-wal")
        journal.close()
        os.remove(path + ".live")
        return "write-ahead log"
    if kind == "bad_utf8":
        shutil.copyfile(sound[0], path)
        sql(path, "UPDATE actions SET action = CAST(x'7b22ff22' AS TEXT) WHERE seq = 2")
        return "not valid UTF-8"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["dropped", "empty", "folder", "notes", "lonely_log",
                                  "bad_utf8"])
def test_fairytable_run_refuses_a_damaged_journal_with_exit_2(sound, tmp_path, kind):
    folder = tmp_path / "journal"
    folder.mkdir()
    path = str(folder / "journal.db")
    words = damage(kind, path, sound)
    before = files(str(folder))
    home = tmp_path / "home"
    proc = subprocess.run([FAIRYTABLE, "run", "--headless", "--bots", "2", "--json",
                           "--journal", path], capture_output=True, cwd=REPO, timeout=120,
                          env=dict(os.environ, FAIRYTABLE_HOME=str(home)))
    stderr = proc.stderr.decode()
    assert proc.returncode == 2, stderr
    assert stderr.startswith("fairytable run: the ") and path in stderr and words in stderr
    assert "Traceback" not in stderr and proc.stdout == b""
    assert kind == "folder" or "move it aside (mv " in stderr, stderr
    assert files(str(folder)) == before
    assert not home.exists()      # no key, no tags.db either


def test_fairytable_journal_check(sound, tmp_path):
    path = make(tmp_path, sound)
    proc = subprocess.run([FAIRYTABLE, "journal", "check", path], capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert ("the journal %s is sound: 2 games (1 unfinished)" % path).encode() in proc.stdout
    sql(path, "UPDATE games SET record = '{}' WHERE id = 2")
    before = files(str(tmp_path))
    proc = subprocess.run([FAIRYTABLE, "journal", "check", path], capture_output=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stdout
    assert b"game 2 does not match its checksum" in proc.stdout, proc.stdout
    assert files(str(tmp_path)) == before
    proc = subprocess.run([FAIRYTABLE, "journal", "check", str(tmp_path / "none.db")],
                          capture_output=True, timeout=120)
    assert proc.returncode == 2 and b"no journal at" in proc.stderr
    proc = subprocess.run([FAIRYTABLE, "journal"], capture_output=True, timeout=120)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
