"""Pipeline-set imbalance: some sets saturated while others stay under `imbalance_idle_pct`; or one set
carrying most of the throughput (group=thruput per `ingest_pipe`): with `pipelineSetSelectionPolicy`
round_robin a long-lived forwarder connection or HEC channel sticks to one set. Not saturated yet, that
is `info` with the shares: the set that will saturate first."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from ingest_doctor.engine import advice
from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.rules.state import State, r1


# One set carrying at least this many times its fair share (1 / sets), and at least half, carries "most".
UNEVEN = 1.5
THRUPUT_SOURCE = "logs/metrics.log group=thruput name=index_thruput"


def shares(st: State) -> Dict[int, float]:
    """Each pipeline set's share of the throughput (mean KB/s), when group=thruput names the sets."""
    kbps: Dict[int, List[float]] = defaultdict(list)
    for t in st.ev.thruput:
        if t.kind == "thruput" and t.series == "index_thruput" and t.pipeline_set is not None:
            kbps[t.pipeline_set].append(t.kbps)
    means = {p: sum(v) / len(v) for p, v in kbps.items()}
    total = sum(means.values())
    return {p: v / total for p, v in means.items()} if total > 0 and len(means) >= 2 else {}


def _most(st: State, psets: List[int]) -> Optional[Tuple[int, float]]:
    sh = shares(st)
    if not sh:
        return None
    top = max(sh, key=lambda p: sh[p])
    n = max(len(psets), len(sh))
    return (top, sh[top]) if sh[top] >= max(0.5, UNEVEN / n) else None


def hot_set(st: State) -> Optional[Tuple[int, float, int]]:
    """(set, share of the throughput, number of sets) when one pipeline set carries most of the load."""
    psets = st.psets
    if len(psets) < 2:
        return None
    most = _most(st, psets)
    return None if most is None else (most[0], most[1], max(len(psets), len(shares(st))))


def run(st: State) -> None:
    ev = st.ev
    psets = st.psets
    if len(psets) < 2:
        return
    saturated = sorted({k[1] for k, d in st.drafts.items()
                        if k[1] is not None and d.severity in ("warning", "critical")})
    most = _most(st, psets)
    if not saturated:
        if most is not None:
            _uneven(st, most, len(psets))
        return
    load: Dict[int, List[float]] = defaultdict(list)
    load_src: Dict[int, str] = {}
    for p in ev.pipelinesets:
        load[p.pipeline_set].append(p.dutycycle_pct)
        load_src.setdefault(p.pipeline_set, "%s ingest_pipe=%d" % (p.source, p.pipeline_set))
    fill: Dict[int, float] = defaultdict(float)
    for q in st.queues:
        if q.pipeline_set is not None:
            fill[q.pipeline_set] = max(fill[q.pipeline_set], q.value)
    idle = []
    for p in psets:
        if p in saturated:
            continue
        if load.get(p):
            vals = sorted(load[p])
            busy = vals[len(vals) // 2]
        elif p in fill:
            busy = fill[p]
        else:
            continue
        if busy < st.th.imbalance_idle_pct:
            idle.append((p, busy))
    if not idle:
        return
    d = st.draft(model.PIPELINE_SET_IMBALANCE, None, "warning", "pipelineSetSelectionPolicy")
    d.set_headline("Pipeline set%s %s %s saturated while %s stay%s nearly idle (under %.0f%%): the load is not "
                   "spread over the %d pipeline sets."
                   % ("s" if len(saturated) > 1 else "", ", ".join(str(s) for s in saturated),
                      "are" if len(saturated) > 1 else "is",
                      ", ".join("set %d" % p for p, _ in idle), "" if len(idle) > 1 else "s",
                      st.th.imbalance_idle_pct, len(psets)))
    for p, busy in idle:
        d.add(EvidenceItem("pipeline_set_busy_pct", r1(busy), "%", "median" if p in load_src else "max fill",
                           load_src.get(p, "queue fill, pipeline set %d" % p)))
    if most is not None:
        d.detail("Set %d carries %.0f%% of the throughput." % (most[0], most[1] * 100.0))
        d.add(EvidenceItem("pipeline_set_load_share_pct", r1(most[1] * 100.0), "%", "window",
                           "%s ingest_pipe=%d" % (THRUPUT_SOURCE, most[0])))
    d.recommendations.extend(advice.imbalance(ev))


def _uneven(st: State, most: Tuple[int, float], nsets: int) -> None:
    pset, share = most
    d = st.draft(model.PIPELINE_SET_IMBALANCE, None, "info", "pipelineSetSelectionPolicy")
    busy = [t.judgement.value for t in st.threads if t.pipeline_set == pset and t.stage is not None]
    d.set_headline("Pipeline set %d carries %.0f%% of the throughput of %d sets (a fair share is %.0f%%)%s: none is "
                   "saturated yet, but it will be the first; the load is not spread."
                   % (pset, share * 100.0, nsets, 100.0 / nsets,
                      ", its busiest thread at %.0f%% of one core" % max(busy) if busy else ""), tentative=True)
    d.add(EvidenceItem("pipeline_set_load_share_pct", r1(share * 100.0), "%", "window",
                       "%s ingest_pipe=%d" % (THRUPUT_SOURCE, pset)))
    d.recommendations.extend(advice.imbalance(st.ev))
