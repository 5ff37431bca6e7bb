"""`splunk diag` extension of the add-on (app.conf [diag] extension_script): our snapshot inside every diag.

splunk diag imports this module and calls `setup(parser, app_dir, callback)` then
`collect_diag_info(diag, options, global_options, app_dir)` (Splunk's "Add your app's data to diags"
developer docs). It asks diag to save the runtime endpoints of the contract's snapshot (live queue lookbacks,
pipeline sets, indexer status, resource usage, health) as JSON under app_ext/TA-ingest_doctor/rest/<path>.json,
the layout of a snapshot's rest/ folder, so `diagnose` reads them as it reads a snapshot. Configuration is not
asked for: the diag's etc/ holds it with splunk diag's own redaction, and the token and settings endpoints
answer with secrets (HEC token values) that diag would store as they come. Each body is bounded by diag's REST
timeout and by app.conf [diag] data_limit; a `--nologin` diag skips them and `diagnose` falls back to the logs.
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from ingest_doctor.read.diag import extension_plan, extension_meta  # noqa: E402


def setup(parser=None, app_dir=None, callback=None, **kwargs):
    """Ask diag for a login: the endpoints below need one (diag --nologin skips them)."""
    if callback is not None:
        callback.will_need_rest()


def collect_diag_info(diag, options=None, global_options=None, app_dir=None, **kwargs):
    """The runtime endpoints as JSON, and when they were asked for (snapshot.json)."""
    diag.add_string(extension_meta(), "snapshot.json")
    for endpoint, diag_path in extension_plan():
        diag.add_rest_endpoint(endpoint, diag_path)
