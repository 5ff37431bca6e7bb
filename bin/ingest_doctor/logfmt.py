"""The one key=value log line format, used by the collector's, the notifier's and the alert action's logs.

`category=<what> key=value ...` (style: a category first; never a session key or token, which
no caller passes). A value with a space, an `=` or a quote is quoted, its quotes made single;
line breaks become spaces, so one call is one line in splunkd.log. None and empty values are
left out.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class LogLine:
    """A line for the log, as the pure code hands it to the shell that writes it."""
    severity: str       # INFO | WARN | ERROR (splunklib EventWriter severities)
    message: str        # kv(...): key=value, with a category; never a session key or token


def value(v: Any) -> str:
    s = str(v).replace("\r", " ").replace("\n", " ")
    if any(c in s for c in ' ="'):
        s = '"%s"' % s.replace('"', "'")
    return s


def kv(category: str, **fields: Any) -> str:
    parts = ["category=%s" % category]
    parts.extend("%s=%s" % (k, value(v)) for k, v in fields.items() if v is not None and v != "")
    return " ".join(parts)
