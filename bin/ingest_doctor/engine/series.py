"""Sustained or transient: one test for every time series the rules judge.

A series is sustained over a threshold when `sustained_samples` of the last
`sustained_of_samples` samples reach it (3 of 4 at 10 s polls: within 3 polls),
or when its average (queues: median) over the last `sustained_window_min`
minutes reaches it and the samples cover at least half that window. A series
that reached the threshold otherwise is a spike: `info` at most.
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Optional, Sequence, Tuple

from ingest_doctor.thresholds import Thresholds


_time = itemgetter(0)

SUSTAINED = "sustained"
SPIKE = "spike"
OK = "ok"

@dataclass
class Judgement:
    level: str  # sustained | spike | ok
    value: float  # the representative value (average/median that decided, or the latest)
    peak: float
    window: str  # e.g. "10m", "3 of 4 samples", "sample"
    samples: int
    span_s: float = 0.0


def median(values: Sequence[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def judge(points: Sequence[Tuple[Optional[float], float]], threshold: float, th: Thresholds,
          use_median: bool = False) -> Judgement:
    """`points` are (time or None, value); timed ones are sorted here (equal times keep their order),
    untimed ones (a snapshot's REST body) count as the newest."""
    if not points:
        return Judgement(OK, 0.0, 0.0, "", 0)
    timed = [p for p in points if p[0] is not None]
    timed.sort(key=_time)
    values = [v for _, v in timed]
    if len(timed) < len(points):
        values.extend(v for t, v in points if t is None)
    peak = max(values)
    n_need, of = int(th.sustained_samples), int(th.sustained_of_samples)
    last = values[-of:]
    agg = median if use_median else mean
    # The window average first: "sustained for 10 minutes" says more than "3 of the last 4 samples".
    if len(timed) >= n_need:
        end = timed[-1][0]
        recent = [(t, v) for t, v in timed if t >= end - th.sustained_window_min * 60.0]
        span = end - recent[0][0]
        if len(recent) >= n_need and span >= th.sustained_window_min * 60.0 / 2.0:
            value = agg([v for _, v in recent])
            if value >= threshold:
                return Judgement(SUSTAINED, value, peak, "%dm" % int(th.sustained_window_min), len(recent), span)
    over = [v for v in last if v >= threshold]
    hits = len(over)
    if len(last) >= n_need and hits >= n_need:
        return Judgement(SUSTAINED, agg(over), peak,
                         "%d of the last %d samples" % (hits, len(last)), len(values))
    if peak >= threshold:
        return Judgement(SPIKE, peak, peak, "sample", len(values))
    return Judgement(OK, agg(last), peak, "%d samples" % len(last), len(values))
