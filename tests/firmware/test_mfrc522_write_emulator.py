"""The emulated NTAG21x WRITE (A2h) seen through raw MFRC522 registers, not the driver.

The 4-bit ACK/NAK must reach the FIFO as the real chip delivers it: one byte, ControlReg
RxLastBits = 4, RxIRq in ComIrqReg, no error. Plain functions: runs under MicroPython too.
"""

from firmware.sim.mfrc522_emu import ACTIVE, HALT, IDLE, NtagCard
from test_mfrc522_emulator import (
    ComIrqReg, ControlReg, ErrorReg, FIFOLevelReg, activate, powered, with_crc,
)

UID4 = bytes.fromhex("DEADBEEF")


def writer(*cards_args, **kwargs):
    """A chip with one 4-byte-UID card, selected, and a timer long enough for a WRITE."""
    chip, cards = powered()
    card = chip.emu.place(NtagCard(UID4, *cards_args, **kwargs))
    chip.field_on()
    chip.start_timer_mode(1100)     # ~11 ms: the ACK comes after the ~4.1 ms EEPROM write
    activate(chip, UID4)
    assert card.state == ACTIVE
    return chip, card


def write(chip, page, data):
    return chip.transceive(with_crc(bytes((0xA2, page)) + bytes(data)))


def test_write_is_acked_with_4_bits_and_stores_the_page():
    chip, card = writer()
    fifo, irq, err = write(chip, 4, b"FT\x01\x00")
    assert fifo == b"\x0a"                          # ACK Ah
    assert chip.read(ControlReg) & 0x07 == 4        # RxLastBits: 4 valid bits
    assert irq & 0x20 and not irq & 0x01            # RxIRq, not TimerIRq
    assert err == 0                                 # no parity or CRC on a 4-bit answer
    assert bytes(card.mem[16:20]) == b"FT\x01\x00"
    assert card.state == ACTIVE                     # an ACK keeps the card selected
    fifo, _, _ = chip.transceive(with_crc(b"\x30\x04"))
    assert fifo[0:4] == b"FT\x01\x00"


def test_ack_arrives_after_the_eeprom_write_time():
    chip, card = writer()
    chip.start_timer_mode(100)      # ~1 ms: shorter than the EEPROM write
    fifo, irq, _ = write(chip, 4, b"ABCD")
    assert fifo == b"" and irq & 0x01               # TimerIRq, no answer in time
    assert bytes(card.mem[16:20]) == b"ABCD"        # the card wrote nonetheless


def test_uid_pages_0_and_1_nak_and_the_card_drops_to_idle():
    for page in (0, 1):
        chip, card = writer()
        before = bytes(card.mem)
        fifo, _, err = write(chip, page, b"\xff\xff\xff\xff")
        assert fifo == b"\x00" and chip.read(ControlReg) & 0x07 == 4 and err == 0
        assert bytes(card.mem) == before
        assert card.state == IDLE


def test_page_2_only_ors_the_lock_bytes():
    chip, card = writer()
    before = bytes(card.mem[8:10])
    fifo, _, _ = write(chip, 2, b"\x00\x00\x10\x01")     # lock page 4 and page 8
    assert fifo == b"\x0a"
    assert bytes(card.mem[8:10]) == before              # BCC1 and internal byte stay
    assert bytes(card.mem[10:12]) == b"\x10\x01"
    fifo, _, _ = write(chip, 2, b"\x00\x00\x00\x00")     # lock bits never clear
    assert bytes(card.mem[10:12]) == b"\x10\x01"
    fifo, _, _ = write(chip, 4, b"ABCD")
    assert fifo == b"\x00" and bytes(card.mem[16:20]) == bytes(4)
    activate(chip, UID4)
    fifo, _, _ = write(chip, 5, b"ABCD")                # page 5 is not locked
    assert fifo == b"\x0a"
    fifo, _, _ = write(chip, 8, b"ABCD")
    assert fifo == b"\x00"


def test_page_3_is_one_time_programmable():
    chip, card = writer()
    cc = bytes(card.mem[12:16])
    fifo, _, _ = write(chip, 3, b"\x00\x00\x00\x0f")
    assert fifo == b"\x0a"
    assert bytes(card.mem[12:16]) == cc[0:3] + bytes((cc[3] | 0x0F,))
    write(chip, 3, b"\x00\x00\x00\x00")
    assert card.mem[15] == cc[3] | 0x0F                 # bits once set stay set


def test_page_beyond_the_memory_naks():
    chip, card = writer()
    fifo, _, _ = write(chip, 44, b"LAST")                # last page of an NTAG213
    assert fifo == b"\x0a"
    fifo, _, _ = write(chip, 45, b"GONE")
    assert fifo == b"\x00" and card.state == IDLE
    chip, card = writer(None, 135)                      # NTAG215: pages 0..134
    fifo, _, _ = write(chip, 134, b"LAST")
    assert fifo == b"\x0a"


def test_read_only_card_naks_every_write():
    chip, card = writer(b"OLDDATA!", read_only=True)
    for page in (4, 5, 20):
        fifo, _, _ = write(chip, page, b"ABCD")
        assert fifo == b"\x00" and card.state == IDLE
        activate(chip, UID4)                            # REQA from IDLE, select again
        assert card.state == ACTIVE
    assert bytes(card.mem[16:24]) == b"OLDDATA!"


def test_write_with_a_bad_crc_is_a_nak_1():
    chip, card = writer()
    frame = bytearray(with_crc(b"\xa2\x04ABCD"))
    frame[-1] ^= 0xFF
    fifo, _, _ = chip.transceive(frame)
    assert fifo == b"\x01" and card.state == IDLE
    assert bytes(card.mem[16:20]) == bytes(4)


def test_nak_after_wupa_from_halt_returns_to_halt():
    chip, card = writer()
    chip.transceive(with_crc(b"\x50\x00"))              # HLTA
    assert card.state == HALT
    chip.transceive(b"\x52", 7)                         # WUPA wakes it (READY*)
    chip.transceive(b"\x93\x20")
    chip.transceive(with_crc(b"\x93\x70" + UID4 + bytes((UID4[0] ^ UID4[1] ^ UID4[2]
                                                          ^ UID4[3],))))
    assert card.state == ACTIVE
    fifo, _, _ = write(chip, 1, b"ABCD")
    assert fifo == b"\x00" and card.state == HALT


def test_misread_of_an_ack_flips_a_bit_without_a_parity_error():
    for parity in (False, True):
        chip, card = writer()
        chip.emu.misread(1, parity=parity, command=0xA2)
        fifo, _, err = write(chip, 4, b"ABCD")
        assert fifo == b"\x0e" and err == 0             # 4 bits carry no parity bit
        assert bytes(card.mem[16:20]) == b"ABCD"


def test_card_lifted_right_after_its_ack():
    chip, card = writer()
    chip.emu.lift_during(UID4, 1)
    fifo, _, _ = write(chip, 4, b"ABCD")
    assert fifo == b"\x0a" and chip.emu.cards == []
    fifo, irq, _ = write(chip, 5, b"EFGH")
    assert fifo == b"" and irq & 0x01


def test_hung_chip_delivers_no_ack():
    chip, card = writer()
    chip.emu.hang(0x00)
    fifo, irq, _ = write(chip, 4, b"ABCD")
    assert fifo == b"" and irq == 0
    assert chip.read(FIFOLevelReg) == 0 and chip.read(ComIrqReg) == 0
    assert chip.read(ErrorReg) == 0                 # registers read the hang value
    assert bytes(card.mem[16:20]) == bytes(4)       # the WRITE never went out
