"""The TLS policy of the collector's HEC calls: settings in, an ssl.SSLContext out.

Out of the box HEC presents Splunk's default certificate: signed by Splunk's default CA
($SPLUNK_HOME/etc/auth/cacert.pem), named SplunkServerDefaultCert, and not issued for
127.0.0.1. So the chain is verified against the system CA store plus Splunk's CA, and the
certificate's name must be the URL's host or one of `common_names`, the names admins know
from sslCommonNameToCheck (outputs.conf, server.conf). A certificate that matches neither
fails closed with an error that names what it carries and what was expected. Turning
verification off (sslVerifyServerCert = false in Splunk's terms) stays possible; `warning()`
gives the line the collector logs for it.

No network here: the context checks names itself, in `wrap_socket`, right after the
handshake (Python's own check takes one name only).
"""
from __future__ import annotations

import ipaddress
import os
import socket
import ssl
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

SPLUNK_DEFAULT_CN = "SplunkServerDefaultCert"
SPLUNK_CA = os.path.join("etc", "auth", "cacert.pem")


@dataclass(frozen=True)
class Settings:
    verify: bool = True
    ca_file: Optional[str] = None              # None: the system store plus Splunk's default CA
    common_names: Tuple[str, ...] = (SPLUNK_DEFAULT_CN,)


def parse_names(value: Optional[str]) -> Tuple[str, ...]:
    """'a, b' -> ('a', 'b'), as Splunk reads sslCommonNameToCheck."""
    return tuple(n.strip() for n in (value or "").split(",") if n.strip())


def ca_files(settings: Settings, splunk_home: Optional[str],
             exists=os.path.isfile) -> List[str]:
    """The CA files loaded on top of (or, with ca_file, instead of) the system store."""
    if settings.ca_file:
        return [settings.ca_file]
    if splunk_home and exists(os.path.join(splunk_home, SPLUNK_CA)):
        return [os.path.join(splunk_home, SPLUNK_CA)]
    return []


def cert_names(cert: Dict[str, Any]) -> List[str]:
    """The names a peer certificate (ssl's getpeercert() dict) is issued for: its DNS and IP
    subject alternative names, or its common name when it has none (as Splunk checks)."""
    alt = [v for k, v in cert.get("subjectAltName", ()) if k in ("DNS", "IP Address")]
    if alt:
        return alt
    return [v for rdn in cert.get("subject", ()) for k, v in rdn if k == "commonName"]


def _matches(pattern: str, name: str) -> bool:
    pattern, name = pattern.rstrip(".").lower(), name.rstrip(".").lower()
    try:
        return ipaddress.ip_address(pattern) == ipaddress.ip_address(name)
    except ValueError:
        pass
    if pattern.startswith("*.") and "." in name:      # one left-most label, as RFC 6125
        return name.split(".", 1)[1] == pattern[2:]
    return pattern == name


def name_error(cert: Dict[str, Any], host: str, common_names: Tuple[str, ...]) -> Optional[str]:
    """None when the certificate is issued for `host` or one of `common_names`, else why not."""
    names = cert_names(cert)
    wanted = [host] + [n for n in common_names if n != host]
    if any(_matches(p, w) for p in names for w in wanted):
        return None
    return ("HEC certificate is issued for %s, not for the URL's host %r%s; set hec_sslCommonNameToCheck "
            "to the certificate's name (as sslCommonNameToCheck in outputs.conf), or hec_health_url to a "
            "host it names" % (", ".join(repr(n) for n in names) or "no name", host,
                               " nor for %s" % ", ".join(repr(n) for n in common_names) if common_names else ""))


class NameCheckingContext(ssl.SSLContext):
    """Verifies the chain (CERT_REQUIRED) and then the name against the URL's host or the
    configured names; a mismatch closes the socket and raises SSLCertVerificationError."""

    common_names: Tuple[str, ...] = ()

    def wrap_socket(self, sock: socket.socket, server_side: bool = False, do_handshake_on_connect: bool = True,
                    suppress_ragged_eofs: bool = True, server_hostname: Optional[str] = None,
                    session: Any = None) -> ssl.SSLSocket:
        tls_sock = super().wrap_socket(sock, server_side=server_side, do_handshake_on_connect=True,
                                       suppress_ragged_eofs=suppress_ragged_eofs,
                                       server_hostname=server_hostname, session=session)
        problem = name_error(tls_sock.getpeercert() or {}, server_hostname or "", self.common_names)
        if problem:
            tls_sock.close()
            raise ssl.SSLCertVerificationError(problem)
        return tls_sock


def context(settings: Settings, splunk_home: Optional[str]) -> ssl.SSLContext:
    """The client context for HEC calls under `settings` (CA files are read now)."""
    if not settings.verify:
        off = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        off.check_hostname = False
        off.verify_mode = ssl.CERT_NONE
        return off
    ctx = NameCheckingContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False              # done by wrap_socket, against several names
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.common_names = settings.common_names
    if not settings.ca_file:
        ctx.load_default_certs(ssl.Purpose.SERVER_AUTH)
    for path in ca_files(settings, splunk_home):
        ctx.load_verify_locations(cafile=path)
    return ctx


def warning(settings: Settings) -> Optional[str]:
    """The log line for a policy that does not verify, else None."""
    if settings.verify:
        return None
    return ("hec_tls_verify is off: the HEC probe accepts any certificate (as sslVerifyServerCert = false); "
            "verification against Splunk's default CA with hec_sslCommonNameToCheck works for the default "
            "certificate")
