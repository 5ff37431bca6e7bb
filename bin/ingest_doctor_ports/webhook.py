"""The one webhook client, used by the collector (its notifier) and the alert action.

Sockets only: every decision is ingest_doctor.delivery.outbound's (which targets are allowed,
what an answer means, when to try again). Here:
- the name is resolved once, every address it resolves to is checked, and the connection goes to
  a checked address (a name cannot be re-resolved to somewhere else between check and connect);
- TLS is verified against the system's CAs (or SSL_CERT_FILE), with the URL's host name;
- a wall-clock deadline bounds the whole request (connect, send, answer, body): a watchdog shuts
  the socket at the deadline, so a receiver trickling a byte a second cannot hold it longer;
- redirects are never followed; at most MAX_BODY_BYTES of an answer are read, the rest is cut.
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ingest_doctor.delivery import outbound
from ingest_doctor.delivery.outbound import AllowEntry, Refused, Target, Verdict

USER_AGENT = "ingest_doctor/0.1"
Resolver = Callable[[str, int], List[str]]


def resolve(host: str, port: int) -> List[str]:
    """Every address `host` resolves to (an address literal is itself)."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in infos))


@dataclass(frozen=True)
class Attempt:
    """One POST: the answer (status, Location, Retry-After, the first bytes of the body) or a fault."""
    status: Optional[int] = None
    error: Optional[str] = None  # timeout, refused, reset, tls, policy, dns, error
    detail: str = ""
    location: Optional[str] = None
    retry_after: Optional[str] = None
    body: bytes = b""
    elapsed_s: float = 0.0

    def verdict(self, now: Optional[float] = None) -> Verdict:
        if self.error == "policy":
            return Verdict("refused", self.detail)
        v = outbound.judge(self.status, self.error, self.location, self.retry_after,
                           time.time() if now is None else now)
        if self.error:
            return Verdict(v.kind, "%s: %s" % (self.error, self.detail) if self.detail else self.error)
        return v


def auth_headers(auth_header: Optional[str]) -> Dict[str, str]:
    """The admin's optional auth header: `Name: value`, or a bare value sent as Authorization."""
    text = (auth_header or "").strip()
    if not text:
        return {}
    name, sep, value = text.partition(":")
    if sep and name.strip() and " " not in name.strip():
        return {name.strip(): value.strip()}
    return {"Authorization": text}


def post(url: str, body: bytes, allow: Sequence[AllowEntry] = (), headers: Optional[Dict[str, str]] = None,
         timeout: float = outbound.TIMEOUT_S, max_body: int = outbound.MAX_BODY_BYTES,
         context: Optional[ssl.SSLContext] = None, resolver: Resolver = resolve) -> Attempt:
    """One POST attempt, bounded by `timeout` seconds of wall clock. Never raises for the network."""
    start = time.monotonic()
    try:
        target = outbound.parse_url(url)
        outbound.check_target(target, allow)
    except Refused as e:
        return Attempt(error="policy", detail=str(e))
    try:
        addrs = resolver(target.host, target.port)
    except (OSError, UnicodeError) as e:
        return Attempt(error="dns", detail="%s does not resolve: %s" % (target.host, e),
                       elapsed_s=time.monotonic() - start)
    if not addrs:
        return Attempt(error="dns", detail="%s does not resolve" % target.host)
    try:
        for a in addrs:
            outbound.check_address(target, ipaddress.ip_address(a), allow)
    except (Refused, ValueError) as e:
        return Attempt(error="policy", detail=str(e))
    hdrs = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "Connection": "close"}
    hdrs.update(headers or {})
    deadline = start + timeout
    held: List[socket.socket] = []
    expired = threading.Event()

    def _expire() -> None:
        expired.set()
        for s in held:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    timer = threading.Timer(max(0.0, timeout), _expire)
    timer.daemon = True
    timer.start()
    try:
        status, location, retry_after, data = _exchange(target, addrs[0], body, hdrs, deadline, max_body,
                                                        context, held.append)
        # The answer's status decides; a body still trickling at the deadline is cut, not waited for.
        return Attempt(status, detail="answer cut at the deadline" if expired.is_set() else "",
                       location=location, retry_after=retry_after, body=data, elapsed_s=time.monotonic() - start)
    except Exception as e:          # every fault becomes an Attempt (the watchdog's shutdown included)
        kind = _kind(e)
        if expired.is_set() or kind == "timeout":
            return Attempt(error="timeout", detail="no complete answer within %.0f s" % timeout,
                           elapsed_s=time.monotonic() - start)
        return Attempt(error=kind, detail=("%s: %s" % (type(e).__name__, e))[:300],
                       elapsed_s=time.monotonic() - start)
    finally:
        timer.cancel()
        for s in held:
            try:
                s.close()
            except OSError:
                pass


def _kind(e: BaseException) -> str:
    if isinstance(e, (socket.timeout, TimeoutError)):
        return "timeout"
    if isinstance(e, ConnectionRefusedError):
        return "refused"
    if isinstance(e, ssl.SSLError):
        return "tls"
    if isinstance(e, (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected)):
        return "reset"
    return "error"


def _exchange(target: Target, addr: str, body: bytes, headers: Dict[str, str], deadline: float,
              max_body: int, context: Optional[ssl.SSLContext],
              hold: Callable[[socket.socket], None]) -> Tuple[int, Optional[str], Optional[str], bytes]:
    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout("deadline")
        return remaining

    raw = socket.create_connection((addr, target.port), timeout=left())
    # The watchdog's handle: a duplicate of the same kernel socket survives wrap_socket's detach and
    # http.client's close on `Connection: close`; shutting it down ends any read in progress.
    hold(raw.dup())
    hold(raw)
    conn_sock: socket.socket = raw
    if target.scheme == "https":
        ctx = context or ssl.create_default_context()
        conn_sock = ctx.wrap_socket(raw, server_hostname=target.host)
    conn = http.client.HTTPConnection(target.host, target.port, timeout=left())
    conn.sock = conn_sock
    try:
        conn_sock.settimeout(left())
        conn.request("POST", target.path, body=body, headers=headers)
        conn_sock.settimeout(left())
        resp = conn.getresponse()
        chunks = []
        size = 0
        while size < max_body:
            left()          # each read is bounded by the socket timeout, the whole by the watchdog
            chunk = resp.read1(min(65536, max_body - size)) if hasattr(resp, "read1") else resp.read(
                min(65536, max_body - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return resp.status, resp.getheader("Location"), resp.getheader("Retry-After"), b"".join(chunks)
    finally:
        conn.close()


@dataclass(frozen=True)
class Outcome:
    kind: str  # "sent", "refused", "redirect", "failed" (retries used up)
    reason: str
    attempts: int
    retry_after: Optional[float] = None


def send(url: str, body: bytes, allow: Sequence[AllowEntry] = (), headers: Optional[Dict[str, str]] = None,
         attempts: int = 4, backoff: float = 0.5, cap: float = 30.0, timeout: float = outbound.TIMEOUT_S,
         sleep: Callable[[float], None] = time.sleep,
         on_retry: Callable[[int, str, float], None] = lambda attempt, reason, wait: None,
         context: Optional[ssl.SSLContext] = None, resolver: Resolver = resolve) -> Outcome:
    """Up to `attempts` POSTs, waiting outbound.backoff() (Retry-After honoured) between them."""
    reason = ""
    v = Verdict("retry", "")
    for attempt in range(1, attempts + 1):
        a = post(url, body, allow, headers, timeout, context=context, resolver=resolver)
        v = a.verdict()
        if v.kind != "retry":
            return Outcome(v.kind, v.reason, attempt)
        reason = v.reason
        if attempt < attempts:
            wait = outbound.backoff(attempt, backoff, cap, v.retry_after)
            on_retry(attempt, reason, wait)
            sleep(wait)
    return Outcome("failed", reason, attempts, v.retry_after)
