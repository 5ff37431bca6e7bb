"""Issue 19 on the search head, end to end: the relay/alert rows of a deployment (a heavy forwarder's and an
indexer's rows together, in the shapes their searches produce, plus the tcpin/tcpout connection rows),
dispatched as splunkd dispatches the shipped alert (fakes/dispatch.py: its alert.* settings decide how many
action runs see which rows), make the action (ingest_doctor_flag.py --execute, JSON payload on stdin, gzipped
results CSV, against the loopback HTTPS fake splunkd) store the forwarder's finding with caused_by, post one
message for the root cause, and send the webhook once with the root and its symptoms."""
from __future__ import annotations

import json

from fakes.action_run import LOOPBACK_HOOK, deployment_rows, relay_deployment_rows
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key

NOW = 1763805600.0
QUEUES = "Ingest Doctor - Queues - Blocked or saturated pipeline queues"
RELAY = "Ingest Doctor - Findings - Collector findings"


def record(sh, fid):
    return sh.kv.records[kv_key(fid)]


def test_deployment_rows_store_the_forwarder_finding_caused_by_the_indexer_and_post_one_message(sh, dispatch):
    # the receiver is the loopback fake: the admin-only allow-list names it, as an admin would
    [p] = dispatch(QUEUES, deployment_rows(), NOW, extra_env=LOOPBACK_HOOK,
                   webhook_url=sh.fake.url + "/hook")
    hf = record(sh, "hf-01/output/-")
    idx = record(sh, "idx-02/indexing/-")
    assert hf["caused_by"] == "idx-02/indexing/-" and idx["caused_by"] == ""
    assert "Caused by idx-02 indexing" in hf["summary"]
    recs = json.loads(hf["recommendations"])
    assert [r["setting"] for r in recs] == [None] and "act on idx-02 indexing" in recs[0]["action"]
    # The finding event carries caused_by too.
    [ev] = [e["event"] for e in sh.events if e["event"]["id"] == "hf-01/output/-"]
    assert ev["caused_by"] == "idx-02/indexing/-"
    # One Splunk Web message, for the root cause, naming the instance it holds back.
    assert sorted(sh.messages.shown) == [message_name("idx-02/indexing/-")]
    text = sh.messages.shown[message_name("idx-02/indexing/-")]["message"]
    assert "It holds back 1 other instance (hf-01)" in text
    # The webhook says root and symptoms once.
    assert [h["id"] for h in sh.hooks] == ["idx-02/indexing/-"], p.stderr
    assert [s["id"] for s in sh.hooks[0]["symptoms"]] == ["hf-01/output/-"]


def test_without_connection_rows_nothing_is_linked(sh, dispatch):
    dispatch(QUEUES, deployment_rows()[:3], NOW)
    assert record(sh, "hf-01/output/-")["caused_by"] == ""
    assert sorted(sh.messages.shown) == sorted([message_name("idx-02/indexing/-"), message_name("hf-01/output/-")])


def test_the_relay_of_collector_findings_links_the_forwarder_to_its_indexer(sh, dispatch):
    # The collectors judged each instance alone: the forwarder's own finding still offers compression.
    dispatch(RELAY, relay_deployment_rows(), NOW)
    hf = record(sh, "hf-01/output/-")
    assert hf["caused_by"] == "idx-02/typing/-" and hf["detected_by"] == "collector"
    assert "Caused by idx-02 typing" in hf["summary"]
    assert "compressed" not in [r["setting"] for r in json.loads(hf["recommendations"])]
    assert sorted(sh.messages.shown) == [message_name("idx-02/typing/-")]
