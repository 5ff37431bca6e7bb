"""Judge a deployment: each instance diagnosed with its receivers' state; symptoms linked to their cause.

1. Every instance is diagnosed alone (contract section 2).
2. A sender's receivers (topology.py) are judged from their own reports: a receiver with a `warning` or
   `critical` finding on a stage that stops it taking data (parsing .. output, throttled, host CPU) is
   saturated; one with none is idle; one missing from the folder is absent; one without data unjudged.
3. Each sender is diagnosed again knowing that (`evidence.receivers`): `output_cause` links a blocked
   output to its worst saturated receiver (summary names the cause, no advice the cause makes pointless),
   and only receivers all idle leave the network. Repeated until nothing changes, so a chain links through
   (universal forwarder -> heavy forwarder -> indexers).
4. `caused_by` of a sender's output finding is its worst saturated receiver's finding; `root_causes` are
   the warning/critical findings with no `caused_by`, worst first.
5. Replication and HEC back-pressure (causes.py): a cluster peer waiting on its replication target is
   `caused_by` the target (linked before the senders, so a chain ends at the target), and a sender's
   `hec_input` 503s behind a saturated receiver are that receiver's. Every `caused_by` has a `mechanism`.
6. Forwarding loops (loops.py): a receiver whose finding's causes lead back to the sender is not a cause of
   that sender (state "loop"); a sender blocked only that way is the loop's root, its output finding named
   "a forwarding loop", so every finding reaches a root and no advice nests.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Tuple

from ingest_doctor import model
from ingest_doctor.diagnose import diagnose
from ingest_doctor.evidence import ReceiverState
from ingest_doctor.read.snapshot import nothing_to_judge
from ingest_doctor.findings import Finding, Headroom, Report, Flat, severity_rank
from ingest_doctor.deployment import causes, loops, topology as topo_mod
from ingest_doctor.deployment.causes import first_action
from ingest_doctor.deployment.topology import Instance, Topology

# A receiver's finding on one of these stages stops it taking data from its senders.
BLOCKING = ("parsing", "merging", "typing", "indexing", "output", model.INDEXER_THROTTLED, model.HOST_CPU)
# Findings a saturated receiver explains on its sender.
LINKED = ("output",)
SERIOUS = ("warning", "critical")


def where(f: Finding) -> str:
    """'idx-02 indexing, pipeline set 1'."""
    return "%s %s%s" % (f.host or "-", f.bottleneck, "" if f.pipeline_set is None else ", pipeline set %d"
                        % f.pipeline_set)


@dataclass
class NextBottleneck(Flat):
    host: str
    bottleneck: str
    pipeline_set: Optional[int]
    at_load_x: float
    caveat: str = ""


@dataclass
class DeploymentReport:
    name: Optional[str]
    reports: Dict[str, Report]  # host -> its report (findings with the linking applied)
    caused_by: Dict[str, Optional[str]]  # finding id -> the id of its cause (None: itself a cause)
    topology: Topology
    not_judged: List[str] = field(default_factory=list)
    next_bottlenecks: List[NextBottleneck] = field(default_factory=list)
    mechanisms: Dict[str, str] = field(default_factory=dict)  # finding id -> how its cause produces it
    clocks: List[str] = field(default_factory=list)  # instances whose clocks differ by more than a minute

    @property
    def hosts(self) -> List[str]:
        return sorted(self.reports)

    @property
    def findings(self) -> List[Finding]:
        """Root causes first (worst first), then the findings they cause, then the rest."""
        out = [f for r in self.reports.values() for f in r.findings]
        return sorted(out, key=lambda f: (self.caused_by.get(f.id) is not None, -severity_rank(f.severity),
                                          model.BOTTLENECK_ORDER.get(f.bottleneck, 9), f.host or "", f.id))

    @property
    def root_causes(self) -> List[str]:
        return [f.id for f in self.findings if self.caused_by.get(f.id) is None and f.severity in SERIOUS]

    @property
    def healthy(self) -> bool:
        return all(r.healthy for r in self.reports.values())

    def root_of(self, fid: str) -> str:
        seen = set()
        while self.caused_by.get(fid) and fid not in seen:
            seen.add(fid)
            fid = self.caused_by[fid] or fid
        return fid

    def symptoms_of(self, root: str) -> List[Finding]:
        """Every finding whose chain of causes ends at `root` (the instances it holds back)."""
        return [f for f in self.findings if f.id != root and self.caused_by.get(f.id) and self.root_of(f.id) == root]

    def healthy_headroom(self) -> List[Dict[str, Any]]:
        """The headroom of every busy stage of every healthy instance (a busy instance with no finding still
        says how far it can go: the contract's single-instance `headroom`, each entry with its host)."""
        out = []
        for host in self.hosts:
            rep = self.reports[host]
            if rep.healthy:
                out.extend(dict({"host": host}, **h.to_dict()) for h in rep.headroom)
        return out

    def to_dict(self) -> Dict[str, Any]:
        findings = []
        for f in self.findings:
            d = f.to_dict()
            d["caused_by"] = self.caused_by.get(f.id)
            if d["caused_by"]:
                d["mechanism"] = self.mechanisms.get(f.id, "")
            findings.append(d)
        out: Dict[str, Any] = {
            "deployment": True, "name": self.name, "healthy": self.healthy, "hosts": self.hosts,
            "not_judged": list(self.not_judged), "root_causes": self.root_causes, "findings": findings,
            "topology": [e.to_dict() for e in self.topology.edges],
            "next_bottlenecks": [n.to_dict() for n in self.next_bottlenecks], "headroom": self.healthy_headroom()}
        if self.clocks:
            out["clocks"] = list(self.clocks)
        return out


def blocking(findings: List[Finding]) -> List[Finding]:
    """The serious findings that hold data back, worst first (severity, then the stage furthest down the
    pipeline, then id): the order a receiver's cause is chosen in, here and by the search head's linker."""
    fs = [f for f in findings if f.severity in SERIOUS and f.bottleneck in BLOCKING]
    return sorted(fs, key=lambda f: (-severity_rank(f.severity), -model.BOTTLENECK_ORDER.get(f.bottleneck, 9), f.id))


def paused_on(ev: Any, topo: Topology) -> Dict[str, int]:
    """receiver host -> the sender's splunkd.log paused and connection-failure lines that name it: the
    receiver the evidence names is the one that holds it back."""
    out: Dict[str, int] = {}
    for s in ev.log_signals:
        if s.kind in ("tcpout_blocked", "tcpout_connect_failed") and s.receiver and topo.names is not None:
            host = topo.names.find(s.receiver)
            if host:
                out[host] = out.get(host, 0) + 1
    return out


def _states(sender: str, topo: Topology, reports: Dict[str, Report], caused_by: Dict[str, Optional[str]],
            judged: Dict[str, bool], paused: Optional[Dict[str, int]] = None) -> List[ReceiverState]:
    out = []
    paused = paused or {}
    byid = {f.id: f for r in reports.values() for f in r.findings}

    def host_of(fid: str) -> Optional[str]:
        return byid[fid].host if fid in byid else None
    for address, host in topo.receivers.get(sender, []):
        if host is None:
            out.append(ReceiverState(address, None, "absent"))
            continue
        if not judged.get(host):
            out.append(ReceiverState(address, host, "unjudged"))
            continue
        causes = blocking(reports[host].findings)
        if not causes:
            out.append(ReceiverState(address, host, "idle"))
            continue
        # A finding whose causes lead back to this sender is its own traffic come round (loops.py): not a cause.
        mine = [f for f in causes if not loops.leads_to(f.id, sender, caused_by, host_of)]
        if not mine:
            out.append(ReceiverState(address, host, "loop", causes[0].id, where(causes[0])))
            continue
        f = mine[0]
        root, seen = f.id, set()
        while caused_by.get(root) and root not in seen:
            seen.add(root)
            root = caused_by[root] or root
        rf = byid.get(root, f)
        out.append(ReceiverState(address, host, "saturated", f.id, where(f),
                                 where(rf) if rf.id != f.id else "", first_action(rf)))
    sat = sorted([s for s in out if s.state == "saturated"],
                 key=lambda s: (-paused.get(s.host or "", 0),
                                -severity_rank(byid[s.cause].severity) if s.cause in byid else 0, s.host or ""))
    return sat + [s for s in out if s.state != "saturated"]


def judge(instances: List[Instance], name: Optional[str] = None) -> DeploymentReport:
    topo = topo_mod.build(instances)
    by_host = {i.host: i for i in instances}
    reports = {i.host: diagnose(i.evidence, i.thresholds) for i in instances}
    # A receiver read but holding nothing to judge (configuration only, every file unusable) is unjudged, not idle.
    judged = {i.host: nothing_to_judge(i.evidence) is None for i in instances}
    caused_by: Dict[str, Optional[str]] = {}
    mechanisms: Dict[str, str] = {}
    states: Dict[str, List[ReceiverState]] = {}
    causes.replication(instances, topo, reports, caused_by, mechanisms)
    for _ in range(len(instances) + 2):     # + 1: a loop's root is named, then its members see it named
        changed = False
        for host in sorted(topo.receivers):
            inst = by_host.get(host)
            if inst is None:
                continue
            st = _states(host, topo, reports, caused_by, judged, paused_on(inst.evidence, topo))
            if st == states.get(host):
                continue
            states[host] = st
            changed = True
            reports[host] = diagnose(replace(inst.evidence, receivers=st), inst.thresholds)
            sat = [s for s in st if s.state == "saturated"]
            back = [s for s in st if s.state == "loop"]
            if back and not sat:
                reports[host] = _loop_root(reports[host], inst, back[0].cause, reports, caused_by)
            for f in reports[host].findings:
                if f.bottleneck in LINKED and f.severity in SERIOUS:
                    caused_by[f.id] = sat[0].cause if sat else None
                    if sat:
                        mechanisms[f.id] = causes.output_mechanism(sat[0], st)
        if not changed:
            break
    causes.replication(instances, topo, reports, caused_by, mechanisms)   # peers that are senders too
    byid = {f.id: f for r in reports.values() for f in r.findings}
    for host, st in sorted(states.items()):
        reports[host] = causes.hec(host, reports[host], st, by_host[host].thresholds, byid, caused_by, mechanisms)
    for e in topo.edges:
        rep = reports.get(e.sender)
        if rep is not None and e.receiver_known and e.kind == topo_mod.FORWARDING:
            e.blocked = any(f.bottleneck == "output" and f.severity in SERIOUS and caused_by.get(f.id)
                            and caused_by[f.id].split("/", 1)[0] == e.receiver for f in rep.findings) or any(
                s.state == "loop" and s.host == e.receiver for s in states.get(e.sender, []))   # the loop's root
    dep = DeploymentReport(name, reports, {f.id: caused_by.get(f.id) for r in reports.values() for f in r.findings},
                           topo, mechanisms=mechanisms)
    dep.not_judged = _not_judged(instances, reports, states, topo)
    dep.clocks = clocks(instances)
    dep.next_bottlenecks = next_bottlenecks({h: stage_headroom(r) for h, r in reports.items()})
    return dep


def _loop_root(report: Report, inst: Instance, via: Optional[str], reports: Dict[str, Report],
               caused_by: Dict[str, Optional[str]]) -> Report:
    """The report of a sender whose receivers are blocked only by itself: its blocked output is the loop."""
    byid = {f.id: f for r in reports.values() for f in r.findings}
    hosts = loops.members(inst.host, via or "", caused_by, lambda fid: byid[fid].host if fid in byid else None)
    return replace(report, findings=[loops.loop_finding(f, hosts, inst.evidence.config.tcpout_servers)
                                     if f.bottleneck in LINKED and f.severity in SERIOUS else f
                                     for f in report.findings])


def _not_judged(instances: List[Instance], reports: Dict[str, Report], states: Dict[str, List[ReceiverState]],
                topo: Topology) -> List[str]:
    # The receivers missing from the folder, one line per set of them (at its first sender's place): senders
    # that name the same ones (by name in their server lists, by address in their connections) share it, so
    # 20 forwarders and 15 endpoints make one line, not hundreds.
    absent: Dict[Tuple[str, ...], List[str]] = {}
    for inst in instances:
        gone = tuple(sorted({s.address for s in states.get(inst.host, []) if s.state == "absent"}))
        if gone:
            absent.setdefault(gone, []).append(inst.host)
    first = {senders[0]: (gone, senders) for gone, senders in absent.items()}
    out = []
    for inst in instances:
        for n in reports[inst.host].not_judged:
            out.append("%s: %s" % (inst.host, n))
        if inst.host in first:
            out.append(_absent_line(*first[inst.host]))
        for s in states.get(inst.host, []):
            if s.state == "unjudged":
                out.append("%s: its receiver %s has no readable data in the folder: not judged" % (inst.host, s.host))
        blocked = [f for f in reports[inst.host].findings if f.bottleneck == "output" and f.severity in SERIOUS]
        if blocked and inst.host not in topo.receivers:
            out.append("%s: its output is blocked but its receivers are unknown (no group=tcpout_connections, no "
                       "tcpout server list, and no instance in the folder lists it in group=tcpin_connections)"
                       % inst.host)
    return out


def _absent_line(gone: Tuple[str, ...], senders: List[str]) -> str:
    if len(gone) == 1 and len(senders) == 1:
        return ("%s: its receiver %s is not in the deployment folder: its own data is missing, so whether it holds "
                "%s back was judged from %s's side only" % (senders[0], gone[0], senders[0], senders[0]))
    one = len(senders) == 1
    return ("%s: %s receiver%s %s (%d, named by name or by address as %s data names them) %s not in the deployment "
            "folder: %s own data is missing, so whether %s back was judged from the sender%s side only"
            % (", ".join(sorted(senders)), "its" if one else "their", "" if len(gone) == 1 else "s", ", ".join(gone),
               len(gone), "its" if one else "their", "is" if len(gone) == 1 else "are",
               "its" if len(gone) == 1 else "their", "it holds it" if one and len(gone) == 1 else
               "they hold it" if one else "they hold them", "'s" if one else "s'"))


def _minutes(seconds: float) -> str:
    return "%.0f s" % seconds if abs(seconds) < 90 else "%.0f min" % (seconds / 60.0)


def clocks(instances: List[Instance]) -> List[str]:
    """The instances whose clock differs from the others' (their median) by more than CLOCK_SLACK_S, each
    judged on its own clock: measured as its newest metrics.log line minus its capture time."""
    known = sorted((i.clock_s, i.host) for i in instances if i.clock_s is not None)
    if len(known) < 2 and not any(abs(c) > topo_mod.CLOCK_SLACK_S for c, _ in known):
        return []
    mid = known[len(known) // 2][0] if len(known) > 2 else 0.0
    out = []
    for c, host in sorted(known, key=lambda x: x[1]):
        off = c - mid
        if off > topo_mod.CLOCK_SLACK_S:
            out.append("%s: its clock runs about %s ahead of the others' (its newest metrics.log line is %s after "
                       "its capture time): judged on its own clock, its logs read up to the capture time by it"
                       % (host, _minutes(off), _minutes(c)))
        elif off < -topo_mod.CLOCK_SLACK_S:
            out.append("%s: its newest metrics.log line is %s before the others' (%s before its capture time): its "
                       "clock runs behind, or it stopped logging then; judged on the lines it has, on its own clock"
                       % (host, _minutes(-off), _minutes(-c)))
    return out


# ------------------------------------------------------------------ what saturates next

def stage_headroom(report: Report) -> List[Headroom]:
    """The per-stage headroom of one instance (the engine's headroom rule): one place to read it from."""
    return list(report.headroom)


def next_bottlenecks(headroom: Dict[str, List[Headroom]]) -> List[NextBottleneck]:
    """Stages not yet pegged, in the order they would peg as the load grows (a linear estimate per stage:
    busy B% of one core pegs at 100 / B times today's load; the same caveats as headroom)."""
    out: List[NextBottleneck] = []
    for host, hs in headroom.items():
        for h in hs:
            if h.pegged or h.busy_pct <= 0:
                continue
            out.append(NextBottleneck(host, h.stage, h.pipeline_set, round(100.0 / h.busy_pct, 1), h.caveat))
    return sorted(out, key=lambda n: (n.at_load_x, n.host, model.BOTTLENECK_ORDER.get(n.bottleneck, 9),
                                      -1 if n.pipeline_set is None else n.pipeline_set))


def pegged(headroom: Dict[str, List[Headroom]]) -> List[Tuple[str, Headroom]]:
    return [(host, h) for host, hs in headroom.items() for h in hs if h.pegged]
