"""The Setup view is green when all is well: over a fresh, correct install (README's mandatory
actions only) every row is `ok` or `optional`, an optional row says how to enable its extra, search
heads and universal forwarders are not expected to run the collector, and the event index, the HEC
data of the lag panel, the notification settings and the app's own logs each have their check.

The fresh-install recording (tests/fixtures/install/fresh_setup/) holds what each search of the view
returns on such an install (no Splunk here to run them): its columns are checked against the
searches' final `table`, and its statuses and fixes against the strings the searches can produce.
"""
import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from confcheck import read_conf
from fakes import paths
from fakes.paths import ROOT
from fakes.searches import final_fields
from ingest_doctor_ports import logs

VIEW = os.path.join(ROOT, "default", "data", "ui", "views", "ingest_doctor_setup.xml")
FRESH = os.path.join(paths.FIXTURES, "install", "fresh_setup")


def queries():
    defn = json.loads(ET.parse(VIEW).getroot().find("definition").text)
    return {k: d["options"]["query"] for k, d in defn["dataSources"].items()}


def strings(query):
    """The double-quoted string literals of a search (backslash escapes inside them kept as written)."""
    return set(re.findall(r'"((?:[^"\\]|\\.)*)"', query))


def recording(key):
    with open(os.path.join(FRESH, key + ".json"), encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("key", sorted(queries()))
def test_a_fresh_install_gives_only_ok_or_optional(key):
    q = queries()[key]
    rec = recording(key)
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
    rows = recording("ds_instances")["rows"]
    roles = {r[1]: (r[3], r[-2]) for r in rows}      # host role metrics_log collector ...
    assert roles["search head"] == ("not expected", "ok") and roles["universal forwarder"] == ("not expected", "ok")


def test_the_event_index_check_refuses_main():
    q = queries()["ds_events_index"]
    assert "conf-macros/ingest_doctor_events_index" in q and 'index_name=="main", "gap"' in q
    assert recording("ds_events_index")["rows"][0][:2] == ["index=ingest_doctor", "ingest_doctor"]


def test_the_lag_panel_data_is_narrow_and_checked():
    macros = read_conf(os.path.join(ROOT, "default", "macros.conf"))
    definition = macros["ingest_doctor_hec_data"]["definition"]
    assert "index=*" not in definition.replace(" ", "")
    assert "/services/data/inputs/http" in definition and "source=http:*" in definition
    assert "conf-macros/ingest_doctor_hec_data" in queries()["ds_hec_data"]


def test_the_logs_row_searches_both_log_files():
    q = queries()["ds_logs"]
    assert logs.COLLECTOR_LOG in q and logs.ACTION_LOG in q and "`ingest_doctor_index_internal`" in q
    assert [r[0] for r in recording("ds_logs")["rows"]] == [logs.COLLECTOR_LOG, logs.ACTION_LOG]
