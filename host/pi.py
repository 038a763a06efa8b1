"""The Raspberry Pi's own hardware: seat buttons and staff controls, the status strip, and the
enrollment reader. Pi-only packages (RPi.GPIO, mfrc522, adafruit-circuitpython-neopixel, from
the [pi] extra) are imported only when a class here is used, so the desktop never needs them.

Wiring (BCM numbers; the pins are BUTTON_PINS and STRIP_PIN below): seat buttons to GND with
the internal pull-ups, the status strip's data on GPIO18 (PWM), the enrollment MFRC522 on SPI0
CE0 with RST on GPIO25.
"""

import asyncio

# (seat, button) per BCM pin. "staff" is the staff controls' seat.
BUTTON_PINS = {
    5: ("hero", "draw"), 6: ("hero", "end_turn"), 13: ("hero", "twist"),
    19: ("villain", "draw"), 26: ("villain", "end_turn"), 21: ("villain", "twist"),
    20: ("staff", "undo"), 16: ("staff", "pause"), 12: ("staff", "resume"),
}
STRIP_PIN = 18
STRIP_LEDS = 20


class SeatButtons:
    """Debounced falling edges on the button pins become session.button(seat, name) calls."""

    debounce_ms = 200

    def __init__(self, on_press, pins=None, gpio=None):
        self.on_press = on_press
        self.pins = dict(pins or BUTTON_PINS)
        if gpio is None:
            import RPi.GPIO as gpio  # the [pi] extra
        self.gpio = gpio
        self.loop = None

    def start(self, loop=None):
        self.loop = loop or asyncio.get_event_loop()
        self.gpio.setmode(self.gpio.BCM)
        for pin in sorted(self.pins):
            self.gpio.setup(pin, self.gpio.IN, pull_up_down=self.gpio.PUD_UP)
            self.gpio.add_event_detect(pin, self.gpio.FALLING, callback=self._edge,
                                       bouncetime=self.debounce_ms)

    def _edge(self, pin):
        # Called on RPi.GPIO's thread: hand the press to the asyncio loop.
        seat, name = self.pins[pin]
        self.loop.call_soon_threadsafe(self.on_press, seat, name)

    def stop(self):
        for pin in sorted(self.pins):
            self.gpio.remove_event_detect(pin)
        self.gpio.cleanup(sorted(self.pins))


class StatusStrip:
    """A short NeoPixel strip on the Pi: the score of each side, whose turn, and trouble."""

    def __init__(self, pixels=None, n=STRIP_LEDS):
        if pixels is None:
            import board
            import neopixel  # adafruit-circuitpython-neopixel, the [pi] extra
            pixels = neopixel.NeoPixel(getattr(board, "D%d" % STRIP_PIN), n, brightness=0.3,
                                       auto_write=False)
        self.pixels = pixels
        self.n = n

    def show(self, scores, target, turn_side, trouble=False):
        """Hero's points fill from the left in blue, the Villain's from the right in red."""
        half = self.n // 2
        colours = [(0, 0, 0)] * self.n
        hero = min(half, scores.get("hero", 0) * half // max(1, target))
        villain = min(half, scores.get("villain", 0) * half // max(1, target))
        for i in range(hero):
            colours[i] = (0, 40, 255)
        for i in range(villain):
            colours[self.n - 1 - i] = (255, 20, 0)
        colours[half - 1 if turn_side == "hero" else half] = (255, 255, 255)
        if trouble:
            colours[half - 1] = colours[half] = (255, 0, 0)
        for i, c in enumerate(colours):
            self.pixels[i] = c
        self.pixels.show()
        return colours


class PiReader:
    """The Pi's own MFRC522 for enrollment, through the `mfrc522` package's chip access.

    The package selects 4-byte UIDs only; NTAG21x tags have 7-byte UIDs, so the cascade
    level 2 and the NTAG READ/WRITE commands are sent through its transceive primitive
    (ISO/IEC 14443-3 and the NTAG213/215/216 datasheet).
    """

    def __init__(self, chip=None):
        if chip is None:
            from mfrc522 import MFRC522  # the [pi] extra
            chip = MFRC522()
        self.chip = chip

    def _transceive(self, data):
        status, back, bits = self.chip.MFRC522_ToCard(self.chip.PCD_TRANSCEIVE, list(data))
        return back if status == self.chip.MI_OK else None

    def _with_crc(self, data):
        return list(data) + list(self.chip.CalulateCRC(list(data)))

    def uid(self):
        """The UID of the one tag in the field (4 or 7 bytes), or None."""
        status, _ = self.chip.MFRC522_Request(self.chip.PICC_REQIDL)
        if status != self.chip.MI_OK:
            return None
        uid = b""
        for sel in (0x93, 0x95):
            answer = self._transceive([sel, 0x20])
            if not answer or len(answer) != 5 or answer[0] ^ answer[1] ^ answer[2] ^ answer[3] \
                    != answer[4]:
                return None
            sak = self._transceive(self._with_crc([sel, 0x70] + list(answer)))
            if not sak:
                return None
            if answer[0] == 0x88:  # cascade tag: the UID goes on at the next level
                uid += bytes(answer[1:4])
                continue
            return uid + bytes(answer[0:4])
        return None

    def write_pages(self, first_page, data):
        """NTAG WRITE of 4-byte pages; True when every page was acknowledged."""
        for i in range(0, len(data), 4):
            ack = self._transceive(self._with_crc([0xA2, first_page + i // 4] +
                                                  list(data[i:i + 4])))
            if not ack or (ack[0] & 0x0F) != 0x0A:
                return False
        return True

    def read_pages(self, first_page):
        data = self._transceive(self._with_crc([0x30, first_page]))
        return bytes(data[:16]) if data and len(data) >= 16 else None
