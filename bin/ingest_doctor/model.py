"""The ingestion pipeline of one splunkd, as data: the single source of truth.

Each pipeline set runs the same chain:

    input (HEC, splunktcp) -> parsingQueue -> parsing -> aggQueue -> merging
    -> typingQueue -> typing -> indexQueue -> indexing -> (tcpout_<group> -> output)

A stage drains the queue in front of it. When several queues are full, the
stage draining the *last* full queue is the bottleneck: everything upstream
backs up behind it. Python reads this module; SPL reaches the same facts
through `lookups/ingest_doctor_pipeline.csv` and
`lookups/ingest_doctor_hec_reply_codes.csv`, which `tools/gen_conf.py` writes
from `pipeline_rows()` and `hec_code_rows()` (tests/gates/test_gates_generated.py
fails when a lookup differs from what it would write).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class Stage:
    """One stage of the ingestion chain and the queue it drains."""
    name: str  # the finding's `bottleneck` value
    order: int  # position in the chain, inputs first
    queue: Optional[str]  # REST title of the queue this stage drains (None: inputs)
    metrics_queue: Optional[str]  # the same queue as metrics.log names it (lowercase)
    pipeline: Optional[str]  # metrics.log group=pipeline name=...
    threads: Tuple[str, ...]  # dutycycle thread names (lowercase) that do this stage's work
    processors: Tuple[str, ...]  # metrics.log group=pipeline processor=... values
    label: str
    # Threads doing this stage's work in one pipeline set: a pipeline's processors cannot use more CPU
    # than this many cores, so metrics.log cpu_seconds above it in an interval are not CPU time in it.
    threads_per_set: int = 1


HEC_THREAD = "httpinputserverdatathread"
TCPOUT_THREAD = "tcpouteloop"
INDEXER_POOL_THREAD = "indexertpoolworker"

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
    # IndexerTPoolWorker-N threads write index data on 9.x (threadnames folds the -N).
    Stage("indexing", 4, "indexQueue", "indexqueue", "indexerpipe", ("indexerpipe", "indexing", INDEXER_POOL_THREAD),
          ("indexer", "indexandforward", "indexin", "index_thruput", "signing", "syslog",
           "tcp", "http"), "Indexing"),
    Stage("output", 5, "tcpout", "tcpout", None, (TCPOUT_THREAD,), (), "Output (tcpout)"),
)

STAGE_BY_NAME: Dict[str, Stage] = {s.name: s for s in STAGES}


@dataclass(frozen=True)
class InputThread:
    """An input other than HEC whose single thread can be the ceiling in front of parsingQueue.

    The contract's only input bottleneck is `hec_input` (the stage in front of parsingQueue), so such a
    thread is reported under it, with its own component, words and advice.
    """
    thread: str  # metrics.log dutycycle name=misc key (lowercase)
    label: str  # how the summary names the input
    advice: str  # the advice.py function that answers it


FILE_MONITOR = InputThread("tail", "file monitor input (tailing)", "file_monitor")
INPUT_THREADS: Dict[str, InputThread] = {FILE_MONITOR.thread: FILE_MONITOR}

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

TITLE = re.compile(r"(?P<name>[A-Za-z_][\w-]*?)(?:\.(?P<pset>\d+))?")


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
    m = TITLE.fullmatch(title)
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


_STAGE_OF_THREAD: Dict[str, Optional[Stage]] = {}     # thread name -> its stage: asked for every sample


def stage_for_thread(thread: str) -> Optional[Stage]:
    try:
        return _STAGE_OF_THREAD[thread]
    except KeyError:
        pass
    low = thread.lower()
    stage = None
    for s in STAGES:
        if low in s.threads:
            stage = s
            break
    if len(_STAGE_OF_THREAD) >= 4096:       # bounded whatever the names
        _STAGE_OF_THREAD.clear()
    _STAGE_OF_THREAD[thread] = stage
    return stage


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


# The most pipeline sets ever advised. Splunk's .conf2017 pipeline-set guidance: "try not to set over 2",
# "distribute as much as you can", "multiple pipelines would need more CPUs"; past 2, more indexers or heavy
# forwarders (or a cheaper event) add capacity where another set on the same host mostly competes for it.
MAX_PIPELINE_SETS_ADVISED = 2


def cores_per_pipeline_set() -> int:
    """Cores one pipeline set can keep busy: one per thread of its pipelines. More sets than
    cores // this compete for the same cores instead of adding any."""
    return sum(s.threads_per_set for s in STAGES if s.pipeline)


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
    # The input queues in front of parsingQueue (a receiver's splunktcpin, tcpin_cooked_pqueue): parsing
    # drains them (stage_draining), so a search that maps a metrics.log queue to its stage through this
    # lookup judges a receiver whose only full queue is one of them, as the engine does. Same stage
    # order as parsingQueue: the lookup's order is the stage's, and a full input queue with a free
    # parsingQueue still points at parsing.
    parsing = STAGE_BY_NAME["parsing"]
    for q in INPUT_QUEUES.values():
        yield (parsing.name, str(parsing.order), q, q, parsing.pipeline or "", "queue", q, parsing.label,
               str(parsing.threads_per_set), "%g" % max_cpu_pct(parsing))


def chain_queue_terms() -> str:
    """The TERM()s of every metrics.log queue of the chain (stage queues, input queues, any tcpout_<group>,
    whose trailing wildcard only a real Splunk confirms), for the searches that read only those."""
    names = [s.metrics_queue for s in STAGES if s.metrics_queue and s.metrics_queue != "tcpout"]
    names += list(INPUT_QUEUES.values())
    return "(%s)" % " OR ".join(["TERM(name=%s)" % n for n in names] + ["TERM(name=tcpout*)"])


# HTTP Event Collector answers: reply=N in splunkd.log and `code` in a JSON answer are one numbering.
# Where each code comes from (see the README, "HEC reply codes"):
DOC = "doc"             # Splunk docs, "Troubleshoot HTTP Event Collector", table of possible error codes
CAPTURED = "doc, captured"  # documented, and seen in a real splunkd.log line (shared reference samples)
THIRD_PARTY = "third-party"  # later codes as a public HEC reimplementation lists them; no Splunk page or
                             # capture read here: treat as likely, not certain


@dataclass(frozen=True)
class HecCode:
    """One HEC reply code and what it means."""
    code: int
    http_status: int
    meaning: str
    action: str
    # The receiver cannot take more data now (server busy, queue or ACK channel at capacity): a symptom
    # of what is behind HEC, attributed downstream when queues are full.
    backpressure: bool = False
    origin: str = DOC


HEC_CODES: Tuple[HecCode, ...] = (
    HecCode(0, 200, "Accepted",
            "Nothing to do: the request was taken in."),
    HecCode(1, 403, "Token is disabled",
            "Re-enable the token under Settings > Data inputs > HTTP Event Collector or give the sender an active "
            "one."),
    HecCode(2, 401, "No token in the request",
            "The sender sends no Authorization header: configure its HEC token."),
    HecCode(3, 401, "Authorization header is malformed",
            'The header must read "Authorization: Splunk <token>": fix the sender\'s header format.'),
    HecCode(4, 403, "Token is unknown",
            "The token does not exist on this receiver (deleted or never deployed here): deploy it "
            "to every HEC instance or correct the sender.", origin=CAPTURED),
    HecCode(5, 400, "Request has no data",
            "The body was empty. Some senders (e.g. AWS Firehose) probe this way; otherwise fix the sender."),
    HecCode(6, 400, "Data format is invalid",
            "The body is not valid HEC JSON or raw data: check parsing_err in splunkd.log and the sender's "
            "serializer."),
    HecCode(7, 400, "Index not allowed for this token",
            "Add the index to the token's allowed indexes or make the sender use one of them."),
    HecCode(8, 500, "Internal error on the receiver",
            "Senders should retry. If it repeats, read splunkd.log around the error on the receiving instance."),
    HecCode(9, 503, "Server is busy",
            "The receiver's queues are full: HEC refuses data until they drain. "
            "Find the full queue and its stage (Ingest Doctor findings, Pipeline sets dashboard); senders must "
            "retry.", backpressure=True, origin=CAPTURED),
    HecCode(10, 400, "Data channel is missing",
            "The token uses indexer acknowledgement (useACK): the sender must send a channel id "
            "(X-Splunk-Request-Channel)."),
    HecCode(11, 400, "Data channel is invalid",
            "The channel id is not a valid GUID: fix the sender's channel id."),
    HecCode(12, 400, "Event field is missing",
            "Each JSON event needs an event field: fix the sender's payload."),
    HecCode(13, 400, "Event field is empty",
            "Each JSON event needs a non-empty event field: fix the sender's payload."),
    HecCode(14, 400, "Acknowledgement is disabled",
            "The sender asks for acknowledgements on a token without useACK: enable useACK on the token or stop "
            "asking."),
    HecCode(15, 400, "Indexed fields are malformed",
            "The fields object must hold flat key/value pairs: fix the sender's indexed fields."),
    HecCode(16, 400, "Query-string token not allowed",
            "The sender passes the token in the URL; allowQueryStringAuth is off for this token. Prefer the "
            "Authorization header (URLs get logged)."),
    HecCode(17, 200, "HEC is healthy",
            "Nothing to do."),
    HecCode(18, 503, "HEC unhealthy: queues are full",
            "The receiver's queues are full: find the stage that limits throughput (Ingest Doctor "
            "findings) before adding senders.", backpressure=True),
    HecCode(19, 503, "HEC unhealthy: acknowledgement service unavailable",
            "The acknowledgement service cannot keep up or is down: check useACK tokens and the "
            "number of pending acknowledgements.", backpressure=True),
    HecCode(20, 503, "HEC unhealthy: queues full and acknowledgement unavailable",
            "Both of the above: fix the full queues first.", backpressure=True),
    HecCode(21, 400, "Invalid token (health check)",
            "The health endpoint was called with a token the receiver does not know."),
    HecCode(22, 400, "Disabled token (health check)",
            "The health endpoint was called with a disabled token."),
    HecCode(23, 503, "Server is shutting down",
            "splunkd is stopping or restarting: senders should retry against another receiver.", origin=THIRD_PARTY),
    HecCode(24, 200, "HEC queue is approaching its capacity limit",
            "Data is still taken, but the queues behind HEC are filling: find the stage that "
            "limits throughput (Ingest Doctor findings) before HEC starts refusing data.", origin=THIRD_PARTY),
    HecCode(25, 200, "HEC acknowledgement is approaching its capacity limit",
            "Data is still taken, but pending acknowledgements are piling up: check the useACK "
            "senders poll and release their acknowledgements.", origin=THIRD_PARTY),
    HecCode(26, 429, "HEC queue is at capacity",
            "The receiver's queues are full: HEC refuses data until they "
            "drain. Find the full queue and its stage (Ingest Doctor findings, Pipeline sets dashboard); senders "
            "must retry.", backpressure=True, origin=THIRD_PARTY),
    HecCode(27, 429, "HEC acknowledgement channel is at capacity",
            "Too many acknowledgements are pending: HEC refuses data on this channel until senders poll and "
            "release them; if the queues are full too, fix them first.", backpressure=True, origin=THIRD_PARTY),
)

HEC_CODE: Dict[int, HecCode] = {c.code: c for c in HEC_CODES}
HEC_HEALTHY = 17
HEC_BUSY_REPLY = 9               # "Server is busy": the receiver's queues are full
HEC_BACKPRESSURE_CODES = tuple(c.code for c in HEC_CODES if c.backpressure)
# The health endpoint's unhealthy answers (queues full, ACK service unavailable, both).
HEC_UNHEALTHY: Dict[int, str] = {18: "queues are full", 19: "ack service unavailable",
                                 20: "queues are full, ack service unavailable"}
# HTTP statuses that say "busy" when an answer carries no code: 503 Service Unavailable, 429 Too Many Requests.
HEC_BUSY_STATUSES = (503, 429)


def hec_busy_answer(status: Optional[int], code: Optional[int]) -> bool:
    """An answer saying the receiver cannot take more data now (a symptom of what is behind HEC)."""
    known = HEC_CODE.get(code) if code is not None else None
    if known is not None:
        return known.backpressure
    return status in HEC_BUSY_STATUSES


def hec_status(code: int) -> int:
    """The HTTP status HEC sends with `code` (503 for a code this table does not know)."""
    known = HEC_CODE.get(code)
    return known.http_status if known is not None else 503


HEC_CODE_FIELDS = ("reply", "http_status", "meaning", "action", "backpressure", "origin")


def hec_code_rows():
    for c in HEC_CODES:
        yield (str(c.code), str(c.http_status), c.meaning, c.action, "1" if c.backpressure else "0", c.origin)
