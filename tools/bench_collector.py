"""Bench: CPU and memory of the collector's poll against a large instance (the budgets in tools/bench.py).

The instance: 4 pipeline sets, 100 HEC tokens, HEC on its own port with a probe token, and a
synthetic /proc with 300 splunkd threads whose CPU counters move between polls. The fake splunkd
(keeping HTTP/1.1 connections open, as splunkd does) and the /proc writer run in another process,
so only the collector's own work is measured: REST calls over TLS, parsing, the /proc read,
diagnosis over a full 10-minute window (60 polls at 10 s), and the events serialised by
splunklib's EventWriter exactly as the modular input does.

Measured: the CPU of each of POLLS polls once the window is full (min/median/max over the polls);
the resident memory after three windows of polls (the window's age must not grow it); the growth
from one window to three.
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
fake, hec = FakeSplunkd(tls, keep_alive=True).start(), FakeSplunkd(tls, keep_alive=True).start()
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


def _rss_mb() -> float:
    """This process's resident set now (VmRSS), not its peak: whether memory grows with the window's age."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS in /proc/self/status")


@register("collector")
def collector():
    """As splunkd serves it: HTTP/1.1 keep-alive, so a poll reuses its connections."""
    return _bench(psets=4)


def _bench(psets=4):
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    sys.path.append(os.path.join(ROOT, "bin", "lib"))      # splunklib, solnlib: as the add-on's entry script adds them
    tmp = tempfile.mkdtemp(prefix="bench_collector_")
    server = subprocess.Popen([sys.executable, "-c", "ROOT=%r; TMP=%r; PSETS=%d\n%s" % (ROOT, tmp, psets, SERVER)],
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
    coll = collector.Collector(params, url, fi.SESSION_KEY, http_call, lambda: fi.PROBE_TOKEN, "idx-bench")
    tracker = procthreads.ThreadCpu(os.path.join(tmp, "proc"))
    life = shell.Lifecycle(None)
    sink = io.StringIO()
    script = shell.CollectorInput(life, sink)
    indexes = {"metrics": params.metrics_index, "config": None, "finding": None}
    ew = EventWriter(sink, io.StringIO())
    clock = [time.time() - 600.0]

    def one_poll():
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

    rss_one_window = _rss_mb()

    def work():
        cpu = []
        events = 0
        for _ in range(POLLS):
            time.sleep(0.05)
            c0 = time.process_time()
            res = one_poll()
            cpu.append(time.process_time() - c0)
            events = len(res.events)
        for _ in range(120 - POLLS):        # two more windows of age
            one_poll()
        rss = _rss_mb()
        return {"collector_cpu_ms": [round(c * 1000.0, 2) for c in cpu],
                "collector_rss_mb": [round(rss, 1)],
                "collector_rss_growth_mb": [round(rss - rss_one_window, 1)],
                "events_per_poll": events, "window_polls": len(coll.window.polls), "threads": 300,
                "hec_tokens": 100, "pipeline_sets": psets}

    import atexit
    atexit.register(server.kill)
    return work
