"""Enrollment from a tile's reader: the driver writes the identity record into pages 4..7.

Runs under pytest and, unchanged, under MicroPython (test_mfrc522_write_micropython.py):
plain functions, no fixtures. Bounds are SPI transactions, never seconds.

What enrollment must see: a written record that reads back on 4-, 7- and 10-byte UIDs,
the right card written among several, a read-only or locked tag refused with a NAK and
the page, a card lifted half way that never holds a mix of old and new, a garbled ACK
or a misread READ that a retry cures, and a card that ACKs but does not store.
"""

import pytest

from firmware.drivers.mfrc522 import MFRC522
from shared_rules.tag_identity import parse as parse_identity, record as identity_record
from firmware.sim.mfrc522_emu import NtagCard
from test_mfrc522_driver import CARD, OLD_TAG, PAWN_RED, TEN, ready

NEW = identity_record(b"sb:dragon")
OLD = identity_record(b"sb:wolf")
NAK_4 = "NAK on page 4 (locked or read-only tag?)"


def pages(card):
    """What the card's memory holds at pages 4..7 (bypassing the radio)."""
    return bytes(card.mem[16:32])


def write(reader, uid, record=NEW):
    """write_identity, with the SPI transactions it took."""
    return reader.transactions_of(reader.drv.write_identity, uid, record)


def test_write_then_read_back_on_a_7_byte_uid():
    reader = ready()
    card = reader.emu.place(NtagCard(CARD))
    (ok, why), spent = write(reader, CARD)
    assert (ok, why) == (True, "written")
    assert pages(card) == NEW
    assert parse_identity(reader.drv.read_identity(CARD)) == b"sb:dragon"
    assert not reader.emu.antenna_on            # the driver switched it on, so it goes off
    # Five page writes (page 4 blank, 5, 6, 7, page 4) each wait ~4.1 ms for the EEPROM;
    # the rest is WUPA, two SELECTs, the READ back and HLTA.
    assert spent < 1200, spent


def test_write_then_read_back_on_a_4_byte_uid():
    reader = ready()
    card = reader.emu.place(NtagCard(OLD_TAG))
    assert reader.drv.write_identity(OLD_TAG, NEW) == (True, "written")
    assert pages(card) == NEW
    assert parse_identity(reader.drv.read_identity(OLD_TAG)) == b"sb:dragon"


def test_write_on_a_10_byte_uid():
    reader = ready()
    card = reader.emu.place(NtagCard(TEN))
    assert reader.drv.write_identity(TEN, NEW) == (True, "written")
    assert pages(card) == NEW


def test_write_replaces_an_older_record_and_leaves_the_rest_of_the_tag():
    reader = ready()
    card = reader.emu.place(NtagCard(CARD, OLD + b"NEXT"))
    before = bytes(card.mem)
    assert reader.drv.write_identity(CARD, NEW) == (True, "written")
    assert pages(card) == NEW
    assert bytes(card.mem[0:16]) == before[0:16]        # UID, lock bytes, CC untouched
    assert bytes(card.mem[32:]) == before[32:]          # page 8 on untouched


def test_only_the_named_card_is_written_among_several():
    reader = ready()
    card = reader.emu.place(NtagCard(CARD, OLD))
    pawn = reader.emu.place(NtagCard(PAWN_RED))         # differs from CARD in one UID bit
    assert reader.drv.write_identity(PAWN_RED, NEW) == (True, "written")
    assert pages(pawn) == NEW and pages(card) == OLD
    assert sorted(reader.drv.inventory()) == sorted([CARD, PAWN_RED])


def test_write_leaves_the_field_as_it_found_it():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.drv.antenna(True)
    assert reader.drv.write_identity(CARD, NEW)[0]
    assert reader.emu.antenna_on
    reader.drv.antenna(False)
    assert reader.drv.write_identity(CARD, OLD)[0]
    assert not reader.emu.antenna_on


def test_written_card_is_halted():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.drv.antenna(True)
    assert reader.drv.write_identity(CARD, NEW)[0]
    # Halted: REQA finds nobody, WUPA wakes it.
    assert not reader.drv._request(0x26)
    assert reader.drv._request(0x52)


def test_read_only_card_is_refused_with_a_nak_and_the_page():
    reader = ready()
    card = reader.emu.place(NtagCard(CARD, OLD, read_only=True))
    (ok, why), spent = write(reader, CARD)
    assert not ok and why == NAK_4
    assert pages(card) == OLD                   # nothing changed
    assert not reader.emu.antenna_on
    assert spent < 400, spent                   # first NAK, one retry after reselect, done


def test_page_locked_by_the_static_lock_bits_is_named():
    reader = ready()
    # Lock byte 0 (page 2, byte 2) bit 6 = L6: page 6 is read-only.
    card = reader.emu.place(NtagCard(CARD, {2: bytes((CARD[3] ^ CARD[4] ^ CARD[5] ^ CARD[6],
                                                      0x48, 0x40, 0x00)), 4: OLD[0:4],
                                            5: OLD[4:8], 6: OLD[8:12], 7: OLD[12:16]}))
    ok, why = reader.drv.write_identity(CARD, NEW)
    assert not ok and why == "NAK on page 6 (locked or read-only tag?)"
    # Page 4 was blanked first and never got its header back: no record, not a mix.
    assert parse_identity(pages(card)) is None
    assert bytes(card.mem[24:28]) == OLD[8:12]


def test_absent_card_gives_no_answer_quickly():
    reader = ready()
    (ok, why), spent = write(reader, CARD)
    assert (ok, why) == (False, "no answer")
    assert spent < 100, spent
    assert not reader.emu.antenna_on


def test_card_lifted_mid_write_never_holds_a_mix_of_old_and_new():
    # Answers: WUPA, SELECT CL1, SELECT CL2, five WRITEs, READ. Lifted after each but READ.
    outcomes = []
    for frames in range(1, 9):
        reader = ready()
        card = reader.emu.place(NtagCard(CARD, OLD))
        reader.emu.lift_during(CARD, frames)
        ok, why = reader.drv.write_identity(CARD, NEW)
        assert reader.emu.cards == []
        assert not ok and why == "no answer", (frames, ok, why)
        assert pages(card) in (OLD, NEW) or parse_identity(pages(card)) is None, frames
        outcomes.append(parse_identity(pages(card)))
        assert not reader.emu.antenna_on
    # Before the first WRITE the old record stands; after the last, the new one is whole
    # (its ACK came, then the card was gone before the READ back: still "no answer").
    assert outcomes[0] == outcomes[2] == b"sb:wolf"
    assert outcomes[3] is None and outcomes[6] is None
    assert outcomes[7] == b"sb:dragon"


def test_garbled_ack_is_retried_after_a_fresh_select():
    clean = ready()
    clean.emu.place(NtagCard(CARD))
    assert clean.drv.write_identity(CARD, NEW)[0]
    for parity in (False, True):
        reader = ready()
        card = reader.emu.place(NtagCard(CARD))
        reader.emu.misread(1, parity=parity, command=0xA2)     # one ACK arrives as 0xE
        assert reader.drv.write_identity(CARD, NEW) == (True, "written")
        assert pages(card) == NEW
        # HLTA, WUPA, two SELECTs and the WRITE again.
        assert reader.emu.rf_frames == clean.emu.rf_frames + 5


def test_acks_garbled_every_time_fail_without_claiming_success():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.misread(100, command=0xA2)
    ok, why = reader.drv.write_identity(CARD, NEW)
    # A garbled 4-bit answer cannot be told from a NAK (no parity, no CRC on ACK/NAK).
    assert not ok and why == NAK_4


def test_misread_read_back_is_read_again():
    reader = ready()
    card = reader.emu.place(NtagCard(CARD))
    reader.emu.misread(1, command=0x30)         # the READ back fails its CRC_A once
    assert reader.drv.write_identity(CARD, NEW) == (True, "written")
    assert pages(card) == NEW
    assert reader.drv.errors >= 1


class ForgetfulCard(NtagCard):
    """A tag that ACKs WRITEs to pages 5.. but keeps its old data (a failing EEPROM)."""

    def _write(self, page, data):
        if page >= 5:
            return b"\x0a", 4
        return NtagCard._write(self, page, data)


def test_card_that_acks_but_does_not_store_is_caught_by_the_read_back():
    reader = ready()
    card = reader.emu.place(ForgetfulCard(CARD, OLD))
    assert reader.drv.write_identity(CARD, NEW) == (False, "read back differs")
    assert pages(card)[0:4] == NEW[0:4] and pages(card)[4:] == OLD[4:]


def test_write_timeout_covers_the_eeprom_write_time():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    # The ACK of WRITE comes ~4.1 ms after the command (write_time_us of the card): with
    # the 1 ms request timeout it would be lost.
    reader.drv.write_timeout_us = reader.drv.request_timeout_us
    assert reader.drv.write_identity(CARD, NEW) == (False, "no answer")
    reader.drv.write_timeout_us = MFRC522.write_timeout_us
    assert reader.drv.write_identity(CARD, NEW) == (True, "written")


def test_record_must_be_16_bytes():
    reader = ready()
    with pytest.raises(ValueError):
        reader.drv.write_identity(CARD, b"sb:dragon")


def test_hung_chip_gives_no_answer_and_health_revives_it():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.hang(0xFF)
    (ok, why), spent = write(reader, CARD)
    assert (ok, why) == (False, "no answer")
    assert spent < 2000, spent          # the count backstop ends every wait
    assert reader.drv.health()
    assert reader.drv.write_identity(CARD, NEW) == (True, "written")
