"""The page's LED effects (host/web/static/effects.js) against the tile's own renderer
(firmware/effects.py): for every effect, at many moments, each LED of each edge is the same
colour, so the page shows a cell as the tile lights it."""

import os

from firmware import effects
from mpy import REPO
from shared_rules import led_scene

JS = os.path.join(REPO, "host", "web", "static", "effects.js")

SCENES = [
    [["solid", [40, 110, 255], 0, 0], ["off", [0, 0, 0], 0, 0],
     ["value", [255, 150, 0], 3, 8], ["value", [40, 110, 255], 9, 20]],
    [["blink", [255, 0, 0], 25, 50]] * 4,
    [["blink", [255, 0, 200], 15, 30]] * 4,
    [["pulse", [0, 40, 10], 100, 60]] * 4,
    [["chase", [255, 255, 255], 40, 2 | 0x40]] * 4,
    [["chase", [170, 0, 255], 25, 2], ["chase", [255, 255, 255], 50, 3 | 0x80],
     ["chase", [0, 200, 30], 0, 0], ["chase", [255, 80, 0], 30, 1 | 0x40 | 0x80]],
    [["rainbow", [0, 0, 0], 100, 0], ["rainbow", [0, 0, 0], 150, 120],
     ["rainbow", [0, 0, 0], 0, 255], ["solid", [30, 30, 60], 0, 0]],
]


def tile_leds(scene, now, n=6):
    engine = effects.EffectsEngine(1, leds_per_segment=n, budget_ma=10 ** 6)
    engine.set_cell(0, led_scene.cell_scene(*[
        led_scene.segment(led_scene.effect_id(s[0]), s[1], s[2], s[3]) for s in scene]))
    buf = engine.render(now)
    out = []
    for e in range(4):
        edge = []
        for i in range(n):
            j = (e * n + i) * 3
            edge.append([buf[j + 1], buf[j], buf[j + 2]])   # GRB on the wire
        out.append(edge)
    return out


def test_the_page_renders_every_effect_as_the_tile_does(browser):  # noqa: F811
    page = browser.new_page()
    page.set_content("<html><body></body></html>")
    page.add_script_tag(path=JS)
    times = [0, 7, 20, 199, 250, 333, 480, 500, 777, 999, 1000, 1234, 1999, 2500, 3999, 6001]
    for scene in SCENES:
        for now in times:
            js = page.evaluate("([scene, now]) => [0, 1, 2, 3].map(e => "
                               "FxLeds.segment(scene[e], e, 6, now))", [scene, now])
            assert js == tile_leds(scene, now), (scene, now)
