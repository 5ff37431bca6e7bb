"""The collector's rolling window: the last polls' evidence that each poll's diagnosis judges."""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, Deque, Dict, List

from ingest_doctor import model
from ingest_doctor.engine.finite import samples_finite
from ingest_doctor.evidence import AVERAGES, LATEST, NAMES, PER_READ, SAMPLES, Evidence, policies

WINDOW_MAX_POLLS = 120              # the rolling window never holds more polls than this
THREAD_FLOOR_PCT = 10.0             # non-pipeline threads below this stay out of the diagnosis window
# What of a poll's samples the window keeps (every sample of the other fields; what a field is
# and how it merges is declared in evidence.py).
KEEPS: Dict[str, Callable[[Any], bool]] = {
    "queues": lambda q: q.queue in model.QUEUE_ORDER,
    "threads": lambda t: model.stage_for_thread(t.thread) is not None or t.busy_pct >= THREAD_FLOOR_PCT,
}
_LISTS = (SAMPLES, AVERAGES)


def _instant(items: List[Any]) -> List[Any]:
    """What an AVERAGES field of a poll keeps once a newer poll came: its instant samples."""
    return [x for x in items if x.window == "sample"]


class Window:
    """The last polls' evidence, capped in polls and in time, thinned with age.

    The sustained test reads the last `recent` samples of a series (3 of 4) and
    its average over `span_s` (10 minutes). So the newest `recent` polls are
    kept whole and older ones at one poll a minute: the 10-minute average stays
    an honest estimate while the diagnosis reads ~15 polls instead of 60 (at
    10 s) or 600 (at 1 s). Each poll keeps only what the rules read, the
    newest REST averages supersede older ones, and at most `max_polls` polls
    are held: memory is bounded whatever the interval. `merged` builds one Evidence from the
    polls each time it is asked (~50 us at 4 pipeline sets).
    """

    def __init__(self, max_polls: int, span_s: float, recent: int = 4, thin_s: float = 60.0):
        self.span_s = span_s
        self.recent = max(1, recent)
        self.thin_s = thin_s
        self.max_polls = max(self.recent, max_polls)
        self.polls: Deque[Evidence] = deque()
        self.times: Deque[float] = deque()
        self._fields: Dict[str, str] = {}                # field -> merge policy, of the polls' type
        self._nonfinite: Deque[bool] = deque()           # per poll: a sample kept has a NaN or infinite number

    def add(self, poll: Evidence, now: float) -> None:
        """Keep what the rules read of `poll`: each field by its merge policy (a poll's notes,
        PER_READ, are reported with the poll and not kept)."""
        if not self._fields:                # the polls' type (an Evidence, or a subclass with more fields)
            self._fields = {name: p.merge for name, p in policies(type(poll)).items()}
        keep = type(poll)()
        for name, policy in policies(type(poll)).items():
            value = getattr(poll, name)
            if policy.merge == PER_READ:
                continue
            if policy.merge in _LISTS:
                wanted = KEEPS.get(name)
                value = [x for x in value if wanted(x)] if wanted else list(value)
            elif policy.merge == NAMES:
                value = list(value)
            setattr(keep, name, value)
        self.polls.append(keep)
        self.times.append(now)
        self._nonfinite.append(not samples_finite(keep))
        # The poll that just left the recent part stays only a minute after the older one kept before it.
        n = len(self.times)
        if n > self.recent + 1:
            aging = n - self.recent - 1
            if self.times[aging] - self.times[aging - 1] < self.thin_s:
                self._drop(aging)
        while len(self.times) > 1 and (now - self.times[0] > self.span_s or len(self.times) > self.max_polls):
            self._drop(0)

    def _drop(self, i: int) -> None:
        """Cut poll `i` (never the newest) out of the window."""
        del self._nonfinite[i]
        del self.times[i]
        del self.polls[i]

    @property
    def finite(self) -> bool:
        """Every sample `merged` holds has finite numbers (each poll checked once, when it came): the
        diagnosis need not check them again (diagnose's `finite`)."""
        return not any(self._nonfinite)

    def merged(self) -> Evidence:
        """One Evidence of the window: the newest poll's LATEST values and NAMES, every poll's
        SAMPLES, every poll's instant AVERAGES samples and the newest poll's averages."""
        if not self.polls:
            return Evidence()
        last = self.polls[-1]
        ev = type(last)()
        for name, merge in self._fields.items():
            if merge == LATEST:
                setattr(ev, name, getattr(last, name))
            elif merge == NAMES:
                setattr(ev, name, list(getattr(last, name)))
            elif merge in _LISTS:
                items: List[Any] = []
                for p in self.polls:
                    mine = getattr(p, name)
                    items.extend(mine if p is last or merge == SAMPLES else _instant(mine))
                setattr(ev, name, items)
        return ev
