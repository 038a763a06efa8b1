"""Helpers for tests that run the virtual table and the host link together."""

import asyncio
import time

from firmware.effects import SOLID, uniform_scene

# Generous: these bound a hung test, they are not latency assertions.
WAIT_S = 30.0


async def wait_event(link, match, timeout=WAIT_S):
    """The first TileEvent for which ``match(ev)`` is true; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("no matching event; saw: %r" % seen[-20:])
        try:
            ev = await link.next_event(left)
        except asyncio.TimeoutError:
            continue
        seen.append(ev)
        if match(ev):
            return ev


async def drain(link):
    """Drop queued events (after a phase of a test whose events were checked)."""
    while not link.queue.empty():
        link.queue.get_nowait()


async def wait_for(predicate, timeout=WAIT_S, what="condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s" % what)
        await asyncio.sleep(0.01)


def red_scene():
    return uniform_scene(SOLID, (200, 0, 0))


def lit_red(pixels):
    """True if every LED of a cell shows red only (GRB order: G=0, R>0, B=0)."""
    leds = [pixels[i:i + 3] for i in range(0, len(pixels), 3)]
    return bool(leds) and all(g == 0 and r > 0 and b == 0 for g, r, b in leds)


def dark(pixels):
    return not any(pixels)
