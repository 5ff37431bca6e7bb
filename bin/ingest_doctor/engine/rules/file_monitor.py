"""File monitor input: a pegged `tail` thread (metrics.log `dutycycle name=misc`) reads files no faster.

The contract's only input bottleneck is `hec_input` (the stage in front of
parsingQueue), so the finding carries that value, while its component, summary
and advice say "file monitor input (tailing)" (`model.FILE_MONITOR`). With full
queues downstream the busy tail thread is waiting on them: evidence for the
chain's bottleneck, not a finding of its own.
"""
from __future__ import annotations

from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import SUSTAINED
from ingest_doctor.engine.rules.state import State, busy_words, measure, r1

INPUT = model.FILE_MONITOR


def run(st: State) -> None:
    for s in sorted((s for s in st.threads if s.thread == INPUT.thread), key=lambda s: -s.judgement.value):
        j = s.judgement
        if j.level != SUSTAINED:
            continue
        item = EvidenceItem("thread_busy_pct", r1(j.value), "%", j.window, "%s thread=%s" % (s.source, s.thread))
        if st.chain:
            for pset, stage in st.chain.items():
                d = st.draft(stage, pset)
                d.add(item)
                d.detail("The %s thread is busy too (%.0f%%), waiting on the full queues." % (INPUT.label, j.value))
            continue
        d = st.draft(model.HEC_INPUT, None)
        d.pegged = True
        d.busy_pct = max(d.busy_pct or 0.0, j.value)
        d.raise_to("warning")
        if INPUT not in d.inputs:
            d.inputs.append(INPUT)
        words = busy_words("%s thread %s" % (INPUT.label, s.thread), j.value, st.th.thread_busy_pct,
                           measure(s.kind, s.source, j.window))
        text = "%s: the %s reads files no faster, so the input is the ceiling." % (words, INPUT.label)
        if not d.headline or d.tentative:
            d.set_headline(text)
            d.component = INPUT.thread
        else:
            d.thread_details.append(text)
        d.add(item)
