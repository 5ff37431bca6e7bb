"""The collector under faults (issue 23): an endpoint that answered 404 comes back (re-probed on a
back-off, the log says so), and the modular input, run as splunkd runs it (XML configuration on
stdin), keeps polling against a splunkd that trickles its answers one byte at a time or floods
an answer without Content-Length: each call ends at `request_timeout`, each body at its cap."""
from __future__ import annotations

import json
import subprocess

import pytest

from fakes.faults import DripServer, FloodServer, record, scale
from ingest_doctor.collector import params as params_mod
from ingest_doctor.collector import poll as collector
from ingest_doctor.read import endpoints

from fakes import instance as fi
from fakes.collector_run import Run
from fakes.paths import need_ta_build
from fakes.splunkd import wait_for

Q = "services/server/introspection/queues"
NOT_FOUND = endpoints.Fetched(404, b'{"messages":[{"type":"ERROR","text":"Not Found"}]}', 1.0)
QUEUES = json.dumps({"entry": [{"name": "parsingqueue", "content": {
    "current_size_bytes": 100, "max_size_bytes": 512000, "value_cntr1_size_bytes_lookback": 100}}]}).encode()


class Http:
    """The collector's HttpCall: every endpoint answers an empty envelope; the queues answer 404
    until `queues_back`."""

    def __init__(self):
        self.queues_back = False
        self.calls = []

    def __call__(self, method, url, headers, body, tls):
        path = url.split("://", 1)[1].split("/", 1)[1].split("?", 1)[0]
        self.calls.append(path)
        if path == Q:
            return endpoints.Fetched(200, QUEUES, 1.0) if self.queues_back else NOT_FOUND
        return endpoints.Fetched(200, b'{"entry":[]}', 1.0)


def test_a_404_endpoint_is_reprobed_on_a_back_off_and_its_return_is_logged():
    http = Http()
    params = params_mod.parse_params({"poll_interval": "10", "thread_cpu": "0"})
    c = collector.Collector(params, "https://127.0.0.1:8089", "KEY", http, server_host="idx-01",
                            clock=iter(range(10 ** 6)).__next__, cpu_clock=lambda: 0.0)
    logs = []
    t = 1000.0
    for _ in range(12):                     # two minutes of 10 s polls
        logs.extend(line.message for line in c.poll(t).logs)
        t += 10
    asked = http.calls.count(Q)
    assert asked == 1 and Q in c.absent                     # noted once, not asked every poll
    assert sum("kind=404" in m for m in logs) == 1 and any("re-probed in 120 s" in m for m in logs)
    logs.clear()
    for _ in range(2):                      # the back-off passed: asked again, still absent
        logs.extend(line.message for line in c.poll(t).logs)
        t += 10
    assert http.calls.count(Q) == 2 and c.absent[Q][1] == 2 * collector.ABSENT_RETRY_S
    http.queues_back = True                 # the endpoint returns (an app installed, a role granted)
    while Q in c.absent and t < 1000.0 + 3600:
        logs.extend(line.message for line in c.poll(t).logs)
        t += 10
    assert Q not in c.absent and any("answers again" in m and Q in m for m in logs)
    before = http.calls.count(Q)
    c.poll(t)
    assert http.calls.count(Q) == before + 1                 # read every poll again (runtime endpoint)


# ---------------------------------------------------------------------------- as splunkd runs it
def _polls_on(server_url: str, timeout_s: str, polls: int, limit: float):
    """Run the add-on's modular input against `server_url` until it has polled `polls` times (at most
    `limit` s), then stop it: (polled, its peak RSS in MB, its stderr)."""
    need_ta_build()
    xml = fi.input_xml(server_url, {"poll_interval": "1", "thread_cpu": "0", "request_timeout": timeout_s})
    r = Run(xml.encode("utf-8"))
    try:
        polled = wait_for(lambda: len(r.polls()) >= polls, limit, step=0.2)
        rss = _peak_rss_mb(r.proc.pid)
    finally:
        _stop(r.proc)
    return polled, rss, r.stderr()


def _peak_rss_mb(pid: int) -> float:
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _stop(p) -> int:
    p.terminate()
    try:
        return p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait(10)


def test_the_collector_polls_on_against_a_flood_without_content_length(tls):
    with FloodServer(tls, total=64 * 1024 * 1024) as srv:
        polled, rss, text = _polls_on(srv.url, "10", 2, 120)
    record("collector: flood without Content-Length", rss, cases=1, failures=int(not polled or rss > 200),
           tracebacks=int("Traceback" in text), hangs=int(not polled))
    assert polled, text[-2000:]
    assert "kind=too_large" in text and "Traceback" not in text
    assert rss < 200, rss


@pytest.mark.skipif(not scale(0, 1), reason="make fault only: a slow drip costs request_timeout per endpoint")
def test_the_collector_polls_on_against_a_slow_drip(tls):
    with DripServer(tls, mode="body", step=0.5, limit=60) as srv:
        polled, rss, text = _polls_on(srv.url, "1", 1, 90)     # 12 endpoints x 1 s, not x 60 s
    record("collector: slow drip (1 byte / 0.5 s)", rss, cases=1, failures=int(not polled),
           tracebacks=int("Traceback" in text), hangs=int(not polled))
    assert polled, text[-2000:]
    assert "kind=timeout" in text and "Traceback" not in text
