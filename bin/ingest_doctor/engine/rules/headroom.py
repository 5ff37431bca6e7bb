"""Headroom: for each stage of each pipeline set, the throughput at which it would saturate.

A stage's thread busy B% of one core while its pipeline set carries E events/s
pegs at about E x 100 / B events/s, if its cost per event stays the same
(typing at 60% for 18k events/s: about 30k events/s). Fills `st.capacity` and
adds the estimate to the evidence of a finding about the same stage and set.

Not valid when the cost per event changes with the load or the mix (a new
sourcetype, longer events, line merging over more lines), nor for indexing when
the disk, not the CPU, limits it: the caveat says so with each estimate.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem, Headroom
from ingest_doctor.engine.rules.state import THREAD, State, ThreadState
from ingest_doctor.engine.rules.upstream import SENDER

THRUPUT_NAME = "index_thruput"
SIGNAL = "headroom_eps"

CAVEATS = {
    "indexing": "indexing is often bound by disk I/O before its thread pegs: a ceiling, not a promise",
    "merging": "line merging costs more per event as events grow: valid for the same event mix",
    "parsing": "valid for the same event sizes and sourcetypes",
    "typing": "valid for the same event mix and index-time regexes",
    "hec_input": "HEC carries every pipeline set; valid for the same request and batch sizes",
    "output": "the network or the receivers may limit output before its thread pegs",
}


def _load(st: State) -> Dict[Optional[int], Tuple[Optional[float], float, str]]:
    """Per pipeline set: mean events/s, mean KB/s and the source (group=thruput name=index_thruput)."""
    eps: Dict[Optional[int], List[float]] = defaultdict(list)
    kbps: Dict[Optional[int], List[float]] = defaultdict(list)
    src = ""
    for t in st.ev.thruput:
        if t.kind != "thruput" or t.series != THRUPUT_NAME:
            continue
        pset = None if st.single_pset else t.pipeline_set
        kbps[pset].append(t.kbps)
        if t.eps is not None:
            eps[pset].append(t.eps)
        src = src or t.source
    out = {}
    for pset, ks in kbps.items():
        es = eps.get(pset)
        out[pset] = (sum(es) / len(es) if es else None, sum(ks) / len(ks), src)
    return out


def _total(load: Dict[Optional[int], Tuple[Optional[float], float, str]]) -> Tuple[Optional[float], float, str]:
    eps = [e for e, _, _ in load.values()]
    src = next(iter(load.values()))[2]
    return (None if any(e is None for e in eps) else sum(e for e in eps if e is not None),
            sum(k for _, k, _ in load.values()), src)


def _busiest(st: State) -> Dict[Tuple[str, Optional[int]], ThreadState]:
    """One reading per stage and set: a thread's own busy share before the sum of its processors."""
    out: Dict[Tuple[str, Optional[int]], ThreadState] = {}
    for t in st.threads:
        if t.stage is None:
            continue
        pset = None if st.single_pset else t.pipeline_set
        key = (t.stage.name, pset)
        prev = out.get(key)
        if prev is None or (prev.kind != THREAD and t.kind == THREAD) or \
                (prev.kind == t.kind and t.judgement.value > prev.judgement.value):
            out[key] = t
    return out


def run(st: State) -> None:
    load = _load(st)
    if not load:
        return
    busiest = _busiest(st)
    sets = {p for _, p in busiest}
    skipped: List[str] = []
    for (stage, pset), t in sorted(busiest.items(), key=lambda x: (model.BOTTLENECK_ORDER.get(x[0][0], 9),
                                                                      -1 if x[0][1] is None else x[0][1])):
        busy = t.judgement.value
        # Under headroom_min_busy_pct the estimate multiplies measurement noise (1% busy -> "100x").
        if busy < st.th.headroom_min_busy_pct:
            continue
        if stage == model.HEC_INPUT or pset is None or len(sets) == 1:
            eps, kbps, src = _total(load)
        elif pset in load:
            eps, kbps, src = load[pset]
        else:
            skipped.append("%s, pipeline set %d" % (stage, pset))
            continue
        if kbps <= 0:
            continue
        h = Headroom(stage, pset, min(busy, 100.0), eps, kbps, t.judgement.window,
                     "%s + %s name=%s" % (t.source, src, THRUPUT_NAME), CAVEATS.get(stage, ""),
                     busy >= st.th.thread_busy_pct)
        st.capacity.append(h)
        d = st.drafts.get((stage, pset))
        if d is not None and d.component != SENDER and h.saturates_eps is not None:
            d.add(EvidenceItem(SIGNAL, round(h.saturates_eps), "events/s", h.window, h.source))
    if skipped:
        st.note("metrics.log group=thruput has no line with their ingest_pipe, so their own load is unknown: headroom "
                "not estimated for %s" % "; ".join(skipped))

