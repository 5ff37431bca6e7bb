"""splunkd.log symptoms of blocked flow: TcpOutputProc pausing the data flow, and splunkd closing its
receiving ports because the queues stayed blocked."""
from __future__ import annotations

from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.rules.state import State


def _plural(n: int) -> str:
    return "" if n == 1 else "s"


def run(st: State) -> None:
    paused = [x for x in st.ev.log_signals if x.kind == "tcpout_blocked"]
    stopped = [x for x in st.ev.log_signals if x.kind == "tcpin_stopped"]
    if paused:
        item = EvidenceItem("tcpout_paused_messages", len(paused), "lines", "window", paused[0].source)
        outs = [d for (b, _), d in st.drafts.items() if b == "output" and d.severity != "info"]
        for d in outs:
            d.add(item)
            d.detail("TcpOutputProc paused the data flow %d time%s." % (len(paused), _plural(len(paused))))
        if not outs:
            d = st.draft("output", None)
            if not st.has_queue_data and len(paused) >= st.th.sustained_samples:
                d.severity = "warning"
                d.set_headline("TcpOutputProc paused the data flow %d times: the output to the indexers is "
                               "blocked (no queue data was available to confirm it)." % len(paused))
            elif not d.headline:
                d.severity = "info"
                d.set_headline("TcpOutputProc paused the data flow %d time%s, but the queues drain: a passing "
                               "output stall." % (len(paused), _plural(len(paused))), tentative=True)
            d.component = d.component or "tcpout"
            d.add(item)
    if stopped:
        for pset, stage in st.chain.items():
            d = st.drafts.get((stage, pset))
            if d is None:
                continue
            d.add(EvidenceItem("tcpin_stopped_messages", len(stopped), "lines", "window", stopped[0].source))
            d.detail("splunkd closed its receiving ports %d time%s because the queues stayed blocked."
                     % (len(stopped), _plural(len(stopped))))
