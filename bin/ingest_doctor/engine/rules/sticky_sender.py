"""A forwarder that never leaves one receiver although outputs.conf lists several (autoLB).

autoLB moves a universal forwarder to another receiver every autoLBFrequency (30 s by default), but only
at an event boundary it can see: without props.conf EVENT_BREAKER_ENABLE/EVENT_BREAKER for its
sourcetypes (or outputs.conf forceTimebasedAutoLB), a file or stream it never stops reading keeps it on
one receiver, and that receiver's pipeline set (or the whole indexer) carries the load alone: the
imbalance the receivers show has its cause here. Evidence: metrics.log group=tcpout_connections naming
one receiver carrying data for at least MIN_SPAN_S while outputs.conf lists two or more servers.
An `info` finding of its own on the output, or a sentence and the advice on an output finding already made.
"""
from __future__ import annotations

from ingest_doctor.engine import advice
from ingest_doctor.findings import EvidenceItem
from ingest_doctor.engine.rules.output_flat import CONNECTIONS
from ingest_doctor.engine.rules.state import State

MIN_SPAN_S = 300.0      # ten autoLBFrequency periods at its 30 s default: a free sender would have moved


def run(st: State) -> None:
    cfg = st.ev.config
    servers = sorted({x.strip() for x in (cfg.tcpout_servers or "").split(",") if x.strip()})
    if len(servers) < 2 or cfg.tcpout_force_time_lb:
        return
    if any(s.kind == "tcpout_connect_failed" for s in st.ev.log_signals):
        return                          # the others failing keep it there, not the event boundaries
    carrying = [c for c in st.ev.tcpout if c.kbps > 0 and c.time is not None]
    used = sorted({c.receiver for c in carrying})
    if len(used) != 1:
        return
    span = max(c.time for c in carrying) - min(c.time for c in carrying)
    if span < MIN_SPAN_S:
        return
    hot = [s for s in advice.busy_sourcetypes(st.ev, None)
           if (cfg.props.get(s) or {}).get("EVENT_BREAKER_ENABLE", "").lower() not in ("true", "1")]
    words = ("This forwarder sent to %s only, for %d minutes, although outputs.conf lists %d receivers (%s): autoLB "
             "switches only at an event boundary the forwarder can see, so without EVENT_BREAKER (or "
             "forceTimebasedAutoLB) a stream it never stops reading pins it to one receiver, which carries its "
             "load alone." % (used[0], round(span / 60.0), len(servers), ", ".join(servers)))
    d = st.drafts.get(("output", None))
    if d is None or d.severity == "info":
        d = st.draft("output", None, "info", "autoLB")
        d.set_headline(words)
    else:
        d.detail(words)
    d.add(EvidenceItem("tcpout_receivers_used", 1, "receivers", "%d min" % round(span / 60.0), CONNECTIONS))
    d.add(EvidenceItem("tcpout_servers_configured", len(servers), "receivers", "config",
                       "rest services/configs/conf-outputs/tcpout"))
    d.recommendations.extend(advice.sticky_sender(st.ev, hot))
