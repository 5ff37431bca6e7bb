"""Thread saturation: a thread or a stage's CPU sustained at or over `thread_busy_pct` of one core
makes its stage a bottleneck (dutycycle, pipelinesets, /proc, metrics.log group=pipeline).

The HEC thread busy while queues are full downstream waits on them: its reading
goes to the chain's bottleneck. Fills `st.threads`.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ingest_doctor import model, threadnames
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.evidence import Evidence, ThreadSample
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import OK, SPIKE, SUSTAINED, Judgement, judge
from ingest_doctor.engine.rules import stage_cpu
from ingest_doctor.engine.rules.state import (HEC_SYMPTOM, STAGE_CPU, SeriesRun, State, ThreadState, busy_words,
                                              measure, r1, window_minutes)

TKey = Tuple[str, Optional[int]]
Points = Dict[TKey, List[Tuple[Optional[float], float]]]
# (the threads' series, their averages over the sustained window, the pipeline sets' busiest-thread
# series, each series' source): a thread's series, then its pipeline sets' points.
Groups = Tuple[Points, Dict[TKey, Tuple[float, str]], Points, Dict[TKey, str], Dict[TKey, str]]


def group(ev: Evidence, window_min: float, single_pset: bool) -> Groups:
    """The thread series by (thread, pipeline set), in order: readings over at least `window_min` minutes
    (an alert row) as averages (the busiest, the first at equal values), then the pipeline sets' busiest
    threads (`single_pset`: under no pipeline set)."""
    series: Points = defaultdict(list)
    averages: Dict[TKey, Tuple[float, str]] = {}
    sources: Dict[TKey, str] = {}
    runs = getattr(ev.threads, "runs", None)
    if runs is not None:
        _group_runs(runs(), window_min, series, averages, sources)
    else:
        _group_samples(ev.threads, window_min, series, averages, sources)
    busiest: Points = defaultdict(list)
    psources: Dict[TKey, str] = {}
    for p in ev.pipelinesets:
        if not p.busiest_thread:
            continue
        key = (p.busiest_thread.lower(), None if single_pset else p.pipeline_set)
        busiest[key].append((p.time, p.dutycycle_pct))
        psources.setdefault(key, p.source)
    return series, averages, busiest, sources, psources


def _group_samples(threads: Sequence[ThreadSample], window_min: float, series: Points,
                   averages: Dict[TKey, Tuple[float, str]], sources: Dict[TKey, str]) -> None:
    """The thread samples' part of `group`."""
    # Samples come in runs of one thread: the same name, set and window objects as the sample before are
    # the same key, already sourced, and a series sample again.
    run: Optional[List[Tuple[Optional[float], float]]] = None
    run_thread = run_pset = run_window = None
    for t in threads:
        if run is not None and t.thread is run_thread and t.pipeline_set is run_pset and t.window is run_window:
            run.append((t.time, t.busy_pct))
            continue
        key = (t.thread.lower(), t.pipeline_set)
        sources.setdefault(key, t.source)
        minutes = window_minutes(t.window)
        if minutes is not None and minutes >= window_min:
            # An average over the sustained window (e.g. an alert row) is sustained evidence on its own.
            if key not in averages or t.busy_pct > averages[key][0]:
                averages[key] = (t.busy_pct, t.window)
            run = None
            continue
        run = series[key]
        run_thread, run_pset, run_window = t.thread, t.pipeline_set, t.window
        run.append((t.time, t.busy_pct))


def _group_runs(runs: Iterable[SeriesRun], window_min: float, series: Points,
                averages: Dict[TKey, Tuple[float, str]], sources: Dict[TKey, str]) -> None:
    """`_group_samples` of samples handed out as runs (state.py: the action's, never made into objects).
    tests/engine pins both equal."""
    for thread, pset, window, src, times, values, _ in runs:
        if not values:
            continue
        key = (thread.lower(), pset)
        sources.setdefault(key, src)
        minutes = window_minutes(window)
        if minutes is not None and minutes >= window_min:
            for v in values:
                if key not in averages or v > averages[key][0]:
                    averages[key] = (v, window)
            continue
        series[key].extend(zip(times, values))


def combine(parts: Sequence[Groups]) -> Groups:
    """`group` of the parts' evidence one after the other, from each part's `group`."""
    series: Points = defaultdict(list)
    averages: Dict[TKey, Tuple[float, str]] = {}
    busiest: Points = defaultdict(list)
    sources: Dict[TKey, str] = {}
    psources: Dict[TKey, str] = {}
    for part_series, part_averages, part_busiest, _, _ in parts:
        for key, pts in part_series.items():
            series[key].extend(pts)
        for key, avg in part_averages.items():
            if key not in averages or avg[0] > averages[key][0]:
                averages[key] = avg
        for key, pts in part_busiest.items():
            busiest[key].extend(pts)
    return series, averages, busiest, _first([p[3] for p in parts]), _first([p[4] for p in parts])


def _first(dicts: Sequence[Dict[TKey, str]]) -> Dict[TKey, str]:
    """Each key's value in the first of `dicts` that has it, keys in order of first appearance (as
    `setdefault` over them in order makes it): an update keeps a key where it first came, so updating
    in order places the keys and updating in reverse leaves the first values."""
    out: Dict[TKey, str] = {}
    for d in dicts:
        out.update(d)
    for d in reversed(dicts):
        out.update(d)
    return out


def older(part: Groups) -> Groups:
    """`group` of a poll once a newer poll came: the same (a newer poll supersedes queue averages only,
    evidence.py, and `group` reads threads and pipeline sets)."""
    return part


def thread_states(st: State) -> List[ThreadState]:
    tseries, averages, busiest, sources, psources = st.grouped("threads", group, combine,
                                                               st.th.sustained_window_min, st.single_pset,
                                                               older=older)
    series: Points = defaultdict(list, tseries)
    for key, pts in busiest.items():
        series[key].extend(pts)
    for key, src in psources.items():
        sources.setdefault(key, src)
    out = []
    for key in {**dict.fromkeys(series), **dict.fromkeys(averages)}:     # in sample order: see queue_states
        thread, pset = key
        j = judge(series.get(key, []), st.th.thread_busy_pct, st.th)
        avg = averages.get(key)
        if avg and j.level != SUSTAINED and avg[0] >= st.th.thread_busy_pct:
            j = Judgement(SUSTAINED, avg[0], max(avg[0], j.peak), "%s average" % avg[1], 1)
        elif avg and j.level == OK and not series.get(key):
            j = Judgement(OK, avg[0], avg[0], "%s average" % avg[1], 1)
        label = ("HEC server data thread (%s)" % thread if thread == model.HEC_THREAD else "thread %s" % thread)
        out.append(ThreadState(thread, model.stage_for_thread(thread), pset, j, sources[key], label,
                               points=list(series.get(key, []))))
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
