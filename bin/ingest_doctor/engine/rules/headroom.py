"""Headroom: for each stage of each pipeline set, the throughput at which it would saturate.

A stage's thread busy B% of one core while its pipeline set carries E events/s
pegs at about E x 100 / B events/s, if its cost per event stays the same
(typing at 60% for 18k events/s: about 30k events/s). Fills `st.capacity` and
adds the estimate to the evidence of a finding about the same stage and set.

B and E are averages over the same recent window (`sustained_window_min`, ending at the newest
sample), never one burst sample; a stage at or over `thread_busy_pct` over that window, or judged
sustained, has none left. Without `group=thruput name=index_thruput` the instance's `name=thruput`
is the load, and the caveat says so. `estimate(ev, th)` computes it for one instance's evidence
alone (a deployment calls it per instance).

Not valid when the cost per event changes with the load or the mix (a new
sourcetype, longer events, line merging over more lines), nor for indexing when
the disk, not the CPU, limits it: the caveat says so with each estimate.
"""
from __future__ import annotations

from ingest_doctor import model
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.evidence import Evidence
from ingest_doctor.findings import EvidenceItem, Headroom
from ingest_doctor.engine import grouping
from ingest_doctor.engine.series import SUSTAINED
from ingest_doctor.engine.rules import queue_chain, thread_saturation
from ingest_doctor.engine.rules.state import THREAD, State, ThreadState, start
from ingest_doctor.engine.rules.upstream import SENDER


SIGNAL = "headroom_eps"         # events/s more before it pegs: 0 at or over its threshold
PEGS_AT = "pegs_at_eps"         # the events/s at which it pegs

CAVEATS = {
    "indexing": "indexing is often bound by disk I/O before its thread pegs: a ceiling, not a promise",
    "merging": "line merging costs more per event as events grow: valid for the same event mix",
    "parsing": "valid for the same event sizes and sourcetypes",
    "typing": "valid for the same event mix and index-time regexes",
    "hec_input": "HEC carries every pipeline set; valid for the same request and batch sizes",
    "output": "the network or the receivers may limit output before its thread pegs",
}


FALLBACK_CAVEAT = "load from group=thruput name=thruput (the instance's total: name=index_thruput is missing)"


def _total(load: Dict[Optional[int], Tuple[Optional[float], float, str]]) -> Tuple[Optional[float], float, str]:
    eps = [e for e, _, _ in load.values()]
    src = next(iter(load.values()))[2]
    return (None if any(e is None for e in eps) else sum(e for e in eps if e is not None),
            sum(k for _, k, _ in load.values()), src)


def _busy(st: State, t: ThreadState) -> Tuple[float, str, bool]:
    """(busy % of one core over the sustained window, that window, at or over its threshold)."""
    window_s = st.th.sustained_window_min * 60.0
    vals, end = grouping.recent(t.points, window_s)
    if vals:
        busy = sum(vals) / len(vals)
        window = "%dm" % int(st.th.sustained_window_min) if end is not None else t.judgement.window
    else:
        busy, window = t.judgement.value, t.judgement.window
    return busy, window, busy >= st.th.thread_busy_pct or t.judgement.level == SUSTAINED


def _busiest(st: State) -> Dict[Tuple[str, Optional[int]], Tuple[ThreadState, float, str, bool]]:
    """One reading per stage and set: a thread's own busy share before the sum of its processors."""
    out: Dict[Tuple[str, Optional[int]], Tuple[ThreadState, float, str, bool]] = {}
    for t in st.threads:
        if t.stage is None:
            continue
        pset = None if st.single_pset else t.pipeline_set
        key = (t.stage.name, pset)
        busy = _busy(st, t)
        prev = out.get(key)
        if prev is None or (prev[0].kind != THREAD and t.kind == THREAD) or \
                (prev[0].kind == t.kind and busy[0] > prev[1]):
            out[key] = (t,) + busy
    return out


def compute(st: State) -> Tuple[List[Headroom], List[str]]:
    """The headroom of every stage and set of the State's judged threads, and what could not be estimated."""
    load, name = grouping.load(st.ev, st.th.sustained_window_min * 60.0, st.single_pset)
    load_caveat = FALLBACK_CAVEAT if name == grouping.FALLBACK_NAME else ""
    if not load:
        return [], []
    busiest = _busiest(st)
    sets = {p for _, p in busiest}
    skipped: List[str] = []
    out: List[Headroom] = []
    for (stage, pset), (t, busy, window, pegged) in sorted(
            busiest.items(), key=lambda x: (model.BOTTLENECK_ORDER.get(x[0][0], 9), -1 if x[0][1] is None else x[0][1])):
        # Under headroom_min_busy_pct the estimate multiplies measurement noise (1% busy -> "100x").
        if busy < st.th.headroom_min_busy_pct and not pegged:
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
        caveat = "; ".join(c for c in (CAVEATS.get(stage, ""), load_caveat) if c)
        out.append(Headroom(stage, pset, min(busy, 100.0), eps, kbps, window, "%s + %s" % (t.source, src),
                            caveat, pegged))
    return out, skipped


def estimate(ev: Evidence, th: Optional[thresholds_mod.Thresholds] = None) -> List[Headroom]:
    """One instance's headroom from its evidence alone (the queue and thread rules it needs run here)."""
    st = start(ev, th or thresholds_mod.defaults())
    queue_chain.run(st)
    thread_saturation.run(st)
    return compute(st)[0]


def run(st: State) -> None:
    st.capacity, skipped = compute(st)
    for h in st.capacity:
        d = st.drafts.get((h.stage, h.pipeline_set))
        if d is not None and d.component != SENDER and h.headroom_eps is not None:
            d.add(EvidenceItem(SIGNAL, round(h.headroom_eps), "events/s", h.window, h.source))
            d.add(EvidenceItem(PEGS_AT, round(h.saturates_eps or 0.0), "events/s", h.window, h.source))
    if skipped:
        st.note("metrics.log group=thruput has no line with their ingest_pipe, so their own load is unknown: headroom "
                "not estimated for %s" % "; ".join(skipped))
