"""The read step: endpoints of the table -> evidence, configuration, threshold macros and faults.

One function, `read`, used by the collector's poll, the CLI (`snapshot` reads a
live splunkd, `diagnose` reads the recorded folder the same way) and the alert
action's configuration lookup. It is given a `fetch` (the port's HTTP call, or
a reader of snapshot files), the endpoints to read and the time; it never
raises for a fault: each failed read is a `Fault` with its kind (endpoints.py),
and the rest is read.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ingest_doctor.read import rest
from ingest_doctor.read.endpoints import (ENDPOINTS, Endpoint, Fetched, apply_rest, error_kind, error_text,
                                          missing_capability)
from ingest_doctor.evidence import LATEST, NAMES, Evidence, known, policies

_UNKNOWN = object()     # merge_config: no part knows this LATEST value

Fetch = Callable[[Endpoint], Fetched]

MAX_BODY_BYTES = 16 * 1024 * 1024   # a REST body larger than this is not parsed (memory bound)


@dataclass
class Fault:
    """One endpoint that could not be read, and why."""
    endpoint: Endpoint
    kind: str  # endpoints.TRANSPORT_KINDS, HTTP_KINDS or BODY_KINDS
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
    """What one read step gathered."""
    evidence: Evidence = field(default_factory=Evidence)  # the runtime endpoints read
    config: Dict[str, Evidence] = field(default_factory=dict)  # configuration endpoint -> its reading
    macros: Optional[Dict[str, str]] = None  # None: conf-macros not read
    faults: List[Fault] = field(default_factory=list)
    latency_ms: Dict[str, float] = field(default_factory=dict)
    bodies: Dict[str, bytes] = field(default_factory=dict)  # every good body, by path


def read(fetch: Fetch, endpoints: Sequence[Endpoint], time: Optional[float] = None,
         max_bytes: int = MAX_BODY_BYTES, check_stop: Callable[[], None] = lambda: None,
         evidence: Optional[Evidence] = None) -> Reading:
    """Read `endpoints` in order. `time` stamps runtime samples (the collector's poll time; None for
    a snapshot read once). Runtime readings go into `evidence` when given.

    Every body is parsed as it comes: the collector reads at most one configuration endpoint a poll (each
    once a minute), and the largest, 100 HEC tokens, parses in about 0.6 ms (docs/performance.md)."""
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
    """Give `ev` what the configuration endpoints read (`parts`: endpoint -> reading), in table
    order, each field by its merge policy (evidence.py): a LATEST value (host, a configuration
    setting, the core count) fills in only where `ev`'s is unknown, a later endpoint's known value
    winning over an earlier one's and unknown values never overwriting known ones; NAMES are
    joined; samples and notes are added."""
    read = [parts[ep.path] for ep in ENDPOINTS if ep.path in parts]
    for name, merge, last, attrs, items in _plan(type(ev), read):
        mine = getattr(ev, name)
        if merge == LATEST:
            if is_dataclass(mine):        # its unknown attributes filled in, each the last known
                changes = {n: v for n, v in attrs.items() if not known(getattr(mine, n))}
                if changes:
                    setattr(ev, name, replace(mine, **changes))
            elif last is not _UNKNOWN and not known(mine):
                setattr(ev, name, last)
        elif merge == NAMES:
            mine.extend(x for x in items if x not in mine)
        else:
            mine.extend(items)


def _plan(cls: type, read: List[Evidence]) -> List[Tuple[str, str, Any, Dict[str, Any], List[Any]]]:
    """Per field of `cls` that the parts `read` give something: (name, merge policy, the last known
    whole value, the last known value of each record attribute, the items NAMES or lists add)."""
    plan = []
    for name, policy in policies(cls).items():
        theirs = [getattr(part, name) for part in read]
        last: Any = _UNKNOWN
        attrs: Dict[str, Any] = {}
        items: List[Any] = []
        if policy.merge == LATEST:
            for other in theirs:
                if known(other):
                    last = other
                if is_dataclass(other):
                    for f in fields(other):
                        if known(getattr(other, f.name)):
                            attrs[f.name] = getattr(other, f.name)
        elif policy.merge == NAMES:
            for value in theirs:
                items.extend(x for x in value if x not in items)
        else:
            for value in theirs:
                items.extend(value)
        if last is not _UNKNOWN or attrs or items:
            plan.append((name, policy.merge, last, attrs, items))
    return plan
