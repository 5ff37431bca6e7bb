"""The read step: endpoints of the table -> evidence, configuration, threshold macros and faults.

One function, `read`, used by the collector's poll, the CLI (`snapshot` reads a
live splunkd, `diagnose` reads the recorded folder the same way) and the alert
action's configuration lookup. It is given a `fetch` (the port's HTTP call, or
a reader of snapshot files), the endpoints to read and the time; it never
raises for a fault: each failed read is a `Fault` with its kind (endpoints.py),
and the rest is read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ingest_doctor.read import rest
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.read.endpoints import (ENDPOINTS, Endpoint, Fetched, apply_rest, error_kind, error_text,
                                          missing_capability)
from ingest_doctor.evidence import Config, Evidence

Fetch = Callable[[Endpoint], Fetched]
MAX_BODY_BYTES = 16 * 1024 * 1024   # a REST body larger than this is not parsed (memory bound)


@dataclass
class Fault:
    endpoint: Endpoint
    kind: str                       # endpoints.TRANSPORT_KINDS, HTTP_KINDS or BODY_KINDS
    fetched: Fetched

    @property
    def path(self) -> str:
        return self.endpoint.path

    def message(self) -> str:
        """What went wrong in splunkd's or the transport's words (never a credential)."""
        f = self.fetched
        if f.detail:
            return f.detail[:200]
        return error_text(f.body) if f.body else ""

    def capability(self) -> str:
        """For a 401/403: the capability splunkd names, else the one the table says the endpoint needs."""
        return missing_capability(self.fetched.body) or self.endpoint.capability


@dataclass
class Reading:
    evidence: Evidence = field(default_factory=Evidence)            # the runtime endpoints read
    config: Dict[str, Evidence] = field(default_factory=dict)       # configuration endpoint -> its reading
    macros: Optional[Dict[str, str]] = None                         # None: conf-macros not read
    faults: List[Fault] = field(default_factory=list)
    latency_ms: Dict[str, float] = field(default_factory=dict)
    bodies: Dict[str, bytes] = field(default_factory=dict)          # every good body, by path


def read(fetch: Fetch, endpoints: Sequence[Endpoint], time: Optional[float] = None,
         max_bytes: int = MAX_BODY_BYTES, check_stop: Callable[[], None] = lambda: None,
         evidence: Optional[Evidence] = None) -> Reading:
    """Read `endpoints` in order. `time` stamps runtime samples (the collector's poll time; None for
    a snapshot read once). Runtime readings go into `evidence` when given."""
    out = Reading(evidence if evidence is not None else Evidence())
    for ep in endpoints:
        check_stop()
        f = fetch(ep)
        out.latency_ms[ep.path] = f.elapsed_ms
        kind = error_kind(f)
        if kind is None and len(f.body) > max_bytes:
            kind, f = "too_large", Fetched(f.status, b"", f.elapsed_ms, None, "%d bytes" % len(f.body))
        if kind is not None:
            out.faults.append(Fault(ep, kind, f))
            continue
        target = Evidence() if ep.config else out.evidence
        try:
            if ep.apply is None:
                out.macros = rest.macros(rest.entries(f.body))
            else:
                apply_rest(target, ep.path, f.body, time=time)
        except Exception as e:  # RestError, or a shape no parser expected: read the rest
            detail = str(e) if isinstance(e, rest.RestError) else "%s: %s" % (type(e).__name__, e)
            out.faults.append(Fault(ep, "malformed", Fetched(f.status, b"", f.elapsed_ms, None, detail)))
            continue
        out.bodies[ep.path] = f.body
        if ep.config and ep.apply is not None:
            out.config[ep.path] = target
    return out


def merge_config(ev: Evidence, parts: Mapping[str, Evidence]) -> None:
    """Give `ev` the configuration of `parts` (endpoint -> reading), in table order: a later
    endpoint's known value wins; unknown values never overwrite known ones. Host name and
    core count fill in only where `ev` has none."""
    cfg = Config()
    blank = Config()
    for ep in ENDPOINTS:
        part = parts.get(ep.path)
        if part is None:
            continue
        for name, value in vars(part.config).items():
            if value != getattr(blank, name):
                setattr(cfg, name, value)
        if part.host and not ev.host:
            ev.host = part.host
        if part.host_cpu.cores and not ev.host_cpu.cores:
            ev.host_cpu.cores = part.host_cpu.cores
        if part.host_cpu.physical_cores and not ev.host_cpu.physical_cores:
            ev.host_cpu.physical_cores = part.host_cpu.physical_cores
        for s in part.sources:
            ev.saw(s)
    ev.config = cfg


def thresholds(macros: Optional[Mapping[str, str]],
               overrides: Optional[Mapping[str, object]] = None) -> Tuple[thresholds_mod.Thresholds, List[str]]:
    """The thresholds to judge with: recorded/tuned macros, then explicit overrides (which raise
    ThresholdError when invalid). Returns the problems of macros that were not valid numbers."""
    th, problems = thresholds_mod.from_macros(macros or {})
    if overrides:
        merged: Dict[str, object] = dict(th.values)
        for key, value in overrides.items():
            merged[key[len("ingest_doctor_"):] if key.startswith("ingest_doctor_") else key] = value
        th = thresholds_mod.load(merged)
    return th, problems
