"""The delivery core with plain data: the Splunk Web message plan, resolution notes,
the collector's open findings, and the store's handling of reported findings."""
from __future__ import annotations

import json

import pytest

from ingest_doctor.delivery import messages
from ingest_doctor.alert.results import Row
from ingest_doctor.alert.rows import RowError, finding_from_dict, rows_to_evidence, rows_to_reported
from ingest_doctor.collector import params as params_mod
from ingest_doctor.delivery.store import detectors, kv_key, plan, plan_resolution
from ingest_doctor.evidence import Config
from ingest_doctor.delivery.messages import Change, message_name
from ingest_doctor.delivery.resolution import OpenFindings, applied_changes, resolution_note
from fakes.findings import hec, typing


# ---------------------------------------------------------------------------- message plan
def test_names_are_stable_and_url_safe():
    assert message_name("hf-01/hec_input/-") == message_name("hf-01/hec_input/-")
    assert message_name("hf-01/hec_input/-") == "ingest_doctor_finding_hf-01~2Fhec_input~2F-"
    assert message_name("a b/typing/1") != message_name("a_b/typing/1")
    assert all(c.isalnum() or c in "_.-~" for c in message_name("höst:1/typing/3"))


def test_text_names_host_stage_pipeline_set_setting_and_links_the_view():
    text = messages.message_text(hec(), "new")
    assert "hf-01" in text and "HEC input" in text and "all pipeline sets" in text
    assert "dedicatedIoThreads = 8 in inputs.conf [http] (now 2)" in text
    assert "[[/app/ingest_doctor/ingest_doctor_findings?form.host=hf-01|" in text
    t2 = messages.message_text(typing(), "escalated")
    assert "escalated to critical" in t2 and "pipeline set 2" in t2 and "Typing" in t2
    long = hec()
    long.summary = "x" * 2000
    assert len(messages.message_text(long)) <= messages.MAX_TEXT and messages.message_text(long).endswith("]]")


def test_only_new_reopened_or_escalated_at_warning_or_above_are_posted():
    changes = [Change(hec("a"), "new"), Change(hec("b"), "updated"), Change(hec("c", "info"), "new"),
               Change(typing("d"), "escalated"), Change(hec("e"), "reopened")]
    p = messages.plan(changes)
    assert [x.name for x in p.posts] == [message_name("d/typing/2"), message_name("a/hec_input/-"),
                                         message_name("e/hec_input/-")]      # critical first
    assert [x.severity for x in p.posts] == ["error", "warn", "warn"]
    assert not p.deletes and p.held == 0


def test_resolved_deletes_by_the_same_name_and_one_change_per_id():
    p = messages.plan([Change(hec(), "new"), Change(hec(), "resolved", "resolved after x")])
    assert p.posts == [] and p.deletes == [message_name(hec().id)]
    p2 = messages.plan([Change(hec(), "new"), Change(hec(), "new")])
    assert len(p2.posts) == 1


def test_cap_and_one_summary_beyond_it():
    changes = [Change(hec("hf-%02d" % i), "new") for i in range(12)] + [Change(typing("idx-09"), "new")]
    p = messages.plan(changes, cap=5)
    assert len(p.posts) == 6 and p.held == 8
    assert p.posts[0].name == message_name("idx-09/typing/2")          # the critical one is never held
    summary = p.posts[-1]
    assert summary.name == messages.SUMMARY_NAME and summary.severity == "warn"
    assert "8 more" in summary.text and "hf-04, hf-05" in summary.text and "and 3 more" in summary.text
    assert len({x.name for x in p.posts}) == len(p.posts)


def test_a_message_already_shown_at_that_level_is_not_posted_again():
    name = message_name(hec().id)
    assert messages.plan([Change(hec(), "new")], present={name: "warn"}).posts == []
    assert len(messages.plan([Change(hec(severity="critical"), "escalated")], present={name: "warn"}).posts) == 1
    assert messages.plan([Change(hec(), "new")], floor="critical").posts == []


# ---------------------------------------------------------------------------- resolution
def test_applied_change_is_named():
    cfg = Config(dedicated_io_threads=8)
    assert applied_changes([r.to_dict() for r in hec().recommendations], cfg) == ["dedicatedIoThreads 2 -> 8"]
    assert resolution_note(hec(), cfg) == "resolved after dedicatedIoThreads 2 -> 8"
    assert resolution_note(hec(), Config(dedicated_io_threads=2)).startswith("resolved: the signal is gone")
    assert resolution_note(hec(current=None), Config(dedicated_io_threads=8)).startswith("resolved: the signal")
    props = [{"conf_file": "props.conf", "stanza": "app", "setting": "SHOULD_LINEMERGE", "current": "true"}]
    assert applied_changes(props, Config(props={"app": {"SHOULD_LINEMERGE": "false"}})) == \
        ["SHOULD_LINEMERGE true -> false"]


def test_open_findings_new_escalated_quiet_then_resolved():
    of = OpenFindings(quiet_polls=3)
    t = of.update([hec(), hec("x", "info")], Config(dedicated_io_threads=2), 10.0)
    assert [(c.kind, c.finding.host) for c in t.changes] == [("new", "hf-01")] and len(of) == 1
    assert of.update([hec()], Config(), 20.0).changes == []                  # persists: nothing
    t = of.update([hec(severity="critical")], Config(), 30.0)
    assert [c.kind for c in t.changes] == ["escalated"]
    for now in (40.0, 50.0):                                                 # absent, not yet quiet long enough
        assert of.update([], Config(dedicated_io_threads=8), now).changes == []
    t = of.update([hec("hf-01", "info")], Config(dedicated_io_threads=8), 60.0)   # info counts as gone
    assert [(c.kind, c.note) for c in t.changes] == [("resolved", "resolved after dedicatedIoThreads 2 -> 8")]
    ev = t.resolved[0]
    assert ev["status"] == "resolved" and ev["resolved_at"] == 60.0 and ev["detected_by"] == "collector"
    assert ev["id"] == "hf-01/hec_input/-" and ev["resolution"] == t.changes[0].note and len(of) == 0


# ---------------------------------------------------------------------------- the store and reported rows
def test_detected_by_keeps_both():
    assert detectors("", "collector") == "collector"
    assert detectors("collector", "alert_action") == "alert_action,collector"
    assert detectors("alert_action,collector", "collector") == "alert_action,collector"


def test_reported_finding_is_stored_once_per_event_and_keeps_both_detectors():
    f = hec()
    first = plan(None, f, 1000.0, "sid1", "relay", "collector", event_time=950.0)
    assert first.new and first.record["first_seen"] == 950.0 and first.record["detected_by"] == "collector"
    again = plan(first.record, f, 1060.0, "sid2", "relay", "collector", event_time=950.0)
    assert again is None                                                     # the overlapping window
    reworded = dict(first.record, summary="reworded by an alert")
    assert plan(reworded, f, 1060.0, "sid2", "relay", "collector", event_time=950.0) is None
    later = plan(first.record, f, 1100.0, "sid3", "relay", "collector", event_time=1090.0)
    assert later.record["count"] == 2 and later.record["last_seen"] == 1090.0 and not later.escalated
    by_alert = plan(later.record, f, 1200.0, "sid4", "alert", "alert_action")
    assert by_alert.record["detected_by"] == "alert_action,collector" and by_alert.record["first_seen"] == 950.0
    worse = plan(by_alert.record, hec(severity="critical"), 1300.0, "sid5", "relay", "collector", event_time=1290.0)
    assert worse.escalated and worse.record["severity"] == "critical"


def test_resolution_closes_an_open_record_unless_seen_since():
    rec = plan(None, hec(), 1000.0, "s1", "relay", "collector", event_time=1000.0).record
    assert plan_resolution(None, hec().id, 1100.0, "n", "s2", "relay") is None
    assert plan_resolution(rec, hec().id, 900.0, "n", "s2", "relay") is None      # flagged after it ended
    up = plan_resolution(rec, hec().id, 1100.0, "resolved after dedicatedIoThreads 2 -> 8", "s2", "relay")
    assert up.record["status"] == "resolved" and up.record["resolved_at"] == 1100.0
    assert up.record["resolution"].endswith("2 -> 8") and up.key == kv_key(hec().id)
    assert plan_resolution(up.record, hec().id, 1200.0, "n", "s3", "relay") is None
    assert plan(up.record, hec(), 1250.0, "s4", "relay", "collector", event_time=1050.0) is None   # older event
    reopened = plan(up.record, hec(), 1300.0, "s4", "relay", "collector", event_time=1300.0)
    assert reopened.reopened and reopened.record["resolution"] == "" and reopened.record["status"] == "open"


def _row(line, **cols):
    return Row(line, {k: str(v) for k, v in cols.items()}, {})


def test_rows_to_reported_parses_the_event_and_leaves_measurements_alone():
    d = dict(hec().to_dict(), detected_by="collector")
    rows = [_row(1, signal="finding", host="hf-01", finding=json.dumps(d), last_time="950.5", id=d["id"])]
    rep = rows_to_reported(rows)
    assert len(rep) == 1 and rep[0].finding.to_dict() == hec().to_dict()
    assert (rep[0].time, rep[0].status, rep[0].detected_by) == (950.5, "open", "collector")
    assert rows_to_evidence(rows) == {}
    assert finding_from_dict(typing().to_dict()).id == "idx-01/typing/2"
    for bad in ("not json", json.dumps([1]), json.dumps(dict(d, id="other/hec_input/-")),
                json.dumps(dict(d, bottleneck="nope")), json.dumps(dict(d, status="maybe"))):
        with pytest.raises(RowError):
            rows_to_reported([_row(2, signal="finding", finding=bad, last_time="1")])


# ---------------------------------------------------------------------------- the collector, in process
def test_collector_resolves_with_the_change_the_admin_made_and_plans_its_messages():
    """A pegged HEC thread (per-thread CPU) at 10 s polls; the admin raises dedicatedIoThreads 2 -> 8,
    the collector re-reads data/inputs/http within its minute and the thread calms down: the finding
    resolves with that note, its message is deleted, and a recurrence is reported again."""
    from fakes.collector_http import FakeHttp, body, collector_for, routes
    from ingest_doctor.collector.procthreads import ThreadBusy
    r = routes()
    http = {"io": "2"}
    r["services/data/inputs/http/http"] = lambda: body("services/data/inputs/http/http", [("http", {
        "dedicatedIoThreads": http["io"], "disabled": False, "enableSSL": "1", "port": "8088"})])
    c = collector_for(FakeHttp(r))

    def poll(t, busy):
        return c.poll(t, [ThreadBusy(4242, "httpinputserverdatathread", "HTTPInputServerDataThread", busy)])

    t = 1000.0
    res = poll(t, 2.0)
    assert res.messages is None
    opened = None
    for i in range(1, 5):
        res = poll(t + 10 * i, 99.0)
        if res.messages:
            opened = res
            break
    assert opened is not None, "no finding within 4 polls"
    name = message_name("idx-01/hec_input/-")
    assert [p.name for p in opened.messages.posts] == [name] and "(now 2)" in opened.messages.posts[0].text
    http["io"] = "8"
    t2 = t + 50
    resolved = None
    for i in range(1, 20):
        res = poll(t2 + 10 * i, 5.0)
        ends = [o.data for o in res.events if o.kind == "finding" and o.data.get("status") == "resolved"]
        if ends:
            resolved = (res, ends[0])
            break
        assert not res.messages or not res.messages.posts            # nothing posted while it lasts or fades
    assert resolved is not None
    res, end = resolved
    assert end["resolution"] == "resolved after dedicatedIoThreads 2 -> 8" and end["detected_by"] == "collector"
    assert res.messages.deletes == [name] and res.messages.posts == []
    # it comes back: reported (event and message) at once, not held back by the 15-minute repeat
    t3 = t2 + 10 * (i + 1)
    back = None
    for j in range(1, 5):
        res = poll(t3 + 10 * j, 99.0)
        if any(o.kind == "finding" for o in res.events):
            back = res
            break
    assert back is not None and [p.name for p in back.messages.posts] == [name]
    off = collector_for(FakeHttp(routes()), web_messages="0")
    assert off.params.web_messages is False and params_mod.parse_params({}).web_messages is True


def test_stale_messages_are_those_of_resolved_or_missing_findings():
    a, b, c = (message_name(i) for i in ("a/typing/1", "b/typing/1", "c/typing/1"))
    shown = {a: "warn", b: "error", c: "warn", messages.SUMMARY_NAME: "warn", "someone_else": "info"}
    assert messages.shown_keys(shown) == [kv_key("a/typing/1"), kv_key("b/typing/1"), kv_key("c/typing/1")]
    records = {kv_key("a/typing/1"): {"status": "open"}, kv_key("b/typing/1"): {"status": "resolved"}}
    assert messages.stale(shown, records) == [b, c]
    assert messages.stale(shown, records, keep=[c]) == [b]


def test_messages_are_for_admins_unless_configured_and_a_bad_role_name_is_refused():
    """Who sees the messages: admin as shipped; a comma-separated list of role names; a name Splunk
    could not hold is refused naming the setting, in the action and in the collector alike."""
    from ingest_doctor.alert.payload import BadConfig, parse_params as action_params
    assert messages.parse_roles(None) == messages.parse_roles(" ") == messages.DEFAULT_ROLES == ("admin",)
    assert messages.parse_roles("admin, ops_team ,admin") == ("admin", "ops_team")
    assert action_params({}).message_roles == ("admin",)
    assert action_params({"message_roles": "sc_admin"}).message_roles == ("sc_admin",)
    assert params_mod.parse_params({}).message_roles == ("admin",)
    assert params_mod.parse_params({"message_roles": "admin,ops-team"}).message_roles == ("admin", "ops-team")
    for bad in ("Admin", "ops team", "admin;power", "role:x"):
        with pytest.raises(BadConfig, match="message_roles: .* is not a Splunk role name"):
            action_params({"message_roles": bad})
        with pytest.raises(params_mod.ParamError, match="message_roles: .* is not a Splunk role name"):
            params_mod.parse_params({"message_roles": bad})


def test_a_finding_id_is_one_segment_of_the_kv_path():
    """`/`, spaces, `~` and every non-ASCII character become ~XX per UTF-8 byte; [A-Za-z0-9_.-] stay."""
    assert kv_key("idx-01.corp_a/typing/1") == "idx-01.corp_a~2Ftyping~2F1"
    assert kv_key("hé st~x/output/-") == "h~C3~A9~20st~7Ex~2Foutput~2F-"
