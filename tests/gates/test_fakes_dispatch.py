"""The emulated alert dispatch (tests/fakes/dispatch.py) behaves as splunkd does, never more kindly: one
action run with every row in digest mode, one run a row with a one-row file per result, no run unless
the trigger condition holds, throttling per field values (per result) or of the whole alert (digest),
one Triggered Alerts entry per action run when tracked."""
from __future__ import annotations

import os

import pytest

from fakes.action_run import NOW, deployment_rows
from fakes.dispatch import AlertDispatch, period_s, result_of
from fakes.searches import FLAGGING
from ingest_doctor.alert.results import read_rows
from ingest_doctor.alert.rows import KNOWN_COLUMNS

QUEUES = "Ingest Doctor - Queues - Blocked or saturated pipeline queues"


def stanza(**alert):
    """A flagging stanza with these alert.* settings (the trigger condition of the shipped alerts)."""
    st = {"search": "| makeresults", "counttype": "number of events", "relation": "greater than", "quantity": "0",
          "action.ingest_doctor_flag": "1", "alert.track": "true"}
    st.update({"alert." + k.replace("__", "."): v for k, v in alert.items()})
    return st


def rows_in(path):
    return [{k: r.values(k) for k in r.fields()} for r in read_rows(path, KNOWN_COLUMNS)]


def test_digest_is_one_run_with_the_whole_results_file_and_the_first_row(tmp_path):
    rows = deployment_rows()
    d = AlertDispatch("q", str(tmp_path), stanza(digest_mode="true"))
    [e] = d.run(rows, NOW)
    assert e.results_file == os.path.join(str(tmp_path), "dispatch", e.sid, "results.csv.gz")
    assert [r["host"] for r in rows_in(e.results_file)] == [[r["host"]] for r in rows]
    assert e.result == result_of(rows[0]) and e.result["signal"] == "queue_fill"
    assert e.result["queue"] == rows[0]["queue"]                     # a multivalue field stays a list
    assert d.triggered == [(NOW, e.sid)]


def test_digest_is_splunkds_default(tmp_path):
    st = stanza()
    assert "alert.digest_mode" not in st
    assert len(AlertDispatch("q", str(tmp_path), st).run(deployment_rows(), NOW)) == 1


def test_per_result_is_one_run_a_row_each_with_a_one_row_file(tmp_path):
    rows = deployment_rows()
    d = AlertDispatch("q", str(tmp_path), stanza(digest_mode="false"))
    execs = d.run(rows, NOW)
    assert len(execs) == len(rows) and len({e.sid for e in execs}) == 1
    for e, row in zip(execs, rows):
        assert os.path.dirname(e.results_file) == os.path.join(str(tmp_path), "dispatch", e.sid, "per_result_alert")
        [got] = rows_in(e.results_file)                               # that row, and only that row
        assert got["host"] == [row["host"]] and got["signal"] == [row["signal"]]
        assert e.result == result_of(row)
    assert len(d.triggered) == len(rows)                              # each run adds an entry


def test_no_run_unless_the_trigger_condition_holds(tmp_path):
    d = AlertDispatch("q", str(tmp_path), stanza(digest_mode="true"))
    assert d.run([], NOW) == [] and d.triggered == []
    more = dict(stanza(digest_mode="true"), quantity="2")
    assert AlertDispatch("q", str(tmp_path), more).run(deployment_rows()[:2], NOW) == []
    assert len(AlertDispatch("q", str(tmp_path), more).run(deployment_rows()[:3], NOW)) == 1
    with pytest.raises(ValueError, match="counttype"):
        AlertDispatch("q", str(tmp_path), dict(stanza(), counttype="custom"))


def test_per_result_throttling_drops_rows_seen_within_the_period(tmp_path):
    st = stanza(digest_mode="false", suppress="1", suppress__fields="host,component", suppress__period="30m")
    d = AlertDispatch("q", str(tmp_path), st)
    a = {"signal": "hec_listener", "host": "hf-01", "component": "httplistener", "overwhelmed": "3"}
    b = dict(a, host="hf-02")
    assert [e.result["host"] for e in d.run([a], NOW)] == ["hf-01"]
    assert [e.result["host"] for e in d.run([a, b], NOW + 300)] == ["hf-02"]      # hf-01 held back, hf-02 new
    assert d.run([a, b], NOW + 1799) == []
    assert [e.result["host"] for e in d.run([a, b], NOW + 1800)] == ["hf-01"]     # its period is over
    assert len(d.triggered) == 3


def test_digest_throttling_suppresses_the_whole_alert_for_the_period(tmp_path):
    st = stanza(digest_mode="true", suppress="1", suppress__fields="host", suppress__period="30m")
    d = AlertDispatch("q", str(tmp_path), st)
    a = {"signal": "hec_listener", "host": "hf-01", "component": "httplistener", "overwhelmed": "3"}
    assert len(d.run([a], NOW)) == 1
    assert d.run([a, dict(a, host="hf-02")], NOW + 300) == []          # a new host is held back too
    assert len(d.run([a, dict(a, host="hf-02")], NOW + 1800)) == 1


def test_untracked_alert_adds_no_triggered_alerts_entry(tmp_path):
    d = AlertDispatch("q", str(tmp_path), dict(stanza(digest_mode="true"), **{"alert.track": "false"}))
    assert len(d.run(deployment_rows(), NOW)) == 1 and d.triggered == []


def test_shipped_stanzas_and_periods_are_read():
    assert period_s("30m") == 1800 and period_s("2m") == 120 and period_s("45") == 45 and period_s("1h") == 3600
    with pytest.raises(ValueError):
        period_s("soon")
    for name in FLAGGING:
        AlertDispatch(name, "/nonexistent")          # every shipped flagging stanza is one the emulator knows
    with pytest.raises(ValueError, match="does not trigger"):
        AlertDispatch("x", "/nonexistent", {"search": "| makeresults"})
    assert AlertDispatch(QUEUES, "/nonexistent").digest
