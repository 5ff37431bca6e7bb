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

A figure against its floor: a bench registered with `ratio=<target>` runs, in the same
process and the same run, the cheapest program that does the same I/O (its floor: bare
keep-alive requests, a loop that only splits the lines, an action that only parses its
results) and returns `figure`, `floor` (same unit) and `unit`. The harness prints, after the
benches, a table of figure, floor, ratio and target: on a busy machine both sides slow down
together, so the ratio is what a run says.
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
from typing import Callable, Dict, Optional, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
BUILD = os.path.join(ROOT, "build", "bench")

REGISTRY: Dict[str, Tuple[Callable[[], Callable[[], object]], str]] = {}
RATIOS: Dict[str, float] = {}       # bench -> the ratio to its floor it must stay under
ABOVE: Dict[str, float] = {}        # bench -> how far above its floor it may be (same unit)
REPORTED: Set[str] = set()                  # benches whose ratio is shown in the table without a target
# bench -> {number: (limit, unit, what)}: a target in absolute terms, a row of its own in the table
AT_MOST: Dict[str, Dict[str, Tuple[float, str, str]]] = {}


def register(name: str, targets: str = "", ratio: Optional[float] = None, above: Optional[float] = None,
             at_most: Optional[Dict[str, Tuple[float, str, str]]] = None):
    def deco(fn):
        REGISTRY[name] = (fn, targets)
        if ratio is not None:
            RATIOS[name] = ratio
        if above is not None:
            ABOVE[name] = above
        if at_most:
            AT_MOST[name] = dict(at_most)
        return fn
    return deco


def best_of(fn: Callable[[], float], runs: int = 5) -> float:
    """The least of a few measurements: what the work costs when the machine lets it run."""
    return min(fn() for _ in range(runs))


def table(rows) -> str:
    """figure | floor | ratio | target, one line a bench (the README quotes this table)."""
    out = ["| bench | figure | floor (same run) | ratio | target | met |", "|---|---|---|---|---|---|"]
    for name, n in rows:
        ratio = n["figure"] / n["floor"] if n["floor"] else float("inf")
        if name in REPORTED:
            ok, target, shown = None, "reported", "%.2fx" % ratio
        elif name in ABOVE:
            diff = n["figure"] - n["floor"]
            ok, target, shown = diff <= ABOVE[name], "<= +%g %s" % (ABOVE[name], n["unit"]), \
                "%.2fx (+%.3g)" % (ratio, diff)
        else:
            ok, target, shown = ratio <= RATIOS[name], "<= %.2gx" % RATIOS[name], "%.2fx" % ratio
        out.append("| %s | %s %s | %s %s | %s | %s | %s |" % (
            name, _num(n["figure"]), n["unit"], _num(n["floor"]), n["unit"], shown, target, "-" if ok is None else "yes" if ok else "NO"))
        for key, (limit, unit, what) in sorted(AT_MOST.get(name, {}).items()):
            value = n.get(key)
            met = "NO (not measured)" if value is None else "yes" if value <= limit else "NO"
            out.append("| %s: %s | %s | - | - | <= %g %s | %s |" % (
                name, what, "-" if value is None else "%s %s" % (_num(value), unit), limit, unit, met))
    return "\n".join(out)


def _num(x: float) -> str:
    return "%.3g" % x if x < 100 else "%.0f" % x


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


def _rest_only(snap: str) -> str:
    """The bench snapshot without its logs: what `diagnose` of a REST capture reads."""
    import shutil
    out = snap + "_rest"
    if os.path.isdir(out):
        shutil.rmtree(out)
    shutil.copytree(snap, out, ignore=shutil.ignore_patterns("logs"))
    return out


def _child_cpu(argv, env) -> float:
    """CPU (user + system) of one run of a child process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)


def paired_cpu(floor_argv, figure_argv, env, runs: int = 15):
    """(floor, figure): the least CPU of each over `runs` pairs, run one after the other, so that both
    see the same moments of a busy machine (a spell of load then stretches both, not one)."""
    floors, figures = [], []
    for _ in range(runs):
        floors.append(_child_cpu(floor_argv, env))
        figures.append(_child_cpu(figure_argv, env))
    return min(floors), min(figures)


@register("diagnose_start", targets="<= 0.05 s CPU above Python's start (imports only where used)", above=0.05)
def diagnose_start():
    """`ingest_doctor_cli.py diagnose` of a REST-only snapshot, as a process, against `python -c pass`.
    Bytecode as an installed app has it (written once, then read: the first run warms it up)."""
    snap = os.path.join(BUILD, "snapshot")
    subprocess.run([sys.executable, os.path.join(TOOLS, "gen_bench_snapshot.py"), snap], check=True,
                   stdout=subprocess.DEVNULL)
    rest = _rest_only(snap)
    env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(BUILD, "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cli = [sys.executable, os.path.join(ROOT, "bin", "ingest_doctor_cli.py"), "diagnose", rest]
    subprocess.run(cli, env=env, stdout=subprocess.DEVNULL, check=True)

    def work():
        floor, figure = paired_cpu([sys.executable, "-c", "pass"], cli, env)
        return {"figure": round(figure, 3), "floor": round(floor, 3), "unit": "s CPU",
                "above_python_start_s": round(figure - floor, 3)}
    return work


def _per_line(snap: str):
    """load_snapshot + diagnose of `snap`, per metrics.log line, against the cheapest loop over the same
    file (read and split each line), in the same run."""
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    from ingest_doctor.diagnose import diagnose
    from ingest_doctor.read.snapshot import load_snapshot
    path = os.path.join(snap, "logs", "metrics.log")
    with open(path, "rb") as f:
        lines = sum(1 for _ in f)

    def split_loop():
        c0 = time.process_time()
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line.split(", ")
        return time.process_time() - c0

    def judged():
        c0 = time.process_time()
        diagnose(load_snapshot(snap))
        return time.process_time() - c0

    def work():
        floor = best_of(split_loop, 3)
        figure = best_of(judged, 3)
        return {"figure": round(figure / lines * 1e6, 2), "floor": round(floor / lines * 1e6, 2),
                "unit": "us CPU/line", "metrics_log_lines": lines,
                "metrics_log_mb": round(os.path.getsize(path) / 1e6, 1)}
    return work


@register("diagnose_per_line", targets="<= 2x a loop that only splits each line, at 1M lines; memory flat "
                                       "(py_peak_mb as diagnose_per_line_window's)", ratio=2.0)
def diagnose_per_line():
    """The issue's measure: a metrics.log of ~1M lines (9.5 hours of the busy indexer: 950,760 lines,
    501 MiB, as near 1M as the 512 MiB read cap lets this line mix come) of which `diagnose` judges the
    last 30 minutes (log_window_min), as it would an indexer's real log."""
    snap = os.path.join(BUILD, "snapshot_long")
    subprocess.run([sys.executable, os.path.join(TOOLS, "gen_bench_snapshot.py"), snap, "--earlier", "18"],
                   check=True, stdout=subprocess.DEVNULL)
    return _per_line(snap)


@register("diagnose_per_line_window", targets="reported, no target: every line inside the judged window "
                                              "(the worst case a line can cost)", ratio=None)
def diagnose_per_line_window():
    """The bench snapshot's 30 minutes (50,040 lines), every line inside the window and so read, matched
    and judged: what a line can cost at most."""
    snap = os.path.join(BUILD, "snapshot")
    subprocess.run([sys.executable, os.path.join(TOOLS, "gen_bench_snapshot.py"), snap], check=True,
                   stdout=subprocess.DEVNULL)
    return _per_line(snap)


REPORTED.add("diagnose_per_line_window")


# ---------------------------------------------------------------- harness

def discover() -> None:
    sys.modules.setdefault("bench", sys.modules[__name__])
    sys.path.insert(0, TOOLS)
    sys.path.insert(0, os.path.join(ROOT, "tests"))     # benches may build on the test fakes and builders
    sys.path.append(os.path.join(ROOT, "bin", "lib"))    # splunklib, solnlib: as the entry scripts find them
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
    ratios = []
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
        if (name in RATIOS or name in ABOVE or name in REPORTED) and "figure" in numbers and "floor" in numbers:
            ratios.append((name, numbers))
    if ratios:
        print("\n" + table(ratios))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
