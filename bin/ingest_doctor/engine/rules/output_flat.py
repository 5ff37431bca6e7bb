"""Output blocked, its output flat at a ceiling (engine/rules/output_cause.py decides which): the link, the
receivers' steady drain rate, or a receiver that the deployment shows saturated. The findings' words."""
from __future__ import annotations

from typing import Dict, List

from ingest_doctor.engine import advice
from ingest_doctor.findings import EvidenceItem, Recommendation
from ingest_doctor.engine.rules.state import Draft, State, r1
from ingest_doctor.evidence import ReceiverState


CONNECTIONS = "logs/metrics.log group=tcpout_connections"


def kbps_words(kbps: float) -> str:
    return "{:,.0f} KB/s ({:.0f} Mbit/s)".format(kbps, kbps * 8 / 1000.0)


def _flat_words(taking: Dict[str, float], median: float, peak: float) -> str:
    return ("%d receiver%s (%s) all connected and taking data, %s together, flat at its ceiling (%.0f%% of the "
            "peak %s) with no connection errors"
            % (len(taking), "" if len(taking) == 1 else "s", ", ".join(sorted(taking)), kbps_words(median),
               median / peak * 100.0, "{:,.0f} KB/s".format(peak)))


def _flat_evidence(d: Draft, median: float, peak: float) -> None:
    d.add(EvidenceItem("tcpout_kbps_total", r1(median), "KB/s", "recent median", CONNECTIONS))
    d.add(EvidenceItem("tcpout_kbps_peak", r1(peak), "KB/s", "window", CONNECTIONS))


DECIDES = ("their splunktcpin or indexQueue full, or a pipeline thread (typing, indexerpipe, ...) pegged, in their "
           "metrics.log group=queue and group=dutycycle")


def link_or_drain(st: State, d: Draft, taking: Dict[str, float], median: float, peak: float) -> None:
    """Judged alone: a flat output is the link or the receivers' steady drain; say what decides."""
    _flat_evidence(d, median, peak)
    names = ", ".join(sorted(taking))
    d.detail("The link or the receivers' drain rate holds it back: %s. A saturated receiver drains at a steady rate, "
             "so from here it looks exactly like a link. What decides is on %s: %s makes them the cause; idle "
             "receivers leave the link." % (_flat_words(taking, median, peak), names, DECIDES))
    d.recommendations.append(Recommendation(
        "Look at the receivers %s first: %s means they are the cause and nothing on this instance helps (or "
        "snapshot them with this instance and run `diagnose <deployment>`); this is not a setting." % (names, DECIDES)))
    for r in advice.output(st.ev):
        if r.setting == "compressed":
            r.action = "Only if the receivers are idle (their queues empty, no thread pegged): " + r.action
            d.recommendations.append(r)
    d.recommendations.append(Recommendation(
        "Only if the receivers are idle: check the link between this host and them (%s is its ceiling now), or a "
        "configured cap (limits.conf [thruput] maxKBps on this instance); this is not a setting of outputs.conf."
        % kbps_words(median)))


def linked(st: State, d: Draft, saturated: List[ReceiverState], taking: Dict[str, float]) -> None:
    """Judged within a deployment: a receiver's own data shows it saturated, so it is the cause."""
    worst = saturated[0]
    for r in saturated:
        d.add(EvidenceItem("receiver_saturated", r.cause, "finding", "deployment",
                           "%s (%s)" % (r.host or r.address, r.address)))
    for r, k in sorted(taking.items()):
        d.add(EvidenceItem("tcpout_kbps", r1(k), "KB/s", "recent", "%s %s" % (CONNECTIONS, r)))
    through = " (itself held back by %s)" % worst.root_words if worst.root_words else ""
    others = ["%s %s" % (r.host or r.address, "idle" if r.state == "idle" else
                         "not in the deployment folder" if r.state == "absent" else
                         "in a forwarding loop with this instance (it forwards back here: check both outputs.conf "
                         "server lists)" if r.state == "loop" else "not judged")
              for r in st.ev.receivers if r.state != "saturated"]
    d.detail("Caused by %s%s: this instance's receivers are saturated%s, and a saturated receiver drains at a steady "
             "rate, so this output looks flat at a ceiling like a link would. Act there, not here: compressing, more "
             "pipeline sets or more threads on this instance would only queue more in front of the same receiver."
             % (worst.cause_words, through,
                " (%s)" % "; ".join("%s: %s" % (r.host or r.address, r.cause_words) for r in saturated[1:])
                if len(saturated) > 1 else "" if not others else " (%s)" % "; ".join(others)))
    d.recommendations.append(Recommendation(
        "Nothing to change on this instance: act on %s%s; this is not a setting here."
        % (worst.root_words or worst.cause_words, ": " + worst.act if worst.act else "")))


def bandwidth(st: State, d: Draft, taking: Dict[str, float], median: float, peak: float) -> None:
    _flat_evidence(d, median, peak)
    d.detail("The network holds it back, not the receivers: %s, and their own data shows them idle (no queue full, "
             "no thread pegged)." % _flat_words(taking, median, peak))
    recs = [r for r in advice.output(st.ev) if r.setting == "compressed"]
    recs.append(Recommendation(
        "Check the link between this host and its receivers: %s is its ceiling now. If that is a configured "
        "cap rather than the network, it is limits.conf [thruput] maxKBps on this instance; this is not a "
        "setting of outputs.conf." % kbps_words(median)))
    d.recommendations.extend(recs)
