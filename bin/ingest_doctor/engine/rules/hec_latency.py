"""HEC latency: the collector's probes, a round trip sustained over `hec_latency_ms` (HEC or what is
behind it). With full queues it is the chain's bottleneck's evidence."""
from __future__ import annotations

from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import OK, SUSTAINED, judge
from ingest_doctor.engine.rules.state import State, r1


def run(st: State) -> None:
    timed = [p for p in st.ev.hec_probes if p.rtt_ms is not None]
    # A POSTed event is the request latency; the health probe only stands in when no event probe ran,
    # and mixing the two would let fast health probes hide slow requests.
    timed = [p for p in timed if p.kind == "event"] or timed
    if not timed:
        return
    pts = [(p.time, p.rtt_ms) for p in timed]
    j = judge(pts, st.th.hec_latency_ms, st.th, use_median=True)
    if j.level == OK:
        return
    item = EvidenceItem("hec_latency_ms", r1(j.value), "ms", j.window, timed[0].source)
    if st.chain and j.level == SUSTAINED:
        for pset, stage in st.chain.items():
            d = st.drafts.get((stage, pset))
            if d is not None:
                d.add(item)
        return
    d = st.draft(model.HEC_INPUT, None)
    d.hec = True
    d.add(item)
    if j.level == SUSTAINED:
        d.raise_to("warning")
        text = "HEC requests take %.0f ms (%s), over %.0f ms." % (j.value, j.window, st.th.hec_latency_ms)
        if not d.headline or d.tentative or d.severity == "info":
            d.set_headline(text)
            d.component = d.component or model.HEC_THREAD
        else:
            d.detail(text)
    elif not d.headline:
        d.severity = "info"
        d.component = model.HEC_THREAD
        d.set_headline("One HEC probe took %.0f ms, but not sustained." % j.peak, tentative=True)
