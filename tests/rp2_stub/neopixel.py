"""`neopixel` for the rp2 board backend under the unix port: counts the writes."""

import machine


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.buf = bytearray(n * bpp)

    def write(self):
        machine.counts["writes"] += 1
