"""MFRC522 reader driver: ISO/IEC 14443-3 type A inventory, NTAG21x reads and writes over SPI.

Written from the NXP MFRC522 data sheet (registers, FIFO, timer, CRC
coprocessor, SPI framing) and ISO/IEC 14443-3 (REQA/WUPA, anticollision
with cascade levels, SELECT, HLTA). It takes bus objects, so it runs
unchanged on a Pico (machine.SPI / machine.Pin) and against the emulator in
firmware/sim/mfrc522_emu.py:

    rdr = MFRC522(spi, cs, rst)
    rdr.init()                      # OSError if VersionReg is not an MFRC522
    uids = rdr.inventory(4)         # [b'\\x04\\x11...', ...], antenna off afterwards;
                                    # OSError if the chip stopped working
    raw = rdr.read_identity(uids[0])   # 16 bytes of pages 4..7, or None
    ok, why = rdr.write_identity(uids[0], record)   # enrollment: 16 bytes
    rdr.health()                    # now and then: False if the chip cannot be revived

Timeouts use the chip's timer (TAuto: it starts when transmission ends and
raises TimerIRq if no answer begins in time), so a poll without a card ends
after a small, bounded number of SPI transactions (9 on an empty cell). A
count-based backstop (timeout / `min_poll_us` register reads) ends a wait on
a chip whose timer no longer runs (hung, or reset to its defaults by the
shared RST line); such a wait, or status registers that all read 0xFF, counts
an error and marks the chip `suspect`. An inventory that met an error reads
VersionReg once more: a suspect chip, or one whose version is not an MFRC522's,
raises OSError rather than report an empty cell, and `health()` (or the tile's
own revival, firmware/main.py) re-initialises it: soft reset, then the RST line.
`soft_reset()`, `hard_reset(settle=False)` and `configure()` are the steps, for a
caller that waits out the chip's start-up without blocking.

`inventory` switches the field on and waits `field_settle_us` (ISO/IEC
14443-3: at least 5.1 ms of unmodulated field) unless the field is already on: an asyncio
loop can call `antenna(True)`, await the settle time, then `inventory()`,
which always ends with the field off so neighbouring readers never
cross-talk. `inventory(4, identities)` also reads the identity pages of new
cards while each one is selected, saving the separate `read_identity`.

Card identity (written by enrollment): the 16-byte record of NTAG21x user
memory pages 4..7 that shared_rules/tag_identity.py defines. `read_identity`
returns those raw 16 bytes (so an unenrolled card is seen as such, not as a
read failure); the caller parses them.

`write_identity(uid, record)` writes such a record with NTAG WRITE (A2h, one
page per command, answered by a 4-bit ACK Ah or NAK) and reads it back. Page
4, which holds the magic, is first blanked and written last, so a card lifted
half way holds either no record or the whole new one, never a mix of the old
header with new identity bytes. A page whose ACK is lost or garbled is
written again after a fresh WUPA/SELECT (a WRITE of the same data is
idempotent); a tag that NAKs again is locked, write-protected or read-only.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

try:
    from time import sleep_ms, sleep_us
except ImportError:  # CPython
    from time import sleep as _sleep

    def sleep_us(us):
        _sleep(us / 1000000)

    def sleep_ms(ms):
        _sleep(ms / 1000)

from shared_rules.tag_identity import FIRST_PAGE

# Registers (data sheet section 9.2). Address byte on SPI: bit 7 = read, bits 6..1 = address.
_CommandReg = const(0x01)
_ComIrqReg = const(0x04)
_DivIrqReg = const(0x05)
_ErrorReg = const(0x06)
_FIFODataReg = const(0x09)
_FIFOLevelReg = const(0x0A)
_ControlReg = const(0x0C)
_BitFramingReg = const(0x0D)
_CollReg = const(0x0E)
_ModeReg = const(0x11)
_TxModeReg = const(0x12)
_RxModeReg = const(0x13)
_TxControlReg = const(0x14)
_TxASKReg = const(0x15)
_CRCResultRegH = const(0x21)
_CRCResultRegL = const(0x22)
_RFCfgReg = const(0x26)
_TModeReg = const(0x2A)
_TPrescalerReg = const(0x2B)
_TReloadRegH = const(0x2C)
_TReloadRegL = const(0x2D)
_VersionReg = const(0x37)

# Commands (CommandReg bits 3..0)
_CMD_IDLE = const(0x00)
_CMD_CALCCRC = const(0x03)
_CMD_TRANSMIT = const(0x04)
_CMD_TRANSCEIVE = const(0x0C)
_CMD_SOFTRESET = const(0x0F)
_POWERDOWN = const(0x10)

# ComIrqReg / DivIrqReg bits
_IRQ_CLEAR_ALL = const(0x7F)   # Set1 = 0: writing 1s clears those bits
_TX_IRQ = const(0x40)
_RX_IRQ = const(0x20)
_IDLE_IRQ = const(0x10)
_TIMER_IRQ = const(0x01)
_CRC_IRQ = const(0x04)

# ErrorReg bits
_ERR_BUFFER_OVFL = const(0x10)
_ERR_COLL = const(0x08)
_ERR_PARITY = const(0x02)
_ERR_PROTOCOL = const(0x01)

# CollReg
_COLL_POS_NOT_VALID = const(0x20)
_COLL_POS_MASK = const(0x1F)

# Driver state bits (one int per reader: every attribute costs a 64 KB heap, times 8)
_ON = const(1)          # the field is on
_TRX = const(2)         # Transceive is active, waiting for StartSend
_DIRTY = const(4)       # the FIFO may hold bytes: flush it before use
_SUSPECT = const(8)     # an exchange found the chip hung (see `suspect`)
_ALONE = const(16)      # the last inventory found its one known tag and nothing else

_START_SEND = const(0x80)
_FLUSH_FIFO = const(0x80)
_ANTENNA_BITS = const(0x03)   # Tx1RFEn | Tx2RFEn

# Timer: f_timer = 13.56 MHz / (2 * TPrescaler + 1); 67 gives a tick of 9.96 us.
_TPRESCALER = const(67)
_TICK_NS = const(9956)
# Air interface at 106 kbit/s (ISO/IEC 14443-2/-3): one bit is 128 / fc; a card answers
# no sooner than the frame delay time, 1172 / fc, after the end of the PCD's frame.
_BIT_NS = const(9440)
_FDT_US = const(86)

# ISO/IEC 14443-3 type A and NTAG21x commands
_REQA = const(0x26)
_WUPA = const(0x52)
_SEL_CL1 = const(0x93)
_SEL_CL2 = const(0x95)
_SEL_CL3 = const(0x97)
_NVB_SELECT = const(0x70)
_CASCADE_TAG = const(0x88)
_SAK_CASCADE = const(0x04)
_HLTA = const(0x50)
_NTAG_READ = const(0x30)
_NTAG_WRITE = const(0xA2)
_NTAG_ACK = const(0x0A)     # 4-bit answer to WRITE; any other 4-bit value is a NAK
_NO_ANSWER = const(-1)      # _write_page: no valid 4-bit answer (timeout, garbage, error)

# Results of one exchange
_OK = const(0)
_TIMEOUT = const(1)
_COLLISION = const(2)
_ERROR = const(3)

# What a request (REQA/WUPA) heard
_SILENT = const(0)          # no card answered
_ANSWERED = const(1)        # an ATQA, or several colliding: anticollision sorts them out
_GARBLED = const(2)         # something answered, but the ATQA was damaged: ask again

# CRC_A (ISO/IEC 14443-3 annex B: CRC-16/CCITT bit-reversed, polynomial 8408h, preset
# 6363h), four bits at a time: the CRC of each 4-bit value. Computed here rather than by
# the chip's coprocessor: that costs seven SPI transactions per CRC (0.3 ms on a Pico),
# the table lookups a few microseconds per byte.
_CRC_NIBBLE = (0x0000, 0x1081, 0x2102, 0x3183, 0x4204, 0x5285, 0x6306, 0x7387,
               0x8408, 0x9489, 0xA50A, 0xB58B, 0xC60C, 0xD68D, 0xE70E, 0xF78F)


def crc_a(data, n, out=None, at=0):
    """CRC_A of data[:n]; written LSB first to out[at:at+2] if out is given.

    Over a frame that ends in its own CRC_A the result is 0.
    """
    t = _CRC_NIBBLE
    c = 0x6363
    for i in range(n):
        c ^= data[i]
        c = (c >> 4) ^ t[c & 15]
        c = (c >> 4) ^ t[c & 15]
    if out is not None:
        out[at] = c & 0xFF
        out[at + 1] = c >> 8
    return c


def air_us(bits):
    """Microseconds a frame of ``bits`` data bits takes on the air at 106 kbit/s: start
    of frame, the bits with a parity bit per whole byte, end of frame."""
    return (bits + (bits >> 3) + 2) * _BIT_NS // 1000


class MFRC522:
    """One MFRC522 on a shared SPI bus, selected by its own chip-select pin."""

    # Chip versions accepted by init()/health(): NXP v1.0, v2.0 and the common clones.
    accepted_versions = (0x91, 0x92, 0x88, 0x12)

    # Named timeouts (chip timer, started when transmission ends).
    # REQA/WUPA, anticollision, SELECT: a card answers after the frame delay time, 86 or
    # 91 us (1172 or 1236 / fc), and TAuto stops the timer when the answer begins; three
    # times that is margin enough and ends an empty poll soon.
    request_timeout_us = 300
    read_timeout_us = 5000      # NTAG READ
    # NTAG WRITE: the EEPROM write takes a few ms (about 4); the data sheet's TTimeOut for the
    # ACK/NAK of WRITE is 10 ms.
    write_timeout_us = 10000
    # ISO/IEC 14443-3: at least 5.1 ms of unmodulated field before the first request.
    field_settle_us = 5100
    # Backstop against a hung chip whose timer never fires: SPI polls per microsecond of
    # timeout assumes no register read is faster than this.
    min_poll_us = 10
    max_retries = 2             # failed inventory rounds tolerated per poll
    reset_ms = 50               # wait after soft reset / RST release (oscillator start-up)
    rx_gain = 0x4               # RFCfgReg RxGain: 4 = 33 dB (reset value)

    def __init__(self, spi, cs, rst=None, delay_us=None):
        self.spi = spi
        self.cs = cs
        self.rst = rst
        # How time passes while a frame is on the air: a busy wait on a board; against
        # the emulator, its virtual clock (firmware/boards/sim.py passes emu.advance).
        self.delay_us = delay_us or sleep_us
        self.errors = 0
        self.reinits = 0
        self._chip = _DIRTY                 # _ON | _TRX | _DIRTY | _SUSPECT
        self._reload = -1
        cs(1)

    @property
    def suspect(self):
        """True once an exchange found the chip hung (its timer dead, its registers reading
        0xFF), until configure() succeeds."""
        return bool(self._chip & _SUSPECT)

    # Scratch buffers, shared by every reader of the tile: no method awaits or keeps data
    # in them between calls, so one reader's exchange is over before another's begins.
    # (Per reader they cost about 800 bytes of the tile's 64 KB heap; a cell tile has 8.)
    _reg = bytearray(2)
    _burst = bytearray(4)                   # several registers in one transaction
    _status = bytearray(5)                  # ComIrq, Error, FIFOLevel, Control + 0
    _tx = bytearray(18)
    _rx = bytearray(65)                     # FIFO data (one spare byte for the read burst)
    _cl = bytearray(5)                      # UID bytes of one cascade level + BCC
    _uid = bytearray(10)
    _got = bytearray(2)                     # last answer: bytes, valid bits of the last (0: 8)
    _hlta = bytearray(4)                    # HLTA and its CRC_A (the same for every chip)
    _fifo_addr = bytearray((_FIFODataReg << 1,))
    # Views made once: a slice of a view is one small object, not a copy of the data.
    _txv = memoryview(_tx)
    _rxv = memoryview(_rx)

    # -- register access ---------------------------------------------------------------

    def _read(self, reg):
        buf = self._reg
        buf[0] = 0x80 | (reg << 1)
        buf[1] = 0
        self.cs(0)
        try:
            self.spi.write_readinto(buf, buf)
        finally:
            self.cs(1)
        return buf[1]

    def _write(self, reg, value):
        buf = self._reg
        buf[0] = reg << 1
        buf[1] = value
        self.cs(0)
        try:
            self.spi.write(buf)
        finally:
            self.cs(1)

    def _read_burst(self, regs):
        """Read several registers in one transaction: regs holds the read address bytes
        followed by a 0; the values replace them, shifted one place (value i at regs[i+1])."""
        self.cs(0)
        try:
            self.spi.write_readinto(regs, regs)
        finally:
            self.cs(1)

    def _write_fifo(self, data, n):
        """n bytes of data (a memoryview, or a buffer of exactly n bytes) into the FIFO.

        One transaction: the FIFO's write address, then every byte goes to the FIFO.
        """
        self.cs(0)
        try:
            self.spi.write(self._fifo_addr)
            self.spi.write(data if len(data) == n else data[:n])
        finally:
            self.cs(1)

    def _read_fifo(self, n):
        """Read n FIFO bytes into self._rx[0:n] in one transaction."""
        if n == 0:
            return
        # Send the FIFO's read address n times, then 0; MISO byte i+1 is datum i.
        rx = self._rx
        addr = 0x80 | (_FIFODataReg << 1)
        for i in range(n):
            rx[i] = addr
        rx[n] = 0
        mv = self._rxv[:n + 1]
        self.cs(0)
        try:
            self.spi.write_readinto(mv, mv)
        finally:
            self.cs(1)
        for i in range(n):
            rx[i] = rx[i + 1]

    # -- chip life cycle ---------------------------------------------------------------

    def version(self):
        """VersionReg: 0x91 or 0x92 on an NXP MFRC522 (0x00/0xFF: absent or hung)."""
        return self._read(_VersionReg)

    def hard_reset(self, settle=True):
        """Pulse the RST (NRSTPD) line. On a tile it is shared: every reader on it resets
        and must be configured again (configure(), or init()). settle=False skips the
        oscillator start-up wait (`reset_ms`): the caller waits, e.g. with asyncio."""
        if self.rst is None:
            return False
        self.rst(0)
        sleep_us(100)
        self.rst(1)
        self._chip = _DIRTY | (self._chip & _SUSPECT)
        if settle:
            sleep_ms(self.reset_ms)
        return True

    def soft_reset(self):
        """SoftReset command; the chip needs `reset_ms` before configure()."""
        if self.rst is not None:
            self.rst(1)
        self._write(_CommandReg, _CMD_SOFTRESET)
        self._chip = _DIRTY | (self._chip & _SUSPECT)

    def init(self):
        """Soft-reset and configure the chip; OSError if it is not an MFRC522."""
        self.soft_reset()
        sleep_ms(self.reset_ms)
        self.configure()

    def configure(self):
        """Set up a chip that was reset `reset_ms` ago; OSError if it is not an MFRC522.

        An absent chip (0x00 or 0xFF) fails on its VersionReg at once, without waiting.
        """
        v = self.version()
        if v not in self.accepted_versions:
            raise OSError("MFRC522 not answering: VersionReg reads 0x%02x" % v)
        # The PowerDown bit reads 1 until the wake-up after a soft reset is over.
        for _ in range(10):
            if not self._read(_CommandReg) & _POWERDOWN:
                break
            sleep_ms(1)
        self._write(_TModeReg, 0x80 | (_TPRESCALER >> 8))   # TAuto: timer starts after Tx
        self._write(_TPrescalerReg, _TPRESCALER & 0xFF)
        self._reload = -1
        self._set_timeout(self.request_timeout_us)
        self._write(_TxASKReg, 0x40)        # Force100ASK: type A uses 100 % modulation
        self._write(_ModeReg, 0x3D)         # CRC preset 0x6363 (CRC_A), TxWaitRF
        self._write(_TxModeReg, 0x00)       # no automatic CRC: frames carry CRC_A we compute
        self._write(_RxModeReg, 0x00)
        self._write(_RFCfgReg, (self.rx_gain & 7) << 4)
        self._write(_CollReg, 0x00)         # ValuesAfterColl = 0: bits after a collision read 0
        self._write(_TxControlReg, 0x80)    # antenna off
        self._chip = _DIRTY | (self._chip & _SUSPECT)
        # HLTA is constant: let the CRC coprocessor compute its CRC_A once (also a self-test).
        h = self._hlta
        h[0] = _HLTA
        h[1] = 0
        if not self._calc_crc(h, 2, h, 2) or crc_a(h, 4) != 0:
            raise OSError("MFRC522 CRC coprocessor does not finish or is wrong")
        self._chip &= ~_SUSPECT

    def check(self):
        """True if the chip answers with its version and still has our timer set-up, and
        no exchange since the last set-up found it hung (3 SPI transactions)."""
        return (not self.suspect and self.version() in self.accepted_versions
                and self._read(_TPrescalerReg) == _TPRESCALER & 0xFF
                and self._read(_TModeReg) == 0x80 | (_TPRESCALER >> 8))

    def health(self):
        """Check the chip; re-initialise a hung or reset one, blocking (up to 3 x reset_ms).

        Tries a soft reset first, then the RST line, which resets every reader on it: the
        caller re-initialises the others (firmware/main.py does, and does all this without
        blocking its loop). Returns True if the chip works now.
        """
        if self.check():
            return True
        self.errors += 1
        for hard in (False, True):
            if hard and not self.hard_reset():
                break
            self.reinits += 1
            try:
                if hard:
                    self.configure()
                else:
                    self.init()
                return True
            except OSError:
                pass
        self._chip |= _SUSPECT
        return False

    def antenna(self, on):
        """Switch the 13.56 MHz field (TX1 and TX2 drivers) on or off."""
        self._write(_TxControlReg, 0x80 | _ANTENNA_BITS if on else 0x80)
        self._chip = self._chip | _ON if on else self._chip & ~_ON

    # -- exchanges ---------------------------------------------------------------------

    def _set_timeout(self, us):
        reload = us * 1000 // _TICK_NS
        if reload > 0xFFFF:
            reload = 0xFFFF
        if reload != self._reload:
            self._write(_TReloadRegH, reload >> 8)
            self._write(_TReloadRegL, reload & 0xFF)
            self._reload = reload

    def _wait_irq(self, reg, mask, timeout_us, first_us=0):
        """Poll an IRQ register until one of `mask` is set; the bits, or 0 on the backstop.

        `first_us`: the soonest anything can be set (the frame's air time, and the
        answer's if one is expected). Waiting it out first saves the SPI reads that could
        only see nothing yet: an empty poll reads the IRQ register twice, not ten times.
        """
        if first_us > 0:
            self.delay_us(first_us)
        for _ in range(timeout_us // self.min_poll_us + 16):
            irq = self._read(reg)
            if irq & mask:
                return irq
        self._chip |= _SUSPECT
        self.errors += 1
        return 0

    def _calc_crc(self, data, n, out, at):
        """CRC_A of data[:n] by the chip's coprocessor, written LSB first to out[at:at+2]."""
        # Every exchange leaves the chip idle, so no Idle command is needed first.
        self._write(_DivIrqReg, _CRC_IRQ)
        self._write(_FIFOLevelReg, _FLUSH_FIFO)
        self._chip &= ~_TRX                 # CalcCRC replaces Transceive
        self._write_fifo(data, n)
        self._write(_CommandReg, _CMD_CALCCRC)
        ok = self._wait_irq(_DivIrqReg, _CRC_IRQ, 1000)
        self._write(_CommandReg, _CMD_IDLE)
        if not ok:
            return False
        crc = self._burst
        crc[0] = 0x80 | (_CRCResultRegL << 1)
        crc[1] = 0x80 | (_CRCResultRegH << 1)
        crc[2] = 0                          # reads the reserved register 0: harmless
        crc[3] = 0
        self._read_burst(crc)
        out[at] = crc[1]
        out[at + 1] = crc[2]
        return True

    def _crc_ok(self, n):
        """True if the last n received bytes end in a correct CRC_A (CRC over all is 0)."""
        return n >= 3 and crc_a(self._rx, n) == 0

    def _transceive(self, n, tx_bits=0, rx_align=0, timeout_us=0, rx_bits=0):
        """Send self._tx[:n] (last byte tx_bits long, 0 = 8) and receive into self._rx.

        rx_bits: the length of the answer the command gets if a card answers (0: unknown);
        nothing can arrive before the frame, the frame delay time and that answer are over.
        Returns _OK, _TIMEOUT, _COLLISION or _ERROR; self._got says what came.
        """
        self._set_timeout(timeout_us or self.request_timeout_us)
        self._write(_ComIrqReg, _IRQ_CLEAR_ALL)
        # The FIFO is empty after an exchange whose answer was read out whole.
        if self._chip & _DIRTY:
            self._write(_FIFOLevelReg, _FLUSH_FIFO)
        self._write_fifo(self._txv, n)
        # Transceive stays active after a complete answer (data sheet 10.3.1.8: each
        # transmission is started by StartSend); after a timeout or an error it is
        # stopped, so the receiver is not left waiting.
        if not self._chip & _TRX:
            self._write(_CommandReg, _CMD_TRANSCEIVE)
        # Bit framing and StartSend in one write: the transmission starts with it.
        self._write(_BitFramingReg, _START_SEND | (rx_align << 4) | tx_bits)
        got = self._got
        got[0] = 0
        self._chip |= _TRX | _DIRTY
        first = air_us((n - 1) * 8 + (tx_bits or 8))
        if rx_bits:
            first += _FDT_US + air_us(rx_bits)
        self.delay_us(first)
        # Each poll reads ComIrqReg and, in the same transaction, what an answer leaves
        # in ErrorReg, FIFOLevelReg and ControlReg: final once RxIRq is set, which the
        # chip sets when the reception ends.
        st = self._status
        irq = 0
        for _ in range((self.request_timeout_us + (timeout_us or self.request_timeout_us))
                       // self.min_poll_us + 16):
            st[0] = 0x80 | (_ComIrqReg << 1)
            st[1] = 0x80 | (_ErrorReg << 1)
            st[2] = 0x80 | (_FIFOLevelReg << 1)
            st[3] = 0x80 | (_ControlReg << 1)
            st[4] = 0
            self._read_burst(st)
            irq = st[1]
            if irq & (_RX_IRQ | _IDLE_IRQ | _TIMER_IRQ):
                break
        else:
            irq = 0
        if irq == 0 or (irq == 0xFF and st[2] == 0xFF):
            # The timer never fired, or every register reads 0xFF (ErrorReg bit 5 is
            # reserved, 0 on a working chip): a hung or absent chip.
            self._chip |= _SUSPECT
            self.errors += 1
            self._idle()
            return _ERROR
        if not irq & (_RX_IRQ | _IDLE_IRQ):
            self._idle()
            return _TIMEOUT if irq else _ERROR
        err = st[2]
        if err & (_ERR_BUFFER_OVFL | _ERR_PARITY | _ERR_PROTOCOL):
            self.errors += 1
            self._idle()
            return _ERROR
        level = st[3] & 0x7F
        if level > 64:
            level = 64
        got[1] = st[4] & 0x07
        self._read_fifo(level)
        got[0] = level
        self._chip &= ~_DIRTY
        if err & _ERR_COLL:
            return _COLLISION
        return _OK

    def _idle(self):
        """Stop the current command (Transceive waiting for an answer) and forget the FIFO."""
        self._write(_CommandReg, _CMD_IDLE)
        self._chip = (self._chip & ~_TRX) | _DIRTY

    def _request(self, cmd):
        """REQA or WUPA (7-bit short frame): _ANSWERED, _SILENT or _GARBLED."""
        self._tx[0] = cmd
        st = self._transceive(1, 7, 0, 0, 16)   # ATQA: 16 bits
        if st == _TIMEOUT:
            return _SILENT
        if st == _COLLISION:
            return _ANSWERED    # cards of different ATQA answered: anticollision sorts them
        if st == _OK and self._got[0] == 2 and self._got[1] == 0:
            return _ANSWERED
        if st == _OK:
            self.errors += 1    # an answer of the wrong length
        return _GARBLED         # (a parity or protocol error counted one already)

    def _anticollision(self, sel):
        """Resolve one cascade level into self._cl (4 UID bytes + BCC); False on failure."""
        cl = self._cl
        tx = self._tx
        rx = self._rx
        known = 0                           # UID bits of this level we already know
        for _ in range(34):                 # at most one step per UID bit, plus the last
            nbytes = known >> 3
            nbits = known & 7
            tx[0] = sel
            tx[1] = ((2 + nbytes) << 4) | nbits     # NVB: bytes and bits we send
            nsend = nbytes + (1 if nbits else 0)
            for i in range(nsend):
                tx[2 + i] = cl[i]
            # The cards answer the UID bits and BCC we do not know yet.
            st = self._transceive(2 + nsend, nbits, nbits, 0, 40 - known)
            if st == _TIMEOUT or st == _ERROR:
                return False
            # The first received byte shares its low `nbits` bits with our last sent byte.
            got = self._got
            for i in range(got[0]):
                j = nbytes + i
                if j > 4:
                    break
                if i == 0 and nbits:
                    low = (1 << nbits) - 1
                    cl[j] = (cl[j] & low) | (rx[0] & ~low & 0xFF)
                else:
                    cl[j] = rx[i]
            if st == _COLLISION:
                coll = self._read(_CollReg)
                if coll & _COLL_POS_NOT_VALID:
                    self.errors += 1
                    return False
                pos = (coll & _COLL_POS_MASK) or 32     # 1-based, counted from RxAlign's byte
                bit = (nbytes << 3) + pos - 1           # UID bit index within this level
                if bit < known or bit > 31:
                    self.errors += 1
                    return False
                # Keep the bits before the collision and follow the cards that sent a 1.
                j = bit >> 3
                cl[j] = (cl[j] & ((1 << (bit & 7)) - 1)) | (1 << (bit & 7))
                known = bit + 1
                continue
            if nbytes + got[0] != 5 or got[1] != 0:
                self.errors += 1
                return False
            if cl[0] ^ cl[1] ^ cl[2] ^ cl[3] ^ cl[4]:
                self.errors += 1                        # BCC mismatch: misread
                return False
            return True
        return False

    def _exchange_crc(self, n, answer_len, timeout_us=0):
        """Send self._tx[:n] with CRC_A appended; True if an answer of answer_len bytes
        with a correct CRC_A came back (in self._rx)."""
        crc_a(self._tx, n, self._tx, n)
        st = self._transceive(n + 2, 0, 0, timeout_us, answer_len * 8)
        if st != _OK or self._got[0] != answer_len or not self._crc_ok(answer_len):
            if st != _TIMEOUT:
                self.errors += 1     # a misread, or a 4-bit NAK instead of data
            return False
        return True

    def _select(self, sel):
        """SELECT the card whose level UID is in self._cl; its SAK, or -1."""
        tx = self._tx
        tx[0] = sel
        tx[1] = _NVB_SELECT
        for i in range(5):
            tx[2 + i] = self._cl[i]
        if not self._exchange_crc(7, 3):
            return -1
        return self._rx[0]

    def _halt(self):
        """HLTA: the selected card goes to HALT. A card never answers it, so the frame goes
        out with the Transmit command and nothing waits for an answer."""
        self._write(_ComIrqReg, _IRQ_CLEAR_ALL)
        if self._chip & _DIRTY:
            self._write(_FIFOLevelReg, _FLUSH_FIFO)
        self._chip &= ~_TRX                 # the Transmit command replaces Transceive
        self._write_fifo(self._hlta, 4)
        self._write(_BitFramingReg, 0)
        self._write(_CommandReg, _CMD_TRANSMIT)
        self._wait_irq(_ComIrqReg, _IDLE_IRQ | _TX_IRQ, 1000, air_us(32))

    def _activate(self, uid):
        """Full anticollision + SELECT of one card; writes its UID into `uid`, returns length."""
        n = 0
        for sel in (_SEL_CL1, _SEL_CL2, _SEL_CL3):
            if not self._anticollision(sel):
                return 0
            sak = self._select(sel)
            if sak < 0:
                return 0
            cl = self._cl
            if sak & _SAK_CASCADE:
                if cl[0] != _CASCADE_TAG:
                    self.errors += 1
                    return 0
                for i in range(1, 4):
                    uid[n] = cl[i]
                    n += 1
                continue
            for i in range(4):
                uid[n] = cl[i]
                n += 1
            return n
        return 0

    def _select_known(self, uid):
        """WUPA, then SELECT the card `uid` directly (no anticollision needed). True if active."""
        return self._request(_WUPA) != _SILENT and self._select_uid(uid)

    def _select_uid(self, uid):
        """SELECT the card `uid` (after a request) by its UID, level by level. True if it is
        active; a card in READY with another UID drops back to IDLE."""
        n = len(uid)
        if n == 4:
            levels = 1
        elif n == 7:
            levels = 2
        elif n == 10:
            levels = 3
        else:
            return False
        cl = self._cl
        k = 0
        for level in range(levels):
            sel = (_SEL_CL1, _SEL_CL2, _SEL_CL3)[level]
            if level < levels - 1:
                cl[0] = _CASCADE_TAG
                cl[1] = uid[k]
                cl[2] = uid[k + 1]
                cl[3] = uid[k + 2]
                k += 3
            else:
                for i in range(4):
                    cl[i] = uid[k + i]
            cl[4] = cl[0] ^ cl[1] ^ cl[2] ^ cl[3]
            sak = self._select(sel)
            if sak < 0 or bool(sak & _SAK_CASCADE) != (level < levels - 1):
                return False
        return True

    def _read_pages(self, page):
        """NTAG READ of 4 pages from `page` on the selected card; 16 bytes or None."""
        tx = self._tx
        tx[0] = _NTAG_READ
        tx[1] = page
        if not self._exchange_crc(2, 18, self.read_timeout_us):
            return None
        return bytes(self._rx[0:16])

    def _write_page(self, page, data, at=0):
        """NTAG WRITE of data[at:at+4] (4 zero bytes if data is None) to `page` of the
        selected card.

        The card answers with 4 bits and no CRC_A (ACK Ah, or a NAK: 0h invalid page or
        locked, 1h parity/CRC error, 4h/5h counter or EEPROM error): the chip reports one
        FIFO byte with ControlReg RxLastBits = 4. Returns that 4-bit code, or _NO_ANSWER
        (-1) on a timeout, a frame that is not 4 bits long, or a reception error.
        """
        tx = self._tx
        tx[0] = _NTAG_WRITE
        tx[1] = page
        for i in range(4):
            tx[2 + i] = data[at + i] if data else 0
        crc_a(tx, 6, tx, 6)
        st = self._transceive(8, 0, 0, self.write_timeout_us, 4)
        if st != _OK or self._got[0] != 1 or self._got[1] != 4:
            if st != _TIMEOUT:
                self.errors += 1
            return _NO_ANSWER
        return self._rx[0] & 0x0F

    def _field_on(self):
        """Switch the field on, if it is off, and give the cards time to power up.

        Returns whether it was off. A caller that switched the field on itself
        (antenna(True)) and waited, e.g. with asyncio.sleep_ms, skips the wait here.
        """
        if self._chip & _ON:
            return False
        self.antenna(True)
        if self.field_settle_us:
            sleep_us(self.field_settle_us)
        return True

    # -- public polling API ------------------------------------------------------------

    def inventory(self, max_tags=4, identities=None, known=None, check=False):
        """UIDs (bytes) of up to max_tags cards in the field, each selected once and halted.

        Switches the field on (waiting field_settle_us unless it was already on) and off
        again afterwards. If `identities` is a dict, the identity pages of each card not
        yet in it are read while the card is selected: identities[uid] = the 16 bytes, if
        the READ succeeded (a failed read leaves no entry: the next poll tries again).
        `known`: the UIDs the last poll found; each is woken with WUPA and selected
        directly by its UID, then anticollision finds any other card (a card gone is
        simply not in the result).

        `check` (the quick check): if `known` is one tag, whose identity is in
        `identities`, and the last inventory found it and nothing else, one anticollision
        frame stands for its SELECT, HLTA and the search for newcomers: a card lying alone
        is polled in a third of the time (tools/bench_reader.py: 1.5 ms of chip time
        against 4.5). A newcomer collides with it and is found in the same poll, as
        without `check`. A newcomer whose first three UID bytes are the known tag's would
        not collide: the caller passes `check` only on some polls (the tile: three in
        four), and a full poll finds it. (The name is one the tile has already: a new
        argument name costs each tile's heap 32 bytes.)

        Raises OSError if the chip did not work (a dead timer, registers reading 0x00 or
        0xFF): then the result would say nothing about the cards, not "no card". A chip
        already `suspect` (an earlier exchange, e.g. an identity write, found it hung)
        raises at once, without an exchange: only configure() clears that.
        """
        found = []
        uid = self._uid
        errors = self.errors
        try:
            if not self.suspect:
                self._field_on()
            retry = False
            quiet = False           # a request went unanswered: no card is left to find
            # The tags of the last poll first, each selected by its UID: no anticollision,
            # so a cell whose tags lie still is polled in about 70% of the time. WUPA before
            # each: a card may still be in HALT from the last poll (a field off for less
            # than a card's reset time, a 1-cell tile, a caller that kept the field on);
            # the other halted cards it wakes drop back to HALT at a SELECT not theirs.
            alone = check and self._chip & _ALONE and known and len(known) == 1 \
                and (identities is None or known[0] in identities)
            self._chip &= ~_ALONE
            for tag in known or ():
                if len(found) >= max_tags or self.suspect:
                    break
                if self._request(_WUPA) == _SILENT:
                    quiet = True
                    break
                if alone:
                    # One anticollision frame of the first cascade level (NVB 20h): every
                    # card in the field answers its first UID bytes and their BCC, so a
                    # second card collides in the first bit where the two differ. Whole,
                    # clean and ours: the tag is alone, and no search follows. Else the
                    # cards are READY, and the SELECT below takes ours directly.
                    rx = self._rx
                    self._tx[0] = _SEL_CL1
                    self._tx[1] = 0x20
                    k = len(tag) > 4    # then the cascade tag and 3 UID bytes
                    alone = self._transceive(2, 0, 0, 0, 40) == _OK and self._got[0] == 5 \
                        and not self._got[1] and not rx[0] ^ rx[1] ^ rx[2] ^ rx[3] ^ rx[4] \
                        and rx[0] == (_CASCADE_TAG if k else tag[0])
                    for j in range(1, 4):
                        if rx[j] != tag[j - k]:
                            alone = False
                    if alone:
                        found.append(tag)
                        quiet = True
                        break
                if self._select_uid(tag):
                    found.append(tag)
                    self._identity(tag, identities)
                    self._halt()
                else:
                    # It is gone (or its SAK was lost). Cards that answered are READY, or
                    # IDLE again after our SELECT: the search below asks twice.
                    retry = True
            # The search: REQA, so the cards halted above stay silent (WUPA if no tag was
            # known: it also wakes cards halted by an earlier read).
            cmd = _REQA if known else _WUPA
            search = retry or not quiet
            failures = 0
            while search and len(found) < max_tags and failures <= self.max_retries \
                    and not self.suspect:
                heard = self._request(cmd)
                if heard == _SILENT and retry:
                    # A card left READY by a failed round drops to IDLE on this request
                    # without answering (ISO/IEC 14443-3): ask once more before giving up.
                    heard = self._request(cmd)
                if heard == _SILENT:
                    break
                if heard == _GARBLED:
                    # Something answered: the cards are READY (and drop back at the next
                    # request), so ask again, with the same command.
                    failures += 1
                    retry = True
                    continue
                cmd = _REQA         # from now on, cards we halted stay silent
                retry = False
                n = self._activate(uid)
                if n == 0:
                    failures += 1
                    retry = True
                    continue
                tag = bytes(uid[0:n])
                if tag in found:
                    failures += 1   # it answered again: its HLTA was lost
                    retry = True
                else:
                    found.append(tag)
                self._identity(tag, identities)
                self._halt()
            if self.errors != errors or self.suspect:
                # Something went wrong: one register read tells a misread from a chip
                # that stopped (VersionReg 0x00 or 0xFF, or its timer dead).
                v = self.version()
                if self.suspect or v not in self.accepted_versions:
                    self._chip |= _SUSPECT
                    raise OSError("MFRC522 hung: VersionReg reads 0x%02x" % v)
            elif len(found) == 1 and found == known:
                self._chip |= _ALONE        # the next poll may be quick
        finally:
            self.antenna(False)
        return found

    def _identity(self, tag, identities):
        """Read the identity pages of the selected card `tag` into identities, once."""
        if identities is not None and tag not in identities:
            raw = self._read_pages(FIRST_PAGE)
            if raw is not None:
                identities[tag] = raw

    def write_identity(self, uid, record):
        """Write the 16-byte identity `record` (tag_identity.record()) into pages 4..7 of card
        `uid`; returns (ok, reason), reason in words:

            (True, "written")
            (False, "no answer")                    card absent, lifted, or never answered
            (False, "NAK on page N (locked or read-only tag?)")   refused twice
            (False, "read back differs")            every page ACKed, the READ disagrees

        Wakes the card with WUPA, selects it by its UID, writes page by page checking each
        4-bit ACK, reads the pages back, halts the card, and leaves the field as it found it.
        """
        if len(record) != 16:
            raise ValueError("record is not 16 bytes")
        switched_on = self._field_on()
        try:
            if not self._select_known(uid):
                return False, "no answer"
            # Page 4 blank, pages 5, 6, 7, then page 4 with the magic: a torn write leaves
            # no record rather than the old header over new identity bytes.
            for k in range(5):
                page = FIRST_PAGE + (k & 3)
                data = record if k else None
                ans = self._write_page(page, data, (k & 3) << 2)
                if ans != _NTAG_ACK:
                    # Once more after HLTA + WUPA + SELECT: a card whose ACK was lost is still
                    # ACTIVE (it would ignore WUPA); after a NAK it is IDLE or HALT.
                    self._halt()
                    if not self._select_known(uid):
                        return False, "no answer"
                    ans = self._write_page(page, data, (k & 3) << 2)
                    if ans == _NO_ANSWER:
                        return False, "no answer"
                    if ans != _NTAG_ACK:
                        return False, "NAK on page %d (locked or read-only tag?)" % page
            data = self._read_pages(FIRST_PAGE)
            if data is None:
                self._halt()
                if self._select_known(uid):
                    data = self._read_pages(FIRST_PAGE)
            if data is None:
                return False, "no answer"
            if data != record:
                return False, "read back differs"
            return True, "written"
        finally:
            self._halt()
            if switched_on:
                self.antenna(False)

    def read_identity(self, uid):
        """The 16 bytes of pages 4..7 of card `uid` (NTAG READ), or None if it did not answer.

        Wakes the card with WUPA, selects it by its UID, reads, halts it, and leaves the
        field as it found it.
        """
        switched_on = self._field_on()
        try:
            if not self._select_known(uid):
                return None
            data = self._read_pages(FIRST_PAGE)
            self._halt()
            return data
        finally:
            if switched_on:
                self.antenna(False)
