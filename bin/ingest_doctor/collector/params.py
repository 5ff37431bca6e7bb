"""The modular input's parameters: the table its scheme prints, their validation, and the
HEC probe token's credential.

ta/globalConfig.json (ucc-gen) is the parameters' one source for the add-on's Inputs page,
inputs.conf and README/inputs.conf.spec; PARAMS must equal it (tests/gates/test_gates_ta_globalconfig.py).
Pure: no splunklib, no network.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Tuple
from urllib.parse import urlsplit

from ingest_doctor.read import rest
from ingest_doctor.collector import tls
from ingest_doctor.delivery import messages

SCHEME = "ingest_doctor_introspection"
DEFAULT_METRICS_INDEX = "ingest_doctor_metrics"
# The add-on's HEC probe tokens, as its Configuration page (ucc-gen, ta/globalConfig.json tab
# "account") stores them in storage/passwords: in the add-on's namespace, this realm, the
# token's name as user, the password a JSON object {"token": ...}.
CREDENTIAL_APP = "TA-ingest_doctor"
DEFAULT_CREDENTIAL_REALM = "__REST_CREDENTIAL__#TA-ingest_doctor#configs/conf-ta_ingest_doctor_account"
HEC_HEALTH_PATH = "/services/collector/health"

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
# the scheme (--scheme) prints, must equal it (tests/gates/test_gates_ta_globalconfig.py).
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
    Param("web_messages", "Splunk Web messages",
          "Post a Splunk Web message on this instance when a finding at warning or above is new or escalated, "
          "and remove it when the finding resolves (at most 5 a poll, then one summary). Default true.",
          "boolean", "1"),
    Param("message_roles", "Splunk Web message roles",
          "Roles that see this instance's Splunk Web messages, comma-separated (each must exist here). "
          "Default admin: only those who can act on a finding see it.", "string", "admin"),
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
    web_messages: bool = True
    message_roles: Tuple[str, ...] = messages.DEFAULT_ROLES

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
    try:
        roles = messages.parse_roles(_text(raw, "message_roles"))
    except ValueError as e:
        raise ParamError(str(e)) from None
    return Params(interval, url, cred, _bool(raw, "thread_cpu", True), _bool(raw, "hec_tls_verify", True),
                  ca, timeout, index, names, web_messages=_bool(raw, "web_messages", True), message_roles=roles)


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
