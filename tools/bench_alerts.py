"""Bench: the alert action's core on a large alert run.

A digest-mode run over a deployment of 200 hosts: 800 thread rows (20 samples
each) and 800 queue rows (4 pipeline sets a host, 4 queues a set, 20 samples
each), gzipped as splunkd writes results.csv.gz. Measured: streaming the file,
rows to evidence, the diagnosis of every host, and the KV store upsert plan,
with an in-memory port (no network: the splunkd round trips are a handful per
run whatever the row count).
"""
from __future__ import annotations

import csv
import gzip
import io
import os
import sys

from bench import BUILD, ROOT, register
from fakes.memory_port import MemoryPort

HOSTS = 200
SAMPLES = 20
NOW = 1763805600.0


def _mv(values):
    return "\n".join(values), ";".join("$%s$" % v for v in values)


def write_results(path: str) -> int:
    cols = ["signal", "host", "component", "thread", "pipeline_set", "busy_pct", "samples", "queue", "fill_pct",
            "recent", "blocked_samples", "span_s", "last_time", "window_min"]
    mv = ["samples", "queue", "fill_pct", "recent", "blocked_samples"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols + ["__mv_" + c for c in mv])
    rows = 0
    for h in range(HOSTS):
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


@register("alert_action", targets="a large alert run well inside the action's 2 min maxtime")
def alert_action_run():
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    from ingest_doctor.alert.action import run
    from ingest_doctor.alert.payload import parse_payload
    from ingest_doctor.diagnose import diagnose
    os.makedirs(BUILD, exist_ok=True)
    path = os.path.join(BUILD, "alert_results.csv.gz")
    rows = write_results(path)
    payload = parse_payload('{"server_uri": "https://127.0.0.1:8089", "session_key": "k", "results_file": "%s",'
                            ' "sid": "bench"}' % path)

    def work():
        port = MemoryPort()
        s = run(payload, port, diagnose, now=NOW)
        return {"rows": rows, "hosts": s.rows_hosts, "findings": s.findings, "events": port.events,
                "messages": s.messages,
                "results_kb": round(os.path.getsize(path) / 1024.0, 1)}
    return work
