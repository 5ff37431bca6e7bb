"""The committed icons are exactly what tools/draw_icons.py draws, at the sizes Splunk expects."""
import os
import struct
import zlib

from fakes.paths import ROOT

import draw_icons


def test_committed_pngs_equal_the_drawing_at_the_right_sizes():
    drawn = draw_icons.drawings()
    assert sorted(drawn) == sorted(draw_icons.SIZES)
    for name, data in drawn.items():
        path = os.path.join(ROOT, "static", name)
        with open(path, "rb") as fh:
            committed = fh.read()
        assert committed == data, "%s differs from tools/draw_icons.py: run it and commit static/" % name
        assert draw_icons.png_size(committed) == draw_icons.SIZES[name]


def test_pngs_are_valid_rgba_with_a_visible_mark():
    for name, (w, h) in draw_icons.SIZES.items():
        with open(os.path.join(ROOT, "static", name), "rb") as fh:
            data = fh.read()
        pos, idat = 8, b""
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body)
            if kind == b"IHDR":
                assert struct.unpack(">IIBBBBB", body) == (w, h, 8, 6, 0, 0, 0)
            if kind == b"IDAT":
                idat += body
            pos += 12 + length
        raw = zlib.decompress(idat)
        assert len(raw) == h * (1 + 4 * w)
        alphas = [raw[y * (1 + 4 * w) + 1 + 4 * x + 3] for y in range(h) for x in range(w)]
        opaque = sum(1 for a in alphas if a == 255) / float(w * h)
        assert opaque > 0.08, "%s is almost empty" % name
