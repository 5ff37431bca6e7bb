"""queue_chain: the stage draining the last full queue, per pipeline set."""
from ingest_doctor.evidence import Evidence, QueueSample
from ingest_doctor.engine.rules import queue_chain
from ingest_doctor.engine.series import OK, SUSTAINED
from fakes.rules import T0, queue, run


def test_last_full_queue_names_the_stage_and_fills_the_chain():
    ev = Evidence(host="hf", queues=queue("parsingQueue", 99.0) + queue("aggQueue", 98.0)
                  + queue("typingQueue", 97.0) + queue("indexQueue", 10.0))
    st = run(ev, queue_chain.run)
    assert st.chain == {None: "typing"}
    d = st.drafts[("typing", None)]
    assert (d.severity, d.component, d.tentative) == ("warning", "typingQueue", False)
    assert sorted((q.queue, q.level) for q in st.queues) == [("aggQueue", SUSTAINED), ("indexQueue", OK),
                                                             ("parsingQueue", SUSTAINED), ("typingQueue", SUSTAINED)]
    # the full queues in chain order (the two behind it, then its own), then the one after it
    assert [(e.signal, e.value, e.source.rsplit("name=", 1)[1]) for e in d.evidence] == [
        ("queue_fill_pct", 99.0, "parsingqueue"), ("queue_fill_pct", 98.0, "aggqueue"),
        ("queue_fill_pct", 97.0, "typingqueue"), ("queue_fill_pct", 10.0, "indexqueue")]
    assert len(d.details) == 1
    assert "parsingQueue, aggQueue behind it back up" in d.headline     # the README's example sentence


def test_blocked_queue_is_critical_and_each_pipeline_set_has_its_own_chain():
    ev = Evidence(host="hf", queues=queue("indexQueue", 100.0, pset=0, blocked=True) + queue("aggQueue", 95.0, pset=1)
                  + queue("indexQueue", 5.0, pset=1))
    st = run(ev, queue_chain.run)
    assert st.chain == {0: "indexing", 1: "merging"}
    assert st.drafts[("indexing", 0)].severity == "critical"
    assert st.drafts[("merging", 1)].severity == "warning"


def test_one_spike_is_a_tentative_info_draft_and_not_in_the_chain():
    ev = Evidence(host="hf", queues=[QueueSample(T0 + 30 * i, "typingQueue", None, v, source="m")
                                     for i, v in enumerate([10, 99, 10, 10])])
    st = run(ev, queue_chain.run)
    assert st.chain == {}
    d = st.drafts[("typing", None)]
    assert (d.severity, d.tentative) == ("info", True)


def test_rest_average_over_the_sustained_window_is_sustained():
    ev = Evidence(host="hf", queues=[QueueSample(None, "aggQueue", None, 95.0, "15m", source="rest q")])
    st = run(ev, queue_chain.run)
    assert st.chain == {None: "merging"}
    assert st.queues[0].window == "15m average"
