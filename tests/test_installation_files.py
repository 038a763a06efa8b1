"""The installation's files: one data folder for the key, the journal and the tag registry,
the same for `fairytable run` and `fairytable enroll`; a bad key file or tag registry is
refused with a sentence naming it, exit status 2, and nothing on disk changes."""

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from host import installation
from host.journal import Journal
from host.table import tags
from mpy import REPO

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def snapshot(folder):
    out = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            full = os.path.join(root, name)
            if os.path.islink(full):
                out[full] = "link to " + os.readlink(full)
            elif os.path.isfile(full):
                out[full] = open(full, "rb").read()
            else:
                out[full] = "folder"
    return out


def test_one_data_folder_for_everything(monkeypatch, tmp_path):
    monkeypatch.setenv("FAIRYTABLE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("FAIRYTABLE_KEY", raising=False)
    home = str(tmp_path / "home")
    assert installation.key_path() == os.path.join(home, "installation.key")
    assert installation.journal_path() == os.path.join(home, "journal.db")
    assert installation.registry_path() == os.path.join(home, "tags.db")
    assert tags.default_key_path() == installation.key_path()
    monkeypatch.setenv("FAIRYTABLE_KEY", "/elsewhere/key")
    assert installation.key_path() == "/elsewhere/key"
    assert installation.key_path("/given") == "/given"
    assert installation.journal_path("/j.db") == "/j.db"
    monkeypatch.delenv("FAIRYTABLE_HOME")
    assert installation.data_folder() == os.path.join(os.path.expanduser("~"), ".local",
                                                      "share", "fairytable")


def bad_keys(tmp_path):
    """name -> path of a key file that is not an installation key."""
    cases = {}

    def write(name, data):
        path = tmp_path / name
        path.write_bytes(data)
        cases[name] = str(path)

    write("empty", b"")
    write("short", b"k" * 31)
    write("long", b"k" * 33)
    write("hex", os.urandom(32).hex().encode() + b"\n")
    write("big", b"x" * 100000)
    folder = tmp_path / "folder"
    folder.mkdir()
    cases["folder"] = str(folder)
    os.symlink(str(tmp_path / "nowhere"), str(tmp_path / "dangling"))
    cases["dangling"] = str(tmp_path / "dangling")
    os.mkfifo(str(tmp_path / "fifo"))
    cases["fifo"] = str(tmp_path / "fifo")
    return cases


def test_a_bad_key_file_is_refused_naming_it(tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir()
    for name, path in bad_keys(keys).items():
        before = snapshot(str(keys))
        with pytest.raises(tags.KeyFileError) as err:
            tags.load_key(path)
        assert str(err.value).startswith("the installation key %s " % path), (name, err.value)
        assert snapshot(str(keys)) == before, name
    assert "xxd -r -p" in str(pytest.raises(tags.KeyFileError, tags.read_key,
                                            str(keys / "hex")).value)
    good = tmp_path / "good.key"
    assert tags.load_key(str(good)) == tags.read_key(str(good)) and len(good.read_bytes()) == 32


def registry_cases(tmp_path):
    """name -> path of a tags.db that is damaged or not a tag registry."""
    cases = {}
    good = str(tmp_path / "good.db")
    registry = tags.Registry(b"k" * 32, good)
    for n in range(200):
        registry.enroll_uid(bytes([4, n, 1, 2, 3, 4, 5]), "pawn:red")
    registry.db.close()
    data = open(good, "rb").read()
    page = int.from_bytes(data[16:18], "big")

    def write(name, content):
        path = str(tmp_path / name)
        open(path, "wb").write(content)
        cases[name] = path

    write("garbage_page.db", data[:page] + os.urandom(page) + data[2 * page:])
    write("text.db", b"uid,item\n04a1,pawn:red\n")
    write("cut.db", data[:50])
    journal = str(tmp_path / "journal.db")
    Journal(journal).close()
    cases["journal.db"] = journal
    for name, statements in {
        "columns.db": ["CREATE TABLE uid_registry (uid TEXT PRIMARY KEY, owner TEXT)"],
        "blob.db": ["CREATE TABLE uid_registry (uid TEXT PRIMARY KEY, item TEXT NOT NULL)",
                    "INSERT INTO uid_registry VALUES (x'0401', 'pawn:red')"],
        "not_hex.db": ["CREATE TABLE uid_registry (uid TEXT PRIMARY KEY, item TEXT NOT NULL)",
                       "INSERT INTO uid_registry VALUES ('zz', 'pawn:red')"],
        "bad_utf8.db": ["CREATE TABLE uid_registry (uid TEXT PRIMARY KEY, item TEXT NOT NULL)",
                        "INSERT INTO uid_registry VALUES ('0401', CAST(x'ff3a' AS TEXT))"],
    }.items():
        path = str(tmp_path / name)
        db = sqlite3.connect(path, isolation_level=None)
        for statement in statements:
            db.execute(statement)
        db.close()
        cases[name] = path
    folder = tmp_path / "folder.db"
    folder.mkdir()
    cases["folder.db"] = str(folder)
    return cases


def test_a_damaged_or_foreign_tag_registry_is_refused_naming_it(tmp_path):
    registries = tmp_path / "registries"
    registries.mkdir()
    for name, path in registry_cases(registries).items():
        before = snapshot(str(registries))
        with pytest.raises(tags.RegistryError) as err:
            tags.Registry(b"k" * 32, path)
        assert str(err.value).startswith("the tag registry %s " % path), (name, err.value)
        assert snapshot(str(registries)) == before, name
    # A sound registry, and a missing one (made), are used.
    assert tags.Registry(b"k" * 32, str(registries / "good.db")).resolve(
        bytes([4, 7, 1, 2, 3, 4, 5]), None) == "pawn:red"
    tags.Registry(b"k" * 32, str(tmp_path / "new" / "tags.db"))
    assert (tmp_path / "new" / "tags.db").exists()


def run(argv, home):
    return subprocess.run([FAIRYTABLE] + argv, capture_output=True, cwd=REPO, timeout=120,
                          env=dict(os.environ, FAIRYTABLE_HOME=str(home)))


def test_run_and_enroll_refuse_a_bad_key_in_the_data_folder_alike(tmp_path):
    """Both commands find the key in the same place, and refuse it the same way."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "installation.key").write_bytes(b"short")
    before = snapshot(str(tmp_path))
    for argv in (["run", "--headless", "--bots", "2", "--json"],
                 ["enroll", "pawn:red", "--reader", "virtual"]):
        proc = run(argv, home)
        stderr = proc.stderr.decode()
        assert proc.returncode == 2, stderr
        assert "the installation key %s is 5 bytes" % (home / "installation.key") in stderr
        assert "Traceback" not in stderr
        assert snapshot(str(tmp_path)) == before, argv    # no journal, no tags.db made


def test_run_and_enroll_refuse_bad_files_given_explicitly(tmp_path):
    home = tmp_path / "home"
    files = tmp_path / "files"
    files.mkdir()
    keys = bad_keys(files)
    registries = registry_cases(files)
    before = snapshot(str(tmp_path))
    for flag, path in (("--key", keys["long"]), ("--key", keys["folder"]),
                       ("--registry", registries["journal.db"]),
                       ("--registry", registries["garbage_page.db"])):
        for argv in (["run", "--headless", "--bots", "2", "--json"],
                     ["enroll", "pawn:red", "--reader", "virtual"]):
            proc = run(argv + [flag, path], home)
            stderr = proc.stderr.decode()
            assert proc.returncode == 2, (argv, flag, stderr)
            assert path in stderr and "Traceback" not in stderr, stderr
            assert snapshot(str(tmp_path)) == before, (argv, flag)
    shutil.rmtree(str(files))


def test_a_uid_enrolled_for_an_unknown_item_is_refused_not_passed_on(tmp_path):
    path = str(tmp_path / "tags.db")
    tags.Registry(b"k" * 32, path).enroll_uid(bytes.fromhex("04aabbcc"), "pawn:red")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE uid_registry SET item = 'storybook:a_card_of_a_newer_deck'")
    db.close()
    with pytest.raises(tags.TagRefused) as err:
        tags.Registry(b"k" * 32, path).resolve(bytes.fromhex("04aabbcc"), None)
    assert err.value.code == "unknown_item" and "a_card_of_a_newer_deck" in err.value.message
