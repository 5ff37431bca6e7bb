"""HEC symptoms: answers that say the receiver cannot take more data (reply=9 "Server is busy",
health codes 18-20, a queue or ACK channel at capacity: 429 code 26/27, or a bare 503/429; the
codes are `model.HEC_CODES` with `backpressure`), and the HTTP listener refusing requests.
They go to the chain's bottleneck when queues are full; only otherwise are they a `hec_input`
finding."""
from __future__ import annotations

from collections import Counter
from typing import List

from ingest_doctor import model
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.series import SUSTAINED, judge
from ingest_doctor.engine.rules.state import HEC_SYMPTOM, State


LISTENER = "hec_listener_overwhelmed"


def words(replies: "Counter[int]", codes: List[int]) -> List[str]:
    out = ["%d reply=%d \"%s\" errors" % (n, reply, model.HEC_CODE[reply].meaning)
           for reply, n in sorted(replies.items())]
    if codes:
        out.append("health code%s %s" % ("s" if len(codes) > 1 else "", "/".join(str(c) for c in codes)))
    return out


def _answers(probes, errs) -> str:
    """'answers 503', 'answers 429', or both, as the refusals seen were sent."""
    statuses = {model.hec_status(e.reply) for e in errs}
    statuses.update(p.status for p in probes if p.status is not None and model.hec_busy_answer(p.status, p.code))
    return "answers %s" % "/".join(str(s) for s in sorted(statuses or {503}))


def run(st: State) -> None:
    errs = [e for e in st.ev.hec_errors if e.reply in model.HEC_BACKPRESSURE_CODES]
    replies = Counter(e.reply for e in errs)
    probes = [p for p in st.ev.hec_probes if p.kind == "health"]
    pts = [(p.time, 100.0 if model.hec_busy_answer(p.status, p.code) else 0.0) for p in probes]
    pj = judge(pts, 100.0, st.th)
    codes = sorted({p.code for p in probes if p.code in model.HEC_BACKPRESSURE_CODES})
    listener = [s for s in st.ev.log_signals if s.kind == LISTENER]
    busy = len(errs) >= st.th.hec_busy_replies
    items: List[EvidenceItem] = []
    for reply, n in sorted(replies.items()):
        first = next(e for e in errs if e.reply == reply)
        items.append(EvidenceItem("hec_reply_9_server_busy" if reply == model.HEC_BUSY_REPLY else
                                  "hec_reply_%d_busy" % reply, n, "errors", "window", first.source))
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
        said = words(replies, codes) + (
            ["the HTTP listener refused requests %d times" % len(listener)] if listener else [])
        for pset, stage in st.chain.items():
            d = st.draft(stage, pset)
            for it in items:
                d.add(it)
            d.raise_to("critical")
            d.detail("HEC %s (%s): a symptom of this full stage, not of the HEC input."
                     % (_answers(probes, errs), ", ".join(said)), about=HEC_SYMPTOM)
        return
    hec = st.drafts.get((model.HEC_INPUT, None))
    if hec is not None and hec.severity != "info":
        hec.hec = True
        for it in items:
            hec.add(it)
        if sustained_symptom:
            hec.raise_to("critical")
            hec.detail("HEC already %s (%s)." % (_answers(probes, errs), ", ".join(words(replies, codes))))
    elif sustained_symptom and not listener and _output_bursts(st, items, probes, errs, replies, codes):
        return
    elif sustained_symptom or listener:
        d = st.draft(model.HEC_INPUT, None)
        d.hec = True
        d.severity = "warning"
        d.component = model.HEC_THREAD if not listener else "HttpListener"
        said = words(replies, codes)
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
        d.hec = True
        if not d.headline:
            d.severity = "info"
            d.component = model.HEC_THREAD
            d.set_headline("HEC reported unhealthy once (%s) but not sustained." % ", ".join(
                words(replies, codes)), tentative=True)
            for it in items:
                d.add(it)


def _output_bursts(st: State, items: List[EvidenceItem], probes, errs, replies, codes) -> bool:
    """HEC refusals while the output fills in bursts and the HEC thread is not over its threshold: the
    bursts' symptom (with autoLB, the sender blocks during its turns on a saturated receiver), so the output
    finding carries them, raised to warning, and no HEC setting is advised. True when it took them."""
    bursts = [d for (b, _), d in sorted(st.drafts.items(), key=lambda x: -1 if x[0][1] is None else x[0][1])
              if b == "output" and d.severity == "info"]
    hec = [t.judgement.value for t in st.threads if t.stage is not None and t.stage.name == model.HEC_INPUT]
    if not bursts or (hec and max(hec) >= st.th.thread_busy_pct):
        return False
    busy = "" if not hec else ", its thread at most %.0f%% busy" % max(hec)
    for d in bursts:
        d.raise_to("warning")
        full = next((e for e in d.evidence if e.signal == "queue_full_samples"), None)
        d.set_headline("%s fills in bursts and drains%s, and HEC refuses data during them: each burst blocks "
                       "the data flow." % (d.component or "tcpout", "" if full is None else
                                           " (full in %s of %s)" % (full.value, full.window)))
        for it in items:
            d.add(it)
        d.detail("HEC %s (%s) during these bursts: a symptom of the output, not of the HEC input%s; more I/O "
                 "threads on this instance cannot help. With autoLB the output blocks during its turns on a "
                 "receiver that cannot take more: find which one." % (_answers(probes, errs),
                                                                      ", ".join(words(replies, codes)), busy),
                 about=HEC_SYMPTOM)
    return True
