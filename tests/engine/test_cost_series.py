"""Issue 21 (cost): the series test, made cheaper (C-speed sort key, the window found by bisection in
time order, the never-blocked queue series not judged, a series' times and values judged without pairing
them, untimed samples found by the sort), judges as the plain version did."""
import random

from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.engine import series
from ingest_doctor.engine.series import OK, Judgement


def _reference(points, threshold, th, use_median=False):
    """The series test as written before (sorted() with a lambda, the window by a full scan), its verdict
    on the window the one `series.verdict` gives."""
    if not points:
        return Judgement(OK, 0.0, 0.0, "", 0)
    timed = sorted((p for p in points if p[0] is not None), key=lambda p: p[0])
    values = [v for _, v in timed] + [v for t, v in points if t is None]
    if not timed:
        return series.verdict(values, None, 0.0, threshold, th, use_median)
    end = timed[-1][0]
    inside = [(t, v) for t, v in timed if t >= end - th.sustained_window_min * 60.0]
    return series.verdict(values, [v for _, v in inside], end - inside[0][0], threshold, th, use_median)


def _random_series(rnd):
    n = rnd.randint(0, 40)
    step = rnd.choice([1.0, 10.0, 30.0, 60.0])
    t0 = 1763805600.0
    return [(rnd.choice([t0 + step * rnd.randint(0, 60), t0 + step * i, None if rnd.random() < 0.1 else t0 + step * i]),
             rnd.choice([0.0, 50.0, 89.9, 90.0, 95.0, 100.0, rnd.uniform(0, 100)])) for i in range(n)]


def test_the_series_test_judges_as_before_on_random_series():
    rnd = random.Random(21)
    ths = [thresholds_mod.defaults(), thresholds_mod.load({"sustained_window_min": "2", "sustained_samples": "2",
                                                           "sustained_of_samples": "3"})]
    for _ in range(4000):
        n = rnd.randint(0, 40)
        step = rnd.choice([1.0, 10.0, 30.0, 60.0])
        t0 = 1763805600.0
        pts = [(rnd.choice([t0 + step * rnd.randint(0, 60), t0 + step * i, None if rnd.random() < 0.1 else t0 + step * i]),
                rnd.choice([0.0, 50.0, 89.9, 90.0, 95.0, 100.0, rnd.uniform(0, 100)])) for i in range(n)]
        th = rnd.choice(ths)
        thr = rnd.choice([90.0, 100.0, 50.0])
        med = rnd.random() < 0.5
        assert series.judge(pts, thr, th, med) == _reference(pts, thr, th, med)


def test_a_never_blocked_series_is_judged_ok_as_the_skip_assumes():
    th = thresholds_mod.defaults()
    for n in range(0, 30):
        j = _reference([(1000.0 + 30 * i, 0.0) for i in range(n)], 100.0, th)
        assert j.level == OK


def test_a_series_judged_from_its_times_and_values_is_judged_as_its_points():
    """`judge_series(times, values)` equals `judge(zip(times, values))`: in order, out of order, untimed
    samples (one alone, several, mixed), equal times."""
    rnd = random.Random(22)
    ths = [thresholds_mod.defaults(), thresholds_mod.load({"sustained_window_min": "2", "sustained_samples": "2",
                                                           "sustained_of_samples": "3"})]
    cases = [[], [(None, 95.0)], [(None, 95.0), (None, 20.0)], [(1000.0, 95.0)], [(1000.0, 1.0), (None, 99.0)],
             [(None, 99.0), (1000.0, 1.0), (990.0, 99.0)], [(1000.0, 99.0), (1000.0, 1.0), (1000.0, 99.0)]]
    cases += [_random_series(rnd) for _ in range(4000)]
    for pts in cases:
        th, thr, med = rnd.choice(ths), rnd.choice([90.0, 100.0, 50.0]), rnd.random() < 0.5
        times, values = [t for t, _ in pts], [v for _, v in pts]
        want = _reference(pts, thr, th, med)
        assert series.judge_series(times, values, thr, th, med) == want
        assert series.judge(pts, thr, th, med) == want
        assert (times, values) == ([t for t, _ in pts], [v for _, v in pts])      # the caller's lists untouched
