"""The Setup view is green when all is well: over a fresh, correct install (README's mandatory
actions only) every row is `ok` or `optional`, an optional row says how to enable its extra, search
heads and universal forwarders are not expected to run the collector, and the event index, the HEC
data of the lag panel, the notification settings and the app's own logs each have their check.

The fresh-install recording (tests/fixtures/install/fresh_setup/) holds what each search of the view
returns on such an install (no Splunk here to run them): its columns are checked against the
searches' final `table`, and its statuses and fixes against the strings the searches can produce.

The Setup view is true in a distributed deployment: a search head cluster, an indexer cluster, the
management tier (cluster manager, deployer, license manager, deployment server), HEC heavy forwarders
and universal forwarders (tests/fixtures/install/distributed_deployment.json: what each search of
the view reads there, in the shapes `| rest /services/server/info`, the tier endpoints, metrics.log
and the app's logs give).

Each check's search is written into the view from tools/dashboards/setup_checks.py, beside the rule
it applies; `rows_<check>` computes what the search returns over a recorded deployment with that
rule, and the recordings (tests/fixtures/install/<deployment>_setup/) are those rows
(tools/generate.py --check holds them current). Here: every row of the distributed deployment is
right, including the event index missing on an indexer (gap) and the management tier (named, not
expected), and each rule fails the case it exists for.
"""
import copy
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

import pytest

from confcheck import read_conf
from fakes import paths
from fakes.paths import ROOT
from fakes.searches import FLAGGING, final_fields
from ingest_doctor_ports import logs

sys.path.insert(0, os.path.join(ROOT, "tools", "dashboards"))
import setup_checks  # noqa: E402

VIEW = os.path.join(ROOT, setup_checks.VIEW)


def view_definition():
    return json.loads(ET.parse(VIEW).getroot().find("definition").text)


def queries():
    return {k: d["options"]["query"] for k, d in view_definition()["dataSources"].items()}


def strings(query):
    """The double-quoted string literals of a search (backslash escapes inside them kept as written)."""
    return set(re.findall(r'"((?:[^"\\]|\\.)*)"', query))


def recording(deployment, key):
    with open(os.path.join(paths.FIXTURES, "install", deployment + "_setup", key + ".json"), encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("key", sorted(queries()))
def test_a_fresh_install_gives_only_ok_or_optional(key):
    q = queries()[key]
    rec = recording(setup_checks.FRESH, key)
    assert rec["fields"] == final_fields(q) and rec["rows"]
    for row in rec["rows"]:
        status, fix = row[-2], row[-1]
        assert status in ("ok", "optional"), row
        assert status in strings(q)
        if status == "ok":
            assert fix == "-"
        else:
            # the fix is one the search writes, and says how to enable the extra
            assert fix.startswith("Optional") and fix in strings(q), row
            assert re.search(r"Settings >|Configuration >|install TA-ingest_doctor", fix), fix


def test_search_heads_and_universal_forwarders_are_not_expected_to_run_the_collector():
    q = queries()["ds_instances"]
    assert '"not expected"' in q and '"search head"' in q and '"universal forwarder"' in q
    rows = recording(setup_checks.FRESH, "ds_instances")["rows"]
    roles = {r[1]: (r[3], r[-2]) for r in rows}      # host role metrics_log collector ...
    assert roles["search head"] == ("not expected", "ok") and roles["universal forwarder"] == ("not expected", "ok")


def test_the_event_index_check_refuses_main():
    q = queries()["ds_events_index"]
    assert "conf-macros/ingest_doctor_events_index" in q and 'index_name=="main", "gap"' in q
    assert recording(setup_checks.FRESH, "ds_events_index")["rows"][0][:2] == ["index=ingest_doctor", "ingest_doctor"]


def test_the_lag_panel_data_is_narrow_and_checked():
    macros = read_conf(os.path.join(ROOT, "default", "macros.conf"))
    definition = macros["ingest_doctor_hec_data"]["definition"]
    assert "index=*" not in definition.replace(" ", "")
    assert "/services/data/inputs/http" in definition and "source=http:*" in definition
    assert "conf-macros/ingest_doctor_hec_data" in queries()["ds_hec_data"]


def test_the_logs_row_searches_both_log_files():
    q = queries()["ds_logs"]
    assert logs.COLLECTOR_LOG in q and logs.ACTION_LOG in q and "`ingest_doctor_index_internal`" in q
    assert [r[0] for r in recording(setup_checks.FRESH, "ds_logs")["rows"]] == [logs.COLLECTOR_LOG, logs.ACTION_LOG]


@pytest.fixture
def dep():
    return setup_checks.deployment(setup_checks.DISTRIBUTED)


def by_host(rows):
    return {r[0]: dict(zip(("host", "role", "metrics_log", "collector", "hec_probe", "status", "fix"), r))
            for r in rows}


@pytest.mark.parametrize("deployment", (setup_checks.FRESH, setup_checks.DISTRIBUTED))
@pytest.mark.parametrize("key", sorted(setup_checks.SEARCHES))
def test_the_view_runs_the_checks_searches_and_the_recordings_are_their_rows(deployment, key):
    spl, rows = setup_checks.SEARCHES[key]
    assert queries()[key] == spl()
    rec = recording(deployment, key)
    assert rec["fields"] == final_fields(spl()) and rec["rows"] == rows(setup_checks.deployment(deployment))


def test_every_instance_of_a_distributed_deployment_is_right(dep):
    rows = by_host(recording(setup_checks.DISTRIBUTED, "ds_instances")["rows"])
    assert sorted(rows) == sorted(dep["metrics_log"])
    # the management tier: not search peers, named from the search head's tier endpoints, not expected
    for host, role in (("cm-01", "cluster manager"), ("deployer-01", "search head cluster deployer"),
                       ("lm-01", "license manager"), ("ds-01", "deployment server"),
                       ("sh-02", "search head"), ("sh-03", "search head")):
        assert (rows[host]["role"], rows[host]["collector"], rows[host]["status"], rows[host]["fix"]) == \
            (role, "not expected", "ok", "-"), host
    # the indexer without the add-on is a gap; an HEC forwarder without it is optional; universal forwarders are fine
    assert (rows["idx-03"]["role"], rows["idx-03"]["collector"], rows["idx-03"]["status"]) == \
        ("indexer", "not installed", "gap")
    assert rows["idx-03"]["fix"] == setup_checks.FIX["install"]
    assert (rows["hf-02"]["role"], rows["hf-02"]["status"], rows["hf-02"]["fix"]) == \
        ("heavy forwarder (HEC)", "optional", setup_checks.FIX["hec"])
    assert rows["hf-01"]["status"] == "ok" and rows["uf-01"]["status"] == rows["uf-02"]["status"] == "ok"
    # no blue hint to install the add-on on anything but an instance that runs HEC
    assert {h for h, r in rows.items() if r["fix"] == setup_checks.FIX["hec"]} == {"hf-02"}
    assert [r[0] for r in recording(setup_checks.DISTRIBUTED, "ds_instances")["rows"]][:1] == ["idx-03"]  # gaps first


def test_roles_come_from_server_roles_first():
    """An all-in-one instance (indexer and search head and license manager) runs the collector; a
    Monitoring Console's (license_master, cluster_search_head, search_head) does not; an instance the
    search head reaches whose roles name none of ours is 'forwarder or other, no HEC'."""
    dep = {"now": 1000, "server_info": [
        {"splunk_server": "aio", "server_roles": ["indexer", "license_master", "search_head", "kv_store"]},
        {"splunk_server": "mc", "server_roles": ["license_master", "cluster_search_head", "search_head"]},
        {"splunk_server": "cm", "server_roles": ["cluster_manager"]},
        {"splunk_server": "odd", "server_roles": ["kv_store"]}],
        "tiers": {}, "metrics_log": {"aio": 1, "mc": 1, "cm": 1, "odd": 1}, "collector": {}, "hec_probe": {},
        "hec_hosts": [], "uf_hosts": []}
    rows = by_host(setup_checks.rows_instances(dep))
    assert [(rows[h]["role"], rows[h]["status"]) for h in ("aio", "mc", "cm", "odd")] == [
        ("indexer", "gap"), ("search head", "ok"), ("cluster manager", "ok"), ("forwarder or other, no HEC", "ok")]
    q = queries()["ds_instances"]
    for role in setup_checks.ROLES:
        for value in role.server_roles:
            assert value in q, value                         # each server_roles value is in the search's rule
    for _, rest, _ in setup_checks.TIER_ENDPOINTS:
        assert "| rest " + rest in q
    assert "sourcetype=http_event_collector_metrics" in q and "TERM(fwdType=uf)" in q


def test_a_host_a_tier_endpoint_names_but_that_sends_nothing_is_no_row(dep):
    """The tier endpoints name hosts by URI: an FQDN and its short name are both tried, the one that sends
    nothing is not listed (a row would say 'not seen' of an instance that is fine)."""
    rows = by_host(setup_checks.rows_instances(dep))
    assert "cm-01.corp.example" not in rows and "cm-01" in rows
    dep["metrics_log"].pop("cm-01")
    assert "cm-01" not in by_host(setup_checks.rows_instances(dep))


def test_the_event_index_is_counted_on_the_indexers_never_the_search_head(dep):
    q = queries()["ds_events_index"]
    assert "dc(splunk_server)" not in q and 'mvfind(server_roles, \\"^indexer$\\")' in json.dumps(q)
    (row,) = recording(setup_checks.DISTRIBUTED, "ds_events_index")["rows"]
    assert row[1:5] == ["ingest_doctor", "3", "2", "gap"] and row[5] == setup_checks.EVENTS_FIX["missing"]
    # no indexer has it, only the search head (the app's indexes.conf): still red
    none = dict(dep, event_indexes={"sh-01": ["main", "ingest_doctor"], "idx-01": ["main"], "idx-02": ["main"],
                                    "idx-03": ["main"]})
    assert setup_checks.rows_events_index(none)[0][2:5] == ["3", "0", "gap"]
    every = copy.deepcopy(dep)
    every["event_indexes"]["idx-03"].append("ingest_doctor")
    assert setup_checks.rows_events_index(every)[0][2:6] == ["3", "3", "ok", "-"]
    main = dict(every, events_index_macro="index=main")
    assert setup_checks.rows_events_index(main)[0][4:] == ["gap", setup_checks.EVENTS_FIX["main"]]
    lonely = dict(every, server_info=[p for p in every["server_info"] if "indexer" not in p["server_roles"]])
    assert setup_checks.rows_events_index(lonely)[0][2:5] == ["0", "0", "gap"]


def test_the_logs_row_judges_sustained_errors_not_one_line(dep):
    """A busy indexer's collector logs a timeout now and then: ok. Transient errors in 12 hours of 24,
    or any other error (an HTTP 403, a bad parameter), is a gap naming the search to read them."""
    rows = {r[0]: r for r in recording(setup_checks.DISTRIBUTED, "ds_logs")["rows"]}
    col = rows["ingest_doctor_collector.log"]
    assert col[1:5] == ["7", "0", "5", "0"] and col[6:] == ["ok", "-"]
    one = copy.deepcopy(dep)
    one["app_logs"]["ingest_doctor_collector.log"] = [[60, "ERROR", "category=endpoint_error endpoint=/x kind=timeout"]]
    assert setup_checks.rows_logs(one)[0][6] == "ok"
    sustained = copy.deepcopy(dep)
    sustained["app_logs"]["ingest_doctor_collector.log"] = [
        [h * 3600 + 60, "ERROR", "category=endpoint_error endpoint=/x kind=5xx"]
        for h in range(setup_checks.SUSTAINED_ERROR_HOURS)]
    row = setup_checks.rows_logs(sustained)[0]
    assert row[3] == str(setup_checks.SUSTAINED_ERROR_HOURS) and row[6] == "gap"
    assert row[7].startswith(setup_checks.LOGS_FIX["sustained"])
    for line in ("category=endpoint_error endpoint=/x kind=403", "category=bad_parameter input=splunkd",
                 "category=endpoint_error endpoint=/x kind=tls"):
        other = copy.deepcopy(dep)
        other["app_logs"]["ingest_doctor_collector.log"].append([60, "ERROR", line])
        row = setup_checks.rows_logs(other)[0]
        assert row[2] == "1" and row[6] == "gap" and row[7].startswith(setup_checks.LOGS_FIX["other"]), line
    action = copy.deepcopy(dep)
    action["app_logs"]["ingest_doctor_flag.log"] = [[60, "ERROR", "category=transient msg=KV Store initialising"]]
    assert setup_checks.rows_logs(action)[1][6] == "ok"
    q = queries()["ds_logs"]
    assert all(k in q for k in setup_checks.TRANSIENT_KINDS) and "403" not in setup_checks.TRANSIENT_KINDS
    assert "error_hours>=%d" % setup_checks.SUSTAINED_ERROR_HOURS in q


def test_the_alert_counts_are_the_shipped_confs(dep):
    (row,) = recording(setup_checks.DISTRIBUTED, "ds_notifications")["rows"]
    on = [k for k, s in FLAGGING.items() if s.get("disabled", "0") == "0" and s.get("enableSched") == "1"]
    assert row[3:5] == [str(len(FLAGGING)), str(len(on))]
    off = dict(dep, alerts_disabled=["Ingest Doctor - HEC - Server busy"])
    row = setup_checks.rows_notifications(off)[0]
    assert row[4] == str(len(on) - 1) and row[5:] == ["optional", setup_checks.NOTIFY_FIX["off"]]
    assert "Disable" in row[6] and "local/savedsearches.conf" in row[6]


def test_one_line_verdict_on_top_counts_every_tables_rows():
    """The verdict runs every check's own search (as the view runs it) and counts its gap and optional rows,
    naming each table; it is the first table of the view."""
    defn = view_definition()
    q = queries()
    for key, _ in setup_checks.CHECKS:
        assert q[key] in q["ds_verdict"], key
    assert defn["layout"]["structure"][1]["item"] == "viz_verdict"
    assert defn["visualizations"]["viz_verdict"]["dataSources"]["primary"] == "ds_verdict"
    (row,) = recording(setup_checks.DISTRIBUTED, "ds_verdict")["rows"]
    assert row == ["3 gaps, 5 optional", "Instances (1), Metrics index (1), Event index (1)",
                   "Instances (3), HEC data (1), Notifications (1)", "gap", setup_checks.VERDICT_FIX["gap"]]
    ok = {key: [["x", "ok", "-"]] for key, _ in setup_checks.CHECKS}
    assert setup_checks.rows_verdict(ok) == [["all checks ok", "-", "-", "ok", "-"]]


def test_the_setup_view_says_how_to_turn_any_alert_off():
    defn = view_definition()
    text = defn["visualizations"]["viz_intro"]["options"]["markdown"]
    assert "Settings > Searches, reports, and alerts" in text and "Disable" in text
    assert "disabled = 1" in text and "local/savedsearches.conf" in text
