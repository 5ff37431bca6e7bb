"""Rules on plain Evidence (as the alert action builds it from result rows): edge cases and robustness."""
import math
import random

import pytest

from ingest_doctor import model
from ingest_doctor.diagnose import diagnose
from ingest_doctor.evidence import (Config, CpuSample, Evidence, HecError, HecProbe, IndexerStatus, LogSignal,
                                    PipelineSetLoad, ProcessorCpu, QueueSample, ThreadSample, Thruput)
from ingest_doctor.engine.series import SPIKE, SUSTAINED, judge
from ingest_doctor.thresholds import defaults

from fakes.rules import bottlenecks, thread


def test_series_rule():
    th = defaults()
    assert judge([(1.0, 95), (2.0, 20), (3.0, 95), (4.0, 95)], 90, th).level == SUSTAINED
    assert judge([(1.0, 95), (2.0, 20), (3.0, 20), (4.0, 95)], 90, th).level == SPIKE
    # the 10-minute average decides when the samples cover the window
    j = judge([(60.0 * i, 93.0 if i % 2 else 89.5) for i in range(12)], 90, th)
    assert j.level == SUSTAINED and j.window == "10m"
    assert judge([], 90, th).level == "ok"


def test_listener_overwhelmed_adds_max_threads_and_sockets():
    ev = Evidence(host="hf", threads=thread(model.HEC_THREAD),
                  config=Config(dedicated_io_threads=2, max_threads=0, max_sockets=0),
                  log_signals=[LogSignal(1000.0, "hec_listener_overwhelmed", "Can't handle request",
                                         "logs/splunkd.log HttpListener")])
    (f,) = diagnose(ev).findings
    assert f.bottleneck == "hec_input"
    settings = {x.setting: x for x in f.recommendations}
    assert settings["maxThreads"].current == "0" and settings["maxSockets"].conf_file == "inputs.conf"
    assert settings["dedicatedIoThreads"].current == "2"


def test_hec_busy_without_queue_data_is_a_hec_input_finding_that_says_so():
    ev = Evidence(host="hf", hec_errors=[HecError(1000.0 + i, 9, "app", "Server is busy", "logs/splunkd.log")
                                         for i in range(5)])
    (f,) = diagnose(ev).findings
    assert (f.bottleneck, f.severity) == ("hec_input", "warning")
    assert "no queue data" in f.summary


PAUSED = [LogSignal(1000.0 + 10 * i, "tcpout_blocked", "paused", "logs/splunkd.log TcpOutputProc") for i in range(4)]


@pytest.mark.parametrize("ev, want", [
    pytest.param(Evidence(host="hf", hec_probes=[HecProbe(1000.0, 200, 17, 3.0), HecProbe(1010.0, 503, 18, 3.0),
                                                 HecProbe(1020.0, 200, 17, 3.0)]),
                 [("hec_input", "info")], id="one_unhealthy_probe_is_info"),
    pytest.param(Evidence(host="idx", indexer=IndexerStatus("stopped", "", 0.0, "rest x"),
                          queues=[QueueSample(None, "indexQueue", None, 100.0, "10m", source="rest q")]),
                 [("indexer_throttled", "critical")], id="indexer_stopped_absorbs_the_indexing_symptom"),
    pytest.param(Evidence(host="h", cpu=[CpuSample(1000.0 + 10 * i, v, None, 8) for i, v in enumerate([30, 97, 30])]),
                 [("host_cpu", "info")], id="host_cpu_one_timed_spike_is_info"),
    pytest.param(Evidence(host="h", cpu=[CpuSample(1000.0 + 10 * i, 97.0, None, 8) for i in range(4)]),
                 [("host_cpu", "warning")], id="host_cpu_sustained_is_warning"),
    # window averages from alert rows count as sustained when they span the sustained window
    pytest.param(Evidence(host="hf", threads=[ThreadSample(1000.0, model.HEC_THREAD, 96.0, None, "10m", "alert")]),
                 [("hec_input", "warning")], id="alert_row_10m_thread_average_is_sustained"),
    pytest.param(Evidence(host="hf", threads=[ThreadSample(1000.0, model.HEC_THREAD, 96.0, None, "5m", "alert")]),
                 [("hec_input", "info")], id="alert_row_5m_thread_average_is_not"),
    pytest.param(Evidence(host="i", queues=[QueueSample(1000.0, "typingQueue", 1, 97.0, "30m", source="alert")]),
                 [("typing", "warning")], id="alert_row_30m_queue_average_is_sustained"),
    pytest.param(Evidence(host="uf", log_signals=PAUSED), [("output", "warning")],
                 id="tcpout_paused_without_queue_data_is_an_output_warning"),
    pytest.param(Evidence(host="uf", log_signals=PAUSED[:1], queues=[
                     QueueSample(1000.0 + 30 * i, "parsingQueue", None, 5.0, source="m") for i in range(4)]),
                 [("output", "info")], id="one_tcpout_pause_with_quiet_queues_is_info"),
])
def test_plain_evidence_gives_its_bottlenecks(ev, want):
    assert bottlenecks(diagnose(ev)) == want


def test_unknown_pegged_thread_is_listed_not_dropped():
    r = diagnose(Evidence(host="x", threads=thread("replicationdatareceiverthread")))
    assert r.findings == []
    assert any("replicationdatareceiverthread" in n and "not part of the ingestion pipeline" in n
               for n in r.not_judged)


def test_hidden_single_core_sentence():
    ev = Evidence(host="hf", threads=thread("typing"), cpu=[CpuSample(None, 5.0, 100.0, 24)])
    ev.host_cpu.cores, ev.host_cpu.splunkd_cpu_pct, ev.host_cpu.host_cpu_pct = 24, 100.0, 5.0
    (f,) = diagnose(ev).findings
    # the sentence of the README's example (the "4% of 24 cores is one core pegged" trap)
    assert "splunkd uses about 4% of 24 cores, which is one core pegged" in f.summary
    assert [(e.signal, e.value) for e in f.evidence if e.signal == "splunkd_cpu_pct_of_host"] == \
        [("splunkd_cpu_pct_of_host", 4.2)]


def test_stage_cpu_from_processors_alone():
    ev = Evidence(host="i", processors=[ProcessorCpu(1000.0 + 30 * i, "merging", "aggregator", 29.0, 30.0)
                                        for i in range(4)])
    (f,) = diagnose(ev).findings
    assert f.bottleneck == "merging" and any(e.signal == "stage_cpu_pct" for e in f.evidence)


def test_imbalance_from_pipelineset_loads():
    loads = [PipelineSetLoad(1000.0 + 30 * i, p, "indexerpipe", 99.0 if p == 0 else 5.0)
             for i in range(4) for p in range(3)]
    r = diagnose(Evidence(host="i", pipelinesets=loads))
    assert ("indexing", "warning") in bottlenecks(r) and ("pipeline_set_imbalance", "warning") in bottlenecks(r)
    assert [f.pipeline_set for f in r.findings if f.bottleneck == "indexing"] == [0]


def test_random_evidence_never_crashes():
    rnd = random.Random(7)
    queues = ["parsingQueue", "aggQueue", "typingQueue", "indexQueue", "tcpout", "splunktcpin", "AEQ", "weird"]
    threads = ["typing", "indexerpipe", model.HEC_THREAD, "tcpouteloop", "nobody", ""]
    values = [0.0, 50.0, 99.0, 100.0, 250.0, -1.0, math.inf, float("nan")]
    for _ in range(200):
        ev = Evidence(host=rnd.choice([None, "h"]))
        for _ in range(rnd.randint(0, 30)):
            t = rnd.choice([None, rnd.uniform(0, 3000)])
            pset = rnd.choice([None, 0, 1, 2])
            ev.queues.append(QueueSample(t, rnd.choice(queues), pset, rnd.choice(values),
                                         rnd.choice(["sample", "1m", "10m", "15m"]), rnd.random() < 0.2))
            ev.threads.append(ThreadSample(t, rnd.choice(threads), rnd.choice(values), pset))
            ev.processors.append(ProcessorCpu(t, rnd.choice(["typing", "merging", "x"]), "regexreplacement",
                                              rnd.choice(values), rnd.choice([30.0, 0.0, -5.0]), pset))
            ev.pipelinesets.append(PipelineSetLoad(t, rnd.choice([0, 1, 2]), rnd.choice(threads), rnd.choice(values)))
            ev.hec_probes.append(HecProbe(t, rnd.choice([None, 200, 503]), rnd.choice([None, 17, 18, 20]), None))
            ev.cpu.append(CpuSample(t, rnd.choice(values + [None]), rnd.choice(values + [None]),
                                    rnd.choice([None, 0, 1, 24])))
        if rnd.random() < 0.3:
            ev.indexer = IndexerStatus(rnd.choice(["normal", "throttled", "unknown", ""]))
        ev.host_cpu.cores = rnd.choice([None, 0, 24])
        ev.host_cpu.splunkd_cpu_pct = rnd.choice(values + [None])
        ev.host_cpu.host_cpu_pct = rnd.choice(values + [None])
        diagnose(ev).to_dict()


def test_parsing_stage_advice_is_about_line_breaking():
    ev = Evidence(host="hf", threads=thread("parsing"),
                  thruput=[Thruput(1000.0, "sourcetype", "vendor:raw", 900.0)],
                  config=Config(parallel_ingestion_pipelines=1,
                                props={"vendor:raw": {"LINE_BREAKER": "([\\r\\n]+)", "CHARSET": "AUTO"}}))
    (f,) = diagnose(ev).findings
    got = {(r.stanza, r.setting): r for r in f.recommendations}
    assert got[("vendor:raw", "CHARSET")].suggested == "UTF-8"
    assert ("vendor:raw", "LINE_BREAKER") in got and ("vendor:raw", "SHOULD_LINEMERGE") not in got
    assert got[("general", "parallelIngestionPipelines")].suggested == "2"


def test_hec_latency_sustained_is_a_warning_a_single_slow_probe_is_info():
    slow = [HecProbe(1000.0 + 10 * i, 200, 17, 2500.0, kind="event") for i in range(4)]
    r = diagnose(Evidence(host="hf", hec_probes=slow))
    assert bottlenecks(r) == [("hec_input", "warning")]
    assert [(e.signal, e.value) for e in r.findings[0].evidence] == [("hec_latency_ms", 2500.0)]
    one = [HecProbe(1000.0 + 10 * i, 200, 17, v) for i, v in enumerate([20.0, 3000.0, 25.0])]
    assert bottlenecks(diagnose(Evidence(host="hf", hec_probes=one))) == [("hec_input", "info")]
