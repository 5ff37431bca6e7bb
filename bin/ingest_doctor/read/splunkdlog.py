"""splunkd.log lines -> HEC errors and the few log signals the rules use.

Layout `<date> <LEVEL> <component> [<tid> <thread>] - <message>`; the thread
part and the zone are missing in older builds, and lines copied without a date
still carry the component: all three forms are accepted.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional

from ingest_doctor.evidence import Evidence, HecError, LogSignal
from ingest_doctor.read.logtime import WindowedParser, parse_prefix

SOURCE = "logs/splunkd.log"

_BODY = re.compile(r"^\s*(?P<level>[A-Z]+) +(?P<component>\S+)(?: \[(?P<tid>\d+) (?P<thread>[^\]]+)\])? - (?P<msg>.*)$")
_REPLY = re.compile(r"\breply=(\d{1,6})\b")
_TOKEN = re.compile(r"\btoken name=([^,]*)")
_PERR = re.compile(r'\bparsing_err="([^"]*)"')
_CLIENT = re.compile(r"\bsource_IP=([0-9A-Fa-f.:]+)")

# The receiver a tcpout line names, in every form splunkd writes: `host_dest=` (TcpOutputProc paused),
# `ip=<ip>:<port>` (a cooked connection timed out, real 2025 line), `host=<ip>:<port>` (TcpOutputFd
# "Connection to host=... failed"), `idx=<ip>:<port>` (AutoLoadBalancedConnectionStrategy), `ip=<ip> port=<port>`
# (its quarantine line), `Connect to <ip>:<port> failed` (TcpOutputFd).
_ADDRESS = (
    re.compile(r"\b(?:host_dest|ip|host|idx|dest)=(\[[0-9a-fA-F:.]+\]:\d+|[\w.-]+:\d+)"),
    re.compile(r"\bip=([\w.:-]+?)[,]? port=(\d+)"),
    re.compile(r"\b[Cc]onnect(?:ion)? to (?:ip=|host=)?(\[[0-9a-fA-F:.]+\]:\d+|[\w.-]+:\d+)"),
    re.compile(r"\bhost_dest=([^\s,]+?)[.,]?(?:\s|$)"),
    # useACK: "Read operation timed out expecting ACK from 10.0.0.13:9997 in 300 seconds."
    re.compile(r"\bexpecting ACK from (\[[0-9a-fA-F:.]+\]:\d+|[\w.-]+:\d+)"),
)

# tcpout connection failures: (pattern in the message, the receiver's state). First match wins.
_TCPOUT_COMPONENTS = ("TcpOutputFd", "TcpOutputProc", "AutoLoadBalancedConnectionStrategy", "TcpOutputClient")
_TCPOUT_STATES = (
    (re.compile(r"expecting ACK", re.I), "ACK timed out"),
    (re.compile(r"connection refused", re.I), "refused"),
    (re.compile(r"timed out", re.I), "timed out"),
    (re.compile(r"reset by peer", re.I), "reset by peer"),
    (re.compile(r"applying quarantine", re.I), "quarantined"),
    (re.compile(r"\bfail(?:ed|ure)\b", re.I), "failed"),
)

# limits.conf [thruput] maxKBps reached, as ThruputProcessor writes it (Splunk Answers threads quote it:
# "Current data throughput (256 kb/s) has reached maxKBps. As a result, data forwarding may be throttled.
# Consider increasing the value of maxKBps in limits.conf."). The rate is kept as the signal's state.
MAXKBPS_RX = r"throughput \((\d+(?:\.\d+)?) ?kb/s\) has reached maxKBps"
_MAXKBPS = re.compile(MAXKBPS_RX, re.I)
MAXKBPS_TEXT = "Current data throughput (%s kb/s) has reached maxKBps."

_SIGNALS = (
    ("HttpListener", "Can't handle request", "hec_listener_overwhelmed"),
    ("TcpOutputProc", "paused the data flow", "tcpout_blocked"),
    ("TcpInputProc", "Stopping all listening ports", "tcpin_stopped"),
    (None, "index processor has paused data flow", "index_paused"),
)
# An indexer-cluster peer whose queue of replicated slices to another peer is full names that target by
# guid (`replication queue for peer=<guid> full`): the deployment's replication edge (deployment/topology.py).
_REPLICATION_FULL = re.compile(r"replication queue for peer=([\w.:-]+?)[.,:]?\s+(?:is\s+)?full", re.I)
REPLICATION_TEXT = "replication queue for peer=%s full"


def thruput_capped(t: Optional[float], kbps: str, source: str, msg: str = "") -> LogSignal:
    """The record of one "has reached maxKBps" line (`kbps`: the rate it states): the CLI's reader and the
    search head's rows (alert/rows.py, from the queue alert's count per host) make the same one."""
    return LogSignal(t, "thruput_capped", msg[:300] or MAXKBPS_TEXT % kbps, source, "", kbps)


def replication_full(t: Optional[float], guid: str, source: str, msg: str = "") -> LogSignal:
    """The record of one `replication queue for peer=<guid> full` line (the target's guid), for the CLI's reader
    and the search head's rows alike."""
    return LogSignal(t, "replication_queue_full", msg[:300] or REPLICATION_TEXT % guid, source, guid)


def receiver(msg: str) -> str:
    """The receiver (`<host>:<port>`) a tcpout line names, or "" when it names none."""
    for i, pattern in enumerate(_ADDRESS):
        m = pattern.search(msg)
        if m:
            return "%s:%s" % (m.group(1), m.group(2)) if i == 1 else m.group(1)
    return ""


def tcpout_failure(component: str, msg: str) -> str:
    """The state a tcpout connection-failure line reports (refused, timed out, ...), or ""."""
    if component not in _TCPOUT_COMPONENTS or "paused the data flow" in msg:
        return ""
    for pattern, state in _TCPOUT_STATES:
        if pattern.search(msg):
            return state
    return ""


@dataclass
class Stats:
    """Counts of one splunkd.log read."""
    lines: int = 0
    used: int = 0
    outside_window: int = 0


class SplunkdLogParser(WindowedParser):
    SOURCE = SOURCE
    STATS = Stats

    def feed(self, line: str) -> None:
        self.stats.lines += 1
        # Cheap pre-filter: most of splunkd.log is irrelevant here.
        if ("reply=" not in line and "Can't handle" not in line and "paused" not in line
                and "Stopping all listening" not in line and "TcpOut" not in line
                and "AutoLoadBalanced" not in line and "eplication queue" not in line
                and "maxKBps" not in line):  # TcpOutputFd, TcpOutputProc, TcpOutputClient
            return
        t, start = parse_prefix(line)
        if self.outside(t):
            return
        m = _BODY.match(line[start:].rstrip("\r\n"))
        if not m:
            return
        comp, msg = m.group("component"), m.group("msg")
        if comp == "HttpInputDataHandler":
            r = _REPLY.search(msg)
            if r:
                tok = _TOKEN.search(msg)
                perr = _PERR.search(msg)
                client = _CLIENT.search(msg)
                self.ev.hec_errors.append(HecError(t, int(r.group(1)), tok.group(1).strip() if tok else "",
                                                   perr.group(1) if perr else "",
                                                   "%s HttpInputDataHandler" % self.source,
                                                   client.group(1).rstrip(",") if client else ""))
                self.stats.used += 1
            return
        cap = _MAXKBPS.search(msg)
        if cap:
            self.ev.log_signals.append(thruput_capped(t, cap.group(1), "%s %s" % (self.source, comp), msg))
            self.stats.used += 1
            return
        state = tcpout_failure(comp, msg)
        if state:
            self.ev.log_signals.append(LogSignal(t, "tcpout_connect_failed", msg[:300], "%s %s" % (self.source, comp),
                                                 receiver(msg), state))
            self.stats.used += 1
            return
        rep = _REPLICATION_FULL.search(msg)
        if rep:
            self.ev.log_signals.append(replication_full(t, rep.group(1), "%s %s" % (self.source, comp), msg))
            self.stats.used += 1
            return
        for want_comp, text, kind in _SIGNALS:
            if (want_comp is None or comp == want_comp) and text.lower() in msg.lower():
                rcv = receiver(msg) if kind.startswith("tcpout") else ""
                self.ev.log_signals.append(LogSignal(t, kind, msg[:300], "%s %s" % (self.source, comp), rcv))
                self.stats.used += 1
                return

    def finish(self) -> Stats:
        if self.stats.lines:
            self.ev.saw(self.source)
        return self.stats


def parse_lines(lines: Iterable[str], evidence: Optional[Evidence] = None, since: Optional[float] = None,
                until: Optional[float] = None, source: str = SOURCE) -> Evidence:
    """The splunkd.log lines (a file object streams) into `evidence`, or a new Evidence."""
    parser = SplunkdLogParser(Evidence() if evidence is None else evidence, since, until, source)
    for line in lines:
        parser.feed(line)
    parser.finish()
    return parser.ev
