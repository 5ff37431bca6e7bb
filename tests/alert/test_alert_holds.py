"""Acknowledge and snooze (issue 39), end to end: the ingest_doctor_hold action run as `sendalert` runs it
(`--execute`, the payload of the user who ran the search), then the ingest_doctor_flag action run as splunkd
runs it, both against the fake splunkd's KV store. A snoozed host sends nothing and its change goes out once
the snooze ends; an acknowledged finding is quiet until it escalates above what was acknowledged; bad input
and a user without the capability are refused with a clear message and nothing written."""

import os
import time

import pytest

from confcheck import read_conf
from ingest_doctor import exitcodes
from ingest_doctor.delivery import holds
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.findings import Finding
from fakes.action_run import HOLD_SCRIPT, LOOPBACK_HOOK, NOW, queue_row, run_action, run_hold, thread_row
from fakes.alert_helpers import LACKS, TRANSFORMS
from fakes.kvstore import Splunkd, write_results
from fakes.paths import ROOT

HEC = "hf-01/hec_input/-"
TYPING = "idx-01/typing/1"
T0 = 1_800_000_000.0
SNOOZE, SNOOZED = holds.snooze_docs("host", "hf-01", "+1h", "CHG-1", "admin", T0)    # hf-01 snoozed for 1h at T0


@pytest.fixture
def made(tmp_path):
    return write_results(str(tmp_path / "makeresults.csv.gz"), [{"_time": NOW}])


@pytest.fixture
def notify(flag):
    """`notify(sd, rows, sid)`: an alert run (flag: it must succeed) with the webhook receiver set."""
    return lambda sd, rows, sid: flag(sd.fake, rows, LOOPBACK_HOOK, sid=sid, webhook_url=sd.fake.url + "/hook")


def posted(sd, fid):
    return [m for m in sd.messages.posts if fid.split("/")[0] in m["value"]]


# ---------------------------------------------------------------------------- snooze
def test_a_snoozed_host_sends_nothing_and_its_change_goes_out_when_the_snooze_ends(sd, tls, notify, made):
    p = run_hold(sd.fake, tls, made, op="snooze", scope="host", value="HF-01", until="+4h",
                 reason="CHG-1234 rolling restart")
    assert p.returncode == exitcodes.OK, p.stderr
    [snooze] = sd.snoozes.records.values()
    assert snooze["scope"] == "host" and snooze["value"] == "hf-01" and snooze["user"] == "admin"
    assert 4 * 3600 - 60 < snooze["until"] - time.time() <= 4 * 3600
    [hist] = sd.history.records.values()
    assert hist["op"] == "snooze" and hist["what"] == "host HF-01" and hist["note"] == "CHG-1234 rolling restart"

    p = notify(sd, [thread_row(), queue_row()], "run1")
    assert sd.kv.records[kv_key(HEC)]["status"] == "open"           # stored as always
    assert [h["id"] for h in sd.hooks] == [TYPING]                  # the other host is not snoozed
    assert not posted(sd, HEC) and posted(sd, TYPING)
    assert sd.kv.records[kv_key(HEC)]["delivery"] == "pending" and "held=1" in p.stderr

    notify(sd, [thread_row()], "run2")                 # still snoozed: still nothing
    assert [h["id"] for h in sd.hooks] == [TYPING]

    sd.snoozes.records["host~hf-01"]["until"] = time.time() - 1     # four hours later: the snooze has ended
    notify(sd, [thread_row()], "run3")
    assert [h["id"] for h in sd.hooks] == [TYPING, HEC]
    assert sd.kv.records[kv_key(HEC)]["delivery"] == "sent"


def test_a_snoozed_stage_or_alert_is_held_too(sd, tls, notify, made):
    assert run_hold(sd.fake, tls, made, op="snooze", scope="bottleneck", value="typing", until="+1h",
                    reason="CHG-9 reindex").returncode == exitcodes.OK
    notify(sd, [thread_row(), queue_row()], "run1")
    assert [h["id"] for h in sd.hooks] == [HEC]
    assert run_hold(sd.fake, tls, made, op="unsnooze", scope="bottleneck", value="typing").returncode == 0
    assert not sd.snoozes.records and [h["op"] for h in sd.history.records.values()] == ["snooze", "unsnooze"]
    assert run_hold(sd.fake, tls, made, op="snooze", scope="alert", value="Ingest Doctor - Saturated splunkd thread",
                    until="+1h", reason="CHG-10").returncode == exitcodes.OK
    p = notify(sd, [thread_row(host="hf-09")], "run2")  # every finding of that alert, and
    assert [h["id"] for h in sd.hooks] == [HEC] and "held=1" in p.stderr    # typing's change, still pending
    assert sd.kv.records[kv_key(TYPING)]["delivery"] == "pending"


# ---------------------------------------------------------------------------- acknowledge
def test_an_acknowledged_finding_is_quiet_until_it_escalates_above_it(sd, tls, notify, made):
    notify(sd, [queue_row()], "run1")                  # typing on idx-01: critical, notified
    assert [h["id"] for h in sd.hooks] == [TYPING] and sd.kv.records[kv_key(TYPING)]["severity"] == "critical"
    p = run_hold(sd.fake, tls, made, op="ack", finding=TYPING, note="known: disk swap tonight")
    assert p.returncode == exitcodes.OK, p.stderr
    ack = sd.acks.records[kv_key(TYPING)]
    assert (ack["finding_id"], ack["severity"], ack["user"], ack["note"]) == (TYPING, "critical", "admin",
                                                                              "known: disk swap tonight")
    # it eased to warning (a run in between), then came back to critical: acknowledged at critical, held
    sd.kv.records[kv_key(TYPING)]["severity"] = "warning"
    p = notify(sd, [queue_row()], "run2")
    assert [h["id"] for h in sd.hooks] == [TYPING] and "held=1" in p.stderr
    assert len(posted(sd, TYPING)) == 1 and sd.kv.records[kv_key(TYPING)]["count"] == 2     # still stored

    # acknowledged at warning: escalating to critical notifies again, and ends the acknowledgement
    sd.kv.records[kv_key(TYPING)]["severity"] = "warning"
    sd.acks.records[kv_key(TYPING)]["severity"] = "warning"
    notify(sd, [queue_row()], "run3")
    assert [h["id"] for h in sd.hooks] == [TYPING, TYPING]
    # its Splunk Web message (shown since run1 at this severity) stays shown: the same message is not re-posted
    assert sd.messages.shown["ingest_doctor_finding_" + kv_key(TYPING)]["severity"] == "error"
    assert not sd.acks.records
    assert [h["op"] for h in sd.history.records.values()] == ["ack", "ack_ended"]


# ---------------------------------------------------------------------------- refused, with a clear message
@pytest.mark.parametrize("conf, words", [
    ({"op": "ack", "finding": "idx-09/typing/1"}, "unknown finding 'idx-09/typing/1'"),
    ({"op": "ack"}, "finding is required"),
    ({"op": "snooze", "scope": "host", "value": "hf-01", "reason": "CHG-1"}, "a snooze needs an end"),
    ({"op": "snooze", "scope": "host", "value": "hf-01", "until": "+8d", "reason": "CHG-1"}, "at most 7 days"),
    ({"op": "snooze", "scope": "host", "value": "hf-01", "until": "1000", "reason": "CHG-1"}, "in the past"),
    ({"op": "snooze", "scope": "host", "value": "hf-01", "until": "+1h"}, "reason (a change ticket) is required"),
    ({"op": "snooze", "scope": "rack", "value": "r1", "until": "+1h", "reason": "x"}, "scope='rack' is not one of"),
    ({"op": "mute"}, "op='mute' is not one of ack, snooze, unsnooze"),
])
def test_bad_requests_are_refused_with_a_clear_message_and_nothing_held(sd, tls, made, conf, words):
    p = run_hold(sd.fake, tls, made, **conf)
    assert p.returncode == exitcodes.BAD_INPUT and words in p.stderr, p.stderr
    assert not sd.acks.records and not sd.snoozes.records
    [hist] = sd.history.records.values()
    assert hist["op"] == "refused" and words in hist["note"]


def test_a_user_without_the_capability_is_refused_and_nothing_is_written(fake_splunkd, tls, notify, made):
    sd = Splunkd(fake_splunkd, user="analyst", capabilities=["search", "rest_properties_get"])
    notify(sd, [queue_row()], "run1")
    p = run_hold(sd.fake, tls, made, op="ack", finding=TYPING)
    assert p.returncode == exitcodes.AUTH, p.stderr
    assert LACKS % "analyst" in p.stderr
    assert not sd.acks.records and not sd.history.records


def test_the_hold_action_run_without_execute_says_how_splunkd_runs_it(tls):
    """The shell both actions share (ports/alert_shell.py): a usage error, never a traceback."""
    p = run_action({}, tls, argv=(), script=HOLD_SCRIPT)
    assert p.returncode == exitcodes.USAGE and "ingest_doctor_hold.py --execute" in p.stderr, p.stderr
    p = run_action(None, tls, raw="{not json", script=HOLD_SCRIPT)
    assert p.returncode == exitcodes.BAD_INPUT and "Traceback" not in p.stderr, p.stderr


# ---------------------------------------------------------------------------- the rules, pure
def test_holds_expire_by_themselves_and_an_ack_yields_to_new_reopened_and_escalated():
    f = Finding("hec_input", "warning", "hf-01", None, "hec", "s", [], [])
    assert holds.Holds.from_docs([], [SNOOZE], T0).held(f, "new", "any").startswith("snoozed (host hf-01 until ")
    assert holds.Holds.from_docs([], [SNOOZE], T0 + 3600).held(f, "new", "any") == ""
    ack = {"finding_id": f.id, "severity": "warning"}
    h = holds.Holds.from_docs([ack], [], T0)
    assert h.held(f, "escalated", "a") == "acknowledged"
    assert h.held(f, "new", "a") == h.held(f, "reopened", "a") == ""
    crit = Finding("hec_input", "critical", "hf-01", None, "hec", "s", [], [])
    assert h.held(crit, "escalated", "a") == "" and h.ended(crit, "open") == ack and h.ended(f, "open") is None
    assert holds.parse_until("2026-11-28T10:00Z", T0) == 1795860000.0
    with pytest.raises(holds.HoldError, match="neither epoch"):
        holds.parse_until("tomorrow", T0)


# ---------------------------------------------------------------------------- the Findings view and the lookups
def test_the_lookups_and_the_findings_view_read_what_the_action_writes():
    collections = read_conf(os.path.join(ROOT, "default", "collections.conf"))
    ack, _ = holds.ack_docs({"_key": "k", "status": "open", "severity": "warning"}, "hf-01/output/-", "n", "admin", T0)
    for name, doc in ((holds.SNOOZES, SNOOZE), (holds.ACKS, ack), (holds.HISTORY, SNOOZED)):
        fields = {f.strip() for f in TRANSFORMS[name]["fields_list"].split(",")}
        assert set(doc) <= fields, (name, set(doc) - fields)
        assert TRANSFORMS[name]["collection"] == name
        assert {k[len("field."):] for k in collections[name] if k.startswith("field.")} >= set(doc) - {"_key"}
    view = open(os.path.join(ROOT, "default", "data", "ui", "views", "ingest_doctor_findings.xml"), encoding="utf-8").read()
    assert "inputlookup ingest_doctor_snoozes" in view and "where until > now()" in view     # an ended one: gone
    assert "inputlookup append=true ingest_doctor_acks" in view
    # each finding's status says it: the snooze's _key is scope~value, lower case, as the action writes it
    assert SNOOZE["_key"] == "host~hf-01" and "lookup ingest_doctor_snoozes _key AS snooze_keys" in view
    assert "lookup ingest_doctor_acks finding_id AS id" in view and "open, acknowledged by " in view
