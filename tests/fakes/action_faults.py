"""Helpers for the action's fault tests (tests/faults/test_faults_action.py, `make fault`): result rows
in the shapes the shipped searches write, the payload splunkd sends, and the action run as
splunkd runs it (`--execute`, JSON on stdin), started so that two can run at once."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace
from typing import Any, Dict, List, Optional

from fakes import action_run
from fakes.action_run import HF_CONFIG, NOW, SCRIPT, TH  # noqa: F401 (the fault tests import them from here)

RELAY_NAME = "Ingest Doctor - Findings - Collector findings"
ALERT_NAME = "Ingest Doctor - Saturated splunkd thread"
RELAY_COLUMNS = ["signal", "host", "id", "severity", "bottleneck", "pipeline_set", "component", "status",
                 "last_time", "finding"]
SESSION_KEY = "s3cr3t-session-key"


def thread_row(host: str = "hf-01", last: float = NOW, busy: int = 98) -> Dict[str, Any]:
    """A saturated HEC thread, as the thread alert's search writes it (newest sample first)."""
    samples = [busy] * 20
    thread = "httpinputserverdatathread"
    return {"signal": "thread_busy", "host": host, "component": thread, "thread": thread, "pipeline_set": "none",
            "stage": "hec_input", "busy_pct": busy, "samples": ["%d:%s" % (last - 30 * i, s) for i, s in
                                                                 enumerate(samples)],
            "samples_over": 20, "window_min": 10, "span_s": 30, "last_time": last,
            "source": "metrics.log group=dutycycle", "threshold": TH.thread_busy_pct}


def finding(host: str = "hf-01", severity: str = "warning", status: str = "open", detected_by: str = "collector",
            summary: str = "The HEC thread is pegged.", **extra: Any) -> Dict[str, Any]:
    """An ingest_doctor:finding event as the collector writes it."""
    d = {"id": "%s/hec_input/-" % host, "bottleneck": "hec_input", "severity": severity, "host": host,
         "pipeline_set": None, "component": "httpinputserverdatathread", "summary": summary,
         "evidence": [{"signal": "thread_busy_pct", "value": 99.0, "unit": "%", "window": "10m",
                       "source": "proc"}],
         "recommendations": [{"action": "Raise dedicatedIoThreads.", "conf_file": "inputs.conf", "stanza": "http",
                              "setting": "dedicatedIoThreads", "current": "2", "suggested": "4"}],
         "detected_by": detected_by}
    if status != "open":
        d["status"] = status
    d.update(extra)
    return d


def relay_row(event: Dict[str, Any], last: Optional[float] = NOW, raw: Optional[str] = None) -> Dict[str, Any]:
    """One row of the relay search (`dedup id | eval signal="finding", finding=_raw, last_time=_time`)."""
    row = {"signal": "finding", "host": event.get("host") or "", "id": event.get("id") or "",
           "severity": event.get("severity") or "", "bottleneck": event.get("bottleneck") or "",
           "pipeline_set": "" if event.get("pipeline_set") is None else str(event.get("pipeline_set")),
           "component": event.get("component") or "", "status": event.get("status") or "open",
           "last_time": "" if last is None else last,
           "finding": raw if raw is not None else json.dumps(event, separators=(",", ":"))}
    return row


def payload(url: str, results_file: str, sid: str, search_name: str = ALERT_NAME, **conf: Any) -> Dict[str, Any]:
    """action_run's payload for the splunkd at `url`, from the alert `search_name`."""
    return dict(action_run.payload(SimpleNamespace(url=url), results_file, sid, **conf), search_name=search_name)


def env(tls: Any, extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    e = dict(os.environ)
    e.update({"INGEST_DOCTOR_RETRY_BACKOFF_S": "0.01", "SSL_CERT_FILE": tls[0], "PYTHONDONTWRITEBYTECODE": "1"},
             **action_run.LOOPBACK_HOOK)
    e.pop("INGEST_DOCTOR_SPLUNKD_CA", None)
    e.update(extra or {})
    return e


def start(data: Dict[str, Any], tls: Any) -> subprocess.Popen:
    """The action started as splunkd starts it; `finish` collects it."""
    p = subprocess.Popen([sys.executable, SCRIPT, "--execute"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env(tls))
    assert p.stdin is not None
    p.stdin.write(json.dumps(data).encode("utf-8"))
    p.stdin.close()
    return p


def finish(p: subprocess.Popen, timeout: float = 120.0) -> subprocess.CompletedProcess:
    assert p.stdout is not None and p.stderr is not None
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    out, err = p.stdout.read().decode("utf-8", "replace"), p.stderr.read().decode("utf-8", "replace")
    p.stdout.close()
    p.stderr.close()
    assert SESSION_KEY not in out and SESSION_KEY not in err
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def run(data: Dict[str, Any], tls: Any) -> subprocess.CompletedProcess:
    return finish(start(data, tls))


def done_counts(stderr: str) -> Dict[str, int]:
    """The numbers of the action's last line (`INFO category=done new=1 ...`)."""
    import re
    for line in reversed(stderr.splitlines()):
        if "category=done" in line:
            return {k: int(v) for k, v in re.findall(r"\b(\w+)=(\d+)\b", line)}
    return {}


def hooks_of(hooks: List[Dict[str, Any]], fid: str) -> List[Dict[str, Any]]:
    return [h for h in hooks if h.get("id") == fid]
