"""Benchmark: time to render one LED frame of a tile's cells, against the frame period.

    python tools/bench_render.py [cells] [leds_per_segment] [frames]
    micropython tools/bench_render.py [cells] [leds_per_segment] [frames]

Defaults: 8 cells, 6 LEDs per segment (192 LEDs), 300 frames. Scenarios:
every effect in white on every cell (each frame also goes through the
current limiter: the worst case), edge values on every edge, the idle
animation, and one cell alone. Prints one line per scenario with the
median and worst render time in microseconds and the median's share of the
frame period (30 fps: 33 ms). The worst case on a shared machine mostly
measures the scheduler; the median is the figure to compare.
"""

import sys

try:
    _here = __file__.rsplit("/", 2)[0] if "/" in __file__ else "."
    if _here.endswith("tools"):
        _here = _here[:-5] or "."
    sys.path.insert(0, _here if _here else ".")
except NameError:
    pass

from firmware.effects import EffectsEngine  # noqa: E402
from shared_rules.led_scene import (  # noqa: E402
    BLINK, CHASE, CHASE_RING, PULSE, RAINBOW, SOLID, VALUE, cell_scene, segment, uniform_scene,
)

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    from time import perf_counter_ns

    def ticks_us():
        return perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b

WHITE = (255, 255, 255)


def mixed(engine):
    effects = (SOLID, BLINK, PULSE, CHASE, VALUE, RAINBOW)
    for c in range(engine.cells):
        engine.set_cell(c, cell_scene(*[segment(effects[(c + k) % 6], WHITE, 10 + c,
                                                4 | (CHASE_RING if k else 0))
                                        for k in range(4)]))


def edge_values(engine):
    # Storybook Battles: each edge shows its strength, 3 LEDs of 6 lit, the rest dimly.
    for c in range(engine.cells):
        engine.set_cell(c, uniform_scene(VALUE, (255, 0, 0), 3, 16))


def one_cell(engine):
    engine.set_cell(0, uniform_scene(PULSE, (0, 0, 255), 50))


def idle(engine):
    engine.idle = True


def measure(cells, leds, frames, setup):
    engine = EffectsEngine(cells, leds_per_segment=leds)
    setup(engine)
    engine.render(0)
    times = []
    limited = 0
    for f in range(frames):
        now = f * engine.frame_ms
        t0 = ticks_us()
        engine.render(now)
        times.append(ticks_diff(ticks_us(), t0))
        if engine.limited:
            limited += 1
    times.sort()
    return times[len(times) // 2], times[-1], engine.frame_ms, limited


def main(argv):
    cells = int(argv[1]) if len(argv) > 1 else 8
    leds = int(argv[2]) if len(argv) > 2 else 6
    frames = int(argv[3]) if len(argv) > 3 else 300
    impl = sys.implementation.name
    for name, setup in (("all six effects in white", mixed), ("edge values", edge_values),
                        ("idle rainbow", idle), ("one cell pulsing", one_cell)):
        median, worst, period_ms, limited = measure(cells, leds, frames, setup)
        permille = median * 1000 // (period_ms * 1000)
        print("%s: %d cells x 4 x %d LEDs, %s: median %d us (%d.%d%% of the %d ms frame), "
              "worst %d us; %d/%d frames current-limited"
              % (impl, cells, leds, name, median, permille // 10, permille % 10, period_ms,
                 worst, limited, frames))


main(sys.argv)
