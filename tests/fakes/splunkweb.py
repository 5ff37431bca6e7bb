"""A loopback Splunk Web in front of the fake splunkd, for the app's Simple XML views and their script.

What the two forms (appserver/static/ingest_doctor_forms.js) meet in Splunk Web, and only that:
- `/<locale>/app/ingest_doctor/<view>`: the view's `<html>` panel in a page, its `stylesheet` and
  `script` loaded from `/<locale>/static/app/ingest_doctor/<file>` (appserver/static), as Simple XML
  loads them; answering it sets the session cookies Splunk Web sets at login: `splunkd_<port>` (the
  splunkd session) and `splunkweb_csrf_token_<port>` (readable by scripts);
- `/<locale>/splunkd/__raw/<path>?<query>`: the proxy to splunkd, with the session's
  `Authorization: Splunk <key>`. A request that is not a GET must carry `X-Splunk-Form-Key` equal to
  the CSRF cookie, else Splunk Web refuses it without asking splunkd (401, "CSRF validation failed":
  community.splunk.com/t5/Monitoring-Splunk/POST-to-splunkd-raw-endpoint-returns-CSRF-validation-failed/m-p/418415).
  splunkd's status and body go back as they came.
Anything else is a 404. `requests` keeps what the browser asked (method, path, headers, body).
"""
from __future__ import annotations

import http.client
import os
import ssl
import threading
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from fakes.paths import ROOT
from fakes.splunkd import Loopback, QuietHandler

APP = "ingest_doctor"
LOCALE = "en-US"
STATIC = os.path.join(ROOT, "appserver", "static")
VIEWS = os.path.join(ROOT, "default", "data", "ui", "views")
TYPES = {".js": "application/javascript", ".css": "text/css", ".png": "image/png"}
SESSION_KEY = "s3cr3t-session-key"
CSRF = "13207931756135681617"


def view_page(name: str) -> Optional[str]:
    """The page Splunk Web shows for a Simple XML view: its label, its html panels, its stylesheet and
    script (None when the view is not a Simple XML view of the app)."""
    path = os.path.join(VIEWS, name + ".xml")
    if not os.path.isfile(path):
        return None
    root = ET.parse(path).getroot()
    if root.tag != "dashboard" or root.get("version") != "1.1":
        return None
    panels = "".join("".join(ET.tostring(child, encoding="unicode", method="html") for child in html)
                     for html in root.iter("html"))
    static = "/%s/static/app/%s/" % (LOCALE, APP)
    css = "".join('<link rel="stylesheet" href="%s%s">' % (static, f.strip())
                  for f in (root.get("stylesheet") or "").split(",") if f.strip())
    js = "".join('<script src="%s%s"></script>' % (static, f.strip())
                 for f in (root.get("script") or "").split(",") if f.strip())
    label = root.findtext("label") or name
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title>%s</head><body>"
            "<h2 class=\"dashboard-title\">%s</h2><div class=\"dashboard-panel\">%s</div>%s</body></html>"
            % (label, css, label, panels, js))


class SplunkWebHandler(QuietHandler):
    def _serve(self) -> None:
        web: "FakeSplunkWeb" = self.server.owner     # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with web.lock:
            web.requests.append({"method": self.command, "path": parts.path, "query": parts.query,
                                 "headers": dict(self.headers.items()), "body": body})
        app_prefix = "/%s/app/%s/" % (LOCALE, APP)
        static_prefix = "/%s/static/app/%s/" % (LOCALE, APP)
        raw_prefix = "/%s/splunkd/__raw/" % LOCALE
        if self.command == "GET" and parts.path.startswith(app_prefix):
            page = view_page(parts.path[len(app_prefix):])
            if page is None:
                return self._answer(404, b"Page not found", "text/plain")
            cookies = ["splunkd_%d=%s; Path=/; HttpOnly" % (web.port, SESSION_KEY),
                       "splunkweb_csrf_token_%d=%s; Path=/" % (web.port, CSRF)]
            return self._answer(200, page.encode("utf-8"), "text/html; charset=utf-8", cookies)
        if self.command == "GET" and parts.path.startswith(static_prefix):
            name = parts.path[len(static_prefix):]
            path = os.path.join(STATIC, name)
            if "/" in name or not os.path.isfile(path):
                return self._answer(404, b"Not found", "text/plain")
            with open(path, "rb") as fh:
                return self._answer(200, fh.read(), TYPES.get(os.path.splitext(name)[1], "application/octet-stream"))
        if parts.path.startswith(raw_prefix):
            return self._proxy(web, "/" + parts.path[len(raw_prefix):], parts.query, body)
        return self._answer(404, b"Not found", "text/plain")

    def _proxy(self, web: "FakeSplunkWeb", path: str, query: str, body: bytes) -> None:
        cookies = self._cookies()
        if cookies.get("splunkd_%d" % web.port) != SESSION_KEY:
            return self._answer(401, b'{"messages":[{"type":"ERROR","text":"Not logged in"}]}', "application/json")
        if self.command != "GET" and (self.headers.get("X-Splunk-Form-Key") != cookies.get(
                "splunkweb_csrf_token_%d" % web.port) or not self.headers.get("X-Splunk-Form-Key")):
            with web.lock:
                web.csrf_refused += 1
            return self._answer(401, b'{"messages":[{"type":"ERROR","text":"CSRF validation failed"}]}',
                                "application/json")
        target = urlsplit(web.splunkd.url)
        conn = http.client.HTTPSConnection(target.hostname, target.port, timeout=60,
                                           context=ssl._create_unverified_context())   # the fake's own certificate
        headers = {"Authorization": "Splunk " + SESSION_KEY}
        if self.headers.get("Content-Type"):
            headers["Content-Type"] = self.headers["Content-Type"]
        try:
            conn.request(self.command, path + ("?" + query if query else ""), body=body or None, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            self._answer(resp.status, data, resp.getheader("Content-Type") or "application/json")
        finally:
            conn.close()

    def _cookies(self) -> Dict[str, str]:
        out = {}
        for part in (self.headers.get("Cookie") or "").split(";"):
            if "=" in part:
                k, v = part.strip().split("=", 1)
                out[k] = v
        return out

    def _answer(self, status: int, data: bytes, ctype: str, cookies: Tuple[str, ...] = ()) -> None:
        self.reply(status, [("Content-Type", ctype)] + [("Set-Cookie", c) for c in cookies]
                   + [("Content-Length", str(len(data))), ("Connection", "close")], data)

    do_GET = do_POST = do_DELETE = _serve


class FakeSplunkWeb(Loopback):
    """Splunk Web (plain http on loopback) in front of `splunkd`, a fakes.splunkd.FakeSplunkd."""
    Handler = SplunkWebHandler

    def __init__(self, splunkd: Any):
        super().__init__(None)
        self.splunkd = splunkd
        self.requests: List[Dict[str, Any]] = []
        self.csrf_refused = 0
        self.lock = threading.Lock()

    def view_url(self, view: str, query: str = "") -> str:
        return "%s/%s/app/%s/%s%s" % (self.url, LOCALE, APP, view, ("?" + query) if query else "")
