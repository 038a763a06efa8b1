"""The host's clocks: monotonic milliseconds, real or moved by hand.

A clock is any function of no arguments returning whole milliseconds that never go
back. The session, the bots at the table and the lights take one as a parameter, so a
test can travel in time with `ManualClock` instead of waiting for the wall clock.
"""

import time


def monotonic_ms():
    """The real monotonic clock, in whole milliseconds."""
    return int(time.monotonic() * 1000)


class ManualClock:
    """A clock that moves only when told to (`advance`), for tests that travel in time."""

    def __init__(self, start_ms=0):
        self.now_ms = start_ms

    def __call__(self):
        return self.now_ms

    def advance(self, ms):
        if ms < 0:
            raise ValueError("a monotonic clock does not go back (advance by %r ms)" % (ms,))
        self.now_ms += ms
        return self.now_ms
