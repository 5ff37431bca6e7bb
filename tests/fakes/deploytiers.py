"""Issue 37's deployments, built once and seen twice: as `diagnose <deployment>` (the CLI, in-process) and as the
search-head action sees them (fakes/shsearch.py runs the shipped Queues alert's SPL over the members' logs, as
_internal holds them; the rows go through splunkd's dispatch emulation, fakes/dispatch.py, to `--execute`).

The builders (fakes/deploybuilder.py shapes, one consistent traffic flow each) and the comparison are shared by
tests/deployment/test_deployment_tiers.py and test_deployment_searchhead_tiers.py.
"""
from __future__ import annotations

import io
import json
import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from fakes.action_run import LOOPBACK_HOOK
from fakes.deploybuilder import MINUTES, Member, receiver, replication_full, sender, tcpin_line, write
from fakes.dispatch import AlertDispatch, execute
from fakes.shsearch import queues_alert_rows, with_pipelineset_lines
from fakes.snapbuilder import maxkbps_line, paused_line, times
from ingest_doctor import cli, exitcodes
from ingest_doctor.delivery.store import kv_key

REP = "replicationdatareceiverthread"
SNAT = "10.9.9.250"  # the load balancer in front of the heavy forwarders: its address for every HEC client
SH_NOW = 1763805600.0
QUEUES = "Ingest Doctor - Queues - Blocked or saturated pipeline queues"


def diagnose(root: str, fmt: str = "json") -> Any:
    """`diagnose <root> --format fmt`, in-process as the CLI runs it: the report (JSON parsed, text as text)."""
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose", str(root), "--format", fmt], io.StringIO(), out, err, {}, None)
    assert rc == exitcodes.OK, err.getvalue()
    return json.loads(out.getvalue()) if fmt == "json" else out.getvalue()


def serious(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [f for f in r["findings"] if f["severity"] in ("warning", "critical")]


def cluster(prefix: str, net: str, n0: int, peers: int = 4, senders: int = 2, kbps: float = 2000.0,
            uf: Optional[Member] = None) -> Tuple[List[Member], List[Member], List[Member], Member]:
    """An indexer cluster of `peers` peers whose last peer's replication receiver thread is pegged: the others
    wait on their replication queue to it (queues full, threads idle, splunkd.log naming its guid). `senders`
    heavy forwarders send to every peer (autoLB), blocked; `uf` (a Member) sends to the first forwarder."""
    hfs = [Member("%shf-%d" % (prefix, k), "%shf-0%d" % (prefix, k), "%s.0.%d" % (net, 5 + k), n0 + k)
           for k in range(1, senders + 1)]
    idxs = [Member("%speer-%d" % (prefix, k), "%sidx-0%d" % (prefix, k), "%s.1.%d" % (net, 10 + k), n0 + 10 + k)
            for k in range(1, peers + 1)]
    target = idxs[-1]
    for p in idxs[:-1]:
        receiver(p, [(h, kbps) for h in hfs], held=True, threads={REP: 0.12})
        replication_full(p, target)
    receiver(target, [(h, kbps) for h in hfs], threads={REP: 0.99})
    for h in hfs:
        sender(h, [(p.ip, kbps) for p in idxs], blocked=True)
    members = hfs + idxs
    if uf is not None:
        for i, t in enumerate(times(MINUTES)):
            tcpin_line(hfs[0], t, i, uf, 800.0, "uf")
        sender(uf, [(hfs[0].ip, 800.0)], blocked=True, uf=True)
        members.append(uf)
    return members, hfs, idxs, target


def autolb_hec_senders(saturated_at: int = 4) -> Tuple[List[Member], List[Member], Member]:
    """Three heavy forwarders taking HEC, autoLB over six indexers of which one is saturated: during their
    turns on it their tcpout fills (bursts), splunkd.log says the output paused towards it, and HEC answers
    reply=9 / health code 18."""
    hfs = [Member("hf-%d" % n, "hf-0%d" % n, "10.9.0.%d" % (5 + n), 300 + n) for n in (1, 2, 3)]
    idxs = [Member("idx-%d" % n, "idx-0%d" % n, "10.9.1.%d" % (10 + n), 310 + n) for n in range(1, 7)]
    for k, m in enumerate(idxs):
        receiver(m, [(h, 500.0) for h in hfs], saturated="indexing" if k == saturated_at else None)
    bad = idxs[saturated_at]
    for h in hfs:
        sender(h, [(m.ip, 500.0) for m in idxs], blocked=False)
        h.snap.probes = []
        for i, t in enumerate(times(MINUTES)):
            turn = i % 6 == 4
            if turn:
                h.snap.metric(t + 0.001, "group=queue, name=tcpout_splunk_indexers, blocked=true, max_size=512000, "
                                         "current_size=511800, largest_size=512000, smallest_size=505112")
                paused_line(h.snap, t + 2, bad.ip, 10, tid=3001)
                for j in range(12):
                    h.snap.splunkd_line(t + 3 + j * 0.5, "ERROR", "HttpInputDataHandler", "HttpDedicatedIoThread-0",
                                        "Failed processing http input, token name=app, channel=n/a, "
                                        "source_IP=%s, reply=9, events_processed=0, "
                                        "http_input_body_size=4096" % SNAT)
            h.snap.probes.append({"time": t, "status": 503 if turn else 200, "rtt_ms": 3.0,
                                  "body": {"text": "Server is busy" if turn else "HEC is healthy",
                                           "code": 18 if turn else 17}})
        h.snap.metrics.sort()
    return hfs, idxs, bad


def capped_windows_uf(m: Member, idx: Member, kbps: float = 256.0) -> None:
    """A Windows universal forwarder at limits.conf [thruput] maxKBps = 256: flat at the cap, its parsingQueue
    full while its threads idle, ThruputProcessor saying so (as tests/scenarios' maxkbps_windows_uf)."""
    sender(m, [(idx.ip, kbps)], blocked=False, uf=True)
    for i, t in enumerate(times(MINUTES)):
        m.snap.metric(t + 0.004, "group=thruput, name=thruput, instantaneous_kbps=%.3f, instantaneous_eps=900.0, "
                                 "average_kbps=%.3f, total_k_processed=%d, kb=%.3f, ev=27000, load_average=0.4"
                      % (kbps, kbps, int(kbps * 30 * (i + 1)), kbps * 30))
        if i % 3 == 0:
            maxkbps_line(m.snap, t + 7, kbps)
    m.snap.metrics.sort()


def as_cli_and_action(sh: Any, tls: Any, workdir: str, members: Sequence[Member], peers: Iterable[Member] = (),
                      hook: bool = False) -> Tuple[Dict[str, Any], Dict[str, Dict[str, Any]]]:
    """(the CLI's report, the KV records the action stored) for one deployment, built once: `peers` are the
    members the search head has as search peers (the indexer cluster); `hook`: with the app's webhook set.
    The Queues alert runs once at SH_NOW + 1 (digest mode: one action run); when it returns no row it does
    not trigger and the action does not run."""
    with_pipelineset_lines(members)
    r = diagnose(write("%s/dep" % workdir, members))
    rows = queues_alert_rows(members, SH_NOW + 1, {p.guid: p.host for p in peers})
    conf = {"webhook_url": sh.fake.url + "/hook"} if hook else {}
    env = LOOPBACK_HOOK if hook else None
    execs = AlertDispatch(QUEUES, workdir).run(rows, SH_NOW + 1)
    assert bool(execs) == bool(rows)
    procs = execute(execs, sh.fake, tls, env, **conf)
    assert all(p.returncode == exitcodes.OK for p in procs), [p.stderr for p in procs]
    return r, sh.kv.records


def count_free(text: Optional[str]) -> str:
    """A mechanism without its line count (the alert counts its 10-minute window's lines, the CLI the capture's)."""
    return re.sub(r"\(\d+ lines? in", "(N lines in", text or "")


def same_links(r: Dict[str, Any], records: Dict[str, Dict[str, Any]], hosts: Iterable[str]) -> None:
    """Every serious finding the CLI gives on `hosts` is stored with the same caused_by and mechanism, and the
    open serious records without a cause are exactly the CLI's roots on those hosts."""
    hosts = set(hosts)
    for f in serious(r):
        if f["host"] not in hosts:
            continue
        rec = records[kv_key(f["id"])]
        assert rec["caused_by"] == (f["caused_by"] or ""), f["id"]
        assert count_free(rec["mechanism"]) == count_free(f.get("mechanism") or ""), f["id"]
    roots = sorted(fid for fid in r["root_causes"] if fid.split("/", 1)[0] in hosts)
    stored = sorted(rec["id"] for rec in records.values() if rec["status"] == "open" and not rec["caused_by"]
                    and rec["severity"] in ("warning", "critical"))
    assert stored == roots


def healthy_twenty() -> Tuple[List[Member], List[Member]]:
    """Six heavy forwarders autoLB over fourteen indexers, every stage busy but none near its limit, with
    transient blips inside the alerts' 10-minute window: one tcpout sample full on two senders, one indexQueue
    sample full on one indexer, one replication-queue-full line (and its "has room now") on another."""
    hfs = [Member("hf-%d" % n, "hf-%02d" % n, "10.11.0.%d" % (5 + n), 500 + n) for n in range(1, 7)]
    idxs = [Member("idx-%d" % n, "idx-%02d" % n, "10.11.1.%d" % (10 + n), 520 + n) for n in range(1, 15)]
    for m in idxs:
        receiver(m, [(h, 300.0) for h in hfs], threads={REP: 0.15})
    for h in hfs:
        sender(h, [(m.ip, 300.0) for m in idxs], blocked=False)
    t = times(MINUTES)[5]
    for h in hfs[:2]:
        h.snap.metric(t + 0.001, "group=queue, name=tcpout_splunk_indexers, blocked=true, max_size=512000, "
                                 "current_size=511800, largest_size=512000, smallest_size=505112")
        h.snap.metrics.sort()
    idxs[3].snap.metric(t + 0.004, "group=queue, name=indexqueue, blocked=true, max_size_kb=512, current_size_kb=511, "
                                   "current_size=2044, largest_size=2051, smallest_size=1500")
    idxs[3].snap.metrics.sort()
    idxs[2].snap.splunkd_line(t + 3, "WARN", "BucketReplicator", "indexerPipe",
                              "replication queue for peer=%s full" % idxs[7].guid, tid=3377)
    idxs[2].snap.splunkd_line(t + 9, "INFO", "BucketReplicator", "indexerPipe",
                              "replication queue for peer=%s has room now" % idxs[7].guid, tid=3377)
    return hfs, idxs


def two_sites() -> Tuple[List[Member], List[Member]]:
    """Site a: an indexer cluster of three peers waiting on its replication target aidx-03 (cluster()), two heavy
    forwarders held back; site b: bhf-01 blocked by bidx-01, whose typing stage is saturated. (members, the
    search head's search peers: both sites' indexers)."""
    site_a, _, aidx, _ = cluster("a", "10.12", 600, peers=3, senders=2)
    hb = Member("bhf", "bhf-01", "10.13.0.5", 700)
    ib = Member("bidx", "bidx-01", "10.13.1.11", 701)
    receiver(ib, [(hb, 1500.0)], saturated="typing")
    sender(hb, [(ib.ip, 1500.0)], blocked=True)
    return site_a + [hb, ib], aidx + [ib]
