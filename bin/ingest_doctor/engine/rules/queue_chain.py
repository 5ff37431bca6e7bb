"""Queue chain: judge every queue, then per pipeline set name the stage draining the LAST full queue.

A queue is full when sustained at or over `queue_fill_pct` (REST 10/15-minute
averages, or the series test on metrics.log medians) or sustained `blocked=true`.
Everything upstream of the last full queue backs up behind its stage. Fills
`st.queues` and `st.chain` (pipeline set -> bottleneck stage) for later rules.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ingest_doctor import model
from ingest_doctor.evidence import Evidence
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import OK, SPIKE, SUSTAINED, Judgement, judge_series
from ingest_doctor.engine.rules.state import QueueState, SeriesRun, State, r1, window_minutes

QKey = Tuple[str, Optional[int]]
Avgs = Dict[QKey, Dict[str, Tuple[Optional[float], float, str]]]

_NEVER_BLOCKED = Judgement(OK, 0.0, 0.0, "", 0)


class Series:
    """One queue's instant samples: their times and fill %, the first sample's source, the first blocked
    sample's source, how many were blocked, and for each sample (at `times`) 100 when blocked else 0
    once one was blocked (empty while none was: most queues never are). Times and values apart: the
    series test reads them so (series.judge_series), without pairing them first."""
    __slots__ = ("times", "values", "blocked", "source", "blocked_source", "nblocked")

    def __init__(self, source: str):
        self.times: List[Optional[float]] = []
        self.values: List[float] = []
        self.blocked: List[float] = []
        self.source = source
        self.blocked_source: Optional[str] = None
        self.nblocked = 0

    def extend(self, other: "Series") -> None:
        if other.nblocked and not self.nblocked:
            self.blocked = [0.0] * len(self.values)
        self.times.extend(other.times)
        self.values.extend(other.values)
        if other.nblocked:
            self.blocked.extend(other.blocked)
        elif self.nblocked:
            self.blocked.extend([0.0] * len(other.values))
        if self.blocked_source is None:
            self.blocked_source = other.blocked_source
        self.nblocked += other.nblocked

    def copy(self) -> "Series":
        """`Series(self.source)` extended by this one, in one step."""
        s = Series(self.source)
        s.times, s.values, s.blocked = self.times[:], self.values[:], self.blocked[:]
        s.blocked_source, s.nblocked = self.blocked_source, self.nblocked
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Series) and all(getattr(self, a) == getattr(other, a) for a in self.__slots__)

    def __repr__(self) -> str:
        return "Series(%s)" % ", ".join("%s=%r" % (a, getattr(self, a)) for a in self.__slots__)


_NONE = Series("")       # no samples (never filled: a placeholder, not a series of the evidence)


def group(ev: Evidence, window_min: float) -> Tuple[Dict[QKey, Series], Avgs]:
    """The queue samples as series by (queue, pipeline set), in order, and per queue the newest reading of
    each average over at least `window_min` minutes (at equal times the later one)."""
    runs = getattr(ev.queues, "runs", None)
    if runs is not None:
        return _group_runs(runs(), window_min)
    series: Dict[QKey, Series] = {}
    avgs: Avgs = defaultdict(dict)
    order = model.QUEUE_ORDER
    minutes: Dict[str, float] = {}
    # Samples come in runs of one queue: a run's series is looked up once (the same name and set objects
    # as the sample before: the same key, and a queue of the chain).
    s = _NONE
    run_queue: Optional[str] = None
    run_pset: Optional[int] = None
    times: List[Optional[float]] = []
    values: List[float] = []
    for q in ev.queues:
        if q.window == "sample":
            if q.queue is not run_queue or q.pipeline_set is not run_pset or s is _NONE:
                if q.queue not in order:
                    continue
                key = (q.queue, q.pipeline_set)
                s = series.get(key)     # type: ignore[assignment]
                if s is None:
                    s = series[key] = Series(q.source)
                run_queue, run_pset = q.queue, q.pipeline_set
                times, values = s.times, s.values
            if q.blocked:
                if not s.nblocked:
                    s.blocked = [0.0] * len(values)
                s.blocked.append(100.0)
                s.nblocked += 1
                if s.blocked_source is None:
                    s.blocked_source = q.source
            elif s.nblocked:
                s.blocked.append(0.0)
            times.append(q.time)
            values.append(q.fill_pct)
            continue
        if q.queue not in order:
            continue
        m = minutes.get(q.window)
        if m is None:
            m = minutes[q.window] = window_minutes(q.window) or 0
        if m >= window_min:
            key = (q.queue, q.pipeline_set)
            prev = avgs[key].get(q.window)
            if prev is None or (q.time or 0) >= (prev[0] or 0):
                avgs[key][q.window] = (q.time, q.fill_pct, q.source)
    return series, avgs


def _group_runs(runs: Iterable[SeriesRun], window_min: float) -> Tuple[Dict[QKey, Series], Avgs]:
    """`group` of samples handed out as runs (state.py: the action's, never made into objects): a run
    extends its series at once. tests/engine pins it equal to `group` of the same samples as objects."""
    series: Dict[QKey, Series] = {}
    avgs: Avgs = defaultdict(dict)
    order = model.QUEUE_ORDER
    minutes: Dict[str, float] = {}
    for queue, pset, window, src, times, values, blocked in runs:
        if queue not in order or not values:
            continue
        key = (queue, pset)
        if window == "sample":
            s = series.get(key)
            if s is None:
                s = series[key] = Series(src)
            if blocked is not None and 1 in blocked:
                marks = [100.0 if f == 1 else 0.0 for f in blocked]
                if not s.nblocked:
                    s.blocked = [0.0] * len(s.values)
                s.blocked.extend(marks)
                s.nblocked += marks.count(100.0)
                if s.blocked_source is None:
                    s.blocked_source = src
            elif s.nblocked:
                s.blocked.extend([0.0] * len(values))
            s.times.extend(times)
            s.values.extend(values)
            continue
        m = minutes.get(window)
        if m is None:
            m = minutes[window] = window_minutes(window) or 0
        if m >= window_min:
            into = avgs[key]
            for t, v in zip(times, values):
                prev = into.get(window)
                if prev is None or (t or 0) >= (prev[0] or 0):
                    into[window] = (t, v, src)
    return series, avgs


def combine(parts: Sequence[Tuple[Dict[QKey, Series], Avgs]]) -> Tuple[Dict[QKey, Series], Avgs]:
    """`group` of the parts' evidence one after the other, from each part's `group`."""
    series: Dict[QKey, Series] = {}
    avgs: Avgs = defaultdict(dict)
    for part_series, part_avgs in parts:
        for key, part in part_series.items():
            s = series.get(key)
            if s is None:
                series[key] = part.copy()
            elif s.nblocked or part.nblocked or part.blocked_source is not None:
                s.extend(part)
            else:                           # neither ever blocked (most queues): `extend` without its call
                s.times += part.times
                s.values += part.values
        for key, windows in part_avgs.items():
            into = avgs[key]
            for window, reading in windows.items():
                prev = into.get(window)
                if prev is None or (reading[0] or 0) >= (prev[0] or 0):
                    into[window] = reading
    return series, avgs


def older(part: Tuple[Dict[QKey, Series], Avgs]) -> Tuple[Dict[QKey, Series], Avgs]:
    """`group` of a poll once a newer poll came (the window keeps its instant samples only): the same
    series, no averages."""
    return part[0], {}


def queue_states(st: State) -> List[QueueState]:
    grouped, avgs = st.grouped("queues", group, combine, st.th.sustained_window_min, older=older)
    out = []
    thr = st.th.queue_fill_pct
    # In the order the samples came, not a set's: two input queues tie in the chain, and which is named
    # must not change from one run of the same evidence to the next (str hashes are salted a process).
    for key in {**dict.fromkeys(grouped), **dict.fromkeys(avgs)}:
        queue, pset = key
        best: Optional[QueueState] = None
        windows = avgs.get(key)
        for window, (_, value, src) in sorted(windows.items()) if windows else ():
            if value >= thr and (best is None or value > best.value):
                best = QueueState(queue, pset, SUSTAINED, value, window + " average", src)
        s = grouped.get(key, _NONE)
        values = s.values
        j = judge_series(s.times, values, thr, st.th, use_median=True)
        nblocked = s.nblocked
        # Never blocked: the blocked series is all zeros, judged ok whatever its length.
        bj = judge_series(s.times, s.blocked, 100.0, st.th) if nblocked else _NEVER_BLOCKED
        src = s.source
        if best is None and j.level == SUSTAINED:
            best = QueueState(queue, pset, SUSTAINED, j.value, j.window, src)
        if bj.level == SUSTAINED:
            if best is None:
                best = QueueState(queue, pset, SUSTAINED, max(j.value, thr), "blocked " + bj.window, src)
            best.blocked = nblocked
            best.blocked_source = src if s.blocked_source is None else s.blocked_source
        if best is None:
            level = SPIKE if (j.level == SPIKE or bj.level == SPIKE) else OK
            window = j.window
            value = j.peak if level == SPIKE else j.value
            if not values:
                vals = list(avgs.get(key, {}).values())
                value = max(v for _, v, _ in vals) if vals else 0.0
                window = "15m average"
                src = vals[0][2] if vals else src
            best = QueueState(queue, pset, level, value, window, src, nblocked)
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
