"""Every scenario the project has, through the invariants of tests/fakes/invariants.py (issue 18).

- each snapshot folder under tests/ (tests/scenarios/*), through the CLI as a user runs it:
  `diagnose <dir> --format json` and `--format text` (in-process `cli.main`, and once as a subprocess);
- the alert action run as splunkd runs it (`--execute`, JSON payload, gzipped results CSV, loopback HTTPS
  fake splunkd) over rows of every signal kind, its findings read back from the events it wrote;
- and the checker itself, on planted violations of each invariant: it must fail them.
A new rule or scenario is checked for free: nothing here names a rule.
"""
from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys

import pytest

import ingest_doctor_cli as cli
from fakes.action_run import NOW, payload, run_action, signal_rows
from fakes.invariants import limits_of, violations
from fakes.kvstore import Splunkd, write_results
from fakes.paths import BIN, TESTS
from ingest_doctor import exitcodes, thresholds
from ingest_doctor.read.snapshot import load_snapshot, recorded_thresholds

CLI = os.path.join(BIN, "ingest_doctor_cli.py")


def snapshot_dirs():
    """Every snapshot folder in tests/: a folder holding snapshot.json or rest/ (not inside another one)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(TESTS):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "node_modules"))
        if "snapshot.json" in filenames or "rest" in dirnames:
            out.append(os.path.relpath(dirpath, TESTS))
            dirnames[:] = []
    return sorted(out)


SNAPSHOTS = snapshot_dirs()


def test_every_scenario_folder_is_found():
    assert len(SNAPSHOTS) >= 30 and all(p.startswith("scenarios" + os.sep) for p in SNAPSHOTS), SNAPSHOTS


def cli_run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), io.StringIO(), out, err)
    assert code == exitcodes.OK, err.getvalue()
    return out.getvalue()


def instance_limits(path):
    ev = load_snapshot(path)
    return limits_of(ev.host_cpu.cores, ev.host_cpu.physical_cores)


@pytest.mark.parametrize("rel", SNAPSHOTS)
def test_cli_reports_keep_the_invariants(rel):
    path = os.path.join(TESTS, rel)
    report = json.loads(cli_run("diagnose", path, "--format", "json"))
    text = cli_run("diagnose", path, "--format", "text")
    th, _ = recorded_thresholds(path)
    assert violations(report, text, instance_limits(path), th) == []


def test_the_cli_as_a_subprocess_gives_the_same_report():
    path = os.path.join(TESTS, "scenarios", "host_busy_searches")
    p = subprocess.run([sys.executable, CLI, "diagnose", path, "--format", "json"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == exitcodes.OK, p.stderr
    assert json.loads(p.stdout) == json.loads(cli_run("diagnose", path, "--format", "json"))
    assert violations(json.loads(p.stdout), None, instance_limits(path)) == []


def test_a_healthy_busy_instance_carries_headroom_and_the_contract_fields():
    report = json.loads(cli_run("diagnose", os.path.join(TESTS, "scenarios", "typing_headroom")))
    assert report["healthy"] is True
    assert set(report) == {"host", "healthy", "not_judged", "findings", "headroom"}
    typing = [h for h in report["headroom"] if h["stage"] == "typing"][0]
    assert set(typing) >= {"stage", "pipeline_set", "busy_pct", "eps", "pegs_at_eps", "headroom_eps", "window",
                           "caveat"}
    assert typing["window"] == "10m" and typing["headroom_eps"] > 0 and not typing["pegged"]


# ---------------------------------------------------------------------------- the alert action's findings
CONFIGS = {
    "hf-io2": {"version": "9.3.2", "roles": ["heavyforwarder"], "dedicated_io_threads": 2, "max_threads": 0,
               "max_sockets": 0, "hec_enabled": True, "hec_tokens": 3, "parallel_ingestion_pipelines": 1},
    "hf-io6": {"version": "9.3.2", "roles": ["heavyforwarder"], "dedicated_io_threads": 6,
               "parallel_ingestion_pipelines": 1},
    "hf-io16": {"version": "9.3.2", "roles": ["heavyforwarder"], "dedicated_io_threads": 16,
                "parallel_ingestion_pipelines": 2},
    "idx-q": {"version": "9.3.2", "roles": ["indexer"], "parallel_ingestion_pipelines": 2,
              "pipeline_set_selection_policy": "round_robin",
              "props": {"cisco:asa": {"SHOULD_LINEMERGE": "true", "TRUNCATE": "0", "CHARSET": "AUTO"}}},
}


TH = thresholds.defaults()


def _samples(values, last=NOW):
    return ["%d:%s" % (last - 30 * i, v) for i, v in enumerate(reversed(values))]


def thread_row(host, thread, stage, busy, pset="none"):
    values = [busy + ((i * 7) % 3 - 1) * 0.5 for i in range(20)]
    return {"signal": "thread_busy", "host": host, "component": thread, "thread": thread, "pipeline_set": pset,
            "stage": stage, "busy_pct": round(sum(values) / len(values), 1), "samples": _samples(values),
            "samples_over": sum(1 for v in values if v >= TH.thread_busy_pct), "window_min": 10, "span_s": 30,
            "last_time": NOW, "source": "metrics.log group=dutycycle", "threshold": TH.thread_busy_pct}


def queue_row(host, pset, fills):
    queues = ["parsingqueue", "aggqueue", "typingqueue", "indexqueue"]
    recent = [" ".join("%d:%s%s" % (NOW - 30 * i, f, "b" if f >= 100 else "") for i in range(10)) for f in fills]
    return {"signal": "queue_fill", "host": host, "component": "queues", "pipeline_set": pset,
            "queue": queues, "fill_pct": [str(f) for f in fills], "recent": recent,
            "blocked_samples": ["10" if f >= 100 else "0" for f in fills], "window_min": 10, "span_s": 30,
            "last_time": NOW, "threshold": TH.queue_fill_pct}


def alert_rows():
    return [
        thread_row("hf-io2", "httpinputserverdatathread", "hec_input", 98.0),
        thread_row("hf-io6", "httpinputserverdatathread", "hec_input", 98.0),
        thread_row("hf-io16", "httpinputserverdatathread", "hec_input", 97.0),
        thread_row("hf-85", "httpinputserverdatathread", "hec_input", 85.0),
        thread_row("idx-t", "typing", "typing", 98.0, "0"),
        thread_row("idx-t", "parsing", "parsing", 93.0, "1"),
        thread_row("idx-m", "merging", "merging", 99.0),
        thread_row("idx-i", "indexerpipe", "indexing", 97.0),
        queue_row("idx-q", "0", [97, 98, 100, 4]),
        queue_row("idx-q", "1", [98, 97, 99, 100]),
        *signal_rows(busy="hf-busy", slow="hf-slow", listener="hf-io6", throttled="idx-thr"),
    ]


def flag(fake, results, tls, sid):
    """The action run with every severity kept."""
    return run_action(payload(fake, results, sid=sid, min_severity="info"), tls)


@pytest.mark.parametrize("tuned", [None, "80"])
def test_alert_action_findings_keep_the_invariants(fake_splunkd, tls, tmp_path, tuned):
    overrides = {"ingest_doctor_thread_busy_pct": tuned} if tuned else None
    sd = Splunkd(fake_splunkd, configs=CONFIGS, macro_overrides=overrides)
    res = write_results(str(tmp_path / "results.csv.gz"), alert_rows())
    p = flag(fake_splunkd, res, tls, "inv%s" % (tuned or ""))
    assert p.returncode == exitcodes.OK, p.stderr
    findings = [e["event"] for e in sd.events]
    assert len({f["host"] for f in findings}) >= 9, findings
    th = thresholds.load({"thread_busy_pct": tuned} if tuned else None)
    assert violations(findings, th=th) == []
    hec = {f["host"]: f for f in findings if f["bottleneck"] == "hec_input"}
    # Raised (6) or far above the cores (16) and pegged: scaling out is the only advice.
    for host in ("hf-io6", "hf-io16"):
        assert not [r for r in hec[host]["recommendations"]
                    if r["setting"] == "dedicatedIoThreads" and r["suggested"] is not None], hec[host]
    if tuned:
        assert "over its threshold (85% of one core, threshold 80%" in hec["hf-85"]["summary"]
        assert "pegged" not in hec["hf-85"]["summary"]


# ---------------------------------------------------------------------------- planted violations
BASE = {
    "host": "hf", "healthy": False, "not_judged": [],
    "findings": [{
        "id": "hf/hec_input/-", "bottleneck": "hec_input", "severity": "warning", "host": "hf", "pipeline_set": None,
        "component": "httpinputserverdatathread",
        "summary": "The HEC server data thread is pegged at 98% of one core (dutycycle share, 10-minute average).",
        "evidence": [{"signal": "thread_busy_pct", "value": 98.0, "unit": "%", "window": "10m", "source": "m"},
                     {"signal": "host_cpu_pct", "value": 20.0, "unit": "%", "window": "sample", "source": "h"}],
        "recommendations": [{"action": "Raise the HEC I/O threads from 2 to the host's 8 physical cores.",
                             "conf_file": "inputs.conf", "stanza": "http", "setting": "dedicatedIoThreads",
                             "current": "2", "suggested": "8"}]}],
    "headroom": [{"stage": "hec_input", "pipeline_set": None, "busy_pct": 98.0, "eps": 3000, "pegs_at_eps": 3000,
                  "headroom_eps": 0, "at_load_x": 1.0, "pegged": True, "headroom": "none left", "window": "10m",
                  "source": "m", "caveat": ""}],
}


def planted(change):
    r = copy.deepcopy(BASE)
    change(r)
    return r


def _rec(r):
    return r["findings"][0]["recommendations"][0]


def _pipelines(r, suggested="3", host_cpu=None):
    f = r["findings"][0]
    f["recommendations"].append({"action": "Add a pipeline set so typing runs on another core.",
                                 "conf_file": "server.conf", "stanza": "general",
                                 "setting": "parallelIngestionPipelines", "current": "1", "suggested": suggested})
    if host_cpu is not None:
        f["evidence"][1].update(value=host_cpu)


def _symptom(r, action, setting=None):
    f = r["findings"][0]
    f.update(caused_by="idx-02/indexing/-")
    f["recommendations"] = [{"action": action, "conf_file": None, "stanza": None, "setting": setting,
                             "current": None, "suggested": None}]


PLANTED = {
    # issue 37
    "pipelines past 2": lambda r: _pipelines(r, "3"),
    "pipelines on a CPU-bound host": lambda r: _pipelines(r, "2", host_cpu=96.0),
    "compressed on an SSL output": lambda r: (r["findings"][0]["recommendations"].append(
        {"action": "Compress forwarded data.", "conf_file": "outputs.conf", "stanza": "tcpout",
         "setting": "compressed", "current": "false", "suggested": "true"}),
        r["findings"][0].update(summary=r["findings"][0]["summary"] + " The output uses SSL.")),
    "compression handed down a chain": lambda r: _symptom(
        r, "Nothing to change on this instance: act on hf-01 output: outputs.conf [tcpout] compressed = true; "
           "this is not a setting here."),
    "pipelines on a symptom": lambda r: _symptom(r, "Add a pipeline set.", "parallelIngestionPipelines"),

    "raise to the current value": lambda r: _rec(r).update(current="8", suggested="8"),
    "raise below the current value": lambda r: _rec(r).update(current="8", suggested="4"),
    "past the cores": lambda r: _rec(r).update(suggested="16"),
    "useless by its own words": lambda r: r["findings"][0].update(
        summary=r["findings"][0]["summary"] + " More threads on this one do not help."),
    "pegged far from a core": lambda r: (r["findings"][0].update(
        summary="The HEC server data thread is pegged at 85% of one core."),
        r["findings"][0]["evidence"][0].update(value=85.0)),
    "idle on a busy host": lambda r: (r["findings"][0].update(
        summary=r["findings"][0]["summary"] + " The host looks idle while this thread is the ceiling."),
        r["findings"][0]["evidence"][1].update(value=96.0)),
    "healthy in a warning": lambda r: r["findings"][0].update(summary="HEC is healthy."),
    "headroom on a pegged stage": lambda r: r["headroom"][0].update(headroom_eps=2500, headroom="about 2,500"),
    "headroom evidence on a pegged stage": lambda r: r["findings"][0]["evidence"].append(
        {"signal": "headroom_eps", "value": 2500, "unit": "events/s", "window": "10m", "source": "m"}),
}


GOLDEN = os.path.join(TESTS, "fixtures", "golden")


def golden_reports():
    """Every stored JSON report: each scenario's and each deployment case's (the deployment tests write them)."""
    out = []
    for kind in ("scenarios", "deployments"):
        folder = os.path.join(GOLDEN, kind)
        out.extend("%s/%s" % (kind, n) for n in sorted(os.listdir(folder)) if n.endswith(".json"))
    return out


def golden_report(rel):
    with open(os.path.join(GOLDEN, rel), encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("rel", golden_reports())
def test_every_scenario_and_deployment_report_keeps_the_invariants(rel):
    assert violations(golden_report(rel)) == []


def test_the_golden_reports_cover_deployments_with_symptoms():
    linked = [rel for rel in golden_reports() if rel.startswith("deployments/")
              and any(f.get("caused_by") for f in golden_report(rel)["findings"])]
    assert len(linked) >= 3, linked


def test_the_planted_base_is_clean():
    assert violations(BASE, limits={"dedicatedIoThreads": 8}) == []


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_planted_violation_fails(name):
    got = violations(planted(PLANTED[name]), limits={"dedicatedIoThreads": 8})
    assert got, "the checker missed: %s" % name


def test_a_planted_violation_in_the_text_report_fails():
    text = "Ingest Doctor: hf: healthy\n"
    assert violations(BASE, text) == ["text report says healthy, JSON says not"]


_EVERY_REPORT = """
import io, sys
sys.path[:0] = [%(bin)r]
import ingest_doctor_cli as cli
for rel in %(rels)r:
    for fmt in ("json", "text"):
        out = io.StringIO()
        cli.main(["diagnose", %(tests)r + "/" + rel, "--format", fmt], io.StringIO(), out, io.StringIO())
        sys.stdout.write(out.getvalue())
"""


def test_every_report_is_the_same_whatever_the_hash_seed():
    """Nothing in a report follows set or dict-of-set iteration: two interpreters with different hash
    seeds write every scenario's JSON and text reports byte for byte alike."""
    code = _EVERY_REPORT % {"bin": BIN, "tests": TESTS, "rels": SNAPSHOTS}
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "2", "3")]
    assert outs[0] and outs[0] == outs[1] == outs[2]


_EVERY_WINDOW = """
import json, sys
sys.path[:0] = [%(bin)r]
import dataclasses
from ingest_doctor.collector.window import WINDOW_MAX_POLLS, Window
from ingest_doctor.diagnose import diagnose
from ingest_doctor.read.snapshot import load_snapshot
TIMED = ("queues", "threads", "pipelinesets", "hec_probes", "cpu")
for rel in %(rels)r:
    ev = load_snapshot(%(tests)r + "/" + rel)
    times = sorted({x.time for f in TIMED for x in getattr(ev, f) if x.time is not None})
    window = Window(WINDOW_MAX_POLLS, 600.0, 4)
    for i, t in enumerate(times):       # each time a poll, as the collector would have read it
        last = i == len(times) - 1
        poll = dataclasses.replace(ev, **{f: [x for x in getattr(ev, f) if x.time == t or (last and x.time is None)]
                                     for f in TIMED})
        window.add(poll, t)
        rep = diagnose(window.merged(), finite=window.finite)
        sys.stdout.write(rel + " " + json.dumps(rep.to_dict(), sort_keys=True) + "\\n")
"""


def test_every_window_is_judged_the_same_whatever_the_hash_seed():
    """The collector's path too (a window of polls, not one snapshot): every scenario replayed poll by
    poll gives the same findings in interpreters with different hash seeds. Two input queues tie in the
    chain; which one a finding names once followed a set's order."""
    rels = [r for r in SNAPSHOTS if r.startswith("scenarios" + os.sep)]
    code = _EVERY_WINDOW % {"bin": BIN, "tests": TESTS, "rels": rels}
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "2", "3", "4")]
    assert outs[0].count("\n") > len(rels) and outs[0] == outs[1] == outs[2] == outs[3]
