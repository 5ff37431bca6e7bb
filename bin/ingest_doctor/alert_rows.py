"""Result rows of our saved searches -> Evidence, one per host.

Each alert search ends with the same columns (README, section Alerts): a
`signal` naming what the row measures, `host`, and the numbers of that signal.
Rows carry raw measurements (recent samples, window averages, counts), never a
verdict: the diagnosis core judges them with the same thresholds the searches
used, so the finding, its severity and its recommendations come from one place.

Rows are self-contained, so the action works whether splunkd runs it once for
all results (digest mode) or once per result (per-result throttling).
"""
from __future__ import annotations

import re
import time as _time
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

from . import model
from .alert_payload import BadInput
from .alert_results import Row
from .evidence import Evidence, HecError, HecProbe, IndexerStatus, LogSignal, QueueSample, ThreadSample

# Columns every alert may output (for the admin reading the alert or for throttling).
COMMON = ("signal", "host", "component", "pipeline_set", "stage", "label", "bottleneck", "source",
          "window_min", "span_s", "last_time", "threshold", "description")


@dataclass(frozen=True)
class Signal:
    name: str
    required: Tuple[str, ...]
    optional: Tuple[str, ...]


SIGNALS: Dict[str, Signal] = {s.name: s for s in (
    # one thread on one host (and pipeline set): window average and every sample of the window, oldest first
    Signal("thread_busy", ("thread", "busy_pct"), ("samples", "samples_over")),
    # one pipeline set on one host: every chain queue seen, aligned multivalue columns;
    # `recent` holds each queue's samples of the window, oldest first, as "<fill>[b] ..." (b: blocked=true)
    Signal("queue_fill", ("queue", "fill_pct"), ("recent", "blocked_samples")),
    # reply=9 count from splunkd.log, unhealthy HEC health codes (18-20) from the collector
    Signal("hec_busy", (), ("busy_replies", "health_codes", "health_samples")),
    # HEC request latency probes from the collector, oldest first
    Signal("hec_latency", ("latency_ms",), ("samples", "status")),
    # HttpListener "Can't handle request" messages
    Signal("hec_listener", ("overwhelmed",), ("message",)),
    # index processor state: throttled samples from the collector or REST
    Signal("indexer_throttled", ("status",), ("reason", "samples")),
)}

KNOWN_COLUMNS = frozenset(COMMON).union(*(set(s.required) | set(s.optional) for s in SIGNALS.values()))

MAX_COUNTED = 10000     # reply=9 errors turned into HecError items per row (the count is what matters)
_SPLUNKD = "logs/splunkd.log"
_METRICS = "logs/metrics.log"


class RowError(BadInput):
    pass


def _fail(row: Row, msg: str) -> RowError:
    return RowError("result %d: %s" % (row.line, msg))


def _num(row: Row, name: str, value: Optional[str], required: bool = False) -> Optional[float]:
    if value is None or value.strip() == "":
        if required:
            raise _fail(row, "column %s is empty" % name)
        return None
    try:
        f = float(value.strip())
    except ValueError:
        raise _fail(row, "column %s=%r is not a number" % (name, value)) from None
    if f != f or f in (float("inf"), float("-inf")):
        raise _fail(row, "column %s=%r is not a finite number" % (name, value))
    return f


def _nums(row: Row, name: str) -> List[float]:
    return [v for v in (_num(row, name, x) for x in row.values(name)) if v is not None]


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


def _thread(ev: Evidence, row: Row, ctx: Context) -> None:
    thread = (row.get("thread") or "").strip().lower()
    if not thread:
        raise _fail(row, "column thread is empty")
    pset = _pset(row, row.get("pipeline_set"))
    avg = _num(row, "busy_pct", row.get("busy_pct"), required=True)
    src = ctx.source or "%s group=dutycycle" % _METRICS
    samples = _nums(row, "samples")
    for t, v in zip(_times(ctx.last_time, ctx.span_s, len(samples)), samples):
        ev.threads.append(ThreadSample(t, thread, v, pset, "sample", src))
    if not samples:
        # Only the window average is known: hand it over as such, the core decides what it means.
        ev.threads.append(ThreadSample(ctx.last_time, thread, float(avg or 0.0), pset, _window(ctx), src))
    ev.saw("proc" if src.startswith("collector") else _METRICS)


_RECENT = re.compile(r"^(?P<v>[0-9]+(?:\.[0-9]+)?)(?P<b>b?)$")


def _queue(ev: Evidence, row: Row, ctx: Context) -> None:
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
    src = ctx.source or "%s group=queue" % _METRICS
    for i, name in enumerate(queues):
        queue = model.canonical_queue(name.strip())
        fill = _num(row, "fill_pct", fills[i], required=True)
        n_blocked = int(_num(row, "blocked_samples", blocked[i]) or 0) if blocked else 0
        samples: List[Tuple[float, bool]] = []
        for tok in (recent[i].split() if recent else []):
            m = _RECENT.match(tok)
            if not m:
                raise _fail(row, "recent value %r for %s is not <fill>[b]" % (tok, name))
            samples.append((float(m.group("v")), bool(m.group("b"))))
        for t, (v, b) in zip(_times(ctx.last_time, ctx.span_s, len(samples)), samples):
            ev.queues.append(QueueSample(t, queue, pset, v, "sample", b, src))
        if not samples:
            ev.queues.append(QueueSample(ctx.last_time, queue, pset, float(fill or 0.0), _window(ctx),
                                         n_blocked > 0, src))
    ev.saw(_METRICS)


def _hec_busy(ev: Evidence, row: Row, ctx: Context) -> None:
    replies = int(_num(row, "busy_replies", row.get("busy_replies")) or 0)
    for _ in range(min(replies, MAX_COUNTED)):
        ev.hec_errors.append(HecError(ctx.last_time, 9, "", "Server is busy",
                                      ctx.source or "%s HttpInputDataHandler" % _SPLUNKD))
    if replies:
        ev.saw(_SPLUNKD)
    codes = row.values("health_codes")
    counts = row.values("health_samples")
    if counts and len(counts) != len(codes):
        raise _fail(row, "columns health_codes and health_samples must have as many values")
    for i, c in enumerate(codes):
        code = int(_num(row, "health_codes", c, required=True) or 0)
        n = int(_num(row, "health_samples", counts[i]) or 1) if counts else 1
        for t in _times(ctx.last_time, ctx.span_s, min(n, MAX_COUNTED)):
            ev.hec_probes.append(HecProbe(t, 503, code, None, "health", "", "collector ingest_doctor.hec.health_rtt_ms"))
    if codes:
        ev.saw("hec/health.json")
    if not replies and not codes:
        raise _fail(row, "hec_busy row has neither busy_replies nor health_codes")


def _hec_latency(ev: Evidence, row: Row, ctx: Context) -> None:
    status = _num(row, "status", row.get("status"))
    samples = _nums(row, "samples") or [_num(row, "latency_ms", row.get("latency_ms"), required=True) or 0.0]
    src = ctx.source or "collector ingest_doctor.hec.latency_ms"
    for t, v in zip(_times(ctx.last_time, ctx.span_s, len(samples)), samples):
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
    if status not in ("normal", "throttled", "stopped"):
        raise _fail(row, "status=%r is not normal, throttled or stopped" % row.get("status"))
    reason = (row.get("reason") or "").strip()
    ev.indexer = IndexerStatus(status, "" if reason in (".", "") else reason,
                               source=ctx.source or "services/server/introspection/indexer")
    ev.saw("services/server/introspection/indexer")


_HANDLERS = {"thread_busy": (_thread, 30.0), "queue_fill": (_queue, 30.0), "hec_busy": (_hec_busy, 60.0),
             "hec_latency": (_hec_latency, 10.0), "hec_listener": (_hec_listener, 1.0),
             "indexer_throttled": (_indexer, 10.0)}


def rows_to_evidence(rows: Iterable[Row], now: Optional[float] = None) -> Dict[str, Evidence]:
    """Group rows by host; each host gets one Evidence holding every row about it."""
    now = _time.time() if now is None else now
    out: Dict[str, Evidence] = {}
    for row in rows:
        sig_name = (row.get("signal") or "").strip()
        sig = SIGNALS.get(sig_name)
        if sig is None:
            raise _fail(row, "signal=%r is not one of %s" % (sig_name, ", ".join(sorted(SIGNALS))))
        host = (row.get("host") or "").strip()
        if not host:
            raise _fail(row, "column host is empty")
        for col in sig.required:
            if not row.values(col):
                raise _fail(row, "signal %s needs column %s" % (sig_name, col))
        handler, span = _HANDLERS[sig_name]
        ev = out.get(host)
        if ev is None:
            ev = out[host] = Evidence(host=host)
        handler(ev, row, _context(row, now, span))
    return out
