"""Bench: how fast a bottleneck reaches the admin, measured end to end (issue 20).

`webhook_latency`: the collector as splunkd runs it (the built add-on's script, a subprocess, the
input XML on stdin, the default 10 s poll) against the loopback HTTPS fake splunkd (a heavy
forwarder whose queues fill at a known time) and a loopback HTTPS webhook receiver set on the
add-on's Configuration > Webhook. Several runs at once, each switching the bottleneck on at a
different phase of its poll cycle; reported: onset -> webhook received and onset -> the instance's
Splunk Web message, min/median/max.

`relay_lag`: the search head's path replayed (tests/relaysim.py, the shipped relay's windows read
from default/savedsearches.conf) for findings indexed 0, 90 and 300 s after their `_time`, at ten
phases of the minute each: whether each is delivered, after how long (its `_time` -> the relay run
that reads it, plus the action's own run, measured once as splunkd runs it), how often it is handed
over; and the same replay of the previous 2-minute `_time` window.
"""
from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from bench import ROOT, register

RUNS = 6
POLL_S = "10"


def _stats(xs):
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "min": round(min(xs), 1), "median": round(statistics.median(xs), 1),
            "max": round(max(xs), 1)}


@register("webhook_latency")
def webhook_latency():
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from fakes import instance as fi
    from fakes.collector_run import SCRIPT, CollectorProc, serve_webhook_settings
    from fakes.splunkd import FakeSplunkd, Messages, make_tls
    from fakes.hookreceiver import HookReceiver
    if not os.path.isfile(SCRIPT):
        raise SystemExit("build/TA-ingest_doctor is missing: run `make build`")
    tls = make_tls(tempfile.mkdtemp(prefix="oob_bench_"))

    def one(k, out):
        ck = tempfile.mkdtemp(prefix="oob_ck_")
        host = "hf-%02d" % k
        with FakeSplunkd(tls) as fake, HookReceiver(tls) as rec:
            inst = fi.Instance(fake, host=host, psets=1, roles=["heavyweight_forwarder"])
            msgs = Messages(fake, host)
            serve_webhook_settings(fake, rec.url)
            xml = fi.input_xml(fake.url, {"poll_interval": POLL_S, "thread_cpu": "0"}, host, checkpoint_dir=ck)
            c = CollectorProc(xml.encode("utf-8"), {"SSL_CERT_FILE": tls[0]})
            try:
                deadline = time.time() + 60
                while len(c.polls()) < 2 and time.time() < deadline:
                    time.sleep(0.05)
                polls = c.polls()
                # onset at phase k/RUNS of the poll cycle after the second poll
                phase = float(POLL_S) * (k + 0.5) / RUNS
                time.sleep(max(0.0, polls[-1] + phase - time.time()))
                onset = time.time()
                inst.full_queues = {"indexQueue", "typingQueue"}
                hook_at = msg_at = None
                deadline = onset + 90
                while (hook_at is None or msg_at is None) and time.time() < deadline:
                    now = time.time()
                    if hook_at is None and rec.times:
                        hook_at = rec.times[0]
                    if msg_at is None and msgs.posts:
                        msg_at = now
                    time.sleep(0.02)
                out[k] = (None if hook_at is None else hook_at - onset, None if msg_at is None else msg_at - onset)
            finally:
                c.kill()

    def work():
        out = {}
        threads = [threading.Thread(target=one, args=(k, out)) for k in range(RUNS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        hooks = [v[0] for v in out.values() if v[0] is not None]
        msgs = [v[1] for v in out.values() if v[1] is not None]
        m = _stats(msgs)
        return {"poll_interval_s": float(POLL_S), "runs": RUNS,
                # a run whose POST never came counts as missing the budget, not as absent
                "onset_to_webhook_s": [round(x, 1) for x in hooks] + [float("inf")] * (RUNS - len(hooks)),
                "onset_to_instance_message_s": "%s/%s/%s (min/median/max, %d of %d posted)"
                                               % (m.get("min"), m.get("median"), m.get("max"), m["n"], RUNS)}
    return work


LAGS = (0.0, 90.0, 300.0)
PHASES = 10


@register("relay_lag")
def relay_lag():
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from fakes.splunkd import FakeSplunkd, make_tls
    from fakes.relaysim import RELAY, Event, Relay, previous_relay
    from fakes.kvstore import Splunkd, write_results
    from ingest_doctor.findings import Finding
    shipped, before = Relay.shipped(), previous_relay()
    t0 = 1763805600.0

    def raw(i):
        d = Finding("output", "critical", "hf-%02d" % i, None, "tcpoutput", "Output blocked.").to_dict()
        d["detected_by"] = "collector"
        return json.dumps(d, separators=(",", ":"))

    def replay(relay, lag):
        delays, handed, missed = [], [], 0
        for k in range(PHASES):
            t = t0 + 60.0 * k + 60.0 * (k + 0.5) / PHASES
            ev = [Event(t, t + lag, raw(k), "hf-%02d" % k)]
            runs = [r for r in relay.runs(t, t + lag + 3600) if relay.rows(ev, r)]
            if not runs:
                missed += 1
                continue
            delays.append(runs[0] - t)
            handed.append(len(runs))
        return delays, handed, missed

    tls = make_tls(tempfile.mkdtemp(prefix="oob_bench_"))
    bench_dir = tempfile.mkdtemp(prefix="oob_relay_")

    def action_s():
        """The action's own run over one relayed row, as splunkd runs it (measured)."""
        ev = [Event(t0, t0, raw(1), "hf-01")]
        rows = shipped.rows(ev, t0 + 60)
        res = write_results(os.path.join(bench_dir, "r.csv.gz"), rows, shipped.columns)
        with FakeSplunkd(tls) as fake:
            Splunkd(fake, server_name="sh-01")
            data = {"app": "ingest_doctor", "owner": "nobody", "results_file": res, "results_link": "",
                    "search_name": RELAY, "server_host": "sh-01", "server_uri": fake.url, "session_key": "k",
                    "sid": "bench", "configuration": {"min_severity": "warning", "webhook_url": "", "index": ""},
                    "result": {}}
            env = dict(os.environ, SSL_CERT_FILE=tls[0], PYTHONDONTWRITEBYTECODE="1")
            start = time.perf_counter()
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bin", "ingest_doctor_flag.py"), "--execute"],
                               input=json.dumps(data), capture_output=True, text=True, env=env, timeout=120)
            took = time.perf_counter() - start
            if p.returncode != 0:
                raise SystemExit("the action failed: %s" % p.stderr[-500:])
            return took

    def work():
        act = action_s()
        out = {"relay_index_window_s": shipped.index_window_s, "relay_every_s": shipped.every_s,
               "action_run_s": round(act, 2)}
        for lag in LAGS:
            d, h, missed = replay(shipped, lag)
            out["lag_%ds" % lag] = ("delivered %d/%d, finding -> relay run %s/%s s (min/max) + action %.1f s, "
                                    "handed over %s-%s times (stored once)"
                                    % (len(d), PHASES, round(min(d), 1) if d else "-", round(max(d), 1) if d else "-",
                                       act, min(h) if h else "-", max(h) if h else "-"))
            d0, _, missed0 = replay(before, lag)
            out["previous_2m_window_lag_%ds" % lag] = "delivered %d/%d, missed %d" % (len(d0), PHASES, missed0)
        return out
    return work
