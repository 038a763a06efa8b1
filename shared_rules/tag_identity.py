"""The tag identity record: the 16 bytes enrollment writes into a tag's pages 4..7.

Both ends use this module: a tile (firmware/main.py) parses the record it
reads from a tag and reports the identity inside; the host frames the
identities it enrolls (host/enroll.py). The record is NTAG21x user memory
pages 4..7 (one READ):

    byte 0..1  b"FT"  magic
    byte 2     record version (1)
    byte 3     identity length n (0..12)
    byte 4..   identity, n bytes (shared_rules/tag_mac.py: a kind, an item code, a MAC)

>>> parse(record(b"knight"))
b'knight'
"""

FIRST_PAGE = 4          # the record's first NTAG page
RECORD_BYTES = 16       # pages 4..7
MAGIC = b"FT"
VERSION = 1


def record(identity):
    """The 16 bytes enrollment writes to pages 4..7 for ``identity`` (bytes, at most 12)."""
    if len(identity) > RECORD_BYTES - 4:
        raise ValueError("a tag identity is %d bytes; pages 4..7 hold at most 12"
                         % len(identity))
    rec = bytearray(RECORD_BYTES)
    rec[0:2] = MAGIC
    rec[2] = VERSION
    rec[3] = len(identity)
    rec[4:4 + len(identity)] = identity
    return bytes(rec)


def parse(raw):
    """The identity bytes of a record (pages 4..7), or None if they hold none."""
    if raw is None or len(raw) < 4 or raw[0:2] != MAGIC or raw[2] != VERSION:
        return None
    n = raw[3]
    if n > len(raw) - 4:
        return None
    return bytes(raw[4:4 + n])
