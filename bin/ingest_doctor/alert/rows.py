"""Result rows of our saved searches -> Evidence, one per host.

Each alert search ends with the same columns (README, section Alerts): a
`signal` naming what the row measures, `host`, and the numbers of that signal.
Rows carry raw measurements (recent samples, window averages, counts), never a
verdict: the diagnosis core judges them with the same thresholds the searches
used, so the finding, its severity and its recommendations come from one place.

Rows are self-contained, so the action works whether splunkd runs it once for
all results (digest mode) or once per result (per-result throttling).

One signal is not a measurement: `finding` rows carry a finding the collector
already judged (its `ingest_doctor:finding` event, handed over by the search
"Ingest Doctor - Findings - Collector findings"). They are not judged again
(`rows_to_reported`): the collector judged them with the same thresholds.
Nor is `stale`: the housekeeping search "Ingest Doctor - Findings - Resolve findings
no longer seen" lists the open records it found unseen; the action resolves each one
under the findings store's lock if its record is still unseen then (`Stale`).
"""
from __future__ import annotations

import json
import math
import re
import time as _time
from dataclasses import dataclass, replace
from itertools import repeat
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

from ingest_doctor import model
from ingest_doctor.alert.payload import BadInput
from ingest_doctor.alert.results import Row
from ingest_doctor.alert.samples import Interned, Lean, Samples
from ingest_doctor.evidence import (Evidence, HecError, HecProbe, IndexerStatus, LogSignal, TcpinConnection,
                                   TcpoutConnection, ThreadSample)
from ingest_doctor.deployment.causes import REPLICATION_THREAD
from ingest_doctor.engine import silence
from ingest_doctor.engine.finite import samples_finite
from ingest_doctor.findings import EvidenceItem, Finding, Recommendation
from ingest_doctor.read import splunkdlog

# Columns every alert may output (for the admin reading the alert or for throttling).
COMMON = ("signal", "host", "component", "pipeline_set", "stage", "label", "bottleneck", "source",
          "window_min", "span_s", "last_time", "threshold", "description")


@dataclass(frozen=True)
class Signal:
    name: str
    required: Tuple[str, ...]
    optional: Tuple[str, ...]


SIGNALS: Dict[str, Signal] = {s.name: s for s in (
    # one thread on one host (and pipeline set): window average and every sample of the window,
    # `<epoch>:<busy %>` in any order
    Signal("thread_busy", ("thread", "busy_pct"), ("samples", "samples_over")),
    # one pipeline set on one host: every chain queue seen, aligned multivalue columns;
    # `recent` holds each queue's samples of the window as "<epoch>:<fill>[b] ..." (b: blocked=true)
    Signal("queue_fill", ("queue", "fill_pct"), ("recent", "blocked_samples")),
    # reply=9 count from splunkd.log; the collector's HEC health probes as `<epoch>:<code>`
    # (health_codes: the unhealthy codes seen, for the admin)
    Signal("hec_busy", (), ("busy_replies", "health_codes", "health_samples")),
    # HEC request latency probes from the collector, `<epoch>:<ms>`
    Signal("hec_latency", ("latency_ms",), ("samples", "status")),
    # HttpListener "Can't handle request" messages
    Signal("hec_listener", ("overwhelmed",), ("message",)),
    # index processor state: throttled samples from the collector or REST
    Signal("indexer_throttled", ("status",), ("reason", "samples")),
    # a finding the collector reported: its event (`finding`, the JSON of docs/events.md), whether it
    # is open or resolved, and the event's time (last_time)
    Signal("finding", ("finding",), ("id", "severity", "status", "detected_by")),
    # a receiver's metrics.log group=tcpin_connections, one row per sender seen: the sender's hostname=
    # (peer), sourceIp= (peer_ip), guid=, fwdType= and its mean _tcp_KBps (the deployment's topology)
    Signal("tcpin", ("peer",), ("peer_ip", "guid", "fwd_type", "kbps")),
    # a sender's metrics.log group=tcpout_connections, one row per receiver: destIp:destPort (dest), _tcp_KBps
    Signal("tcpout", ("dest",), ("kbps",)),
    # a cluster peer's splunkd.log `replication queue for peer=<guid> full` lines (issue 37): the target's guid
    # (peer), the lines of the window, and the target's server name as the search head's search peers list
    # it (target; empty when that list does not name the guid)
    Signal("replication", ("peer", "lines"), ("target",)),
    # ThruputProcessor "Current data throughput (<kbps> kb/s) has reached maxKBps" lines of one host (issue 37):
    # the lines of the window and the rate the newest states
    Signal("thruput_capped", ("lines",), ("kbps",)),
    # an instance that stopped reporting (engine/silence.py): why (connected_idle | gone), when it was
    # last heard, what its receivers got from it over the window; `threshold` is silence_kb
    Signal("silence", ("reason", "last_heard"), ("silent_min", "kb_recent", "receivers")),
    # an open record of the findings store the housekeeping search found unseen for resolve_after_min:
    # its id and the last_seen the search read (the action decides on the record as it is under the lock)
    Signal("stale", ("id", "last_seen"), ()),
)}
REPORTED = "finding"
SILENCE = "silence"
STALE = "stale"

KNOWN_COLUMNS = frozenset(COMMON).union(*(set(s.required) | set(s.optional) for s in SIGNALS.values()))

MAX_COUNTED = 10000     # reply=9 errors turned into HecError items per row (the count is what matters)
_SPLUNKD = "logs/splunkd.log"
_METRICS = "logs/metrics.log"


class RowError(BadInput):
    pass


def _fail(row: Row, msg: str) -> RowError:
    return RowError("result %d: %s" % (row.line, msg))


def _num(row: Row, name: str, value: Optional[str], required: bool = False) -> Optional[float]:
    # Called ~8 times a row: the value stripped once, finiteness by math.isfinite (no inf made a call).
    text = "" if value is None else value.strip()
    if not text:
        if required:
            raise _fail(row, "column %s is empty" % name)
        return None
    try:
        f = float(text)
    except ValueError:
        raise _fail(row, "column %s=%r is not a number" % (name, value)) from None
    if not math.isfinite(f):
        raise _fail(row, "column %s=%r is not a finite number" % (name, value))
    return f


_TIMED = re.compile(r"^(?:(?P<t>[0-9]+(?:\.[0-9]+)?):)?(?P<v>-?[0-9]+(?:\.[0-9]+)?)(?P<b>b?)$")
_TOKEN = r"(?:[0-9]+(?:\.[0-9]+)?:)?-?[0-9]+(?:\.[0-9]+)?b?"       # _TIMED without its groups (faster)
_TIMED_ALL = re.compile(r"%s(?: %s)*" % (_TOKEN, _TOKEN))

Series = Tuple[List[float], List[float], Optional[bytes]]     # times, values, blocked marks (None: none)

_SAMPLE_CHARS = b"0123456789.:-b "
_NOT_COLONS = b"0123456789.-b"
# A dot without a digit on one side: float() reads "1." and ".5", the tokens' pattern does not.
_LONE_DOTS = (b".:", b". ", b".b", b":.", b" .", b"-.")


def _read_timed(joined: str) -> Optional[List[float]]:
    """The numbers of `joined` (time, value, time, value, ...; b marks dropped) when it matches _TIMED_ALL
    and every token has its time; None otherwise, the caller then reads it by the pattern. The same
    verdict as the pattern's, by byte counts and substring tests (C speed, a tenth of the match): one
    colon a token, single spaces, a dot between digits, a minus only opening a value, a b only ending
    a token, and what is left float() reads exactly as the pattern's numbers or refuses.

    Kept for the action's 10,000-host budget (20 s, docs/performance.md): the pattern instead cost 20% more
    instructions reading the rows (callgrind, 500 hosts), about 0.85 s at 10,000 hosts."""
    try:
        raw = joined.encode("ascii")
    except UnicodeEncodeError:
        return None
    n = raw.count(b" ") + 1
    if raw.translate(None, _SAMPLE_CHARS) or raw.translate(None, _NOT_COLONS) != b": " * (n - 1) + b":":
        return None
    if b"." in raw and (raw[:1] == b"." or raw[-1:] == b"." or any(p in raw for p in _LONE_DOTS)):
        return None
    if raw.count(b"-") != raw.count(b":-"):
        return None
    if b"b" in raw:
        if raw.count(b"b") != raw.count(b"b ") + raw.endswith(b"b"):
            return None
        joined = joined.replace("b", "")
    try:
        return _floats(joined.replace(":", " ").split(" "))
    except ValueError:      # an empty number, "1.2.3", "--1", "1-2": the pattern refuses them too
        return None


# Number texts read so far (a results file repeats its sample times and values: each row's queues share
# their times, and rows share the search's time grid): looked up, not parsed again. Bounded: emptied when full.
_NUMBERS: Dict[str, float] = {}
_NUMBERS_MAX = 4096


def _floats(texts: List[str]) -> List[float]:
    """list(map(float, texts)), the same numbers (and the same ValueError), each distinct text parsed once.

    Kept for the action's 10,000-host budget (docs/performance.md) while the action is at or over it:
    list(map(float)) cost 4.8% more instructions reading the rows (callgrind, 500 hosts), about 0.2 s."""
    try:
        return list(map(_NUMBERS.__getitem__, texts))
    except KeyError:
        pass
    if len(_NUMBERS) > _NUMBERS_MAX:
        _NUMBERS.clear()
    nums = list(map(float, texts))
    _NUMBERS.update(zip(texts, nums))
    return nums


def _timed(row: Row, name: str, tokens: List[str], ctx: "Context") -> Series:
    """Samples as the searches write them, `<epoch>:<value>[b]` (b: blocked=true), in any order.

    Plain `<value>` tokens (no time) are taken as oldest first, `span_s` apart, ending at last_time.
    The result is sorted oldest first (stable: equal times keep their order), as the core expects.
    """
    return _timed_text(row, name, [t.strip() for t in tokens], ctx, tokens)


def _timed_text(row: Row, name: str, tokens: List[str], ctx: "Context", shown: Optional[List[str]] = None) -> Series:
    """_timed over tokens without surrounding whitespace (`shown`: as the row wrote them, for the error):
    one C-speed match checks them all, then the numbers are read in one pass, never a token at a time.
    Kept for the action's 10,000-host budget (docs/performance.md): the token loop (a match a token) cost
    17% more instructions reading the rows (callgrind, 500 hosts), about 0.7 s at 10,000 hosts."""
    n = len(tokens)
    if not n:
        return [], [], None
    joined = " ".join(tokens)
    nums = _read_timed(joined) if joined.count(" ") == n - 1 else None
    if nums is not None:        # every token timed, as the searches write them
        blocked = bytes(map(str.endswith, tokens, repeat("b"))) if "b" in joined else None
        return _oldest_first(nums[0::2], nums[1::2], blocked)
    if joined.count(" ") != n - 1 or not _TIMED_ALL.fullmatch(joined):
        for tok, raw in zip(tokens, shown or tokens):
            if not _TIMED.match(tok):
                raise _fail(row, "column %s: %r is not <epoch>:<value>" % (name, raw))
        raise _fail(row, "column %s: %r is not <epoch>:<value>" % (name, joined[:200]))
    blocked: Optional[bytes] = None
    if "b" in joined:
        blocked = bytes([tok[-1] == "b" for tok in joined.split(" ")])
        joined = joined.replace("b", "")
    untimed = n - joined.count(":")
    if not untimed:
        nums = list(map(float, joined.replace(":", " ").split(" ")))
        times, values = nums[0::2], nums[1::2]
    else:
        it = iter(_times(ctx.last_time, ctx.span_s, untimed))
        times, values = [], []
        for tok in joined.split(" "):
            t, _, v = tok.rpartition(":")
            times.append(float(t) if t else next(it))
            values.append(float(v))
    return _oldest_first(times, values, blocked)


def _oldest_first(times: List[float], values: List[float], blocked: Optional[bytes]) -> Series:
    """The series sorted oldest first (stable: equal times keep their order)."""
    order = sorted(range(len(times)), key=times.__getitem__)
    return ([times[i] for i in order], [values[i] for i in order],
            bytes([blocked[i] for i in order]) if blocked is not None else None)


def _timed_each(texts: List[str]) -> Optional[List[Series]]:
    """_timed_text of each of `texts` (whitespace-separated tokens, one text a series, as the `recent` of a
    queue_fill row holds each queue's): the texts' tokens checked by one match and read by one float pass.
    None when a token is odd or has no time: then each text is read on its own, where it is used (the
    error names the first odd column of the row, as it always did). Kept for the action's 10,000-host
    budget (docs/performance.md): splitting each text cost 25% more instructions reading the rows
    (callgrind, 500 hosts), about 1.1 s at 10,000 hosts."""
    joined = " ".join(texts)
    nums = _read_timed(joined)
    if nums is not None:
        # As the searches write them: tokens one space apart, no text empty (an empty text or other
        # whitespace fails _read_timed), so each text's tokens are counted, not split.
        clean = texts
    else:
        clean = [" ".join(t.split()) for t in texts]
        joined = " ".join(c for c in clean if c)
        if not _TIMED_ALL.fullmatch(joined):
            return None
        if joined.count(" ") + 1 != joined.count(":"):
            return None         # a token without its time
        if "b" in joined:       # every token matched: a b ends the tokens of blocked samples, and nothing else
            joined = joined.replace("b", "")
        nums = list(map(float, joined.replace(":", " ").split(" ")))
    out: List[Series] = []
    at = 0
    for text in clean:
        if not text:
            out.append(([], [], None))
            continue
        k = text.count(" ") + 1
        blocked = bytes(map(str.endswith, text.split(" "), repeat("b"))) if "b" in text else None
        out.append(_oldest_first(nums[2 * at:2 * (at + k):2], nums[2 * at + 1:2 * (at + k):2], blocked))
        at += k
    return out


def _pset(row: Row, value: Optional[str]) -> Optional[int]:
    if value is None or value.strip().lower() in ("", "none", "null", "-"):
        return None
    v = value.strip()
    if not v.isdigit():
        raise _fail(row, "pipeline_set=%r is neither a number nor none" % value)
    return int(v)


def _times(last: float, span: float, n: int) -> List[float]:
    return [last - (n - 1 - i) * span for i in range(n)]


@dataclass
class Context:
    now: float
    window_min: float
    span_s: float
    last_time: float
    source: str


def _context(row: Row, now: float, default_span: float) -> Context:
    window = _num(row, "window_min", row.get("window_min")) or 10.0
    span = _num(row, "span_s", row.get("span_s")) or default_span
    last = _num(row, "last_time", row.get("last_time")) or _num(row, "_time", row.get("_time")) or now
    return Context(now, window, span, last, row.get("source") or "")


def _window(ctx: Context) -> str:
    return "%dm" % int(round(ctx.window_min))


_DUTYCYCLE = "%s group=dutycycle" % _METRICS
_QUEUE = "%s group=queue" % _METRICS


def _thread(ev: Evidence, smp: Samples, row: Row, ctx: Context, name: Interned) -> None:
    thread = (row.get("thread") or "").strip().lower()
    if not thread:
        raise _fail(row, "column thread is empty")
    pset = _pset(row, row.get("pipeline_set"))
    avg = _num(row, "busy_pct", row.get("busy_pct"), required=True)
    src = name(ctx.source) if ctx.source else _DUTYCYCLE
    times, values, _ = _timed(row, "samples", row.values("samples"), ctx)
    if thread == REPLICATION_THREAD:
        # Kept on the host's light evidence, not as numbers: the deployment's linker reads a replication
        # target's receiver thread after every host is judged and its numbers freed (action.link_deployment).
        ev.threads.extend(ThreadSample(t, thread, v, pset, "sample", src) for t, v in zip(times, values))
        if not times:
            ev.threads.append(ThreadSample(ctx.last_time, thread, float(avg or 0.0), pset, _window(ctx), src))
    elif times:
        smp.add(False, name(thread), pset, "sample", src, times, values)
    else:
        # Only the window average is known: hand it over as such, the core decides what it means.
        smp.add(False, name(thread), pset, name(_window(ctx)), src, [ctx.last_time], [float(avg or 0.0)])
    ev.saw("proc" if src.startswith("collector") else _METRICS)


def _queue(ev: Evidence, smp: Samples, row: Row, ctx: Context, name: Interned) -> None:
    pset = _pset(row, row.get("pipeline_set"))
    queues = row.values("queue")
    fills = row.values("fill_pct")
    recent = row.values("recent")
    blocked = row.values("blocked_samples")
    if not queues:
        raise _fail(row, "column queue is empty")
    if len(fills) != len(queues) or (recent and len(recent) != len(queues)) or \
            (blocked and len(blocked) != len(queues)):
        raise _fail(row, "columns queue, fill_pct, recent and blocked_samples must have as many values "
                         "as queue (%d)" % len(queues))
    src = name(ctx.source) if ctx.source else _QUEUE
    series = _timed_each(recent) if recent else None
    for i, qname in enumerate(queues):
        queue = name(model.canonical_queue(qname.strip()))
        fill = _num(row, "fill_pct", fills[i], required=True)
        n_blocked = int(_num(row, "blocked_samples", blocked[i]) or 0) if blocked else 0
        times, values, marks = series[i] if series is not None else \
            _timed_text(row, "recent", recent[i].split() if recent else [], ctx)
        if times:
            smp.add(True, queue, pset, "sample", src, times, values, marks)
        else:
            smp.add(True, queue, pset, name(_window(ctx)), src, [ctx.last_time], [float(fill or 0.0)],
                    [1 if n_blocked > 0 else 0])
    ev.saw(_METRICS)


def _hec_busy(ev: Evidence, row: Row, ctx: Context) -> None:
    replies = int(_num(row, "busy_replies", row.get("busy_replies")) or 0)
    for _ in range(min(replies, MAX_COUNTED)):
        ev.hec_errors.append(HecError(ctx.last_time, model.HEC_BUSY_REPLY, "", "Server is busy",
                                      ctx.source or "%s HttpInputDataHandler" % _SPLUNKD))
    if replies:
        ev.saw(_SPLUNKD)
    times, codes, _ = _timed(row, "health_samples", row.values("health_samples"), ctx)
    probes = list(zip(times, codes))
    src = "collector ingest_doctor.hec.health_rtt_ms"
    for t, code in probes[-MAX_COUNTED:]:
        c = int(code)
        ev.hec_probes.append(HecProbe(t, model.hec_status(c), c, None, "health", "", src))
    if probes:
        ev.saw("hec/health.json")
    if not replies and not probes:
        raise _fail(row, "hec_busy row has neither busy_replies nor health_samples")


def _hec_latency(ev: Evidence, row: Row, ctx: Context) -> None:
    status = _num(row, "status", row.get("status"))
    samples = _timed(row, "samples", row.values("samples") or [row.get("latency_ms") or ""], ctx)
    src = ctx.source or "collector ingest_doctor.hec.latency_ms"
    for t, v in zip(samples[0], samples[1]):
        ev.hec_probes.append(HecProbe(t, int(status) if status is not None else 200, None, v, "event", "", src))
    ev.saw("hec/health.json")


def _hec_listener(ev: Evidence, row: Row, ctx: Context) -> None:
    n = int(_num(row, "overwhelmed", row.get("overwhelmed"), required=True) or 0)
    msg = row.get("message") or "HttpListener - Can't handle request"
    for t in _times(ctx.last_time, ctx.span_s, min(n, MAX_COUNTED)):
        ev.log_signals.append(LogSignal(t, "hec_listener_overwhelmed", msg[:300],
                                        ctx.source or "%s HttpListener" % _SPLUNKD))
    ev.saw(_SPLUNKD)


def _indexer(ev: Evidence, row: Row, ctx: Context) -> None:
    status = (row.get("status") or "").strip().lower()
    if not status:
        raise _fail(row, "column status is empty")
    reason = (row.get("reason") or "").strip()
    ev.indexer = IndexerStatus(status, "" if reason in (".", "") else reason,
                               source=ctx.source or "services/server/introspection/indexer")
    ev.saw("services/server/introspection/indexer")


def _tcpin(ev: Evidence, row: Row, ctx: Context) -> None:
    peer = (row.get("peer") or "").strip()
    ev.tcpin.append(TcpinConnection(ctx.last_time, (row.get("peer_ip") or "").strip(), peer,
                                    (row.get("peer_ip") or "").strip(), (row.get("guid") or "").strip(),
                                    (row.get("fwd_type") or "").strip(), _num(row, "kbps", row.get("kbps")) or 0.0,
                                    source=ctx.source or "%s group=tcpin_connections" % _METRICS))


def _tcpout(ev: Evidence, row: Row, ctx: Context) -> None:
    ev.tcpout.append(TcpoutConnection(ctx.last_time, (row.get("dest") or "").strip(),
                                      _num(row, "kbps", row.get("kbps")) or 0.0,
                                      source=ctx.source or "%s group=tcpout_connections" % _METRICS))


def _lines(row: Row) -> int:
    n = _num(row, "lines", row.get("lines"), required=True)
    if n is None or n < 0 or n != int(n):
        raise _fail(row, "column lines=%r is not a count" % row.get("lines"))
    return min(int(n), MAX_COUNTED)


def _replication(ev: Evidence, row: Row, ctx: Context) -> None:
    guid = (row.get("peer") or "").strip()
    if not guid:
        raise _fail(row, "column peer is empty")
    src = ctx.source or "%s BucketReplicator" % _SPLUNKD
    for t in _times(ctx.last_time, ctx.span_s, _lines(row)):
        ev.log_signals.append(splunkdlog.replication_full(t, guid, src))
    ev.saw(_SPLUNKD)


def _thruput_capped(ev: Evidence, row: Row, ctx: Context) -> None:
    kbps = _num(row, "kbps", row.get("kbps"))
    said = "" if kbps is None else "%g" % kbps
    src = ctx.source or "%s ThruputProcessor" % _SPLUNKD
    for t in _times(ctx.last_time, ctx.span_s, _lines(row)):
        ev.log_signals.append(splunkdlog.thruput_capped(t, said, src))
    ev.saw(_SPLUNKD)


# Rows whose samples stay numbers until their host is judged (alert/samples.py), and the others.
_SAMPLED = {"thread_busy": (_thread, 30.0), "queue_fill": (_queue, 30.0)}
_HANDLERS = {"hec_busy": (_hec_busy, 60.0), "hec_latency": (_hec_latency, 10.0), "hec_listener": (_hec_listener, 1.0),
             "indexer_throttled": (_indexer, 10.0), "tcpin": (_tcpin, 30.0), "tcpout": (_tcpout, 30.0),
             "replication": (_replication, 1.0), "thruput_capped": (_thruput_capped, 1.0)}


class Collected(Mapping[str, Evidence]):
    """The rows of a results file by host, in the order hosts first appear.

    `light[host]` is the host's Evidence without its thread and queue samples: those stay numbers
    (`samples[host]`, 17 bytes a sample). Reading `collected[host]` builds the whole Evidence, exactly
    as rows_to_evidence gives it; `lean(host)` is the same evidence with its samples still numbers,
    which the action judges, one host at a time: a results file costs its numbers, never its sample
    objects (issues 23, 21)."""

    def __init__(self) -> None:
        self.light: Dict[str, Evidence] = {}
        self.samples: Dict[str, Samples] = {}
        # Replication targets by guid as the search head's search peers name them (`replication` rows'
        # target): (guid, server name, "", ""), the shape of a cluster manager's peer list (topology.Instance).
        self.cluster_peers: List[Tuple[str, str, str, str]] = []

    def __getitem__(self, host: str) -> Evidence:
        ev = self.light[host]
        smp = self.samples.get(host)
        if smp is None or not smp.runs:
            return ev
        # the rows' samples first, then any the configuration read added (local_config)
        return replace(ev, threads=smp.threads() + ev.threads, queues=smp.queues() + ev.queues)

    def __iter__(self) -> Iterator[str]:
        return iter(self.light)

    def __len__(self) -> int:
        return len(self.light)

    def lean(self, host: str) -> Evidence:
        """`self[host]` whose threads and queues are Lean sequences (alert/samples.py): the diagnosis reads
        their numbers as runs, and no sample object is made unless something iterates them."""
        ev = self.light[host]
        smp = self.samples.get(host)
        if smp is None or not smp.runs:
            return ev
        return replace(ev, threads=Lean(smp, False, ev.threads), queues=Lean(smp, True, ev.queues))

    def finite(self, host: str) -> bool:
        """Every sample of `self[host]` has finite numbers, checked on the numbers (diagnose's `finite`:
        the diagnosis then does not check each sample object again)."""
        smp = self.samples.get(host)
        return (smp is None or smp.finite()) and samples_finite(self.light[host])

    def only(self, hosts: Iterable[str]) -> "Collected":
        """The same rows for `hosts` only (no copy of their samples)."""
        out = Collected()
        out.cluster_peers = self.cluster_peers
        for h in hosts:
            out.light[h] = self.light[h]
            if h in self.samples:
                out.samples[h] = self.samples[h]
        return out


def collect(rows: Iterable[Row], now: Optional[float] = None) -> Collected:
    """Group rows by host; each host gets one Evidence holding every row about it (see Collected)."""
    now = _time.time() if now is None else now
    out = Collected()
    light, samples = out.light, out.samples
    name = Interned()
    for row in rows:
        sig_name = (row.get("signal") or "").strip()
        if sig_name in (REPORTED, SILENCE, STALE):
            continue
        sig = SIGNALS.get(sig_name)
        if sig is None:
            raise _fail(row, "signal=%r is not one of %s" % (sig_name, ", ".join(sorted(SIGNALS))))
        host = (row.get("host") or "").strip()
        if not host:
            raise _fail(row, "column host is empty")
        for col in sig.required:
            if not row.has(col):
                raise _fail(row, "signal %s needs column %s" % (sig_name, col))
        ev = light.get(host)
        if ev is None:
            ev = light[host] = Evidence(host=host)
        sampled = _SAMPLED.get(sig_name)
        if sampled is not None:
            smp = samples.get(host)
            if smp is None:
                smp = samples[host] = Samples()
            sampled[0](ev, smp, row, _context(row, now, sampled[1]), name)
        else:
            handler, span = _HANDLERS[sig_name]
            handler(ev, row, _context(row, now, span))
            target = (row.get("target") or "").strip() if sig_name == "replication" else ""
            if target and (row.get("peer") or "").strip():
                peer = ((row.get("peer") or "").strip(), target, "", "")
                if peer not in out.cluster_peers:
                    out.cluster_peers.append(peer)
    return out


def rows_to_evidence(rows: Iterable[Row], now: Optional[float] = None) -> Dict[str, Evidence]:
    """Group rows by host; each host gets one Evidence holding every row about it."""
    c = collect(rows, now)
    return {host: c[host] for host in c}


# ---------------------------------------------------------------------------- reported findings
@dataclass
class Reported:
    """A finding the collector reported, as one row of the 1-minute search hands it over."""
    finding: Finding
    time: float  # the event's time: when the collector saw it (or saw it end)
    status: str  # open | resolved
    resolution: str  # for resolved: what changed ("resolved after dedicatedIoThreads 2 -> 8")
    detected_by: str
    relayed: bool = False  # an ingest_doctor:finding event handed over (the relay search), not judged here


def finding_from_dict(d: Dict[str, object]) -> Finding:
    """The contract's finding object (Finding.to_dict()) back into a Finding; raises ValueError/TypeError."""
    pset = d.get("pipeline_set")
    f = Finding(str(d["bottleneck"]), str(d["severity"]), None if d.get("host") is None else str(d["host"]),
                None if pset is None else int(pset),  # type: ignore[arg-type]
                None if d.get("component") is None else str(d["component"]), str(d.get("summary") or ""),
                [EvidenceItem(e["signal"], e.get("value"), e.get("unit"), e.get("window"), e.get("source"))
                 for e in (d.get("evidence") or [])],  # type: ignore[union-attr]
                [Recommendation(r["action"], r.get("conf_file"), r.get("stanza"), r.get("setting"),
                                r.get("current"), r.get("suggested"))
                 for r in (d.get("recommendations") or [])])  # type: ignore[union-attr]
    if d.get("id") not in (None, f.id):
        raise ValueError("id %r does not match host, bottleneck and pipeline_set (%s)" % (d.get("id"), f.id))
    return f


def reported_row(row: Row, now: float) -> Reported:
    """One `finding` row, parsed; BadInput (through _fail) for anything that is not the collector's event."""
    raw = row.get("finding") or ""
    try:
        d = json.loads(raw)
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        f = finding_from_dict(d)
    except (ValueError, TypeError, KeyError, OverflowError, RecursionError) as e:
        raise _fail(row, "column finding is not an ingest_doctor:finding event (%s: %s)"
                    % (type(e).__name__, str(e)[:200])) from None
    status = str(d.get("status") or row.get("status") or "open").strip().lower()
    if status not in ("open", "resolved"):
        raise _fail(row, "status=%r is neither open nor resolved" % status)
    when = _num(row, "last_time", row.get("last_time")) or _num(row, "_time", row.get("_time"))
    if when is None:
        at = d.get("resolved_at")
        when = _finite(at) if at not in (None, "") else now
        if when is None:
            raise _fail(row, "resolved_at=%r is not a time (epoch seconds)" % (str(at)[:40],))
    return Reported(f, when, status, str(d.get("resolution") or ""),
                    str(d.get("detected_by") or row.get("detected_by") or "collector"), relayed=True)


def _finite(v: object) -> Optional[float]:
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    return f if math.isfinite(f) else None


def _silence(row: Row, now: float) -> Reported:
    """A silence row: judged here, by engine/silence.py (the search found it; the words are the core's)."""
    host = (row.get("host") or "").strip()
    if not host:
        raise _fail(row, "column host is empty")
    last = _num(row, "last_heard", row.get("last_heard"))
    if last is None:
        raise _fail(row, "signal silence needs column last_heard")
    try:
        f = silence.silence_finding(host, (row.get("reason") or "").strip(), last, now,
                                    _num(row, "kb_recent", row.get("kb_recent")) or 0.0, row.values("receivers"),
                                    _num(row, "threshold", row.get("threshold")) or 0.0,
                                    _num(row, "silent_min", row.get("silent_min")))
    except ValueError as e:
        raise _fail(row, str(e)) from None
    when = _num(row, "last_time", row.get("last_time")) or now
    return Reported(f, when, "open", "", silence.DETECTED_BY)


def _reported(row: Row, now: float) -> Optional[Reported]:
    """A `finding` row (relayed) or a `silence` row (judged here); None for the other rows."""
    sig_name = (row.get("signal") or "").strip()
    if sig_name == SILENCE:
        return _silence(row, now)
    if sig_name == REPORTED:
        return reported_row(row, now)
    return None


def rows_to_reported(rows: Iterable[Row], now: Optional[float] = None) -> List[Reported]:
    """The `finding` and `silence` rows, parsed; the other rows are rows_to_evidence's."""
    now = _time.time() if now is None else now
    return [r for r in (_reported(row, now) for row in rows) if r is not None]


@dataclass(frozen=True)
class Stale:
    """An open finding the housekeeping search found unseen (one `stale` row)."""
    id: str
    last_seen: float  # as the search read it: the action reads the record again


def stale_row(row: Row) -> Stale:
    fid = (row.get("id") or "").strip()
    if not fid:
        raise _fail(row, "column id is empty")
    last = _num(row, "last_seen", row.get("last_seen"))
    if last is None:
        raise _fail(row, "signal stale needs column last_seen")
    return Stale(fid, last)


def split_rows(rows: Iterable[Row], now: Optional[float] = None,
               stale: Optional[List[Stale]] = None) -> Tuple[Collected, List[Reported]]:
    """collect and rows_to_reported in one pass: a results file is read once, as a stream, and no row
    is kept after it is used (a 100k-row file costs its samples as numbers, not its rows). `stale`
    receives the `stale` rows (without it they are refused: only the action resolves)."""
    now = _time.time() if now is None else now
    reported: List[Reported] = []

    def judged() -> Iterator[Row]:
        for row in rows:
            if (row.get("signal") or "").strip() == STALE:
                if stale is None:
                    raise _fail(row, "a stale row is only for the alert action")
                stale.append(stale_row(row))
                continue
            r = _reported(row, now)
            if r is not None:
                reported.append(r)
            else:
                yield row
    return collect(judged(), now), reported
