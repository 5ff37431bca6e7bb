"""solnlib in the add-on (its credentials and conf manager) over the one splunkd port, so the port's
wall-clock deadline (`request_timeout`) bounds every call solnlib makes.

Why the wiring: solnlib builds its splunklib Service with splunklib's default handler, which has
no timeout when `requests` is absent (we do not vendor it: the handler then waits on a hung or
trickling splunkd for as long as it trickles), and takes no handler of its own. A splunklib Service
keeps its handler in the public `Context.http.handler`; we set it to our port's
(`splunklib_handler`, splunklib's documented `handler(url, message)` protocol), on the Service
CredentialManager exposes (`CredentialManager.service`), or on a Service we make for a
`conf_manager.ConfFile`. tests/install/test_install_bounded.py fails if solnlib stops sending its
calls through that Service.

solnlib logs each failed try with its traceback on the root logger (utils.retry); the collector's
entry point gives the root logger a null handler (collector_input.py), so they never reach
splunkd.log; the callers here say what failed in one line.

Imported only by the add-on (its bin/lib has splunklib and solnlib).
"""
from __future__ import annotations

import io
from typing import Any, Callable, Dict, Optional
from urllib.parse import urlsplit

from ingest_doctor.read.endpoints import Fetched

# method, url, headers, body, tls ("splunkd" | "hec") -> Fetched: ingest_doctor_ports.splunkd.Http
HttpCall = Callable[[str, str, Dict[str, str], Optional[bytes], str], Fetched]


def splunklib_handler(http: HttpCall) -> Callable[..., Dict[str, Any]]:
    """A splunklib HTTP handler (`handler(url, message) -> response dict`) over our splunkd port."""
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
    """`service` (a splunklib Service, solnlib's) sending every call through `http`."""
    service.http.handler = splunklib_handler(http)
    return service


def password(http: HttpCall, server_uri: str, session_key: str, app: str, realm: str, name: str) -> str:
    """The clear password `name` of `realm` in storage/passwords, through solnlib's CredentialManager
    over `http`. Raises what solnlib raises (CredentialNotExistException, splunklib's HTTPError) or
    OSError for the port's faults (a timeout: the port's deadline cut it)."""
    from solnlib.credentials import CredentialManager
    uri = urlsplit(server_uri)
    manager = CredentialManager(session_key, app, realm=realm, scheme=uri.scheme, host=uri.hostname, port=uri.port)
    bound_service(manager.service, http)
    return manager.get_password(name)


def conf_stanza(http: HttpCall, server_uri: str, session_key: str, app: str, conf: str, stanza: str
                ) -> Dict[str, Any]:
    """One stanza of `conf` in `app`, through solnlib's conf_manager.ConfFile over `http` (its
    ConfManager makes its own Service, with no way to give it a handler). Raises as `password`, and
    solnlib's ConfStanzaNotExistException, or KeyError when splunkd has no such conf."""
    from solnlib.conf_manager import ConfFile
    from splunklib import client
    uri = urlsplit(server_uri)
    service = client.Service(scheme=uri.scheme, host=uri.hostname, port=uri.port, token=session_key, app=app,
                             owner="nobody", handler=splunklib_handler(http))
    realm = "__REST_CREDENTIAL__#%s#configs/conf-%s" % (app, conf)       # as solnlib's get_log_level
    return ConfFile(conf, service.confs[conf], session_key, app, realm=realm, scheme=uri.scheme,
                    host=uri.hostname, port=uri.port).get(stanza)
