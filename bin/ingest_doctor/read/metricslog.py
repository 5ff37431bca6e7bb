"""metrics.log lines -> Evidence, parsed by key (never by position), as a stream.

Groups used: queue (`_kb` or byte sizes, `blocked=true`), pipeline (CPU per
processor), dutycycle (long form `thread=`/`ratio=` and the wide `name=misc`
form whose field names are thread names), pipelineset (load_metrics), thruput,
per_*_thruput, per_*_regex_cpu, tcpout_connections (`_tcp_KBps` per receiver;
its exact keys are UNVERIFIED, read by key like tcpin_connections) and tcpin_connections (the receiver's
senders: `hostname=`, `sourceIp=`, `guid=`, `fwdType=`, keys verified on a real 8.2.1 line). No `ingest_pipe` means a single pipeline set
(None). Unknown groups are skipped; lines that are not metrics lines are counted.
A line read twice (an `_internal` export can repeat lines: 39 of 1,571 in a real
5.x capture) counts once: the same timestamp, to the millisecond, and the same text.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Set, Tuple

from ingest_doctor import model
from ingest_doctor.evidence import (Evidence, PipelineSetLoad, ProcessorCpu, QueueSample, RegexCpu, TcpinConnection,
                                   TcpoutConnection, ThreadSample, Thruput)
from ingest_doctor.read.logtime import WindowedParser, parse_prefix
from ingest_doctor.threadnames import pool_name

SOURCE = "logs/metrics.log"
DEFAULT_INTERVAL_S = 30.0

_KV = re.compile(r'([\w.:-]+)=("[^"]*"|[^,]*)')
_DUTY_SKIP = {"group", "name", "ingest_pipe", "thread", "ratio"}


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


def parse_kv(body: str) -> Dict[str, str]:
    """Every `key=value` of a line's body (from `group=`), keys and values stripped, the last of a key kept."""
    if '"' not in body:
        out = {}
        for part in body.split(", "):
            k, sep, v = part.partition("=")
            if sep:
                out[k.strip()] = v.strip()
        return out
    return {k: v.strip('"') for k, v in _KV.findall(body)}


def pick(text: str, start: int, keys: Tuple[Tuple[str, str, int], ...]) -> Dict[str, str]:
    """parse_kv(text[start:]) cut to `keys` (a key it lacks is absent), found in place: a busy indexer's
    tcpin_connections line has some 45 pairs of which a handler reads eight. `keys` as `reads` makes
    them: (key, ", key=", len(key) + 3). Quoted values: parse_kv."""
    if text.find('"', start) >= 0:
        return parse_kv(text[start:])
    out = {}
    for key, plain, n in keys:
        last = text.rfind(key, start)
        if last < 0:
            continue
        q = last - 2
        if q >= start and text.startswith(plain, q):
            # The usual case: the last occurrence of the name is a part's name, spelled plainly.
            e = text.find(", ", q + n)
            out[key] = (text[q + n:e] if e >= 0 else text[q + n:]).strip()
        else:
            v = _value(text, start, key)
            if v is not None:
                out[key] = v
    return out


def _value(text: str, start: int, key: str) -> Optional[str]:
    """The value parse_kv(text[start:]) gives `key`: that of the last `, `-separated part whose name,
    stripped, is `key`. Scans the occurrences of `key` from the end; one that is not a part's name (inside
    another name or a value) is passed over."""
    n, size = len(key), len(text)
    end = size
    while True:
        q = text.rfind(key, start, end)
        if q < 0:
            return None
        eq = q + n
        if not (eq < size and text[eq] == "=" and (q == start or (q - 2 >= start and text[q - 2:q] == ", "))):
            eq = _name_at(text, start, q, n)      # the rare spellings: whitespace around the name
            if eq < 0:
                end = q + n - 1
                continue
        e = text.find(", ", eq + 1)
        return (text[eq + 1:e] if e >= 0 else text[eq + 1:]).strip()


def _name_at(text: str, start: int, q: int, n: int) -> int:
    """Where the `=` ending the part name at text[q:q+n] stands, when whitespace alone stands between
    them and between the part's start and q; -1 when text[q:q+n] is not a part's name."""
    eq = q + n
    while eq < len(text) and text[eq].isspace():
        eq += 1
    if eq >= len(text) or text[eq] != "=":
        return -1
    b = q
    while b > start and text[b - 1].isspace():
        b -= 1
    if b == start or (b < q and text[b - 1] == "," and text[b] == " "):
        return eq
    return -1


def _num(v: Optional[str]) -> Optional[float]:
    if v is None:
        return None
    try:
        f = float(v.strip('"'))
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def _pset(kv: Dict[str, str]) -> Optional[int]:
    v = kv.get("ingest_pipe")
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        return None


def reads(*keys: str):
    """A group handler reads these keys of its line (none named: every key)."""
    def mark(fn):
        fn.reads = tuple((k, ", %s=" % k, len(k) + 3) for k in keys)
        return fn
    return mark


# No line for this many metrics intervals (every group is written each interval) is a gap.
GAP_INTERVALS = 4


def _hms(t: float) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(t))


class MetricsLogParser(WindowedParser):
    """Feed lines one at a time; only `since <= time <= until` lines are kept."""
    SOURCE = SOURCE
    STATS = Stats

    def __init__(self, evidence: Evidence, since: Optional[float] = None, until: Optional[float] = None,
                 source: str = SOURCE):
        super().__init__(evidence, since, until, source)
        self._times: List[float] = []      # distinct times of group=pipeline batches, to measure the interval
        self._cpu: List[ProcessorCpu] = []
        self._seen: Set[int] = set()       # hashes of the lines used, to count a repeated line once
        self._seconds: Set[int] = set()    # the seconds lines were written in, to name a gap
        self._latest: Optional[float] = None
        self._prefix: Optional[str] = None         # the last line's first 29 characters, and their time
        self._prefix_t: Optional[float] = None
        self._second_of: Optional[float] = None    # the last time whose second is in _seconds
        self._src = {g: "%s group=%s" % (source, g) for g in
                     ("queue", "pipeline", "dutycycle", "pipelineset", "thruput", "regex_cpu",
                      "tcpout_connections", "tcpin_connections")}

    def feed(self, line: str) -> None:
        st = self.stats
        st.lines += 1
        i = line.find(" - group=")
        if i < 0:
            if line.strip():
                st.garbage += 1
            return
        # The time is a function of the line's first 29 characters (date, time, millis, zone), which
        # whole batches of lines share: parsed once a batch.
        prefix = line[:29]
        if prefix == self._prefix:
            t = self._prefix_t
        else:
            t, _ = parse_prefix(line)
            self._prefix, self._prefix_t = prefix, t
        if self.outside(t):
            return
        text = line.rstrip("\r\n")
        h = hash(text)
        if h in self._seen:
            st.duplicates += 1
            return
        self._seen.add(h)
        if t is not None:
            if t != self._second_of:
                self._second_of = t
                self._seconds.add(int(t))
            if self._latest is not None and t < self._latest - 1:
                st.out_of_order += 1
            elif self._latest is None or t > self._latest:
                self._latest = t
        # The group, read in place: the line's body is copied only for the groups the rules read.
        end = line.find(",", i + 9)
        group = (line[i + 9:end] if end > 0 else line[i + 9:]).strip()
        handler = _HANDLERS.get(group)
        if handler is None:
            # Decide on the group before reading the line's pairs: most lines of a busy indexer
            # (per_*_thruput for hosts, ...) are not used.
            if group == "per_sourcetype_thruput":
                handler = MetricsLogParser._per_thruput
            elif group.startswith("per_") and group.endswith("_regex_cpu"):
                handler = MetricsLogParser._regex_cpu
            else:
                st.unknown_groups += 1
                return
        # Only the keys the handler reads (all of them for the wide dutycycle form).
        keys = handler.reads
        kv = pick(text, i + 3, keys) if keys else parse_kv(text[i + 3:])
        if handler(self, t, kv):
            st.used += 1
        else:
            st.garbage += 1

    def feed_all(self, lines: Iterable[str]) -> "MetricsLogParser":
        for line in lines:
            self.feed(line)
        return self

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

    # -- groups: each handler names the keys it reads (`reads`), the only ones taken from its line
    @reads("name", "max_size_kb", "current_size_kb", "max_size", "current_size", "blocked", "ingest_pipe")
    def _queue(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        name = kv.get("name")
        if not name:
            return False
        if "max_size_kb" in kv:
            mx, cur = _num(kv.get("max_size_kb")), _num(kv.get("current_size_kb"))
        else:
            mx, cur = _num(kv.get("max_size")), _num(kv.get("current_size"))
        blocked = kv.get("blocked", "").lower() == "true"
        if not mx or cur is None:
            if not blocked:
                return False
            fill = 100.0
        else:
            fill = cur / mx * 100.0
        self.ev.queues.append(QueueSample(t, model.canonical_queue(name), _pset(kv), fill, "sample",
                                          blocked, self._src["queue"]))
        return True

    @reads("cpu_seconds", "name", "processor", "executes", "write_cpu_seconds", "service_cpu_seconds", "ingest_pipe")
    def _pipeline(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        cpu = _num(kv.get("cpu_seconds"))
        if cpu is None or "name" not in kv or "processor" not in kv:
            return False
        if t is not None and (not self._times or self._times[-1] != t):
            if not self._times or t - self._times[-1] >= 1:
                self._times.append(t)
        p = ProcessorCpu(t, kv["name"].lower(), kv["processor"].lower(), cpu, DEFAULT_INTERVAL_S, _pset(kv),
                         _num(kv.get("executes")), _num(kv.get("write_cpu_seconds")),
                         _num(kv.get("service_cpu_seconds")), self._src["pipeline"])
        self.ev.processors.append(p)
        self._cpu.append(p)
        return True

    @reads()        # every key: the wide form's names are thread names
    def _dutycycle(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        pset = _pset(kv)
        src = self._src["dutycycle"]
        if "thread" in kv:
            ratio = _num(kv.get("ratio"))
            if ratio is None:
                return False
            self.ev.threads.append(ThreadSample(t, pool_name(kv["thread"].lower()), ratio * 100.0, pset, "sample",
                                                src))
            return True
        added = False
        for k, v in kv.items():
            if k in _DUTY_SKIP:
                continue
            ratio = _num(v)
            if ratio is None:
                continue
            self.ev.threads.append(ThreadSample(t, k.lower(), ratio * 100.0, pset, "sample", src))
            added = True
        return added

    @reads("dutycycle_ratio", "ingest_pipe", "busiest_thread_name", "share", "requests_last_period")
    def _pipelineset(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        ratio = _num(kv.get("dutycycle_ratio"))
        if ratio is None:
            return False
        pset = _pset(kv)
        self.ev.pipelinesets.append(PipelineSetLoad(
            t, pset if pset is not None else 0, (kv.get("busiest_thread_name") or "").lower(), ratio * 100.0,
            _num(kv.get("share")), _num(kv.get("requests_last_period")), self._src["pipelineset"]))
        return True

    @reads("instantaneous_kbps", "name", "instantaneous_eps", "ingest_pipe")
    def _thruput(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        kbps = _num(kv.get("instantaneous_kbps"))
        if kbps is None or "name" not in kv:
            return False
        self.ev.thruput.append(Thruput(t, "thruput", kv["name"], kbps, _num(kv.get("instantaneous_eps")),
                                       _pset(kv), self._src["thruput"]))
        return True

    def _series(self, kv: Dict[str, str], value_key: str, suffix: str) -> Optional[Tuple[float, str, str, str]]:
        """A group=per_<kind><suffix> line's (value, series, kind, source); None without either."""
        value, series = _num(kv.get(value_key)), kv.get("series")
        if value is None or series is None:
            return None
        group = kv["group"]
        src = self._src.get(group) or self._src.setdefault(group, "%s group=%s" % (self.source, group))
        return value, series, group[len("per_"):-len(suffix)], src

    @reads("group", "kbps", "series", "eps", "ingest_pipe", "avg_age")
    def _per_thruput(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        got = self._series(kv, "kbps", "_thruput")
        if got is None:
            return False
        kbps, series, kind, src = got
        self.ev.thruput.append(Thruput(t, kind, series, kbps, _num(kv.get("eps")), _pset(kv), src,
                                       _num(kv.get("avg_age"))))
        return True

    @reads("group", "cpu", "series", "ingest_pipe")
    def _regex_cpu(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        got = self._series(kv, "cpu", "_regex_cpu")
        if got is None:
            return False
        cpu, series, kind, src = got
        self.ev.regex_cpu.append(RegexCpu(t, series, cpu, kind, _pset(kv), src))
        return True

    @reads("_tcp_KBps", "name", "destIp", "destPort")
    def _tcpout(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        kbps = _num(kv.get("_tcp_KBps"))
        name = kv.get("name", "")
        group, _, rest = name.partition(":")
        receiver = "%s:%s" % (kv["destIp"], kv.get("destPort", "")) if kv.get("destIp") else \
            ":".join(rest.split(":")[:2])
        if kbps is None or not receiver:
            return False
        self.ev.tcpout.append(TcpoutConnection(t, receiver.rstrip(":"), kbps, group, self._src["tcpout_connections"]))
        return True

    @reads("sourceIp", "sourceHost", "hostname", "guid", "fwdType", "_tcp_KBps", "destPort", "lastIndexer")
    def _tcpin(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        ip = kv.get("sourceIp") or kv.get("sourceHost") or ""
        if not ip:
            return False
        self.ev.tcpin.append(TcpinConnection(
            t, ip, kv.get("hostname", ""), kv.get("sourceHost", ""), kv.get("guid", ""), kv.get("fwdType", ""),
            _num(kv.get("_tcp_KBps")) or 0.0, kv.get("destPort", ""), kv.get("lastIndexer", ""),
            self._src["tcpin_connections"]))
        return True


_HANDLERS = {
    "queue": MetricsLogParser._queue,
    "pipeline": MetricsLogParser._pipeline,
    "dutycycle": MetricsLogParser._dutycycle,
    "pipelineset": MetricsLogParser._pipelineset,
    "thruput": MetricsLogParser._thruput,
    "tcpout_connections": MetricsLogParser._tcpout,
    "tcpin_connections": MetricsLogParser._tcpin,
}


def parse_lines(lines: Iterable[str], evidence: Optional[Evidence] = None, since: Optional[float] = None,
                until: Optional[float] = None, source: str = SOURCE) -> Evidence:
    """Convenience: parse an iterable of lines (a file object streams) into an Evidence."""
    ev = evidence if evidence is not None else Evidence()
    p = MetricsLogParser(ev, since, until, source)
    p.feed_all(lines)
    p.finish()
    return ev
