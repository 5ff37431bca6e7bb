"""Timestamps: splunkd's log4j layouts (`MM-DD-YYYY HH:MM:SS.mmm [+ZZZZ]`) and ISO 8601.

strptime costs ~10 us a line; metrics.log writes dozens of lines with the same
second, so the epoch of each (date, time, zone) prefix is computed once.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

if TYPE_CHECKING:
    from ingest_doctor.evidence import Evidence

_cache: Dict[str, Optional[float]] = {}


def parse_prefix(line: str) -> Tuple[Optional[float], int]:
    """(epoch seconds or None, index where the rest of the line starts)."""
    if len(line) < 23 or line[2] != "-" or line[5] != "-" or line[10] != " " or line[13] != ":":
        return None, 0
    end = 23
    zone = ""
    if len(line) >= 29 and line[23] == " " and line[24] in "+-" and line[25:29].isdigit():
        zone = line[24:29]
        end = 29
    key = line[:19] + zone
    epoch = _cache.get(key, -1.0)
    if epoch == -1.0:
        epoch = _compute(line[:19], zone)
        if len(_cache) > 100000:
            _cache.clear()
        _cache[key] = epoch
    if epoch is None:
        return None, 0
    try:
        millis = int(line[20:23]) / 1000.0 if line[19] == "." else 0.0
    except ValueError:
        millis = 0.0
    return epoch + millis, end


def _compute(stamp: str, zone: str) -> Optional[float]:
    import calendar     # here, not at the top: once a distinct second, and `diagnose` of REST only never needs it
    try:
        mo, d, y = int(stamp[0:2]), int(stamp[3:5]), int(stamp[6:10])
        h, mi, s = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
        epoch = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    if zone:
        sign = 1 if zone[0] == "+" else -1
        epoch -= sign * (int(zone[1:3]) * 3600 + int(zone[3:5]) * 60)
    return float(epoch)


def last_time(path: str, tail_bytes: int = 65536) -> Optional[float]:
    """Timestamp of the last dated line of a file, read from its tail only."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - tail_bytes))
            chunk = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    for line in reversed(chunk.splitlines()):
        t, _ = parse_prefix(line)
        if t is not None:
            return t
    return None


class WindowedParser:
    """What the log parsers share: the Evidence they fill, the `since <= time <= until`
    window (an open end is None), the source name (SOURCE when not given) and a fresh
    `STATS()` with at least `lines`, `used` and `outside_window`."""
    SOURCE = ""
    STATS: Any = None

    def __init__(self, evidence: Evidence, since: Optional[float] = None, until: Optional[float] = None,
                 source: Optional[str] = None):
        self.ev = evidence
        self.since = since
        self.until = until
        self.source = self.SOURCE if source is None else source
        self.stats = self.STATS()

    def outside(self, t: Optional[float]) -> bool:
        """True, and counted in stats.outside_window, when t is known and outside the window."""
        if t is not None and ((self.since is not None and t < self.since) or
                              (self.until is not None and t > self.until)):
            self.stats.outside_window += 1
            return True
        return False


def iso_epoch(value: Any) -> Optional[float]:
    """'2026-11-22T10:00:00Z' (or +hh:mm, or no zone: UTC) -> epoch seconds; None when not ISO 8601."""
    import datetime
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        dt = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return dt.timestamp()


def iso_utc(epoch: float) -> str:
    """epoch seconds -> '2026-11-22T10:00:00Z' (the snapshot's captured_at)."""
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))

