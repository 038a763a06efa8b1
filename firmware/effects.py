"""Cell edge lighting: effects as functions of time, rendered into a WS2812 GRB buffer.

Every cell has 4 LED segments, one per edge, in the order N, E, S, W; each
segment has `leds_per_segment` LEDs, numbered clockwise around the cell
(N runs west to east, E north to south, S east to west, W south to north).
Segments are chained cell after cell on one data pin:

    buffer offset of LED i of edge e of cell c = ((c * 4 + e) * leds_per_segment + i) * 3

Scene (what the host sends, and what `set_cell` takes): 24 bytes per cell,
6 bytes per segment in the order N, E, S, W:

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
             in LEDs (0: 1), bit 6 = run around the whole cell (the four edges as one
             ring) instead of along this edge, bit 7 = run backwards.
    VALUE    a = a count (swords, shields...): that many LEDs lit in the colour from the
             segment start; a count above the segment length lights them all and shows
             the excess as white LEDs from the start; b = level 0..255 of the unlit LEDs
             (0: dark), so the edge stays visible at zero.
    RAINBOW  colour ignored; a = period in 20 ms units (0: 4000 ms); b = level (0: full).

An unknown effect id renders dark (an older tile ignores newer effects).
Effects depend only on the time passed to `render`, so cells blinking the
same scene blink in step, and a frame can be recomputed exactly.

After the effects, the frame is scaled by the global `brightness` (0..255)
and then, if it would draw more than `budget_ma` (850 mA by default at
`ma_per_led` = 55 mA per LED at full white, i.e. 55/765 mA per channel
unit), scaled down as a whole so the estimate stays within the budget.
All arithmetic is integer, and a frame allocates one block: `render`'s own
frame of locals (see `render`).
"""

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython
    def ticks_add(a, b):
        return a + b

    def ticks_diff(a, b):
        return a - b

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
EFFECT_NAMES = ("off", "solid", "blink", "pulse", "chase", "value", "rainbow")

SEGMENT_BYTES = 6
CELL_SCENE_BYTES = EDGES * SEGMENT_BYTES

CHASE_RING = 0x40
CHASE_REVERSE = 0x80

_DEFAULT_PERIOD_MS = (0, 0, 1000, 2000, 1000, 0, 4000)


def segment(effect, rgb=(0, 0, 0), a=0, b=0):
    """The 6 scene bytes of one segment, e.g. segment(VALUE, (255, 0, 0), 3)."""
    return bytes((effect, rgb[0], rgb[1], rgb[2], a, b))


def cell_scene(n=None, e=None, s=None, w=None):
    """The 24 scene bytes of a cell from its four segments (None: off)."""
    out = bytearray(CELL_SCENE_BYTES)
    for i, seg in enumerate((n, e, s, w)):
        if seg is not None:
            if len(seg) != SEGMENT_BYTES:
                raise ValueError("a segment is %d bytes, not %d" % (SEGMENT_BYTES, len(seg)))
            out[i * SEGMENT_BYTES:(i + 1) * SEGMENT_BYTES] = seg
    return bytes(out)


def uniform_scene(effect, rgb=(0, 0, 0), a=0, b=0):
    """The same segment on all four edges (a whole cell blinking, pulsing...)."""
    seg = segment(effect, rgb, a, b)
    return seg + seg + seg + seg


class EffectsEngine:
    """The LED frame of one tile: scenes per cell, rendered at a fixed frame rate."""

    fps = 30
    budget_ma = 850
    ma_per_led = 55         # one WS2812 at full white (all three channels at 255)
    idle_period_ms = 6000   # the idle rainbow: one turn of the colour wheel
    idle_level = 56         # and its level (0..255): calm, and 192 LEDs stay under 850 mA

    def __init__(self, cells, leds_per_segment=6, fps=None, brightness=255, budget_ma=None):
        if cells < 1 or leds_per_segment < 1:
            raise ValueError("a tile needs at least one cell and one LED per segment")
        self.cells = cells
        self.leds_per_segment = leds_per_segment
        self.leds = cells * EDGES * leds_per_segment
        if budget_ma is not None:
            self.budget_ma = budget_ma
        self.frame_ms = 1000 // (fps or self.fps)
        self.brightness = brightness
        self.buf = bytearray(self.leds * 3)
        self.scenes = bytearray(cells * CELL_SCENE_BYTES)
        self.idle = False
        self.current_ma = 0     # estimated draw of the last frame, after limiting
        self.limited = False    # whether the last frame was scaled down by the budget
        self._next_frame = None

    # -- scenes ------------------------------------------------------------------------

    def set_cell(self, cell, scene):
        """Set the scene of a cell from its 24 bytes (the wire form)."""
        if not 0 <= cell < self.cells:
            raise ValueError("cell %d is not on this tile (it has %d)" % (cell, self.cells))
        if len(scene) != CELL_SCENE_BYTES:
            raise ValueError("a cell scene is %d bytes, not %d" % (CELL_SCENE_BYTES, len(scene)))
        k = cell * CELL_SCENE_BYTES
        self.scenes[k:k + CELL_SCENE_BYTES] = scene

    def set_segment(self, cell, edge, effect, rgb=(0, 0, 0), a=0, b=0):
        """Set one edge of a cell."""
        if not 0 <= edge < EDGES:
            raise ValueError("edge %d is not one of N=0, E=1, S=2, W=3" % edge)
        k = cell * CELL_SCENE_BYTES + edge * SEGMENT_BYTES
        s = self.scenes
        s[k] = effect
        s[k + 1] = rgb[0]
        s[k + 2] = rgb[1]
        s[k + 3] = rgb[2]
        s[k + 4] = a
        s[k + 5] = b

    def scene(self, cell):
        """The 24 scene bytes of a cell."""
        k = cell * CELL_SCENE_BYTES
        return bytes(self.scenes[k:k + CELL_SCENE_BYTES])

    def clear(self, cell=None):
        """Switch a cell (or every cell) off."""
        if cell is None:
            for i in range(len(self.scenes)):
                self.scenes[i] = 0
        else:
            self.set_cell(cell, bytes(CELL_SCENE_BYTES))

    # -- frame timing ------------------------------------------------------------------

    def due(self, now_ms):
        """True once per frame period: render when it says so (keeps a fixed frame rate).

        now_ms is time.ticks_ms() on a tile; the schedule uses ticks_add/ticks_diff.
        """
        nxt = self._next_frame
        if nxt is None or ticks_diff(now_ms, nxt) >= 0:
            # Schedule from the ideal time, not from now, unless we fell a frame behind.
            if nxt is None or ticks_diff(now_ms, nxt) >= self.frame_ms:
                nxt = now_ms
            self._next_frame = ticks_add(nxt, self.frame_ms)
            return True
        return False

    # -- rendering ---------------------------------------------------------------------

    def render(self, now):
        """Fill self.buf (GRB) with the frame at time `now` (ms) and return it.

        One function with every effect inline: a MicroPython function whose locals and
        stack do not fit the VM's few words on the C stack gets them from the heap at
        every call (py/objfun.c), freed on return. One such block a frame (about 200
        bytes on a Pico) is all a frame allocates; a helper per segment cost 32.
        """
        buf = self.buf
        scenes = self.scenes
        n = self.leds_per_segment
        bright = self.brightness + 1
        idle = self.idle
        total = 0
        k = 0
        o = 0
        for seg in range(self.cells * EDGES):
            if idle:
                effect = RAINBOW
                r = g = b = 0
                a = self.idle_period_ms // 20
                p = self.idle_level
                hue0 = seg * 24
            else:
                effect = scenes[k]
                r = scenes[k + 1]
                g = scenes[k + 2]
                b = scenes[k + 3]
                a = scenes[k + 4]
                p = scenes[k + 5]
                hue0 = 0
            k += SEGMENT_BYTES
            period = a * 20 if a else _DEFAULT_PERIOD_MS[effect] if effect < 7 else 1
            level = -1                  # -1: the effect wrote its LEDs itself
            if effect == SOLID:
                level = 256
            elif effect == BLINK:
                level = 256 if (now % period) * 100 < (p or 50) * period else 0
            elif effect == PULSE:
                x = (now % period) * 512 // period          # 0..511 over one period
                x = x if x < 256 else 511 - x               # 0..255..0
                level = p + (((256 - p) * x * x) >> 16)      # squared: eases in like a breath
            elif effect == CHASE:
                # b bits 0..3: the tail; CHASE_RING: the four edges as one ring.
                tail = (p & 0x0F) or 1
                ring = n * EDGES if p & CHASE_RING else n
                first = (seg & 3) * n if p & CHASE_RING else 0
                head = (now % period) * ring // period
                if p & CHASE_REVERSE:
                    head = ring - 1 - head
                for i in range(n):
                    d = head - first - i if not p & CHASE_REVERSE else first + i - head
                    if d < 0:
                        d += ring
                    m = ((tail - d) * 256 // tail * bright) >> 8 if d < tail else 0
                    j = o + 3 * i
                    buf[j] = (g * m) >> 8
                    buf[j + 1] = (r * m) >> 8
                    buf[j + 2] = (b * m) >> 8
                    total += buf[j] + buf[j + 1] + buf[j + 2]
            elif effect == VALUE:
                # a LEDs lit from the start; beyond the segment, the excess in white.
                over = a - n if a > n else 0
                dim = (p * bright) >> 8
                for i in range(n):
                    j = o + 3 * i
                    if i < over:
                        buf[j] = buf[j + 1] = buf[j + 2] = (255 * bright) >> 8
                    else:
                        m = bright if i < a else dim
                        buf[j] = (g * m) >> 8
                        buf[j + 1] = (r * m) >> 8
                        buf[j + 2] = (b * m) >> 8
                    total += buf[j] + buf[j + 1] + buf[j + 2]
            elif effect == RAINBOW:
                m = ((p or 255) * bright) >> 8
                turn = (now % period) * 256 // period
                for i in range(n):
                    h = ((turn + hue0 + i * 256 // (n * EDGES)) & 0xFF) * 3
                    if h < 256:
                        r, g, b = 255 - h, h, 0
                    elif h < 512:
                        h -= 256
                        r, g, b = 0, 255 - h, h
                    else:
                        h -= 512
                        r, g, b = h, 0, 255 - h
                    j = o + 3 * i
                    buf[j] = (g * m) >> 8
                    buf[j + 1] = (r * m) >> 8
                    buf[j + 2] = (b * m) >> 8
                    total += buf[j] + buf[j + 1] + buf[j + 2]
            else:
                level = 0
            if level >= 0:
                m = (level * bright) >> 8
                g = (g * m) >> 8
                r = (r * m) >> 8
                b = (b * m) >> 8
                for j in range(o, o + 3 * n, 3):
                    buf[j] = g
                    buf[j + 1] = r
                    buf[j + 2] = b
                total += n * (g + r + b)
            o += n * 3
        self.limited = False
        # total is the sum of all channel values: ma = total * ma_per_led / 765. The
        # scale has 12 fractional bits so every product stays a small int on a Pico.
        allowed = self.budget_ma * 765 // self.ma_per_led
        if total > allowed:
            scale = (allowed << 12) // total
            total = 0
            for i in range(len(buf)):
                v = (buf[i] * scale) >> 12
                buf[i] = v
                total += v
            self.limited = True
        self.current_ma = total * self.ma_per_led // 765
        return buf
