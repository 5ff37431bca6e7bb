"""Issue 37's "Done when", the search head's side of the deployments test_deployment_tiers.py does not compare yet.

Each deployment is built once (fakes/deploytiers.py, fakes/deploybuilder.py: one consistent traffic flow) and seen
twice: by `diagnose <deployment>` as the CLI runs it, and by the `ingest_doctor_flag` action as splunkd runs it
for the shipped alerts over the same instances' logs (fakes/shsearch.py runs the Queues alert's SPL; the relay
alert hands over what the collectors reported), through splunkd's dispatch emulation (fakes/dispatch.py). Compared:
the roots, each finding's caused_by and mechanism, and the messages posted (one per root, none for a symptom).
Where the search head sees less than the CLI, the test pins what it does show (docs/deployments.md, "What the
search head cannot see").
"""
from __future__ import annotations

import json

from fakes.deploybuilder import MINUTES, Member, by_id, receiver, sender, settings, tcpin_line, write
from fakes.deploytiers import (SH_NOW, as_cli_and_action, diagnose, healthy_twenty, same_links, serious,
                               two_sites)
from fakes.shsearch import queues_alert_rows
from fakes.snapbuilder import thruput_lines, times
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.read.snapshot import load_snapshot

RELAY = "Ingest Doctor - Findings - Collector findings"
SERIOUS = ("warning", "critical")


def _root_of(records, fid):
    """The root a stored finding's caused_by chain ends at."""
    seen = []
    while records[kv_key(fid)]["caused_by"] and fid not in seen:
        seen.append(fid)
        fid = records[kv_key(fid)]["caused_by"]
    return fid


def _serious_open(records):
    return sorted(r["id"] for r in records.values() if r["status"] == "open" and r["severity"] in SERIOUS)


def _recommended(rec):
    return [x["setting"] for x in json.loads(rec["recommendations"])]


# ------------------------------------------------------------------ 1. a healthy 20-instance deployment
def test_a_healthy_20_instance_deployment_with_transient_blips_stores_no_root_and_posts_nothing(sh, tls, tmp_path):
    hfs, idxs = healthy_twenty()
    members = hfs + idxs
    rows = queues_alert_rows(members, SH_NOW + 1, {p.guid: p.host for p in idxs})
    # The blips are inside the alert's window, yet only the replication line comes back as a row: one sample
    # full is not sustained, so the SPL's own thresholds drop the queues; the line triggers one action run.
    assert [(x["signal"], x["host"], x["target"], x["lines"]) for x in rows] == [
        ("replication", "idx-03", "idx-08", 1)]
    r, records = as_cli_and_action(sh, tls, str(tmp_path), members, idxs)
    assert r["healthy"] is True and r["root_causes"] == [] and len(r["hosts"]) == 20
    same_links(r, records, {m.host for m in members})
    assert _serious_open(records) == [] and not any(rec["caused_by"] for rec in records.values())
    assert sh.messages.shown == {} and sh.hooks == []


# ------------------------------------------------------------------ 2. two independent roots in two sites
def test_two_independent_roots_in_two_sites_on_the_search_head_as_on_the_cli(sh, tls, tmp_path):
    members, peers = two_sites()
    r, records = as_cli_and_action(sh, tls, str(tmp_path), members, peers, hook=True)
    assert sorted(r["root_causes"]) == ["aidx-03/indexing/-", "bidx-01/typing/-"]
    same_links(r, records, {m.host for m in members})
    # Each site's instances are linked to their own site's root only, on both sides.
    for f in serious(r):
        root = _root_of(records, f["id"])
        assert root == ("bidx-01/typing/-" if f["host"].startswith("b") else "aidx-03/indexing/-"), f["id"]
    assert records[kv_key("bhf-01/output/-")]["caused_by"] == "bidx-01/typing/-"
    # Two roots, two messages, each naming only its own site's instances.
    assert sorted(sh.messages.shown) == sorted(message_name(x) for x in r["root_causes"])
    a = sh.messages.shown[message_name("aidx-03/indexing/-")]["message"]
    b = sh.messages.shown[message_name("bidx-01/typing/-")]["message"]
    assert "It holds back 1 other instance (bhf-01)" in b
    assert "aidx-01" in a and "ahf-01" in a and "bhf-01" not in a and "aidx" not in b
    assert sorted(h["id"] for h in sh.hooks) == sorted(r["root_causes"])
    by_root = {h["id"]: sorted(s["id"] for s in h["symptoms"]) for h in sh.hooks}
    assert by_root["bidx-01/typing/-"] == ["bhf-01/output/-"]
    assert by_root["aidx-03/indexing/-"] == ["ahf-01/output/-", "ahf-02/output/-", "aidx-01/indexing/-",
                                             "aidx-02/indexing/-"]


# ------------------------------------------------------------------ 3. a hung receiver with useACK senders
def _useack_senders_and_a_hung_receiver():
    """Two heavy forwarders with useACK, autoLB over three indexers at 4,000 KB/s each; idx-03 is hung: it
    accepts their connections but takes and indexes nothing (its tcpin, their tcpout connections and its
    index_thruput at 0 KB/s), its own queues are full up to indexQueue while its threads idle, and the senders'
    splunkd.log says "Read operation timed out expecting ACK from <idx-03>:9997 in 300 seconds" (the real line,
    tests/scenarios' output_hung_useack). Their outputs wait on the ACKs: tcpout blocked."""
    hfs = [Member("hf-%d" % n, "hf-0%d" % n, "10.25.0.%d" % (5 + n), 1400 + n) for n in (1, 2)]
    idxs = [Member("idx-%d" % n, "idx-0%d" % n, "10.25.1.%d" % (10 + n), 1410 + n) for n in (1, 2, 3)]
    hung = idxs[2]
    for m in idxs[:2]:
        receiver(m, [(h, 4000.0) for h in hfs])
    receiver(hung, [(h, 0.0) for h in hfs], held=True)
    # it indexes nothing either: its index_thruput lines at 0 KB/s, in place of the builder's steady load
    hung.snap.metrics = [x for x in hung.snap.metrics if "thruput, " not in x]
    for t in times(MINUTES):
        thruput_lines(hung.snap, t, None, {"linux:audit": 0.0})
    hung.snap.metrics.sort()
    for h in hfs:
        sender(h, [(m.ip, 0.0 if m is hung else 4000.0) for m in idxs], blocked=True)
        h.snap.tcpout("false", ",".join("%s:9997" % m.ip for m in idxs), ack="true")
        for i, t in enumerate(times(MINUTES)):
            if i % 4 == 0:
                h.snap.splunkd_line(t + 3, "WARN", "TcpOutputProc", "indexerPipe",
                                    "Read operation timed out expecting ACK from %s:9997 in 300 seconds." % hung.ip,
                                    tid=7812)
    return hfs, idxs, hung


def test_useack_senders_behind_a_hung_receiver_on_the_search_head_as_on_the_cli(sh, tls, tmp_path):
    hfs, idxs, hung = _useack_senders_and_a_hung_receiver()
    r, records = as_cli_and_action(sh, tls, str(tmp_path), hfs + idxs, idxs)
    assert r["root_causes"] == ["idx-03/indexing/-"]
    same_links(r, records, {m.host for m in hfs + idxs})
    for h in hfs:
        cli_f, rec = by_id(r, "%s/output/-" % h.host), records[kv_key("%s/output/-" % h.host)]
        assert cli_f["caused_by"] == rec["caused_by"] == "idx-03/indexing/-"
        assert rec["mechanism"].startswith("its turns on idx-03 block: autoLB sends a third of its data there")
        assert settings(cli_f) == _recommended(rec) == [None]       # nothing to compress or add on the sender
    # Its indexing thread idles (about a third of a core) with indexQueue full: not CPU, so the CLI advises no
    # pipeline set, only the storage check. The search head does not see an idle thread (the Thread alert
    # returns threads at or over ingest_doctor_thread_busy_pct only): it still offers one (documented limit,
    # docs/deployments.md "What the search head cannot see").
    root, root_rec = by_id(r, "idx-03/indexing/-"), records[kv_key("idx-03/indexing/-")]
    assert settings(root) == [None] and "more pipeline sets will not help" in root["summary"]
    assert _recommended(root_rec) == ["parallelIngestionPipelines", None]
    assert sorted(sh.messages.shown) == [message_name("idx-03/indexing/-")]
    assert "It holds back 2 other instances (hf-01, hf-02)" in sh.messages.shown[
        message_name("idx-03/indexing/-")]["message"]


def test_a_hung_receiver_without_data_of_its_own_is_named_on_the_cli_and_not_on_the_search_head(sh, tls, tmp_path):
    """A hung splunkd may answer no REST and write no metrics.log: the CLI then judges the senders from their
    side (the ACK timeouts and the 0 KB/s connection name idx-03). The Queues alert hands the action neither
    the senders' tcpout_connections nor their ACK lines: it stores each sender's output as its own root that
    cannot tell receiver from link, naming no receiver and advising nothing to set (documented limit)."""
    hfs, idxs, hung = _useack_senders_and_a_hung_receiver()
    members = hfs + idxs[:2]                                # nothing of idx-03's own
    r, records = as_cli_and_action(sh, tls, str(tmp_path), members, idxs[:2])
    assert sorted(r["root_causes"]) == ["hf-01/output/-", "hf-02/output/-"]
    same_links(r, records, {m.host for m in members})
    for h in hfs:
        cli_f, rec = by_id(r, "%s/output/-" % h.host), records[kv_key("%s/output/-" % h.host)]
        assert hung.ip in cli_f["summary"] and "hung" in cli_f["summary"]
        assert hung.ip not in rec["summary"] and "cannot be told" in rec["summary"]
        assert "compressed" not in settings(cli_f) and "compressed" not in _recommended(rec)
    assert sorted(sh.messages.shown) == sorted(message_name("%s/output/-" % h.host) for h in hfs)


# ------------------------------------------------------------------ 4. an SSL output to a cloud stack
SSL_WORDS = "The output uses SSL: `compressed` does not apply there"


def _ssl_to_a_cloud_stack():
    """hf-cloud sends over SSL (the credentials app's clientCert, useSSL left at legacy) to a Splunk Cloud stack,
    inputs1/inputs2.acme.splunkcloud.com (52.1.10.21/22, ~1,200 KB/s each, flat): tcpout full. Two universal
    forwarders send to it and block behind it. The stack's indexers are not the customer's: not in the folder,
    not in the search head's _internal."""
    hf = Member("cloud-hf", "hf-cloud", "10.26.0.5", 1501)
    ufs = [Member("u%d" % k, "uf-0%d" % k, "10.26.0.%d" % (20 + k), 1510 + k) for k in (1, 2)]
    sender(hf, [("52.1.10.21", 1200.0), ("52.1.10.22", 1200.0)], blocked=True)
    hf.snap.tcpout("false", "inputs1.acme.splunkcloud.com:9997,inputs2.acme.splunkcloud.com:9997",
                   clientCert="$SPLUNK_HOME/etc/apps/100_acme_splunkcloud/default/acme_server.pem",
                   sslVerifyServerCert="true", sslCommonNameToCheck="*.acme.splunkcloud.com")
    for u in ufs:
        for i, t in enumerate(times(MINUTES)):
            tcpin_line(hf, t, i, u, 600.0, "uf")
        sender(u, [(hf.ip, 600.0)], blocked=True, uf=True)
    hf.snap.metrics.sort()
    return hf, ufs


def _no_compression(text_or_rec):
    said = json.dumps(text_or_rec)
    return "compressed = true" not in said and "useClientSSLCompression = " not in said


def test_an_ssl_output_to_a_cloud_stack_on_the_cli(tmp_path):
    hf, ufs = _ssl_to_a_cloud_stack()
    r = diagnose(write(str(tmp_path / "dep"), [hf] + ufs))
    assert r["root_causes"] == ["hf-cloud/output/-"]
    root = by_id(r, "hf-cloud/output/-")
    assert SSL_WORDS in root["summary"] and not {"compressed", "useClientSSLCompression"} & set(settings(root))
    for u in ufs:
        f = by_id(r, "%s/output/-" % u.host)
        assert f["caused_by"] == "hf-cloud/output/-" and settings(f) == [None]
        assert "compress" not in " ".join(x["action"] for x in f["recommendations"])
    assert any(n.startswith("hf-cloud: its receivers inputs1.acme.splunkcloud.com:9997, "
                            "inputs2.acme.splunkcloud.com:9997") for n in r["not_judged"])


def test_an_ssl_output_through_the_queues_alert_with_the_collectors_configuration(sh, tls, tmp_path):
    """The alert rows carry no configuration; the action completes it from the instance's latest
    ingest_doctor:config event (the collector's outputs.conf, read by read/rest.py as the CLI reads it): SSL,
    so no compression. The universal forwarders run no pipeline sets (no group=pipelineset lines): the Queues
    alert does not read them (the silence alert does), so the search head stores the root alone."""
    hf, ufs = _ssl_to_a_cloud_stack()
    cfg = load_snapshot(hf.snap.write(str(tmp_path / "alone"))).config
    assert cfg.tcpout_ssl is True
    sh.configs[hf.host] = cfg.to_dict()
    r, records = as_cli_and_action(sh, tls, str(tmp_path), [hf] + ufs)
    assert r["root_causes"] == ["hf-cloud/output/-"]
    same_links(r, records, {hf.host})
    rec = records[kv_key("hf-cloud/output/-")]
    assert rec["caused_by"] == "" and not {"compressed", "useClientSSLCompression"} & set(_recommended(rec))
    assert not any(kv_key("%s/output/-" % u.host) in records for u in ufs)
    [msg] = sh.messages.shown.values()
    assert _no_compression(msg) and _no_compression(rec)


def test_an_ssl_output_through_the_queues_alert_without_its_configuration_advises_no_compression(sh, tls,
                                                                                               tmp_path):
    """No collector on the forwarder: its outputs.conf is unknown on the search head. It was offered
    `compressed = true` (its message said "Change compressed = true in outputs.conf [tcpout]"); now the advice
    is to read outputs.conf first, and nothing is set."""
    hf, ufs = _ssl_to_a_cloud_stack()
    r, records = as_cli_and_action(sh, tls, str(tmp_path), [hf] + ufs)
    rec = records[kv_key("hf-cloud/output/-")]
    assert rec["caused_by"] == "" and _serious_open(records) == ["hf-cloud/output/-"] == r["root_causes"]
    assert not {"compressed", "useClientSSLCompression"} & set(_recommended(rec))
    assert any(x["action"].startswith("Read this instance's outputs.conf before any compression change")
               for x in json.loads(rec["recommendations"]))
    [msg] = sh.messages.shown.values()
    assert _no_compression(msg)


def test_an_ssl_output_relayed_from_its_collector_carries_its_own_configurations_advice(sh, dispatch, tmp_path):
    """The collector on hf-cloud judges it alone with its own outputs.conf (SSL) and reports the finding; the
    relay alert hands it over (no topology row: nothing in _internal receives from hf-cloud). Stored as the
    root it is on the CLI, with the collector's words: SSL, no compression."""
    hf, ufs = _ssl_to_a_cloud_stack()
    alone = diagnose(hf.snap.write(str(tmp_path / "alone")))
    [f] = [x for x in alone["findings"] if x["severity"] in SERIOUS]
    row = {"signal": "finding", "host": hf.host, "id": f["id"], "severity": f["severity"],
           "bottleneck": f["bottleneck"], "pipeline_set": "", "component": f["component"], "status": "open",
           "last_time": SH_NOW - 20, "finding": json.dumps(dict(f, detected_by="collector"))}
    dispatch(RELAY, [row], SH_NOW)
    r = diagnose(write(str(tmp_path / "dep"), [hf] + ufs))
    rec = sh.kv.records[kv_key("hf-cloud/output/-")]
    assert [rec["id"]] == r["root_causes"] and rec["caused_by"] == "" and rec["detected_by"] == "collector"
    assert SSL_WORDS in rec["summary"]
    assert not {"compressed", "useClientSSLCompression"} & set(_recommended(rec))
    assert sorted(sh.messages.shown) == [message_name("hf-cloud/output/-")]
    assert _no_compression(sh.messages.shown[message_name("hf-cloud/output/-")])
