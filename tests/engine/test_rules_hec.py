"""hec_symptoms and hec_latency: HEC refusals and slow requests, attributed downstream when queues are full."""
from ingest_doctor import model
from ingest_doctor.evidence import Evidence, HecError, HecProbe, LogSignal
from ingest_doctor.engine.rules import hec_latency, hec_symptoms, queue_chain, thread_saturation
from ingest_doctor.engine.rules.state import HEC_SYMPTOM
from fakes.rules import T0, queue, run, thread


def busy(n=5):
    return [HecError(T0 + i, model.HEC_BUSY_REPLY, "app", "Server is busy", "logs/splunkd.log") for i in range(n)]


def health(codes, status=503):
    return [HecProbe(T0 + 10 * i, 200 if c == model.HEC_HEALTHY else status, c, 3.0) for i, c in enumerate(codes)]


def test_busy_replies_with_full_queues_go_to_the_stage_tagged_as_hec_symptoms():
    ev = Evidence(host="hf", queues=queue("indexQueue", 99.0), hec_errors=busy())
    st = run(ev, queue_chain.run, hec_symptoms.run)
    d = st.drafts[("indexing", None)]
    assert d.severity == "critical" and ("hec_input", None) not in st.drafts
    assert [x.about for x in d.details] == [HEC_SYMPTOM]
    assert any(e.signal == "hec_reply_9_server_busy" and e.value == 5 for e in d.evidence)


def test_busy_replies_without_queue_data_are_a_hec_input_warning():
    d = run(Evidence(host="hf", hec_errors=busy()), queue_chain.run, hec_symptoms.run).drafts[("hec_input", None)]
    assert (d.severity, d.component) == ("warning", model.HEC_THREAD)
    assert [(e.signal, e.value) for e in d.evidence] == [("hec_reply_9_server_busy", 5)]
    # no field says the queues were not read: the headline tells the admin (product text)
    assert "no queue data" in d.headline


def test_sustained_unhealthy_codes_with_queues_draining_are_hec_input():
    ev = Evidence(host="hf", queues=queue("indexQueue", 5.0), hec_probes=health([18, 18, 18, 18]))
    assert run(ev, queue_chain.run, hec_symptoms.run).drafts[("hec_input", None)].severity == "warning"


def test_one_unhealthy_answer_is_a_tentative_info():
    d = run(Evidence(host="hf", hec_probes=health([17, 18, 17])), hec_symptoms.run).drafts[("hec_input", None)]
    assert (d.severity, d.tentative) == ("info", True)


def test_listener_overwhelmed_names_the_listener():
    ev = Evidence(host="hf", log_signals=[LogSignal(T0, "hec_listener_overwhelmed", "x", "logs/splunkd.log")])
    assert run(ev, hec_symptoms.run).drafts[("hec_input", None)].component == "HttpListener"


def test_pegged_hec_thread_raised_to_critical_by_its_own_refusals():
    ev = Evidence(host="hf", threads=thread(model.HEC_THREAD), hec_errors=busy())
    d = run(ev, queue_chain.run, thread_saturation.run, hec_symptoms.run).drafts[("hec_input", None)]
    assert d.severity == "critical" and d.details[-1].about == ""


def probes(ms, kind="event"):
    return [HecProbe(T0 + 10 * i, 200, None, v, kind) for i, v in enumerate(ms)]


def test_sustained_latency_replaces_a_tentative_headline():
    ev = Evidence(host="hf", hec_probes=health([17, 18, 17]) + probes([5000.0] * 4))
    d = run(ev, hec_symptoms.run, hec_latency.run).drafts[("hec_input", None)]
    assert (d.severity, d.tentative, d.component) == ("warning", False, model.HEC_THREAD)
    assert [(e.signal, e.value) for e in d.evidence if e.signal == "hec_latency_ms"] == [("hec_latency_ms", 5000.0)]
    assert d.headline.startswith("HEC requests take")          # the latency's headline, not the tentative one


def test_one_slow_probe_is_info_and_full_queues_take_the_latency():
    st = run(Evidence(host="hf", hec_probes=probes([3.0, 9000.0, 3.0])), hec_latency.run)
    assert st.drafts[("hec_input", None)].severity == "info"
    ev = Evidence(host="hf", queues=queue("indexQueue", 99.0), hec_probes=probes([5000.0] * 4))
    st = run(ev, queue_chain.run, hec_latency.run)
    assert ("hec_input", None) not in st.drafts
    assert any(e.signal == "hec_latency_ms" for e in st.drafts[("indexing", None)].evidence)


def test_429_code_26_health_answers_with_indexing_saturated_are_an_indexing_finding():
    ev = Evidence(host="hf", queues=queue("indexQueue", 99.0), hec_probes=health([26] * 4, status=429))
    st = run(ev, queue_chain.run, hec_symptoms.run)
    assert ("hec_input", None) not in st.drafts
    d = st.drafts[("indexing", None)]
    assert d.severity in ("warning", "critical")
    (detail,) = d.details
    assert detail.about == HEC_SYMPTOM
    assert [(e.signal, e.value) for e in d.evidence] == [("queue_fill_pct", 99.0), ("hec_health_code", 26)]
    assert "answers 429" in detail.text                        # the HTTP status is in no field, only said


def test_sustained_429_without_queue_data_is_a_hec_input_warning_and_reply_26_counts_as_busy():
    st = run(Evidence(host="hf", hec_probes=health([27] * 4, status=429)), queue_chain.run, hec_symptoms.run)
    assert st.drafts[("hec_input", None)].severity == "warning"
    errs = [HecError(T0 + i, 26, "app", "", "logs/splunkd.log") for i in range(5)]
    st = run(Evidence(host="hf", queues=queue("typingQueue", 99.0), hec_errors=errs), queue_chain.run,
             hec_symptoms.run)
    d = st.drafts[("typing", None)]
    assert [(e.signal, e.value, e.unit) for e in d.evidence if e.signal.startswith("hec_")] == \
        [("hec_reply_26_busy", 5, "errors")]
    assert [x.about for x in d.details] == [HEC_SYMPTOM]


def test_which_answers_are_back_pressure():
    assert model.hec_busy_answer(429, 26) and model.hec_busy_answer(503, 18) and model.hec_busy_answer(503, None)
    assert model.hec_busy_answer(429, None)
    assert not model.hec_busy_answer(503, 23)          # shutting down: not a full queue
    assert not model.hec_busy_answer(200, 24)          # approaching capacity: still accepted
    assert not model.hec_busy_answer(None, None) and not model.hec_busy_answer(400, 21)
    assert model.hec_status(26) == 429 and model.hec_status(99) == 503
