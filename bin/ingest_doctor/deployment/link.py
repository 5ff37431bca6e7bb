"""Linking findings already made (the search head's path): a sender's blocked output is `caused_by` the
worst blocking finding of a receiver the topology names, when that receiver's findings show it saturated.

The CLI judges a deployment folder by diagnosing each sender again with its receivers' state
(judge.py). On the search head the alert action holds findings (judged from result rows, or reported by
the collectors) and the topology from the rows' tcpin/tcpout connections, not every instance's raw data:
it links the findings as they are and rewrites the symptom's summary and advice to name the cause. A
forwarding loop is broken as judge.py breaks it (loops.py): `loop_roots` names each loop's root. A sender's
`hec_input` finding made of HEC refusals (not its own pegged thread) is linked as its output is (causes.py).
Cluster peers waiting on their replication target (`replication` edges from their replication-queue lines) are
linked first, by the CLI's own causes.replication (`replication`), so a sender's chain ends at the target; every
link has its `mechanism` (`mechanisms`), the sentence the CLI gives the same link.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from ingest_doctor import model
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.deployment import causes, loops
from ingest_doctor.deployment.judge import LINKED, SERIOUS, blocking, first_action, where
from ingest_doctor.deployment.topology import Instance, Topology
from ingest_doctor.evidence import ReceiverState
from ingest_doctor.findings import Finding, Recommendation, Report, severity_rank


def _worst(fs: List[Finding]) -> Optional[Finding]:
    ranked = blocking(fs)
    return ranked[0] if ranked else None


def linkable(f: Finding) -> bool:
    """A finding a saturated receiver explains on its sender (the tuned thresholds are not in the rows: the
    default `thread_busy_pct` tells a pegged HEC thread)."""
    return (f.bottleneck in LINKED and f.severity in SERIOUS) or causes.back_pressure(
        f, thresholds_mod.defaults().thread_busy_pct)


def link(findings: List[Finding], topo: Topology) -> Dict[str, Optional[str]]:
    """finding id -> the id of the finding that causes it (None: itself a cause). Chains link through; a
    receiver's finding whose causes lead back to the sender is not its cause (loops.py), so there is no cycle."""
    by_host: Dict[str, List[Finding]] = {}
    for f in findings:
        by_host.setdefault(f.host or "", []).append(f)
    caused: Dict[str, Optional[str]] = {f.id: None for f in findings}
    host_of = {f.id: f.host or "" for f in findings}.get
    for _ in range(len(by_host) + 1):
        changed = False
        for f in findings:
            if not linkable(f):
                continue
            found = []
            for _, rcv in topo.receivers.get(f.host or "", []):
                if rcv is not None and rcv != f.host:
                    w = _worst([x for x in by_host.get(rcv, [])
                                if not loops.leads_to(x.id, f.host or "", caused, host_of)])
                    if w is not None:
                        found.append(w)
            found.sort(key=lambda c: (-severity_rank(c.severity), c.id))
            cause = found[0].id if found else None
            if caused[f.id] != cause:
                caused[f.id], changed = cause, True
        if not changed:
            break
    return caused


def loop_roots(findings: List[Finding], topo: Topology, caused: Dict[str, Optional[str]]) -> Dict[str, List[str]]:
    """The roots `link` left because their receivers are blocked only by themselves: finding id -> the loop's
    hosts in forwarding order (the root first)."""
    by_host: Dict[str, List[Finding]] = {}
    for f in findings:
        by_host.setdefault(f.host or "", []).append(f)
    host_of = {f.id: f.host or "" for f in findings}.get
    out: Dict[str, List[str]] = {}
    for f in findings:
        if f.bottleneck not in LINKED or f.severity not in SERIOUS or caused.get(f.id):
            continue
        for _, rcv in topo.receivers.get(f.host or "", []):
            w = _worst(by_host.get(rcv, [])) if rcv is not None and rcv != f.host else None
            if w is not None and loops.leads_to(w.id, f.host or "", caused, host_of):
                out[f.id] = loops.members(f.host or "", w.id, caused, host_of)
                break
    return out


def root_of(fid: str, caused: Dict[str, Optional[str]]) -> str:
    seen = set()
    while caused.get(fid) and fid not in seen:
        seen.add(fid)
        fid = caused[fid] or fid
    return fid


def explain(f: Finding, cause: Finding, root: Finding, mechanism: str = "") -> Finding:
    """The symptom as the cause makes it: its summary names the cause (and how, given the `mechanism`), its
    advice is to act there."""
    if mechanism:
        return causes.symptom(f, cause, root, mechanism)
    if f.bottleneck == model.HEC_INPUT:
        return causes.symptom(f, cause, root, causes.hec_mechanism(cause.host or "-"))
    through = "" if root.id == cause.id else " (itself held back by %s)" % where(root)
    head = f.summary.split(". ", 1)[0].rstrip(".")
    summary = ("%s. Caused by %s%s: a saturated receiver drains at a steady rate, so this output looks flat at a "
               "ceiling like a link would. Act there, not here." % (head, where(cause), through))
    act = first_action(root)
    rec = Recommendation("Nothing to change on this instance: act on %s%s; this is not a setting here."
                         % (where(root), ": " + act if act else ""))
    return replace(f, summary=summary, recommendations=[rec])


def symptoms(caused: Dict[str, Optional[str]]) -> Dict[str, List[str]]:
    """root cause id -> the ids of the findings it holds back, sorted: built once for a run (a lookup per
    finding, where asking each finding's chain again per root grows with the square of the findings)."""
    out: Dict[str, List[str]] = {}
    for fid in sorted(f for f, c in caused.items() if c):
        root = root_of(fid, caused)
        if root != fid:
            out.setdefault(root, []).append(fid)
    return out


def replication(findings: List[Finding], topo: Topology, instances: Sequence[Instance]
                ) -> Tuple[List[Finding], Dict[str, Optional[str]], Dict[str, str]]:
    """The waiting cluster peers' findings linked to their replication target as the CLI links them
    (causes.replication over the findings as reports): the findings rewritten as symptoms, plus the target's
    replication receiver thread as a finding of its own when it holds its peers back without a blocking finding
    of its own (appended); and caused_by and mechanism of each waiting peer's finding."""
    if not topo.replication:
        return findings, {}, {}
    reports = {i.host: Report(i.host, [f for f in findings if (f.host or "") == i.host]) for i in instances}
    caused: Dict[str, Optional[str]] = {}
    mechanisms: Dict[str, str] = {}
    causes.replication(list(instances), topo, reports, caused, mechanisms)
    byid = {f.id: f for r in reports.values() for f in r.findings}
    known = {f.id for f in findings}
    out = [byid.get(f.id, f) for f in findings] + [f for f in byid.values() if f.id not in known]
    return out, {k: v for k, v in caused.items() if v}, mechanisms


def mechanisms(findings: List[Finding], topo: Topology, caused: Dict[str, Optional[str]]) -> Dict[str, str]:
    """The mechanism of each finding `link` tied to a receiver (a sender's output or HEC refusals), in the
    CLI's words (causes.output_mechanism, causes.hec_mechanism): its receivers' states from their findings."""
    by_host: Dict[str, List[Finding]] = {}
    for f in findings:
        by_host.setdefault(f.host or "", []).append(f)
    byid = {f.id: f for f in findings}
    out: Dict[str, str] = {}
    for f in findings:
        cause = byid.get(caused.get(f.id) or "")
        if cause is None or not linkable(f):
            continue
        states = []
        for address, rcv in topo.receivers.get(f.host or "", []):
            if rcv is None:
                states.append(ReceiverState(address, None, "absent"))
                continue
            w = cause if rcv == cause.host else _worst(by_host.get(rcv, []))
            states.append(ReceiverState(address, rcv, "saturated", w.id, where(w)) if w is not None
                          else ReceiverState(address, rcv, "idle"))
        sat = [s for s in states if s.host == cause.host] or [
            ReceiverState(cause.host or "-", cause.host, "saturated", cause.id, where(cause))]
        how = causes.output_mechanism(sat[0], states or sat)
        out[f.id] = causes.hec_mechanism(cause.host or "-", how) if f.bottleneck == model.HEC_INPUT else how
    return out


def refusals_behind(f: Finding, output_cause: Finding, output_mechanism: str) -> Tuple[Finding, str]:
    """A sender's HEC refusals judged without its queues or receivers (the HEC busy alert reads neither) while its
    output is known as `output_cause`'s symptom (`output_mechanism`): the refusals are that receiver's symptom too,
    as the CLI, reading both, folds them into the output (with autoLB they come from the sender's turns there).
    The finding as that symptom, and its mechanism."""
    how = causes.hec_mechanism(output_cause.host or "-", output_mechanism)
    return causes.symptom(f, output_cause, output_cause, how), how
