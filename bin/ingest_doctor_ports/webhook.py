"""The one webhook client, used by the collector (its notifier) and the alert action.

Sockets only: every decision is ingest_doctor.delivery.outbound's (which targets are allowed,
what an answer means, when to try again). Here:
- the name is resolved once, every address it resolves to is checked, and the connection goes to
  a checked address (a name cannot be re-resolved to somewhere else between check and connect);
- TLS is verified against the system's CAs (or SSL_CERT_FILE), with the URL's host name;
- a wall-clock deadline bounds the whole request (connect, TLS handshake, send, answer, body): the
  one watchdog (watchdog.py) shuts the socket at the deadline, so a receiver trickling a byte a
  second cannot hold it longer;
- redirects are never followed; at most MAX_BODY_BYTES of an answer are read, the rest is cut.
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ingest_doctor.delivery import outbound
from ingest_doctor.delivery.outbound import AllowEntry, Refused, Target, Verdict
from ingest_doctor_ports.watchdog import Watchdog, remaining

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
    """One POST attempt, bounded by `timeout` seconds of wall clock (the watchdog's thread lives for
    the call: a webhook posts rarely). Never raises for the network."""
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
    guard = Watchdog("ingest_doctor webhook deadline")
    guard.arm(start + timeout)
    try:
        status, location, retry_after, data = _exchange(target, addrs[0], body, hdrs, start + timeout, max_body,
                                                        context, guard.hold)
        # The answer's status decides; a body still trickling at the deadline is cut, not waited for.
        return Attempt(status, detail="answer cut at the deadline" if guard.fired else "",
                       location=location, retry_after=retry_after, body=data, elapsed_s=time.monotonic() - start)
    except Exception as e:          # every fault becomes an Attempt (the watchdog's shutdown included)
        kind = _kind(e)
        if guard.fired or kind == "timeout":
            return Attempt(error="timeout", detail="no complete answer within %.0f s" % timeout,
                           elapsed_s=time.monotonic() - start)
        return Attempt(error=kind, detail=("%s: %s" % (type(e).__name__, e))[:300],
                       elapsed_s=time.monotonic() - start)
    finally:
        guard.stop()


def _kind(e: BaseException) -> str:
    if isinstance(e, (socket.timeout, TimeoutError)):
        return "timeout"
    if isinstance(e, ConnectionRefusedError):
        return "refused"
    # Only a certificate that does not verify is the admin's to fix ("tls": refused, never retried). A
    # peer that hangs up before or during the handshake (a receiver restarting, a load balancer without
    # a healthy backend) raises SSLEOFError, SSLZeroReturnError or ConnectionResetError: a network fault
    # like any reset, retried with backoff (issue 40).
    if isinstance(e, ssl.SSLCertVerificationError):
        return "tls"
    if isinstance(e, ssl.SSLError):
        return "reset"
    if isinstance(e, (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected)):
        return "reset"
    return "error"


def _exchange(target: Target, addr: str, body: bytes, headers: Dict[str, str], deadline: float,
              max_body: int, context: Optional[ssl.SSLContext],
              hold: Callable[[socket.socket], None]) -> Tuple[int, Optional[str], Optional[str], bytes]:
    # The connection goes to the checked address; the Host header and TLS name are the URL's host.
    conn = http.client.HTTPConnection(target.host, target.port, timeout=remaining(deadline))
    conn.sock = socket.create_connection((addr, target.port), timeout=remaining(deadline))
    try:
        hold(conn.sock)
        if target.scheme == "https":
            ctx = context or ssl.create_default_context()
            conn.sock = ctx.wrap_socket(conn.sock, server_hostname=target.host, do_handshake_on_connect=False)
            hold(conn.sock)             # the watchdog ends a handshake that stalls, too
            conn.sock.settimeout(remaining(deadline))
            conn.sock.do_handshake()
        conn.sock.settimeout(remaining(deadline))
        conn.request("POST", target.path, body=body, headers=headers)
        resp = conn.getresponse()
        chunks = []
        size = 0
        while size < max_body and not resp.isclosed():
            remaining(deadline)          # each read is bounded by the socket timeout, the whole by the watchdog
            chunk = resp.read1(min(65536, max_body - size))
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
