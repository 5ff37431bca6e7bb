"""The collector's rolling window: the last polls' evidence that each poll's diagnosis judges."""
from __future__ import annotations

from collections import deque
from typing import Any, Deque, Dict, List

from ingest_doctor import model
from ingest_doctor.evidence import Evidence, QueueSample

WINDOW_MAX_POLLS = 120              # the rolling window never holds more polls than this
THREAD_FLOOR_PCT = 10.0             # non-pipeline threads below this stay out of the diagnosis window


_PARTS = ("threads", "pipelinesets", "hec_probes", "cpu")     # merged whole from every poll kept


class Window:
    """The last polls' evidence, capped in polls and in time, thinned with age.

    The sustained test reads the last `recent` samples of a series (3 of 4) and
    its average over `span_s` (10 minutes). So the newest `recent` polls are
    kept whole and older ones at one poll a minute: the 10-minute average stays
    an honest estimate while the diagnosis reads ~15 polls instead of 60 (at
    10 s) or 600 (at 1 s). Each poll keeps only what the rules read, the
    newest REST averages supersede older ones, and at most `max_polls` polls
    are held: memory is bounded whatever the interval.

    The merged evidence is kept up to date incrementally: a poll's items are
    appended when it arrives and cut out (one slice per list) when it leaves, so
    `merged()` never walks the window. `rebuilt()` merges from scratch; a test
    holds the two equal.
    """

    def __init__(self, max_polls: int, span_s: float, recent: int = 4, thin_s: float = 60.0):
        self.span_s = span_s
        self.recent = max(1, recent)
        self.thin_s = thin_s
        self.max_polls = max(self.recent, max_polls)
        self.polls: Deque[Evidence] = deque()
        self.times: Deque[float] = deque()
        # The merged lists, in poll order: every poll's sample queues, and all of the newest poll's
        # queues (its REST averages too, which supersede the older polls').
        self._queues: List[QueueSample] = []
        self._parts: Dict[str, List[Any]] = {name: [] for name in _PARTS}
        self._samples: Deque[int] = deque()          # per poll: how many sample queues it has
        self._newest = 0                             # the newest poll's queues at the end of _queues

    def add(self, poll: Evidence, now: float) -> None:
        keep = Evidence(
            host=poll.host,
            queues=[q for q in poll.queues if q.queue in model.QUEUE_ORDER],
            threads=[t for t in poll.threads
                     if model.stage_for_thread(t.thread) is not None or t.busy_pct >= THREAD_FLOOR_PCT],
            pipelinesets=list(poll.pipelinesets),
            hec_probes=list(poll.hec_probes),
            indexer=poll.indexer, host_cpu=poll.host_cpu, config=poll.config,
            cpu=list(poll.cpu), health=poll.health, sources=list(poll.sources))
        if self.polls:                              # the previous newest's averages are superseded
            del self._queues[len(self._queues) - self._newest:]
            self._queues.extend(q for q in self.polls[-1].queues if q.window == "sample")
        self._queues.extend(keep.queues)
        self._newest = len(keep.queues)
        self._samples.append(sum(1 for q in keep.queues if q.window == "sample"))
        for name in _PARTS:
            self._parts[name].extend(getattr(keep, name))
        self.polls.append(keep)
        self.times.append(now)
        # The poll that just left the recent part stays only a minute after the older one kept before it.
        n = len(self.times)
        if n > self.recent + 1:
            aging = n - self.recent - 1
            if self.times[aging] - self.times[aging - 1] < self.thin_s:
                self._drop(aging)
        while len(self.times) > 1 and (now - self.times[0] > self.span_s or len(self.times) > self.max_polls):
            self._drop(0)

    def _drop(self, i: int) -> None:
        """Cut poll `i` (never the newest) out of the window and out of the merged lists."""
        start = sum(self._samples[k] for k in range(i))
        del self._queues[start:start + self._samples[i]]
        for name in _PARTS:
            start = sum(len(getattr(self.polls[k], name)) for k in range(i))
            del self._parts[name][start:start + len(getattr(self.polls[i], name))]
        del self._samples[i]
        del self.times[i]
        del self.polls[i]

    def merged(self) -> Evidence:
        if not self.polls:
            return Evidence()
        last = self.polls[-1]
        ev = Evidence(host=last.host, indexer=last.indexer, host_cpu=last.host_cpu, config=last.config,
                      health=last.health, sources=list(last.sources))
        ev.queues = list(self._queues)
        for name in _PARTS:
            setattr(ev, name, list(self._parts[name]))
        return ev

    def rebuilt(self) -> Evidence:
        """The merged evidence built from the polls themselves (what `merged` keeps up to date)."""
        if not self.polls:
            return Evidence()
        last = self.polls[-1]
        ev = Evidence(host=last.host, indexer=last.indexer, host_cpu=last.host_cpu, config=last.config,
                      health=last.health, sources=list(last.sources))
        n = len(self.polls)
        for i, p in enumerate(self.polls):
            newest = i == n - 1
            ev.queues.extend(q for q in p.queues if newest or q.window == "sample")
            ev.threads.extend(p.threads)
            ev.pipelinesets.extend(p.pipelinesets)
            ev.hec_probes.extend(p.hec_probes)
            ev.cpu.extend(p.cpu)
        return ev
