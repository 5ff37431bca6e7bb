"""Silence is a finding: an instance that should report and does not, as the search head sees it.

The search "Ingest Doctor - Silence - Instance stopped reporting" finds each instance whose
metrics.log (and with it the collector, which sends through the same output) stopped arriving, and
what its receivers' `group=tcpin_connections` say about it over the same window:
- `connected_idle`: still connected, sending (near) nothing: its output is blocked (the instance runs,
  its data waits in its own queues: the collector's webhook is the path that still reaches the admin);
- `gone`: no connection at all: the instance is down, or unreachable from the indexers.
This module turns one such row into the contract's finding (bottleneck `output`, the instance's own
stage where data stops), with since when and what to look at.
"""
from __future__ import annotations

import time as _time
from typing import Optional, Sequence

from ingest_doctor.findings import EvidenceItem, Finding, Recommendation

REASONS = ("connected_idle", "gone")
DETECTED_BY = "silence"
SOURCE = "search head: metrics.log arrival, receivers' metrics.log group=tcpin_connections"


def _since(epoch: float) -> str:
    return _time.strftime("%Y-%m-%d %H:%M:%S UTC", _time.gmtime(epoch))


def silence_finding(host: str, reason: str, last_heard: float, now: float, kb_recent: Optional[float],
                    receivers: Sequence[str], silence_kb: float, silent_min: Optional[float] = None) -> Finding:
    """The finding for one silent instance; raises ValueError for an unknown reason. `silent_min` is
    the search's own count (at its run time); without it, from `now`."""
    if reason not in REASONS:
        raise ValueError("reason %r is not one of %s" % (reason, ", ".join(REASONS)))
    if silent_min is None:
        silent_min = (now - last_heard) / 60.0
    silent_min = max(0.0, silent_min)
    evidence = [EvidenceItem("silent_min", round(silent_min, 1), "min", "since last metrics.log", SOURCE)]
    where = ", ".join(sorted(set(receivers))) or "none"
    if reason == "connected_idle":
        evidence.append(EvidenceItem("tcpin_kb", round(kb_recent or 0.0, 3), "KB", "silence window",
                                     "metrics.log group=tcpin_connections on %s" % where))
        summary = ("%s stopped reporting %.0f min ago (silent since %s) while still connected to %s, sending "
                   "%.1f KB (at most %g KB is nothing): its output is blocked, its data waits in its own queues."
                   % (host, silent_min, _since(last_heard), where, kb_recent or 0.0, silence_kb))
        recs = [Recommendation("On %s, check the tcpout queue and outputs.conf targets (TcpOutputProc in "
                               "splunkd.log: blocked, paused, or acknowledgements waiting); then the receivers' "
                               "indexing queues (Pipeline sets dashboard)." % host,
                               "outputs.conf", "tcpout", None, None, None),
                Recommendation("The collector on %s notifies its webhook directly (Configuration > Webhook of "
                               "the add-on): configure it there to hear from this instance while its output is "
                               "blocked." % host, None, None, None, None, None)]
        severity = "critical"
    else:
        summary = ("%s stopped reporting %.0f min ago (silent since %s) and no receiver shows a connection from "
                   "it: it is down or cannot reach the indexers." % (host, silent_min, _since(last_heard)))
        recs = [Recommendation("Check that splunkd runs on %s, then the network path and certificates to the "
                               "receivers' port (splunkd.log TcpOutputProc on %s, the receivers' splunktcp "
                               "inputs)." % (host, host), "outputs.conf", "tcpout", "server", None, None)]
        severity = "warning"
    return Finding("output", severity, host, None, "tcpout", summary, evidence, recs)
