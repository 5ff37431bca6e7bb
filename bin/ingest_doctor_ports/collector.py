"""The collector's side of the network: HEC (its TLS policy and probe token) and the HTTP call
the core polls with. splunkd calls go through the one splunkd port (ingest_doctor_ports/splunkd.py).

Kept out of the pure core (bin/ingest_doctor/ never touches the network) and out of the modular
input shell, which only wires it up. Every network fault becomes an `endpoints.Fetched` with an
error kind; nothing here raises for a fault.
"""
from __future__ import annotations

import os
import ssl
from typing import Callable, Dict, Optional

from ingest_doctor.collector import poll as collector, params as params_mod, tls
from ingest_doctor.read.endpoints import Fetched
from ingest_doctor_ports import bounded, logs
from ingest_doctor_ports.splunkd import Http as _Http
from ingest_doctor_ports.splunkd import unverified

APP = params_mod.CREDENTIAL_APP
# method, url, headers, body, tls ("splunkd" | "hec") -> Fetched: ingest_doctor_ports.splunkd.Http
HttpCall = Callable[[str, str, Dict[str, str], Optional[bytes], str], Fetched]


def Http(timeout: float, hec_context: ssl.SSLContext, max_body: int = collector.MAX_BODY_BYTES) -> _Http:
    """The collector's HttpCall: the local management port presents splunkd's own (usually
    self-signed) certificate for 127.0.0.1, as splunklib's Script.service connects: not verified;
    HEC as its parameters say."""
    return _Http(timeout, {"splunkd": unverified(), "hec": hec_context}, max_body)


def hec_context(params: params_mod.Params) -> ssl.SSLContext:
    return tls.context(params.tls(), os.environ.get("SPLUNK_HOME"))


def credential_reader(params: params_mod.Params, session_key: str, server_uri: str, http: HttpCall):
    """Reads the HEC probe token from storage/passwords through solnlib (bounded.py), every call over
    `http` (the collector's port: its request_timeout bounds each)."""
    cred = params.credential()
    if cred is None:
        return None
    realm, name = cred

    def read() -> str:
        return params_mod.probe_token(bounded.password(http, server_uri, session_key, APP, realm, name))
    return read


SETTINGS_CONF = "ta_ingest_doctor_settings"


def log_level(http: HttpCall, server_uri: str, session_key: str) -> Optional[str]:
    """The add-on's Logging tab (ta_ingest_doctor_settings.conf [logging] loglevel, written by UCC's
    page), read with solnlib's conf manager over the collector's port (bounded.py); None when it
    cannot be read or says nothing we know (the caller keeps its level)."""
    try:
        stanza = bounded.conf_stanza(http, server_uri, session_key, APP, SETTINGS_CONF, "logging")
    except Exception:       # solnlib's and splunklib's errors, the port's faults: keep the level
        return None
    return logs.level_name(stanza.get("loglevel"), "") or None
