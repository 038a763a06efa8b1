"""Pin map of the reference tiles (Raspberry Pi Pico GPIO numbers), per tile variant.

The rp2 board backend builds its buses from this table; hardware/tile.md
shows the same map with the wiring. Numbers are GPIO numbers (GPn), not
header pin numbers.

    from firmware.pins import variant
    p = variant("cells8")
    spi = machine.SPI(p["spi_id"], baudrate=p["spi_baud"], sck=Pin(p["sck"]),
                      mosi=Pin(p["mosi"]), miso=Pin(p["miso"]))
    readers = [MFRC522(spi, Pin(cs, Pin.OUT, value=1), rst) for cs in p["reader_cs"]]

Keys of a variant:
    spi_id, sck, mosi, miso, spi_baud   the readers' SPI bus (SPI0)
    reader_rst                          NRSTPD of every reader (shared, active low)
    reader_cs                           one chip-select per reader, in reader order
    extra_reader_cs                     more chip-selects: crowded cells' extra readers
    led_data                            WS2812 data (through the 74AHCT125 level shifter)
    pads                                touch pad / button input per cell (high = touched)
    pad_active_high                     True for TTP223 pads (output high when touched)
    cells, readers, leds_per_segment, segments_per_cell
    status_led                          the Pico's own LED
"""

# SPI0 on GP16..19 (MISO, CSn, SCK, MOSI); the hardware CSn pin GP17 is used as a
# plain GPIO chip-select because the bus carries several readers.
# 2 MHz: the bus runs as two ribbon arms of up to 40 cm from a Pico in the middle of a
# row (hardware/tile.md); a poll's pace is MicroPython's per access, not the clock.
_SPI = {"spi_id": 0, "sck": 18, "mosi": 19, "miso": 16, "spi_baud": 2000000}

PINS = {
    # The play tile: up to 8 cells, each with a reader, a pad and 4 edge segments.
    "cells8": dict(_SPI,
                   reader_rst=22,
                   reader_cs=(17, 20, 21, 26, 27, 28, 14, 15),
                   # Crowded cells' extra readers (firmware/config.py): their chip selects
                   # follow the cells' own, on the spare GPIOs (a 1-cell Dragon Inn tile's
                   # four readers use reader_cs[0..3]).
                   extra_reader_cs=(10, 11, 12, 13, 1),
                   led_data=0,
                   pads=(2, 3, 4, 5, 6, 7, 8, 9),
                   pad_active_high=True,
                   cells=8, readers=8, leds_per_segment=6, segments_per_cell=4,
                   status_led=25),
    # The dice tray: 3 pockets, one reader and one lit pocket rim (4 segments) each,
    # plus a "dice rolled" button.
    "dice3": dict(_SPI,
                  reader_rst=22,
                  reader_cs=(17, 20, 21),
                  led_data=0,
                  pads=(2,),
                  pad_active_high=False,     # a push button to ground, internal pull-up
                  cells=3, readers=3, leds_per_segment=3, segments_per_cell=4,
                  status_led=25),
}

# GPIOs a Pico exposes on its header (GP23..25 and GP29 are internal).
HEADER_GPIOS = tuple(range(0, 23)) + (26, 27, 28)


def variant(name):
    """The pin map of tile variant `name` (a copy: callers may adjust it)."""
    if name not in PINS:
        raise ValueError("unknown tile variant %r; known: %s" % (name, ", ".join(sorted(PINS))))
    return dict(PINS[name])
