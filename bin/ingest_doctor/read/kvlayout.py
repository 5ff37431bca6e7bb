"""A metrics.log line's pairs taken in one pass, by the key order its group's lines were written in.

splunkd writes each group's lines in one key order (a busy indexer: hundreds of tcpin_connections
lines of ~40 pairs an interval). A layout is that order, learnt from a line and compiled into one
pattern that matches a line only when it has exactly those parts, each spelled as the line it was
learnt from spelled it; on such a line the pattern captures what the full reader (metricslog.pick,
parse_kv) gives the keys read, so a match is the answer. Any other line is read by the full reader
and may teach a new layout.

The full reader has two regimes, and so do layouts:
- no quote in the line: the body split at `, `, each part at its first `=`, key and value stripped.
  A layout matches a line whose parts are `key=value` with no comma, quote or whitespace around
  the key, a value read without whitespace (so stripping changes nothing), or a part without `=`;
  and which has no quote (found by str.find after the match: the pattern does not scan for it).
- a quote in the line: `key=("..."|[^,]*)` found left to right, quotes stripped from the value.
  A layout matches a line made of such pairs alone, joined by `, `: each a key of `[\\w.:-]`, a
  value either quoted (no quote inside) or without comma or quote.
A key read is in a layout once (the reader keeps a repeated key's last value: such a line has none).
"""
from __future__ import annotations

import re
import sys
from itertools import islice, repeat, takewhile
from operator import methodcaller
from typing import Any, Callable, Dict, Iterable, List, Match, NamedTuple, Optional, Pattern, Sequence, Tuple

Pairs = Dict[str, str]

# `*+` (3.11+) never gives back what it took: the same matches here (a value is always followed by `,`
# or the end, which no value character can be), found without trying shorter values on a line that fails.
_ANY = "*+" if sys.version_info >= (3, 11) else "*"
KEPT = 4            # layouts kept per group, the last matched first: a group may mix a few key orders

_groups = methodcaller("groups")
_QUOTED_PAIR = re.compile(r'([\w.:-]+)=("[^"]*"|[^,]*)')       # metricslog._KV: the quoted regime's pairs


class Layout(NamedTuple):
    pattern: Pattern[str]       # matches a body (from `group=`) of this layout, to its end
    keys: Tuple[str, ...]       # the keys its groups capture, in order
    index: Optional[Tuple[int, ...]] = None    # the group of each key read, in the reader's order (every key: None)
    plain: bool = False         # learnt from a line without a quote: a line with one is not of this layout

    def match(self, text: str, start: int) -> Optional[Match[str]]:
        """The match of text[start:] when it is of this layout."""
        m = self.pattern.match(text, start)
        return None if m is None or (self.plain and text.find('"', start) >= 0) else m

    def run(self, texts: List[str], starts: List[int], first: int = 0) -> List[Match[str]]:
        """The matches of the lines from texts[first] up to the first line not of this layout."""
        found = list(takewhile(bool, map(self.pattern.match, islice(texts, first, None),
                                         islice(starts, first, None))))
        if self.plain and found:
            quotes = list(map(str.find, islice(texts, first, None), repeat('"', len(found)),
                              islice(starts, first, None)))
            if max(quotes) >= 0:     # a line with a quote is read the other way: the run ends before it
                del found[next(k for k, q in enumerate(quotes) if q >= 0):]
        return found

    def rows(self, found: Iterable[Match[str]]) -> Iterable[Any]:
        """The values of the keys read of each line matched, in the reader's order (a key the layout
        lacks: None); every pair, a dict, for a reader of every key."""
        if self.index is None:
            return map(dict, map(zip, repeat(self.keys), map(_groups, found)))
        return map(methodcaller("group", *self.index), found)


def learn(body: str, group: str, keys: Sequence[str]) -> Optional[Layout]:
    """The layout of `body` (`group=<group>, ...`) for the `keys` read (empty: every key), or None when
    its parts do not all have the plain spellings above."""
    quoted = '"' in body
    parts = _quoted_parts(body) if quoted else _plain_parts(body)
    if not parts or parts[0] != ("group", group):
        return None
    pattern, read = [], []
    for name, value in parts:
        if name is None:
            pattern.append("[^,=]" + _ANY)             # a part without `=` (tcpin_connections' ip:port:port)
            continue
        if name in keys or not keys:
            if name in read:
                return None
            read.append(name)
            spelled = "(%s)" % re.escape(group) if name == "group" else _read_value(value, quoted)
        else:
            spelled = re.escape(group) if name == "group" else _skipped_value(value, quoted)
        pattern.append(re.escape(name) + "=" + spelled)
    # A group that never takes part stands for the keys read the layout lacks: Match.group gives None.
    absent = len(read) + 1
    index = tuple(read.index(k) + 1 if k in read else absent for k in keys) if keys else None
    return Layout(re.compile(", ".join(pattern) + r"\Z(?:()(?!))?"), tuple(read), index, not quoted)


def _plain_parts(body: str) -> Optional[List[Tuple[Optional[str], str]]]:
    """(key, value) of each `, `-separated part (key None: no `=`), when each is spelled plainly."""
    out: List[Tuple[Optional[str], str]] = []
    for part in body.split(", "):
        name, eq, value = part.partition("=")
        if "," in part or (eq and (not name or name != name.strip() or value != value.strip())):
            return None
        out.append((name if eq else None, value))
    return out


def _quoted_parts(body: str) -> Optional[List[Tuple[Optional[str], str]]]:
    """(key, value as written) of each pair the quoted regime finds, when they alone, joined by `, `,
    make the body and a quote only ever encloses a whole value."""
    found = list(_QUOTED_PAIR.finditer(body))
    if ", ".join(m.group(0) for m in found) != body:
        return None
    out: List[Tuple[Optional[str], str]] = []
    for m in found:
        value = m.group(2)
        inner = value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value
        if '"' in inner:
            return None
        out.append((m.group(1), value))
    return out


def _read_value(value: str, quoted: bool) -> str:
    if value.startswith('"'):
        return '"([^"]*)"'
    if quoted:
        return '([^,"]' + _ANY + ")"
    return r"((?!\s)[^,]" + _ANY + r"(?<!\s))"      # stripped: a value read neither starts nor ends with whitespace


def _skipped_value(value: str, quoted: bool) -> str:
    if value.startswith('"'):
        return '"[^"]*"'
    return ('[^,"]' if quoted else "[^,]") + _ANY


class Layouts:
    """The layouts of each group's lines, learnt as lines come; `full(text, start, keys)` reads a
    line no layout matches."""

    def __init__(self, full: Callable[[str, int, Sequence[str]], Pairs]):
        self._full = full
        self._by_group: Dict[str, List[Layout]] = {}

    def find(self, group: str, text: str, start: int) -> Optional[Layout]:
        """The layout of text[start:] among the group's, if one matches."""
        for layout in self._by_group.get(group, ()):
            if layout.match(text, start):
                return layout
        return None

    def read(self, group: str, text: str, start: int, keys: Sequence[str]) -> Pairs:
        """The pairs the full reader gives text[start:] for `keys` (empty: every key); the line's
        layout is learnt when it reads the line as the full reader does."""
        got = self._full(text, start, keys)
        layout = learn(text[start:], group, keys)
        if layout is not None:
            m = layout.match(text, start)
            if m and dict(zip(layout.keys, m.groups())) == {k: got[k] for k in layout.keys if k in got}:
                known = self._by_group.setdefault(group, [])
                known.insert(0, layout)
                del known[KEPT:]
        return got
