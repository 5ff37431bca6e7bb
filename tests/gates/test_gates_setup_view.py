"""The search app's setup view (default/data/ui/views/ingest_doctor_setup.xml).

It checks the install from the search head, one table per question, each row ending in a
status (ok | optional | gap) and, unless ok, how to fix or enable it: which instances send metrics.log and run the
collector, whether the metrics index exists on the indexers, whether the events-index macro
points at a real index, and where notifications go. Notifications have one place: every alert
triggers ingest_doctor_flag and none overrides the action's webhook, so the action's own
setting (alert_actions.conf) applies to all of them. Studio schema and offline render: the
dashboard gates (tools/dashboards/validate.js, render.js) take every view in the folder.
"""
import json
import os
import xml.etree.ElementTree as ET

import pytest

import splcheck
from confcheck import read_conf
from fakes import paths
from fakes.paths import ROOT
from fakes.searches import final_fields

VIEW = os.path.join(ROOT, "default", "data", "ui", "views", "ingest_doctor_setup.xml")
FIXTURES = os.path.join(paths.FIXTURES, "dashboards")


def definition():
    root = ET.parse(VIEW).getroot()
    assert root.get("version") == "2" and root.findtext("label") == "Setup"
    return json.loads(root.find("definition").text)


def test_each_check_is_a_table_ending_in_status_and_fix():
    defn = definition()
    queries = {k: d["options"]["query"] for k, d in defn["dataSources"].items()}
    assert set(queries) == {"ds_verdict", "ds_instances", "ds_metrics_index", "ds_events_index", "ds_hec_data",
                            "ds_notifications", "ds_logs"}
    for key, q in queries.items():
        assert final_fields(q)[-2:] == ["status", "fix"], key
    assert "`ingest_doctor_metrics_log`" in queries["ds_instances"] and "`ingest_doctor_metrics_index`" in queries["ds_instances"]
    assert "datatype=metric" in queries["ds_metrics_index"] and "conf-macros/ingest_doctor_metrics_index" in queries["ds_metrics_index"]
    assert "conf-macros/ingest_doctor_events_index" in queries["ds_events_index"]
    assert "conf-alert_actions/ingest_doctor_flag" in queries["ds_notifications"]
    assert "ingest_doctor_webhook_url" in queries["ds_notifications"] and "ingest_doctor_min_severity" in queries["ds_notifications"]


def test_each_table_sizes_the_columns_its_search_returns():
    """Every column of every check's table has its own width (the render, tools/dashboards/render.js,
    checks that the widths fit the panel): a width kept under a column's old name sizes nothing, and the
    column it was meant for is squeezed until its header breaks inside a word."""
    defn = definition()
    for key, viz in defn["visualizations"].items():
        if viz["type"] != "splunk.table":
            continue
        fields = final_fields(defn["dataSources"][viz["dataSources"]["primary"]]["options"]["query"])
        widths = {c: f.get("width") for c, f in viz["options"]["columnFormat"].items()}
        assert set(widths) == set(fields) and all(isinstance(w, int) for w in widths.values()), (key, widths, fields)


def test_searches_pass_the_spl_checker():
    ctx = splcheck.load_context(ROOT)
    for key, d in definition()["dataSources"].items():
        assert splcheck.check_search(d["options"]["query"], ctx) == [], key


@pytest.mark.parametrize("state", ("healthy", "saturated"))
def test_recordings_for_the_offline_render(state):
    for key, d in definition()["dataSources"].items():
        with open(os.path.join(FIXTURES, state, "ingest_doctor_setup", key + ".json"), encoding="utf-8") as fh:
            rec = json.load(fh)
        assert rec["fields"] == final_fields(d["options"]["query"]) and rec["rows"], key
        assert all(r[-2] in ("ok", "optional", "gap") and (r[-1] == "-") == (r[-2] == "ok") for r in rec["rows"]), key


def test_the_view_is_in_the_nav():
    nav = ET.parse(os.path.join(ROOT, "default", "data", "ui", "nav", "default.xml")).getroot()
    assert "ingest_doctor_setup" in [v.get("name") for v in nav.iter("view")]


def test_one_place_routes_every_alerts_notifications():
    saved = read_conf(os.path.join(ROOT, "default", "savedsearches.conf"))
    alerts = [name for name, st in saved.items() if st.get("action.ingest_doctor_flag", "").strip() == "1"]
    assert len(alerts) >= 6
    for name in alerts:
        assert not [k for k in saved[name] if k.startswith("action.ingest_doctor_flag.param.webhook_url")], name
    assert "param.webhook_url" in read_conf(os.path.join(ROOT, "default", "alert_actions.conf"))["ingest_doctor_flag"]
