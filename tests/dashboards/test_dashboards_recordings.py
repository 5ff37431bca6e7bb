"""The recordings behind the dashboard screenshots agree with the searches and with Splunk.

tests/fixtures/dashboards/ is written by tools/dashboards/make_fixtures.py from one simulated
deployment (tools/dashboards/sim.py). Here each recorded panel is
  - computed again from the simulated rows, and must equal the committed file;
  - declared with the aggregation steps of its search (stats, timechart with its span and BY
    clause, sort, dedup, the top-series macro ...), and those must be the steps the generated
    view runs: a search that changes its statistic fails here until the recording follows;
and the saturated story must hold the way Splunk behaves (503 / reply=9 only with full queues
behind HEC; the saturated set first in every view; implausible CPU readings set apart).
"""
from __future__ import annotations

import json
import os
import re
import sys

import pytest

from fakes import paths
from fakes.paths import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "dashboards"))

import gen_views  # noqa: E402
import make_fixtures  # noqa: E402
import recordings  # noqa: E402
import sim  # noqa: E402
import splcheck  # noqa: E402
from panels import PANELS, top_series  # noqa: E402

FIXTURES = os.path.join(paths.FIXTURES, "dashboards")
VIEWS = {d.name: d.definition() for d in (make() for make in gen_views.DASHBOARDS)}
MACROS = open(os.path.join(ROOT, "default", "macros.conf"), encoding="utf-8").read()
STEP = re.compile(r"^(stats|eventstats|streamstats|timechart|chart|bin|dedup|sort|head)\b")


def segments(spl):
    """The commands of a search and of its subsearches, in text order (split at | [ ] outside quotes)."""
    out = []
    for part in splcheck.split_top(spl, sep="|", quotes='"', opens="", closes=""):
        for sub in splcheck.split_top(part, sep="[", quotes='"', opens="", closes=""):
            out += splcheck.split_top(sub, sep="]", quotes='"', opens="", closes="")
    return [" ".join(s.split()) for s in out if s.strip()]


def steps(view, ds_id):
    """Aggregation steps of a data source (a chain: its own query), input tokens at their defaults."""
    defn = VIEWS[view]
    spl = defn["dataSources"][ds_id]["options"]["query"]
    for inp in defn["inputs"].values():
        tok, default = inp["options"].get("token"), inp["options"].get("defaultValue")
        if tok == "agg":
            spl = spl.replace("$agg$", default)
    out = []
    for seg in segments(spl):
        for m in re.finditer(r"`ingest_doctor_top_series\((\w+),(\d+)\)`", seg):
            out.append("top(%s,%s)" % m.groups())
        if STEP.match(seg):
            out.append(seg)
    return out


RECORDED = sorted(k for k in PANELS if k[1] in make_fixtures.consumed(VIEWS[k[0]]))


@pytest.mark.parametrize("view,ds_id", RECORDED)
def test_each_recording_uses_the_steps_of_its_search(view, ds_id):
    declared, _ = PANELS[(view, ds_id)]
    assert steps(view, ds_id) == declared, "%s/%s: the search and tools/dashboards/recordings.py differ" % (view, ds_id)


@pytest.fixture(scope="module")
def deployments():
    return {state: sim.Deployment(state == "saturated") for state in make_fixtures.STATES}


@pytest.mark.parametrize("view,ds_id", RECORDED)
def test_each_recording_is_recomputed_from_the_simulated_deployment(view, ds_id, deployments):
    for state, dep in deployments.items():
        with open(os.path.join(FIXTURES, state, view, ds_id + ".json"), encoding="utf-8") as fh:
            recorded = json.load(fh)
        assert PANELS[(view, ds_id)][1](dep) == recorded, "%s/%s/%s differs from its recomputation" % (state, view, ds_id)


def rec(state, view, ds_id):
    with open(os.path.join(FIXTURES, state, view, ds_id + ".json"), encoding="utf-8") as fh:
        data = json.load(fh)
    return [dict(zip(data["fields"], r)) for r in data["rows"]], data["fields"]


def test_busy_replies_only_where_the_queues_behind_hec_are_full(deployments):
    for state, dep in deployments.items():
        busy = [r for r in dep.hec_reply_rows() if r["reply"] == "9"]
        fullest = {}   # (host, 30 s sample) -> fullest parsingQueue over the host's sets
        for q in dep.queue_rows():
            if q["queue"] == "parsingqueue":
                k = (q["host"], q["_time"])
                fullest[k] = max(fullest.get(k, 0.0), q["fill_pct"])
        for r in busy:
            minute = r["_time"] - (r["_time"] - sim.START) % 60
            assert max(fullest[(r["host"], minute)], fullest[(r["host"], minute + 30)]) >= 99, (state, r)
        unhealthy = {h["host"] for h in dep.health_rows() if h["code"] == "18"}
        assert unhealthy == {r["host"] for r in busy}
        if state == "healthy":
            assert not busy
        else:
            assert {r["host"] for r in busy} == {sim.HOT_HOST}


def test_the_saturated_set_is_visible_in_what_the_searches_compute():
    """idx-07's pipeline set 1 is typing-bound; HEC refuses data only there, the rest is idle."""
    chain, _ = rec("saturated", "ingest_doctor_pipeline_sets", "ds_chain")
    assert (chain[0]["host"], chain[0]["ingest_pipe"], chain[0]["bottleneck"]) == ("idx-07", "1", "typing")
    assert [r["bottleneck"] for r in chain[1:]] == ["none"] * (len(chain) - 1)
    healthy, _ = rec("healthy", "ingest_doctor_pipeline_sets", "ds_chain")
    assert {r["bottleneck"] for r in healthy} == {"none"}
    fill, fields = rec("saturated", "ingest_doctor_pipeline_sets", "ds_fill_time")
    assert fields[1] == "1. idx-07 set 1" and float(fill[-1]["1. idx-07 set 1"]) >= 99
    assert all(float(r[f]) < 60 for r in fill for f in fields[2:-1] if r[f] is not None)
    overview, _ = rec("saturated", "ingest_doctor_hec_performance", "ds_overview")
    assert overview[0]["host"] == "idx-07" and overview[0]["state"] == "saturated" and overview[0]["worst stage"] == "typing"
    assert {r["state"] for r in overview[1:]} == {"ok"}
    thread, fields = rec("saturated", "ingest_doctor_thread_activity", "ds_threads_time")
    assert fields[1] == "1. idx-07 set 1 typing"
    typing = [float(r[fields[1]]) for r in thread if r[fields[1]] is not None]
    assert max(typing) >= 90 and min(typing) < 90
    for state, refusing in (("saturated", ["idx-07"]), ("healthy", [])):
        errors, _ = rec(state, "ingest_doctor_hec_performance", "ds_hec_errors_table")
        assert [r["host"] for r in errors if r["reply"].startswith("9 ")] == refusing, state
    hec, _ = rec("saturated", "ingest_doctor_hec_performance", "ds_hec_thread")
    assert max(float(v) for r in hec for k, v in r.items() if k not in ("_time", "threshold") and v) < 90


def test_cpu_readings_beyond_wall_time_x_threads_are_set_apart_and_repeats_count_once():
    rows, _ = rec("healthy", "ingest_doctor_cpu_by_processor", "ds_cpu_unreliable")
    # per minute (issue 35: aggregated inside tstats): the minute holding hf-02's one implausible reading is set
    # apart with both of its 30 s readings
    assert [(r["host"], r["processor"], r["readings"]) for r in rows] == [("hf-02", "aggregator", "2")]
    assert float(rows[0]["max_cpu_seconds"]) > float(rows[0]["interval_s"]) * float(rows[0]["threads"]) * 1.1
    dep = sim.Deployment(False)
    per_minute = recordings.cpu_rows(dep)
    assert max(r["pct_one_core"] for r in per_minute if r["pct_one_core"] is not None) <= 110 * 2
    bad = [r for r in per_minute if r["unreliable"]]
    assert [(r["host"], r["processor"], r["wall_s"], r["cpu_seconds"]) for r in bad] == [("hf-02", "aggregator", 0, 0)]
    lines = [ln for ln in dep.cpu_lines() if ln["host"] == "idx-03"]
    assert len(lines) > len({(ln["_time"], ln["ingest_pipe"], ln["processor"]) for ln in lines})   # repeats exist
    repeated = [r for r in per_minute if r["host"] == "idx-03" and sim.END - 3600 <= r["_time"] < sim.END - 3000]
    assert repeated and all(r["pct_one_core"] < 30 for r in repeated)   # not doubled
    # a repeated minute holds its two readings' wall time, once
    assert {(r["interval_s"], r["wall_s"]) for r in repeated} == {(30, 60)}


def test_the_cpu_searches_apply_the_rule_the_recordings_replay():
    """recordings.cpu_rows replays ingest_doctor_pipeline_cpu_rows: the SPL must say the same."""
    macro = re.search(r"^\[ingest_doctor_pipeline_cpu_rows\]\ndefinition = (.*)$", MACROS, re.M).group(1)
    assert "streamstats current=f window=1 last(last_time) AS prev_time BY host ingest_pipe pipeline processor" in macro
    assert "interval_s=if(isnull(prev_time) OR first_time-prev_time>300, 30, first_time-prev_time)" in macro
    assert "readings=round((last_time-first_time)/interval_s)+1" in macro
    assert "eval plausible=if(max_reading<=interval_s*max_cpu_pct/100, 1, 0)" in macro
    assert ("cpu_seconds=if(plausible==1, cpu_sum/lines*readings, 0), wall_s=if(plausible==1, interval_s*readings, 0), "
            "unreliable=if(plausible==1, 0, readings)") in macro
    assert "pct_one_core=if(wall_s>0, round(cpu_seconds/wall_s*100, 1), null())" in macro
    base = VIEWS["ingest_doctor_cpu_by_processor"]["dataSources"]["ds_cpu"]["options"]["query"]
    # a repeated line counts once: the highest reading is the same, the average reading the same
    assert ("sum(PREFIX(cpu_seconds=)) AS cpu_sum max(PREFIX(cpu_seconds=)) AS max_reading count AS lines "
            "sum(PREFIX(executes=)) AS executes_sum min(_time) AS first_time max(_time) AS last_time") in base
    dep = sim.Deployment(False)
    pipelines = {r["pipeline"] for r in dep.pipeline if r["pipeline"]}
    assert {p for p, _, _ in sim.PROCESSORS} <= pipelines
    assert all(int(r["threads_per_set"]) >= 1 and float(r["max_cpu_pct"]) >= 100 * int(r["threads_per_set"])
               for r in dep.pipeline)


def test_the_cpu_base_reads_the_busiest_sets_per_minute_only():
    """Issue 35: ds_cpu read every processor's line of every pipeline host per second (16 M rows to the search
    head at 10,000 instances). It reads the 5 sets whose cpu_seconds sum highest (a subsearch, one row per set
    inside it), aggregated per minute inside tstats; the recordings rank the same way."""
    base = VIEWS["ingest_doctor_cpu_by_processor"]["dataSources"]["ds_cpu"]["options"]["query"]
    top = base.split("[", 1)[0]
    assert "span=1s" not in base and base.rstrip().split("\n")[0].endswith("_time span=1m")
    assert "host=*" not in base and "$scope$" in top   # the Instances input: pipeline hosts by default
    rank = base[base.index("[| tstats"):base.index("| fields search]")]
    assert ("sum(PREFIX(cpu_seconds=)) AS cpu where `ingest_doctor_metrics_log` TERM(group=pipeline)" in rank
            and "by host PREFIX(ingest_pipe=)" in rank and '| search ingest_pipe="$pset$"' in rank
            and "| sort 0 - cpu host ingest_pipe | head 5" in rank)
    assert 'TERM(ingest_pipe=".ingest_pipe."))' in rank   # a set of a host, not all of the host's sets
    for state in (False, True):
        dep = sim.Deployment(state)
        top_sets = recordings.busiest_sets(dep)
        assert len(top_sets) == 5
        assert {(r["host"], r["ingest_pipe"]) for r in recordings.cpu_rows(dep)} == set(top_sets)
        if state:
            assert top_sets[0] == (sim.HOT_HOST, sim.HOT_SET)
    _, fields = rec("saturated", "ingest_doctor_cpu_by_processor", "ds_cpu_time")
    assert fields[1] == "1. idx-07 set 1 typing/regexreplacement"


def test_the_hec_thread_chart_shows_the_collectors_proc_name_as_data_or_management_thread():
    """Issue 12: the collector emits the HEC thread as /proc names it (`httpinputserver`, shared with
    the management thread); the HEC chart shows it labelled so, beside the full name from metrics.log."""
    from ingest_doctor import model, threadnames
    assert sim.HEC_THREAD == model.HEC_THREAD
    assert model.HEC_THREAD in threadnames.candidates(sim.PROC_HEC_THREAD)
    dep = sim.Deployment(False)
    collector = {(r["host"], r["thread"]) for r in dep.dutycycle_rows() if r["origin"] == "collector"}
    assert collector == {(h, sim.PROC_HEC_THREAD) for h in sim.FORWARDERS}
    query = VIEWS["ingest_doctor_hec_performance"]["dataSources"]["ds_hec_thread"]["options"]["query"]
    # each source selects its own name of the thread: dutycycle's full name, the collector's /proc name
    assert "TERM(thread=%s)" % model.HEC_THREAD in query
    assert 'thread="%s"' % sim.PROC_HEC_THREAD in query
    assert '.if(thread=="%s", " %s (/proc: data or mgmt)", "")' % ((sim.PROC_HEC_THREAD,) * 2) in query
    viz = VIEWS["ingest_doctor_hec_performance"]["visualizations"]["viz_hec_thread"]
    assert '"/proc: data or mgmt": the name both HEC threads share' in viz["description"]
    for state in make_fixtures.STATES:
        _, fields = rec(state, "ingest_doctor_hec_performance", "ds_hec_thread")
        series = [f.split(". ", 1)[1] for f in fields if re.match(r"\d+\. ", f)]
        for h in sim.FORWARDERS:     # the forwarders' data thread twice: full name, and /proc's, labelled
            assert h in series and h + " httpinputserver (/proc: data or mgmt)" in series, (state, series)


def test_the_hec_thread_chart_reads_the_collectors_it_can_show_and_ranks_them_as_the_chart_does():
    """Issue 35: ds_hec_thread appended every collector's /proc thread per 2 minutes (cut silently at 50,000 rows from
    about 417 collectors). The append reads only the 5 collectors a subsearch ranks first by the chart's own key
    (ingest_doctor_top_series: peak, then average, then the name), so the chart's 5 ranked series are those it showed
    reading every collector, ties included; only the "others" line loses the collectors ranked 6th and below."""
    query = VIEWS["ingest_doctor_hec_performance"]["dataSources"]["ds_hec_thread"]["options"]["query"]
    append = query[query.index("| append [| mstats"):query.index("| search ingest_pipe=")]
    assert ("| stats max(busy_pct) AS peak avg(busy_pct) AS mean BY host | sort 0 - peak - mean host | head 5 "
            "| fields host] BY host span=2m |" in append)
    assert splcheck.top_hosts_filter(append[len("| append ["):append.rindex("]")]) == 5
    assert ("eventstats max($value$) AS series_peak avg($value$) AS series_avg BY series | sort 0 - series_peak "
            "- series_avg series |") in MACROS
    # 12 collectors (ties on the peak at 100 broken by the average, one tie on both broken by the name) and 3 data
    # threads from metrics.log, per 2 minutes
    t0, label = sim.HEC_START, recordings.PROC_HEC_LABEL
    shapes = {"hf-%02d" % i: [100, 100 - i, 50] if i < 8 else [90 - i, 10, 10] for i in range(12)}
    shapes["hf-09"] = shapes["hf-08"] = [100, 98, 50]        # the same peak and average as hf-02: the name decides
    collector = [dict(_time=t0 + 120 * k, host=h, ingest_pipe="none", thread=sim.PROC_HEC_THREAD, busy_pct=v)
                 for h, vs in shapes.items() for k, v in enumerate(vs)]
    data = [dict(_time=t0 + 120 * k, host=h, ingest_pipe="0", thread=sim.HEC_THREAD, busy_pct=v)
            for h, vs in (("hf-01", [100, 99, 99]), ("hf-20", [95, 95, 95]), ("hf-21", [10, 10, 10]))
            for k, v in enumerate(vs)]
    kept = recordings.top_collectors(collector)
    assert kept == {"hf-00", "hf-01", "hf-02", "hf-08", "hf-09"}

    def ranked(rows):
        rows = [dict(r, series=r["host"] + (label if r["thread"] == sim.PROC_HEC_THREAD else " set 0")) for r in rows]
        return sorted((r["series"], r["_time"], r["busy_pct"]) for r in top_series(rows, "busy_pct", 5)
                      if not r["series"].startswith("others"))
    every = ranked(data + collector)
    assert every == ranked(data + [r for r in collector if r["host"] in kept])
    assert {s.split(". ", 1)[0] for s, _, _ in every} == {"1", "2", "3", "4", "5"}
    assert "1. hf-01 set 0" in {s for s, _, _ in every}          # the data thread ranks among them
