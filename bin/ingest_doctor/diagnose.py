"""Evidence + thresholds -> Report: name the stage that limits throughput.

Order of reasoning, per pipeline set:
1. Queues: full when sustained at or over `queue_fill_pct` (REST 10/15-minute
   averages, or the series test on samples/metrics.log medians) or sustained
   `blocked=true`. The bottleneck is the stage draining the LAST full queue.
2. Threads and stage CPU (dutycycle, pipelinesets, /proc, group=pipeline):
   sustained at or over `thread_busy_pct` makes the thread's stage a bottleneck.
3. Symptoms (HEC 503 / reply=9 / health 18-20) go to the downstream bottleneck
   when queues are full; only otherwise are they a `hec_input` finding.
4. Index processor throttled, host CPU exhausted, pipeline-set imbalance, and
   the hidden single-core trap (one core pegged on a many-core host).
A series that crossed a threshold without being sustained gives `info` at most.
"""
from __future__ import annotations

import dataclasses
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple, Union

from . import advice, model
from . import thresholds as thresholds_mod
from .evidence import Evidence
from .findings import EvidenceItem, Finding, Recommendation, Report, severity_rank
from .series import OK, SPIKE, SUSTAINED, Judgement, judge

Key = Tuple[str, Optional[int]]

QUEUE_ORDER: Dict[str, float] = {q: 0.5 for q in model.INPUT_QUEUES}
QUEUE_ORDER.update({s.queue: float(s.order) for s in model.STAGES if s.queue})

SRC_HOSTWIDE = "rest services/server/status/resource-usage/hostwide"
SRC_PROCESSES = "rest services/server/status/resource-usage/splunk-processes"
HEC_BUSY_REPLY = 9
HEC_UNHEALTHY = (18, 19, 20)


def _r(v: float) -> float:
    return round(v, 1)


def _qsrc(q: "QueueState", source: Optional[str] = None) -> str:
    """The evidence source names the queue as that source does (REST title, metrics.log name)."""
    src = source or q.source
    if src.startswith("rest"):
        return "%s %s" % (src, q.queue if q.pipeline_set is None else "%s.%d" % (q.queue, q.pipeline_set))
    return "%s name=%s%s" % (src, q.queue.lower(), "" if q.pipeline_set is None else " ingest_pipe=%d" % q.pipeline_set)


def window_minutes(window: str) -> Optional[float]:
    """'10m' -> 10.0, '900s' -> 15.0; None for 'sample' or anything else."""
    m = re.match(r"^(\d+(?:\.\d+)?)([ms])$", window or "")
    if not m:
        return None
    return float(m.group(1)) / (60.0 if m.group(2) == "s" else 1.0)


def _sustained_words(window: str) -> str:
    minutes = window_minutes(window)
    return "for %d minutes" % minutes if minutes is not None else "(%s)" % window


def _pset_text(pset: Optional[int]) -> str:
    return "" if pset is None else "Pipeline set %d: " % pset


@dataclass
class Draft:
    bottleneck: str
    pipeline_set: Optional[int]
    severity: str = "warning"
    component: Optional[str] = None
    headline: str = ""
    details: List[str] = field(default_factory=list)
    evidence: List[EvidenceItem] = field(default_factory=list)
    recommendations: List[Recommendation] = field(default_factory=list)
    pegged: bool = False        # a thread or stage is pegged at one core (hidden-saturation candidate)
    thread_details: List[str] = field(default_factory=list)
    hidden: str = ""
    skip_more_pipelines: bool = False

    def summary(self) -> str:
        parts = [_pset_text(self.pipeline_set) + self.headline] + self.thread_details
        if self.hidden:
            parts.append(self.hidden)
        return " ".join(parts + self.details).strip()

    def raise_to(self, severity: str) -> None:
        if severity_rank(severity) > severity_rank(self.severity):
            self.severity = severity

    def add(self, item: EvidenceItem) -> None:
        for e in self.evidence:
            if (e.signal, e.source, e.window, str(e.value)) == (item.signal, item.source, item.window, str(item.value)):
                return
        self.evidence.append(item)


@dataclass
class QueueState:
    queue: str
    pipeline_set: Optional[int]
    level: str
    value: float
    window: str
    source: str
    blocked: int = 0            # samples reporting blocked=true
    blocked_source: str = ""


@dataclass
class ThreadState:
    thread: str
    stage: Optional[model.Stage]
    pipeline_set: Optional[int]
    judgement: Judgement
    source: str
    label: str                  # how the summary names it


def _finite(v: Optional[float]) -> bool:
    return v is not None and not (isinstance(v, float) and (math.isnan(v) or math.isinf(v)))


def sanitise(ev: Evidence) -> Tuple[Evidence, int]:
    """A copy without samples whose numbers are NaN or infinite (never mutates the caller's window)."""
    dropped = 0

    def keep(items, *attrs):
        nonlocal dropped
        try:    # fast path: a NaN or an infinity anywhere makes the sum non-finite
            if math.isfinite(sum(getattr(x, a) or 0.0 for x in items for a in attrs)):
                return items
        except (TypeError, OverflowError):
            pass
        out = [x for x in items if all(getattr(x, a) is None or _finite(getattr(x, a)) for a in attrs)]
        dropped += len(items) - len(out)
        return out

    host_cpu = dataclasses.replace(ev.host_cpu, **{
        k: (v if v is None or _finite(v) else None) for k, v in
        (("host_cpu_pct", ev.host_cpu.host_cpu_pct), ("splunkd_cpu_pct", ev.host_cpu.splunkd_cpu_pct))})
    clean = dataclasses.replace(
        ev,
        queues=keep(ev.queues, "fill_pct", "time"), threads=keep(ev.threads, "busy_pct", "time"),
        processors=keep(ev.processors, "cpu_seconds", "interval_s", "time"),
        regex_cpu=keep(ev.regex_cpu, "cpu_ms"), pipelinesets=keep(ev.pipelinesets, "dutycycle_pct", "time"),
        hec_probes=keep(ev.hec_probes, "time"), cpu=keep(ev.cpu, "host_cpu_pct", "splunkd_cpu_pct", "time"),
        thruput=keep(ev.thruput, "kbps"), host_cpu=host_cpu)
    return clean, dropped


class Diagnosis:
    def __init__(self, ev: Evidence, th: thresholds_mod.Thresholds):
        ev, dropped = sanitise(ev)
        self.ev = ev
        self.th = th
        self.host = ev.host
        self.drafts: Dict[Key, Draft] = {}
        self.not_judged: List[str] = []
        if dropped:
            self.not_judged.append("%d samples with a non-numeric value (NaN or infinite) were ignored" % dropped)

    # ------------------------------------------------------------------ helpers
    def draft(self, bottleneck: str, pset: Optional[int]) -> Draft:
        key = (bottleneck, pset)
        if key not in self.drafts:
            self.drafts[key] = Draft(bottleneck, pset)
        return self.drafts[key]

    def cores(self) -> Optional[int]:
        if self.ev.host_cpu.cores:
            return self.ev.host_cpu.cores
        for c in reversed(self.ev.cpu):
            if c.cores:
                return c.cores
        return None

    def host_cpu(self) -> Tuple[Optional[float], Optional[Judgement]]:
        pts = [(c.time, c.host_cpu_pct) for c in self.ev.cpu if c.host_cpu_pct is not None]
        if not pts:
            return self.ev.host_cpu.host_cpu_pct, None
        j = judge(pts, self.th.host_cpu_pct, self.th)
        if all(t is None for t, _ in pts):
            # A snapshot read once: its reading is the current state.
            latest = pts[-1][1]
            j = Judgement(SUSTAINED if latest >= self.th.host_cpu_pct else OK, latest, latest, "sample", 1)
        return pts[-1][1], j

    def _cpu_source(self) -> str:
        if self.ev.cpu and self.ev.cpu[-1].time is not None and "proc" in self.ev.sources:
            return self.ev.cpu[-1].source
        return SRC_HOSTWIDE if "services/server/status/resource-usage/hostwide" in self.ev.sources else \
            (self.ev.cpu[-1].source if self.ev.cpu else "")

    def headroom(self) -> Optional[bool]:
        latest, j = self.host_cpu()
        if latest is None:
            return None
        if j is not None and j.level == SUSTAINED and j.value >= self.th.host_cpu_pct:
            return False
        if latest >= self.th.host_cpu_pct:
            return False
        return latest < self.th.cpu_headroom_pct

    # ------------------------------------------------------------------ queues
    def queue_states(self) -> List[QueueState]:
        series: Dict[Tuple[str, Optional[int]], List] = defaultdict(list)
        avgs: Dict[Tuple[str, Optional[int]], Dict[str, Tuple[Optional[float], float, str]]] = defaultdict(dict)
        blocked: Dict[Tuple[str, Optional[int]], List] = defaultdict(list)
        sources: Dict[Tuple[str, Optional[int]], str] = {}
        bsources: Dict[Tuple[str, Optional[int]], str] = {}
        for q in self.ev.queues:
            if q.queue not in QUEUE_ORDER:
                continue
            key = (q.queue, q.pipeline_set)
            if q.window == "sample":
                series[key].append((q.time, q.fill_pct))
                blocked[key].append((q.time, 100.0 if q.blocked else 0.0))
                sources.setdefault(key, q.source)
                if q.blocked:
                    bsources.setdefault(key, q.source)
            elif (window_minutes(q.window) or 0) >= self.th.sustained_window_min:
                prev = avgs[key].get(q.window)
                if prev is None or (q.time or 0) >= (prev[0] or 0):
                    avgs[key][q.window] = (q.time, q.fill_pct, q.source)
        out = []
        thr = self.th.queue_fill_pct
        for key in set(series) | set(avgs):
            queue, pset = key
            best: Optional[QueueState] = None
            for window, (_, value, src) in sorted(avgs.get(key, {}).items()):
                if value >= thr and (best is None or value > best.value):
                    best = QueueState(queue, pset, SUSTAINED, value, window + " average", src)
            j = judge(series.get(key, []), thr, self.th, use_median=True)
            bj = judge(blocked.get(key, []), 100.0, self.th)
            nblocked = sum(1 for _, v in blocked.get(key, []) if v)
            src = sources.get(key, "")
            if best is None and j.level == SUSTAINED:
                best = QueueState(queue, pset, SUSTAINED, j.value, j.window, src)
            if bj.level == SUSTAINED:
                if best is None:
                    best = QueueState(queue, pset, SUSTAINED, max(j.value, thr), "blocked " + bj.window, src)
                best.blocked = nblocked
                best.blocked_source = bsources.get(key, src)
            if best is None:
                level = SPIKE if (j.level == SPIKE or bj.level == SPIKE) else OK
                window = j.window
                value = j.peak if level == SPIKE else j.value
                if not series.get(key):
                    vals = list(avgs.get(key, {}).values())
                    value = max(v for _, v, _ in vals) if vals else 0.0
                    window = "15m average"
                    src = vals[0][2] if vals else src
                best = QueueState(queue, pset, level, value, window, src, nblocked)
            out.append(best)
        return out

    def localise_queues(self, states: List[QueueState]) -> None:
        by_pset: Dict[Optional[int], List[QueueState]] = defaultdict(list)
        for s in states:
            by_pset[s.pipeline_set].append(s)
        for pset, qs in sorted(by_pset.items(), key=lambda x: -1 if x[0] is None else x[0]):
            full = sorted([q for q in qs if q.level == SUSTAINED], key=lambda q: QUEUE_ORDER[q.queue])
            if not full:
                for q in qs:
                    if q.level == SPIKE:
                        stage = model.stage_draining(q.queue)
                        if stage:
                            d = self.draft(stage.name, pset)
                            d.severity = d.severity if d.headline else "info"
                            if not d.headline:
                                d.headline = ("%s reached %.0f%% full once (%s) but did not stay full: a transient "
                                              "spike, not a bottleneck." % (q.queue, q.value, q.window))
                                d.component = q.queue
                            d.add(EvidenceItem("queue_fill_pct", _r(q.value), "%", q.window, _qsrc(q)))
                continue
            last = full[-1]
            stage = model.stage_draining(last.queue)
            if stage is None:
                continue
            d = self.draft(stage.name, pset)
            d.severity = "critical" if any(q.blocked for q in full) else "warning"
            d.component = last.queue
            upstream = [q.queue for q in full[:-1]]
            d.headline = ("%s is full (%.0f%%, %s)%s: the %s stage that drains it limits throughput."
                          % (last.queue, last.value, last.window,
                             " and %s behind it back up" % ", ".join(upstream) if upstream else "",
                             stage.name))
            for q in full:
                d.add(EvidenceItem("queue_fill_pct", _r(q.value), "%", q.window.replace(" average", ""), _qsrc(q)))
                if q.blocked:
                    d.add(EvidenceItem("queue_blocked", q.blocked, "samples", "window",
                                       _qsrc(q, q.blocked_source)))
            downstream = sorted((q for q in qs if QUEUE_ORDER[q.queue] > QUEUE_ORDER[last.queue]),
                                key=lambda q: QUEUE_ORDER[q.queue])
            if downstream:
                nxt = downstream[0]
                d.details.append("%s after it is only %.0f%% full." % (nxt.queue, nxt.value))
                d.add(EvidenceItem("queue_fill_pct", _r(nxt.value), "%", nxt.window.replace(" average", ""),
                                   _qsrc(nxt)))
            self._chain_pset[pset] = stage.name

    # ------------------------------------------------------------------ threads and stage CPU
    def thread_states(self) -> List[ThreadState]:
        series: Dict[Tuple[str, Optional[int]], List] = defaultdict(list)
        averages: Dict[Tuple[str, Optional[int]], Tuple[float, str]] = {}
        sources: Dict[Tuple[str, Optional[int]], str] = {}
        for t in self.ev.threads:
            key = (t.thread.lower(), t.pipeline_set)
            sources.setdefault(key, t.source)
            minutes = window_minutes(t.window)
            if minutes is not None and minutes >= self.th.sustained_window_min:
                # An average over the sustained window (e.g. an alert row) is sustained evidence on its own.
                if key not in averages or t.busy_pct > averages[key][0]:
                    averages[key] = (t.busy_pct, t.window)
                continue
            series[key].append((t.time, t.busy_pct))
        for p in self.ev.pipelinesets:
            if not p.busiest_thread:
                continue
            key = (p.busiest_thread.lower(), None if self._single_pset else p.pipeline_set)
            series[key].append((p.time, p.dutycycle_pct))
            sources.setdefault(key, p.source)
        out = []
        for key in set(series) | set(averages):
            thread, pset = key
            j = judge(series.get(key, []), self.th.thread_busy_pct, self.th)
            avg = averages.get(key)
            if avg and j.level != SUSTAINED and avg[0] >= self.th.thread_busy_pct:
                j = Judgement(SUSTAINED, avg[0], max(avg[0], j.peak), "%s average" % avg[1], 1)
            elif avg and j.level == OK and not series.get(key):
                j = Judgement(OK, avg[0], avg[0], "%s average" % avg[1], 1)
            label = ("HEC server data thread (%s)" % thread if thread == model.HEC_THREAD
                     else "thread %s" % thread)
            out.append(ThreadState(thread, model.stage_for_thread(thread), pset, j, sources[key], label))
        # Stage CPU from group=pipeline: the sum of a pipeline's processors is the CPU of its thread.
        cpu: Dict[Tuple[str, Optional[int]], Dict[Optional[float], float]] = defaultdict(lambda: defaultdict(float))
        src: Dict[Tuple[str, Optional[int]], str] = {}
        for p in self.ev.processors:
            if p.interval_s <= 0:
                continue
            key = (p.pipeline, p.pipeline_set)
            cpu[key][p.time] += p.cpu_seconds / p.interval_s * 100.0
            src.setdefault(key, p.source)
        for (pipeline, pset), by_time in cpu.items():
            stage = model.stage_for_pipeline(pipeline)
            if stage is None:
                continue
            pts = sorted(by_time.items(), key=lambda x: (x[0] is None, x[0] or 0))
            j = judge(pts, self.th.thread_busy_pct, self.th)
            out.append(ThreadState(pipeline, stage, pset, j, src[(pipeline, pset)], "%s pipeline" % pipeline))
        return out

    def judge_threads(self, states: List[ThreadState]) -> None:
        queues_full = bool(self._chain_pset)
        for s in sorted(states, key=lambda s: -s.judgement.value):
            j = s.judgement
            if j.level == OK:
                continue
            if s.stage is None:
                if j.level == SUSTAINED:
                    self.not_judged.append(
                        "thread %s is busy %.0f%% of one core (%s) but is not part of the ingestion pipeline: "
                        "not judged" % (s.thread, j.value, j.window))
                continue
            stage = s.stage
            pset = None if stage.name == "hec_input" else s.pipeline_set
            item = EvidenceItem("thread_busy_pct" if "pipeline" not in s.label else "stage_cpu_pct",
                                _r(j.value), "%", j.window,
                                "%s %s=%s" % (s.source, "name" if "pipeline" in s.label else "thread", s.thread))
            if stage.name == "hec_input" and queues_full and j.level == SUSTAINED:
                # HEC waits on full queues downstream: a symptom, attributed to the bottleneck.
                for bpset, bstage in self._chain_pset.items():
                    d = self.draft(bstage, bpset)
                    d.add(item)
                    d.details.append("The HEC thread is busy too (%.0f%%), waiting on the full queues." % j.value)
                continue
            if j.level == SPIKE:
                d = self.draft(stage.name, pset)
                if not d.headline:
                    d.severity = "info"
                    d.component = s.thread
                    d.headline = ("The %s reached %.0f%% of one core in one sample but did not stay there: a "
                                  "transient spike, not a bottleneck." % (s.label, j.peak))
                    d.add(item)
                continue
            d = self.draft(stage.name, pset)
            d.pegged = True
            d.raise_to("warning")
            if not d.headline or d.headline.endswith("not a bottleneck."):
                d.headline = ("The %s is busy %.0f%% of one core, sustained %s: the %s stage is saturated."
                              % (s.label, j.value, _sustained_words(j.window),
                                 "HEC input" if stage.name == "hec_input" else stage.name))
                d.component = s.thread
            else:
                d.thread_details.append("The %s is busy %.0f%% of one core %s."
                                        % (s.label, j.value, _sustained_words(j.window)))
            if stage.name != "hec_input" and d.component and "Queue" in d.component:
                d.component = s.thread
            d.add(item)

    # ------------------------------------------------------------------ HEC symptoms
    def hec_symptoms(self) -> None:
        errs = [e for e in self.ev.hec_errors if e.reply == HEC_BUSY_REPLY]
        probes = [p for p in self.ev.hec_probes if p.kind == "health"]
        pts = [(p.time, 100.0 if (p.code in HEC_UNHEALTHY or p.status == 503) else 0.0) for p in probes]
        pj = judge(pts, 100.0, self.th)
        codes = sorted({p.code for p in probes if p.code in HEC_UNHEALTHY})
        listener = [s for s in self.ev.log_signals if s.kind == "hec_listener_overwhelmed"]
        busy = len(errs) >= self.th.hec_busy_replies
        items: List[EvidenceItem] = []
        if errs:
            items.append(EvidenceItem("hec_reply_9_server_busy", len(errs), "errors", "window", errs[0].source))
        if codes:
            items.append(EvidenceItem("hec_health_code", codes[-1], "code",
                                      pj.window if pj.level == SUSTAINED else "sample", probes[0].source))
        if listener:
            items.append(EvidenceItem("hec_listener_overwhelmed", len(listener), "lines", "window",
                                      listener[0].source))
        if not items:
            return
        sustained_symptom = busy or pj.level == SUSTAINED
        if self._chain_pset and (sustained_symptom or codes or listener):
            # Requests pile up in front of full queues: HEC's refusals are this stage's symptom.
            words = self._hec_words(len(errs), codes) + (
                ["the HTTP listener refused requests %d times" % len(listener)] if listener else [])
            for pset, stage in self._chain_pset.items():
                d = self.draft(stage, pset)
                for it in items:
                    d.add(it)
                d.raise_to("critical")
                d.details.append("HEC answers 503 (%s): a symptom of this full stage, not of the HEC input."
                                 % ", ".join(words))
            return
        hec = self.drafts.get(("hec_input", None))
        if hec is not None and hec.severity != "info":
            for it in items:
                hec.add(it)
            if sustained_symptom:
                hec.raise_to("critical")
                hec.details.append("HEC already answers 503 (%s)." % ", ".join(self._hec_words(len(errs), codes)))
        elif sustained_symptom or listener:
            d = self.draft("hec_input", None)
            d.severity = "warning"
            d.component = "httpinputserverdatathread" if not listener else "HttpListener"
            words = self._hec_words(len(errs), codes)
            if listener:
                words.append("the HTTP listener refused requests %d times" % len(listener))
            if self._has_queue_data:
                where = "while the pipeline queues drain normally"
            else:
                where = "and no queue data was available to tell which stage is behind it"
            d.headline = "HEC is rejecting requests (%s) %s." % (", ".join(words), where)
            for it in items:
                d.add(it)
        elif items:
            d = self.draft("hec_input", None)
            if not d.headline:
                d.severity = "info"
                d.component = "httpinputserverdatathread"
                d.headline = "HEC reported unhealthy once (%s) but not sustained." % ", ".join(
                    self._hec_words(len(errs), codes))
                for it in items:
                    d.add(it)

    def hec_latency(self) -> None:
        """The collector's probes: a round trip sustained over `hec_latency_ms` (HEC or what is behind it)."""
        timed = [p for p in self.ev.hec_probes if p.rtt_ms is not None]
        # A POSTed event is the request latency; the health probe only stands in when no event probe ran,
        # and mixing the two would let fast health probes hide slow requests.
        timed = [p for p in timed if p.kind == "event"] or timed
        if not timed:
            return
        pts = [(p.time, p.rtt_ms) for p in timed]
        j = judge(pts, self.th.hec_latency_ms, self.th, use_median=True)
        if j.level == OK:
            return
        src = timed[0].source
        item = EvidenceItem("hec_latency_ms", _r(j.value), "ms", j.window, src)
        if self._chain_pset and j.level == SUSTAINED:
            for pset, stage in self._chain_pset.items():
                d = self.drafts.get((stage, pset))
                if d is not None:
                    d.add(item)
            return
        d = self.draft("hec_input", None)
        d.add(item)
        if j.level == SUSTAINED:
            d.raise_to("warning")
            text = "HEC requests take %.0f ms (%s), over %.0f ms." % (j.value, j.window, self.th.hec_latency_ms)
            if not d.headline or d.headline.endswith("not sustained.") or d.severity == "info":
                d.headline = text
                d.component = d.component or "httpinputserverdatathread"
            else:
                d.details.append(text)
        elif not d.headline:
            d.severity = "info"
            d.component = "httpinputserverdatathread"
            d.headline = "One HEC probe took %.0f ms, but not sustained." % j.peak

    @staticmethod
    def _hec_words(nerr: int, codes: List[int]) -> List[str]:
        words = []
        if nerr:
            words.append("%d reply=9 \"Server is busy\" errors" % nerr)
        if codes:
            words.append("health code%s %s" % ("s" if len(codes) > 1 else "", "/".join(str(c) for c in codes)))
        return words

    # ------------------------------------------------------------------ splunkd.log symptoms of blocked flow
    def log_symptoms(self) -> None:
        paused = [x for x in self.ev.log_signals if x.kind == "tcpout_blocked"]
        stopped = [x for x in self.ev.log_signals if x.kind == "tcpin_stopped"]
        if paused:
            item = EvidenceItem("tcpout_paused_messages", len(paused), "lines", "window", paused[0].source)
            outs = [d for (b, _), d in self.drafts.items() if b == "output" and d.severity != "info"]
            for d in outs:
                d.add(item)
                d.details.append("TcpOutputProc paused the data flow %d time%s." % (len(paused),
                                                                                  "" if len(paused) == 1 else "s"))
            if not outs:
                d = self.draft("output", None)
                if not self._has_queue_data and len(paused) >= self.th.sustained_samples:
                    d.severity = "warning"
                    d.headline = ("TcpOutputProc paused the data flow %d times: the output to the indexers is "
                                  "blocked (no queue data was available to confirm it)." % len(paused))
                elif not d.headline:
                    d.severity = "info"
                    d.headline = ("TcpOutputProc paused the data flow %d time%s, but the queues drain: a passing "
                                  "output stall." % (len(paused), "" if len(paused) == 1 else "s"))
                d.component = d.component or "tcpout"
                d.add(item)
        if stopped:
            for pset, stage in self._chain_pset.items():
                d = self.drafts.get((stage, pset))
                if d is None:
                    continue
                d.add(EvidenceItem("tcpin_stopped_messages", len(stopped), "lines", "window", stopped[0].source))
                d.details.append("splunkd closed its receiving ports %d time%s because the queues stayed blocked."
                                 % (len(stopped), "" if len(stopped) == 1 else "s"))

    # ------------------------------------------------------------------ index processor
    def indexer(self) -> None:
        st = self.ev.indexer
        paused = [s for s in self.ev.log_signals if s.kind == "index_paused"]
        if (st is None or st.status in ("normal", "unknown")) and not paused:
            return
        d = self.draft("indexer_throttled", None)
        d.severity = "critical"
        d.component = "indexer"
        reason = st.reason if st and st.reason else (paused[-1].message if paused else "")
        status = st.status if st and st.status not in ("normal", "unknown") else "paused"
        d.headline = "The index processor is %s%s: indexing has paused, so every queue in front of it fills." % (
            status, " (%s)" % reason if reason else "")
        if st and st.status not in ("normal", "unknown"):
            d.add(EvidenceItem("indexer_status", st.status, "", "sample", st.source))
        if paused:
            d.add(EvidenceItem("index_paused_messages", len(paused), "lines", "window", paused[0].source))
        d.recommendations.extend(advice.indexer_throttled(reason))
        # Full queues in front of a throttled indexer are its symptom, not a second finding.
        for key in [k for k in self.drafts if k[0] == "indexing"]:
            sym = self.drafts.pop(key)
            for it in sym.evidence:
                d.add(it)
            d.details.extend(x for x in sym.details if "HEC" in x)

    # ------------------------------------------------------------------ host CPU, imbalance, hidden saturation
    def host_cpu_rule(self) -> None:
        latest, j = self.host_cpu()
        if latest is None or j is None:
            return
        thr = self.th.host_cpu_pct
        if j.level == SUSTAINED:
            d = self.draft("host_cpu", None)
            d.severity = "warning"
            d.component = "host"
            d.headline = "The host's CPU is %.0f%% busy (%s): there is no headroom, so more pipeline sets or " \
                         "threads will not help." % (j.value, j.window)
            d.add(EvidenceItem("host_cpu_pct", _r(j.value), "%", j.window, self._cpu_source()))
            d.recommendations.extend(advice.host_cpu())
        elif j.level == SPIKE and latest is not None and j.peak >= thr:
            d = self.draft("host_cpu", None)
            if not d.headline:
                d.severity = "info"
                d.component = "host"
                d.headline = "The host's CPU reached %.0f%% once but did not stay there." % j.peak
                d.add(EvidenceItem("host_cpu_pct", _r(j.peak), "%", "sample", self._cpu_source()))

    def imbalance(self, qstates: List[QueueState]) -> None:
        psets = sorted({p for p in
                        [q.pipeline_set for q in self.ev.queues] + [p.pipeline_set for p in self.ev.pipelinesets]
                        + [t.pipeline_set for t in self.ev.threads] if p is not None})
        if len(psets) < 2:
            return
        saturated = sorted({k[1] for k, d in self.drafts.items()
                            if k[1] is not None and d.severity in ("warning", "critical")})
        if not saturated:
            return
        load: Dict[int, List[float]] = defaultdict(list)
        load_src: Dict[int, str] = {}
        for p in self.ev.pipelinesets:
            load[p.pipeline_set].append(p.dutycycle_pct)
            load_src.setdefault(p.pipeline_set, "%s ingest_pipe=%d" % (p.source, p.pipeline_set))
        fill: Dict[int, float] = defaultdict(float)
        for q in qstates:
            if q.pipeline_set is not None:
                fill[q.pipeline_set] = max(fill[q.pipeline_set], q.value)
        idle = []
        for p in psets:
            if p in saturated:
                continue
            if load.get(p):
                vals = sorted(load[p])
                busy = vals[len(vals) // 2]
            elif p in fill:
                busy = fill[p]
            else:
                continue
            if busy < self.th.imbalance_idle_pct:
                idle.append((p, busy))
        if not idle:
            return
        d = self.draft("pipeline_set_imbalance", None)
        d.severity = "warning"
        d.component = "pipelineSetSelectionPolicy"
        d.headline = ("Pipeline set%s %s %s saturated while %s stay%s nearly idle (under %.0f%%): the load is not "
                      "spread over the %d pipeline sets."
                      % ("s" if len(saturated) > 1 else "", ", ".join(str(s) for s in saturated),
                         "are" if len(saturated) > 1 else "is",
                         ", ".join("set %d" % p for p, _ in idle), "" if len(idle) > 1 else "s",
                         self.th.imbalance_idle_pct, len(psets)))
        for p, busy in idle:
            d.add(EvidenceItem("pipeline_set_busy_pct", _r(busy), "%", "median" if p in load_src else "max fill",
                               load_src.get(p, "queue fill, pipeline set %d" % p)))
        d.recommendations.extend(advice.imbalance(self.ev))

    def hidden_saturation(self) -> None:
        cores = self.cores()
        splunkd = self.ev.host_cpu.splunkd_cpu_pct
        if not cores or cores < 2:
            return
        if splunkd is None:
            return
        share = splunkd / cores
        if share >= self.th.hidden_saturation_cpu_pct:
            return
        busy_cores = int(round(splunkd / 100.0))
        for d in self.drafts.values():
            if d.pegged and d.severity in ("warning", "critical"):
                if busy_cores <= 1:
                    d.hidden = ("splunkd uses about %.0f%% of %d cores, which is one core pegged: the host looks "
                                "idle while this single thread is the ceiling." % (share, cores))
                else:
                    d.hidden = ("splunkd uses about %.0f%% of %d cores (about %d cores' worth), yet one thread is "
                                "pegged at a full core: the host looks idle while this single thread is the "
                                "ceiling." % (share, cores, busy_cores))
                d.add(EvidenceItem("splunkd_cpu_pct_of_host", _r(share), "%", "sample", SRC_PROCESSES))

    # ------------------------------------------------------------------ advice
    def advise(self) -> None:
        headroom = self.headroom()
        cores = self.cores()
        listener = any(s.kind == "hec_listener_overwhelmed" for s in self.ev.log_signals)
        imbalanced = ("pipeline_set_imbalance", None) in self.drafts
        for (bottleneck, pset), d in self.drafts.items():
            if d.severity == "info" or d.recommendations:
                continue
            # With idle sets beside a saturated one, another set adds nothing: spread the load instead.
            more = not (imbalanced and pset is not None)
            if bottleneck == "hec_input":
                recs, raised = advice.hec_input(self.ev, cores, listener)
                d.recommendations.extend(recs)
                if raised and d.pegged:
                    d.details.append("dedicatedIoThreads is already %d: one more instance behind a load balancer "
                                     "adds capacity, more threads on this one barely do."
                                     % self.ev.config.dedicated_io_threads)
            elif bottleneck == "typing":
                share = self.regex_share(pset)
                recs, named = advice.typing_regex(self.ev, pset)
                if share is not None:
                    d.add(EvidenceItem("regex_cpu_share_pct", _r(share), "%", "window",
                                       "logs/metrics.log group=pipeline name=typing"))
                    if share >= self.th.regex_cpu_share_pct:
                        d.details.append("Index-time regex (regexreplacement) takes %.0f%% of the typing CPU%s."
                                         % (share, "; busiest sourcetypes: " + ", ".join(named) if named else ""))
                for st, cpu in advice.regex_sourcetypes(self.ev, pset)[:advice.MAX_SOURCETYPES]:
                    d.add(EvidenceItem("regex_cpu", _r(cpu), "ms", "window",
                                       "logs/metrics.log group=per_sourcetype_regex_cpu series=%s" % st))
                d.recommendations.extend(recs)
                if more:
                    d.recommendations.extend(advice.more_pipelines(self.ev, headroom, "typing"))
            elif bottleneck in ("merging", "parsing"):
                if bottleneck == "merging":
                    recs, named = advice.line_merging(self.ev, pset, bottleneck)
                    what = "line-merging/timestamp defaults"
                else:
                    recs, named = advice.line_breaking(self.ev, pset)
                    what = "the default line breaking"
                if named:
                    d.details.append("Busy sourcetypes on %s: %s." % (what, ", ".join(named)))
                d.recommendations.extend(recs)
                if more:
                    d.recommendations.extend(advice.more_pipelines(self.ev, headroom, bottleneck))
            elif bottleneck == "indexing":
                d.recommendations.extend(advice.indexing(self.ev, headroom, more))
                latest, _ = self.host_cpu()
                if latest is not None:
                    d.add(EvidenceItem("host_cpu_pct", _r(latest), "%", "sample",
                                       self._cpu_source()))
                    d.details.append("Host CPU is %.0f%%: %s." % (
                        latest, "there is headroom for another pipeline set" if headroom
                        else "no headroom, more pipeline sets will not help" if headroom is False
                        else "some headroom"))
            elif bottleneck == "output":
                d.recommendations.extend(advice.output(self.ev))

    def regex_share(self, pset: Optional[int]) -> Optional[float]:
        total = regex = 0.0
        for p in self.ev.processors:
            if p.pipeline != "typing" or (pset is not None and p.pipeline_set not in (None, pset)):
                continue
            total += p.cpu_seconds
            if p.processor == "regexreplacement":
                regex += p.cpu_seconds
        if total <= 0:
            return None
        return regex / total * 100.0

    # ------------------------------------------------------------------ not judged
    def missing(self) -> None:
        ev = self.ev
        seen = set(ev.sources)
        has_threads = bool(ev.threads or ev.pipelinesets or ev.processors)
        has_queues = bool(ev.queues)
        nj = self.not_judged
        for p in ev.problems:
            nj.append("%s; its data was not judged" % p)
        if not seen and not ev.queues and not ev.threads:
            nj.insert(0, "no evidence could be read: nothing was judged")
        if not has_queues:
            nj.append("no queue data (services/server/introspection/queues, metrics.log group=queue): "
                      "queue-chain localisation not judged")
        if not has_threads:
            nj.append("no thread data (metrics.log group=dutycycle/pipeline, services/server/pipelinesets, "
                      "/proc): thread saturation not judged")
        if ev.indexer is None and "logs/splunkd.log" not in seen:
            nj.append("no services/server/introspection/indexer: index processor throttling not judged")
        if not self.cores() or ev.host_cpu.host_cpu_pct is None:
            nj.append("host CPU or core count unknown (services/server/status/resource-usage/hostwide, "
                      "services/server/info): CPU headroom and host CPU exhaustion not judged")
        if ev.host_cpu.splunkd_cpu_pct is None:
            nj.append("splunkd CPU unknown (services/server/status/resource-usage/splunk-processes): hidden "
                      "single-core saturation not judged")
        if not ev.hec_probes and not ev.hec_errors and "logs/splunkd.log" not in seen:
            nj.append("no HEC health probes (hec/health.json) or splunkd.log: HEC 503 symptoms not judged")
        need_cfg = {
            "hec_input": ("services/data/inputs/http", "HEC settings (dedicatedIoThreads, maxThreads)"),
            "typing": ("services/configs/conf-props", "props.conf settings of the sourcetypes"),
            "merging": ("services/configs/conf-props", "props.conf settings of the sourcetypes"),
            "parsing": ("services/configs/conf-props", "props.conf settings of the sourcetypes"),
            "indexing": ("services/configs/conf-server/general", "parallelIngestionPipelines"),
            "output": ("services/configs/conf-outputs/tcpout", "outputs.conf [tcpout] settings"),
            "pipeline_set_imbalance": ("services/configs/conf-server/general", "pipelineSetSelectionPolicy"),
        }
        for (bottleneck, _), d in self.drafts.items():
            need = need_cfg.get(bottleneck)
            if need and d.severity != "info" and need[0] not in seen:
                msg = "no %s: the %s recommendation cannot show the current %s" % (need[0], bottleneck, need[1])
                if msg not in nj:
                    nj.append(msg)

    # ------------------------------------------------------------------ run
    def normalise_pipeline_sets(self) -> None:
        """One pipeline set: REST pipelinesets still says ingest_pipe_0 while queues and metrics.log carry
        no set number; judge all of it as the single set (None)."""
        ev = self.ev
        numbered = {q.pipeline_set for q in ev.queues} | {t.pipeline_set for t in ev.threads} | \
            {p.pipeline_set for p in ev.processors}
        numbered.discard(None)
        sets = {p.pipeline_set for p in ev.pipelinesets}
        single = ev.config.parallel_ingestion_pipelines == 1 or (not numbered and sets <= {0})
        self._single_pset = single

    def run(self) -> Report:
        self.normalise_pipeline_sets()
        self._chain_pset: Dict[Optional[int], str] = {}
        self._has_queue_data = bool(self.ev.queues)
        qstates = self.queue_states()
        self.localise_queues(qstates)
        self.judge_threads(self.thread_states())
        self.hec_symptoms()
        self.hec_latency()
        self.log_symptoms()
        self.indexer()
        self.host_cpu_rule()
        self.imbalance(qstates)
        self.hidden_saturation()
        self.advise()
        self.missing()
        findings = []
        for d in self.drafts.values():
            summary = d.summary()
            findings.append(Finding(d.bottleneck, d.severity, self.host, d.pipeline_set, d.component, summary,
                                    d.evidence, d.recommendations))
        order = {s.name: s.order for s in model.STAGES}
        findings.sort(key=lambda f: (-severity_rank(f.severity), order.get(f.bottleneck, 9),
                                     -1 if f.pipeline_set is None else f.pipeline_set))
        not_judged = list(self.ev.not_judged)
        for n in self.not_judged:
            if n not in not_judged:
                not_judged.append(n)
        return Report(self.host, findings, not_judged)


ThresholdsArg = Union[None, thresholds_mod.Thresholds, Mapping[str, object]]


def _thresholds(t: ThresholdsArg) -> thresholds_mod.Thresholds:
    if t is None:
        return thresholds_mod.defaults()
    if isinstance(t, thresholds_mod.Thresholds):
        return t
    return thresholds_mod.load(t)


def diagnose(evidence: Evidence, thresholds: ThresholdsArg = None) -> Report:
    """Judge one instance's evidence. Never raises on odd data; thresholds may be
    a Thresholds, a mapping of overrides (setting or macro names), or None."""
    return Diagnosis(evidence, _thresholds(thresholds)).run()
