"""Hidden single-core saturation: one thread over its threshold on a many-core host where splunkd's total
CPU is small. "The host looks idle" only when the host's own CPU says so; a busy host is named busy."""
from __future__ import annotations

from ingest_doctor import thresholds as thresholds_mod
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
    host_busy = st.host_busy()
    latest, _ = st.host_cpu()
    for d in st.drafts.values():
        if d.pegged and d.severity in ("warning", "critical"):
            full = d.busy_pct is not None and d.busy_pct >= thresholds_mod.PEGGED_PCT
            if busy_cores <= 1:
                what = "which is %s" % ("one core pegged" if full else "about one core's worth")
                thread = "this single thread"
            else:
                what = "(about %d cores' worth)" % busy_cores
                thread = "one thread %s" % ("pegged at a full core" if full else "over its threshold")
            if host_busy:
                host = ("the host itself is busy (%.0f%% CPU) with work outside splunkd's ingestion, and %s is "
                        "this stage's ceiling." % (latest, thread))
            elif host_busy is False:
                host = "the host looks idle while %s is the ceiling." % thread
            else:
                host = "splunkd looks light while %s is the ceiling (host CPU was not read)." % thread
            d.hidden = "splunkd uses about %.0f%% of %d cores, %s: %s" % (share, cores, what, host) \
                if busy_cores <= 1 else "splunkd uses about %.0f%% of %d cores %s: %s" % (share, cores, what, host)
            d.add(EvidenceItem("splunkd_cpu_pct_of_host", r1(share), "%", "sample", SRC_PROCESSES))
            if latest is not None:
                d.add(EvidenceItem("host_cpu_pct", r1(latest), "%", "sample", st.cpu_source()))
