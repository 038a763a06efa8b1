"""The identity inside a tag's record: kind, item code, and the MAC that makes it trustworthy.

A Fairytable identity (what shared_rules/tag_identity.py's record holds) is 12 bytes:

    byte 0      kind: "C" card, "P" pawn, "D" die face (KINDS)
    bytes 1-3   item code (host/table/tags.py: from the item's name)
    bytes 4-11  MAC: HMAC-SHA256(installation key, b"FT1" + UID + bytes 0-3), first 8 bytes

The MAC binds the identity to the tag's UID and to the installation's key:
an edited tag, or an identity copied onto another tag, fails ``check``. Only
the host checks MACs (it holds the key), so tiles do not carry this module;
it runs on MicroPython all the same, as everything in shared_rules does.
"""

import hashlib

KINDS = {"card": b"C", "pawn": b"P", "die": b"D"}
IDENTITY_BYTES = 12     # kind, item code, MAC
MAC_BYTES = 8


def hmac_sha256(key, message):
    """HMAC-SHA256 (RFC 2104) written out: MicroPython has hashlib but no hmac."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    inner = bytearray(64)
    outer = bytearray(64)
    for i in range(64):
        k = key[i] if i < len(key) else 0
        inner[i] = k ^ 0x36
        outer[i] = k ^ 0x5C
    h = hashlib.sha256(inner)
    h.update(message)
    return hashlib.sha256(outer + h.digest()).digest()


def mac(key, uid, body):
    """The 8-byte MAC of identity ``body`` (kind and item code) on tag ``uid``."""
    return hmac_sha256(key, b"FT1" + bytes(uid) + bytes(body))[:MAC_BYTES]


def sign(key, uid, body):
    """The 12-byte identity of ``body`` (a kind of KINDS and a 3-byte item code) for
    tag ``uid``: the body and its MAC."""
    return bytes(body) + mac(key, uid, body)


def check(key, uid, identity):
    """Whether ``identity`` can be trusted on tag ``uid``: "ok", "not_identity" (not 12
    bytes of a known kind) or "forged" (its MAC is not this key's for this UID)."""
    if len(identity) != IDENTITY_BYTES or identity[:1] not in KINDS.values():
        return "not_identity"
    want = mac(key, uid, identity[:4])
    diff = 0
    for i in range(MAC_BYTES):     # every byte compared: the time says nothing
        diff |= want[i] ^ identity[4 + i]
    return "forged" if diff else "ok"
