"""Write the Dashboard Studio views in default/data/ui/views/ from one description.

Why a generator: five dashboards share their inputs, their base searches per data family and
their layout grid; writing them from one place keeps the SPL of a family identical wherever it
is used. One module per view in views/; what they share in studio.py (the definition and its
grid), spl.py (base searches), spl_macros.py (the macros those call, written to macros.conf)
and widgets.py (inputs, links, chart and table options). The XML files are committed; one of
the generators of tools/generate.py, which writes them (`python3 tools/generate.py`) and checks
them with every other generated file (`--check`, run by the tests).
"""
from __future__ import annotations

import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from spl import ROOT  # noqa: E402
from spl_macros import MACROS_CONF, macros_conf  # noqa: E402
from studio import Dash  # noqa: E402
from views import cpu_by_processor, findings, hec_performance, pipeline_sets, thread_activity  # noqa: E402
from widgets import DEFAULT_RANGE, pipeline_scope, std_inputs  # noqa: E402

VIEWS = os.path.join(ROOT, "default", "data", "ui", "views")


def build_view(view) -> Dash:
    """One view from its module: NAME, LABEL, DESCRIPTION, the standard inputs (the pipeline-set input
    unless PSET is False), each of its PARTS (inputs, searches, panels) in order, the "Instances" scope
    where PIPELINE_SCOPE is True, then its LAYOUT: the grid top to bottom, a row as (height in px, panel
    or (panel, width weight), ...)."""
    d = Dash(view.NAME, view.LABEL, view.DESCRIPTION)
    std_inputs(d, pset=getattr(view, "PSET", True), default_range=getattr(view, "DEFAULT_RANGE", DEFAULT_RANGE))
    for part in view.PARTS:
        part(d)
    if getattr(view, "PIPELINE_SCOPE", False):
        pipeline_scope(d)
    for row in view.LAYOUT:
        d.row(*row)
    return d


DASHBOARDS = tuple(functools.partial(build_view, v)
                   for v in (hec_performance, thread_activity, pipeline_sets, cpu_by_processor, findings))


def build() -> dict:
    out = {}
    for make in DASHBOARDS:
        d = make()
        out[os.path.join(VIEWS, d.name + ".xml")] = d.xml()
    with open(MACROS_CONF, encoding="utf-8") as fh:
        out[MACROS_CONF] = macros_conf(fh.read())
    return out
