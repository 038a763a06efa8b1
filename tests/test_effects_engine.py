"""The LED effects engine: shapes of the effects over time, brightness, the current limit.

Plain functions without fixtures: the same module runs under MicroPython
(tests/mpy_run_tests.py, started by test_mfrc522_micropython.py).
"""

import pytest

from firmware.effects import EffectsEngine
from shared_rules.led_scene import (
    BLINK, CHASE, CHASE_RING, CHASE_REVERSE, EDGE_E, EDGE_N, EDGE_S, EDGE_W, OFF, PULSE,
    RAINBOW, SOLID, VALUE, CELL_SCENE_BYTES, cell_scene, segment, uniform_scene,
)

RED = (255, 0, 0)
GREEN = (0, 255, 0)
BLUE = (0, 0, 255)
WHITE = (255, 255, 255)


def led(engine, cell, edge, i):
    """(r, g, b) of one LED from the GRB buffer."""
    n = engine.leds_per_segment
    j = ((cell * 4 + edge) * n + i) * 3
    g, r, b = engine.buf[j], engine.buf[j + 1], engine.buf[j + 2]
    return (r, g, b)


def edge_leds(engine, cell, edge):
    return [led(engine, cell, edge, i) for i in range(engine.leds_per_segment)]


def within_budget(engine, budget_ma):
    """The frame's current estimate (55 mA per 3 * 255 channel units) is <= budget_ma."""
    return sum(engine.buf) * engine.ma_per_led <= budget_ma * 765


def lone_cell():
    """A one-cell tile with a budget that never limits, to see the effects' shapes."""
    return EffectsEngine(1, leds_per_segment=6, budget_ma=10000)


def test_buffer_is_grb_in_cell_edge_led_order():
    e = EffectsEngine(2, leds_per_segment=3, budget_ma=10000)
    e.set_segment(1, EDGE_S, SOLID, (10, 20, 30))
    e.render(0)
    # cell 1, edge S (2): LEDs 18..20 of 24, 3 bytes each, green first.
    assert e.buf[(1 * 4 + 2) * 3 * 3:(1 * 4 + 2) * 3 * 3 + 3] == bytes((20, 10, 30))
    assert sum(e.buf) == 3 * 60
    assert len(e.buf) == 2 * 4 * 3 * 3


def test_scene_bytes_round_trip():
    one_cell = lone_cell()
    scene = cell_scene(segment(VALUE, RED, 3), None, segment(BLINK, BLUE, 25, 10), None)
    assert len(scene) == CELL_SCENE_BYTES
    one_cell.set_cell(0, scene)
    assert one_cell.scene(0) == scene


def test_bad_scene_length_and_cell_are_refused():
    one_cell = lone_cell()
    with pytest.raises(ValueError):
        one_cell.set_cell(0, b"\x01" * 23)
    with pytest.raises(ValueError):
        one_cell.set_cell(1, bytes(CELL_SCENE_BYTES))
    with pytest.raises(ValueError):
        one_cell.set_segment(0, 4, SOLID, RED)


def test_solid_fills_its_edge_only():
    one_cell = lone_cell()
    one_cell.set_segment(0, EDGE_E, SOLID, GREEN)
    one_cell.render(1234)
    assert edge_leds(one_cell, 0, EDGE_E) == [GREEN] * 6
    for edge in (EDGE_N, EDGE_S, EDGE_W):
        assert edge_leds(one_cell, 0, edge) == [(0, 0, 0)] * 6


def test_blink_is_on_for_its_duty_then_off():
    one_cell = lone_cell()
    # period 25 * 20 = 500 ms, 20 % lit: on for t in [0, 100), off for [100, 500)
    one_cell.set_cell(0, uniform_scene(BLINK, RED, 25, 20))
    for t, lit in ((0, True), (99, True), (100, False), (499, False), (500, True), (1099, True), (1100, False)):
        one_cell.render(t)
        assert led(one_cell, 0, EDGE_N, 0) == (RED if lit else (0, 0, 0)), t


def test_blink_default_is_half_of_a_second():
    one_cell = lone_cell()
    one_cell.set_cell(0, uniform_scene(BLINK, RED))
    one_cell.render(499)
    assert led(one_cell, 0, EDGE_W, 5) == RED
    one_cell.render(500)
    assert led(one_cell, 0, EDGE_W, 5) == (0, 0, 0)


def test_pulse_breathes_between_floor_and_full():
    one_cell = lone_cell()
    # period 100 * 20 = 2000 ms, floor 64: lowest at t = 0, brightest at t = 1000.
    one_cell.set_cell(0, uniform_scene(PULSE, WHITE, 100, 64))
    levels = []
    for t in range(0, 2001, 100):
        one_cell.render(t)
        levels.append(led(one_cell, 0, EDGE_N, 0)[0])
    assert levels[0] == 63 and levels[-1] == 63            # floor (64/256 of 255)
    assert max(levels) == levels[10] and levels[10] >= 250
    assert levels[:11] == sorted(levels[:11])               # rises ...
    assert levels[10:] == sorted(levels[10:], reverse=True)  # ... then falls
    assert levels[5] < (levels[0] + levels[10]) // 2        # eased, not linear


def test_chase_head_moves_along_the_edge_with_a_fading_tail():
    one_cell = lone_cell()
    # one lap of 6 LEDs in 600 ms: the head is on LED t // 100; tail of 3.
    one_cell.set_segment(0, EDGE_N, CHASE, BLUE, 30, 3)
    one_cell.render(250)
    blues = [c[2] for c in edge_leds(one_cell, 0, EDGE_N)]
    assert blues == [84, 169, 255, 0, 0, 0]
    one_cell.render(50)
    blues = [c[2] for c in edge_leds(one_cell, 0, EDGE_N)]
    assert blues == [255, 0, 0, 0, 84, 169]       # the tail wraps around


def test_chase_backwards():
    one_cell = lone_cell()
    one_cell.set_segment(0, EDGE_N, CHASE, BLUE, 30, 1 | CHASE_REVERSE)
    one_cell.render(0)
    assert [c[2] for c in edge_leds(one_cell, 0, EDGE_N)] == [0, 0, 0, 0, 0, 255]
    one_cell.render(100)
    assert [c[2] for c in edge_leds(one_cell, 0, EDGE_N)] == [0, 0, 0, 0, 255, 0]


def test_chase_around_the_cell_visits_each_edge_in_turn():
    one_cell = lone_cell()
    one_cell.set_cell(0, uniform_scene(CHASE, RED, 120, 1 | CHASE_RING))  # 24 LEDs in 2.4 s
    for edge in (EDGE_N, EDGE_E, EDGE_S, EDGE_W):
        one_cell.render(edge * 600 + 200)
        lit = [(e, i) for e in range(4) for i in range(6) if led(one_cell, 0, e, i)[0]]
        assert lit == [(edge, 2)]


def test_value_lights_count_leds_with_dim_background():
    one_cell = lone_cell()
    one_cell.set_segment(0, EDGE_S, VALUE, RED, 4, 32)
    one_cell.render(0)
    assert edge_leds(one_cell, 0, EDGE_S) == [RED] * 4 + [(31, 0, 0)] * 2


def test_value_zero_shows_only_the_background():
    one_cell = lone_cell()
    one_cell.set_segment(0, EDGE_S, VALUE, RED, 0, 0)
    one_cell.render(0)
    assert edge_leds(one_cell, 0, EDGE_S) == [(0, 0, 0)] * 6


def test_value_above_segment_length_shows_the_excess_in_white():
    one_cell = lone_cell()
    one_cell.set_segment(0, EDGE_W, VALUE, BLUE, 8)
    one_cell.render(0)
    assert edge_leds(one_cell, 0, EDGE_W) == [WHITE] * 2 + [BLUE] * 4


def test_effects_are_pure_functions_of_time():
    one_cell = lone_cell()
    one_cell.set_cell(0, cell_scene(segment(PULSE, RED, 40), segment(CHASE, BLUE, 20, 2),
                                    segment(RAINBOW), segment(BLINK, GREEN, 10)))
    frames = {}
    for t in (0, 333, 777, 1500):
        frames[t] = bytes(one_cell.render(t))
    for t in (1500, 0, 777, 333):
        assert bytes(one_cell.render(t)) == frames[t]
    assert len(set(frames.values())) == 4


def test_unknown_effect_renders_dark():
    one_cell = lone_cell()
    one_cell.set_cell(0, bytes((99, 255, 255, 255, 1, 1)) * 4)
    one_cell.render(0)
    assert sum(one_cell.buf) == 0


def test_off_and_clear():
    one_cell = lone_cell()
    one_cell.set_cell(0, uniform_scene(SOLID, WHITE))
    one_cell.clear(0)
    one_cell.render(0)
    assert sum(one_cell.buf) == 0
    one_cell.set_segment(0, EDGE_N, OFF, WHITE)
    one_cell.render(0)
    assert sum(one_cell.buf) == 0


def test_brightness_scales_every_channel():
    one_cell = lone_cell()
    one_cell.set_cell(0, uniform_scene(SOLID, (200, 100, 40)))
    one_cell.brightness = 127
    one_cell.render(0)
    assert led(one_cell, 0, EDGE_N, 0) == (100, 50, 20)
    one_cell.brightness = 0
    one_cell.render(0)
    assert led(one_cell, 0, EDGE_N, 0) == (0, 0, 0)


def test_rainbow_turns_through_the_colour_wheel():
    one_cell = lone_cell()
    one_cell.set_segment(0, EDGE_N, RAINBOW, (0, 0, 0), 50)   # one turn per second
    one_cell.render(0)
    first = led(one_cell, 0, EDGE_N, 0)
    one_cell.render(1000)
    assert led(one_cell, 0, EDGE_N, 0) == first
    one_cell.render(333)
    assert led(one_cell, 0, EDGE_N, 0) != first
    assert all(sum(c) >= 250 for c in edge_leds(one_cell, 0, EDGE_N))


def test_full_white_everywhere_stays_within_the_default_850_ma():
    e = EffectsEngine(8, leds_per_segment=6)       # 192 LEDs: 10.5 A at full white
    for c in range(8):
        e.set_cell(c, uniform_scene(SOLID, WHITE))
    e.render(0)
    assert e.limited
    assert within_budget(e, 850)
    assert e.current_ma <= 850
    assert e.current_ma > 800                      # scaled to the budget, not far below it
    # All LEDs dimmed alike: the picture keeps its proportions.
    assert len(set(e.buf)) == 1


def test_current_limit_holds_for_every_frame_of_every_effect():
    effects = (SOLID, BLINK, PULSE, CHASE, VALUE, RAINBOW)
    for budget in (100, 500, 850, 2000):
        e = EffectsEngine(8, leds_per_segment=8, budget_ma=budget)
        for c in range(8):
            e.set_cell(c, cell_scene(*[segment(effects[(c + k) % 6], WHITE, 7 + c, 6)
                                       for k in range(4)]))
        for t in range(0, 3000, 111):
            e.render(t)
            assert within_budget(e, budget), (budget, t)
            assert e.current_ma <= budget


def test_frame_under_budget_is_not_touched():
    e = EffectsEngine(8, leds_per_segment=6)
    e.set_segment(3, EDGE_E, SOLID, RED)
    e.render(0)
    assert not e.limited
    assert led(e, 3, EDGE_E, 0) == RED
    assert e.current_ma == 6 * 255 * 55 // 765


def test_render_reuses_one_buffer():
    e = EffectsEngine(8, leds_per_segment=6)
    buf = e.buf
    ident = id(buf)
    for c in range(8):
        e.set_cell(c, uniform_scene(PULSE, WHITE, 10))
    for t in range(0, 1000, 50):
        assert e.render(t) is buf
    e.idle = True
    assert e.render(5) is buf
    assert id(e.buf) == ident and len(buf) == 8 * 4 * 6 * 3


def test_idle_animation_lights_every_cell_and_keeps_scenes():
    e = EffectsEngine(2, leds_per_segment=4)
    scene = uniform_scene(SOLID, RED)
    e.set_cell(0, scene)
    e.idle = True
    e.render(1000)
    for c in range(2):
        for edge in range(4):
            assert all(sum(x) > 0 for x in edge_leds(e, c, edge))
    frame_a = bytes(e.buf)
    e.render(2500)
    assert bytes(e.buf) != frame_a              # it moves
    e.idle = False
    e.render(0)
    assert e.scene(0) == scene and led(e, 0, EDGE_N, 0) == RED


def test_due_keeps_a_fixed_frame_rate():
    e = EffectsEngine(1, fps=25)                # 40 ms frames
    assert e.frame_ms == 40
    ticks = [t for t in range(0, 400, 5) if e.due(t)]
    assert ticks == list(range(0, 400, 40))


def test_due_skips_ahead_after_a_long_stall():
    e = EffectsEngine(1, fps=25)
    assert e.due(0)
    assert e.due(500)               # late: render now ...
    assert not e.due(510)
    assert e.due(540)               # ... and keep the period from there


def test_a_scene_is_animated_when_any_edge_changes_with_time():
    e = EffectsEngine(2)
    assert not e.animated()                         # every cell off
    e.set_cell(0, uniform_scene(SOLID, RED))
    e.set_segment(1, EDGE_W, VALUE, RED, 3)
    assert not e.animated()                         # still: rendered once
    for effect in (BLINK, PULSE, CHASE, RAINBOW):
        e.set_segment(1, EDGE_S, effect, RED, 10)
        assert e.animated(), effect
        e.set_segment(1, EDGE_S, OFF)
    assert not e.animated()
