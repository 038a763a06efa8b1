"""Enrollment: a tag gets an identity the table accepts, or falls back to its UID."""

import pytest

from shared_rules.tag_identity import FIRST_PAGE as IDENTITY_FIRST_PAGE
from host import enroll
from host.table import tags


class NtagOnReader:
    """A stand-in for the Pi reader with one NTAG213 on it (unit test of enroll_one only)."""

    def __init__(self, uid, writable=True):
        self.tag_uid = uid
        self.pages = {}
        self.writable = writable

    def uid(self):
        return self.tag_uid

    def write_pages(self, first, data):
        if not self.writable:
            return False
        for i in range(0, len(data), 4):
            self.pages[first + i // 4] = bytes(data[i:i + 4])
        return True

    def read_pages(self, first):
        return b"".join(self.pages.get(first + i, b"\0" * 4) for i in range(4))


def test_enrolling_writes_an_identity_the_table_accepts(tmp_path):
    registry = tags.Registry(b"k" * 32, str(tmp_path / "tags.db"))
    reader = NtagOnReader(bytes.fromhex("04112233445566"))
    uid, how = enroll.enroll_one(reader, registry, "pawn:red", say=lambda s: None)
    assert how == "written"
    record = reader.read_pages(IDENTITY_FIRST_PAGE)
    assert registry.resolve(uid, record) == "pawn:red"
    # Someone edits the tag to make it another pawn: refused.
    forged = bytearray(record)
    forged[5:8] = tags.item_code("pawn:blue")
    with pytest.raises(tags.TagRefused) as err:
        registry.resolve(uid, bytes(forged))
    assert err.value.code == "forged"


def test_a_read_only_tag_is_enrolled_by_uid(tmp_path):
    registry = tags.Registry(b"k" * 32, str(tmp_path / "tags.db"))
    reader = NtagOnReader(bytes.fromhex("08aabbcc"), writable=False)
    uid, how = enroll.enroll_one(reader, registry, "die:1:6", say=lambda s: None)
    assert how == "uid" and registry.resolve(uid, None) == "die:1:6"


def test_enroll_lists_items_and_refuses_unknown_ones(capsys):
    assert enroll.main(["--list", "pawn:"]) == 0
    assert "pawn:red" in capsys.readouterr().out
    assert enroll.main(["storybook:nobody"]) == 2
    assert "unknown item" in capsys.readouterr().err
