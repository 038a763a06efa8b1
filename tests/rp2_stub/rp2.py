"""`rp2` for the board's main.py under the unix port: BOOTSEL reads held if STUB_HELD
lists "bootsel"."""

import os


def bootsel_button():
    return 1 if "bootsel" in (os.getenv("STUB_HELD") or "").split() else 0
