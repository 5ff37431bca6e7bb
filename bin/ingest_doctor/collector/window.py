"""The collector's rolling window: the last polls' evidence that each poll's diagnosis judges."""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, Deque, Dict

from ingest_doctor import model
from ingest_doctor.evidence import AVERAGES, LATEST, NAMES, PER_READ, SAMPLES, Evidence, policies

WINDOW_MAX_POLLS = 120              # the rolling window never holds more polls than this
THREAD_FLOOR_PCT = 10.0             # non-pipeline threads below this stay out of the diagnosis window
# What of a poll's samples the window keeps (every sample of the other fields; what a field is
# and how it merges is declared in evidence.py).
KEEPS: Dict[str, Callable[[Any], bool]] = {
    "queues": lambda q: q.queue in model.QUEUE_ORDER,
    "threads": lambda t: model.stage_for_thread(t.thread) is not None or t.busy_pct >= THREAD_FLOOR_PCT,
}


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
        """Keep what the rules read of `poll`: each field by its merge policy (a poll's notes,
        PER_READ, are reported with the poll and not kept)."""
        keep = type(poll)()
        for name, policy in policies(type(poll)).items():
            value = getattr(poll, name)
            if policy.merge == PER_READ:
                continue
            if policy.merge in (SAMPLES, AVERAGES):
                wanted = KEEPS.get(name)
                value = [x for x in value if wanted(x)] if wanted else list(value)
            elif policy.merge == NAMES:
                value = list(value)
            setattr(keep, name, value)
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
        """One Evidence of the window: the newest poll's LATEST values and NAMES, every poll's
        SAMPLES, every poll's instant AVERAGES samples and the newest poll's averages."""
        if not self.polls:
            return Evidence()
        last = self.polls[-1]
        ev = type(last)()
        for name, policy in policies(type(last)).items():
            if policy.merge == LATEST:
                setattr(ev, name, getattr(last, name))
            elif policy.merge == NAMES:
                setattr(ev, name, list(getattr(last, name)))
            elif policy.merge == SAMPLES:
                out = getattr(ev, name)
                for p in self.polls:
                    out.extend(getattr(p, name))
            elif policy.merge == AVERAGES:
                out = getattr(ev, name)
                for p in self.polls:
                    out.extend(x for x in getattr(p, name) if p is last or x.window == "sample")
        return ev
