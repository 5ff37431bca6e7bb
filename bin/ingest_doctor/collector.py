"""The collector's core: what one poll reads, how faults are judged, the rolling
window the diagnosis runs over, and which events leave after each poll.

Pure: no splunklib, no sockets. The modular input shell hands a `Collector`
one callable that performs an HTTP request (`HttpCall`) and, optionally, one
that returns the HEC probe token; everything else happens here, so tests drive
a whole poll with plain functions and a fake clock.

One poll:
1. Read the collector's endpoints of the table (endpoints.py) through the read
   step (readstep.py): runtime ones every poll, configuration ones (HEC
   settings, server.conf, outputs.conf, the threshold macros) about once a
   minute, one a poll. Configuration endpoints that fail keep their last good
   reading, so a timeout never looks like a configuration change; the tuned
   `ingest_doctor_*` threshold macros are what the diagnosis judges with.
2. Probe HEC health (status, code, round trip) and, with a probe token, POST
   one tiny event to HEC and time it (the HEC request latency).
3. Read per-thread CPU of splunkd from /proc (the shell passes the result).
4. Add the poll to the rolling window, diagnose the window, and emit:
   `ingest_doctor:metrics` (this poll's values and self-monitoring),
   `ingest_doctor:config` (on start and on change) and `ingest_doctor:finding`
   (new, severity changed, or still present after `FINDING_REPEAT_S`).
Faults never stop a poll: each endpoint's failure is classified, counted as a
metric, logged at most once a minute per endpoint and kind, and the poll goes
on with the rest. A 404 means the endpoint does not exist in this splunkd
version: it is noted once and skipped from then on.
"""
from __future__ import annotations

import json
import re
import time as _time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Sequence, Set, Tuple
from urllib.parse import urlsplit

from . import diagnose as diagnose_mod
from . import hec as hec_mod
from . import metrics_events, model, readstep, rest
from . import thresholds as thresholds_mod
from . import tls
# The collector's rows of the endpoint table; Fetched and error_kind are used by its port and tests.
from .endpoints import COLLECTOR as ENDPOINTS  # noqa: F401
from .endpoints import MACROS, Endpoint, Fetched, error_kind, error_text, missing_capability, target  # noqa: F401
from .evidence import Config, Evidence, ThreadSample
from .findings import Finding, Report

SCHEME = "ingest_doctor_introspection"
DEFAULT_METRICS_INDEX = "ingest_doctor_metrics"
# The add-on's HEC probe tokens, as its Configuration page (ucc-gen, ta/globalConfig.json tab
# "account") stores them in storage/passwords: in the add-on's namespace, this realm, the
# token's name as user, the password a JSON object {"token": ...}.
CREDENTIAL_APP = "TA-ingest_doctor"
DEFAULT_CREDENTIAL_REALM = "__REST_CREDENTIAL__#TA-ingest_doctor#configs/conf-ta_ingest_doctor_account"
FINDING_REPEAT_S = 15 * 60          # re-emit a finding that is still there at most this often
ERROR_LOG_EVERY_S = 60.0            # one log line per endpoint and error kind per minute at most
CREDENTIAL_RETRY_S = 300.0          # a probe token that could not be read is retried this often
WINDOW_MAX_POLLS = 120              # the rolling window never holds more polls than this
MAX_BODY_BYTES = readstep.MAX_BODY_BYTES
THREAD_FLOOR_PCT = 10.0             # non-pipeline threads below this stay out of the diagnosis window


# --------------------------------------------------------------------------- parameters

@dataclass(frozen=True)
class Param:
    name: str
    title: str
    description: str
    data_type: str              # "string" | "number" | "boolean" (splunklib Argument types)
    default: Optional[str] = None


# The modular input's parameters. ta/globalConfig.json (ucc-gen) is their one source: it makes
# the add-on's Inputs page, inputs.conf defaults and README/inputs.conf.spec; this table, which
# the scheme (--scheme) prints, must equal it (tests/test_ta_globalconfig.py).
PARAMS: Tuple[Param, ...] = (
    Param("poll_interval", "Poll interval (seconds)",
          "Seconds between two polls of the local splunkd, 1 to 3600. Default 10.", "number", "10"),
    Param("hec_health_url", "HEC health URL",
          "URL of HEC's health endpoint, e.g. https://127.0.0.1:8088/services/collector/health. "
          "Default: derived from this instance's [http] settings (https when enableSSL is on, its port) "
          "on 127.0.0.1.", "string"),
    Param("hec_token_credential", "HEC probe token",
          "A token from Configuration > HEC probe tokens (or realm:name of any storage/passwords credential). "
          "When set, each poll POSTs one tiny event to HEC and records its round trip as the HEC request "
          "latency. Never put a token itself here.", "string"),
    Param("thread_cpu", "Per-thread CPU",
          "Measure busy % of one core per splunkd thread from /proc (Linux). Default true.", "boolean", "1"),
    Param("hec_tls_verify", "Verify HEC certificate",
          "Verify the HEC certificate chain and name (as sslVerifyServerCert does). Turning it off is logged "
          "at every start. Default true.", "boolean", "1"),
    Param("hec_ca_file", "HEC CA file",
          "PEM file of the CA that signed the HEC certificate. Default: the system CA store plus Splunk's "
          "default CA, $SPLUNK_HOME/etc/auth/cacert.pem.", "string"),
    Param("hec_sslCommonNameToCheck", "HEC sslCommonNameToCheck",
          "Certificate names accepted besides the URL's host, comma-separated, as sslCommonNameToCheck in "
          "outputs.conf. Default SplunkServerDefaultCert, the name of Splunk's default certificate.",
          "string", tls.SPLUNK_DEFAULT_CN),
    Param("request_timeout", "Request timeout (seconds)",
          "Upper bound for one REST or HEC call, 1 to 60 seconds. Default 5.", "number", "5"),
    Param("metrics_index", "Metrics index",
          "Metrics index that receives ingest_doctor:metrics (log-to-metrics). Default ingest_doctor_metrics. "
          "Events (config, findings) go to the input's index.", "string", DEFAULT_METRICS_INDEX),
)

PARAM_NAMES = tuple(p.name for p in PARAMS)


class ParamError(ValueError):
    """A bad parameter value; the message names it and says what is allowed."""


@dataclass(frozen=True)
class Params:
    poll_interval: float = 10.0
    hec_health_url: Optional[str] = None
    hec_token_credential: Optional[str] = None
    thread_cpu: bool = True
    hec_tls_verify: bool = True
    hec_ca_file: Optional[str] = None
    request_timeout: float = 5.0
    metrics_index: str = DEFAULT_METRICS_INDEX
    hec_common_names: Tuple[str, ...] = (tls.SPLUNK_DEFAULT_CN,)

    def tls(self) -> tls.Settings:
        """The HEC calls' TLS policy (bin/ingest_doctor/tls.py)."""
        return tls.Settings(self.hec_tls_verify, self.hec_ca_file, self.hec_common_names)

    def credential(self) -> Optional[Tuple[str, str]]:
        """(realm, name) of the probe token credential, or None."""
        if not self.hec_token_credential:
            return None
        realm, sep, name = self.hec_token_credential.partition(":")
        return (realm, name) if sep else (DEFAULT_CREDENTIAL_REALM, realm)


_INDEX_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")


def _text(raw: Mapping[str, Any], name: str) -> Optional[str]:
    v = raw.get(name)
    if isinstance(v, list):          # a <param_list>: one value is all we take
        v = v[0] if v else None
    if v is None:
        return None
    s = str(v).strip()
    return s or None


def _number(raw: Mapping[str, Any], name: str, default: float, low: float, high: float) -> float:
    s = _text(raw, name)
    if s is None:
        return default
    try:
        v = float(s)
    except ValueError:
        raise ParamError("%s must be a number of seconds from %g to %g, not %r" % (name, low, high, s)) from None
    if not (low <= v <= high) or v != v:
        raise ParamError("%s must be from %g to %g seconds, not %s" % (name, low, high, s))
    return v


def _bool(raw: Mapping[str, Any], name: str, default: bool) -> bool:
    s = _text(raw, name)
    if s is None:
        return default
    v = rest.as_bool(s)
    if v is not None:
        return v
    raise ParamError("%s must be true or false (1/0, yes/no), not %r" % (name, s))


def _url(s: str, name: str) -> str:
    parts = urlsplit(s)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ParamError("%s must be an http:// or https:// URL with a host, not %r" % (name, s))
    try:
        parts.port
    except ValueError:
        raise ParamError("%s has an invalid port: %r" % (name, s)) from None
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ParamError("%s must not carry credentials, a query or a fragment: %r" % (name, s))
    if parts.path in ("", "/"):
        return s.rstrip("/") + HEC_HEALTH_PATH
    return s


def parse_params(raw: Mapping[str, Any], file_exists: Optional[Callable[[str], bool]] = None) -> Params:
    """The input stanza's parameters, validated; raises ParamError naming the first bad one.

    Splunk's own keys (index, host, source, sourcetype, disabled, interval, ...)
    are not ours and are ignored here. `file_exists` checks the CA file (the
    shell passes os.path.isfile; None skips the check).
    """
    interval = _number(raw, "poll_interval", 10.0, 1.0, 3600.0)
    timeout = _number(raw, "request_timeout", 5.0, 1.0, 60.0)
    url = _text(raw, "hec_health_url")
    if url is not None:
        url = _url(url, "hec_health_url")
    cred = _text(raw, "hec_token_credential")
    if cred is not None:
        if any(c.isspace() for c in cred) or cred.count(":") > 1 or cred.startswith(":") or cred.endswith(":"):
            raise ParamError("hec_token_credential must be the name of a storage/passwords credential, "
                             "as realm:name or name (no spaces), not %r" % cred)
        if re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                        cred.partition(":")[2] or cred):
            raise ParamError("hec_token_credential looks like an HEC token itself; store the token in "
                             "storage/passwords and give the credential's name here")
    ca = _text(raw, "hec_ca_file")
    if ca is not None and file_exists is not None and not file_exists(ca):
        raise ParamError("hec_ca_file %r does not exist or is not a file" % ca)
    names_text = _text(raw, "hec_sslCommonNameToCheck")
    names = tls.parse_names(names_text) if names_text is not None else (tls.SPLUNK_DEFAULT_CN,)
    if names_text is not None and (not names or any(c.isspace() for n in names for c in n)):
        raise ParamError("hec_sslCommonNameToCheck must be certificate names separated by commas, not %r"
                         % names_text)
    index = _text(raw, "metrics_index") or DEFAULT_METRICS_INDEX
    if not _INDEX_NAME.match(index):
        raise ParamError("metrics_index must be an index name (lowercase letters, digits, _ and -, "
                         "not starting with _ or -), not %r" % index)
    return Params(interval, url, cred, _bool(raw, "thread_cpu", True), _bool(raw, "hec_tls_verify", True),
                  ca, timeout, index, names)


def probe_token(password: str) -> str:
    """The HEC token in a stored credential's password: the add-on's Configuration page stores
    {"token": ...} (ucc-gen's encrypted fields as JSON); any other credential holds the token."""
    try:
        value = json.loads(password)
    except ValueError:
        return password
    if isinstance(value, dict) and isinstance(value.get("token"), str):
        return value["token"]
    return password


# --------------------------------------------------------------------------- HEC probe

HEC_HEALTH = "hec/health"
HEC_EVENT = "hec/event"
HEC_HEALTH_PATH = "/services/collector/health"
HEC_EVENT_PATH = "/services/collector/event"
PROBE_SOURCETYPE = "ingest_doctor:probe"

# method, url, headers, body, tls ("splunkd" | "hec") -> Fetched. Never raises for network faults.
HttpCall = Callable[[str, str, Dict[str, str], Optional[bytes], str], Fetched]


# --------------------------------------------------------------------------- logging

@dataclass
class LogLine:
    severity: str       # INFO | WARN | ERROR (splunklib EventWriter severities)
    message: str        # key=value, with a category; never a session key or token


def kv(category: str, **fields: Any) -> str:
    parts = ["category=%s" % category]
    for k, v in fields.items():
        if v is None or v == "":
            continue
        s = str(v)
        if any(c in s for c in ' ="'):
            s = '"%s"' % s.replace('"', "'")
        parts.append("%s=%s" % (k, s))
    return " ".join(parts)


class ErrorLog:
    """One line per (endpoint, kind) per `every_s` at most; the next line says how
    many were held back. State is bounded: endpoints x kinds."""

    def __init__(self, every_s: float = ERROR_LOG_EVERY_S):
        self.every_s = every_s
        self._last: Dict[Tuple[str, str], float] = {}
        self._held: Dict[Tuple[str, str], int] = {}

    def report(self, endpoint: str, kind: str, now: float, **fields: Any) -> Optional[LogLine]:
        key = (endpoint, kind)
        last = self._last.get(key)
        if last is not None and now - last < self.every_s:
            self._held[key] = self._held.get(key, 0) + 1
            return None
        self._last[key] = now
        held = self._held.pop(key, 0)
        severity = "WARN" if kind in ("404",) else "ERROR"
        return LogLine(severity, kv("endpoint_error", endpoint=endpoint, kind=kind,
                                     repeated_since_last_log=held or None, **fields))


# --------------------------------------------------------------------------- findings and config

class FindingGate:
    """Which findings of a diagnosis become events.

    Only warning and critical (an `info` finding is a transient spike by the
    engine's own rule). A finding is emitted when it is new, when its severity
    changed, and again every `repeat_s` while it lasts, so the findings store's
    "resolve when not seen" (resolve_after_min, 60 min) never closes a live one.
    A finding that disappears is forgotten after `repeat_s`, so a flapping one
    is not re-emitted on every flap.
    """

    def __init__(self, repeat_s: float = FINDING_REPEAT_S):
        self.repeat_s = repeat_s
        self._emitted: Dict[str, Tuple[str, float]] = {}   # id -> (severity, time emitted)
        self._seen: Dict[str, float] = {}                  # id -> time last present

    def select(self, report: Report, now: float) -> List[Finding]:
        out: List[Finding] = []
        for f in report.findings:
            if f.severity not in ("warning", "critical"):
                continue
            self._seen[f.id] = now
            prev = self._emitted.get(f.id)
            if prev is None or prev[0] != f.severity or now - prev[1] >= self.repeat_s:
                out.append(f)
                self._emitted[f.id] = (f.severity, now)
        for fid in [i for i, t in self._seen.items() if now - t >= self.repeat_s]:
            self._seen.pop(fid, None)
            self._emitted.pop(fid, None)
        return out


CONFIG_REFRESH_S = 86400.0
# Configuration endpoints are re-read about once a minute, one a poll, not all every poll: they change
# rarely, and with splunkd closing each connection every call costs a TLS handshake (see `make bench`).
CONFIG_POLL_S = 60.0


def config_key(config: Config) -> str:
    return json.dumps(config.to_dict(), sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------------------------- rolling window

class Window:
    """The last polls' evidence, capped in polls and in time, thinned with age.

    The sustained test reads the last `recent` samples of a series (3 of 4) and
    its average over `span_s` (10 minutes). So the newest `recent` polls are
    kept whole and older ones at one poll a minute: the 10-minute average stays
    an honest estimate while the diagnosis reads ~15 polls instead of 60 (at
    10 s) or 600 (at 1 s). Each poll keeps only what the rules read, the
    newest REST averages supersede older ones, and at most `max_polls` polls
    are held: memory is bounded whatever the interval.
    """

    def __init__(self, max_polls: int, span_s: float, recent: int = 4, thin_s: float = 60.0):
        self.span_s = span_s
        self.recent = max(1, recent)
        self.thin_s = thin_s
        self.max_polls = max(self.recent, max_polls)
        self.polls: Deque[Evidence] = deque()
        self.times: Deque[float] = deque()

    def add(self, poll: Evidence, now: float) -> None:
        keep = Evidence(
            host=poll.host,
            queues=[q for q in poll.queues if q.queue in diagnose_mod.QUEUE_ORDER],
            threads=[t for t in poll.threads
                     if model.stage_for_thread(t.thread) is not None or t.busy_pct >= THREAD_FLOOR_PCT],
            pipelinesets=list(poll.pipelinesets),
            hec_probes=list(poll.hec_probes),
            indexer=poll.indexer, host_cpu=poll.host_cpu, config=poll.config,
            cpu=list(poll.cpu), health=poll.health, sources=list(poll.sources))
        self.polls.append(keep)
        self.times.append(now)
        # The poll that just left the recent part stays only a minute after the older one kept before it.
        n = len(self.times)
        if n > self.recent + 1:
            aging = n - self.recent - 1
            if self.times[aging] - self.times[aging - 1] < self.thin_s:
                del self.times[aging]
                del self.polls[aging]
        while len(self.times) > 1 and (now - self.times[0] > self.span_s or len(self.times) > self.max_polls):
            self.times.popleft()
            self.polls.popleft()

    def merged(self) -> Evidence:
        if not self.polls:
            return Evidence()
        last = self.polls[-1]
        ev = Evidence(host=last.host, indexer=last.indexer, host_cpu=last.host_cpu, config=last.config,
                      health=last.health, sources=list(last.sources))
        n = len(self.polls)
        for i, p in enumerate(self.polls):
            newest = i == n - 1
            ev.queues.extend(q for q in p.queues if newest or q.window == "sample")
            ev.threads.extend(p.threads)
            ev.pipelinesets.extend(p.pipelinesets)
            ev.hec_probes.extend(p.hec_probes)
            ev.cpu.extend(p.cpu)
        return ev


# --------------------------------------------------------------------------- outputs

@dataclass
class Out:
    kind: str               # "metrics" | "config" | "finding"
    time: float
    data: Dict[str, Any]


@dataclass
class PollResult:
    events: List[Out] = field(default_factory=list)
    logs: List[LogLine] = field(default_factory=list)
    report: Optional[Report] = None


def hec_urls(params: Params, config: Config, host: str = "127.0.0.1") -> Optional[Tuple[str, str]]:
    """(health URL, event URL): the parameter when set, else from [http] (enableSSL, port).

    None when HEC is known to be disabled and no URL was given, or when the
    [http] settings are not known yet.
    """
    if params.hec_health_url:
        parts = urlsplit(params.hec_health_url)
        base = "%s://%s" % (parts.scheme, parts.netloc)
        return params.hec_health_url, base + HEC_EVENT_PATH
    if config.hec_enabled is False or config.hec_port is None:
        return None
    scheme = "http" if config.hec_ssl is False else "https"
    base = "%s://%s:%d" % (scheme, host, config.hec_port)
    return base + HEC_HEALTH_PATH, base + HEC_EVENT_PATH


class Collector:
    """State across polls for one input stanza. Not thread-safe: one poll at a time."""

    def __init__(self, params: Params, server_uri: str, session_key: str, http: HttpCall,
                 probe_token: Optional[Callable[[], str]] = None, server_host: Optional[str] = None,
                 thresholds: Optional[thresholds_mod.Thresholds] = None,
                 clock: Callable[[], float] = _time.monotonic,
                 cpu_clock: Callable[[], float] = _time.process_time,
                 check_stop: Callable[[], None] = lambda: None):
        self.params = params
        self.server_uri = server_uri.rstrip("/")
        self._auth = {"Authorization": "Splunk " + session_key}
        self.http = http
        self.probe_token = probe_token
        self.server_host = server_host
        self.clock = clock
        self.cpu_clock = cpu_clock
        self.check_stop = check_stop
        self.window: Optional[Window] = None
        self._use(thresholds or thresholds_mod.defaults())
        self.errors = ErrorLog()
        self.gate = FindingGate()
        self.absent: Set[str] = set()               # endpoints that answered 404: skipped
        self._good: Set[str] = set()                  # config endpoints with a good reading
        self._config_parts: Dict[str, Evidence] = {}  # config endpoint -> its last good reading
        self._config_read_at: Dict[str, float] = {}   # config endpoint -> when that reading was taken
        self._config_key: Optional[str] = None
        self._config_at = 0.0
        self._macros_key: Optional[Tuple[Any, ...]] = None   # the last threshold macros read (None: never)
        self._defaults_said = False
        self._token: Optional[str] = None
        self._token_retry_at = 0.0
        self._last_averages_at: Optional[float] = None
        self.polls = 0

    def _use(self, th: thresholds_mod.Thresholds) -> None:
        """Judge with `th` from now on; the window is resized to its sustained test, polls kept."""
        self.thresholds = th
        interval = self.params.poll_interval
        span = max(th.sustained_window_min * 60.0, th.sustained_of_samples * interval)
        polls = min(WINDOW_MAX_POLLS, max(int(th.sustained_of_samples), int(span / interval) + 1))
        old, self.window = self.window, Window(polls, span, int(th.sustained_of_samples))
        for ev, at in zip(old.polls, old.times) if old else ():
            self.window.add(ev, at)

    # -- one call ------------------------------------------------------------
    def _failure(self, res: PollResult, endpoint: str, kind: str, f: Fetched, now: float,
                 capability: Optional[str] = None, errors: Optional[List[Tuple[str, str]]] = None) -> None:
        if errors is not None:
            errors.append((endpoint, kind))
        fields: Dict[str, Any] = {"status": f.status, "elapsed_ms": "%.0f" % f.elapsed_ms}
        if kind in ("401", "403"):
            fields["missing_capability"] = missing_capability(f.body) or capability
            if kind == "401":
                fields["hint"] = "the session key was rejected"
        if kind == "404":
            fields["action"] = "endpoint absent in this splunkd version: skipped until the input restarts"
        if f.detail:
            fields["detail"] = f.detail[:200]
        elif f.body and kind not in ("malformed",):
            fields["message"] = error_text(f.body)
        line = self.errors.report(endpoint, kind, now, **fields)
        if line is not None:
            res.logs.append(line)

    def _fetch(self, ep: Endpoint) -> Fetched:
        return self.http("GET", self.server_uri + target(ep), dict(self._auth), None, "splunkd")

    # -- HEC ---------------------------------------------------------------------
    def _token_value(self, res: PollResult, now: float) -> Optional[str]:
        if self.probe_token is None or not self.params.hec_token_credential:
            return None
        if self._token is None and now >= self._token_retry_at:
            try:
                self._token = self.probe_token() or None
                if self._token is None:
                    raise ValueError("the credential has an empty password")
            except Exception as e:  # the credential store is outside us: never stop the poll
                self._token_retry_at = now + CREDENTIAL_RETRY_S
                line = self.errors.report("storage/passwords", "credential", now,
                                          credential=self.params.hec_token_credential,
                                          missing_capability="list_storage_passwords",
                                          detail=("%s: %s" % (type(e).__name__, e))[:200],
                                          action="HEC request latency not measured; retried in 5 minutes")
                if line is not None:
                    res.logs.append(line)
        return self._token

    def _hec(self, ev: Evidence, res: PollResult, now: float, lat: Dict[str, float],
             errors: List[Tuple[str, str]]) -> None:
        urls = hec_urls(self.params, ev.config)
        if urls is None:
            return
        health_url, event_url = urls
        f = self.http("GET", health_url, {}, None, "hec")
        self._probe(ev, res, now, lat, errors, HEC_HEALTH, f)
        self.check_stop()
        token = self._token_value(res, now)
        if token is None:
            return
        body = json.dumps({"event": "ingest_doctor latency probe", "sourcetype": PROBE_SOURCETYPE,
                           "source": SCHEME, "time": round(now, 3)}).encode("utf-8")
        f = self.http("POST", event_url, {"Authorization": "Splunk " + token,
                                          "Content-Type": "application/json"}, body, "hec")
        if f.status in (401, 403):
            self._token = None          # rotated or disabled: read the credential again next poll
        self._probe(ev, res, now, lat, errors, HEC_EVENT, f)

    def _probe(self, ev: Evidence, res: PollResult, now: float, lat: Dict[str, float],
               errors: List[Tuple[str, str]], name: str, f: Fetched) -> None:
        lat[name] = f.elapsed_ms
        body: Any = None
        if f.body:
            try:
                body = json.loads(f.body[:65536].decode("utf-8", "replace"))
            except ValueError:
                body = None
        kind = "health" if name == HEC_HEALTH else "event"
        answered = f.error is None and f.status is not None
        probe = hec_mod.probe_from_dict({"time": now, "status": f.status if answered else None,
                                         "rtt_ms": round(f.elapsed_ms, 3) if answered else None,
                                         "body": body, "kind": kind}, "collector " + name)
        if probe is not None:
            ev.hec_probes.append(probe)
        ekind = error_kind(f)
        if ekind is None and f.body and body is None:
            ekind = "malformed"
        # A 503/429 with an HEC code (18-20 or 26-27 from health, 9 from an event) is an answer, not a fault.
        if ekind is not None and not (f.status in model.HEC_BUSY_STATUSES and probe is not None
                                      and probe.code is not None):
            self._failure(res, name, ekind, f, now, None, errors)

    # -- a poll ------------------------------------------------------------------
    def poll(self, now: float, threads: Optional[Sequence[Any]] = None) -> PollResult:
        """One poll at epoch time `now`. `threads` are this poll's procthreads.ThreadBusy
        (None when per-thread CPU is off or unavailable)."""
        t0, c0 = self.clock(), self.cpu_clock()
        res = PollResult()
        errors: List[Tuple[str, str]] = []
        reading = readstep.read(self._fetch, self._due(now), now, MAX_BODY_BYTES, self.check_stop)
        ev, lat = reading.evidence, dict(reading.latency_ms)
        for fault in reading.faults:
            if fault.kind == "404":
                self.absent.add(fault.path)
            self._failure(res, fault.path, fault.kind, fault.fetched, now, fault.endpoint.capability, errors)
        self._config_parts.update(reading.config)
        self._good.update(reading.config)
        self._take_macros(reading, res)
        readstep.merge_config(ev, self._config_parts)
        if not ev.host:
            ev.host = self.server_host
        self.check_stop()
        self._hec(ev, res, now, lat, errors)
        if threads is not None:
            by_name: Dict[str, float] = {}
            for t in threads:
                if t.busy_pct > by_name.get(t.thread, -1.0):
                    by_name[t.thread] = t.busy_pct
            ev.threads.extend(ThreadSample(now, name, pct, None, "sample", "collector /proc")
                              for name, pct in by_name.items())
            ev.saw("proc")
        window = self.window
        assert window is not None
        window.add(ev, now)
        try:
            report = diagnose_mod.diagnose(window.merged(), self.thresholds)
        except Exception as e:  # the engine promises not to raise; if it does, the metrics still go out
            report = Report(ev.host)
            line = self.errors.report("diagnose", "error", now, detail=("%s: %s" % (type(e).__name__, e))[:200])
            if line is not None:
                res.logs.append(line)
        res.report = report
        stamp = now
        # Config first (on start and on change), then this poll's metrics, then findings.
        key = config_key(ev.config)
        # Re-sent daily as well, so a search for "the latest config event" needs a short window only.
        stale = now - self._config_at >= CONFIG_REFRESH_S
        if (key != self._config_key or stale) and self._config_parts:
            self._config_key, self._config_at = key, now
            res.events.append(Out("config", stamp, {"host": ev.host, "time": round(stamp, 3),
                                                    "config": ev.config.to_dict()}))
        averages = self._last_averages_at is None or now - self._last_averages_at >= 60.0
        if averages:
            self._last_averages_at = now
        duration_ms = (self.clock() - t0) * 1000.0
        cpu_ms = (self.cpu_clock() - c0) * 1000.0
        for data in metrics_events.build(ev, threads or (), lat, errors, duration_ms, cpu_ms, averages):
            res.events.append(Out("metrics", stamp, data))
        for f in self.gate.select(report, now):
            d = f.to_dict()
            d["detected_by"] = "collector"
            res.events.append(Out("finding", stamp, d))
        self.polls += 1
        return res

    def _due(self, now: float) -> List[Endpoint]:
        """This poll's endpoints: every runtime one; configuration ones without a good reading yet;
        and one known configuration endpoint, the longest unread, once a minute has passed since its
        last read. Scheduling by the last attempt (not the last success) keeps a failing endpoint from
        starving the others."""
        known = [(self._config_read_at.get(ep.path, 0.0), i, ep.path) for i, ep in enumerate(ENDPOINTS)
                 if ep.config and ep.path in self._good and ep.path not in self.absent
                 and now - self._config_read_at.get(ep.path, 0.0) >= CONFIG_POLL_S]
        refresh = min(known)[2] if known else None
        due = []
        for ep in ENDPOINTS:
            if ep.path in self.absent or (ep.config and ep.path in self._good and ep.path != refresh):
                continue
            if ep.config:
                self._config_read_at[ep.path] = now
            due.append(ep)
        return due

    def _take_macros(self, reading: readstep.Reading, res: PollResult) -> None:
        """Judge with the tuned threshold macros; the last good reading stands through failures,
        and the defaults (said once in the log) until a first reading."""
        if reading.macros is None:
            failed = [f for f in reading.faults if f.path == MACROS]
            if failed and self._macros_key is None and not self._defaults_said:
                self._defaults_said = True
                res.logs.append(LogLine("WARN", kv(
                    "thresholds", source="defaults", endpoint=MACROS, kind=failed[0].kind,
                    action="judging with the default thresholds until the ingest_doctor_* macros can be read")))
            return
        self._good.add(MACROS)
        th, problems = readstep.thresholds(reading.macros)
        key = (tuple(sorted(th.values.items())), tuple(problems))
        if key == self._macros_key:
            return
        self._macros_key = key
        if th.values != self.thresholds.values:
            self._use(th)
        tuned = thresholds_mod.changed(th)
        if tuned or problems:
            res.logs.append(LogLine("WARN" if problems else "INFO", kv(
                "thresholds", source="macros",
                tuned=",".join("%s=%g" % kv_ for kv_ in sorted(tuned.items())) or None,
                invalid="; ".join(problems)[:300] or None)))
