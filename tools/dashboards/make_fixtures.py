#!/usr/bin/env python3
"""Write the recorded search results the dashboard render test feeds to each data source.

tests/fixtures/dashboards/<state>/<view>/<data source>.json, in splunkd's json_rows shape
({"fields": [...], "rows": [[...], ...]}, every value a string as splunkd returns them).

There is no Splunk here, so these are not captures: they are what each search of the views
returns, computed from one simulated deployment per state so that every panel tells the same
story (the HEC thread at 98% on the HEC dashboard is the same thread on the thread dashboard).
The numbers follow the real shapes of ../shared/reference (metrics.log dutycycle ratios 0-1 as
% of one core, queue fill from *_size_kb, _introspection HEC counters per 60 s, HEC reply codes).

  healthy    2 heavy forwarders running HEC (hf-01, hf-02) and 2 indexers with 2 pipeline sets;
             HEC thread about 35%, queues under 20%, no errors, no findings.
  saturated  the same deployment at peak: hf-01's HEC thread pegged (98-100% of one core with
             dedicatedIoThreads=2), idx-02 pipeline set 1 typing-bound (parsing/agg/typing queues
             full and blocked, indexQueue fine, regexreplacement 80% of typing), reply=9 errors,
             HEC health 18, p99 latency in seconds, lag in minutes, open findings.

    python3 tools/dashboards/make_fixtures.py   (deterministic: same output every run)
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "dashboards")
END = 1795320000  # 2026-11-22T04:00:00Z, the render server's "now"
MINUTES = 240     # the views' default range: last 4 hours

HF = ["hf-01", "hf-02"]
IDX = ["idx-01", "idx-02"]
HOSTS = HF + IDX
PSETS = ["0", "1"]
TOKENS = {"hf-01": ["k8s_logs", "app_events"], "hf-02": ["k8s_logs", "firewall"]}
QUEUES = [("parsingqueue", "parsing", 1), ("aggqueue", "merging", 2), ("typingqueue", "typing", 3),
          ("indexqueue", "indexing", 4)]
THREADS = ["httpinputserverdatathread", "parsing", "aggregator", "typing", "indexerpipe", "tcpouteloop",
           "tailreader0", "mgmt_httpd"]
THREAD_PCT, QUEUE_PCT, LATENCY_MS = 90, 90, 1000


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000+00:00", time.gmtime(t))


def times(step_min: int = 1, minutes: int = MINUTES):
    return [END - (minutes - i) * 60 for i in range(0, minutes, step_min)]


def fmt(v) -> str:
    if v is None:
        return None
    if isinstance(v, float):
        return ("%.3f" % v).rstrip("0").rstrip(".")
    return str(v)


def result(fields, rows):
    return {"fields": list(fields), "rows": [[fmt(v) for v in r] for r in rows]}


def timechart(series: dict, extra: dict = None, step: int = 1):
    """series: name -> f(t) (None = no value); extra: constant columns (threshold)."""
    ts = times(step)
    names = list(series)
    fields = ["_time"] + names + list(extra or {})
    rows = []
    for t in ts:
        rows.append([iso(t)] + [series[n](t) for n in names] + list((extra or {}).values()))
    return result(fields, rows)


class World:
    def __init__(self, saturated: bool):
        self.sat = saturated
        self.rnd = random.Random(7 if saturated else 3)

    def noise(self, t, key, amp):
        # deterministic smooth noise per key
        h = sum(ord(c) for c in key)
        return amp * (math.sin(t / 900.0 + h) * 0.6 + math.sin(t / 170.0 + 2 * h) * 0.4)

    def ramp(self, t):
        """0 before the incident, 1 during it (saturated only: the last 100 minutes)."""
        if not self.sat:
            return 0.0
        start = END - 100 * 60
        return 0.0 if t < start else min(1.0, (t - start) / 900.0)

    # -- HEC load
    def eps(self, host, t):
        base = {"hf-01": 5200.0, "hf-02": 3100.0}[host]
        if self.sat and host == "hf-01":
            base = 9800.0 - 2300.0 * self.ramp(t)  # pegged: throughput flattens and drops
        return round(max(0.0, base + self.noise(t, host, base * 0.08)), 1)

    def bytes_per_event(self, host):
        return {"hf-01": 820.0, "hf-02": 610.0}[host]

    def epr(self, token):
        return {"k8s_logs": 48.0, "app_events": 2.1 if self.sat else 24.0, "firewall": 95.0}[token]

    def token_share(self, host, token):
        return {("hf-01", "k8s_logs"): 0.7, ("hf-01", "app_events"): 0.3,
                ("hf-02", "k8s_logs"): 0.45, ("hf-02", "firewall"): 0.55}[(host, token)]

    # -- threads
    def thread_pct(self, host, thread, t, pset="none"):
        r = self.ramp(t)
        if thread == "httpinputserverdatathread":
            if host not in HF:
                return None
            base = 34.0 if host == "hf-01" else 22.0
            if self.sat and host == "hf-01":
                base = 34.0 + 64.5 * min(1.0, r * 1.4) if r > 0 else 52.0
            return round(min(100.0, max(0.0, base + self.noise(t, host + thread, 2.5 if base < 95 else 0.8))), 1)
        if thread == "typing":
            base = 18.0 if host in IDX else 6.0
            if self.sat and host == "idx-02" and pset == "1":
                base = 18.0 + 80.0 * r
            return round(min(100.0, max(0.0, base + self.noise(t, host + thread + pset, 3.0 if base < 95 else 0.7))), 1)
        base = {"parsing": 14.0, "aggregator": 11.0, "indexerpipe": 21.0, "tcpouteloop": 9.0,
                "tailreader0": 3.0, "mgmt_httpd": 0.4}[thread]
        if thread in ("indexerpipe",) and host in HF:
            return None
        if thread == "tcpouteloop" and host in IDX:
            return None
        if self.sat and host == "idx-02" and thread in ("parsing", "aggregator") and pset == "1":
            base += 25.0 * r
        return round(max(0.0, base + self.noise(t, host + thread + pset, base * 0.15)), 1)

    # -- queues
    def fill(self, host, queue, pset, t):
        order = {"parsingqueue": 1, "aggqueue": 2, "typingqueue": 3, "indexqueue": 4, "tcpout": 5}[queue]
        base = {1: 6.0, 2: 4.0, 3: 8.0, 4: 12.0, 5: 5.0}[order] + (3.0 if host in IDX else 0.0)
        if self.sat:
            r = self.ramp(t)
            if host == "idx-02" and pset == "1" and order <= 3:
                base = base + (100.0 - base) * r
            if host == "hf-01" and order <= 2:
                base = base + 30.0 * r
        v = base + self.noise(t, host + queue + pset, max(1.5, base * 0.12))
        return round(min(100.0, max(0.0, v)), 1)


def hec_fixtures(w: World):
    f = {}
    total_events = sum(w.eps(h, t) * 60 for h in HF for t in times())
    total_bytes = sum(w.eps(h, t) * 60 * w.bytes_per_event(h) for h in HF for t in times())
    total_req = sum(w.eps(h, t) * 60 * w.token_share(h, tok) / w.epr(tok) for h in HF for tok in TOKENS[h] for t in times())
    secs = MINUTES * 60
    f["ds_hec_kpi"] = result(["eps", "mbps", "rps", "epr"], [[
        round(total_events / secs), round(total_bytes / secs / 1048576, 2), round(total_req / secs, 1),
        round(total_events / total_req, 1)]])
    f["ds_hec_eps"] = timechart({h: (lambda t, h=h: w.eps(h, t)) for h in HF})
    f["ds_hec_mbps"] = timechart({h: (lambda t, h=h: round(w.eps(h, t) * w.bytes_per_event(h) / 1048576, 3)) for h in HF})
    rows = []
    for h in HF:
        for tok in TOKENS[h]:
            ev = sum(w.eps(h, t) * 60 * w.token_share(h, tok) for t in times())
            req = ev / w.epr(tok)
            ack = 0 if not (w.sat and h == "hf-01") else 412
            rows.append([h, tok, round(ev / secs, 1), round(ev * w.bytes_per_event(h) / secs / 1048576, 3),
                         round(req / secs, 2), round(ev / req, 1), ack])
    rows.sort(key=lambda r: -r[2])
    f["ds_hec_tokens"] = result(["host", "token", "events/s", "MB/s", "requests/s", "events/request",
                                 "max requests waiting ack"], rows)
    f["ds_hec_batching"] = result(["token", "events_per_request"],
                                  sorted([[tok, w.epr(tok)] for tok in ("k8s_logs", "app_events", "firewall")],
                                         key=lambda r: r[1]))
    if w.sat:
        def busy(t):
            return int(round(140 * w.ramp(t) + max(0, w.noise(t, "busy", 30)))) if w.ramp(t) > 0 else 0
        f["ds_hec_errors_time"] = timechart({"9 Server is busy": busy,
                                             "6 Invalid data format": lambda t: 1 if int(t / 300) % 7 == 0 else 0}, step=5)
        f["ds_hec_errors_table"] = result(
            ["host", "reply", "meaning", "errors", "tokens", "action", "last_seen"],
            [["hf-01", "9 (HTTP 503)", "Server is busy", "8631", "app_events",
              "The queues behind HEC are full: find the stage that drains them (Pipeline sets) before raising HEC limits.",
              "2026-11-22 03:59:41"],
             ["hf-01", "6 (HTTP 400)", "Invalid data format", "7", "app_events",
              "The client sends events that are not valid HEC JSON: fix the sender.", "2026-11-22 03:35:02"]])
    else:
        f["ds_hec_errors_time"] = timechart({"6 Invalid data format": lambda t: 1 if int(t / 300) % 11 == 0 else 0}, step=5)
        f["ds_hec_errors_table"] = result(
            ["host", "reply", "meaning", "errors", "tokens", "action", "last_seen"],
            [["hf-02", "6 (HTTP 400)", "Invalid data format", "4", "firewall",
              "The client sends events that are not valid HEC JSON: fix the sender.", "2026-11-22 02:15:10"]])

    def lat(q):
        def fn(t):
            base = {50: 18.0, 95: 41.0, 99: 77.0}[q]
            if w.sat:
                base *= 1 + 60 * w.ramp(t) * {50: 0.3, 95: 0.8, 99: 1.0}[q]
            return round(base + abs(w.noise(t, "lat%d" % q, base * 0.1)), 1)
        return fn
    f["ds_hec_latency"] = timechart({"p50": lat(50), "p95": lat(95), "p99": lat(99)}, {"threshold": LATENCY_MS})
    if w.sat:
        f["ds_hec_health"] = result(["host", "code", "meaning", "probes", "avg_rtt_ms", "max_rtt_ms"],
                                    [["hf-01", "17", "HEC is healthy", "840", "3.1", "12.4"],
                                     ["hf-01", "18", "HEC is unhealthy, queues are full", "600", "2.7", "9.8"],
                                     ["hf-02", "17", "HEC is healthy", "1440", "2.2", "8.1"]])
    else:
        f["ds_hec_health"] = result(["host", "code", "meaning", "probes", "avg_rtt_ms", "max_rtt_ms"],
                                    [["hf-01", "17", "HEC is healthy", "1440", "2.4", "9.0"],
                                     ["hf-02", "17", "HEC is healthy", "1440", "2.1", "7.7"]])
    f["ds_hec_thread"] = timechart({h: (lambda t, h=h: w.thread_pct(h, "httpinputserverdatathread", t)) for h in HF},
                                   {"threshold": THREAD_PCT})
    series = {}
    for h in HF:
        for q, _, _ in QUEUES:
            series["%s %s #none" % (h, q)] = (lambda t, h=h, q=q: w.fill(h, q, "none", t))
    f["ds_hec_queues"] = timechart(series, {"threshold": QUEUE_PCT})
    f["ds_hec_findings_ann"] = result(["_time", "label", "color"], [
        [iso(END - 86 * 60 + 10), "finding (critical): hf-01 hec_input", "#D41F1F"]] if w.sat else [])

    def lagf(q):
        def fn(t):
            base = {50: 1.8, 95: 4.2, 100: 9.0}[q]
            if w.sat:
                base += 420.0 * w.ramp(t) * {50: 0.6, 95: 0.9, 100: 1.0}[q]
            return round(base + abs(w.noise(t, "lag%d" % q, base * 0.1)), 1)
        return fn
    f["ds_hec_lag"] = timechart({"p50": lagf(50), "p95": lagf(95), "max": lagf(100)}, step=5)
    io = "2" if w.sat else "4"
    f["ds_hec_settings"] = result(
        ["splunk_server", "source", "dedicatedIoThreads", "maxThreads", "maxSockets", "port", "enableSSL", "tokens",
         "useACK_tokens"],
        [["hf-01", "collector", io, "0", "0", "8088", "true", "2", None],
         ["hf-02", "collector", "4", "0", "0", "8088", "true", "2", None],
         ["idx-01", "REST", "2", "0", "0", "8088", "1", "1", "k8s_logs"],
         ["idx-02", "REST", "2", "0", "0", "8088", "1", "1", "k8s_logs"],
         ["sh-01", "REST", "2", "0", "0", "8088", "1", "0", None]])
    f["ds_open_findings"] = findings_rows(w, ["severity", "host", "bottleneck", "pipeline_set", "summary", "advice",
                                              "settings", "detected", "first_seen", "last_seen", "count"],
                                           status="open")
    return f


FINDINGS = [
    dict(id="hf-01/hec_input/-", host="hf-01", bottleneck="hec_input", pipeline_set="-",
         component="httpinputserverdatathread", severity="critical", status="open",
         summary="The HEC server data thread is busy 99% of the time (one core), sustained for 10 minutes.",
         evidence_text="thread_busy_pct=99.1 %; hec_busy_replies=8631 replies",
         advice="Raise the HEC I/O threads towards the number of cores. | Batch events in the client of token app_events (2 events per request).",
         settings="dedicatedIoThreads -> 8", first_seen="2026-11-22 02:34:10", last_seen="2026-11-22 03:59:30",
         count="18", detected="both", resolution="", evidence_dashboard="ingest_doctor_hec_performance"),
    dict(id="idx-02/typing/1", host="idx-02", bottleneck="typing", pipeline_set="1", component="regexreplacement",
         severity="critical", status="open",
         summary="Pipeline set 1 is limited by the typing stage: parsing, aggregation and typing queues are full, "
                 "the typing thread is at 98% of one core and index-time regex takes 81% of it.",
         evidence_text="queue_fill_pct=100 % (typingQueue); thread_busy_pct=98.2 %; regex_cpu_share_pct=81 %",
         advice="Review the TRANSFORMS and SEDCMD of sourcetype k8s:container (2.1 ms per event).",
         settings="", first_seen="2026-11-22 02:31:40", last_seen="2026-11-22 03:59:40",
         count="17", detected="collector", resolution="", evidence_dashboard="ingest_doctor_cpu_by_processor"),
    dict(id="idx-02/host_cpu/-", host="idx-02", bottleneck="pipeline_set_imbalance", pipeline_set="0",
         component="pipelineset", severity="warning", status="open",
         summary="Pipeline set 1 is saturated while set 0 is 22% busy: the load is not spread.",
         evidence_text="pipelineset.dutycycle_pct=22 % (set 0); pipelineset.dutycycle_pct=98 % (set 1)",
         advice="Use pipelineSetSelectionPolicy = weighted_random.",
         settings="pipelineSetSelectionPolicy -> weighted_random", first_seen="2026-11-22 02:40:00",
         last_seen="2026-11-22 03:55:00", count="9", detected="alert", resolution="",
         evidence_dashboard="ingest_doctor_pipeline_sets"),
    dict(id="hf-02/hec_input/-", host="hf-02", bottleneck="hec_input", pipeline_set="-",
         component="httpinputserverdatathread", severity="info", status="resolved",
         summary="The HEC server data thread reached 93% of one core in one sample (a transient spike).",
         evidence_text="thread_busy_pct=93 %", advice="No change needed unless it recurs.", settings="",
         first_seen="2026-11-21 18:02:00", last_seen="2026-11-21 18:02:00", count="1", detected="collector",
         resolution="resolved after dedicatedIoThreads 2 -> 8", evidence_dashboard="ingest_doctor_hec_performance"),
]


def findings_rows(w: World, fields, status=None, bottlenecks=None, rename=None):
    rows = []
    for fd in FINDINGS:
        if not w.sat and fd["status"] == "open":
            continue
        if status and fd["status"] != status:
            continue
        if bottlenecks and fd["bottleneck"] not in bottlenecks:
            continue
        rows.append([fd.get(k) for k in fields])
    out_fields = [(rename or {}).get(k, k) for k in fields]
    if not rows:
        empty = {k: None for k in out_fields}
        empty["severity"] = "-"
        empty["summary"] = ("No finding stored yet. The Ingest Doctor alerts and the collector (through the search "
                            "Ingest Doctor - Findings - Collector findings) write them: check that they are enabled "
                            "(Settings > Searches, reports, and alerts, app Ingest Doctor).")
        if bottlenecks:
            empty["summary"] = "No open finding about parsing, merging or typing."
        rows = [[empty[k] for k in out_fields]]
    return result(out_fields, rows)


def thread_fixtures(w: World):
    f = {}
    series = {}
    for th in THREADS:
        def fn(t, th=th):
            vals = [w.thread_pct(h, th, t, p) for h in HOSTS for p in (PSETS if th in ("typing", "parsing", "aggregator", "indexerpipe") else ["none"])]
            vals = [v for v in vals if v is not None]
            return max(vals) if vals else None
        series[th] = fn
    f["ds_threads_time"] = timechart(series, {"threshold": THREAD_PCT})
    rows = []
    for h in HOSTS:
        for th in THREADS:
            for p in (PSETS if th in ("typing", "parsing", "aggregator", "indexerpipe") else ["none"]):
                vals = [w.thread_pct(h, th, t, p) for t in times()]
                vals = [v for v in vals if v is not None]
                if not vals or max(vals) < THREAD_PCT:
                    continue
                over = sum(1 for v in vals if v >= THREAD_PCT)
                rows.append([h, p, th, vals[-1], round(sum(vals) / len(vals), 1), max(vals),
                             round(over / len(vals) * 100), "metrics.log" if th != "httpinputserverdatathread" else "collector, metrics.log"])
    rows.sort(key=lambda r: -r[4])
    if not rows:
        rows = [["-", None, "No thread reached the threshold (ingest_doctor_thread_busy_pct) in this time range.",
                 None, None, None, None, None]]
    f["ds_threads_over"] = result(["host", "ingest_pipe", "thread", "latest_pct", "avg_pct", "max_pct", "over_pct", "origin"], rows)
    heat = []
    for th in THREADS:
        for h in HOSTS:
            vals = [w.thread_pct(h, th, t, p) for t in times(5) for p in
                    (PSETS if th in ("typing", "parsing", "aggregator", "indexerpipe") else ["none"])]
            vals = [v for v in vals if v is not None]
            if vals:
                heat.append([th, h, round(sum(vals) / len(vals), 1)])
    thread_max = {th: max(r[2] for r in heat if r[0] == th) for th in THREADS}
    heat = [r for r in heat if thread_max[r[0]] >= 1]
    heat.sort(key=lambda r: -thread_max[r[0]])
    f["ds_threads_heat"] = result(["thread", "host", "busy_pct"], heat)
    f["ds_thread_drill"] = timechart({h: (lambda t, h=h: w.thread_pct(h, "httpinputserverdatathread", t)) for h in HF},
                                     {"threshold": THREAD_PCT})
    cores = {"hf-01": 24, "hf-02": 16, "idx-01": 32, "idx-02": 32}
    busy = {"hf-01": 131 if w.sat else 74, "hf-02": 58, "idx-01": 190, "idx-02": 268 if w.sat else 185}
    f["ds_cpu_trap"] = result(
        ["host", "cores", "splunkd CPU (% of one core)", "splunkd CPU (% of all cores)", "one pegged core (% of all cores)"],
        [[h, cores[h], busy[h], round(busy[h] / cores[h], 1), round(100.0 / cores[h], 1)] for h in HOSTS])
    return f


def pipeline_fixtures(w: World):
    f = {}
    series = {}
    for q, _, _ in QUEUES:
        for p in PSETS:
            series["%s #%s" % (q, p)] = (lambda t, q=q, p=p: max(w.fill(h, q, p, t) for h in IDX))
    f["ds_fill_time"] = timechart(series, {"threshold": QUEUE_PCT})
    ann = []
    if w.sat:
        for t in times(5):
            if w.ramp(t) >= 0.9:
                ann.append([iso(t), "idx-02 set 1: aggqueue, parsingqueue, typingqueue blocked", "#D41F1F"])
        ann += [[iso(END - 89 * 60 + 40), "finding (critical): idx-02 typing set 1", "#D41F1F"],
                [iso(END - 80 * 60), "finding (warning): idx-02 pipeline_set_imbalance set 0", "#CBA700"]]
        ann.sort()
    else:
        ann.append([iso(END - 170 * 60), "idx-01 set 0: indexqueue blocked", "#D41F1F"])
    f["ds_blocked"] = result(["_time", "label", "color"], ann)
    rows = []
    for h in IDX:
        for p in PSETS:
            fills = {}
            for q, stage, order in QUEUES:
                vals = sorted(w.fill(h, q, p, t) for t in times()[-60:])
                fills[stage] = (round(vals[len(vals) // 2]), order)
            full = [o for (v, o) in fills.values() if v >= QUEUE_PCT]
            last = max(full) if full else 0
            bn = next((s for s, (v, o) in fills.items() if o == last), "none") if last else "none"
            rows.append([h, p, fills["parsing"][0], fills["merging"][0], fills["typing"][0], fills["indexing"][0],
                         None, bn])
    for h in HF:
        fills = {stage: round(sorted(w.fill(h, q, "none", t) for t in times()[-60:])[30]) for q, stage, _ in QUEUES}
        rows.append([h, "none", fills["parsing"], fills["merging"], fills["typing"], fills["indexing"],
                     round(sorted(w.fill(h, "tcpout", "none", t) for t in times()[-60:])[30]), "none"])
    rows.sort(key=lambda r: (r[-1] == "none", r[0], r[1]))
    f["ds_chain"] = result(["host", "ingest_pipe", "parsing", "merging", "typing", "indexing", "output", "bottleneck"], rows)

    def band_count(t, band):
        n = 0
        for h in HOSTS:
            ps = PSETS if h in IDX else ["none"]
            v = max(w.fill(h, q, p, t) for q, _, _ in QUEUES for p in ps)
            b = "3" if v >= QUEUE_PCT else ("2" if v >= 60 else "1")
            n += 1 if b == band else 0
        return n or None
    f["ds_bands"] = timechart({"1: below 60%": lambda t: band_count(t, "1"),
                               "2: 60% to threshold": lambda t: band_count(t, "2"),
                               "3: full (>= threshold)": lambda t: band_count(t, "3")}, step=5)
    series = {}
    for h in IDX:
        for p in PSETS:
            series["%s #%s" % (h, p)] = (lambda t, h=h, p=p: max(w.thread_pct(h, "typing", t, p), w.thread_pct(h, "indexerpipe", t, p)))
    f["ds_psets_time"] = timechart(series, {"threshold": THREAD_PCT})
    rows = []
    for h in IDX:
        for p in PSETS:
            hot = w.sat and h == "idx-02" and p == "1"
            share = 38.0 if hot else (62.0 if (w.sat and h == "idx-02") else 50.0)
            rows.append([h, p, "typing" if hot else "indexerpipe", 210 if hot else 160,
                         max(w.thread_pct(h, "typing", t, p) for t in times()) if hot else
                         max(w.thread_pct(h, "indexerpipe", t, p) for t in times()), share])
    f["ds_psets_table"] = result(["host", "ingest_pipe", "busiest_thread", "minutes busiest", "max busy %",
                                  "assignment share %"], rows)
    return f


PROCESSORS = [("parsing", "utf8", 0.05), ("parsing", "linebreaker", 0.07), ("merging", "aggregator", 0.09),
              ("typing", "regexreplacement", 0.04), ("typing", "annotator", 0.03), ("typing", "previewout", 0.03),
              ("indexerpipe", "indexer", 0.14),
              ("indexerpipe", "indexandforward", 0.03)]


def cpu_pct(w: World, h, p, pipeline, proc, t):
    base = dict(((a, b), c) for a, b, c in PROCESSORS)[(pipeline, proc)] * 100
    if w.sat and h == "idx-02" and p == "1" and pipeline == "typing":
        base = base + (78.0 if proc == "regexreplacement" else 6.0) * w.ramp(t)
    return round(max(0.0, base + w.noise(t, h + p + proc, base * 0.1)), 1)


def cpu_fixtures(w: World):
    f = {}
    series = {}
    for pipeline, proc, _ in PROCESSORS:
        for p in PSETS:
            series["%s/%s #%s" % (pipeline, proc, p)] = (lambda t, pl=pipeline, pr=proc, p=p: max(cpu_pct(w, h, p, pl, pr, t) for h in IDX))
    top = sorted(series, key=lambda s: -max(series[s](t) for t in times(10)))[:12]
    f["ds_cpu_time"] = timechart({s: series[s] for s in top}, {"threshold": THREAD_PCT})
    stage = {"parsing": "parsing", "merging": "merging", "typing": "typing", "indexerpipe": "indexing"}
    rows = []
    for h in IDX:
        for p in PSETS:
            for pipeline, proc, _ in PROCESSORS:
                vals = [cpu_pct(w, h, p, pipeline, proc, t) for t in times()]
                rows.append([h, p, stage[pipeline], pipeline, proc, round(sum(vals) / len(vals), 1), max(vals),
                             int(sum(vals) * 950)])
    rows.sort(key=lambda r: -r[5])
    f["ds_cpu_table"] = result(["host", "ingest_pipe", "stage", "pipeline", "processor", "avg_pct", "max_pct", "executes"], rows[:15])
    rows = []
    for h in IDX:
        for p in PSETS:
            rx = sum(cpu_pct(w, h, p, "typing", "regexreplacement", t) for t in times())
            rest = sum(cpu_pct(w, h, p, "typing", pr, t) for pr in ("annotator", "previewout") for t in times())
            share = round(rx / (rx + rest) * 100, 1)
            rows.append([h, p, share, "regex-bound: review TRANSFORMS/SEDCMD" if share >= 50 else "not regex-bound"])
    rows.sort(key=lambda r: -r[2])
    f["ds_regex_share"] = result(["host", "ingest_pipe", "regex_share_pct", "verdict"], rows)
    st = [("k8s:container", 2.1 if w.sat else 0.09, 41000000), ("pan:traffic", 0.05, 22000000),
          ("app:events", 0.11, 9000000), ("linux:syslog", 0.02, 6000000), ("access_combined", 0.03, 3500000)]
    rows = sorted([[s, round(ms * ev / (4 if w.sat else 1)), ev, ms] for s, ms, ev in st], key=lambda r: -r[1])
    f["ds_regex_st"] = result(["sourcetype", "cpu_ms", "events", "ms_per_event"], rows)
    f["ds_indexer_cpu"] = timechart({"raw data write": lambda t: round(9 + w.noise(t, "w", 1.5), 1),
                                     "index service": lambda t: round(6 + w.noise(t, "s", 1.0), 1)})
    f["ds_props_findings"] = findings_rows(
        w, ["severity", "host", "pipeline_set", "bottleneck", "summary", "advice", "settings", "detected",
            "first_seen"], status="open",
        bottlenecks=("typing", "merging", "parsing"))
    return f


def findings_fixtures(w: World):
    f = {}
    fields = ["severity", "host", "bottleneck", "pipeline_set", "summary", "evidence_text",
              "advice", "settings", "detected", "first_seen", "last_seen", "count", "status", "resolution",
              "evidence_dashboard"]
    f["ds_findings_table"] = findings_rows(w, fields, status="open", rename={
        "evidence_text": "evidence", "advice": "recommendations", "settings": "setting -> suggested"})
    open_ = [fd for fd in FINDINGS if fd["status"] == "open" and w.sat]
    f["ds_findings_kpi"] = result(["critical", "warning", "info", "hosts"], [[
        sum(1 for fd in open_ if fd["severity"] == "critical"), sum(1 for fd in open_ if fd["severity"] == "warning"),
        sum(1 for fd in open_ if fd["severity"] == "info"), len({fd["host"] for fd in open_})]])
    hosts = sorted({fd["host"] for fd in open_})
    bns = sorted({fd["bottleneck"] for fd in open_})
    if open_:
        f["ds_findings_by"] = result(["bottleneck"] + hosts, [[b] + [sum(1 for fd in open_ if fd["bottleneck"] == b and fd["host"] == h) for h in hosts] for b in bns])
    else:
        f["ds_findings_by"] = result(["bottleneck", "count"], [["none", 0]])
    return f


def common(with_pset=True):
    f = {"ds_hosts": result(["host"], [[h] for h in HOSTS])}
    if with_pset:
        f["ds_psets"] = result(["ingest_pipe"], [["0"], ["1"], ["none"]])
    return f


def main() -> int:
    for state in ("healthy", "saturated"):
        w = World(state == "saturated")
        views = {
            "ingest_doctor_hec_performance": dict(common(), **hec_fixtures(w)),
            "ingest_doctor_thread_activity": dict(common(), **thread_fixtures(w)),
            "ingest_doctor_pipeline_sets": dict(common(), **pipeline_fixtures(w)),
            "ingest_doctor_cpu_by_processor": dict(common(), **cpu_fixtures(w)),
            "ingest_doctor_findings": dict(common(False), **findings_fixtures(w)),
        }
        for view, sources in views.items():
            d = os.path.join(OUT, state, view)
            if os.path.isdir(d):
                shutil.rmtree(d)
            os.makedirs(d)
            for ds, res in sources.items():
                with open(os.path.join(d, ds + ".json"), "w", encoding="utf-8", newline="\n") as fh:
                    json.dump(res, fh, separators=(",", ":"), ensure_ascii=False)
                    fh.write("\n")
    print("wrote " + os.path.relpath(OUT, ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
