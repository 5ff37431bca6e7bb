"""`splunk diag` extension of the add-on (app.conf [diag] extension_script): our snapshot inside every diag.

splunk diag imports this module and calls `setup(parser, app_dir, callback)` then
`collect_diag_info(diag, options, global_options, app_dir)` (Splunk's "Add your app's data to diags"
developer docs). It asks diag to save the runtime endpoints of the contract's snapshot (live queue lookbacks,
pipeline sets, indexer status, resource usage, health) as JSON under app_ext/TA-ingest_doctor/rest/<path>.json,
the layout of a snapshot's rest/ folder, so `diagnose` reads them as it reads a snapshot. Configuration is not
asked for: the diag's etc/ holds it with splunk diag's own redaction, and the token and settings endpoints
answer with secrets (HEC token values) that diag would store as they come. Each body is bounded by diag's REST
timeout and by app.conf [diag] data_limit; a `--nologin` diag skips them and `diagnose` falls back to the logs.

The collector's recent window lives in its process's memory (its measurements are indexed in the metrics index),
so the extension saves what exists on disk: the tail of $SPLUNK_HOME/var/log/splunk/ingest_doctor_collector.log,
its last hour and at most 1 MiB, with secret-named values, URL paths and Authorization values hidden
(read/diag.py collector_tail), as app_ext/TA-ingest_doctor/collector/ingest_doctor_collector.log.
"""
from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from ingest_doctor.read.diag import (COLLECTOR_LOG, COLLECTOR_TAIL_BYTES, collector_tail,  # noqa: E402
                                     extension_meta, extension_plan)
from ingest_doctor_ports import logs  # noqa: E402


def setup(parser=None, app_dir=None, callback=None, **kwargs):
    """Ask diag for a login: the endpoints below need one (diag --nologin skips them)."""
    if callback is not None:
        callback.will_need_rest()


def collect_diag_info(diag, options=None, global_options=None, app_dir=None, **kwargs):
    """The runtime endpoints as JSON, and when they were asked for (snapshot.json)."""
    diag.add_string(extension_meta(), "snapshot.json")
    tail = _collector_log_tail()
    if tail is not None:
        diag.add_string(tail, COLLECTOR_LOG)
    for endpoint, diag_path in extension_plan():
        diag.add_rest_endpoint(endpoint, diag_path)


def _collector_log_tail():
    """The collector log's bounded tail (None: no log file here, e.g. no collector on this instance). Only the
    last COLLECTOR_TAIL_BYTES are read, whatever the file's size."""
    folder = logs.folder()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, logs.COLLECTOR_LOG), "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - COLLECTOR_TAIL_BYTES))
            data = f.read(COLLECTOR_TAIL_BYTES)
    except OSError:
        return None
    return collector_tail(data, time.time(), cut=size > COLLECTOR_TAIL_BYTES)
