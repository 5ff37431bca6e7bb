"""The math the alert searches rely on, checked in Python against the diagnosis core.

- The tstats that read both dutycycle forms (taken from savedsearches.conf as
  shipped) find the same threads and busy % as the core's metrics.log parser
  (the wide line: the input threads the core judges there).
- The queue fill formula of the queue alert gives the core's fill for every
  queue line layout (_kb, bytes, blocked).
- The searches' pre-filters are never stricter than the core: whenever the
  core calls a series sustained, the search's `where` lets its row through
  (checked over many generated series), so the alert never hides what the
  diagnosis would flag.
- The samples a search writes (`<epoch>:<value>[b]`, newest first) reach the
  core oldest first with their own times.
"""

import random
import re
import statistics

import pytest

from ingest_doctor.read import metricslog
from ingest_doctor.engine import series
from ingest_doctor import model, thresholds
from ingest_doctor.alert.results import Row
from ingest_doctor.alert.rows import rows_to_evidence

from fakes.alert_helpers import autokv, fixture_lines
from fakes.searches import SAVED

THREAD = SAVED["Ingest Doctor - Thread - Saturated splunkd thread"]["search"]
QUEUE = SAVED["Ingest Doctor - Queues - Blocked or saturated pipeline queues"]["search"]
TH = thresholds.defaults()


def spl_regex(spl, field):
    """The rex of `spl` that names `field`, as a Python regex."""
    for m in re.finditer(r'rex (?:max_match=\d+ )?(?:field=\w+ )?"((?:[^"\\]|\\.)*)"', spl):
        if "(?<%s>" % field in m.group(1):
            return re.compile(m.group(1).replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!"))
    raise AssertionError("no rex for %s" % field)


# ---------------------------------------------------------------------------- dutycycle, both forms
def _wide_prefixes():
    """The wide-line threads the thread alert reads: `max(PREFIX(<thread>=)) AS ratio` of its name=misc tstats."""
    return re.findall(r"max\(PREFIX\((\w+)=\)\) AS ratio WHERE [^|\]]*TERM\(name=misc\)", THREAD)


def spl_threads(line):
    """What the thread alert's tstats read of one dutycycle line: the long layout (TERM(name=ingest)) by
    PREFIX(thread=) with max(PREFIX(ratio=)) and PREFIX(ingest_pipe=) (fillnull_value="none"); the wide
    line (TERM(name=misc)) by PREFIX(<thread>=) for its wide threads. Index terms are lower case."""
    kv = autokv(line)
    out = set()
    if kv.get("name") == "ingest" and "TERM(name=ingest)" in THREAD:
        out.add((kv["thread"].lower(), round(100 * float(kv["ratio"]), 1), kv.get("ingest_pipe", "none")))
    elif kv.get("name") == "misc":
        for t in _wide_prefixes():
            if t in kv:
                out.add((t, round(100 * float(kv[t]), 1), "none"))
    return out


def test_dutycycle_tstats_read_both_forms_like_the_core():
    """Issue 35: index-only reads. Long layout: every thread the core reads; wide line: the input threads
    the core judges there (model.INPUT_THREADS), the line's other misc threads (mgmt_httpd, ...) not."""
    assert set(_wide_prefixes()) == set(model.INPUT_THREADS)
    for line in fixture_lines("metrics_dutycycle.log"):
        core = {(t.thread, round(t.busy_pct, 1), "none" if t.pipeline_set is None else str(t.pipeline_set))
                for t in metricslog.parse_lines([line]).threads}
        if "name=misc" in line:
            core = {c for c in core if c[0] in model.INPUT_THREADS}
        assert spl_threads(line) == core, line
    assert spl_threads(fixture_lines("metrics_dutycycle.log")[0]) == {("tail", 9.1, "none")}


# ---------------------------------------------------------------------------- queue fill
def spl_fill(kv):
    """eval fill_pct=round(100*coalesce(cur_kb/max_kb, cur_n/max_n), 1), 100 when blocked without sizes."""
    def ratio(a, b):
        try:
            return float(kv[a]) / float(kv[b])
        except (KeyError, ZeroDivisionError):
            return None
    r = ratio("current_size_kb", "max_size_kb")
    if r is None:
        r = ratio("current_size", "max_size")
    if r is None:
        return 100.0 if kv.get("blocked") == "true" else None
    return round(100 * r, 1)


def test_queue_fill_formula_matches_the_core():
    assert "coalesce(cur_kb/max_kb, cur_n/max_n)" in QUEUE
    for line in fixture_lines("metrics_queue.log"):
        kv = autokv(line)
        ev = metricslog.parse_lines([line])
        assert len(ev.queues) == 1
        assert spl_fill(kv) == pytest.approx(round(ev.queues[0].fill_pct, 1)), line
        assert (kv.get("blocked") == "true") == ev.queues[0].blocked
    # the bytes form of tcpout is read from max_size/current_size, never as KB
    assert spl_fill(autokv([l for l in fixture_lines("metrics_queue.log") if "tcpout_" in l][0])) == 98.0


# ---------------------------------------------------------------------------- pre-filters vs the core
def thread_prefilter(values, th):
    """where samples_over>=sustained_samples OR avg(busy_pct)>=thread_busy_pct"""
    over = sum(1 for v in values if v >= th.thread_busy_pct)
    return over >= th.sustained_samples or statistics.mean(values) >= th.thread_busy_pct


def queue_prefilter(values, blocked, th):
    over = sum(1 for v in values if v >= th.queue_fill_pct)
    return (sum(blocked) >= th.sustained_samples or over >= th.sustained_samples
            or statistics.median(values) >= th.queue_fill_pct)


@pytest.mark.parametrize("tuned", [{}, {"thread_busy_pct": 75, "queue_fill_pct": 60, "sustained_samples": 2,
                                        "sustained_of_samples": 3, "sustained_window_min": 5}])
def test_prefilters_never_hide_what_the_core_flags(tuned):
    th = thresholds.load(tuned)
    rng = random.Random(5)
    flagged = 0
    for _ in range(3000):
        span = 30.0
        # the search only sees its window (ingest_doctor_alert_window = the sustained window)
        n = rng.randint(1, int(th.sustained_window_min * 60 / span))
        base = rng.choice([20, 60, 85, 89, 92, 99])
        values = [max(0.0, min(100.0, base + rng.uniform(-12, 12))) for _ in range(n)]
        pts = [(1000.0 + i * span, v) for i, v in enumerate(values)]
        if series.judge(pts, th.thread_busy_pct, th).level == series.SUSTAINED:
            flagged += 1
            assert thread_prefilter(values, th), values
        blocked = [1 if v >= 99 and rng.random() < 0.7 else 0 for v in values]
        q = series.judge(pts, th.queue_fill_pct, th, use_median=True)
        b = series.judge([(t, 100.0 * x) for (t, _), x in zip(pts, blocked)], 100.0, th)
        if series.SUSTAINED in (q.level, b.level):
            assert queue_prefilter(values, blocked, th), (values, blocked)
    assert flagged > 100                                   # the generator does reach the interesting cases


def test_a_single_spike_does_not_pass_the_thread_prefilter():
    assert not thread_prefilter([20, 30, 99, 25, 30, 20], TH)
    assert thread_prefilter([95, 96, 20, 97], TH)


# ---------------------------------------------------------------------------- samples as the searches write them
def test_samples_reach_the_core_oldest_first_with_their_times():
    newest_first = ["1763805600:99.1", "1763805570:98.0", "1763805540:97.5", "1763805510:40"]
    row = Row(1, {"signal": "thread_busy", "host": "hf-01", "thread": "HttpInputServerDataThread",
                  "busy_pct": "83.6", "pipeline_set": "none"}, {"samples": newest_first})
    ev = rows_to_evidence([row], now=1763805700.0)["hf-01"]
    assert [(t.time, t.busy_pct) for t in ev.threads] == [(1763805510.0, 40.0), (1763805540.0, 97.5),
                                                          (1763805570.0, 98.0), (1763805600.0, 99.1)]
    assert all(t.thread == "httpinputserverdatathread" and t.window == "sample" for t in ev.threads)
    assert series.judge([(t.time, t.busy_pct) for t in ev.threads], TH.thread_busy_pct, TH).level == series.SUSTAINED


def test_queue_recent_keeps_blocked_marks():
    row = Row(1, {"signal": "queue_fill", "host": "idx-01", "pipeline_set": "2"},
              {"queue": ["typingqueue", "indexqueue"], "fill_pct": ["100", "4"],
               "recent": ["1763805600:100b 1763805570:99.8b 1763805540:100b", "1763805600:4 1763805570:3"],
               "blocked_samples": ["3", "0"]})
    ev = rows_to_evidence([row], now=1763805700.0)["idx-01"]
    typing = [q for q in ev.queues if q.queue == "typingQueue"]
    assert [q.blocked for q in typing] == [True, True, True] and typing[0].time == 1763805540.0
    assert {q.pipeline_set for q in ev.queues} == {2}


def test_listener_rex_takes_the_message():
    spl = SAVED["Ingest Doctor - HEC - Listener limits reached"]["search"]
    m = spl_regex(spl, "message").search(fixture_lines("splunkd_httplistener.log")[0])
    assert m and m.group("message").startswith("Can't handle request for /services/collector")
