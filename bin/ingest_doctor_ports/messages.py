"""Splunk Web messages (`/services/messages`) through solnlib's BulletinRestClient.

The port both the collector (messages on the instance it runs on) and the
alert action (messages on the search head) use to carry out a
`ingest_doctor.delivery.messages.MessagePlan`. One BulletinRestClient per message name,
as solnlib intends (posting a name again replaces the message, deleting it by
name removes it).

solnlib builds its HTTP handler without a timeout when `requests` is absent
(we do not vendor it), so each client's requests go through the caller's own
splunkd port instead (ingest_doctor_ports.splunkd.Http: bounded time per call,
keep-alive, the README's TLS policy), wrapped as a splunklib handler
(`port_handler`). Every failure is raised as MessageError; the callers decide
that a message is never worth stopping for.
"""
from __future__ import annotations

import io
import json
import socket
import ssl
from typing import Any, Callable, Dict, Optional
from urllib.parse import urlsplit

from splunklib import binding

from ingest_doctor.read.endpoints import Fetched
from ingest_doctor.delivery.messages import NAME_PREFIX, SUMMARY_NAME, MessagePlan

# method, url, headers, body, tls ("splunkd") -> Fetched: ingest_doctor_ports.splunkd.Http
HttpCall = Callable[[str, str, Dict[str, str], Optional[bytes], str], Fetched]

APP = "ingest_doctor"
ENDPOINT = "/services/messages"


class MessageError(Exception):
    pass


def port_handler(http: HttpCall) -> Callable[..., Dict[str, Any]]:
    """A splunklib handler (`handler(url, message) -> response dict`) over our splunkd port."""
    def request(url: str, message: Dict[str, Any], **kwargs: Any) -> Dict[str, Any]:
        body = message.get("body") or None
        if isinstance(body, str):
            body = body.encode("utf-8")
        f = http(message.get("method", "GET"), url, dict(message.get("headers") or []), body, "splunkd")
        if f.error:
            raise OSError("%s: %s" % (f.error, f.detail) if f.detail else f.error)
        return {"status": f.status, "reason": "", "headers": [], "body": io.BytesIO(f.body)}
    return request


class WebMessages:
    def __init__(self, server_uri: str, session_key: str, http: HttpCall):
        parts = urlsplit(server_uri)
        self.scheme = parts.scheme or "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 8089
        self._session_key = session_key
        self.handler = port_handler(http)

    def _client(self, name: str):
        from solnlib.bulletin_rest_client import BulletinRestClient
        client = BulletinRestClient(name, self._session_key, APP, scheme=self.scheme, host=self.host,
                                    port=self.port)
        client._rest_client.http.handler = self.handler
        return client

    def _do(self, what: str, fn: Callable[[], Any], missing_ok: bool = False) -> Any:
        try:
            return fn()
        except binding.HTTPError as e:
            if missing_ok and e.status == 404:
                return None
            hint = " (the session's user may not manage Splunk Web messages)" if e.status in (401, 403) else ""
            raise MessageError("%s: HTTP %d %s%s" % (what, e.status, e.reason, hint)) from None
        except (OSError, socket.timeout, ssl.SSLError, ValueError) as e:
            raise MessageError("%s: %s: %s" % (what, type(e).__name__, str(e)[:200])) from None

    def shown(self) -> Dict[str, str]:
        """Our messages visible here (this instance's and its search peers'): name -> severity."""
        client = self._client(SUMMARY_NAME)
        resp = self._do("read messages", lambda: client._rest_client.get(ENDPOINT, output_mode="json", count=0))
        try:
            data = json.loads(resp.body.read().decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise MessageError("read messages: the answer is not JSON (%s)" % e) from None
        out: Dict[str, str] = {}
        levels = ("info", "warn", "error")
        for entry in data.get("entry") or []:
            name = entry.get("name") or ""
            if not name.startswith((NAME_PREFIX, SUMMARY_NAME)):
                continue
            sev = str((entry.get("content") or {}).get("severity") or "info").lower()
            sev = sev if sev in levels else "info"
            if name not in out or levels.index(sev) > levels.index(out[name]):
                out[name] = sev
        return out

    def apply(self, plan: MessagePlan) -> Optional[str]:
        """Deletes, then posts. Goes on past a failed message; returns the first error (None: all done)."""
        first: Optional[str] = None
        for name in plan.deletes:
            try:
                client = self._client(name)
                self._do("delete message " + name, client.delete_message, missing_ok=True)
            except MessageError as e:
                first = first or str(e)
        for post in plan.posts:
            try:
                client = self._client(post.name)
                self._do("post message " + post.name, lambda c=client, p=post: c.create_message(p.text, p.severity))
            except MessageError as e:
                first = first or str(e)
        return first
