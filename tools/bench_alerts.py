"""Bench: the alert action as splunkd runs it, on large alert runs (the budgets in tools/bench.py).

A digest-mode run over a deployment of 500 hosts: 2,000 thread rows (20 samples each) and 2,000
queue rows (4 pipeline sets a host, 4 queues a set, 20 samples each), gzipped as splunkd writes
results.csv.gz; and the same for 10,000 hosts (80,000 rows). Each run is `ingest_doctor_flag.py
--execute` (the JSON payload on stdin, bytecode as an installed app has it) against the loopback
fake splunkd and its KV store, which keeps connections open as splunkd does: wall, and the
process's own peak RSS; beside them how many requests carried the events (a few batched
requests, whatever the number of hosts) and how many connections they all took.
"""
from __future__ import annotations

import csv
import gc
import gzip
import io
import json
import os
import sys

from bench import BUILD, ROOT, installed_env, measured, register

HOSTS, BIG_HOSTS = 500, 10000
RUNS, BIG_RUNS = 5, 3
SAMPLES = 20
NOW = 1763805600.0


def _mv(values):
    return "\n".join(values), ";".join("$%s$" % v for v in values)


def write_results(path: str, hosts: int = HOSTS) -> int:
    cols = ["signal", "host", "component", "thread", "pipeline_set", "busy_pct", "samples", "queue", "fill_pct",
            "recent", "blocked_samples", "span_s", "last_time", "window_min"]
    mv = ["samples", "queue", "fill_pct", "recent", "blocked_samples"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols + ["__mv_" + c for c in mv])
    rows = 0
    for h in range(hosts):
        host = "idx-%03d" % h
        for pset in range(4):
            thread = ("typing", "indexerpipe", "parsing", "merging")[pset]
            busy = [str(92 + (i % 7)) for i in range(SAMPLES)]
            samples = ["%d:%s" % (NOW - 30 * i, v) for i, v in enumerate(busy)]
            s_plain, s_mv = _mv(samples)
            rec = {"signal": "thread_busy", "host": host, "component": thread, "thread": thread,
                   "pipeline_set": str(pset), "busy_pct": "95", "samples": s_plain, "span_s": "30",
                   "last_time": str(NOW), "window_min": "10"}
            w.writerow([rec.get(c, "") for c in cols] + [s_mv, "", "", "", ""])
            queues = ["parsingqueue", "aggqueue", "typingqueue", "indexqueue"]
            fills = ["97", "98", "100", "5"]
            recent = [" ".join("%d:%s%s" % (NOW - 30 * i, f, "b" if f == "100" else "") for i in range(SAMPLES))
                      for f in fills]
            q_plain, q_mv = _mv(queues)
            f_plain, f_mv = _mv(fills)
            r_plain, r_mv = _mv(recent)
            b_plain, b_mv = _mv(["0", "0", str(SAMPLES), "0"])
            rec = {"signal": "queue_fill", "host": host, "component": "typing", "pipeline_set": str(pset),
                   "queue": q_plain, "fill_pct": f_plain, "recent": r_plain, "blocked_samples": b_plain,
                   "span_s": "30", "last_time": str(NOW), "window_min": "10"}
            w.writerow([rec.get(c, "") for c in cols] + ["", q_mv, f_mv, r_mv, b_mv])
            rows += 2
    with gzip.open(path, "wb") as f:
        f.write(buf.getvalue().encode("utf-8"))
    return rows


def action_process(path: str) -> dict:
    """One run of bin/ingest_doctor_flag.py as splunkd runs it, against a fresh loopback fake splunkd."""
    from fakes.action_run import SCRIPT, payload
    from fakes.kvstore import Splunkd
    from fakes.splunkd import FakeSplunkd, make_tls
    tls = make_tls(BUILD)
    env = installed_env(INGEST_DOCTOR_RETRY_BACKOFF_S="0.01", SSL_CERT_FILE=tls[0])
    env.pop("INGEST_DOCTOR_SPLUNKD_CA", None)
    # The fake splunkd answers from a thread of this process: its allocations' collector passes would walk
    # the bench's own objects too (a full pass took 0.24 s in one run), a cost splunkd, a process of its
    # own, does not have.
    gc.collect()
    gc.freeze()
    try:
        with FakeSplunkd(tls, keep_alive=True) as fake:    # as splunkd keeps HTTP/1.1 connections
            sd = Splunkd(fake)
            data = json.dumps(payload(fake, path, sid="bench_%s" % os.path.basename(path)))
            run = measured([sys.executable, SCRIPT, "--execute"], data, env)
    finally:
        gc.unfreeze()
    if run.returncode != 0:
        raise RuntimeError("the action exited %d: %s" % (run.returncode, run.stderr[-2000:]))
    return {"wall": run.wall_s, "rss": run.rss_mb, "event_requests": sd.posts, "events": len(sd.events),
            "requests": len(fake.requests), "connections": fake.connections}


@register("alert_action")
def alert_action():
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    os.makedirs(BUILD, exist_ok=True)
    path, big = os.path.join(BUILD, "alert_results.csv.gz"), os.path.join(BUILD, "alert_results_10k.csv.gz")
    rows, big_rows = write_results(path, HOSTS), write_results(big, BIG_HOSTS)
    action_process(path)        # bytecode written once, as an installed app has it

    def work():
        small = [action_process(path) for _ in range(RUNS)]
        large = [action_process(big) for _ in range(BIG_RUNS)]
        return {"action_500_hosts_s": [round(r["wall"], 3) for r in small],
                "action_10k_hosts_s": [round(r["wall"], 3) for r in large],
                "action_10k_rss_mb": [round(r["rss"], 1) for r in large],
                "action_500_hosts_rss_mb": [round(r["rss"], 1) for r in small],
                "rows": rows, "rows_10k": big_rows, "results_kb": round(os.path.getsize(path) / 1024.0, 1),
                "event_requests": small[0]["event_requests"], "events": small[0]["events"],
                "requests": small[0]["requests"], "connections": small[0]["connections"],
                "event_requests_10k": large[0]["event_requests"], "connections_10k": large[0]["connections"]}
    return work
