"""The collector's conf files against what the collector writes.

No Splunk here: these tests replay the index-time settings in Python. The REGEX of
[ingest_doctor_metrics_fields] runs over real emitted metric events (REPEAT_MATCH,
FORMAT $1::$2), and the METRIC-SCHEMA-MEASURES wildcard decides measures versus
dimensions, so a collector change that would break log-to-metrics fails here.
"""
import fnmatch
import io
import json
import os
import re

import pytest
from splunklib.modularinput import EventWriter

from confcheck import read_conf
from fakes.collector_http import FakeHttp, collector_for, routes
from fakes.paths import ROOT, need_ta_build
from ingest_doctor.collector import metrics_events, params as params_mod, poll as collector, procthreads
from ingest_doctor_ports import collector_input as shell


def conf(name):
    """{stanza: {key: value}} of the built add-on's default/<name>.conf: the files as they ship,
    ucc-gen's generated inputs.conf included."""
    return read_conf(os.path.join(need_ta_build(), "default", name))


def emitted_metric_events():
    c = collector_for(FakeHttp(routes()))
    c.poll(1000.0)
    res = c.poll(1070.0, threads=[procthreads.ThreadBusy(4242, "HttpInputServer", "httpinputserverdatathread", 97.25)])
    out = io.StringIO()
    script = shell.CollectorInput(shell.Lifecycle(None), out)
    script._write("ingest_doctor_introspection://local", res, {"metrics": "m", "config": None, "finding": None},
                  EventWriter(out, io.StringIO()))
    return [(json.dumps(o.data, separators=(",", ":")), o.data) for o in res.events if o.kind == "metrics"]


def test_props_wire_the_sourcetypes_to_their_transforms():
    props, transforms = conf("props.conf"), conf("transforms.conf")
    m = props["ingest_doctor:metrics"]
    assert m["TRANSFORMS-ingest_doctor_metrics"] in transforms
    schema = m["METRIC-SCHEMA-TRANSFORMS"]
    assert schema.startswith("metric-schema:") and schema in transforms
    for st in ("ingest_doctor:metrics", "ingest_doctor:config", "ingest_doctor:finding"):
        assert props[st]["DATETIME_CONFIG"] == "NONE"        # the time the input set in <time>
        assert props[st]["SHOULD_LINEMERGE"] == "false"
    drop = transforms[props["ingest_doctor:probe"]["TRANSFORMS-ingest_doctor_probe"]]
    assert (drop["DEST_KEY"], drop["FORMAT"]) == ("queue", "nullQueue")
    assert collector.PROBE_SOURCETYPE == "ingest_doctor:probe"


def test_log_to_metrics_extracts_every_field_and_measures_only_the_metrics():
    transforms = conf("transforms.conf")
    fields = transforms["ingest_doctor_metrics_fields"]
    assert (fields["FORMAT"], fields["REPEAT_MATCH"], fields["WRITE_META"]) == ("$1::$2", "true", "true")
    measures_spec = transforms["metric-schema:ingest_doctor_metrics"]["METRIC-SCHEMA-MEASURES"]
    patterns = [p.strip() for p in measures_spec.split(",")]
    events = emitted_metric_events()
    assert len(events) > 20
    seen_dims = set()
    for raw, data in events:
        got = {m.group(1): m.group(2) for m in re.finditer(fields["REGEX"], raw)}     # every match: $1::$2
        assert got == {k: str(v) for k, v in data.items()}, raw
        measures = {k for k in got if any(fnmatch.fnmatchcase(k, p) for p in patterns)}
        assert measures == {k for k in data if k.startswith("ingest_doctor.")}
        for k in measures:
            float(got[k])                                   # every measure is numeric
        seen_dims.update(set(got) - measures)
    # pipeline_set (and tid, code, status) stay dimensions although their values are digits.
    assert {"queue", "pipeline_set", "window", "thread", "tid", "endpoint", "code", "status"} <= seen_dims


def test_events_md_names_every_metric_the_collector_writes():
    with open(os.path.join(ROOT, "docs", "events.md"), encoding="utf-8") as f:
        doc = f.read()
    events = emitted_metric_events()
    names = {k[len("ingest_doctor."):] for _, d in events for k in d if k.startswith("ingest_doctor.")}
    for name in names:
        assert "`%s`" % name in doc, name


def test_inputs_conf_ships_one_enabled_local_instance_without_interval():
    # The add-on goes only where the collector runs (indexers, heavy forwarders, standalone), so
    # its one instance is on: installing it is the whole setup (README "Install").
    inputs = conf("inputs.conf")
    scheme, local = inputs["ingest_doctor_introspection"], inputs["ingest_doctor_introspection://splunkd"]
    for stanza in (scheme, local):
        assert (stanza["python.version"], stanza["python.required"]) == ("python3.9", "3.13")
    # named for what it watches, not `local` (a word Splunk uses for the folder of admins' changes)
    assert [k for k in inputs if k.startswith("ingest_doctor_introspection://")] == ["ingest_doctor_introspection://splunkd"]
    # events go to the add-on's own event index, never main
    assert scheme["index"] == "ingest_doctor"
    assert local["disabled"] == "0" and "interval" not in local and "interval" not in scheme
    # Instance settings over the scheme stanza's, as Splunk merges them.
    ours = {k: v for k, v in dict(scheme, **local).items() if k in params_mod.PARAM_NAMES}
    assert params_mod.parse_params(ours) == params_mod.Params()      # the shipped values are the defaults


@pytest.mark.parametrize("value", ['a"b', "a,b", "a}b", "a\\b", "a\nb"])
def test_dimension_values_never_break_the_extraction(value):
    assert not set(metrics_events.dim(value)) & set('",}\\\n')
