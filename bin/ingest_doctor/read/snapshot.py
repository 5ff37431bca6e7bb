"""A snapshot folder (contract section 1) -> Evidence.

Every file is optional. A bad file (unreadable, truncated JSON, an HTML error
page saved as .json) is named in `evidence.problems` and the rest is judged.
Logs are read as streams, line by line, and only the last `log_window_min`
minutes before the capture time (snapshot.json, else the log's last line) are
kept: a log far larger than its window costs time, never memory.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ingest_doctor.read import hec, logtime, metricslog, readstep, splunkdlog
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.read.endpoints import BY_PATH, MACROS, SNAPSHOT, Endpoint, Fetched
from ingest_doctor.evidence import Evidence

MAX_REST_BYTES = 64 * 1024 * 1024   # a REST body larger than this is not a splunkd answer


class SnapshotError(Exception):
    """The snapshot cannot be analysed at all (no such folder)."""


def rest_file(root: str, path: str) -> str:
    return os.path.join(root, "rest", *path.split("/")) + ".json"


def read_meta(root: str, ev: Evidence) -> Dict[str, Any]:
    path = os.path.join(root, "snapshot.json")
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
        if not isinstance(meta, dict):
            raise ValueError("not an object")
    except (OSError, ValueError, UnicodeDecodeError) as e:
        ev.problems.append("snapshot.json: unreadable (%s)" % _short(e))
        return {}
    return meta


def _short(e: BaseException) -> str:
    if isinstance(e, json.JSONDecodeError):
        return "malformed JSON: %s" % e.msg
    if isinstance(e, OSError):
        return e.strerror or type(e).__name__
    return str(e) or type(e).__name__


def _file_fetch(root: str) -> readstep.Fetch:
    """The read step's fetch over a snapshot folder: a missing file is a 404 (not available)."""
    def fetch(ep: Endpoint) -> Fetched:
        fname = rest_file(root, ep.path)
        if not os.path.exists(fname):
            return Fetched(404)
        try:
            size = os.path.getsize(fname)
            if size > MAX_REST_BYTES:
                return Fetched(None, b"", 0.0, "too_large", "too large for a REST body (%d bytes)" % size)
            with open(fname, "rb") as f:
                return Fetched(200, f.read())
        except OSError as e:
            return Fetched(None, b"", 0.0, "error", _short(e))
    return fetch


def _read_rest(root: str, endpoints: Sequence[Endpoint], ev: Evidence) -> readstep.Reading:
    reading = readstep.read(_file_fetch(root), endpoints, None, MAX_REST_BYTES, evidence=ev)
    for fault in reading.faults:
        if fault.kind != "404":
            ev.problems.append("%s: %s" % (os.path.relpath(rest_file(root, fault.path), root), fault.message()))
    readstep.merge_config(ev, reading.config)
    return reading


def _folder(path: str) -> None:
    if not os.path.isdir(path):
        raise SnapshotError("no such snapshot folder: %s" % path if not os.path.exists(path)
                            else "not a folder: %s" % path)


def recorded_thresholds(root: str, overrides: Optional[Mapping[str, object]] = None
                        ) -> Tuple[thresholds_mod.Thresholds, List[str]]:
    """The thresholds a snapshot's splunkd was tuned with (rest/services/configs/conf-macros.json),
    then `overrides` (CLI --threshold; raises ThresholdError when invalid); and the problems.
    Raises SnapshotError when `root` is not a folder."""
    _folder(root)
    ev = Evidence()
    reading = _read_rest(root, [BY_PATH[MACROS]], ev)
    th, problems = thresholds_mod.from_macros(reading.macros, overrides)
    return th, ev.problems + ["rest/%s.json: %s (default used)" % (MACROS, p) for p in problems]


def _log_window(path: str, captured_at: Optional[float], window_min: float) -> Tuple[Optional[float], Optional[float]]:
    end = captured_at if captured_at is not None else logtime.last_time(path)
    if end is None:
        return None, None
    return end - window_min * 60.0, None if captured_at is None else captured_at + 60.0


def _load_log(root: str, ev: Evidence, name: str, parser_cls: Any, captured_at: Optional[float],
              window_min: float) -> None:
    fname = os.path.join(root, "logs", name)
    if not os.path.exists(fname):
        return
    rel = "logs/" + name
    since, until = _log_window(fname, captured_at, window_min)
    parser = parser_cls(ev, since, until, rel)
    try:
        with open(fname, encoding="utf-8", errors="replace") as f:
            for line in f:
                parser.feed(line)
    except OSError as e:
        ev.problems.append("%s: %s" % (rel, _short(e)))
        return
    stats = parser.finish()
    if parser_cls is metricslog.MetricsLogParser:
        kept = stats.lines - stats.outside_window
        if stats.lines and not kept:
            ev.not_judged.append("%s: no lines in the last %d minutes before the capture time"
                                 % (rel, int(window_min)))
        elif stats.lines and stats.used == 0:
            ev.problems.append("%s: no usable metrics lines (%d lines, %d not metrics lines)"
                               % (rel, stats.lines, stats.garbage))
        elif stats.garbage and kept:
            ev.not_judged.append("%s: %d of %d lines in the window were not usable metrics lines (skipped)"
                                 % (rel, stats.garbage, kept))


def _load_hec(root: str, ev: Evidence) -> None:
    fname = os.path.join(root, "hec", "health.json")
    if not os.path.exists(fname):
        return
    try:
        with open(fname, encoding="utf-8", errors="replace") as f:
            data = hec.parse_text(f.read(MAX_REST_BYTES))
        hec.apply_probes(ev, data, "hec/health.json")
    except (OSError, hec.HecProbeError) as e:
        ev.problems.append("hec/health.json: %s" % _short(e))


def load_snapshot(path: str, thresholds: Optional[thresholds_mod.Thresholds] = None) -> Evidence:
    """Read a snapshot folder. Raises SnapshotError only when `path` is not a folder."""
    _folder(path)
    th = thresholds or thresholds_mod.defaults()
    ev = Evidence()
    meta = read_meta(path, ev)
    if isinstance(meta.get("host"), str) and meta["host"]:
        ev.host = meta["host"]
    captured_at = logtime.iso_epoch(meta.get("captured_at"))
    _read_rest(path, SNAPSHOT, ev)
    window = float(th.log_window_min)
    _load_log(path, ev, "metrics.log", metricslog.MetricsLogParser, captured_at, window)
    _load_log(path, ev, "splunkd.log", splunkdlog.SplunkdLogParser, captured_at, window)
    _load_hec(path, ev)
    return ev


def has_evidence(ev: Evidence) -> bool:
    """True when at least one source could be read."""
    return bool(ev.sources)
