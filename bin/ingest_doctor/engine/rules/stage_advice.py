"""Stage advice: what to change for each warning or critical stage finding that has no advice yet."""
from __future__ import annotations

from typing import Optional

from ingest_doctor.engine import advice
from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.rules import imbalance
from ingest_doctor.engine.rules.state import THREAD, Draft, State, r1
from ingest_doctor.engine.series import OK


TYPING_SOURCE = "logs/metrics.log group=pipeline name=typing"


def regex_share(st: State, pset: Optional[int]) -> Optional[float]:
    total = regex = 0.0
    for p in st.ev.processors:
        if p.pipeline != "typing" or (pset is not None and p.pipeline_set not in (None, pset)):
            continue
        total += p.cpu_seconds
        if p.processor == "regexreplacement":
            regex += p.cpu_seconds
    if total <= 0:
        return None
    return regex / total * 100.0


def more_pipelines(st: State, headroom: Optional[bool], why: str, pset: Optional[int] = None, d: Optional[Draft] = None):
    """Another pipeline set, but first what moves a sticky stream when this set carries most of the load."""
    return stream_first(st, pset, d) + advice.more_pipelines(st.ev, headroom, why, st.cores(), st.host_cpu()[0])


def stream_first(st: State, pset: Optional[int], d: Optional[Draft]):
    hot = imbalance.hot_set(st)
    recs = []
    if hot is not None and pset is not None and hot[0] == pset:
        if d is not None:
            d.detail("Set %d carries %.0f%% of the throughput of %d sets (a fair share is %.0f%%): one stream sticks "
                     "to it, so spreading that stream comes before another pipeline set."
                     % (hot[0], hot[1] * 100.0, hot[2], 100.0 / hot[2]))
            d.add(EvidenceItem("pipeline_set_load_share_pct", r1(hot[1] * 100.0), "%", "window",
                               "%s ingest_pipe=%d" % (imbalance.THRUPUT_SOURCE, hot[0])))
        recs.extend(advice.imbalance(st.ev))
    return recs


def _hec_busy(st: State) -> Optional[float]:
    vals = [t.judgement.value for t in st.threads if t.stage is not None and t.stage.name == model.HEC_INPUT]
    return max(vals) if vals else None


def _hec_input(st: State, d: Draft, listener: bool) -> None:
    recs, scale_out = advice.hec_input(st.ev, st.cores(), listener, st.physical_cores(), d.pegged, _hec_busy(st))
    d.recommendations.extend(recs)
    if scale_out:
        d.detail("dedicatedIoThreads is already %d: one more instance behind a load balancer adds capacity, "
                 "more threads on this one do not." % st.ev.config.dedicated_io_threads)


def _typing(st: State, d: Draft, pset: Optional[int], more: bool, headroom: Optional[bool]) -> None:
    share = regex_share(st, pset)
    recs, named = advice.typing_regex(st.ev, pset)
    if share is not None:
        d.add(EvidenceItem("regex_cpu_share_pct", r1(share), "%", "window", TYPING_SOURCE))
        if share >= st.th.regex_cpu_share_pct:
            d.detail("Index-time regex (regexreplacement) takes %.0f%% of the typing CPU%s."
                     % (share, "; busiest sourcetypes: " + ", ".join(named) if named else ""))
    for stype, cpu in advice.regex_sourcetypes(st.ev, pset)[:advice.MAX_SOURCETYPES]:
        d.add(EvidenceItem("regex_cpu", r1(cpu), "ms", "window",
                           "logs/metrics.log group=per_sourcetype_regex_cpu series=%s" % stype))
    d.recommendations.extend(recs)
    if more:
        d.recommendations.extend(more_pipelines(st, headroom, "typing", pset, d))


def _line_handling(st: State, d: Draft, pset: Optional[int], more: bool, headroom: Optional[bool]) -> None:
    recs, details = advice.parsing(st.ev, pset, d.bottleneck)
    top = advice.costliest(st.ev, pset, d.bottleneck)
    if top is not None:
        d.add(EvidenceItem("processor_cpu_share_pct", r1(top[1]), "%", "window",
                           "logs/metrics.log group=pipeline name=%s processor=%s" % (d.bottleneck, top[0])))
    for text in details:
        d.detail(text)
    d.recommendations.extend(recs)
    if more:
        d.recommendations.extend(more_pipelines(st, headroom, d.bottleneck, pset, d))


def _waits(st: State, stage: str, pset: Optional[int]) -> Optional[float]:
    """The busiest share of one core of the stage's threads when every one is measured and none reached its
    threshold even once (a spike counts as busy): the full queue before it is held by something other than
    CPU (storage, a hung process, a replication target), where another pipeline set adds nothing. None
    otherwise."""
    threads = [t for t in st.threads if t.kind == THREAD and t.stage is not None and t.stage.name == stage
               and t.pipeline_set == pset]
    if not threads or any(t.judgement.level != OK for t in threads):
        return None
    return max(t.judgement.value for t in threads)


def _indexing(st: State, d: Draft, pset: Optional[int], more: bool, headroom: Optional[bool]) -> None:
    latest, _ = st.host_cpu()
    waiting = _waits(st, "indexing", pset)
    if waiting is not None:
        more = False
        d.detail("The indexing thread is %.0f%% busy: indexQueue is held by something other than CPU (storage, "
                 "or a process that takes nothing), and more pipeline sets will not help." % waiting)
        d.recommendations.extend(advice.indexing(st.ev, None, False, st.cores(), latest))
        return
    if more:
        d.recommendations.extend(stream_first(st, pset, d))
    d.recommendations.extend(advice.indexing(st.ev, headroom, more, st.cores(), latest))
    if latest is not None:
        d.add(EvidenceItem("host_cpu_pct", r1(latest), "%", "sample", st.cpu_source()))
        d.detail("Host CPU is %.0f%%: %s." % (
            latest, "there is headroom for another pipeline set" if headroom
            else "no headroom, more pipeline sets will not help" if headroom is False
            else "some headroom"))


def run(st: State) -> None:
    headroom = st.headroom()
    listener = any(s.kind == "hec_listener_overwhelmed" for s in st.ev.log_signals)
    imbalanced = (model.PIPELINE_SET_IMBALANCE, None) in st.drafts
    for (bottleneck, pset), d in st.drafts.items():
        if d.severity == "info" or d.recommendations:
            continue
        # With idle sets beside a saturated one, another set adds nothing: spread the load instead.
        more = not (imbalanced and pset is not None)
        if bottleneck == model.HEC_INPUT:
            if d.hec or not d.inputs:
                _hec_input(st, d, listener)
            for other in d.inputs:
                d.recommendations.extend(getattr(advice, other.advice)(st.ev))
        elif bottleneck == "typing":
            _typing(st, d, pset, more, headroom)
        elif bottleneck in ("merging", "parsing"):
            _line_handling(st, d, pset, more, headroom)
        elif bottleneck == "indexing":
            _indexing(st, d, pset, more, headroom)
        elif bottleneck == "output":
            d.recommendations.extend(advice.output(st.ev))
