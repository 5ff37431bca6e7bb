"""Issue 21 (cost): the collector's window keeps its merged evidence up to date poll by poll (a poll's
items appended when it arrives, cut out when it is thinned or ages out) instead of merging the whole
window again every poll. Pinned here: the incremental merge equals the merge from scratch after every
poll, item for item and in order, and so does the diagnosis of it, for every scenario and for long
random runs at several poll intervals. The diagnosis judges the window incrementally as well (the
rules group their series from the window's polls, each poll grouped once: Window.parts): pinned here,
its groupings equal those of the whole merged window and its findings equal judging the whole window,
for the same scenarios and runs, under several thresholds."""
import os
import random
from dataclasses import replace

import pytest

from fakes.paths import SCENARIOS as SCENARIOS_DIR
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.collector.window import WINDOW_MAX_POLLS, Window
from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine.rules import queue_chain, thread_saturation
from ingest_doctor.engine.rules.state import sanitise
from ingest_doctor.evidence import (AVERAGES, LATEST, NAMES, SAMPLES, CpuSample, Evidence, HecProbe, PipelineSetLoad,
                                   QueueSample, ThreadSample, policies)
from ingest_doctor.read.snapshot import load_snapshot

SCEN = SCENARIOS_DIR
SCENARIOS = sorted(n for n in os.listdir(SCEN) if os.path.isdir(os.path.join(SCEN, n)))
# As the model names them (the window keeps only these; "someotherqueue" below is not kept).
QUEUES = ["parsingQueue", "aggQueue", "typingQueue", "indexQueue", "tcpout"]
THREADS = ["parsing", "merging", "typing", "indexerpipe", "httpinputserverdatathread", "tcpchannelthread"]


# The defaults, and thresholds that move the sustained window (which averages count) and the test itself.
THRESHOLDS = [thresholds_mod.defaults(),
              thresholds_mod.load({"sustained_window_min": 1, "sustained_samples": 2, "sustained_of_samples": 3,
                                   "queue_fill_pct": 60, "thread_busy_pct": 50})]


def _rebuilt(window: Window) -> Evidence:
    """The window's evidence built from its polls themselves: the reference its incremental lists meet."""
    last = window.polls[-1]
    ev = type(last)()
    for name, policy in policies(type(last)).items():
        if policy.merge in (LATEST, NAMES):
            setattr(ev, name, getattr(last, name) if policy.merge == LATEST else list(getattr(last, name)))
        elif policy.merge in (SAMPLES, AVERAGES):
            setattr(ev, name, [x for p in window.polls for x in getattr(p, name)
                               if p is last or policy.merge == SAMPLES or x.window == "sample"])
    return ev


def _same(window: Window) -> None:
    inc, full = window.merged(), _rebuilt(window)
    assert inc == full
    for th in THRESHOLDS:
        whole = diagnose(full, th).to_dict()
        assert diagnose(inc, th).to_dict() == whole
        assert diagnose(window.merged(), th, parts=window.parts).to_dict() == whole
        assert diagnose(window.merged(), th, parts=window.parts, finite=window.finite).to_dict() == whole
    if window.finite:       # the window vouches for its samples only when none is NaN or infinite
        assert sanitise(full)[1] == 0
    for minutes in (1.0, 10.0, 15.0):
        assert window.parts("queues", queue_chain.group, queue_chain.combine, (minutes,)) == \
            queue_chain.group(full, minutes)
        for single in (False, True):
            assert window.parts("threads", thread_saturation.group, thread_saturation.combine, (minutes, single)) \
                == thread_saturation.group(full, minutes, single)


def _polls_of(ev: Evidence):
    """A scenario's evidence as the polls a collector would have made: its timed items by time."""
    times = sorted({x.time for x in ev.queues + ev.threads + ev.pipelinesets + ev.hec_probes + ev.cpu
                    if x.time is not None})
    for i, t in enumerate(times):
        last = i == len(times) - 1
        yield t, Evidence(
            host=ev.host, indexer=ev.indexer, host_cpu=ev.host_cpu, config=ev.config, health=ev.health,
            sources=list(ev.sources),
            queues=[q for q in ev.queues if q.time == t or (last and q.time is None)],
            threads=[x for x in ev.threads if x.time == t or (last and x.time is None)],
            pipelinesets=[x for x in ev.pipelinesets if x.time == t or (last and x.time is None)],
            hec_probes=[x for x in ev.hec_probes if x.time == t or (last and x.time is None)],
            cpu=[x for x in ev.cpu if x.time == t or (last and x.time is None)])


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_judged_incrementally_gives_the_whole_windows_findings(name):
    ev = load_snapshot(os.path.join(SCEN, name))
    polls = list(_polls_of(ev))
    for span, recent in ((600.0, 4), (1800.0, 2)):
        w = Window(WINDOW_MAX_POLLS, span, recent)
        for t, poll in polls:
            w.add(poll, t)
            _same(w)


def _poll(rnd: random.Random, t: float, psets: int) -> Evidence:
    ev = Evidence(host="idx-r")
    for p in range(psets):
        for q in QUEUES:
            if rnd.random() < 0.9:
                ev.queues.append(QueueSample(t, q, p, rnd.choice([5.0, 50.0, 95.0, 100.0]), "sample",
                                             rnd.random() < 0.2, "rest"))
            if rnd.random() < 0.3:
                ev.queues.append(QueueSample(t, q, p, rnd.uniform(0, 100), rnd.choice(["1m", "10m", "15m"]),
                                             False, "rest"))
        ev.queues.append(QueueSample(t, "someotherqueue", p, 50.0, "sample", False, "rest"))   # not kept
        ev.pipelinesets.append(PipelineSetLoad(t, p, rnd.choice(THREADS[:4]), rnd.uniform(40, 100), 0.25, 10.0,
                                               "rest"))
    for name in THREADS + ["reaper", "mgmt_httpd"]:
        ev.threads.append(ThreadSample(t, name, rnd.choice([0.0, 3.0, 12.0, 99.0]), None, "sample", "proc"))
    if rnd.random() < 0.7:
        ev.hec_probes.append(HecProbe(t, rnd.choice([200, 503]), 17, rnd.uniform(1, 50), "health", "", "probe"))
    ev.cpu.append(CpuSample(t, rnd.uniform(0, 100), rnd.uniform(0, 100), 8, "rest"))
    return ev


@pytest.mark.parametrize("interval,psets,seed", [(10.0, 4, 1), (1.0, 2, 2), (30.0, 1, 3), (7.0, 8, 4)])
def test_random_runs_merge_incrementally_as_from_scratch(interval, psets, seed):
    rnd = random.Random(seed)
    w = Window(min(WINDOW_MAX_POLLS, int(600 / interval) + 1), 600.0, 4)
    t = 1763805600.0
    for i in range(150):
        t += interval * rnd.choice([1.0, 1.0, 1.0, 0.5, 3.0, 20.0])      # late polls, and a long gap
        w.add(_poll(rnd, t, psets), t)
        assert w.merged() == _rebuilt(w)
        if i % 10 == 0 or i > 140:
            _same(w)
    assert len(w.polls) <= w.max_polls


def test_merged_is_a_copy_the_diagnosis_cannot_change():
    w = Window(10, 600.0, 4)
    rnd = random.Random(5)
    for i in range(6):
        w.add(_poll(rnd, 1000.0 + 10 * i, 2), 1000.0 + 10 * i)
    ev = w.merged()
    ev.queues.clear()
    ev.threads.append(replace(ev.threads[0], busy_pct=1.0) if ev.threads else None)
    assert w.merged() == _rebuilt(w)


def test_incremental_judging_equals_the_whole_window_poll_after_poll_with_non_finite_samples_too():
    """Every poll of a random run judged both ways, its groupings kept across polls (as the collector
    keeps its window); a poll with a NaN sample makes the engine drop it and group the clean evidence."""
    rnd = random.Random(7)
    w = Window(61, 600.0, 4)
    t = 1763805600.0
    for i in range(80):
        t += 10.0 * rnd.choice([1.0, 1.0, 0.5, 3.0])
        poll = _poll(rnd, t, 3)
        if i == 40:
            poll.queues.append(QueueSample(t, "indexQueue", 0, float("nan"), "sample", False, "rest"))
        w.add(poll, t)
        assert not w.finite or sanitise(_rebuilt(w))[1] == 0     # it vouches only for finite samples
        assert w.finite or i >= 40
        if i == 40:
            assert not w.finite
        for th in THRESHOLDS:
            assert diagnose(w.merged(), th, parts=w.parts).to_dict() == diagnose(_rebuilt(w), th).to_dict()
            assert diagnose(w.merged(), th, parts=w.parts, finite=w.finite).to_dict() == \
                diagnose(_rebuilt(w), th).to_dict()


@pytest.mark.parametrize("seed", range(6))
def test_a_rules_grouping_of_parts_combined_equals_the_grouping_of_the_whole(seed):
    """`combine` of the parts' groupings equals `group` of the whole however the evidence is cut:
    averages at equal times or equal values, one thread under several windows, pipeline sets folded."""
    rnd = random.Random(seed)
    ev = Evidence(host="idx-g")
    for i in range(60):
        t = rnd.choice([None, 100.0, 110.0, 120.0])
        ev.queues.append(QueueSample(t, rnd.choice(QUEUES[:3]), rnd.choice([None, 0, 1]),
                                     rnd.choice([10.0, 90.0]), rnd.choice(["sample", "1m", "10m", "15m", "900s"]),
                                     rnd.random() < 0.3, "src%d" % i))
        ev.threads.append(ThreadSample(t, rnd.choice(["Parsing", "parsing", "typing", "reaper"]),
                                       rnd.choice([5.0, 95.0]), rnd.choice([None, 0, 1]),
                                       rnd.choice(["sample", "1m", "10m", "15m"]), "src%d" % i))
        ev.pipelinesets.append(PipelineSetLoad(t, rnd.choice([0, 1, 2]), rnd.choice(["", "parsing", "Typing"]),
                                               rnd.choice([20.0, 99.0]), 0.25, 10.0, "src%d" % i))
    cuts = sorted(rnd.sample(range(1, 60), rnd.randint(1, 8)))

    def parts_of():
        bounds = [0] + cuts + [60]
        for a, b in zip(bounds, bounds[1:]):
            yield replace(ev, queues=ev.queues[a:b], threads=ev.threads[a:b], pipelinesets=ev.pipelinesets[a:b])
    for minutes in (1.0, 10.0, 15.0):
        assert queue_chain.combine([queue_chain.group(p, minutes) for p in parts_of()]) == \
            queue_chain.group(ev, minutes)
        for single in (False, True):
            got = thread_saturation.combine([thread_saturation.group(p, minutes, single) for p in parts_of()])
            want = thread_saturation.group(ev, minutes, single)
            assert got == want
            assert [list(x) for x in got] == [list(x) for x in want]     # and in the same order


@pytest.mark.parametrize("seed", range(4))
def test_a_polls_grouping_once_a_newer_poll_came_is_made_from_its_grouping_as_the_newest(seed):
    """The rules' `older`: a poll's grouping once the window keeps only its instant samples (a newer
    poll's averages supersede its own), from its grouping as the newest, equals grouping it again."""
    rnd = random.Random(seed)
    for i in range(20):
        poll = _poll(rnd, 1000.0 + 10 * i, rnd.choice([1, 3]))
        kept = replace(poll, queues=[q for q in poll.queues if q.window == "sample"])
        for minutes in (1.0, 10.0, 15.0):
            assert queue_chain.older(queue_chain.group(poll, minutes)) == queue_chain.group(kept, minutes)
            for single in (False, True):
                assert thread_saturation.older(thread_saturation.group(poll, minutes, single)) == \
                    thread_saturation.group(kept, minutes, single)


def test_each_poll_is_grouped_once_in_the_collectors_steady_state(monkeypatch):
    """Judging a poll groups that poll only, once per rule: the polls before it keep their groupings,
    and the newest poll's becomes its older grouping without grouping it again."""
    calls = []
    for rule in (queue_chain, thread_saturation):
        group = rule.group

        def counting(ev, *args, _group=group, _rule=rule.__name__):
            calls.append(_rule)
            return _group(ev, *args)
        monkeypatch.setattr(rule, "group", counting)
    rnd = random.Random(9)
    w = Window(61, 600.0, 4)
    t = 1763805600.0
    for i in range(40):
        t += 10.0
        w.add(_poll(rnd, t, 3), t)
        del calls[:]
        rep = diagnose(w.merged(), parts=w.parts, finite=w.finite)
        assert rep.findings is not None
        if i:
            assert sorted(calls) == sorted([queue_chain.__name__, thread_saturation.__name__]), i
