"""A Splunk diag (`diag-<host>-<date>.tar.gz`, or its extracted folder) -> Evidence, read as a stream.

A tarball is never extracted: it is read with tarfile's stream mode (`r|*`), members in archive order, each
member's lines parsed as they come, so memory is bounded by what is judged, never by the archive's size.
Pass 1 (`scan`) reads the configuration (etc/: the .conf files the engine reads, instance.cfg, splunk.version),
systeminfo.txt and the time span of every metrics.log, splunkd.log and resource_usage.log (rotated files
included). The window is then chosen (the last `log_window_min` minutes metrics.log covers, or the user's), and
pass 2 (`load`) feeds the logs that reach into it to the snapshot's parsers, oldest file first (a member met
out of time order is read in a further pass over the stream: a window spans one or two files).

What a diag carries: its layout is in docs/diag.md. What it never carries (live queue lookbacks, the HEC
health probe and latency, per-thread /proc CPU) is named in `not_judged` (CANNOT_SHOW).

Bad input raises DiagError (not a gzip/tar, truncated or corrupt, empty, several top folders, a member whose
path leaves the diag's folder): the diag is not judged and says why. A symlink or other special member is
named and skipped (never followed), a member larger than MAX_MEMBER_BYTES is skipped unread (splunk diag
leaves out files over 1 GB), a line longer than snapshot.MAX_LINE_BYTES is skipped.
"""
from __future__ import annotations

import json
import os
import re
import tarfile
import time
import zlib
from dataclasses import dataclass, field
from typing import IO, Callable, Dict, Iterator, List, Optional, Tuple

from ingest_doctor.evidence import Evidence
from ingest_doctor.read import conffile, logtime, metricslog, readstep, resourceusage, splunkdlog
from ingest_doctor.read.snapwriter import is_secret
from ingest_doctor.read.endpoints import (HEC_SETTINGS, MACROS, PROPS, SERVER_GENERAL, SNAPSHOT, TCPOUT, THRUPUT,
                                          Endpoint, BY_PATH, Fetched, target)
from ingest_doctor.read.snapshot import MAX_LINE_BYTES, bounded_lines
from ingest_doctor.textsafe import printable

MAX_MEMBER_BYTES = 1 << 30          # splunk diag drops files over 1 GB: a larger member is not from it
MAX_CONF_BYTES = 16 << 20           # one .conf file, systeminfo.txt
MAX_SKIP_NOTES = 10                 # members not read named one by one; the rest counted
MAX_CONF_FILES = 4096               # .conf files of the kinds read, over every app
NAME = re.compile(r"^diag-(?P<host>.+)-(?P<date>\d{4}-\d\d-\d\d(?:_\d\d-\d\d-\d\d)?)$")

# The .conf files the engine reads (their merged stanzas become the REST bodies the snapshot reads).
# transforms.conf is not among them: no endpoint of the table reads it and no rule judges a transform's content
# (props.conf's TRANSFORMS-* names are read, from props.conf).
CONF_FILES = ("server.conf", "inputs.conf", "outputs.conf", "props.conf", "macros.conf", "limits.conf")
# Log members: kind -> (folder, base name). Rotated files are `<base>.<n>`, older as n grows.
LOGS = {"metrics.log": ("log", "metrics.log"), "splunkd.log": ("log", "splunkd.log"),
        "resource_usage.log": ("introspection", "resource_usage.log")}
PARSERS = {"metrics.log": metricslog.MetricsLogParser, "splunkd.log": splunkdlog.SplunkdLogParser,
           "resource_usage.log": resourceusage.ResourceUsageParser}

CANNOT_SHOW = (
    "a diag carries no live queue lookbacks (1/10/15-minute averages): queues judged from metrics.log samples",
    "a diag carries no HEC health probe or request latency: HEC availability not judged",
    "a diag carries no per-thread /proc CPU: thread busy shares judged from metrics.log dutycycle",
)


class DiagError(Exception):
    """The diag cannot be read at all (the message names why)."""


@dataclass
class LogFile:
    kind: str
    name: str               # member path under the top folder, e.g. log/metrics.log.1
    first: Optional[float] = None
    last: Optional[float] = None


@dataclass
class Scan:
    """Pass 1: what a diag is, before any log line is judged."""
    path: str
    top: str = ""
    host: str = ""
    conf: Dict[str, List[Tuple[int, str, conffile.Stanzas]]] = field(default_factory=dict)
    guid: str = ""
    version: str = ""
    cores: Optional[int] = None
    addresses: List[str] = field(default_factory=list)      # IPv4, from systeminfo.txt
    logs: List[LogFile] = field(default_factory=list)
    introspection: bool = False
    diag_log: bool = False
    live: Dict[str, bytes] = field(default_factory=dict)    # the add-on's extension: endpoint -> splunkd's body
    problems: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    skipped: int = 0            # members not read (links, special files, too large)

    def skip(self, note: str) -> None:
        """A member not read: named, the first MAX_SKIP_NOTES of them, then counted."""
        self.skipped += 1
        if self.skipped <= MAX_SKIP_NOTES:
            self.notes.append(note)

    def span(self) -> Tuple[Optional[float], Optional[float]]:
        """The first and last time metrics.log (all its rotated files) covers."""
        firsts = [f.first for f in self.logs if f.kind == "metrics.log" and f.first is not None]
        lasts = [f.last for f in self.logs if f.kind == "metrics.log" and f.last is not None]
        return (min(firsts) if firsts else None), (max(lasts) if lasts else None)


# --------------------------------------------------------------------------- what is a diag

def is_diag_file(path: str) -> bool:
    """A tarball, whatever its name (`splunk diag --diag-name` replaces the whole name): read as a diag, and
    named as not one when its content says so."""
    return os.path.isfile(path) and os.path.basename(path).endswith((".tar.gz", ".tgz", ".tar"))


def is_diag_folder(path: str) -> bool:
    return os.path.isdir(path) and (os.path.isfile(os.path.join(path, "systeminfo.txt"))
                                    or os.path.isfile(os.path.join(path, "diag.log"))
                                    or (os.path.isdir(os.path.join(path, "etc"))
                                        and os.path.isdir(os.path.join(path, "log"))))


def is_diag(path: str) -> bool:
    return is_diag_file(path) or is_diag_folder(path)


def diags_in(path: str) -> List[str]:
    """The diags in a folder of diags (tarballs or extracted folders), by name; [] when it holds none."""
    if not os.path.isdir(path) or is_diag_folder(path):
        return []
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    return [os.path.join(path, n) for n in names if not n.startswith(".") and is_diag(os.path.join(path, n))]


# --------------------------------------------------------------------------- members, as a stream

Member = Tuple[str, int, Callable[[], IO[bytes]]]     # (path under the top folder, size, opener)


def _safe_name(name: str) -> str:
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or ".." in name.replace("\\", "/").split("/"):
        raise DiagError("member %s: a path outside the diag's folder (absolute or with `..`): not a diag as "
                        "splunk diag writes it; nothing was extracted" % printable(name, 200))
    return name


def _tar_members(path: str, scan: Scan) -> Iterator[Member]:
    try:
        tf = tarfile.open(path, "r|*")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
        raise DiagError(_archive_error(path, e)) from None
    count = 0
    try:
        with tf:
            for ti in tf:
                # In stream mode tarfile keeps every member's header in `members`: a diag of a million tiny
                # members would hold them all. Only the current member is ever read, so none is kept (its
                # iterator then asks the stream for the next header: index past the list, as when it grows).
                del tf.members[:]
                count += 1
                name = _safe_name(ti.name)
                while name.startswith("./"):
                    name = name[2:]
                top, _, rel = name.partition("/")
                if not top:
                    continue
                if scan.top and top != scan.top:
                    raise DiagError("members under two top folders (%s, %s): not one diag"
                                    % (printable(scan.top, 100), printable(top, 100)))
                scan.top = top
                if ti.isdir() or not rel:
                    continue
                if not ti.isfile():
                    scan.skip("%s: a %s, not read (never followed)"
                              % (printable(rel, 200), "link" if ti.issym() or ti.islnk() else "special file"))
                    continue
                if ti.size > MAX_MEMBER_BYTES:
                    scan.skip("%s: %d MiB, larger than any file splunk diag keeps: not read"
                              % (printable(rel, 200), ti.size >> 20))
                    continue
                yield rel, ti.size, (lambda ti=ti: tf.extractfile(ti))
    except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
        raise DiagError(_archive_error(path, e)) from None
    if not count:
        raise DiagError("an empty archive: not a diag")


def _archive_error(path: str, e: BaseException) -> str:
    if os.path.isfile(path) and os.path.getsize(path) == 0:
        return "an empty file: not a diag"
    text = str(e) or type(e).__name__
    if isinstance(e, (EOFError, zlib.error)) or "unexpected end" in text.lower() or "truncated" in text.lower():
        return "a truncated or corrupt archive (%s)" % text
    return "not a readable gzip or tar archive (%s): not a diag (an encrypted or other file?)" % text


def _folder_members(path: str, scan: Scan) -> Iterator[Member]:
    scan.top = os.path.basename(os.path.abspath(path))
    for dirpath, dirnames, filenames in os.walk(path):       # os.walk follows no symlinked folder
        dirnames.sort()
        for n in sorted(filenames):
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, path).replace(os.sep, "/")
            if os.path.islink(full) or not os.path.isfile(full):
                scan.skip("%s: a link or special file, not read (never followed)" % printable(rel, 200))
                continue
            size = os.path.getsize(full)
            if size > MAX_MEMBER_BYTES:
                scan.skip("%s: %d MiB, larger than any file splunk diag keeps: not read"
                          % (printable(rel, 200), size >> 20))
                continue
            yield rel, size, (lambda full=full: open(full, "rb"))


def members(path: str, scan: Scan) -> Iterator[Member]:
    if os.path.isdir(path):
        return _folder_members(path, scan)
    return _tar_members(path, scan)


# --------------------------------------------------------------------------- pass 1

def _log_kind(rel: str) -> Optional[str]:
    for kind, (folder, base) in LOGS.items():
        if rel == "%s/%s" % (folder, base) or re.fullmatch(r"%s/%s\.\d{1,2}" % (folder, re.escape(base)), rel):
            return kind
    return None


def _bounded_text(f: IO[bytes], size: int) -> str:
    return f.read(min(size, MAX_CONF_BYTES)).decode("utf-8", "replace")


def _times(kind: str, f: IO[bytes]) -> Tuple[Optional[float], Optional[float]]:
    """The first and last time a log member's lines carry (read as a stream, one line at a time)."""
    first = last = None
    skip = len('{"datetime":"') if kind == "resource_usage.log" else 0
    prefix = None
    for line in bounded_lines(f, MAX_LINE_BYTES):
        head = line[skip:skip + 29]
        if head == prefix:
            continue
        t, _ = logtime.parse_prefix(head)
        if t is None:
            continue
        prefix = head
        if first is None:
            first = t
        last = t
    return first, last


_ARCHIVE_ERRORS = (tarfile.TarError, OSError, EOFError, zlib.error)


def scan(path: str) -> Scan:
    """Pass 1 over a diag (a tarball or its extracted folder). Raises DiagError when it is not a readable diag."""
    try:
        return _scan(path)
    except _ARCHIVE_ERRORS as e:     # a member's data cut short is met while reading it
        raise DiagError(_archive_error(path, e)) from None


def _scan(path: str) -> Scan:
    s = Scan(path)
    base = os.path.basename(os.path.abspath(path))
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if base.endswith(suffix):
            base = base[:-len(suffix)]
    seen = 0
    for rel, size, opener in members(path, s):
        seen += 1
        if rel.startswith("introspection/"):
            s.introspection = True
        if rel == "diag.log":
            s.diag_log = True
        kind = _log_kind(rel)
        if kind is not None:
            with opener() as f:
                first, last = _times(kind, f)
            s.logs.append(LogFile(kind, rel, first, last))
            continue
        if rel.startswith(EXTENSION):
            _scan_extension(s, rel[len(EXTENSION):], size, opener)
        elif rel.startswith("etc/"):
            _scan_etc(s, rel[len("etc/"):], size, opener)
        elif rel == "systeminfo.txt":
            with opener() as f:
                _systeminfo(s, _bounded_text(f, size))
    if s.skipped > MAX_SKIP_NOTES:
        s.notes.append("%d more member(s) not read (links, special files or too large)" % (s.skipped - MAX_SKIP_NOTES))
    m = NAME.match(s.top or base)
    s.host = printable(m.group("host") if m else (s.top or base), 200)
    if not s.logs and not s.conf and not s.guid:
        raise DiagError("no log/, etc/ or systeminfo.txt in it (%d member(s)): not a diag" % seen)
    return s


def _scan_etc(s: Scan, rel: str, size: int, opener: Callable[[], IO[bytes]]) -> None:
    if rel == "instance.cfg":
        with opener() as f:
            general = conffile.parse(_bounded_text(f, size)).get("general", {})
        s.guid = printable(general.get("guid", ""), 100)
        return
    if rel == "splunk.version":
        with opener() as f:
            version = conffile.parse(_bounded_text(f, size)).get(conffile.GLOBAL, {})
        s.version = printable(version.get("VERSION", ""), 50)
        return
    layer = conffile.layer_of(rel)
    if layer is None or layer[0] not in CONF_FILES:
        return
    if sum(len(v) for v in s.conf.values()) >= MAX_CONF_FILES:
        s.problems.append("etc/%s: more than %d .conf files, not read" % (printable(rel, 200), MAX_CONF_FILES))
        return
    if size > MAX_CONF_BYTES:
        s.problems.append("etc/%s: larger than %d MiB, not read" % (printable(rel, 200), MAX_CONF_BYTES >> 20))
        return
    with opener() as f:
        stanzas = conffile.parse(_bounded_text(f, size))
    fname, rank, app = layer
    s.conf.setdefault(fname, []).append((rank, app, stanzas))


def _scan_extension(s: Scan, rel: str, size: int, opener: Callable[[], IO[bytes]]) -> None:
    """What the add-on's diag extension saved: splunkd's runtime answers at diag time (rest/<path>.json), or
    diag's record of its failure (setup_failed.output, data_collect_exception.output)."""
    if rel.endswith(".output"):
        with opener() as f:
            first = f.read(2000).decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        s.notes.append("%s%s: the add-on's diag extension failed (%s): its live data is missing"
                       % (EXTENSION, printable(rel, 100), printable(first[0], 300)))
        return
    path = rel[len("rest/"):-len(".json")] if rel.startswith("rest/") and rel.endswith(".json") else ""
    ep = BY_PATH.get(path)
    if ep is None or not ep.runtime:
        return
    if size > readstep.MAX_BODY_BYTES:
        s.problems.append("%s%s: larger than %d MiB, not read" % (EXTENSION, rel, readstep.MAX_BODY_BYTES >> 20))
        return
    with opener() as f:
        s.live[path] = f.read(readstep.MAX_BODY_BYTES + 1)


_SECTION = re.compile(r"^\*{5,} (.+?) \*{5,}$")
_INET = re.compile(r"\binet (?:addr:)?(\d{1,3}(?:\.\d{1,3}){3})\b|IPv4 Address[ .]*: *(\d{1,3}(?:\.\d{1,3}){3})")


def _systeminfo(s: Scan, text: str) -> None:
    """The virtual core count from systeminfo.txt's /proc/cpuinfo section (one `processor :` line a core), and the
    host's IPv4 addresses from its `ifconfig -a` / `ip addr` (Windows: `ipconfig /all`) section, loopback left
    out: a sender names its receivers by them in outputs.conf."""
    section, cores = "", 0
    for line in text.splitlines():
        m = _SECTION.match(line.strip())
        if m:
            section = m.group(1).lower()
            continue
        if "cpuinfo" in section and re.match(r"^processor\s*:", line):
            cores += 1
        elif "ifconfig" in section or "ip addr" in section or "ipconfig" in section:
            a = _INET.search(line)
            ip = a and (a.group(1) or a.group(2))
            if ip and not ip.startswith("127.") and ip not in s.addresses and len(s.addresses) < 64:
                s.addresses.append(ip)
    if cores:
        s.cores = cores


# --------------------------------------------------------------------------- configuration as REST bodies

def merged(s: Scan, fname: str) -> conffile.Stanzas:
    return conffile.merge(s.conf.get(fname, []))


def _bodies(s: Scan) -> Dict[str, Dict]:
    """The snapshot's configuration endpoints, as splunkd would answer them from this diag's merged .conf
    files: the REST parsers (read/rest.py) read them, the one reading of each setting."""
    server, inputs, outputs = merged(s, "server.conf"), merged(s, "inputs.conf"), merged(s, "outputs.conf")
    macros, limits = merged(s, "macros.conf"), merged(s, "limits.conf")

    def env(pairs) -> Dict:
        return {"entry": [{"name": n, "content": dict(c)} for n, c in pairs]}
    # system/default says `serverName = $HOSTNAME`: splunkd expands it to the OS host name, the one the diag is named by.
    name = server.get("general", {}).get("serverName", "").replace("$HOSTNAME", s.host)
    info: Dict[str, str] = {"host": name or s.host}
    if s.guid:
        info["guid"] = s.guid
    if s.version:
        info["version"] = s.version
    if s.cores:
        info["numberOfVirtualCores"] = str(s.cores)
    bodies = {
        "services/server/info": env([("server-info", info)]),
        "services/data/inputs/http": env([(n, c) for n, c in inputs.items() if n.startswith("http://")]),
        HEC_SETTINGS: env([("http", inputs["http"])] if "http" in inputs else []),
        SERVER_GENERAL: env([("general", server["general"])] if "general" in server else []),
        "services/configs/conf-server/queue": env([(n, c) for n, c in server.items()
                                                    if n == "queue" or n.startswith("queue=")]),
        TCPOUT: env([(n, c) for n, c in outputs.items() if n == "tcpout" or n.startswith("tcpout:")]),
        PROPS: env(sorted(merged(s, "props.conf").items())),
        # limits.conf [thruput] as conf-limits/thruput answers it: the merged stanza (a universal forwarder's
        # maxKBps = 256 comes from etc/apps/SplunkUniversalForwarder/default, over system/default's 0).
        THRUPUT: env([("thruput", limits["thruput"])] if "thruput" in limits else []),
    }
    if macros:
        bodies[MACROS] = env([(n, c) for n, c in macros.items() if n.startswith("ingest_doctor_")])
    return bodies


def config_reading(s: Scan, evidence: Optional[Evidence] = None) -> readstep.Reading:
    """The read step over the bodies a diag gives: configuration from etc/, runtime endpoints from the add-on's
    extension when the diag carries it (else 404: not in a diag). Runtime readings go into `evidence`."""
    bodies = {p: json.dumps(b).encode("utf-8") for p, b in _bodies(s).items()}
    bodies.update(s.live)

    def fetch(ep: Endpoint) -> Fetched:
        return Fetched(200, bodies[ep.path]) if ep.path in bodies else Fetched(404)
    return readstep.read(fetch, SNAPSHOT, evidence=evidence)


# --------------------------------------------------------------------------- the add-on's extension

EXTENSION = "app_ext/TA-ingest_doctor/"      # where splunk diag puts what our extension script adds


def extension_plan() -> List[Tuple[str, str]]:
    """(endpoint with its query, path under app_ext/TA-ingest_doctor/) of each body the add-on's diag extension
    asks diag to save: the snapshot's runtime endpoints only (no configuration endpoint: those can answer
    with secrets, and etc/ has the configuration), in a snapshot's rest/ layout."""
    return [(target(ep), "rest/%s.json" % ep.path) for ep in SNAPSHOT if ep.runtime]


# The collector's recent window: its measurements live in its process's memory (and, indexed, in the metrics
# index), so what the extension can save truthfully is its own log file's tail, bounded in size and in time.
COLLECTOR_LOG = "collector/ingest_doctor_collector.log"     # under app_ext/TA-ingest_doctor/
COLLECTOR_TAIL_BYTES = 1 << 20      # of app.conf [diag] data_limit = 16MB: the REST bodies keep the rest
COLLECTOR_TAIL_S = 3600.0           # the last hour: a diag is taken while the trouble is on
HIDDEN = "(hidden)"
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")     # logging's asctime (local time)
_KV = re.compile(r'(?<![\w.])([A-Za-z_][\w.:-]*)=("[^"]*"|\S*)')
_URL = re.compile(r"\b(https?://[^/\s\"'?#]+)[/?#][^\s\"']*")
_AUTH = re.compile(r"\b(Splunk|Bearer|Basic)(\s+)[A-Za-z0-9+/=._:-]{8,}")


def _stamp(line: str) -> Optional[float]:
    m = _STAMP.match(line)
    if not m:
        return None
    try:
        return time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S"))
    except (ValueError, OverflowError):
        return None


def _scrub(line: str) -> Tuple[str, int]:
    """A log line with no secret left: the value of every secret-named key (snapwriter.is_secret), an
    Authorization value, and every URL's path and query (a webhook URL's secret is its path) hidden."""
    n = [0]

    def kv(m: "re.Match[str]") -> str:
        if not is_secret(m.group(1)):
            return m.group(0)
        n[0] += 1
        return "%s=%s" % (m.group(1), HIDDEN)

    def url(m: "re.Match[str]") -> str:
        n[0] += 1
        return "%s/%s" % (m.group(1), HIDDEN)

    def auth(m: "re.Match[str]") -> str:
        n[0] += 1
        return m.group(1) + m.group(2) + HIDDEN
    line = _AUTH.sub(auth, _URL.sub(url, _KV.sub(kv, line)))
    return line, n[0]


def collector_tail(data: bytes, now: float, cut: bool, max_age_s: float = COLLECTOR_TAIL_S) -> str:
    """What the extension saves of the collector's log: `data` is the file's last bytes (`cut`: the file is
    longer, so the first line is partial and dropped); lines older than `max_age_s` before `now` are left
    out (a line without a time goes with the line before it), secrets are hidden (_scrub). A header line
    says what was kept."""
    lines = data.decode("utf-8", "replace").splitlines()
    if cut and lines:
        lines = lines[1:]
    kept: List[str] = []
    hidden, keep = 0, False
    for line in lines:
        t = _stamp(line)
        if t is not None:
            keep = t >= now - max_age_s
        if keep:
            line, n = _scrub(printable(line, 4096))
            hidden += n
            kept.append(line)
    head = ("# ingest_doctor_collector.log, the last %d minutes (at most %d KiB) before %s, %d line(s)%s; "
            "its measurements are in the metrics index, not here\n"
            % (max_age_s // 60, COLLECTOR_TAIL_BYTES >> 10, logtime.iso_utc(now), len(kept),
               ", %d value(s) hidden" % hidden if hidden else ""))
    return head + "".join(x + "\n" for x in kept)


def extension_meta(now: Optional[float] = None) -> str:
    """The snapshot.json the extension writes: when the endpoints were asked for."""
    return json.dumps({"format": 1, "captured_at": logtime.iso_utc(time.time() if now is None else now),
                       "source": "splunk diag extension"})


# --------------------------------------------------------------------------- the window, pass 2

def window(s: Scan, window_min: float, at: Optional[float] = None) -> Tuple[Optional[float], Optional[float]]:
    """(since, until): the last `window_min` minutes metrics.log (else the other logs) covers, or those before
    `at`."""
    end = at if at is not None else s.span()[1]
    if end is None:         # no metrics.log: the end of the other logs, never every line of a 150 MB splunkd.log
        end = max((f.last for f in s.logs if f.last is not None), default=None)
    if end is None:
        return None, None
    # A minute past the end, as a snapshot's window (snapshot._log_window): splunkd.log lines written just
    # after metrics.log's last batch belong to the same moment.
    return end - window_min * 60.0, end + 60.0


def load(s: Scan, since: Optional[float], until: Optional[float]) -> Evidence:
    """Pass 2: the Evidence of a scanned diag over [since, until]. Raises DiagError when the archive
    turns out unreadable in this pass."""
    try:
        return _load(s, since, until)
    except _ARCHIVE_ERRORS as e:
        raise DiagError(_archive_error(s.path, e)) from None


def _load(s: Scan, since: Optional[float], until: Optional[float]) -> Evidence:
    ev = Evidence()
    reading = config_reading(s, ev)
    readstep.merge_config(ev, reading.config)
    for fault in reading.faults:
        if fault.kind != "404":
            ev.problems.append("%srest/%s.json: %s" % (EXTENSION, fault.path, fault.message()))
    ev.host = printable(ev.host or s.host, 200)
    ev.problems.extend(s.problems)
    ev.not_judged.extend(s.notes)
    wanted: Dict[str, List[LogFile]] = {}
    for f in s.logs:
        if f.first is None or (until is not None and f.first > until) or (since is not None and f.last < since):
            continue
        wanted.setdefault(f.kind, []).append(f)
    for files in wanted.values():
        files.sort(key=lambda f: (f.first, f.name))
    # Each parser's own source name (logs/metrics.log, ...): the rules know the readings by it, whatever
    # folder the lines came from.
    parsers = {k: PARSERS[k](ev, since, until) for k in wanted}
    todo = {k: [f.name for f in v] for k, v in wanted.items()}
    skipped = [0]
    while any(todo.values()):
        progressed = False
        for rel, _, opener in members(s.path, Scan(s.path)):
            kind = _log_kind(rel)
            if kind is None or not todo.get(kind) or todo[kind][0] != rel:
                continue
            with opener() as f:
                parsers[kind].feed_all(bounded_lines(f, MAX_LINE_BYTES, skipped))
            todo[kind].pop(0)
            progressed = True
        if not progressed:
            break
    for kind, p in parsers.items():
        stats = p.finish()
        if kind == "metrics.log" and stats.lines and not stats.used:
            ev.problems.append("log/metrics.log: no usable metrics lines in the window")
    if skipped[0]:
        ev.not_judged.append("log/: %d line(s) longer than %d KiB skipped" % (skipped[0], MAX_LINE_BYTES >> 10))
    if not any(f.kind == "metrics.log" for f in s.logs):
        ev.problems.append("log/metrics.log: not in the diag")
    if not s.introspection:
        ev.not_judged.append("no introspection/ in the diag (a universal forwarder's, or introspection off): "
                             "host and splunkd CPU not judged")
    live = "services/server/introspection/queues" in ev.sources
    ev.not_judged.extend(n for n in CANNOT_SHOW if not (live and n == CANNOT_SHOW[0]))
    return ev
