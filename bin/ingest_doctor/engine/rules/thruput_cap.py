"""limits.conf [thruput] maxKBps reached: the instance throttles its own throughput, a root of its own.

Universal forwarders ship maxKBps = 256 (KB/s). When the cap is reached, ThruputProcessor writes to
splunkd.log "Current data throughput (<n> kb/s) has reached maxKBps. As a result, data forwarding may be
throttled." and the queues in front of it fill while every thread idles: without this rule that reads as a
parsing bottleneck with props.conf advice that changes nothing. Evidence, either of:
- the splunkd.log line (at least LINES of them in the window), or
- the throughput flat at the configured cap: metrics.log group=thruput name=thruput (or the sum of
  group=tcpout_connections) with its recent median at AT_CAP of maxKBps or more.
Stage findings it explains (no thread pegged: a pegged thread is a bottleneck of its own) become its
evidence; an output whose receivers were found holding it back keeps its verdict and gains a sentence.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ingest_doctor.engine import grouping
from ingest_doctor.engine.series import median
from ingest_doctor.findings import EvidenceItem, Recommendation
from ingest_doctor.engine.rules.state import HEC_SYMPTOM, State, r1

LINES = 2
AT_CAP = 0.95
UF_DEFAULT = 256.0                  # SplunkUniversalForwarder/default/limits.conf [thruput] maxKBps
EXPLAINS = ("parsing", "merging", "typing", "indexing", "output")
THRUPUT = "logs/metrics.log group=thruput name=thruput"


def _flat(st: State, cap: Optional[float]) -> Optional[Tuple[float, str]]:
    """(recent median KB/s, source) when the throughput sits at the cap, else None."""
    if not cap:
        return None
    n = int(st.th.sustained_of_samples)
    own = [t.kbps for t in sorted(st.ev.thruput, key=lambda t: t.time or 0)
           if t.kind == "thruput" and t.series == "thruput"]
    _, totals = grouping.tcpout(st.ev)
    out = [v for _, v in sorted(totals.items(), key=lambda x: x[0] or 0)]
    for values, source in ((own, THRUPUT), (out, "logs/metrics.log group=tcpout_connections")):
        if len(values) >= st.th.sustained_samples and median(values[-n:]) >= AT_CAP * cap:
            return median(values[-n:]), source
    return None


def run(st: State) -> None:
    lines = [s for s in st.ev.log_signals if s.kind == "thruput_capped"]
    cap = st.ev.config.thruput_max_kbps
    flat = _flat(st, cap)
    if len(lines) < LINES and flat is None:
        return
    said = lines[-1].state if lines else None
    cur = cap if cap is not None else (float(said) if said else None)
    words = ("limits.conf [thruput] maxKBps caps this instance at %s%s" % (
        "{:,.0f} KB/s".format(cur) if cur is not None else "its value",
        "" if cap is not None else " (as splunkd.log states it; limits.conf was not read)"))
    out = st.drafts.get(("output", None))
    at_link = flat is not None and out is not None and any(e.signal == "tcpout_kbps_total" for e in out.evidence)
    if out is not None and out.severity != "info" and not at_link:
        # The receivers hold the output back (output_cause): they come first, the cap second.
        out.detail("Its own cap is reached too (%s): lift it once the receivers keep up." % words)
        return
    absorbed = [k for k, x in st.drafts.items() if k[0] in EXPLAINS and k != ("output", None) and not x.pegged
                and x.severity != "info"]
    # At least a warning: the cap holds the data back now, whatever the bursts it explains were called.
    severities = [st.drafts[k].severity for k in absorbed] + ([out.severity] if out is not None else [])
    d = st.draft("output", None, max(severities + ["warning"], key=_rank),
                 "ThruputProcessor (limits.conf [thruput] maxKBps)")
    d.details = [x for x in d.details if x.about == HEC_SYMPTOM]
    d.recommendations, d.thread_details = [], []
    d.set_headline("The throughput cap is reached: %s%s. This is not a parsing or receiver problem: the instance "
                   "throttles itself." % (words, ", and the queues in front of it fill while every thread idles"
                                          if absorbed or out is not None else ""))
    for key in absorbed:
        sym = st.drafts.pop(key)
        for it in sym.evidence:
            d.add(it)
        d.details.extend(x for x in sym.details if x.about == HEC_SYMPTOM)
    if lines:
        d.add(EvidenceItem("maxkbps_reached_messages", len(lines), "lines", "window", lines[0].source))
    if flat is not None:
        d.add(EvidenceItem("thruput_kbps", r1(flat[0]), "KB/s", "recent median", flat[1]))
        d.detail("Its throughput sits at the cap: %s KB/s against maxKBps %s." % ("{:,.0f}".format(flat[0]),
                                                                                  "{:,.0f}".format(cap or 0)))
    d.recommendations.extend(_advice(cap, cur))


def _rank(severity: str) -> int:
    return ("info", "warning", "critical").index(severity)


def _advice(cap: Optional[float], cur: Optional[float]) -> List[Recommendation]:
    default = " (the universal forwarder's default)" if cur == UF_DEFAULT else ""
    return [Recommendation(
        "Lift this instance's throughput cap%s: set maxKBps = 0 (no cap) or to a rate above the peak it must "
        "send, in limits.conf [thruput] on this instance (its receivers and the link must carry that rate), "
        "then restart splunkd." % default, "limits.conf", "thruput", "maxKBps",
        None if cap is None else "{:g}".format(cap), "0")]
