"""stage_cpu: metrics.log group=pipeline CPU counts only when it is physically possible (issue 12)."""
from ingest_doctor.read import metricslog
from ingest_doctor import model
from ingest_doctor.diagnose import diagnose
from ingest_doctor.evidence import Evidence, ProcessorCpu
from ingest_doctor.engine.rules import queue_chain, thread_saturation
from fakes.rules import T0, queue, run, thread

# Real Splunk 5.x metrics.log line (idle laptop, 2012), quoted verbatim in issue 12; from the `_internal`
# export shipped as splunk/eventgen splunk_eventgen/samples/sample.tutorial1 (see the shared reference
# samples/metrics_log and PROVENANCE.md). The export repeats it: it must count once.
REAL_5X_MERGING = ("09-15-2012 22:35:43.988 INFO  Metrics - group=pipeline, name=merging, processor=aggregator, "
                   "cpu_seconds=669.899963, executes=319, cumulative_hits=33287")


def test_idle_5x_instance_is_healthy_and_names_the_cpu_reading_unreliable():
    # The real line in a 31-second interval, with every queue at 0% (the lines around it are ours).
    lines = []
    for stamp in ("09-15-2012 22:35:12.959", "09-15-2012 22:35:43.988"):
        for q, size in (("parsingqueue", 6144), ("aggqueue", 1024), ("typingqueue", 1024), ("indexqueue", 1024)):
            lines.append("%s INFO  Metrics - group=queue, name=%s, max_size_kb=%d, current_size_kb=0, "
                         "current_size=0, largest_size=0, smallest_size=0" % (stamp, q, size))
    lines.insert(4, "09-15-2012 22:35:12.959 INFO  Metrics - group=pipeline, name=merging, processor=aggregator, "
                    "cpu_seconds=668.130000, executes=317, cumulative_hits=32968")
    ev = Evidence(host="laptop")
    stats = metricslog.MetricsLogParser(ev).feed_all(lines + [REAL_5X_MERGING, REAL_5X_MERGING]).finish()
    assert stats.duplicates == 1
    assert [p.cpu_seconds for p in ev.processors] == [668.13, 669.899963]
    assert round(ev.processors[0].interval_s) == 31
    report = diagnose(ev)
    assert report.healthy and report.findings == []
    (note,) = [n for n in report.not_judged if "name=merging" in n]
    assert "unreliable" in note and "merging stage CPU not judged" in note


def procs(pipeline, seconds, n=4, interval=30.0, pset=None):
    return [ProcessorCpu(T0 + 30 * i, pipeline, "aggregator", seconds, interval, pset, source="m")
            for i in range(n)]


def test_the_bound_is_the_stage_threads_times_the_interval_with_slack():
    merging = model.STAGE_BY_NAME["merging"]
    assert merging.threads_per_set == 1 and model.max_cpu_pct(merging) == 110.0
    st = run(Evidence(host="hf", processors=procs("merging", 32.0)), queue_chain.run, thread_saturation.run)
    assert st.drafts[("merging", None)].severity == "warning"          # 107%: within the slack
    st = run(Evidence(host="hf", processors=procs("merging", 34.0)), queue_chain.run, thread_saturation.run)
    assert st.drafts == {} and "unreliable" in st.not_judged[0]        # 113%: not CPU time


def test_one_impossible_batch_makes_the_whole_series_unreliable():
    ps = procs("typing", 10.0) + [ProcessorCpu(T0 + 200, "typing", "regexreplacement", 90.0, 30.0, source="m")]
    st = run(Evidence(host="hf", processors=ps), queue_chain.run, thread_saturation.run)
    assert st.threads == [] and "typing stage CPU not judged" in st.not_judged[0]


def test_empty_queue_and_idle_thread_overrule_processor_cpu():
    ev = Evidence(host="hf", processors=procs("merging", 29.0), queues=queue("aggQueue", 0.0),
                  threads=thread("aggregator", 2.0))
    st = run(ev, queue_chain.run, thread_saturation.run)
    assert st.drafts == {}
    assert any("aggQueue is empty and the stage's thread idle" in n for n in st.not_judged)


def test_processor_cpu_still_counts_when_the_thread_is_not_measured_or_busy():
    ev = Evidence(host="hf", processors=procs("merging", 29.0), queues=queue("aggQueue", 0.0))
    assert run(ev, queue_chain.run, thread_saturation.run).drafts[("merging", None)].severity == "warning"
    ev.threads = thread("aggregator", 60.0)
    assert run(ev, queue_chain.run, thread_saturation.run).drafts[("merging", None)].severity == "warning"


def test_the_pipeline_lookup_carries_the_bound():
    rows = [dict(zip(model.PIPELINE_FIELDS, r)) for r in model.pipeline_rows()]
    assert {(r["stage"], r["threads_per_set"], r["max_cpu_pct"]) for r in rows if r["stage"] == "merging"} == \
        {("merging", "1", "110")}
