"""A register-level MFRC522 with ISO/IEC 14443-3 type A cards, on a fake SPI bus.

The driver in firmware/drivers/mfrc522.py runs against it unchanged:

    spi = SimSPI()
    rst = SimPin(value=1)
    emu = Mfrc522Emulator()
    cs = SimPin(value=1)
    spi.attach(cs, emu)            # several chips on one bus, one CS each
    emu.attach_rst(rst)            # RST low resets the chip (shared by all readers)
    emu.place(NtagCard(b"\\x04\\x11\\x22\\x33\\x44\\x55\\x66"))
    MFRC522(spi, cs, rst).inventory()

What is modelled: SPI framing (address byte, read and write bursts), the
64-byte FIFO, FIFOLevelReg flush, commands Idle / Mem / CalcCRC / Transceive
/ SoftReset, ComIrqReg and DivIrqReg with their Set bits, ErrorReg,
CollReg (first collision position, counted from the first received byte
including RxAlign, 1-based, 32 reads as 0), BitFramingReg (TxLastBits,
RxAlign, StartSend), ControlReg RxLastBits and TStartNow/TStopNow, the
timer (TModeReg TAuto/TAutoRestart, TPrescalerReg, TReloadReg, TimerIRq),
TxControlReg switching the field (cards lose power when it goes off) and
the CRC coprocessor with the ModeReg preset.

Time is virtual and deterministic: every SPI transaction (CS low) advances
this chip's clock by `us_per_transaction`; air time is 9.44 us per bit at
106 kbit/s. So a test counts transactions, never seconds.

Cards answer on the air together: the emulator overlays the answering
cards' bit streams and reports the first bit where they differ as a
collision (CollErr, CollReg), clearing the bits from there on when
ValuesAfterColl is 0, which is what the chip shows with several tags.

Cards: `NtagCard` answers REQA/WUPA, anticollision, SELECT, HLTA and the
NTAG21x READ (30h) and WRITE (A2h) commands. WRITE is answered after the
EEPROM write time with a 4-bit ACK (Ah) or NAK (0h), which the chip model
delivers as one FIFO byte with ControlReg RxLastBits = 4 and RxIRq, as the
real chip does. Writable: page 2 (only its lock bytes, bit-wise OR; the
block-locking bits are stored but freeze nothing), page 3 (the capability container, one-time
programmable: bit-wise OR), pages 4 up to the last page; pages 0..1 and
pages beyond the memory NAK. The static lock bits (page 2) make pages 3..15
read-only at once (simplified: the NTAG203 data sheet has them take effect at
the next REQA/WUPA). `read_only=True` is a tag that NAKs every WRITE (locked,
or write-protected by a password we do not have). Dynamic lock bits and
AUTH0 password protection are not modelled.

Faults: `misread()` corrupts an answer (a flipped bit the CRC or BCC must
catch, or a parity error the chip flags); `lift_during(uid, frames)` takes a
card away after it answered `frames` more frames; `hang(value)` makes every
register read `value` (0x00 or 0xFF) and no command finish until a soft reset
or an RST pulse (`soft_reset_cures=False`: only RST helps; `rst_cures=False`
as well: nothing does, a chip that is dead for good).
"""

# Registers (same addresses as the data sheet; the emulator is the chip side).
CommandReg = 0x01
ComIrqReg = 0x04
DivIrqReg = 0x05
ErrorReg = 0x06
Status1Reg = 0x07
Status2Reg = 0x08
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
TCounterValRegH = 0x2E
TCounterValRegL = 0x2F
VersionReg = 0x37

CMD_IDLE = 0x00
CMD_MEM = 0x01
CMD_CALCCRC = 0x03
CMD_TRANSMIT = 0x04
CMD_NOCHANGE = 0x07
CMD_TRANSCEIVE = 0x0C
CMD_SOFTRESET = 0x0F

TX_IRQ = 0x40
RX_IRQ = 0x20
IDLE_IRQ = 0x10
ERR_IRQ = 0x02
TIMER_IRQ = 0x01
CRC_IRQ = 0x04

ERR_BUFFER_OVFL = 0x10
ERR_COLL = 0x08
ERR_PARITY = 0x02

# Reset values of the registers that are not 0x00 (data sheet section 9.3).
# (address, value) pairs, in one bytes object (44 bytes of heap, not 22 tuples):
# CommandReg 20, 02h 80, ComIrqReg 14, Status1Reg 21, 0Bh 08, ControlReg 10,
# CollReg A0, ModeReg 3F, TxControlReg 80, 16h 10, 17h 84, 18h 84, 19h 4D, 1Ch 62,
# 1Fh EB, CRCResultRegH FF, CRCResultRegL FF, 24h 26, 26h 48, 27h 88, 28h 20, 29h 20.
_RESET_VALUES = (
    b"\x01\x20\x02\x80\x04\x14\x07\x21\x0b\x08\x0c\x10\x0e\xa0\x11\x3f"
    b"\x14\x80\x16\x10\x17\x84\x18\x84\x19\x4d\x1c\x62\x1f\xeb\x21\xff"
    b"\x22\xff\x24\x26\x26\x48\x27\x88\x28\x20\x29\x20"
)

BIT_NS = 9440       # one bit at 106 kbit/s (128 / 13.56 MHz)
FDT_US = 90         # frame delay time of a card's answer (about 1172 / fc)
_CRC_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)


def crc_a(data, n=None, preset=0x6363):
    """ISO/IEC 14443-3 CRC_A (x^16 + x^12 + x^5 + 1, LSB first) of data[:n]."""
    crc = preset
    for i in range(len(data) if n is None else n):
        b = (data[i] ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return crc & 0xFFFF


def _with_crc(data):
    c = crc_a(data)
    return bytes(data) + bytes((c & 0xFF, c >> 8))


def _crc_ok(frame, n):
    return n >= 3 and crc_a(frame, n) == 0


class SimPin:
    """machine.Pin-like output/input: value(), __call__, on()/off(); watchers see changes."""

    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id=None, mode=None, pull=None, value=1):
        self.id = id
        self._v = 1 if value else 0
        self._watchers = []

    def init(self, *args, **kwargs):
        if "value" in kwargs:
            self.value(kwargs["value"])

    def watch(self, fn):
        """Call fn(level) whenever the level changes (CS and RST lines of emulated chips)."""
        self._watchers.append(fn)

    def value(self, v=None):
        if v is None:
            return self._v
        v = 1 if v else 0
        if v != self._v:
            self._v = v
            for fn in self._watchers:
                fn(v)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    high = on
    low = off


class SimSPI:
    """machine.SPI-like bus; each attached chip listens while its CS pin is low."""

    def __init__(self, id=0, **kwargs):
        self._devices = []
        self._n_selected = 0
        self._one = None        # the selected chip when exactly one is
        self.contention = 0     # bytes clocked with more than one chip selected

    def init(self, *args, **kwargs):
        pass

    def deinit(self):
        pass

    def attach(self, cs_pin, emulator):
        """Put `emulator` on this bus behind chip-select `cs_pin` (active low)."""
        self._devices.append((cs_pin, emulator))
        emulator.bus = self
        cs_pin.watch(emulator.cs_changed)
        if cs_pin.value() == 0:
            emulator.cs_changed(0)
        if cs_pin.value() == 0:
            self._cs_changed(emulator, 0)

    def _cs_changed(self, emulator, level):
        if level == 0:
            self._n_selected += 1
            self._one = emulator
            return
        self._n_selected -= 1
        self._one = None
        if self._n_selected == 1:       # after contention: find the one still selected
            for pin, emu in self._devices:
                if pin._v == 0:
                    self._one = emu

    def _exchange(self, b):
        if self._n_selected == 1:
            return self._one.spi_byte(b)
        out = 0xFF              # MISO idles high with nobody driving it
        if self._n_selected:
            self.contention += 1
            for pin, emu in self._devices:
                if pin._v == 0:
                    out &= emu.spi_byte(b)
        return out

    def write(self, buf):
        for b in buf:
            self._exchange(b)

    def read(self, n, write=0x00):
        buf = bytearray(n)
        self.readinto(buf, write)
        return bytes(buf)

    def readinto(self, buf, write=0x00):
        for i in range(len(buf)):
            buf[i] = self._exchange(write)

    def write_readinto(self, out, inbuf):
        if self._n_selected == 1:
            byte = self._one.spi_byte
            for i in range(len(out)):
                inbuf[i] = byte(out[i])
            return
        for i in range(len(out)):
            inbuf[i] = self._exchange(out[i])


# Card states (ISO/IEC 14443-3 figure 7)
IDLE = 0
READY = 1
ACTIVE = 2
HALT = 3


class NtagCard:
    """An ISO/IEC 14443-3 type A card with NTAG21x memory (READ of 4 pages, WRITE of one).

    uid: 4, 7 or 10 bytes (NTAG21x have 7). pages: optional dict {page: 4 bytes}
    or bytes written from page 4 on (the user memory, where enrollment puts the
    card identity). npages: 45 (NTAG213), 135 (NTAG215), 231 (NTAG216).
    read_only: every WRITE is refused with a NAK (a locked or write-protected tag).
    """

    write_time_us = 4100    # EEPROM write before the ACK (about 4 ms; TTimeOut is 10 ms)
    read_only = False       # class defaults: a card object stays small (64 KB heap tests)

    def __init__(self, uid, pages=None, npages=45, read_only=False):
        self.mem = bytearray(npages * 4)
        self.load(uid, pages, read_only)

    def load(self, uid, pages=None, read_only=False):
        """Make this card tag `uid` holding `pages`, in the memory it has: a spare card of
        the virtual table's is reused this way, so placing a tag allocates nothing big in
        a 64 KB tile process (tag_pool)."""
        uid = bytes(uid)
        if len(uid) not in (4, 7, 10):
            raise ValueError("a type A UID has 4, 7 or 10 bytes, not %d" % len(uid))
        self.uid = uid
        mem = self.mem
        for i in range(len(mem)):
            mem[i] = 0
        u = uid + bytes(10)
        # NTAG21x layout: pages 0..2 hold UID and check bytes, page 3 the capability container.
        mem[0:3] = u[0:3]
        mem[3] = 0x88 ^ u[0] ^ u[1] ^ u[2]
        mem[4:8] = u[3:7]
        mem[8] = u[3] ^ u[4] ^ u[5] ^ u[6]
        mem[12:16] = bytes((0xE1, 0x10, (len(mem) // 4 - 9) * 4 // 8, 0x00))
        if isinstance(pages, dict):
            for p in pages:
                mem[p * 4:p * 4 + 4] = bytes(pages[p])[0:4]
        elif pages is not None:
            mem[16:16 + len(pages)] = pages
        self.state = IDLE
        self.from_halt = False      # READY* / ACTIVE*: return to HALT, not IDLE
        self.level = 0
        self.leave_after = -1       # answers left before the card is lifted (-1: stays)
        if read_only or self.read_only:     # the class default keeps a card object small
            self.read_only = bool(read_only)

    def power_off(self):
        self.state = IDLE
        self.from_halt = False
        self.level = 0

    def atqa(self):
        # b8..b7: UID size (single, double, triple); b3: bit frame anticollision.
        return bytes((((len(self.uid) // 3 - 1) << 6) | 0x04, 0x00))

    def level_data(self, level):
        """The 5 bytes answered at cascade level `level` (0-based): UID part + BCC."""
        u = self.uid
        if level < len(self.uid) // 3 - 1:
            d = bytearray((0x88, u[3 * level], u[3 * level + 1], u[3 * level + 2]))
        else:
            k = 3 * level
            d = bytearray(u[k:k + 4])
        d.append(d[0] ^ d[1] ^ d[2] ^ d[3])
        return d

    def _drop(self):
        self.state = HALT if self.from_halt else IDLE
        self.level = 0

    def receive(self, frame, nbits):
        """React to a frame of `nbits` bits; answer (bytes, nbits) or None."""
        n = len(frame)
        if nbits == 7 and n == 1:
            cmd = frame[0]
            if (cmd == 0x26 and self.state == IDLE) or (cmd == 0x52 and self.state in (IDLE, HALT)):
                self.from_halt = self.state == HALT
                self.state = READY
                self.level = 0
                return self.atqa(), 16
            if self.state != HALT:
                self._drop()
            return None
        if self.state == HALT or self.state == IDLE:
            return None
        if self.state == READY:
            return self._ready(frame, nbits)
        return self._active(frame, nbits)

    def _ready(self, frame, nbits):
        n = len(frame)
        if n < 2 or frame[0] != (0x93, 0x95, 0x97)[self.level]:
            self._drop()
            return None
        nvb = frame[1]
        data = self.level_data(self.level)
        if nvb == 0x70:
            if n != 9 or nbits != 72 or not _crc_ok(frame, 9):
                self._drop()
                return None
            if frame[2:7] != data:
                self._drop()
                return None
            if self.level < len(self.uid) // 3 - 1:    # cascade levels: 1, 2 or 3
                self.level += 1
                return _with_crc(b"\x04"), 24
            self.state = ACTIVE
            return _with_crc(b"\x00"), 24
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if nvb < 0x20 or known > 32 or nbits != 16 + known:
            self._drop()
            return None
        for i in range(known):
            if ((frame[2 + (i >> 3)] >> (i & 7)) ^ (data[i >> 3] >> (i & 7))) & 1:
                return None         # not our UID: stay READY and keep quiet
        # Answer the remaining bits of UID + BCC, starting at bit `known`.
        out = bytearray(5)
        for i in range(known, 40):
            if (data[i >> 3] >> (i & 7)) & 1:
                j = i - known
                out[j >> 3] |= 1 << (j & 7)
        nout = 40 - known
        return bytes(out[0:(nout + 7) >> 3]), nout

    def _active(self, frame, nbits):
        n = len(frame)
        if nbits != n * 8 or not _crc_ok(frame, n):
            self._drop()
            if n == 8 and nbits == 64 and frame[0] == 0xA2:
                return b"\x01", 4          # NAK 1h: a WRITE that arrived damaged
            return None
        cmd = frame[0]
        if cmd == 0xA2 and n == 8:
            return self._write(frame[1], frame[2:6])
        if cmd == 0x50 and n == 4 and frame[1] == 0:
            self.state = HALT
            self.from_halt = False
            return None
        if cmd == 0x30 and n == 4:
            page = frame[1]
            npages = len(self.mem) >> 2
            if page >= npages:
                self._drop()
                return b"\x00", 4          # NAK: invalid argument
            out = bytearray(16)
            for i in range(16):
                out[i] = self.mem[(page * 4 + i) % (npages * 4)]  # roll over at the end
            return _with_crc(out), 144
        self._drop()
        return None

    def _write(self, page, data):
        """NTAG WRITE of 4 bytes to `page`: the 4-bit ACK (Ah) or NAK (0h)."""
        m = self.mem
        # Static lock bits (page 2, bytes 2..3): bit n locks page n, for pages 3..15
        # (L-CC is bit 3 of lock byte 0, L4..L7 its bits 4..7, L8..L15 lock byte 1).
        if self.read_only or page < 2 or page >= len(m) >> 2 or (
                2 < page < 16 and m[10 + (page >> 3)] & (1 << (page & 7))):
            self._drop()                # a NAK sends the card back to IDLE (or HALT)
            return b"\x00", 4
        at = page * 4
        for i in range(4):
            if page > 3:
                m[at + i] = data[i]
            elif page == 3 or i > 1:    # CC (OTP) and lock bytes: bit-wise OR, for good
                m[at + i] |= data[i]
        return b"\x0a", 4


def tag_pool(n):
    """`n` spare NTAG213 cards (blank, 4-byte UID 0) for NtagCard.load: a tile process
    makes its virtual table's tags at start-up, before the firmware's heap fragments."""
    pool = []
    for _ in range(n):
        pool.append(NtagCard(bytes(4)))
    return pool


def free_card(pool, emulators):
    """A card of `pool` that lies in none of the emulators' fields, or None."""
    for card in pool:
        used = False
        for emu in emulators:
            if card in emu.cards:
                used = True
                break
        if not used:
            return card
    return None


def _airtime_us(nbits):
    # Each byte carries a parity bit; start and end of frame add about 2 bits.
    return (nbits + nbits // 8 + 2) * BIT_NS // 1000


class Mfrc522Emulator:
    """One MFRC522 seen through its registers, with the cards in its antenna field."""

    us_per_transaction = 40     # virtual time one SPI transaction takes on a Pico

    # The cards' answers to one frame (see _transmit): one list for every emulated chip of
    # the tile, which transmit one at a time, so eight readers cost the tile heap one list.
    _answers = [None] * 8

    def __init__(self, version=0x92):
        self.version_value = version
        self.regs = bytearray(64)
        self.fifo = bytearray(64)
        self.mem = bytearray(25)
        self.cards = []
        self.now_us = 0
        self.transactions = 0       # SPI transactions (CS low periods) so far
        self.rf_frames = 0          # frames sent over the air so far
        self.hung = False
        self._hang = (0x00, True, True)     # (registers read, soft reset cures, RST cures)
        self.in_reset = False
        self._misread = None        # [answers left to corrupt, parity?, command or None]
        self.bus = None             # the SimSPI this chip is attached to
        self._first = True
        self._reading = False
        self._addr = 0
        self._reset_chip()

    # -- test API ----------------------------------------------------------------------

    def place(self, card):
        """Put a card in the field (it powers up IDLE if the antenna is on)."""
        card.power_off()
        self.cards.append(card)
        return card

    def lift(self, uid):
        """Take the card with this UID out of the field; True if it was there."""
        uid = bytes(uid)
        for c in self.cards:
            if c.uid == uid:
                self.cards.remove(c)
                return True
        return False

    def lift_during(self, uid, frames):
        """Lift card `uid` after it has answered `frames` more frames (mid-inventory/read)."""
        for c in self.cards:
            if c.uid == bytes(uid):
                c.leave_after = frames

    def misread(self, count=1, parity=False, command=None):
        """Corrupt the next `count` answers (to frames starting with byte `command`, if given).

        parity=False flips a data bit without the chip noticing (CRC or BCC must catch it);
        parity=True makes the chip report a parity error, except on a 4-bit ACK/NAK, which
        carries no parity bit: it gets the flipped bit instead.
        """
        self._misread = [count, parity, command]

    def hang(self, value=0x00, soft_reset_cures=True, rst_cures=True):
        """The chip stops: registers read `value`, commands never finish, until reset
        (rst_cures=False: not even the RST line helps, a chip that is dead for good)."""
        self.hung = True
        self._hang = (value, soft_reset_cures, rst_cures)

    def attach_rst(self, pin):
        """Wire the chip's NRSTPD input to `pin`: low holds it in reset, high restarts it."""
        pin.watch(self._rst_changed)

    def advance(self, us):
        """Let virtual time pass (e.g. while the firmware sleeps)."""
        self.now_us += us
        self._settle()

    @property
    def antenna_on(self):
        return bool(self.regs[TxControlReg] & 0x03)

    # -- pins and SPI ------------------------------------------------------------------

    def _rst_changed(self, level):
        if level == 0:
            self.in_reset = True
            self._power_off_cards()
        else:
            self.in_reset = False
            if self.hung and not self._hang[2]:
                return
            self.hung = False
            self._reset_chip()

    def cs_changed(self, level):
        if level == 0:
            self._first = True
            self.transactions += 1
            self.now_us += self.us_per_transaction
            self._settle()
        if self.bus is not None:
            self.bus._cs_changed(self, level)

    def spi_byte(self, mosi):
        if self.in_reset:
            return 0x00
        if self._first:
            self._first = False
            self._reading = bool(mosi & 0x80)
            self._addr = (mosi >> 1) & 0x3F
            return 0x00
        if self._reading:
            out = self._read_reg(self._addr)
            self._addr = (mosi >> 1) & 0x3F
            return out
        self._write_reg(self._addr, mosi)
        return 0x00

    # -- registers ---------------------------------------------------------------------

    def _reset_chip(self):
        r = self.regs
        for i in range(64):
            r[i] = 0
        rv = _RESET_VALUES
        for i in range(0, len(rv), 2):
            r[rv[i]] = rv[i + 1]
        self._fifo_head = 0
        self._fifo_n = 0
        self._timer_at = -1
        self._rx_at = -1
        self._rx = None
        self._power_off_cards()

    def _power_off_cards(self):
        self.regs[TxControlReg] &= 0xFC
        for c in self.cards:
            c.power_off()

    def _push(self, v):
        if self._fifo_n >= 64:
            self.regs[ErrorReg] |= ERR_BUFFER_OVFL
            return
        self.fifo[(self._fifo_head + self._fifo_n) & 63] = v
        self._fifo_n += 1

    def _pop(self):
        if self._fifo_n == 0:
            return 0
        v = self.fifo[self._fifo_head]
        self._fifo_head = (self._fifo_head + 1) & 63
        self._fifo_n -= 1
        return v

    def _take_fifo(self):
        out = bytearray(self._fifo_n)
        for i in range(len(out)):
            out[i] = self._pop()
        return out

    def _read_reg(self, addr):
        if self.hung:
            return self._hang[0]
        if addr == FIFODataReg:
            return self._pop()
        if addr == FIFOLevelReg:
            return self._fifo_n
        if addr == VersionReg:
            return self.version_value
        if addr == Status1Reg:
            running = 0x08 if self._timer_at >= 0 else 0
            return (self.regs[Status1Reg] & 0xF7) | running
        if addr == TCounterValRegH or addr == TCounterValRegL:
            v = self._timer_counter()
            return v >> 8 if addr == TCounterValRegH else v & 0xFF
        return self.regs[addr]

    def _write_reg(self, addr, v):
        r = self.regs
        if self.hung:
            if addr == CommandReg and v & 0x0F == CMD_SOFTRESET and self._hang[1]:
                self.hung = False
                self._reset_chip()
            return
        if addr == CommandReg:
            r[CommandReg] = (r[CommandReg] & 0x0F) | (v & 0x30)
            self._command(v & 0x0F)
        elif addr == ComIrqReg or addr == DivIrqReg:
            bits = v & 0x7F
            if v & 0x80:
                r[addr] |= bits
            else:
                r[addr] &= ~bits & 0xFF
        elif addr == FIFODataReg:
            self._push(v)
        elif addr == FIFOLevelReg:
            if v & 0x80:
                self._fifo_head = 0
                self._fifo_n = 0
                r[ErrorReg] &= ~ERR_BUFFER_OVFL & 0xFF
        elif addr == ControlReg:
            if v & 0x80:
                self._timer_at = -1
            if v & 0x40:
                self._start_timer(self.now_us)
        elif addr == BitFramingReg:
            r[BitFramingReg] = v & 0x7F
            if v & 0x80 and r[CommandReg] & 0x0F == CMD_TRANSCEIVE:
                self._transmit(True)
        elif addr == CollReg:
            r[CollReg] = (r[CollReg] & 0x7F) | (v & 0x80)
        elif addr == TxControlReg:
            was_on = r[TxControlReg] & 0x03
            r[TxControlReg] = v
            if was_on and not v & 0x03:
                self._power_off_cards()
        elif addr in (ErrorReg, Status1Reg, Status2Reg, VersionReg,
                      CRCResultRegH, CRCResultRegL, TCounterValRegH, TCounterValRegL):
            pass        # read-only
        else:
            r[addr] = v

    # -- commands ----------------------------------------------------------------------

    def _command(self, cmd):
        r = self.regs
        if cmd == CMD_NOCHANGE:
            return
        if cmd == CMD_SOFTRESET:
            self._reset_chip()
            return
        r[CommandReg] = (r[CommandReg] & 0xF0) | cmd
        if cmd == CMD_IDLE:
            self._rx_at = -1
            self._rx = None
        elif cmd == CMD_MEM:
            if self._fifo_n:
                data = self._take_fifo()
                for i in range(25):
                    self.mem[i] = data[i] if i < len(data) else 0
            else:
                for i in range(25):
                    self._push(self.mem[i])
            self._finish()
        elif cmd == CMD_CALCCRC:
            data = self._take_fifo()
            c = crc_a(data, None, _CRC_PRESETS[r[ModeReg] & 3])
            r[CRCResultRegH] = c >> 8
            r[CRCResultRegL] = c & 0xFF
            r[DivIrqReg] |= CRC_IRQ
            r[Status1Reg] |= 0x20       # CRCReady
        elif cmd == CMD_TRANSMIT:
            self._transmit(False)
        elif cmd != CMD_TRANSCEIVE:
            self._finish()               # commands we do not model end at once

    def _finish(self):
        r = self.regs
        r[CommandReg] &= 0xF0
        r[ComIrqReg] |= IDLE_IRQ

    def _start_timer(self, at_us):
        r = self.regs
        prescaler = ((r[TModeReg] & 0x0F) << 8) | r[TPrescalerReg]
        reload = (r[TReloadRegH] << 8) | r[TReloadRegL]
        self._timer_at = at_us + (reload + 1) * (2 * prescaler + 1) * 1000 // 13560

    def _timer_counter(self):
        if self._timer_at < 0:
            return 0
        r = self.regs
        prescaler = ((r[TModeReg] & 0x0F) << 8) | r[TPrescalerReg]
        left = self._timer_at - self.now_us
        return max(0, left * 13560 // ((2 * prescaler + 1) * 1000))

    def _transmit(self, receive):
        r = self.regs
        framing = r[BitFramingReg]
        tx_last = framing & 7
        data = self._take_fifo()
        nbits = (len(data) - 1) * 8 + (tx_last or 8) if data else 0
        r[ErrorReg] = 0
        r[CollReg] = (r[CollReg] & 0x80) | 0x20
        self.rf_frames += 1
        tx_end = self.now_us + _airtime_us(nbits)
        r[ComIrqReg] |= TX_IRQ
        # The answers go into a list the chip keeps (entries past `heard` are stale), and
        # the field is walked by index, not copied: the emulator lives in the sim tile's
        # heap, and a block that grows with the cards in the field (a pile of them on one
        # cell) is one the firmware's fragmented heap may not have.
        answers = self._answers
        heard = 0
        busy = 0
        if self.antenna_on:
            cards = self.cards
            k = 0
            while k < len(cards):
                c = cards[k]
                ans = c.receive(data, nbits)
                if ans is not None:
                    if heard < len(answers):
                        answers[heard] = ans
                    else:
                        answers.append(ans)
                    heard += 1
                    if ans[1] == 4 and ans[0][0] == 0x0A and nbits == 64 and data[0] == 0xA2:
                        busy = c.write_time_us      # ACK after the EEPROM write
                    if c.leave_after > 0:
                        c.leave_after -= 1
                        if c.leave_after == 0:
                            del cards[k]
                            c.power_off()
                            continue
                k += 1
        self._receive(receive, heard, tx_end, busy, data[0] if data else 0)
        for k in range(heard):
            answers[k] = None       # their bytes are garbage now: not kept alive here

    def _receive(self, receive, heard, tx_end, busy, cmd):
        """After a frame went out (at `tx_end`): the receiver takes the `heard` answers
        (self._answers), `busy` us later than a card answers (a WRITE's EEPROM write), if
        it listens."""
        r = self.regs
        if not receive:
            self._finish()      # Transmit: the cards heard it; nobody listens for answers
            return
        if r[TModeReg] & 0x80:
            self._start_timer(tx_end)
        if not heard:
            return
        rx_start = tx_end + FDT_US + busy
        if 0 <= self._timer_at and self._timer_at <= rx_start:
            return      # the timer runs out before the answer begins: it is lost
        self._timer_at = -1     # TAuto: the timer stops when an answer starts
        self._rx = self._combine(self._answers, heard, cmd)
        self._rx_at = rx_start + _airtime_us(self._rx[1])

    def _combine(self, answers, heard, cmd):
        """What the receiver decodes when answers[:heard] overlap on the air."""
        nbits = 0
        for k in range(heard):
            if answers[k][1] > nbits:
                nbits = answers[k][1]
        out = bytearray((nbits + 7) >> 3)
        coll = -1
        for i in range(nbits):
            ones = 0
            zeros = 0
            for k in range(heard):
                data, n = answers[k]
                if i < n:
                    if (data[i >> 3] >> (i & 7)) & 1:
                        ones += 1
                    else:
                        zeros += 1
            if ones and zeros:
                coll = i
                break
            if ones:
                out[i >> 3] |= 1 << (i & 7)
        parity = False
        bad = self._misread
        if coll < 0 and bad and bad[0] and (bad[2] is None or bad[2] == cmd):
            bad[0] -= 1
            if bad[1] and nbits >= 8:
                parity = True           # a 4-bit ACK/NAK has no parity bit: it gets a flip
            else:
                i = nbits // 2
                out[i >> 3] ^= 1 << (i & 7)
        return out, nbits, coll, parity

    def _settle(self):
        """Apply what happened on the air and in the timer up to now."""
        if self.hung:
            return
        r = self.regs
        if self._rx is not None and self.now_us >= self._rx_at:
            self._deliver(self._rx)
            self._rx = None
            self._rx_at = -1
        if self._timer_at >= 0 and self.now_us >= self._timer_at:
            r[ComIrqReg] |= TIMER_IRQ
            if r[TModeReg] & 0x10:      # TAutoRestart
                self._start_timer(self._timer_at)
            else:
                self._timer_at = -1

    def _deliver(self, rx):
        data, nbits, coll, parity = rx
        r = self.regs
        align = (r[BitFramingReg] >> 4) & 7
        values_after = r[CollReg] & 0x80
        total = align + nbits
        out = bytearray((total + 7) >> 3)
        for i in range(nbits):
            if coll >= 0 and i >= coll and not values_after:
                break
            if (data[i >> 3] >> (i & 7)) & 1:
                j = align + i
                out[j >> 3] |= 1 << (j & 7)
        for b in out:
            self._push(b)
        r[ControlReg] = (r[ControlReg] & 0xF8) | (total & 7)
        irq = RX_IRQ
        if coll >= 0:
            r[ErrorReg] |= ERR_COLL
            pos = align + coll + 1
            if pos <= 32:
                r[CollReg] = (r[CollReg] & 0x80) | (pos & 0x1F)
            irq |= ERR_IRQ
        if parity:
            r[ErrorReg] |= ERR_PARITY
            irq |= ERR_IRQ
        r[ComIrqReg] |= irq
