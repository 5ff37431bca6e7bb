""".conf files as a diag carries them (etc/, not merged, no btool): parsed, then Splunk's precedence applied.

The one place a diag's configuration is merged. Precedence for system-wide settings (Splunk docs, "Configuration
file precedence", global context): system/local > apps/<A>/local > ... > apps/<Z>/local > apps/<A>/default > ...
> apps/<Z>/default > system/default, apps ordered by their folder name in ASCII order, `A` winning over `Z`.
Settings merge one key at a time within a stanza. A value `splunk diag` replaced (`DIAG_REDACTED_*`, for every
setting named in server.conf `encrypt_fields`, tokens among them) reads as REDACTED: set, its value hidden.
"""
from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional, Tuple

Stanzas = Dict[str, Dict[str, str]]

REDACTED = "(set, value hidden)"     # what a DIAG_REDACTED_* value reads as: never a number, never a secret
_REDACTED = re.compile(r"^DIAG_REDACTED_\w*$")
GLOBAL = "default"                    # settings before the first stanza belong to [default]

# etc/<layer>/<file>.conf: (rank, tie-break) of each layer, lowest first. Apps' ranks are ordered so that the
# app whose name sorts first in ASCII wins (it is applied last within its rank).
SYSTEM_DEFAULT, APP_DEFAULT, APP_LOCAL, SYSTEM_LOCAL = 0, 1, 2, 3


def parse(text: str) -> Stanzas:
    """A .conf file's stanzas: `[name]` then `key = value` lines; `#` comments and blank lines skipped; a line
    ending in `\\` continues on the next (the newline kept, as splunkd keeps it). A later key wins."""
    out: Stanzas = {}
    cur = out.setdefault(GLOBAL, {})
    pending: Optional[Tuple[str, List[str]]] = None
    for raw in text.splitlines():
        if pending is not None:
            key, parts = pending
            if raw.endswith("\\"):
                parts.append(raw[:-1])
                continue
            parts.append(raw)
            cur[key] = _value("\n".join(parts))
            pending = None
            continue
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            cur = out.setdefault(line[1:-1].strip(), {})
            continue
        key, sep, value = raw.partition("=")
        if not sep or not key.strip():
            continue            # not a setting: splunkd ignores it too (btool names it)
        value = value.strip()
        if value.endswith("\\"):
            pending = (key.strip(), [value[:-1]])
            continue
        cur[key.strip()] = _value(value)
    if pending is not None:
        cur[pending[0]] = _value("\n".join(pending[1]))
    return {k: v for k, v in out.items() if v or k != GLOBAL}


def _value(v: str) -> str:
    return REDACTED if _REDACTED.match(v.strip()) else v.strip()


def layer_of(path: str) -> Optional[Tuple[str, int, str]]:
    """(conf file name, rank, app) of a path under etc/ ('system/local/server.conf' ->
    ('server.conf', SYSTEM_LOCAL, '')); None for a path that is not a layer of the global context."""
    parts = path.split("/")
    if len(parts) == 3 and parts[0] == "system" and parts[1] in ("default", "local") and parts[2].endswith(".conf"):
        return parts[2], SYSTEM_DEFAULT if parts[1] == "default" else SYSTEM_LOCAL, ""
    if len(parts) == 4 and parts[0] == "apps" and parts[2] in ("default", "local") and parts[3].endswith(".conf"):
        return parts[3], APP_DEFAULT if parts[2] == "default" else APP_LOCAL, parts[1]
    return None


def _order(item: Tuple[int, str, Stanzas]) -> Tuple[int, List[int]]:
    rank, app, _ = item
    # Within an app rank, the app sorting last in ASCII is applied first: the first one wins.
    return rank, [-b for b in app.encode("utf-8", "replace")] + [1]


def merge(layers: Iterable[Tuple[int, str, Stanzas]]) -> Stanzas:
    """One file's layers (rank, app, stanzas), in any order, merged by Splunk's precedence: key by key, the
    higher layer's value winning."""
    out: Stanzas = {}
    for _, _, stanzas in sorted(layers, key=_order):
        for name, kv in stanzas.items():
            out.setdefault(name, {}).update(kv)
    return out
