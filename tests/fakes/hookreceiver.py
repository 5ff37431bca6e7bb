"""A loopback webhook receiver for tests and benches (http, or https with make_tls's pair).

Each POST is answered by the next entry of a script (`plan`), then by `default`:
- an int status (200, 500, 503, ...) with optional headers (`Retry-After`, `Location`);
- "hang": keep the connection open without answering until the receiver stops;
- "trickle": answer 200 with a long body, one byte a second;
- "trickle_head": send the status line itself one byte a second;
- "slow": answer 200 after `slow_s` seconds (within the client's deadline).
Only answered 2xx POSTs count as received (`bodies`, `times`); every POST is in `seen`.
The receiver can stop and start again on the same port (a receiver restarted mid-outage).
`HangUp` is the receiver down behind a load balancer: it accepts TCP and closes before or during
the TLS handshake.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any, Dict, List, Optional, Tuple, Union

from fakes.splunkd import Loopback, QuietHandler

Step = Union[int, str, Tuple[int, Dict[str, str]]]


class HookHandler(QuietHandler):
    """Each POST answered by the receiver's next step."""

    def _trickle(self, data: bytes) -> None:
        """Write `data` a byte a second (until the receiver stops or the client hangs up), then close."""
        outer = self.server.owner     # type: ignore[attr-defined]
        for ch in data:
            if outer.stopping.wait(1.0):
                break
            try:
                self.wfile.write(bytes([ch]))
                self.wfile.flush()
            except OSError:
                break
        self.close_connection = True

    def do_POST(self) -> None:
        outer = self.server.owner     # type: ignore[attr-defined]
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else b""
        step = outer._next()
        with outer.lock:
            outer.seen.append((time.time(), step))
            outer.headers.append({k: v for k, v in self.headers.items()})
        if step == "hang":
            outer.stopping.wait(600)
            self.close_connection = True
            return
        if step == "slow":
            outer.stopping.wait(outer.slow_s)
            step = 200
        if step == "trickle_head":
            self._trickle(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            return
        if step == "trickle":
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self._trickle(b"x" * 100000)
            return
        status, hdrs = (step, {}) if isinstance(step, int) else step   # type: ignore[misc]
        if 200 <= status < 300:
            try:
                body = json.loads(data.decode("utf-8"))
            except ValueError:
                body = {"raw": data.decode("utf-8", "replace")}
            with outer.lock:
                outer.bodies.append(body)
                outer.times.append(time.time())
        out = b'{"ok":true}' if 200 <= status < 300 else b'{"error":"no"}'
        self.reply(status, list(hdrs.items()) + [("Content-Type", "application/json"),
                                                 ("Content-Length", str(len(out))), ("Connection", "close")], out)


class HookReceiver(Loopback):
    Handler = HookHandler
    PATH = "/hook"
    poll_interval = 0.05

    def __init__(self, tls: Optional[Tuple[str, str]] = None, port: int = 0):
        super().__init__(tls, port)
        self.plan: List[Step] = []
        self.default: Step = 200
        self.slow_s = 1.5
        self.bodies: List[Dict[str, Any]] = []
        self.times: List[float] = []
        self.seen: List[Tuple[float, Step]] = []
        self.headers: List[Dict[str, str]] = []
        self.lock = threading.Lock()

    def _next(self) -> Step:
        with self.lock:
            return self.plan.pop(0) if self.plan else self.default


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class HangUp:
    """Accepts TCP on a port and closes each connection before the TLS handshake ("before") or after
    reading the ClientHello ("during"), as a restarting receiver or a backend-less balancer does."""

    def __init__(self, mode: str, port: int = 0):
        self.mode = mode
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.mode == "during":
                conn.settimeout(5)
                try:
                    conn.recv(4096)
                except OSError:
                    pass
            conn.close()
            self.accepted += 1

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)     # wakes the blocked accept (close alone does not)
        except OSError:
            pass
        self.sock.close()
