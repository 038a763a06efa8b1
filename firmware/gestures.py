"""Tap, double tap and hold on a cell's touch pad (TTP223) or button, debounced.

Feed each pad its samples, `(now_ms, pressed)`, as often as the main loop
runs (every few ms); `feed` returns a gesture when one is recognised:

    pad = PadGestures()
    g = pad.feed(time.ticks_ms(), pin.value() == 1)
    if g: send(GESTURE_NAMES[g])

- A level change counts only once it has been stable for `debounce_ms`.
- TAP: a press shorter than `hold_ms`, released, and no second press within
  `double_tap_ms` of the release (so a tap is reported `double_tap_ms` late).
- DOUBLE: a second short press starting within `double_tap_ms` of the first
  release; reported when it is released.
- HOLD: pressed for `hold_ms`; reported while still held, once per press. A
  pending tap before a hold is reported first (tap, then hold).

Times are integers in ms and differences use ticks_diff where it exists,
so the wrap of time.ticks_ms() on the Pico does no harm.
"""

try:
    from time import ticks_diff
except ImportError:  # CPython
    def ticks_diff(a, b):
        return a - b

TAP = 1
DOUBLE = 2
HOLD = 3
GESTURE_NAMES = {TAP: "tap", DOUBLE: "double", HOLD: "hold"}


class PadGestures:
    """Recognises gestures on one pad from its (time, pressed) samples."""

    debounce_ms = 30
    double_tap_ms = 300
    hold_ms = 700

    def __init__(self, debounce_ms=None, double_tap_ms=None, hold_ms=None):
        if debounce_ms is not None:
            self.debounce_ms = debounce_ms
        if double_tap_ms is not None:
            self.double_tap_ms = double_tap_ms
        if hold_ms is not None:
            self.hold_ms = hold_ms
        self.pressed = False        # the debounced level
        self._raw = False
        self._raw_since = 0
        self._pressed_at = 0
        self._released_at = 0
        self._held = False          # HOLD already reported for this press
        self._taps = 0              # short presses waiting for the double-tap window
        self._queued = 0            # a second gesture found in the same sample

    def feed(self, now_ms, pressed):
        """Take one sample; return TAP, DOUBLE, HOLD or 0."""
        if self._queued:
            g = self._queued
            self._queued = 0
            return g
        pressed = bool(pressed)
        if pressed != self._raw:
            self._raw = pressed
            self._raw_since = now_ms
        elif pressed != self.pressed and ticks_diff(now_ms, self._raw_since) >= self.debounce_ms:
            # Stable long enough: accept the level as of when it started.
            self.pressed = pressed
            if pressed:
                return self._press(self._raw_since)
            return self._release(self._raw_since)
        if self.pressed:
            if not self._held and self._raw and \
                    ticks_diff(now_ms, self._pressed_at) >= self.hold_ms:
                self._held = True
                if self._taps:
                    self._taps = 0
                    self._queued = HOLD
                    return TAP
                return HOLD
        elif self._taps and ticks_diff(now_ms, self._released_at) > self.double_tap_ms \
                and not (self._raw and ticks_diff(now_ms, self._raw_since) < self.debounce_ms):
            self._taps = 0
            return TAP
        return 0

    def _press(self, at):
        self._pressed_at = at
        self._held = False
        if self._taps and ticks_diff(at, self._released_at) > self.double_tap_ms:
            # The window closed while this press was being debounced.
            self._taps = 0
            return TAP
        return 0

    def _release(self, at):
        if self._held:
            return 0
        self._released_at = at
        if self._taps:
            self._taps = 0
            return DOUBLE
        self._taps = 1
        return 0


class CellPads:
    """The pads of all cells of a tile: feed(cell, now_ms, pressed) -> gesture or 0."""

    def __init__(self, cells, **tunables):
        self.pads = []
        for _ in range(cells):      # a loop: a comprehension's code would stay in the heap
            self.pads.append(PadGestures(**tunables))

    def feed(self, cell, now_ms, pressed):
        return self.pads[cell].feed(now_ms, pressed)
