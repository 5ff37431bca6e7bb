"""Writing a snapshot folder (contract section 1): layout, secret removal, search exports.

The CLI's `snapshot` command (cli.py) reads splunkd through its port and the read
step, and hands the bodies here. Nothing that can authenticate (HEC token values,
passwords, pass4SymmKey) is ever written.
"""
from __future__ import annotations

import json
import os
import time as _time
from typing import Any, Iterable, List, Optional, Tuple

from ingest_doctor.read import logtime, rest
from ingest_doctor.read.snapshot import rest_file

FORMAT = 1
SECRET_KEYS = {"token", "password", "pass4symmkey", "sslpassword", "sslkeysfilepassword", "clear_password",
               "session_key", "sessionkey", "authtoken", "secret", "accesskey", "access_key", "secretkey",
               "secret_key", "privatekey", "private_key", "apikey", "api_key", "passwd", "credential"}
# Any key containing one of these (case-insensitive) is a secret too: `*token*`, `*password*`, `*secret*`, ...
SECRET_PARTS = ("token", "password", "passwd", "secret", "pass4symmkey", "accesskey", "access_key", "privatekey",
                "private_key", "apikey", "api_key", "credential", "sessionkey", "session_key")

# Lines of splunkd.log the engine uses (HEC replies, listener, output and index processor pauses, and the
# forwarder's failed connections to its receivers).
SPLUNKD_COMPONENTS = ("HttpInputDataHandler", "HttpListener", "TcpOutputProc", "TcpInputProc", "IndexProcessor",
                      "AutoLoadBalancedConnectionStrategy", "TcpOutputFd")


def is_secret(key: str) -> bool:
    low = key.lower()
    return low in SECRET_KEYS or any(part in low for part in SECRET_PARTS)


def redact(data: Any) -> Tuple[Any, int]:
    """Drop every secret-looking key anywhere in a decoded body, whatever its value (a string, a
    number, a list of values, an object); returns (data, how many were dropped)."""
    dropped = 0
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            if isinstance(k, str) and is_secret(k):
                dropped += 1
                continue
            out[k], n = redact(v)
            dropped += n
        return out, dropped
    if isinstance(data, list):
        items = []
        for v in data:
            r, n = redact(v)
            items.append(r)
            dropped += n
        return items, dropped
    return data, 0


def metrics_search(host: str, minutes: int, index: str = "_internal") -> str:
    return ('search index=%s source=*metrics.log* host="%s" earliest=-%dm latest=now '
            '| fields _time _raw' % (index, host.replace('"', ""), minutes))


def splunkd_search(host: str, minutes: int, index: str = "_internal") -> str:
    comps = " OR ".join("component=%s" % c for c in SPLUNKD_COMPONENTS)
    return ('search index=%s sourcetype=splunkd host="%s" (%s) earliest=-%dm latest=now | fields _time _raw'
            % (index, host.replace('"', ""), comps, minutes))


def export_raw_lines(chunks: Iterable[bytes]) -> List[str]:
    """search/jobs/export output_mode=json: one JSON object per line with result._raw; oldest first."""
    rows: List[Tuple[float, int, str]] = []
    buf = b""
    n = 0

    def take(line: bytes) -> None:
        nonlocal n
        line = line.strip()
        if not line:
            return
        try:
            obj = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            return
        res = obj.get("result") if isinstance(obj, dict) else None
        if not isinstance(res, dict) or not isinstance(res.get("_raw"), str):
            return
        t = rest.as_float(res.get("_time"))
        if t is None:
            t = logtime.iso_epoch(res.get("_time"))
        rows.append((t if t is not None else 0.0, n, res["_raw"].rstrip("\r\n")))
        n += 1

    for chunk in chunks:
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            take(line)
    take(buf)
    rows.sort()
    return [raw for _, _, raw in rows]


class SnapshotWriter:
    def __init__(self, root: str):
        self.root = root
        self.notes: List[str] = []
        self.written: List[str] = []
        os.makedirs(root, exist_ok=True)

    def write_rest(self, path: str, body: bytes) -> bool:
        """Validate, redact and write one body; a body that is not an envelope is noted, not written."""
        try:
            data = rest.decode(body)
            rest.entries(data)
        except rest.RestError as e:
            self.notes.append("%s: %s (skipped)" % (path, e))
            return False
        data, dropped = redact(data)
        fname = rest_file(self.root, path)
        os.makedirs(os.path.dirname(fname), exist_ok=True)
        with open(fname, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        self.written.append(os.path.relpath(fname, self.root))
        if dropped:
            self.notes.append("%s: %d secret value%s removed" % (path, dropped, "" if dropped == 1 else "s"))
        return True

    def write_log(self, name: str, lines: List[str]) -> None:
        os.makedirs(os.path.join(self.root, "logs"), exist_ok=True)
        fname = os.path.join(self.root, "logs", name)
        with open(fname, "w", encoding="utf-8") as f:
            for line in lines:
                f.write(line + "\n")
        self.written.append("logs/" + name)

    def write_meta(self, host: Optional[str], uri: str, captured_at: Optional[float] = None) -> None:
        meta = {"format": FORMAT, "host": host,
                "captured_at": logtime.iso_utc(captured_at or _time.time()),
                "source": uri, "notes": self.notes}
        with open(os.path.join(self.root, "snapshot.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        self.written.append("snapshot.json")
