"""Stage CPU from metrics.log group=pipeline: the sum of a pipeline's processors is the CPU of its thread.

A reading is CPU time in the interval only when it is physically possible: at
most the interval's wall time per thread the stage has (`model.max_cpu_pct`).
Splunk 5.x writes larger numbers (669.9 s of aggregator CPU in a 31 s interval on
an idle laptop): such a series is named unreliable in `not_judged`, never judged.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from ingest_doctor import model
from ingest_doctor.engine.series import OK, judge
from ingest_doctor.engine.rules.state import STAGE_CPU, THREAD, State, ThreadState

PKey = Tuple[str, Optional[int]]


def stage_states(st: State) -> List[ThreadState]:
    cpu: Dict[PKey, Dict[Optional[float], float]] = defaultdict(lambda: defaultdict(float))
    src: Dict[PKey, str] = {}
    interval: Dict[PKey, float] = {}
    for p in st.ev.processors:
        if p.interval_s <= 0:
            continue
        key = (p.pipeline, p.pipeline_set)
        cpu[key][p.time] += p.cpu_seconds / p.interval_s * 100.0
        src.setdefault(key, p.source)
        interval.setdefault(key, p.interval_s)
    out = []
    for (pipeline, pset), by_time in cpu.items():
        stage = model.stage_for_pipeline(pipeline)
        if stage is None:
            continue
        worst = max(by_time.values())
        if worst > model.max_cpu_pct(stage):
            st.note("%s name=%s: cpu_seconds add up to %.0f%% of one core in a %.0f s interval, more than the "
                    "stage's %d thread%s can use, so they are not CPU time in the interval on this version: "
                    "the reading is unreliable, %s stage CPU not judged"
                    % (src[(pipeline, pset)], pipeline, worst, interval[(pipeline, pset)], stage.threads_per_set,
                       "" if stage.threads_per_set == 1 else "s", stage.name))
            continue
        pts = sorted(by_time.items(), key=lambda x: (x[0] is None, x[0] or 0))
        j = judge(pts, st.th.thread_busy_pct, st.th)
        out.append(ThreadState(pipeline, stage, pset, j, src[(pipeline, pset)], "%s pipeline" % pipeline,
                               STAGE_CPU, pts))
    return out


def idle_stage(st: State, stage: model.Stage, pset: Optional[int]) -> bool:
    """The stage's queue is empty and its thread idle (both measured): processor CPU alone cannot make it
    a bottleneck. "Empty" and "idle" are under `imbalance_idle_pct`, the app's "nearly idle"."""
    idle = st.th.imbalance_idle_pct
    queues = [q for q in st.queues if q.queue == stage.queue and q.pipeline_set == pset]
    threads = [t for t in st.threads if t.kind == THREAD and t.stage is stage and t.pipeline_set == pset]
    return bool(queues) and bool(threads) and \
        all(q.level == OK and q.value < idle for q in queues) and \
        all(t.judgement.level == OK and t.judgement.peak < idle for t in threads)
