"""The engine groups, the rules judge: the evidence's samples as series by key, which the rules read.

`queues` and `threads` (queue_chain, thread_saturation, and through them every rule), `load` and
`recent` (headroom: the load per pipeline set over the sustained window), `tcpout` (output_cause:
each receiver's throughput and the total).

Samples are read as runs, one path whatever holds them: a list of sample objects (a snapshot,
the collector's window) each sample a run; the action's samples (alert/samples.py `Lean`, kept as
arrays for its memory at 100k rows) hand out their runs without making an object. A series keeps
its samples in the order they came; its keys come in the order their first sample came (never a
set's order: which of two tied queues is named must not change from one run of the same evidence
to the next).

Nothing is kept from one diagnosis to the next: the collector's window, grouped from scratch each
poll at 4 pipeline sets (about 15 polls once thinned), costs about a millisecond of CPU within its
10 ms budget, and no more as the window ages (its polls are capped).
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ingest_doctor import model
from ingest_doctor.evidence import Evidence, PipelineSetLoad, QueueSample, ThreadSample, window_minutes

Key = Tuple[str, Optional[int]]             # (queue or thread name, pipeline set)
Points = List[Tuple[Optional[float], float]]
# A run of samples of one name, pipeline set, window and source: their times and values, and for
# queues their blocked marks (1: blocked; None when none was).
Run = Tuple[str, Optional[int], str, str, Sequence[Optional[float]], Sequence[float], Optional[Sequence[int]]]
Reading = Tuple[Optional[float], float, str]      # an average's (time, value, source)

_BLOCKED = (1,)         # the marks of a run of one blocked sample


class QueueSeries:
    """One queue's instant samples: (time, fill %) and (time, 100 when blocked else 0), the first
    sample's source and the first blocked sample's."""
    __slots__ = ("points", "blocked", "nblocked", "source", "blocked_source")

    def __init__(self, source: str):
        self.points: Points = []
        self.blocked: Points = []
        self.nblocked = 0
        self.source = source
        self.blocked_source: Optional[str] = None


class Queues:
    """Every queue of the chain (model.QUEUE_ORDER): its instant series, and its averages over at
    least the sustained window (window name -> the newest reading; at equal times the later one)."""
    __slots__ = ("series", "averages")

    def __init__(self) -> None:
        self.series: Dict[Key, QueueSeries] = {}
        self.averages: Dict[Key, Dict[str, Reading]] = {}

    def keys(self) -> List[Key]:
        return list({**dict.fromkeys(self.series), **dict.fromkeys(self.averages)})


class Threads:
    """Every thread: its series (samples, then the pipeline sets' busiest-thread readings), its busiest
    average over at least the sustained window (value, window name; an alert row) and its first source."""
    __slots__ = ("series", "averages", "sources")

    def __init__(self) -> None:
        self.series: Dict[Key, Points] = {}
        self.averages: Dict[Key, Tuple[float, str]] = {}
        self.sources: Dict[Key, str] = {}

    def keys(self) -> List[Key]:
        return list({**dict.fromkeys(self.series), **dict.fromkeys(self.averages)})


def queue_runs(samples: Sequence[QueueSample]) -> Iterable[Run]:
    """The queue samples' runs: their own (the action's arrays), else each sample a run."""
    own = getattr(samples, "runs", None)
    if own is not None:
        return own()        # type: ignore[no-any-return]
    return ((q.queue, q.pipeline_set, q.window, q.source, (q.time,), (q.fill_pct,), _BLOCKED if q.blocked else None)
            for q in samples)


def thread_runs(samples: Sequence[ThreadSample]) -> Iterable[Run]:
    """The thread samples' runs: their own (the action's arrays), else each sample a run."""
    own = getattr(samples, "runs", None)
    if own is not None:
        return own()        # type: ignore[no-any-return]
    return ((t.thread, t.pipeline_set, t.window, t.source, (t.time,), (t.busy_pct,), None) for t in samples)


def queues(ev: Evidence, window_min: float) -> Queues:
    """The queue samples by (queue, pipeline set): instant series, and averages over >= `window_min`."""
    out = Queues()
    order = model.QUEUE_ORDER
    for queue, pset, window, src, times, values, blocked in queue_runs(ev.queues):
        if queue not in order or not values:
            continue
        key = (queue, pset)
        if window == "sample":
            s = out.series.get(key)
            if s is None:
                s = out.series[key] = QueueSeries(src)
            s.points.extend(zip(times, values))
            marks = [100.0 if b == 1 else 0.0 for b in blocked] if blocked is not None else [0.0] * len(values)
            s.blocked.extend(zip(times, marks))
            if blocked is not None and 1 in blocked:
                s.nblocked += marks.count(100.0)
                if s.blocked_source is None:
                    s.blocked_source = src
            continue
        if (window_minutes(window) or 0) >= window_min:
            into = out.averages.setdefault(key, {})
            for t, v in zip(times, values):
                prev = into.get(window)
                if prev is None or (t or 0) >= (prev[0] or 0):
                    into[window] = (t, v, src)
    return out


def threads(ev: Evidence, window_min: float, single_pset: bool) -> Threads:
    """The thread samples by (thread, pipeline set): series, and averages over >= `window_min` (the
    busiest, the first at equal values); then the pipeline sets' busiest threads (`single_pset`:
    under no pipeline set)."""
    out = Threads()
    for thread, pset, window, src, times, values, _ in thread_runs(ev.threads):
        if not values:
            continue
        key = (thread.lower(), pset)
        out.sources.setdefault(key, src)
        minutes = window_minutes(window)
        if minutes is not None and minutes >= window_min:
            for v in values:
                if key not in out.averages or v > out.averages[key][0]:
                    out.averages[key] = (v, window)
            continue
        out.series.setdefault(key, []).extend(zip(times, values))
    _busiest(ev.pipelinesets, single_pset, out)
    return out


def _busiest(loads: Iterable[PipelineSetLoad], single_pset: bool, out: Threads) -> None:
    """The pipeline sets' busiest threads, after the threads' own samples."""
    added: Dict[Key, Points] = {}
    for p in loads:
        if not p.busiest_thread:
            continue
        key = (p.busiest_thread.lower(), None if single_pset else p.pipeline_set)
        added.setdefault(key, []).append((p.time, p.dutycycle_pct))
        out.sources.setdefault(key, p.source)
    for key, pts in added.items():
        out.series.setdefault(key, []).extend(pts)


THRUPUT_NAME = "index_thruput"     # the indexed load, per pipeline set
FALLBACK_NAME = "thruput"          # the instance's total, when index_thruput is missing


def recent(points: Points, window_s: float) -> Tuple[List[float], Optional[float]]:
    """The values within `window_s` of the newest timed one (untimed readings: all of them), and that span's end."""
    timed = [(t, v) for t, v in points if t is not None]
    if not timed:
        return [v for _, v in points], None
    end = max(t for t, _ in timed)
    return [v for t, v in timed if t >= end - window_s], end


def load(ev: Evidence, window_s: float, single_pset: bool
         ) -> Tuple[Dict[Optional[int], Tuple[Optional[float], float, str]], str]:
    """Per pipeline set (`single_pset`: None): mean events/s, mean KB/s and the source over the last
    `window_s` of group=thruput name=index_thruput, else of the instance's name=thruput; and the name read."""
    for name in (THRUPUT_NAME, FALLBACK_NAME):
        rows = [t for t in ev.thruput if t.kind == "thruput" and t.series == name]
        if not rows:
            continue
        _, end = recent([(t.time, 0.0) for t in rows], window_s)
        eps: Dict[Optional[int], List[float]] = {}
        kbps: Dict[Optional[int], List[float]] = {}
        src = ""
        for t in rows:
            if end is not None and t.time is not None and t.time < end - window_s:
                continue
            pset = None if single_pset else t.pipeline_set
            kbps.setdefault(pset, []).append(t.kbps)
            if t.eps is not None:
                eps.setdefault(pset, []).append(t.eps)
            src = src or "%s name=%s" % (t.source, name)
        out = {}
        for pset, ks in kbps.items():
            es = eps.get(pset)
            out[pset] = (sum(es) / len(es) if es else None, sum(ks) / len(ks), src)
        return out, name
    return {}, ""


def tcpout(ev: Evidence) -> Tuple[Dict[str, List[float]], Dict[Optional[float], float]]:
    """Per receiver its KB/s in time order (metrics.log group=tcpout_connections), and the total at each time."""
    series: Dict[str, List[float]] = {}
    totals: Dict[Optional[float], float] = {}
    for c in sorted(ev.tcpout, key=lambda c: c.time or 0):
        series.setdefault(c.receiver, []).append(c.kbps)
        totals[c.time] = totals.get(c.time, 0.0) + c.kbps
    return series, totals
