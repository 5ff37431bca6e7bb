"""Evidence + thresholds -> Report: name the stage that limits throughput.

The contract's entry point. The reasoning lives in `engine/rules/`, one module per rule,
run in the order of `rules.RULES`:
1. Queues: the bottleneck is the stage draining the LAST full queue.
2. Threads and stage CPU pegged at one core make their stage a bottleneck.
3. Symptoms (HEC 503 / reply=9 / health 18-20) go to the downstream bottleneck
   when queues are full; only otherwise are they a `hec_input` finding.
4. Index processor throttled, host CPU exhausted, pipeline-set imbalance, and
   the hidden single-core trap (one core pegged on a many-core host).
A series that crossed a threshold without being sustained gives `info` at most.
"""
from __future__ import annotations

from typing import Mapping, Union

from ingest_doctor.engine import rules
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.evidence import Evidence
from ingest_doctor.findings import Report

ThresholdsArg = Union[None, thresholds_mod.Thresholds, Mapping[str, object]]

__all__ = ["diagnose"]


def _thresholds(t: ThresholdsArg) -> thresholds_mod.Thresholds:
    if t is None:
        return thresholds_mod.defaults()
    if isinstance(t, thresholds_mod.Thresholds):
        return t
    return thresholds_mod.load(t)


def diagnose(evidence: Evidence, thresholds: ThresholdsArg = None, finite: bool = False) -> Report:
    """Judge one instance's evidence. Never raises on odd data; thresholds may be
    a Thresholds, a mapping of overrides (setting or macro names), or None. `finite`: the caller checked that every sample's numbers are
    finite (the window's `finite`, each poll checked once): they are not checked again."""
    return rules.run(evidence, _thresholds(thresholds), finite=finite)
