"""Malformed input never crashes diagnose: the bad file is named and the rest is judged."""
import json
import os
import tracemalloc

from ingest_doctor.diagnose import diagnose
from ingest_doctor.read.snapshot import load_snapshot
from fakes.engine_helpers import copy_scenario
from fakes.snapbuilder import T0, Snap, dutycycle_wide, times, ts


def write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def test_truncated_and_html_bodies_are_named_and_the_rest_is_judged(tmp_path):
    snap = copy_scenario(tmp_path, "hec_pegged_default_io")
    rest = os.path.join(snap, "rest", "services")
    write(os.path.join(rest, "server", "introspection", "indexer.json"), '{"links":{},"entry":[{"name":"index')
    write(os.path.join(rest, "configs", "conf-server", "general.json"),
          "<!doctype html><html><head><title>500 Internal Server Error</title></head><body>Oops.</body></html>")
    write(os.path.join(rest, "server", "status", "resource-usage", "hostwide.json"),
          json.dumps({"messages": [{"type": "ERROR", "text": "Not Found"}]}))
    write(os.path.join(snap, "hec", "health.json"), "{not json")
    write(os.path.join(snap, "snapshot.json"), "[]")
    r = diagnose(load_snapshot(snap)).to_dict()
    nj = "\n".join(r["not_judged"])
    assert "rest/services/server/introspection/indexer.json: malformed JSON" in nj
    assert "rest/services/configs/conf-server/general.json: not JSON (an HTML or XML page)" in nj
    assert "hostwide.json: splunkd error (ERROR: Not Found)" in nj
    assert "hec/health.json: malformed JSON" in nj
    assert "snapshot.json: unreadable" in nj
    assert [f["bottleneck"] for f in r["findings"] if f["severity"] != "info"] == ["hec_input"]


def test_binary_garbage_and_unknown_lines_in_metrics_log(tmp_path):
    snap = copy_scenario(tmp_path, "typing_regex_hidden")
    with open(os.path.join(snap, "logs", "metrics.log"), "ab") as f:
        f.write(b"\x00\x9f\xff garbage\n" + (ts(T0 - 1) + " INFO  Metrics - group=brandnew, x=1\n").encode()
                + b"truncated line without newl")
    r = diagnose(load_snapshot(snap)).to_dict()
    assert any("not usable metrics lines" in n for n in r["not_judged"])
    assert [f["bottleneck"] for f in r["findings"] if f["severity"] != "info"] == ["typing"]


def test_rest_file_that_is_a_directory_or_unreadable(tmp_path):
    snap = copy_scenario(tmp_path, "hec_pegged_default_io")
    target = os.path.join(snap, "rest", "services", "server", "pipelinesets.json")
    os.remove(target)
    os.makedirs(target)
    r = diagnose(load_snapshot(snap)).to_dict()
    assert any(n.startswith("rest/services/server/pipelinesets.json:") for n in r["not_judged"])


def test_a_log_far_larger_than_its_window_is_streamed(tmp_path):
    """Two hours of old lines before the 30-minute window: only the window is kept, memory stays small."""
    snap = Snap("hf-big").server_info(16, ["heavyweight_forwarder"]).http("2").write(str(tmp_path / "big"))
    log = os.path.join(snap, "logs", "metrics.log")
    os.makedirs(os.path.dirname(log))
    filler = ", ".join("thread%02d=0.010" % i for i in range(30))
    with open(log, "w") as f:
        t = T0 - 6 * 3600
        while t < T0 - 40 * 60:               # ~ 12 MB of old, unrelated history
            for _ in range(12):
                f.write("%s INFO  Metrics - group=dutycycle, name=misc, %s\n" % (ts(t), filler))
            t += 10
        recent = Snap("x")
        for t in times(12):
            dutycycle_wide(recent, t, {"httpinputserverdatathread": 0.99})
        f.write("\n".join(recent.metrics) + "\n")
    assert os.path.getsize(log) > 10 * 1024 * 1024
    tracemalloc.start()
    ev = load_snapshot(snap)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert {t.thread for t in ev.threads} == {"httpinputserverdatathread"}
    assert peak < 8 * 1024 * 1024, peak
    assert [f["bottleneck"] for f in diagnose(ev).to_dict()["findings"]] == ["hec_input"]
