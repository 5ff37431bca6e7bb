#!/usr/bin/env python3
"""Draw the app's icons and logos into static/ (pure Python: zlib PNG writer, no Pillow).

The mark: a pipeline (a pipe with two flanged joints) under a heartbeat pulse, white and
amber on a blue rounded square. Shapes are signed-distance functions evaluated once per
pixel with analytic anti-aliasing, using only correctly rounded float operations (no math.hypot,
no sum(): both changed results between Python 3.9 and 3.13), so the output is identical on
every machine and Python version, and
tests/gates/test_gates_icons.py can prove the committed PNGs are exactly what this script draws.

  appIcon.png 36x36, appIcon_2x.png 72x72         the mark on its blue square
  appIconAlt.png 36x36, appIconAlt_2x.png 72x72    the mark in blue on transparent
  appLogo.png 160x40, appLogo_2x.png 320x80        the mark and "Ingest Doctor" (light text,
                                                   for Splunk's dark app bar)

Usage: draw_icons.py [--out static] [--check]   --check compares instead of writing.
"""
from __future__ import annotations

import argparse
import math
import os
import struct
import sys
import zlib
from typing import Callable, Dict, List, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLUE = (0x1F, 0x5F, 0xA8)
BLUE_TOP = (0x2C, 0x7C, 0xCF)
WHITE = (0xFF, 0xFF, 0xFF)
AMBER = (0xFF, 0xB3, 0x1A)
TEXT = (0xF2, 0xF5, 0xF8)
RGBA = Tuple[float, float, float, float]
Point = Tuple[float, float]


# ---------------------------------------------------------------- PNG
def png(width: int, height: int, pixels: Sequence[Sequence[RGBA]]) -> bytes:
    """8-bit RGBA PNG; pixels[y][x] = (r, g, b, a) with components in 0..255."""
    raw = bytearray()
    for row in pixels:
        raw.append(0)  # filter: none
        for r, g, b, a in row:
            raw += bytes((int(round(r)), int(round(g)), int(round(b)), int(round(a))))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
            + chunk(b"IEND", b""))


def png_size(data: bytes) -> Tuple[int, int]:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])


# ---------------------------------------------------------------- shapes (unit = pixels)
def seg_dist(px: float, py: float, a: Point, b: Point) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / L))
    ex, ey = px - ax - t * dx, py - ay - t * dy
    return math.sqrt(ex * ex + ey * ey)


def round_rect_sd(px: float, py: float, x0: float, y0: float, x1: float, y1: float, r: float) -> float:
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hx, hy = (x1 - x0) / 2 - r, (y1 - y0) / 2 - r
    qx, qy = abs(px - cx) - hx, abs(py - cy) - hy
    mx, my = max(qx, 0.0), max(qy, 0.0)
    return math.sqrt(mx * mx + my * my) + min(max(qx, qy), 0.0) - r


def coverage(sd: float) -> float:
    """Signed distance (negative inside) -> pixel coverage, one-pixel anti-aliasing."""
    return max(0.0, min(1.0, 0.5 - sd))


class Layer:
    """A colour and a signed-distance function over pixel centres."""

    def __init__(self, color: Tuple[int, int, int], sd: Callable[[float, float], float],
                 bbox: Tuple[float, float, float, float]):
        self.color, self.sd, self.bbox = color, sd, bbox


def strokes(polylines: List[List[Point]], width: float) -> Tuple[Callable[[float, float], float], Tuple[float, float, float, float]]:
    segs = [(p[i], p[i + 1]) for p in polylines for i in range(len(p) - 1)] + \
           [(p[0], p[0]) for p in polylines if len(p) == 1]
    half = width / 2
    xs = [c[0] for p in polylines for c in p]
    ys = [c[1] for p in polylines for c in p]
    bbox = (min(xs) - width, min(ys) - width, max(xs) + width, max(ys) + width)

    def sd(px: float, py: float) -> float:
        return min(seg_dist(px, py, a, b) for a, b in segs) - half
    return sd, bbox


def render(width: int, height: int, layers: List[Layer], vgrad: Dict[int, Tuple[int, int, int]] = None) -> List[List[RGBA]]:
    out = []
    for y in range(height):
        row = []
        for x in range(width):
            px, py = x + 0.5, y + 0.5
            r = g = b = a = 0.0  # premultiplied
            for i, layer in enumerate(layers):
                x0, y0, x1, y1 = layer.bbox
                if not (x0 - 1 <= px <= x1 + 1 and y0 - 1 <= py <= y1 + 1):
                    continue
                cov = coverage(layer.sd(px, py))
                if cov <= 0:
                    continue
                color = layer.color
                if vgrad and i in vgrad:  # vertical gradient from vgrad[i] (top) to color (bottom)
                    t = (py - y0) / max(1.0, (y1 - y0))
                    top = vgrad[i]
                    color = tuple(top[k] + (layer.color[k] - top[k]) * t for k in range(3))
                r = color[0] * cov + r * (1 - cov)
                g = color[1] * cov + g * (1 - cov)
                b = color[2] * cov + b * (1 - cov)
                a = 255 * cov + a * (1 - cov)
            if a > 0:
                row.append((r * 255 / a, g * 255 / a, b * 255 / a, a))
            else:
                row.append((0, 0, 0, 0))
        out.append(row)
    return out


# ---------------------------------------------------------------- the mark
def mark_layers(ox: float, oy: float, s: float, square: bool, fg=WHITE) -> List[Layer]:
    """The mark in a square of side s at (ox, oy)."""
    def P(x: float, y: float) -> Point:
        return (ox + x * s, oy + y * s)
    layers = []
    if square:
        r = 0.2 * s
        layers.append(Layer(BLUE, lambda px, py: round_rect_sd(px, py, ox, oy, ox + s, oy + s, r),
                            (ox, oy, ox + s, oy + s)))
    # the pipe: a bar with two flanges (joints between stages)
    y0, y1 = oy + 0.60 * s, oy + 0.76 * s
    bar = (ox + 0.12 * s, y0, ox + 0.88 * s, y1)
    flanges = [(ox + (c - 0.045) * s, oy + 0.55 * s, ox + (c + 0.045) * s, oy + 0.81 * s) for c in (0.37, 0.63)]

    def pipe_sd(px: float, py: float) -> float:
        d = round_rect_sd(px, py, *bar, 0.03 * s)
        for f in flanges:
            d = min(d, round_rect_sd(px, py, *f, 0.02 * s))
        return d
    layers.append(Layer(fg, pipe_sd, (bar[0], oy + 0.55 * s, bar[2], oy + 0.81 * s)))
    # the pulse over it
    pulse = [P(0.12, 0.40), P(0.34, 0.40), P(0.42, 0.40), P(0.48, 0.15), P(0.56, 0.52),
             P(0.62, 0.32), P(0.66, 0.40), P(0.88, 0.40)]
    sd, bbox = strokes([pulse], max(1.2, 0.075 * s))
    layers.append(Layer(AMBER, sd, bbox))
    return layers


# ---------------------------------------------------------------- a small stroke font
def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 14) -> List[Point]:
    return [(cx + rx * math.cos(math.radians(a0 + (a1 - a0) * i / n)),
             cy - ry * math.sin(math.radians(a0 + (a1 - a0) * i / n))) for i in range(n + 1)]


# Glyphs on a grid: cap height 1.0 (y=0 top, y=1 baseline), x-height from y=0.42.
GLYPHS: Dict[str, Tuple[float, List[List[Point]]]] = {
    "I": (0.0, [[(0, 0), (0, 1)]]),
    "D": (0.62, [[(0, 0), (0, 1)], [(0, 0), (0.22, 0)] + _arc(0.22, 0.5, 0.40, 0.5, 90, -90) + [(0.22, 1), (0, 1)]]),
    "n": (0.46, [[(0, 0.42), (0, 1)], _arc(0.23, 0.65, 0.23, 0.23, 180, 0) + [(0.46, 1)]]),
    "o": (0.52, [_arc(0.26, 0.71, 0.26, 0.29, 0, 360, 24)]),
    "c": (0.46, [_arc(0.26, 0.71, 0.26, 0.29, 50, 310, 20)]),
    "e": (0.52, [[(0.0, 0.71), (0.52, 0.71)] + _arc(0.26, 0.71, 0.26, 0.29, 0, 310, 22)]),
    "g": (0.50, [_arc(0.25, 0.69, 0.25, 0.27, 0, 360, 24), [(0.50, 0.42), (0.50, 1.08)] + _arc(0.25, 1.08, 0.25, 0.2, 0, -150, 8)]),
    "s": (0.42, [[(0.42, 0.49), (0.32, 0.43), (0.16, 0.42), (0.04, 0.48), (0.02, 0.59), (0.10, 0.67),
                  (0.30, 0.73), (0.41, 0.81), (0.42, 0.92), (0.32, 0.99), (0.14, 1.0), (0.0, 0.93)]]),
    "t": (0.36, [[(0.12, 0.18), (0.12, 0.88)] + _arc(0.30, 0.88, 0.18, 0.12, 180, 270, 6), [(0.0, 0.42), (0.34, 0.42)]]),
    "r": (0.34, [[(0, 0.42), (0, 1)], _arc(0.24, 0.68, 0.24, 0.26, 180, 80, 8)]),
    " ": (0.18, []),
}


def text_layer(text: str, x: float, baseline: float, cap: float, color=TEXT) -> Layer:
    lines = []
    pen = x
    weight = 0.15 * cap
    gap = 0.30 * cap
    for ch in text:
        adv, polys = GLYPHS[ch]
        for p in polys:
            lines.append([(pen + gx * cap, baseline - cap + gy * cap) for gx, gy in p])
        pen += adv * cap + gap
    sd, bbox = strokes(lines, weight)
    return Layer(color, sd, bbox)


# ---------------------------------------------------------------- the files
def icon(size: int, alt: bool) -> bytes:
    layers = mark_layers(0, 0, size, square=not alt, fg=BLUE if alt else WHITE)
    return png(size, size, render(size, size, layers, None if alt else {0: BLUE_TOP}))


def text_width(text: str, cap: float) -> float:
    width = 0.15 * cap - 0.30 * cap
    for ch in text:  # a plain loop: sum() rounds differently from Python 3.12 on
        width += GLYPHS[ch][0] * cap + 0.30 * cap
    return width


def logo(w: int, h: int) -> bytes:
    layers = mark_layers(0, 0, h, square=True)
    left = h * 1.2
    cap = min(h * 0.46, (w - left - h * 0.08) / text_width("Ingest Doctor", 1.0))
    layers.append(text_layer("Ingest Doctor", left + 0.075 * cap, h * 0.5 + cap * 0.42, cap))
    return png(w, h, render(w, h, layers, {0: BLUE_TOP}))


def drawings() -> Dict[str, bytes]:
    return {
        "appIcon.png": icon(36, False),
        "appIcon_2x.png": icon(72, False),
        "appIconAlt.png": icon(36, True),
        "appIconAlt_2x.png": icon(72, True),
        "appLogo.png": logo(160, 40),
        "appLogo_2x.png": logo(320, 80),
    }


SIZES = {"appIcon.png": (36, 36), "appIcon_2x.png": (72, 72), "appIconAlt.png": (36, 36),
         "appIconAlt_2x.png": (72, 72), "appLogo.png": (160, 40), "appLogo_2x.png": (320, 80)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "static"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    stale = []
    for name, data in drawings().items():
        path = os.path.join(args.out, name)
        if args.check:
            old = open(path, "rb").read() if os.path.exists(path) else None
            if old != data:
                stale.append(name)
            continue
        os.makedirs(args.out, exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
        print("draw_icons: %s %dx%d (%d bytes)" % (path, *png_size(data), len(data)))
    if stale:
        print("draw_icons: out of date (run tools/draw_icons.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
