"""file_monitor and the /proc thread names of issue 12: the tail thread, HttpInputServer, IndexerTPoolWorker."""
from ingest_doctor.read import metricslog
from ingest_doctor import model
from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine import advice, rules
from ingest_doctor.evidence import Config, Evidence
from ingest_doctor.engine.rules import file_monitor, queue_chain, stage_advice, thread_saturation
from fakes.rules import queue, run, thread

WIDE = ("11-22-2025 09:00:%02d.000 +0000 INFO  Metrics - group=dutycycle, name=misc, mgmt_httpd=0.001, tail=%s, "
        "udpin=0.000")
TAIL_ONLY = "11-22-2025 09:01:%02d.000 +0000 INFO  Metrics - group=dutycycle, name=misc, tail=%s"


def tail_pegged(ratio="0.990"):
    ev = Evidence(host="uf")
    metricslog.parse_lines([WIDE % (s, ratio) for s in (0, 30)] + [TAIL_ONLY % (s, ratio) for s in (0, 30)], ev)
    return ev


def test_pegged_tail_is_the_file_monitor_input_with_its_own_advice():
    report = diagnose(tail_pegged())
    (f,) = report.findings
    assert (f.bottleneck, f.severity, f.component) == (model.HEC_INPUT, "warning", "tail")
    d = run(tail_pegged(), *rules.RULES).drafts[(model.HEC_INPUT, None)]
    assert (d.inputs, d.hec) == ([model.FILE_MONITOR], False)      # the file monitor input, not HEC
    assert "HEC" not in f.summary                                   # and the admin is not told HEC
    assert f.recommendations == advice.file_monitor(tail_pegged())  # its own advice only, no HEC threads
    assert not any("services/data/inputs/http" in n for n in report.not_judged)
    assert not any("tail" in n and "not part of the ingestion pipeline" in n for n in report.not_judged)


def test_idle_tail_is_nothing():
    assert diagnose(tail_pegged("0.088")).findings == []


def test_tail_busy_behind_full_queues_waits_on_them():
    ev = tail_pegged()
    ev.queues = queue("indexQueue", 99.0)
    st = run(ev, queue_chain.run, thread_saturation.run, file_monitor.run)
    assert (model.HEC_INPUT, None) not in st.drafts
    d = st.drafts[("indexing", None)]
    assert [(e.signal, e.value, e.source) for e in d.evidence if e.signal == "thread_busy_pct"] == \
        [("thread_busy_pct", 99.0, "logs/metrics.log group=dutycycle thread=%s" % model.FILE_MONITOR.thread)]
    assert [x.about for x in d.details] == [""]                   # said once; not a HEC symptom


def test_tail_and_hec_pegged_together_give_both_advices_in_one_input_finding():
    ev = tail_pegged()
    ev.threads += thread(model.HEC_THREAD)
    ev.config = Config(dedicated_io_threads=2)
    st = run(ev, queue_chain.run, thread_saturation.run, file_monitor.run, stage_advice.run)
    d = st.drafts[(model.HEC_INPUT, None)]
    assert d.hec and d.inputs == [model.FILE_MONITOR]
    # issue 18: the core count was not read, so no number past what the cores may allow
    assert [(r.setting, r.current, r.suggested) for r in d.recommendations if r.setting] == \
        [("dedicatedIoThreads", "2", None)]
    assert all(r in d.recommendations for r in advice.file_monitor(ev))
    assert [e.source.rsplit("thread=", 1)[1] for e in d.evidence if e.signal == "thread_busy_pct"] == \
        [model.HEC_THREAD, model.FILE_MONITOR.thread]
    assert len(d.thread_details) == 1                               # the tail thread's sentence beside HEC's


def test_proc_httpinputserver_is_not_counted_as_the_hec_data_thread():
    ev = Evidence(host="hf", threads=thread("httpinputserver", source="collector /proc"))
    report = diagnose(ev)
    assert report.findings == []
    (note,) = [n for n in report.not_judged if "httpinputserver " in n]
    assert "httpinputservermanagementthread" in note and "not judged" in note


def test_dutycycle_decides_for_the_ambiguous_proc_name():
    ev = Evidence(host="hf", threads=thread("httpinputserver", source="collector /proc")
                  + thread(model.HEC_THREAD, source="logs/metrics.log group=dutycycle"))
    report = diagnose(ev)
    (f,) = report.findings
    assert f.bottleneck == model.HEC_INPUT and f.component == model.HEC_THREAD
    assert [e.source for e in f.evidence if e.signal == "thread_busy_pct"] == \
        ["logs/metrics.log group=dutycycle thread=%s" % model.HEC_THREAD]
    assert any("metrics.log dutycycle judges them instead" in n for n in report.not_judged)


def test_indexer_pool_workers_are_the_indexing_stage():
    assert model.stage_for_thread("indexertpoolworker").name == "indexing"
    ev = Evidence(host="idx")
    metricslog.parse_lines(["11-22-2025 09:00:%02d.000 +0000 INFO  Metrics - group=dutycycle, name=ingest, "
                            "thread=IndexerTPoolWorker-2, ratio=0.97" % s for s in (0, 10, 20, 30)], ev)
    assert {t.thread for t in ev.threads} == {"indexertpoolworker"}
    (f,) = diagnose(ev).findings
    assert (f.bottleneck, f.severity, f.component) == ("indexing", "warning", "indexertpoolworker")
