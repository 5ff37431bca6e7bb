"""Every threshold and window, with its default: the single source of truth.

SPL reaches each one as the macro `ingest_doctor_<name>` in default/macros.conf
(generated from this table). An admin who overrides a macro in local/macros.conf
changes the alerts; the collector, the CLI and the alert action read the same
macros back over REST (`configs/conf-macros`) and turn them into thresholds with
`from_macros()`, the one conversion, so the diagnosis engine judges with the same
numbers the searches use.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple


@dataclass(frozen=True)
class Setting:
    """One threshold: its default, unit and bounds."""
    name: str
    default: float
    unit: str
    low: float
    high: float
    description: str

    @property
    def macro(self) -> str:
        return PREFIX + self.name


SETTINGS: Tuple[Setting, ...] = (
    Setting("thread_busy_pct", 90, "%", 1, 100,
            "A thread busy at or above this % of one core is saturated."),
    Setting("sustained_samples", 3, "samples", 1, 100,
            "Samples over a threshold, out of the last `sustained_of_samples`, that make it sustained."),
    Setting("sustained_of_samples", 4, "samples", 1, 100,
            "How many recent samples the sustained test looks at."),
    Setting("sustained_window_min", 10, "min", 1, 1440,
            "Window whose average also makes a saturation sustained."),
    Setting("queue_fill_pct", 90, "%", 1, 100,
            "A queue at or above this sustained fill % is full."),
    Setting("host_cpu_pct", 90, "%", 1, 100,
            "Host CPU use at or above this % leaves no headroom: more pipelines will not help."),
    Setting("cpu_headroom_pct", 60, "%", 1, 100,
            "Host CPU use below this % leaves headroom for another pipeline set."),
    Setting("hidden_saturation_cpu_pct", 25, "%", 1, 100,
            "splunkd total CPU below this % of all cores while one thread is pegged is the hidden single-core trap."),
    Setting("regex_cpu_share_pct", 50, "%", 1, 100,
            "regexreplacement above this share of the typing stage's CPU makes typing regex-bound."),
    Setting("imbalance_idle_pct", 30, "%", 0, 100,
            "A pipeline set busy below this % while another is saturated is idle (imbalance)."),
    Setting("hec_latency_ms", 1000, "ms", 1, 600000,
            "HEC probe round-trip at or above this is high latency."),
    Setting("headroom_min_busy_pct", 5, "%", 0.1, 100,
            "Headroom (throughput before a stage pegs) is estimated only for threads busy at least this % of one core."),
    Setting("data_age_s", 120, "s", 1, 86400,
            "Events indexed this many seconds or more after their timestamp (metrics.log avg_age) are late."),
    Setting("hec_busy_replies", 1, "replies", 1, 1000000,
            "reply=9 (Server is busy) errors in the window at or above this count flag HEC busy."),
    Setting("resolve_after_min", 60, "min", 1, 10080,
            "A finding not seen for this long is marked resolved."),
    Setting("log_window_min", 30, "min", 1, 1440,
            "How much recent metrics.log/splunkd.log history the diagnosis reads (snapshots, CLI)."),
    Setting("silence_after_min", 5, "min", 1, 1440,
            "An instance whose metrics.log has not arrived for this long (it did in the last 24 hours) is silent."),
    Setting("silence_kb", 1, "KB", 0, 1000000,
            "A silent instance whose receivers got at most this many KB from it over the silence window "
            "is connected but sending nothing (output blocked)."),
)

# Words, not a tunable threshold: a thread at or above this % of one core is "pegged" ("at a full core");
# one over its tuned `thread_busy_pct` but under this is "over its threshold", with both numbers.
PEGGED_PCT = 95.0

BY_NAME: Dict[str, Setting] = {s.name: s for s in SETTINGS}


PREFIX = "ingest_doctor_"

# The dashboards' colour bands below a threshold (fixed when the views are generated, not tunable):
# a thread or queue at or above BUSY_PCT and under its threshold is "busy" (amber), below it green.
BUSY_PCT = 60
# HEC batching on the dashboards: fewer events per request than CHATTY_EVENTS_PER_REQUEST is red,
# fewer than BATCHED_EVENTS_PER_REQUEST amber.
CHATTY_EVENTS_PER_REQUEST = 5
BATCHED_EVENTS_PER_REQUEST = 20


class ThresholdError(ValueError):
    pass


def name_of(key: str) -> str:
    """A setting's name from its name or its macro's name."""
    return key[len(PREFIX):] if key.startswith(PREFIX) else key


class Thresholds:
    """Threshold values by setting name, read as attributes."""

    def __init__(self, values: Mapping[str, float]):
        self.values = values
        # Each value an attribute of its own: read in every series judged, where a __getattr__ (a failed
        # lookup first) cost more than the judging.
        for name, value in values.items():
            if name.isidentifier() and name not in ("values",) and not hasattr(type(self), name):
                setattr(self, name, value)

    def __eq__(self, other: object) -> bool:
        return self.values == other.values if isinstance(other, Thresholds) else NotImplemented

    __hash__ = None     # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Thresholds(values=%r)" % (self.values,)

    def __getattr__(self, name: str) -> float:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


def defaults() -> Thresholds:
    return Thresholds({s.name: s.default for s in SETTINGS})


def load(overrides: Optional[Mapping[str, object]] = None) -> Thresholds:
    """Defaults, with overrides keyed by setting name or macro name.

    Unknown names and out-of-range values raise ThresholdError naming them:
    a typo in a tuned macro must not silently fall back to the default.
    """
    values = {s.name: s.default for s in SETTINGS}
    for key, raw in (overrides or {}).items():
        name = name_of(key)
        setting = BY_NAME.get(name)
        if setting is None:
            raise ThresholdError("unknown threshold %r" % key)
        try:
            value = float(str(raw).strip())
        except ValueError:
            raise ThresholdError("threshold %s=%r is not a number" % (name, raw)) from None
        if not setting.low <= value <= setting.high:
            raise ThresholdError("threshold %s=%s is outside %s..%s" % (name, raw, setting.low, setting.high))
        values[name] = value
    return Thresholds(values)


def tuned(macros: Mapping[str, str]) -> Dict[str, str]:
    """The threshold macros among `macros` (name -> definition), as load() takes them."""
    return {s.macro: macros[s.macro] for s in SETTINGS if s.macro in macros}


def from_macros(macros: Optional[Mapping[str, str]], overrides: Optional[Mapping[str, object]] = None,
                strict: bool = False) -> Tuple[Thresholds, List[str]]:
    """The thresholds to judge with, from the macros as splunkd lists them (name -> definition;
    the other macros ignored), then `overrides` (setting or macro names: the CLI's --threshold),
    and the problems.

    An invalid override raises ThresholdError. An invalid macro raises it too when `strict` (the
    alert action: its searches ran with that very macro), else it is left at its default and
    named in the problems (the collector and the CLI judge with what is valid)."""
    values: Dict[str, object] = {}
    problems: List[str] = []
    for macro, definition in tuned(macros or {}).items():
        try:
            load({macro: definition})
            values[macro] = definition
        except ThresholdError as e:
            if strict:
                raise
            problems.append(str(e))
    th = load(values)
    if overrides:
        merged: Dict[str, object] = dict(th.values)
        merged.update((name_of(key), value) for key, value in overrides.items())
        th = load(merged)
    return th, problems


def changed(th: Thresholds) -> Dict[str, float]:
    """The settings that differ from their defaults (for a log line)."""
    return {s.name: th.values[s.name] for s in SETTINGS if th.values[s.name] != s.default}
