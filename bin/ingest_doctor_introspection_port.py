"""The collector's port to the outside: HTTP(S) calls to the local splunkd and to HEC,
and the probe token read from storage/passwords through solnlib.

Kept out of the pure core (bin/ingest_doctor/ never touches the network) and out of
the modular input shell, which only wires it up. Every network fault becomes a
`collector.Fetched` with an error kind; nothing here raises for a fault.
"""
from __future__ import annotations

import http.client
import os
import socket
import ssl
import time
from typing import Dict, Optional, Tuple
from urllib.parse import urlsplit

from ingest_doctor import collector, tls

APP = collector.CREDENTIAL_APP


class Http:
    """HTTP(S) calls with a bounded total time per call; keeps a connection open
    when the server allows it (splunkd does), one per (scheme, host, port, TLS mode)."""

    def __init__(self, timeout: float, hec_context: ssl.SSLContext, max_body: int = collector.MAX_BODY_BYTES):
        self.timeout = timeout
        self.max_body = max_body
        local = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        # The local management port presents splunkd's own (usually self-signed) certificate
        # for 127.0.0.1, as splunklib's Script.service connects: not verified.
        local.check_hostname = False
        local.verify_mode = ssl.CERT_NONE
        self.contexts = {"splunkd": local, "hec": hec_context}
        self.conns: Dict[Tuple[str, str, str], http.client.HTTPConnection] = {}

    def _conn(self, scheme: str, netloc: str, tls: str) -> Tuple[http.client.HTTPConnection, bool]:
        key = (scheme, netloc, tls)
        conn = self.conns.get(key)
        if conn is not None and conn.sock is not None:
            return conn, True
        if scheme == "https":
            conn = http.client.HTTPSConnection(netloc, timeout=self.timeout, context=self.contexts[tls])
        else:
            conn = http.client.HTTPConnection(netloc, timeout=self.timeout)
        self.conns[key] = conn
        return conn, False

    def __call__(self, method: str, url: str, headers: Dict[str, str], body: Optional[bytes],
                 tls: str) -> collector.Fetched:
        start = time.monotonic()
        parts = urlsplit(url)
        target = parts.path + ("?" + parts.query if parts.query else "")
        for attempt in (0, 1):
            conn, reused = self._conn(parts.scheme, parts.netloc, tls)
            try:
                status, data = self._exchange(conn, method, target, headers, body, start + self.timeout)
                return collector.Fetched(status, data, (time.monotonic() - start) * 1000.0)
            except TooLarge as e:
                kind, err = "too_large", e
            except http.client.IncompleteRead as e:
                kind, err = "truncated", e
            except (socket.timeout, TimeoutError) as e:
                kind, err = "timeout", e
            except ConnectionRefusedError as e:
                kind, err = "refused", e
            except ssl.SSLError as e:
                kind, err = "tls", e
            except (ConnectionResetError, BrokenPipeError) as e:    # RemoteDisconnected too
                kind, err = "reset", e
            except (OSError, http.client.HTTPException) as e:
                kind, err = "error", e
            conn.close()
            # A kept-alive connection the server closed while idle fails at once: retry it fresh, once.
            if reused and attempt == 0 and kind in ("reset", "tls", "error"):
                continue
            return self._fault(kind, err, start)
        return self._fault("reset", None, start)

    def _exchange(self, conn: http.client.HTTPConnection, method: str, target: str, headers: Dict[str, str],
                  body: Optional[bytes], deadline: float) -> Tuple[int, bytes]:
        conn.request(method, target, body=body, headers=headers)
        _remaining(conn, deadline)
        resp = conn.getresponse()
        length = resp.getheader("Content-Length")
        if length and length.isdigit() and int(length) > self.max_body:
            raise TooLarge("Content-Length %s" % length)
        chunks = []
        size = 0
        while True:
            _remaining(conn, deadline)
            chunk = resp.read(65536)
            if not chunk:
                break
            size += len(chunk)
            if size > self.max_body:
                raise TooLarge("more than %d bytes" % self.max_body)
            chunks.append(chunk)
        if resp.length:                 # the server closed before its Content-Length
            raise http.client.IncompleteRead(b"".join(chunks), resp.length)
        if resp.will_close:
            conn.close()
        return resp.status, b"".join(chunks)

    @staticmethod
    def _fault(kind: str, e: Optional[BaseException], start: float) -> collector.Fetched:
        detail = ("%s: %s" % (type(e).__name__, e))[:200] if e is not None else ""
        return collector.Fetched(None, b"", (time.monotonic() - start) * 1000.0, kind, detail)

    def close(self) -> None:
        for conn in self.conns.values():
            conn.close()


class TooLarge(Exception):
    pass


def _remaining(conn: http.client.HTTPConnection, deadline: float) -> None:
    left = deadline - time.monotonic()
    if left <= 0:
        raise socket.timeout("request took longer than its timeout")
    if conn.sock is not None:
        conn.sock.settimeout(left)


def hec_context(params: collector.Params) -> ssl.SSLContext:
    return tls.context(params.tls(), os.environ.get("SPLUNK_HOME"))


def credential_reader(params: collector.Params, session_key: str, server_uri: str):
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
        return collector.probe_token(manager.get_password(name))
    return read
