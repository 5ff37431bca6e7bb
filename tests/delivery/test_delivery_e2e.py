"""End to end, each piece run as Splunk runs it: a bottleneck on a heavy forwarder reaches the
findings store and Splunk Web messages, is flagged again without duplicates, and resolves.

- the collector: the modular input as a subprocess (input XML on stdin, events on stdout) against
  the loopback HTTPS fake splunkd of its instance (hf-01), which also serves /services/messages;
- the relay "Ingest Doctor - Findings - Collector findings": its result rows are built from the
  ingest_doctor:finding events the collector really wrote, with the columns of the shipped search
  (`dedup id`: the newest event per id; `eval`: signal, finding=_raw, last_time=_time, status);
- the action: dispatched as splunkd dispatches the shipped alert (fakes/dispatch.py: the stanza's
  alert.* settings), each run ingest_doctor_flag.py --execute with its JSON payload and gzipped results
  CSV against the search head's fake splunkd (sh-01: KV store, macros, receivers, messages).
"""
from __future__ import annotations

import json
import time

import pytest

from fakes import instance as fi
from fakes.action_run import queue_row, recent, thread_row
from fakes.collector_run import start
from fakes.dispatch import AlertDispatch, execute
from fakes.kvstore import Splunkd
from fakes.searches import RELAY, final_columns
from fakes.splunkd import FakeSplunkd, Messages, wait_for
from ingest_doctor import exitcodes
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.delivery.messages import message_name

RELAY_NAME, RELAY_ST = list(RELAY.items())[0]
QUEUES = "Ingest Doctor - Queues - Blocked or saturated pipeline queues"
THREAD = "Ingest Doctor - Thread - Saturated splunkd thread"
FID = "hf-01/indexing/-"


def finding_events(run):
    """(time, raw JSON text) of every ingest_doctor:finding event the collector wrote, in order."""
    return [(e["time"], e["raw"], e["host"]) for e in run.findings()]


def relay_rows(events, since=None):
    """What the shipped relay search outputs over these events (its window starts at `since`)."""
    spl = RELAY_ST["search"]
    assert 'detected_by="collector"' in spl and "| dedup id" in spl
    newest = {}
    for t, raw, host in events:
        data = json.loads(raw)
        if data.get("detected_by") != "collector" or (since is not None and t < since):
            continue
        newest[data["id"]] = (t, raw, host, data)           # events come oldest first: the last wins
    rows = []
    for t, raw, host, data in newest.values():
        row = dict(data, signal="finding", finding=raw, last_time=t, status=data.get("status") or "open",
                   host=host)
        rows.append({c: ("" if row.get(c) is None else row.get(c)) for c in final_columns(spl)})
    return rows


def alert(splunkd, tls, tmp_path, name, rows, **conf):
    """One run of the shipped alert `name` returning `rows`, dispatched as splunkd would (one action run:
    every flagging alert is in digest mode); its process."""
    procs = execute(AlertDispatch(name, str(tmp_path)).run(rows, time.time()), splunkd.fake, tls, **conf)
    assert len(procs) == 1, procs
    assert procs[0].returncode == exitcodes.OK, procs[0].stderr
    return procs[0]


def relay(splunkd, tls, tmp_path, rows, **conf):
    return alert(splunkd, tls, tmp_path, RELAY_NAME, rows, **conf)


@pytest.fixture
def search_head(tls):
    with FakeSplunkd(tls) as fake:
        yield Splunkd(fake, server_name="sh-01")


def collector_on_hf01(fake_splunkd, runs, polls, **params):
    """hf-01, its Splunk Web messages and its collector (1 s polls, `params` added) after `polls` polls."""
    inst = fi.Instance(fake_splunkd, host="hf-01", psets=1, roles=["heavyweight_forwarder"])
    local = Messages(fake_splunkd, "hf-01")
    r = start(runs, fi.input_xml(fake_splunkd.url, dict({"poll_interval": "1", "thread_cpu": "0"}, **params),
                                 "hf-01"))
    r.wait_polls(polls)
    return inst, local, r


def test_bottleneck_reaches_store_and_messages_is_updated_once_and_resolves(fake_splunkd, search_head, tls,
                                                                           tmp_path, runs):  # noqa: F811
    inst, local, r = collector_on_hf01(fake_splunkd, runs, 2)
    assert not finding_events(r)
    name = message_name(FID)

    # 1. switched on mid-run: the collector finds it and posts its own message on hf-01 at once
    inst.full_queues = {"indexQueue", "typingQueue"}
    assert wait_for(lambda: finding_events(r), 30), r.stderr()
    assert wait_for(lambda: name in local.shown, 10), r.stderr()
    assert [p["name"] for p in local.posts] == [name]
    assert local.visible_to[name] == ["admin"]             # admins only (input message_roles, default admin)
    text = local.shown[name]["message"]
    assert "hf-01" in text and "Indexing" in text and "all pipeline sets" in text
    assert "[[/app/ingest_doctor/ingest_doctor_findings?form.host=hf-01|" in text

    # the relay hands it to the action: one KV record, one message on the search head
    rows = relay_rows(finding_events(r))
    assert [row["id"] for row in rows] == [FID] and rows[0]["status"] == "open"
    p = relay(search_head, tls, tmp_path, rows)
    kv = search_head.kv.records
    assert list(kv) == [kv_key(FID)]
    rec = kv[kv_key(FID)]
    event_time = finding_events(r)[0][0]
    assert rec["status"] == "open" and rec["detected_by"] == "collector" and rec["count"] == 1
    assert rec["first_seen"] == event_time and rec["bottleneck"] == "indexing"
    assert not search_head.events                          # the collector's event is not written twice
    assert list(search_head.messages.shown) == [name] and "messages=1" in p.stderr
    assert search_head.messages.visible_to[name] == ["admin"]   # param.message_roles, default admin
    sev = search_head.messages.shown[name]["severity"]
    assert sev == {"warning": "warn", "critical": "error"}[rec["severity"]]

    # 2. flagged again: the next relay run over an overlapping window, then the alert on the same
    #    bottleneck: still one record (detected by both), still one message, never posted twice
    p = relay(search_head, tls, tmp_path, relay_rows(finding_events(r)))
    assert "unchanged=1" in p.stderr and kv[kv_key(FID)]["count"] == 1 and len(search_head.messages.posts) == 1
    alert_rows = [dict(queue_row(host="hf-01", pset="none", last=event_time), component="indexing",
                       bottleneck="indexing", fill_pct=["97", "97", "98", "100"],
                       recent=[recent([v] * 10, v == 100, event_time) for v in (97, 97, 98, 100)],
                       blocked_samples=["0", "0", "0", "10"])]
    p = alert(search_head, tls, tmp_path, QUEUES, alert_rows)
    assert list(kv) == [kv_key(FID)], sorted(kv)
    rec = kv[kv_key(FID)]
    assert rec["detected_by"] == "alert_action,collector" and rec["count"] == 2 and rec["first_seen"] == event_time
    # the collector saw full queues (warning); the alert saw indexQueue blocked (critical): an escalation
    # replaces the one message, it does not add one
    assert (sev, rec["severity"]) == ("warn", "critical")
    posts = [x for x in search_head.messages.posts if x["name"] == name]
    assert len(posts) == 2 and "escalated to critical" in posts[1]["value"] and posts[1]["severity"] == "error"
    assert list(search_head.messages.shown) == [name]

    # 3. switched off: the collector reports it resolved and removes its message; the relay closes
    #    the record with the collector's note and removes the search head's message
    inst.full_queues = set()
    assert wait_for(lambda: any(json.loads(raw).get("status") == "resolved" for _, raw, _ in finding_events(r)),
                    30), r.stderr()
    assert wait_for(lambda: name not in local.shown, 10) and local.deletes == [name]
    assert r.terminate() == exitcodes.OK
    rows = relay_rows(finding_events(r))
    assert [row["status"] for row in rows] == ["resolved"]
    p = relay(search_head, tls, tmp_path, rows)
    rec = kv[kv_key(FID)]
    assert rec["status"] == "resolved" and rec["resolution"].startswith("resolved") and "resolved=1" in p.stderr
    assert rec["resolved_at"] >= event_time
    assert name not in search_head.messages.shown and search_head.messages.deletes == [name]
    # every message went through the port's /services/messages POST: form fields name/value/severity
    assert all(set(x) >= {"name", "value", "severity"} for x in local.posts + search_head.messages.posts)
    assert "Traceback" not in r.stderr()


def test_message_of_a_finding_resolved_elsewhere_is_swept(search_head, tls, tmp_path):
    """A record resolved outside this run (by another run's resolution, or by hand in the KV store): the
    next action run removes its message."""
    alert(search_head, tls, tmp_path, THREAD, [thread_row()])
    name = message_name("hf-01/hec_input/-")
    assert list(search_head.messages.shown) == [name]
    assert "dedicatedIoThreads" in search_head.messages.shown[name]["message"]
    search_head.kv.records[kv_key("hf-01/hec_input/-")].update(status="resolved", resolved_at=1.0)
    alert(search_head, tls, tmp_path, THREAD, [thread_row(host="hf-09")])
    assert list(search_head.messages.shown) == [message_name("hf-09/hec_input/-")]
    assert search_head.messages.deletes == [name]


def test_web_messages_off_in_the_input_and_in_the_action(fake_splunkd, search_head, tls, tmp_path,
                                                        runs):  # noqa: F811
    inst, local, r = collector_on_hf01(fake_splunkd, runs, 1, web_messages="0")
    inst.full_queues = {"indexQueue", "typingQueue"}
    assert wait_for(lambda: finding_events(r), 30), r.stderr()
    n = len(r.polls())
    r.wait_polls(n + 2)
    assert r.terminate() == exitcodes.OK
    assert local.posts == [] and not fake_splunkd.requests_to("/services/messages")
    p = relay(search_head, tls, tmp_path, relay_rows(finding_events(r)), web_messages="0")
    assert list(search_head.kv.records) == [kv_key(FID)] and "messages=0" in p.stderr
    assert not search_head.fake.requests_to("/services/messages")


def test_message_roles_set_in_the_input_and_in_the_action_reach_splunkd(fake_splunkd, search_head, tls, tmp_path,
                                                                        runs):  # noqa: F811
    """Who sees the messages is the admin's setting on both sides: the input's message_roles and the action's
    param.message_roles are what each POST /services/messages carries (one role field per role)."""
    inst, local, r = collector_on_hf01(fake_splunkd, runs, 1, message_roles="power, admin")
    inst.full_queues = {"indexQueue", "typingQueue"}
    name = message_name(FID)
    assert wait_for(lambda: name in local.shown, 30), r.stderr()
    assert local.visible_to[name] == ["power", "admin"]
    assert r.terminate() == exitcodes.OK
    p = relay(search_head, tls, tmp_path, relay_rows(finding_events(r)), message_roles="power")
    assert "messages=1" in p.stderr and search_head.messages.visible_to[name] == ["power"]
