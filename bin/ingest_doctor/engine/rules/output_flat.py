"""Output blocked, its output flat at a ceiling (engine/rules/output_cause.py decides which): the link, the
receivers' steady drain rate, or a receiver that the deployment shows saturated. The findings' words."""
from __future__ import annotations

from collections import Counter
from typing import Dict, List, Optional

from ingest_doctor.engine import advice
from ingest_doctor.findings import EvidenceItem, Recommendation
from ingest_doctor.engine.rules.state import Draft, State, r1
from ingest_doctor.evidence import ReceiverState


CONNECTIONS = "logs/metrics.log group=tcpout_connections"


def _host(receiver: str) -> str:
    return receiver.rsplit(":", 1)[0] if receiver.count(":") == 1 else receiver


def paused_by_receiver(st: State) -> Dict[str, int]:
    """TcpOutputProc "paused the data flow" lines counted per destination (host_dest=, no port)."""
    return dict(Counter(_host(s.receiver) for s in st.ev.log_signals if s.kind == "tcpout_blocked" and s.receiver))


def only_paused(st: State, paused: Dict[str, int], at_least: int) -> List[str]:
    """The one receiver every paused line names, when outputs.conf lists others no line names: with autoLB a
    saturated link pauses towards each receiver in turn, a saturated receiver only during its own turns."""
    servers = {_host(x.strip()) for x in (st.ev.config.tcpout_servers or "").split(",") if x.strip()}
    if len(paused) == 1 and sum(paused.values()) >= at_least and len(servers) >= 2 and servers - set(paused):
        return sorted(paused)
    return []


def idle_words(r: str, kbps: Optional[float], busiest: float, paused: Dict[str, int]) -> str:
    n = paused.get(_host(r), 0)
    lines = ("; %d of the %d paused lines name it" % (n, sum(paused.values()))) if n else ""
    if kbps is None:
        return ("%s: every paused line names it (%d) and none names the other receivers of outputs.conf: it holds "
                "the output back during its turns (its own queues are full)" % (r, n))
    if busiest >= 10 * max(kbps, 1.0):
        return ("%s connected but taking %.0f KB/s while another receiver of this output takes %s: it is the one "
                "holding the output back (its own queues are full%s)" % (r, kbps, kbps_words(busiest), lines))
    return "%s connected but taking %.0f KB/s (blocked: its own queues are full%s)" % (r, kbps, lines)


def undecided(st: State, d: Draft, why: str) -> None:
    d.detail("Whether the receivers or the bandwidth hold it back cannot be told: %s. Per-receiver throughput "
             "(metrics.log group=tcpout_connections) and connection errors in splunkd.log would decide it." % why)
    d.recommendations.extend(conditional(advice.output(st.ev)))


def conditional(recs: List[Recommendation]) -> List[Recommendation]:
    """Output advice while the receivers are not judged: compression only on condition that they are idle."""
    for r in recs:
        if r.setting in ("compressed", "useClientSSLCompression"):
            r.action = "Only if the receivers are idle (their queues empty, no thread pegged): " + r.action
    return recs


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
    d.recommendations.extend(conditional(advice.compression(st.ev)))
    _ssl_words(st, d)
    d.recommendations.append(Recommendation(
        "Only if the receivers are idle: check the link between this host and them (%s is its ceiling now), or a "
        "configured cap (limits.conf [thruput] maxKBps on this instance); this is not a setting of outputs.conf."
        % kbps_words(median)))


def _ssl_words(st: State, d: Draft) -> None:
    if st.ev.config.tcpout_ssl and st.ev.config.tcpout_ssl_compression is not False:
        d.detail("The output uses SSL: `compressed` does not apply there (outputs.conf.spec), and "
                 "useClientSSLCompression, on by default, already compresses it.")


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
    recs = advice.compression(st.ev)
    _ssl_words(st, d)
    recs.append(Recommendation(
        "Check the link between this host and its receivers: %s is its ceiling now. If that is a configured "
        "cap rather than the network, it is limits.conf [thruput] maxKBps on this instance; this is not a "
        "setting of outputs.conf." % kbps_words(median)))
    d.recommendations.extend(recs)
