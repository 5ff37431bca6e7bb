"""Who sends to whom, from the data; each edge names its source.

Sources, in the order they are trusted:
- the receivers' metrics.log `group=tcpin_connections`: one line per sender connection, naming the sender
  by `guid=`, `hostname=`, `sourceIp=` and `sourceHost=` (keys of a real 8.2.1 line);
- the senders' metrics.log `group=tcpout_connections` (`destIp=`/`destPort=` or the `name=` token) and
  their outputs.conf `[tcpout:<group>] server=` lists (IPs or names), and the receivers their
  splunkd.log says they could not connect to.
An instance is known by its folder name, its host name, FQDN and guid (services/server/info), the address
it was captured from (snapshot.json `source`), the `sourceIp` its receivers see it from and the
`lastIndexer` its senders last sent to. A receiver a sender names that is none of the instances is
absent (not in the folder): the sender is judged as alone towards it, and `not_judged` says so.

Edges have a kind (contract section 5): `forwarding` (above) or `replication`: an indexer-cluster peer
whose splunkd.log says its replication queue for another peer is full (`replication queue for peer=<guid>
full`) waits on that target, named by the guid its services/server/info carries.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.evidence import Evidence

TCPIN = "metrics.log group=tcpin_connections"
TCPOUT = "metrics.log group=tcpout_connections"
SERVERS = "rest services/configs/conf-outputs/tcpout server="
CONNECT_FAILED = "splunkd.log connection failed"
REPLICATION_FULL = "splunkd.log replication queue for peer=%s full"
HEC_CLIENT_SOURCE = "splunkd.log HttpInputDataHandler source_IP=%s"
# HEC clients drawn per instance (the most often named first): a load balancer in front shows as one address.
MAX_HEC_CLIENTS = 10
FORWARDING, REPLICATION, HEC_CLIENT = "forwarding", "replication", "hec_client"
# An edge's KB/s is its connection's average over this many seconds before its own newest line (its rate now);
# the edge itself is kept from any line of the window.
RATE_S = 300.0
# Clocks more than this apart are noted. An instance whose newest metrics.log line is more than this after its
# capture time runs its clock ahead: its logs are read up to the capture time on its own clock (a line is never
# written after its capture, and one metrics.log line every 30 s keeps them closer than that otherwise).
CLOCK_SLACK_S = 60.0


@dataclass
class Instance:
    name: str  # the folder name (or, on the search head, the host)
    evidence: Evidence
    thresholds: Optional[thresholds_mod.Thresholds] = None
    address: Optional[str] = None  # the host part of the management URI it was captured from
    clock_s: Optional[float] = None  # its newest metrics.log line minus its capture time (read/snapshot.clock_ahead)
    # The indexer cluster's peers as its manager lists them (folder.cluster_peers): (guid, label, host:port, site)
    cluster_peers: List[Tuple[str, str, str, str]] = field(default_factory=list)

    @property
    def host(self) -> str:
        return self.evidence.host or self.name


@dataclass
class Edge:
    sender: str  # an instance's host, or the sender as the receiver names it
    receiver: str  # an instance's host, or the address the sender names (not in the folder)
    source: str
    kbps: Optional[float] = None
    sender_known: bool = True  # the sender is an instance of the deployment
    receiver_known: bool = True
    blocked: bool = False  # set by the judge: the sender's output is held back on this edge
    kind: str = FORWARDING
    count: int = 1  # replication: the lines that name this target

    def to_dict(self) -> Dict[str, object]:
        return {"from": self.sender, "to": self.receiver, "kind": self.kind, "source": self.source,
                "kbps": None if self.kbps is None else round(self.kbps, 1), "blocked": self.blocked}


@dataclass
class Topology:
    edges: List[Edge] = field(default_factory=list)
    # sender host -> [(address as the sender names it, receiver host or None when absent)]
    receivers: Dict[str, List[Tuple[str, Optional[str]]]] = field(default_factory=dict)
    # peer host -> its replication edges to the peers of the folder, the most often named first
    replication: Dict[str, List[Edge]] = field(default_factory=dict)
    names: Optional["Names"] = None  # every name and address each instance is known by


def bare(address: str) -> str:
    """'10.0.0.11:9997' -> '10.0.0.11', 'idx-02.example.com:9997' -> 'idx-02.example.com', '[::1]:9997' -> '::1'."""
    a = address.strip().lower()
    if a.startswith("["):
        return a[1:a.find("]")] if "]" in a else a[1:]
    return a.rsplit(":", 1)[0] if a.count(":") == 1 else a


def uri_host(uri: Optional[str]) -> Optional[str]:
    if not uri:
        return None
    try:
        return urlsplit(uri if "//" in uri else "//" + uri).hostname
    except ValueError:
        return None


class Names:
    """Every name an instance is known by -> its host."""

    def __init__(self, instances: List[Instance]):
        self.by: Dict[str, str] = {}
        for inst in instances:
            cfg = inst.evidence.config
            for key in (inst.name, inst.host, cfg.host_fqdn, cfg.guid, inst.address):
                self.add(key, inst.host)
            if cfg.host_fqdn and "." in cfg.host_fqdn:
                self.add(cfg.host_fqdn.split(".", 1)[0], inst.host)

    def add(self, key: Optional[str], host: str) -> None:
        if key:
            self.by.setdefault(key.strip().lower(), host)

    def find(self, *keys: Optional[str]) -> Optional[str]:
        for k in keys:
            if k:
                hit = self.by.get(k.strip().lower()) or self.by.get(bare(k))
                if hit:
                    return hit
                if "." in k and not k.replace(".", "").isdigit():
                    hit = self.by.get(bare(k).split(".", 1)[0])
                    if hit:
                        return hit
        return None


def rate(points: List[Tuple[Optional[float], float]]) -> float:
    """The average KB/s of one connection's lines within RATE_S of its newest (all of them when untimed)."""
    ts = [t for t, _ in points if t is not None]
    since = max(ts) - RATE_S if ts else None
    ks = [k for t, k in points if since is None or t is None or t >= since]
    return sum(ks) / len(ks)


def build(instances: List[Instance]) -> Topology:
    names = Names(instances)
    # A manager's peer list ties each peer's guid and address to its server name (`label`): the replication
    # lines name targets by guid, which an instance without a readable server/info does not carry itself.
    for inst in instances:
        for guid, label, address, _site in inst.cluster_peers:
            host = names.find(label, guid, address)
            if host:
                for key in (guid, label, bare(address) if address else None):
                    names.add(key, host)
    # What receivers see of their senders teaches the senders' addresses, and their own (lastIndexer).
    for inst in instances:
        for c in inst.evidence.tcpin:
            sender = names.find(c.guid, c.hostname)
            if sender:
                names.add(c.source_ip, sender)
                if c.last_indexer:
                    names.add(bare(c.last_indexer), inst.host)
    topo = Topology(names=names)
    seen: Dict[Tuple[str, str], Edge] = {}

    def edge(sender: str, receiver: str, source: str, kbps: Optional[float], s_known: bool, r_known: bool) -> None:
        key = (sender, receiver)
        if key in seen:
            if seen[key].kbps is None and kbps is not None:
                seen[key].kbps = kbps
            return
        seen[key] = Edge(sender, receiver, source, kbps, s_known, r_known)
        topo.edges.append(seen[key])

    for inst in instances:
        conns: Dict[Tuple[str, str], List[Tuple[Optional[float], float]]] = defaultdict(list)
        labels: Dict[Tuple[str, str], str] = {}
        # Every connection line of the window: a sender seen only early in it still sends here.
        for c in inst.evidence.tcpin:
            sender = names.find(c.guid, c.hostname, c.source_ip, c.source_host)
            key = (sender or c.hostname or c.source_ip, "1" if sender else "")
            conns[key].append((c.time, c.kbps))
            labels.setdefault(key, "hostname=%s" % c.hostname if c.hostname else "sourceIp=%s" % c.source_ip)
        for key, points in sorted(conns.items()):
            edge(key[0], inst.host, "%s %s %s" % (inst.host, TCPIN, labels[key]), rate(points), bool(key[1]), True)
    for inst in instances:
        ev = inst.evidence
        named: List[Tuple[str, str, Optional[float]]] = []
        per: Dict[str, List[Tuple[Optional[float], float]]] = defaultdict(list)
        for c in ev.tcpout:
            per[c.receiver].append((c.time, c.kbps))
        for addr, points in sorted(per.items()):
            named.append((addr, "%s %s destIp=%s" % (inst.host, TCPOUT, addr), rate(points)))
        for srv in (ev.config.tcpout_servers or "").split(","):
            if srv.strip():
                named.append((srv.strip(), "%s %s%s" % (inst.host, SERVERS, srv.strip()), None))
        for s in ev.log_signals:
            if s.kind == "tcpout_connect_failed" and s.receiver:
                named.append((s.receiver, "%s %s %s" % (inst.host, CONNECT_FAILED, s.receiver), None))
        alias, covered = _same_absent(named, names)
        mine: Dict[str, Tuple[str, Optional[str]]] = {}
        for addr, source, kbps in named:
            host = names.find(addr)
            if host == inst.host:
                continue
            addr = alias.get(addr, addr)
            edge(inst.host, host or addr, source, kbps, True, host is not None)
            # One entry per receiver: the address the sender's data names it by.
            if addr not in covered:
                mine.setdefault(host or bare(addr), (addr, host))
        for e in topo.edges:
            if e.sender == inst.host and e.receiver_known and e.receiver not in mine:
                mine[e.receiver] = (e.receiver, e.receiver)
        if mine:
            topo.receivers[inst.host] = sorted(mine.values(), key=lambda x: x[0])
    # Edges learned from the receivers' side come after the senders' own: give every sender its receivers.
    for e in topo.edges:
        if e.sender_known and e.receiver_known:
            lst = topo.receivers.setdefault(e.sender, [])
            if all(h != e.receiver for _, h in lst):
                lst.append((e.receiver, e.receiver))
    _replication(instances, names, topo)
    _hec_clients(instances, names, topo)
    return topo


def _hec_clients(instances: List[Instance], names: Names, topo: Topology) -> None:
    """Client -> instance `hec_client` edges from the addresses its HEC error lines name (source_IP=): the
    clients it refused, or the load balancer's address when that translates its clients' addresses."""
    for inst in instances:
        named: Dict[str, int] = defaultdict(int)
        for e in inst.evidence.hec_errors:
            if e.client:
                named[e.client] += 1
        for client, n in sorted(named.items(), key=lambda x: (-x[1], x[0]))[:MAX_HEC_CLIENTS]:
            sender = names.find(client)
            topo.edges.append(Edge(sender or client, inst.host, "%s %s (%d error repl%s)"
                                   % (inst.host, HEC_CLIENT_SOURCE % client, n, "y" if n == 1 else "ies"),
                                   None, sender is not None, True, kind=HEC_CLIENT, count=n))


def _is_ip(address: str) -> bool:
    a = bare(address)
    return ":" in a or a.replace(".", "").isdigit()


def _same_absent(named: List[Tuple[str, str, Optional[float]]], names: Names) -> Tuple[Dict[str, str], set]:
    """A sender names a receiver outside the folder by name in its server list and by address in its
    connections: the same receiver twice. A sender connects only to the servers its list names, so its
    unresolved connection addresses are among its unresolved server names: one of each is one receiver
    (alias: address -> name); more addresses than names cannot be so, fewer are `covered` by the names."""
    listed = sorted({a for a, src, _ in named if SERVERS in src and names.find(a) is None and not _is_ip(a)})
    conns = sorted({a for a, src, _ in named if (TCPOUT in src or CONNECT_FAILED in src) and names.find(a) is None
                    and _is_ip(a)})
    if not listed or not conns or len(conns) > len(listed):
        return {}, set()
    if len(listed) == 1:
        return {conns[0]: listed[0]}, set()
    return {}, set(conns)


def _replication(instances: List[Instance], names: Names, topo: Topology) -> None:
    """Peer -> target replication edges from the peers' `replication queue for peer=<guid> full` lines."""
    for inst in instances:
        named: Dict[str, int] = defaultdict(int)
        for s in inst.evidence.log_signals:
            if s.kind == "replication_queue_full" and s.receiver:
                named[s.receiver] += 1
        out = []
        for guid, n in sorted(named.items()):
            target = names.find(guid)
            if target == inst.host:
                continue
            e = Edge(inst.host, target or guid, "%s %s (%d line%s)" % (inst.host, REPLICATION_FULL % guid, n,
                                                                       "" if n == 1 else "s"),
                     None, True, target is not None, kind=REPLICATION, count=n)
            topo.edges.append(e)
            out.append(e)
        if out:
            topo.replication[inst.host] = sorted(out, key=lambda e: (-e.count, e.receiver))
