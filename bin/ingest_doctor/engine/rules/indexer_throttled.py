"""Index processor throttled or stopped (REST introspection/indexer, "paused the data flow" in
splunkd.log): every queue in front of it fills, so an `indexing` finding is its symptom."""
from __future__ import annotations

from ingest_doctor.engine import advice
from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.rules.state import HEC_SYMPTOM, State

QUIET = ("normal", "unknown")


def run(st: State) -> None:
    ix = st.ev.indexer
    paused = [s for s in st.ev.log_signals if s.kind == "index_paused"]
    if (ix is None or ix.status in QUIET) and not paused:
        return
    d = st.draft(model.INDEXER_THROTTLED, None, "critical", "indexer")
    reason = ix.reason if ix and ix.reason else (paused[-1].message if paused else "")
    status = ix.status if ix and ix.status not in QUIET else "paused"
    d.set_headline("The index processor is %s%s: indexing has paused, so every queue in front of it fills." % (
        status, " (%s)" % reason if reason else ""))
    if ix and ix.status not in QUIET:
        d.add(EvidenceItem("indexer_status", ix.status, "", "sample", ix.source))
    if paused:
        d.add(EvidenceItem("index_paused_messages", len(paused), "lines", "window", paused[0].source))
    d.recommendations.extend(advice.indexer_throttled(reason))
    # Full queues in front of a throttled indexer are its symptom, not a second finding.
    for key in [k for k in st.drafts if k[0] == "indexing"]:
        sym = st.drafts.pop(key)
        for it in sym.evidence:
            d.add(it)
        d.details.extend(x for x in sym.details if x.about == HEC_SYMPTOM)
