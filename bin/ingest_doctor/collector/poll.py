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
on with the rest. A 404 means the endpoint does not exist (this splunkd
version, or an app or a role not there yet): it is noted once and skipped, then
re-probed on a back-off (ABSENT_RETRY_S, doubling up to ABSENT_MAX_S); the log
says when it answers again.
"""
from __future__ import annotations

import json
import time as _time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple
from urllib.parse import urlsplit

from ingest_doctor import diagnose as diagnose_mod
from ingest_doctor.collector.gate import ErrorLog, FindingGate
from ingest_doctor.collector.window import WINDOW_MAX_POLLS, Window
from ingest_doctor.read import hec as hec_mod
from ingest_doctor.delivery import messages as messages_mod
from ingest_doctor.collector import metrics_events
from ingest_doctor import model
from ingest_doctor.read import readstep
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.read.endpoints import COLLECTOR as ENDPOINTS
from ingest_doctor.read.endpoints import MACROS, Endpoint, Fetched, error_kind, error_text, missing_capability, target
from ingest_doctor.evidence import Config, Evidence, ThreadSample
from ingest_doctor.findings import Report
from ingest_doctor.logfmt import LogLine, kv
from ingest_doctor.collector.params import HEC_HEALTH_PATH, SCHEME, Params
from ingest_doctor.delivery.resolution import OpenFindings

CREDENTIAL_RETRY_S = 300.0          # a probe token that could not be read is retried this often
ABSENT_RETRY_S = 120.0              # an endpoint that answered 404 is asked again after this ...
ABSENT_MAX_S = 960.0                # ... doubling each time it is still absent, up to this
MAX_BODY_BYTES = readstep.MAX_BODY_BYTES


# --------------------------------------------------------------------------- HEC probe

HEC_HEALTH = "hec/health"
HEC_EVENT = "hec/event"
HEC_EVENT_PATH = "/services/collector/event"
PROBE_SOURCETYPE = "ingest_doctor:probe"

# method, url, headers, body, tls ("splunkd" | "hec") -> Fetched. Never raises for network faults.
HttpCall = Callable[[str, str, Dict[str, str], Optional[bytes], str], Fetched]


# --------------------------------------------------------------------------- config

CONFIG_REFRESH_S = 86400.0
# Configuration endpoints are re-read about once a minute, one a poll, not all every poll: they change
# rarely, and with splunkd closing each connection every call costs a TLS handshake (see `make bench`).
CONFIG_POLL_S = 60.0


def config_key(config: Config) -> str:
    return json.dumps(config.to_dict(), sort_keys=True, separators=(",", ":"))


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
    messages: Optional[messages_mod.MessagePlan] = None    # Splunk Web messages to post on this instance
    changes: List[messages_mod.Change] = field(default_factory=list)   # opened/escalated/resolved: the webhook's


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
        self._urls: Dict[str, str] = {}             # endpoint path -> its URL
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
        self.open_findings = OpenFindings()
        self.absent: Dict[str, Tuple[float, float]] = {}   # 404 endpoint -> (re-probe at, back-off)
        self._good: Set[str] = set()                  # config endpoints with a good reading
        self._config_parts: Dict[str, Evidence] = {}  # config endpoint -> its last good reading
        self._config_read_at: Dict[str, float] = {}   # config endpoint -> when that reading was taken
        self._config_key: Optional[str] = None
        self._config_last: Optional[Config] = None       # the last poll's config and its `config_key`
        self._config_last_key = ""
        self._config_at = 0.0
        self._macros_key: Optional[Tuple[Any, ...]] = None   # the last threshold macros read (None: never)
        self._macros_read: Optional[Dict[str, str]] = None   # ... as splunkd listed them
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
            back = self.absent.get(endpoint, (0.0, ABSENT_RETRY_S))[1]
            fields["action"] = ("endpoint absent (this splunkd version, or not installed yet): re-probed in %d s, "
                                "then less often" % back)
        if f.detail:
            fields["detail"] = f.detail[:200]
        elif f.body and kind not in ("malformed",):
            fields["message"] = error_text(f.body)
        line = self.errors.report(endpoint, kind, now, **fields)
        if line is not None:
            res.logs.append(line)

    def _fetch(self, ep: Endpoint) -> Fetched:
        url = self._urls.get(ep.path)
        if url is None:                 # each endpoint's URL made once (the table is fixed)
            url = self._urls[ep.path] = self.server_uri + target(ep)
        return self.http("GET", url, dict(self._auth), None, "splunkd")

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
        due = self._due(now)
        reading = readstep.read(self._fetch, due, now, MAX_BODY_BYTES, self.check_stop)
        ev, lat = reading.evidence, dict(reading.latency_ms)
        faulted = {fault.path: fault.kind for fault in reading.faults}
        for ep in due:
            if ep.path in self.absent and faulted.get(ep.path) != "404":
                del self.absent[ep.path]           # it exists again (another fault is reported as such)
                if ep.path not in faulted:
                    res.logs.append(LogLine("INFO", kv("endpoint", endpoint=ep.path, kind="back",
                                                       action="answers again after a 404: read from now on")))
        for fault in reading.faults:
            if fault.kind == "404":
                prev = self.absent.get(fault.path)
                back = min(prev[1] * 2, ABSENT_MAX_S) if prev else ABSENT_RETRY_S
                self.absent[fault.path] = (now + back, back)
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
            report = diagnose_mod.diagnose(window.merged(), self.thresholds, finite=window.finite)
        except Exception as e:  # the engine promises not to raise; if it does, the metrics still go out
            report = Report(ev.host)
            line = self.errors.report("diagnose", "error", now, detail=("%s: %s" % (type(e).__name__, e))[:200])
            if line is not None:
                res.logs.append(line)
        res.report = report
        stamp = now
        # Config first (on start and on change), then this poll's metrics, then findings.
        if ev.config != self._config_last:     # serialised again only when it changed
            self._config_last, self._config_last_key = ev.config, config_key(ev.config)
        key = self._config_last_key
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
        self._track(report, ev.config, res, now)
        self.polls += 1
        return res

    def _track(self, report: Report, config: Config, res: PollResult, now: float) -> None:
        """Findings that ended become resolution events (resolution.py); new, escalated and ended
        findings become this instance's Splunk Web messages (messages.py)."""
        tracked = self.open_findings.update(report.findings, config, now)
        res.changes = tracked.changes
        for d in tracked.resolved:
            self.gate.forget(d["id"])
            res.events.append(Out("finding", now, d))
        if self.params.web_messages and tracked.changes:
            res.messages = messages_mod.plan(tracked.changes) or None

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
            if ep.path in self.absent:
                if now < self.absent[ep.path][0]:
                    continue                       # absent: not asked again before its back-off
                due.append(ep)                     # re-probed (a config one is read whole: _good or not)
                continue
            if ep.config and ep.path in self._good and ep.path != refresh:
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
        if reading.macros == self._macros_read:     # the same macros judge the same: nothing to do
            return
        th, problems = thresholds_mod.from_macros(reading.macros)
        self._macros_read = dict(reading.macros)
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
