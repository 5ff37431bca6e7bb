"""What the shipped relay search ("Ingest Doctor - Findings - Collector findings") returns, run by the
scheduler at a given time over finding events that each have a `_time` and an `_indextime`.

The windows are read from default/savedsearches.conf, not restated: `_index_earliest=-Nm` in the
search (index time), `dispatch.earliest_time` (event time), the cron (every N minutes), then the
search's `dedup id` (the newest `_time` of each finding id wins) and its `table` columns. Used by the
relay test and by `make bench` (replayed at simulated indexing lags)."""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from fakes.paths import ROOT

RELAY = "Ingest Doctor - Findings - Collector findings"
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def saved_searches(path: Optional[str] = None) -> Dict[str, Dict[str, str]]:
    out: Dict[str, Dict[str, str]] = {}
    stanza: Optional[Dict[str, str]] = None
    text = open(path or os.path.join(ROOT, "default", "savedsearches.conf"), encoding="utf-8").read()
    for line in text.replace("\\\n", " ").splitlines():
        m = re.match(r"^\[(.+)\]\s*$", line)
        if m:
            stanza = out.setdefault(m.group(1), {})
        elif stanza is not None and "=" in line and not line.lstrip().startswith("#"):
            k, v = line.split("=", 1)
            stanza[k.strip()] = v.strip()
    return out


def _relative_s(text: str) -> float:
    m = re.fullmatch(r"-(\d+)([smhd])", text.strip())
    if not m:
        raise ValueError("not a simple relative time: %r" % text)
    return int(m.group(1)) * _UNITS[m.group(2)]


@dataclass
class Event:
    time: float             # _time: when the collector saw it
    indextime: float        # _indextime: when it became searchable
    raw: str
    host: str


@dataclass
class Relay:
    search: str
    index_window_s: Optional[float]     # None: selected by _time only (the pre-issue-20 relay)
    time_window_s: float
    every_s: float
    columns: List[str]
    offset_s: float = 0.0               # the cron's first minute of each period (1-59/2: 60 s)

    @classmethod
    def shipped(cls, stanza: Optional[Dict[str, str]] = None) -> "Relay":
        st = stanza or saved_searches()[RELAY]
        spl = st["search"]
        m = re.search(r"_index_earliest=(-\d+[smhd])", spl)
        cron = st["cron_schedule"].split()
        every = re.fullmatch(r"(?:\*|(\d+)-59)(?:/(\d+))?", cron[0])
        assert every and cron[1:] == ["*", "*", "*", "*"], "the simulation knows an every-N-minutes cron only"
        cols = re.search(r"\|\s*table\s+([^|]+)", spl)
        assert cols, "the relay ends in a table of its columns"
        return cls(spl, _relative_s(m.group(1)) if m else None, _relative_s(st["dispatch.earliest_time"]),
                   60.0 * int(every.group(2) or 1), cols.group(1).split(), 60.0 * int(every.group(1) or 0))

    def rows(self, events: Sequence[Event], run_at: float) -> List[Dict[str, Any]]:
        """The run at `run_at`: what is searchable then, inside both windows, newest per id."""
        picked = [e for e in events if e.indextime <= run_at and run_at - self.time_window_s <= e.time <= run_at
                  and (self.index_window_s is None or e.indextime >= run_at - self.index_window_s)]
        newest: Dict[str, Any] = {}
        for e in sorted(picked, key=lambda e: -e.time):          # search order: newest _time first
            d = json.loads(e.raw)
            if d.get("detected_by") != "collector" or d["id"] in newest:
                continue
            newest[d["id"]] = (e, d)
        out = []
        for e, d in newest.values():
            row = dict(d, signal="finding", finding=e.raw, last_time=e.time, status=d.get("status") or "open",
                       host=e.host)
            out.append({c: ("" if row.get(c) is None else row.get(c)) for c in self.columns})
        return out

    def runs(self, start: float, end: float) -> List[float]:
        first = (int((start - self.offset_s) // self.every_s) + 1) * self.every_s + self.offset_s
        return [first + i * self.every_s for i in range(int((end - first) // self.every_s) + 1)]


def previous_relay() -> Relay:
    """The relay before issue 20 (a 2-minute `_time` window, every minute), for the bench's comparison."""
    r = Relay.shipped()
    return Relay(r.search, None, 120.0, 60.0, r.columns)
