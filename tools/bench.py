#!/usr/bin/env python3
"""Benchmarks: print time and peak memory of each registered bench (never asserted in tests).

    python3 tools/bench.py            # every bench, each in its own subprocess
    python3 tools/bench.py diagnose   # only the named ones

Register a bench in this file or in a `tools/bench_<area>.py` module:

    from bench import register

    @register("collector_poll", targets="20 ms CPU, 50 MB RSS")
    def collector_poll():
        ...setup (not measured)...
        def work():
            ...the measured part...
            return {"extra_number": 1.0}      # optional extra numbers to print
        return work

`bin/` is not on sys.path (a bench adds what it imports); `tests/` is, for the fakes and builders (`tests/fakes/`).
Each bench runs in a fresh interpreter, so peak RSS (`ru_maxrss`) is its own; the
harness prints wall time, CPU time, Python peak allocation (tracemalloc, a second run)
and peak RSS.
"""
from __future__ import annotations

import glob
import importlib
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from typing import Callable, Dict, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
BUILD = os.path.join(ROOT, "build", "bench")

REGISTRY: Dict[str, Tuple[Callable[[], Callable[[], object]], str]] = {}


def register(name: str, targets: str = ""):
    def deco(fn):
        REGISTRY[name] = (fn, targets)
        return fn
    return deco


# ---------------------------------------------------------------- the engine's bench

@register("diagnose", targets="< 1 s, < 100 MB")
def diagnose_large_snapshot():
    """load_snapshot + diagnose on 4 pipeline sets and 30 min of busy-indexer metrics.log (~50,000 lines)."""
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    from ingest_doctor.diagnose import diagnose
    from ingest_doctor.read.snapshot import load_snapshot
    snap = os.path.join(BUILD, "snapshot")
    # Generated in its own process so the generator's memory is not in this one's peak RSS.
    subprocess.run([sys.executable, os.path.join(TOOLS, "gen_bench_snapshot.py"), snap], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(snap, "logs", "metrics.log"), "rb") as f:
        lines = sum(1 for _ in f)

    def work():
        report = diagnose(load_snapshot(snap))
        return {"metrics_log_lines": lines, "findings": len(report.findings),
                "metrics_log_mb": round(os.path.getsize(os.path.join(snap, "logs", "metrics.log")) / 1e6, 1)}
    return work


# ---------------------------------------------------------------- harness

def discover() -> None:
    sys.modules.setdefault("bench", sys.modules[__name__])
    sys.path.insert(0, TOOLS)
    sys.path.insert(0, os.path.join(ROOT, "tests"))     # benches may build on the test fakes and builders
    for path in sorted(glob.glob(os.path.join(TOOLS, "bench_*.py"))):
        importlib.import_module(os.path.splitext(os.path.basename(path))[0])


def run_one(name: str) -> Dict[str, object]:
    fn, _ = REGISTRY[name]
    work = fn()
    cpu0, t0 = time.process_time(), time.perf_counter()
    extra = work() or {}
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "py_peak_mb": round(peak / 1e6, 1),
           "peak_rss_mb": round(rss_mb, 1)}
    out.update(extra if isinstance(extra, dict) else {})
    return out


def main(argv) -> int:
    discover()
    if argv[:1] == ["--child"]:
        print(json.dumps(run_one(argv[1])))
        return 0
    names = argv or sorted(REGISTRY)
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        print("unknown bench: %s (known: %s)" % (", ".join(unknown), ", ".join(sorted(REGISTRY))), file=sys.stderr)
        return 2
    os.makedirs(BUILD, exist_ok=True)
    failed = 0
    for name in names:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        if r.returncode != 0:
            failed += 1
            print("bench %s: FAILED\n%s" % (name, r.stderr.strip()))
            continue
        numbers = json.loads(r.stdout.strip().splitlines()[-1])
        targets = REGISTRY[name][1]
        print("bench %s: %s%s" % (name, ", ".join("%s=%s" % kv for kv in numbers.items()),
                                  "  (targets: %s)" % targets if targets else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
