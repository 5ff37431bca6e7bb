"""Sustained or transient: one test for every time series the rules judge.

A series is sustained over a threshold when `sustained_samples` of the last
`sustained_of_samples` samples reach it (3 of 4 at 10 s polls: within 3 polls),
or when its average (queues: median) over the last `sustained_window_min`
minutes reaches it and the samples cover at least half that window. A series
that reached the threshold otherwise is a spike: `info` at most.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from operator import itemgetter
from typing import List, Optional, Sequence, Tuple

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
    """`points` are (time or None, value); timed ones are sorted here, untimed ones count as the newest."""
    if not points:
        return Judgement(OK, 0.0, 0.0, "", 0)
    # Timed samples in time order; an untimed reading (a snapshot's REST body) is the newest. Most series
    # come timed and in time order: they are then neither filtered, copied nor sorted.
    times = [t for t, _ in points]
    ordered = _sorted_times(times)
    if ordered is None:
        timed = [p for p in points if p[0] is not None]
        timed.sort(key=_time)           # stable, as sorted() was: equal times keep their order
        values = [v for _, v in timed] + [v for t, v in points if t is None]
        return _judge_ordered([t for t, _ in timed], values, threshold, th, use_median)
    # sorting the points by time makes the very comparisons sorting their times does: the same order
    pts = points if ordered == times else sorted(points, key=_time)
    return _judge_ordered(ordered, [v for _, v in pts], threshold, th, use_median)


def judge_series(times: Sequence[Optional[float]], values: Sequence[float], threshold: float, th: Thresholds,
                 use_median: bool = False) -> Judgement:
    """`judge` of the points `zip(times, values)`, without making them when the series is the common
    one (every sample timed, in time order): its lists are then judged as they are."""
    if not times:
        return Judgement(OK, 0.0, 0.0, "", 0)
    if _sorted_times(times) != times:
        return judge(list(zip(times, values)), threshold, th, use_median)
    return _judge_ordered(times, values, threshold, th, use_median)


def _sorted_times(times: Sequence[Optional[float]]) -> Optional[List[float]]:
    """`times` sorted; None when one is None (an untimed sample). Sorting finds it: a sort compares every
    one of two or more items, and None compares with nothing (a TypeError); cheaper than `None in times`,
    which compares every float with None."""
    try:
        ordered = sorted(times)
    except TypeError:
        return None
    return None if ordered[0] is None else ordered       # one item is never compared


def _judge_ordered(times: Sequence[float], values: Sequence[float], threshold: float, th: Thresholds,
                   use_median: bool) -> Judgement:
    """The judgement of `values` (oldest first, untimed ones last) whose first len(`times`) samples are
    timed at `times` (in order)."""
    # The window: the timed samples of the last `sustained_window_min` minutes, and the time they span.
    recent, span = None, 0.0
    n = len(times)
    if n >= int(th.sustained_samples):
        end = times[-1]
        k = bisect_left(times, end - th.sustained_window_min * 60.0)      # in time order: a suffix
        recent = values[k:n]
        span = end - times[k]
    return verdict(values, recent, span, threshold, th, use_median)


def verdict(values: Sequence[float], recent: Optional[Sequence[float]], span: float, threshold: float,
            th: Thresholds, use_median: bool = False) -> Judgement:
    """The judgement of a series' `values` (oldest first), given the values `recent` in its window (None:
    too few timed samples for one) and the seconds they `span`."""
    peak = max(values)
    n_need, of = int(th.sustained_samples), int(th.sustained_of_samples)
    last = values[-of:]
    agg = median if use_median else mean
    if peak < threshold and use_median:
        # Below the threshold throughout (most queues, most polls): no sample and no median of them reaches
        # it (a median is a sample or the halved sum of two, never above the larger; a float mean can be).
        return Judgement(OK, agg(last), peak, "%d samples" % len(last), len(values))
    # The window average first: "sustained for 10 minutes" says more than "3 of the last 4 samples".
    if recent is not None and len(recent) >= n_need and span >= th.sustained_window_min * 60.0 / 2.0:
        value = agg(recent)
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
