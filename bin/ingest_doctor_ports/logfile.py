"""The collector's and the action's own log files under $SPLUNK_HOME/var/log/splunk/, and their level.

Each entry point keeps writing its `LEVEL category=... key=value` lines where splunkd files them
(stderr -> splunkd.log) and also appends them, timestamped, to its own file with a stable name, which
splunkd's default monitor of var/log/splunk indexes into _internal (the Setup view searches
`source=*ingest_doctor_*.log`). Lines below the configured level go nowhere. Rotated at
MAX_BYTES (BACKUPS kept). Outside Splunk (no SPLUNK_HOME, or no var/log/splunk) there is no file.
"""
from __future__ import annotations

import os
import time
from typing import IO, Mapping, Optional

COLLECTOR_LOG = "ingest_doctor_collector.log"     # the add-on's modular input
ACTION_LOG = "ingest_doctor_flag.log"              # the app's alert action
LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
DEFAULT_LEVEL = "INFO"
_ALIASES = {"WARNING": "WARN", "CRITICAL": "FATAL"}
MAX_BYTES = 10 * 1024 * 1024
BACKUPS = 5


def level_name(value: Optional[str], default: str = DEFAULT_LEVEL) -> str:
    """DEBUG | INFO | WARN | ERROR | FATAL from any spelling UCC or an admin uses; `default` if unknown."""
    v = str(value or "").strip().upper()
    v = _ALIASES.get(v, v)
    return v if v in LEVELS else default


def passes(level: str, threshold: str) -> bool:
    return LEVELS.index(level_name(level, "INFO")) >= LEVELS.index(level_name(threshold))


def path(name: str, env: Optional[Mapping[str, str]] = None) -> Optional[str]:
    home = (os.environ if env is None else env).get("SPLUNK_HOME")
    if not home:
        return None
    folder = os.path.join(home, "var", "log", "splunk")
    return os.path.join(folder, name) if os.path.isdir(folder) else None


def _stamp(now: float) -> str:
    """Local time as logging's default asctime wrote it before (`2026-11-25 02:33:33,123`)."""
    return "%s,%03d" % (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)), int(now * 1000) % 1000)


class LogFile:
    """One entry point's file; `write` never raises (a full disk must not stop the collector).

    The file is opened at the first line written and rotated as logging's RotatingFileHandler did: a
    line that would take it to MAX_BYTES moves `<name>` to `<name>.1` (`.1` to `.2`, ..., the oldest
    beyond BACKUPS dropped) first. Not logging itself: importing it (and traceback, which it imports)
    was a tenth of the action's start (issue 21)."""

    def __init__(self, name: str, env: Optional[Mapping[str, str]] = None):
        self.path = path(name, env)
        self._stream: Optional[IO[bytes]] = None

    def write(self, line: str) -> None:
        if self.path is None:
            return
        data = ("%s %s\n" % (_stamp(time.time()), line.rstrip("\n"))).encode("utf-8", "replace")
        try:
            if self._stream is None:
                self._stream = open(self.path, "ab")
            size = self._stream.tell()
            if size and size + len(data) >= MAX_BYTES:      # an empty file is never rotated
                self._rotate()
            self._stream.write(data)
            self._stream.flush()
        except (OSError, ValueError):      # a full disk, a file moved away: the line is lost, never the run
            self.close()

    def _rotate(self) -> None:
        self.close()
        assert self.path is not None
        for i in range(BACKUPS - 1, 0, -1):
            older = "%s.%d" % (self.path, i)
            if os.path.exists(older):
                os.replace(older, "%s.%d" % (self.path, i + 1))
        if os.path.exists(self.path):
            os.replace(self.path, self.path + ".1")
        self._stream = open(self.path, "ab")

    def close(self) -> None:
        if self._stream is not None:
            try:
                self._stream.close()
            except OSError:
                pass
            self._stream = None
