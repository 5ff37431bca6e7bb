"""What leaves the collector besides metrics: its log lines (key=value, at most one per endpoint and
fault kind a minute) and the findings that become events (new, escalated, or still there after
`FINDING_REPEAT_S`)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ingest_doctor.findings import Finding, Report
from ingest_doctor.logfmt import LogLine, kv

FINDING_REPEAT_S = 15 * 60          # re-emit a finding that is still there at most this often
ERROR_LOG_EVERY_S = 60.0            # one log line per endpoint and error kind per minute at most


class ErrorLog:
    """One line per (endpoint, kind) per `every_s` at most; the next line says how
    many were held back. State is bounded: endpoints x kinds."""

    def __init__(self, every_s: float = ERROR_LOG_EVERY_S):
        self.every_s = every_s
        self._last: Dict[Tuple[str, str], float] = {}
        self._held: Dict[Tuple[str, str], int] = {}

    def report(self, endpoint: str, kind: str, now: float, **fields: Any) -> Optional[LogLine]:
        key = (endpoint, kind)
        last = self._last.get(key)
        if last is not None and now - last < self.every_s:
            self._held[key] = self._held.get(key, 0) + 1
            return None
        self._last[key] = now
        held = self._held.pop(key, 0)
        severity = "WARN" if kind in ("404",) else "ERROR"
        return LogLine(severity, kv("endpoint_error", endpoint=endpoint, kind=kind,
                                     repeated_since_last_log=held or None, **fields))


class FindingGate:
    """Which findings of a diagnosis become events.

    Only warning and critical (an `info` finding is a transient spike by the
    engine's own rule). A finding is emitted when it is new, when its severity
    changed, and again every `repeat_s` while it lasts, so the findings store's
    "resolve when not seen" (resolve_after_min) never closes a live one.
    A finding that disappears is forgotten after `repeat_s`, so a flapping one
    is not re-emitted on every flap.
    """

    def __init__(self, repeat_s: float = FINDING_REPEAT_S):
        self.repeat_s = repeat_s
        self._emitted: Dict[str, Tuple[str, float]] = {}   # id -> (severity, time emitted)
        self._seen: Dict[str, float] = {}                  # id -> time last present

    def select(self, report: Report, now: float) -> List[Finding]:
        out: List[Finding] = []
        for f in report.findings:
            if f.severity not in ("warning", "critical"):
                continue
            self._seen[f.id] = now
            prev = self._emitted.get(f.id)
            if prev is None or prev[0] != f.severity or now - prev[1] >= self.repeat_s:
                out.append(f)
                self._emitted[f.id] = (f.severity, now)
        for fid in [i for i, t in self._seen.items() if now - t >= self.repeat_s]:
            self._seen.pop(fid, None)
            self._emitted.pop(fid, None)
        return out

    def forget(self, finding_id: str) -> None:
        """A finding that resolved: emitted again as soon as it returns."""
        self._seen.pop(finding_id, None)
        self._emitted.pop(finding_id, None)
