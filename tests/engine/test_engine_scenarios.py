"""Scenario snapshots (tests/scenarios/*, hand-made in real shapes) -> the expected findings."""
import os
import subprocess
import sys

import pytest

from ingest_doctor.diagnose import diagnose
from ingest_doctor.findings import BOTTLENECKS, SEVERITIES
from ingest_doctor.read.snapshot import load_snapshot
from fakes.engine_helpers import copy_scenario
from fakes.paths import SCENARIOS as SCEN


def run(name):
    return diagnose(load_snapshot(os.path.join(SCEN, name))).to_dict()


def the_one_problem(name, bottleneck):
    """Scenario `name`'s finding on `bottleneck`, the one warning or worse in its report."""
    r = run(name)
    assert [f["bottleneck"] for f in warn(r)] == [bottleneck]
    return only(r, bottleneck)


def change(r):
    """A recommendation's setting: (conf file, stanza, current value, suggested value)."""
    return r["conf_file"], r["stanza"], r["current"], r["suggested"]


def warn(report):
    return [f for f in report["findings"] if f["severity"] in ("warning", "critical")]


def only(report, bottleneck, pipeline_set=None):
    hits = [f for f in report["findings"] if f["bottleneck"] == bottleneck and f["pipeline_set"] == pipeline_set]
    assert len(hits) == 1, report["findings"]
    return hits[0]


def rec(finding, setting):
    hits = [r for r in finding["recommendations"] if r["setting"] == setting]
    assert hits, finding["recommendations"]
    return hits[0]


def test_committed_scenarios_match_their_builder():
    r = subprocess.run([sys.executable, os.path.join(SCEN, "build.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(SCEN) if os.path.isdir(os.path.join(SCEN, n))))
def test_every_report_follows_the_contract(name):
    r = run(name)
    assert set(r) == {"host", "healthy", "not_judged", "findings", "headroom"}     # headroom: issue 18
    for f in r["findings"]:
        assert set(f) == {"id", "bottleneck", "severity", "host", "pipeline_set", "component", "summary",
                          "evidence", "recommendations"}
        assert f["bottleneck"] in BOTTLENECKS and f["severity"] in SEVERITIES
        assert f["id"] == "%s/%s/%s" % (f["host"] or "-", f["bottleneck"],
                                        "-" if f["pipeline_set"] is None else f["pipeline_set"])
        for e in f["evidence"]:
            assert set(e) == {"signal", "value", "unit", "window", "source"}
        for rc in f["recommendations"]:
            assert set(rc) == {"action", "conf_file", "stanza", "setting", "current", "suggested"}
            if rc["setting"]:
                assert rc["conf_file"] and rc["stanza"] is not None or rc["setting"] == "SHOULD_LINEMERGE"
    assert r["healthy"] == (not warn(r))


def test_ids_are_stable_between_runs():
    assert [f["id"] for f in run("one_of_four_blocked")["findings"]] == \
        [f["id"] for f in run("one_of_four_blocked")["findings"]]


def test_hec_thread_pegged_with_default_io_threads():
    f = the_one_problem("hec_pegged_default_io", "hec_input")
    assert f["id"] == "hf-01/hec_input/-" and f["component"] == "httpinputserverdatathread"
    assert f["severity"] == "warning"
    assert any(e["signal"] == "thread_busy_pct" and e["value"] >= 95 and "dutycycle" in e["source"]
               for e in f["evidence"])
    # issue 18: below the host's 8 physical cores (16 logical), raised to them exactly, first
    r_io = rec(f, "dedicatedIoThreads")
    assert change(r_io) == ("inputs.conf", "http", "2", "8")
    assert f["recommendations"][0] == r_io and "8 physical cores" in r_io["action"]
    assert "more threads on this one do not" not in f["summary"]
    # one core pegged on a 16-core host that looks idle: splunkd at 6.5% of the host is one core's worth
    share = [e["value"] for e in f["evidence"] if e["signal"] == "splunkd_cpu_pct_of_host"]
    assert share == [6.5] and round(share[0] * 16 / 100.0) == 1


def test_hec_thread_pegged_with_io_threads_already_raised():
    f = only(run("hec_pegged_io_raised"), "hec_input")
    first = f["recommendations"][0]
    assert first["setting"] is None and "load balancer" in first["action"]
    # issue 18: at the host's 8 physical cores (16 logical), scaling out is the only advice
    assert [(x["setting"], x["current"], x["suggested"]) for x in f["recommendations"]] == [(None, None, None)]
    assert "dedicatedIoThreads is 8" in first["action"] and "8 physical cores" in first["action"]
    assert [e["value"] >= 95 for e in f["evidence"] if e["signal"] == "thread_busy_pct"] == [True]


def test_typing_regex_bound_with_hidden_single_core_saturation():
    f = the_one_problem("typing_regex_hidden", "typing")
    assert "about 4% of 24 cores, which is one core pegged" in f["summary"]
    assert "indexQueue" in f["summary"] and "typingQueue is full" in f["summary"]
    named = [x["stanza"] for x in f["recommendations"] if x["conf_file"] == "props.conf"]
    assert named[:2] == ["cisco:asa", "pan:traffic"] and "syslog" not in named
    asa = f["recommendations"][0]
    assert asa["setting"] is None and "TRANSFORMS-asa_route" in asa["current"]
    assert any(e["signal"] == "regex_cpu_share_pct" and e["value"] > 50 for e in f["evidence"])
    assert rec(f, "parallelIngestionPipelines")["suggested"] == "2"


def test_merging_on_line_merging_defaults_names_the_sourcetypes():
    f = only(run("merging_linemerge"), "merging")
    assert "aggregator processor takes" in f["summary"]         # it stays on the aggregator's settings
    merge = [x for x in f["recommendations"] if x["setting"] == "SHOULD_LINEMERGE"]
    assert [x["stanza"] for x in merge] == ["custom:java", "app:log"]
    assert all(x["suggested"] == "false" and x["current"] == "True" for x in merge)
    settings = [(x["stanza"], x["setting"]) for x in f["recommendations"] if x["setting"]]
    assert settings[0] == ("custom:java", "SHOULD_LINEMERGE") and not [s for s in settings if s[1] == "CHARSET"]
    assert ("custom:java", "LINE_BREAKER") in settings and ("custom:java", "TIME_FORMAT") in settings
    assert ("custom:java", "MAX_TIMESTAMP_LOOKAHEAD") in settings
    assert not any(x["stanza"] == "access_combined" for x in f["recommendations"])


def test_indexing_with_cpu_headroom_adds_a_pipeline_set():
    f = the_one_problem("indexing_headroom", "indexing")
    assert change(rec(f, "parallelIngestionPipelines")) == ("server.conf", "general", "1", "2")


def test_one_of_four_pipeline_sets_blocked():
    r = run("one_of_four_blocked")
    f = only(r, "typing", 2)
    assert f["severity"] == "critical"
    assert [e["source"].rsplit(".", 1)[1] for e in f["evidence"] if e["source"].startswith("rest ")
            and "/queues " in e["source"]] == ["2", "2", "2", "2"]
    assert all(e["source"].endswith("ingest_pipe=2") for e in f["evidence"] if e["signal"] == "queue_blocked")
    assert not [x for x in r["findings"] if x["bottleneck"] == "typing" and x["pipeline_set"] != 2]
    imb = only(r, "pipeline_set_imbalance")
    assert rec(imb, "pipelineSetSelectionPolicy")["suggested"] == "weighted_random"
    assert [(e["signal"], e["source"].rsplit(" ", 1)[1]) for e in imb["evidence"]] == \
        [("pipeline_set_busy_pct", "ingest_pipe=%d" % p) for p in (0, 1, 3)]


def test_index_processor_throttled():
    f = the_one_problem("indexer_throttled", "indexer_throttled")
    assert f["severity"] == "critical"
    assert [e["value"] for e in f["evidence"] if e["signal"] == "indexer_status"] == ["throttled"]
    assert "disk space" in f["summary"]                # splunkd's own reason, quoted: in no other field
    assert any("disk space" in x["action"] for x in f["recommendations"])


def test_hec_503_caused_by_a_downstream_stage_is_not_a_hec_finding():
    f = the_one_problem("hec_503_downstream", "indexing")
    assert f["severity"] == "critical"
    signals = {e["signal"]: e["value"] for e in f["evidence"]}
    assert signals["hec_health_code"] == 18 and signals["hec_reply_9_server_busy"] == 24
    assert "symptom" in f["summary"]


def test_busy_but_healthy_instance_has_no_warning():
    r = run("busy_healthy")
    assert r["healthy"] is True and not warn(r)


def test_transient_spike_is_info_at_most():
    r = run("transient_spike")
    assert r["healthy"] is True and not warn(r)
    assert all(f["severity"] == "info" for f in r["findings"])
    # a spike: one sample over the threshold, no sustained window behind it
    assert r["findings"] and all(e["window"] == "sample" for f in r["findings"] for e in f["evidence"])


def test_partial_snapshot_names_bad_files_and_what_was_not_judged():
    r = run("partial")
    nj = "\n".join(r["not_judged"])
    assert "rest/services/server/introspection/queues.json: malformed JSON" in nj
    assert "rest/services/server/pipelinesets.json: not JSON" in nj
    assert "queue-chain localisation not judged" in nj
    assert "thread saturation not judged" in nj
    assert r["host"] == "hf-partial"


def test_empty_snapshot_says_nothing_was_judged(tmp_path):
    r = diagnose(load_snapshot(str(tmp_path))).to_dict()
    assert r["findings"] == []
    assert r["not_judged"][0] == "no evidence could be read: nothing was judged"


def test_rest_only_snapshot_still_localises_from_the_lookback_averages(tmp_path):
    import shutil
    snap = copy_scenario(tmp_path, "indexing_headroom")
    shutil.rmtree(os.path.join(snap, "logs"))
    f = only(diagnose(load_snapshot(snap)).to_dict(), "indexing")
    assert f["severity"] == "warning"
    assert {e["window"] for e in f["evidence"] if e["signal"] == "queue_fill_pct"} == {"10m"}     # the averages
    assert all("rest " in e["source"] for e in f["evidence"])
    assert rec(f, "parallelIngestionPipelines")["suggested"] == "2"
