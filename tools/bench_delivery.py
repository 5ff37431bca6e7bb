"""Bench: detection time and what the 1-minute relay costs.

Detection, measured: the collector's core polls a splunkd (in memory) at the default interval on a
simulated clock, and a saturation starts at ten phases between two polls; detection is the time
from onset to the poll that reports the finding (3 of 4 samples). How fast a finding then reaches
the admin is measured end to end, with the real processes, by tools/bench_oob.py
(`webhook_latency`: onset -> webhook and -> the instance's message; `relay_lag`: the search head's
relay at indexing lags of 0, 90 and 300 s); no delay is assumed here any more.

The relay's cost at 500 instances, 4 pipeline sets each: an incident in which every
pipeline set of every instance reports a new finding in the same minute (2,000 rows, the
most one run can get: one row per finding id after `dedup id`), through the action's core
with an in-memory port (parsing the gzipped results, the store plan, the message plan);
and the steady state (every finding open, repeated every 15 minutes) in rows per run.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import os
import sys
import time

from bench import BUILD, ROOT, register
from confcheck import read_conf

INSTANCES = 500
PSETS = 4
NOW = 1763805600.0
RELAY = "Ingest Doctor - Findings - Collector findings"


def cron_every_s(cron: str) -> float:
    """The longest wait between two runs of an hourly-repeating cron (minute field: *, */N, a-b/N, lists)."""
    fields = cron.split()
    if fields[1:] != ["*", "*", "*", "*"]:
        raise ValueError("cron %r: not an hourly-repeating schedule" % cron)
    minutes = set()
    for part in fields[0].split(","):
        rng, _, step = part.partition("/")
        lo, hi = (0, 59) if rng == "*" else (int(rng.split("-")[0]), int(rng.split("-")[-1]))
        minutes.update(range(lo, hi + 1, int(step or 1)))
    runs = sorted(minutes)
    gaps = [b - a for a, b in zip(runs, runs[1:])] + [runs[0] + 60 - runs[-1]]
    return 60.0 * max(gaps)


def detection_times(poll_interval: float):
    """Onset -> finding, at ten phases of the poll cycle; the core's own CPU per poll."""
    from fakes.collector_http import Q, FakeHttp, collector_for, queues, routes
    out, cpu = [], []
    for k in range(10):
        state = {"fill": 2.0}
        r = routes()
        r[Q] = lambda: queues(state["fill"])
        c = collector_for(FakeHttp(r), poll_interval=str(int(poll_interval)))
        onset = 100.0 + poll_interval * (k + 0.5) / 10.0
        t = 0.0
        while True:
            state["fill"] = 98.0 if t >= onset else 2.0
            c0 = time.process_time()
            res = c.poll(t)
            cpu.append(time.process_time() - c0)
            if any(o.kind == "finding" for o in res.events):
                out.append(t - onset)
                break
            t += poll_interval
    return out, 1000.0 * sum(cpu) / len(cpu)


def finding_events(n_instances: int):
    from ingest_doctor.findings import EvidenceItem, Finding, Recommendation
    for h in range(n_instances):
        for p in range(PSETS):
            f = Finding("typing", "critical" if p == 0 else "warning", "hf-%03d" % h, p, "typing",
                        "Pipeline set %d is limited by the typing stage: typingQueue blocked." % p,
                        [EvidenceItem("queue_fill_pct", 99.0, "%", "sample", "services/server/introspection/queues")],
                        [Recommendation("Add pipeline sets.", "server.conf", "general",
                                        "parallelIngestionPipelines", "4", "6")])
            d = f.to_dict()
            d["detected_by"] = "collector"
            yield NOW - 30 + p, json.dumps(d, separators=(",", ":")), d


def write_relay_results(path: str, n_instances: int):
    cols = ["signal", "host", "id", "severity", "bottleneck", "pipeline_set", "component", "status", "last_time",
            "finding"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    rows = raw_bytes = 0
    for t, raw, d in finding_events(n_instances):
        row = dict(d, signal="finding", finding=raw, last_time=t, status="open")
        w.writerow(["" if row.get(c) is None else row.get(c) for c in cols])
        rows += 1
        raw_bytes += len(raw)
    with gzip.open(path, "wb") as f:
        f.write(buf.getvalue().encode("utf-8"))
    return rows, raw_bytes


def _port():
    from fakes.memory_port import MemoryPort

    class Port(MemoryPort):
        posted = 0

        def messages_shown(self):
            return {}

        def post_messages(self, plan):
            self.posted += len(plan.posts)
    return Port()


@register("delivery")
def delivery():
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    from ingest_doctor.delivery import messages
    from ingest_doctor.alert.action import run
    from ingest_doctor.alert.payload import parse_payload
    from ingest_doctor.collector.gate import FINDING_REPEAT_S
    from ingest_doctor.collector.params import PARAMS
    from ingest_doctor.diagnose import diagnose
    saved = read_conf(os.path.join(ROOT, "default", "savedsearches.conf"))
    # the shipped default poll interval (params.PARAMS, held equal to ta/globalConfig.json)
    poll = float([p.default for p in PARAMS if p.name == "poll_interval"][0])
    relay_every = cron_every_s(saved[RELAY]["cron_schedule"])
    detect, poll_cpu_ms = detection_times(poll)
    os.makedirs(BUILD, exist_ok=True)
    path = os.path.join(BUILD, "relay_results.csv.gz")
    rows, raw_bytes = write_relay_results(path, INSTANCES)
    payload = parse_payload(json.dumps({"server_uri": "https://127.0.0.1:8089", "session_key": "k",
                                        "results_file": path, "sid": "bench", "search_name": RELAY}))
    # The action's own run time (the rows of an incident), measured once here for the budget.
    t0 = time.perf_counter()
    run(payload, _port(), diagnose, now=NOW)
    action_s = time.perf_counter() - t0
    d_med, d_max = sorted(detect)[len(detect) // 2], max(detect)
    steady = INSTANCES * PSETS * (2 * 60.0 / FINDING_REPEAT_S)

    def work():
        port = _port()
        s = run(payload, port, diagnose, now=NOW)
        return {
            "poll_interval_s": poll, "detection_s_median": round(d_med, 1), "detection_s_max": round(d_max, 1),
            "collector_poll_core_cpu_ms": round(poll_cpu_ms, 2),
            "relay_cron_s": relay_every,
            "relay_rows_incident_500_instances": rows, "relay_rows_steady_500_instances": round(steady),
            "relay_events_kb_incident": round(raw_bytes / 1024.0, 1),
            "relay_results_kb": round(os.path.getsize(path) / 1024.0, 1),
            "action_s_incident": round(action_s, 3), "stored": s.new + s.updated,
            "messages_posted": port.posted, "message_cap": messages.MAX_PER_RUN,
        }
    return work
