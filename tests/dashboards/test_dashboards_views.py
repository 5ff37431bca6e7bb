"""Static checks of the Dashboard Studio views, their macros, nav and recorded results.

The schema validation and the headless render run in `make test-dashboards` (node); these
checks need only Python and cover what the project's rules ask of every dashboard search.
"""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from fakes import paths
from fakes.paths import ROOT

VIEWS = os.path.join(ROOT, "default", "data", "ui", "views")
FIXTURES = os.path.join(paths.FIXTURES, "dashboards")
EXPECTED = ["ingest_doctor_cpu_by_processor", "ingest_doctor_findings", "ingest_doctor_hec_performance",
            "ingest_doctor_pipeline_sets", "ingest_doctor_thread_activity"]
STATES = ("healthy", "saturated")
# The hand-written setup view (not generated; its own checks: tests/gates/test_gates_setup_view.py).
SETUP = ["ingest_doctor_setup"]
# The two hand-written Simple XML form views (tools/formviews.py; their gate: tests/gates/test_gates_form_views.py).
FORMS = ["ingest_doctor_hold", "ingest_doctor_notifications"]

sys.path.insert(0, os.path.join(ROOT, "tools", "dashboards"))
import make_fixtures  # noqa: E402
import spl  # noqa: E402
import splcheck  # noqa: E402
import studio  # noqa: E402


def load(name):
    root = ET.parse(os.path.join(VIEWS, name + ".xml")).getroot()
    return root, json.loads(root.find("definition").text)


VIEW_DEFS = {name: load(name)[1] for name in EXPECTED}
MACROS = open(os.path.join(ROOT, "default", "macros.conf"), encoding="utf-8").read()


def annotations(defn):
    return {v["dataSources"]["annotation"] for v in defn["visualizations"].values()
            if "annotation" in (v.get("dataSources") or {})}


def primaries(defn):
    out = set()
    for item in list(defn["visualizations"].values()) + list(defn.get("inputs", {}).values()):
        if "primary" in (item.get("dataSources") or {}):
            out.add(item["dataSources"]["primary"])
    return out


def test_every_view_is_there_and_generated_views_are_current():
    assert sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(VIEWS, "*.xml"))) == sorted(EXPECTED + SETUP + FORMS)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "generate.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", EXPECTED)
def test_studio_envelope(name):
    root, defn = load(name)
    assert root.tag == "dashboard" and root.get("version") == "2" and root.get("theme") == "dark"
    assert root.findtext("label").strip() and root.findtext("description").strip()
    assert defn["title"] == root.findtext("label")
    assert defn["layout"]["globalInputs"][:2] == ["input_time", "input_host"]


def test_nav_lands_on_hec_performance_and_lists_every_view():
    nav = ET.parse(os.path.join(ROOT, "default", "data", "ui", "nav", "default.xml")).getroot()
    views = [v.get("name") for v in nav.iter("view")]
    defaults = [v.get("name") for v in nav.iter("view") if v.get("default") == "true"]
    assert defaults == ["ingest_doctor_hec_performance"]
    assert set(EXPECTED + SETUP + FORMS) <= set(views)


@pytest.mark.parametrize("name", EXPECTED)
def test_every_search_scopes_its_index_through_a_macro(name):
    for ds_id, ds in VIEW_DEFS[name]["dataSources"].items():
        q = ds["options"]["query"]
        assert not re.search(r"\bindex\s*(=|!=|IN\b)", q, re.I), "%s/%s names an index" % (name, ds_id)
        if ds["type"] == "ds.search" and not q.lstrip().startswith(("| rest", "| inputlookup")):
            assert re.search(r"`ingest_doctor_[a-z_]+`", q), "%s/%s reaches its data without our macros" % (name, ds_id)


@pytest.mark.parametrize("name", EXPECTED)
def test_every_visualization_and_data_source_is_named(name):
    defn = VIEW_DEFS[name]
    for vid, viz in defn["visualizations"].items():
        assert viz.get("title", "").strip(), vid
    for ds_id, ds in defn["dataSources"].items():
        assert ds.get("name", "").strip(), ds_id


@pytest.mark.parametrize("name", [n for n in EXPECTED if n != "ingest_doctor_findings"])
def test_metrics_log_searches_follow_the_pipeline_set_input(name):
    defn = VIEW_DEFS[name]
    assert "input_pset" in defn["inputs"]
    for ds_id, ds in defn["dataSources"].items():
        q = ds["options"]["query"]
        if "ingest_doctor_metrics_log" in q and ds_id not in ("ds_hosts", "ds_psets"):
            assert "$pset$" in q, "%s/%s ignores the pipeline set" % (name, ds_id)


@pytest.mark.parametrize("name", EXPECTED)
def test_thresholds_come_from_the_generated_macros(name):
    generated = set(re.findall(r"^\[(ingest_doctor_[a-z_]+)\]", MACROS, re.M))
    for ds_id, ds in VIEW_DEFS[name]["dataSources"].items():
        for m in re.finditer(r"threshold=([^,\n|]+)", ds["options"]["query"]):
            macro = re.fullmatch(r"`(ingest_doctor_[a-z_]+)`", m.group(1).strip())
            assert macro and macro.group(1) in generated, "%s/%s: threshold %r is not a macro" % (name, ds_id, m.group(1))


def test_base_searches_feed_chains():
    """One base search per data family: the chains extend it instead of repeating it."""
    for name, defn in VIEW_DEFS.items():
        chains = [ds for ds in defn["dataSources"].values() if ds["type"] == "ds.chain"]
        assert chains, name
        for ds in chains:
            assert defn["dataSources"][ds["options"]["extend"]]["type"] == "ds.search"


def test_views_pass_the_spl_checker():
    ctx = splcheck.load_context(ROOT)
    searches, problems = splcheck.collect(ROOT, ctx)
    ours = [s for s in searches if s.file.startswith("default/data/ui/views/")]
    assert len(ours) == sum(len(d["dataSources"]) for d in VIEW_DEFS.values()) + \
        sum(len(load(n)[1]["dataSources"]) for n in SETUP)
    problems = [p for p in problems if "data/ui/views" in p or "[ingest_doctor_" in p and "Dashboards" in p]
    for s in ours:
        problems += ["%s: %s: %s" % (s.file, s.obj, p)
                     for p in splcheck.check_search(s.spl, ctx, post_process=s.post_process)]
    assert problems == []


def test_dashboard_macros_block_is_ours_and_checked():
    block = MACROS.split("# Dashboards\n", 1)[1].split("# END Dashboards\n", 1)[0]
    names = re.findall(r"^\[([a-z_]+)\]", block, re.M)
    assert "ingest_doctor_dutycycle_rows" in names and "ingest_doctor_hec_data" in names
    ctx = splcheck.load_context(ROOT)
    for name in names:
        definition = re.search(r"^\[%s\]\ndefinition = (.*)$" % name, block, re.M).group(1)
        assert splcheck.check_search(definition, ctx, in_macro=True) == [], name
        used = any("`%s`" % name in ds["options"]["query"] for d in VIEW_DEFS.values() for ds in d["dataSources"].values())
        chosen = any("`%s`" % name in json.dumps(d["inputs"]) for d in VIEW_DEFS.values())   # an input's value
        assert used or chosen, "macro %s is not used by any view" % name


# ------------------------------------------------------------------ recorded results
def final_fields(query):
    """Fields a search ends with when it ends in `table ...` (then rename/sort/appendpipe), else None."""
    flat = re.sub(r"\[[^\]]*\]", "[]", query.strip())   # subsearch / appendpipe bodies
    parts = [p.strip() for p in re.split(r"(?:^|\s)\|\s+", flat) if p.strip()]
    idx = max((i for i, p in enumerate(parts) if p.startswith("table ")), default=None)
    if idx is None:
        return None
    tail = parts[idx + 1:]
    if any(not re.match(r"(rename|sort|appendpipe) ", p) for p in tail):
        return None
    fields = [f.strip('"') for f in re.findall(r'"[^"]+"|\S+', parts[idx][len("table "):])]
    for p in tail:
        fields = studio.renamed(fields, p)
    return fields


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("name", EXPECTED)
def test_recorded_results_exist_in_the_shape_each_search_returns(name, state):
    defn = VIEW_DEFS[name]
    for ds_id in sorted(make_fixtures.consumed(defn)):
        path = os.path.join(FIXTURES, state, name, ds_id + ".json")
        assert os.path.exists(path), "no recording for %s/%s/%s" % (state, name, ds_id)
        rec = json.load(open(path, encoding="utf-8"))
        # annotations may be empty (nothing blocked, no finding); what a panel draws may not
        annotation_only = ds_id in annotations(defn) and ds_id not in primaries(defn)
        assert set(rec) == {"fields", "rows"} and (rec["rows"] or annotation_only), path
        assert all(len(r) == len(rec["fields"]) for r in rec["rows"]), path
        assert all(v is None or isinstance(v, str) for r in rec["rows"] for v in r), "%s: splunkd returns strings" % path
        query = defn["dataSources"][ds_id]["options"]["query"]
        expected = final_fields(query)
        if rec["fields"] == ["message"]:
            # the empty state: the search found nothing and says why, in one column
            assert spl.empty_message("") .split("message=")[0] in query, "%s: a message the search cannot return" % path
            assert len(rec["rows"]) == 1 and len(rec["rows"][0][0]) > 30, path
        elif expected is not None:
            assert rec["fields"] == expected, "%s: fields %s, the search ends with %s" % (path, rec["fields"], expected)
        if '"_time"' in json.dumps(rec["fields"]):
            assert all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$", r[0]) for r in rec["rows"]), path


# --------------------------------------------------------------------------- issue 35: fixes 3 and 4
def _search_sources(defn):
    return {i: ds for i, ds in defn["dataSources"].items() if ds["type"] == "ds.search"}


def _range_s(relative):
    """Seconds back of a relative time modifier like -2d or -4h@m (the snap ignored)."""
    m = re.fullmatch(r"-(\d+)([smhd])(@\w+)?", relative)
    assert m, "not a relative time: " + relative
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


@pytest.mark.parametrize("name", EXPECTED)
def test_latest_config_is_read_over_more_than_the_daily_send(name):
    """The collector sends ingest_doctor:config on start, on change and daily: a search over the view's
    range (4 hours) misses most instances most of the time; each such search covers two sends."""
    from ingest_doctor.collector.poll import CONFIG_REFRESH_S
    defn = VIEW_DEFS[name]
    default_range = defn["inputs"]["input_time"]["options"]["defaultValue"].split(",")[0]
    for ds_id, ds in _search_sources(defn).items():
        if "ingest_doctor:config" not in ds["options"]["query"]:
            continue
        earliest = ds["options"].get("queryParameters", {}).get("earliest", default_range)
        assert _range_s(earliest) >= 2 * CONFIG_REFRESH_S, (name, ds_id, earliest)
        assert ds["options"]["queryParameters"].get("latest") == "now", (name, ds_id)


def test_the_regex_cpu_message_says_how_to_turn_profiling_on():
    """per_*_regex_cpu is written only with limits.conf regex_cpu_profiling = true (default false):
    the empty panel says so, and what it costs, instead of blaming maxseries."""
    query = VIEW_DEFS["ingest_doctor_cpu_by_processor"]["dataSources"]["ds_regex_st"]["options"]["query"]
    message = query.split("eval message=", 1)[1]
    assert "regex_cpu_profiling = true" in message and "default is false" in message
    assert "restart" in message and "cost" in message.lower()
    assert "maxseries" not in message


PIPELINE_VIEWS = ["ingest_doctor_pipeline_sets", "ingest_doctor_thread_activity", "ingest_doctor_cpu_by_processor",
                  "ingest_doctor_hec_performance"]


@pytest.mark.parametrize("name", EXPECTED)
def test_pipeline_views_show_indexers_and_heavy_forwarders_unless_asked(name):
    """Issue 35: universal forwarders write most metrics.log lines and run no stage worth charting; the
    pipeline views (and the landing page's overview, queues and threads) read the instances that parse by
    default, every instance one choice away. The scope sits beside every host filter of a metrics.log search,
    in parentheses (SPL's OR binds tighter than the implicit AND)."""
    defn = VIEW_DEFS[name]
    if name not in PIPELINE_VIEWS:
        assert "input_scope" not in defn["inputs"]
        return
    scope = defn["inputs"]["input_scope"]
    assert "input_scope" in defn["layout"]["globalInputs"] and scope["options"]["token"] == "scope"
    assert scope["options"]["defaultValue"] == "`ingest_doctor_pipeline_hosts`"
    assert [i["value"] for i in scope["options"]["items"]] == ["`ingest_doctor_pipeline_hosts`", "host=*"]
    named = 0
    for ds_id, ds in _search_sources(defn).items():
        q = ds["options"]["query"]
        if "host IN ($host$)" in q and "`ingest_doctor_metrics_log`" in q:
            named += 1
            assert q.count("host IN ($host$)") == q.count("(host IN ($host$) $scope$)"), (name, ds_id)
    assert named >= 1, name
    assert MACROS.count("[ingest_doctor_pipeline_hosts]\n") == 1      # the one the scheduled searches use
    definition = re.search(r"^\[ingest_doctor_pipeline_hosts\]\ndefinition = (.*)$", MACROS, re.M).group(1)
    # one row per host that runs a pipeline (indexers, heavy forwarders), aggregated inside the subsearch
    assert re.fullmatch(r"\[\| tstats count (?i:where) `ingest_doctor_metrics_log` TERM\(group=\w+\)( TERM\([\w=]+\))? "
                        r"(?i:by) host \| fields host\]", definition), definition


def test_the_inputs_choices_read_no_event_of_the_range():
    """Issue 35: the host list was a tstats over every metrics.log line of the range on every open (about
    4 M raw-eq at 10,000 instances); host metadata and the typing queue's lines list the same choices."""
    for name in EXPECTED:
        sources = VIEW_DEFS[name]["dataSources"]
        assert sources["ds_hosts"]["options"]["query"].startswith("| metadata type=hosts `ingest_doctor_index_internal`")
        assert "sort 0 host" in sources["ds_hosts"]["options"]["query"]
        if "ds_psets" in sources:
            assert "TERM(group=queue) TERM(name=typingqueue) by PREFIX(ingest_pipe=)" in sources["ds_psets"]["options"]["query"]
