"""Findings: the output of the diagnosis, exactly as the contract's section 2 says."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ingest_doctor import model

BOTTLENECKS = model.BOTTLENECKS
SEVERITIES = ("info", "warning", "critical")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


class Flat:
    """A dataclass of plain values, whose dict is every field by its name, in the order declared."""

    def to_dict(self) -> Dict[str, Any]:
        # Its fields' values as they are: they are plain already, so dataclasses.asdict's recursive copy of
        # each cost about 1 s of the action's 10,000-host run (380,000 evidence items and recommendations).
        # Not vars(self): that makes each instance keep a __dict__ of its own (+20 MB of the action's RSS).
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass
class EvidenceItem(Flat):
    """One measured signal a finding rests on."""
    signal: str
    value: Any
    unit: str
    window: str
    source: str


@dataclass
class Recommendation(Flat):
    """One change to make, in which conf file, stanza and setting."""
    action: str
    conf_file: Optional[str] = None
    stanza: Optional[str] = None
    setting: Optional[str] = None
    current: Optional[str] = None
    suggested: Optional[str] = None


def finding_id(host: Optional[str], bottleneck: str, pipeline_set: Optional[int]) -> str:
    """Stable for the same problem at the same place: repeated detections update one record."""
    return "%s/%s/%s" % (host or "-", bottleneck, "-" if pipeline_set is None else pipeline_set)


@dataclass
class Finding:
    """One bottleneck or symptom, as the contract names its fields."""
    bottleneck: str
    severity: str
    host: Optional[str]
    pipeline_set: Optional[int]
    component: Optional[str]
    summary: str
    evidence: List[EvidenceItem] = field(default_factory=list)
    recommendations: List[Recommendation] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.bottleneck not in BOTTLENECKS:
            raise ValueError("unknown bottleneck %r" % self.bottleneck)
        if self.severity not in SEVERITIES:
            raise ValueError("unknown severity %r" % self.severity)

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


@dataclass
class Headroom:
    """How far one stage of one pipeline set can go: its busy share of one core for the throughput it
    carries now, so it pegs at about throughput / busy share (linear; `caveat` says when that is not so).
    Both figures are averages over the same recent window (`window`), never one burst sample."""
    stage: str
    pipeline_set: Optional[int]
    busy_pct: float  # % of one core
    eps: Optional[float]  # events/s the set carries now (group=thruput name=index_thruput)
    kbps: float
    window: str
    source: str
    caveat: str = ""
    pegged: bool = False  # at or over thread_busy_pct already: no headroom

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


@dataclass
class Report:
    """The judgement of one instance: findings, what was not judged, headroom."""
    host: Optional[str]
    findings: List[Finding] = field(default_factory=list)
    not_judged: List[str] = field(default_factory=list)
    # The contract allows a `headroom` list beside the other fields (section 5): one entry per stage and
    # pipeline set, healthy or not.
    headroom: List[Headroom] = field(default_factory=list)

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
