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
_REPLY = re.compile(r"\breply=(\d+)")
_TOKEN = re.compile(r"\btoken name=([^,]*)")
_PERR = re.compile(r'\bparsing_err="([^"]*)"')

# The receiver a tcpout line names: `host_dest=` (TcpOutputProc paused), `ip=` (a cooked connection timed
# out, real 2025 line), or `Connect to <host:port> failed` (TcpOutputFd).
_RECEIVER = re.compile(r"\b(?:host_dest=|ip=|[Cc]onnect to )([^\s,]+?)[.,]?(?:\s|$)")

_SIGNALS = (
    ("HttpListener", "Can't handle request", "hec_listener_overwhelmed"),
    ("TcpOutputProc", "paused the data flow", "tcpout_blocked"),
    ("AutoLoadBalancedConnectionStrategy", "timed out", "tcpout_connect_failed"),
    ("TcpOutputFd", "failed", "tcpout_connect_failed"),
    ("TcpInputProc", "Stopping all listening ports", "tcpin_stopped"),
    (None, "index processor has paused data flow", "index_paused"),
)


@dataclass
class Stats:
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
                and "AutoLoadBalanced" not in line):
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
                self.ev.hec_errors.append(HecError(t, int(r.group(1)), tok.group(1).strip() if tok else "",
                                                   perr.group(1) if perr else "",
                                                   "%s HttpInputDataHandler" % self.source))
                self.stats.used += 1
            return
        for want_comp, text, kind in _SIGNALS:
            if (want_comp is None or comp == want_comp) and text.lower() in msg.lower():
                rcv = _RECEIVER.search(msg) if kind.startswith("tcpout") else None
                self.ev.log_signals.append(LogSignal(t, kind, msg[:300], "%s %s" % (self.source, comp),
                                                     rcv.group(1) if rcv else ""))
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
