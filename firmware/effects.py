"""Cell edge lighting: effects as functions of time, rendered into a WS2812 GRB buffer.

Every cell has 4 LED segments, one per edge, in the order N, E, S, W; each
segment has `leds_per_segment` LEDs, numbered clockwise around the cell
(N runs west to east, E north to south, S east to west, W south to north).
Segments are chained cell after cell on one data pin:

    buffer offset of LED i of edge e of cell c = ((c * 4 + e) * leds_per_segment + i) * 3

A cell's scene (what the host sends, and what `set_cell` takes) is 24 bytes,
6 per segment: shared_rules/led_scene.py defines the format and each effect.

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

from shared_rules.led_scene import (BLINK, CELL_SCENE_BYTES, CHASE, CHASE_RING,
                                    CHASE_REVERSE, EDGES, PULSE, RAINBOW, SEGMENT_BYTES,
                                    SOLID, VALUE)

_DEFAULT_PERIOD_MS = (0, 0, 1000, 2000, 1000, 0, 4000)


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

    def animated(self):
        """Whether any segment's effect changes with time (a still scene is rendered once)."""
        s = self.scenes
        for k in range(0, len(s), SEGMENT_BYTES):
            e = s[k]
            if e == BLINK or e == PULSE or e == CHASE or e == RAINBOW:
                return True
        return False

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
