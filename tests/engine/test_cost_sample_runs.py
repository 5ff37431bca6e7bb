"""Issue 21 (cost): the action hands a host's samples to the diagnosis as runs of numbers (alert/samples.py
Lean), never as sample objects. Whatever the runs hold, the engine groups them exactly as it groups
the same samples made into objects (engine/grouping.py: the same series, blocked marks, sources,
averages and pipeline sets, keys in the same order), and judges the host the same; and the Lean
sequence is, element by element, the objects it stands for."""
import random

import pytest

from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.alert.samples import Lean, Samples
from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine import finite, grouping
from ingest_doctor.engine.rules import state
from ingest_doctor.evidence import Evidence, PipelineSetLoad, QueueSample, ThreadSample

QUEUES = ["parsingQueue", "aggQueue", "typingQueue", "indexQueue", "tcpout", "nullQueue"]     # the last not in the chain
THREADS = ["typing", "Parsing", "indexerpipe", "httpinputserverdatathread"]
WINDOWS = ["sample", "sample", "sample", "10m", "15m", "1m", "30m"]
SOURCES = ["logs/metrics.log group=queue", "collector", "rest services/server/introspection/queues"]


def _samples(rnd):
    """Random runs of thread and queue samples, as rows give them, and the objects the host's Evidence
    held already (`extra`, local_config's: any time, None too)."""
    smp = Samples()
    for _ in range(rnd.randint(0, 12)):
        queue = rnd.random() < 0.6
        n = rnd.randint(0, 6)
        times = [rnd.choice([1000.0, 1030.0, 1060.0, 990.0]) + rnd.randint(0, 3) * 30 for _ in range(n)]
        values = [rnd.choice([5.0, 80.0, 97.0, 100.0, 99.5]) for _ in range(n)]
        blocked = bytes(rnd.random() < 0.3 for _ in range(n)) if queue and rnd.random() < 0.5 else None
        smp.add(queue, rnd.choice(QUEUES if queue else THREADS), rnd.choice([None, 0, 1, 3]), rnd.choice(WINDOWS),
                rnd.choice(SOURCES), times, values, blocked)
    extra_q = [QueueSample(rnd.choice([None, 1000.0, 1090.0]), rnd.choice(QUEUES), rnd.choice([None, 0, 1]),
                           rnd.choice([50.0, 99.0]), rnd.choice(WINDOWS), rnd.random() < 0.3, rnd.choice(SOURCES))
               for _ in range(rnd.randint(0, 3))]
    extra_t = [ThreadSample(rnd.choice([None, 1000.0]), rnd.choice(THREADS).lower(), rnd.choice([40.0, 99.0]),
                            rnd.choice([None, 0]), rnd.choice(WINDOWS), "rest") for _ in range(rnd.randint(0, 2))]
    return smp, extra_q, extra_t


def _lean_and_objects(seed, n):
    """`n` random hosts (random.Random(seed)), each as the Evidence of its runs and of the same samples as objects."""
    rnd = random.Random(seed)
    for _ in range(n):
        smp, extra_q, extra_t = _samples(rnd)
        pipelinesets = [PipelineSetLoad(1000.0, 0, "typing", 97.0, source="rest")] if rnd.random() < 0.3 else []
        lean = Evidence(host="h", threads=Lean(smp, False, extra_t), queues=Lean(smp, True, extra_q),
                        pipelinesets=pipelinesets)
        objects = Evidence(host="h", threads=smp.threads() + extra_t, queues=smp.queues() + extra_q,
                           pipelinesets=pipelinesets)
        yield lean, objects


def _queues(ev, window_min):
    g = grouping.queues(ev, window_min)
    return ([(k, s.points, s.blocked, s.nblocked, s.source, s.blocked_source) for k, s in g.series.items()],
            [(k, list(w.items())) for k, w in g.averages.items()])


def _threads(ev, window_min, single):
    g = grouping.threads(ev, window_min, single)
    return list(g.series.items()), list(g.averages.items()), list(g.sources.items())


@pytest.mark.parametrize("seed", range(4))
def test_runs_are_grouped_as_their_sample_objects(seed):
    for lean, objects in _lean_and_objects(seed, 1500):
        for window_min in (10.0, 15.0):
            assert _queues(lean, window_min) == _queues(objects, window_min)
            for single in (False, True):
                assert _threads(lean, window_min, single) == _threads(objects, window_min, single)


@pytest.mark.parametrize("seed", range(2))
def test_a_lean_sequence_is_the_objects_it_stands_for(seed):
    for lean, objects in _lean_and_objects(100 + seed, 1500):
        for name in ("threads", "queues"):
            seq, objs = getattr(lean, name), getattr(objects, name)
            assert len(seq) == len(objs) and bool(seq) == bool(objs) and list(seq) == objs and seq == objs
            assert [seq[i] for i in range(len(objs))] == objs and seq[1:3] == objs[1:3]
            assert seq.psets() == {x.pipeline_set for x in objs}
            st_lean, st_objs = state.State(lean, thresholds_mod.defaults()), state.State(objects, thresholds_mod.defaults())
            assert st_lean.psets_of(name) == st_objs.psets_of(name)
        assert finite.samples_finite(lean) == finite.samples_finite(objects)


def test_a_host_judged_from_runs_is_judged_as_from_objects():
    """The whole diagnosis, finite or checked sample by sample, over the runs and over the objects."""
    th = thresholds_mod.defaults()
    for lean, objects in _lean_and_objects(7, 400):
        want = diagnose(objects, th).to_dict()
        assert diagnose(lean, th).to_dict() == want
        assert diagnose(lean, th, finite=True).to_dict() == want


def test_a_queue_s_evidence_source_is_one_string_shared_by_every_finding_that_names_it():
    """Action RSS budget (300 MB at 10,000 hosts): the ~350,000 evidence items of 70,000 findings share
    their source strings; a string each put the peak at 309 MB."""
    def sources(host):
        ev = Evidence(host=host, queues=[QueueSample(100.0 + i, "typingQueue", 1, 99.0, "sample", True,
                                                     "logs/metrics.log group=queue") for i in range(8)])
        report = diagnose(ev, thresholds_mod.defaults())
        return [e.source for f in report.findings for e in f.evidence if "name=typingqueue" in e.source]
    one, two = sources("idx-01"), sources("idx-02")
    assert one and two and one[0] == two[0] and one[0] is two[0]
