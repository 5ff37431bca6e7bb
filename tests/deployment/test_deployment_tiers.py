"""Issue 37, the deployment side: edges of every kind, any finding a symptom with its mechanism.

Each test builds a deployment folder with one consistent traffic flow (fakes/deploybuilder.py, the real
shapes) and runs `diagnose <deployment>` in-process as the CLI does.
"""
from __future__ import annotations

import json
import os
import re

import pytest

from fakes.action_run import collector_finding_row, tcpin_row
from fakes.deploybuilder import MINUTES, Member, by_id, receiver, replication_full, sender, settings, tcpin_line, write
from fakes.deploytiers import (QUEUES, REP, SH_NOW, SNAT, as_cli_and_action, autolb_hec_senders, capped_windows_uf,
                               cluster, diagnose, healthy_twenty, serious, same_links, two_sites)
from fakes.relaysim import RELAY
from fakes.searches import SAVED
from fakes.shsearch import hec_busy_rows, queues_alert_rows, with_pipelineset_lines
from fakes.snapbuilder import times
from ingest_doctor.alert import rows as rows_mod
from ingest_doctor.alert.results import Row
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.deployment import link
from ingest_doctor.deployment.judge import first_action
from ingest_doctor.deployment.topology import Topology
from ingest_doctor.findings import EvidenceItem, Finding, Recommendation
from ingest_doctor.read import splunkdlog


def test_the_replication_receiver_line_names_the_target_by_guid():
    ev = splunkdlog.parse_lines([
        "11-22-2026 10:00:03.000 +0000 WARN  BucketReplicator [3377 indexerPipe] - replication queue for "
        "peer=F8BB7917-C8BC-4B16-A7B1-00000000000E full",
        "11-22-2026 10:00:09.000 +0000 INFO  BucketReplicator [3377 indexerPipe] - replication queue for "
        "peer=F8BB7917-C8BC-4B16-A7B1-00000000000E has room now"])
    [s] = ev.log_signals
    assert (s.kind, s.receiver) == ("replication_queue_full", "F8BB7917-C8BC-4B16-A7B1-00000000000E")


def test_an_indexer_cluster_waits_on_its_replication_target_at_99_percent(tmp_path):
    uf = Member("uf", "uf-01", "10.7.0.3", 90)
    members, hfs, idxs, target = cluster("", "10.7", 100, uf=uf)
    r = diagnose(write(str(tmp_path / "dep"), members))
    # One root: the target's replication receiver thread, judged as the indexing it does for its peers.
    assert r["root_causes"] == ["idx-04/indexing/-"]
    root = by_id(r, "idx-04/indexing/-")
    assert root["component"] == REP and root["caused_by"] is None
    assert [e["value"] for e in root["evidence"] if e["signal"] == "thread_busy_pct"] == [99.0]
    assert not any(REP in n and "not part of the ingestion pipeline" in n for n in r["not_judged"])
    # The waiting peers are its symptoms, not roots told to add pipeline sets.
    for p in idxs[:-1]:
        f = by_id(r, "%s/indexing/-" % p.host)
        assert f["caused_by"] == "idx-04/indexing/-"
        assert f["mechanism"].startswith("its replication queue for idx-04 is full")
        assert settings(f) == [None] and "act on idx-04 indexing" in f["recommendations"][0]["action"]
    # Symptoms chain: uf-01 -> hf-01 -> a waiting peer -> the target.
    assert by_id(r, "uf-01/output/-")["caused_by"] == "hf-01/output/-"
    hf = by_id(r, "hf-01/output/-")
    assert hf["caused_by"] in {"idx-0%d/indexing/-" % k for k in (1, 2, 3)}
    assert "idx-04 indexing" in hf["summary"] and "mechanism" in hf
    # Replication edges, each with its kind and source.
    rep = [e for e in r["topology"] if e["kind"] == "replication"]
    assert sorted((e["from"], e["to"]) for e in rep) == [("idx-0%d" % k, "idx-04") for k in (1, 2, 3)]
    assert all("replication queue for peer=%s full" % target.guid in e["source"] and e["blocked"] for e in rep)
    assert {e["kind"] for e in r["topology"]} == {"forwarding", "replication"}
    text = diagnose(write(str(tmp_path / "dep2"), members), "text")
    assert "idx-01 -> idx-04 [replication], BLOCKED" in text
    assert "Root cause 1: idx-04 indexing" in text and "Holds back 6 instances" in text


def test_peers_without_a_pegged_target_stay_their_own_causes(tmp_path):
    """The replication lines alone do not make a cause: the target must show it (its thread or a stage)."""
    a, b = Member("a", "idx-01", "10.8.1.11", 201), Member("b", "idx-02", "10.8.1.12", 202)
    hf = Member("h", "hf-01", "10.8.0.5", 203)
    receiver(a, [(hf, 900.0)], held=True)
    replication_full(a, b)
    receiver(b, [(hf, 900.0)], threads={REP: 0.20})
    sender(hf, [(a.ip, 900.0), (b.ip, 900.0)], blocked=False)
    r = diagnose(write(str(tmp_path / "dep"), [a, b, hf]))
    assert "idx-01/indexing/-" in r["root_causes"]
    assert not any(f["id"].startswith("idx-02/") for f in serious(r))
    [e] = [e for e in r["topology"] if e["kind"] == "replication"]
    assert (e["from"], e["to"], e["blocked"]) == ("idx-01", "idx-02", False)


def test_autolb_senders_with_one_saturated_peer_of_six_link_their_hec_503s_to_it(tmp_path):
    hfs, idxs, bad = autolb_hec_senders()
    r = diagnose(write(str(tmp_path / "dep"), hfs + idxs))
    assert r["root_causes"] == ["idx-05/indexing/-"]
    for h in hfs:
        # the HEC refusals during the output's bursts are folded into the output finding (the rules side of
        # issue 37), and that finding is linked to the saturated peer: no hec_input finding, no HEC root
        assert not [f for f in r["findings"] if f["id"] == "%s/hec_input/-" % h.host]
        f = by_id(r, "%s/output/-" % h.host)
        assert "HEC answers 503" in f["summary"]
        assert f["caused_by"] == "idx-05/indexing/-"
        assert "autoLB sends a sixth of its data there" in f["mechanism"] and "idx-05" in f["mechanism"]
        assert settings(f) == [None]          # no dedicatedIoThreads raised on a 30%-busy HEC thread
    # The HEC clients reach the forwarders through the load balancer: one hec_client edge to each.
    hec = sorted((e["from"], e["to"]) for e in r["topology"] if e["kind"] == "hec_client")
    assert hec == [(SNAT, h.host) for h in hfs]
    assert all("source_IP=%s (48 error replies)" % SNAT in e["source"]
               for e in r["topology"] if e["kind"] == "hec_client")


def test_the_receiver_the_paused_lines_name_is_the_cause_not_the_first_by_name(tmp_path):
    """Two saturated receivers; the sender's paused lines name only the second: it is linked to that one."""
    hf = Member("h", "hf-01", "10.10.0.5", 401)
    a, b = Member("a", "idx-01", "10.10.1.11", 402), Member("b", "idx-02", "10.10.1.12", 403)
    receiver(a, [(hf, 1000.0)], saturated="typing")
    receiver(b, [(hf, 1000.0)], saturated="typing")
    sender(hf, [(a.ip, 1000.0), (b.ip, 1000.0)], blocked=True)
    for t in times(MINUTES)[::3]:
        hf.snap.splunkd_line(t + 2, "WARN", "TcpOutputProc", "indexerPipe",
                             "The TCP output processor has paused the data flow. Forwarding to host_dest=%s inside "
                             "output group splunk_indexers from host_src=hf-01 has been blocked for "
                             "blocked_seconds=10." % b.ip, tid=3001)
    r = diagnose(write(str(tmp_path / "dep"), [hf, a, b]))
    assert by_id(r, "hf-01/output/-")["caused_by"] == "idx-02/typing/-"


def test_a_healthy_20_instance_deployment_with_transient_blips_has_no_root(tmp_path):
    hfs, idxs = healthy_twenty()
    r = diagnose(write(str(tmp_path / "dep"), hfs + idxs))
    assert len(r["hosts"]) == 20
    assert r["healthy"] is True and r["root_causes"] == []
    assert not any(f.get("caused_by") for f in r["findings"])
    # Every busy healthy instance carries its headroom (its stages' busy share and where they peg).
    assert {h["host"] for h in r["headroom"]} == {m.host for m in hfs + idxs}
    assert all(h["at_load_x"] > 1 and not h["pegged"] for h in r["headroom"])


def test_two_independent_roots_in_two_sites(tmp_path):
    members, _ = two_sites()
    r = diagnose(write(str(tmp_path / "dep"), members))
    assert sorted(r["root_causes"]) == ["aidx-03/indexing/-", "bidx-01/typing/-"]
    assert by_id(r, "bhf-01/output/-")["caused_by"] == "bidx-01/typing/-"
    for fid in ("aidx-01/indexing/-", "aidx-02/indexing/-"):
        assert by_id(r, fid)["caused_by"] == "aidx-03/indexing/-"
    for h in ("ahf-01", "ahf-02"):
        assert by_id(r, "%s/output/-" % h)["caused_by"].startswith("aidx-")
    # Every symptom has its mechanism; every finding reaches one of the two roots.
    for f in r["findings"]:
        if f["caused_by"]:
            assert f["mechanism"]


def test_an_instance_whose_clock_runs_ahead_is_noted_and_judged_on_its_own_clock(tmp_path):
    hf = Member("heavy", "hf-01", "10.14.0.5", 801)
    idx = Member("indexer", "idx-01", "10.14.1.11", 802)
    receiver(idx, [(hf, 3000.0)], saturated="indexing")
    sender(hf, [(idx.ip, 3000.0)], blocked=True)
    hf.snap.captured_at -= 8 * 60           # its logs run 8 minutes ahead of the capture's clock
    r = diagnose(write(str(tmp_path / "dep"), [hf, idx]))
    [note] = r["clocks"]
    assert note.startswith("hf-01: its clock runs about 8 min ahead of the others'")
    # Judged on its own clock: its last minutes are read, its blocked output is linked as before.
    assert by_id(r, "hf-01/output/-")["caused_by"] == "idx-01/indexing/-"
    assert not any(n.startswith("hf-01: logs/metrics.log") for n in r["not_judged"])
    text = diagnose(write(str(tmp_path / "dep2"), [hf, idx]), "text")
    assert "Clocks (each instance judged on its own):" in text


def test_clocks_within_a_minute_are_not_noted(tmp_path):
    hf = Member("heavy", "hf-01", "10.15.0.5", 811)
    idx = Member("indexer", "idx-01", "10.15.1.11", 812)
    receiver(idx, [(hf, 3000.0)])
    sender(hf, [(idx.ip, 3000.0)], blocked=False)
    hf.snap.captured_at -= 20
    r = diagnose(write(str(tmp_path / "dep"), [hf, idx]))
    assert "clocks" not in r


def test_an_unreadable_instance_is_tied_to_its_address_by_deployment_json(tmp_path):
    hf = Member("heavy", "hf-01", "10.16.0.5", 821)
    idx = Member("indexer", "idx-01", "10.16.1.11", 822)
    sender(hf, [(idx.ip, 3000.0)], blocked=True)
    idx.snap.rest("services/server/info", [])
    root = write(str(tmp_path / "dep"), [hf, idx])
    with open(os.path.join(root, "indexer", "snapshot.json"), "w") as f:
        f.write("{not json")
    with open(os.path.join(root, "deployment.json"), "w") as f:
        json.dump({"format": 1, "name": "prod", "instances": {"heavy": hf.uri, "indexer": idx.uri}}, f)
    r = diagnose(root)
    assert not any("not in the deployment folder" in n for n in r["not_judged"]), "\n".join(r["not_judged"])
    assert "hf-01: its receiver indexer has no readable data in the folder: not judged" in r["not_judged"], "\n".join(r["not_judged"])


def test_on_the_search_head_hec_refusals_behind_a_saturated_receiver_link_but_a_pegged_hec_thread_does_not():
    """The action's path (deployment/link.py): findings as the rows give them, the topology of their connections."""
    idx = Finding("indexing", "critical", "idx-05", None, "indexerpipe", "indexQueue is full.",
                  [EvidenceItem("thread_busy_pct", 99.0, "%", "10m", "metrics.log")],
                  [Recommendation("Check the storage.")])
    busy = EvidenceItem("hec_reply_9_server_busy", 48, "errors", "window", "splunkd.log")
    more_io = [Recommendation("Raise the HEC I/O threads.", "inputs.conf", "http", "dedicatedIoThreads", "2", "4")]
    refusing = Finding("hec_input", "warning", "hf-01", None, "httpinputserverdatathread",
                       "HEC is rejecting requests (48 reply=9 errors) while the pipeline queues drain normally.",
                       [busy], more_io)
    pegged = Finding("hec_input", "warning", "hf-02", None, "httpinputserverdatathread",
                     "The HEC server data thread is busy 99% of one core.",
                     [EvidenceItem("thread_busy_pct", 98.5, "%", "10m", "metrics.log"), busy], more_io)
    topo = Topology(receivers={"hf-01": [("10.9.1.15:9997", "idx-05")], "hf-02": [("10.9.1.15:9997", "idx-05")]})
    caused = link.link([idx, refusing, pegged], topo)
    assert caused == {"idx-05/indexing/-": None, "hf-01/hec_input/-": "idx-05/indexing/-", "hf-02/hec_input/-": None}
    f = link.explain(refusing, idx, idx)
    assert "Caused by idx-05 indexing: its HEC answers 503" in f.summary
    assert [r.setting for r in f.recommendations] == [None]


def test_a_receiver_outside_the_folder_named_by_name_and_by_address_is_counted_once(tmp_path):
    hf = Member("heavy", "hf-01", "10.17.0.5", 831)
    idx = Member("indexer", "idx-01", "10.17.1.11", 832, fqdn="idx-01.corp.example")
    receiver(idx, [(hf, 900.0)])
    sender(hf, [(idx.ip, 900.0), ("10.17.1.19", 900.0)], blocked=False,
           servers="idx-01.corp.example:9997,idx-09.corp.example:9997")
    r = diagnose(write(str(tmp_path / "dep"), [hf, idx]))
    gone = [n for n in r["not_judged"] if "not in the deployment folder" in n]
    assert gone == ["hf-01: its receiver idx-09.corp.example:9997 is not in the deployment folder: its own data is "
                    "missing, so whether it holds hf-01 back was judged from hf-01's side only"]
    [edge] = [e for e in r["topology"] if e["to"] == "idx-09.corp.example:9997"]
    assert abs(edge["kbps"] - 900.0) < 5 and "destIp=10.17.1.19" in edge["source"]
    assert not any(e["to"].startswith("10.17.1.19") for e in r["topology"])


def test_senders_naming_the_same_missing_receivers_share_one_line(tmp_path):
    idx = Member("indexer", "idx-01", "10.18.1.11", 840)
    hfs = [Member("hf-%d" % k, "hf-%02d" % k, "10.18.0.%d" % (5 + k), 840 + k) for k in range(1, 21)]
    receiver(idx, [(h, 100.0) for h in hfs])
    gone = ["10.18.1.%d:9997" % n for n in (21, 22, 23)]
    for h in hfs:
        sender(h, [(idx.ip, 100.0)] + [(g.split(":")[0], 100.0) for g in gone], blocked=False)
    r = diagnose(write(str(tmp_path / "dep"), hfs + [idx]))
    [line] = [n for n in r["not_judged"] if "not in the deployment folder" in n]
    assert line.startswith("hf-01, hf-02, hf-03, ") and "hf-20: their receivers %s (3, named" % ", ".join(gone) in line


# ------------------------------------------------------------------ as the search-head action sees them
def test_the_action_links_a_forwarders_hec_refusals_to_its_saturated_indexer(sh, dispatch):
    """The relay's rows (each instance judged alone by its collector: the forwarder's HEC refusals became a
    hec_input finding raising dedicatedIoThreads), dispatched as splunkd dispatches the shipped alert."""
    rows = [collector_finding_row("hf-01", "hec_input", "warning",
                                  "HEC is rejecting requests (48 reply=9 \"Server is busy\" errors, health code 18) "
                                  "while the pipeline queues drain normally.",
                                  [("Raise the HEC I/O threads.", "inputs.conf", "http", "dedicatedIoThreads", "2",
                                    "4")], SH_NOW - 20),
            collector_finding_row("idx-02", "typing", "warning", "typingQueue is full: the typing stage limits "
                                  "throughput.", [("Add a pipeline set.", "server.conf", "general",
                                                   "parallelIngestionPipelines", "1", "2")], SH_NOW - 20),
            tcpin_row(last=SH_NOW)]
    dispatch(RELAY, rows, SH_NOW)
    hf = sh.kv.records[kv_key("hf-01/hec_input/-")]
    assert hf["caused_by"] == "idx-02/typing/-"
    assert "Caused by idx-02 typing: its HEC answers 503" in hf["summary"]
    assert [r["setting"] for r in json.loads(hf["recommendations"])] == [None]
    assert sorted(sh.messages.shown) == [message_name("idx-02/typing/-")]


def test_a_peer_whose_own_indexing_thread_is_pegged_stays_its_own_cause_though_it_waits_on_a_target(tmp_path):
    a, b = Member("a", "idx-01", "10.19.1.11", 901), Member("b", "idx-02", "10.19.1.12", 902)
    c = Member("c", "idx-03", "10.19.1.13", 903)
    hf = Member("h", "hf-01", "10.19.0.5", 904)
    receiver(a, [(hf, 900.0)], saturated="indexing", threads={REP: 0.1})
    replication_full(a, c)
    receiver(b, [(hf, 900.0)], held=True, threads={REP: 0.1})
    replication_full(b, c)
    receiver(c, [(hf, 900.0)], threads={REP: 0.99})
    sender(hf, [(m.ip, 900.0) for m in (a, b, c)], blocked=False)
    r = diagnose(write(str(tmp_path / "dep"), [a, b, c, hf]))
    assert by_id(r, "idx-01/indexing/-")["caused_by"] is None
    assert by_id(r, "idx-02/indexing/-")["caused_by"] == "idx-03/indexing/-"
    assert sorted(r["root_causes"]) == ["idx-01/indexing/-", "idx-03/indexing/-"]


def _peer_list(manager, peers):
    """The cluster manager's services/cluster/manager/peers: entries named by guid (shape: splunkd's
    envelope; content keys label, host_port_pair, site, status, replication_port)."""
    manager.snap.rest("services/cluster/manager/peers", [
        (p.guid, {"label": p.host, "host_port_pair": "%s:8089" % p.ip, "site": "site1", "status": "Up",
                  "replication_port": 9887, "is_searchable": True}) for p in peers])


def test_the_managers_peer_list_names_a_replication_target_whose_own_guid_is_unreadable(tmp_path):
    members, hfs, idxs, target = cluster("", "10.20", 950, peers=3, senders=1)
    manager = Member("cm", "cm-01", "10.20.2.2", 960)
    manager.snap.server_info(8, ["cluster_master"])
    _peer_list(manager, idxs)
    target.snap.rest_bodies.pop("services/server/info")         # its guid is nowhere in its own folder
    r = diagnose(write(str(tmp_path / "dep"), members + [manager]))
    assert r["root_causes"] == ["idx-03/indexing/-"]
    [e1, e2] = [e for e in r["topology"] if e["kind"] == "replication"]
    assert (e1["to"], e2["to"]) == ("idx-03", "idx-03")
    # Without the peer list the guid names no instance: the waiting peers stay their own causes.
    r = diagnose(write(str(tmp_path / "dep2"), members))
    assert "idx-03/indexing/-" not in r["root_causes"] and "idx-01/indexing/-" in r["root_causes"]


# ------------------------------------------------------------------ the same deployments through the Queues alert
# fakes/shsearch.py runs the shipped Queues alert's SPL over the members' logs (as _internal holds them); the rows
# go to the action as splunkd dispatches the alert (digest mode: one run, results.csv.gz). The search head sees
# what that alert reads: the instances that run a pipeline (a universal forwarder's own findings are the silence
# alert's) over the last 10 minutes, so a mechanism's line count is that window's, not the whole capture's.
def test_the_action_links_an_indexer_cluster_to_its_replication_target_as_the_cli_does(sh, tls, tmp_path):
    members, hfs, idxs, target = cluster("", "10.21", 1000)
    r, records = as_cli_and_action(sh, tls, str(tmp_path), members, idxs, hook=True)
    assert r["root_causes"] == ["idx-04/indexing/-"]
    same_links(r, records, {m.host for m in members})
    root = records[kv_key("idx-04/indexing/-")]
    assert root["component"] == REP and root["caused_by"] == "" and root["mechanism"] == ""
    for p in idxs[:-1]:
        rec = records[kv_key("%s/indexing/-" % p.host)]
        assert rec["mechanism"].startswith("its replication queue for idx-04 is full (10 lines")
        assert [x["setting"] for x in json.loads(rec["recommendations"])] == [None]
    # One message, for the target; the event of a symptom carries its mechanism.
    assert sorted(sh.messages.shown) == [message_name("idx-04/indexing/-")]
    [ev] = [e["event"] for e in sh.events if e["event"]["id"] == "idx-01/indexing/-"]
    assert ev["caused_by"] == "idx-04/indexing/-" and ev["mechanism"].startswith("its replication queue")
    # One webhook, for the root, its symptoms each with its mechanism.
    [hook] = sh.hooks
    assert hook["id"] == "idx-04/indexing/-" and hook["caused_by"] is None and hook["mechanism"] is None
    by = {x["id"]: x["mechanism"] for x in hook["symptoms"]}
    assert by["idx-02/indexing/-"] == records[kv_key("idx-02/indexing/-")]["mechanism"]
    assert by["hf-01/output/-"].startswith("its output blocks on idx-01")


def test_without_the_search_peers_names_the_waiting_peers_stay_their_own_causes(sh, tls, tmp_path):
    """The guid alone names no host: the search head's list of search peers is what ties it to idx-04."""
    members, hfs, idxs, target = cluster("", "10.22", 1100)
    r, records = as_cli_and_action(sh, tls, str(tmp_path), members, peers=())
    assert records[kv_key("idx-01/indexing/-")]["caused_by"] == ""
    assert kv_key("idx-04/indexing/-") not in records


def test_the_action_links_autolb_senders_to_the_one_saturated_peer_of_six_as_the_cli_does(sh, tls, tmp_path):
    hfs, idxs, bad = autolb_hec_senders()
    r, records = as_cli_and_action(sh, tls, str(tmp_path), hfs + idxs)
    assert r["root_causes"] == ["idx-05/indexing/-"]
    same_links(r, records, {m.host for m in hfs + idxs})
    for h in hfs:
        # the HEC 503s of the bursts ride on the output finding (the alert hands over the flagged hosts' HEC
        # back-pressure replies): no hec_input finding raising dedicatedIoThreads
        assert kv_key("%s/hec_input/-" % h.host) not in records
        rec = records[kv_key("%s/output/-" % h.host)]
        assert "autoLB sends a sixth of its data there" in rec["mechanism"]
        assert "HEC refuses data during them" in rec["summary"] and rec["mechanism"] in rec["summary"]
    assert sorted(sh.messages.shown) == [message_name("idx-05/indexing/-")]


def test_capped_windows_forwarders_are_their_own_roots_on_the_search_head_as_on_the_cli(sh, tls, tmp_path):
    idx = Member("indexer", "idx-01", "10.23.1.11", 1200)
    ufs = [Member("win-%d" % k, "win-%02d" % k, "10.23.0.%d" % (10 + k), 1200 + k) for k in (1, 2, 3)]
    receiver(idx, [(u, 256.0) for u in ufs], fwd_type="uf")
    for u in ufs:
        capped_windows_uf(u, idx)
    r, records = as_cli_and_action(sh, tls, str(tmp_path), ufs + [idx])
    assert sorted(r["root_causes"]) == ["win-0%d/output/-" % k for k in (1, 2, 3)]
    for k in (1, 2, 3):
        cli_f, rec = by_id(r, "win-0%d/output/-" % k), records[kv_key("win-0%d/output/-" % k)]
        assert rec["caused_by"] == "" and rec["component"] == cli_f["component"]
        assert "limits.conf [thruput] maxKBps caps this instance at 257 KB/s" in rec["summary"]
        [adv] = json.loads(rec["recommendations"])
        assert (adv["conf_file"], adv["stanza"], adv["setting"], adv["suggested"]) == ("limits.conf", "thruput",
                                                                                      "maxKBps", "0")
    assert sorted(sh.messages.shown) == sorted(message_name("win-0%d/output/-" % k) for k in (1, 2, 3))


def test_the_alerts_maxkbps_rex_is_the_readers_pattern():
    """One pattern for the rate: the Queues alert's rex is read/splunkdlog.py's, with the rate as `kbps`."""
    spl = SAVED[QUEUES]["search"]
    [rex] = re.findall(r'\| rex "\(\?i\)([^"]+)"', spl)
    assert rex.replace("(?<kbps>", "(") == splunkdlog.MAXKBPS_RX


def test_a_roots_compression_advice_is_never_handed_down_a_chain(tmp_path):
    """The heavy forwarder is held back by its own link (its indexer idle): compressing its output is its own
    advice, for its link only; the universal forwarder behind it is told to act on it, never to compress."""
    uf = Member("u", "uf-01", "10.24.0.3", 1301)
    hf = Member("h", "hf-01", "10.24.0.5", 1302)
    idx = Member("i", "idx-01", "10.24.1.11", 1303)
    receiver(idx, [(hf, 1000.0)])
    sender(hf, [(idx.ip, 1000.0)], blocked=True)
    for i, t in enumerate(times(MINUTES)):
        tcpin_line(hf, t, i, uf, 800.0, "uf")
    sender(uf, [(hf.ip, 800.0)], blocked=True, uf=True)
    r = diagnose(write(str(tmp_path / "dep"), [uf, hf, idx]))
    root = by_id(r, "hf-01/output/-")
    assert root["caused_by"] is None and "compressed" in settings(root)
    f = by_id(r, "uf-01/output/-")
    assert f["caused_by"] == "hf-01/output/-"
    said = " ".join([f["summary"]] + [x["action"] for x in f["recommendations"]])
    assert "compressed" not in said and "useClientSSLCompression" not in said and settings(f) == [None], said
    assert "act on hf-01 output: Check the link between this host and its receivers" in said


def test_first_action_skips_link_only_compression_advice():
    comp = Recommendation("Compress forwarded data.", "outputs.conf", "tcpout", "compressed", "false", "true")
    ssl = Recommendation("Turn SSL compression back on.", "outputs.conf", "tcpout", "useClientSSLCompression",
                         "false", "true")
    other = Recommendation("Check the link's bandwidth; this is not a setting.")
    f = Finding("output", "critical", "hf-01", None, "tcpout", "tcpout is full.", [], [comp, ssl, other])
    assert first_action(f) == "Check the link's bandwidth; this is not a setting."
    assert first_action(Finding("output", "critical", "hf-01", None, "tcpout", "x", [], [comp])) == ""


@pytest.mark.parametrize("row, says", [
    ({"signal": "replication", "host": "idx-01", "peer": "", "lines": "3"}, "needs column peer"),
    ({"signal": "replication", "host": "idx-01", "peer": "f8bb", "lines": "2.5"}, "is not a count"),
    ({"signal": "thruput_capped", "host": "uf-01", "lines": "-1"}, "is not a count"),
    ({"signal": "thruput_capped", "host": "uf-01", "lines": "4", "kbps": "fast"}, "is not a number"),
])
def test_a_bad_cross_tier_row_is_refused_with_its_column(row, says):
    with pytest.raises(rows_mod.RowError, match=says):
        rows_mod.collect([Row(1, row, {})], SH_NOW)


def test_cross_tier_rows_become_the_readers_records():
    c = rows_mod.collect([Row(1, {"signal": "replication", "host": "idx-01", "peer": "f8bb-0e", "lines": "3",
                                  "target": "idx-04", "last_time": str(SH_NOW)}, {}),
                          Row(2, {"signal": "thruput_capped", "host": "uf-01", "lines": "2", "kbps": "257",
                                  "last_time": str(SH_NOW)}, {})], SH_NOW)
    assert [(s.kind, s.receiver) for s in c["idx-01"].log_signals] == [("replication_queue_full", "f8bb-0e")] * 3
    assert [(s.kind, s.state) for s in c["uf-01"].log_signals] == [("thruput_capped", "257")] * 2
    assert c.cluster_peers == [("f8bb-0e", "idx-04", "", "")]


HEC_BUSY = "Ingest Doctor - HEC - Server busy"


def test_the_hec_busy_alert_links_refusals_behind_an_output_the_queues_alert_linked(sh, dispatch, tmp_path):
    """The HEC busy alert reads a host's HEC replies alone: judged so, an autoLB sender's 503s are a hec_input
    root raising dedicatedIoThreads. Once the Queues alert has stored its output as the saturated peer's symptom
    (bursts, refusals and receivers in one run), the next HEC busy run links the refusals to that peer too."""
    hfs, idxs, bad = autolb_hec_senders()
    with_pipelineset_lines(hfs + idxs)
    hec_rows = [dict(x, window_min=10, threshold=1) for x in hec_busy_rows(hfs + idxs, SH_NOW + 1)]
    assert sorted(x["host"] for x in hec_rows) == [h.host for h in hfs]
    dispatch(HEC_BUSY, hec_rows, SH_NOW + 1, tmp_path / "hec1")
    first = sh.kv.records[kv_key("hf-01/hec_input/-")]
    assert first["caused_by"] == "" and "dedicatedIoThreads" in [x["setting"] for x in json.loads(
        first["recommendations"])]
    rows = queues_alert_rows(hfs + idxs, SH_NOW + 61, {})
    dispatch(QUEUES, rows, SH_NOW + 61, tmp_path / "q")
    dispatch(HEC_BUSY, hec_rows, SH_NOW + 121, tmp_path / "hec2")
    for h in hfs:
        rec = sh.kv.records[kv_key("%s/hec_input/-" % h.host)]
        assert rec["caused_by"] == "idx-05/indexing/-"
        assert rec["mechanism"].startswith("its HEC answers 503 (server busy, health code 18) while its output "
                                           "waits on idx-05: its turns on idx-05 block: autoLB sends a sixth")
        assert [x["setting"] for x in json.loads(rec["recommendations"])] == [None]
    # The forwarders' messages of the first run went with their roots: the peer's is the one left.
    assert sorted(sh.messages.shown) == [message_name("idx-05/indexing/-")]


def test_symptoms_are_listed_under_the_root_of_their_chain_once_for_the_whole_run():
    """UF -> intermediate forwarder -> indexer -> replication target: every link of the chain is listed under
    the one root, sorted; a root, an unlinked finding and a cycle's members list nothing of their own. Built
    once for a run (the action's 10,000-host budget: asking every root's chains again grew with the square)."""
    caused = {"uf-1/output/-": "if-1/output/-", "uf-2/output/-": "if-1/output/-", "if-1/output/-": "idx-1/indexing/0",
              "idx-1/indexing/0": "idx-9/replication/-", "idx-9/replication/-": None, "idx-2/typing/1": None,
              "a/output/-": "b/output/-", "b/output/-": "a/output/-"}
    assert link.symptoms(caused) == {
        "idx-9/replication/-": ["idx-1/indexing/0", "if-1/output/-", "uf-1/output/-", "uf-2/output/-"]}
