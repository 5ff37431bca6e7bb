"""log_symptoms, indexer_throttled, host_cpu, imbalance, hidden_saturation: one test module per rule group."""
from ingest_doctor import model
from ingest_doctor.evidence import CpuSample, Evidence, HecError, IndexerStatus, LogSignal, PipelineSetLoad
from ingest_doctor.engine.rules import (hec_symptoms, hidden_saturation, host_cpu, imbalance, indexer_throttled,
                                 log_symptoms, queue_chain, thread_saturation)
from ingest_doctor.engine.rules.state import HEC_SYMPTOM
from fakes.rules import T0, cpu, queue, run, thread


def paused(kind, n):
    return [LogSignal(T0 + i, kind, "paused", "logs/splunkd.log") for i in range(n)]


def test_log_symptoms_tcpout_paused_without_queue_data_is_an_output_warning():
    st = run(Evidence(host="hf", log_signals=paused("tcpout_blocked", 3)), queue_chain.run, log_symptoms.run)
    assert st.drafts[("output", None)].severity == "warning"
    st = run(Evidence(host="hf", queues=queue("tcpout", 5.0), log_signals=paused("tcpout_blocked", 1)),
             queue_chain.run, log_symptoms.run)
    assert st.drafts[("output", None)].severity == "info"


def test_log_symptoms_closed_ports_join_the_chain_finding():
    ev = Evidence(host="idx", queues=queue("indexQueue", 99.0), log_signals=paused("tcpin_stopped", 2))
    d = run(ev, queue_chain.run, log_symptoms.run).drafts[("indexing", None)]
    assert [(e.signal, e.value, e.unit) for e in d.evidence if e.signal == "tcpin_stopped_messages"] == \
        [("tcpin_stopped_messages", 2, "lines")]
    assert len(d.details) == 1


def test_indexer_throttled_absorbs_indexing_and_keeps_only_hec_symptom_details():
    ev = Evidence(host="idx", indexer=IndexerStatus("throttled", "too many tsidx files", None, "rest ix"),
                  queues=queue("indexQueue", 99.0) + queue("tcpout", 3.0),
                  hec_errors=[HecError(T0 + i, 9, "", "", "logs/splunkd.log") for i in range(5)])
    st = run(ev, queue_chain.run, hec_symptoms.run, indexer_throttled.run)
    assert list(st.drafts) == [(model.INDEXER_THROTTLED, None)]
    d = st.drafts[(model.INDEXER_THROTTLED, None)]
    assert [x.about for x in d.details] == [HEC_SYMPTOM]      # "tcpout after it is only 3% full" stays behind
    assert d.recommendations


def test_indexer_normal_is_quiet():
    assert run(Evidence(host="idx", indexer=IndexerStatus("normal")), indexer_throttled.run).drafts == {}


def test_host_cpu_sustained_warning_spike_info():
    st = run(Evidence(host="h", cpu=cpu([97, 98, 99, 97])), host_cpu.run)
    assert st.drafts[(model.HOST_CPU, None)].severity == "warning"
    st = run(Evidence(host="h", cpu=cpu([30, 97, 30])), host_cpu.run)
    assert st.drafts[(model.HOST_CPU, None)].severity == "info"


def test_imbalance_needs_a_saturated_set_beside_an_idle_one():
    loads = [PipelineSetLoad(T0 + 30 * i, p, "typing", v, source="m") for i in range(4)
             for p, v in ((0, 98.0), (1, 5.0))]
    ev = Evidence(host="hf", pipelinesets=loads)
    st = run(ev, queue_chain.run, thread_saturation.run, imbalance.run)
    d = st.drafts[(model.PIPELINE_SET_IMBALANCE, None)]
    assert (d.severity, d.component) == ("warning", "pipelineSetSelectionPolicy")
    assert [(e.signal, e.value, e.source) for e in d.evidence] == [("pipeline_set_busy_pct", 5.0, "m ingest_pipe=1")]
    assert run(ev, imbalance.run).drafts == {}          # nothing saturated yet: no imbalance


def test_hidden_saturation_needs_a_pegged_finding_and_a_quiet_host():
    ev = Evidence(host="hf", threads=thread("typing"), cpu=[CpuSample(None, 5.0, 100.0, 24)])
    ev.host_cpu.cores, ev.host_cpu.splunkd_cpu_pct = 24, 100.0
    d = run(ev, thread_saturation.run, hidden_saturation.run).drafts[("typing", None)]
    # 100% of one core on a 24-core host: 4.2% of the host, one core's worth
    (share,) = [e for e in d.evidence if e.signal == "splunkd_cpu_pct_of_host"]
    assert (share.value, round(share.value * 24 / 100.0)) == (4.2, 1) and d.hidden
    ev.host_cpu.splunkd_cpu_pct = 2000.0
    d = run(ev, thread_saturation.run, hidden_saturation.run).drafts[("typing", None)]
    assert d.hidden == "" and not [e for e in d.evidence if e.signal == "splunkd_cpu_pct_of_host"]
