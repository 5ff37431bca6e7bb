"""The collector's rolling window as the diagnosis reads it: `merged` holds the newest poll's LATEST
values and NAMES, every poll's SAMPLES, every poll's instant AVERAGES samples and the newest poll's
averages (older averages are superseded), only what the rules read; it is a copy; and the window vouches
for its samples' numbers (`finite`) only while none is NaN or infinite."""
import random

from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.collector.window import Window
from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine.finite import sanitise
from ingest_doctor.evidence import CpuSample, Evidence, PipelineSetLoad, QueueSample, ThreadSample

QUEUES = ["parsingQueue", "aggQueue", "typingQueue", "indexQueue", "tcpout"]
THREADS = ["parsing", "merging", "typing", "indexerpipe", "httpinputserverdatathread"]
THRESHOLDS = [thresholds_mod.defaults(),
              thresholds_mod.load({"sustained_window_min": 1, "sustained_samples": 2, "sustained_of_samples": 3,
                                   "queue_fill_pct": 60, "thread_busy_pct": 50})]


def _poll(rnd, t, psets, host="idx-r"):
    ev = Evidence(host=host, sources=["services/server/introspection/queues", "proc"])
    for p in range(psets):
        for q in QUEUES:
            ev.queues.append(QueueSample(t, q, p, rnd.choice([5.0, 50.0, 95.0, 100.0]), "sample", rnd.random() < 0.2,
                                         "rest"))
            ev.queues.append(QueueSample(t, q, p, rnd.uniform(0, 100), rnd.choice(["1m", "10m", "15m"]), False,
                                         "rest"))
        ev.queues.append(QueueSample(t, "someotherqueue", p, 50.0, "sample", False, "rest"))   # not kept
        ev.pipelinesets.append(PipelineSetLoad(t, p, rnd.choice(THREADS[:4]), rnd.uniform(40, 100), 0.25, 10.0,
                                               "rest"))
    for name in THREADS + ["reaper"]:
        ev.threads.append(ThreadSample(t, name, rnd.choice([0.0, 3.0, 12.0, 99.0]), None, "sample", "proc"))
    ev.cpu.append(CpuSample(t, rnd.uniform(0, 100), rnd.uniform(0, 100), 8, "rest"))
    ev.not_judged.append("a note about this poll only")
    return ev


def test_merged_keeps_every_polls_samples_and_only_the_newest_polls_averages():
    rnd = random.Random(1)
    w = Window(60, 600.0, 4)
    polls = [_poll(rnd, 1000.0 + 10 * i, 2, host="h%d" % i) for i in range(3)]
    for i, p in enumerate(polls):
        w.add(p, 1000.0 + 10 * i)
    ev = w.merged()
    kept = [q for p in polls for q in p.queues if q.queue != "someotherqueue"]
    assert ev.queues == [q for q in kept if q.window == "sample" or q.time == 1020.0]
    assert ev.threads == [x for p in polls for x in p.threads] and len(ev.cpu) == 3
    assert ev.host == "h2" and ev.sources == polls[-1].sources and ev.not_judged == []


def test_merged_is_a_copy_the_diagnosis_cannot_change():
    w = Window(10, 600.0, 4)
    rnd = random.Random(5)
    for i in range(6):
        w.add(_poll(rnd, 1000.0 + 10 * i, 2), 1000.0 + 10 * i)
    before = w.merged()
    ev = w.merged()
    ev.queues.clear()
    ev.threads.append(None)
    ev.sources.append("elsewhere")
    assert w.merged() == before


def test_the_window_vouches_for_finite_samples_only_and_judges_the_same_either_way():
    """A poll with a NaN sample makes the window stop vouching for its samples until that poll leaves;
    whether it vouches or the engine checks each sample, the report is the same."""
    rnd = random.Random(7)
    w = Window(61, 600.0, 4)
    t = 1763805600.0
    for i in range(80):
        t += 10.0 * rnd.choice([1.0, 1.0, 0.5, 3.0])
        poll = _poll(rnd, t, 3)
        if i == 40:
            poll.queues.append(QueueSample(t, "indexQueue", 0, float("nan"), "sample", False, "rest"))
        w.add(poll, t)
        assert not w.finite or sanitise(w.merged())[1] == 0
        assert w.finite or i >= 40
        if i == 40:
            assert not w.finite
        if i % 8 == 0 or i == 40:
            for th in THRESHOLDS:
                assert diagnose(w.merged(), th, finite=w.finite).to_dict() == diagnose(w.merged(), th).to_dict()
    assert w.finite         # the NaN poll has left the window
