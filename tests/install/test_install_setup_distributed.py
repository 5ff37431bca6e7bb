"""The Setup view is true in a distributed deployment: a search head cluster, an indexer cluster, the
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
import sys
import xml.etree.ElementTree as ET

import pytest

from fakes import paths
from fakes.paths import ROOT
from fakes.searches import FLAGGING, final_fields

sys.path.insert(0, os.path.join(ROOT, "tools", "dashboards"))
import setup_checks  # noqa: E402

VIEW = os.path.join(ROOT, setup_checks.VIEW)


def queries():
    defn = json.loads(ET.parse(VIEW).getroot().find("definition").text)
    return {k: d["options"]["query"] for k, d in defn["dataSources"].items()}


def recording(deployment, key):
    with open(os.path.join(paths.FIXTURES, "install", deployment + "_setup", key + ".json"), encoding="utf-8") as fh:
        return json.load(fh)


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
    none = copy.deepcopy(dep)
    none["event_indexes"] = {"sh-01": ["main", "ingest_doctor"], "idx-01": ["main"], "idx-02": ["main"],
                             "idx-03": ["main"]}
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
    defn = json.loads(ET.parse(VIEW).getroot().find("definition").text)
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
    defn = json.loads(ET.parse(VIEW).getroot().find("definition").text)
    text = defn["visualizations"]["viz_intro"]["options"]["markdown"]
    assert "Settings > Searches, reports, and alerts" in text and "Disable" in text
    assert "disabled = 1" in text and "local/savedsearches.conf" in text
