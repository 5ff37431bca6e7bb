#!/usr/bin/env python3
"""Benchmarks: the budgets an admin can feel, measured over several runs (never a timed test).

    python3 tools/bench.py            # every bench, each in its own subprocess, then the budget table
    python3 tools/bench.py diagnose   # only the named ones

BUDGETS below is the one list of budgets: each names the bench that measures it, the number that
bench returns (a list, one value a run), the limit, and the code the budget needs (a piece kept
only for speed is kept because its budget needs it). After the benches the harness prints ONE
table, min/median/max over the runs, with "met" judged on the median (a shared 2-core machine
stretches single runs; the max is shown beside it). The table is the one docs/performance.md
quotes (tests/gates/test_fakes_bench.py holds its rows equal to BUDGETS). A missed budget is
printed as NO; the exit status says only whether every bench ran.

Register a bench in this file or in a `tools/bench_<area>.py` module:

    from bench import register

    @register("collector")
    def collector():
        ...setup (not measured)...
        def work():
            ...the measured part...
            return {"collector_cpu_ms": [1.2, 1.3], "other": 4}   # lists: one value a run
        return work

`bin/` is not on sys.path (a bench adds what it imports); `tests/` is, for the fakes and builders
(`tests/fakes/`). Each bench runs in a fresh interpreter; the harness prints its wall time, CPU
time and peak RSS beside what it returns. Processes a bench starts as Splunk would (the action,
the CLI, the collector) are measured with `measured()`: wall, CPU and that process's own peak RSS.
"""
from __future__ import annotations

import glob
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
BUILD = os.path.join(ROOT, "build", "bench")

REGISTRY: Dict[str, Callable[[], Callable[[], object]]] = {}


@dataclass(frozen=True)
class Budget:
    bench: str      # the bench that measures it
    key: str        # the number (a list, one value a run) that bench returns
    limit: float
    unit: str
    what: str       # in the admin's words
    needs: str      # the code this budget needs ("-": nothing kept only for speed)


BUDGETS = (
    Budget("collector", "collector_cpu_ms", 10, "ms", "collector: CPU of one poll, 4 pipeline sets",
           "keep-alive; TLS session resumption; /proc stat-file caching; buffered event write"),
    Budget("collector", "collector_rss_mb", 50, "MB", "collector: resident memory, window 3x its age",
           "-"),
    Budget("collector", "collector_rss_growth_mb", 2, "MB", "collector: memory growth from 1 to 3 windows of age",
           "-"),
    Budget("alert_action", "action_500_hosts_s", 2, "s", "action: 500 hosts (4,000 rows), wall, as splunkd runs it",
           "keep-alive; events in a few batched requests"),
    Budget("alert_action", "action_10k_hosts_s", 20, "s", "action: 10,000 hosts (80,000 rows), wall",
           "GC pause during the action; samples as arrays; multivalue split when no value holds a $; "
           "a queue row's series read at once; sample tokens read by counts in one match; number texts parsed once"),
    Budget("alert_action", "action_10k_rss_mb", 300, "MB", "action: 10,000 hosts, peak resident memory",
           "samples as arrays; samples freed as each host is judged; findings stored a chunk at a time; "
           "one evidence source string per queue"),
    Budget("diagnose", "diagnose_rest_s", 0.5, "s", "diagnose: REST-only snapshot, wall (CLI process)", "-"),
    Budget("diagnose", "diagnose_30m_s", 1, "s", "diagnose: 30-minute snapshot (50,000 log lines), wall",
           "tcpin_connections lines skipped when one instance is judged"),
    Budget("diagnose", "diagnose_1m_lines_s", 5, "s", "diagnose: 1M metrics.log lines, wall",
           "timestamp-prefix skip of lines before the judged window"),
    Budget("diagnose", "diagnose_rss_growth_mb", 20, "MB", "diagnose: peak memory, 1M lines minus 30 minutes (flat)",
           "one streaming pass over metrics.log"),
    Budget("diag", "diag_150mb_s", 15, "s", "diagnose: a diag with 150 MB of metrics.log, tarball read as a stream, wall",
           "timestamp-prefix skip of lines before the judged window"),
    Budget("diag", "diag_rss_growth_mb", 20, "MB", "diagnose: peak memory, 150 MB diag minus 30-minute diag (flat)",
           "tarfile stream mode, one line at a time, never extracted"),
    Budget("webhook_latency", "onset_to_webhook_s", 35, "s", "onset of a saturated queue to the webhook POST",
           "default 10 s poll; sustained-sample rule; the outbox sends at once"),
)


def register(name: str):
    def deco(fn):
        REGISTRY[name] = fn
        return fn
    return deco


def spread(values: Sequence[float]) -> Optional[Dict[str, float]]:
    """min, median and max of a bench's runs (None when it measured nothing)."""
    if not values:
        return None
    return {"runs": len(values), "min": min(values), "median": statistics.median(values), "max": max(values)}


def _num(x: float) -> str:
    return "%.3g" % x if abs(x) < 100 else "%.0f" % x


TABLE_HEAD = ("| budget | limit | needs | runs | min | median | max | met |",
              "|---|---|---|---|---|---|---|---|")


def budget_cells(b: Budget):
    """The three cells a budget row starts with (the ones docs/performance.md must repeat)."""
    return b.what, "<= %s %s" % (_num(b.limit), b.unit), b.needs


def table(results: Dict[str, Dict[str, object]], budgets: Sequence[Budget] = BUDGETS) -> str:
    """ONE table: every budget, min/median/max of its runs, met when the median is within the limit."""
    out = list(TABLE_HEAD)
    for b in budgets:
        s = spread(results.get(b.bench, {}).get(b.key) or [])
        if s is None:
            nums, met = "- | - | - | -", "NO (not measured)"
        else:
            nums = "%d | %s | %s | %s" % (s["runs"], _num(s["min"]), _num(s["median"]), _num(s["max"]))
            met = "yes" if s["median"] <= b.limit else "NO"
        out.append("| %s | %s | %s | %s | %s |" % (*budget_cells(b), nums, met))
    return "\n".join(out)


# ---------------------------------------------------------------- processes measured as Splunk runs them

@dataclass(frozen=True)
class Run:
    wall_s: float
    cpu_s: float
    rss_mb: float       # the process's own peak resident set
    returncode: int
    stdout: str
    stderr: str


# A process's peak RSS as Linux reports it (ru_maxrss) starts from its parent's at fork, kept through
# exec: a child of the bench (hundreds of MB of fakes and results) would show the bench's size. So the
# child is started by this small launcher, which reports the child's wall, CPU and peak RSS.
LAUNCHER = r"""
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
code = subprocess.call(sys.argv[2:])
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    json.dump({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_kb": ru.ru_maxrss, "code": code}, f)
"""


def measured(argv: List[str], stdin: str = "", env: Optional[Dict[str, str]] = None, timeout: float = 600) -> Run:
    """Run `argv` to its end: its wall, CPU and own peak RSS, its exit code and output."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "run.json")
        p = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, report] + argv, input=stdin.encode("utf-8"),
                           capture_output=True, env=env, timeout=timeout)
        if p.returncode != 0 or not os.path.exists(report):
            raise RuntimeError("bench launcher exited %d: %s" % (p.returncode, p.stderr[-2000:]))
        with open(report) as f:
            r = json.load(f)
    return Run(r["wall"], r["cpu"], r["rss_kb"] / 1024.0, r["code"], p.stdout.decode("utf-8", "replace"),
               p.stderr.decode("utf-8", "replace"))


def installed_env(**extra: str) -> Dict[str, str]:
    """The environment of a script run as an installed app runs: bytecode written once, then read."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(BUILD, "pycache"), **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# ---------------------------------------------------------------- diagnose

DIAGNOSE_RUNS, LONG_RUNS = 5, 3


def _rest_only(snap: str) -> str:
    """The bench snapshot without its logs: what `diagnose` of a REST capture reads."""
    import shutil
    out = snap + "_rest"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(snap, out, ignore=shutil.ignore_patterns("logs"))
    return out


def _lines(snap: str) -> int:
    with open(os.path.join(snap, "logs", "metrics.log"), "rb") as f:
        return sum(1 for _ in f)


@register("diagnose")
def diagnose():
    """`ingest_doctor_cli.py diagnose` as an admin runs it (a process, bytecode as installed) on a REST-only
    snapshot, on a busy indexer's 30 minutes (4 pipeline sets, ~50,000 lines) and on ~1M lines (9.5 hours
    of the same indexer, 950,760 lines, 501 MiB: as near 1M as the 512 MiB read cap lets this line mix
    come) of which it judges the last 30 minutes, as it would an indexer's real log."""
    snap, long_snap = os.path.join(BUILD, "snapshot"), os.path.join(BUILD, "snapshot_long")
    gen = os.path.join(TOOLS, "gen_bench_snapshot.py")
    subprocess.run([sys.executable, gen, snap], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, gen, long_snap, "--earlier", "18"], check=True, stdout=subprocess.DEVNULL)
    rest = _rest_only(snap)
    env = installed_env()
    cli = [sys.executable, os.path.join(ROOT, "bin", "ingest_doctor_cli.py"), "diagnose"]

    def runs(path, n):
        out = [measured(cli + [path], env=env) for _ in range(n)]
        bad = [r for r in out if r.returncode != 0]
        if bad:
            raise RuntimeError("diagnose %s exited %d: %s" % (path, bad[0].returncode, bad[0].stderr[-2000:]))
        return out
    runs(rest, 1)           # bytecode written once

    def work():
        r_rest, r_30m, r_long = runs(rest, DIAGNOSE_RUNS), runs(snap, DIAGNOSE_RUNS), runs(long_snap, LONG_RUNS)
        rss_30m = statistics.median(r.rss_mb for r in r_30m)
        return {"diagnose_rest_s": [round(r.wall_s, 3) for r in r_rest],
                "diagnose_30m_s": [round(r.wall_s, 3) for r in r_30m],
                "diagnose_1m_lines_s": [round(r.wall_s, 3) for r in r_long],
                "diagnose_rss_growth_mb": [round(r.rss_mb - rss_30m, 1) for r in r_long],
                "rss_mb_rest_30m_1m": [round(statistics.median(r.rss_mb for r in rs), 1)
                                       for rs in (r_rest, r_30m, r_long)],
                "lines_30m": _lines(snap), "lines_long": _lines(long_snap)}
    return work


# ---------------------------------------------------------------- harness

def discover() -> None:
    sys.modules.setdefault("bench", sys.modules[__name__])
    sys.path.insert(0, TOOLS)
    sys.path.insert(0, os.path.join(ROOT, "tests"))     # benches may build on the test fakes and builders
    for path in sorted(glob.glob(os.path.join(TOOLS, "bench_*.py"))):
        importlib.import_module(os.path.splitext(os.path.basename(path))[0])


def run_one(name: str) -> Dict[str, object]:
    work = REGISTRY[name]()
    cpu0, t0 = time.process_time(), time.perf_counter()
    extra = work() or {}
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    out: Dict[str, object] = {"bench_wall_s": round(wall, 3), "bench_cpu_s": round(cpu, 3),
                              "bench_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)}
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
    results: Dict[str, Dict[str, object]] = {}
    for name in names:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        if r.returncode != 0:
            failed += 1
            print("bench %s: FAILED\n%s" % (name, r.stderr.strip()))
            continue
        results[name] = json.loads(r.stdout.strip().splitlines()[-1])
        print("bench %s: %s" % (name, ", ".join("%s=%s" % kv for kv in results[name].items())))
    print("\n" + table(results, [b for b in BUDGETS if b.bench in names]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
