"""The search cost model (tools/searchcost.py) counts what the shipped searches select: its table
(tools/searchcost_selects.py) agrees with their SPL, it reads ranges and crons from the shipped
files, and the scheduled searches meet issue 35's budgets at 10,000 instances."""
import io
import os

import pytest

from fakes.gates_helpers import copy_of, edit
from fakes.paths import ROOT

import searchcost
import searchspl
from searchcost import Read


def test_the_table_agrees_with_every_shipped_search():
    assert searchcost.mismatches() == []


def test_every_scheduled_search_and_data_source_has_an_entry():
    keys = {i.key for i in searchcost.items()}
    assert keys == set(searchcost.selects())
    assert sum(1 for i in searchcost.items() if i.what == "scheduled") >= 9


def _broken(key, **change):
    table = dict(searchcost.selects())
    reads = list(table[key])
    reads[0] = reads[0]._replace(**change)
    table[key] = tuple(reads)
    return table


@pytest.mark.parametrize("key, change, expected", [
    ("Ingest Doctor - Silence - Instance stopped reporting", {"select": ("queue",)}, "select is ('queue',) in the table"),
    ("Ingest Doctor - Silence - Instance stopped reporting", {"kind": "raw"}, "kind is 'raw' in the table"),
    ("ingest_doctor_pipeline_sets/ds_blocked", {"terms": ("group=queue",)}, "terms is ('group=queue',) in the table"),
    ("ingest_doctor_thread_activity/ds_cpu_trap", {"select": ("ingest_doctor.host.cores",)}, "select is"),
    ("ingest_doctor_findings/ds_findings", {"source": "metrics.log"}, "source is 'metrics.log' in the table"),
    ("ingest_doctor_setup/ds_logs", {"hosts": "busy"}, "its SPL filters no host"),
    ("ingest_doctor_hec_performance/ds_hec", {"hosts": "pipeline"}, "its SPL filters no host"),   # host IN (*)
])
def test_a_wrong_entry_fails(key, change, expected):
    found = searchcost.mismatches(table=_broken(key, **change))
    assert any(key in m and expected in m for m in found), found


def test_a_data_source_without_an_entry_fails_and_a_stale_entry_fails():
    table = dict(searchcost.selects())
    del table["ingest_doctor_pipeline_sets/ds_queues"]
    table["ingest_doctor_pipeline_sets/ds_gone"] = searchcost.CHAIN
    found = searchcost.mismatches(table=table)
    assert "ingest_doctor_pipeline_sets/ds_queues: no entry in tools/searchcost_selects.py" in found
    assert any(m.startswith("ingest_doctor_pipeline_sets/ds_gone: in the table but") for m in found)
    with pytest.raises(KeyError):
        searchcost.rows(table=table)


def test_a_segment_too_many_or_too_few_fails():
    table = dict(searchcost.selects())
    key = "Ingest Doctor - HEC - Request latency high"
    table[key] = table[key] + (Read("raw", "events", ("ingest_doctor:finding",)),)
    assert any(key in m and "2 reads in the table, 1 generating segments" in m
               for m in searchcost.mismatches(table=table))


def _by_key(root):
    return {(r.key, r.size): r for r in searchcost.rows(str(root))}


def test_the_cron_and_the_range_are_read_from_the_conf(tmp_path):
    app = copy_of(tmp_path / "app", "default", "lookups")
    conf = app / "default" / "savedsearches.conf"
    text = conf.read_text(encoding="utf-8")
    name = "Ingest Doctor - HEC - Request latency high"
    start = text.index("[%s]" % name)
    stanza = text[start:text.index("\n[", start + 1)]
    changed = stanza.replace("cron_schedule = ", "cron_schedule = 0 * * * *\n# was: ", 1)
    changed = changed.replace("dispatch.earliest_time = -10m", "dispatch.earliest_time = -20m")
    changed = changed.replace("`ingest_doctor_alert_window`", "")
    assert changed != stanza
    conf.write_text(text.replace(stanza, changed), encoding="utf-8")
    before, after = _by_key(ROOT)[(name, 10000)], _by_key(app)[(name, 10000)]
    assert after.runs_per_day == 24
    # twice the window per run, 1/12 of the runs (a 5-minute cron to an hourly one)
    assert after.per_run.index_only == pytest.approx(2 * before.per_run.index_only)
    assert after.per_day.raw_eq == pytest.approx(before.per_day.raw_eq * 2 * 24 / before.runs_per_day)


def test_a_views_default_range_is_read_from_the_view(tmp_path):
    app = copy_of(tmp_path / "app", "default", "lookups")
    view = app / "default" / "data" / "ui" / "views" / "ingest_doctor_pipeline_sets.xml"
    assert view.read_text(encoding="utf-8").count('"defaultValue": "-4h@m,now"') == 1
    edit(view, '"defaultValue": "-4h@m,now"', '"defaultValue": "-1h@m,now"')
    key = "ingest_doctor_pipeline_sets/ds_queues"
    before, after = _by_key(ROOT)[(key, 1000)], _by_key(app)[(key, 1000)]
    assert after.per_run.index_only == pytest.approx(before.per_run.index_only / 4)


def test_cron_and_time_parsing():
    assert searchspl.cron_runs_per_day("* * * * *") == 1440
    assert searchspl.cron_runs_per_day("1-59/5 * * * *") == 288
    assert searchspl.cron_runs_per_day("7,37 */2 * * *") == 24
    assert searchspl.relative_s("-4h@m") == 14400
    with pytest.raises(ValueError, match="not a relative time"):
        searchspl.relative_s("@d")
    with pytest.raises(ValueError, match="five fields"):
        searchspl.cron_runs_per_day("*/5 * *")


def test_the_cli_prints_the_table_and_the_budgets():
    out = io.StringIO()
    code = searchcost.main(["--budgets"], out=out)
    text = out.getvalue()
    assert code == 0
    assert "at 10 k instances" in text and "budgets (issue 35)" in text
    assert "all scheduled searches, per day, at 10 k instances" in text


def _at_budget_size():
    return [r for r in searchcost.rows() if r.size == searchcost.BUDGET_SIZE]


def test_the_scheduled_searches_meet_their_daily_budget():
    """Issue 35: all scheduled searches together at most 13 M raw-eq a day at 10,000 instances."""
    (b,) = [b for b in searchcost.budgets(searchcost.rows()) if b.name.startswith("all scheduled searches")]
    assert b.met, "%s raw-eq a day" % searchcost.fmt(b.value)
    assert b.limit == 13e6


def test_every_subsearch_of_a_scheduled_search_stays_below_its_limit():
    """Appends at most 50,000 rows, other subsearches 10,000, at 10,000 instances: aggregated inside."""
    over = [(r.key, seg.via, c.out) for r in _at_budget_size() if r.what == "scheduled"
            for seg, c in r.segments if seg.limit and c.out >= seg.limit]
    assert over == []


def test_the_scheduled_budget_gate_bites(tmp_path):
    """Silence back on a 24-hour tstats of every thruput line every 5 minutes blows the budget."""
    app = copy_of(tmp_path / "app", "default", "lookups")
    conf = app / "default" / "savedsearches.conf"
    old = "search = | tstats max(_time) AS heard WHERE `ingest_doctor_metrics_log` TERM(group=thruput) TERM(name=thruput) BY host"
    edit(conf, old, old.replace(" TERM(name=thruput)", ""), -1)
    edit(conf, "dispatch.earliest_time = -7m", "dispatch.earliest_time = -24h", -1)
    table = dict(searchcost.selects())
    key = "Ingest Doctor - Lookups - Known hosts"
    table[key] = (table[key][0]._replace(terms=("group=thruput",)),) + table[key][1:]
    assert searchcost.mismatches(str(app), table) == []
    (b,) = [b for b in searchcost.budgets(searchcost.rows(str(app), table=table), str(app))
            if b.name.startswith("all scheduled searches")]
    assert not b.met and b.value > 500e6


def test_the_markdown_tables_are_those_of_the_docs_page_shape():
    out = io.StringIO()
    assert searchcost.main(["--markdown"], out=out) == 0
    text = out.getvalue()
    assert text.startswith("| scheduled search | runs a day |") and "| **all scheduled searches** |" in text
    assert "| view, one open at its default range |" in text and "Budgets at 10 k instances:" in text
    doc = open(os.path.join(ROOT, "docs", "searches.md"), encoding="utf-8").read()
    assert "tools/searchcost.py --markdown" in doc and "What only a real Splunk can confirm" in doc


def test_a_generating_command_in_append_mode_is_a_segment():
    spl = ("| tstats count WHERE index=_internal BY host | appendpipe [stats count BY host "
           "| inputlookup append=true ingest_doctor_topology] | tstats prestats=t append=t count WHERE index=x BY host")
    segs = searchspl.segments(spl)
    assert [(s.kind, s.via) for s in segs] == [("tstats", None), ("inputlookup", "pipeline"), ("tstats", "pipeline")]
    assert [s.kind for s in searchspl.segments("| inputlookup ingest_doctor_findings | stats count")] == ["inputlookup"]


def test_the_docs_tables_follow_the_searches(tmp_path):
    """tools/generate.py writes docs/searches.md's tables from the model; a changed schedule changes them."""
    doc = open(os.path.join(ROOT, searchcost.DOCS), encoding="utf-8").read()
    assert searchcost.docs_text(doc) == doc                         # current (generate.py --check says so too)
    app = copy_of(tmp_path / "app", "default", "lookups")
    edit(app / "default" / "savedsearches.conf", "cron_schedule = 4-59/5 * * * *", "cron_schedule = 4 * * * *", -1)
    changed = searchcost.docs_text(doc, str(app))
    assert changed != doc and "| Ingest Doctor - HEC - Request latency high | 24 |" in changed
    with pytest.raises(ValueError, match="no"):
        searchcost.docs_text("# no tables here\n")
