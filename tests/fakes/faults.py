"""Hostile servers and inputs for the fault tests (tests/faults/) and `make fault`
(tools/fault.py). Loopback only, every one bounded in time and size.

- DripServer: a loopback HTTP(S) server that answers every request by trickling bytes
  (`mode="headers"`: the status line and headers one byte per `step` seconds; `mode="body"`: the
  headers at once, a large Content-Length, then the body one byte per `step`), for at most
  `limit` seconds, then closes. A per-read timeout never fires against it; only a wall-clock
  deadline does.
- FloodServer: answers 200 without Content-Length (read until close) and streams `total` bytes
  of JSON-looking filler as fast as the client reads.
- CannedServer: answers a connection's requests with given bytes, one answer a request.
- hostile_snapshot(folder, seed): one seeded hostile snapshot folder (deep nesting, huge
  numbers, FIFOs, /dev/zero links, random bytes, lines without newlines, ...) and its kind.
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
from typing import List, Optional, Tuple


class _Server:
    def __init__(self, tls: Optional[Tuple[str, str]] = None, limit: float = 30.0):
        self.tls = tls
        self.limit = limit
        self.stop_event = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.ctx = None
        if tls:
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.ctx.load_cert_chain(*tls)
        self.connections = 0
        self.sent = 0
        self._threads: List[threading.Thread] = []

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    @property
    def url(self) -> str:
        return "%s://127.0.0.1:%d" % ("https" if self.tls else "http", self.port)

    def __enter__(self):
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def __exit__(self, *exc) -> None:
        self.stop_event.set()
        for t in self._threads:
            t.join(self.limit + 2)
        self.sock.close()

    def _accept(self) -> None:
        while not self.stop_event.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connections += 1
            t = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _handle(self, conn: socket.socket) -> None:
        """One connection: TLS if asked, `serve`, then closed whatever happened."""
        try:
            conn.settimeout(self.limit)
            if self.ctx is not None:
                conn = self.ctx.wrap_socket(conn, server_side=True)
            self.serve(conn)
        except (OSError, ssl.SSLError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def serve(self, conn: socket.socket) -> None:
        """Read one request's head, then `answer` it."""
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        self.answer(conn)

    def answer(self, conn: socket.socket) -> None:
        raise NotImplementedError


class DripServer(_Server):
    def __init__(self, tls: Optional[Tuple[str, str]] = None, mode: str = "body", step: float = 0.2,
                 limit: float = 30.0):
        super().__init__(tls, limit)
        self.mode = mode
        self.step = step

    def answer(self, conn: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        body = b'{"entry":[' + b" " * 99990
        stream = head + body if self.mode == "headers" else body
        if self.mode != "headers":
            conn.sendall(head)
            self.sent += len(head)
        waited = 0.0
        for i in range(len(stream)):
            if self.stop_event.wait(self.step) or waited >= self.limit:
                return
            waited += self.step
            conn.sendall(stream[i:i + 1])
            self.sent += 1


class FloodServer(_Server):
    def __init__(self, tls: Optional[Tuple[str, str]] = None, total: int = 256 * 1024 * 1024,
                 limit: float = 30.0):
        super().__init__(tls, limit)
        self.total = total

    def answer(self, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
        block = b'{"entry":[' + b"1," * 32763 + b"1 "
        while self.sent < self.total and not self.stop_event.is_set():
            conn.sendall(block)
            self.sent += len(block)


class CannedServer(_Server):
    """Answers the requests of each connection with `answers` in turn, byte for byte as given (a
    server's odd but legal HTTP/1.1, or a broken one); closes the connection after the last answer or
    when `close_after` says so. `requests` counts the requests read."""

    def __init__(self, answers: List[bytes], tls: Optional[Tuple[str, str]] = None, limit: float = 10.0):
        super().__init__(tls, limit)
        self.answers = list(answers)
        self.requests = 0

    def serve(self, conn: socket.socket) -> None:
        data = b""
        for answer in self.answers:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            data = data.split(b"\r\n\r\n", 1)[1]      # the port's requests here carry no body
            self.requests += 1
            conn.sendall(answer)


# ---------------------------------------------------------------------------- hostile snapshots
REST_PATHS = ("services/server/introspection/queues", "services/server/pipelinesets",
              "services/server/info", "services/server/status/resource-usage/hostwide",
              "services/server/health/splunkd/details", "services/configs/conf-macros")
KINDS = ("deep_json", "deep_hec", "deep_meta", "huge_reply", "huge_number", "fifo", "dev_zero", "random_bytes",
         "random_rest", "no_newline", "long_lines", "nan_values", "wrong_types", "dir_as_file", "empty_files",
         "binary_log", "unicode_garbage", "dangling_link")


def _write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def _rest(root: str, path: str) -> str:
    return os.path.join(root, "rest", *path.split("/")) + ".json"


def hostile_snapshot(root: str, seed: int, big: bool = False) -> str:
    """Write one hostile snapshot into `root` (created); returns its kind. `big` allows the
    large cases (a 64 MiB log without a newline); the quick slice keeps every file small."""
    rnd = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    os.makedirs(root, exist_ok=True)
    depth = rnd.choice((2000, 50000, 200000))
    if kind == "deep_json":
        _write(_rest(root, rnd.choice(REST_PATHS)), b"[" * depth + b"]" * depth)
    elif kind == "deep_hec":
        _write(os.path.join(root, "hec", "health.json"), b'{"a":' * depth + b"1" + b"}" * depth)
    elif kind == "deep_meta":
        _write(os.path.join(root, "snapshot.json"), b"[" * depth)
    elif kind == "huge_reply":
        digits = "".join(rnd.choice("123456789") for _ in range(rnd.choice((5000, 20000))))
        line = ("11-22-2026 10:00:00.000 +0000 ERROR HttpInputDataHandler [1 HttpDedicatedIoThread-0] - "
                "Failed processing http input, token name=t, channel=n/a, source_IP=10.0.0.1, reply=%s, "
                "events_processed=1, http_input_body_size=10\n" % digits)
        _write(os.path.join(root, "logs", "splunkd.log"), line.encode() * 3)
    elif kind == "huge_number":
        digits = "9" * rnd.choice((5000, 50000))
        body = '{"entry":[{"name":"parsingqueue","content":{"current_size_bytes":%s,"max_size_bytes":%s}}]}' % (
            digits, digits)
        _write(_rest(root, "services/server/introspection/queues"), body.encode())
        _write(os.path.join(root, "logs", "metrics.log"),
               ("11-22-2026 10:00:00.000 +0000 INFO Metrics - group=queue, name=parsingqueue, "
                "max_size_kb=%s, current_size_kb=%s\n" % (digits, digits)).encode())
    elif kind in ("fifo", "dev_zero"):
        # a file that never ends: a FIFO nobody writes (a metrics.log), or /dev/zero (a splunkd.log)
        log = "metrics.log" if kind == "fifo" else "splunkd.log"
        target = rnd.choice([_rest(root, p) for p in REST_PATHS] +
                            [os.path.join(root, "logs", log), os.path.join(root, "hec", "health.json"),
                             os.path.join(root, "snapshot.json")])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if kind == "fifo":
            os.mkfifo(target)
        else:
            os.symlink("/dev/zero", target)
    elif kind == "random_bytes":
        for p in rnd.sample(REST_PATHS, 3):
            _write(_rest(root, p), bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 4096))))
        _write(os.path.join(root, "logs", "metrics.log"), bytes(rnd.getrandbits(8) for _ in range(4096)))
    elif kind == "random_rest":
        _write(_rest(root, rnd.choice(REST_PATHS)), bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 64))))
    elif kind == "no_newline":
        size = (64 << 20) if big else (2 << 20)
        os.makedirs(os.path.join(root, "logs"), exist_ok=True)
        with open(os.path.join(root, "logs", rnd.choice(("metrics.log", "splunkd.log"))), "wb") as f:
            block = b"x" * (1 << 20)
            for _ in range(size >> 20):
                f.write(block)
    elif kind == "long_lines":
        line = b"11-22-2026 10:00:00.000 +0000 INFO Metrics - group=queue, name=" + b"q" * (3 << 20) + b"\n"
        _write(os.path.join(root, "logs", "metrics.log"), line * 2)
    elif kind == "nan_values":
        _write(_rest(root, "services/server/introspection/queues"),
               b'{"entry":[{"name":"parsingqueue","content":{"current_size_bytes":NaN,"max_size_bytes":Infinity,'
               b'"value_cntr1_size_bytes_lookback":-Infinity}}]}')
    elif kind == "wrong_types":
        _write(_rest(root, rnd.choice(REST_PATHS)),
               json.dumps(rnd.choice(([1, 2], "entry", {"entry": "x"}, {"entry": [1, None, []]},
                                      {"entry": [{"name": ["a"], "content": [1]}]}, None, 3.5))).encode())
        _write(os.path.join(root, "snapshot.json"),
               json.dumps({"host": ["x"], "captured_at": rnd.choice((1e308, "abc", [], -1))}).encode())
    elif kind == "dir_as_file":
        os.makedirs(_rest(root, rnd.choice(REST_PATHS)), exist_ok=True)
        os.makedirs(os.path.join(root, "logs", "metrics.log"), exist_ok=True)
    elif kind == "empty_files":
        for p in REST_PATHS:
            _write(_rest(root, p), b"")
        _write(os.path.join(root, "hec", "health.json"), b"")
    elif kind == "binary_log":
        _write(os.path.join(root, "logs", "splunkd.log"), b"\x00\xff\xfe" * 100000)
    elif kind == "unicode_garbage":
        _write(_rest(root, "services/server/info"), b'{"entry":[{"name":"\xed\xa0\x80","content":{"\xc3":1}}]}')
    elif kind == "dangling_link":
        os.makedirs(os.path.join(root, "rest", "services", "server"), exist_ok=True)
        os.symlink(os.path.join(root, "nowhere"), _rest(root, "services/server/info"))
    return kind


# ---------------------------------------------------------------------------- the fault suite's figures
FULL_ENV = "INGEST_DOCTOR_FAULT_FULL"        # set by `make fault` (tools/fault.py): the whole set
REPORT_ENV = "INGEST_DOCTOR_FAULT_REPORT"    # where each fault test appends its figures (JSON lines)
COUNTERS = ("cases", "failures", "tracebacks", "hangs", "false_healthy", "lost_updates", "lost_notifications",
            "duplicated_notifications", "forged_changes")


def full() -> bool:
    return bool(os.environ.get(FULL_ENV))


def scale(quick, whole):
    """How many cases: `quick` in `make test`, `whole` in `make fault`."""
    return whole if full() else quick


def record(section: str, peak_rss_mb: float = 0.0, **counts: int) -> None:
    """Append one section's figures to the fault report (no-op outside `make fault`)."""
    path = os.environ.get(REPORT_ENV)
    if not path:
        return
    row = {"section": section, "peak_rss_mb": round(peak_rss_mb, 1)}
    row.update({k: int(counts.get(k, 0)) for k in COUNTERS})
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


# A child's ru_maxrss starts at its parent's high-water mark (exec records the old memory's), so a
# large test process would inflate every child's figure: a small wrapper process starts the command
# and reports the command's own peak (the wrapper's small memory is all it inherits).
_WRAPPER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
os.write(2, b"\\n@@peak_rss_kb=%d\\n" % usage.ru_maxrss)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
"""


def run_measured(cmd, stdin: bytes = b"", timeout: float = 60.0, env=None, cwd=None):
    """Run a subprocess as Splunk would; returns (returncode or None when it hung and was killed,
    stdout, stderr, peak RSS in MB of that command)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([sys.executable, "-c", _WRAPPER] + list(cmd), stdin=subprocess.PIPE, stdout=out,
                             stderr=err, env=env, cwd=cwd, start_new_session=True)
        killed = []

        def kill() -> None:
            killed.append(True)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            try:
                p.stdin.write(stdin)
                p.stdin.close()
            except OSError:
                pass
            p.wait()
        finally:
            timer.cancel()
        out.seek(0)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
        m = re.search(r"\n@@peak_rss_kb=(\d+)\n$", text)
        rss = int(m.group(1)) / 1024.0 if m else 0.0
        if m:
            text = text[:m.start()]
        return (None if killed else p.returncode), out.read().decode("utf-8", "replace"), text, rss
