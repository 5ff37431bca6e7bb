"""No hand copy of a threshold default outside bin/ingest_doctor/thresholds.py: code in bin/, tools/,
tests/ and default/ that pairs a threshold (by its name, its macro or as `threshold`) with a number
reads that number from `thresholds.defaults()` (or the generated macro) instead of typing it."""
from __future__ import annotations

import os
import re
import subprocess

from fakes.paths import ROOT
from ingest_doctor import thresholds

SCANNED = ("bin/ingest_doctor", "bin/ingest_doctor_ports", "tools", "tests", "default")
EXTENSIONS = (".py", ".js", ".jsx", ".conf", ".xml")
HOME = "bin/ingest_doctor/thresholds.py"


def _number(value: float) -> str:
    return r"%s(?:\.0+)?" % re.escape("%g" % value)


def _patterns():
    """(setting, regex): its name or macro, or `threshold` for the thread and queue thresholds, set,
    compared or keyed to its default."""
    out = []
    for s in thresholds.SETTINGS:
        names = [re.escape(s.name)]
        if s.name in ("thread_busy_pct", "queue_fill_pct"):
            names.append("threshold")
        rx = r"""\b(?:ingest_doctor_)?(?:%s)\b["']?\s*(?:==|=|:|<|>)\s*["']?%s(?![\d.])""" % (
            "|".join(names), _number(s.default))
        out.append((s.name, re.compile(rx)))
    return out


def _files():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--"] + list(SCANNED),
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    this = os.path.relpath(os.path.abspath(__file__), ROOT).replace(os.sep, "/")   # its examples are bait
    return sorted(p for p in listed if p.endswith(EXTENSIONS) and p not in (HOME, this)
                  and os.path.isfile(os.path.join(ROOT, p)))


def copies(text: str):
    """(line number, setting) of each hand copy in `text`; comments are prose, not copies."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if not line.lstrip().startswith(("definition", "search")) else line
        for name, rx in _patterns():
            if rx.search(code):
                found.append((n, name))
    return found


def test_the_check_finds_a_hand_copy():
    assert copies('    assert th.queue_fill_pct == 90\n') == [(1, "queue_fill_pct")]
    assert copies('run(["--threshold", "ingest_doctor_thread_busy_pct=90"])') == [(1, "thread_busy_pct")]
    assert copies('"threshold": 90}') == [(1, "thread_busy_pct"), (1, "queue_fill_pct")]
    assert copies('    assert th.thread_busy_pct == 80  # the default is 90\n') == []
    assert copies('x = th.queue_fill_pct == 900') == []


def test_no_threshold_default_is_typed_outside_thresholds_py():
    found = []
    for rel in _files():
        with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as fh:
            found += ["%s:%d: %s" % (rel, n, name) for n, name in copies(fh.read())]
    assert not found, "read these from thresholds.defaults() (bin/ingest_doctor/thresholds.py):\n" + "\n".join(found)
