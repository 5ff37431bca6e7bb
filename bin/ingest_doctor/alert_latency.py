"""HEC request latency (the collector's probe events) in a diagnosis report.

The diagnosis engine does not judge HEC request latency yet, so the alert
action adds it here, built only from the engine's own pieces: its sustained
test (series.judge with the `hec_latency_ms` threshold), its finding ids and
its HEC advice (advice.hec_input). Like HEC 503s, slow HEC is a symptom of
the stage behind it when the report already names one; only on its own is it
a `hec_input` finding. Once the engine judges latency itself, `complete`
leaves its findings alone (it never adds a second latency item).
"""
from __future__ import annotations

from typing import List, Optional

from . import advice, series
from .evidence import Evidence
from .findings import EvidenceItem, Finding, Report, severity_rank
from .thresholds import Thresholds

SIGNAL = "hec_request_latency_ms"


def _cores(ev: Evidence) -> Optional[int]:
    if ev.host_cpu.cores:
        return ev.host_cpu.cores
    for c in reversed(ev.cpu):
        if c.cores:
            return c.cores
    return None


def complete(report: Report, ev: Evidence, th: Thresholds) -> None:
    probes = [p for p in ev.hec_probes if p.kind == "event" and p.rtt_ms is not None]
    if not probes:
        return
    if any(e.signal == SIGNAL or "latency" in e.signal for f in report.findings for e in f.evidence):
        return
    pts = [(p.time, float(p.rtt_ms)) for p in probes]  # type: ignore[arg-type]
    j = series.judge(pts, th.hec_latency_ms, th)
    if j.level == series.OK:
        return
    item = EvidenceItem(SIGNAL, round(j.value, 1), "ms", j.window if j.level == series.SUSTAINED else "sample",
                        probes[0].source)
    if j.level == series.SPIKE:
        if not any(f.bottleneck == "hec_input" for f in report.findings):
            report.findings.append(Finding(
                "hec_input", "info", ev.host, None, "hec_latency",
                "HEC took %.0f ms to accept the probe event once but not sustained." % j.peak, [item], []))
        return
    # Sustained: a symptom of the bottleneck the report already names, else of the HEC input.
    downstream: List[Finding] = sorted(
        (f for f in report.findings if f.bottleneck != "hec_input" and severity_rank(f.severity) >= 1),
        key=lambda f: -severity_rank(f.severity))
    if downstream:
        f = downstream[0]
        f.evidence.append(item)
        f.summary += " HEC requests are slow too (%.0f ms, %s), waiting on this stage." % (j.value, item.window)
        return
    hec = next((f for f in report.findings if f.bottleneck == "hec_input"), None)
    if hec is not None:
        hec.evidence.append(item)
        if severity_rank(hec.severity) < 1:
            hec.severity = "warning"
        hec.summary += " HEC takes %.0f ms to accept a request (%s)." % (j.value, item.window)
        return
    listener = any(s.kind == "hec_listener_overwhelmed" for s in ev.log_signals)
    recs, _ = advice.hec_input(ev, _cores(ev), listener)
    report.findings.append(Finding(
        "hec_input", "warning", ev.host, None, "hec_latency",
        "HEC takes %.0f ms to accept a request, sustained (%s), at or above the %.0f ms threshold: "
        "senders slow down or time out. Look at the HEC thread's busy %% and the queues behind it."
        % (j.value, item.window, th.hec_latency_ms), [item], recs))
