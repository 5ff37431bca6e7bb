"""Output blocked: the receivers or the bandwidth?

A full tcpout queue has two different causes with opposite fixes:
- the receivers: connections that time out or are refused (splunkd.log), or a
  receiver connected but taking nothing (group=tcpout_connections at ~0 KB/s:
  its own queues are full). Name each receiver and its state; compressing
  would change nothing.
- the network: every receiver connected and taking data, the total flat at its
  ceiling (the recent median within `PLATEAU` of the peak). Only then is
  `compressed = true` the first change.
TcpOutputProc "paused the data flow" lines come with both, so they decide
nothing alone: without per-receiver data the finding says what would decide.

A saturated receiver drains at a steady rate, so from the sender its output
looks flat at a ceiling exactly like a link. Judged alone, a flat output with
connected receivers is therefore "the link OR the receivers' drain rate": the
finding names the receivers to look at and what in their data decides, and
offers compression only on condition that they are idle. Judged within a
deployment (`evidence.receivers`, filled by engine/deployment.py from the
receivers' own data), it is decided: a saturated receiver is the cause (named,
nothing to change here), receivers all idle leave the network.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional

from ingest_doctor.engine import advice
from ingest_doctor.engine.series import median
from ingest_doctor.evidence import ReceiverState
from ingest_doctor.findings import EvidenceItem, Recommendation
from ingest_doctor.engine.rules.state import Draft, State, r1


# A total whose recent median is at least this share of its peak is flat at a ceiling.
PLATEAU = 0.9
# A connection carrying less than this (KB/s) takes nothing.
IDLE_KBPS = 1.0
CONNECTIONS = "logs/metrics.log group=tcpout_connections"


def _recent(st: State, values: List[float]) -> float:
    last = values[-int(st.th.sustained_of_samples):]
    return sum(last) / len(last)


def _kbps_words(kbps: float) -> str:
    return "{:,.0f} KB/s ({:.0f} Mbit/s)".format(kbps, kbps * 8 / 1000.0)


def run(st: State) -> None:
    outs = [d for (b, _), d in st.drafts.items() if b == "output" and d.severity != "info"]
    if not outs:
        return
    failed = failures(st)
    series: Dict[str, List] = defaultdict(list)
    totals: Dict[Optional[float], float] = defaultdict(float)
    for c in sorted(st.ev.tcpout, key=lambda c: c.time or 0):
        series[c.receiver].append(c.kbps)
        totals[c.time] += c.kbps
    taking = {r: _recent(st, v) for r, v in series.items()}
    idle = sorted(r for r, k in taking.items() if k < IDLE_KBPS and r not in failed)
    saturated = [r for r in st.ev.receivers if r.state == "saturated"]
    judged_idle = bool(st.ev.receivers) and all(r.state == "idle" for r in st.ev.receivers)
    for d in outs:
        if saturated:
            _linked(st, d, saturated, taking)
        elif failed or idle:
            _receivers(st, d, failed, idle, taking)
        elif taking and len(totals) >= st.th.sustained_samples:
            vals = [v for _, v in sorted(totals.items(), key=lambda x: x[0] or 0)]
            recent = vals[-int(st.th.sustained_of_samples):]
            if median(recent) >= PLATEAU * max(vals):
                if judged_idle:
                    _bandwidth(st, d, taking, median(recent), max(vals))
                else:
                    _link_or_drain(st, d, taking, median(recent), max(vals))
            else:
                _undecided(d, "the receivers all take data but the output's throughput is not flat at a ceiling")
        else:
            _undecided(d, "no group=tcpout_connections lines and no connection errors were found")


def failures(st: State) -> Dict[str, Dict[str, int]]:
    """Per receiver (`<host>:<port>` as the line names it), each state's count: every failure line counted.
    A line naming no address (`Read error. Connection reset by peer`) goes to the one configured server
    when outputs.conf has exactly one, else to "a receiver the line does not name"."""
    servers = [x.strip() for x in (st.ev.config.tcpout_servers or "").split(",") if x.strip()]
    out: Dict[str, Dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for s in st.ev.log_signals:
        if s.kind == "tcpout_connect_failed":
            name = s.receiver or (servers[0] + " (the only server in outputs.conf)" if len(servers) == 1
                                  else UNNAMED)
            out[name][s.state or "failed"] += 1
    return out


UNNAMED = "a receiver the line does not name"
MEANS = {"refused": "not listening", "timed out": "down or unreachable", "failed": "down, not listening or unreachable",
         "reset by peer": "the receiver dropped the connection", "quarantined": "taken out of the rotation after failures"}


def _times(n: int) -> str:
    return "once" if n == 1 else "%d times" % n


def _receivers(st: State, d: Draft, failed: Dict[str, Dict[str, int]], idle: List[str],
               taking: Dict[str, float]) -> None:
    states = []
    for r, by_state in sorted(failed.items()):
        n = sum(by_state.values())
        said = ", ".join("%s %s (%s)" % (k, _times(v), MEANS.get(k, MEANS["failed"])) for k, v in sorted(by_state.items()))
        states.append("%s on connections the lines do not name" % said if r == UNNAMED else "%s %s" % (r, said))
        d.add(EvidenceItem("tcpout_connect_failures", n, "lines", "window", "logs/splunkd.log %s" % r))
    for r in idle:
        states.append("%s connected but taking %.0f KB/s (blocked: its own queues are full)" % (r, taking[r]))
    for r, k in sorted(taking.items()):
        d.add(EvidenceItem("tcpout_kbps", r1(k), "KB/s", "recent", "%s %s" % (CONNECTIONS, r)))
        if r not in idle and r not in failed:
            states.append("%s takes %s" % (r, _kbps_words(k)))
    d.detail("The receivers hold it back, not the bandwidth: %s. Compressing would not help: the link is not what "
             "is full." % "; ".join(states))
    named = sorted(r for r in failed if r != UNNAMED)
    recs = [Recommendation("Check %s: is splunkd running there and its splunktcp port open and reachable from "
                           "this host? This is not a setting." % ", ".join(named))] if named else []
    if UNNAMED in failed:
        recs.append(Recommendation("Some tcpout failure lines name no receiver: the lines around them in splunkd.log "
                                   "(same thread) name it; check that receiver the same way. This is not a "
                                   "setting."))
    if idle:
        recs.append(Recommendation(
            "Diagnose %s: a receiver that is connected but takes nothing has its own queues full (run Ingest Doctor "
            "on it); this is not a setting." % ", ".join(idle)))
    d.recommendations.extend(recs)


def _flat_words(taking: Dict[str, float], median: float, peak: float) -> str:
    return ("%d receiver%s (%s) all connected and taking data, %s together, flat at its ceiling (%.0f%% of the "
            "peak %s) with no connection errors"
            % (len(taking), "" if len(taking) == 1 else "s", ", ".join(sorted(taking)), _kbps_words(median),
               median / peak * 100.0, "{:,.0f} KB/s".format(peak)))


def _flat_evidence(d: Draft, median: float, peak: float) -> None:
    d.add(EvidenceItem("tcpout_kbps_total", r1(median), "KB/s", "recent median", CONNECTIONS))
    d.add(EvidenceItem("tcpout_kbps_peak", r1(peak), "KB/s", "window", CONNECTIONS))


DECIDES = ("their splunktcpin or indexQueue full, or a pipeline thread (typing, indexerpipe, ...) pegged, in their "
           "metrics.log group=queue and group=dutycycle")


def _link_or_drain(st: State, d: Draft, taking: Dict[str, float], median: float, peak: float) -> None:
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
        % _kbps_words(median)))


def _linked(st: State, d: Draft, saturated: List[ReceiverState], taking: Dict[str, float]) -> None:
    """Judged within a deployment: a receiver's own data shows it saturated, so it is the cause."""
    worst = saturated[0]
    for r in saturated:
        d.add(EvidenceItem("receiver_saturated", r.cause, "finding", "deployment",
                           "%s (%s)" % (r.host or r.address, r.address)))
    for r, k in sorted(taking.items()):
        d.add(EvidenceItem("tcpout_kbps", r1(k), "KB/s", "recent", "%s %s" % (CONNECTIONS, r)))
    through = " (itself held back by %s)" % worst.root_words if worst.root_words else ""
    others = ["%s %s" % (r.host or r.address, "idle" if r.state == "idle" else
                         "not in the deployment folder" if r.state == "absent" else "not judged")
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


def _bandwidth(st: State, d: Draft, taking: Dict[str, float], median: float, peak: float) -> None:
    _flat_evidence(d, median, peak)
    d.detail("The network holds it back, not the receivers: %s, and their own data shows them idle (no queue full, "
             "no thread pegged)." % _flat_words(taking, median, peak))
    recs = [r for r in advice.output(st.ev) if r.setting == "compressed"]
    recs.append(Recommendation(
        "Check the link between this host and its receivers: %s is its ceiling now. If that is a configured "
        "cap rather than the network, it is limits.conf [thruput] maxKBps on this instance; this is not a "
        "setting of outputs.conf." % _kbps_words(median)))
    d.recommendations.extend(recs)


def _undecided(d: Draft, why: str) -> None:
    d.detail("Whether the receivers or the bandwidth hold it back cannot be told: %s. Per-receiver throughput "
             "(metrics.log group=tcpout_connections) and connection errors in splunkd.log would decide it." % why)
