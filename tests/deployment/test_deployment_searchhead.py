"""Issue 19 on the search head, end to end: the relay/alert rows of a deployment (a heavy forwarder's and an
indexer's rows together, in the shapes their searches produce, plus the tcpin/tcpout connection rows) make
the action (ingest_doctor_flag.py --execute, JSON payload on stdin, gzipped results CSV, against the loopback
HTTPS fake splunkd) store the forwarder's finding with caused_by, post one message for the root cause, and
send the webhook once with the root and its symptoms."""
from __future__ import annotations

import json

import pytest

from fakes.action_run import payload, run_action
from fakes.kvstore import Splunkd, write_results
from fakes.splunkd import FakeSplunkd
from ingest_doctor import exitcodes
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key

NOW = 1763805600.0


def recent(vals, blocked=False):
    n = len(vals)
    return " ".join("%d:%s%s" % (NOW - 30 * (n - 1 - i), v, "b" if blocked and v >= 100 else "")
                    for i, v in enumerate(vals))


def queue_row(host, queues, fills, blocked=()):
    return {"signal": "queue_fill", "host": host, "pipeline_set": "", "queue": list(queues),
            "fill_pct": [str(f) for f in fills],
            "recent": [recent([f] * 10, q in blocked) for q, f in zip(queues, fills)],
            "blocked_samples": ["10" if q in blocked else "0" for q in queues], "window_min": 10, "span_s": 30,
            "last_time": NOW}


def thread_row(host, thread, busy):
    return {"signal": "thread_busy", "host": host, "pipeline_set": "", "thread": thread, "busy_pct": str(busy),
            "samples": recent([busy] * 10).split(), "window_min": 10, "span_s": 30, "last_time": NOW}


def rows():
    return [
        # idx-02: indexQueue and everything before it full, indexerpipe pegged (the root cause)
        queue_row("idx-02", ["splunktcpin", "parsingqueue", "aggqueue", "typingqueue", "indexqueue"],
                  [98, 98, 97, 98, 99]),
        thread_row("idx-02", "indexerpipe", 99),
        # hf-01: every queue and tcpout full, blocked (the symptom)
        queue_row("hf-01", ["parsingqueue", "aggqueue", "typingqueue", "indexqueue", "tcpout"],
                  [98, 97, 98, 99, 100], blocked=("tcpout",)),
        # who sends to whom: idx-02's tcpin_connections names hf-01; hf-01's tcpout_connections names idx-02's IP
        {"signal": "tcpin", "host": "idx-02", "peer": "hf-01", "peer_ip": "10.0.0.5", "guid": "G-HF01",
         "fwd_type": "full", "kbps": "5900", "last_time": NOW},
        {"signal": "tcpout", "host": "hf-01", "dest": "10.0.0.12:9997", "kbps": "5900", "last_time": NOW},
    ]


def deployment_payload(fake, results_file, search_name, **conf):
    data = payload(fake, results_file, **conf)
    data["search_name"] = search_name
    return data


def record(sh, fid):
    return sh.kv.records[kv_key(fid)]


@pytest.fixture
def sh(tls):
    with FakeSplunkd(tls) as fake:
        yield Splunkd(fake)


def test_deployment_rows_store_the_forwarder_finding_caused_by_the_indexer_and_post_one_message(sh, tls, tmp_path):
    res = write_results(str(tmp_path / "results.csv.gz"), rows())
    data = deployment_payload(sh.fake, res, "Ingest Doctor - Queues - Blocked or saturated pipeline queues",
                              webhook_url=sh.fake.url + "/hook")
    # the receiver is the loopback fake: the admin-only allow-list names it, as an admin would
    p = run_action(data, tls, {"INGEST_DOCTOR_WEBHOOK_ALLOW": "127.0.0.1"})
    assert p.returncode == exitcodes.OK, p.stderr
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


def test_without_connection_rows_nothing_is_linked(sh, tls, tmp_path):
    res = write_results(str(tmp_path / "results.csv.gz"), rows()[:3])
    p = run_action(deployment_payload(sh.fake, res, "Ingest Doctor - Queues - Blocked or saturated pipeline queues"),
                   tls)
    assert p.returncode == exitcodes.OK, p.stderr
    assert record(sh, "hf-01/output/-")["caused_by"] == ""
    assert sorted(sh.messages.shown) == sorted([message_name("idx-02/indexing/-"), message_name("hf-01/output/-")])


def finding_row(host, bottleneck, severity, summary, recs):
    from ingest_doctor.findings import Finding, Recommendation
    f = Finding(bottleneck, severity, host, None, bottleneck, summary, [], [Recommendation(*r) for r in recs])
    d = dict(f.to_dict(), detected_by="collector")
    return {"signal": "finding", "host": host, "id": f.id, "severity": severity, "bottleneck": bottleneck,
            "pipeline_set": "", "component": bottleneck, "status": "open", "last_time": NOW - 20,
            "finding": json.dumps(d)}


def test_the_relay_of_collector_findings_links_the_forwarder_to_its_indexer(sh, tls, tmp_path):
    # The collectors judged each instance alone: the forwarder's own finding still offers compression.
    relay = [
        finding_row("hf-01", "output", "critical",
                    "tcpout is full (100%, 10m): the output stage that drains it limits throughput. The link or the "
                    "receivers' drain rate holds it back.",
                    [("Only if the receivers are idle: compress forwarded data.", "outputs.conf", "tcpout",
                      "compressed", "false", "true")]),
        finding_row("idx-02", "typing", "warning", "typingQueue is full: the typing stage limits throughput.",
                    [("Add a pipeline set.", "server.conf", "general", "parallelIngestionPipelines", "1", "2")]),
        {"signal": "tcpin", "host": "idx-02", "peer": "hf-01", "peer_ip": "10.0.0.5", "guid": "G-HF01",
         "fwd_type": "full", "kbps": "5900", "last_time": NOW},
    ]
    res = write_results(str(tmp_path / "relay.csv.gz"), relay)
    p = run_action(deployment_payload(sh.fake, res, "Ingest Doctor - Findings - Collector findings"), tls)
    assert p.returncode == exitcodes.OK, p.stderr
    hf = record(sh, "hf-01/output/-")
    assert hf["caused_by"] == "idx-02/typing/-" and hf["detected_by"] == "collector"
    assert "Caused by idx-02 typing" in hf["summary"]
    assert "compressed" not in [r["setting"] for r in json.loads(hf["recommendations"])]
    assert sorted(sh.messages.shown) == [message_name("idx-02/typing/-")]
