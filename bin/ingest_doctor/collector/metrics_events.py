"""One poll's samples -> `ingest_doctor:metrics` JSON events (docs/events.md).

Each event is one measurement group: string fields are dimensions, fields
named `ingest_doctor.<metric>` are measures. default/props.conf and
transforms.conf turn them into metric data points at index time
(log-to-metrics): a REGEX writes every `"key":value` pair as an indexed field
and `METRIC-SCHEMA-MEASURES = ingest_doctor.*` makes the measures. So every
dimension value is a string (`pipeline_set` is "0".."N" or "none") and never
holds `"`, `,` or `}` (the extraction stops there).

Volume is kept down on purpose (every event is a licensed metric data point):
queue averages (1m/10m/15m) and per-endpoint latency once a minute, the
instant fill every poll; threads only when busy at least `THREAD_MIN_PCT` or
part of the pipeline model; endpoint errors only when they happen.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from ingest_doctor import model
from ingest_doctor.evidence import Evidence

PREFIX = "ingest_doctor."
THREAD_MIN_PCT = 0.5
BLOCKED_FILL_PCT = 99.9        # REST has no blocked flag: a queue this full is blocked

_UNSAFE = re.compile(r'[",}\\\x00-\x1f]')


_DIMS: Dict[str, str] = {}     # text -> its dimension value: a poll repeats the same few names


def dim(value: Any) -> str:
    """A dimension value the index-time extraction keeps whole."""
    if value is None:
        return "none"
    text = str(value)
    out = _DIMS.get(text)
    if out is None:
        if len(_DIMS) > 4096:       # bounded even if names churn
            _DIMS.clear()
        out = _DIMS[text] = _UNSAFE.sub("_", text)[:200] or "none"
    return out


def num(value: float) -> float:
    return round(float(value), 3)


def _pset(p: Optional[int]) -> str:
    return "none" if p is None else str(p)


def build(ev: Evidence, threads: Iterable[Any], latency_ms: Mapping[str, float],
          errors: Sequence[Tuple[str, str]], duration_ms: float, cpu_ms: float,
          averages: bool) -> Iterator[Dict[str, Any]]:
    """The metric events of one poll, in a stable order."""
    for q in ev.queues:
        if q.window == "sample":
            yield {"queue": dim(q.queue), "pipeline_set": _pset(q.pipeline_set), "window": "sample",
                   PREFIX + "queue.fill_pct": num(q.fill_pct),
                   PREFIX + "queue.blocked": 1 if (q.blocked or q.fill_pct >= BLOCKED_FILL_PCT) else 0}
        elif averages:
            yield {"queue": dim(q.queue), "pipeline_set": _pset(q.pipeline_set), "window": dim(q.window),
                   PREFIX + "queue.fill_pct": num(q.fill_pct)}
    staged: Dict[str, bool] = {}        # thread name -> part of the pipeline model (few names, many threads)
    for t in threads:
        name = t.thread
        if t.busy_pct < THREAD_MIN_PCT:
            stage = staged.get(name)
            if stage is None:
                stage = staged[name] = model.stage_for_thread(name) is not None
            if not stage:
                continue
        yield {"thread": dim(name), "tid": str(t.tid), PREFIX + "thread.busy_pct": num(t.busy_pct)}
    for p in ev.pipelinesets:
        yield {"pipeline_set": _pset(p.pipeline_set), "busiest_thread": dim(p.busiest_thread or None),
               PREFIX + "pipelineset.dutycycle_pct": num(p.dutycycle_pct)}
    for h in ev.hec_probes:
        if h.rtt_ms is None:
            continue
        if h.kind == "health":
            yield {"code": dim(h.code), "status": dim(h.status), PREFIX + "hec.health_rtt_ms": num(h.rtt_ms)}
        else:
            yield {"code": dim(h.code), "status": dim(h.status), PREFIX + "hec.latency_ms": num(h.rtt_ms)}
    cpu: Dict[str, Any] = {}
    if ev.host_cpu.splunkd_cpu_pct is not None:
        cpu[PREFIX + "splunkd.cpu_pct"] = num(ev.host_cpu.splunkd_cpu_pct)
    if ev.host_cpu.host_cpu_pct is not None:
        cpu[PREFIX + "host.cpu_pct"] = num(ev.host_cpu.host_cpu_pct)
    if ev.host_cpu.cores:
        cpu[PREFIX + "host.cores"] = int(ev.host_cpu.cores)
    if cpu:
        yield cpu
    if ev.indexer is not None:
        yield {"status": dim(ev.indexer.status),
               PREFIX + "indexer.throttled": 0 if ev.indexer.status in ("normal", "unknown") else 1}
    yield {PREFIX + "poll.duration_ms": num(duration_ms), PREFIX + "poll.cpu_ms": num(cpu_ms)}
    if averages:
        for endpoint, ms in latency_ms.items():
            yield {"endpoint": dim(endpoint), PREFIX + "endpoint.latency_ms": num(ms)}
    counts: Dict[Tuple[str, str], int] = {}
    for key in errors:
        counts[key] = counts.get(key, 0) + 1
    for (endpoint, kind), n in counts.items():
        yield {"endpoint": dim(endpoint), "kind": dim(kind), PREFIX + "endpoint.errors": n}


def measures(event: Mapping[str, Any]) -> List[str]:
    return [k for k in event if k.startswith(PREFIX)]
