"""One key=value log format for the collector's log lines and the alert action's stderr log."""
from __future__ import annotations

import io

from ingest_doctor.alert.payload import make_logger
from ingest_doctor.collector.gate import ErrorLog
from ingest_doctor.logfmt import kv


def test_values_are_quoted_only_when_needed_and_stay_on_one_line():
    line = kv("config", msg='macro "x" is\nodd', index="main", empty="", none=None, n=3, expr="a=b")
    assert line == "category=config msg=\"macro 'x' is odd\" index=main n=3 expr=\"a=b\""


def test_the_action_and_the_collector_write_the_same_format():
    err = io.StringIO()
    make_logger(err)("WARN", "endpoint_error", endpoint="services/server/info", kind="http_503", error="busy now")
    action_line = err.getvalue()
    assert action_line == "WARN " + kv("endpoint_error", endpoint="services/server/info", kind="http_503",
                                       error="busy now") + "\n"
    collector_line = ErrorLog().report("services/server/info", "http_503", 0.0, error="busy now")
    assert collector_line is not None and collector_line.severity == "ERROR"
    assert "ERROR " + collector_line.message + "\n" == action_line.replace("WARN", "ERROR", 1)
