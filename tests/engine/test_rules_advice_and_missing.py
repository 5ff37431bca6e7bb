"""stage_advice and not_judged: advice for every warning still without any, and what was not judged."""
from ingest_doctor import model
from ingest_doctor.evidence import Config, Evidence, ProcessorCpu
from ingest_doctor.engine.rules import not_judged, queue_chain, stage_advice, thread_saturation
from fakes.rules import T0, cpu, queue, run, state, thread


def test_typing_advice_carries_the_regex_share():
    procs = [ProcessorCpu(T0, "typing", p, s, 30.0, source="m") for p, s in (("regexreplacement", 8.0),
                                                                              ("annotator", 2.0))]
    ev = Evidence(host="hf", queues=queue("typingQueue", 99.0), processors=procs)
    d = run(ev, queue_chain.run, stage_advice.run).drafts[("typing", None)]
    assert any(e.signal == "regex_cpu_share_pct" and e.value == 80.0 for e in d.evidence)
    assert d.recommendations


def test_indexing_advice_names_the_headroom():
    ev = Evidence(host="idx", queues=queue("indexQueue", 99.0), cpu=cpu([20, 20, 20, 20]))
    st = run(ev, queue_chain.run, stage_advice.run)
    d = st.drafts[("indexing", None)]
    assert st.headroom() is True
    assert [(e.signal, e.value) for e in d.evidence if e.signal == "host_cpu_pct"] == [("host_cpu_pct", 20.0)]
    assert [(r.conf_file, r.stanza, r.setting, r.current, r.suggested) for r in d.recommendations if r.setting] == \
        [("server.conf", "general", "parallelIngestionPipelines", None, "2")]


def test_info_drafts_get_no_advice():
    ev = Evidence(host="hf", threads=thread("typing", 99.0, n=1) + thread("typing", 10.0, n=3)[1:])
    assert run(ev, thread_saturation.run, stage_advice.run).drafts[("typing", None)].recommendations == []


def test_hec_advice_says_more_threads_barely_help_when_already_raised():
    ev = Evidence(host="hf", threads=thread(model.HEC_THREAD), config=Config(dedicated_io_threads=8))
    ev.host_cpu.cores = 16
    d = run(ev, thread_saturation.run, stage_advice.run).drafts[("hec_input", None)]
    # issue 18: raised (8) and still pegged: scaling out is the only advice, never "raise further"
    assert [(r.setting, r.current, r.suggested) for r in d.recommendations] == [(None, None, None)]
    assert d.pegged and len(d.details) == 1


def test_not_judged_names_every_missing_source_once():
    st = run(Evidence(host="hf"), not_judged.run)
    assert st.not_judged[0] == "no evidence could be read: nothing was judged"
    assert any("queue-chain localisation not judged" in n for n in st.not_judged)
    ev = Evidence(host="hf", queues=queue("typingQueue", 99.0, pset=0) + queue("typingQueue", 99.0, pset=1))
    st = run(ev, queue_chain.run, not_judged.run)
    assert sum("conf-props" in n for n in st.not_judged) == 1


def test_missing_configuration_is_named_in_the_pipelines_order_whatever_order_the_stages_were_drafted():
    notes = []
    for order in (("output", "typing", "indexing", "merging"), ("merging", "indexing", "typing", "output")):
        st = state(Evidence(host="hf", queues=queue("typingQueue", 99.0)))
        for stage in order:
            st.draft(stage, None, severity="warning")
        not_judged.run(st)
        notes.append([n for n in st.not_judged if "recommendation cannot show" in n])
    assert notes[0] == notes[1]
    assert [n.split(": the ")[1].split()[0] for n in notes[0]] == ["merging", "typing", "indexing", "output"]
