"""The alert action run as splunkd runs it: `--execute` with the JSON payload on stdin (a subprocess),
and the result rows its searches hand it (thread and queue rows, as results.csv.gz carries them)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from fakes.paths import BIN
from ingest_doctor import thresholds

TH = thresholds.defaults()   # the macros' values the recorded searches ran with

SCRIPT = os.path.join(BIN, "ingest_doctor_flag.py")
NOW = 1763805600.0
# The webhook policy refuses loopback targets unless the admin-only allow-list names them: the tests'
# receiver is the loopback fake, so they name it as an admin would (splunk-launch.conf).
LOOPBACK_HOOK = {"INGEST_DOCTOR_WEBHOOK_ALLOW": "127.0.0.1"}

HF_CONFIG = {"version": "9.3.2", "roles": ["heavyforwarder"], "dedicated_io_threads": 2, "max_threads": 0,
             "max_sockets": 0, "hec_enabled": True, "hec_port": 8088, "hec_ssl": True, "hec_tokens": 3,
             "parallel_ingestion_pipelines": 1}


def thread_row(host="hf-01", thread="httpinputserverdatathread", samples=None, last=NOW):
    samples = samples or [95, 97, 98, 99, 98, 97, 99, 98, 97, 96, 98, 99, 97, 98, 99, 98, 97, 99, 98, 99]
    return {"signal": "thread_busy", "host": host, "component": thread, "thread": thread, "pipeline_set": "none",
            "stage": "hec_input", "busy_pct": round(sum(samples) / len(samples), 1),
            # newest first, as the search's `sort - _time | stats list()` writes them
            "samples": ["%d:%s" % (last - 30 * i, s) for i, s in enumerate(reversed(samples))],
            "samples_over": sum(1 for s in samples if s >= TH.thread_busy_pct),
            "window_min": TH.sustained_window_min, "span_s": 30, "last_time": last, "source": "metrics.log group=dutycycle",
            "threshold": TH.thread_busy_pct}


def recent(vals, blocked=False, last=NOW):
    n = len(vals)
    return " ".join("%d:%s%s" % (last - 30 * (n - 1 - i), v, "b" if blocked and v >= 100 else "")
                    for i, v in reversed(list(enumerate(vals))))


def queue_row(host="idx-01", pset="1", last=NOW):
    return {"signal": "queue_fill", "host": host, "component": "typing", "pipeline_set": pset,
            "bottleneck": "typing", "queue": ["parsingqueue", "aggqueue", "typingqueue", "indexqueue"],
            "fill_pct": ["96", "97", "100", "3"],
            "recent": [recent([95, 96, 97, 96, 98, 97, 96, 95, 97, 96]), recent([97] * 10),
                       recent([100] * 10, True), recent([3] * 10)],
            "blocked_samples": ["0", "0", "10", "0"], "window_min": TH.sustained_window_min, "span_s": 30, "last_time": last,
            "threshold": TH.queue_fill_pct}


def signal_rows(busy="hf-02", slow="hf-03", listener="hf-04", throttled="idx-02", t=NOW):
    """One row of each of the other alerts' shapes (HEC busy, HEC latency, HEC listener, indexer
    throttled), each for its own host."""
    return [
        {"signal": "hec_busy", "host": busy, "component": "hec", "stage": "hec_input", "busy_replies": 42,
         "health_codes": ["18"], "health_samples": ["%d:%s" % (t - 10 * i, 18 if i < 5 else 17) for i in range(8)],
         "span_s": 10, "last_time": t, "window_min": 10, "threshold": 1},
        {"signal": "hec_latency", "host": slow, "component": "hec_latency", "stage": "hec_input",
         "latency_ms": 2400.0, "samples": ["%d:%s" % (t - 10 * i, 2300 + i) for i in range(6)],
         "span_s": 10, "last_time": t, "window_min": 10, "threshold": 1000},
        {"signal": "hec_listener", "host": listener, "component": "httplistener", "stage": "hec_input",
         "overwhelmed": 12, "message": "Can't handle request for /services/collector/event",
         "last_time": t, "window_min": 10, "threshold": 1},
        {"signal": "indexer_throttled", "host": throttled, "component": "indexer", "stage": "indexing",
         "status": "throttled", "reason": "Low disk space on the partition of index main", "samples": 3,
         "last_time": t, "window_min": 10, "threshold": 1},
    ]


def payload(fake, results_file, sid="scheduler__nobody_aW5nZXN0X2RvY3Rvcg__RMD5a1_at_1763805600_1", **conf):
    configuration = {"min_severity": "warning", "webhook_url": "", "index": ""}
    configuration.update(conf)
    return {"app": "ingest_doctor", "owner": "nobody", "results_file": results_file,
            "results_link": "https://sh-01:8000/app/ingest_doctor/@go?sid=" + sid,
            "search_name": "Ingest Doctor - Saturated splunkd thread", "server_host": "sh-01",
            "server_uri": fake.url, "session_key": "s3cr3t-session-key", "sid": sid,
            "configuration": configuration, "result": {}}


def run_action(data, tls, extra_env=None, argv=("--execute",), raw=None, script=SCRIPT):
    env = dict(os.environ)
    env.update({"INGEST_DOCTOR_RETRY_BACKOFF_S": "0.01", "SSL_CERT_FILE": tls[0], "PYTHONDONTWRITEBYTECODE": "1"})
    env.pop(("INGEST_DOCTOR_SPLUNKD_CA"), None)
    env.update(extra_env or {})
    stdin = raw if raw is not None else json.dumps(data)
    p = subprocess.run([sys.executable, script] + list(argv), input=stdin, capture_output=True, text=True,
                       env=env, timeout=120)
    assert "s3cr3t-session-key" not in p.stderr and "s3cr3t-session-key" not in p.stdout
    return p


# ---------------------------------------------------------------------------- a deployment's rows (issue 19)
def _flat_recent(vals, blocked=False, last=NOW):
    n = len(vals)
    return " ".join("%d:%s%s" % (last - 30 * (n - 1 - i), v, "b" if blocked and v >= 100 else "")
                    for i, v in enumerate(vals))


def deployment_queue_row(host, queues, fills, blocked=(), last=NOW):
    return {"signal": "queue_fill", "host": host, "pipeline_set": "", "queue": list(queues),
            "fill_pct": [str(f) for f in fills],
            "recent": [_flat_recent([f] * 10, q in blocked, last) for q, f in zip(queues, fills)],
            "blocked_samples": ["10" if q in blocked else "0" for q in queues], "window_min": 10, "span_s": 30,
            "last_time": last}


def deployment_thread_row(host, thread, busy, last=NOW):
    return {"signal": "thread_busy", "host": host, "pipeline_set": "", "thread": thread, "busy_pct": str(busy),
            "samples": _flat_recent([busy] * 10, last=last).split(), "window_min": 10, "span_s": 30,
            "last_time": last}


def tcpin_row(receiver="idx-02", sender="hf-01", ip="10.0.0.5", last=NOW):
    return {"signal": "tcpin", "host": receiver, "peer": sender, "peer_ip": ip, "guid": "G-" + sender.upper(),
            "fwd_type": "full", "kbps": "5900", "last_time": last}


def tcpout_row(sender="hf-01", dest="10.0.0.12:9997", last=NOW):
    return {"signal": "tcpout", "host": sender, "dest": dest, "kbps": "5900", "last_time": last}


def deployment_rows(last=NOW):
    """The Queues alert's rows over a heavy forwarder blocked by its saturated indexer: idx-02's queues
    full up to indexQueue (the root cause), hf-01's tcpout blocked (the symptom), and who sends to whom
    (idx-02's tcpin_connections names hf-01; hf-01's tcpout_connections names idx-02's address)."""
    return [
        deployment_queue_row("idx-02", ["splunktcpin", "parsingqueue", "aggqueue", "typingqueue", "indexqueue"],
                             [98, 98, 97, 98, 99], last=last),
        deployment_thread_row("idx-02", "indexerpipe", 99, last=last),
        deployment_queue_row("hf-01", ["parsingqueue", "aggqueue", "typingqueue", "indexqueue", "tcpout"],
                             [98, 97, 98, 99, 100], blocked=("tcpout",), last=last),
        tcpin_row(last=last),
        tcpout_row(last=last),
    ]


def collector_finding_row(host, bottleneck, severity, summary, recs, last=NOW - 20):
    """The relay's row for one finding the collector reported (its ingest_doctor:finding event)."""
    from ingest_doctor.findings import Finding, Recommendation
    f = Finding(bottleneck, severity, host, None, bottleneck, summary, [], [Recommendation(*r) for r in recs])
    d = dict(f.to_dict(), detected_by="collector")
    return {"signal": "finding", "host": host, "id": f.id, "severity": severity, "bottleneck": bottleneck,
            "pipeline_set": "", "component": bottleneck, "status": "open", "last_time": last,
            "finding": json.dumps(d)}


def relay_deployment_rows(last=NOW):
    """The relay's rows over the same deployment as the collectors judged it: each instance alone (the
    forwarder's own finding still offers compression), with idx-02's tcpin_connections naming hf-01."""
    return [
        collector_finding_row("hf-01", "output", "critical",
                              "tcpout is full (100%, 10m): the output stage that drains it limits throughput. The "
                              "link or the receivers' drain rate holds it back.",
                              [("Only if the receivers are idle: compress forwarded data.", "outputs.conf", "tcpout",
                                "compressed", "false", "true")], last - 20),
        collector_finding_row("idx-02", "typing", "warning", "typingQueue is full: the typing stage limits throughput.",
                              [("Add a pipeline set.", "server.conf", "general", "parallelIngestionPipelines", "1",
                                "2")], last - 20),
        tcpin_row(last=last),
    ]


# ---------------------------------------------------------------------------- acknowledge and snooze (issue 39)
HOLD_SCRIPT = os.path.join(BIN, "ingest_doctor_hold.py")


def run_hold(fake, tls, results_file, **conf):
    """`| makeresults | sendalert ingest_doctor_hold param.<k>=<v> ...` as splunkd runs it: the payload of
    the user who ran the search (their session key), sendalert's params as `configuration`."""
    data = {"app": "ingest_doctor", "owner": "admin", "results_file": results_file, "results_link": "",
            "search_name": "", "server_host": "sh-01", "server_uri": fake.url, "session_key": "s3cr3t-session-key",
            "sid": "1763805600.42", "configuration": {k: str(v) for k, v in conf.items()}, "result": {}}
    return run_action(data, tls, argv=("--execute",), script=HOLD_SCRIPT)
