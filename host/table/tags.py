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
import sqlite3

from shared_rules import catalog, tag_identity, tag_mac
from shared_rules.tag_mac import KINDS

PAWN_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")
DICE = 3


class TagRefused(ValueError):
    """A tag the table will not accept: `code` is forged, unknown_item or not_enrolled."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def known_items():
    """Every item a tag can stand for, by name: cards of each game, pawns, die faces."""
    items = ["storybook:" + c["id"] for c in catalog.load("storybook_cards.json")["cards"]]
    try:
        royale = catalog.load("royale_cards.json")
    except OSError:
        royale = {"cards": []}
    items += ["royale:" + c["id"] for c in royale.get("cards", [])]
    items += ["pawn:" + colour for colour in PAWN_COLOURS]
    items += ["die:%d:%d" % (d, face) for d in range(1, DICE + 1) for face in range(1, 7)]
    return sorted(items)


def item_code(name):
    return (binascii.crc32(name.encode()) & 0xFFFFFF).to_bytes(3, "big")


def kind_of(name):
    prefix = name.split(":")[0]
    return "card" if prefix in ("storybook", "royale") else prefix


def load_key(path, create=True):
    """The installation key (32 bytes) at `path`; made once, then copied to every table."""
    if os.path.exists(path):
        with open(path, "rb") as f:
            key = f.read()
        if len(key) < 16:
            raise ValueError("the installation key %s is too short (%d bytes)" % (path, len(key)))
        return key
    if not create:
        raise FileNotFoundError("no installation key at %s" % path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    key = os.urandom(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


def default_key_path():
    return os.environ.get("FAIRYTABLE_KEY") or os.path.join(
        os.path.expanduser("~"), ".local", "share", "fairytable", "installation.key")


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
        self.db = sqlite3.connect(db_path, isolation_level=None)
        self.db.execute("CREATE TABLE IF NOT EXISTS uid_registry ("
                        "uid TEXT PRIMARY KEY, item TEXT NOT NULL)")

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
