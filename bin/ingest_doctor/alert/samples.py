"""One host's thread and queue samples, kept as numbers until that host is judged.

A results file of 100k rows of 20 samples each (what the detection searches write for a large
deployment) carries 2M samples: as ThreadSample / QueueSample objects they cost ~250 bytes each
(issue 23: ~435 MB). Here they cost 17 bytes each: flat arrays of times, values and blocked marks,
and one run per row (per queue of a queue_fill row) naming what its samples are. The action judges
one host at a time (alert/action.py judge): `threads()` and `queues()` build that host's objects,
in the order rows_to_evidence has always given them, and they are dropped once judged.
"""
from __future__ import annotations

import math
from array import array
from typing import Dict, List, Optional, Sequence, Tuple

from ingest_doctor.evidence import QueueSample, ThreadSample

# (is a queue, thread or queue name, pipeline set, window, source, first index, end index)
Run = Tuple[bool, str, Optional[int], str, str, int, int]


class Samples:
    __slots__ = ("runs", "times", "values", "blocked")

    def __init__(self) -> None:
        self.runs: List[Run] = []
        self.times = array("d")
        self.values = array("d")
        self.blocked = bytearray()

    def add(self, queue: bool, name: str, pset: Optional[int], window: str, source: str,
            times: Sequence[float], values: Sequence[float], blocked: Optional[Sequence[int]] = None) -> None:
        start = len(self.times)
        self.times.extend(times)
        self.values.extend(values)
        self.blocked.extend(blocked if blocked is not None else bytes(len(times)))
        self.runs.append((queue, name, pset, window, source, start, len(self.times)))

    def __len__(self) -> int:
        return len(self.times)

    def finite(self) -> bool:
        """Every time and value is a finite number (False also when a sum overflows: then the diagnosis
        checks each sample, as it does without this)."""
        return math.isfinite(sum(self.times)) and math.isfinite(sum(self.values))

    def threads(self) -> List[ThreadSample]:
        out: List[ThreadSample] = []
        times, values = self.times, self.values
        for queue, name, pset, window, src, a, b in self.runs:
            if not queue:
                out += [ThreadSample(t, name, v, pset, window, src) for t, v in zip(times[a:b], values[a:b])]
        return out

    def queues(self) -> List[QueueSample]:
        out: List[QueueSample] = []
        times, values, blocked = self.times, self.values, self.blocked
        for queue, name, pset, window, src, a, b in self.runs:
            if not queue:
                continue
            if blocked.find(1, a, b) < 0:       # most queues are never blocked: no mark to read a sample
                out += [QueueSample(t, name, pset, v, window, False, src) for t, v in zip(times[a:b], values[a:b])]
            else:
                out += [QueueSample(t, name, pset, v, window, f == 1, src)
                        for t, v, f in zip(times[a:b], values[a:b], blocked[a:b])]
        return out


class Interned:
    """One string object per distinct name or source over a whole results file (100k rows name the
    same few threads, queues and sources)."""
    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: Dict[str, str] = {}

    def __call__(self, s: str) -> str:
        return self._seen.setdefault(s, s)
