"""Timestamps: splunkd's log4j layouts (`MM-DD-YYYY HH:MM:SS.mmm [+ZZZZ]`) and ISO 8601."""
from __future__ import annotations

import calendar
import datetime
import re
import time
from typing import Any, Iterable, Optional, Tuple

from ingest_doctor.evidence import Evidence

# The start of a metrics.log or splunkd.log line: `11-22-2025 09:59:30.000 +0000 ` (the zone is absent
# from older layouts, then the time is UTC).
PREFIX = re.compile(r"(\d\d)-(\d\d)-(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{3})(?: ([+-])(\d\d)(\d\d))?", re.ASCII)


JSON_HEAD = '{"datetime":"'      # the start of an introspection log line (resource_usage.log)


def parse_prefix(line: str) -> Tuple[Optional[float], int]:
    """(epoch seconds or None, index where the rest of the line starts)."""
    m = PREFIX.match(line)
    if m is None:
        return None, 0
    mo, d, y, h, mi, s, ms, sign, zh, zm = m.groups()
    if not (1 <= int(mo) <= 12 and 1 <= int(d) <= 31 and int(y) >= 1):
        return None, 0
    # timegm counts a day past the month's end on into the next, as splunkd's own arithmetic would.
    epoch = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s)))
    if sign:
        epoch -= (1 if sign == "+" else -1) * (int(zh) * 3600 + int(zm) * 60)
    return epoch + int(ms) / 1000.0, m.end()


def last_time(path: str, tail_bytes: int = 65536, limit: Optional[int] = None) -> Optional[float]:
    """Timestamp of the last dated line of a file: its last `tail_bytes` first, then further back a piece at a
    time (a trailing stack trace or undated line longer than one piece must not hide the dated lines before
    it), at most `limit` bytes from its end (all of it when None). Memory stays at about one piece: of a line
    that spans pieces only its start, where a date is, is kept."""
    try:
        with open(path, "rb") as f:
            pos = f.seek(0, 2)
            floor = 0 if limit is None else max(0, pos - limit)
            carry = b""         # the start of the line the later piece began inside of (its date, if any)
            while pos > floor:
                start = max(floor, pos - tail_bytes)
                f.seek(start)
                lines = (f.read(pos - start) + carry).split(b"\n")
                pos = start
                carry = lines.pop(0)[:256] if pos > floor else b""
                for raw in reversed(lines):
                    # introspection's JSON lines carry the same layout after `{"datetime":"`
                    t, _ = parse_prefix(raw.decode("utf-8", "replace").replace(JSON_HEAD, "", 1)
                                        if raw.startswith(JSON_HEAD.encode()) else raw.decode("utf-8", "replace"))
                    if t is not None:
                        return t
    except OSError:
        return None
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
    try:    # Python 3.9's fromisoformat does not read `Z`
        dt = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return dt.timestamp()


def iso_utc(epoch: float) -> str:
    """epoch seconds -> '2026-11-22T10:00:00Z' (the snapshot's captured_at)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
