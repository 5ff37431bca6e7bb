"""Hidden single-core saturation: one thread pegged at a full core on a many-core host that looks idle."""
from __future__ import annotations

from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.rules.state import SRC_PROCESSES, State, r1


def run(st: State) -> None:
    cores = st.cores()
    splunkd = st.ev.host_cpu.splunkd_cpu_pct
    if not cores or cores < 2 or splunkd is None:
        return
    share = splunkd / cores
    if share >= st.th.hidden_saturation_cpu_pct:
        return
    busy_cores = int(round(splunkd / 100.0))
    for d in st.drafts.values():
        if d.pegged and d.severity in ("warning", "critical"):
            if busy_cores <= 1:
                d.hidden = ("splunkd uses about %.0f%% of %d cores, which is one core pegged: the host looks "
                            "idle while this single thread is the ceiling." % (share, cores))
            else:
                d.hidden = ("splunkd uses about %.0f%% of %d cores (about %d cores' worth), yet one thread is "
                            "pegged at a full core: the host looks idle while this single thread is the "
                            "ceiling." % (share, cores, busy_cores))
            d.add(EvidenceItem("splunkd_cpu_pct_of_host", r1(share), "%", "sample", SRC_PROCESSES))
