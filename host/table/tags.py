"""Tags: what each RFID tag on the table is (a card, a pawn, a die face), and enrollment.

Enrollment writes a 12-byte identity into the tag's user memory (NTAG21x
pages 4..7, in the record of shared_rules/tag_identity.py; shared_rules/tag_mac.py
defines the identity's layout and MAC):

    byte 0      kind: "C" card, "P" pawn, "D" die face
    bytes 1-3   item code: CRC-32 of the item name ("storybook:the_crocodile"), low 24 bits
    bytes 4-11  MAC: HMAC-SHA256(installation key, b"FT1" + UID + bytes 0-3), first 8 bytes

The MAC binds the identity to the tag's UID and to the installation's key,
so every table of the installation knows the deck, and an edited tag or an
identity copied onto another tag is refused. Tags whose memory cannot be
written (read-only) are enrolled in the UID registry (SQLite) instead.
"""

import binascii
import hashlib
import os
import shlex
import shutil
import sqlite3
import tempfile

from host import games, installation
from shared_rules import tag_identity, tag_mac
from shared_rules.tag_mac import KINDS

class TagRefused(ValueError):
    """A tag the table will not accept: `code` is forged, unknown_item or not_enrolled."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def known_items():
    """Every item a tag can stand for, by name: what each game of the registry tags (its
    cards, pawns, die faces, tokens; host/games/<name>/)."""
    items = set()
    for name in games.names():
        items.update(games.table_game(name).tagged_items())
    return sorted(items)


def item_code(name):
    return (binascii.crc32(name.encode()) & 0xFFFFFF).to_bytes(3, "big")


def kind_of(name):
    """The kind of tag an item is written as: a pawn ("pawn:red"), a die face ("die:1:6"),
    else a card (every game's cards, figures and tokens)."""
    prefix = name.split(":")[0]
    return prefix if prefix in ("pawn", "die") else "card"


KEY_BYTES = 32


class KeyFileError(ValueError):
    """The installation key file cannot be used; the message names it and says why."""


class RegistryError(ValueError):
    """The tag registry (tags.db) cannot be used; the message names it and says why."""


def read_key(path):
    """The installation key at `path`, or None when there is none yet. KeyFileError, having
    changed nothing, when the file is not a key: the tags of the installation were enrolled
    with one exact key, and a table with another would refuse them all."""
    if not os.path.lexists(path):
        return None
    what = "the installation key %s" % path
    if os.path.isdir(path):
        raise KeyFileError("%s is a folder, not a key file: give --key FILE (or "
                           "$FAIRYTABLE_KEY) the file itself" % what)
    if not os.path.exists(path):
        raise KeyFileError("%s is a link to nothing: copy the installation's key there"
                           % what)
    if not os.path.isfile(path):
        raise KeyFileError("%s is not a regular file" % what)
    try:
        with open(path, "rb") as f:
            key = f.read(4 * KEY_BYTES + 1)      # a key is small: do not read a big file whole
    except OSError as e:
        raise KeyFileError("%s cannot be read (%s)" % (what, e.strerror)) from None
    if len(key) == KEY_BYTES:
        return key
    copy = ("copy installation.key from the table where the tags were enrolled, byte for "
            "byte (nothing was changed)")
    if not key:
        raise KeyFileError("%s is empty; an installation key is %d bytes: %s"
                           % (what, KEY_BYTES, copy))
    text = key.strip()
    if len(text) == 2 * KEY_BYTES and all(c in b"0123456789abcdefABCDEF" for c in text):
        raise KeyFileError("%s holds the key written out in hex; the key file holds the %d "
                           "bytes themselves: convert it with `xxd -r -p` (nothing was "
                           "changed)" % (what, KEY_BYTES))
    raise KeyFileError("%s is %s bytes; an installation key is %d bytes: %s" % (
        what, len(key) if len(key) <= 4 * KEY_BYTES else "more than %d" % (4 * KEY_BYTES),
        KEY_BYTES, copy))


def make_key(path):
    """A new installation key at `path` (32 random bytes, readable by the owner only)."""
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as e:
        raise KeyFileError("the installation key %s cannot be made (%s)"
                           % (path, e.strerror)) from None
    key = os.urandom(KEY_BYTES)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


def load_key(path, create=True):
    """The installation key (32 bytes) at `path`; made once, then copied to every table."""
    key = read_key(path)
    if key is not None:
        return key
    if not create:
        raise FileNotFoundError("no installation key at %s" % path)
    return make_key(path)


def default_key_path():
    return installation.key_path()


REGISTRY_COLUMNS = [("uid", "TEXT", 0, 1), ("item", "TEXT", 1, 0)]


def check_registry(path):
    """Check the tag registry at `path` without changing it (SQLite reads a copy).
    RegistryError names the file and what is wrong; nothing there yet is fine."""
    if path == ":memory:" or not os.path.lexists(path):
        return
    what = "the tag registry %s" % path
    advice = ("Nothing was changed. Move it aside (mv %s %s.damaged) and enroll the read-only "
              "tags again, or give another --registry" % (shlex.quote(path),
                                                          shlex.quote(path)))
    if os.path.isdir(path):
        raise RegistryError("%s is a folder, not a file: give --registry the file itself"
                            % what)
    if not os.path.isfile(path):
        raise RegistryError("%s is not a regular file" % what)
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise RegistryError("%s cannot be read (%s)" % (what, e.strerror)) from None
    if not head:
        return                  # an empty file is an empty database to SQLite: no tags lost
    if head != b"SQLite format 3\x00":
        raise RegistryError("%s is not an SQLite database. %s" % (what, advice))
    with tempfile.TemporaryDirectory(prefix="fairytable-registry-check-") as scratch:
        copy = os.path.join(scratch, "tags.db")
        try:
            shutil.copyfile(path, copy)
            if os.path.exists(path + "-wal"):
                shutil.copyfile(path + "-wal", copy + "-wal")
        except OSError as e:
            raise RegistryError("%s cannot be read (%s)" % (what, e.strerror)) from None
        db = sqlite3.connect(copy)
        db.text_factory = bytes
        try:
            problem = _registry_problem(db)
        except sqlite3.Error as e:
            problem = "SQLite cannot read it (%s)" % e
        except UnicodeDecodeError:
            problem = "SQLite cannot read it (its schema is damaged)"
        finally:
            db.close()
    if problem:
        raise RegistryError("%s is damaged or not a tag registry: %s. %s"
                            % (what, problem, advice))


def _registry_problem(db):
    """What is wrong with a registry database, in words, or None."""
    result = [r[0] for r in db.execute("PRAGMA integrity_check(5)")]
    if result != [b"ok"]:
        return "SQLite's integrity check finds %s" % b"; ".join(result[:3]).decode(
            "utf-8", "replace")
    tables = sorted(n.decode("utf-8", "replace") for (n,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    if [t for t in tables if t != "uid_registry"]:
        return "it holds the tables %s, not a tag registry's uid_registry" % ", ".join(tables)
    if not tables:
        return None
    columns = [(n.decode("utf-8", "replace"), t.decode("utf-8", "replace").upper(), nn, pk)
               for (_cid, n, t, nn, _d, pk) in db.execute("PRAGMA table_info(uid_registry)")]
    if columns != REGISTRY_COLUMNS:
        return "its uid_registry has the columns %s, not uid, item" % ", ".join(
            c[0] for c in columns)
    for uid, uid_kind, item, item_kind in db.execute(
            "SELECT uid, typeof(uid), item, typeof(item) FROM uid_registry"):
        if uid_kind != b"text" or item_kind != b"text":
            return "a row holds a %s where text belongs" % (
                uid_kind if uid_kind != b"text" else item_kind).decode()
        try:
            uid_text, item_text = uid.decode("ascii"), item.decode("utf-8")
        except UnicodeDecodeError:
            return "a row is not valid text"
        if not uid_text or len(uid_text) % 2 or any(c not in "0123456789abcdef"
                                                     for c in uid_text):
            return "the uid %r is not a tag UID in hex" % uid_text[:40]
        if ":" not in item_text:
            return "tag %s is enrolled as %r, which is no item name" % (uid_text,
                                                                       item_text[:40])
    return None


class Registry:
    """Resolves (uid, identity) to an item name, and enrolls tags."""

    def __init__(self, key, db_path=":memory:", items=None):
        self.key = key
        self.by_code = {}
        for name in items or known_items():
            code = item_code(name)
            if code in self.by_code:
                raise ValueError("items %s and %s share a tag code; rename one"
                                 % (self.by_code[code], name))
            self.by_code[code] = name
        check_registry(db_path)
        try:
            if db_path != ":memory:":
                os.makedirs(os.path.dirname(os.path.abspath(db_path)), exist_ok=True)
            self.db = sqlite3.connect(db_path, isolation_level=None)
            self.db.execute("CREATE TABLE IF NOT EXISTS uid_registry ("
                            "uid TEXT PRIMARY KEY, item TEXT NOT NULL)")
        except (OSError, sqlite3.DatabaseError) as e:
            raise RegistryError("the tag registry %s cannot be used (%s)"
                                % (db_path, getattr(e, "strerror", None) or e)) from None

    def identity_for(self, uid, name):
        """The 12 identity bytes to write into tag `uid` (bytes) for item `name`."""
        if item_code(name) not in self.by_code or self.by_code[item_code(name)] != name:
            raise TagRefused("unknown_item", "%r is not an item of this installation" % name)
        return tag_mac.sign(self.key, uid, KINDS[kind_of(name)] + item_code(name))

    def resolve(self, uid, identity):
        """The item name of a tag, or TagRefused saying why not, in words."""
        uid = bytes(uid)
        if identity:
            identity = bytes(identity)
            if len(identity) == tag_identity.RECORD_BYTES:      # a raw record
                identity = tag_identity.parse(identity) or identity
            trust = tag_mac.check(self.key, uid, identity)
            if trust == "not_identity":
                raise TagRefused("forged", "tag %s holds data that is not a Fairytable "
                                 "identity: remove it or enroll it again" % uid.hex())
            if trust == "forged":
                raise TagRefused("forged", "tag %s has an identity this installation did not "
                                 "write (edited, copied or from another installation): "
                                 "remove it" % uid.hex())
            name = self.by_code.get(identity[1:4])
            if name is None:
                raise TagRefused("unknown_item", "tag %s is enrolled for an item this table "
                                 "does not know (an older or newer deck?)" % uid.hex())
            return name
        row = self.db.execute("SELECT item FROM uid_registry WHERE uid = ?",
                              (uid.hex(),)).fetchone()
        if row is None:
            raise TagRefused("not_enrolled", "tag %s is not enrolled: run `fairytable enroll` "
                             "for it" % uid.hex())
        if item_code(row[0]) not in self.by_code or self.by_code[item_code(row[0])] != row[0]:
            raise TagRefused("unknown_item", "tag %s is enrolled for an item this table does "
                             "not know (%s)" % (uid.hex(), row[0]))
        return row[0]

    def enroll_uid(self, uid, name):
        """The fallback for read-only tags: remember the UID itself."""
        if item_code(name) not in self.by_code:
            raise TagRefused("unknown_item", "%r is not an item of this installation" % name)
        self.db.execute("INSERT OR REPLACE INTO uid_registry (uid, item) VALUES (?, ?)",
                        (bytes(uid).hex(), name))


def virtual_uid(name):
    """A stable 7-byte UID for an item's tag on the virtual table (NXP prefix 0x04)."""
    digest = hashlib.sha256(name.encode()).digest()
    return b"\x04" + digest[:6]
