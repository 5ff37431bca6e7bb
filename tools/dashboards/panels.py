"""Every recorded panel, computed from the simulated deployment (sim.py) as its search computes it.

Each panel names the aggregation steps of its SPL (`stats`, `timechart`, `bin`, `dedup`, ... and
the top-series macro) as text; tests/dashboards/test_dashboards_recordings.py extracts the same steps from
the generated view and fails when they differ, and the time charts are computed from that text
(function, field, span, BY field). So a recording cannot use another statistic than its search:
change the SPL and the test names the panel to update here.

Where a search starts with tstats/mstats or a base macro, the rows of sim.py stand for what that
first command returns (the percentiles of mstats and of the lag search are simulated per bucket).
"""
from __future__ import annotations

import re
import time

import sim
from sim import END, START

from ingest_doctor import thresholds  # noqa: E402  (sim puts bin/ on the path)

# The thresholds the recorded searches ran with: the macros' defaults.
TH = thresholds.defaults()
THREAD_PCT, QUEUE_PCT, LATENCY_MS, REGEX_SHARE_PCT = (TH.thread_busy_pct, TH.queue_fill_pct, TH.hec_latency_ms,
                                                      TH.regex_cpu_share_pct)
HEADROOM_MIN_PCT = TH.headroom_min_busy_pct
BUSY_PCT = thresholds.BUSY_PCT
N = 5
NO_FINDING = ("No finding matches these inputs. The Ingest Doctor alerts and the collector (through the search "
              "Ingest Doctor - Findings - Collector findings) write findings: if there are none at all, check that "
              "they are enabled (Settings > Searches, reports, and alerts, app Ingest Doctor).")
PANELS = {}   # (view, data source) -> (aggregation steps, function(deployment) -> result)


def step(view, ds, command="timechart"):
    """The panel's step that starts with `command` (its timechart: the chart is computed from it)."""
    return next(s for s in PANELS[(view, ds)][0] if s.startswith(command))


def panel(view, ds, *steps):
    def register(fn):
        PANELS[(view, ds)] = (list(steps), fn)
        return fn
    return register


# ----------------------------------------------------------------------------- values
def sround(x, n=0):
    """SPL round(): half away from zero (Python's round() is half to even)."""
    if x is None:
        return None
    k = 10 ** n
    v = int(abs(x) * k + 0.5) / k
    v = v if x >= 0 else -v
    return int(v) if n == 0 else v


def fmt(v):
    if v is None:
        return None
    if isinstance(v, float):
        if v.is_integer():
            return str(int(v))
        return ("%.4f" % v).rstrip("0").rstrip(".")
    return str(v)


def result(fields, rows):
    return {"fields": list(fields), "rows": [[fmt(v) for v in r] for r in rows]}


def message(text):
    return result(["message"], [[text]])


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000+00:00", time.gmtime(t))


def strftime(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def median(vals):
    s = sorted(vals)
    return s[(len(s) - 1) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


FUNCS = {"max": max, "min": min, "sum": sum, "avg": lambda v: sum(v) / len(v), "median": median,
         "count": len, "dc": lambda v: len(set(v))}


def group(rows, *keys):
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


# ----------------------------------------------------------------------------- SPL steps
def top_series(rows, value, n=N):
    """`ingest_doctor_top_series(value, n)`: rank series by peak then average of value."""
    stats = {}
    for s, rs in group(rows, "series").items():
        vals = [r[value] for r in rs if r[value] is not None]
        stats[s[0]] = (max(vals), sum(vals) / len(vals)) if vals else (None, None)
    order = sorted(stats, key=lambda s: (-(stats[s][0] or -1e18), -(stats[s][1] or -1e18), s))
    rank = {s: i + 1 for i, s in enumerate(order)}
    rest = len(order) - n
    out = []
    for r in rows:
        k = rank[r["series"]]
        out.append(dict(r, series="%d. %s" % (k, r["series"]) if k <= n else "others: %d more" % rest))
    return out


TIMECHART = re.compile(r"timechart span=(\d+)([sm]) (\w+)\((\w+)\)(?: AS \S+)? BY (\w+)")


def timechart(rows, step, extra=None, start=START):
    """`timechart span=S func(field) BY by`: a column per value of `by` (sorted), a row per bucket
    of the range (from `start`); a bucket without values is empty (0 for count and dc)."""
    m = TIMECHART.match(step)
    span = int(m.group(1)) * (60 if m.group(2) == "m" else 1)
    func, field, by = m.group(3), m.group(4), m.group(5)
    buckets = {}
    for r in rows:
        if r.get(field) is None and func not in ("count",):
            continue
        b = r["_time"] - (r["_time"] - start) % span
        buckets.setdefault((b, r[by]), []).append(r[field])
    series = sorted({k[1] for k in buckets})
    zero = 0 if func in ("count", "dc") else None
    out = []
    for b in range(start, END, span):
        row = [iso(b)]
        for s in series:
            vals = buckets.get((b, s))
            row.append(FUNCS[func](vals) if vals else zero)
        out.append(row + list((extra or {}).values()))
    return result(["_time"] + series + list(extra or {}), out)


def series_host_set(r):
    return r["host"] + ("" if r["ingest_pipe"] == "none" else " set " + r["ingest_pipe"])


def last_minutes(rows, seconds=900):
    return [r for r in rows if r["_time"] >= END - seconds]


# ----------------------------------------------------------------------------- common inputs
def inputs(view, with_pset=True):
    @panel(view, "ds_hosts", "sort 0 host")
    def hosts(dep):
        return result(["host"], [[h] for h in sorted(sim.HOSTS)])
    if with_pset:
        @panel(view, "ds_psets", "sort 0 ingest_pipe")
        def psets(dep):
            return result(["ingest_pipe"], [["0"], ["1"], ["none"]])


for _v in ("ingest_doctor_hec_performance", "ingest_doctor_thread_activity", "ingest_doctor_pipeline_sets",
           "ingest_doctor_cpu_by_processor"):
    inputs(_v)
inputs("ingest_doctor_findings", with_pset=False)


def stage_of(member, dep):
    rows = [r for r in dep.pipeline if r["member"] == member]
    return (rows[0]["stage"], int(rows[0]["stage_order"])) if rows else (None, None)


def open_findings(dep):
    rows = [f for f in dep.findings() if f["status"] == "open"]
    return sorted(rows, key=lambda f: (f["severity_rank"], -f["last_seen"]))
