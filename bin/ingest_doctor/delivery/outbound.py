"""Outbound webhook calls, decided without a socket: where a notification may go, what an answer
means and when to try again. The port (ingest_doctor_ports/webhook.py) resolves names, opens the
connection and reads the answer; every decision it acts on is made here.

Rules (issues 22 and 23):
- only where the admin meant: `https://` (plain `http://` only to a target the allow-list names),
  no credentials in the URL, and never loopback, link-local or cloud metadata (169.254.0.0/16,
  fd00:ec2::254), private or other non-global ranges, nor splunkd's management port 8089,
  unless the admin-only allow-list names the host, address or network (and the port, for 8089);
- a redirect is never followed for a POST: 301/302/303/307/308 is a failure that names the
  location (so nothing is ever re-sent as a body-less GET, nor downgraded to http);
- 5xx, 408, 429 and network faults are retried with exponential backoff, honouring
  `Retry-After` (seconds or an HTTP date) up to a cap; any other 4xx is the receiver saying no.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Iterable, List, Optional, Sequence, Tuple, Union
from urllib.parse import urlsplit


SPLUNKD_MGMT_PORT = 8089
METADATA = (ipaddress.ip_network("169.254.0.0/16"), ipaddress.ip_network("fd00:ec2::254/128"))
REDIRECTS = (301, 302, 303, 307, 308)
RETRY_STATUSES = (408, 429, 500, 502, 503, 504)
MAX_RETRY_AFTER_S = 300.0          # a Retry-After beyond this is capped (the outbox keeps the notification)
MAX_BODY_BYTES = 64 * 1024         # what is read of a receiver's answer; the rest is cut
TIMEOUT_S = 10.0                   # wall clock per request: connect, send, answer, body

_HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$")
IP = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]
Net = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]


class Refused(ValueError):
    """The target is not one the admin meant: the message says why and what to set."""


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str  # as written (lower case), no brackets
    port: int
    path: str  # path and query, at least "/"


@dataclass(frozen=True)
class AllowEntry:
    host: Optional[str] = None  # a host name (exact, lower case)
    net: Optional[Net] = None  # an address or network
    port: Optional[int] = None  # None: any port but 8089

    def names(self, host: str, addr: Optional[IP], port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.port is None and port == SPLUNKD_MGMT_PORT:
            return False
        if self.host is not None:
            return host == self.host
        if self.net is not None:
            if addr is None:
                addr = _ip(host)
            return addr is not None and addr.version == self.net.version and addr in self.net
        return False


def _ip(text: str) -> Optional[IP]:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def address_of(host: str) -> Optional[IP]:
    """The address a host is written as (an IP literal), or None for a name."""
    return _ip(host)


def parse_allow(text: Union[str, Iterable[str], None]) -> List[AllowEntry]:
    """The admin's allow-list: comma or space separated host names, addresses or networks, each with
    an optional port (`hooks.corp.example`, `10.1.2.3`, `10.0.0.0/8`, `127.0.0.1:9000`, `[::1]:8089`).
    An entry without a port allows any port but splunkd's 8089; 8089 must be named."""
    if text is None:
        return []
    items = re.split(r"[,\s]+", text) if isinstance(text, str) else list(text)
    out: List[AllowEntry] = []
    for raw in items:
        item = raw.strip().lower()
        if not item:
            continue
        port: Optional[int] = None
        m = re.match(r"^\[([0-9a-f:.]+)\](?::(\d+))?$", item)
        if m:
            item, port = m.group(1), int(m.group(2)) if m.group(2) else None
        elif item.count(":") == 1:
            item, p = item.split(":")
            if not p.isdigit():
                raise Refused("allow-list entry %r: the port is not a number" % raw)
            port = int(p)
        if port is not None and not 0 < port < 65536:
            raise Refused("allow-list entry %r: port out of range" % raw)
        try:
            out.append(AllowEntry(net=ipaddress.ip_network(item, strict=False), port=port))
            continue
        except ValueError:
            pass
        if not _HOST.match(item):
            raise Refused("allow-list entry %r is not a host name, address or network" % raw)
        out.append(AllowEntry(host=item.rstrip("."), port=port))
    return out


def parse_url(url: str) -> Target:
    """The webhook URL as the admin set it; Refused when it cannot be a webhook at all."""
    url = (url or "").strip()
    if not url or any(c.isspace() for c in url):
        raise Refused("webhook URL is empty or contains spaces")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise Refused("webhook URL is not a valid URL (%s)" % e) from None
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        raise Refused("webhook URL must use https:// (got %s://)" % (scheme or "no scheme"))
    if parts.username or parts.password:
        raise Refused("webhook URL must not carry credentials; use the auth header setting or a secret path")
    host = (parts.hostname or "").lower()
    if not host or not (_HOST.match(host) or _ip(host) is not None) or ".." in host:
        raise Refused("webhook URL has no valid host name")
    if port is not None and not 0 < port < 65536:
        raise Refused("webhook URL port %s is out of range" % port)
    path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    return Target(url, scheme, host.rstrip("."), port or (443 if scheme == "https" else 80), path)


def _allowed(target: Target, addr: Optional[IP], allow: Sequence[AllowEntry]) -> bool:
    return any(e.names(target.host, addr, target.port) for e in allow)


def address_problem(addr: IP) -> Optional[str]:
    """Why an address is not a public webhook target (None when it is)."""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    if any(addr.version == n.version and addr in n for n in METADATA):
        return "link-local / cloud metadata address"
    if addr.is_loopback:
        return "loopback address"
    if addr.is_link_local:
        return "link-local address"
    if addr.is_unspecified or addr.is_multicast or addr.is_reserved:
        return "reserved address"
    if addr.is_private or not addr.is_global:
        return "private address"
    return None


def check_target(target: Target, allow: Sequence[AllowEntry]) -> None:
    """Before resolving: the scheme and splunkd's port (Refused names what to set)."""
    if target.scheme == "http" and not _allowed(target, _ip(target.host), allow):
        raise Refused("webhook URL %s uses plain http://: findings are sent in clear text only to a target "
                      "the admin allow-list names" % _where(target))
    if target.port == SPLUNKD_MGMT_PORT and not _allowed(target, _ip(target.host), allow):
        raise Refused("webhook URL %s points at port 8089, splunkd's management port: refused unless the "
                      "admin allow-list names it with its port" % _where(target))
    if target.host == "localhost" and not _allowed(target, None, allow):
        raise Refused("webhook URL %s is this machine (loopback): refused unless the admin allow-list names it"
                      % _where(target))


def check_address(target: Target, addr: IP, allow: Sequence[AllowEntry]) -> None:
    """After resolving: each address the name resolves to (the port connects to a checked one)."""
    problem = address_problem(addr)
    if problem and not _allowed(target, addr, allow):
        raise Refused("webhook %s resolves to %s, a %s: refused unless the admin allow-list names it"
                      % (_where(target), addr, problem))


def _where(target: Target) -> str:
    return "%s://%s:%d" % (target.scheme, target.host, target.port)


# ---------------------------------------------------------------------------- answers and retries
@dataclass(frozen=True)
class Verdict:
    kind: str  # "sent", "retry", "refused" (the receiver said no: do not retry), "redirect"
    reason: str
    retry_after: Optional[float] = None


def judge(status: Optional[int], error: Optional[str], location: Optional[str] = None,
          retry_after: Optional[str] = None, now: Optional[float] = None) -> Verdict:
    """What one attempt's answer means. `error` is the port's fault kind (timeout, refused, tls, ...)."""
    if error:
        if error in ("tls", "policy"):
            return Verdict("refused", error)
        return Verdict("retry", error)
    assert status is not None
    if 200 <= status < 300:
        return Verdict("sent", "HTTP %d" % status)
    if status in REDIRECTS:
        return Verdict("redirect", "HTTP %d redirect to %s (not followed: a POST is never re-sent elsewhere; "
                                   "set the webhook URL to the final address)" % (status, location or "no location"))
    if status in RETRY_STATUSES or status >= 500:
        return Verdict("retry", "HTTP %d" % status, parse_retry_after(retry_after, now))
    return Verdict("refused", "HTTP %d" % status)


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date), capped; None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value[:9]), MAX_RETRY_AFTER_S)
    if now is None:
        return None
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return min(max(0.0, when - now), MAX_RETRY_AFTER_S)


def backoff(attempt: int, base: float, cap: float, retry_after: Optional[float] = None) -> float:
    """Seconds before attempt `attempt + 1` (attempt counts from 1): base * 2^(attempt-1), capped,
    and never sooner than the receiver's Retry-After (itself capped at MAX_RETRY_AFTER_S)."""
    delay = min(cap, base * (2 ** max(0, min(attempt - 1, 30))))
    if retry_after is not None:
        delay = max(delay, min(retry_after, MAX_RETRY_AFTER_S))
    return delay


def schedule(attempts: int, base: float, cap: float) -> Tuple[float, ...]:
    """The waits between `attempts` tries without Retry-After (for the README and the tests)."""
    return tuple(backoff(a, base, cap) for a in range(1, attempts))
