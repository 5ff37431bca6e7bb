"""Text that leaves the core for a terminal, a spreadsheet or a webhook receiver: one function per hazard.

- `printable(name)`: a name read from a file nobody vouches for (a host, a deployment's or an instance
  folder's name) as a terminal may show it: every character that is not printable (C0 and C1 controls such
  as ESC, CR, LF, DEL; Unicode format characters such as bidi overrides; line and paragraph separators)
  becomes '?', and a name longer than `limit` is cut and says how long it was (a 100 MB "host" is never
  echoed whole).
- `terminal(text)`: a whole report for a terminal: the same characters replaced, its line ends kept (the
  report's own; every name in it went through `printable`, which keeps none).
- `formula_safe(text)`: a cell a spreadsheet would run as a formula (it starts with =, +, -, @, a tab, a CR
  or a NUL: CWE-1236, OWASP ASVS 1.2.10) gets a leading apostrophe, unless the whole cell is a number ("-3",
  "+1.5e3"): "-2+3+cmd|' /C calc'!A0" starts like a number but is not one, so it is quoted. Applied the same
  way to every text the alert action stores in the findings lookup (which admins export), posts in Splunk
  Web messages, and sends to a webhook (the action's and the collector's).
"""
from __future__ import annotations

import re

MAX_NAME = 255      # a host name is at most 255 characters (RFC 1035); a longer "name" is not one

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\Z")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\x00")
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")     # every ASCII control but tab and line feed


def printable(name: str, limit: int = MAX_NAME) -> str:
    if len(name) > limit:
        name = "%s...(%d characters)" % (name[:limit], len(name))
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else "?" for c in name)


def terminal(text: str) -> str:
    if text.isascii():
        return _ASCII_CONTROL.sub("?", text)
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)


def formula_safe(text: str) -> str:
    if text[:1] in FORMULA_START and not _NUMBER.match(text):
        return "'" + text
    return text
