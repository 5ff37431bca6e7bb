"""`make fault`: the whole fault suite (tests/faults/, issue 23), and its figures.

Runs every fault test with the full case counts (INGEST_DOCTOR_FAULT_FULL=1: a few hundred seeded
hostile snapshots over `diagnose`, 60 concurrent action pairs, KV store and webhook faults,
redirects, forged relay events, a 100k-row results file, the collector against a slow drip and a
flood), loopback only, each case bounded in time. Each test appends its figures to a report; this
prints them as one table and fails unless every count is 0 and every peak RSS under 200 MB.
`make test` runs the same tests with their quick counts.

    python tools/fault.py [--python PY] [-k EXPR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COUNTERS = ("cases", "failures", "tracebacks", "hangs", "false_healthy", "lost_updates", "lost_notifications",
            "duplicated_notifications", "forged_changes")
HEADS = ("cases", "fail", "trace", "hang", "false healthy", "lost upd", "lost notif", "dup notif", "forged",
         "peak RSS MB")
RSS_LIMIT_MB = 200.0


def table(rows):
    width = max([len("section")] + [len(r["section"]) for r in rows])
    out = ["%-*s  %s" % (width, "section", "  ".join("%*s" % (len(h), h) for h in HEADS))]
    totals = {k: 0 for k in COUNTERS}
    peak = 0.0
    for r in rows:
        vals = [r.get(k, 0) for k in COUNTERS] + [r.get("peak_rss_mb", 0.0)]
        out.append("%-*s  %s" % (width, r["section"], "  ".join(
            "%*s" % (len(h), ("%.0f" % v) if h == "peak RSS MB" else v) for h, v in zip(HEADS, vals))))
        for k in COUNTERS:
            totals[k] += r.get(k, 0)
        peak = max(peak, r.get("peak_rss_mb", 0.0))
    out.append("%-*s  %s" % (width, "total", "  ".join(
        "%*s" % (len(h), ("%.0f" % v) if h == "peak RSS MB" else v)
        for h, v in zip(HEADS, [totals[k] for k in COUNTERS] + [peak]))))
    return "\n".join(out), totals, peak


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=sys.executable, help="the interpreter the tests run on")
    ap.add_argument("-k", default=None, help="only the fault tests matching this pytest expression")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ingest_doctor_fault_") as tmp:
        report = os.path.join(tmp, "report.jsonl")
        env = dict(os.environ, INGEST_DOCTOR_FAULT_FULL="1", INGEST_DOCTOR_FAULT_REPORT=report,
                   PYTHONDONTWRITEBYTECODE="1")
        cmd = [args.python, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", os.path.join(ROOT, "tests", "faults")]
        if args.k:
            cmd += ["-k", args.k]
        rc = subprocess.call(cmd, cwd=ROOT, env=env)
        rows = []
        if os.path.exists(report):
            with open(report, encoding="utf-8") as f:
                rows = [json.loads(line) for line in f if line.strip()]
    text, totals, peak = table(rows)
    print("\nmake fault (%s):\n%s" % (os.path.basename(args.python), text))
    bad = [k for k in COUNTERS if k != "cases" and totals[k]]
    if peak >= RSS_LIMIT_MB:
        bad.append("peak RSS %.0f MB" % peak)
    if rc != 0:
        bad.append("pytest exit %d" % rc)
    if not rows:
        bad.append("no figures reported")
    print("make fault: %s" % ("all 0, peak RSS under %d MB" % RSS_LIMIT_MB if not bad else "FAILED: " + ", ".join(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
