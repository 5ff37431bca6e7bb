"""Bench: CPU and memory of the collector's poll against a large instance.

The instance: 4 pipeline sets, 100 HEC tokens, HEC on its own port with a probe
token, and a synthetic /proc with 300 splunkd threads whose CPU counters move
between polls. The fake splunkd and the /proc writer run in another process, so
only the collector's own work is measured: REST calls over TLS, parsing, the
/proc read, diagnosis over a full 10-minute window (60 polls at 10 s), and the
events serialised by splunklib's EventWriter exactly as the modular input does.

Targets (issue 4): at most 20 ms CPU a poll, 50 MB RSS, under 0.2 % of one core
at the default 10 s interval (= 7.2 CPU seconds an hour).

The floor (issue 21), measured in the same run, poll by poll: the same HTTPS requests
the poll made (recorded), sent bare with http.client (keep-alive: one kept connection per
server; closed connections: a new connection and a full handshake each) and read whole,
nothing parsed. The collector must stay within 2x of it with keep-alive.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
import time

from bench import ROOT, register

POLLS = 20
SERVER = r'''
import os, random, sys, threading, time
# Die with the bench: stdin is a pipe from it, EOF means it is gone.
threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
sys.path[:0] = [os.path.join(ROOT, "tests")]
from fakes.splunkd import FakeSplunkd, make_tls
from fakes import instance as fi
tls = make_tls(TMP)
# splunkd keeps HTTP/1.1 connections open; the fake does so for the keep-alive bench.
fake, hec = FakeSplunkd(tls, keep_alive=KEEPALIVE).start(), FakeSplunkd(tls, keep_alive=KEEPALIVE).start()
fi.Instance(fake, host="idx-bench", psets=PSETS, tokens=100, hec=hec)
# One thread per stage and pipeline set, the HEC thread, the output thread, then splunkd's many others.
names = (["HttpInputServer", "TcpOutEloop"] + ["parsing", "merging", "typing", "indexerPipe"] * PSETS
         + ["TcpChannelThread", "ExecProcessor", "TailingProcessor", "HTTPDispatch", "CallbackRunnerThread",
            "SchedulerThread", "HttpClientPollingThread", "DispatchReaper"] * 38)[:300]
tids = list(range(2000, 2300))
ticks = dict.fromkeys(tids, 0)
task = os.path.join(TMP, "proc", "1703", "task")
for tid in tids:
    os.makedirs(os.path.join(task, str(tid)), exist_ok=True)
# Like a busy indexer: a few threads do the work, most wait. Per 0.5 s (50 ticks = one core):
# 10 busy (HEC, pipeline threads), 30 light, 260 idle.
def write():
    for i, tid in enumerate(tids):
        ticks[tid] += random.randint(20, 50) if i < 10 else (random.randint(0, 2) if i < 40 else 0)
        with open(os.path.join(task, str(tid), "stat"), "w") as f:
            f.write("%d (%s) S 1 1 1 0 -1 0 0 0 0 0 %d 0 0 0 20 0 300 0 1 0 0\n" % (tid, names[i], ticks[tid]))
write()
print(fake.url, hec.port, tls[0], flush=True)
while True:
    time.sleep(0.5)
    write()
'''


TARGETS = "<= 20 ms CPU a poll, <= 50 MB RSS, < 0.2% of one core at 10 s"


@register("collector_poll", targets=TARGETS + "; <= 2x the bare requests", ratio=2.0)
def collector_poll():
    """Worst case: the server closes every connection (as the test fake does): a handshake a request."""
    return _bench(keepalive=False)


@register("collector_poll_keepalive", targets=TARGETS + "; <= 2x the bare keep-alive requests", ratio=2.0)
def collector_poll_keepalive():
    """As splunkd serves it: HTTP/1.1 keep-alive, so a poll reuses its connections."""
    return _bench(keepalive=True)


@register("collector_poll_growth", targets="reported: the cost of a pipeline set (the floor's requests do not grow)")
def collector_poll_growth():
    """Keep-alive polls of the same instance with 1 and with 8 pipeline sets: what a set adds to a poll,
    beside what it adds to the bare requests (the queue body grows with the sets; the request count does not)."""
    one, eight = _bench(keepalive=True, psets=1), _bench(keepalive=True, psets=8)

    def work():
        a, b = one(), eight()
        return {"cpu_ms_1_set": a["figure"], "cpu_ms_8_sets": b["figure"],
                "cpu_ms_per_set": round((b["figure"] - a["figure"]) / 7.0, 3),
                "floor_ms_1_set": a["floor"], "floor_ms_8_sets": b["floor"],
                "floor_ms_per_set": round((b["floor"] - a["floor"]) / 7.0, 3),
                "ratio_1_set": round(a["figure"] / a["floor"], 2), "ratio_8_sets": round(b["figure"] / b["floor"], 2)}
    return work


def _bench(keepalive, psets=4):
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    sys.path.append(os.path.join(ROOT, "bin", "lib"))      # splunklib, solnlib: as the entry scripts add them
    tmp = tempfile.mkdtemp(prefix="bench_collector_")
    server = subprocess.Popen([sys.executable, "-c", "ROOT=%r; TMP=%r; KEEPALIVE=%r; PSETS=%d\n%s" % (ROOT, tmp, keepalive, psets, SERVER)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url, hec_port, ca = server.stdout.readline().split()
    sys.path[:0] = [os.path.join(ROOT, "tests")]
    from fakes import instance as fi
    from ingest_doctor_ports import collector as port, collector_input as shell
    from ingest_doctor.collector import poll as collector, procthreads
    from ingest_doctor.collector import params as params_mod
    from splunklib.modularinput import EventWriter

    params = params_mod.parse_params({"poll_interval": "10", "hec_ca_file": ca, "hec_token_credential": "hec_probe"})
    http_call = port.Http(params.request_timeout, port.hec_context(params))
    calls = []

    def recording(method, url_, headers, body, tls):
        calls.append((method, url_, headers, body, tls))
        return http_call(method, url_, headers, body, tls)
    coll = collector.Collector(params, url, fi.SESSION_KEY, recording, lambda: fi.PROBE_TOKEN, "idx-bench")
    bare = Bare(http_call.contexts, keepalive)
    tracker = procthreads.ThreadCpu(os.path.join(tmp, "proc"))
    life = shell.Lifecycle(None)
    sink = io.StringIO()
    script = shell.CollectorInput(life, sink)
    indexes = {"metrics": params.metrics_index, "config": None, "finding": None}
    ew = EventWriter(sink, io.StringIO())
    clock = [time.time() - 600.0]

    def one_poll():
        del calls[:]
        sink.seek(0)
        sink.truncate()
        threads = tracker.sample(1703, time.monotonic())
        result = coll.poll(clock[0], threads)
        script._write("ingest_doctor_introspection://local", result, indexes, ew)
        clock[0] += 10.0
        return result

    for _ in range(60):                     # fill the 10-minute window first (steady state)
        one_poll()
        time.sleep(0.01)

    handshakes = [0, 0]                     # TLS handshakes, of which resumed
    from ingest_doctor_ports import splunkd as splunkd_port
    connect = splunkd_port._Resuming.connect

    def counting_connect(self):
        connect(self)
        handshakes[0] += 1
        handshakes[1] += bool(getattr(self.sock, "session_reused", False))
    splunkd_port._Resuming.connect = counting_connect

    def work():
        handshakes[:] = [0, 0]
        cpu = []
        floor = []
        events = 0
        for _ in range(POLLS):
            time.sleep(0.05)
            c0 = time.process_time()
            res = one_poll()
            cpu.append(time.process_time() - c0)
            events = len(res.events)
            time.sleep(0.05)
            c0 = time.process_time()
            bare.replay(calls)              # the floor: the same requests, bare
            floor.append(time.process_time() - c0)
        if keepalive and handshakes[0] > POLLS / 2:
            # Both sides would pay a handshake a request: the ratio would say nothing about keep-alive.
            raise RuntimeError("keep-alive bench: %d TLS handshakes in %d polls, the connections were not kept"
                               % (handshakes[0], POLLS))
        per_poll_ms = sum(cpu) / len(cpu) * 1000.0
        floor_ms = sum(floor) / len(floor) * 1000.0
        return {"figure": round(per_poll_ms, 2), "floor": round(floor_ms, 2), "unit": "ms CPU/poll",
                "requests_per_poll": len(calls),"polls": POLLS, "cpu_ms_per_poll": round(per_poll_ms, 2), "cpu_ms_max": round(max(cpu) * 1000, 2),
                "cpu_s_per_hour_at_10s": round(per_poll_ms * 360 / 1000.0, 2),
                "pct_of_one_core_at_10s": round(per_poll_ms / 10000.0 * 100, 3),
                "events_per_poll": events, "window_polls": len(coll.window.polls), "threads": 300,
                "hec_tokens": 100, "pipeline_sets": psets,
                "tls_handshakes_per_poll": round(handshakes[0] / float(POLLS), 1),
                "tls_resumed_per_poll": round(handshakes[1] / float(POLLS), 1)}

    import atexit
    atexit.register(server.kill)
    return work


class Bare:
    """The cheapest client doing the poll's I/O: http.client, the same TLS contexts, bodies read whole."""

    def __init__(self, contexts, keepalive):
        self.contexts = contexts
        self.keepalive = keepalive
        self.conns = {}

    def replay(self, calls):
        import http.client
        from urllib.parse import urlsplit
        for method, url, headers, body, tls in calls:
            parts = urlsplit(url)
            key = (parts.netloc, tls)
            conn = self.conns.get(key) if self.keepalive else None
            if conn is None or conn.sock is None:
                conn = http.client.HTTPSConnection(parts.netloc, timeout=10, context=self.contexts[tls]) \
                    if parts.scheme == "https" else http.client.HTTPConnection(parts.netloc, timeout=10)
                self.conns[key] = conn
            conn.request(method, parts.path + ("?" + parts.query if parts.query else ""), body=body,
                         headers=headers)
            resp = conn.getresponse()
            resp.read()
            if not self.keepalive:
                conn.close()
