"""Hostile snapshots (issue 23): `diagnose` as an admin runs it, on seeded hostile folders
(tests/faultkit.py: deep JSON nesting, 5,000-digit numbers, FIFOs, /dev/zero links, random
bytes, logs without newlines, ...). Each must end with a clear one-line error or a judgement:
never a traceback, a hang, more than 200 MB, or "healthy" with exit 0 from a folder that holds
nothing to judge. `make test` runs each kind once; `make fault` runs a few hundred seeds."""
from __future__ import annotations

import json
import os
import shutil
import sys

from fakes.faults import KINDS, hostile_snapshot, record, run_measured, scale
from ingest_doctor import exitcodes

from fakes.paths import BIN

SCRIPT = os.path.join(BIN, "ingest_doctor_cli.py")
# Kinds that leave nothing judgeable: exit BAD_INPUT, never 0.
NOTHING_TO_JUDGE = {"deep_json", "deep_hec", "deep_meta", "fifo", "dev_zero", "random_bytes", "random_rest",
                    "no_newline", "long_lines", "dir_as_file", "empty_files", "binary_log", "dangling_link"}
RSS_LIMIT_MB = 200.0
HANG_S = 60.0


def test_hostile_snapshots(tmp_path):
    cases = scale(len(KINDS), 360)
    bad = []
    counts = dict(cases=0, failures=0, tracebacks=0, hangs=0, false_healthy=0)
    peak = 0.0
    for seed in range(cases):
        folder = str(tmp_path / ("s%d" % seed))
        kind = hostile_snapshot(folder, seed, big=scale(0, 1) == 1 and seed % 36 == 9)
        rc, out, err, rss = run_measured([sys.executable, "-B", SCRIPT, "diagnose", folder], timeout=HANG_S)
        counts["cases"] += 1
        peak = max(peak, rss)
        why = []
        if rc is None:
            counts["hangs"] += 1
            why.append("hang")
        elif "Traceback" in err:
            counts["tracebacks"] += 1
            why.append("traceback")
        elif rc not in (exitcodes.OK, exitcodes.BAD_INPUT) or err.count("\n") > 1:
            why.append("exit %s / %d stderr lines" % (rc, err.count("\n")))
        elif rc == exitcodes.OK and kind in NOTHING_TO_JUDGE and json.loads(out).get("healthy"):
            counts["false_healthy"] += 1
            why.append("healthy with nothing to judge")
        if rss > RSS_LIMIT_MB:
            why.append("peak RSS %.0f MB" % rss)
        if why:
            counts["failures"] += 1
            bad.append((seed, kind, why, err[-300:]))
        shutil.rmtree(folder, ignore_errors=True)
    record("snapshots: diagnose on hostile folders", peak, **counts)
    assert not bad, bad
