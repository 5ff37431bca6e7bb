"""thread_saturation: pegged threads and stage CPU make their stage a bottleneck."""
from ingest_doctor import model
from ingest_doctor.evidence import Evidence, PipelineSetLoad, ProcessorCpu, ThreadSample
from ingest_doctor.engine.rules import queue_chain, thread_saturation
from ingest_doctor.engine.rules.state import HEC_SYMPTOM, STAGE_CPU, THREAD
from fakes.rules import T0, queue, run, thread


def test_pegged_thread_replaces_a_tentative_spike_headline():
    ev = Evidence(host="hf", queues=[*queue("typingQueue", 10.0)[:3],
                                     *queue("typingQueue", 99.0)[3:]], threads=thread("typing"))
    d = run(ev, queue_chain.run, thread_saturation.run).drafts[("typing", None)]
    assert (d.severity, d.pegged, d.tentative, d.component) == ("warning", True, False, "typing")
    assert [(e.signal, e.value, e.window, e.source) for e in d.evidence if e.signal == "thread_busy_pct"] == \
        [("thread_busy_pct", 99.0, "4 of the last 4 samples", "logs/metrics.log group=dutycycle thread=typing")]


def test_thread_beside_a_full_queue_adds_a_sentence_not_a_second_headline():
    ev = Evidence(host="hf", queues=queue("typingQueue", 99.0), threads=thread("typing"))
    d = run(ev, queue_chain.run, thread_saturation.run).drafts[("typing", None)]
    assert d.headline.startswith("typingQueue is full")        # the queue's headline stays
    assert len(d.thread_details) == 1 and (d.pegged, d.tentative) == (True, False)
    assert [(e.signal, e.value, e.window, e.source.rsplit(" ", 1)[1]) for e in d.evidence] == [
        ("queue_fill_pct", 99.0, "4 of the last 4 samples", "name=typingqueue"),
        ("thread_busy_pct", 99.0, "4 of the last 4 samples", "thread=typing")]
    assert d.component == "typing"


def test_busy_hec_thread_behind_full_queues_is_tagged_as_a_hec_symptom_of_the_stage():
    ev = Evidence(host="hf", queues=queue("indexQueue", 99.0), threads=thread(model.HEC_THREAD))
    st = run(ev, queue_chain.run, thread_saturation.run)
    assert ("hec_input", None) not in st.drafts
    (detail,) = st.drafts[("indexing", None)].details
    assert detail.about == HEC_SYMPTOM


def test_stage_cpu_is_a_stage_cpu_state_and_evidence():
    procs = [ProcessorCpu(T0 + 30 * i, "merging", "aggregator", 29.0, 30.0, source="logs/metrics.log group=pipeline")
             for i in range(4)]
    st = run(Evidence(host="hf", processors=procs), queue_chain.run, thread_saturation.run)
    (s,) = st.threads
    assert s.kind == STAGE_CPU and s.stage.name == "merging"
    (item,) = st.drafts[("merging", None)].evidence
    assert item.signal == "stage_cpu_pct" and item.source.endswith("name=merging")


def test_thread_outside_the_pipeline_is_named_not_judged():
    st = run(Evidence(host="hf", threads=thread("replicationdatareceiverthread")), thread_saturation.run)
    assert st.drafts == {} and st.threads[0].kind == THREAD
    assert "not part of the ingestion pipeline" in st.not_judged[0]


def test_pipeline_set_busiest_thread_counts_for_its_set():
    loads = [PipelineSetLoad(T0 + 30 * i, 1, "typing", 97.0, source="rest pipelinesets") for i in range(4)]
    st = run(Evidence(host="hf", pipelinesets=loads, threads=[ThreadSample(T0, "typing", 1.0, 0)]),
             thread_saturation.run)
    assert st.drafts[("typing", 1)].severity == "warning"
