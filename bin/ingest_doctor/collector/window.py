"""The collector's rolling window: the last polls' evidence that each poll's diagnosis judges."""
from __future__ import annotations

import copy
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple

from ingest_doctor import model
from ingest_doctor.engine.rules.state import samples_finite
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
    are held: memory is bounded whatever the interval.

    The merged lists are kept up to date poll by poll (a poll adds its part, a poll that leaves
    cuts its part out), so `merged` costs a copy, not a rebuild. The diagnosis judges incrementally too: `parts` hands it the rules' groupings
    (series by queue, by thread) poll by poll, each poll grouped once and kept while it stays in
    the window, so judging a poll regroups only that poll, not the window.
    """

    def __init__(self, max_polls: int, span_s: float, recent: int = 4, thin_s: float = 60.0):
        self.span_s = span_s
        self.recent = max(1, recent)
        self.thin_s = thin_s
        self.max_polls = max(self.recent, max_polls)
        self.polls: Deque[Evidence] = deque()
        self.times: Deque[float] = deque()
        self._fields: Dict[str, str] = {}                # field -> merge policy, of the polls' type
        self._lists: Dict[str, List[Any]] = {}           # the merged list fields
        self._counts: Deque[Dict[str, int]] = deque()    # per poll: how many items of each list are its
        self._newest: Dict[str, int] = {}                # AVERAGES: the newest poll's items at the end
        self._groups: Deque[Dict[Tuple[Any, ...], Any]] = deque()   # per poll: the rules' groupings of it
        self._seqs: Deque[int] = deque()                 # per poll: its number, in order of arrival
        self._nonfinite: Deque[bool] = deque()           # per poll: a sample kept has a NaN or infinite number
        self._added = 0
        # Per grouping: the settled polls' numbers and their combined grouping (see `parts`).
        self._settled: Dict[Tuple[Any, ...], Tuple[Tuple[int, ...], Any]] = {}
        # Per grouping: its `older` (see `parts`), when the rule gives one.
        self._older_of: Dict[Tuple[Any, ...], Callable[[Any], Any]] = {}

    def add(self, poll: Evidence, now: float) -> None:
        """Keep what the rules read of `poll`: each field by its merge policy (a poll's notes,
        PER_READ, are reported with the poll and not kept)."""
        if not self._fields:                # the polls' type (an Evidence, or a subclass with more fields)
            self._fields = {name: p.merge for name, p in policies(type(poll)).items()}
            self._lists = {n: [] for n, m in self._fields.items() if m in _LISTS}
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
        counts: Dict[str, int] = {}
        for name, lst in self._lists.items():
            value = getattr(keep, name)
            if self._fields[name] == AVERAGES:
                if self.polls:                  # the previous newest's averages are superseded
                    del lst[len(lst) - self._newest[name]:]
                    lst.extend(_instant(getattr(self.polls[-1], name)))
                self._newest[name] = len(value)
                counts[name] = len(_instant(value))
            else:
                counts[name] = len(value)
            lst.extend(value)
        if self._groups:                        # grouped as the newest: with its averages, now superseded
            last = self._groups[-1]
            for key in list(last):
                older = self._older_of.get(key)
                if older is None:
                    del last[key]               # grouped again when asked
                else:
                    last[key] = older(last[key])
        self.polls.append(keep)
        self.times.append(now)
        self._counts.append(counts)
        self._groups.append({})
        self._seqs.append(self._added)
        self._nonfinite.append(not samples_finite(keep))
        self._added += 1
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
        for name, lst in self._lists.items():
            start = sum(self._counts[k][name] for k in range(i))
            del lst[start:start + self._counts[i][name]]
        del self._counts[i]
        del self._groups[i]
        del self._seqs[i]
        del self._nonfinite[i]
        del self.times[i]
        del self.polls[i]

    @property
    def finite(self) -> bool:
        """Every sample `merged` holds has finite numbers (each poll checked once, when it came): the
        diagnosis need not check them again (diagnose's `finite`)."""
        return not any(self._nonfinite)

    def parts(self, name: str, group: Callable[..., Any], combine: Callable[[Sequence[Any]], Any],
              args: Tuple[Any, ...], older: Optional[Callable[[Any], Any]] = None) -> Any:
        """The diagnosis's `parts` (engine/rules/state.py): `combine` of `group(poll, *args)` over the
        polls as `merged` holds them (an older poll's AVERAGES fields without their averages), each
        poll's grouping made once.

        The settled polls (older than the newest `recent` + 1, which thinning may still drop) leave the
        window only from its front, so their combined grouping is kept and combined with the newer
        polls' groupings: a poll combines a handful of groupings, not the window's. `combine` takes
        its own result as a part (combining is associative), which the rules' combines are.

        `older(part)`, when given, is the grouping of the newest poll once a newer one came (`group` of
        it without its averages), made from its grouping as the newest instead of grouping it again."""
        key = (name, group) + tuple(args)
        if older is not None:
            self._older_of[key] = older
        settled = max(0, len(self.polls) - self.recent - 1)
        seqs = tuple(self._seqs[i] for i in range(settled))
        kept = self._settled.get(key)
        out = []
        if settled and kept is not None and kept[0] == seqs:
            out.append(kept[1])
        elif settled and kept is not None and seqs[:len(kept[0])] == kept[0]:
            # Polls settled after the kept ones, none left: the kept combination and theirs (associative).
            prefix = combine([kept[1]] + [self._part(i, key, group, args) for i in range(len(kept[0]), settled)])
            self._settled[key] = (seqs, prefix)
            out.append(prefix)
        elif settled:
            prefix = combine([self._part(i, key, group, args) for i in range(settled)])
            self._settled[key] = (seqs, prefix)
            out.append(prefix)
        out.extend(self._part(i, key, group, args) for i in range(settled, len(self.polls)))
        return combine(out)

    def _part(self, i: int, key: Tuple[Any, ...], group: Callable[..., Any], args: Tuple[Any, ...]) -> Any:
        """Poll `i`'s grouping `key`, made on first use."""
        groups = self._groups[i]
        part = groups.get(key)
        if part is None:
            poll = self.polls[i]
            part = groups[key] = group(poll if i == len(self.polls) - 1 else self._older(poll), *args)
        return part

    def _older(self, poll: Evidence) -> Evidence:
        """`poll` as the window holds it once a newer poll came: its AVERAGES fields' instant samples."""
        view = copy.copy(poll)
        for name, merge in self._fields.items():
            if merge == AVERAGES:
                setattr(view, name, _instant(getattr(poll, name)))
        return view

    def merged(self) -> Evidence:
        """One Evidence of the window: the newest poll's LATEST values and NAMES, every poll's
        SAMPLES, every poll's instant AVERAGES samples and the newest poll's averages."""
        return self._evidence(lambda name: list(self._lists[name]))

    def _evidence(self, lists: Callable[[str], List[Any]]) -> Evidence:
        """The newest poll's LATEST values and NAMES, and each list field as `lists(name)` gives it."""
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
                setattr(ev, name, lists(name))
        return ev
