"""Just under the threshold: a pipeline thread busy within `NEAR_PCT` points of `thread_busy_pct`, not
sustained over it, is `info` with its numbers: worth knowing, never a warning (only what the configured
rule calls sustained warns)."""
from __future__ import annotations

from .. import model
from ..findings import EvidenceItem
from ..series import OK
from .state import THREAD, State, r1

# How close to the threshold (points of one core) a thread is "just under" it.
NEAR_PCT = 10.0


def run(st: State) -> None:
    thr = st.th.thread_busy_pct
    for s in sorted(st.threads, key=lambda s: -s.judgement.value):
        j = s.judgement
        if s.kind != THREAD or s.stage is None or j.level != OK or j.value < thr - NEAR_PCT:
            continue
        pset = None if s.stage.name == model.HEC_INPUT else s.pipeline_set
        prev = st.drafts.get((s.stage.name, pset))
        if prev is not None and prev.severity != "info":
            continue
        d = st.draft(s.stage.name, pset)
        text = ("The %s is busy %.0f%% of one core (%s, at most %.0f%%), just under the %.0f%% threshold: not "
                "saturated by the configured rule, about %.0f points of one core left."
                % (s.label, j.value, j.window, j.peak, thr, 100.0 - j.value))
        if d.headline:
            d.detail(text)
        else:
            d.component = s.thread
            d.set_headline(text, tentative=True)
        d.severity = "info"
        d.add(EvidenceItem("thread_busy_pct", r1(j.value), "%", j.window,
                           "%s thread=%s" % (s.source, s.thread)))
