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

Lines are read a batch at a time, as splunkd writes them: runs of lines sharing their timestamp
(placed in the window and in time order once a run), and within a run, runs of one group's lines
in one key order, whose pairs one regex match a line takes (read/kvlayout.py: a layout learnt from
a line read by pick) and whose reader takes them as rows, without a dict or a call a line. A line
no layout matches is read alone by pick, which gives what parse_kv does.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby, islice, repeat
from operator import getitem
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from ingest_doctor import model
from ingest_doctor.evidence import (Evidence, PipelineSetLoad, ProcessorCpu, QueueSample, RegexCpu, TcpinConnection,
                                   TcpoutConnection, ThreadSample, Thruput)
from ingest_doctor.read.kvlayout import Layout, Layouts
from ingest_doctor.read.logtime import WindowedParser, parse_prefix
from ingest_doctor.threadnames import pool_name

SOURCE = "logs/metrics.log"
DEFAULT_INTERVAL_S = 30.0

_KV = re.compile(r'([\w.:-]+)=("[^"]*"|[^,]*)')
_DUTY_SKIP = {"group", "name", "ingest_pipe", "thread", "ratio"}
_NO_LAYOUT = Layout(re.compile(r"(?!)"), ())     # matches no line
_HEAD = slice(0, 29)        # a line's date, time, millis and zone
BATCH = 2048                # lines read together


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


Rows = Iterable[Tuple[Optional[str], ...]]


class GroupReader:
    """Reads a group's lines: `rows(parser, t, rows)` reads lines of one time t, each given as the values
    of `keys` (None: absent; every pair, a dict, when `keys` is empty), and says how many it used.
    Called with one line's pairs, it reads that line."""

    def __init__(self, keys: Tuple[str, ...], rows: Callable[..., int]):
        self.keys = keys
        self.reads = _spelled(keys)     # as pick takes them
        self.rows = rows

    def row(self, kv: Dict[str, str]) -> Any:
        return tuple(map(kv.get, self.keys)) if self.keys else kv

    def __call__(self, parser: "MetricsLogParser", t: Optional[float], kv: Dict[str, str]) -> bool:
        return self.rows(parser, t, [self.row(kv)]) == 1


def reads(*keys: str) -> Callable[[Callable[..., int]], GroupReader]:
    """A group reader of these keys of its lines (none named: every key)."""
    if len(keys) == 1:
        raise ValueError("a reader of one key")     # its rows would be values, not tuples (Match.group)
    return lambda rows: GroupReader(keys, rows)


@lru_cache(maxsize=None)
def _spelled(keys: Tuple[str, ...]) -> Tuple[Tuple[str, str, int], ...]:
    return tuple((k, ", %s=" % k, len(k) + 3) for k in keys)


def read_pairs(text: str, start: int, keys: Tuple[str, ...]) -> Dict[str, str]:
    """parse_kv(text[start:]) cut to `keys` (every pair when `keys` is empty), read in place."""
    return pick(text, start, _spelled(keys)) if keys else parse_kv(text[start:])


# No line for this many metrics intervals (every group is written each interval) is a gap.
GAP_INTERVALS = 4


def _hms(t: float) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(t))


class MetricsLogParser(WindowedParser):
    """Feed lines (`feed` one, `feed_all` many, in order); only `since <= time <= until` lines are kept."""
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
        # The batch the last line was in: its first 29 characters, its time, in the window, out of order.
        self._prefix: Optional[str] = None
        self._t: Optional[float] = None
        self._inside = True
        self._late = False
        self._layouts = Layouts(read_pairs)
        self._last, self._last_reader = _NO_LAYOUT, None    # the layout of the last line read by one
        self._src = {g: "%s group=%s" % (source, g) for g in
                     ("queue", "pipeline", "dutycycle", "pipelineset", "thruput", "regex_cpu",
                      "tcpout_connections", "tcpin_connections")}

    def feed(self, line: str) -> None:
        """One line (its line end optional)."""
        self._feed_batch([line])

    def feed_all(self, lines: Iterable[str]) -> "MetricsLogParser":
        """Lines in order (their line ends optional), BATCH at a time."""
        it = iter(lines)
        batch = list(islice(it, BATCH))
        while batch:
            self._feed_batch(batch)
            batch = list(islice(it, BATCH))
        return self

    def _feed_batch(self, lines: List[str]) -> None:
        """Lines in order: what each line needs (its end stripped, where its group starts, its first 29
        characters) taken for the whole batch at once, then a run of lines sharing their time at a time."""
        self.stats.lines += len(lines)
        texts = list(map(str.rstrip, lines, repeat("\r\n")))
        marks = list(map(str.find, texts, repeat(" - group=")))
        if min(marks) < 0:
            texts, marks = self._metrics_lines(texts, marks)
        done = 0
        for _, run in groupby(map(getitem, texts, repeat(_HEAD))):
            n = len(list(run))
            self._feed_run(texts[done:done + n], marks[done:done + n])
            done += n

    def _metrics_lines(self, texts: List[str], marks: List[int]) -> Tuple[List[str], List[int]]:
        """The metrics lines (with ` - group=`) of a batch; the others not blank are garbage."""
        kept = [k for k, i in enumerate(marks) if i >= 0]
        self.stats.garbage += sum(1 for k, i in enumerate(marks) if i < 0 and texts[k].strip())
        return [texts[k] for k in kept], [marks[k] for k in kept]

    def _feed_run(self, texts: List[str], marks: List[int]) -> None:
        """Metrics lines sharing their first 29 characters, and so their time (date, time, millis, zone):
        placed in the window and in time order once; a line read before counted once."""
        st = self.stats
        if texts[0][:29] != self._prefix:
            self._start_batch(texts[0])
        if not self._inside:
            st.outside_window += len(texts)
            return
        texts, marks = self._fresh(texts, marks)
        if self._late:
            st.out_of_order += len(texts)
        self._read_lines(texts, [i + 3 for i in marks])

    def _fresh(self, texts: List[str], marks: List[int]) -> Tuple[List[str], List[int]]:
        """The lines not read before (by their hash), noted as read; the others counted as duplicates."""
        hashes = list(map(hash, texts))
        seen = self._seen
        if seen.isdisjoint(hashes):
            before = len(seen)
            seen.update(hashes)
            if len(seen) - before == len(hashes):
                return texts, marks
            seen.difference_update(hashes)      # a line repeated within the batch: one at a time
        kept = []
        for k, h in enumerate(hashes):
            if h in seen:
                self.stats.duplicates += 1
            else:
                seen.add(h)
                kept.append(k)
        return [texts[k] for k in kept], [marks[k] for k in kept]

    def _read_lines(self, texts: List[str], starts: List[int]) -> None:
        """Each line to its group's reader, in order: a line of the layout the last line read by one had,
        and the lines after it of that layout, by one match each; any other line by its group."""
        done, n = 0, len(texts)
        while done < n:
            layout, reader = self._last, self._last_reader
            found = layout.run(texts, starts, done)
            if found:
                if reader is None:
                    self.stats.unknown_groups += len(found)
                else:
                    self._use(len(found), reader.rows(self, self._t, layout.rows(found)))
                done += len(found)
            elif not self._take_layout(texts[done], starts[done]):
                self._read_alone(texts[done], starts[done])
                done += 1

    def _take_layout(self, text: str, start: int) -> bool:
        """True when the line's group has a layout it matches, now the last layout."""
        group = _group(text, start)
        reader = _reader(group)
        if reader is not None:
            layout = self._layouts.find(group, text, start)
        else:
            layout = _unread(group)
            if not layout.match(text, start):
                return False
        if layout is None:
            return False
        self._last, self._last_reader = layout, reader
        return True

    def _read_alone(self, text: str, start: int) -> None:
        """A line no layout matches, by the full reader (pick); its layout learnt for the next."""
        group = _group(text, start)
        reader = _reader(group)
        if reader is None:
            self.stats.unknown_groups += 1
        else:
            self._use(1, reader(self, self._t, self._layouts.read(group, text, start, reader.keys)))

    def _use(self, lines: int, used: int) -> None:
        self.stats.used += used
        self.stats.garbage += lines - used

    def _start_batch(self, line: str) -> None:
        """The time of the lines that start as `line` does: in the window, and later than the latest
        line read so far or not (the lines of one batch share their time)."""
        t, _ = parse_prefix(line)
        self._prefix, self._t = line[:29], t
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

    # -- groups: each reader names the keys it reads (`reads`), the only ones taken from its lines, and
    # reads lines of one time, each as the values of those keys (None: absent); it says how many it used.
    @reads("name", "max_size_kb", "current_size_kb", "max_size", "current_size", "blocked", "ingest_pipe")
    def _queue(self, t: Optional[float], rows: Rows) -> int:
        out, src = self.ev.queues, self._src["queue"]
        used = len(out)
        for name, max_kb, cur_kb, max_b, cur_b, blocked_v, pipe in rows:
            if not name:
                continue
            mx, cur = (_num(max_kb), _num(cur_kb)) if max_kb is not None else (_num(max_b), _num(cur_b))
            blocked = (blocked_v or "").lower() == "true"
            if not mx or cur is None:
                if not blocked:
                    continue
                fill = 100.0
            else:
                fill = cur / mx * 100.0
            out.append(QueueSample(t, model.canonical_queue(name), _pipe(pipe), fill, "sample", blocked, src))
        return len(out) - used

    @reads("cpu_seconds", "name", "processor", "executes", "write_cpu_seconds", "service_cpu_seconds", "ingest_pipe")
    def _pipeline(self, t: Optional[float], rows: Rows) -> int:
        used, src = len(self._cpu), self._src["pipeline"]
        for cpu_v, name, processor, executes, write_cpu, service_cpu, pipe in rows:
            cpu = _num(cpu_v)
            if cpu is None or name is None or processor is None:
                continue
            if t is not None and (not self._times or self._times[-1] != t):
                if not self._times or t - self._times[-1] >= 1:
                    self._times.append(t)
            p = ProcessorCpu(t, name.lower(), processor.lower(), cpu, DEFAULT_INTERVAL_S, _pipe(pipe), _num(executes),
                             _num(write_cpu), _num(service_cpu), src)
            self.ev.processors.append(p)
            self._cpu.append(p)
        return len(self._cpu) - used

    @reads()        # every key: the wide form's names are thread names; its rows are each line's pairs
    def _dutycycle(self, t: Optional[float], rows: Iterable[Dict[str, str]]) -> int:
        return sum(self._dutycycle_line(t, kv) for kv in rows)

    def _dutycycle_line(self, t: Optional[float], kv: Dict[str, str]) -> bool:
        pset = _pipe(kv.get("ingest_pipe"))
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
    def _pipelineset(self, t: Optional[float], rows: Rows) -> int:
        out, src = self.ev.pipelinesets, self._src["pipelineset"]
        used = len(out)
        for ratio_v, pipe, busiest, share, requests in rows:
            ratio = _num(ratio_v)
            if ratio is None:
                continue
            pset = _pipe(pipe)
            out.append(PipelineSetLoad(t, pset if pset is not None else 0, (busiest or "").lower(), ratio * 100.0,
                                       _num(share), _num(requests), src))
        return len(out) - used

    @reads("instantaneous_kbps", "name", "instantaneous_eps", "ingest_pipe")
    def _thruput(self, t: Optional[float], rows: Rows) -> int:
        out, src = self.ev.thruput, self._src["thruput"]
        used = len(out)
        for kbps_v, name, eps, pipe in rows:
            kbps = _num(kbps_v)
            if kbps is None or name is None:
                continue
            out.append(Thruput(t, "thruput", name, kbps, _num(eps), _pipe(pipe), src))
        return len(out) - used

    def _series_of(self, group: str, suffix: str) -> Tuple[str, str]:
        """A group=per_<kind><suffix> line's kind and source."""
        src = self._src.get(group) or self._src.setdefault(group, "%s group=%s" % (self.source, group))
        return group[len("per_"):-len(suffix)], src

    @reads("group", "kbps", "series", "eps", "ingest_pipe", "avg_age")
    def _per_thruput(self, t: Optional[float], rows: Rows) -> int:
        out = self.ev.thruput
        used = len(out)
        for group, kbps_v, series, eps, pipe, age in rows:
            kbps = _num(kbps_v)
            if kbps is None or series is None:
                continue
            kind, src = self._series_of(group, "_thruput")
            out.append(Thruput(t, kind, series, kbps, _num(eps), _pipe(pipe), src, _num(age)))
        return len(out) - used

    @reads("group", "cpu", "series", "ingest_pipe")
    def _regex_cpu(self, t: Optional[float], rows: Rows) -> int:
        out = self.ev.regex_cpu
        used = len(out)
        for group, cpu_v, series, pipe in rows:
            cpu = _num(cpu_v)
            if cpu is None or series is None:
                continue
            kind, src = self._series_of(group, "_regex_cpu")
            out.append(RegexCpu(t, series, cpu, kind, _pipe(pipe), src))
        return len(out) - used

    @reads("_tcp_KBps", "name", "destIp", "destPort")
    def _tcpout(self, t: Optional[float], rows: Rows) -> int:
        out, src = self.ev.tcpout, self._src["tcpout_connections"]
        used = len(out)
        for kbps_v, name, dest_ip, dest_port in rows:
            kbps = _num(kbps_v)
            group, _, rest = (name or "").partition(":")
            receiver = "%s:%s" % (dest_ip, dest_port or "") if dest_ip else ":".join(rest.split(":")[:2])
            if kbps is None or not receiver:
                continue
            out.append(TcpoutConnection(t, receiver.rstrip(":"), kbps, group, src))
        return len(out) - used

    @reads("sourceIp", "sourceHost", "hostname", "guid", "fwdType", "_tcp_KBps", "destPort", "lastIndexer")
    def _tcpin(self, t: Optional[float], rows: Rows) -> int:
        out, src = self.ev.tcpin, self._src["tcpin_connections"]
        used = len(out)
        for ip, host, hostname, guid, fwd_type, kbps, dest_port, last_indexer in rows:
            ip = ip or host or ""
            if ip:
                out.append(TcpinConnection(t, ip, hostname or "", host or "", guid or "", fwd_type or "",
                                           _num(kbps) or 0.0, dest_port or "", last_indexer or "", src))
        return len(out) - used


_HANDLERS = {
    "queue": MetricsLogParser._queue,
    "pipeline": MetricsLogParser._pipeline,
    "dutycycle": MetricsLogParser._dutycycle,
    "pipelineset": MetricsLogParser._pipelineset,
    "thruput": MetricsLogParser._thruput,
    "tcpout_connections": MetricsLogParser._tcpout,
    "tcpin_connections": MetricsLogParser._tcpin,
}


def _group(text: str, start: int) -> str:
    """The group of a line whose body (`group=...`) starts at `start`: read in place."""
    end = text.find(",", start + 6)
    return (text[start + 6:end] if end > 0 else text[start + 6:]).strip()


def _reader(group: str) -> Optional[GroupReader]:
    """The reader of a group's lines; None for a group not read. Decided before reading the line's
    pairs: most lines of a busy indexer (per_*_thruput for hosts, ...) are not read."""
    reader = _HANDLERS.get(group)
    if reader is None:
        if group == "per_sourcetype_thruput":
            return MetricsLogParser._per_thruput
        if group.startswith("per_") and group.endswith("_regex_cpu"):
            return MetricsLogParser._regex_cpu
    return reader


@lru_cache(maxsize=64)
def _unread(group: str) -> Layout:
    """The layout of the lines of a group not read: its name alone (the rest of the line is not read)."""
    return Layout(re.compile(re.escape("group=" + group) + r"(?:,|\Z)"), ())


def parse_lines(lines: Iterable[str], evidence: Optional[Evidence] = None, since: Optional[float] = None,
                until: Optional[float] = None, source: str = SOURCE) -> Evidence:
    """Convenience: parse an iterable of lines (a file object streams) into an Evidence."""
    ev = evidence if evidence is not None else Evidence()
    p = MetricsLogParser(ev, since, until, source)
    p.feed_all(lines)
    p.finish()
    return ev
