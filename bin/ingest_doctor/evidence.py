"""What one splunkd reports, normalised into plain samples the rules judge.

Every source lands here in one shape, whatever it came from: a snapshot folder
(REST bodies, metrics.log, splunkd.log, HEC probes), the collector's rolling
window of polls, or an alert's result rows. Parsers fill an Evidence; rules
read it and never look at raw text.

Conventions:
- `time` is epoch seconds (float); None when the source has no time (a REST
  body read once).
- `pipeline_set` is the integer pipeline set, or None when the instance has a
  single set (no `ingest_pipe`, no `.N` title).
- queue names are canonical (`model.canonical_queue`); thread names lowercase.
- `source` says where the number came from, for the finding's evidence.

How each field of an Evidence merges is declared once, beside the field (`MERGE`): the
collector's window (collector/window.py) keeps and merges polls by it, the read step
(read/readstep.py) merges the configuration endpoints' readings by it, and the engine
(engine/rules/state.py) drops the samples whose declared numbers are not finite. A field
without a policy fails at import (`policies`), so a new field cannot be silently dropped.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Tuple


# The merge policies (an Evidence field's in Evidence.MERGE):
LATEST = "latest"       # one value per instance (host, config, ...): the newest poll's; within one read,
#                         a known value fills an unknown one (attribute by attribute for a record)
NAMES = "names"         # what was read: the newest poll's; within one read, the union
SAMPLES = "samples"     # samples over time: every poll's, in poll order
AVERAGES = "averages"   # samples over time whose averages (window != "sample") a newer poll supersedes:
#                         every poll's samples, the newest poll's averages
PER_READ = "per_read"   # about one reading (not judged, problems): reported with it, not kept across polls
MERGES = (LATEST, NAMES, SAMPLES, AVERAGES, PER_READ)

# A sample's `window` when it is an average: minutes ("10m") or seconds ("900s").
WINDOW = re.compile(r"(\d+(?:\.\d+)?)([ms])")


def window_minutes(window: Optional[str]) -> Optional[float]:
    """'10m' -> 10.0, '900s' -> 15.0; None for 'sample' or anything else."""
    m = WINDOW.fullmatch(window or "")
    return None if m is None else float(m.group(1)) / (60.0 if m.group(2) == "s" else 1.0)


@dataclass(frozen=True)
class Policy:
    """How Evidence.merge combines one field of two readings."""
    merge: str  # one of MERGES
    finite: Tuple[str, ...] = ()  # numbers that must be finite: a sample without is dropped, a record's unset


def merges(merge: str, *finite: str) -> Policy:
    """An Evidence field's merge policy (and the numbers that must be finite)."""
    if merge not in MERGES:
        raise ValueError("unknown merge policy %r" % merge)
    return Policy(merge, finite)


@dataclass
class QueueSample:
    """One queue's fill at one time (metrics.log sample or REST average)."""
    time: Optional[float]
    queue: str
    pipeline_set: Optional[int]
    fill_pct: float
    window: str = "sample"  # "sample" (instant), or an average: "1m", "10m", "15m"
    blocked: bool = False
    source: str = ""


@dataclass
class ThreadSample:
    """One thread's busy share at one time."""
    time: Optional[float]
    thread: str  # lowercase, e.g. httpinputserverdatathread
    busy_pct: float  # % of one core (dutycycle ratio * 100, or /proc CPU)
    pipeline_set: Optional[int] = None
    window: str = "sample"
    source: str = ""


@dataclass
class ProcessorCpu:
    """CPU one pipeline processor spent in one metrics interval."""
    time: Optional[float]
    pipeline: str  # metrics.log group=pipeline name= (parsing, merging, typing, indexerpipe)
    processor: str
    cpu_seconds: float  # CPU seconds spent in the reporting interval
    interval_s: float  # length of that interval (metrics.log: 30 s unless measured)
    pipeline_set: Optional[int] = None
    executes: Optional[float] = None
    write_cpu_seconds: Optional[float] = None
    service_cpu_seconds: Optional[float] = None
    source: str = ""


@dataclass
class RegexCpu:
    """Regex CPU of one series (per_*_regex_cpu)."""
    time: Optional[float]
    series: str  # sourcetype (group=per_sourcetype_regex_cpu series=)
    cpu_ms: float
    kind: str = "sourcetype"
    pipeline_set: Optional[int] = None
    source: str = ""


@dataclass
class PipelineSetLoad:
    """One pipeline set's load (group=pipelineset or REST pipelinesets)."""
    time: Optional[float]
    pipeline_set: int
    busiest_thread: str
    dutycycle_pct: float
    share: Optional[float] = None
    requests_last_period: Optional[float] = None
    source: str = ""


@dataclass
class HecError:
    """One HEC error reply seen in splunkd.log."""
    time: Optional[float]
    reply: int
    token: str = ""
    message: str = ""
    source: str = ""
    client: str = ""  # the client's address (source_IP=): a load balancer's own when it translates addresses


@dataclass
class HecProbe:
    """One probe of a HEC health endpoint."""
    time: Optional[float]
    status: Optional[int]  # HTTP status; None when the probe failed to connect
    code: Optional[int]  # HEC code from the body (17 healthy, 18-20 unhealthy)
    rtt_ms: Optional[float]
    kind: str = "health"  # "health" or "event" (a POSTed probe event)
    text: str = ""
    source: str = ""


@dataclass
class IndexerStatus:
    """The indexer's status (normal, throttled, stopped)."""
    status: str  # normal | throttled | stopped
    reason: str = ""
    average_kbps: Optional[float] = None
    source: str = ""


@dataclass
class HostCpu:
    """The host's and splunkd's CPU."""
    cores: Optional[int] = None
    host_cpu_pct: Optional[float] = None  # whole host, % of all cores
    splunkd_cpu_pct: Optional[float] = None  # splunkd process, % of one core (as ps reports)
    source: str = ""
    # Physical cores (server/info numberOfCores, hostwide cpu_count); `cores` counts logical ones.
    physical_cores: Optional[int] = None
    # resource-usage/splunk-processes: the search processes (splunkd search) running, and their CPU
    # summed (% of one core); None when the endpoint was not read.
    search_processes: Optional[int] = None
    search_cpu_pct: Optional[float] = None


@dataclass
class CpuSample:
    """One reading of host and splunkd CPU (resource-usage endpoints), for sustained tests."""
    time: Optional[float]
    host_cpu_pct: Optional[float] = None  # % of all cores
    splunkd_cpu_pct: Optional[float] = None  # % of one core
    cores: Optional[int] = None
    source: str = ""


@dataclass
class Thruput:
    """metrics.log group=thruput (series "") and group=per_*_thruput (kind = sourcetype, index, ...)."""
    time: Optional[float]
    kind: str  # "thruput" for group=thruput, else sourcetype | source | host | index
    series: str  # thruput name (index_thruput, ...) or the series value
    kbps: float
    eps: Optional[float] = None
    pipeline_set: Optional[int] = None
    source: str = ""
    # per_*_thruput avg_age: seconds between an event's timestamp and its indexing (`_indextime - _time`).
    age_s: Optional[float] = None


@dataclass
class TcpoutConnection:
    """metrics.log group=tcpout_connections: one forwarder -> receiver connection's throughput."""
    time: Optional[float]
    receiver: str  # destIp:destPort (or the host:port part of name=)
    kbps: float  # _tcp_KBps
    group: str = ""  # the outputs.conf group (the first part of name=)
    source: str = ""


@dataclass
class TcpinConnection:
    """metrics.log group=tcpin_connections (receiver side): one sender's connection, keys as in the real
    8.2.1 line (`hostname=`, `sourceIp=`, `sourceHost=`, `guid=`, `fwdType=`, `_tcp_KBps=`, `lastIndexer=`)."""
    time: Optional[float]
    source_ip: str
    hostname: str = ""  # the sender's host name (its server name)
    source_host: str = ""  # as the receiver resolved it (often the IP again)
    guid: str = ""
    fwd_type: str = ""  # uf | full | ...
    kbps: float = 0.0
    dest_port: str = ""
    last_indexer: str = ""  # ip:port the sender last sent to (this receiver's own address when
                            # connected)
    source: str = ""


@dataclass
class ReceiverState:
    """What a deployment (contract section 5) knows of one receiver of this instance, from the receiver's
    own data: set by engine/deployment.py before it judges the sender; empty when judged alone."""
    address: str  # as this sender names it (ip:port, name:port) or the receiver's host
    host: Optional[str]  # the receiver's host name; None when it is not in the deployment folder
    state: str  # "saturated" | "idle" | "absent" (not in the folder) | "unjudged" (no data)
    #             | "loop" (blocked only by this sender's own traffic: deployment/loops.py)
    cause: Optional[str] = None  # saturated (loop): the id of the receiver's finding that holds it (back)
    cause_words: str = ""  # saturated: "idx-02 indexing, pipeline set 1"
    root_words: str = ""  # when that finding is itself caused further on: its root, in words
    act: str = ""  # saturated: the first thing to change at the root


@dataclass
class LogSignal:
    """A splunkd.log line that matters to a rule (kind: hec_listener_overwhelmed,
    tcpout_blocked, tcpout_connect_failed, index_paused, tcpin_stopped, replication_queue_full, thruput_capped)."""
    time: Optional[float]
    kind: str
    message: str = ""
    source: str = ""
    receiver: str = ""  # tcpout lines: the receiver they name (host_dest=, ip=, host=, idx=); replication_queue_full:
    #                     the target peer's guid (peer=)
    state: str = ""  # tcpout_connect_failed: timed out | refused | failed | reset by peer | quarantined | ACK timed out;
    #                  thruput_capped: the KB/s the line states


@dataclass
class Config:
    """Settings read from the instance; None means unknown (never a guess)."""
    version: Optional[str] = None
    roles: List[str] = field(default_factory=list)
    dedicated_io_threads: Optional[int] = None
    max_threads: Optional[int] = None
    max_sockets: Optional[int] = None
    hec_enabled: Optional[bool] = None
    hec_port: Optional[int] = None
    hec_ssl: Optional[bool] = None
    hec_tokens: Optional[int] = None  # None: the token list could not be read
    parallel_ingestion_pipelines: Optional[int] = None
    pipeline_set_selection_policy: Optional[str] = None
    # "default" or queue name -> "500KB"
    queue_max_size: Dict[str, str] = field(default_factory=dict)
    tcpout_compressed: Optional[bool] = None
    tcpout_use_ack: Optional[bool] = None
    tcpout_servers: Optional[str] = None
    # outputs.conf SSL: True when an output group sends over SSL (useSSL = true, or a clientCert with useSSL
    # absent or legacy): `compressed` does not apply there (outputs.conf.spec), useClientSSLCompression does.
    tcpout_ssl: Optional[bool] = None
    tcpout_ssl_compression: Optional[bool] = None  # useClientSSLCompression (default true)
    thruput_max_kbps: Optional[float] = None  # limits.conf [thruput] maxKBps (0 = no limit)
    tcpout_force_time_lb: Optional[bool] = None  # outputs.conf forceTimebasedAutoLB
    host_fqdn: Optional[str] = None  # services/server/info host_fqdn
    guid: Optional[str] = None  # services/server/info guid (what receivers' tcpin_connections name)
    props: Dict[str, Dict[str, str]] = field(default_factory=dict)  # sourcetype -> parsing settings

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Config":
        """Inverse of to_dict; unknown keys (a newer collector) are ignored, not fatal."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class Evidence:
    """Everything read from one instance; each field says how two readings merge (`MERGE`)."""
    # Each field, in order, with its merge policy. A subclass with more fields extends both (`policies`).
    MERGE: ClassVar[Dict[str, Policy]] = {
        "host": merges(LATEST),
        "queues": merges(AVERAGES, "fill_pct", "time"),
        "threads": merges(SAMPLES, "busy_pct", "time"),
        "processors": merges(SAMPLES, "cpu_seconds", "interval_s", "time"),
        "regex_cpu": merges(SAMPLES, "cpu_ms"),
        "pipelinesets": merges(SAMPLES, "dutycycle_pct", "time"),
        "hec_errors": merges(SAMPLES),
        "hec_probes": merges(SAMPLES, "time"),
        "indexer": merges(LATEST),
        "host_cpu": merges(LATEST, "host_cpu_pct", "splunkd_cpu_pct"),
        "config": merges(LATEST),
        "not_judged": merges(PER_READ),
        "problems": merges(PER_READ),
        "cpu": merges(SAMPLES, "host_cpu_pct", "splunkd_cpu_pct", "time"),
        "thruput": merges(SAMPLES, "kbps"),
        "log_signals": merges(SAMPLES),
        "tcpout": merges(SAMPLES),
        "tcpin": merges(SAMPLES),
        "receivers": merges(LATEST),
        "health": merges(LATEST),
        "sources": merges(NAMES),
    }
    host: Optional[str] = None
    queues: List[QueueSample] = field(default_factory=list)
    threads: List[ThreadSample] = field(default_factory=list)
    processors: List[ProcessorCpu] = field(default_factory=list)
    regex_cpu: List[RegexCpu] = field(default_factory=list)
    pipelinesets: List[PipelineSetLoad] = field(default_factory=list)
    hec_errors: List[HecError] = field(default_factory=list)
    hec_probes: List[HecProbe] = field(default_factory=list)
    indexer: Optional[IndexerStatus] = None
    host_cpu: HostCpu = field(default_factory=HostCpu)
    config: Config = field(default_factory=Config)
    # What could not be read or judged, in words an admin understands.
    not_judged: List[str] = field(default_factory=list)
    # Files or sources that were unreadable or malformed, named.
    problems: List[str] = field(default_factory=list)
    # Added for the diagnosis engine (all optional, defaults keep older callers working).
    cpu: List[CpuSample] = field(default_factory=list)
    thruput: List[Thruput] = field(default_factory=list)
    log_signals: List[LogSignal] = field(default_factory=list)
    tcpout: List[TcpoutConnection] = field(default_factory=list)
    tcpin: List[TcpinConnection] = field(default_factory=list)
    # Set only when judged within a deployment (deployment/judge.py): this sender's receivers, judged.
    receivers: List[ReceiverState] = field(default_factory=list)
    # splunkd health feature path -> green|yellow|red
    health: Dict[str, str] = field(default_factory=dict)
    # What was read, so rules can say what they could not judge: REST paths
    # ("services/server/introspection/queues"), "logs/metrics.log", "logs/splunkd.log",
    # "hec/health.json", "proc" (the collector's per-thread CPU).
    sources: List[str] = field(default_factory=list)

    def saw(self, source: str) -> None:
        if source not in self.sources:
            self.sources.append(source)


_POLICIES: Dict[type, Dict[str, Policy]] = {}


def policies(cls: type = Evidence) -> Dict[str, Policy]:
    """Each field of `cls` (Evidence or a subclass) with its merge policy; a field without one
    raises TypeError naming it. Made once a class (read every poll): not to be changed."""
    known_ = _POLICIES.get(cls)
    if known_ is not None:
        return known_
    out: Dict[str, Policy] = {}
    for name in (f.name for f in fields(cls)):
        policy = cls.MERGE.get(name)
        if not isinstance(policy, Policy):
            raise TypeError("%s.%s declares no merge policy (evidence.merges(...)): the collector's window, "
                            "the read step and the engine would not know how to merge it" % (cls.__name__, name))
        out[name] = policy
    _POLICIES[cls] = out
    return out



def known(value: Any) -> bool:
    """A value that says something: not None, not an empty string, list or dict."""
    return value is not None and value != "" and value != [] and value != {}
