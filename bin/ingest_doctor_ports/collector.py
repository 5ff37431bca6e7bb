"""The collector's side of the network: HEC (its TLS policy and probe token) and the HTTP call
the core polls with. splunkd calls go through the one splunkd port (ingest_doctor_ports/splunkd.py).

Kept out of the pure core (bin/ingest_doctor/ never touches the network) and out of the modular
input shell, which only wires it up. Every network fault becomes an `endpoints.Fetched` with an
error kind; nothing here raises for a fault.
"""
from __future__ import annotations

import io
import os
import ssl
from typing import Any, Callable, Dict, Optional
from urllib.parse import urlsplit

from ingest_doctor.collector import poll as collector, params as params_mod, tls
from ingest_doctor.read import rest
from ingest_doctor.read.endpoints import Fetched
from ingest_doctor_ports import logfile
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


def splunklib_handler(http: HttpCall) -> Callable[..., Dict[str, Any]]:
    """A splunklib HTTP handler (`handler(url, message) -> response dict`, splunklib's documented
    `handler` protocol) over our splunkd port: its bounded time, keep-alive and TLS policy."""
    def request(url: str, message: Dict[str, Any], **kwargs: Any) -> Dict[str, Any]:
        body = message.get("body") or None
        if isinstance(body, str):
            body = body.encode("utf-8")
        f = http(message.get("method", "GET"), url, dict(message.get("headers") or []), body, "splunkd")
        if f.error:
            raise OSError("%s: %s" % (f.error, f.detail) if f.detail else f.error)
        return {"status": f.status, "reason": "", "headers": [], "body": io.BytesIO(f.body)}
    return request


def bound_service(service: Any, http: HttpCall) -> Any:
    """Route a solnlib client's splunklib Service through our port. solnlib builds its Service with
    splunklib's default handler, which has no timeout when `requests` is absent (we do not vendor it),
    and takes no handler of its own; the Service it exposes (`CredentialManager.service`, public) keeps
    its handler in splunklib's public `Context.http.handler`. tests/install/test_install_bounded.py fails if
    solnlib stops sending its calls through that Service."""
    service.http.handler = splunklib_handler(http)
    return service


def credential_reader(params: params_mod.Params, session_key: str, server_uri: str, http: HttpCall):
    """Reads the HEC probe token from storage/passwords through solnlib (imported only when used),
    every call over `http` (the collector's port: its request_timeout bounds each)."""
    cred = params.credential()
    if cred is None:
        return None
    realm, name = cred
    uri = urlsplit(server_uri)

    def read() -> str:
        from solnlib.credentials import CredentialManager
        manager = CredentialManager(session_key, APP, realm=realm, scheme=uri.scheme, host=uri.hostname,
                                    port=uri.port)
        bound_service(manager.service, http)
        return params_mod.probe_token(manager.get_password(name))
    return read


SETTINGS_PATH = "/servicesNS/nobody/%s/configs/conf-ta_ingest_doctor_settings/logging" % APP


def log_level(http: HttpCall, server_uri: str, session_key: str) -> Optional[str]:
    """The add-on's Logging tab (ta_ingest_doctor_settings.conf [logging] loglevel, written by UCC's
    page), read over the collector's port; None when it cannot be read (the caller keeps its level)."""
    f = http("GET", server_uri.rstrip("/") + SETTINGS_PATH + "?output_mode=json",
             {"Authorization": "Splunk " + session_key}, None, "splunkd")
    if f.error or f.status != 200:
        return None
    try:
        found = [e.content.get("loglevel") for e in rest.entries(f.body) if e.name == "logging"]
    except rest.RestError:
        return None
    if not found or not found[0]:
        return None
    return logfile.level_name(found[0], "") or None
