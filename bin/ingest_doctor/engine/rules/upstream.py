"""Splunk is not the bottleneck: data arrives late while every Splunk stage is idle.

Late is metrics.log per_*_thruput `avg_age` (seconds between an event's
timestamp and its indexing, `_indextime - _time`) sustained at or over
`data_age_s`. When every measured queue and pipeline thread is under
`imbalance_idle_pct` (the app's "nearly idle") and HEC answers under
`hec_latency_ms`, the time is lost before Splunk: in the sender.

The contract's bottleneck values are all Splunk stages, so this is an `info`
finding on `hec_input` (where data enters) with component `sender`: it keeps
`healthy` true, warns on no Splunk stage, and its recommendations are checks on
the client side, never a Splunk setting. When the stages are busy but not
saturated, or were not measured, it says that the evidence cannot decide.
"""
from __future__ import annotations

from typing import List, Optional

from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem, Recommendation
from ingest_doctor.engine.series import SUSTAINED, judge
from ingest_doctor.engine.rules.state import THREAD, State, r1


SENDER = "sender"
AGE_SOURCE = "logs/metrics.log group=per_sourcetype_thruput avg_age"

CHECKS = (
    "On the sender: check whether its CPU is throttled (a container or cgroup CPU limit, steal time); a sender "
    "that cannot keep up stamps events long before it sends them. This is not a Splunk setting.",
    "On the sender: check how many threads or connections send; one sending thread serialises every request "
    "behind the previous round trip. Send in parallel (several workers or HEC channels). This is not a Splunk "
    "setting.",
    "On the sender: check its batching (flush interval, batch size, retries with backoff); events wait in its "
    "buffer until a batch is sent. This is not a Splunk setting.",
    "If the age is the same to the second on every event, compare the sender's clock and time zone with the "
    "indexer's first: a skewed timestamp looks like a delay. This is not a Splunk setting.",
)


def _age(st: State):
    pts = [(t.time, t.age_s) for t in st.ev.thruput if t.kind != "thruput" and t.age_s is not None]
    return judge(pts, st.th.data_age_s, st.th, use_median=True) if pts else None


def _busiest_queue(st: State) -> Optional[float]:
    return max((q.value for q in st.queues), default=None)


def _busiest_thread(st: State) -> Optional[float]:
    vals = [t.judgement.peak for t in st.threads if t.kind == THREAD or not
            any(o.kind == THREAD and o.stage is t.stage and o.pipeline_set == t.pipeline_set for o in st.threads)]
    return max(vals, default=None)


def _hec_ms(st: State) -> Optional[float]:
    timed = [p for p in st.ev.hec_probes if p.rtt_ms is not None]
    timed = [p for p in timed if p.kind == "event"] or timed
    if not timed:
        return None
    return judge([(p.time, p.rtt_ms) for p in timed], st.th.hec_latency_ms, st.th, use_median=True).value


def run(st: State) -> None:
    age = _age(st)
    if age is None or age.level != SUSTAINED:
        return
    if any(d.severity != "info" for d in st.drafts.values()):
        return      # a Splunk stage is saturated: its finding explains the delay
    idle = st.th.imbalance_idle_pct
    q, t, hec = _busiest_queue(st), _busiest_thread(st), _hec_ms(st)
    age_item = EvidenceItem("data_age_s", r1(age.value), "s", age.window, AGE_SOURCE)
    if q is None and t is None:
        st.note("events are indexed %.0f s after their timestamp (avg_age, %s), but no queue or thread was "
                "measured: whether Splunk or the sender holds them is not judged (metrics.log group=queue and "
                "group=dutycycle would decide it)" % (age.value, age.window))
        return
    d = st.draft(model.HEC_INPUT, None)
    if d.headline:
        return      # a passing HEC symptom already reported: do not stack a second story on it
    d.severity = "info"
    d.component = SENDER
    d.add(age_item)
    busy: List[str] = []
    measured = ((q, "queue_fill_pct_max", "%", "logs/metrics.log group=queue", idle, "a queue %.0f%% full"),
                (t, "thread_busy_pct_max", "%", "logs/metrics.log group=dutycycle", idle, "a thread %.0f%% busy"),
                (hec, "hec_latency_ms", "ms", "hec/health.json", st.th.hec_latency_ms, "HEC answering in %.0f ms"))
    for value, signal, unit, source, busy_at, words in measured:
        if value is not None:
            d.add(EvidenceItem(signal, r1(value), unit, "window", source))
            if value >= busy_at:
                busy.append(words % value)
    late = "Events are indexed %.0f s after their timestamp (avg_age, median %s, up to %.0f s)" % (
        age.value, age.window, age.peak)
    if busy:
        d.set_headline("%s. Splunk is busy but not saturated (%s): the evidence cannot tell whether the delay is "
                       "in Splunk or in the sender. The sender's own send-queue and retry statistics would decide "
                       "it." % (late, ", ".join(busy)), tentative=True)
        return
    parts = []
    if q is not None:
        parts.append("every queue is under %.0f%% (at most %.0f%%)" % (idle, q))
    if t is not None:
        parts.append("every pipeline thread under %.0f%% of one core (at most %.0f%%)" % (idle, t))
    if hec is not None:
        parts.append("HEC answers in %.0f ms" % hec)
    d.set_headline("Splunk is not the bottleneck. %s while %s. The delay is upstream, in the sender: its CPU, "
                   "its sending threads or its batching." % (late, ", ".join(parts)), tentative=True)
    d.recommendations.extend(Recommendation(c) for c in CHECKS)
