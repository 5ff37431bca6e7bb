"""The ingestion pipeline of one splunkd, as data: the single source of truth.

Each pipeline set runs the same chain:

    input (HEC, splunktcp) -> parsingQueue -> parsing -> aggQueue -> merging
    -> typingQueue -> typing -> indexQueue -> indexing -> (tcpout_<group> -> output)

A stage drains the queue in front of it. When several queues are full, the
stage draining the *last* full queue is the bottleneck: everything upstream
backs up behind it. Python reads this module; SPL reaches the same facts
through `lookups/ingest_doctor_pipeline.csv`, which `tools/gen_lookups.py`
writes from `PIPELINE_ROWS` (a test proves the two are equal).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class Stage:
    name: str                  # the finding's `bottleneck` value
    order: int                 # position in the chain, inputs first
    queue: Optional[str]       # REST title of the queue this stage drains (None: inputs)
    metrics_queue: Optional[str]  # the same queue as metrics.log names it (lowercase)
    pipeline: Optional[str]    # metrics.log group=pipeline name=...
    threads: Tuple[str, ...]   # dutycycle thread names (lowercase) that do this stage's work
    processors: Tuple[str, ...]  # metrics.log group=pipeline processor=... values
    label: str
    # Threads doing this stage's work in one pipeline set: a pipeline's processors cannot use more CPU
    # than this many cores, so metrics.log cpu_seconds above it in an interval are not CPU time in it.
    threads_per_set: int = 1


HEC_THREAD = "httpinputserverdatathread"
TCPOUT_THREAD = "tcpouteloop"

# Bottleneck names that are not a pipeline stage (the stages' names are in STAGES).
HEC_INPUT = "hec_input"
INDEXER_THROTTLED = "indexer_throttled"
HOST_CPU = "host_cpu"
PIPELINE_SET_IMBALANCE = "pipeline_set_imbalance"

STAGES: Tuple[Stage, ...] = (
    Stage(HEC_INPUT, 0, None, None, None, (HEC_THREAD,), (), "HEC input"),
    Stage("parsing", 1, "parsingQueue", "parsingqueue", "parsing", ("parsing",),
          ("utf8", "utf", "linebreaker", "header", "readerin", "sendout"), "Parsing"),
    Stage("merging", 2, "aggQueue", "aggqueue", "merging", ("merging", "aggregator"),
          ("aggregator", "readerin", "sendout"), "Merging (line merging, timestamps)"),
    Stage("typing", 3, "typingQueue", "typingqueue", "typing", ("typing",),
          ("regexreplacement", "annotator", "previewout", "readerin", "sendout"),
          "Typing (index-time regex)"),
    Stage("indexing", 4, "indexQueue", "indexqueue", "indexerpipe", ("indexerpipe", "indexing"),
          ("indexer", "indexandforward", "indexin", "index_thruput", "signing", "syslog",
           "tcp", "http"), "Indexing"),
    Stage("output", 5, "tcpout", "tcpout", None, (TCPOUT_THREAD,), (), "Output (tcpout)"),
)

STAGE_BY_NAME: Dict[str, Stage] = {s.name: s for s in STAGES}

# Every `bottleneck` value a finding may carry (the contract's enum), stages first.
BOTTLENECKS: Tuple[str, ...] = tuple(s.name for s in STAGES) + (INDEXER_THROTTLED, HOST_CPU, PIPELINE_SET_IMBALANCE)
# Findings sort by stage order; the other bottlenecks after the stages.
BOTTLENECK_ORDER: Dict[str, int] = {s.name: s.order for s in STAGES}

# Input queues in front of parsingQueue; they fill when parsing cannot keep up.
INPUT_QUEUES: Dict[str, str] = {
    "splunktcpin": "splunktcpin",
    "tcpin_queue": "tcpin_queue",
    "tcpin_cooked_pqueue": "tcpin_cooked_pqueue",
}

# Position of each queue in the chain: the input queues sit in front of parsingQueue.
QUEUE_ORDER: Dict[str, float] = {q: 0.5 for q in INPUT_QUEUES}
QUEUE_ORDER.update({s.queue: float(s.order) for s in STAGES if s.queue})

# A pipeline's cpu_seconds in one metrics interval are plausible up to threads_per_set x the interval,
# with this much slack for the interval's own jitter (30 s nominal, measured from the log).
CPU_PLAUSIBLE_SLACK_PCT = 10.0

_CANONICAL = {s.metrics_queue: s.queue for s in STAGES if s.queue}
_CANONICAL.update({q.lower(): q for q in INPUT_QUEUES})

_TITLE = re.compile(r"^(?P<name>[A-Za-z_][\w-]*?)(?:\.(?P<pset>\d+))?$")


def canonical_queue(name: str) -> str:
    """`parsingqueue` (metrics.log) and `parsingQueue` (REST) are one queue.

    Every tcpout queue (`tcpout_<group>`) maps to `tcpout`; unknown names pass
    through unchanged so nothing is silently dropped.
    """
    low = name.lower()
    if low.startswith("tcpout"):
        return "tcpout"
    return _CANONICAL.get(low, name)


def split_queue_title(title: str) -> Tuple[str, Optional[int]]:
    """REST titles carry the pipeline set: `parsingQueue.2` -> ('parsingQueue', 2)."""
    m = _TITLE.match(title)
    if not m:
        return canonical_queue(title), None
    pset = m.group("pset")
    return canonical_queue(m.group("name")), (int(pset) if pset is not None else None)


def stage_draining(queue: str) -> Optional[Stage]:
    """The stage that takes events out of `queue` (canonical name)."""
    for s in STAGES:
        if s.queue == queue:
            return s
    if queue in INPUT_QUEUES:
        return STAGE_BY_NAME["parsing"]
    return None


def stage_for_thread(thread: str) -> Optional[Stage]:
    low = thread.lower()
    for s in STAGES:
        if low in s.threads:
            return s
    return None


def stage_for_pipeline(pipeline: str) -> Optional[Stage]:
    low = pipeline.lower()
    for s in STAGES:
        if s.pipeline == low:
            return s
    return None


# One row per (stage, queue, thread or processor): the lookup SPL joins against.
# `threads_per_set` and `max_cpu_pct` (the most a stage's processors can add up to in % of one core,
# slack included) let the CPU-by-processor searches apply the same plausibility rule as the engine.
PIPELINE_FIELDS = ("stage", "stage_order", "queue", "metrics_queue", "pipeline", "kind", "member", "label",
                   "threads_per_set", "max_cpu_pct")


def max_cpu_pct(stage: Stage) -> float:
    return (100.0 + CPU_PLAUSIBLE_SLACK_PCT) * stage.threads_per_set


def pipeline_rows():
    for s in STAGES:
        base = (s.name, str(s.order), s.queue or "", s.metrics_queue or "", s.pipeline or "")
        tail = (str(s.threads_per_set), "%g" % max_cpu_pct(s))
        for t in s.threads:
            yield base + ("thread", t, s.label) + tail
        for p in s.processors:
            yield base + ("processor", p, s.label) + tail
        if not s.threads and not s.processors:
            yield base + ("stage", "", s.label) + tail


# HTTP Event Collector answers. reply=N in splunkd.log and `code` in a JSON answer are one numbering.
HEC_HEALTHY = 17
HEC_BUSY_REPLY = 9               # "Server is busy": the receiver's queues are full
HEC_UNHEALTHY: Dict[int, str] = {18: "queues are full", 19: "ack service unavailable",
                                 20: "queues are full, ack service unavailable"}
HEC_UNHEALTHY_CODES = tuple(sorted(HEC_UNHEALTHY))
HEC_BUSY_STATUSES = (503,)       # HTTP statuses that say "server busy / queues at capacity"


def hec_busy_answer(status: Optional[int], code: Optional[int]) -> bool:
    """A health answer that says the receiver cannot take more data (a symptom of full queues)."""
    return code in HEC_UNHEALTHY or status in HEC_BUSY_STATUSES
