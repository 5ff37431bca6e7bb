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
"""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional

from ingest_doctor.engine import advice
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


def _median(xs: List[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


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
    for d in outs:
        if failed or idle:
            _receivers(st, d, failed, idle, taking)
        elif taking and len(totals) >= st.th.sustained_samples:
            vals = [v for _, v in sorted(totals.items(), key=lambda x: x[0] or 0)]
            recent = vals[-int(st.th.sustained_of_samples):]
            if _median(recent) >= PLATEAU * max(vals):
                _bandwidth(st, d, taking, _median(recent), max(vals))
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


def _bandwidth(st: State, d: Draft, taking: Dict[str, float], median: float, peak: float) -> None:
    d.add(EvidenceItem("tcpout_kbps_total", r1(median), "KB/s", "recent median", CONNECTIONS))
    d.add(EvidenceItem("tcpout_kbps_peak", r1(peak), "KB/s", "window", CONNECTIONS))
    d.detail("The network holds it back, not the receivers: %d receiver%s (%s) all connected and taking data, "
             "%s together, flat at its ceiling (%.0f%% of the peak %s) with no connection errors."
             % (len(taking), "" if len(taking) == 1 else "s", ", ".join(sorted(taking)), _kbps_words(median),
                median / peak * 100.0, "{:,.0f} KB/s".format(peak)))
    recs = [r for r in advice.output(st.ev) if r.setting == "compressed"]
    recs.append(Recommendation(
        "Check the link between this host and its receivers: %s is its ceiling now. If that is a configured "
        "cap rather than the network, it is limits.conf [thruput] maxKBps on this instance; this is not a "
        "setting of outputs.conf." % _kbps_words(median)))
    d.recommendations.extend(recs)


def _undecided(d: Draft, why: str) -> None:
    d.detail("Whether the receivers or the bandwidth hold it back cannot be told: %s. Per-receiver throughput "
             "(metrics.log group=tcpout_connections) and connection errors in splunkd.log would decide it." % why)
