"""Every splunkd endpoint the app reads, in one table, and what a failed read means.

Read this file to know what the app asks splunkd for, with which capability,
how often, who reads it, and what a 401/403/404/timeout becomes (a fault kind,
a log line, an exit code). The collector, the CLI `snapshot`/`diagnose` and the
alert action's configuration lookup all take their paths from `ENDPOINTS`;
the read step (readstep.py) reads them.

Pure: no network. The entry scripts' port (bin/ingest_doctor_ports/splunkd.py)
performs the calls and returns `Fetched`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ingest_doctor import exitcodes
from ingest_doctor.evidence import Evidence
from ingest_doctor.read import rest


@dataclass(frozen=True)
class Endpoint:
    """One row of the endpoint table."""
    path: str  # REST path, no leading slash; also the snapshot file rest/<path>.json
    apply: Optional[rest.Applier]  # the rest.py parser that adds the body to an Evidence; None: threshold
                                   # macros
    capability: str  # what a 403 means is missing
    runtime: bool  # True: changes every second (read every poll); False: configuration
    collector: bool = True  # the collector reads it (runtime every poll, configuration once a minute)
    snapshot: bool = True  # the CLI `snapshot` records it and `diagnose` reads it
    alert_config: bool = False  # the alert action reads it for this splunkd's configuration
    query: Tuple[Tuple[str, str], ...] = ()  # extra query parameters, before output_mode=json&count=0

    @property
    def config(self) -> bool:
        return not self.runtime


MACROS = "services/configs/conf-macros"
HEC_SETTINGS = "services/data/inputs/http/http"
SERVER_GENERAL = "services/configs/conf-server/general"
TCPOUT = "services/configs/conf-outputs/tcpout"
PROPS = "services/configs/conf-props"
THRUPUT = "services/configs/conf-limits/thruput"

# Order matters: the collector reads in this order, configuration first (its first poll reads all), and a
# later endpoint's configuration wins over an earlier one's (the global HEC entry over a list's `http` entry).
ENDPOINTS: Tuple[Endpoint, ...] = (
    Endpoint("services/server/info", rest.server_info, "an authenticated session (any role)", False,
             alert_config=True),
    Endpoint("services/data/inputs/http", rest.hec_tokens, "list_token_http (or edit_token_http)", False,
             alert_config=True),
    Endpoint(HEC_SETTINGS, rest.hec_settings, "list_token_http (or edit_token_http)", False, alert_config=True),
    Endpoint(MACROS, None, "an authenticated session (macros are shared with every app)", False,
             query=(("search", "ingest_doctor_"),)),
    Endpoint(SERVER_GENERAL, rest.server_general, "list_settings (read server.conf)",
             False, alert_config=True),
    Endpoint("services/configs/conf-server/queue", rest.server_queue, "list_settings (read server.conf)", False,
             alert_config=True),
    Endpoint(TCPOUT, rest.tcpout, "list_forwarders (read outputs.conf)", False,
             alert_config=True),
    # props.conf is large on a search head and changes rarely: snapshots and the alert read it, polls do not.
    Endpoint(PROPS, rest.props, "an authenticated session (props.conf)", False,
             collector=False, alert_config=True),
    # limits.conf [thruput] maxKBps (256 on universal forwarders): changes rarely; snapshots and diagnose read it.
    Endpoint(THRUPUT, rest.thruput, "list_settings (read limits.conf)", False, collector=False),
    Endpoint("services/server/introspection/queues", rest.queues, "list_introspection", True),
    Endpoint("services/server/introspection/indexer", rest.indexer, "list_introspection", True),
    Endpoint("services/server/pipelinesets", rest.pipelinesets, "list_pipeline_sets", True),
    Endpoint("services/server/status/resource-usage/splunk-processes", rest.splunk_processes,
             "list_introspection", True),
    Endpoint("services/server/status/resource-usage/hostwide", rest.hostwide, "list_introspection", True),
    Endpoint("services/server/health/splunkd/details", rest.health, "list_health", True, collector=False),
)

BY_PATH: Dict[str, Endpoint] = {e.path: e for e in ENDPOINTS}
INFO = ENDPOINTS[0]                 # server/info: the first call of a run (host name; are we let in?)
COLLECTOR = tuple(e for e in ENDPOINTS if e.collector)
SNAPSHOT = tuple(e for e in ENDPOINTS if e.snapshot)
ALERT_CONFIG = tuple(e for e in ENDPOINTS if e.alert_config)
REST_QUERY = (("output_mode", "json"), ("count", "0"))


def query(ep: Endpoint) -> Dict[str, str]:
    """The query parameters of a read of `ep` (JSON mode, every entry)."""
    return dict(ep.query + REST_QUERY)


def target(ep: Endpoint) -> str:
    """'/<path>?<query>' as sent to splunkd."""
    return "/%s?%s" % (ep.path, "&".join("%s=%s" % kv for kv in ep.query + REST_QUERY))


# --------------------------------------------------------------------------- what a call gave

@dataclass
class Fetched:
    """What one HTTP call gave. `error` is a transport failure kind, else None."""
    status: Optional[int]
    body: bytes = b""
    elapsed_ms: float = 0.0
    error: Optional[str] = None  # one of TRANSPORT_KINDS
    detail: str = ""


# Fault kinds. Transport: the port could not complete the call. HTTP: splunkd answered with an error.
# Body: 2xx, but not something a parser can read.
TRANSPORT_KINDS = ("timeout", "refused", "reset", "tls", "truncated", "too_large", "error")
HTTP_KINDS = ("401", "403", "404", "4xx", "5xx")
BODY_KINDS = ("malformed",)

# What each kind means for a one-shot run (CLI, alert action): its exit code (exitcodes.py bands).
_EXIT: Dict[str, int] = {
    "401": exitcodes.AUTH, "403": exitcodes.AUTH,
    "404": exitcodes.UNEXPECTED, "4xx": exitcodes.UNEXPECTED,   # we asked for something splunkd does not serve
    "tls": exitcodes.BAD_CONFIG,                                 # certificate not trusted: a setting to change
}


def error_kind(f: Fetched) -> Optional[str]:
    """The fault kind of a response before its body is parsed (None: HTTP 2xx)."""
    if f.error:
        return f.error
    return status_kind(f.status)


def status_kind(status: Optional[int]) -> Optional[str]:
    if status is None:
        return "error"
    if status in (401, 403, 404):
        return str(status)
    if status >= 500:
        return "5xx"
    if status >= 400:
        return "4xx"
    return None


def exit_code(kind: str) -> int:
    """The exit code of a run that stops on this fault: AUTH, BAD_CONFIG, UNEXPECTED, else TRANSIENT."""
    return _EXIT.get(kind, exitcodes.TRANSIENT)


# Compiled on first use (re's cache): only a 403 body is searched for it.
_CAPABILITY = r"requires capability:?\s*([A-Za-z_][\w]*)"


def error_text(body: bytes, limit: int = 200) -> str:
    """splunkd's own error text from a JSON or Atom error body (all messages, first `limit` characters)."""
    text = body[:4096].decode("utf-8", "replace")
    try:
        data = rest.loads(text)
        msgs = data.get("messages") if isinstance(data, dict) else None
        if isinstance(msgs, list) and msgs:
            return "; ".join(str(m.get("text", "")) for m in msgs if isinstance(m, dict))[:limit]
    except ValueError:
        pass
    m = re.search(r"<msg[^>]*>(.*?)</msg>", text, re.S)
    if m:
        return m.group(1).strip()[:limit]
    if text.lstrip().startswith("<"):
        return "an HTML page"
    return text.strip()[:limit]


def missing_capability(body: bytes) -> Optional[str]:
    """The capability a 403 body names ('... requires capability: list_introspection')."""
    m = re.search(_CAPABILITY, error_text(body)) if body else None
    return m.group(1) if m else None


def apply_rest(evidence: Evidence, path: str, body: rest.Body, time: Optional[float] = None) -> bool:
    """Add what one endpoint body says to `evidence`.

    `time` is the poll time (epoch seconds) for a collector's rolling window,
    None for a snapshot read once. Returns False for a path the engine does not
    use (nothing added). Raises RestError when the body is not an envelope.
    """
    key = rest.normalise_path(path)
    ep = BY_PATH.get(key)
    if ep is None or ep.apply is None:
        return False
    ents = rest.entries(body)
    ep.apply(evidence, ents, time, "rest " + key)
    evidence.saw(key)
    return True
