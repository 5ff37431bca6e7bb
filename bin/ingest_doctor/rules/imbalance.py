"""Pipeline-set imbalance: some sets saturated while others stay under `imbalance_idle_pct`."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List

from .. import advice, model
from ..findings import EvidenceItem
from .state import State, r1


def run(st: State) -> None:
    ev = st.ev
    psets = sorted({p for p in [q.pipeline_set for q in ev.queues] + [p.pipeline_set for p in ev.pipelinesets]
                    + [t.pipeline_set for t in ev.threads] if p is not None})
    if len(psets) < 2:
        return
    saturated = sorted({k[1] for k, d in st.drafts.items()
                        if k[1] is not None and d.severity in ("warning", "critical")})
    if not saturated:
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
    d = st.draft(model.PIPELINE_SET_IMBALANCE, None)
    d.severity = "warning"
    d.component = "pipelineSetSelectionPolicy"
    d.set_headline("Pipeline set%s %s %s saturated while %s stay%s nearly idle (under %.0f%%): the load is not "
                   "spread over the %d pipeline sets."
                   % ("s" if len(saturated) > 1 else "", ", ".join(str(s) for s in saturated),
                      "are" if len(saturated) > 1 else "is",
                      ", ".join("set %d" % p for p, _ in idle), "" if len(idle) > 1 else "s",
                      st.th.imbalance_idle_pct, len(psets)))
    for p, busy in idle:
        d.add(EvidenceItem("pipeline_set_busy_pct", r1(busy), "%", "median" if p in load_src else "max fill",
                           load_src.get(p, "queue fill, pipeline set %d" % p)))
    d.recommendations.extend(advice.imbalance(ev))
