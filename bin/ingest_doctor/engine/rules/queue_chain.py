"""Queue chain: judge every queue, then per pipeline set name the stage draining the LAST full queue.

A queue is full when sustained at or over `queue_fill_pct` (REST 10/15-minute
averages, or the series test on metrics.log medians) or sustained `blocked=true`.
Everything upstream of the last full queue backs up behind its stage. Fills
`st.queues` and `st.chain` (pipeline set -> bottleneck stage) for later rules.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional

from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine import grouping
from ingest_doctor.engine.series import OK, SPIKE, SUSTAINED, judge
from ingest_doctor.engine.rules.state import QueueState, State, r1


def queue_states(st: State) -> List[QueueState]:
    grouped = grouping.queues(st.ev, st.th.sustained_window_min)
    out = []
    thr = st.th.queue_fill_pct
    for key in grouped.keys():
        queue, pset = key
        best: Optional[QueueState] = None
        windows = grouped.averages.get(key, {})
        for window, (_, value, src) in sorted(windows.items()):
            if value >= thr and (best is None or value > best.value):
                best = QueueState(queue, pset, SUSTAINED, value, window + " average", src)
        s = grouped.series.get(key) or grouping.QueueSeries("")
        values = [v for _, v in s.points]
        j = judge(s.points, thr, st.th, use_median=True)
        bj = judge(s.blocked, 100.0, st.th) if s.nblocked else None     # never blocked: nothing to judge
        blocked_level = bj.level if bj is not None else OK
        src = s.source
        if best is None and j.level == SUSTAINED:
            best = QueueState(queue, pset, SUSTAINED, j.value, j.window, src)
        if bj is not None and bj.level == SUSTAINED:
            if best is None:
                best = QueueState(queue, pset, SUSTAINED, max(j.value, thr), "blocked " + bj.window, src)
            best.blocked = s.nblocked
            best.blocked_source = src if s.blocked_source is None else s.blocked_source
        if best is None:
            level = SPIKE if SPIKE in (j.level, blocked_level) else OK
            window = j.window
            value = j.peak if level == SPIKE else j.value
            if not values:      # averages alone, none over the threshold
                value = max(v for _, v, _ in windows.values())
                window = "15m average"
                src = next(iter(windows.values()))[2]
            best = QueueState(queue, pset, level, value, window, src, s.nblocked)
            best.over, best.samples = len([v for v in values if v >= thr]), len(values)
        out.append(best)
    return out


def _spikes(st: State, pset: Optional[int], qs: List[QueueState]) -> None:
    for q in qs:
        if q.level != SPIKE:
            continue
        stage = model.stage_draining(q.queue)
        if not stage:
            continue
        d = st.draft(stage.name, pset)
        d.severity = d.severity if d.headline else "info"
        if not d.headline and q.over > 1:
            # Full for a sample every few minutes, drained in between: flapping, judged by the configured rule.
            d.set_headline("%s reached %.0f%% full in %d of %d samples but never stayed full (%d of the last %d "
                           "samples, or the %d-minute median, make it sustained): it fills in bursts and drains, "
                           "not a bottleneck." % (q.queue, q.value, q.over, q.samples, st.th.sustained_samples,
                                                  st.th.sustained_of_samples, st.th.sustained_window_min),
                           tentative=True)
            d.component = q.queue
            d.add(EvidenceItem("queue_full_samples", q.over, "samples", "%d samples" % q.samples,
                               q.evidence_source()))
        elif not d.headline:
            d.set_headline("%s reached %.0f%% full once (%s) but did not stay full: a transient spike, not a "
                           "bottleneck." % (q.queue, q.value, q.window), tentative=True)
            d.component = q.queue
        d.add(EvidenceItem("queue_fill_pct", r1(q.value), "%", q.window, q.evidence_source()))


def run(st: State) -> None:
    st.queues = queue_states(st)
    by_pset: Dict[Optional[int], List[QueueState]] = defaultdict(list)
    for s in st.queues:
        by_pset[s.pipeline_set].append(s)
    order = model.QUEUE_ORDER
    for pset, qs in sorted(by_pset.items(), key=lambda x: -1 if x[0] is None else x[0]):
        full = sorted([q for q in qs if q.level == SUSTAINED], key=lambda q: order[q.queue])
        if not full:
            _spikes(st, pset, qs)
            continue
        last = full[-1]
        stage = model.stage_draining(last.queue)
        if stage is None:
            continue
        d = st.draft(stage.name, pset, "critical" if any(q.blocked for q in full) else "warning", last.queue)
        upstream = [q.queue for q in full[:-1]]
        d.set_headline("%s is full (%.0f%%, %s)%s: the %s stage that drains it limits throughput."
                       % (last.queue, last.value, last.window,
                          " and %s behind it back up" % ", ".join(upstream) if upstream else "", stage.name))
        for q in full:
            d.add(EvidenceItem("queue_fill_pct", r1(q.value), "%", q.window.replace(" average", ""),
                               q.evidence_source()))
            if q.blocked:
                d.add(EvidenceItem("queue_blocked", q.blocked, "samples", "window",
                                   q.evidence_source(q.blocked_source)))
        downstream = sorted((q for q in qs if order[q.queue] > order[last.queue]), key=lambda q: order[q.queue])
        if downstream:
            nxt = downstream[0]
            d.detail("%s after it is only %.0f%% full." % (nxt.queue, nxt.value))
            d.add(EvidenceItem("queue_fill_pct", r1(nxt.value), "%", nxt.window.replace(" average", ""),
                               nxt.evidence_source()))
        st.chain[pset] = stage.name
