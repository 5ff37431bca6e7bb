"""Write the recorded search results the dashboard render test feeds to each data source.

tests/fixtures/dashboards/<state>/<view>/<data source>.json, in splunkd's json_rows shape
({"fields": [...], "rows": [[...], ...]}, every value a string as splunkd returns them).

There is no Splunk here, so these are not captures: each is what its search returns over one
simulated deployment (sim.py: ten indexers with two pipeline sets and two HEC forwarders; in
the saturated state idx-07's pipeline set 1 is typing-bound and everything else idle),
computed with the statistic, span and BY clause of its SPL (panels.py, recordings.py;
tests/dashboards/test_dashboards_recordings.py holds the two together). JSON has no comments: the
generator of these files is named in tools/generate.py's registry.

Written and checked by tools/generate.py (deterministic: same output every run).
"""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen_views  # noqa: E402
import recordings  # noqa: E402,F401  (registers the panels)
import sim  # noqa: E402
from panels import PANELS  # noqa: E402

ROOT = sim.ROOT
OUT = os.path.join("tests", "fixtures", "dashboards")
STATES = ("healthy", "saturated")


def consumed(definition: dict) -> set:
    used = set()
    for item in list(definition["visualizations"].values()) + list(definition.get("inputs", {}).values()):
        used.update((item.get("dataSources") or {}).values())
    return used


def outputs() -> dict:
    """{path relative to the project: text} of every recording."""
    out = {}
    views = {d.name: d.definition() for d in (make() for make in gen_views.DASHBOARDS)}
    missing = sorted("%s/%s" % (v, ds) for v, defn in views.items() for ds in consumed(defn) if (v, ds) not in PANELS)
    if missing:
        raise SystemExit("no panel in tools/dashboards/recordings.py for: " + ", ".join(missing))
    for state in STATES:
        dep = sim.Deployment(state == "saturated")
        for (view, ds), (_, fn) in sorted(PANELS.items()):
            if ds not in consumed(views[view]):
                continue
            text = json.dumps(fn(dep), separators=(",", ":"), ensure_ascii=False) + "\n"
            out[os.path.join(OUT, state, view, ds + ".json")] = text
    return out
