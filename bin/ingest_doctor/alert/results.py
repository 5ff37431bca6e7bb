"""Read a triggered search's results (`results_file`, a gzipped CSV) as a stream.

splunkd writes one header row of field names, then one row per result. A
multivalue field is written twice: the plain column holds the values joined by
newlines, and a `__mv_<field>` column holds them as `$v1$;$v2$` (a `$` inside a
value doubled). Columns starting with `_` other than `__mv_*` (`_time`,
`_raw`, ...) are Splunk's own and are kept as they are.

The header is checked before the first row is handed out, so a wrong file is
refused before anything is written anywhere.
"""
from __future__ import annotations

import csv
import gzip
import io
import zlib
from typing import IO, Dict, Iterable, Iterator, List, Optional, Sequence

from ingest_doctor.alert.payload import BadInput

csv.field_size_limit(16 * 1024 * 1024)

MV_PREFIX = "__mv_"


class Row:
    """One result row; `line` is its position among the results (the first result is 1)."""
    __slots__ = ("line", "_single", "_multi")

    def __init__(self, line: int, single: Dict[str, str], multi: Dict[str, List[str]]):
        self.line = line
        self._single = single
        self._multi = multi

    def get(self, name: str) -> Optional[str]:
        """The field's value (the first one when multivalue); None when empty or absent."""
        multi = self._multi.get(name)
        if multi is not None:
            return multi[0] if multi else None
        v = self._single.get(name)
        if not v:
            return None
        cut = v.find("\n")
        return v if cut < 0 else v[:cut]

    def has(self, name: str) -> bool:
        """Whether the field has a value (values(name) is not empty), without copying them."""
        multi = self._multi.get(name)
        return bool(multi) if multi is not None else bool(self._single.get(name))

    def values(self, name: str) -> List[str]:
        if name in self._multi:
            return list(self._multi[name])
        v = self._single.get(name)
        if v is None or v == "":
            return []
        return v.split("\n") if "\n" in v else [v]

    def fields(self) -> List[str]:
        return [k for k in self._single if self.values(k)]


def decode_mv(encoded: str) -> List[str]:
    """`$a$;$b$$c$` -> ['a', 'b$c'] (Splunk's multivalue encoding)."""
    # Most values hold no `$`: then the entries are exactly what lies between `$;$` (C speed). The entries
    # hold no `$` when every `$` inside is one of the separators' two (counted, not searched entry by entry).
    # Kept for the action's 10,000-host budget (docs/performance.md): the character loop alone more than
    # doubled the instructions reading the rows (+116%, callgrind, 500 hosts), about 5 s at 10,000 hosts.
    if len(encoded) >= 2 and encoded[0] == "$" and encoded[-1] == "$" and "$$" not in encoded:
        inner = encoded[1:-1]
        parts = inner.split("$;$")
        if inner.count("$") == 2 * (len(parts) - 1):
            return parts
    return _decode_mv_slow(encoded)


def _decode_mv_slow(encoded: str) -> List[str]:
    out: List[str] = []
    i, n = 0, len(encoded)
    while i < n:
        if encoded[i] != "$":
            raise ValueError("multivalue encoding does not start with $ at %d" % i)
        i += 1
        buf = []
        while True:
            if i >= n:
                raise ValueError("unterminated multivalue entry")
            c = encoded[i]
            if c == "$":
                if i + 1 < n and encoded[i + 1] == "$":
                    buf.append("$")
                    i += 2
                    continue
                i += 1
                break
            buf.append(c)
            i += 1
        out.append("".join(buf))
        if i < n:
            if encoded[i] != ";":
                raise ValueError("expected ; between multivalue entries at %d" % i)
            i += 1
    return out


def check_header(header: Sequence[str], known: Iterable[str], path: str) -> List[str]:
    """The plain columns, or BadInput naming every column we do not know."""
    known_set = set(known)
    plain = [h for h in header if not h.startswith(MV_PREFIX)]
    unknown = [h for h in plain if h not in known_set and not h.startswith("_")]
    if unknown:
        raise BadInput("results_file %s has columns this alert action does not know: %s "
                       "(the search's output must keep the columns listed in README, section Alerts)"
                       % (path, ", ".join(sorted(unknown))))
    return plain


def open_text(path: str) -> IO[str]:
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise BadInput("results_file %s does not exist (the search's results expired or were never written)"
                       % path) from None
    except OSError as e:
        raise BadInput("results_file %s cannot be opened: %s" % (path, e.strerror or e)) from None
    # splunkd writes results as UTF-8: a byte that is not is named (read_rows), never replaced with U+FFFD
    # and stored as if it were the data.
    return io.TextIOWrapper(gzip.GzipFile(fileobj=raw, mode="rb"), encoding="utf-8", errors="strict",
                            newline="")


def _not_utf8(path: str, count: int, e: UnicodeDecodeError) -> BadInput:
    return BadInput("results_file %s is not valid UTF-8 after %d result rows (byte 0x%02x: %s); nothing was "
                    "stored from it" % (path, count, e.object[e.start] if e.start < len(e.object) else 0, e.reason))


def read_rows(path: str, known: Iterable[str]) -> Iterator[Row]:
    """Rows of a gzipped results CSV, one at a time (memory stays flat)."""
    stream = open_text(path)
    try:
        reader = csv.reader(stream)
        try:
            header = next(reader, None)
        except UnicodeDecodeError as e:
            raise _not_utf8(path, 0, e) from None
        except (OSError, EOFError, zlib.error, csv.Error) as e:
            raise BadInput("results_file %s is not a readable gzipped CSV (%s)" % (path, e)) from None
        if not header or not any(h.strip() for h in header):
            raise BadInput("results_file %s is empty: no header and no results" % path)
        header = [h.strip() for h in header]
        check_header(header, known, path)
        plain = [(i, h) for i, h in enumerate(header) if not h.startswith(MV_PREFIX)]
        mv_cols = [(i, h[len(MV_PREFIX):]) for i, h in enumerate(header) if h.startswith(MV_PREFIX)]
        count = 0
        while True:
            try:
                rec = next(reader)
            except StopIteration:
                break
            except UnicodeDecodeError as e:
                raise _not_utf8(path, count, e) from None
            except (OSError, EOFError, zlib.error, csv.Error) as e:
                raise BadInput("results_file %s is damaged after %d rows (%s)" % (path, count, e)) from None
            count += 1
            if not any(rec):
                continue
            n = len(rec)
            single = {h: rec[i] for i, h in plain if i < n}
            multi: Dict[str, List[str]] = {}
            for i, name in mv_cols:
                value = rec[i] if i < n else ""
                if value:
                    try:
                        multi[name] = decode_mv(value)
                    except ValueError as e:
                        raise BadInput("results_file %s result %d: column %s%s: %s"
                                       % (path, count, MV_PREFIX, name, e)) from None
            yield Row(count, single, multi)
        if count == 0:
            raise BadInput("results_file %s has a header but no result rows: nothing to flag" % path)
    finally:
        stream.close()
