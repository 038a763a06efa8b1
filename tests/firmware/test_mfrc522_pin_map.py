"""The Pico pin map of the reference tiles: buildable, and the same in firmware and in hardware/."""

import os
import re

import pytest

from firmware.pins import HEADER_GPIOS, PINS, variant

from mpy import REPO  # noqa: E402

# RP2040 data sheet, GPIO function table: where SPI0's signals can go.
SPI0_SCK = (2, 6, 18, 22)
SPI0_TX = (3, 7, 19)
SPI0_RX = (0, 4, 16, 20)


def used_gpios(p):
    return ([p["sck"], p["mosi"], p["miso"], p["reader_rst"], p["led_data"]]
            + list(p["reader_cs"]) + list(p["pads"]))


@pytest.mark.parametrize("name", sorted(PINS))
def test_every_signal_has_its_own_header_gpio(name):
    p = variant(name)
    gpios = used_gpios(p)
    assert len(gpios) == len(set(gpios)), gpios
    assert all(g in HEADER_GPIOS for g in gpios)
    assert p["status_led"] == 25 and 25 not in gpios


@pytest.mark.parametrize("name", sorted(PINS))
def test_reader_bus_is_on_spi0_pins(name):
    p = variant(name)
    assert p["spi_id"] == 0
    assert p["sck"] in SPI0_SCK and p["mosi"] in SPI0_TX and p["miso"] in SPI0_RX
    assert p["spi_baud"] <= 10000000        # the MFRC522's SPI limit


@pytest.mark.parametrize("name", sorted(PINS))
def test_one_chip_select_per_reader(name):
    p = variant(name)
    assert len(p["reader_cs"]) == p["readers"]


def test_play_tile_has_a_pad_per_cell_and_the_dice_tray_one_button():
    assert len(PINS["cells8"]["pads"]) == PINS["cells8"]["cells"] == 8
    assert len(PINS["dice3"]["pads"]) == 1 and PINS["dice3"]["readers"] == 3


def test_variant_is_a_copy_and_unknown_names_are_refused():
    p = variant("cells8")
    p["led_data"] = 99
    assert PINS["cells8"]["led_data"] == 0
    with pytest.raises(ValueError) as err:
        variant("cells9")
    assert "cells8" in str(err.value)


def test_hardware_doc_pin_table_matches_the_firmware():
    with open(os.path.join(REPO, "hardware", "tile.md")) as f:
        doc = f.read()
    table = doc[doc.index("### `cells8` play tile"):doc.index("### `dice3` dice tray")]
    cs = {}
    for reader, gpio in re.findall(r"\| CS reader (\d) \| GP(\d+) \|", table):
        cs[int(reader)] = int(gpio)
    p = PINS["cells8"]
    assert [cs[i] for i in range(8)] == list(p["reader_cs"])
    assert "| reader RST | GP%d |" % p["reader_rst"] in table
    assert "| LED data | GP%d |" % p["led_data"] in table
    assert "| SPI0 SCK | GP%d |" % p["sck"] in table
    assert "| SPI0 MOSI (TX) | GP%d |" % p["mosi"] in table
    assert "| SPI0 MISO (RX) | GP%d |" % p["miso"] in table
    pads = []
    for row in re.findall(r"\| pad cell \d\.\.\d \| ([^|]+) \|", table):
        pads += [int(g) for g in re.findall(r"GP(\d+)", row)]
    assert pads == list(p["pads"])
