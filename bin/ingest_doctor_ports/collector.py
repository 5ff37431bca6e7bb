"""The collector's side of the network: HEC (its TLS policy and probe token) and the HTTP call
the core polls with. splunkd calls go through the one splunkd port (ingest_doctor_ports/splunkd.py).

Kept out of the pure core (bin/ingest_doctor/ never touches the network) and out of the modular
input shell, which only wires it up. Every network fault becomes an `endpoints.Fetched` with an
error kind; nothing here raises for a fault.
"""
from __future__ import annotations

import os
import ssl
from urllib.parse import urlsplit

from ingest_doctor.collector import poll as collector, params as params_mod, tls
from ingest_doctor_ports.splunkd import Http as _Http
from ingest_doctor_ports.splunkd import unverified

APP = params_mod.CREDENTIAL_APP


def Http(timeout: float, hec_context: ssl.SSLContext, max_body: int = collector.MAX_BODY_BYTES) -> _Http:
    """The collector's HttpCall: the local management port presents splunkd's own (usually
    self-signed) certificate for 127.0.0.1, as splunklib's Script.service connects: not verified;
    HEC as its parameters say."""
    return _Http(timeout, {"splunkd": unverified(), "hec": hec_context}, max_body)


def hec_context(params: params_mod.Params) -> ssl.SSLContext:
    return tls.context(params.tls(), os.environ.get("SPLUNK_HOME"))


def credential_reader(params: params_mod.Params, session_key: str, server_uri: str):
    """Reads the HEC probe token from storage/passwords through solnlib (imported only when used)."""
    cred = params.credential()
    if cred is None:
        return None
    realm, name = cred
    uri = urlsplit(server_uri)

    def read() -> str:
        from solnlib.credentials import CredentialManager
        manager = CredentialManager(session_key, APP, realm=realm, scheme=uri.scheme, host=uri.hostname,
                                    port=uri.port)
        return params_mod.probe_token(manager.get_password(name))
    return read
