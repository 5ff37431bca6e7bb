"""metrics.log lines -> Evidence, parsed by key (never by position), one line at a time.

Groups used: queue (`_kb` or byte sizes, `blocked=true`), pipeline (CPU per
processor), dutycycle (long form `thread=`/`ratio=` and the wide `name=misc`
form whose field names are thread names), pipelineset (load_metrics), thruput,
per_*_thruput, per_*_regex_cpu, tcpout_connections (`_tcp_KBps` per receiver;
its exact keys are UNVERIFIED, read by key like tcpin_connections) and tcpin_connections (the receiver's
senders: `hostname=`, `sourceIp=`, `guid=`, `fwdType=`, keys verified on a real 8.2.1 line). No `ingest_pipe` means a single pipeline set
(None). Unknown groups are skipped; lines that are not metrics lines are counted.
A line read twice (an `_internal` export can repeat lines: 39 of 1,571 in a real
5.x capture) counts once: the same timestamp, to the millisecond, and the same text.

Lines outside the judged window are skipped by their timestamp prefix, before their pairs are
parsed: splunkd writes a batch of lines with one timestamp, whose time is computed once; a
line of a group not read is skipped by its group name alone. Every other line is read by
`parse_kv`, the one key=value parser.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from ingest_doctor import model
from ingest_doctor.evidence import (Evidence, PipelineSetLoad, ProcessorCpu, QueueSample, RegexCpu, TcpinConnection,
                                   TcpoutConnection, ThreadSample, Thruput)
from ingest_doctor.read.logtime import WindowedParser, parse_prefix
from ingest_doctor.threadnames import pool_name

SOURCE = "logs/metrics.log"
DEFAULT_INTERVAL_S = 30.0

_KV = re.compile(r'([\w.:-]+)=("[^"]*"|[^,]*)')
_DUTY_SKIP = {"group", "name", "ingest_pipe", "thread", "ratio"}
_HEAD = 29                  # a line's date, time, millis and zone: the lines of one batch share them


@dataclass
class Stats:
    """Counts of one metrics.log read."""
    lines: int = 0
    used: int = 0
    garbage: int = 0           # not a metrics line, or a metrics line without group=
    unknown_groups: int = 0
    outside_window: int = 0
    duplicates: int = 0        # the same line again (counted once)
    out_of_order: int = 0      # lines older than one already read (judged in time order all the same)


def pairs(body: str) -> Iterator[Tuple[str, str]]:
    """Every `key=value` of a line's body (from `group=`) in order, a repeated key each time, keys and
    values stripped: without a quote, the parts between `, ` split at their first `=`; with one,
    `key="..."` or `key=value` pairs found left to right, their quotes stripped."""
    if '"' not in body:
        for part in body.split(", "):
            k, sep, v = part.partition("=")
            if sep:
                yield k.strip(), v.strip()
        return
    for k, v in _KV.findall(body):
        yield k, v.strip('"')


def parse_kv(body: str) -> Dict[str, str]:
    """Every `key=value` of a line's body, the last of a key kept."""
    return dict(pairs(body))


def _num(v: Optional[str]) -> Optional[float]:
    if v is None:
        return None
    try:
        f = float(v)            # a value with quotes fails here, and is read without them
    except ValueError:
        try:
            f = float(v.strip('"'))
        except ValueError:
            return None
    return f if math.isfinite(f) else None


def _pipe(v: Optional[str]) -> Optional[int]:
    """The pipeline set an `ingest_pipe` value names (None: a single set)."""
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        return None


# No line for this many metrics intervals (every group is written each interval) is a gap.
GAP_INTERVALS = 4


def _hms(t: float) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(t))


class MetricsLogParser(WindowedParser):
    """Feed lines (`feed` one, `feed_all` many, in order); only `since <= time <= until` lines are kept."""
    SOURCE = SOURCE
    STATS = Stats

    def __init__(self, evidence: Evidence, since: Optional[float] = None, until: Optional[float] = None,
                 source: str = SOURCE, skip: Iterable[str] = ()):
        """`skip`: groups not read, skipped by their name as unknown ones are (CONNECTIONS when no reader of
        the evidence needs them)."""
        super().__init__(evidence, since, until, source)
        self._skip = frozenset(skip)
        self._times: List[float] = []      # distinct times of group=pipeline batches, to measure the interval
        self._cpu: List[ProcessorCpu] = []
        self._seen: Set[int] = set()       # hashes of the lines used, to count a repeated line once
        self._seconds: Set[int] = set()    # the seconds lines were written in, to name a gap
        self._latest: Optional[float] = None
        # The batch the last line was in: its first _HEAD characters, its time, in the window, out of order.
        self._prefix: Optional[str] = None
        self._t: Optional[float] = None
        self._inside = True
        self._late = False
        self._src = {g: "%s group=%s" % (source, g) for g in
                     ("queue", "pipeline", "dutycycle", "pipelineset", "thruput", "regex_cpu",
                      "tcpout_connections", "tcpin_connections")}

    def feed(self, line: str) -> None:
        """One line (its line end optional)."""
        st = self.stats
        st.lines += 1
        text = line.rstrip("\r\n")
        mark = text.find(" - group=")
        if mark < 0:
            if text.strip():
                st.garbage += 1
            return
        if text[:_HEAD] != self._prefix:
            self._start_batch(text)
        if not self._inside:                # skipped by its timestamp alone
            st.outside_window += 1
            return
        h = hash(text)
        if h in self._seen:
            st.duplicates += 1
            return
        self._seen.add(h)
        if self._late:
            st.out_of_order += 1
        body = text[mark + 3:]
        group = _group(body)
        reader = None if group in self._skip else _reader(group)
        if reader is None:
            st.unknown_groups += 1
        elif reader(self, self._t, body):
            st.used += 1
        else:
            st.garbage += 1

    def _start_batch(self, line: str) -> None:
        """The time of the lines that start as `line` does: in the window, and later than the latest
        line read so far or not (the lines of one batch share their time)."""
        t, _ = parse_prefix(line)
        self._prefix, self._t = line[:_HEAD], t
        self._inside = self.within(t)
        self._late = False
        if t is None or not self._inside:
            return
        self._seconds.add(int(t))
        if self._latest is not None and t < self._latest - 1:
            self._late = True
        elif self._latest is None or t > self._latest:
            self._latest = t

    def finish(self) -> Stats:
        """Set each processor's interval to the measured metrics interval."""
        interval = DEFAULT_INTERVAL_S
        if len(self._times) >= 2:
            diffs = sorted(b - a for a, b in zip(self._times, self._times[1:]) if b - a >= 5)
            if diffs:
                interval = diffs[len(diffs) // 2]
        for p in self._cpu:
            p.interval_s = interval
        self._name_gaps(interval)
        if self.stats.lines:
            self.ev.saw(self.source)
        return self.stats

    def _name_gaps(self, interval: float) -> None:
        """A stretch with no line for GAP_INTERVALS intervals is named: the judgement covers what is around it."""
        secs = sorted(self._seconds)
        for a, b in zip(secs, secs[1:]):
            if b - a >= GAP_INTERVALS * interval:
                self.ev.not_judged.append(
                    "%s has no lines from %s to %s UTC (%.0f minutes): judged on the lines around the gap"
                    % (self.source, _hms(a), _hms(b), (b - a) / 60.0))
        if self.stats.out_of_order:
            self.ev.not_judged.append("%s has %d lines out of time order: judged in time order"
                                      % (self.source, self.stats.out_of_order))

    # -- groups: each reads one line's body (from `group=`) at time t, and says whether it used it.
    def _queue(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        name = kv.get("name")
        if not name:
            return False
        max_kb = kv.get("max_size_kb")
        mx, cur = ((_num(max_kb), _num(kv.get("current_size_kb"))) if max_kb is not None
                   else (_num(kv.get("max_size")), _num(kv.get("current_size"))))
        blocked = kv.get("blocked", "").lower() == "true"
        if not mx or cur is None:
            if not blocked:
                return mx == 0.0        # an input that is off (`max_size_kb=0`): read, nothing to judge
            fill = 100.0
        else:
            fill = cur / mx * 100.0
        self.ev.queues.append(QueueSample(t, model.canonical_queue(name), _pipe(kv.get("ingest_pipe")), fill,
                                          "sample", blocked, self._src["queue"]))
        return True

    def _pipeline(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        cpu, name, processor = _num(kv.get("cpu_seconds")), kv.get("name"), kv.get("processor")
        if cpu is None or name is None or processor is None:
            return False
        if t is not None and (not self._times or t - self._times[-1] >= 1):
            self._times.append(t)
        p = ProcessorCpu(t, name.lower(), processor.lower(), cpu, DEFAULT_INTERVAL_S, _pipe(kv.get("ingest_pipe")),
                         _num(kv.get("executes")), _num(kv.get("write_cpu_seconds")),
                         _num(kv.get("service_cpu_seconds")), self._src["pipeline"])
        self.ev.processors.append(p)
        self._cpu.append(p)
        return True

    def _dutycycle(self, t: Optional[float], body: str) -> bool:
        # One name may stand for several threads: a real 9.0.4.1 writes two `ratio=` on its tcpouteloop
        # line. Each name's busiest share is kept: a pegged thread limits its stage whatever its namesake does.
        every = list(pairs(body))
        kv = dict(every)
        if "thread" in kv:
            thread = pool_name(kv["thread"].lower())
            named = [(thread, v) for k, v in every if k == "ratio"]
        else:       # the wide form: its keys are thread names
            named = [(k.lower(), v) for k, v in every if k not in _DUTY_SKIP]
        busiest: Dict[str, float] = {}
        for name, v in named:
            ratio = _num(v)
            if ratio is not None and (name not in busiest or ratio > busiest[name]):
                busiest[name] = ratio
        pset, src = _pipe(kv.get("ingest_pipe")), self._src["dutycycle"]
        self.ev.threads.extend(ThreadSample(t, name, ratio * 100.0, pset, "sample", src)
                               for name, ratio in busiest.items())
        return bool(busiest)

    def _pipelineset(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        ratio = _num(kv.get("dutycycle_ratio"))
        if ratio is None:
            return False
        pset = _pipe(kv.get("ingest_pipe"))
        self.ev.pipelinesets.append(PipelineSetLoad(
            t, pset if pset is not None else 0, kv.get("busiest_thread_name", "").lower(), ratio * 100.0,
            _num(kv.get("share")), _num(kv.get("requests_last_period")), self._src["pipelineset"]))
        return True

    def _thruput(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        kbps, name = _num(kv.get("instantaneous_kbps")), kv.get("name")
        if kbps is None or name is None:
            return False
        self.ev.thruput.append(Thruput(t, "thruput", name, kbps, _num(kv.get("instantaneous_eps")),
                                       _pipe(kv.get("ingest_pipe")), self._src["thruput"]))
        return True

    def _series_of(self, group: str, suffix: str) -> Tuple[str, str]:
        """A group=per_<kind><suffix> line's kind and source."""
        src = self._src.get(group) or self._src.setdefault(group, "%s group=%s" % (self.source, group))
        return group[len("per_"):-len(suffix)], src

    def _per_thruput(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        kbps, series = _num(kv.get("kbps")), kv.get("series")
        if kbps is None or series is None:
            return False
        kind, src = self._series_of(kv["group"], "_thruput")
        self.ev.thruput.append(Thruput(t, kind, series, kbps, _num(kv.get("eps")), _pipe(kv.get("ingest_pipe")), src,
                                       _num(kv.get("avg_age"))))
        return True

    def _regex_cpu(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        cpu, series = _num(kv.get("cpu")), kv.get("series")
        if cpu is None or series is None:
            return False
        kind, src = self._series_of(kv["group"], "_regex_cpu")
        self.ev.regex_cpu.append(RegexCpu(t, series, cpu, kind, _pipe(kv.get("ingest_pipe")), src))
        return True

    def _tcpout(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        kbps, dest_ip = _num(kv.get("_tcp_KBps")), kv.get("destIp")
        group, _, rest = kv.get("name", "").partition(":")
        receiver = "%s:%s" % (dest_ip, kv.get("destPort") or "") if dest_ip else ":".join(rest.split(":")[:2])
        if kbps is None or not receiver:
            return False
        self.ev.tcpout.append(TcpoutConnection(t, receiver.rstrip(":"), kbps, group, self._src["tcpout_connections"]))
        return True

    def _tcpin(self, t: Optional[float], body: str) -> bool:
        kv = parse_kv(body)
        host = kv.get("sourceHost") or ""
        ip = kv.get("sourceIp") or host
        if not ip:
            return False
        self.ev.tcpin.append(TcpinConnection(t, ip, kv.get("hostname") or "", host, kv.get("guid") or "",
                                             kv.get("fwdType") or "", _num(kv.get("_tcp_KBps")) or 0.0,
                                             kv.get("destPort") or "", kv.get("lastIndexer") or "",
                                             self._src["tcpin_connections"]))
        return True


# Who sends to this instance: read for a deployment's topology (deployment/topology.py), never by a rule judging
# one instance. A busy indexer writes one such line per forwarder every 30 s: 30,600 of the 50,040 lines of
# the 30-minute bench snapshot, most of the time `diagnose` took on it (its 1 s budget).
CONNECTIONS = "tcpin_connections"

Reader = Callable[[MetricsLogParser, Optional[float], str], bool]
_READERS: Dict[str, Reader] = {
    "queue": MetricsLogParser._queue,
    "pipeline": MetricsLogParser._pipeline,
    "dutycycle": MetricsLogParser._dutycycle,
    "pipelineset": MetricsLogParser._pipelineset,
    "thruput": MetricsLogParser._thruput,
    "tcpout_connections": MetricsLogParser._tcpout,
    CONNECTIONS: MetricsLogParser._tcpin,
    "per_sourcetype_thruput": MetricsLogParser._per_thruput,
}


def _group(body: str) -> str:
    """The group a line's body (`group=...`) names, read in place."""
    end = body.find(",", 6)
    return (body[6:end] if end > 0 else body[6:]).strip()


def _reader(group: str) -> Optional[Reader]:
    """The reader of a group's lines; None for a group not read. Decided before reading the line's
    pairs: most lines of a busy indexer (per_*_thruput for hosts, ...) are not read."""
    reader = _READERS.get(group)
    if reader is None and group.startswith("per_") and group.endswith("_regex_cpu"):
        return MetricsLogParser._regex_cpu
    return reader


def parse_lines(lines: Iterable[str], evidence: Optional[Evidence] = None, since: Optional[float] = None,
                until: Optional[float] = None, source: str = SOURCE) -> Evidence:
    """Convenience: parse an iterable of lines (a file object streams) into an Evidence."""
    ev = evidence if evidence is not None else Evidence()
    p = MetricsLogParser(ev, since, until, source)
    p.feed_all(lines)
    p.finish()
    return ev
