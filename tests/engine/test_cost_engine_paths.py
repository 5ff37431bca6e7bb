"""Issue 21 (cost): what one diagnosis derives once or caches equals the plain computation: the queue
evidence sources and the busy wordings (cached), the host CPU and the pipeline sets (derived once a
diagnosis)."""
import random

from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.engine.rules import state
from ingest_doctor.evidence import CpuSample, Evidence, QueueSample


def test_cached_queue_sources_and_wordings_are_the_plain_ones():
    for src in ("rest services/server/introspection/queues", "logs/metrics.log group=queue", "rest"):
        for queue in ("parsingQueue", "aggQueue", "tcpout"):
            for pset in (None, 0, 3):
                for _ in range(2):      # the second call is answered by the cache
                    assert state.queue_source(src, queue, pset) == state.queue_source.__wrapped__(src, queue, pset)
                q = state.QueueState(queue, pset, "ok", 1.0, "sample", src)
                assert q.evidence_source() == state.queue_source.__wrapped__(src, queue, pset)
    for args in (("thread", "proc", "3 of the last 4 samples"), ("stage_cpu", "logs/metrics.log", "10m"),
                 ("thread", "rest services/server/pipelinesets", "sample"), ("thread", "x", "")):
        assert state.measure(*args) == state.measure(*args) == state.measure.__wrapped__(*args)


def test_the_host_cpu_judged_once_is_the_host_cpu_judged_each_time():
    rnd = random.Random(3)
    th = thresholds_mod.defaults()
    for n in range(0, 12):
        ev = Evidence(host="h", cpu=[CpuSample(rnd.choice([None, 1000.0 + 10 * i]), rnd.uniform(0, 100), 5.0, 8, "rest")
                                     for i in range(n)])
        st = state.start(ev, th)
        first = st.host_cpu()
        assert first == st._host_cpu() and st.host_cpu() is first


def test_the_pipeline_sets_made_once_are_the_samples_sets():
    rnd = random.Random(6)
    th = thresholds_mod.defaults()
    ev = Evidence(host="h", queues=[QueueSample(100.0, "typingQueue", rnd.choice([None, 0, 2]), 5.0, "sample",
                                                False, "rest") for _ in range(20)])
    st = state.start(ev, th)
    for name in ("queues", "threads", "pipelinesets", "processors"):
        assert st.psets_of(name) == {x.pipeline_set for x in getattr(ev, name)}
        assert st.psets_of(name) is st.psets_of(name)
