"""The MFRC522 driver against the register-level emulator.

Runs under pytest and, unchanged, under MicroPython (tests/mpy_run_tests.py, started
by test_mfrc522_micropython.py): plain functions, no fixtures.

What a tile must see: the card and pawns on a cell (several tags in one
field, resolved through real bit collisions), 4- and 7-byte UIDs, a card
lifted, a misread that must not become a wrong UID, and a hung reader that
comes back by itself.
"""

import pytest

from firmware.drivers.mfrc522 import MFRC522
from shared_rules.tag_identity import parse as parse_identity, record as identity_record
from firmware.sim.mfrc522_emu import (
    Mfrc522Emulator, NtagCard, SimPin, SimSPI, crc_a, ACTIVE, HALT, IDLE,
)

WUPA = 0x52
REQA = 0x26

CARD = bytes.fromhex("04112233445566")       # NTAG21x: 7-byte UID, NXP prefix 0x04
PAWN_RED = bytes.fromhex("04112233445567")   # differs from CARD only in the last bit
PAWN_BLUE = bytes.fromhex("04A1B2C3D4E5F6")
OLD_TAG = bytes.fromhex("DEADBEEF")          # a 4-byte UID (MIFARE Classic style)
TEN = bytes.fromhex("049123334455670102A3")  # a 10-byte UID (cascade level 3)


class Reader:
    """One emulated reader on its own bus, with the driver tuned to not sleep."""

    def __init__(self, version=0x92, rst=True):
        self.spi = SimSPI()
        self.cs = SimPin(value=1)
        self.rst = SimPin(value=1) if rst else None
        self.emu = Mfrc522Emulator(version)
        self.spi.attach(self.cs, self.emu)
        if self.rst is not None:
            self.emu.attach_rst(self.rst)
        self.drv = MFRC522(self.spi, self.cs, self.rst, self.emu.advance)
        self.drv.field_settle_us = 0
        self.drv.reset_ms = 0

    def transactions_of(self, fn, *args):
        before = self.emu.transactions
        result = fn(*args)
        return result, self.emu.transactions - before


def ready(version=0x92, rst=True):
    """A reader whose driver has run init()."""
    r = Reader(version, rst)
    r.drv.init()
    return r


def test_crc_a_of_hlta_is_the_iso_example():
    # ISO/IEC 14443-3 annex: HLTA is sent as 50 00 57 CD.
    assert crc_a(b"\x50\x00") == 0xCD57


def test_init_accepts_nxp_versions_and_configures_the_timer():
    reader = ready()
    assert reader.drv.version() == 0x92
    assert reader.drv.health()
    # TAuto with prescaler 67: the timer starts by itself at the end of each transmission.
    assert reader.emu.regs[0x2A] == 0x80 and reader.emu.regs[0x2B] == 67


def test_init_accepts_known_chip_versions():
    for version in (0x91, 0x92, 0x88, 0x12):
        r = Reader(version)
        r.drv.init()
        assert r.drv.version() == version


def test_init_raises_oserror_with_the_version_seen():
    for version in (0x00, 0xFF, 0x17):
        r = Reader(version)
        with pytest.raises(OSError) as err:
            r.drv.init()
        assert "0x%02x" % version in str(err.value)


def test_no_card_gives_empty_inventory_in_few_spi_transactions():
    reader = ready()
    tags, spent = reader.transactions_of(reader.drv.inventory)
    assert tags == []
    # Field on, one WUPA whose answer never comes (the chip timer ends it), field off:
    # the driver waits out the frame and the answer time before it reads the IRQ register.
    assert spent <= 12
    assert reader.emu.rf_frames == 1   # only the WUPA went on air
    assert not reader.emu.antenna_on


def test_a_card_is_read_with_few_register_polls():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"knight")))
    ids = {}
    t0 = reader.emu.now_us
    tags, spent = reader.transactions_of(reader.drv.inventory, 4, ids)
    assert tags == [CARD] and parse_identity(ids[CARD]) == b"knight"
    # WUPA, two cascade levels, READ, HLTA and the closing REQA: about 50 transactions,
    # not one IRQ poll per 40 us of air time (about 200).
    assert spent <= 60
    # The waits are real time on the chip's clock, not skipped: 8 frames and answers.
    assert reader.emu.now_us - t0 > 6000


def test_no_card_poll_cost_comes_from_the_chip_timer():
    reader = ready()
    # A longer request timeout must cost proportionally more polls: the wait ends on TimerIRq.
    _, short = reader.transactions_of(reader.drv.inventory)
    reader.drv.request_timeout_us = 3000
    _, long_ = reader.transactions_of(reader.drv.inventory)
    assert long_ > short + 30


def test_single_7_byte_card():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    assert reader.drv.inventory() == [CARD]
    assert reader.drv.errors == 0


def test_single_4_byte_card():
    reader = ready()
    reader.emu.place(NtagCard(OLD_TAG))
    assert reader.drv.inventory() == [OLD_TAG]


def test_10_byte_uid_uses_three_cascade_levels():
    reader = ready()
    reader.emu.place(NtagCard(TEN))
    assert reader.drv.inventory() == [TEN]


def test_card_and_pawns_in_one_field_are_all_found():
    reader = ready()
    for uid in (CARD, PAWN_RED, PAWN_BLUE, OLD_TAG):
        reader.emu.place(NtagCard(uid))
    found = reader.drv.inventory(4)
    assert sorted(found) == sorted([CARD, PAWN_RED, PAWN_BLUE, OLD_TAG])
    assert reader.drv.errors == 0


def test_uids_differing_in_one_bit_collide_at_that_bit():
    reader = ready()
    # CARD and PAWN_RED share cascade level 1 and differ in the last UID bit: the
    # collision is at bit 24 of level 2 (byte 3, bit 0), reported 1-based as 25.
    reader.emu.place(NtagCard(CARD))
    reader.emu.place(NtagCard(PAWN_RED))
    seen = []
    real_read = reader.drv._read

    def spy(reg):
        v = real_read(reg)
        if reg == 0x0E:
            seen.append(v)
        return v

    reader.drv._read = spy
    assert sorted(reader.drv.inventory()) == sorted([CARD, PAWN_RED])
    assert seen and seen[0] & 0x1F == 25


def test_max_tags_limits_the_inventory():
    reader = ready()
    for uid in (CARD, PAWN_RED, PAWN_BLUE):
        reader.emu.place(NtagCard(uid))
    assert len(reader.drv.inventory(2)) == 2


def test_each_found_card_is_halted_and_the_field_goes_off():
    reader = ready()
    cards = [reader.emu.place(NtagCard(u)) for u in (CARD, PAWN_BLUE)]
    reader.drv.antenna(True)            # keep the field so the card states survive
    reader.drv.inventory()
    assert not reader.emu.antenna_on
    # Field off resets every card; inside the poll each one went to HALT after its SELECT.
    assert all(c.state == IDLE for c in cards)


def test_halted_cards_stay_silent_to_reqa():
    reader = ready()
    card = reader.emu.place(NtagCard(CARD))
    drv = reader.drv
    drv.antenna(True)
    assert drv._request(0x52)           # WUPA
    assert drv._activate(drv._uid) == 7
    assert card.state == ACTIVE
    drv._halt()
    assert card.state == HALT
    assert not drv._request(0x26)       # REQA: HALT cards do not answer
    assert drv._request(0x52)           # WUPA wakes them


def test_lifted_card_disappears_from_next_inventory():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.place(NtagCard(PAWN_BLUE))
    assert len(reader.drv.inventory()) == 2
    assert reader.emu.lift(PAWN_BLUE)
    assert reader.drv.inventory() == [CARD]


def test_card_lifted_mid_anticollision_is_not_reported():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.lift_during(CARD, 2)     # answers WUPA and the first anticollision, then gone
    assert reader.drv.inventory() == []
    assert reader.emu.cards == []


def test_card_lifted_mid_read_gives_no_identity():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:wolf")))
    reader.emu.lift_during(CARD, 3)     # WUPA, SELECT CL1, SELECT CL2; gone before READ
    assert reader.drv.read_identity(CARD) is None


def test_crc_misread_on_select_never_yields_a_wrong_uid():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.misread(1, command=0x93)
    found = reader.drv.inventory()
    # The flipped bit is caught (BCC or CRC_A) and the round is retried.
    assert found == [CARD]
    assert reader.drv.errors >= 1


def test_parity_error_flagged_by_the_chip_is_retried():
    reader = ready()
    reader.emu.place(NtagCard(OLD_TAG))
    reader.emu.misread(1, parity=True, command=0x93)
    assert reader.drv.inventory() == [OLD_TAG]
    assert reader.drv.errors == 1


def test_persistent_misreads_give_up_without_wrong_uids():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.misread(100, command=0x93)
    assert reader.drv.inventory() == []
    assert reader.drv.errors >= 2


def test_identity_read_from_user_pages():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:dragon")))
    raw = reader.drv.read_identity(CARD)
    assert len(raw) == 16 and raw[:2] == b"FT"
    assert parse_identity(raw) == b"sb:dragon"
    assert not reader.emu.antenna_on


def test_identity_read_selects_the_right_card_among_several():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:dragon")))
    reader.emu.place(NtagCard(PAWN_RED, identity_record(b"pawn:red")))
    assert parse_identity(reader.drv.read_identity(PAWN_RED)) == b"pawn:red"
    assert parse_identity(reader.drv.read_identity(CARD)) == b"sb:dragon"


def test_identity_of_absent_card_is_none():
    reader = ready()
    assert reader.drv.read_identity(CARD) is None


def test_identity_crc_misread_is_none_not_garbage():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:dragon")))
    reader.emu.misread(1, command=0x30)
    assert reader.drv.read_identity(CARD) is None
    assert parse_identity(reader.drv.read_identity(CARD)) == b"sb:dragon"


def test_unenrolled_card_has_no_identity():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    raw = reader.drv.read_identity(CARD)
    assert raw == bytes(16)
    assert parse_identity(raw) is None


def test_inventory_reads_identities_of_new_cards_while_selected():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:dragon")))
    reader.emu.place(NtagCard(PAWN_BLUE, identity_record(b"pawn:blue")))
    ids = {}
    found = reader.drv.inventory(4, ids)
    assert sorted(found) == sorted(ids)
    assert parse_identity(ids[CARD]) == b"sb:dragon"
    assert parse_identity(ids[PAWN_BLUE]) == b"pawn:blue"


def test_identity_record_rejects_long_ids():
    with pytest.raises(ValueError):
        identity_record(b"x" * 13)


def test_hung_chip_raises_instead_of_reporting_an_empty_cell_and_health_revives_it():
    # A card lies on the reader; a hung chip must not make it look lifted.
    for value in (0x00, 0xFF):
        reader = ready()
        reader.emu.place(NtagCard(CARD))
        reader.emu.hang(value)
        before = reader.emu.transactions
        with pytest.raises(OSError) as err:
            reader.drv.inventory()
        assert "0x%02x" % value in str(err.value)
        # The count backstop ends a wait on a dead timer.
        assert reader.emu.transactions - before < 400
        assert reader.drv.suspect and not reader.drv.check()
        assert reader.drv.health()
        assert reader.drv.reinits == 1
        assert reader.drv.inventory() == [CARD]


def test_a_chip_found_hung_outside_a_poll_raises_at_the_next_inventory():
    # An identity write on a chip that hangs: the write fails and marks the chip suspect.
    # The next inventory must not answer "no card" (the exchanges it skips on a suspect
    # chip count no error of their own): it raises, until the chip is set up again.
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"knight")))
    assert reader.drv.inventory() == [CARD]
    reader.emu.hang(0x00)
    assert reader.drv.write_identity(CARD, identity_record(b"queen")) == (False, "no answer")
    assert reader.drv.suspect
    for _ in range(2):
        with pytest.raises(OSError):
            reader.drv.inventory(4, {}, [CARD])
    assert not reader.emu.antenna_on
    assert reader.drv.health()
    assert reader.drv.inventory() == [CARD]


def test_status_registers_reading_all_ones_mark_the_chip_suspect():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.hang(0xFF)
    reader.drv.antenna(True)
    assert reader.drv._request(0x52) != 0      # not silence: something is wrong
    assert reader.drv.suspect and reader.drv.errors >= 1


def test_a_chip_reset_to_its_defaults_raises_rather_than_reads_an_empty_cell():
    # The shared RST line reset the chip: it answers its version, but its timer no longer
    # starts by itself, so no wait ends on TimerIRq.
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.rst(0)
    reader.rst(1)
    with pytest.raises(OSError):
        reader.drv.inventory()
    assert reader.drv.health() and reader.drv.inventory() == [CARD]


def test_a_misread_is_not_taken_for_a_hung_chip():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.misread(100, command=0x93)
    assert reader.drv.inventory() == []         # no OSError: the chip works
    assert not reader.drv.suspect and reader.drv.check()


def test_hung_chip_that_ignores_soft_reset_is_cured_by_rst():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.hang(0x00, soft_reset_cures=False)
    assert reader.drv.health()
    assert reader.drv.reinits == 2      # soft reset tried first, then the RST line
    assert reader.drv.inventory() == [CARD]


def test_hung_chip_without_rst_line_reports_unhealthy():
    r = Reader(rst=False)
    r.drv.init()
    r.emu.hang(0xFF, soft_reset_cures=False)
    assert not r.drv.health()
    assert r.drv.errors >= 1


def test_chip_reset_behind_our_back_is_reconfigured():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    # A shared RST pulse from another reader's recovery wipes our timer set-up.
    reader.rst(0)
    reader.rst(1)
    assert reader.drv.version() == 0x92
    assert reader.drv.health()
    assert reader.drv.reinits == 1
    assert reader.drv.inventory() == [CARD]


def test_healthy_chip_is_left_alone():
    reader = ready()
    assert reader.drv.health()
    assert reader.drv.reinits == 0 and reader.drv.errors == 0


def test_field_settle_wait_only_when_the_driver_switches_the_field_on():
    import firmware.drivers.mfrc522 as driver_module
    waits = []
    real_sleep = driver_module.sleep_us
    driver_module.sleep_us = waits.append
    try:
        reader = ready()
        reader.drv.field_settle_us = 5000
        reader.emu.place(NtagCard(CARD))
        assert reader.drv.inventory() == [CARD]
        assert waits == [5000]
        # The main loop may switch the field on itself and wait without blocking.
        reader.drv.antenna(True)
        assert reader.drv.inventory() == [CARD]
        assert waits == [5000]
        assert not reader.emu.antenna_on        # inventory always ends with the field off
    finally:
        driver_module.sleep_us = real_sleep


def test_identity_read_leaves_the_field_as_it_found_it():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:wolf")))
    reader.drv.antenna(True)
    assert parse_identity(reader.drv.read_identity(CARD)) == b"sb:wolf"
    assert reader.emu.antenna_on
    reader.drv.antenna(False)
    assert parse_identity(reader.drv.read_identity(CARD)) == b"sb:wolf"
    assert not reader.emu.antenna_on


# -- the tags of the last poll, selected by their UIDs ------------------------------------

def test_tags_lying_still_are_polled_by_uid_in_fewer_transactions():
    reader = ready()
    for uid in (CARD, PAWN_RED, PAWN_BLUE, OLD_TAG):
        reader.emu.place(NtagCard(uid))
    first, cold = reader.transactions_of(reader.drv.inventory, 4, None)
    known = sorted(first)
    again, warm = reader.transactions_of(reader.drv.inventory, 4, None, known)
    assert sorted(again) == known
    assert warm < cold      # no anticollision: each is selected by the UID it had
    assert reader.drv.errors == 0


def test_a_known_tag_lifted_is_gone_and_the_others_stay():
    reader = ready()
    for uid in (CARD, PAWN_BLUE, OLD_TAG):
        reader.emu.place(NtagCard(uid))
    known = sorted(reader.drv.inventory())
    assert reader.emu.lift(CARD)
    assert sorted(reader.drv.inventory(4, None, known)) == sorted([PAWN_BLUE, OLD_TAG])
    reader.emu.lift(PAWN_BLUE)
    reader.emu.lift(OLD_TAG)
    assert reader.drv.inventory(4, None, known) == []


def test_a_new_tag_beside_known_ones_is_found_through_anticollision():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    known = reader.drv.inventory()
    # PAWN_RED differs from CARD in its last bit only: the search must resolve it alone.
    reader.emu.place(NtagCard(PAWN_RED))
    assert sorted(reader.drv.inventory(4, None, known)) == sorted([CARD, PAWN_RED])


def test_a_known_tag_swapped_for_another_reports_the_new_one():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    known = reader.drv.inventory()
    reader.emu.lift(CARD)
    reader.emu.place(NtagCard(PAWN_RED))
    assert reader.drv.inventory(4, None, known) == [PAWN_RED]


def test_a_misread_select_of_a_known_tag_falls_back_to_the_search():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.place(NtagCard(PAWN_BLUE))
    known = sorted(reader.drv.inventory())
    reader.emu.misread(1, command=0x93)     # the SAK of the first known tag is garbled
    assert sorted(reader.drv.inventory(4, None, known)) == known
    assert reader.drv.errors >= 1


def test_known_tags_respect_max_tags():
    reader = ready()
    for uid in (CARD, PAWN_RED, PAWN_BLUE):
        reader.emu.place(NtagCard(uid))
    known = sorted(reader.drv.inventory())
    assert len(reader.drv.inventory(2, None, known)) == 2


def test_a_known_tag_whose_identity_is_missing_is_read_while_selected():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:dragon")))
    ids = {}
    assert reader.drv.inventory(4, ids, [CARD]) == [CARD]
    assert parse_identity(ids[CARD]) == b"sb:dragon"
    assert not reader.emu.antenna_on


def test_a_known_tag_whose_identity_read_failed_is_read_again_at_the_next_poll():
    reader = ready()
    reader.emu.place(NtagCard(CARD, identity_record(b"sb:dragon")))
    reader.emu.misread(1, command=0x30)     # the READ's answer fails its CRC_A
    ids = {}
    assert reader.drv.inventory(4, ids) == [CARD]
    assert CARD not in ids                  # a failed read is not an identity
    assert reader.drv.inventory(4, ids, [CARD]) == [CARD]
    assert parse_identity(ids[CARD]) == b"sb:dragon"


def test_an_unenrolled_tag_is_read_once_and_kept_as_its_pages():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    ids = {}
    reader.drv.inventory(4, ids)
    assert ids[CARD] == bytes(16) and parse_identity(ids[CARD]) is None
    reads = reader.emu.rf_frames
    reader.drv.inventory(4, ids, [CARD])
    # WUPA, SELECT CL1, SELECT CL2, HLTA, the closing REQA: no READ again.
    assert reader.emu.rf_frames - reads == 5


# -- the quick check of a card lying alone ------------------------------------------------

def lying_alone(uid):
    """A reader with ``uid`` alone on it, polled twice (found, then found alone by UID):
    its next poll may be quick. Returns (reader, identities)."""
    reader = ready()
    reader.emu.place(NtagCard(uid, identity_record(b"sb:dragon")))
    ids = {}
    assert reader.drv.inventory(4, ids) == [uid]
    assert reader.drv.inventory(4, ids, [uid]) == [uid]
    return reader, ids


def test_a_card_lying_alone_is_checked_with_one_anticollision_frame():
    for uid in (CARD, OLD_TAG, TEN):
        reader, ids = lying_alone(uid)
        full, slow = reader.transactions_of(reader.drv.inventory, 4, ids, [uid])
        frames = reader.emu.rf_frames
        quick, fast = reader.transactions_of(reader.drv.inventory, 4, ids, [uid], True)
        assert full == quick == [uid]
        assert reader.emu.rf_frames - frames == 2       # WUPA and one anticollision frame
        # A 7- or 10-byte UID's SELECT takes two or three frames, a 4-byte one's one.
        assert fast * (2 if len(uid) > 4 else 1) < slow, (uid, fast, slow)
        assert reader.drv.errors == 0 and not reader.emu.antenna_on


def test_the_quick_check_needs_the_last_poll_to_have_found_the_card_alone():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    ids = {}
    assert reader.drv.inventory(4, ids) == [CARD]     # found by the search, not by UID
    frames = reader.emu.rf_frames
    assert reader.drv.inventory(4, ids, [CARD], True) == [CARD]
    assert reader.emu.rf_frames - frames > 2            # selected by its UID, searched
    frames = reader.emu.rf_frames
    assert reader.drv.inventory(4, ids, [CARD], True) == [CARD]
    assert reader.emu.rf_frames - frames == 2           # now quick
    # Two known tags: never quick (they would collide).
    reader.emu.place(NtagCard(PAWN_BLUE))
    assert sorted(reader.drv.inventory(4, ids, [CARD], True)) == sorted([CARD, PAWN_BLUE])
    frames = reader.emu.rf_frames
    known = sorted([CARD, PAWN_BLUE])
    assert sorted(reader.drv.inventory(4, ids, known, True)) == known
    assert reader.emu.rf_frames - frames > 2


def test_the_quick_check_leaves_a_card_whose_identity_is_missing_to_the_full_poll():
    reader, ids = lying_alone(CARD)
    del ids[CARD]                                       # to be read again (the tile's reread)
    assert reader.drv.inventory(4, ids, [CARD], True) == [CARD]
    assert parse_identity(ids[CARD]) == b"sb:dragon"


def test_a_newcomer_on_a_card_lying_alone_collides_and_is_found_in_the_same_poll():
    reader, ids = lying_alone(CARD)
    reader.emu.place(NtagCard(PAWN_BLUE, identity_record(b"pawn:blue")))
    found = reader.drv.inventory(4, ids, [CARD], True)
    assert sorted(found) == sorted([CARD, PAWN_BLUE])
    assert parse_identity(ids[PAWN_BLUE]) == b"pawn:blue"
    assert reader.drv.errors == 0
    # Two tags now: the next poll selects both by UID.
    assert sorted(reader.drv.inventory(4, ids, sorted(found), True)) == sorted(found)


def test_a_newcomer_with_the_cards_first_uid_bytes_waits_for_a_full_poll():
    # PAWN_RED shares CARD's first cascade level (88 04 11 22): the two answer the
    # anticollision frame alike, so the quick check cannot hear it. The tile passes quick
    # on three polls in four; the full poll finds it.
    reader, ids = lying_alone(CARD)
    reader.emu.place(NtagCard(PAWN_RED))
    assert reader.drv.inventory(4, ids, [CARD], True) == [CARD]
    assert sorted(reader.drv.inventory(4, ids, [CARD], False)) == sorted([CARD, PAWN_RED])


def test_a_card_lifted_then_one_with_its_first_uid_bytes_put_down_is_seen():
    # The quick check only follows a poll that found the card alone: a poll of the empty
    # cell in between means the next is a full one, so a look-alike is not taken for it.
    reader, ids = lying_alone(CARD)
    reader.emu.lift(CARD)
    assert reader.drv.inventory(4, ids, [CARD], True) == []
    reader.emu.place(NtagCard(PAWN_RED))
    assert reader.drv.inventory(4, ids, [CARD], True) == [PAWN_RED]


def test_a_card_swapped_for_another_is_seen_by_the_quick_check():
    reader, ids = lying_alone(CARD)
    reader.emu.lift(CARD)
    reader.emu.place(NtagCard(PAWN_BLUE))
    assert reader.drv.inventory(4, ids, [CARD], True) == [PAWN_BLUE]


def test_a_misread_quick_check_falls_back_to_the_select():
    for parity in (False, True):
        reader, ids = lying_alone(CARD)
        reader.emu.misread(1, parity, command=0x93)     # the anticollision answer
        assert reader.drv.inventory(4, ids, [CARD], True) == [CARD]
        assert not reader.emu.antenna_on
        assert reader.drv.inventory(4, ids, [CARD], True) == [CARD]


# -- requests whose answer is damaged ------------------------------------------------------

def test_a_garbled_atqa_is_asked_again_not_taken_for_an_empty_cell():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    reader.emu.misread(1, parity=True, command=WUPA)
    assert reader.drv.inventory() == [CARD]
    assert reader.drv.errors == 1


def test_a_garbled_atqa_after_the_known_tags_still_finds_the_new_one():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    known = reader.drv.inventory()
    reader.emu.place(NtagCard(PAWN_BLUE))
    reader.emu.misread(1, parity=True, command=REQA)
    assert sorted(reader.drv.inventory(4, None, known)) == sorted([CARD, PAWN_BLUE])


def test_a_garbled_atqa_before_a_known_tag_does_not_lose_it():
    reader = ready()
    reader.emu.place(NtagCard(CARD))
    known = reader.drv.inventory()
    reader.emu.misread(1, parity=True, command=WUPA)
    assert reader.drv.inventory(4, None, known) == [CARD]


# -- the known tags' fast path --------------------------------------------------------------

def test_known_tags_still_halted_when_the_poll_begins_are_all_found():
    # The field stayed on since the last poll (a 1-cell tile switches it off and on again
    # at once; a card keeps its state through a short gap): every card is still in HALT.
    reader = ready()
    cards = [reader.emu.place(NtagCard(u)) for u in (CARD, PAWN_BLUE, OLD_TAG)]
    known = sorted(reader.drv.inventory())
    drv = reader.drv
    drv.antenna(True)
    for uid in known:
        assert drv._request(WUPA) and drv._select_uid(uid)
        drv._halt()
    assert all(c.state == HALT for c in cards)
    assert sorted(drv.inventory(4, None, known)) == known


def _collreg_spy(reader):
    seen = []
    real_read = reader.drv._read

    def spy(reg):
        v = real_read(reg)
        if reg == 0x0E:
            seen.append(v & 0x1F)
        return v

    reader.drv._read = spy
    return seen


def test_a_second_collision_after_whole_bytes_is_placed_after_the_bytes_sent():
    # A and B share 10 UID bits and differ at bit 20; C parts from them at bit 9. The
    # first collision (bit 9, position 10) is followed by a request that sends one whole
    # byte and 2 bits: the next collision's position counts from the bits sent in the
    # last byte (RxAlign 2), 13, and lies at UID bit 8 + 13 - 1 = 20.
    a, b, c = bytes.fromhex("2A031000"), bytes.fromhex("2A032000"), bytes.fromhex("2A011000")
    reader = ready()
    for uid in (a, b, c):
        reader.emu.place(NtagCard(uid))
    seen = _collreg_spy(reader)
    assert sorted(reader.drv.inventory()) == sorted([a, b, c])
    assert seen[:2] == [10, 13]
    assert reader.drv.errors == 0


def test_an_unanswered_request_after_a_failed_round_is_asked_once_more():
    # The SAK of the only card is damaged: the card is ACTIVE, the driver does not know it.
    # The next REQA sends it back to IDLE without an answer; asking once more finds it.
    reader = ready()
    reader.emu.place(NtagCard(OLD_TAG))
    reader.emu.misread(1, parity=True, command=0x93)
    heard = []
    real = reader.drv._request

    def spy(cmd):
        heard.append(real(cmd))
        return heard[-1]

    reader.drv._request = spy
    assert reader.drv.inventory() == [OLD_TAG]
    assert 0 in heard and heard[heard.index(0) + 1] != 0     # silence, then asked again


class BadCascadeCard(NtagCard):
    """A 7-byte card whose first cascade level lacks the cascade tag 88h."""

    def level_data(self, level):
        d = NtagCard.level_data(self, level)
        if level == 0:
            d[0] = 0x87
            d[4] = d[0] ^ d[1] ^ d[2] ^ d[3]
        return d


def test_a_cascade_level_without_the_cascade_tag_is_a_misread_not_a_uid():
    reader = ready()
    reader.emu.place(BadCascadeCard(CARD))
    assert reader.drv.inventory() == []
    assert reader.drv.errors >= 1


class EverCascadingCard(NtagCard):
    """A card whose every SAK says "UID not complete": its UID is never whole."""

    def receive(self, frame, nbits):
        ans = NtagCard.receive(self, frame, nbits)
        if ans is not None and ans[1] == 24 and len(frame) == 9 and frame[1] == 0x70:
            return crc_with(b"\x04"), 24
        return ans


def crc_with(data):
    c = crc_a(data)
    return bytes(data) + bytes((c & 0xFF, c >> 8))


def test_a_known_tag_whose_sak_asks_for_another_level_is_not_taken_as_selected():
    reader = ready()
    reader.emu.place(EverCascadingCard(OLD_TAG))
    assert reader.drv.inventory(4, None, [OLD_TAG]) == []


class ShortAnswerCard(NtagCard):
    """A card that can be made to drop the last byte (its BCC) of anticollision answers."""

    short = False

    def receive(self, frame, nbits):
        ans = NtagCard.receive(self, frame, nbits)
        if self.short and ans is not None and len(frame) >= 2 and frame[1] != 0x70 \
                and frame[0] in (0x93, 0x95, 0x97):
            return ans[0][:-1], ans[1] - 8
        return ans


def test_an_anticollision_answer_of_the_wrong_length_is_a_misread():
    reader = ready()
    card = reader.emu.place(ShortAnswerCard(OLD_TAG))
    assert reader.drv.inventory() == [OLD_TAG]      # (leaves its BCC in the driver's buffer)
    card.short = True
    assert reader.drv.inventory() == []
    assert reader.drv.errors >= 1


# -- stacks: a Fight Club wagon holds up to five creature cards on one reader -------------

# Creature cards of one print run: NTAG213 UIDs alike but for their last bytes, so the
# anticollision meets collisions deep in the UID; two differ in one bit only.
STACK = [bytes((4, 0x5A, 0x31, 0x92, 0xC4, 0x7E, last)) for last in
         (0x80, 0x81, 0x83, 0x90, 0xA7, 0x27, 0x11, 0x12, 0x10, 0x82, 0xFF, 0x00, 0x7F)]


def _creature(k):
    return ("fc:c%02d-01" % (k + 1)).encode()


def _stack_reader(n):
    reader = ready()
    for k in range(n):
        reader.emu.place(NtagCard(STACK[k], identity_record(_creature(k))))
    return reader


def test_a_stack_of_five_or_six_cards_is_all_found_with_their_identities():
    from shared_rules import wire
    assert wire.MAX_TAGS >= 6, "a wagon of five and a card too many must both be seen"
    for n in (5, 6):
        reader = _stack_reader(n)
        ids = {}
        found = reader.drv.inventory(wire.MAX_TAGS, ids)
        assert sorted(found) == sorted(STACK[:n]), n
        for k in range(n):
            assert parse_identity(ids[STACK[k]]) == _creature(k)
        # Lying still, the stack is polled by UID: the same cards, fewer exchanges.
        first, cost_search = reader.transactions_of(reader.drv.inventory, wire.MAX_TAGS, ids)
        again, cost_known = reader.transactions_of(reader.drv.inventory, wire.MAX_TAGS, ids,
                                                   sorted(found))
        assert sorted(first) == sorted(again) == sorted(STACK[:n])
        assert cost_known < cost_search, (n, cost_known, cost_search)


def test_a_card_beyond_max_tags_on_a_stack_is_left_for_a_later_poll():
    from shared_rules import wire
    assert len(STACK) == wire.MAX_TAGS + 1
    reader = _stack_reader(wire.MAX_TAGS + 1)
    found = reader.drv.inventory(wire.MAX_TAGS)
    assert len(found) == wire.MAX_TAGS and len(set(found)) == wire.MAX_TAGS
    assert all(uid in STACK for uid in found)


def test_twelve_tags_in_one_field_are_all_found_lying_still_and_with_a_newcomer():
    # The Dragon Inn read by one reader (a crowded cell's reader may see them all when the
    # tokens are pushed together over it): its card and ten tokens, then one more put down;
    # UIDs that differ in their last byte only (the deepest anticollision), identities read.
    from shared_rules import wire
    assert wire.MAX_TAGS >= 12
    reader = _stack_reader(11)
    ids = {}
    found = reader.drv.inventory(wire.MAX_TAGS, ids)
    assert sorted(found) == sorted(STACK[:11])
    assert all(parse_identity(ids[STACK[k]]) == _creature(k) for k in range(11))
    still = reader.drv.inventory(wire.MAX_TAGS, ids, sorted(found))
    assert sorted(still) == sorted(STACK[:11])
    reader.emu.place(NtagCard(STACK[11], identity_record(_creature(11))))
    more = reader.drv.inventory(wire.MAX_TAGS, ids, sorted(still))
    assert sorted(more) == sorted(STACK[:12])
    assert parse_identity(ids[STACK[11]]) == _creature(11)
    reader.emu.lift(STACK[4])
    assert sorted(reader.drv.inventory(wire.MAX_TAGS, ids, sorted(more))) == \
        sorted(STACK[:4] + STACK[5:12])
    assert reader.drv.errors == 0


def test_a_card_taken_off_a_stack_of_six_is_gone_and_the_five_stay():
    from shared_rules import wire
    reader = _stack_reader(6)
    known = sorted(reader.drv.inventory(wire.MAX_TAGS))
    reader.emu.lift(STACK[2])
    assert sorted(reader.drv.inventory(wire.MAX_TAGS, None, known)) == \
        sorted(STACK[:2] + STACK[3:6])


def test_a_misread_in_a_stack_never_yields_a_wrong_uid():
    from shared_rules import wire
    reader = _stack_reader(6)
    reader.emu.misread(2, command=0x93)      # two garbled answers to cascade level 1
    found = reader.drv.inventory(wire.MAX_TAGS)
    assert all(uid in STACK[:6] for uid in found)
    assert sorted(reader.drv.inventory(wire.MAX_TAGS, None, sorted(found))) == \
        sorted(STACK[:6])
