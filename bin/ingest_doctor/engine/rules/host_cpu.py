"""Host CPU exhausted: sustained at or over `host_cpu_pct`, more pipeline sets or threads will not help."""
from __future__ import annotations

from ingest_doctor.engine import advice
from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import SPIKE, SUSTAINED
from ingest_doctor.engine.rules.state import SRC_PROCESSES, State, r1


def consumers(st: State) -> str:
    """Who uses the host's CPU: splunkd's ingestion (the server process) vs its search processes, each in
    cores' worth (resource-usage/splunk-processes pct_cpu is % of one core); adds them to the evidence."""
    hc = st.ev.host_cpu
    d = st.draft(model.HOST_CPU, None)
    parts = []
    if hc.splunkd_cpu_pct is not None:
        parts.append("splunkd's ingestion process (the server) uses %.0f%% of one core (about %.1f cores)"
                     % (hc.splunkd_cpu_pct, hc.splunkd_cpu_pct / 100.0))
        d.add(EvidenceItem("splunkd_cpu_pct", r1(hc.splunkd_cpu_pct), "% of one core", "sample", SRC_PROCESSES))
    if hc.search_processes is not None:
        parts.append("%d search process%s use%s %.0f%% of one core (about %.1f cores)"
                     % (hc.search_processes, "" if hc.search_processes == 1 else "es",
                        "s" if hc.search_processes == 1 else "", hc.search_cpu_pct or 0.0,
                        (hc.search_cpu_pct or 0.0) / 100.0))
        d.add(EvidenceItem("search_processes", hc.search_processes, "processes", "sample", SRC_PROCESSES))
        d.add(EvidenceItem("search_cpu_pct", r1(hc.search_cpu_pct or 0.0), "% of one core", "sample",
                           SRC_PROCESSES))
    if not parts:
        return ""
    cores = st.cores()
    return "Who uses it%s: %s." % (" (%d cores)" % cores if cores else "", "; ".join(parts))


def run(st: State) -> None:
    latest, j = st.host_cpu()
    if latest is None or j is None:
        return
    if j.level == SUSTAINED:
        d = st.draft(model.HOST_CPU, None, "warning", "host")
        d.set_headline("The host's CPU is %.0f%% busy (%s): there is no headroom, so more pipeline sets or "
                       "threads will not help." % (j.value, j.window))
        d.add(EvidenceItem("host_cpu_pct", r1(j.value), "%", j.window, st.cpu_source()))
        who = consumers(st)
        if who:
            d.detail(who)
        d.recommendations.extend(advice.host_cpu(st.ev.host_cpu.splunkd_cpu_pct, st.ev.host_cpu.search_processes,
                                                 st.ev.host_cpu.search_cpu_pct))
    elif j.level == SPIKE and j.peak >= st.th.host_cpu_pct:
        d = st.draft(model.HOST_CPU, None)
        if not d.headline:
            d.severity = "info"
            d.component = "host"
            d.set_headline("The host's CPU reached %.0f%% once but did not stay there." % j.peak, tentative=True)
            d.add(EvidenceItem("host_cpu_pct", r1(j.peak), "%", "sample", st.cpu_source()))
