"""Deployment folders (contract section 5) for tests: hand-made instance snapshots in the real shapes.

Receivers write `group=tcpin_connections` lines with the keys of the real 8.2.1 line (positional
`<ip>:<port>:<destPort>` token, connectionType, sourcePort, sourceHost, sourceIp, destPort, kb, _tcp_Bps,
_tcp_KBps, ..., build, version, os, arch, hostname, guid, fwdType, ssl, lastIndexer, ack); senders write
`group=tcpout_connections` (UNVERIFIED keys, read by key) and an outputs.conf server list. Folder names
differ from host names on purpose. Used by tests/deployment/ and tools/bench_deployment.py.
"""
from __future__ import annotations

import json
import os
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from fakes.snapbuilder import (T0, Snap, dutycycle_long, dutycycle_wide, queue_line, tcpout_line, thruput_lines,
                               times, wobble)

MINUTES = 12
QUIET = {"splunktcpin": 4.0, "parsingqueue": 3.0, "aggqueue": 2.0, "typingqueue": 2.0, "indexqueue": 3.0}
REST_QUIET = {"parsingQueue": (2, 3, 2, 2), "aggQueue": (0, 1, 1, 1), "typingQueue": (1, 2, 2, 2),
              "indexQueue": (3, 4, 4, 4)}
FULL_TO = {  # the queues full behind a saturated stage (everything upstream of it backs up)
    "indexing": ("splunktcpin", "parsingqueue", "aggqueue", "typingqueue", "indexqueue"),
    "typing": ("splunktcpin", "parsingqueue", "aggqueue", "typingqueue"),
}
THREAD = {"indexing": "indexerpipe", "typing": "typing"}
REST_NAME = {"splunktcpin": "splunktcpin", "parsingqueue": "parsingQueue", "aggqueue": "aggQueue",
             "typingqueue": "typingQueue", "indexqueue": "indexQueue"}


def guid(n: int) -> str:
    return "F8BB7917-C8BC-4B16-A7B1-%012X" % n


class Member:
    """One instance: its Snap, folder name, IP and guid."""

    def __init__(self, folder: str, host: str, ip: str, n: int, fqdn: Optional[str] = None):
        self.folder, self.host, self.ip, self.guid = folder, host, ip, guid(n)
        self.fqdn = fqdn or host
        self.snap = Snap(host)
        self.uri = "https://%s:8089" % ip


def server_info(m: Member, cores: int, roles: Sequence[str]) -> None:
    m.snap.rest("services/server/info", [("server-info", {
        "build": "d8ae995bf219", "cpu_arch": "x86_64", "guid": m.guid, "host": m.host, "host_fqdn": m.fqdn,
        "numberOfCores": cores // 2, "numberOfVirtualCores": cores, "os_name": "Linux",
        "physicalMemoryMB": 64000, "serverName": m.host, "server_roles": list(roles), "version": "9.3.2",
        "mode": "normal", "isForwarding": "heavyweight_forwarder" in roles})])


def tcpin_line(rcv: Member, t: float, i: int, snd: Member, kbps: float, fwd_type: str = "full") -> None:
    port = 40100 + int(snd.ip.split(".")[-1]) * 10 + i % 3
    rcv.snap.metric(t + 0.003, (
        "group=tcpin_connections, %s:%d:9997, connectionType=cooked, sourcePort=%d, sourceHost=%s, sourceIp=%s, "
        "destPort=9997, kb=%.3f, _tcp_Bps=%.3f, _tcp_KBps=%.3f, _tcp_avg_thruput=%.3f, _tcp_Kprocessed=%.3f, "
        "_tcp_eps=%.3f, _process_time_ms=0, evt_misc_kBps=0.000, evt_raw_kBps=%.3f, evt_fields_kBps=0.065, "
        "build=d8ae995bf219, version=9.3.2, os=Linux, arch=x86_64, hostname=%s, guid=%s, fwdType=%s, ssl=false, "
        "lastIndexer=%s:9997, ack=false")
        % (snd.ip, port, port, snd.ip, snd.ip, kbps * 30, kbps * 1024, kbps, kbps, kbps * 30 * (i + 1), kbps * 4,
           kbps * 0.8, snd.host, snd.guid, fwd_type, rcv.ip))


def receiver(m: Member, senders: Iterable[Tuple[Member, float]], saturated: Optional[str] = None,
             sets: int = 1, saturated_set: Optional[int] = None, busy: float = 0.35,
             fwd_type: str = "full", held: bool = False, threads: Optional[Dict[str, float]] = None) -> Member:
    """An indexer taking data from `senders` (member, KB/s each); `saturated` ('indexing' or 'typing')
    pegs that stage (in `saturated_set` when it has several pipeline sets); `held`: its queues up to
    indexQueue full while its own threads idle (a cluster peer waiting on its replication target);
    `threads`: more dutycycle threads (thread -> ratio), e.g. replicationdatareceiverthread."""
    s = m.snap
    server_info(m, 16, ["indexer"])
    s.resources(16, 30.0, 260.0).indexer().server_general(str(sets)).server_queue()
    psets: List[Optional[int]] = [None] if sets == 1 else list(range(sets))
    full_to = FULL_TO[saturated or "indexing"]
    hits = {p: held or saturated and (sets == 1 or p == saturated_set) for p in psets}
    s.queues({p: {REST_NAME[q]: ((100, 99, 98, 98) if hits[p] and q in full_to else (3, 4, 4, 4)) for q in REST_NAME}
              for p in psets})
    if sets > 1:
        s.pipelinesets({p: (THREAD[saturated] if saturated and p == saturated_set else "indexerPipe",
                            0.99 if saturated and p == saturated_set else busy) for p in psets})
    senders = list(senders)
    for i, t in enumerate(times(MINUTES)):
        for p in psets:
            for q in REST_NAME:
                fill = 98.0 if hits[p] and q in full_to else QUIET[q]
                queue_line(s, t, p, q, max(0.0, min(100.0, fill + wobble(i, 1.5))))
            duty = {"parsing": 0.2, "merging": 0.15, "typing": busy, "indexerpipe": busy * 0.9}
            if hits[p] and saturated:
                duty[THREAD[saturated]] = 0.99
            dutycycle_long(s, t, p, duty)
            thruput_lines(s, t, p, {"linux:audit": 6000.0 / len(psets), "syslog": 2000.0 / len(psets)})
        if threads:
            dutycycle_long(s, t, None, {k: v + wobble(i, 0.004) for k, v in threads.items()})
        for snd, kbps in senders:
            tcpin_line(m, t, i, snd, kbps, fwd_type)
    return m


def replication_full(peer: Member, target: Member, every: int = 2) -> Member:
    """`peer`'s splunkd.log saying its replication queue for `target` (named by guid) is full, every `every`
    samples, each followed by the line saying it has room again (the pair the cluster's peers log)."""
    for i, t in enumerate(times(MINUTES)):
        if i % every == 0:
            peer.snap.splunkd_line(t + 3, "WARN", "BucketReplicator", "indexerPipe",
                                   "replication queue for peer=%s full" % target.guid, tid=3377)
            peer.snap.splunkd_line(t + 9, "INFO", "BucketReplicator", "indexerPipe",
                                   "replication queue for peer=%s has room now" % target.guid, tid=3377)
    return peer


def sender(m: Member, receivers: Sequence[Tuple[str, float]], blocked: bool, servers: Optional[str] = None,
           failing: Sequence[str] = (), hec_pegged: bool = False, uf: bool = False) -> Member:
    """A forwarder sending to `receivers` (dest IP, KB/s each): its tcpout queue blocked or not; `servers` is
    its outputs.conf server list (default: the IPs); `failing` are addresses that time out."""
    s = m.snap
    if not uf:
        server_info(m, 8, ["heavyweight_forwarder"])
        s.resources(8, 18.0, 70.0).indexer().server_general().server_queue()
        s.tcpout("false", servers or ",".join("%s:9997" % ip for ip, _ in receivers))
        s.http("2" if hec_pegged else "4", tokens=("app",))
        full = (100, 99, 98, 98) if blocked else (2, 3, 2, 2)
        s.queues({None: {"parsingQueue": full, "aggQueue": full, "typingQueue": full, "indexQueue": full}})
    for i, t in enumerate(times(MINUTES)):
        fill = 98.0 if blocked else 3.0
        qs = ("parsingqueue",) if uf else ("parsingqueue", "aggqueue", "typingqueue", "indexqueue")
        for q in qs:
            queue_line(s, t, None, q, fill + wobble(i, 1.0))
        if blocked:
            s.metric(t + 0.001, "group=queue, name=tcpout_splunk_indexers, blocked=true, max_size=512000, "
                                "current_size=%d, largest_size=512000, smallest_size=505112" % (511800 - i))
        else:
            s.metric(t + 0.001, "group=queue, name=tcpout_splunk_indexers, max_size=512000, current_size=%d, "
                                "largest_size=20000, smallest_size=0" % (4000 + i))
        if uf:
            dutycycle_wide(s, t, {"tail": 0.05, "mgmt_httpd": 0.001})
        else:
            dutycycle_long(s, t, None, {"parsing": 0.08, "merging": 0.05, "typing": 0.09, "indexerpipe": 0.07})
            hec = 0.985 + wobble(i, 0.004) if hec_pegged else 0.3
            dutycycle_wide(s, t, {"tail": 0.01, "mgmt_httpd": 0.003, "httpinputserverdatathread": hec})
            thruput_lines(s, t, None, {"app:json": sum(k for _, k in receivers) or 100.0})
        for ip, kbps in receivers:
            tcpout_line(s, t, i, ip, kbps + wobble(i, kbps * 0.005))
        for addr in failing:
            if i % 2 == 0:
                s.splunkd_line(t + 5, "WARN", "AutoLoadBalancedConnectionStrategy", "TcpOutEloop",
                               "Cooked connection to ip=%s timed out" % addr, tid=107804)
    return m


def write(root: str, members: Sequence[Member], name: str = "prod-ingest") -> str:
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "deployment.json"), "w") as f:
        json.dump({"format": 1, "name": name}, f)
    for m in members:
        sub = m.snap.write(os.path.join(root, m.folder))
        meta = os.path.join(sub, "snapshot.json")
        with open(meta) as f:
            data = json.load(f)
        data["source"] = m.uri
        with open(meta, "w") as f:
            json.dump(data, f, indent=1)
    return root


def by_id(report: Dict, fid: str) -> Dict:
    [f] = [f for f in report["findings"] if f["id"] == fid]
    return f


def settings(f: Dict) -> List[Optional[str]]:
    return [r["setting"] for r in f["recommendations"]]


__all__ = ["T0", "Member", "receiver", "replication_full", "sender", "write", "by_id", "settings", "tcpin_line"]
