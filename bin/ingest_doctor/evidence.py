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

from ingest_doctor.record import Frozen, Record, asdict, fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Mapping, Optional, Tuple

# The merge policies (an Evidence field's in Evidence.MERGE):
LATEST = "latest"       # one value per instance (host, config, ...): the newest poll's; within one read,
#                         a known value fills an unknown one (attribute by attribute for a record)
NAMES = "names"         # what was read: the newest poll's; within one read, the union
SAMPLES = "samples"     # samples over time: every poll's, in poll order
AVERAGES = "averages"   # samples over time whose averages (window != "sample") a newer poll supersedes:
#                         every poll's samples, the newest poll's averages
PER_READ = "per_read"   # about one reading (not judged, problems): reported with it, not kept across polls
MERGES = (LATEST, NAMES, SAMPLES, AVERAGES, PER_READ)


class Policy(Frozen):
    """How Evidence.merge combines one field of two readings."""
    __slots__ = ("merge", "finite")

    def __init__(self, merge: str, finite: Tuple[str, ...] = ()):
        self.merge = merge          # one of MERGES
        self.finite = finite        # numbers that must be finite: a sample without is dropped, a record's unset


def merges(merge: str, *finite: str) -> Policy:
    """An Evidence field's merge policy (and the numbers that must be finite)."""
    if merge not in MERGES:
        raise ValueError("unknown merge policy %r" % merge)
    return Policy(merge, finite)


class QueueSample(Record):
    """One queue's fill at one time (metrics.log sample or REST average)."""
    __slots__ = ("time", "queue", "pipeline_set", "fill_pct", "window", "blocked", "source")

    def __init__(self, time: Optional[float], queue: str, pipeline_set: Optional[int], fill_pct: float,
                 window: str = "sample", blocked: bool = False, source: str = ""):
        self.time = time
        self.queue = queue
        self.pipeline_set = pipeline_set
        self.fill_pct = fill_pct
        self.window = window        # "sample" (instant), or an average: "1m", "10m", "15m"
        self.blocked = blocked
        self.source = source


class ThreadSample(Record):
    """One thread's busy share at one time."""
    __slots__ = ("time", "thread", "busy_pct", "pipeline_set", "window", "source")

    def __init__(self, time: Optional[float], thread: str, busy_pct: float, pipeline_set: Optional[int] = None,
                 window: str = "sample", source: str = ""):
        self.time = time
        self.thread = thread        # lowercase, e.g. httpinputserverdatathread
        self.busy_pct = busy_pct    # % of one core (dutycycle ratio * 100, or /proc CPU)
        self.pipeline_set = pipeline_set
        self.window = window
        self.source = source


class ProcessorCpu(Record):
    """CPU one pipeline processor spent in one metrics interval."""
    __slots__ = ("time", "pipeline", "processor", "cpu_seconds", "interval_s", "pipeline_set", "executes",
                 "write_cpu_seconds", "service_cpu_seconds", "source")

    def __init__(self, time: Optional[float], pipeline: str, processor: str, cpu_seconds: float,
                 interval_s: float, pipeline_set: Optional[int] = None, executes: Optional[float] = None,
                 write_cpu_seconds: Optional[float] = None, service_cpu_seconds: Optional[float] = None,
                 source: str = ""):
        self.time = time
        self.pipeline = pipeline        # metrics.log group=pipeline name= (parsing, merging, typing, indexerpipe)
        self.processor = processor
        self.cpu_seconds = cpu_seconds  # CPU seconds spent in the reporting interval
        self.interval_s = interval_s    # length of that interval (metrics.log: 30 s unless measured)
        self.pipeline_set = pipeline_set
        self.executes = executes
        self.write_cpu_seconds = write_cpu_seconds
        self.service_cpu_seconds = service_cpu_seconds
        self.source = source


class RegexCpu(Record):
    """Regex CPU of one series (per_*_regex_cpu)."""
    __slots__ = ("time", "series", "cpu_ms", "kind", "pipeline_set", "source")

    def __init__(self, time: Optional[float], series: str, cpu_ms: float, kind: str = "sourcetype",
                 pipeline_set: Optional[int] = None, source: str = ""):
        self.time = time
        self.series = series        # sourcetype (group=per_sourcetype_regex_cpu series=)
        self.cpu_ms = cpu_ms
        self.kind = kind
        self.pipeline_set = pipeline_set
        self.source = source


class PipelineSetLoad(Record):
    """One pipeline set's load (group=pipelineset or REST pipelinesets)."""
    __slots__ = ("time", "pipeline_set", "busiest_thread", "dutycycle_pct", "share", "requests_last_period",
                 "source")

    def __init__(self, time: Optional[float], pipeline_set: int, busiest_thread: str, dutycycle_pct: float,
                 share: Optional[float] = None, requests_last_period: Optional[float] = None, source: str = ""):
        self.time = time
        self.pipeline_set = pipeline_set
        self.busiest_thread = busiest_thread
        self.dutycycle_pct = dutycycle_pct
        self.share = share
        self.requests_last_period = requests_last_period
        self.source = source


class HecError(Record):
    """One HEC error reply seen in splunkd.log."""
    __slots__ = ("time", "reply", "token", "message", "source")

    def __init__(self, time: Optional[float], reply: int, token: str = "", message: str = "", source: str = ""):
        self.time = time
        self.reply = reply
        self.token = token
        self.message = message
        self.source = source


class HecProbe(Record):
    """One probe of a HEC health endpoint."""
    __slots__ = ("time", "status", "code", "rtt_ms", "kind", "text", "source")

    def __init__(self, time: Optional[float], status: Optional[int], code: Optional[int], rtt_ms: Optional[float],
                 kind: str = "health", text: str = "", source: str = ""):
        self.time = time
        self.status = status        # HTTP status; None when the probe failed to connect
        self.code = code            # HEC code from the body (17 healthy, 18-20 unhealthy)
        self.rtt_ms = rtt_ms
        self.kind = kind            # "health" or "event" (a POSTed probe event)
        self.text = text
        self.source = source


class IndexerStatus(Record):
    """The indexer's status (normal, throttled, stopped)."""
    __slots__ = ("status", "reason", "average_kbps", "source")

    def __init__(self, status: str, reason: str = "", average_kbps: Optional[float] = None, source: str = ""):
        self.status = status        # normal | throttled | stopped
        self.reason = reason
        self.average_kbps = average_kbps
        self.source = source


class HostCpu(Record):
    """The host's and splunkd's CPU."""
    __slots__ = ("cores", "host_cpu_pct", "splunkd_cpu_pct", "source", "physical_cores", "search_processes",
                 "search_cpu_pct")

    def __init__(self, cores: Optional[int] = None, host_cpu_pct: Optional[float] = None,
                 splunkd_cpu_pct: Optional[float] = None, source: str = "", physical_cores: Optional[int] = None,
                 search_processes: Optional[int] = None, search_cpu_pct: Optional[float] = None):
        self.cores = cores
        self.host_cpu_pct = host_cpu_pct            # whole host, % of all cores
        self.splunkd_cpu_pct = splunkd_cpu_pct      # splunkd process, % of one core (as ps reports)
        self.source = source
        # Physical cores (server/info numberOfCores, hostwide cpu_count); `cores` counts logical ones.
        self.physical_cores = physical_cores
        # resource-usage/splunk-processes: the search processes (splunkd search) running, and their CPU
        # summed (% of one core); None when the endpoint was not read.
        self.search_processes = search_processes
        self.search_cpu_pct = search_cpu_pct


class CpuSample(Record):
    """One reading of host and splunkd CPU (resource-usage endpoints), for sustained tests."""
    __slots__ = ("time", "host_cpu_pct", "splunkd_cpu_pct", "cores", "source")

    def __init__(self, time: Optional[float], host_cpu_pct: Optional[float] = None,
                 splunkd_cpu_pct: Optional[float] = None, cores: Optional[int] = None, source: str = ""):
        self.time = time
        self.host_cpu_pct = host_cpu_pct            # % of all cores
        self.splunkd_cpu_pct = splunkd_cpu_pct      # % of one core
        self.cores = cores
        self.source = source


class Thruput(Record):
    """metrics.log group=thruput (series "") and group=per_*_thruput (kind = sourcetype, index, ...)."""
    __slots__ = ("time", "kind", "series", "kbps", "eps", "pipeline_set", "source", "age_s")

    def __init__(self, time: Optional[float], kind: str, series: str, kbps: float, eps: Optional[float] = None,
                 pipeline_set: Optional[int] = None, source: str = "", age_s: Optional[float] = None):
        self.time = time
        self.kind = kind            # "thruput" for group=thruput, else sourcetype | source | host | index
        self.series = series        # thruput name (index_thruput, ...) or the series value
        self.kbps = kbps
        self.eps = eps
        self.pipeline_set = pipeline_set
        self.source = source
        # per_*_thruput avg_age: seconds between an event's timestamp and its indexing (`_indextime - _time`).
        self.age_s = age_s


class TcpoutConnection(Record):
    """metrics.log group=tcpout_connections: one forwarder -> receiver connection's throughput."""
    __slots__ = ("time", "receiver", "kbps", "group", "source")

    def __init__(self, time: Optional[float], receiver: str, kbps: float, group: str = "", source: str = ""):
        self.time = time
        self.receiver = receiver    # destIp:destPort (or the host:port part of name=)
        self.kbps = kbps            # _tcp_KBps
        self.group = group          # the outputs.conf group (the first part of name=)
        self.source = source


class TcpinConnection(Record):
    """metrics.log group=tcpin_connections (receiver side): one sender's connection, keys as in the real
    8.2.1 line (`hostname=`, `sourceIp=`, `sourceHost=`, `guid=`, `fwdType=`, `_tcp_KBps=`, `lastIndexer=`)."""
    __slots__ = ("time", "source_ip", "hostname", "source_host", "guid", "fwd_type", "kbps", "dest_port",
                 "last_indexer", "source")

    def __init__(self, time: Optional[float], source_ip: str, hostname: str = "", source_host: str = "",
                 guid: str = "", fwd_type: str = "", kbps: float = 0.0, dest_port: str = "", last_indexer: str = "",
                 source: str = ""):
        self.time = time
        self.source_ip = source_ip
        self.hostname = hostname        # the sender's host name (its server name)
        self.source_host = source_host  # as the receiver resolved it (often the IP again)
        self.guid = guid
        self.fwd_type = fwd_type        # uf | full | ...
        self.kbps = kbps
        self.dest_port = dest_port
        self.last_indexer = last_indexer    # ip:port the sender last sent to (this receiver's own address when
        #                                     connected)
        self.source = source


class ReceiverState(Record):
    """What a deployment (contract section 5) knows of one receiver of this instance, from the receiver's
    own data: set by engine/deployment.py before it judges the sender; empty when judged alone."""
    __slots__ = ("address", "host", "state", "cause", "cause_words", "root_words", "act")

    def __init__(self, address: str, host: Optional[str], state: str, cause: Optional[str] = None,
                 cause_words: str = "", root_words: str = "", act: str = ""):
        self.address = address      # as this sender names it (ip:port, name:port) or the receiver's host
        self.host = host            # the receiver's host name; None when it is not in the deployment folder
        self.state = state          # "saturated" | "idle" | "absent" (not in the folder) | "unjudged" (no data)
        #                             | "loop" (blocked only by this sender's own traffic: deployment/loops.py)
        self.cause = cause          # saturated (loop): the id of the receiver's finding that holds it (back)
        self.cause_words = cause_words  # saturated: "idx-02 indexing, pipeline set 1"
        self.root_words = root_words    # when that finding is itself caused further on: its root, in words
        self.act = act              # saturated: the first thing to change at the root


class LogSignal(Record):
    """A splunkd.log line that matters to a rule (kind: hec_listener_overwhelmed,
    tcpout_blocked, tcpout_connect_failed, index_paused, tcpin_stopped)."""
    __slots__ = ("time", "kind", "message", "source", "receiver", "state")

    def __init__(self, time: Optional[float], kind: str, message: str = "", source: str = "", receiver: str = "",
                 state: str = ""):
        self.time = time
        self.kind = kind
        self.message = message
        self.source = source
        self.receiver = receiver    # tcpout lines: the receiver they name (host_dest=, ip=, host=, idx=)
        self.state = state          # tcpout_connect_failed: timed out | refused | failed | reset by peer | quarantined


class Config(Record):
    """Settings read from the instance; None means unknown (never a guess)."""
    __slots__ = ("version", "roles", "dedicated_io_threads", "max_threads", "max_sockets", "hec_enabled",
                 "hec_port", "hec_ssl", "hec_tokens", "parallel_ingestion_pipelines",
                 "pipeline_set_selection_policy", "queue_max_size", "tcpout_compressed", "tcpout_use_ack",
                 "tcpout_servers", "host_fqdn", "guid", "props")

    def __init__(self, version: Optional[str] = None, roles: Optional[List[str]] = None,
                 dedicated_io_threads: Optional[int] = None, max_threads: Optional[int] = None,
                 max_sockets: Optional[int] = None, hec_enabled: Optional[bool] = None,
                 hec_port: Optional[int] = None, hec_ssl: Optional[bool] = None, hec_tokens: Optional[int] = None,
                 parallel_ingestion_pipelines: Optional[int] = None,
                 pipeline_set_selection_policy: Optional[str] = None,
                 queue_max_size: Optional[Dict[str, str]] = None, tcpout_compressed: Optional[bool] = None,
                 tcpout_use_ack: Optional[bool] = None, tcpout_servers: Optional[str] = None,
                 host_fqdn: Optional[str] = None, guid: Optional[str] = None,
                 props: Optional[Dict[str, Dict[str, str]]] = None):
        self.version = version
        self.roles = [] if roles is None else roles
        self.dedicated_io_threads = dedicated_io_threads
        self.max_threads = max_threads
        self.max_sockets = max_sockets
        self.hec_enabled = hec_enabled
        self.hec_port = hec_port
        self.hec_ssl = hec_ssl
        self.hec_tokens = hec_tokens                # None: the token list could not be read
        self.parallel_ingestion_pipelines = parallel_ingestion_pipelines
        self.pipeline_set_selection_policy = pipeline_set_selection_policy
        # "default" or queue name -> "500KB"
        self.queue_max_size = {} if queue_max_size is None else queue_max_size
        self.tcpout_compressed = tcpout_compressed
        self.tcpout_use_ack = tcpout_use_ack
        self.tcpout_servers = tcpout_servers
        self.host_fqdn = host_fqdn                  # services/server/info host_fqdn
        self.guid = guid                # services/server/info guid (what receivers' tcpin_connections name)
        self.props = {} if props is None else props     # sourcetype -> parsing settings

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Config":
        """Inverse of to_dict; unknown keys (a newer collector) are ignored, not fatal."""
        known = set(fields(cls))
        return cls(**{k: v for k, v in data.items() if k in known})


class Evidence(Record):
    """Everything read from one instance; each field says how two readings merge (`MERGE`)."""
    # Each field, in order, with its merge policy. A subclass with more fields extends both (`policies`).
    MERGE: Dict[str, Policy] = {
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
    __slots__ = tuple(MERGE)

    def __init__(self, host: Optional[str] = None, queues: Optional[List[QueueSample]] = None,
                 threads: Optional[List[ThreadSample]] = None, processors: Optional[List[ProcessorCpu]] = None,
                 regex_cpu: Optional[List[RegexCpu]] = None, pipelinesets: Optional[List[PipelineSetLoad]] = None,
                 hec_errors: Optional[List[HecError]] = None, hec_probes: Optional[List[HecProbe]] = None,
                 indexer: Optional[IndexerStatus] = None, host_cpu: Optional[HostCpu] = None,
                 config: Optional[Config] = None, not_judged: Optional[List[str]] = None,
                 problems: Optional[List[str]] = None, cpu: Optional[List[CpuSample]] = None,
                 thruput: Optional[List[Thruput]] = None, log_signals: Optional[List[LogSignal]] = None,
                 tcpout: Optional[List[TcpoutConnection]] = None, tcpin: Optional[List[TcpinConnection]] = None,
                 receivers: Optional[List[ReceiverState]] = None, health: Optional[Dict[str, str]] = None,
                 sources: Optional[List[str]] = None):
        self.host = host
        self.queues = [] if queues is None else queues
        self.threads = [] if threads is None else threads
        self.processors = [] if processors is None else processors
        self.regex_cpu = [] if regex_cpu is None else regex_cpu
        self.pipelinesets = [] if pipelinesets is None else pipelinesets
        self.hec_errors = [] if hec_errors is None else hec_errors
        self.hec_probes = [] if hec_probes is None else hec_probes
        self.indexer = indexer
        self.host_cpu = HostCpu() if host_cpu is None else host_cpu
        self.config = Config() if config is None else config
        # What could not be read or judged, in words an admin understands.
        self.not_judged = [] if not_judged is None else not_judged
        # Files or sources that were unreadable or malformed, named.
        self.problems = [] if problems is None else problems
        # Added for the diagnosis engine (all optional, defaults keep older callers working).
        self.cpu = [] if cpu is None else cpu
        self.thruput = [] if thruput is None else thruput
        self.log_signals = [] if log_signals is None else log_signals
        self.tcpout = [] if tcpout is None else tcpout
        self.tcpin = [] if tcpin is None else tcpin
        # Set only when judged within a deployment (deployment/judge.py): this sender's receivers, judged.
        self.receivers = [] if receivers is None else receivers
        # splunkd health feature path -> green|yellow|red
        self.health = {} if health is None else health
        # What was read, so rules can say what they could not judge: REST paths
        # ("services/server/introspection/queues"), "logs/metrics.log", "logs/splunkd.log",
        # "hec/health.json", "proc" (the collector's per-thread CPU).
        self.sources = [] if sources is None else sources

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
    for name in fields(cls):
        policy = cls.MERGE.get(name)
        if not isinstance(policy, Policy):
            raise TypeError("%s.%s declares no merge policy (evidence.merges(...)): the collector's window, "
                            "the read step and the engine would not know how to merge it" % (cls.__name__, name))
        out[name] = policy
    _POLICIES[cls] = out
    return out


POLICIES = policies(Evidence)


def known(value: Any) -> bool:
    """A value that says something: not None, not an empty string, list or dict."""
    return value is not None and value != "" and value != [] and value != {}
