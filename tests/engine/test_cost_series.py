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


def _verdict_reference(values, recent, span, threshold, th, use_median=False):
    """`series.verdict` as written before its below-the-threshold shortcut."""
    peak = max(values)
    n_need, of = int(th.sustained_samples), int(th.sustained_of_samples)
    last = values[-of:]
    agg = series.median if use_median else series.mean
    if recent is not None and len(recent) >= n_need and span >= th.sustained_window_min * 60.0 / 2.0:
        value = agg(recent)
        if value >= threshold:
            return Judgement(series.SUSTAINED, value, peak, "%dm" % int(th.sustained_window_min), len(recent), span)
    over = [v for v in last if v >= threshold]
    if len(last) >= n_need and len(over) >= n_need:
        return Judgement(series.SUSTAINED, agg(over), peak, "%d of the last %d samples" % (len(over), len(last)),
                         len(values))
    if peak >= threshold:
        return Judgement(series.SPIKE, peak, peak, "sample", len(values))
    return Judgement(OK, agg(last), peak, "%d samples" % len(last), len(values))


def test_a_series_below_its_threshold_throughout_is_judged_as_before():
    """The shortcut for a series whose peak is under the threshold gives the full test's verdict, at the
    threshold's edge too (values one float step under it, and equal pairs whose halved sum is exact)."""
    rnd = random.Random(23)
    ths = [thresholds_mod.defaults(), thresholds_mod.load({"sustained_window_min": "2", "sustained_samples": "2",
                                                           "sustained_of_samples": "3"})]
    # A float mean can exceed every value it averages (three 0.1s average to 0.10000000000000002): a series
    # whose peak is under the threshold is then sustained by its mean, so only a median may take the shortcut.
    mean_over = sum([0.1] * 3) / 3
    assert mean_over > 0.1
    for med in (False, True):
        got = series.verdict([0.1] * 3, [0.1] * 3, 600.0, mean_over, ths[0], med)
        assert got == _verdict_reference([0.1] * 3, [0.1] * 3, 600.0, mean_over, ths[0], med)
        assert got.level == (series.OK if med else series.SUSTAINED)
    for _ in range(6000):
        thr = rnd.choice([90.0, 100.0, 50.0, 0.1 * 3])
        edge = [thr, thr - 1e-9, 0.1, 0.30000000000000004, 0.29999999999999993, 89.99999999999999]
        values = [rnd.choice(edge + [rnd.uniform(0, thr), rnd.uniform(0, 100)]) for _ in range(rnd.randint(1, 30))]
        k = rnd.randint(0, len(values))
        recent = None if rnd.random() < 0.2 else values[k:]
        span, th, med = rnd.choice([0.0, 60.0, 300.0, 600.0]), rnd.choice(ths), rnd.random() < 0.5
        assert series.verdict(values, recent, span, thr, th, med) == _verdict_reference(values, recent, span, thr, th, med)
