"""The LED scene format: the bytes that light a cell's four edges, as the host sends them.

Both ends use this module: the host builds scenes with ``segment``,
``cell_scene`` and ``uniform_scene``; a tile (firmware/effects.py) renders
them. A cell has 4 LED segments, one per edge, in the order N, E, S, W.
A cell's scene is 24 bytes, 6 per segment in that order:

    byte 0  effect id       OFF=0 SOLID=1 BLINK=2 PULSE=3 CHASE=4 VALUE=5 RAINBOW=6
    byte 1  red   0..255
    byte 2  green 0..255
    byte 3  blue  0..255
    byte 4  a     first parameter   (meaning per effect, below)
    byte 5  b     second parameter

    OFF      dark.
    SOLID    the colour.
    BLINK    a = period in 20 ms units (0: 1000 ms); b = percent of the period lit (0: 50).
    PULSE    a = period in 20 ms units (0: 2000 ms); b = lowest level 0..255 (breathes
             between b and full).
    CHASE    a = period of one lap in 20 ms units (0: 1000 ms); b bits 0..3 = tail length
             in LEDs (0: 1), bit 6 (CHASE_RING) = run around the whole cell (the four
             edges as one ring) instead of along this edge, bit 7 (CHASE_REVERSE) = run
             backwards.
    VALUE    a = a count (swords, shields...): that many LEDs lit in the colour from the
             segment start; a count above the segment length lights them all and shows
             the excess as white LEDs from the start; b = level 0..255 of the unlit LEDs
             (0: dark), so the edge stays visible at zero.
    RAINBOW  colour ignored; a = period in 20 ms units (0: 4000 ms); b = level (0: full).

An unknown effect id renders dark (an older tile ignores newer effects).

>>> uniform_scene(SOLID, (255, 0, 0)) == cell_scene(*[segment(SOLID, (255, 0, 0))] * 4)
True
"""

EDGE_N = 0
EDGE_E = 1
EDGE_S = 2
EDGE_W = 3
EDGES = 4

OFF = 0
SOLID = 1
BLINK = 2
PULSE = 3
CHASE = 4
VALUE = 5
RAINBOW = 6
# The effects' names in id order, one string: a tuple of names would cost a tile's heap
# a name object each, and a tile never looks them up.
_EFFECT_NAMES = "off solid blink pulse chase value rainbow"

SEGMENT_BYTES = 6
CELL_SCENE_BYTES = EDGES * SEGMENT_BYTES

CHASE_RING = 0x40
CHASE_REVERSE = 0x80


def segment(effect, rgb=(0, 0, 0), a=0, b=0):
    """The 6 scene bytes of one segment, e.g. segment(VALUE, (255, 0, 0), 3)."""
    return bytes((effect, rgb[0], rgb[1], rgb[2], a, b))


def cell_scene(n=None, e=None, s=None, w=None):
    """The 24 scene bytes of a cell from its four segments (None: off)."""
    out = bytearray(CELL_SCENE_BYTES)
    i = 0
    for seg in (n, e, s, w):
        if seg is not None:
            if len(seg) != SEGMENT_BYTES:
                raise ValueError("a segment is %d bytes, not %d" % (SEGMENT_BYTES, len(seg)))
            out[i:i + SEGMENT_BYTES] = seg
        i += SEGMENT_BYTES
    return bytes(out)


def effect_id(name):
    """The id of the effect called ``name`` ("solid", "blink", ...); ValueError if none is."""
    names = _EFFECT_NAMES.split()
    if name not in names:
        raise ValueError("no LED effect is called %r (effects: %s)" % (name, _EFFECT_NAMES))
    return names.index(name)


def uniform_scene(effect, rgb=(0, 0, 0), a=0, b=0):
    """The same segment on all four edges (a whole cell blinking, pulsing...)."""
    return segment(effect, rgb, a, b) * EDGES
