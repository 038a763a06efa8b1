"""The record a tile's reader writes is one the host accepts (CPython: hmac, sqlite).

Registry.identity_for gives the 12 identity bytes, identity_record frames them, the
driver writes them through the emulated chip, and what a later read returns resolves
to the item; the same identity on another tag, or a torn write, does not.
"""

import pytest

from shared_rules.tag_identity import parse as parse_identity, record as identity_record
from firmware.sim.mfrc522_emu import NtagCard
from host.table.tags import Registry, TagRefused, known_items
from test_mfrc522_driver import CARD, OLD_TAG, PAWN_BLUE, ready

KEY = b"k" * 32


def test_written_identity_is_resolved_by_the_registry():
    registry = Registry(KEY)
    for uid, name in ((CARD, "pawn:red"), (OLD_TAG, "die:2:6"),
                      (PAWN_BLUE, [n for n in known_items() if n.startswith("storybook:")][0])):
        reader = ready()
        reader.emu.place(NtagCard(uid))
        identity = registry.identity_for(uid, name)
        assert len(identity) == 12
        assert reader.drv.write_identity(uid, identity_record(identity)) == (True, "written")
        raw = reader.drv.read_identity(uid)
        assert parse_identity(raw) == identity
        assert registry.resolve(uid, parse_identity(raw)) == name
        assert registry.resolve(uid, raw) == name           # the raw record works too


def test_identity_written_for_another_tag_is_refused_as_forged():
    registry = Registry(KEY)
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    copied = registry.identity_for(PAWN_BLUE, "pawn:blue")
    assert reader.drv.write_identity(CARD, identity_record(copied))[0]
    with pytest.raises(TagRefused) as err:
        registry.resolve(CARD, parse_identity(reader.drv.read_identity(CARD)))
    assert err.value.code == "forged"


def test_torn_write_reads_as_not_enrolled_never_as_forged_or_wrong():
    registry = Registry(KEY)
    old = identity_record(registry.identity_for(CARD, "pawn:red"))
    new = identity_record(registry.identity_for(CARD, "pawn:blue"))
    for frames in range(1, 9):
        reader = ready()
        card = reader.emu.place(NtagCard(CARD, old))
        reader.emu.lift_during(CARD, frames)
        assert reader.drv.write_identity(CARD, new) == (False, "no answer")
        raw = bytes(card.mem[16:32])
        identity = parse_identity(raw)
        if identity is None:
            with pytest.raises(TagRefused) as err:
                registry.resolve(CARD, identity)
            assert err.value.code == "not_enrolled"
        else:
            assert registry.resolve(CARD, identity) in ("pawn:red", "pawn:blue")
