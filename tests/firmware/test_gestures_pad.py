"""Tap, double tap and hold on a cell pad, from (time, pressed) samples.

"Double-tap the cell right after placing = it went down face-down (Hide);
tap a face-down card = Reveal; hold = Spin clockwise." (DESIGN.md)

Plain functions: the same module runs under MicroPython (tests/mpy_run_tests.py).
"""

from firmware.gestures import DOUBLE, HOLD, TAP, GESTURE_NAMES, CellPads, PadGestures

STEP = 5    # the main loop samples every 5 ms


def run(pad, presses, until, step=STEP, bounce=None):
    """Sample `pad` from 0 to `until` ms; presses: [(start, end)] in ms.

    bounce: {time: level} overrides of the raw level (contact bounce, glitches).
    Returns [(time, gesture)].
    """
    out = []
    for t in range(0, until, step):
        level = any(a <= t < b for a, b in presses)
        if bounce and t in bounce:
            level = bounce[t]
        g = pad.feed(t, level)
        if g:
            out.append((t, g))
    return out


def kinds(events):
    return [g for _, g in events]


def test_short_press_is_one_tap_after_the_double_tap_window():
    pad = PadGestures()
    events = run(pad, [(100, 200)], 1000)
    assert kinds(events) == [TAP]
    # reported once the 300 ms window after the release (at 200) has passed
    assert 500 < events[0][0] <= 500 + 2 * STEP + pad.debounce_ms


def test_two_quick_presses_are_a_double_tap_not_two_taps():
    events = run(PadGestures(), [(100, 180), (300, 380)], 1200)
    assert kinds(events) == [DOUBLE]


def test_two_presses_too_far_apart_are_two_taps():
    events = run(PadGestures(), [(100, 180), (700, 780)], 1600)
    assert kinds(events) == [TAP, TAP]


def test_long_press_is_a_hold_reported_while_held():
    pad = PadGestures()
    events = run(pad, [(100, 2000)], 2500)
    assert kinds(events) == [HOLD]
    assert events[0][0] < 2000                  # before the release
    assert events[0][0] >= 100 + pad.hold_ms


def test_hold_is_reported_once_per_press():
    events = run(PadGestures(), [(100, 3000), (3500, 4500)], 5000)
    assert kinds(events) == [HOLD, HOLD]


def test_tap_then_hold_reports_both_in_order():
    events = run(PadGestures(), [(100, 180), (300, 1500)], 2000)
    assert kinds(events) == [TAP, HOLD]


def test_contact_bounce_on_press_and_release_is_one_tap():
    # A button chatters for a few ms at each edge.
    bounce = {100: True, 105: False, 110: True, 115: False, 120: True,
              250: False, 255: True, 260: False, 265: True}
    events = run(PadGestures(), [(120, 270)], 1000, bounce=bounce)
    assert kinds(events) == [TAP]


def test_glitch_shorter_than_debounce_is_ignored():
    events = run(PadGestures(), [(100, 115)], 1000)
    assert events == []


def test_glitch_between_two_taps_does_not_make_a_double():
    # 10 ms spike of noise in the window after a tap, then nothing: still one tap.
    events = run(PadGestures(), [(100, 200), (300, 310)], 1200)
    assert kinds(events) == [TAP]


def test_dropout_during_a_hold_does_not_split_it():
    # A touch pad reads released for 10 ms in the middle of a long press.
    events = run(PadGestures(), [(100, 500), (510, 1500)], 2000)
    assert kinds(events) == [HOLD]


def test_tunables_are_class_attributes_and_per_instance():
    assert PadGestures.debounce_ms and PadGestures.double_tap_ms and PadGestures.hold_ms
    quick = PadGestures(hold_ms=200, double_tap_ms=100)
    assert kinds(run(quick, [(100, 400)], 800)) == [HOLD]
    assert kinds(run(PadGestures(), [(100, 400)], 800)) == [TAP]


def test_debounced_level_follows_the_pad():
    pad = PadGestures()
    run(pad, [(0, 1000)], 100)
    assert pad.pressed


def test_ticks_wrap_is_harmless_with_ticks_diff():
    # On CPython ticks_diff is a plain difference: times near any offset behave the same.
    base = 10 ** 9
    pad = PadGestures()
    out = []
    for t in range(0, 1000, STEP):
        g = pad.feed(base + t, 100 <= t < 180 or 300 <= t < 380)
        if g:
            out.append(g)
    assert out == [DOUBLE]


def test_cell_pads_keep_cells_apart():
    pads = CellPads(3, hold_ms=400)
    got = []
    for t in range(0, 1500, STEP):
        for cell in range(3):
            pressed = (cell == 0 and 100 <= t < 180) or (cell == 2 and 100 <= t < 900)
            g = pads.feed(cell, t, pressed)
            if g:
                got.append((cell, GESTURE_NAMES[g]))
    assert sorted(got) == [(0, "tap"), (2, "hold")]


def test_recognition_does_not_depend_on_the_sampling_rate():
    presses = [(100, 180), (300, 380), (1000, 1100), (2000, 3000)]
    for step in (1, 5, 10, 20):
        assert kinds(run(PadGestures(), presses, 4000, step=step)) == [DOUBLE, TAP, HOLD], step
