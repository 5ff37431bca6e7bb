"""Findings: the output of the diagnosis, exactly as the contract's section 2 says."""
from __future__ import annotations

import math

from ingest_doctor import model
from ingest_doctor.record import Record, fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional

BOTTLENECKS = model.BOTTLENECKS
SEVERITIES = ("info", "warning", "critical")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


class Flat(Record):
    """A record of plain values, whose dict is every field by its name, in the order declared. The two
    the action writes thousands of a run spell both dicts out (three times the speed of this loop);
    tests/delivery pins each equal to these."""
    __slots__ = ()

    def to_dict(self) -> Dict[str, Any]:
        return {n: getattr(self, n) for n in fields(self)}

    def sorted_dict(self) -> Dict[str, Any]:
        """to_dict() with its keys in sorted order: a plain encoder writes of it what a sort_keys encoder
        writes of to_dict() (when no value is itself a dict)."""
        return {n: getattr(self, n) for n in sorted(fields(self))}


class EvidenceItem(Flat):
    """One measured signal a finding rests on."""
    __slots__ = ("signal", "value", "unit", "window", "source")

    def __init__(self, signal: str, value: Any, unit: str, window: str, source: str):
        self.signal = signal
        self.value = value
        self.unit = unit
        self.window = window
        self.source = source

    def to_dict(self) -> Dict[str, Any]:
        return {"signal": self.signal, "value": self.value, "unit": self.unit, "window": self.window,
                "source": self.source}

    def sorted_dict(self) -> Dict[str, Any]:
        return {"signal": self.signal, "source": self.source, "unit": self.unit, "value": self.value,
                "window": self.window}


class Recommendation(Flat):
    """One change to make, in which conf file, stanza and setting."""
    __slots__ = ("action", "conf_file", "stanza", "setting", "current", "suggested")

    def __init__(self, action: str, conf_file: Optional[str] = None, stanza: Optional[str] = None,
                 setting: Optional[str] = None, current: Optional[str] = None, suggested: Optional[str] = None):
        self.action = action
        self.conf_file = conf_file
        self.stanza = stanza
        self.setting = setting
        self.current = current
        self.suggested = suggested

    def to_dict(self) -> Dict[str, Any]:
        return {"action": self.action, "conf_file": self.conf_file, "stanza": self.stanza, "setting": self.setting,
                "current": self.current, "suggested": self.suggested}

    def sorted_dict(self) -> Dict[str, Any]:
        return {"action": self.action, "conf_file": self.conf_file, "current": self.current,
                "setting": self.setting, "stanza": self.stanza, "suggested": self.suggested}


def finding_id(host: Optional[str], bottleneck: str, pipeline_set: Optional[int]) -> str:
    """Stable for the same problem at the same place: repeated detections update one record."""
    return "%s/%s/%s" % (host or "-", bottleneck, "-" if pipeline_set is None else pipeline_set)


class Finding(Record):
    """One bottleneck or symptom, as the contract names its fields."""
    __slots__ = ("bottleneck", "severity", "host", "pipeline_set", "component", "summary", "evidence",
                 "recommendations")

    def __init__(self, bottleneck: str, severity: str, host: Optional[str], pipeline_set: Optional[int],
                 component: Optional[str], summary: str, evidence: Optional[List[EvidenceItem]] = None,
                 recommendations: Optional[List[Recommendation]] = None):
        if bottleneck not in BOTTLENECKS:
            raise ValueError("unknown bottleneck %r" % bottleneck)
        if severity not in SEVERITIES:
            raise ValueError("unknown severity %r" % severity)
        self.bottleneck = bottleneck
        self.severity = severity
        self.host = host
        self.pipeline_set = pipeline_set
        self.component = component
        self.summary = summary
        self.evidence = [] if evidence is None else evidence
        self.recommendations = [] if recommendations is None else recommendations

    @property
    def id(self) -> str:
        return finding_id(self.host, self.bottleneck, self.pipeline_set)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "id": self.id,
            "bottleneck": self.bottleneck,
            "severity": self.severity,
            "host": self.host,
            "pipeline_set": self.pipeline_set,
            "component": self.component,
            "summary": self.summary,
            "evidence": [e.to_dict() for e in self.evidence],
            "recommendations": [r.to_dict() for r in self.recommendations],
        }


class Headroom(Record):
    """How far one stage of one pipeline set can go: its busy share of one core for the throughput it
    carries now, so it pegs at about throughput / busy share (linear; `caveat` says when that is not so).
    Both figures are averages over the same recent window (`window`), never one burst sample."""
    __slots__ = ("stage", "pipeline_set", "busy_pct", "eps", "kbps", "window", "source", "caveat", "pegged")

    def __init__(self, stage: str, pipeline_set: Optional[int], busy_pct: float, eps: Optional[float],
                 kbps: float, window: str, source: str, caveat: str = "", pegged: bool = False):
        self.stage = stage
        self.pipeline_set = pipeline_set
        self.busy_pct = busy_pct    # % of one core
        self.eps = eps              # events/s the set carries now (group=thruput name=index_thruput)
        self.kbps = kbps
        self.window = window
        self.source = source
        self.caveat = caveat
        self.pegged = pegged        # at or over thread_busy_pct already: no headroom

    def _pegs_at(self, now: Optional[float]) -> Optional[float]:
        """The rate at which it pegs, of a rate it carries `now` (that one when it is pegged already); None
        when either is not a finite number (a 1e308 events/s average overflows: never inf in a report)."""
        if now is None or not math.isfinite(now):
            return None
        at = now if self.pegged else now * 100.0 / self.busy_pct
        return at if math.isfinite(at) else None

    @property
    def saturates_eps(self) -> Optional[float]:
        """The events/s at which it pegs (today's when it is pegged already)."""
        return self._pegs_at(self.eps)

    @property
    def saturates_kbps(self) -> Optional[float]:
        return self._pegs_at(self.kbps)

    @property
    def headroom_eps(self) -> Optional[float]:
        """Events/s more before it pegs: none (0) at or over its threshold, never positive there."""
        at = self.saturates_eps
        return None if at is None or self.eps is None else max(0.0, at - self.eps)

    @property
    def at_load_x(self) -> float:
        """The multiple of today's load at which it pegs (1.0: pegged now)."""
        return 1.0 if self.pegged else 100.0 / self.busy_pct

    def to_dict(self) -> Dict[str, Any]:
        def rnd(v: Optional[float], digits: Optional[int] = None) -> Optional[float]:
            return None if v is None or not math.isfinite(v) else round(v, digits)
        return {"stage": self.stage, "pipeline_set": self.pipeline_set, "busy_pct": round(self.busy_pct, 1),
                "eps": rnd(self.eps), "kbps": rnd(self.kbps, 1), "pegs_at_eps": rnd(self.saturates_eps),
                "headroom_eps": rnd(self.headroom_eps), "at_load_x": round(self.at_load_x, 2),
                "pegged": self.pegged, "headroom": "none left" if self.pegged else
                ("about %s events/s" % "{:,.0f}".format(self.headroom_eps) if self.headroom_eps is not None
                 else "about %.1fx today's load" % self.at_load_x),
                "window": self.window, "source": self.source, "caveat": self.caveat}


class Report(Record):
    """The judgement of one instance: findings, what was not judged, headroom."""
    __slots__ = ("host", "findings", "not_judged", "headroom")

    def __init__(self, host: Optional[str], findings: Optional[List[Finding]] = None,
                 not_judged: Optional[List[str]] = None, headroom: Optional[List[Headroom]] = None):
        self.host = host
        self.findings = [] if findings is None else findings
        self.not_judged = [] if not_judged is None else not_judged
        # The contract allows a `headroom` list beside the other fields (section 5): one entry per stage and
        # pipeline set, healthy or not.
        self.headroom = [] if headroom is None else headroom

    @property
    def healthy(self) -> bool:
        return not any(f.severity in ("warning", "critical") for f in self.findings)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "host": self.host,
            "healthy": self.healthy,
            "not_judged": list(self.not_judged),
            "findings": [f.to_dict() for f in self.findings],
            "headroom": [h.to_dict() for h in self.headroom],
        }
