"""One simulated deployment, as the raw rows the dashboards' searches read.

Ten indexers (idx-01..idx-10, two pipeline sets each, HEC behind a load balancer) and two heavy
forwarders running HEC (hf-01, hf-02, one pipeline set: metrics.log names none). Four hours up to
END, the render server's "now".

  healthy    every queue under 20%, every thread under 35% of one core; a client of hf-02 sends
             a few malformed events (reply=6).
  saturated  the same, except idx-07 pipeline set 1: from 100 minutes before the end its typing
             thread climbs to 98-100% of one core (index-time regex), its typing, merging and
             parsing queues fill to 100% and block. Only then, and only on idx-07, does HEC answer
             503 / reply=9 (requests routed to the full set) and the health probe code 18; the
             lag and probe latency of idx-07 grow with it. Everything else stays idle.

On the forwarders the collector also reports its per-thread CPU; it sees the HEC data thread
under its 15-character /proc name `httpinputserver`, shared with the management thread.

Both states carry what real metrics.log exports carry: one batch of repeated lines (idx-03,
counted once by the CPU searches) and one implausible cpu_seconds reading on hf-02 (a processor
reporting more CPU than the interval's wall time allows; shape of a real 5.x line, issue 12).

Rows are the level each search's first command returns (tstats/mstats buckets, the base macros'
output): tools/dashboards/panels.py computes every recorded panel from them with the statistic
its SPL uses, and tests/dashboards/test_dashboards_recordings.py checks both.
"""
from __future__ import annotations

import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import gen_conf  # noqa: E402
from ingest_doctor import model, threadnames  # noqa: E402  (gen_conf puts bin/ on the path)
END = 1795320000   # 2026-11-22T04:00:00Z
MINUTES = 240      # the views' default range: last 4 hours
START = END - MINUTES * 60
INCIDENT = END - 100 * 60
# The landing page (HEC performance) opens on the last hour (issue 35: its cost per open); the others on 4 hours.
HEC_MINUTES = 60
HEC_START = END - HEC_MINUTES * 60

INDEXERS = ["idx-%02d" % i for i in range(1, 11)]
FORWARDERS = ["hf-01", "hf-02"]
HOSTS = INDEXERS + FORWARDERS
HOT_HOST, HOT_SET = "idx-07", "1"
# Issue 19: hf-01 load-balances over every indexer; its connection to idx-07 (pinned to the full set 1) blocks
# again and again (TcpOutputProc pauses, its throughput to idx-07 drops) while the other nine take the load, so its
# queues stay low on average: an output finding on hf-01 (from its splunkd.log) whose cause is idx-07's typing stage.
HELD_HOST = "hf-01"
QUEUES = [("parsingqueue", "parsing", 1), ("aggqueue", "merging", 2), ("typingqueue", "typing", 3),
          ("indexqueue", "indexing", 4)]
HEC_THREAD = model.HEC_THREAD
# The collector names a thread as /proc does: the HEC data thread (and the management thread) as
# `httpinputserver`, ambiguous (threadnames.AMBIGUOUS, issue 12). It runs on the forwarders.
(PROC_HEC_THREAD,) = [k for k, names in threadnames.AMBIGUOUS.items() if HEC_THREAD in names]
SET_THREADS = ["parsing", "aggregator", "typing", "indexerpipe"]
PROCESSORS = [("parsing", "utf8", 5.0), ("parsing", "linebreaker", 7.0), ("merging", "aggregator", 9.0),
              ("typing", "regexreplacement", 4.0), ("typing", "annotator", 3.0), ("typing", "previewout", 3.0),
              ("indexerpipe", "indexer", 14.0)]
TOKENS = {"hf-01": ["k8s_logs", "app_events"], "hf-02": ["k8s_logs", "firewall"]}
TOKENS.update({h: ["k8s_logs", "firewall"] for h in INDEXERS})
SOURCETYPES = [("k8s:container", 0.09), ("pan:traffic", 0.05), ("linux:syslog", 0.02)]


def psets(host):
    return ["0", "1"] if host in INDEXERS else ["none"]


def wave(t, key, amp):
    """Deterministic smooth noise per key, in [-amp, amp]."""
    h = sum(ord(c) * (i + 1) for i, c in enumerate(key))
    return amp * (0.6 * math.sin(t / 900.0 + h) + 0.4 * math.sin(t / 170.0 + 2 * h))


def rows(method):
    """A row family, computed once per deployment (every panel reads it)."""
    def cached(self):
        key = "_rows_" + method.__name__
        if key not in self.__dict__:
            self.__dict__[key] = list(method(self))
        return self.__dict__[key]
    cached.__name__, cached.__doc__ = method.__name__, method.__doc__
    return cached


class Deployment:
    def __init__(self, saturated: bool):
        self.sat = saturated
        # the lookups as gen_conf.py writes them from model.py (not the files: they may be regenerated in the same run)
        fields, table = gen_conf.pipeline_table()
        self.pipeline = [dict(zip(fields, row)) for row in table]
        fields, table = gen_conf.hec_code_table()
        self.replies = {r["reply"]: r for r in (dict(zip(fields, row)) for row in table)}

    # ---------------------------------------------------------------- the incident
    def ramp(self, t):
        """0 before the incident, rising to 1 within 15 minutes (saturated only)."""
        if not self.sat or t < INCIDENT:
            return 0.0
        return min(1.0, (t - INCIDENT) / 900.0)

    def hot(self, host, pset):
        return self.sat and host == HOT_HOST and pset == HOT_SET

    def full(self, host, t):
        """The queues behind HEC on this host are full (one of its sets): HEC answers 503."""
        if not self.sat:
            return False
        return any(self.fill(host, "parsingqueue", p, t) >= 99.0 for p in psets(host))

    # ---------------------------------------------------------------- metrics.log group=queue
    def fill(self, host, queue, pset, t):
        order = {"parsingqueue": 1, "aggqueue": 2, "typingqueue": 3, "indexqueue": 4, "tcpout_idx": 5}[queue]
        base = {1: 5.0, 2: 3.0, 3: 6.0, 4: 9.0, 5: 4.0}[order] + (2.0 if host in INDEXERS else 0.0)
        v = base + wave(t, host + queue + pset, max(1.5, base * 0.4))
        r = self.ramp(t)
        if self.hot(host, pset) and order <= 3 and r > 0:
            # the typing thread cannot keep up: its queue fills, then back-pressure fills those upstream
            lag = {3: 0.0, 2: 0.15, 1: 0.3}[order]
            k = max(0.0, min(1.0, (r - lag) / (1 - lag)))
            v = v + (100.0 - v) * k
        return round(min(100.0, max(0.0, v)), 1)

    @rows
    def queue_rows(self):
        """tstats by host name ingest_pipe _time span=30s, through ingest_doctor_queue_fill_rows."""
        stage = {q: (s, o) for q, s, o in QUEUES}
        stage["tcpout_idx"] = ("output", 5)
        for host in HOSTS:
            queues = [q for q, _, _ in QUEUES] + (["tcpout_idx"] if host in FORWARDERS else [])
            for pset in psets(host):
                for q in queues:
                    for t in range(START, END, 30):
                        yield dict(_time=t, host=host, ingest_pipe=pset, queue=q, stage=stage[q][0],
                                   stage_order=stage[q][1], fill_pct=self.fill(host, q, pset, t))

    # ---------------------------------------------------------------- metrics.log group=tcpin_connections
    @rows
    def tcpin_rows(self):
        """stats avg(_tcp_KBps) BY hostname host over the range: each forwarder's connection to each indexer."""
        for idx in INDEXERS:
            for hf in FORWARDERS:
                kbps = 900.0 + wave(0, hf + idx + "tcp", 120.0)
                if self.sat and hf == HELD_HOST and idx == HOT_HOST:
                    # blocked for the last 100 minutes: the range's average drops with it
                    kbps *= 1.0 - 0.8 * sum(self.ramp(t) for t in range(START, END, 60)) / MINUTES
                yield dict(hostname=hf, host=idx, kbps=kbps)

    # ---------------------------------------------------------------- dutycycle (% of one core)
    def busy(self, host, thread, pset, t):
        if thread == HEC_THREAD:
            base = 24.0 if host in FORWARDERS else 12.0
        else:
            base = {"parsing": 12.0, "aggregator": 9.0, "typing": 16.0, "indexerpipe": 20.0,
                    "tcpouteloop": 8.0}[thread]
        v = base + wave(t, host + thread + pset, base * 0.25)
        r = self.ramp(t)
        if self.hot(host, pset) and r > 0:
            if thread == "typing":
                v = v + (99.0 - v) * r + wave(t, "pegged", 0.8)
            elif thread in ("parsing", "aggregator"):
                v = v + 10.0 * r
        return round(min(100.0, max(0.0, v)), 1)

    def threads(self, host):
        out = [(th, p) for p in psets(host) for th in SET_THREADS]
        out.append((HEC_THREAD, "none"))
        if host in FORWARDERS:
            out.append(("tcpouteloop", "none"))
        return out

    @rows
    def dutycycle_rows(self):
        """ingest_doctor_dutycycle_rows: one row per minute, host, ingest_pipe and thread; then the
        collector's per-thread CPU the base search appends (mstats span=1m, ingest_pipe none)."""
        for host in HOSTS:
            for thread, pset in self.threads(host):
                for t in range(START, END, 60):
                    yield dict(_time=t, host=host, ingest_pipe=pset, thread=thread, origin="metrics.log",
                               busy_pct=self.busy(host, thread, pset, t))
        for host in FORWARDERS:
            # mstats max per minute of the collector's 10 s /proc samples: a little above dutycycle's 30 s ratio
            for t in range(START, END, 60):
                v = self.busy(host, HEC_THREAD, "none", t) + 1.5 + wave(t, host + "proc", 1.0)
                yield dict(_time=t, host=host, ingest_pipe="none", thread=PROC_HEC_THREAD, origin="collector",
                           busy_pct=round(min(100.0, v), 1))

    @rows
    def eps_rows(self):
        """tstats avg(instantaneous_eps) of group=thruput name=index_thruput by host, ingest_pipe and _time span=1m."""
        for host in HOSTS:
            for pset in psets(host):
                base = 9000.0 if host in FORWARDERS else 6000.0
                for t in range(START, END, 60):
                    yield dict(_time=t, host=host, ingest_pipe=pset,
                               eps=round(base + wave(START, host + pset + "eps", 800.0) + wave(t, host + pset, 150.0), 1))

    @rows
    def load_rows(self):
        """metrics.log group=pipelineset name=load_metrics per minute: busiest thread, its ratio, the share."""
        for host in INDEXERS:
            for pset in psets(host):
                for t in range(START, END, 60):
                    best = max(SET_THREADS, key=lambda th: self.busy(host, th, pset, t))
                    share = 50.0 + wave(t, host + pset + "share", 4.0) * (1 if pset == "0" else -1)
                    yield dict(_time=t, host=host, ingest_pipe=pset, busiest_thread=best,
                               busy_pct=self.busy(host, best, pset, t), share_pct=round(share, 1))

    # ---------------------------------------------------------------- group=pipeline cpu_seconds
    def cpu_seconds(self, host, pset, pipeline, proc, t):
        pct = dict(((a, b), c) for a, b, c in PROCESSORS)[(pipeline, proc)]
        if self.hot(host, pset) and pipeline == "typing":
            pct += (72.0 if proc == "regexreplacement" else 2.0) * self.ramp(t)
        pct = max(0.0, pct + wave(t, host + pset + proc, pct * 0.1))
        return round(pct / 100.0 * 30.0, 3)   # CPU seconds in a 30 s interval

    @rows
    def cpu_lines(self):
        """metrics.log group=pipeline lines (every 30 s): repeats and one implausible reading included."""
        for host in HOSTS:
            for pset in psets(host):
                for pipeline, proc, _ in PROCESSORS:
                    for t in range(START + 7, END, 30):
                        line = dict(_time=t, host=host, ingest_pipe=pset, pipeline=pipeline, processor=proc,
                                    cpu_seconds=self.cpu_seconds(host, pset, pipeline, proc, t),
                                    executes=int(3000 + wave(t, host + proc, 400)))
                        if host == "hf-02" and proc == "aggregator" and t == START + 7 + 30 * 300:
                            line["cpu_seconds"] = 669.899963   # more than 30 s x 2 threads: not CPU in the interval
                        yield line
                        if host == "idx-03" and END - 3600 <= t < END - 3000:
                            yield dict(line)   # the same line indexed twice

    @rows
    def regex_rows(self):
        """metrics.log group=per_sourcetype_regex_cpu per minute: cpu ms per host and sourcetype."""
        for host in HOSTS:
            for st, ms_per_event in SOURCETYPES:
                for t in range(START, END, 60):
                    events = 60 * (1500 + wave(t, host + st, 300))
                    ms = ms_per_event * events
                    if st == "k8s:container" and any(self.hot(host, p) for p in psets(host)):
                        ms += 2 * 30 * 1000 * 0.72 * self.ramp(t)   # the regex CPU the incident adds
                    yield dict(_time=t, host=host, series=st, cpu_ms=round(ms, 1))

    @rows
    def indexer_cpu_rows(self):
        for host in INDEXERS:
            for pset in psets(host):
                for t in range(START, END, 60):
                    w = 9.0 + wave(t, host + pset + "w", 1.5)
                    s = 6.0 + wave(t, host + pset + "s", 1.0)
                    yield dict(_time=t, host=host, ingest_pipe=pset, pct_one_core=round(w + s, 1))

    # ---------------------------------------------------------------- HEC
    def hec_eps(self, host, t):
        base = {"hf-01": 5200.0, "hf-02": 3100.0}.get(host, 1800.0)
        eps = base + wave(t, host + "eps", base * 0.08)
        if self.full(host, t):
            eps *= 0.5   # half the requests reach the full set and are refused
        return eps

    def epr(self, token):
        return {"k8s_logs": 48.0, "app_events": 24.0, "firewall": 95.0}[token]

    def share(self, host, token):
        return {"k8s_logs": 0.6}.get(token, 0.4)

    @rows
    def hec_rows(self):
        """ingest_doctor_hec_counters: per 5 minutes, host, series (instance totals and per token): the sums of
        the minutes _introspection reports. The instance totals count the refused requests as the Monitoring
        Console does: hf-02's malformed events (reply=6 in splunkd.log) are its parser errors; no client sends a
        bad token or to a wrong URL."""
        out = {}
        for r in self._hec_minutes():
            k = (r["_time"] - (r["_time"] - START) % 300, r["host"], r["series"], r["token"])
            if k not in out:
                out[k] = dict(r, _time=k[0])
            else:
                acc = out[k]
                for f, v in r.items():
                    if f not in ("_time", "host", "series", "token"):
                        acc[f] = max(acc[f], v) if f == "waiting_ack" else acc[f] + v
        yield from out.values()

    def _hec_minutes(self):
        """_introspection's HEC counters per minute."""
        malformed = {}
        for r in self.hec_reply_rows():
            if r["reply"] == "6":
                key = (r["host"], r["_time"] - (r["_time"] - START) % 60)
                malformed[key] = malformed.get(key, 0) + 1
        for host in HOSTS:
            for t in range(START, END, 60):
                eps = self.hec_eps(host, t)
                bpe = 700.0 if host in INDEXERS else 820.0
                toks = []
                for tok in TOKENS[host]:
                    ev = round(eps * 60 * self.share(host, tok))
                    toks.append(dict(_time=t, host=host, series="http_event_collector_token", token=tok, events=ev,
                                     requests=round(ev / self.epr(tok)), bytes_in=round(ev * bpe), waiting_ack=0))
                yield dict(_time=t, host=host, series="http_event_collector", token="(all tokens)",
                           events=sum(r["events"] for r in toks), requests=sum(r["requests"] for r in toks),
                           bytes_in=sum(r["bytes_in"] for r in toks), waiting_ack=0,
                           parser_errors=malformed.get((host, t), 0), auth_failures=0, disabled_token=0,
                           incorrect_url=0)
                yield from toks

    @rows
    def hec_reply_rows(self):
        """ingest_doctor_hec_reply_rows: one row per rejected request in splunkd.log."""
        for host in HOSTS:
            for t in range(START, END, 60):
                if self.full(host, t):
                    n = int(90 + wave(t, host + "busy", 30))
                    for i in range(n):
                        yield self._reply(t + (i * 59) // n, host, TOKENS[host][i % 2], "9")
            if host == "hf-02":
                for t in range(START + 400, END, 1700):
                    yield self._reply(t, host, "firewall", "6")

    def _reply(self, t, host, token, code):
        r = self.replies[code]
        return dict(_time=t, host=host, hec_token=token, reply=code, http_status=r["http_status"],
                    meaning=r["meaning"], action=r["action"], reply_label=code + " " + r["meaning"])

    @rows
    def latency_rows(self):
        """mstats perc95(ingest_doctor.hec.latency_ms) BY host span=1m (the collector's probe)."""
        for host in HOSTS:
            for t in range(START, END, 60):
                p95 = 40.0 + wave(t, host + "lat", 6.0)
                if self.full(host, t):
                    p95 = 1400.0 + wave(t, host + "lat503", 200.0)
                yield dict(_time=t, host=host, p95=round(p95, 1))

    @rows
    def health_rows(self):
        """mstats count/avg/max(ingest_doctor.hec.health_rtt_ms) BY host code over the landing page's range."""
        for host in HOSTS:
            codes = {}
            for t in range(HEC_START, END, 60):
                code = "18" if self.full(host, t) else "17"
                codes.setdefault(code, []).append(2.0 + abs(wave(t, host + "rtt", 1.5)))
            for code, vals in codes.items():
                yield dict(host=host, code=code, probes=len(vals), avg_rtt_ms=sum(vals) / len(vals),
                           max_rtt_ms=max(vals))

    @rows
    def lag_rows(self):
        """bin _time span=1m | stats perc95(lag_s) BY _time splunk_server (per receiving indexer)."""
        for server in INDEXERS:
            for t in range(START, END, 60):
                p95 = 2.0 + abs(wave(t, server + "lag", 0.8))
                if self.sat and server == HOT_HOST and self.ramp(t) > 0:
                    p95 += 420.0 * self.ramp(t)
                yield dict(_time=t, splunk_server=server, p95=round(p95, 1))

    # ---------------------------------------------------------------- collector, REST, KV store
    def cores(self, host):
        return 32 if host in INDEXERS else 16

    def splunkd_cpu(self, host):
        """mstats avg(ingest_doctor.splunkd.cpu_pct) over the range, % of one core."""
        extra = 0.0
        if self.sat and host == HOT_HOST:
            extra = 85.0 * sum(self.ramp(t) for t in range(START, END, 60)) / MINUTES
        return 160.0 + wave(0, host + "cpu", 20.0) + extra

    def roles(self, host):
        return "indexer" if host in INDEXERS else None

    def findings(self):
        out = [dict(host="hf-02", bottleneck="hec_input", pipeline_set="-", severity="info", status="resolved",
                    summary="The HEC server data thread reached 93% of one core in one sample (a transient spike).",
                    evidence_text="thread_busy_pct=93 %", advice="No change needed unless it recurs.", settings="",
                    first_seen=END - 30 * 3600, last_seen=END - 30 * 3600, count="1", detected="collector",
                    resolution="resolved after dedicatedIoThreads 2 -> 8")]
        if self.sat:
            out += [
                dict(host=HOT_HOST, bottleneck="typing", pipeline_set=HOT_SET, severity="critical", status="open",
                     summary="Pipeline set 1 is limited by the typing stage: parsing, aggregation and typing queues "
                             "are full, the typing thread is at 99% of one core and index-time regex takes most of it.",
                     evidence_text="queue_fill_pct=100 % (typingQueue); thread_busy_pct=99 %; regex_cpu_share_pct=86 %",
                     advice="Review the TRANSFORMS and SEDCMD of sourcetype k8s:container (the costliest regex CPU).",
                     settings="props.conf [k8s:container] TRANSFORMS-* -> fewer, anchored",
                     first_seen=INCIDENT + 600, last_seen=END - 20, count="17", detected="both", resolution=""),
                dict(host=HOT_HOST, bottleneck="pipeline_set_imbalance", pipeline_set="0", severity="warning",
                     status="open", summary="Pipeline set 1 is saturated while set 0 is 16% busy: the load is not spread.",
                     evidence_text="thread_busy_pct=16 % (set 0); thread_busy_pct=99 % (set 1)",
                     advice="Use pipelineSetSelectionPolicy = weighted_random.",
                     settings="pipelineSetSelectionPolicy -> weighted_random",
                     first_seen=INCIDENT + 1200, last_seen=END - 300, count="9", detected="collector", resolution=""),
                dict(host=HELD_HOST, bottleneck="output", pipeline_set="-", severity="warning", status="open",
                     summary="TcpOutputProc paused the data flow to idx-07 41 times: the output to the indexers is "
                             "blocked again and again. Caused by idx-07 typing, pipeline set 1: a saturated receiver "
                             "drains at a steady rate. Act there, not here.",
                     evidence_text="tcpout_paused=41 lines; receiver_saturated=idx-07/typing/1 finding",
                     advice="Nothing to change on this instance: act on idx-07 typing, pipeline set 1.", settings="",
                     first_seen=INCIDENT + 1500, last_seen=END - 40, count="6", detected="collector", resolution="",
                     caused_by="%s/typing/%s" % (HOT_HOST, HOT_SET),
                     mechanism="its output blocks on %s, which takes data no faster than its bottleneck (%s typing, "
                               "pipeline set %s) lets it through" % (HOT_HOST, HOT_HOST, HOT_SET)),
            ]
        for f in out:
            f.setdefault("caused_by", "")
            f.setdefault("mechanism", "")
            f["id"] = "%s/%s/%s" % (f["host"], f["bottleneck"], f["pipeline_set"])
            parts = f["caused_by"].split("/")
            f["cause"] = "" if not f["caused_by"] else "caused by %s %s%s" % (
                parts[0], parts[1], "" if parts[2] == "-" else ", set " + parts[2])
            f["root"] = f["caused_by"] or f["id"]
            f["evidence_dashboard"] = {"hec_input": "ingest_doctor_hec_performance",
                                       "typing": "ingest_doctor_cpu_by_processor"}.get(
                f["bottleneck"], "ingest_doctor_pipeline_sets")
            f["severity_rank"] = {"critical": 0, "warning": 1}.get(f["severity"], 2)
        return out

    def hec_settings(self):
        # enableSSL as the view's eval words it for both sources (REST 1, the collector's JSON true). The collector
        # runs on every host (its config events); REST reaches the search peers, the indexers.
        rows = [[h, "collector", "2", "0", "0", "8088", "yes", "2", None] for h in HOSTS]
        rows += [[h, "REST", "2", "0", "0", "8088", "yes", "2", None] for h in INDEXERS]
        return sorted(rows, key=lambda r: (r[0], r[1]))

    def pipeline_config(self):
        """Per host: the latest ingest_doctor:config event's config.parallel_ingestion_pipelines and
        config.pipeline_set_selection_policy (server.conf [general], the default round_robin everywhere: hence
        idx-07's imbalance finding), and the status dimension of its latest ingest_doctor.indexer.throttled metric
        (server/introspection/indexer): normal everywhere, idx-07's indexer processor included (its typing
        stage is the bottleneck, not indexing)."""
        return {h: (str(len(psets(h))), "round_robin", "normal") for h in HOSTS}
