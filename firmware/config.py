"""Tile variants and timings: what a tile has, and how fast it polls, renders and talks.

A tile is built as one of two variants (hardware/ documents both):

- ``cell``: up to 8 cells, each with an MFRC522 reader, 4 LED edge segments
  and a touch pad.
- ``dice``: the dice tray, 3 pockets with a reader each (one die per
  pocket, a tag per face), a lit rim (4 segments) per pocket and a
  "dice rolled" button. Pin maps of both: firmware/pins.py.

A layout's seat tile (the seats' card readers, host/table/layout.py) is a ``cell`` tile
whose slots are seat readers: the firmware does not tell them apart.

Timings are in milliseconds; hardware/protocol.md explains each.
"""

FIRMWARE_VERSION = (0, 1, 0)


def timings():
    """A fresh dict of the default timings: each tile keeps (and changes) its own."""
    return {
        "frame_ms": 33,           # LED frame period (30 fps)
        "poll_gap_ms": 2,         # pause when no reader can be polled (all failed)
        "idle_poll_gap_ms": 100,  # the same while the host is silent
        "arrive_polls": 1,        # consistent polls before a tag counts as arrived
        #                           (a UID that passed BCC and CRC_A is not a misread;
        #                           the common error is a missed read: see gone_polls)
        "gone_polls": 3,          # consistent polls before a tag counts as gone
        "field_settle_us": 5100,  # field on -> first WUPA (ISO/IEC 14443-3: at least 5.1 ms)
        "heartbeat_ms": 1000,     # tile -> host heartbeat period
        "host_timeout_ms": 3000,  # host silent this long: idle animation, stop resending
        "resend_ms": 100,         # resend an unacknowledged event after this long
        "health_period_ms": 5000,  # HEALTH report period and reader VersionReg check
        "button_ms": 10,          # touch pad sampling period
        "link_ms": 3,             # serial input polling period (a USB frame is 1 ms)
        "watchdog_ms": 2000,      # hardware watchdog timeout
    }


# Readers closer than this many slots never have their fields on together. A
# cell tile's cells lie in a row (the game's layout.toml): cells two apart are 200 mm
# apart, so no card (88 mm) can lie on both and their fields (40 mm loops) do
# not reach each other's tags. See firmware/main.py readers_task and
# hardware/protocol.md. A dice tray (no field_spacing) reads one pocket at a time.
CELL_FIELD_SPACING = 2
# At most this many fields on at once: a transmitter draws up to 100 mA, and the
# readers' 3.3 V buck (1 A or more) feeds 8 x 17 mA of logic besides: 4 x 100 + 8 x 17
# = about 540 mA worst case (hardware/tile.md).
CELL_MAX_FIELDS = 4


def variant(name, cells=None, readers=None):
    """The description of a tile variant; ``cells`` trims a cell tile (1..8).

    ``readers``: {slot: readers} for a crowded cell, whose tags are read by several readers (one
    under each quadrant of the Dragon Inn, whose ten tokens no one reader polls in time:
    hardware/stacks.md). The extra readers come after the cells' own (reader ``cells`` on),
    in slot order, and the spec's ``slots`` maps every reader to the slot it reports: the host
    sees one slot (its TAG holds the tags of all its readers)."""
    if name == "cell":
        n = 8 if cells is None else cells
        if not 1 <= n <= 8:
            raise ValueError("a cell tile has 1 to 8 cells, not %r" % (n,))
        spec = {"variant": "cell", "cells": n, "segments": 4, "leds_per_segment": 6,
                "readers": n, "buttons": n, "dice_pockets": 0,
                "field_spacing": CELL_FIELD_SPACING, "max_fields": CELL_MAX_FIELDS}
        if readers:
            slots = list(range(n))
            for slot in sorted(readers):
                if 0 <= slot < n and 1 <= readers[slot] <= 4:
                    slots += [slot] * (readers[slot] - 1)
                else:
                    slots = ()
                    break
            # 13 at most: a chip select each, the 8 of the cells and 5 spare GPIOs (pins.py)
            if not n < len(slots) <= 13:
                raise ValueError(readers)   # (every string costs the tile's heap)
            spec["readers"] = len(slots)
            spec["slots"] = bytes(slots)
        return spec
    if name == "dice":
        return {"variant": "dice", "cells": 3, "segments": 4, "leds_per_segment": 3,
                "readers": 3, "buttons": 1, "dice_pockets": 3}
    raise ValueError("unknown tile variant %r (cell or dice)" % (name,))
