"""The entry scripts' one port to splunkd: HTTP(S) with bounded time, keep-alive, token or
session-key auth, the README's TLS policy and optional retries, on http.client.

Why our own client and not splunklib's `binding` (the search-head app ships no library at all):
splunklib's default handler opens a connection a request (no keep-alive, so a TCP and TLS
handshake each: most of the collector's budget of 10 ms CPU a poll at 4 pipeline sets), bounds
nothing but each read (a server trickling a byte a second holds it for hours), reads a whole body
whatever its size, and has no TLS session resumption. Here: one kept connection per splunkd, the
one wall-clock watchdog (watchdog.py) per call, a body cap read in bounded pieces. Where a library
client is worth its calls (solnlib's credentials and conf manager, in the add-on), it is wired
over this port (bounded.py), so the deadline holds for it too.

Every call returns an `endpoints.Fetched` (status and body, or a transport fault kind); nothing
here raises for a network fault, and nothing here judges: what a fault means for a run
(exit code, log line) is endpoints.py's, what a body says is the read step's.

TLS policy (one place; each script picks its options):
- a CA file: the certificate and host name are verified against it;
- `insecure`: not verified (the CLI's --insecure, the collector's own management port);
- a loopback address, when `trust_loopback` (the alert action, run by that very splunkd):
  not verified (Splunk's own self-signed certificate);
- anything else: verified against the system's trusted CAs.
"""
from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import ssl
import time
from typing import Callable, Dict, Mapping, Optional, Tuple
from urllib.parse import urlencode, urlsplit

from ingest_doctor.read.endpoints import Endpoint, Fetched, error_text, query
from ingest_doctor.read.readstep import MAX_BODY_BYTES
from ingest_doctor_ports.watchdog import Watchdog, remaining

RETRY_STATUSES = (502, 503, 504)                  # "KV Store is initializing", a proxy between restarts
RETRY_KINDS = ("timeout", "refused", "reset", "truncated", "error")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def unverified() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def tls_context(host: str, ca_file: Optional[str] = None, insecure: bool = False,
                trust_loopback: bool = False) -> Tuple[ssl.SSLContext, str]:
    """(context, how it verifies, in words for a log line)."""
    if ca_file:
        return ssl.create_default_context(cafile=ca_file), "verified (CA file)"
    if insecure:
        return unverified(), "not verified"
    if trust_loopback and is_loopback(host):
        return unverified(), "loopback, not verified"
    return ssl.create_default_context(), "verified (system CAs)"


class TooLarge(Exception):
    pass


class _Resuming(http.client.HTTPSConnection):
    """An HTTPS connection that offers the server the TLS session of its last connection, so a
    server that closes connections costs an abbreviated handshake, not a full one, per request
    (the certificate was verified by the full handshake that made the session). Kept for the
    collector's budget (4 pipeline sets: <= 10 ms CPU a poll): a full handshake a request is most of it."""

    def __init__(self, netloc: str, timeout: float, context: ssl.SSLContext,
                 sessions: Dict[Tuple[str, str, str], ssl.SSLSession], key: Tuple[str, str, str],
                 watchdog: Watchdog):
        super().__init__(netloc, timeout=timeout, context=context)
        self._sessions, self._key, self._watchdog = sessions, key, watchdog

    _full = False       # the current socket made a full handshake: its session is worth keeping

    def connect(self) -> None:          # HTTPSConnection.connect, with the session offered
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self._tunnel_host or self.host,
                                              session=self._sessions.get(self._key),
                                              do_handshake_on_connect=False)
        self._watchdog.hold(self.sock)          # a handshake that stalls ends at the deadline too
        self.sock.do_handshake()
        self._full = not getattr(self.sock, "session_reused", False)

    def keep_session(self, sock: ssl.SSLSocket) -> None:
        """The session of `sock`, this connection's socket, to offer on the next connection: read once,
        after a full handshake (reading it costs; a resumed session is the one kept already)."""
        if not self._full:
            return
        self._full = False
        session = getattr(sock, "session", None)
        if session is not None and getattr(session, "has_ticket", True):
            self._sessions[self._key] = session


class Http:
    """HTTP(S) calls with a bounded total (wall-clock) time per call (the one watchdog, watchdog.py);
    keeps a connection open when the server allows it (splunkd does: the collector's budget, <= 10 ms
    CPU a poll at 4 pipeline sets, has no room for a TCP and TLS handshake a request), one per (scheme,
    host, port, TLS context name), and resumes the TLS session when the server closed it. A body over
    `max_body` is refused (a `too_large` fault), with or without a Content-Length: it is read in
    bounded pieces and the reading stops at the cap, so what a server sends past it is never held."""

    def __init__(self, timeout: float, contexts: Mapping[str, ssl.SSLContext], max_body: int = MAX_BODY_BYTES):
        self.timeout = timeout
        self.max_body = max_body
        self.contexts = dict(contexts)
        self.conns: Dict[Tuple[str, str, str], http.client.HTTPConnection] = {}
        self.sessions: Dict[Tuple[str, str, str], ssl.SSLSession] = {}
        self.watchdog = Watchdog("ingest_doctor splunkd deadline")

    def _conn(self, scheme: str, netloc: str, tls: str) -> Tuple[http.client.HTTPConnection, bool]:
        key = (scheme, netloc, tls)
        conn = self.conns.get(key)
        if conn is not None and conn.sock is not None:
            return conn, True
        if scheme == "https":
            conn = _Resuming(netloc, self.timeout, self.contexts[tls], self.sessions, key, self.watchdog)
        else:
            conn = http.client.HTTPConnection(netloc, timeout=self.timeout)
        self.conns[key] = conn
        return conn, False

    def __call__(self, method: str, url: str, headers: Dict[str, str], body: Optional[bytes],
                 tls: str) -> Fetched:
        start = time.monotonic()
        deadline = start + self.timeout
        parts = urlsplit(url)
        target = parts.path + ("?" + parts.query if parts.query else "")
        guard = self.watchdog
        for attempt in (0, 1):
            conn, reused = self._conn(parts.scheme, parts.netloc, tls)
            guard.arm(deadline)
            try:
                status, data = self._exchange(conn, method, target, headers, body, deadline)
                if guard.fired:
                    raise socket.timeout("request took longer than its timeout")
                return Fetched(status, data, (time.monotonic() - start) * 1000.0)
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
            finally:
                guard.disarm()
            if guard.fired:
                kind, err = "timeout", socket.timeout("request took longer than its timeout (%.0f s)"
                                                      % self.timeout)
            conn.close()
            # A kept-alive connection the server closed while idle fails at once: retry it fresh, once.
            if reused and attempt == 0 and kind in ("reset", "tls", "error") and time.monotonic() < deadline:
                continue
            return self._fault(kind, err, start)
        return self._fault("reset", None, start)

    def _exchange(self, conn: http.client.HTTPConnection, method: str, target: str, headers: Dict[str, str],
                  body: Optional[bytes], deadline: float) -> Tuple[int, bytes]:
        if conn.sock is None:
            conn.timeout = remaining(deadline)
            conn.connect()
        sock = conn.sock                # kept: on `Connection: close` http.client drops conn.sock, not the read
        self.watchdog.hold(sock)
        sock.settimeout(remaining(deadline))
        conn.request(method, target, body=body, headers=headers)
        resp = conn.getresponse()
        if isinstance(conn, _Resuming):
            conn.keep_session(sock)     # the answer has begun: TLS 1.3's session tickets came before it
        length = resp.getheader("Content-Length")
        if length and length.isdigit() and int(length) > self.max_body:
            raise TooLarge("Content-Length %s" % length)
        chunks = []
        size = 0
        while not resp.isclosed():      # closed: the whole body was read (its socket may be closed too)
            sock.settimeout(remaining(deadline))
            chunk = resp.read1(min(65536, self.max_body + 1 - size))   # one read at most, never past the cap
            if not chunk:
                break
            size += len(chunk)
            if size > self.max_body:
                raise TooLarge("more than %d bytes (cut there)" % self.max_body)
            chunks.append(chunk)
        if resp.length:                 # the server closed before its Content-Length
            raise http.client.IncompleteRead(b"".join(chunks), resp.length)
        resp.close()                    # read whole: the connection is ready for the next request (3.9
        return resp.status, b"".join(chunks)    # does not close a response at its Content-Length)

    @staticmethod
    def _fault(kind: str, e: Optional[BaseException], start: float) -> Fetched:
        detail = ("%s: %s" % (type(e).__name__, e))[:200] if e is not None else ""
        if isinstance(e, ssl.SSLCertVerificationError):
            # tls.py raises its own name errors (no verify_message): keep their words whole.
            detail = "CERTIFICATE_VERIFY_FAILED: certificate verify failed: %s" % (
                getattr(e, "verify_message", None) or e)
        return Fetched(None, b"", (time.monotonic() - start) * 1000.0, kind, detail)

    def close(self) -> None:
        """Close the kept connections and stop the watchdog (a later call opens and starts them again)."""
        self.watchdog.stop()
        for conn in self.conns.values():
            conn.close()


class Splunkd:
    """One splunkd at `uri`. `auth` is an Authorization header value ("Splunk <session key>",
    "Bearer <token>"); `retries` extra attempts, with exponential backoff, for what may pass."""

    def __init__(self, uri: str, timeout: float, auth: Optional[str] = None, ca_file: Optional[str] = None,
                 insecure: bool = False, trust_loopback: bool = False, retries: int = 0, backoff: float = 0.5,
                 max_body: int = MAX_BODY_BYTES, sleep: Callable[[float], None] = time.sleep,
                 on_retry: Callable[[int, str], None] = lambda attempt, error: None):
        parts = urlsplit(uri)
        self.base = "%s://%s" % (parts.scheme or "https", parts.netloc)
        self.host = parts.hostname or "127.0.0.1"
        ctx, self.tls = tls_context(self.host, ca_file, insecure, trust_loopback)
        self.http = Http(timeout, {"splunkd": ctx}, max_body)
        self.auth = auth
        self.retries, self.backoff, self.sleep, self.on_retry = retries, backoff, sleep, on_retry

    def request(self, method: str, path: str, params: Optional[Mapping[str, str]] = None,
                form: Optional[Mapping[str, str]] = None, body: Optional[bytes] = None,
                headers: Optional[Mapping[str, str]] = None) -> Fetched:
        """`path` from the root ("/services/...", "/servicesNS/..."); `params` go in the query,
        `form` is sent url-encoded as the body."""
        url = self.base + path + ("?" + urlencode(params) if params else "")
        hdrs = dict(headers or {})
        if self.auth:
            hdrs["Authorization"] = self.auth
        if form is not None:
            body = urlencode(form).encode("utf-8")
            hdrs["Content-Type"] = "application/x-www-form-urlencoded"
        attempts = 1 + max(0, self.retries)
        for attempt in range(1, attempts + 1):
            f = self.http(method, url, hdrs, body, "splunkd")
            again = f.error in RETRY_KINDS if f.error else f.status in RETRY_STATUSES
            if not again or attempt == attempts:
                return f
            self.on_retry(attempt, describe(f))
            self.sleep(self.backoff * (2 ** (attempt - 1)))
        return f

    def fetch(self, ep: Endpoint) -> Fetched:
        """The read step's fetch: one endpoint of the table, in JSON mode, every entry."""
        return self.request("GET", "/" + ep.path, query(ep))

    def login(self, username: str, password: str) -> Fetched:
        """POST services/auth/login; on success later calls carry the session key."""
        f = self.request("POST", "/services/auth/login", form={"username": username, "password": password})
        if f.status == 200:
            text = f.body.decode("utf-8", "replace")
            m = re.search(r"<sessionKey>([^<]+)</sessionKey>", text) or re.search(r'"sessionKey"\s*:\s*"([^"]+)"',
                                                                                  text)
            if m:
                self.auth = "Splunk " + m.group(1)
                return f
            return Fetched(200, b"", f.elapsed_ms, "error", "no session key in the login answer")
        return f

    def close(self) -> None:
        self.http.close()


def describe(f: Fetched) -> str:
    """A fault in a few words for a log line or a note: 'HTTP 503 KV Store is initializing', 'timeout: ...'."""
    if f.error:
        return "%s: %s" % (f.error, f.detail) if f.detail else f.error
    text = error_text(f.body, 300) if f.body else ""
    return ("HTTP %s %s" % (f.status, text)).strip()


def json_body(f: Fetched) -> Optional[object]:
    """The decoded JSON body, or None when it is not JSON."""
    try:
        return json.loads(f.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None

