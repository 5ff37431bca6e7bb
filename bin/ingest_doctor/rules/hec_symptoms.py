"""HEC symptoms: reply=9 "Server is busy", health answers that say the queues are full, the HTTP
listener refusing requests. They go to the chain's bottleneck when queues are full; only
otherwise are they a `hec_input` finding."""
from __future__ import annotations

from typing import List

from .. import model
from ..findings import EvidenceItem
from ..series import SUSTAINED, judge
from .state import HEC_SYMPTOM, State

LISTENER = "hec_listener_overwhelmed"


def words(nerr: int, codes: List[int]) -> List[str]:
    out = []
    if nerr:
        out.append("%d reply=%d \"Server is busy\" errors" % (nerr, model.HEC_BUSY_REPLY))
    if codes:
        out.append("health code%s %s" % ("s" if len(codes) > 1 else "", "/".join(str(c) for c in codes)))
    return out


def run(st: State) -> None:
    errs = [e for e in st.ev.hec_errors if e.reply == model.HEC_BUSY_REPLY]
    probes = [p for p in st.ev.hec_probes if p.kind == "health"]
    pts = [(p.time, 100.0 if model.hec_busy_answer(p.status, p.code) else 0.0) for p in probes]
    pj = judge(pts, 100.0, st.th)
    codes = sorted({p.code for p in probes if p.code in model.HEC_UNHEALTHY_CODES})
    listener = [s for s in st.ev.log_signals if s.kind == LISTENER]
    busy = len(errs) >= st.th.hec_busy_replies
    items: List[EvidenceItem] = []
    if errs:
        items.append(EvidenceItem("hec_reply_9_server_busy", len(errs), "errors", "window", errs[0].source))
    if codes:
        items.append(EvidenceItem("hec_health_code", codes[-1], "code",
                                  pj.window if pj.level == SUSTAINED else "sample", probes[0].source))
    if listener:
        items.append(EvidenceItem(LISTENER, len(listener), "lines", "window", listener[0].source))
    if not items:
        return
    sustained_symptom = busy or pj.level == SUSTAINED
    if st.chain and (sustained_symptom or codes or listener):
        # Requests pile up in front of full queues: HEC's refusals are this stage's symptom.
        said = words(len(errs), codes) + (
            ["the HTTP listener refused requests %d times" % len(listener)] if listener else [])
        for pset, stage in st.chain.items():
            d = st.draft(stage, pset)
            for it in items:
                d.add(it)
            d.raise_to("critical")
            d.detail("HEC answers 503 (%s): a symptom of this full stage, not of the HEC input." % ", ".join(said),
                     about=HEC_SYMPTOM)
        return
    hec = st.drafts.get((model.HEC_INPUT, None))
    if hec is not None and hec.severity != "info":
        for it in items:
            hec.add(it)
        if sustained_symptom:
            hec.raise_to("critical")
            hec.detail("HEC already answers 503 (%s)." % ", ".join(words(len(errs), codes)))
    elif sustained_symptom or listener:
        d = st.draft(model.HEC_INPUT, None)
        d.severity = "warning"
        d.component = model.HEC_THREAD if not listener else "HttpListener"
        said = words(len(errs), codes)
        if listener:
            said.append("the HTTP listener refused requests %d times" % len(listener))
        if st.has_queue_data:
            where = "while the pipeline queues drain normally"
        else:
            where = "and no queue data was available to tell which stage is behind it"
        d.set_headline("HEC is rejecting requests (%s) %s." % (", ".join(said), where))
        for it in items:
            d.add(it)
    else:
        d = st.draft(model.HEC_INPUT, None)
        if not d.headline:
            d.severity = "info"
            d.component = model.HEC_THREAD
            d.set_headline("HEC reported unhealthy once (%s) but not sustained." % ", ".join(
                words(len(errs), codes)), tentative=True)
            for it in items:
                d.add(it)
