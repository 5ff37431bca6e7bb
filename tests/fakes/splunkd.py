"""A loopback HTTPS fake splunkd for tests.

Each test registers the routes it needs; responses use splunkd's real shapes
(JSON envelope, Atom error bodies) and close each connection like splunkd does.
Named faults reproduce what real deployments throw at a client: 401, 403, 404,
503 "KV Store is initializing", an HTML error page, a truncated body, a
timeout (the server holds the request until the client gives up, bounded), a
trickle (the headers at once, then the body one byte a second: a per-read timeout never fires),
and a reset connection.

    with FakeSplunkd(tls) as fake:
        fake.route("GET", "/services/server/info", envelope("server-info", [...]))
        fake.route("GET", "/services/server/introspection/queues", fault("503"))
        ... fake.url ... fake.requests ...
"""
from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union
from urllib.parse import parse_qs, quote, urlsplit
from xml.sax.saxutils import escape

from fakes.snapbuilder import envelope_body

TIMEOUT_HOLD_S = 8.0   # how long a "timeout" fault holds a request at most
TRICKLE_S = 1.0        # a "trickle" fault's pause before each byte of the body
TRICKLE_MAX_S = 60.0   # and how long it trickles at most


@dataclass
class Response:
    status: int = 200
    body: Union[bytes, str, dict, list] = b""
    content_type: str = "application/json; charset=UTF-8"
    headers: Dict[str, str] = field(default_factory=dict)
    fault: Optional[str] = None       # None | "timeout" | "truncated" | "reset" | "trickle"

    def payload(self) -> bytes:
        if isinstance(self.body, (dict, list)):
            return json.dumps(self.body).encode("utf-8")
        if isinstance(self.body, str):
            return self.body.encode("utf-8")
        return self.body


@dataclass
class Request:
    method: str
    path: str
    query: Dict[str, List[str]]
    headers: Dict[str, str]
    body: bytes

    def form(self, keep_blank_values: bool = False) -> Dict[str, List[str]]:
        return parse_qs(self.body.decode("utf-8", "replace"), keep_blank_values=keep_blank_values)

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


Handler = Callable[[Request], Response]


def envelope(path: str, entries: List[Tuple[str, Dict[str, Any]]], host: str = "127.0.0.1:8089",
             version: str = "9.3.2") -> Response:
    """splunkd's JSON envelope (output_mode=json) around (name, content) entries, answered."""
    return Response(200, envelope_body("https://%s%s" % (host, path), path, entries, version,
                                       updated="2026-11-22T10:00:00+00:00", build="0a1b2c3d4e5f"))


def messages(status: int, text: str, kind: str = "ERROR") -> Response:
    return Response(status, {"messages": [{"type": kind, "text": text}]})


_HTML = ("<!doctype html><html><head><title>500 Internal Server Error</title></head>"
         "<body><h1>Oops.</h1><p>The server encountered an unexpected condition.</p></body></html>")

FAULTS: Dict[str, Callable[[], Response]] = {
    "401": lambda: messages(401, "call not properly authenticated", "WARN"),
    "403": lambda: messages(403, "You (user=ingest) do not have permission to perform this operation "
                                 "(requires capability: list_pipeline_sets)."),
    "404": lambda: messages(404, "Not Found"),
    "500": lambda: messages(500, "Internal server error"),
    "503": lambda: messages(503, "KV Store is initializing. Please try again later."),
    "html": lambda: Response(500, _HTML, content_type="text/html; charset=UTF-8"),
    "truncated": lambda: Response(200, b'{"links":{},"entry":[{"name":"parsingQueue","content":{"current_',
                                  fault="truncated"),
    "timeout": lambda: Response(200, b"{}", fault="timeout"),
    "reset": lambda: Response(200, b"", fault="reset"),
    "trickle": lambda: Response(200, b'{"links":{},"entry":[]}' + b" " * 200, fault="trickle"),
}


def trickle(response: Response) -> Response:
    """`response`, its body sent one byte every TRICKLE_S after its headers."""
    response.fault = "trickle"
    return response


def fault(name: str) -> Response:
    return FAULTS[name]()


def make_tls(directory: str) -> Tuple[str, str]:
    """A self-signed certificate for 127.0.0.1/localhost; returns (cert, key)."""
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    if not os.path.exists(cert):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                       check=True, capture_output=True)
    return cert, key


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler of a loopback fake: HTTP/1.1, no access log; its fake is `self.server.owner`."""

    protocol_version = "HTTP/1.1"
    # An answer's headers and body are two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK of the headers (40 ms an answer on a kept-alive connection), a stall
    # splunkd does not have.
    disable_nagle_algorithm = True

    def log_message(self, *args: Any) -> None:
        pass

    def reply(self, status: int, headers: Sequence[Tuple[str, str]], data: bytes, close: bool = True) -> None:
        """Answer `status` with `headers` (in this order) and `data`; the connection then ends unless not `close`."""
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = close


class Loopback:
    """A loopback HTTP server (https with make_tls's pair) on a thread of its own, answering with its
    `Handler` class; `stopping` is set while it stops. It can stop and start again on the same port."""

    Handler = QuietHandler
    PATH = ""                   # what `url` adds to the server's origin
    poll_interval = 0.5

    def __init__(self, tls: Optional[Tuple[str, str]] = None, port: int = 0):
        self.tls = tls
        self.port = port
        self.stopping = threading.Event()
        self.server: Optional[ThreadingHTTPServer] = None

    @property
    def url(self) -> str:
        return "%s://127.0.0.1:%d%s" % ("https" if self.tls else "http", self.port, self.PATH)

    def start(self):
        self.stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", self.port), self.Handler)
        server.daemon_threads = True
        server.owner = self     # type: ignore[attr-defined]
        if self.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*self.tls)
            server.socket = ctx.wrap_socket(server.socket, server_side=True)
        self.port = server.server_address[1]
        self.server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": self.poll_interval},
                         daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class SplunkdHandler(QuietHandler):
    """Every request recorded, then answered by its route (404 where none), faults as they say."""

    def setup(self) -> None:
        super().setup()
        fake = self.server.owner     # type: ignore[attr-defined]
        with fake._lock:
            fake.connections += 1

    def _serve(self) -> None:
        fake = self.server.owner     # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        req = Request(self.command, parts.path, parse_qs(parts.query),
                      {k: v for k, v in self.headers.items()}, body)
        with fake._lock:
            fake.requests.append(req)
        resp = fake._lookup(self.command, parts.path)
        if resp is None:
            resp = fault("404")
        elif callable(resp):
            resp = resp(req)
        if resp.fault == "reset":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if resp.fault == "timeout":
            fake.stopping.wait(TIMEOUT_HOLD_S)
            self.close_connection = True
            return
        data = resp.payload()
        if resp.fault == "trickle":
            self._trickle(fake, resp, data)
            return
        # A truncated body (Content-Length larger than what is sent) ends with its connection.
        close = not fake.keep_alive or resp.fault == "truncated"
        declared = len(data) * 2 + 10 if resp.fault == "truncated" else len(data)
        self.reply(resp.status, self._head(resp, close) + list(resp.headers.items())
                   + [("Content-Length", str(declared))], data, close)

    @staticmethod
    def _head(resp: Response, close: bool) -> List[Tuple[str, str]]:
        """splunkd's first headers: Content-Type, Connection: close when the connection ends, Server."""
        closing = [("Connection", "close")] if close else []
        return [("Content-Type", resp.content_type)] + closing + [("Server", "Splunkd")]

    def _trickle(self, fake: "FakeSplunkd", resp: Response, data: bytes) -> None:
        self.reply(resp.status, self._head(resp, True) + [("Content-Length", str(len(data)))], b"")
        start = time.monotonic()
        try:
            for i in range(len(data)):
                if fake.stopping.wait(TRICKLE_S) or time.monotonic() - start > TRICKLE_MAX_S:
                    return
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
        except OSError:         # the client gave up (its deadline): what a trickle is for
            return

    do_GET = do_POST = do_DELETE = do_PUT = _serve


class FakeSplunkd(Loopback):
    """Closes each connection after its answer (the harder case for a client), or keeps it open as
    splunkd does ([httpServer] keepAliveIdleTimeout) with `keep_alive=True`."""
    Handler = SplunkdHandler

    def __init__(self, tls: Optional[Tuple[str, str]] = None, keep_alive: bool = False):
        super().__init__(tls)
        self.keep_alive = keep_alive
        self.routes: Dict[Tuple[str, str], Union[Response, Handler]] = {}
        self.prefix_routes: List[Tuple[str, str, Union[Response, Handler]]] = []
        self.requests: List[Request] = []
        self.connections = 0    # connections accepted (with keep_alive, fewer than requests)
        self._lock = threading.Lock()

    # -- routes
    def route(self, method: str, path: str, response: Union[Response, Handler]) -> None:
        with self._lock:
            self.routes[(method.upper(), path)] = response

    def route_prefix(self, method: str, prefix: str, response: Union[Response, Handler]) -> None:
        with self._lock:
            self.prefix_routes.append((method.upper(), prefix, response))

    def _lookup(self, method: str, path: str) -> Union[Response, Handler, None]:
        with self._lock:
            hit = self.routes.get((method, path))
            if hit is not None:
                return hit
            for m, prefix, resp in sorted(self.prefix_routes, key=lambda r: -len(r[1])):
                if m == method and path.startswith(prefix):
                    return resp
        return None

    def requests_to(self, path: str, method: Optional[str] = None) -> List[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path and (method is None or r.method == method)]


def _atom_entry(base: str, path: str, name: str, app: str, content: Dict[str, str]) -> str:
    keys = "".join('<s:key name="%s">%s</s:key>' % (escape(k), escape(str(v))) for k, v in sorted(content.items()))
    href = "%s/%s" % (path, quote(name, safe=""))
    return ('<entry><title>%s</title><id>%s%s</id><updated>2026-11-22T10:00:00+00:00</updated>'
            '<link href="%s" rel="alternate"/><author><name>nobody</name></author>'
            '<link href="%s" rel="list"/><link href="%s" rel="edit"/><content type="text/xml"><s:dict>%s'
            '<s:key name="disabled">0</s:key><s:key name="eai:acl"><s:dict><s:key name="app">%s</s:key>'
            '<s:key name="owner">nobody</s:key><s:key name="sharing">app</s:key></s:dict></s:key>'
            '</s:dict></content></entry>' % (escape(name), base, href, href, href, href, keys, escape(app)))


def atom_feed(base: str, path: str, entries: List[Tuple[str, Dict[str, str]]], app: str) -> Response:
    """splunkd's Atom feed (what splunklib reads: it asks for no output_mode) of (name, content) entries."""
    body = ('<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
            'xmlns:s="http://dev.splunk.com/ns/rest" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
            '<title>%s</title><id>%s%s</id><updated>2026-11-22T10:00:00+00:00</updated>'
            '<generator build="0a1b2c3d4e5f" version="9.3.2"/><author><name>Splunk</name></author>'
            '<opensearch:totalResults>%d</opensearch:totalResults><opensearch:itemsPerPage>30'
            '</opensearch:itemsPerPage><opensearch:startIndex>0</opensearch:startIndex><s:messages/>%s</feed>'
            % (escape(path.rsplit("/", 1)[-1]), base, path, len(entries),
               "".join(_atom_entry(base, path, n, app, c) for n, c in entries)))
    return Response(200, body, content_type="text/xml; charset=UTF-8")


def route_conf(fake: "FakeSplunkd", app: str, conf: str, stanzas: Dict[str, Dict[str, str]]) -> None:
    """A conf file of `app` as splunklib (and solnlib's conf manager) read it: properties/<conf> says
    it exists, configs/conf-<conf>/<stanza> answers one stanza's feed; any other stanza is a 404."""
    ns = "/servicesNS/nobody/%s/" % app
    fake.route("GET", ns + "properties/" + conf,
               lambda req: atom_feed(fake.url, ns + "properties/" + conf, [(n, {}) for n in sorted(stanzas)], app))
    for name, content in stanzas.items():
        path = ns + "configs/conf-" + conf
        fake.route("GET", "%s/%s" % (path, quote(name, safe="")),
                   lambda req, name=name, content=content: atom_feed(fake.url, path, [(name, content)], app))


class Messages:
    """splunkd's Splunk Web messages (`/services/messages`): POST name/value/severity (form fields, whatever
    the Content-Type says: solnlib sends them form-encoded under application/json) creates or replaces
    a message by name; DELETE /services/messages/<name> removes it (404 when absent); GET lists them in
    the JSON envelope. `posts` keeps every POST, to count repeats. `role` and `capability` (each
    repeatable) restrict who sees a message; a role splunkd does not know is refused with HTTP 400
    (solnlib's BulletinRestClient.create_message documents both); `visible_to` keeps, per message,
    the roles that see it (None: every user, as splunkd does for a POST without either)."""

    PATH = "/services/messages"
    # Splunk's built-in roles (authorize.conf in etc/system/default).
    ROLES = ("admin", "can_delete", "power", "user", "splunk-system-role")

    def __init__(self, fake: "FakeSplunkd", server: str = "sh-01", roles: Sequence[str] = ROLES):
        self.server = server
        self.roles = tuple(roles)
        self.shown: Dict[str, Dict[str, Any]] = {}
        self.visible_to: Dict[str, Optional[List[str]]] = {}
        self.posts: List[Dict[str, str]] = []
        self.deletes: List[str] = []
        self._lock = threading.Lock()
        fake.route("POST", self.PATH, self._post)
        fake.route("GET", self.PATH, self._list)
        fake.route_prefix("DELETE", self.PATH + "/", self._delete)

    def _post(self, req: Request) -> Response:
        multi = req.form()
        form = {k: v[0] for k, v in multi.items()}
        if not form.get("name") or not form.get("value"):
            return messages(400, "Argument \"name\" and \"value\" are required")
        if form.get("severity", "info") not in ("info", "warn", "error"):
            return messages(400, "Invalid severity")
        roles = multi.get("role") or []
        unknown = [r for r in roles if r not in self.roles]
        if unknown:
            return messages(400, "Role \"%s\" does not exist" % unknown[0])   # the status is documented, the text ours
        with self._lock:
            self.posts.append(form)
            self.visible_to[form["name"]] = list(roles) or None
            self.shown[form["name"]] = {"message": form["value"], "severity": form.get("severity", "info"),
                                        "server": self.server, "timeCreated_epochSecs": int(time.time())}
        return envelope(self.PATH, [(form["name"], self.shown[form["name"]])])

    def _list(self, req: Request) -> Response:
        with self._lock:
            return envelope(self.PATH, sorted(self.shown.items()))

    def _delete(self, req: Request) -> Response:
        name = req.path[len(self.PATH) + 1:]
        with self._lock:
            self.deletes.append(name)
            if self.shown.pop(name, None) is None:
                return messages(404, "Message \"%s\" does not exist" % name)
        return envelope(self.PATH, [])


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
