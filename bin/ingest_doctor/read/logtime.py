"""Timestamps: splunkd's log4j layouts (`MM-DD-YYYY HH:MM:SS.mmm [+ZZZZ]`) and ISO 8601.

strptime costs ~10 us a line; metrics.log writes dozens of lines with the same
second, so the epoch of each (date, time, zone) prefix is computed once.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional, Tuple


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
    try:
        mo, d, y = int(stamp[0:2]), int(stamp[3:5]), int(stamp[6:10])
        h, mi, s = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
    except ValueError:
        return None
    if not (1 <= mo <= 12 and 1 <= d <= 31 and y >= 1):
        return None
    epoch = _timegm(y, mo, d, h, mi, s)
    if zone:
        sign = 1 if zone[0] == "+" else -1
        epoch -= sign * (int(zone[1:3]) * 3600 + int(zone[3:5]) * 60)
    return float(epoch)


_DAYS_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_EPOCH_DAYS = 719162        # days from 0001-01-01 to 1970-01-01


def _timegm(y: int, mo: int, d: int, h: int, mi: int, s: int) -> int:
    """calendar.timegm((y, mo, d, h, mi, s, ...)) for 1 <= mo <= 12 and y >= 1, as it counts (a day past
    the month's end runs on into the next), without importing calendar (and its datetime and locale)."""
    y1 = y - 1
    days = y1 * 365 + y1 // 4 - y1 // 100 + y1 // 400 + _DAYS_BEFORE_MONTH[mo]
    if mo > 2 and y % 4 == 0 and (y % 100 != 0 or y % 400 == 0):
        days += 1
    return ((days + d - 1 - _EPOCH_DAYS) * 24 + h) * 3600 + mi * 60 + s


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
    `STATS()` with at least `lines`, `used` and `outside_window`. A parser reads one line in its
    `feed(line)`."""
    SOURCE = ""
    STATS: Any = None

    def __init__(self, evidence: Evidence, since: Optional[float] = None, until: Optional[float] = None,
                 source: Optional[str] = None):
        self.ev = evidence
        self.since = since
        self.until = until
        self.source = self.SOURCE if source is None else source
        self.stats = self.STATS()

    def feed_all(self, lines: Iterable[str]) -> "WindowedParser":
        """Feed lines in order (their line ends are optional)."""
        feed = self.feed        # type: ignore[attr-defined]    # each parser's own
        for line in lines:
            feed(line)
        return self

    def outside(self, t: Optional[float]) -> bool:
        """True, and counted in stats.outside_window, when t is known and outside the window."""
        if self.within(t):
            return False
        self.stats.outside_window += 1
        return True

    def within(self, t: Optional[float]) -> bool:
        """True when t is unknown or in the window."""
        return t is None or ((self.since is None or t >= self.since) and (self.until is None or t <= self.until))


def iso_epoch(value: Any) -> Optional[float]:
    """'2026-11-22T10:00:00Z' (or +hh:mm, or no zone: UTC) -> epoch seconds; None when not ISO 8601."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    # What iso_utc writes, read without importing datetime (past the 28th, datetime checks the day).
    if len(text) == 20 and text[4::3] == "--T::Z" and text.isascii():
        fields = text[0:4], text[5:7], text[8:10], text[11:13], text[14:16], text[17:19]
        if "".join(fields).isdigit():
            y, mo, d, h, mi, s = map(int, fields)
            if y >= 1 and 1 <= mo <= 12 and 1 <= d <= 28 and h < 24 and mi < 60 and s < 60:
                return float(_timegm(y, mo, d, h, mi, s))
    import datetime
    try:
        dt = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return dt.timestamp()


def iso_utc(epoch: float) -> str:
    """epoch seconds -> '2026-11-22T10:00:00Z' (the snapshot's captured_at)."""
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
