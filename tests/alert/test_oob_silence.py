"""Silence is a finding (issue 20): the saved search "Ingest Doctor - Silence - Instance stopped
reporting", its shape, and its rows for three instances replayed over hand-made metrics.log events
(heartbeat: group=thruput; receivers: group=tcpin_connections, the shapes of
tests/fixtures/alerts), then judged by the alert action dispatched and run as splunkd does: a heavy forwarder
still connected with zero throughput is a critical output finding naming its receivers and since
when; one with no connection is `gone`; one whose receivers still get data is not found."""
from __future__ import annotations

import json
import os
import re

import pytest

from ingest_doctor import exitcodes, thresholds
from ingest_doctor.alert import rows as alert_rows
from ingest_doctor.alert.results import Row
from ingest_doctor.alert.rows import RowError
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.engine import silence
from fakes.splunkd import FakeSplunkd
from fakes.relaysim import saved_searches
from fakes.dispatch import AlertDispatch, execute
from fakes.kvstore import Splunkd

from fakes.paths import ROOT

NAME = "Ingest Doctor - Silence - Instance stopped reporting"
NOW = 1763805600.0


def _macro(name):
    text = open(os.path.join(ROOT, "default", "macros.conf"), encoding="utf-8").read()
    m = re.search(r"^\[%s\]\s*\ndefinition = (.*)$" % re.escape(name), text, re.M)
    return m.group(1).strip()


def test_shape_for_the_paged_admin():
    st = saved_searches()[NAME]
    spl, desc = st["search"], st["description"]
    assert "Stage:" in desc and "Symptom:" in desc and "Urgency:" in desc and "First check:" in desc
    for m in ("ingest_doctor_silence_after_min", "ingest_doctor_silence_kb"):
        assert "`%s`" % m in spl and m in desc
    assert "TERM(group=tcpin_connections)" in spl and "TERM(group=thruput)" in spl
    assert st["dispatch.earliest_time"] == "-24h" and re.match(r"^\d-59/5 \* \* \* \*$", st["cron_schedule"])
    # digest mode, not throttled (issue 35): the action announces a host once, on its change
    assert st["action.ingest_doctor_flag"] == "1" and st["alert.digest_mode"] == "true" and st["alert.suppress"] == "0"
    assert st["disabled"] == "0" and st["enableSched"] == "1" and st["alert.track"] == "true"
    assert spl.rstrip().endswith("`ingest_doctor_filter_silence`") and _macro("ingest_doctor_filter_silence") \
        == "search *"
    cols = re.search(r"\|\s*table\s+([^|]+)", spl).group(1).split()
    assert set(cols) <= alert_rows.KNOWN_COLUMNS
    assert set(alert_rows.SIGNALS["silence"].required) <= set(cols)
    # the thresholds are the table's (macros generated from thresholds.py)
    for name in ("silence_after_min", "silence_kb"):
        assert float(_macro("ingest_doctor_" + name)) == thresholds.BY_NAME[name].default


def silence_rows(heard, tcpin, now):
    """The search's rows: `heard` host -> last metrics.log time (within 24 h); `tcpin` receiver
    events (time, receiver, hostname, kb) of the silence window. Steps as in the SPL."""
    after = float(_macro("ingest_doctor_silence_after_min"))
    kb_max = float(_macro("ingest_doctor_silence_kb"))
    conn = {}
    for t, receiver, sender, kb in tcpin:
        if t < now - 60 * after:
            continue
        c = conn.setdefault(sender, {"kb": 0.0, "at": t, "receivers": set()})
        c["kb"] += kb
        c["at"] = max(c["at"], t)
        c["receivers"].add(receiver)
    rows = []
    for host, last in sorted(heard.items()):
        if not last < now - 60 * after:
            continue
        c = conn.get(host)
        reason = "gone" if c is None else "connected_idle" if c["kb"] <= kb_max else "sending"
        if reason == "sending":
            continue
        rows.append({"signal": "silence", "host": host, "component": "tcpout", "reason": reason,
                     "last_heard": last, "silent_min": round((now - last) / 60, 1),
                     "kb_recent": "" if c is None else c["kb"],
                     "receivers": sorted(c["receivers"]) if c else [], "threshold": kb_max, "last_time": now})
    return rows


def test_connected_with_zero_throughput_is_a_critical_output_finding(tls, tmp_path):
    heard = {"hf-09": NOW - 720, "hf-10": NOW - 900, "uf-31": NOW - 600, "idx-01": NOW - 20}
    tcpin = [(NOW - 30 * i, rcv, "hf-09", 0.0) for i in range(8) for rcv in ("idx-01", "idx-02")]
    tcpin += [(NOW - 30 * i, "idx-01", "uf-31", 88.4) for i in range(8)]     # metrics.log lost, data flows
    rows = silence_rows(heard, tcpin, NOW)
    assert [(r["host"], r["reason"]) for r in rows] == [("hf-09", "connected_idle"), ("hf-10", "gone")]
    st = saved_searches()[NAME]
    cols = re.search(r"\|\s*table\s+([^|]+)", st["search"]).group(1).split()
    assert set(cols) <= set(rows[0])
    with FakeSplunkd(tls) as fake:
        sh = Splunkd(fake, server_name="sh-01")
        # dispatched as splunkd dispatches the shipped stanza, each run as splunkd runs the script
        procs = execute(AlertDispatch(NAME, str(tmp_path)).run(rows, NOW), fake, tls)
        assert [p.returncode for p in procs] == [exitcodes.OK], [p.stderr for p in procs]
        blocked = sh.kv.records[kv_key("hf-09/output/-")]
        assert blocked["severity"] == "critical" and blocked["detected_by"] == silence.DETECTED_BY
        assert blocked["status"] == "open" and blocked["bottleneck"] == "output"
        text = blocked["summary"]
        assert "hf-09" in text and "idx-01, idx-02" in text and "output is blocked" in text
        assert "silent since 2025-11-22 09:48:00 UTC" in text and "12 min" in text
        assert any(e["signal"] == "tcpin_kb" and e["value"] == 0.0 for e in json.loads(blocked["evidence"]))
        gone = sh.kv.records[kv_key("hf-10/output/-")]
        assert gone["severity"] == "warning" and "down or cannot reach" in gone["summary"]
        assert kv_key("uf-31/output/-") not in sh.kv.records and kv_key("idx-01/output/-") not in sh.kv.records
        assert message_name("hf-09/output/-") in sh.messages.shown


def test_bad_silence_rows_are_bad_input():
    with pytest.raises(RowError, match="reason"):
        alert_rows.rows_to_reported([Row(1, {"signal": "silence", "host": "hf-09", "reason": "asleep",
                                            "last_heard": str(NOW)}, {})], NOW)
    with pytest.raises(RowError, match="last_heard"):
        alert_rows.rows_to_reported([Row(2, {"signal": "silence", "host": "hf-09", "reason": "gone"}, {})], NOW)
