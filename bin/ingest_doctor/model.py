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


HEC_THREAD = "httpinputserverdatathread"
TCPOUT_THREAD = "tcpouteloop"

STAGES: Tuple[Stage, ...] = (
    Stage("hec_input", 0, None, None, None, (HEC_THREAD,), (), "HEC input"),
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

# Input queues in front of parsingQueue; they fill when parsing cannot keep up.
INPUT_QUEUES: Dict[str, str] = {
    "splunktcpin": "splunktcpin",
    "tcpin_queue": "tcpin_queue",
    "tcpin_cooked_pqueue": "tcpin_cooked_pqueue",
}

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
PIPELINE_FIELDS = ("stage", "stage_order", "queue", "metrics_queue", "pipeline", "kind", "member", "label")


def pipeline_rows():
    for s in STAGES:
        base = (s.name, str(s.order), s.queue or "", s.metrics_queue or "", s.pipeline or "")
        for t in s.threads:
            yield base + ("thread", t, s.label)
        for p in s.processors:
            yield base + ("processor", p, s.label)
        if not s.threads and not s.processors:
            yield base + ("stage", "", s.label)
