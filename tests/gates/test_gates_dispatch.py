"""The dispatch gate (issue 35): no shipped alert triggers the action per result while relying on rows
other than its own. In per-result mode splunkd runs the action once a row, with a one-row results file
(tests/fakes/dispatch.py): rows of one search never meet, so a finding row and the tcpin/tcpout rows
that link it across instances would be judged apart, and caused_by could never be set.

An alert dispatched per result (`alert.digest_mode = false`) passes only if both hold:
- statically (fakes.dispatch.cross_row_reasons): its rows carry one `signal`, and no `eventstats`,
  `streamstats` or `join` runs once the rows have it (rows kept or shaped by one another);
- by running it: its recorded rows, dispatched to the action per result and in digest mode (throttling
  off, each on an empty findings store), leave the same records (status, severity, caused_by, summary).

The gate is shown to bite on broken copies of the shipped conf (Queues and the relay switched back to
per-result, as they shipped before), and not to refuse an alert whose rows stand alone (Thread per result).
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Mapping

from confcheck import read_conf
from fakes.action_run import NOW, deployment_rows, relay_deployment_rows, signal_rows, thread_row
from fakes.dispatch import AlertDispatch, cross_row_reasons, modes_differ
from fakes.memory_port import MemoryPort
from fakes.paths import ROOT

QUEUES = "Ingest Doctor - Queues - Blocked or saturated pipeline queues"
RELAY = "Ingest Doctor - Findings - Collector findings"
THREAD = "Ingest Doctor - Thread - Saturated splunkd thread"
CONF = os.path.join(ROOT, "default", "savedsearches.conf")


def recorded() -> Dict[str, List[Dict[str, Any]]]:
    """Rows each alert returns (in the shapes of its search), by the signal it sets first."""
    by_signal: Dict[str, List[Dict[str, Any]]] = {
        "thread_busy": [thread_row(), thread_row(host="hf-05")],
        "queue_fill": deployment_rows(),
        "finding": relay_deployment_rows(),
        "silence": [{"signal": "silence", "host": "hf-10", "component": "tcpout", "reason": "gone",
                     "last_heard": NOW - 900, "silent_min": 15.0, "kb_recent": "", "receivers": [],
                     "threshold": 1, "last_time": NOW}],
        "stale": [{"signal": "stale", "host": "hf-01", "id": "hf-01/hec_input/-", "last_seen": NOW - 7200}],
    }
    for row in signal_rows():
        by_signal.setdefault(row["signal"], []).append(row)
    return by_signal


def first_signal(stanza: Mapping[str, str]) -> str:
    m = re.search(r'\bsignal="(\w+)"', stanza["search"])
    assert m, "a flagging search names the signal of its rows"
    return m.group(1)


def flagging(saved: Mapping[str, Mapping[str, str]]) -> Dict[str, Mapping[str, str]]:
    return {k: v for k, v in saved.items() if k != "default" and v.get("action.ingest_doctor_flag") == "1"}


def gate(saved: Mapping[str, Mapping[str, str]], workdir: str) -> List[str]:
    """The problems of a savedsearches.conf (its stanzas): one line per per-result alert that relies on
    rows other than its own, saying why."""
    rows = recorded()
    problems = []
    for name, st in sorted(flagging(saved).items()):
        if AlertDispatch(name, workdir, st).digest:
            continue
        for reason in cross_row_reasons(st):
            problems.append("%s: per result, but %s" % (name, reason))
        differ = modes_differ(name, st, rows[first_signal(st)], NOW, os.path.join(workdir, str(len(problems))),
                              MemoryPort)
        for fid, (digest, per_result) in differ.items():
            problems.append("%s: per result, finding %s is stored as %r; in one run with every row as %r"
                            % (name, fid, per_result, digest))
    return problems


def broken_copy(tmp_path, name: str, **settings: str) -> Dict[str, Dict[str, str]]:
    """default/savedsearches.conf with these settings of one stanza changed, read as splunkd reads it."""
    text = open(CONF, encoding="utf-8").read()
    head = text.index("[%s]" % name)
    end = text.find("\n[", head + 1)
    end = len(text) if end < 0 else end
    part = text[head:end]
    for key, value in settings.items():
        key = key.replace("__", ".")
        part, n = re.subn(r"(?m)^%s = .*$" % re.escape(key), "%s = %s" % (key, value), part)
        assert n == 1, key
    path = tmp_path / "savedsearches.conf"
    path.write_text(text[:head] + part + text[end:], encoding="utf-8")
    return read_conf(str(path))


# ---------------------------------------------------------------------------- the gate on the shipped conf
def test_no_shipped_alert_relies_on_other_rows_per_result(tmp_path):
    saved = read_conf(CONF)
    rows = recorded()
    for name, st in flagging(saved).items():           # every flagging alert has rows the gate can run
        assert rows.get(first_signal(st)), name
    assert gate(saved, str(tmp_path)) == []


# ---------------------------------------------------------------------------- the gate bites
def test_gate_fails_queues_switched_back_to_per_result(tmp_path):
    problems = gate(broken_copy(tmp_path, QUEUES, alert__digest_mode="false"), str(tmp_path))
    assert problems and all(p.startswith(QUEUES + ": per result") for p in problems), problems
    text = "\n".join(problems)
    assert "6 signals (hec_busy, queue_fill, replication, tcpin, thread_busy, thruput_capped)" in text
    # run both ways: per result, the forwarder's finding is stored without its cause
    assert "finding hf-01/output/-" in text and "'idx-02/indexing/-'" in text


def test_gate_fails_the_relay_switched_back_to_per_result(tmp_path):
    problems = gate(broken_copy(tmp_path, RELAY, alert__digest_mode="false"), str(tmp_path))
    text = "\n".join(problems)
    assert "2 signals (finding, tcpin)" in text, text
    assert "finding hf-01/output/-" in text and "'idx-02/typing/-'" in text


def test_gate_lets_an_alert_whose_rows_stand_alone_run_per_result(tmp_path):
    assert gate(broken_copy(tmp_path, THREAD, alert__digest_mode="false"), str(tmp_path)) == []
