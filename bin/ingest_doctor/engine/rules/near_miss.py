"""Just under the threshold: a pipeline thread busy within `NEAR_PCT` points of `thread_busy_pct`, not
sustained over it, never warns (only what the configured rule calls sustained does). Alone it makes no
finding (its numbers are in the headroom report); beside an `info` finding on its stage (a queue that
fills in bursts) it adds its numbers there, so the admin sees how close the stage runs."""
from __future__ import annotations

from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import OK
from ingest_doctor.engine.rules.state import THREAD, State, measure, r1

# How close to the threshold (points of one core) a thread is "just under" it.
NEAR_PCT = 10.0


def run(st: State) -> None:
    thr = st.th.thread_busy_pct
    for s in sorted(st.threads, key=lambda s: -s.judgement.value):
        j = s.judgement
        if s.kind != THREAD or s.stage is None or j.level != OK or j.value < thr - NEAR_PCT:
            continue
        pset = None if s.stage.name == model.HEC_INPUT else s.pipeline_set
        d = st.drafts.get((s.stage.name, pset))
        if d is None or d.severity != "info":
            continue
        text = ("The %s is busy %.0f%% of one core (%s, at most %.0f%%), just under the %.0f%% threshold: not "
                "saturated by the configured rule, about %.0f points of one core left."
                % (s.label, j.value, measure(s.kind, s.source, j.window), j.peak, thr, 100.0 - j.value))
        d.detail(text)
        d.add(EvidenceItem("thread_busy_pct", r1(j.value), "%", j.window,
                           "%s thread=%s" % (s.source, s.thread)))
