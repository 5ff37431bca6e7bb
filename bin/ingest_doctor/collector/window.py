"""The collector's rolling window: the last polls' evidence that each poll's diagnosis judges."""
from __future__ import annotations

from collections import deque
from typing import Deque

from ingest_doctor import model
from ingest_doctor.evidence import Evidence

WINDOW_MAX_POLLS = 120              # the rolling window never holds more polls than this
THREAD_FLOOR_PCT = 10.0             # non-pipeline threads below this stay out of the diagnosis window


class Window:
    """The last polls' evidence, capped in polls and in time, thinned with age.

    The sustained test reads the last `recent` samples of a series (3 of 4) and
    its average over `span_s` (10 minutes). So the newest `recent` polls are
    kept whole and older ones at one poll a minute: the 10-minute average stays
    an honest estimate while the diagnosis reads ~15 polls instead of 60 (at
    10 s) or 600 (at 1 s). Each poll keeps only what the rules read, the
    newest REST averages supersede older ones, and at most `max_polls` polls
    are held: memory is bounded whatever the interval.
    """

    def __init__(self, max_polls: int, span_s: float, recent: int = 4, thin_s: float = 60.0):
        self.span_s = span_s
        self.recent = max(1, recent)
        self.thin_s = thin_s
        self.max_polls = max(self.recent, max_polls)
        self.polls: Deque[Evidence] = deque()
        self.times: Deque[float] = deque()

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
        self.polls.append(keep)
        self.times.append(now)
        # The poll that just left the recent part stays only a minute after the older one kept before it.
        n = len(self.times)
        if n > self.recent + 1:
            aging = n - self.recent - 1
            if self.times[aging] - self.times[aging - 1] < self.thin_s:
                del self.times[aging]
                del self.polls[aging]
        while len(self.times) > 1 and (now - self.times[0] > self.span_s or len(self.times) > self.max_polls):
            self.times.popleft()
            self.polls.popleft()

    def merged(self) -> Evidence:
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
