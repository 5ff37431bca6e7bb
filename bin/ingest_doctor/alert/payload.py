"""The custom alert action's input: splunkd's JSON payload and our parameters.

splunkd runs `ingest_doctor_flag.py --execute` with one JSON object on stdin
(`payload_format = json`): server_uri, session_key, results_file, sid,
search_name, app, owner, result (first row) and `configuration` (the
`param.*` of alert_actions.conf merged with the saved search's
`action.ingest_doctor_flag.param.*`). Every problem is raised as an
AlertError carrying its exit code, with a message an admin can act on.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import IO, Any, Dict, FrozenSet, Mapping, Optional, Tuple
from urllib.parse import urlsplit

from ingest_doctor import exitcodes
from ingest_doctor.delivery.messages import DEFAULT_ROLES, parse_roles
from ingest_doctor.findings import SEVERITIES
from ingest_doctor.logfmt import kv


class AlertError(Exception):
    """An error that ends the run with `code`; the message goes to stderr as is."""
    code = exitcodes.UNEXPECTED

    def __init__(self, message: str, code: Optional[int] = None):
        Exception.__init__(self, message)
        if code is not None:
            self.code = code


class BadInput(AlertError):
    code = exitcodes.BAD_INPUT


class BadConfig(AlertError):
    code = exitcodes.BAD_CONFIG


class Transient(AlertError):
    code = exitcodes.TRANSIENT


DEFAULT_MIN_SEVERITY = "warning"
LOG_LEVELS = ("DEBUG", "INFO", "WARN", "ERROR")
_LEVEL_ALIASES = {"WARNING": "WARN", "CRITICAL": "ERROR", "FATAL": "ERROR"}
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
# Splunk index names: lowercase letters, digits, `_` and `-`, not starting with
# `_` (internal indexes are not ours to write) or `-`.
_INDEX = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")
_HOST = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$")
_IPV6 = re.compile(r"^[0-9A-Fa-f:.]+$")


# The app's settings for every alert at once, editable in Splunk Web (Settings > Advanced search >
# Search macros, linked from the Setup view); an alert's own non-empty parameter (its *Trigger
# actions* form, or param.* in local/alert_actions.conf for all) still wins.
MIN_SEVERITY_MACRO = "ingest_doctor_min_severity"
# The webhook URL may carry the receiver's secret (a path or token): it is kept encrypted in
# storage/passwords (realm WEBHOOK_REALM, name WEBHOOK_NAME, in the app), never in a macro or conf.
# A URL an earlier version's admin left in this macro (local/macros.conf) is still used, with a warning.
WEBHOOK_MACRO = "ingest_doctor_webhook_url"
WEBHOOK_REALM = "ingest_doctor"
WEBHOOK_NAME = "webhook_url"
# Targets the outbound policy refuses unless named (delivery/outbound.py): not a secret, so a macro.
ALLOW_MACRO = "ingest_doctor_webhook_allow"
_UNSET = ("", "none", "-")


@dataclass(frozen=True)
class AlertParams:
    min_severity: str = DEFAULT_MIN_SEVERITY
    webhook_url: Optional[str] = None
    index: Optional[str] = None  # None: follow the `ingest_doctor_events_index` macro
    web_messages: bool = True  # new or escalated findings as Splunk Web messages
    given: FrozenSet[str] = frozenset()  # parameters set (non-empty) in the payload: the macros do not apply
    log_level: str = "INFO"  # the action's log (splunkd.log and ingest_doctor_flag.log)
    message_roles: Tuple[str, ...] = DEFAULT_ROLES  # who sees the Splunk Web messages (alert_actions.conf)


@dataclass(frozen=True)
class Payload:
    server_uri: str
    session_key: str
    results_file: str
    sid: str
    search_name: str
    app: str
    owner: str
    results_link: str
    params: AlertParams


def validate_webhook_url(url: str) -> str:
    """https only, with a host; no spaces, no credentials in the URL."""
    url = url.strip()
    if any(c.isspace() for c in url):
        raise BadConfig("webhook_url must not contain spaces")
    try:
        parts = urlsplit(url)
        port = parts.port          # raises ValueError on a bad port
    except ValueError as e:
        raise BadConfig("webhook_url is not a valid URL (%s)" % e) from None
    if parts.scheme.lower() != "https":
        raise BadConfig("webhook_url must use https:// (got %s://); findings are never sent in clear text"
                        % (parts.scheme or "no scheme"))
    host = parts.hostname or ""
    if not host or not (_HOST.match(host) or (":" in host and _IPV6.match(host))) or ".." in host:
        raise BadConfig("webhook_url has no valid host name")
    if parts.username or parts.password:
        raise BadConfig("webhook_url must not carry credentials; use a secret path or token the receiver checks")
    if port is not None and not 0 < port < 65536:
        raise BadConfig("webhook_url port %s is out of range" % port)
    return url


def parse_params(conf: Mapping[str, Any]) -> AlertParams:
    if not isinstance(conf, Mapping):
        raise BadInput("payload 'configuration' is not an object")
    raw_sev = str(conf.get("min_severity") or "").strip().lower()
    sev = raw_sev or DEFAULT_MIN_SEVERITY
    if sev not in SEVERITIES:
        raise BadConfig("min_severity=%r is not one of %s" % (sev, ", ".join(SEVERITIES)))
    raw_url = str(conf.get("webhook_url") or "").strip()
    url = validate_webhook_url(raw_url) if raw_url else None
    given = frozenset(k for k, v in (("min_severity", raw_sev), ("webhook_url", raw_url)) if v)
    raw_index = str(conf.get("index") or "").strip()
    if raw_index and not _INDEX.match(raw_index):
        raise BadConfig("index=%r is not a valid index name (lowercase letters, digits, _ and -; "
                        "not an internal index)" % raw_index)
    raw_msgs = str(conf.get("web_messages", "1") or "1").strip().lower()
    if raw_msgs not in _TRUE + _FALSE:
        raise BadConfig("web_messages=%r is neither true nor false (1/0)" % raw_msgs)
    raw_level = str(conf.get("log_level") or "INFO").strip().upper()
    level = _LEVEL_ALIASES.get(raw_level, raw_level)
    if level not in LOG_LEVELS:
        raise BadConfig("log_level=%r is not one of %s" % (raw_level, ", ".join(LOG_LEVELS)))
    try:
        roles = parse_roles(conf.get("message_roles"))
    except ValueError as e:
        raise BadConfig(str(e)) from None
    return AlertParams(sev, url, raw_index or None, raw_msgs in _TRUE, given, level, roles)


def _macro_value(definition: Optional[str]) -> str:
    v = (definition or "").strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = v[1:-1].strip()
    return "" if v.lower() in _UNSET else v


def legacy_webhook(params: AlertParams, macros: Mapping[str, str]) -> bool:
    """An alert that takes its webhook from the app's settings, and a URL left in the old macro."""
    return "webhook_url" not in params.given and bool(_macro_value(macros.get(WEBHOOK_MACRO)))


def apply_settings(params: AlertParams, macros: Mapping[str, str], stored_url: Optional[str] = None
                   ) -> AlertParams:
    """The parameters an alert left empty, from the app's settings (one place for all alerts): the
    minimum severity from its macro, the webhook URL from storage/passwords (`stored_url`), else
    from the old macro."""
    sev, url = params.min_severity, params.webhook_url
    if "min_severity" not in params.given and MIN_SEVERITY_MACRO in macros:
        sev = _macro_value(macros[MIN_SEVERITY_MACRO]).lower() or DEFAULT_MIN_SEVERITY
        if sev not in SEVERITIES:
            raise BadConfig("macro %s is %r, not one of %s (Settings > Advanced search > Search macros)"
                            % (MIN_SEVERITY_MACRO, sev, ", ".join(SEVERITIES)))
    if "webhook_url" not in params.given and stored_url is not None and stored_url.strip():
        try:
            url = validate_webhook_url(stored_url)
        except BadConfig as e:
            raise BadConfig("the webhook URL of the app's notification settings (storage/passwords %s:%s): %s"
                            % (WEBHOOK_REALM, WEBHOOK_NAME, e)) from None
    elif "webhook_url" not in params.given and WEBHOOK_MACRO in macros:
        raw = _macro_value(macros[WEBHOOK_MACRO])
        try:
            url = validate_webhook_url(raw) if raw else None
        except BadConfig as e:
            raise BadConfig("macro %s: %s" % (WEBHOOK_MACRO, e)) from None
    return replace(params, min_severity=sev, webhook_url=url)


def _required_str(data: Mapping[str, Any], key: str) -> str:
    v = data.get(key)
    if not isinstance(v, str) or not v.strip():
        raise BadInput("payload has no %s" % key)
    return v.strip()


def parse_payload(text: str) -> Payload:
    if not text.strip():
        raise BadInput("no payload on stdin (is payload_format = json set in alert_actions.conf?)")
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BadInput("payload on stdin is not JSON (%s)" % e) from None
    if not isinstance(data, dict):
        raise BadInput("payload on stdin is not a JSON object")
    server_uri = _required_str(data, "server_uri")
    if urlsplit(server_uri).scheme not in ("https", "http") or not urlsplit(server_uri).hostname:
        raise BadInput("payload server_uri %r is not a URL" % server_uri)
    params = parse_params(data.get("configuration") or {})
    return Payload(
        server_uri=server_uri.rstrip("/"),
        session_key=_required_str(data, "session_key"),
        results_file=_required_str(data, "results_file"),
        sid=str(data.get("sid") or ""),
        search_name=str(data.get("search_name") or ""),
        app=str(data.get("app") or "ingest_doctor"),
        owner=str(data.get("owner") or "nobody"),
        results_link=str(data.get("results_link") or ""),
        params=params,
    )


def index_from_macro(definition: Optional[str]) -> Optional[str]:
    """`index=main` (the `ingest_doctor_events_index` macro) -> "main"; anything fancier -> None."""
    if not definition:
        return None
    m = re.match(r'^\s*index\s*=\s*"?([a-z0-9][a-z0-9_-]*)"?\s*$', definition)
    return m.group(1) if m else None


def describe(payload: Payload) -> Dict[str, str]:
    """What may be logged about a payload: never the session key."""
    return {"sid": payload.sid, "search_name": payload.search_name, "min_severity": payload.params.min_severity,
            "webhook": "set" if payload.params.webhook_url else "none",
            "web_messages": "on" if payload.params.web_messages else "off"}


def _rank(level: str) -> int:
    name = _LEVEL_ALIASES.get(level, level)
    return LOG_LEVELS.index(name) if name in LOG_LEVELS else LOG_LEVELS.index("INFO")


class Logger:
    """The action's log: `LEVEL category=... key=value` lines at or above `level`, on stderr (splunkd
    files them in splunkd.log) and, when given, in the action's own file (anything with `write(line)`)."""

    def __init__(self, stderr: IO[str], file: Any = None, level: str = "INFO"):
        self.stderr = stderr
        self.file = file
        self.level = level

    def __call__(self, level: str, category: str, **fields: Any) -> None:
        if _rank(level) < _rank(self.level):
            return
        line = "%s %s" % (level, kv(category, **fields))
        self.stderr.write(line + "\n")
        self.stderr.flush()
        if self.file is not None:
            self.file.write(line)


def make_logger(stderr: IO[str], file: Any = None) -> Logger:
    return Logger(stderr, file)
