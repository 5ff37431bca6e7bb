"""The SPL checker bites: each broken search is rejected with a message naming the problem."""
import json
import os
import textwrap

import pytest

from fakes.gates_helpers import run_tool
from fakes.paths import ROOT, TOOLS

import splcheck

CTX = splcheck.context(
    macros={"idx_internal": [], "metrics_log": [], "busy_pct": [], "fill_band(2)": ["field", "pct"]},
    lookups={"ingest_doctor_hec_reply_codes", "ingest_doctor_thresholds.csv"},
    alert_actions={"ingest_doctor_flag"},
    saved_searches={"Saturated thread"},
)
GOOD = ("`metrics_log` group=queue | eval fill=round(current_size_kb/max_size_kb*100,1) "
        "| where fill >= `busy_pct` | `fill_band(fill, 90)` | lookup ingest_doctor_hec_reply_codes reply OUTPUT meaning "
        "| append [| inputlookup ingest_doctor_thresholds.csv | where name=\"a|b (c\"] "
        "| rex field=_raw \"reply=(?<reply>\\d+)\" | eval 'odd name'=1 | timechart span=1m max(fill) by name")


def problems(spl, **kw):
    return splcheck.check_search(spl, CTX, **kw)


@pytest.mark.parametrize("spl, kw", [
    pytest.param(GOOD, {}, id="good"),
    pytest.param("`metrics_log` ```don't count | nosuch [ (``` | stats count", {}, id="comments_are_not_syntax"),
    pytest.param('`metrics_log` | eval x="index=main | nosuch [ ( `"', {}, id="quoted_text_is_not_syntax"),
    pytest.param("`metrics_log` | eval x=\"escaped \\\" quote\" | table x", {}, id="escaped_quote_is_not_syntax"),
    pytest.param("index=_internal", {"in_macro": True}, id="index_in_a_macro_definition"),
    pytest.param("stats count by host", {"post_process": True}, id="post_process_starts_with_a_command"),
    pytest.param("`metrics_log` [ `idx_internal` group=queue | fields host ] | stats count", {},
                 id="implicit_search_at_subsearch_start"),
    pytest.param("`metrics_log` | append [ `idx_internal` | head 1 ] | appendpipe [stats count] "
                 "| foreach x* [eval <<FIELD>>=1]", {}, id="implicit_search_in_append_appendpipe_foreach"),
])
def test_a_good_search_passes(spl, kw):
    assert problems(spl, **kw) == []


@pytest.mark.parametrize("spl, expected", [
    ("`metrics_log` | timechrt count", "unknown command 'timechrt'"),
    ("`metrics_log` | stats count | | table x", "pipe with no command"),
    ("`metrics_log` | append [| inputlukup x] ", "unknown command 'inputlukup'"),
    ("`metrics_log` | appendpipe [statz count]", "unknown command 'statz'"),
    ("`metrics_log` | foreach * [evl <<FIELD>>=1]", "unknown command 'evl'"),
    ("`metrics_log` | eval x=round(a/b*100,1 | table x", "unclosed '('"),
    ("`metrics_log` | eval x=round(a/b)) | table x", "unbalanced ')'"),
    ("`metrics_log` | append [| makeresults ", "unclosed '['"),
    ("`metrics_log` | eval x=\"unterminated | table x", "unbalanced double quote"),
    ("`metrics_log` | eval 'x=1 | table x", "unbalanced single quote"),
    ("`metrics_log | table x", "unbalanced backtick"),
    ("`nosuch_macro` | table x", "macro `nosuch_macro` is not defined in macros.conf (stanza [nosuch_macro])"),
    ("`metrics_log` | `fill_band(fill)`", "macro `fill_band` called with 1 argument but macros.conf defines only [fill_band(2)]"),
    ("`metrics_log(1)` | table x", "macro `metrics_log` called with 1 argument"),
    ("`metrics_log` | lookup no_such_lookup reply OUTPUT x", "lookup 'no_such_lookup' (lookup) is neither a transforms.conf stanza nor lookups/no_such_lookup.csv"),
    ("| inputlookup append=t missing.csv", "lookup 'missing.csv' (inputlookup)"),
    ("`metrics_log` | outputlookup other", "lookup 'other' (outputlookup)"),
    ("`metrics_log` | sendalert nope", "sendalert 'nope': no such alert action"),
    ("index=_internal group=queue | stats count", "`index` referenced outside a macro"),
    ("index=_internal", "`index` referenced outside a macro"),          # allowed in a macro definition only
    ("`metrics_log` | search index!=main", "`index` referenced outside a macro"),
    ("| tstats count where index IN (_internal) by host", "`index` referenced outside a macro"),
    ("", "empty search"),
    ("`metrics_log` ```open | stats count", "unclosed ``` comment"),
])
def test_each_broken_search_is_rejected(spl, expected):
    found = problems(spl)
    assert any(expected in p for p in found), found


def test_post_process_without_a_known_command_is_rejected():
    assert any("unknown command 'statz'" in p for p in problems("statz count", post_process=True))


def test_macro_definition_checks():
    assert splcheck.check_macro_definition("m(2)", ["a", "b"], "x=$a$ y=$b$") == []
    assert "takes 2 arguments but args = 'a' names 1" in splcheck.check_macro_definition("m(2)", ["a"], "$a$")[0]
    assert "uses $c$ but args does not name it" in splcheck.check_macro_definition("m(1)", ["a"], "$a$ $c$")[0]
    assert splcheck.check_macro_definition("m", [], "1") == []


def studio(defn):
    return '<dashboard version="2" theme="dark">\n<label>T</label>\n<definition><![CDATA[%s]]></definition>\n</dashboard>\n' % json.dumps(defn)


DEFN = {
    "dataSources": {
        "ds_base": {"type": "ds.search", "name": "base", "options": {
            "query": "`metrics_log` host IN ($hosts$) | stats count by host", "enableSmartSources": True,
            "queryParameters": {"earliest": "$global_time.earliest$", "latest": "$global_time.latest$"}}},
        "ds_chain": {"type": "ds.chain", "options": {"extend": "ds_base", "query": "| where count > $min$"}},
        "ds_saved": {"type": "ds.savedsearch", "options": {"ref": "Saturated thread"}},
    },
    "inputs": {
        "in_time": {"type": "input.timerange", "options": {"token": "global_time", "defaultValue": "-24h,now"}},
        "in_hosts": {"type": "input.multiselect", "options": {"token": "hosts"}},
    },
    "defaults": {"tokens": {"default": {"min": {"value": "0"}}}},
    "visualizations": {
        "viz": {"type": "splunk.table", "dataSources": {"primary": "ds_chain"},
                "title": "Hosts over $min$ ($$5 a month) $base:result.count$",
                "eventHandlers": [
                    {"type": "drilldown.setToken", "options": {"tokens": [{"token": "picked", "key": "row.host.value"}]}},
                    {"type": "drilldown.linkToDashboard", "options": {"app": "ingest_doctor", "dashboard": "x",
                                                                    "tokens": [{"token": "h", "value": "$row.host.value$"}]}}]},
        "viz2": {"type": "splunk.markdown", "options": {"markdown": "Picked: $picked$"}},
    },
    "layout": {"type": "absolute", "structure": []},
}


def make_app(tmp_path, defn=None, saved=None, xml_extra=None):
    app = tmp_path / "ingest_doctor"
    (app / "default" / "data" / "ui" / "views").mkdir(parents=True)
    (app / "lookups").mkdir()
    (app / "lookups" / "ingest_doctor_thresholds.csv").write_text("name\n")
    (app / "default" / "macros.conf").write_text(textwrap.dedent("""\
        [metrics_log]
        definition = index=_internal source=*metrics.log

        [fill_band(2)]
        args = field, pct
        definition = eval band=if($field$ >= $pct$, "full", "ok")
        """))
    (app / "default" / "transforms.conf").write_text("[ingest_doctor_hec_reply_codes]\nfilename = x.csv\n")
    (app / "default" / "savedsearches.conf").write_text(saved if saved is not None else textwrap.dedent("""\
        [Saturated thread]
        search = `metrics_log` group=thruput \\
        | stats count by host \\
        | `fill_band(count, 90)`
        """))
    (app / "default" / "data" / "ui" / "views" / "hec.xml").write_text(studio(defn if defn is not None else DEFN))
    if xml_extra:
        (app / "default" / "data" / "ui" / "views" / "classic.xml").write_text(xml_extra)
    return app


def test_whole_app_passes_and_counts(tmp_path):
    count, found = splcheck.check_app(str(make_app(tmp_path)))
    assert found == []
    assert count == 5  # 1 saved search, 2 macros, 2 dashboard queries


def test_undefined_dashboard_tokens_are_rejected(tmp_path):
    defn = json.loads(json.dumps(DEFN))
    defn["dataSources"]["ds_base"]["options"]["query"] += " | where host=$hots$"
    defn["visualizations"]["viz2"]["options"]["markdown"] = "Clicked $click.value$ and $row.host.value$"
    defn["dataSources"]["ds_chain"]["options"]["extend"] = "ds_gone"
    defn["dataSources"]["ds_saved"]["options"]["ref"] = "Not a saved search"
    count, found = splcheck.check_app(str(make_app(tmp_path, defn)))
    text = "\n".join(found)
    assert "default/data/ui/views/hec.xml: dataSources.ds_base.options.query: token $hots$ is not defined in this dashboard" in text
    assert "visualizations.viz2.options.markdown: $click.value$ is only defined inside an event handler" in text
    assert "$row.host.value$ is only defined inside an event handler" in text
    assert "dataSources.ds_chain: ds.chain extends 'ds_gone', which is not a data source here" in text
    assert "dataSources.ds_saved: ds.savedsearch ref 'Not a saved search' is not in savedsearches.conf" in text


def test_problems_name_file_and_object(tmp_path):
    saved = "[Broken alert]\nsearch = index=main | timechrt count | `nope(1)`\n"
    count, found = splcheck.check_app(str(make_app(tmp_path, saved=saved)))
    assert any(p.startswith("default/savedsearches.conf: [Broken alert]: unknown command 'timechrt'") for p in found)
    assert any(p.startswith("default/savedsearches.conf: [Broken alert]: `index` referenced outside a macro") for p in found)
    assert any(p.startswith("default/savedsearches.conf: [Broken alert]: macro `nope` is not defined") for p in found)


def test_simple_xml_tokens(tmp_path):
    xml = textwrap.dedent("""\
        <form version="1.1">
          <fieldset><input type="time" token="tr"><default><earliest>-1h</earliest></default></input></fieldset>
          <row><panel><table><search><query>`metrics_log` host=$host$ | stats count</query>
            <earliest>$tr.earliest$</earliest><latest>$tr.latest$</latest></search>
            <drilldown><set token="picked">$row.host$</set></drilldown></table></panel></row>
        </form>""")
    count, found = splcheck.check_app(str(make_app(tmp_path, xml_extra=xml)))
    assert found == ["default/data/ui/views/classic.xml: <query>: token $host$ is not defined in this dashboard"]


def test_invalid_studio_json_is_reported(tmp_path):
    app = make_app(tmp_path)
    (app / "default" / "data" / "ui" / "views" / "hec.xml").write_text(
        '<dashboard version="2"><definition><![CDATA[{"dataSources": {]]></definition></dashboard>')
    count, found = splcheck.check_app(str(app))
    assert any("hec.xml: <definition> is not valid JSON" in p for p in found)


def test_cli_fails_on_problems_and_on_nothing_to_check(tmp_path):
    app = make_app(tmp_path, saved="[Bad]\nsearch = `metrics_log` | statz count\n")
    empty = tmp_path / "empty"
    (empty / "default").mkdir(parents=True)
    for tree, says in ((app, ("unknown command 'statz'", "searches")), (empty, ("no search found",))):
        proc = run_tool("splcheck.py", tree)
        assert proc.returncode == 1 and all(s in proc.stdout for s in says), (tree, proc.stdout)


def test_command_list_holds_real_commands_only_once():
    with open(os.path.join(TOOLS, "spl_commands.txt")) as fh:
        words = [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    assert len(words) == len(set(words))
    for cmd in ("tstats", "mstats", "rest", "makeresults", "inputlookup", "outputlookup", "lookup", "eval",
                "stats", "timechart", "where", "rex", "foreach", "spath", "xyseries", "sendalert", "tojson"):
        assert cmd in words


# ---------------------------------------------------------------- issue 35: the cost rules
def saved_stanza(search, cron="*/5 * * * *", sched="1"):
    return "[Saturated thread]\nsearch = %s\ncron_schedule = %s\nenableSched = %s\n" % (search, cron, sched)


@pytest.mark.parametrize("search, expected", [
    ("`metrics_log` group=queue | append [search `metrics_log` group=pipeline | eval x=1] | stats count",
     "append subsearch over raw events without aggregation inside"),
    ("| tstats count WHERE `metrics_log` BY host | append [| mstats max(m.x) AS v WHERE `metrics_log` BY host span=1m "
     "| eval v=round(v, 1)] | stats max(v) BY host", "append subsearch over mstats ... span= without aggregation"),
    ("`metrics_log` group=queue | join host [search `metrics_log` group=pipeline | fields host cpu]",
     "join subsearch over raw events without aggregation inside"),
])
def test_a_cut_subsearch_that_does_not_aggregate_is_rejected(tmp_path, search, expected):
    count, found = splcheck.check_app(str(make_app(tmp_path, saved=saved_stanza(search, cron="0 * * * *"))))
    assert any(p.startswith("default/savedsearches.conf: [Saturated thread]: " + expected) for p in found), found


@pytest.mark.parametrize("search", [
    "`metrics_log` group=queue | append [search `metrics_log` group=pipeline | stats count BY host] | stats count",
    "| tstats count WHERE `metrics_log` BY host | append [| mstats max(m.x) AS v WHERE `metrics_log` BY host span=1m "
    "| stats max(v) AS v BY host] | stats max(v) BY host",
    "| tstats count WHERE `metrics_log` BY host | append [| mstats max(m.x) AS v WHERE `metrics_log` BY host]",
    "| tstats count WHERE `metrics_log` BY host | append [| tstats count WHERE `metrics_log` BY host _time span=1m]",
    "`metrics_log` [search `metrics_log` group=queue | fields host] | stats count",
])
def test_a_subsearch_that_aggregates_or_reads_index_only_passes(tmp_path, search):
    count, found = splcheck.check_app(str(make_app(tmp_path, saved=saved_stanza(search, cron="0 * * * *"))))
    assert found == []


@pytest.mark.parametrize("group", ["tcpin_connections", "tcpout_connections", "dutycycle"])
def test_a_frequent_scheduled_raw_read_of_a_heavy_group_is_rejected(tmp_path, group):
    search = "`metrics_log` TERM(group=%s) | stats count BY host" % group
    count, found = splcheck.check_app(str(make_app(tmp_path, saved=saved_stanza(search, cron="*/5 * * * *"))))
    assert found == ["default/savedsearches.conf: [Saturated thread]: raw search over metrics.log group=%s in a search that "
                     "runs 288 times a day (more often than every 15 minutes): read it with tstats, or from a lookup "
                     "a short tstats run keeps" % group]
    for ok in (saved_stanza(search, cron="*/15 * * * *"), saved_stanza(search, sched="0"),
               saved_stanza("| tstats count WHERE `metrics_log` TERM(group=%s) BY host" % group)):
        count, found = splcheck.check_app(str(make_app(tmp_path / group / str(len(ok)), saved=ok)))
        assert found == [], ok


# A binned mstats appended, restricted by a subsearch to the top N hosts: bounded at any deployment size (its rows are
# N hosts x its series x bins), so it passes; a host filter without `head N`, a larger N, or anything after the head
# that can bring hosts back leaves it unbounded: Splunk's silent 50,000-row cut at 10,000 instances.
TOP5 = "[| tstats max(PREFIX(ratio=)) AS v WHERE `metrics_log` BY host | sort 0 - v host | head 5 | fields host]"
BINNED = ("| tstats count WHERE `metrics_log` BY host _time span=1m | append [| mstats max(m.x) AS v WHERE `metrics_log` "
          "%s BY host thread span=1m | eval v=round(v, 1)] | timechart max(v) BY host")


@pytest.mark.parametrize("hosts", [
    "[| tstats count WHERE `metrics_log` BY host | fields host]",                      # every host
    TOP5.replace("head 5", "head 50"),                                                  # above TOP_HOSTS_MAX
    TOP5.replace("| fields host]", "| append [| tstats count WHERE `metrics_log` BY host] | fields host]"),
    TOP5.replace("| fields host]", "| fields host thread]"),                           # not a host list
    TOP5.replace("| head 5", "| stats values(host) AS host | head 5"),                  # 1 row, every host
    "host IN (a, b)",                                                                   # no subsearch at all
])
def test_a_binned_mstats_append_not_limited_to_top_hosts_is_rejected(tmp_path, hosts):
    count, found = splcheck.check_app(str(make_app(tmp_path, saved=saved_stanza(BINNED % hosts, cron="0 * * * *"))))
    assert [p.split(": ", 2)[2][:60] for p in found] == [
        "append subsearch over mstats ... span= without aggregation i"], found


@pytest.mark.parametrize("hosts", [TOP5, TOP5.replace("head 5", "head 10"), TOP5.replace("fields host", "table host")])
def test_a_binned_mstats_append_limited_to_the_top_hosts_passes(tmp_path, hosts):
    count, found = splcheck.check_app(str(make_app(tmp_path, saved=saved_stanza(BINNED % hosts, cron="0 * * * *"))))
    assert found == []
    assert splcheck.top_hosts_filter("| mstats max(m.x) AS v WHERE `metrics_log` %s BY host span=1m" % hosts) in (5, 10)


def test_the_top_hosts_filter_must_restrict_the_mstats_itself():
    """A top-N subsearch elsewhere in the appended search (after the mstats) does not bound what mstats reads."""
    assert splcheck.top_hosts_filter("| mstats max(m.x) AS v WHERE `metrics_log` BY host span=1m | search " + TOP5) is None
    assert splcheck.top_hosts_filter("| tstats count WHERE `metrics_log` " + TOP5 + " BY host _time span=1m") is None


def test_the_shipped_saved_searches_macros_and_views_pass_the_cost_rules():
    """Issue 35: the dashboards' appended subsearches (the HEC thread's and Thread activity's collector series, the
    Pipeline sets' indexer status) are aggregated inside or limited to the top hosts."""
    count, found = splcheck.check_app(ROOT)
    shipped = ("default/savedsearches.conf", "default/macros.conf", "default/data/ui/views/")
    assert [p for p in found if p.startswith(shipped)] == []


def test_help_prints_usage(capsys):
    assert splcheck.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Usage: splcheck.py APP_DIR" in out and "append" in out and "more often than every 15 minutes" in out
    assert splcheck.main(["--bogus"]) == 2
