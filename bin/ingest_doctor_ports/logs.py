"""The entry points' own log files under $SPLUNK_HOME/var/log/splunk/, through `logging`.

Each entry point writes its `LEVEL category=... key=value` lines where splunkd files them (stderr,
or the modular input's EventWriter: splunkd.log) and also to its own file with a stable name, which
splunkd's default monitor of var/log/splunk indexes into _internal (the Setup view counts the
`ERROR` and `WARN` words of `source=*ingest_doctor_*.log`). A file line is logging's timestamp and
that same line, so the level words stay ours (WARN, FATAL), not logging's names. Rotated by
logging.handlers.RotatingFileHandler at MAX_BYTES, BACKUPS kept. Outside Splunk (no SPLUNK_HOME, or
no var/log/splunk) there is no file. The add-on's collector gets its file from solnlib.log with
these settings (collector_input.py); the app ships no library, so the action uses this module alone.
Nothing here logs a secret: callers pass lines built by ingest_doctor.logfmt.kv from what may be said.
"""
from __future__ import annotations

import logging
import logging.handlers
import os
from typing import Mapping, Optional

COLLECTOR_LOG = "ingest_doctor_collector.log"     # the add-on's modular input
ACTION_LOG = "ingest_doctor_flag.log"              # the app's alert action
HOLD_LOG = "ingest_doctor_hold.log"                # the app's acknowledge/snooze action
MAX_BYTES = 10 * 1024 * 1024
BACKUPS = 5
FORMAT = "%(asctime)s %(message)s"                 # the message starts with its level word
LEVELS = {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING, "ERROR": logging.ERROR,
          "FATAL": logging.CRITICAL}
_ALIASES = {"WARNING": "WARN", "CRITICAL": "FATAL"}
DEFAULT_LEVEL = "INFO"


def level_name(value: Optional[str], default: str = DEFAULT_LEVEL) -> str:
    """DEBUG | INFO | WARN | ERROR | FATAL from any spelling UCC or an admin uses; `default` if unknown."""
    v = str(value or "").strip().upper()
    v = _ALIASES.get(v, v)
    return v if v in LEVELS else default


def level_number(name: str) -> int:
    """logging's number for one of our level words (INFO's for anything else)."""
    return LEVELS.get(level_name(name), logging.INFO)


def folder(env: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """$SPLUNK_HOME/var/log/splunk when it exists, else None."""
    home = (os.environ if env is None else env).get("SPLUNK_HOME")
    if not home:
        return None
    path = os.path.join(home, "var", "log", "splunk")
    return path if os.path.isdir(path) else None


class _Quiet(logging.handlers.RotatingFileHandler):
    """A full disk or a file moved away loses the line, never the run: no traceback to stderr
    (which splunkd would file in splunkd.log on every line)."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def file_logger(name: str, env: Optional[Mapping[str, str]] = None) -> logging.Logger:
    """A logger of one entry point's file `name`, at every level (the entry point filters). Made
    anew, outside logging's registry and the root logger, so a run (or a test) in the same process
    with another SPLUNK_HOME gets its own file; without a folder it writes nothing. `close` it."""
    logger = logging.Logger("ingest_doctor." + name, logging.DEBUG)
    path = folder(env)
    if path is not None:
        handler = _Quiet(os.path.join(path, name), maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8",
                         delay=True)       # opened at the first line
        handler.setFormatter(logging.Formatter(FORMAT))
        logger.addHandler(handler)
    else:       # a handler, so that logging's last resort does not print the lines to stderr again
        logger.addHandler(logging.NullHandler())
    return logger


def close(logger: logging.Logger) -> None:
    for handler in list(logger.handlers):
        handler.close()
        logger.removeHandler(handler)


class Sink:
    """`write(line)` for the action's Logger (ingest_doctor.alert.payload): each `LEVEL category=...`
    line to `logger` at its level."""

    def __init__(self, logger: logging.Logger):
        self.logger = logger

    def write(self, line: str) -> None:
        line = line.rstrip("\n")
        self.logger.log(level_number(line.split(" ", 1)[0]), line)
