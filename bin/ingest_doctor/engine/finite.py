"""Numbers the engine cannot judge: samples whose declared numbers (evidence.py, each field's
`finite`) are NaN or infinite are dropped before the rules run, and a record's are unset.

`samples_finite` lets a caller that holds its samples apart vouch for them once (the collector's
window checks each poll when it arrives, the action its rows' arrays): `diagnose(..., finite=True)`
then does not check them again.
"""
from __future__ import annotations

import math
import operator
from dataclasses import is_dataclass, replace
from typing import Any, List, Optional, Tuple

from ingest_doctor.evidence import Evidence, policies


def _finite(v: Optional[float]) -> bool:
    return v is not None and not (isinstance(v, float) and (math.isnan(v) or math.isinf(v)))


def _all_finite(items: List[Any], attrs: Tuple[str, ...]) -> bool:
    """Every item's `attrs` are finite numbers, by the fast path: a NaN or an infinity anywhere makes the
    sum non-finite. False also when it cannot tell (a None, an overflow): then each item is checked."""
    try:
        return math.isfinite(sum(sum(map(operator.attrgetter(a), items)) for a in attrs))
    except (TypeError, OverflowError):
        return False


def samples_finite(ev: Evidence) -> bool:
    """True when every sample of `ev`'s list fields has finite numbers, as `sanitise` checks them (False
    also when the fast path cannot tell): `sanitise(ev, lists_finite=True)` then judges the same."""
    for name, policy in policies(type(ev)).items():
        value = getattr(ev, name)
        if policy.finite and value and not is_dataclass(value) and not _all_finite(value, policy.finite):
            return False
    return True


def sanitise(ev: Evidence, lists_finite: bool = False) -> Tuple[Evidence, int]:
    """A copy without samples whose numbers are NaN or infinite (never mutates the caller's window): the
    numbers each field declares finite (evidence.py). `lists_finite`: the caller checked the samples
    already (the collector's window checks each poll once, when it arrives): only records are checked."""
    dropped = 0

    def keep(items, *attrs):
        nonlocal dropped
        if _all_finite(items, attrs):
            return items
        out = [x for x in items if all(getattr(x, a) is None or _finite(getattr(x, a)) for a in attrs)]
        dropped += len(items) - len(out)
        return out

    changes = {}
    for name, policy in policies(type(ev)).items():
        value = getattr(ev, name)
        if not policy.finite or value is None:
            continue
        if not is_dataclass(value):      # a list, or a sequence of samples (the action's Lean)
            changes[name] = value if lists_finite else keep(value, *policy.finite)
        else:   # a record: its non-finite numbers become unknown
            changes[name] = replace(value, **{
                a: getattr(value, a) if getattr(value, a) is None or _finite(getattr(value, a)) else None
                for a in policy.finite})
    clean = replace(ev, **changes)
    return clean, dropped
