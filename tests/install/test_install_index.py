"""The app's own event index: the add-on creates it beside the metrics index, the app's macro, the
input's default index and the action's fallback all name it, and nothing writes to main."""
import os

from fakes.paths import need_build, need_ta_build

from confcheck import read_conf
from ingest_doctor.alert import action
from ingest_doctor.alert.payload import index_from_macro

EVENT_INDEX = "ingest_doctor"


def test_the_add_on_creates_an_event_index_beside_the_metrics_index():
    idx = read_conf(os.path.join(need_ta_build(), "default", "indexes.conf"))
    assert set(idx) == {"ingest_doctor_metrics", EVENT_INDEX}
    assert idx["ingest_doctor_metrics"]["datatype"] == "metric"
    assert "datatype" not in idx[EVENT_INDEX]          # an event index
    for path in ("homePath", "coldPath", "thawedPath"):
        assert idx[EVENT_INDEX][path].startswith("$SPLUNK_DB/%s/" % EVENT_INDEX)


def test_the_app_names_the_same_index_for_a_forwarding_search_head():
    app = read_conf(os.path.join(need_build(), "default", "indexes.conf"))
    ta = read_conf(os.path.join(need_ta_build(), "default", "indexes.conf"))
    assert list(app) == [EVENT_INDEX]
    assert app[EVENT_INDEX] == ta[EVENT_INDEX]


def test_macro_input_and_action_point_at_it():
    macros = read_conf(os.path.join(need_build(), "default", "macros.conf"))
    definition = macros["ingest_doctor_events_index"]["definition"]
    assert definition == "index=%s" % EVENT_INDEX
    assert index_from_macro(definition) == EVENT_INDEX
    assert action.FALLBACK_INDEX == EVENT_INDEX
    inputs = read_conf(os.path.join(need_ta_build(), "default", "inputs.conf"))
    assert inputs["ingest_doctor_introspection"]["index"] == EVENT_INDEX
    for section in inputs:
        assert inputs[section].get("index", EVENT_INDEX) == EVENT_INDEX


def test_no_shipped_search_or_conf_writes_to_main():
    for pkg in (need_build(), need_ta_build()):
        for dirpath, _, files in os.walk(os.path.join(pkg, "default")):
            for f in files:
                if f.endswith((".conf", ".xml", ".json")):
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        text = fh.read()
                    assert "index=main" not in text.replace(" ", ""), os.path.join(dirpath, f)
