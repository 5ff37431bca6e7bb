"""The collector's and the action's own log files under $SPLUNK_HOME/var/log/splunk/, and their level.

Each entry point keeps writing its `LEVEL category=... key=value` lines where splunkd files them
(stderr -> splunkd.log) and also appends them, timestamped, to its own file with a stable name, which
splunkd's default monitor of var/log/splunk indexes into _internal (the Setup view searches
`source=*ingest_doctor_*.log`). Lines below the configured level go nowhere. Rotated at
MAX_BYTES (BACKUPS kept). Outside Splunk (no SPLUNK_HOME, or no var/log/splunk) there is no file.
"""
from __future__ import annotations

import logging
import logging.handlers
import os
from typing import Mapping, Optional

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


class LogFile:
    """One entry point's file; `write` never raises (a full disk must not stop the collector)."""

    def __init__(self, name: str, env: Optional[Mapping[str, str]] = None):
        self.path = path(name, env)
        self._logger: Optional[logging.Logger] = None
        if self.path is None:
            return
        try:
            handler = logging.handlers.RotatingFileHandler(self.path, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                                           encoding="utf-8", delay=True)
        except OSError:
            self.path = None
            return
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger = logging.getLogger("ingest_doctor.file." + name)
        logger.propagate = False
        logger.setLevel(logging.DEBUG)
        for old in list(logger.handlers):
            logger.removeHandler(old)
            old.close()
        logger.addHandler(handler)
        self._logger = logger

    def write(self, line: str) -> None:
        if self._logger is None:
            return
        try:
            self._logger.info(line.rstrip("\n"))
        except Exception:  # logging reports its own errors on stderr; never let them stop us
            pass

    def close(self) -> None:
        if self._logger is not None:
            for h in list(self._logger.handlers):
                self._logger.removeHandler(h)
                h.close()
            self._logger = None
