// The tiles' LED effects (firmware/effects.py) ported to the page: the same integer math,
// so a cell blinks, pulses and chases here as it does on the table. Exposed as FxLeds.
"use strict";
(function () {
  const NAMES = ["off", "solid", "blink", "pulse", "chase", "value", "rainbow"];
  const DEFAULT_PERIOD = {off: 0, solid: 0, blink: 1000, pulse: 2000, chase: 1000, value: 0,
                          rainbow: 4000};
  const RING = 0x40, REVERSE = 0x80, EDGES = 4;

  // The colours of the n LEDs of one segment (edge `edge` of a cell) at time `now` (ms).
  function segment(seg, edge, n, now) {
    const effect = seg[0], rgb = seg[1], a = seg[2], p = seg[3];
    let r = rgb[0], g = rgb[1], b = rgb[2];
    const period = a ? a * 20 : (DEFAULT_PERIOD[effect] || 1);
    const out = [];
    let level = -1;
    if (effect === "solid") level = 256;
    else if (effect === "blink") level = (now % period) * 100 < (p || 50) * period ? 256 : 0;
    else if (effect === "pulse") {
      let x = Math.floor((now % period) * 512 / period);
      x = x < 256 ? x : 511 - x;
      level = p + (((256 - p) * x * x) >> 16);
    } else if (effect === "chase") {
      const tail = (p & 0x0F) || 1;
      const ring = (p & RING) ? n * EDGES : n;
      const first = (p & RING) ? (edge & 3) * n : 0;
      let head = Math.floor((now % period) * ring / period);
      if (p & REVERSE) head = ring - 1 - head;
      for (let i = 0; i < n; i++) {
        let d = !(p & REVERSE) ? head - first - i : first + i - head;
        if (d < 0) d += ring;
        const m = d < tail ? Math.floor((tail - d) * 256 / tail) : 0;
        out.push([(r * m) >> 8, (g * m) >> 8, (b * m) >> 8]);
      }
      return out;
    } else if (effect === "value") {
      const over = a > n ? a - n : 0;
      for (let i = 0; i < n; i++) {
        if (i < over) out.push([255, 255, 255]);
        else {
          const m = i < a ? 256 : p;
          out.push([(r * m) >> 8, (g * m) >> 8, (b * m) >> 8]);
        }
      }
      return out;
    } else if (effect === "rainbow") {
      const m = p || 255;
      const turn = Math.floor((now % period) * 256 / period);
      for (let i = 0; i < n; i++) {
        let h = ((turn + Math.floor(i * 256 / (n * EDGES))) & 0xFF) * 3;
        if (h < 256) { r = 255 - h; g = h; b = 0; }
        else if (h < 512) { h -= 256; r = 0; g = 255 - h; b = h; }
        else { h -= 512; r = h; g = 0; b = 255 - h; }
        out.push([(r * m) >> 8, (g * m) >> 8, (b * m) >> 8]);
      }
      return out;
    } else level = 0;
    const c = [(r * level) >> 8, (g * level) >> 8, (b * level) >> 8];
    for (let i = 0; i < n; i++) out.push(c);
    return out;
  }

  // Is a scene still (nothing to animate)?
  function still(scene) {
    return scene.every(seg => seg[0] === "off" || seg[0] === "solid" || seg[0] === "value");
  }

  // A LED value as a screen colour: the tiles' dim glows are made visible (a square root).
  function css(c) {
    const f = v => Math.round(255 * Math.sqrt(v / 255));
    if (c[0] + c[1] + c[2] === 0) return "rgb(24,24,28)";
    return "rgb(" + f(c[0]) + "," + f(c[1]) + "," + f(c[2]) + ")";
  }

  window.FxLeds = {segment: segment, still: still, css: css, NAMES: NAMES};
})();
