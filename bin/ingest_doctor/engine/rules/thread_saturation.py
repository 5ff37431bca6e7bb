"""Thread saturation: a thread or a stage's CPU sustained at or over `thread_busy_pct` of one core
makes its stage a bottleneck (dutycycle, pipelinesets, /proc, metrics.log group=pipeline).

The HEC thread busy while queues are full downstream waits on them: its reading
goes to the chain's bottleneck. Fills `st.threads`.
"""
from __future__ import annotations

from typing import List

from ingest_doctor import model, threadnames
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine import grouping
from ingest_doctor.engine.series import OK, SPIKE, SUSTAINED, Judgement, judge
from ingest_doctor.engine.rules import stage_cpu
from ingest_doctor.engine.rules.state import HEC_SYMPTOM, STAGE_CPU, State, ThreadState, busy_words, measure, r1


def thread_states(st: State) -> List[ThreadState]:
    grouped = grouping.threads(st.ev, st.th.sustained_window_min, st.single_pset)
    out = []
    for key in grouped.keys():
        thread, pset = key
        points = grouped.series.get(key, [])
        j = judge(points, st.th.thread_busy_pct, st.th)
        avg = grouped.averages.get(key)
        if avg and j.level != SUSTAINED and avg[0] >= st.th.thread_busy_pct:
            j = Judgement(SUSTAINED, avg[0], max(avg[0], j.peak), "%s average" % avg[1], 1)
        elif avg and j.level == OK and not points:
            j = Judgement(OK, avg[0], avg[0], "%s average" % avg[1], 1)
        label = ("HEC server data thread (%s)" % thread if thread == model.HEC_THREAD else "thread %s" % thread)
        out.append(ThreadState(thread, model.stage_for_thread(thread), pset, j, grouped.sources[key], label,
                               points=list(points)))
    return out


def _ambiguous(st: State, s: ThreadState) -> str:
    """A /proc name two known threads share: /proc cannot say which one is busy, dutycycle can."""
    names = threadnames.candidates(s.thread)
    measured = [t for t in st.threads if t.thread in names and t is not s]
    return ("thread %s (as /proc names it) is busy %.0f%% of one core (%s), but Linux truncates %s to the same "
            "15 characters: %s" % (s.thread, s.judgement.value, s.judgement.window, " and ".join(names),
                                   "metrics.log dutycycle judges them instead" if measured else
                                   "no metrics.log dutycycle for them to decide, not judged"))


def run(st: State) -> None:
    st.threads = thread_states(st)
    st.threads.extend(stage_cpu.stage_states(st))
    queues_full = bool(st.chain)
    for s in sorted(st.threads, key=lambda s: -s.judgement.value):
        j = s.judgement
        if j.level == OK:
            continue
        if s.stage is None:
            if s.thread in model.INPUT_THREADS:
                continue                      # file_monitor judges it
            if j.level == SUSTAINED and threadnames.candidates(s.thread):
                st.note(_ambiguous(st, s))
            elif j.level == SUSTAINED:
                st.not_judged.append(
                    "thread %s is busy %.0f%% of one core (%s) but is not part of the ingestion pipeline: "
                    "not judged" % (s.thread, j.value, j.window))
            continue
        stage = s.stage
        pset = None if stage.name == model.HEC_INPUT else s.pipeline_set
        cpu = s.kind == STAGE_CPU
        item = EvidenceItem("stage_cpu_pct" if cpu else "thread_busy_pct", r1(j.value), "%", j.window,
                            "%s %s=%s" % (s.source, "name" if cpu else "thread", s.thread))
        if stage.name == model.HEC_INPUT and queues_full and j.level == SUSTAINED:
            # HEC waits on full queues downstream: a symptom, attributed to the bottleneck.
            for bpset, bstage in st.chain.items():
                d = st.draft(bstage, bpset)
                d.add(item)
                d.detail("The HEC thread is busy too (%.0f%%), waiting on the full queues." % j.value,
                         about=HEC_SYMPTOM)
            continue
        if j.level == SPIKE:
            d = st.draft(stage.name, pset)
            d.hec = d.hec or stage.name == model.HEC_INPUT
            if not d.headline:
                d.severity = "info"
                d.component = s.thread
                d.set_headline("The %s reached %.0f%% of one core in one sample but did not stay there: a "
                               "transient spike, not a bottleneck." % (s.label, j.peak), tentative=True)
                d.add(item)
            continue
        if cpu and stage_cpu.idle_stage(st, stage, s.pipeline_set):
            st.note("%s reports %.0f%% of one core (%s) while %s is empty and the stage's thread idle: processor "
                    "CPU alone does not make a bottleneck, not judged" % (s.label, j.value, j.window, stage.queue))
            continue
        d = st.draft(stage.name, pset)
        d.hec = d.hec or stage.name == model.HEC_INPUT
        d.pegged = True
        d.busy_pct = max(d.busy_pct or 0.0, j.value)
        d.raise_to("warning")
        how = measure(s.kind, s.source, j.window)
        words = busy_words(s.label, j.value, st.th.thread_busy_pct, how)
        if not d.headline or d.tentative:
            d.set_headline("%s: the %s stage is %s." % (
                words, "HEC input" if stage.name == model.HEC_INPUT else stage.name,
                "saturated" if j.value >= thresholds_mod.PEGGED_PCT else "the bottleneck"))
            d.component = s.thread
        else:
            d.thread_details.append(words + ".")
        if stage.name != model.HEC_INPUT and d.component and "Queue" in d.component:
            d.component = s.thread
        d.add(item)
