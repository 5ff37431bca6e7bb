"""The one key=value log line format, used by the collector's log and the alert action's log.

`category=<what> key=value ...` (style: a category first; never a session key or token, which
no caller passes). A value with a space, an `=` or a quote is quoted, its quotes made single;
line breaks become spaces, so one call is one line in splunkd.log. None and empty values are
left out.
"""
from __future__ import annotations

from typing import Any


def value(v: Any) -> str:
    s = str(v).replace("\r", " ").replace("\n", " ")
    if any(c in s for c in ' ="'):
        s = '"%s"' % s.replace('"', "'")
    return s


def kv(category: str, **fields: Any) -> str:
    parts = ["category=%s" % category]
    parts.extend("%s=%s" % (k, value(v)) for k, v in fields.items() if v is not None and v != "")
    return " ".join(parts)
