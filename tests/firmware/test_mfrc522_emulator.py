"""The MFRC522 emulator on its own: registers as the data sheet describes them, and
ISO/IEC 14443-3 type A cards that behave as the standard says.

Driven with raw SPI bytes (not through the driver), so a driver bug cannot hide an
emulator bug. Plain functions: runs under MicroPython too.
"""

from firmware.sim.mfrc522_emu import (
    ACTIVE, HALT, IDLE, READY, Mfrc522Emulator, NtagCard, SimPin, SimSPI, crc_a, free_card,
    tag_pool,
)

# Register addresses restated from the data sheet, not imported from the emulator, so a
# wrong address there cannot pass unnoticed here.
CommandReg = 0x01
ComIrqReg = 0x04
DivIrqReg = 0x05
ErrorReg = 0x06
FIFODataReg = 0x09
FIFOLevelReg = 0x0A
ControlReg = 0x0C
BitFramingReg = 0x0D
CollReg = 0x0E
ModeReg = 0x11
TxControlReg = 0x14
CRCResultRegH = 0x21
CRCResultRegL = 0x22
TModeReg = 0x2A
TPrescalerReg = 0x2B
TReloadRegH = 0x2C
TReloadRegL = 0x2D
VersionReg = 0x37

CARD = bytes.fromhex("04112233445566")
TWIN = bytes.fromhex("04112233445567")


class Chip:
    """Raw register access to one emulated chip, the way the data sheet's SPI works."""

    def __init__(self, spi=None, emu=None):
        self.spi = spi or SimSPI()
        self.cs = SimPin(value=1)
        self.emu = emu or Mfrc522Emulator()
        self.spi.attach(self.cs, self.emu)

    def xfer(self, out):
        buf = bytearray(out)
        self.cs(0)
        self.spi.write_readinto(buf, buf)
        self.cs(1)
        return buf

    def read(self, reg):
        return self.xfer((0x80 | (reg << 1), 0))[1]

    def write(self, reg, *values):
        self.xfer((reg << 1,) + tuple(values))

    def read_fifo(self):
        n = self.read(FIFOLevelReg)
        out = self.xfer([0x80 | (FIFODataReg << 1)] * n + [0])
        return bytes(out[1:])

    def field_on(self):
        self.write(TxControlReg, 0x83)

    def start_timer_mode(self, reload=100):
        self.write(TModeReg, 0x80)          # TAuto
        self.write(TPrescalerReg, 67)       # about 10 us per tick
        self.write(TReloadRegH, reload >> 8)
        self.write(TReloadRegL, reload & 0xFF)

    def transceive(self, frame, last_bits=0, align=0):
        """Send a frame; wait (bounded) for RxIRq or TimerIRq. (fifo bytes, irq, error)."""
        self.write(ComIrqReg, 0x7F)
        self.write(FIFOLevelReg, 0x80)
        self.write(FIFODataReg, *frame)
        self.write(BitFramingReg, (align << 4) | last_bits)
        self.write(CommandReg, 0x0C)
        self.write(BitFramingReg, 0x80 | (align << 4) | last_bits)
        irq = 0
        for _ in range(1000):
            irq = self.read(ComIrqReg)
            if irq & 0x21:
                break
        self.write(CommandReg, 0x00)
        return self.read_fifo(), irq, self.read(ErrorReg)


def with_crc(frame):
    c = crc_a(frame)
    return bytes(frame) + bytes((c & 0xFF, c >> 8))


def powered(*uids):
    chip = Chip()
    chip.write(CollReg, 0x00)
    chip.start_timer_mode()
    cards = [chip.emu.place(NtagCard(u)) for u in uids]
    chip.field_on()
    return chip, cards


def test_version_and_reset_values():
    chip = Chip()
    assert chip.read(VersionReg) == 0x92
    assert chip.read(ModeReg) == 0x3F
    assert chip.read(TxControlReg) == 0x80      # antenna off after reset
    assert chip.read(CommandReg) == 0x20        # RcvOff set, Idle


def test_burst_read_returns_each_addressed_register():
    chip = Chip()
    chip.write(TPrescalerReg, 0x12)
    chip.write(TReloadRegL, 0x34)
    out = chip.xfer((0x80 | (TPrescalerReg << 1), 0x80 | (TReloadRegL << 1),
                     0x80 | (VersionReg << 1), 0))
    assert list(out[1:]) == [0x12, 0x34, 0x92]


def test_fifo_burst_write_level_read_and_flush():
    chip = Chip()
    chip.write(FIFODataReg, 1, 2, 3, 4, 5)
    assert chip.read(FIFOLevelReg) == 5
    assert chip.read(FIFODataReg) == 1
    assert chip.read_fifo() == bytes((2, 3, 4, 5))
    chip.write(FIFODataReg, 9, 9)
    chip.write(FIFOLevelReg, 0x80)
    assert chip.read(FIFOLevelReg) == 0


def test_fifo_overflow_sets_buffer_ovfl_and_flush_clears_it():
    chip = Chip()
    chip.write(FIFODataReg, *range(65))
    assert chip.read(FIFOLevelReg) == 64
    assert chip.read(ErrorReg) & 0x10
    chip.write(FIFOLevelReg, 0x80)
    assert not chip.read(ErrorReg) & 0x10


def test_mem_command_moves_25_bytes_to_the_internal_buffer_and_back():
    chip = Chip()
    chip.write(FIFODataReg, *range(1, 26))
    chip.write(CommandReg, 0x01)                # Mem: FIFO -> internal buffer
    assert chip.read(FIFOLevelReg) == 0 and chip.read(ComIrqReg) & 0x10
    chip.write(CommandReg, 0x01)                # FIFO empty: internal buffer -> FIFO
    assert chip.read_fifo() == bytes(range(1, 26))


def test_irq_register_set_and_clear_by_the_set1_bit():
    chip = Chip()
    chip.write(ComIrqReg, 0x7F)
    assert chip.read(ComIrqReg) == 0
    chip.write(ComIrqReg, 0x80 | 0x01)          # Set1 = 1: set TimerIRq
    assert chip.read(ComIrqReg) == 0x01
    chip.write(ComIrqReg, 0x01)                 # Set1 = 0: clear it
    assert chip.read(ComIrqReg) == 0


def test_calccrc_gives_crc_a_with_the_6363_preset():
    chip = Chip()
    chip.write(ModeReg, 0x3D)
    chip.write(DivIrqReg, 0x04)
    chip.write(FIFODataReg, 0x50, 0x00)
    chip.write(CommandReg, 0x03)
    assert chip.read(DivIrqReg) & 0x04
    assert (chip.read(CRCResultRegH), chip.read(CRCResultRegL)) == (0xCD, 0x57)


def test_timer_raises_timerirq_after_its_reload_period():
    chip = Chip()
    chip.write(TModeReg, 0x00)
    chip.write(TPrescalerReg, 67)               # (2 * 67 + 1) / 13.56 MHz = 9.96 us
    chip.write(TReloadRegH, 0)
    chip.write(TReloadRegL, 199)                # 200 ticks = 1.99 ms
    chip.write(ComIrqReg, 0x7F)
    chip.write(ControlReg, 0x40)                # TStartNow
    polls = 0
    while not chip.read(ComIrqReg) & 0x01:
        polls += 1
        assert polls < 1000
    # 40 us of virtual time per transaction: about 1990 / 40 = 50 polls
    assert 45 <= polls <= 52


def test_request_without_cards_ends_on_the_timer():
    chip, _ = powered()
    fifo, irq, err = chip.transceive(b"\x26", 7)
    assert irq & 0x01 and not irq & 0x20
    assert fifo == b"" and err == 0


def test_reqa_answered_with_atqa_by_size():
    for uid, atqa in ((bytes(4), b"\x04\x00"), (CARD, b"\x44\x00"), (bytes(10), b"\x84\x00")):
        chip, cards = powered(uid)
        fifo, irq, err = chip.transceive(b"\x26", 7)
        assert fifo == atqa and irq & 0x20 and err == 0
        assert cards[0].state == READY


def test_antenna_off_gets_no_answer():
    chip, cards = powered(CARD)
    chip.write(TxControlReg, 0x80)
    fifo, irq, _ = chip.transceive(b"\x26", 7)
    assert fifo == b"" and irq & 0x01


def test_anticollision_with_two_cards_reports_the_first_differing_bit():
    chip, cards = powered(CARD, TWIN)
    chip.transceive(b"\x52", 7)
    # Level 1 is identical (CT 04 11 22): both answer the same bits, no collision.
    fifo, _, err = chip.transceive(b"\x93\x20")
    assert fifo == bytes((0x88, 0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22)) and err == 0
    sel = with_crc(b"\x93\x70" + fifo)
    fifo, _, err = chip.transceive(sel)
    assert fifo == with_crc(b"\x04") and err == 0          # SAK: UID not complete
    # Level 2: 33 44 55 66 vs 33 44 55 67 differ in bit 0 of byte 3 = bit 25 (1-based).
    fifo, _, err = chip.transceive(b"\x95\x20")
    assert err & 0x08
    assert chip.read(CollReg) & 0x3F == 25
    assert fifo[:3] == bytes((0x33, 0x44, 0x55)) and fifo[3] == 0   # cleared from the collision


def test_collision_position_includes_rx_align():
    a = bytes.fromhex("04112233445566")
    b = bytes.fromhex("04112233445576")    # differ in bit 4 of the last byte
    chip, _ = powered(a, b)
    chip.transceive(b"\x52", 7)
    uid1 = bytes((0x88, 0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22))
    chip.transceive(with_crc(b"\x93\x70" + uid1))
    # Send 3 bytes and 2 bits of level 2 (NVB 0x52); both cards match (low bits of
    # 0x66 and 0x76 are both 10b) and answer from bit 2 of byte 3, stored at RxAlign 2.
    fifo, _, err = chip.transceive(b"\x95\x52\x33\x44\x55\x02", 2, 2)
    assert err & 0x08
    # First differing bit: bit 4 of that byte; CollPos counts RxAlign in: 4 + 1 = 5.
    assert chip.read(CollReg) & 0x1F == 5
    assert fifo[0] == 0x66 & 0x0C          # bits 2..3 received, cleared from bit 4 on


def test_single_card_answers_the_bits_after_a_partial_byte():
    chip, _ = powered(CARD)
    chip.transceive(b"\x52", 7)
    uid1 = bytes((0x88, 0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22))
    chip.transceive(with_crc(b"\x93\x70" + uid1))
    fifo, _, err = chip.transceive(b"\x95\x55\x33\x44\x55\x06", 5, 5)
    assert err == 0
    # The answer: bits 5..7 of 0x66 (stored at RxAlign 5), then the BCC byte.
    assert fifo[0] == 0x66 & 0xE0 and fifo[1] == 0x33 ^ 0x44 ^ 0x55 ^ 0x66
    assert chip.read(ControlReg) & 0x07 == 0


def test_collision_position_counted_from_the_first_received_byte():
    a = bytes.fromhex("04112233445510")
    b = bytes.fromhex("04112233445590")    # differ in bit 7 of the last byte
    chip, _ = powered(a, b)
    chip.transceive(b"\x52", 7)
    uid1 = bytes((0x88, 0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22))
    chip.transceive(with_crc(b"\x93\x70" + uid1))
    # Send 2 full bytes of level 2: the answer starts with byte 2; collision at the
    # 8th bit of byte 3, i.e. the 16th bit of what is received: CollPos = 16.
    fifo, _, err = chip.transceive(b"\x95\x40\x33\x44")
    assert err & 0x08
    assert chip.read(CollReg) & 0x1F == 16
    assert fifo[0] == 0x55 and fifo[1] == 0x10


def test_select_wrong_uid_sends_the_card_back_to_idle():
    chip, cards = powered(CARD)
    chip.transceive(b"\x26", 7)
    wrong = bytes((0x88, 0x04, 0x11, 0x23, 0x88 ^ 0x04 ^ 0x11 ^ 0x23))
    fifo, irq, _ = chip.transceive(with_crc(b"\x93\x70" + wrong))
    assert fifo == b"" and irq & 0x01
    assert cards[0].state == IDLE


def test_select_with_bad_crc_is_ignored():
    chip, cards = powered(bytes.fromhex("DEADBEEF"))
    chip.transceive(b"\x26", 7)
    frame = bytearray(with_crc(b"\x93\x70\xDE\xAD\xBE\xEF" + bytes((0xDE ^ 0xAD ^ 0xBE ^ 0xEF,))))
    frame[-1] ^= 1
    fifo, irq, _ = chip.transceive(frame)
    assert fifo == b"" and irq & 0x01
    assert cards[0].state == IDLE


def activate(chip, uid4):
    chip.transceive(b"\x26", 7)
    chip.transceive(b"\x93\x20")
    return chip.transceive(with_crc(b"\x93\x70" + uid4 + bytes((uid4[0] ^ uid4[1] ^ uid4[2]
                                                                  ^ uid4[3],))))


def test_hlta_halts_and_only_wupa_wakes():
    uid = bytes.fromhex("DEADBEEF")
    chip, cards = powered(uid)
    fifo, _, _ = activate(chip, uid)
    assert fifo == with_crc(b"\x00") and cards[0].state == ACTIVE
    fifo, irq, _ = chip.transceive(with_crc(b"\x50\x00"))
    assert fifo == b"" and irq & 0x01 and cards[0].state == HALT
    fifo, _, _ = chip.transceive(b"\x26", 7)
    assert fifo == b"" and cards[0].state == HALT
    fifo, _, _ = chip.transceive(b"\x52", 7)
    assert fifo == b"\x04\x00" and cards[0].state == READY


def test_ntag_read_returns_four_pages_with_crc_and_rolls_over():
    uid = bytes.fromhex("DEADBEEF")
    chip = Chip()
    chip.start_timer_mode(500)
    card = chip.emu.place(NtagCard(uid, {4: b"ABCD", 5: b"EFGH", 44: b"LAST"}))
    chip.field_on()
    activate(chip, uid)
    fifo, _, err = chip.transceive(with_crc(b"\x30\x04"))
    assert err == 0 and len(fifo) == 18 and crc_a(fifo) == 0
    assert fifo[:8] == b"ABCDEFGH"
    fifo, _, _ = chip.transceive(with_crc(b"\x30\x2C"))       # page 44, last of NTAG213
    assert fifo[:4] == b"LAST" and fifo[4:8] == bytes(card.mem[0:4])
    assert card.state == ACTIVE


def test_a_spare_card_loaded_as_another_tag_is_that_tag_only():
    pool = tag_pool(2)
    spare = pool[0]
    spare.load(CARD, {4: b"OLD!"}, read_only=True)
    spare.load(bytes.fromhex("DEADBEEF"), {5: b"NEW!"})
    fresh = NtagCard(bytes.fromhex("DEADBEEF"), {5: b"NEW!"})
    assert spare.uid == fresh.uid and spare.mem == fresh.mem     # nothing of CARD is left
    assert not spare.read_only and spare.state == IDLE
    chip = Chip()
    chip.start_timer_mode(500)
    chip.emu.place(spare)
    chip.field_on()
    activate(chip, bytes.fromhex("DEADBEEF"))
    fifo, _, _ = chip.transceive(with_crc(b"\x30\x04"))
    assert fifo[4:8] == b"NEW!" and fifo[0:4] == bytes(4)


def test_free_card_is_one_that_lies_in_no_field():
    pool = tag_pool(2)
    a, b = Mfrc522Emulator(), Mfrc522Emulator()
    a.place(free_card(pool, [a, b]))
    second = free_card(pool, [a, b])
    assert second is pool[1]
    b.place(second)
    assert free_card(pool, [a, b]) is None
    second.load(TWIN)
    b.lift(TWIN)
    assert free_card(pool, [a, b]) is pool[1]


def test_ntag_read_of_a_missing_page_is_a_4_bit_nak():
    uid = bytes.fromhex("DEADBEEF")
    chip, cards = powered(uid)
    activate(chip, uid)
    fifo, _, _ = chip.transceive(with_crc(b"\x30\x2D"))        # page 45 does not exist
    assert fifo == b"\x00" and chip.read(ControlReg) & 0x07 == 4
    assert cards[0].state == IDLE


def test_misread_flips_a_bit_the_crc_reveals():
    uid = bytes.fromhex("DEADBEEF")
    chip, _ = powered(uid)
    activate(chip, uid)
    chip.emu.misread(1, command=0x30)
    fifo, _, err = chip.transceive(with_crc(b"\x30\x04"))
    assert err == 0 and len(fifo) == 18 and crc_a(fifo) != 0


def test_parity_misread_is_flagged_by_the_chip():
    chip, _ = powered(CARD)
    chip.emu.misread(1, parity=True)
    _, irq, err = chip.transceive(b"\x26", 7)
    assert err & 0x02 and irq & 0x02


def test_lift_during_removes_the_card_after_its_answers():
    chip, cards = powered(CARD)
    chip.emu.lift_during(CARD, 1)
    fifo, _, _ = chip.transceive(b"\x26", 7)
    assert fifo == b"\x44\x00"
    assert chip.emu.cards == []
    fifo, irq, _ = chip.transceive(b"\x93\x20")
    assert fifo == b"" and irq & 0x01


def test_soft_reset_restores_defaults_and_drops_the_field():
    chip, cards = powered(CARD)
    chip.transceive(b"\x26", 7)
    chip.write(CommandReg, 0x0F)
    assert chip.read(TModeReg) == 0 and chip.read(TxControlReg) == 0x80
    assert cards[0].state == IDLE


def test_hung_chip_reads_a_constant_until_reset():
    for value in (0x00, 0xFF):
        chip = Chip()
        chip.emu.hang(value)
        assert chip.read(VersionReg) == value and chip.read(ComIrqReg) == value
        chip.write(TPrescalerReg, 5)                # ignored
        chip.write(CommandReg, 0x0F)                # soft reset cures it
        assert chip.read(VersionReg) == 0x92 and chip.read(TPrescalerReg) == 0


def test_hang_that_only_rst_cures():
    spi = SimSPI()
    rst = SimPin(value=1)
    chip = Chip(spi)
    chip.emu.attach_rst(rst)
    chip.emu.hang(0x00, soft_reset_cures=False)
    chip.write(CommandReg, 0x0F)
    assert chip.read(VersionReg) == 0x00
    rst(0)
    rst(1)
    assert chip.read(VersionReg) == 0x92


def test_only_the_selected_chip_answers_on_a_shared_bus():
    spi = SimSPI()
    a = Chip(spi, Mfrc522Emulator(0x91))
    b = Chip(spi, Mfrc522Emulator(0x92))
    assert a.read(VersionReg) == 0x91 and b.read(VersionReg) == 0x92
    a.write(TPrescalerReg, 7)
    assert b.read(TPrescalerReg) == 0 and a.read(TPrescalerReg) == 7
    assert a.emu.transactions == 3 and b.emu.transactions == 2
    assert spi.contention == 0


def test_two_chips_selected_at_once_is_counted_as_contention():
    spi = SimSPI()
    a = Chip(spi)
    b = Chip(spi)
    b.cs(0)
    a.read(VersionReg)
    b.cs(1)
    assert spi.contention > 0


def test_nobody_selected_reads_ff():
    spi = SimSPI()
    Chip(spi)
    assert spi.read(2) == b"\xff\xff"
