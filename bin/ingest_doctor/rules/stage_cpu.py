"""Stage CPU from metrics.log group=pipeline: the sum of a pipeline's processors is the CPU of its thread."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from .. import model
from ..series import judge
from .state import STAGE_CPU, State, ThreadState


def stage_states(st: State) -> List[ThreadState]:
    cpu: Dict[Tuple[str, Optional[int]], Dict[Optional[float], float]] = defaultdict(lambda: defaultdict(float))
    src: Dict[Tuple[str, Optional[int]], str] = {}
    for p in st.ev.processors:
        if p.interval_s <= 0:
            continue
        key = (p.pipeline, p.pipeline_set)
        cpu[key][p.time] += p.cpu_seconds / p.interval_s * 100.0
        src.setdefault(key, p.source)
    out = []
    for (pipeline, pset), by_time in cpu.items():
        stage = model.stage_for_pipeline(pipeline)
        if stage is None:
            continue
        pts = sorted(by_time.items(), key=lambda x: (x[0] is None, x[0] or 0))
        j = judge(pts, st.th.thread_busy_pct, st.th)
        out.append(ThreadState(pipeline, stage, pset, j, src[(pipeline, pset)], "%s pipeline" % pipeline,
                               STAGE_CPU))
    return out
