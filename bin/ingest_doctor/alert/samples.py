"""One host's thread and queue samples, kept as numbers.

A results file of 100k rows of 20 samples each (what the detection searches write for a large
deployment) carries 2M samples: as ThreadSample / QueueSample objects they cost ~250 bytes each
(issue 23: ~435 MB). Here they cost 17 bytes each: flat arrays of times, values and blocked marks,
and one run per row (per queue of a queue_fill row) naming what its samples are. The action judges
one host at a time (alert/action.py judge) from `Lean` sequences: the diagnosis reads their runs of
numbers, and makes no sample object (issue 21). `threads()` and `queues()` build the objects, in the
order rows_to_evidence has always given them, for a reader that iterates them.
"""
from __future__ import annotations

import math
from array import array
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

from ingest_doctor.evidence import QueueSample, ThreadSample
from ingest_doctor.engine.grouping import Run as SeriesRun      # a run as the engine groups it

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


class Lean(Sequence):
    """One host's thread (or queue) samples: those of its rows, kept as numbers, then `extra` (the objects
    its Evidence holds already: local_config's). A sequence of ThreadSample / QueueSample, exactly
    `Samples.threads() + extra` (`queues()`), made when something iterates it; the diagnosis reads its
    `runs()` and `psets()` instead (engine/grouping.py, engine/rules/state.py), and never makes them."""
    __slots__ = ("_smp", "_queue", "_extra", "_made")

    def __init__(self, smp: Samples, queue: bool, extra: List[Any]):
        self._smp, self._queue, self._extra = smp, queue, extra
        self._made: Optional[List[Any]] = None

    def _objects(self) -> List[Any]:
        if self._made is None:
            self._made = (self._smp.queues() if self._queue else self._smp.threads()) + self._extra
        return self._made

    def __len__(self) -> int:
        return sum(b - a for q, _, _, _, _, a, b in self._smp.runs if q == self._queue) + len(self._extra)

    def __bool__(self) -> bool:
        return bool(self._extra) or any(q == self._queue and b > a for q, _, _, _, _, a, b in self._smp.runs)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._objects())

    def __getitem__(self, i: Union[int, slice]) -> Any:
        return self._objects()[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (list, Lean)) and self._objects() == list(other)

    __hash__ = None     # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Lean(%r)" % self._objects()

    def runs(self) -> Iterator[SeriesRun]:
        """Each run of samples, in order: the rows' (as array slices), then each `extra` sample alone."""
        smp = self._smp
        times, values, blocked = smp.times, smp.values, smp.blocked
        for queue, name, pset, window, src, a, b in smp.runs:
            if queue == self._queue and b > a:
                yield (name, pset, window, src, times[a:b], values[a:b],
                       blocked[a:b] if queue and blocked.find(1, a, b) >= 0 else None)
        for x in self._extra:
            if self._queue:
                yield x.queue, x.pipeline_set, x.window, x.source, (x.time,), (x.fill_pct,), (1,) if x.blocked else None
            else:
                yield x.thread, x.pipeline_set, x.window, x.source, (x.time,), (x.busy_pct,), None

    def psets(self) -> Set[Optional[int]]:
        """{s.pipeline_set for s in self}, without making the samples."""
        out = {p for q, _, p, _, _, a, b in self._smp.runs if q == self._queue and b > a}
        out.update(x.pipeline_set for x in self._extra)
        return out


class Interned:
    """One string object per distinct name or source over a whole results file (100k rows name the
    same few threads, queues and sources)."""
    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: Dict[str, str] = {}

    def __call__(self, s: str) -> str:
        return self._seen.setdefault(s, s)
