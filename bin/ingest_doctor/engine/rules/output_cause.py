"""Output blocked: the receivers or the bandwidth? (A flat output's verdicts are worded in output_flat.py.)

A full tcpout queue has two different causes with opposite fixes:
- the receivers: connections that time out or are refused (splunkd.log), or a
  receiver connected but taking nothing (group=tcpout_connections at ~0 KB/s:
  its own queues are full). Name each receiver and its state; compressing
  would change nothing.
- the network: every receiver connected and taking data, the total flat at its
  ceiling (the recent median within `PLATEAU` of the peak). Only then is
  `compressed = true` the first change.
TcpOutputProc "paused the data flow" lines come with both, so they decide
nothing alone, unless every one names the same receiver of several (their
destinations are counted); otherwise the finding says what would decide.

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
from typing import Dict, List

from ingest_doctor.engine import grouping
from ingest_doctor.engine.series import median
from ingest_doctor.findings import EvidenceItem, Recommendation
from ingest_doctor.engine.rules import output_flat
from ingest_doctor.engine.rules.output_flat import CONNECTIONS
from ingest_doctor.engine.rules.state import Draft, State, r1


# A total whose recent median is at least this share of its peak is flat at a ceiling.
PLATEAU = 0.9
# A connection takes almost nothing when it carries less than this (KB/s), or less than IDLE_SHARE of what
# the busiest connection of the same sender carries: receivers are judged against each other, not against
# one absolute rate (one receiver at 40 KB/s while five take 6,000 KB/s is the one holding the sender back).
IDLE_KBPS = 1.0
IDLE_SHARE = 0.05
# Paused lines decide a receiver alone only when they all name it, there are at least this many, and
# outputs.conf lists other receivers that no line names (a saturated link pauses towards every receiver).
PAUSED_LINES = 3


def _recent(st: State, values: List[float]) -> float:
    last = values[-int(st.th.sustained_of_samples):]
    return sum(last) / len(last)


def run(st: State) -> None:
    outs = [d for (b, _), d in st.drafts.items() if b == "output" and d.severity != "info"]
    if not outs:
        return
    failed = failures(st)
    series, totals = grouping.tcpout(st.ev)
    taking = {r: _recent(st, v) for r, v in series.items()}
    floor = max([IDLE_KBPS] + [IDLE_SHARE * k for k in taking.values()])
    idle = sorted(r for r, k in taking.items() if k < floor and r not in failed)
    paused = output_flat.paused_by_receiver(st)
    if not taking and not failed:
        idle = output_flat.only_paused(st, paused, PAUSED_LINES)
    saturated = [r for r in st.ev.receivers if r.state == "saturated"]
    judged_idle = bool(st.ev.receivers) and all(r.state == "idle" for r in st.ev.receivers)
    for d in outs:
        if saturated:
            output_flat.linked(st, d, saturated, taking)
        elif failed or idle:
            _receivers(st, d, failed, idle, taking, paused)
        elif taking and len(totals) >= st.th.sustained_samples:
            vals = [v for _, v in sorted(totals.items(), key=lambda x: x[0] or 0)]
            recent = vals[-int(st.th.sustained_of_samples):]
            if median(recent) >= PLATEAU * max(vals):
                if judged_idle:
                    output_flat.bandwidth(st, d, taking, median(recent), max(vals))
                else:
                    output_flat.link_or_drain(st, d, taking, median(recent), max(vals))
            else:
                output_flat.undecided(st, d, "the receivers all take data but the output's throughput is not flat "
                                             "at a ceiling")
        else:
            output_flat.undecided(st, d, "no group=tcpout_connections lines and no connection errors were found")


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
         "reset by peer": "the receiver dropped the connection", "quarantined": "taken out of the rotation after failures",
         "ACK timed out": "connected but not acknowledging what it received, with useACK on: hung, or its own "
                          "queues full"}


def _times(n: int) -> str:
    return "once" if n == 1 else "%d times" % n


def _receivers(st: State, d: Draft, failed: Dict[str, Dict[str, int]], idle: List[str],
               taking: Dict[str, float], paused: Dict[str, int]) -> None:
    states = []
    for r, by_state in sorted(failed.items()):
        n = sum(by_state.values())
        said = ", ".join("%s %s (%s)" % (k, _times(v), MEANS.get(k, MEANS["failed"])) for k, v in sorted(by_state.items()))
        states.append("%s on connections the lines do not name" % said if r == UNNAMED else "%s %s" % (r, said))
        d.add(EvidenceItem("tcpout_connect_failures", n, "lines", "window", "logs/splunkd.log %s" % r))
    busiest = max(taking.values()) if taking else 0.0
    for r in idle:
        states.append(output_flat.idle_words(r, taking.get(r), busiest, paused))
    for r, k in sorted(taking.items()):
        d.add(EvidenceItem("tcpout_kbps", r1(k), "KB/s", "recent", "%s %s" % (CONNECTIONS, r)))
        if r not in idle and r not in failed:
            states.append("%s takes %s" % (r, output_flat.kbps_words(k)))
    for r, n in sorted(paused.items()):
        d.add(EvidenceItem("tcpout_paused_lines", n, "lines", "window", "logs/splunkd.log TcpOutputProc %s" % r))
    d.detail("The receivers hold it back, not the bandwidth: %s. Compressing would not help: the link is not what "
             "is full." % "; ".join(states))
    # Connected but never acknowledging (useACK): hung or full, so diagnosed there, not checked for reachability.
    hung = sorted(r for r, by in failed.items() if r != UNNAMED and set(by) == {"ACK timed out"})
    named = sorted(r for r in failed if r != UNNAMED and r not in hung)
    idle = idle + hung
    recs = [Recommendation("Check %s: is splunkd running there and its splunktcp port open and reachable from "
                           "this host? This is not a setting." % ", ".join(named))] if named else []
    if UNNAMED in failed:
        recs.append(Recommendation("Some tcpout failure lines name no receiver: the lines around them in splunkd.log "
                                   "(same thread) name it; check that receiver the same way. This is not a "
                                   "setting."))
    if idle:
        recs.append(Recommendation(
            "Diagnose %s: a receiver that blocks its senders while reachable has its own queues full (run Ingest "
            "Doctor on it); this is not a setting." % ", ".join(idle)))
    d.recommendations.extend(recs)

