"""A snapshot folder (contract section 1) -> Evidence.

Every file is optional. A bad file (unreadable, truncated JSON, an HTML error
page saved as .json) is named in `evidence.problems` and the rest is judged.
Logs are read as streams, line by line, and only the last `log_window_min`
minutes before the capture time (snapshot.json, else the log's last line) are
kept: a log far larger than its window costs time, never memory.

A snapshot may come from anyone: only regular files are read (a FIFO, a device
or a link to /dev/zero is named, never opened for reading), each JSON file up to
MAX_REST_BYTES, each log up to its last MAX_LOG_BYTES in lines of at most
MAX_LINE_BYTES (a longer "line" is skipped and counted), JSON nesting and integer
sizes are bounded (rest.loads). A log without one dated line is not evidence.
"""
from __future__ import annotations

import os
import stat
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ingest_doctor.read import hec, logtime, metricslog, readstep, resourceusage, rest, splunkdlog
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.read.endpoints import BY_PATH, MACROS, SNAPSHOT, Endpoint, Fetched
from ingest_doctor.evidence import Evidence
from ingest_doctor.textsafe import printable


MAX_REST_BYTES = readstep.MAX_BODY_BYTES   # a REST body larger than this is not a splunkd answer
MAX_LOG_BYTES = 512 * 1024 * 1024         # a larger log: only its last MAX_LOG_BYTES are read
MAX_LINE_BYTES = 64 * 1024                # a longer line is not a splunkd log line: skipped
MAX_META_BYTES = 1024 * 1024              # snapshot.json, deployment.json: a few hundred bytes when we wrote them


class SnapshotError(Exception):
    """The snapshot cannot be analysed at all (no such folder)."""


class NotRegular(OSError):
    """A path that exists but is not a regular file (FIFO, device, socket, folder)."""


def open_regular(path: str):
    """A regular file opened for binary reading, checked on the open descriptor (no race with a
    FIFO swapped in, no blocking open of a FIFO: O_NONBLOCK). Raises OSError / NotRegular."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
                    "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
            raise NotRegular("%s, not read" % kind)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: str, cap: int) -> bytes:
    """A regular file's bytes; raises NotRegular, OSError, or ValueError when larger than `cap`."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size      # read() of n bytes allocates n at once: ask for what is there
        data = f.read(min(size, cap) + 1)
    if len(data) > cap:
        raise ValueError("larger than %d MiB, not read" % (cap >> 20))
    return data


def bounded_lines(f, max_line: int = MAX_LINE_BYTES, counter: Optional[List[int]] = None):
    """The lines of a buffered binary stream, decoded (bad bytes replaced); a line longer than
    `max_line` is skipped without ever being held whole (counted in counter[0])."""
    readline = f.readline
    limit = max_line + 1
    while True:
        line = readline(limit)
        if len(line) < limit:
            if not line:
                return
            yield line.decode("utf-8", "replace")
            continue
        while line and line[-1:] != b"\n":     # longer than max_line: read to its end, a bounded piece at a time
            line = readline(limit)
        if counter is not None:
            counter[0] += 1


def rest_file(root: str, path: str) -> str:
    return os.path.join(root, "rest", *path.split("/")) + ".json"


def read_json(path: str, cap: int = MAX_META_BYTES) -> Any:
    """A small JSON file we did not write (snapshot.json, deployment.json) through every guard: a regular
    file (open_regular), at most `cap` bytes (read_capped), UTF-8, bounded nesting (rest.loads). Raises
    OSError (NotRegular among them) or ValueError (UnicodeDecodeError among them)."""
    return rest.loads(read_capped(path, cap).decode("utf-8"))


def read_meta(root: str, ev: Evidence) -> Dict[str, Any]:
    path = os.path.join(root, "snapshot.json")
    if not os.path.lexists(path):
        return {}
    try:
        meta = read_json(path)
        if not isinstance(meta, dict):
            raise ValueError("not an object")
    except (OSError, ValueError, UnicodeDecodeError) as e:
        ev.problems.append("snapshot.json: unreadable (%s)" % short_error(e))
        return {}
    return meta


def short_error(e: BaseException) -> str:
    if isinstance(e, ValueError) and hasattr(e, "msg"):
        return "malformed JSON: %s" % getattr(e, "msg")
    if isinstance(e, NotRegular):
        return str(e)
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
            return Fetched(200, read_capped(fname, MAX_REST_BYTES))
        except ValueError as e:
            return Fetched(None, b"", 0.0, "too_large", "too large for a REST body (%s)" % e)
        except OSError as e:
            return Fetched(None, b"", 0.0, "error", short_error(e))
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
    try:
        with os.scandir(path):      # a folder it may not list is named, not a traceback (nor "nothing in it")
            pass
    except OSError as e:
        raise SnapshotError("cannot list the snapshot folder %s: %s" % (path, e.strerror or type(e).__name__)) from None


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


def clock_ahead(root: str) -> Optional[Tuple[float, float]]:
    """(seconds its metrics.log's newest line is after snapshot.json's captured_at, that capture time), or None
    when either is unknown. Positive: the instance's clock runs ahead of the capture's (a line cannot be written
    after its capture); negative: its clock is behind, or it stopped logging (the two cannot be told apart)."""
    captured_at = logtime.iso_epoch(read_meta(root, Evidence()).get("captured_at"))
    fname = os.path.join(root, "logs", "metrics.log")
    if captured_at is None or not os.path.isfile(fname):
        return None
    try:
        last = logtime.last_time(fname, limit=MAX_LOG_BYTES)
    except OSError:
        return None
    return None if last is None else (last - captured_at, captured_at)


def _log_window(last: Optional[float], captured_at: Optional[float], window_min: float
                ) -> Tuple[Optional[float], Optional[float]]:
    end = captured_at if captured_at is not None else last
    if end is None:
        return None, None
    return end - window_min * 60.0, None if captured_at is None else captured_at + 60.0


# Each log's parser.
PARSERS = {"metrics.log": metricslog.MetricsLogParser, "splunkd.log": splunkdlog.SplunkdLogParser,
           "resource_usage.log": resourceusage.ResourceUsageParser}


def _load_log(root: str, ev: Evidence, name: str, captured_at: Optional[float], window_min: float,
              skip: Tuple[str, ...] = ()) -> None:
    """One log of the snapshot into `ev`; `skip`: metrics.log groups not read."""
    fname = os.path.join(root, "logs", name)
    if not os.path.lexists(fname):
        return
    parser_cls = PARSERS[name]
    rel = "logs/" + name
    skipped = [0]
    try:
        with open_regular(fname) as f:
            last = logtime.last_time(fname, limit=MAX_LOG_BYTES)
            since, until = _log_window(last, captured_at, window_min) if last is not None else (None, None)
            parser = parser_cls(ev, since, until, rel, skip) if skip else parser_cls(ev, since, until, rel)
            size = os.fstat(f.fileno()).st_size
            if size > MAX_LOG_BYTES:
                f.seek(size - MAX_LOG_BYTES)
                ev.not_judged.append("%s: larger than %d MiB, only its end was read" % (rel, MAX_LOG_BYTES >> 20))
                skipped[0] -= 1     # the first, partial line
            parser.feed_all(bounded_lines(f, MAX_LINE_BYTES, skipped))
    except OSError as e:
        ev.problems.append("%s: %s" % (rel, short_error(e)))
        return
    stats = parser.finish()
    if skipped[0] > 0:
        ev.not_judged.append("%s: %d line(s) longer than %d KiB skipped" % (rel, skipped[0], MAX_LINE_BYTES >> 10))
    if last is None or (name == "metrics.log" and stats.lines > stats.outside_window and not stats.used
                        and stats.garbage >= stats.lines - stats.outside_window):
        # Not a splunkd log (no dated line, or nothing but garbage in the window; a log whose lines all fall
        # outside the window is one, and says so below): it judges nothing.
        if rel in ev.sources:
            ev.sources.remove(rel)
        ev.problems.append("%s: not a splunkd log (no usable dated line)" % rel)
        return
    if name == "metrics.log":
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
    if not os.path.lexists(fname):
        return
    try:
        data = hec.parse_text(read_capped(fname, MAX_REST_BYTES).decode("utf-8", "replace"))
        hec.apply_probes(ev, data, "hec/health.json")
    except (OSError, ValueError) as e:
        ev.problems.append("hec/health.json: %s" % short_error(e))


def load_snapshot(path: str, thresholds: Optional[thresholds_mod.Thresholds] = None,
                  clock_offset: float = 0.0, connections: bool = True) -> Evidence:
    """Read a snapshot folder. Raises SnapshotError only when `path` is not a folder. `clock_offset`: seconds
    the instance's clock runs ahead of the capture's (a deployment measures it): its logs' window ends at the
    capture time on its own clock. `connections`: read metrics.log's group=tcpin_connections (who sends here),
    which only a deployment's topology reads; one instance's diagnosis skips them (metricslog.CONNECTIONS)."""
    _folder(path)
    th = thresholds or thresholds_mod.defaults()
    ev = Evidence()
    meta = read_meta(path, ev)
    if isinstance(meta.get("host"), str) and meta["host"]:
        ev.host = meta["host"]
    captured_at = logtime.iso_epoch(meta.get("captured_at"))
    if captured_at is not None:
        captured_at += clock_offset
    _read_rest(path, SNAPSHOT, ev)
    window = float(th.log_window_min)
    _load_log(path, ev, "metrics.log", captured_at, window, () if connections else (metricslog.CONNECTIONS,))
    _load_log(path, ev, "splunkd.log", captured_at, window)
    _load_log(path, ev, "resource_usage.log", captured_at, window)     # introspection's, when a snapshot has it
    _load_hec(path, ev)
    if ev.host:
        ev.host = printable(ev.host)    # from files nobody vouches for: never a control character, never 100 MB
    return ev


# The evidence a rule judges (every other field is configuration, names or notes).
JUDGED = ("queues", "threads", "processors", "regex_cpu", "pipelinesets", "hec_errors", "hec_probes", "indexer",
          "cpu", "thruput", "log_signals", "tcpout", "tcpin")


def nothing_to_judge(ev: Evidence) -> Optional[str]:
    """Why no rule has anything to judge in `ev`, in the admin's words; None when something can be judged.
    Files can be read and still hold nothing: REST answers with no entries, logs whose lines all fall outside
    the window, configuration alone."""
    if any(getattr(ev, n) for n in JUDGED) or ev.host_cpu.host_cpu_pct is not None \
            or ev.host_cpu.splunkd_cpu_pct is not None:
        return None
    said = [n for n in ev.not_judged if n.startswith("logs/")]
    read = sorted(s for s in ev.sources if s != "services/server/info")
    if read:
        said.append("read, but holding no runtime data: %s" % ", ".join(read))
    if ev.problems:
        said.append("%d unusable file(s)" % len(ev.problems))
    return "; ".join(said) or "no rest/*.json, logs/ or hec/ data"


def has_evidence(ev: Evidence) -> bool:
    """True when at least one source that can be judged was read (server/info alone names the
    host, it judges nothing)."""
    return any(s != "services/server/info" for s in ev.sources)
