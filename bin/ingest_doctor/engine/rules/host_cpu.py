"""Host CPU exhausted: sustained at or over `host_cpu_pct`, more pipeline sets or threads will not help."""
from __future__ import annotations

from ingest_doctor.engine import advice
from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import SPIKE, SUSTAINED
from ingest_doctor.engine.rules.state import State, r1


def run(st: State) -> None:
    latest, j = st.host_cpu()
    if latest is None or j is None:
        return
    if j.level == SUSTAINED:
        d = st.draft(model.HOST_CPU, None)
        d.severity = "warning"
        d.component = "host"
        d.set_headline("The host's CPU is %.0f%% busy (%s): there is no headroom, so more pipeline sets or "
                       "threads will not help." % (j.value, j.window))
        d.add(EvidenceItem("host_cpu_pct", r1(j.value), "%", j.window, st.cpu_source()))
        d.recommendations.extend(advice.host_cpu())
    elif j.level == SPIKE and j.peak >= st.th.host_cpu_pct:
        d = st.draft(model.HOST_CPU, None)
        if not d.headline:
            d.severity = "info"
            d.component = "host"
            d.set_headline("The host's CPU reached %.0f%% once but did not stay there." % j.peak, tentative=True)
            d.add(EvidenceItem("host_cpu_pct", r1(j.peak), "%", "sample", st.cpu_source()))
