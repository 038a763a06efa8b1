"""The Pi's own hardware, as units: button edges become seat presses, the strip shows the score.
The real parts (RPi.GPIO, the mfrc522 reader, the strip) are checked by the HIL suite."""

import asyncio

import pytest

from host.pi import BUTTON_PINS, PiReader, SeatButtons, StatusStrip


class GpioPins:
    """A stand-in for RPi.GPIO's module functions (this unit test only)."""
    BCM, IN, PUD_UP, FALLING = "BCM", "IN", "PUD_UP", "FALLING"

    def __init__(self):
        self.callbacks = {}

    def setmode(self, mode):
        self.mode = mode

    def setup(self, pin, direction, pull_up_down):
        assert (direction, pull_up_down) == ("IN", "PUD_UP")

    def add_event_detect(self, pin, edge, callback, bouncetime):
        assert edge == "FALLING" and bouncetime >= 50
        self.callbacks[pin] = callback

    def remove_event_detect(self, pin):
        del self.callbacks[pin]

    def cleanup(self, pins):
        self.cleaned = pins


def test_a_button_press_reaches_the_session_as_seat_and_name():
    presses = []

    async def scenario():
        gpio = GpioPins()
        buttons = SeatButtons(lambda seat, name: presses.append((seat, name)), gpio=gpio)
        buttons.start(asyncio.get_running_loop())
        assert sorted(gpio.callbacks) == sorted(BUTTON_PINS)
        gpio.callbacks[6](6)       # RPi.GPIO calls back from its own thread with the pin
        gpio.callbacks[20](20)
        await asyncio.sleep(0.01)
        buttons.stop()
        assert gpio.callbacks == {}

    asyncio.run(scenario())
    assert presses == [("hero", "end_turn"), ("staff", "undo")]


def test_the_strip_fills_each_side_toward_the_middle():
    class Pixels(list):
        def show(self):
            self.shown = True
    pixels = Pixels([(0, 0, 0)] * 20)
    colours = StatusStrip(pixels, 20).show({"hero": 5, "villain": 10}, 10, "villain")
    assert colours[:5] == [(0, 40, 255)] * 5 and colours[5] == (0, 0, 0)
    assert colours[10] == (255, 255, 255)  # the Villain's turn marker
    assert colours[11:] == [(255, 20, 0)] * 9 and pixels.shown


@pytest.mark.hil
def test_the_pi_reader_reads_a_tag(hil_ports):
    reader = PiReader()
    uid = None
    for _ in range(100):
        uid = reader.uid()
        if uid:
            break
    assert uid is not None and len(uid) in (4, 7), "hold an NTAG on the Pi's reader"
