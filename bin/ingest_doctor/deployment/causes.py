"""Symptoms of every kind (contract section 5, edge kinds and mechanisms): findings other than a sender's
blocked output that another instance explains, each with a one-sentence `mechanism`.

- Replication: an indexer-cluster peer indexes a slice only once the peers it replicates to have taken it,
  so a slow replication target holds its peers' indexing back: their indexQueue and splunktcpin fill while
  their own threads and CPU idle, and their splunkd.log says `replication queue for peer=<guid> full`
  (topology.py turns those lines into `replication` edges). The target's `replicationdatareceiverthread`
  (which the single-instance rules leave unjudged: it is no stage of the target's own ingestion) is then
  judged as the stage it is for its peers: the indexing of their replicated data.
- HEC back-pressure: a sender whose output blocks on a saturated receiver answers its HEC clients 503
  (health code 18, "server is busy") during those blocks; with autoLB only during its turns there, so its
  own queues are not full for long and the rules see a `hec_input` finding. Unless the HEC thread itself
  is pegged, that finding is the receiver's symptom.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from ingest_doctor import model
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.evidence import Evidence, ReceiverState
from ingest_doctor.findings import EvidenceItem, Finding, Recommendation, Report, severity_rank
from ingest_doctor.deployment.topology import Edge, Instance, Topology

REPLICATION_THREAD = "replicationdatareceiverthread"
SERIOUS = ("warning", "critical")
# A waiting peer's findings on these stages are its replication target's symptoms.
WAITING = ("parsing", "merging", "typing", "indexing", model.INDEXER_THROTTLED, model.PIPELINE_SET_IMBALANCE)


def where(f: Finding) -> str:
    return "%s %s%s" % (f.host or "-", f.bottleneck, "" if f.pipeline_set is None else ", pipeline set %d"
                        % f.pipeline_set)


def thread_busy(ev: Evidence, th: Optional[thresholds_mod.Thresholds], thread: str) -> Optional[Tuple[float, str]]:
    """(busy % of one core averaged over the sustained window before the thread's newest sample, the window
    in words) when that average is at or over `thread_busy_pct`; None otherwise."""
    th = th or thresholds_mod.defaults()
    pts = [(s.time, s.busy_pct) for s in ev.threads if s.thread == thread and s.time is not None]
    if not pts:
        return None
    since = max(t for t, _ in pts) - th.sustained_window_min * 60.0
    vals = [v for t, v in pts if t >= since]
    avg = sum(vals) / len(vals)
    return (avg, "%gm average" % th.sustained_window_min) if avg >= th.thread_busy_pct else None


def symptom(f: Finding, cause: Finding, root: Finding, mechanism: str) -> Finding:
    """`f` as its cause makes it: the summary names the cause and how, no configuration change here."""
    through = "" if root.id == cause.id else " (itself held back by %s)" % where(root)
    head = f.summary.split(". ", 1)[0].rstrip(".")
    act = first_action(root)
    rec = Recommendation("Nothing to change on this instance: act on %s%s; this is not a setting here."
                         % (where(root), ": " + act if act else ""))
    return replace(f, summary="%s. Caused by %s%s: %s." % (head, where(cause), through, mechanism.rstrip(".")),
                   recommendations=[rec])


# A root's compression advice holds for its own link only (its receivers idle, no SSL where `compressed` does not
# apply: engine/advice.compression), so it is never handed down a chain (issue 37): a finding the root holds back
# is told to act on the root with its first other advice.
LINK_ONLY = ("compressed", "useClientSSLCompression")


def first_action(f: Finding) -> str:
    """The first thing to change at `f`, in words, for the findings it holds back: its first setting, else its
    first advice; never its link-only compression advice (LINK_ONLY)."""
    recs = [r for r in f.recommendations if r.setting not in LINK_ONLY]
    for r in recs:
        if r.setting:
            return "%s [%s] %s = %s" % (r.conf_file, r.stanza or "", r.setting,
                                        r.suggested if r.suggested is not None else "(see its finding)")
    return recs[0].action if recs else ""


def _target_finding(target: str, busy: Tuple[float, str], peers: List[Edge], severity: str) -> Finding:
    names = ", ".join(e.sender for e in peers)
    summary = ("The replication receiver thread (%s) is busy %.0f%% of one core (%s): this peer takes the slices "
               "its cluster peers replicate to it no faster than that, so %d peer%s (%s) wait on their replication "
               "queue to it and their own queues fill." % (REPLICATION_THREAD, busy[0], busy[1], len(peers),
                                                           "" if len(peers) == 1 else "s", names))
    ev = [EvidenceItem("thread_busy_pct", round(busy[0], 1), "%", busy[1],
                       "logs/metrics.log group=dutycycle thread=%s" % REPLICATION_THREAD)]
    ev += [EvidenceItem("replication_queue_full", e.count, "lines", "window", e.source) for e in peers]
    recs = [Recommendation("Find what slows this peer's writes of replicated data: the disk of its hot/warm volume "
                           "(iowait), its own indexing load, the network on its replication port; this is not a "
                           "setting."),
            Recommendation("Spread the replication load: add peers or rebalance the cluster's buckets so one peer is "
                           "not the target of most replicated slices; this is not a setting.")]
    return Finding("indexing", severity, target, None, REPLICATION_THREAD, summary, ev, recs)


def replication(instances: List[Instance], topo: Topology, reports: Dict[str, Report],
                caused_by: Dict[str, Optional[str]], mechanisms: Dict[str, str]) -> None:
    """Links each waiting peer's findings to its replication target (in place): the target's own blocking
    finding when it has one, else its pegged replication receiver thread as a finding of its own."""
    by_host = {i.host: i for i in instances}
    waiting: Dict[str, List[Tuple[Edge, List[Finding]]]] = {}
    for peer, edges in sorted(topo.replication.items()):
        # A peer whose own stage thread is pegged is its own cause, whatever it also waits on.
        limit = (by_host[peer].thresholds or thresholds_mod.defaults()).thread_busy_pct
        mine = [f for f in reports[peer].findings if f.severity in SERIOUS and f.bottleneck in WAITING
                and not thread_pegged(f, limit)]
        for e in edges:
            if mine and e.receiver_known and e.receiver in reports:
                waiting.setdefault(e.receiver, []).append((e, mine))
                break                       # its most often named target
    for target, pairs in sorted(waiting.items()):
        inst = by_host[target]
        busy = thread_busy(inst.evidence, inst.thresholds, REPLICATION_THREAD)
        own = sorted([f for f in reports[target].findings if f.severity in SERIOUS and f.bottleneck in WAITING
                      and not any(f in fs for _, fs in pairs)],
                     key=lambda f: (-severity_rank(f.severity), f.id))
        if own:
            cause = own[0]
        elif busy is not None:
            worst = max((f.severity for _, fs in pairs for f in fs), key=severity_rank)
            cause = _target_finding(target, busy, [e for e, _ in pairs], worst)
            rep = reports[target]
            reports[target] = replace(rep, findings=[f for f in rep.findings if f.id != cause.id] + [cause],
                                      not_judged=[n for n in rep.not_judged
                                                  if not n.startswith("thread %s " % REPLICATION_THREAD)])
        else:
            continue
        caused_by.setdefault(cause.id, None)
        for e, fs in pairs:
            how = ("its replication queue for %s is full (%d line%s in its splunkd.log): a cluster peer indexes a "
                   "slice only once its replication targets take it, so its queues fill while its own threads idle"
                   % (target, e.count, "" if e.count == 1 else "s"))
            ids = {f.id for f in fs}
            rep = reports[e.sender]
            reports[e.sender] = replace(rep, findings=[symptom(f, cause, cause, how) if f.id in ids else f
                                                       for f in rep.findings])
            for fid in ids:
                caused_by[fid] = cause.id
                mechanisms[fid] = how
            e.blocked = True


def share(states: List[ReceiverState]) -> Tuple[int, int]:
    """(saturated receivers, receivers) of one sender: autoLB spreads its data evenly over its receivers."""
    known = [s for s in states if s.host is not None or s.state == "absent"]
    return len([s for s in known if s.state == "saturated"]), len(known)


PARTS = {2: "half", 3: "a third", 4: "a quarter", 5: "a fifth", 6: "a sixth", 8: "an eighth"}


def output_mechanism(sat: ReceiverState, states: List[ReceiverState]) -> str:
    """How a saturated receiver blocks a sender's output, in one sentence."""
    k, n = share(states)
    if k >= n:
        return ("its output blocks on %s, which takes data no faster than its bottleneck (%s) lets it through"
                % (sat.host, sat.cause_words))
    part = PARTS.get(n, "1/%d" % n) if k == 1 else "%d/%d" % (k, n)
    more = "" if k == 1 else " and %d more" % (k - 1)
    return ("its turns on %s%s block: autoLB sends %s of its data there, and %s takes it no faster than its "
            "bottleneck (%s) lets it through" % (sat.host, more, part, sat.host, sat.cause_words))


def thread_pegged(f: Finding, limit: float) -> bool:
    """The finding rests on its own thread busy at or over `limit`: a cause of its own, not a wait."""
    return any(e.signal == "thread_busy_pct" and isinstance(e.value, (int, float)) and e.value >= limit
               for e in f.evidence)


def back_pressure(f: Finding, limit: float) -> bool:
    """A sender's `hec_input` finding a saturated receiver explains: HEC refusals, not its own thread."""
    return f.bottleneck == model.HEC_INPUT and f.severity in SERIOUS and not thread_pegged(f, limit)


def hec_mechanism(receiver: str, how: str = "") -> str:
    return "its HEC answers 503 (server busy, health code 18) while its output waits on %s%s" % (
        receiver, ": " + how if how else "")


def hec(host: str, report: Report, states: List[ReceiverState], th: Optional[thresholds_mod.Thresholds],
        findings: Dict[str, Finding], caused_by: Dict[str, Optional[str]], mechanisms: Dict[str, str]) -> Report:
    """A sender's `hec_input` finding behind a saturated receiver: its 503s are the receiver's back-pressure,
    unless its HEC thread is pegged (then it is a cause of its own)."""
    sat = [s for s in states if s.state == "saturated" and s.cause in findings]
    if not sat:
        return report
    limit = (th or thresholds_mod.defaults()).thread_busy_pct
    out = []
    for f in report.findings:
        if not back_pressure(f, limit):
            out.append(f)
            continue
        s = sat[0]
        cause = findings[s.cause or ""]
        root = cause
        seen = set()
        while caused_by.get(root.id) and root.id not in seen and caused_by[root.id] in findings:
            seen.add(root.id)
            root = findings[caused_by[root.id] or ""]
        how = hec_mechanism(s.host or s.address, output_mechanism(s, states))
        caused_by[f.id] = cause.id
        mechanisms[f.id] = how
        out.append(symptom(f, cause, root, how))
    return replace(report, findings=out)
