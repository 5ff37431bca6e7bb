"""Splunk Web messages (`/services/messages`) over the caller's own splunkd port.

The port both the collector (messages on the instance it runs on) and the
alert action (messages on the search head) use to carry out a
`ingest_doctor.delivery.messages.MessagePlan`: POST name/value/severity
(and one `role` per role that may see it: ingest_doctor.delivery.messages.DEFAULT_ROLES,
admin, unless configured) creates or replaces a message by name, DELETE /services/messages/<name>
removes it, GET lists them (splunkd's documented REST endpoint, the calls
solnlib's BulletinRestClient makes). Every call goes through the caller's
splunkd port (ingest_doctor_ports.splunkd.Http: bounded time per call,
keep-alive, the README's TLS policy). Why not solnlib's BulletinRestClient:
the search-head app (the action) ships no library, and in the add-on the
client builds its own handler without a timeout (we do not vendor
`requests`) that could be replaced only through its private attributes; the
three calls are smaller than that wiring. Every failure is raised as
MessageError; the callers decide that a message is never worth stopping for.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, Optional, Sequence
from urllib.parse import quote, urlencode, urlsplit

from ingest_doctor.read.endpoints import Fetched, error_text
from ingest_doctor.delivery.messages import DEFAULT_ROLES, NAME_PREFIX, SUMMARY_NAME, MessagePlan

# method, url, headers, body, tls ("splunkd") -> Fetched: ingest_doctor_ports.splunkd.Http
HttpCall = Callable[[str, str, Dict[str, str], Optional[bytes], str], Fetched]

APP = "ingest_doctor"
ENDPOINT = "/services/messages"


class MessageError(Exception):
    pass


class WebMessages:
    def __init__(self, server_uri: str, session_key: str, http: HttpCall,
                 roles: Sequence[str] = DEFAULT_ROLES):
        if not roles:
            raise ValueError("a Splunk Web message needs at least one role to show it to")
        self.roles = tuple(roles)
        parts = urlsplit(server_uri)
        self.base = "%s://%s" % (parts.scheme or "https", parts.netloc or "127.0.0.1:8089")
        self._session_key = session_key
        self._http = http

    def _call(self, what: str, method: str, path: str, form: Optional[Dict[str, Any]] = None,
              missing_ok: bool = False, **query: Any) -> Optional[bytes]:
        url = self.base + path + ("?" + urlencode(query) if query else "")
        headers = {"Authorization": "Splunk " + self._session_key}
        body = None
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urlencode(form, doseq=True).encode("utf-8")     # a list value: the key repeated
        f = self._http(method, url, headers, body, "splunkd")
        if f.error:
            raise MessageError("%s: %s%s" % (what, f.error, ": " + f.detail[:200] if f.detail else ""))
        status = f.status or 0
        if missing_ok and status == 404:
            return None
        if not 200 <= status < 300:
            hint = (" (the session's user may not manage Splunk Web messages)" if status in (401, 403) else
                    " (is every role in %s defined on this instance?)" % ",".join(self.roles)
                    if status == 400 and method == "POST" else "")
            text = error_text(f.body)
            raise MessageError("%s: HTTP %d%s%s" % (what, status, " " + text if text else "", hint))
        return f.body

    def shown(self) -> Dict[str, str]:
        """Our messages visible here (this instance's and its search peers'): name -> severity."""
        body = self._call("read messages", "GET", ENDPOINT, output_mode="json", count=0) or b""
        try:
            data = json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise MessageError("read messages: the answer is not JSON (%s)" % e) from None
        out: Dict[str, str] = {}
        levels = ("info", "warn", "error")
        for entry in (data.get("entry") if isinstance(data, dict) else None) or []:
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
                self._call("delete message " + name, "DELETE", ENDPOINT + "/" + quote(name, safe=""),
                           missing_ok=True)
            except MessageError as e:
                first = first or str(e)
        for post in plan.posts:
            try:
                self._call("post message " + post.name, "POST", ENDPOINT,
                           form={"name": post.name, "value": post.text, "severity": post.severity,
                                 "role": list(self.roles)})
            except MessageError as e:
                first = first or str(e)
        return first
