"""Lighting: the game state, its latest events and the table's mismatches as a scene per cell.

A scene is four edge segments (N, E, S, W); a segment is
(effect, (r, g, b), a, b) with the effect names and parameters of
shared_rules/led_scene.py (the tiles render them). Scenes are computed from data
only, so the same state always lights the same way, after a restart too.
"""

from shared_rules import led_scene

OFF = ("off", (0, 0, 0), 0, 0)
DARK_CELL = (OFF, OFF, OFF, OFF)

HINT = (0, 40, 10)
HINT_SLIDE = (0, 160, 40)
MISMATCH = (255, 0, 0)
BOT_MOVE = (255, 255, 255)
TRAY = (0, 140, 60)         # a dice-tray pocket the table waits for
PAWN_COLOURS = {"red": (255, 0, 0), "blue": (0, 60, 255), "green": (0, 200, 30),
                "yellow": (255, 180, 0), "purple": (150, 0, 255), "orange": (255, 80, 0),
                "white": (200, 200, 200), "black": (30, 30, 60)}


def encode(scene):
    """The 24 bytes the tiles take for a cell (shared_rules/led_scene.py's format)."""
    return led_scene.cell_scene(*[led_scene.segment(led_scene.effect_id(seg[0]),
                                                    seg[1], min(255, seg[2]), min(255, seg[3]))
                                  for seg in scene])


def solid(rgb):
    return ("solid", rgb, 0, 0)


def blink(rgb, period_ms=400, duty=50):
    return ("blink", rgb, max(1, period_ms // 20), duty)


def pulse(rgb, period_ms=2000, low=30):
    return ("pulse", rgb, max(1, period_ms // 20), low)


def value(rgb, count, unlit=8):
    return ("value", rgb, count, unlit)


def chase(rgb, period_ms=1000, tail=2):
    return ("chase", rgb, max(1, period_ms // 20), tail | 0x40)


def all_edges(segment):
    return (segment, segment, segment, segment)


def overlay(scenes, pockets=(), bot_cells=(), mismatches=()):
    """What every game lights the same way, over its own scenes: the dice pockets the table
    waits for (a slow pulse), the cells a bot asks hands to move (a white chase) and the cells
    the table has wrong (a red blink). Returns `scenes`."""
    for pocket in pockets:
        scenes[("pocket", pocket)] = all_edges(pulse(TRAY, 800, 40))
    for cell in bot_cells:
        scenes[tuple(cell)] = all_edges(chase(BOT_MOVE, 800))
    for m in mismatches:
        for cell in m.cells:
            scenes[tuple(cell)] = all_edges(blink(MISMATCH, 500))
    return scenes


def rainbow(period_ms=2000, level=255):
    return ("rainbow", (0, 0, 0), max(1, period_ms // 20), level)
