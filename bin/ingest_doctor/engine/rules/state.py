"""The state the rules share: the evidence, the thresholds and the findings drafted so far.

Every rule is a function `run(st: State) -> None` (see `rules/__init__.py` for
their order). A rule reads what earlier rules left in the State's named fields
(`queues`, `chain`, `drafts`, ...) and adds to them; nothing is passed through
hidden attributes or through the wording of a sentence.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from ingest_doctor import model
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.evidence import Evidence, window_minutes
from ingest_doctor.findings import EvidenceItem, Headroom, Recommendation, severity_rank
from ingest_doctor.engine.finite import sanitise
from ingest_doctor.engine.series import OK, SUSTAINED, Judgement, judge

Key = Tuple[str, Optional[int]]         # (bottleneck, pipeline set)


REST_HOSTWIDE = "services/server/status/resource-usage/hostwide"
SRC_HOSTWIDE = "rest " + REST_HOSTWIDE
SRC_PROCESSES = "rest services/server/status/resource-usage/splunk-processes"


def r1(v: float) -> float:
    return round(v, 1)


def pset_text(pset: Optional[int]) -> str:
    return "" if pset is None else "Pipeline set %d: " % pset


# What a detail sentence is about, so a later rule can move it without reading it.
HEC_SYMPTOM = "hec_symptom"


@dataclass
class Detail:
    text: str
    about: str = ""


class Draft:
    """A finding as the rules write it, one per bottleneck and pipeline set (rules/__init__.py makes it a Finding)."""

    def __init__(self, bottleneck: str, pipeline_set: Optional[int], severity: str = "warning",
                 component: Optional[str] = None, headline: str = ""):
        self.bottleneck = bottleneck
        self.pipeline_set = pipeline_set
        self.severity = severity
        self.component = component
        self.headline = headline
        # The headline only reports something that passed (a spike, one unhealthy answer): a sustained
        # reading of the same stage replaces it.
        self.tentative = False
        self.details: List[Detail] = []
        self.evidence: List[EvidenceItem] = []
        self.recommendations: List[Recommendation] = []
        self.pegged = False         # a thread or stage sustained over its threshold (hidden-saturation candidate)
        self.busy_pct: Optional[float] = None   # the busiest such thread's sustained value (% of one core)
        self.thread_details: List[str] = []
        self.hidden = ""
        # Inputs other than HEC that this input finding is about (model.INPUT_THREADS): their own advice.
        self.inputs: List[model.InputThread] = []
        # The HEC input itself is saturated (its thread, its answers, its latency), not only another input.
        self.hec = False

    def set_headline(self, text: str, tentative: bool = False) -> None:
        self.headline = text
        self.tentative = tentative

    def detail(self, text: str, about: str = "") -> None:
        self.details.append(Detail(text, about))

    def summary(self) -> str:
        parts = [pset_text(self.pipeline_set) + self.headline] + self.thread_details
        if self.hidden:
            parts.append(self.hidden)
        return " ".join(parts + [d.text for d in self.details]).strip()

    def raise_to(self, severity: str) -> None:
        if severity_rank(severity) > severity_rank(self.severity):
            self.severity = severity

    def add(self, item: EvidenceItem) -> None:
        """`item` unless an item of the same signal, source, window and value (as text) is there already."""
        signal, source, window, value = item.signal, item.source, item.window, None
        for e in self.evidence:
            if e.signal == signal and e.source == source and e.window == window:
                if value is None:
                    value = str(item.value)
                if str(e.value) == value:
                    return
        self.evidence.append(item)


@dataclass
class QueueState:
    queue: str
    pipeline_set: Optional[int]
    level: str
    value: float
    window: str
    source: str
    blocked: int = 0  # samples reporting blocked=true
    blocked_source: str = ""
    over: int = 0  # samples at or over queue_fill_pct (a spike: how often it filled)
    samples: int = 0

    def evidence_source(self, source: Optional[str] = None) -> str:
        """The evidence source names the queue as that source does (REST title, metrics.log name)."""
        return queue_source(source or self.source, self.queue, self.pipeline_set)


# One string per (source, queue, set), shared by every evidence item that names it: 70,000 findings at 10,000
# hosts hold about 350,000 such items, and a string of their own each took 20 MB of the action's peak RSS
# (309 MB against its 300 MB budget; 288 MB shared).
@functools.lru_cache(maxsize=1024)
def queue_source(src: str, queue: str, pset: Optional[int]) -> str:
    if src.startswith("rest"):
        return "%s %s" % (src, queue if pset is None else "%s.%d" % (queue, pset))
    return "%s name=%s%s" % (src, queue.lower(), "" if pset is None else " ingest_pipe=%d" % pset)


THREAD = "thread"           # a thread's busy share (dutycycle, pipelinesets, /proc)
STAGE_CPU = "stage_cpu"     # the sum of a pipeline's processors (metrics.log group=pipeline)


@dataclass
class ThreadState:
    thread: str
    stage: Optional[model.Stage]
    pipeline_set: Optional[int]
    judgement: Judgement
    source: str
    label: str  # how the summary names it
    kind: str = THREAD
    # The series it was judged from, (time or None, % of one core): headroom averages it over the
    # sustained window itself (a spike's judgement value is its peak).
    points: List[Tuple[Optional[float], float]] = field(default_factory=list)


def measure(kind: str, source: str, window: str) -> str:
    """What a busy figure is and over which window, so two pages' different numbers for one thread
    each say what they measure: 'dutycycle share, 10m average'."""
    if kind == STAGE_CPU:
        what = "sum of its processors' CPU (metrics.log group=pipeline)"
    elif "proc" in source and "metrics.log" not in source:
        what = "/proc CPU"
    elif "pipelinesets" in source:
        what = "pipelinesets duty cycle"
    elif "pipelineset" in source:
        what = "metrics.log group=pipelineset duty cycle"
    else:
        what = "dutycycle share"
    m = window_minutes(window.split(" ")[0]) if window else None
    if m is not None:
        when = "%d-minute average" % m
    elif window in ("sample", ""):
        when = "one reading"
    elif re.match(r"^\d+ of the last \d+ samples$", window):
        when = "in " + window
    else:
        when = window
    return "%s, %s" % (what, when)


def busy_words(label: str, value: float, threshold: float, how: str) -> str:
    """'The X is pegged at 98% of one core (how)' at or near a full core; 'The X is over its threshold
    (85% of one core, threshold 80%; how)' when far from it: the words follow the number."""
    if value >= thresholds_mod.PEGGED_PCT:
        return "The %s is pegged at %.0f%% of one core (%s)" % (label, value, how)
    return "The %s is over its threshold (%.0f%% of one core, threshold %.0f%%; %s)" % (label, value, threshold, how)


class State:
    def __init__(self, ev: Evidence, th: thresholds_mod.Thresholds):
        self.ev = ev
        self.th = th
        self.drafts: Dict[Key, Draft] = {}
        self.not_judged: List[str] = []
        # One pipeline set reported as ingest_pipe_0 by REST while nothing else carries a number.
        self.single_pset = False
        # The numbered pipeline sets the queue, thread and pipelinesets samples carry, sorted (imbalance).
        self.psets: List[int] = []
        # queue_chain: every judged queue, and per pipeline set the stage draining its last full queue.
        self.queues: List[QueueState] = []
        self.chain: Dict[Optional[int], str] = {}
        # thread_saturation: every judged thread and stage CPU series.
        self.threads: List[ThreadState] = []
        # headroom: per stage and pipeline set, where it would saturate.
        self.capacity: List[Headroom] = []

    def psets_of(self, name: str) -> Set[Optional[int]]:
        """The pipeline sets the samples of the evidence's list `name` carry (None among them when one
        carries none)."""
        value = getattr(self.ev, name)
        psets = getattr(value, "psets", None)       # a Lean (alert/samples.py): without making its samples
        return psets() if psets is not None else {x.pipeline_set for x in value}

    @property
    def has_queue_data(self) -> bool:
        return bool(self.ev.queues)

    def draft(self, bottleneck: str, pset: Optional[int], severity: Optional[str] = None,
              component: Optional[str] = None) -> Draft:
        """The draft of (bottleneck, pset), new or drafted already; `severity` and `component` set on it
        when given."""
        key = (bottleneck, pset)
        if key not in self.drafts:
            self.drafts[key] = Draft(bottleneck, pset)
        d = self.drafts[key]
        if severity is not None:
            d.severity = severity
        if component is not None:
            d.component = component
        return d

    def note(self, text: str) -> None:
        if text not in self.not_judged:
            self.not_judged.append(text)

    def cores(self) -> Optional[int]:
        if self.ev.host_cpu.cores:
            return self.ev.host_cpu.cores
        for c in reversed(self.ev.cpu):
            if c.cores:
                return c.cores
        return None

    def physical_cores(self) -> Optional[int]:
        """Physical cores (server/info numberOfCores, hostwide cpu_count); None when not read."""
        return self.ev.host_cpu.physical_cores or None

    def host_cpu(self) -> Tuple[Optional[float], Optional[Judgement]]:
        """The host's CPU: (the latest reading, the judgement of its series)."""
        pts = [(c.time, c.host_cpu_pct) for c in self.ev.cpu if c.host_cpu_pct is not None]
        if not pts:
            return self.ev.host_cpu.host_cpu_pct, None
        j = judge(pts, self.th.host_cpu_pct, self.th)
        if all(t is None for t, _ in pts):
            # A snapshot read once: its reading is the current state.
            latest = pts[-1][1]
            j = Judgement(SUSTAINED if latest >= self.th.host_cpu_pct else OK, latest, latest, "sample", 1)
        return pts[-1][1], j

    def cpu_source(self) -> str:
        if self.ev.cpu and self.ev.cpu[-1].time is not None and "proc" in self.ev.sources:
            return self.ev.cpu[-1].source
        return SRC_HOSTWIDE if REST_HOSTWIDE in self.ev.sources else \
            (self.ev.cpu[-1].source if self.ev.cpu else "")

    def cpu_levels(self) -> Optional[Tuple[float, float]]:
        """The host's CPU %: (the latest reading, the higher of it and a sustained window value); None
        when not read."""
        latest, j = self.host_cpu()
        if latest is None:
            return None
        return latest, max(latest, j.value if j is not None and j.level == SUSTAINED else latest)

    def host_busy(self) -> Optional[bool]:
        """The host's CPU is at least `cpu_headroom_pct` (no longer idle); None when not read."""
        levels = self.cpu_levels()
        return None if levels is None else levels[1] >= self.th.cpu_headroom_pct

    def headroom(self) -> Optional[bool]:
        """Below `host_cpu_pct` by both readings and idle now (under `cpu_headroom_pct`); None when not read."""
        levels = self.cpu_levels()
        return None if levels is None else (levels[1] < self.th.host_cpu_pct and levels[0] < self.th.cpu_headroom_pct)


def start(ev: Evidence, th: thresholds_mod.Thresholds, finite: bool = False) -> State:
    ev, dropped = sanitise(ev, finite)
    st = State(ev, th)
    if dropped:
        st.not_judged.append("%d samples with a non-numeric value (NaN or infinite) were ignored" % dropped)
    queues, threads, sets = st.psets_of("queues"), st.psets_of("threads"), st.psets_of("pipelinesets")
    numbered = queues | threads | st.psets_of("processors")
    numbered.discard(None)
    st.psets = sorted(p for p in queues | sets | threads if p is not None)
    st.single_pset = ev.config.parallel_ingestion_pipelines == 1 or (not numbered and sets <= {0})
    return st
