#!/usr/bin/env python3
"""What the app's searches cost a Splunk deployment: a model, counted in events read.

For every scheduled search (per run and per day) and every dashboard data source (one open of its
view at the default time range), at 100, 1,000 and 10,000 instances:
- raw: events the indexers decompress and field-extract (a plain search), after a data source's
  sampleRatio;
- index-only: tstats postings (one per matched line) and mstats data points;
- raw-eq = raw + index-only / 50;
- rows to the search head: what the base search (or a subsearch) returns before the search
  head's own commands run on it.
Units, deployment mix, emission rates and Splunk's limits are those of the reference note
"What a search costs" (search-cost.md, kept with the project's shared references); the budgets are
issue 35's. It READS what it counts from the shipped files: a search's cron and dispatch range
(default/savedsearches.conf), a view's default time range and sampleRatio (default/data/ui/views),
a segment's own `earliest=` (its SPL, macros expanded); so changing a
range, a cron or a window changes the figures. What each search selects (source, groups, terms,
which hosts, its row grain) is in ONE table, tools/searchcost_selects.py, which
tests/gates/test_gates_searchcost.py checks against the SPL.

Assumptions beyond the reference note (each a number in this module):
- metrics.log lines per 30 s per role are the note's 9.x table; per_*_thruput splits evenly over
  its four groups; per_sourcetype_regex_cpu is 0 (limits.conf [metrics] regex_cpu_profiling
  defaults to false); the universal forwarder's 60 s interval is already in its per-30 s figure.
- tcpin_connections: one line per sender (heavy and universal forwarders) per 30 s, at the
  indexers; a search grouping them BY receiver and sender sees each sender at
  min(indexers, window / 30 s) receivers (autoLB switches about every 30 s).
- A TERM(name=...) beside the group keeps the lines of that name (NAME_LINES, per role; several
  name= terms are OR'ed: their lines add up); any other TERM() keeps a share of the group's lines
  (TERM_SHARE; several keep the smallest share: the rarest term bounds the postings).
- tstats index-only entries = matched lines, one each whatever the number of PREFIX() fields: the
  convention behind issue 35's figures and budgets (its Silence figure is exactly this model's). A
  PREFIX() walk per field would multiply a tstats by up to 8 (Queues reads 7); it changes no ranking.
- The collector (TA-ingest_doctor) runs on indexers and heavy forwarders, polls every 10 s, and
  writes per poll 15 thread.busy_pct points (the README's ~55 points a poll counts every metric;
  15 threads is also what makes the issue's "append cut at about 56 collectors" come out), one
  point of each of host.cores, splunkd.cpu_pct and indexer.throttled, and on HEC hosts one of
  hec.latency_ms and hec.health_rtt_ms.
- HEC runs on the HEC heavy forwarders (none on indexers): 1 + 3 tokens series in _introspection,
  one event a minute each; 200 HEC events/s per HEC forwarder (for the sampled lag panel).
- splunkd.log lines our searches match: 1 HttpInputDataHandler rejection a minute per HEC host
  (a busy day; 0 when healthy), 0.1 HttpListener "Can't handle request" a minute; a replication-queue
  "full" line a minute per indexer, a ThruputProcessor maxKBps line a minute on 1 forwarder in 20.
- The app's event index: 1 in 20 collector hosts has an open finding, re-reported every 15 minutes
  (4 events an hour); one ingest_doctor:config event per collector host a day; the app's own logs
  1 ERROR/WARN line an hour per collector host.
- The findings store holds 1 record per 2 collector hosts (open and resolved); REST rows: one per
  search peer (the indexers) per entry, 3 HEC token entries, 40 indexes per peer (the table's grains).
- The searches before issue 35 sent 1.5 rows per dutycycle line through `mvexpand` (the long
  thread=/ratio= layout one thread a line, the wide name=misc line several): commit 19f7d26's table.

Today's figures, as this model prints them for the searches shipped before issue 35's rewrite
(commit 1a7f2d5), against the issue's:
- scheduled searches at 10,000 instances: 1.10 G raw-eq a day (issue: 1.09 G); 10.95 M at 100
  (issue: 11.0 M). Silence is 64.6% (issue: about 65%), then the relay (15.6%), Queues (10.8%) and
  Thread (8.9%): the issue's four. The small difference: the Silence search's tcpin append.
- the landing page (HEC performance) at 10,000: 42.5 M raw-eq per open (issue: 34 M); without the
  sampled HEC lag panel, which the issue did not count (its 200 events/s per HEC forwarder are this
  model's assumption), 28.1 M. Its overview sends 51 M rows (issue: 37 M rows: the tstats over
  every queue line alone sends 37.4 M here too; this model adds its appended dutycycle rows).
- the five dashboards other than Setup, one open each: 79.5 M (issue, six dashboards: 96.8 M).

Usage:
  searchcost.py              the cost table (per run / per open, and per day for scheduled searches)
  searchcost.py --budgets    the table, then each budget with met / NOT MET
  searchcost.py --check      as --budgets, exit 1 when a budget is not met
  searchcost.py --markdown   the tables of docs/searches.md (Markdown; tools/generate.py writes them there)
  searchcost.py --root DIR   read the conf and views of another app tree
Importable: rows(root) returns one Row per (search or data source, size).
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import searchspl  # noqa: E402
from searchspl import ROOT, Item, Segment  # noqa: E402

SIZES = (100, 1000, 10000)
INDEX_ONLY_PER_RAW = 50
INTERVAL_S = 30

# ---------------------------------------------------------------- the deployment
ROLES = ("indexer", "hec_hf", "uf")
MIX = {"indexer": 0.05, "hec_hf": 0.05, "uf": 0.90}
COLLECTOR_ROLES = ("indexer", "hec_hf")
SENDER_ROLES = ("hec_hf", "uf")

# metrics.log lines per 30 s per instance (search-cost.md section 1, the 9.x model).
_PER_X = {"indexer": 70 / 4, "hec_hf": 20 / 4, "uf": 8 / 4}
METRICS_LOG = {
    "queue": {"indexer": 17, "hec_hf": 13, "uf": 7},
    "pipeline": {"indexer": 44, "hec_hf": 23, "uf": 10},
    "thruput": {"indexer": 5, "hec_hf": 5, "uf": 4},
    "per_host_thruput": _PER_X, "per_index_thruput": _PER_X,
    "per_source_thruput": _PER_X, "per_sourcetype_thruput": _PER_X,
    "dutycycle": {"indexer": 9, "hec_hf": 5, "uf": 1},
    "pipelineset": {"indexer": 2, "hec_hf": 1, "uf": 0},
    "tcpout_connections": {"indexer": 0, "hec_hf": 1, "uf": 1},
    "per_sourcetype_regex_cpu": {"indexer": 0, "hec_hf": 0, "uf": 0},
    "other": {"indexer": 10, "hec_hf": 8, "uf": 3},
}
# Lines per 30 s per instance of one name= of a group (the queue names of the chain, the dutycycle
# layouts, thruput's names), from the note's per-role table: an indexer has 2 pipeline sets.
_PER_SET = {"indexer": 2, "hec_hf": 1, "uf": 0}
NAME_LINES = {
    ("queue", "name=parsingqueue"): {"indexer": 2, "hec_hf": 1, "uf": 1},
    ("queue", "name=aggqueue"): _PER_SET, ("queue", "name=typingqueue"): _PER_SET,
    ("queue", "name=indexqueue"): _PER_SET,
    ("queue", "name=splunktcpin"): {"indexer": 1}, ("queue", "name=tcpin_cooked_pqueue"): {"indexer": 1},
    ("queue", "name=tcpin_queue"): {"indexer": 1},
    ("queue", "name=tcpout*"): {"hec_hf": 1, "uf": 1},
    ("dutycycle", "name=ingest"): {"indexer": 8, "hec_hf": 4, "uf": 0},    # thread=/ratio= layout
    ("dutycycle", "name=misc"): {"indexer": 1, "hec_hf": 1, "uf": 1},      # the wide line
    ("thruput", "name=thruput"): {"indexer": 1, "hec_hf": 1, "uf": 1},
    ("thruput", "name=index_thruput"): {"indexer": 1, "hec_hf": 1, "uf": 0},
    ("pipelineset", "name=load_metrics"): {"indexer": 2, "hec_hf": 1, "uf": 0},
}
# Share of a group's lines a further TERM() keeps.
TERM_SHARE = {
    "name=indexerpipe": 8 / 23,         # pipeline: 8 of 23 processors per set are indexerpipe's
    "processor=indexer": 1 / 23,
    "blocked=true": 0.01,               # 1 in 100 queue lines blocked
    "fwdType=uf": 0.9 / 0.95,           # tcpin: universal forwarders among senders
    "fwdType=full": 0.05 / 0.95,        # tcpin: heavy forwarders among senders
    "thread=httpinputserverdatathread": 1 / 4,   # dutycycle name=ingest: one of a HEC forwarder's 4 lines
    "thread=replicationdatareceiverthread": 1 / 9,   # dutycycle: one of an indexer's 9 lines
}
# An mstats over the collector's thread metric that names one thread (thread="x") reads that thread's points only.
COLLECTOR_THREADS = 15
ONE_THREAD_RX = re.compile(r'\bthread="[^"*]+"')

# Other sources, entries per 30 s per instance.
OTHER = {
    "introspection": {"hec_hf": (1 + 3) / 2},                         # HEC: totals + 3 tokens, 1/min
    "hecdata": {"hec_hf": 200 * 30},                                  # HEC events, 200/s
    "splunkd.log:HttpInputDataHandler": {"hec_hf": 0.5},              # 1 rejection a minute
    "splunkd.log:HttpListener": {"hec_hf": 0.05},                     # 0.1 a minute
    # issue 37, busy-day assumptions: a cluster peer waiting on its replication target logs its replication
    # queue full about once a minute; 1 in 20 forwarders at its maxKBps cap writes its ThruputProcessor line
    # about once a minute (both 0 when healthy)
    "splunkd.log:replication": {"indexer": 0.5},
    "splunkd.log:ThruputProcessor": {"hec_hf": 0.5 / 20, "uf": 0.5 / 20},
    "events:ingest_doctor:finding": {r: 4 / 120 / 20 for r in COLLECTOR_ROLES},
    "events:ingest_doctor:config": {r: 1 / 2880 for r in COLLECTOR_ROLES},
    "applogs": {r: 1 / 120 for r in COLLECTOR_ROLES},
}
# Collector metric data points per 30 s per instance (3 polls).
METRICS = {
    "ingest_doctor.thread.busy_pct": {"indexer": 45, "hec_hf": 45},
    "ingest_doctor.host.cores": {"indexer": 3, "hec_hf": 3},
    "ingest_doctor.splunkd.cpu_pct": {"indexer": 3, "hec_hf": 3},
    "ingest_doctor.indexer.throttled": {"indexer": 3, "hec_hf": 3},
    "ingest_doctor.hec.latency_ms": {"hec_hf": 3},
    "ingest_doctor.hec.health_rtt_ms": {"hec_hf": 3},
}
# Per-host multiplicities a row grain may name.
PER_HOST = {
    "threads": {"indexer": 15, "hec_hf": 15, "uf": 3},     # collector threads; dutycycle threads
    "set_threads": {"indexer": 8, "hec_hf": 4, "uf": 0},   # dutycycle name=ingest: stage threads x pipeline sets
    "queues": {"indexer": 17, "hec_hf": 13, "uf": 7},
    "stages": {"indexer": 2 * 6, "hec_hf": 6, "uf": 3},   # stages x pipeline sets
    "psets": {"indexer": 2, "hec_hf": 1, "uf": 1},
    "processors": {"indexer": 42, "hec_hf": 21, "uf": 10},
    "series": {"indexer": 10, "hec_hf": 10, "uf": 0},     # per_*_regex_cpu maxseries
    "tokens": {"hec_hf": 3},
    "codes": {"hec_hf": 2},
}
FINDINGS_PER_COLLECTOR = 0.5

# Host scopes a read may select: which roles, and what share of their instances.
SCOPES = {
    "all": {r: 1.0 for r in ROLES},
    "pipeline": {"indexer": 1.0, "hec_hf": 1.0},         # the instances that run a pipeline worth charting
    "indexers": {"indexer": 1.0},
    "hec": {"hec_hf": 1.0},
    "senders": {"hec_hf": 1.0, "uf": 1.0},
    "busy": {"indexer": 0.05, "hec_hf": 0.05},           # pipeline hosts a cheap tstats says are busy
    "flagged": {"indexer": 0.05, "hec_hf": 0.05, "uf": 0.05},  # hosts with a finding this run
    "one": {"indexer": 1.0},                              # one host picked (drilldown); counted as 1
    "top5": {"hec_hf": 1.0},                              # the 5 a subsearch ranks first; counted as 5
}

# ---------------------------------------------------------------- budgets (issue 35)
BUDGET_SIZE = 10000
BUDGET_SCHEDULED_RAW_EQ_DAY = 13e6
BUDGET_LANDING_RAW_EQ_OPEN = 1e6
BUDGET_ROWS = 50000


class Read(NamedTuple):
    """What one generating segment of a search selects (an entry of searchcost_selects.SELECTS).

    kind    raw | tstats | mstats | rest | inputlookup | makeresults | metadata, as the SPL says;
    source  metrics.log | splunkd.log | introspection | events | applogs | hecdata | metrics | kv |
            rest | hostmeta | none, as the SPL says (searchspl.source_of);
    select  metrics.log groups, metric names, sourcetypes, the REST path or the lookup name: every
            one the segment's SPL names, in its order;
    terms   the segment's TERM() arguments other than group=;
    hosts   a SCOPES key: which instances' data it reads (the SPL's host filter, a lookup, or all);
    rows    its grain: ("events", k) every entry read, k rows each; ("span", s) one row per line
            per s-second bin; ("hosts", key_or_k[, span]) per host in scope (x bins); ("pairs",)
            sender x receiver; ("senders",); ("peers", k[, span]) per search peer (x bins);
            ("findings", share); ("instances", share) of the deployment; ("const", n);
    out     for a subsearch: the grain of what it returns after its own commands (what append's
            or the subsearch's limit cuts), when that differs from `rows`.
    """
    kind: str
    source: str
    select: Tuple[str, ...] = ()
    terms: Tuple[str, ...] = ()
    hosts: str = "all"
    rows: Tuple = ("events", 1)
    out: Optional[Tuple] = None


CHAIN = ()   # a ds.chain post-process: reads nothing, sends nothing new to the search head


class Cost(NamedTuple):
    raw: float
    index_only: float
    rows: float
    out: float = 0.0     # rows a subsearch returns (its limit applies to these)

    @property
    def raw_eq(self) -> float:
        return self.raw + self.index_only / INDEX_ONLY_PER_RAW

    def __add__(self, other):
        return Cost(self.raw + other.raw, self.index_only + other.index_only, self.rows + other.rows,
                    self.out + other.out)

    def times(self, k: float) -> "Cost":
        return Cost(self.raw * k, self.index_only * k, self.rows * k, self.out * k)


ZERO = Cost(0.0, 0.0, 0.0, 0.0)


class Row(NamedTuple):
    key: str
    what: str                 # scheduled | ds.search | ds.chain
    size: int
    per_run: Cost             # one run, or one open
    runs_per_day: float
    segments: Tuple[Tuple[Segment, Cost], ...]

    @property
    def per_day(self) -> Cost:
        return self.per_run.times(self.runs_per_day)


def instances(size: int) -> Dict[str, float]:
    return {r: size * MIX[r] for r in ROLES}


def _hosts(size: int, scope: str, emitting: Optional[Dict[str, float]] = None) -> Dict[str, float]:
    """Instances per role a scope selects (only roles that emit the data when `emitting` is given)."""
    if scope not in SCOPES:
        raise ValueError("host scope %r: not one of %s" % (scope, ", ".join(SCOPES)))
    n = instances(size)
    if scope == "one":
        return {"indexer": 1.0}
    if scope == "top5":
        return {"hec_hf": 5.0}
    out = {r: n[r] * share for r, share in SCOPES[scope].items()}
    if emitting is not None:
        out = {r: v for r, v in out.items() if emitting.get(r, 0) > 0}
    return out


def _per_30s(read: Read, size: int, seg: Segment) -> Tuple[float, Dict[str, float]]:
    """(entries per 30 s the read selects, hosts per role that emit them)."""
    n_hosts = instances(size)
    if read.source == "metrics.log":
        groups = read.select or tuple(METRICS_LOG) + ("tcpin_connections",)
        others = [t for t in read.terms if not t.startswith("group=")]
        share = min([TERM_SHARE[t] for t in others if t in TERM_SHARE] or [1.0])
        names = [t for t in others if (groups[0], t) in NAME_LINES] if len(groups) == 1 else []
        unknown = [t for t in others if t not in TERM_SHARE and t not in names]
        if unknown:
            raise ValueError("no NAME_LINES or TERM_SHARE for %s" % ", ".join(unknown))
        total, emitting = 0.0, {}
        if names:
            lines = {}
            for t in names:
                for r, v in NAME_LINES[(groups[0], t)].items():
                    lines[r] = lines.get(r, 0) + v
            for r, v in _hosts(size, read.hosts, lines).items():
                total += v * lines[r] * share
                emitting[r] = v
            return total, emitting
        for g in groups:
            if g == "tcpin_connections":
                senders = sum(n_hosts[r] for r in SENDER_ROLES)
                receivers = _hosts(size, read.hosts, {"indexer": 1})
                part = senders * (receivers.get("indexer", 0) / max(n_hosts["indexer"], 1))
                total += part * share
                if part:
                    emitting["indexer"] = receivers.get("indexer", 0)
                continue
            if g not in METRICS_LOG:
                raise ValueError("metrics.log group %r: no emission rate in the model" % g)
            for r, v in _hosts(size, read.hosts, METRICS_LOG[g]).items():
                total += v * METRICS_LOG[g][r] * share
                emitting[r] = max(emitting.get(r, 0), v)
        return total, emitting
    if read.source == "hostmeta":
        return 0.0, _hosts(size, read.hosts)
    if read.source == "metrics":
        total, emitting = 0.0, {}
        one_thread = ONE_THREAD_RX.search(searchspl.clause(seg.text)) is not None
        for name in read.select:
            if name not in METRICS:
                raise ValueError("metric %r: no emission rate in the model" % name)
            share = 1 / COLLECTOR_THREADS if one_thread and name == "ingest_doctor.thread.busy_pct" else 1.0
            for r, v in _hosts(size, read.hosts, METRICS[name]).items():
                total += v * METRICS[name][r] * share
                emitting[r] = max(emitting.get(r, 0), v)
        return total, emitting
    if read.source in ("splunkd.log", "events"):
        keys = ["%s:%s" % (read.source, t) for t in (read.terms[:1] if read.source == "splunkd.log" else read.select)]
    elif read.source in ("introspection", "hecdata", "applogs"):
        keys = [read.source]
    else:
        return 0.0, {}
    total, emitting = 0.0, {}
    for k in keys:
        if k not in OTHER:
            raise ValueError("%s: no emission rate in the model" % k)
        for r, v in _hosts(size, read.hosts, OTHER[k]).items():
            total += v * OTHER[k][r]
            emitting[r] = max(emitting.get(r, 0), v)
    return total, emitting


def _rows(grain: Tuple, size: int, entries: float, window: int, emitting: Dict[str, float]) -> float:
    kind = grain[0]
    n = instances(size)
    if kind == "events":
        return entries * (grain[1] if len(grain) > 1 else 1)
    if kind == "span":
        return entries * min(1.0, INTERVAL_S / grain[1])
    if kind == "hosts":
        k = grain[1]
        per = sum(v * (PER_HOST[k].get(r, 0) if isinstance(k, str) else k) for r, v in emitting.items())
        bins = math.ceil(window / grain[2]) if len(grain) > 2 and grain[2] else 1
        return per * bins
    if kind == "pairs":
        if set(emitting) == {"indexer"}:   # tcpin at the receivers in scope: the senders landing there
            senders = sum(n[r] for r in SENDER_ROLES) * emitting["indexer"] / max(n["indexer"], 1)
        else:                              # tcpout at the senders
            senders = sum(emitting.values())
        return senders * min(max(n["indexer"], 1), max(1.0, window / INTERVAL_S))
    if kind == "senders":
        return sum(n[r] for r in SENDER_ROLES)
    if kind == "peers":
        bins = math.ceil(window / grain[2]) if len(grain) > 2 else 1
        return n["indexer"] * grain[1] * bins
    if kind == "findings":
        return sum(n[r] for r in COLLECTOR_ROLES) * FINDINGS_PER_COLLECTOR * grain[1]
    if kind == "instances":
        return size * grain[1]
    if kind == "const":
        return float(grain[1])
    raise ValueError("row grain %r: not one the model knows" % (grain,))


def segment_cost(read: Read, seg: Segment, item: Item, size: int) -> Cost:
    own = searchspl.window_s(searchspl.clause(seg.text))
    window = item.range_s if own is None else own
    per30, emitting = _per_30s(read, size, seg)
    entries = per30 * window / INTERVAL_S
    raw = index_only = 0.0
    if seg.kind == "raw":
        raw = entries / item.sample_ratio
    elif seg.kind == "tstats":
        index_only = entries
    elif seg.kind == "mstats":
        index_only = entries
    read_entries = raw if seg.kind == "raw" else entries
    read_rows = _rows(read.rows, size, read_entries, window, emitting)
    out = read_rows if read.out is None else _rows(read.out, size, read_entries, window, emitting)
    return Cost(raw, index_only, read_rows, out if seg.limit else 0.0)


def selects() -> Dict[str, Tuple[Read, ...]]:
    from searchcost_selects import SELECTS
    return SELECTS


def items(root: str = ROOT) -> List[Item]:
    macros = searchspl.load_macros(root)
    return searchspl.scheduled(root, macros) + searchspl.data_sources(root, macros)


def _selected(seg: Segment) -> Tuple[str, ...]:
    c = searchspl.clause(seg.text)
    source = searchspl.source_of(seg)
    if source == "metrics.log":
        return searchspl.groups(c)
    if source == "metrics":
        return searchspl.metric_names(c)
    if source == "events":
        return searchspl.sourcetypes(c)
    if seg.kind == "rest":
        return (searchspl.rest_path(c),)
    if seg.kind == "inputlookup":
        return (searchspl.lookup_name(c),)
    return ()


HOST_FILTER_RX = re.compile(r"(?<![\w.])(?:host|hostname)\s*(?:=|IN\s*\()|\[", re.I)
# A filter that keeps every host (a view's default `host IN (*)`) filters none.
ALL_HOSTS_RX = re.compile(r"(?<![\w.])(?:host|hostname)\s*(?:IN\s*\(\s*\"?\*\"?\s*\)|=\s*\"?\*\"?(?=[\s)]|$))", re.I)


def mismatches(root: str = ROOT, table: Optional[Dict[str, Tuple[Read, ...]]] = None) -> List[str]:
    """Where the table and the shipped SPL disagree, one message each (empty when they agree): a
    search or data source without an entry, an entry for none, a chain or search listed as the
    other, a different number of segments, or a segment whose kind, source, selected groups (names,
    sourcetypes, REST path, lookup) or TERM()s differ; a read scoped to some hosts whose SPL has no
    host filter."""
    table = selects() if table is None else table
    out = []
    found = items(root)
    keys = {i.key for i in found}
    for k in sorted(set(table) - keys):
        out.append("%s: in the table but no such scheduled search or data source" % k)
    for item in found:
        if item.key not in table:
            out.append("%s: no entry in tools/searchcost_selects.py" % item.key)
            continue
        reads = table[item.key]
        if item.what == "ds.chain" and reads != CHAIN:
            out.append("%s: a ds.chain post-process, listed with reads (use CHAIN)" % item.key)
            continue
        if len(reads) != len(item.segments):
            out.append("%s: %d reads in the table, %d generating segments in the SPL (%s)" % (
                item.key, len(reads), len(item.segments), ", ".join(s.kind for s in item.segments) or "none"))
            continue
        for n, (r, seg) in enumerate(zip(reads, item.segments), 1):
            where = "%s segment %d (%s)" % (item.key, n, seg.kind)
            c = searchspl.clause(seg.text)
            try:
                source = searchspl.source_of(seg)
            except ValueError as exc:
                out.append("%s: %s" % (where, exc))
                continue
            for field, table_value, spl_value in (
                    ("kind", r.kind, seg.kind), ("source", r.source, source),
                    ("select", tuple(r.select), _selected(seg)), ("terms", tuple(r.terms), searchspl.terms(c))):
                if table_value != spl_value:
                    out.append("%s: %s is %r in the table, %r in the SPL" % (where, field, table_value, spl_value))
            if r.hosts not in SCOPES:
                out.append("%s: hosts %r is not a scope (%s)" % (where, r.hosts, ", ".join(SCOPES)))
            elif r.hosts != "all" and not HOST_FILTER_RX.search(ALL_HOSTS_RX.sub(" ", c)):
                out.append("%s: hosts %r in the table, but its SPL filters no host" % (where, r.hosts))
    return out


def rows(root: str = ROOT, sizes: Sequence[int] = SIZES, table: Optional[Dict[str, Tuple[Read, ...]]] = None) -> List[Row]:
    """One Row per search or data source and size. A search without an entry in the table, or whose
    entry does not have one Read per generating segment, is an error (the gate says which)."""
    table = selects() if table is None else table
    out = []
    for item in items(root):
        if item.key not in table:
            raise KeyError("%s: no entry in tools/searchcost_selects.py" % item.key)
        reads = table[item.key]
        if len(reads) != len(item.segments):
            raise ValueError("%s: %d reads in the table, %d generating segments in the SPL (%s)" % (
                item.key, len(reads), len(item.segments), ", ".join(s.kind for s in item.segments) or "a chain"))
        for size in sizes:
            costs = tuple((seg, segment_cost(r, seg, item, size)) for r, seg in zip(reads, item.segments))
            total = ZERO
            for _, c in costs:
                total = total + c
            out.append(Row(item.key, item.what, size, total, item.runs_per_day, costs))
    return out


# ---------------------------------------------------------------- budgets
class Budget(NamedTuple):
    name: str
    value: float
    limit: float
    unit: str

    @property
    def met(self) -> bool:
        return self.value <= self.limit


def budgets(all_rows: List[Row], root: str = ROOT) -> List[Budget]:
    at = [r for r in all_rows if r.size == BUDGET_SIZE]
    out = [Budget("all scheduled searches, per day, at %s instances" % fmt(BUDGET_SIZE),
                  sum(r.per_day.raw_eq for r in at if r.what == "scheduled"), BUDGET_SCHEDULED_RAW_EQ_DAY, "raw-eq")]
    landing = searchspl.landing_view(root)
    out.append(Budget("landing page %s, per open, at %s instances" % (landing, fmt(BUDGET_SIZE)),
                      sum(r.per_run.raw_eq for r in at if r.key.startswith(landing + "/")),
                      BUDGET_LANDING_RAW_EQ_OPEN, "raw-eq"))
    for r in all_rows:
        if r.what == "ds.search" and r.size == max(SIZES):
            worst = max(x.per_run.rows for x in all_rows if x.key == r.key)
            out.append(Budget("rows to the search head: %s (any size)" % r.key, worst, BUDGET_ROWS, "rows"))
    for r in at:
        for seg, c in r.segments:
            if seg.limit:
                out.append(Budget("%s subsearch of %s at %s instances" % (seg.via, r.key, fmt(BUDGET_SIZE)),
                                  c.out, seg.limit - 1, "rows"))
    return out


# ---------------------------------------------------------------- printing
def fmt(x: float) -> str:
    x = float(x)
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return ("%.2f" % (x / div)).rstrip("0").rstrip(".") + " " + unit
    return "%d" % round(x) if x >= 1 or x == 0 else "%.2f" % x


def table_lines(all_rows: List[Row]) -> List[str]:
    lines = []
    keys = []
    for r in all_rows:
        if r.key not in keys:
            keys.append(r.key)
    by = {(r.key, r.size): r for r in all_rows}
    width = max(len(k) for k in keys)
    for size in SIZES:
        lines.append("")
        lines.append("at %s instances (%s): per run / per open; scheduled searches also per day" % (
            fmt(size), ", ".join("%d%% %s" % (MIX[r] * 100, r) for r in ROLES)))
        head = "%-*s %10s %10s %10s %10s %8s %12s" % (width, "search or data source", "raw", "index-only",
                                                       "raw-eq", "rows to SH", "runs/day", "raw-eq/day")
        lines += [head, "-" * len(head)]
        for k in keys:
            r = by[(k, size)]
            if r.what == "ds.chain":
                continue
            lines.append("%-*s %10s %10s %10s %10s %8s %12s" % (
                width, k, fmt(r.per_run.raw), fmt(r.per_run.index_only), fmt(r.per_run.raw_eq), fmt(r.per_run.rows),
                fmt(r.runs_per_day) if r.what == "scheduled" else "-",
                fmt(r.per_day.raw_eq) if r.what == "scheduled" else "-"))
        sched = sum(by[(k, size)].per_day.raw_eq for k in keys if by[(k, size)].what == "scheduled")
        lines.append("%-*s %56s %12s" % (width, "all scheduled searches", "", fmt(sched)))
        views = sorted({k.split("/")[0] for k in keys if "/" in k})
        for v in views:
            tot = sum(by[(k, size)].per_run.raw_eq for k in keys if k.startswith(v + "/"))
            lines.append("%-*s %32s" % (width, "view %s, one open" % v, fmt(tot)))
    chains = sum(1 for k in keys if by[(k, SIZES[0])].what == "ds.chain")
    lines.append("")
    lines.append("(%d ds.chain post-processes read nothing of their own and are not listed)" % chains)
    return lines


def markdown_lines(all_rows: List[Row], bs: List[Budget]) -> List[str]:
    """The tables of docs/searches.md: scheduled searches per day, views per open, budgets."""
    by = {(r.key, r.size): r for r in all_rows}
    keys = []
    for r in all_rows:
        if r.key not in keys:
            keys.append(r.key)
    sched = [k for k in keys if by[(k, SIZES[0])].what == "scheduled"]
    out = ["| scheduled search | runs a day | raw-eq a run at 10,000 | rows to the search head a run at 10,000 | "
           "raw-eq a day at 100 | at 1,000 | at 10,000 |", "|---|---:|---:|---:|---:|---:|---:|"]
    for k in sched:
        r = by[(k, BUDGET_SIZE)]
        out.append("| %s | %s | %s | %s | %s |" % (k, fmt(r.runs_per_day), fmt(r.per_run.raw_eq), fmt(r.per_run.rows),
                                                  " | ".join(fmt(by[(k, n)].per_day.raw_eq) for n in SIZES)))
    out.append("| **all scheduled searches** | | | | %s |" % " | ".join(
        "**%s**" % fmt(sum(by[(k, n)].per_day.raw_eq for k in sched)) for n in SIZES))
    views = []
    for k in keys:
        if "/" in k and k.split("/")[0] not in views:
            views.append(k.split("/")[0])
    out += ["", "| view, one open at its default range | raw-eq at 100 | at 1,000 | at 10,000 | "
                "most rows one data source sends at 10,000 |", "|---|---:|---:|---:|---:|"]
    for v in views:
        mine = [k for k in keys if k.startswith(v + "/")]
        out.append("| %s | %s | %s |" % (v, " | ".join(fmt(sum(by[(k, n)].per_run.raw_eq for k in mine)) for n in SIZES),
                                        fmt(max(by[(k, BUDGET_SIZE)].per_run.rows for k in mine))))
    failed = [b for b in bs if not b.met]
    out += ["", "Budgets at %s instances: %d of %d met." % (fmt(BUDGET_SIZE), len(bs) - len(failed), len(bs))]
    out += ["- %s %s: %s %s (budget %s)" % ("met" if b.met else "**not met**", b.name, fmt(b.value), b.unit,
                                          fmt(b.limit)) for b in bs if not b.met or b.name.startswith(("all ", "landing"))]
    return out


DOCS = os.path.join("docs", "searches.md")
DOCS_BEGIN = ("<!-- BEGIN GENERATED cost tables: generated by tools/searchcost.py (--markdown) through "
              "tools/generate.py, do not edit -->")
DOCS_END = "<!-- END GENERATED cost tables -->"


def docs_text(current: str, root: str = ROOT) -> str:
    """docs/searches.md with its cost tables (between the markers) as the model gives them for `root`."""
    start, end = current.find(DOCS_BEGIN), current.find(DOCS_END)
    if start < 0 or end < start:
        raise ValueError("%s: no %r ... %r block" % (DOCS, DOCS_BEGIN[:30], DOCS_END))
    all_rows = rows(root)
    block = "\n".join([DOCS_BEGIN, ""] + markdown_lines(all_rows, budgets(all_rows, root)) + [""])
    return current[:start] + block + current[end:]


def budget_lines(bs: List[Budget]) -> List[str]:
    out = ["", "budgets (issue 35)"]
    for b in bs:
        out.append("  %-8s %s: %s %s (budget %s)" % ("met" if b.met else "NOT MET", b.name, fmt(b.value), b.unit, fmt(b.limit)))
    failed = sum(1 for b in bs if not b.met)
    out.append("%d of %d budgets met" % (len(bs) - failed, len(bs)))
    return out


def main(argv: Optional[Iterable[str]] = None, out=None) -> int:
    out = out or sys.stdout
    p = argparse.ArgumentParser(prog="searchcost.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--budgets", action="store_true", help="print each budget with met / NOT MET")
    p.add_argument("--check", action="store_true", help="as --budgets; exit 1 when a budget is not met")
    p.add_argument("--markdown", action="store_true", help="the tables of docs/searches.md instead (Markdown)")
    p.add_argument("--root", default=ROOT, help="the app tree to read (default: this repository)")
    a = p.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        all_rows = rows(a.root)
    except (KeyError, ValueError) as exc:
        out.write("searchcost: %s\n" % exc)
        return 2
    if a.markdown:
        out.write("\n".join(markdown_lines(all_rows, budgets(all_rows, a.root))) + "\n")
        return 0
    out.write("\n".join(table_lines(all_rows)) + "\n")
    if a.budgets or a.check:
        bs = budgets(all_rows, a.root)
        out.write("\n".join(budget_lines(bs)) + "\n")
        if a.check and not all(b.met for b in bs):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
