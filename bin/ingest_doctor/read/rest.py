"""splunkd REST bodies (JSON mode) -> entries -> Evidence.

Every scalar splunkd returns may be a JSON number, a string ("2", "13.90"),
a bool or "0"/"1"/"true"/"false": the `as_*` helpers coerce them and return
None rather than guessing. One parser per endpoint; endpoints.py says which
parser reads which path, and `endpoints.apply_rest` adds what one body says to an Evidence.
"""
from __future__ import annotations

import json
import math
import re
from collections import namedtuple
from typing import Any, Callable, Dict, List, Optional, Union

from ingest_doctor import model
from ingest_doctor.evidence import CpuSample, Evidence, IndexerStatus, PipelineSetLoad, QueueSample

Body = Union[bytes, str, dict, list]

class RestError(ValueError):
    """A body that is not a splunkd JSON envelope (HTML page, truncated JSON, error messages)."""


MAX_INT_DIGITS = 64     # a longer integer in a body is read as a float (infinite: not a number we use)


# Digits made zeros: a run of more zeros than MAX_INT_DIGITS is where a long integer may be.
_ZEROED = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * (MAX_INT_DIGITS + 1)


def _int(text: str) -> Any:
    return int(text) if len(text) <= MAX_INT_DIGITS else float(text)


def loads(text: str) -> Any:
    """json.loads for bodies and files we did not write: a nesting too deep for the decoder, or an
    integer of thousands of digits, is a ValueError like any other malformed JSON, never a
    RecursionError or Python's integer-size limit."""
    # Converting every integer in Python halves the decoder's speed; a body without a long run of
    # digits (all of splunkd's) cannot hold a long integer, so only the others pay for the guard.
    guard = _int if _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(_ZEROED) else None
    try:
        return json.loads(text, parse_int=guard)
    except RecursionError:
        raise ValueError("malformed JSON (nested too deeply)") from None


def error_message(e: ValueError) -> str:
    """The few words of a JSON ValueError ('Expecting value', 'nested too deeply')."""
    return getattr(e, "msg", None) or str(e).replace("malformed JSON ", "").strip("()") or type(e).__name__


Entry = namedtuple("Entry", ["name", "content"])     # a REST entry's name and its content (a dict)
# What adds an endpoint's entries to an Evidence: (evidence, entries, time or None, source).
Applier = Callable[[Evidence, List[Entry], Optional[float], str], None]


# --------------------------------------------------------------------------- scalars

def as_str(v: Any) -> Optional[str]:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return str(v)


def as_float(v: Any) -> Optional[float]:
    t = type(v)
    if t is float:                      # the common case first: a JSON number
        return v if math.isfinite(v) else None
    if t is int:
        return float(v)
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        f = float(v)
    else:
        try:
            f = float(str(v).strip().strip('"'))
        except ValueError:
            return None
    return f if math.isfinite(f) else None


def as_int(v: Any) -> Optional[int]:
    f = as_float(v)
    return int(f) if f is not None else None


_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off", ""}


def as_bool(v: Any) -> Optional[bool]:
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v != 0
    low = str(v).strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    return None


def get(content: Dict[str, Any], key: str) -> Any:
    """Exact key first; then a case-insensitive match (splunkd sometimes adds
    lowercased duplicates such as `enablessl`, so exact wins)."""
    v = content.get(key)
    if v is not None or key in content:
        return v
    low = key.lower()
    for k, v in content.items():
        if k.lower() == low:
            return v
    return None


# --------------------------------------------------------------------------- envelope

def decode(body: Body) -> Any:
    if isinstance(body, (dict, list)):
        return body
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    text = body.lstrip("\ufeff").strip()
    if not text:
        raise RestError("empty body")
    if text[0] == "<":
        raise RestError("not JSON (an HTML or XML page)")
    try:
        return loads(text)
    except ValueError as e:
        raise RestError("malformed JSON (%s)" % error_message(e)) from None


def entries(body: Body) -> List[Entry]:
    """The `entry[]` of a splunkd JSON envelope as (name, content) pairs.

    Raises RestError for anything else, with splunkd's own error text when the
    body is `{"messages": [{"type": "ERROR", ...}]}`.
    """
    data = decode(body)
    if isinstance(data, dict) and isinstance(data.get("entry"), list):
        out = []
        for e in data["entry"]:
            if not isinstance(e, dict):
                continue
            name = as_str(e.get("name")) or ""
            content = e.get("content")
            out.append(Entry(name, content if isinstance(content, dict) else {}))
        return out
    if isinstance(data, dict) and isinstance(data.get("messages"), list) and data["messages"]:
        texts = ["%s: %s" % (m.get("type", ""), m.get("text", "")) for m in data["messages"] if isinstance(m, dict)]
        raise RestError("splunkd error (%s)" % "; ".join(texts))
    raise RestError("not a splunkd envelope (no entry list)")


# --------------------------------------------------------------------------- endpoints

def normalise_path(path: str) -> str:
    """'/servicesNS/nobody/splunk_httpinput/data/inputs/http?output_mode=json' -> 'services/data/inputs/http'."""
    p = path.split("?", 1)[0].strip("/")
    if p.endswith(".json"):
        p = p[:-5]
    m = re.match(r"^servicesNS/[^/]+/[^/]+/(.*)$", p)
    if m:
        p = "services/" + m.group(1)
    return p


def _pct(part: Any, whole: Any) -> Optional[float]:
    a, b = as_float(part), as_float(whole)
    if a is None or not b:
        return None
    return a / b * 100.0


_LOOKBACK_DEFAULT = {1: 60, 2: 600, 3: 900}
# The keys of a queue's averages: (n, its average's key, its lookback's key).
_LOOKBACKS = tuple((n, "value_cntr%d_size_bytes_lookback" % n, "cntr_%d_lookback_time" % n) for n in (1, 2, 3))
_TITLES: Dict[str, Any] = {}            # REST queue title -> model.split_queue_title (a few dozen titles)
_WINDOWS: Dict[int, str] = {}           # lookback seconds -> the window's name


def _window_name(secs: int) -> str:
    name = _WINDOWS.get(secs)
    if name is None:
        name = "%dm" % (secs // 60) if secs % 60 == 0 else "%ds" % secs
        if len(_WINDOWS) < 64:
            _WINDOWS[secs] = name
    return name


def queues(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    append = ev.queues.append
    titles = _TITLES
    for name, c in ents:
        split = titles.get(name)
        if split is None:
            split = model.split_queue_title(name)
            if len(titles) < 1024:          # bounded whatever the titles
                titles[name] = split
        queue, pset = split
        mx = as_float(get(c, "max_size_bytes"))
        if not mx:                          # no size: no fill (as _pct)
            continue
        fill = as_float(get(c, "current_size_bytes"))
        if fill is not None:
            append(QueueSample(time, queue, pset, fill / mx * 100.0, "sample", False, src))
        for n, value_key, time_key in _LOOKBACKS:
            avg = as_float(get(c, value_key))
            if avg is None:
                continue
            secs = as_int(get(c, time_key)) or _LOOKBACK_DEFAULT[n]
            append(QueueSample(time, queue, pset, avg / mx * 100.0, _window_name(secs), False, src))


def indexer(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    for _, c in ents[:1]:
        status = (as_str(get(c, "status")) or "").strip().lower()
        reason = (as_str(get(c, "reason")) or "").strip()
        if reason == ".":
            reason = ""
        ev.indexer = IndexerStatus(status or "unknown", reason, as_float(get(c, "average_KBps")), src)


def _pipeline_set_of(name: str) -> Optional[int]:
    m = re.search(r"(\d+)$", name)
    return int(m.group(1)) if m else None


def pipelinesets(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    for name, c in ents:
        pset = _pipeline_set_of(name)
        ratio = as_float(get(c, "dutycycle_ratio"))
        if pset is None or ratio is None:
            continue
        ev.pipelinesets.append(PipelineSetLoad(
            time, pset, (as_str(get(c, "busiest_thread_name")) or "").lower(), ratio * 100.0,
            as_float(get(c, "share")), as_float(get(c, "requests_last_period")), src))


def _cpu_sample(ev: Evidence, time: Optional[float], src: str, **values: Any) -> None:
    """Merge into the sample of the same poll (same time) or start one; keep host_cpu the latest."""
    sample = None
    if ev.cpu and ev.cpu[-1].time == time:
        sample = ev.cpu[-1]
    if sample is None:
        sample = CpuSample(time, source=src)
        ev.cpu.append(sample)
    for k, v in values.items():
        if v is not None:
            setattr(sample, k, v)
            setattr(ev.host_cpu, k, v)
    ev.host_cpu.source = src


def _is_search(ptype: str, proc: str, args: str) -> bool:
    """A search process: process_type search (9.x), or `splunkd search --id=...` (MC's classification)."""
    if ptype:
        return ptype.startswith("search")
    return proc in ("splunkd", "splunkd.exe") and args.lstrip().startswith("search")


def splunk_processes(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    best = None
    searches = 0
    search_cpu = 0.0
    for _, c in ents:
        ptype = (as_str(get(c, "process_type")) or "").lower()
        proc = (as_str(get(c, "process")) or "").lower()
        args = as_str(get(c, "args")) or ""
        pct = as_float(get(c, "pct_cpu"))
        if _is_search(ptype, proc, args):
            searches += 1
            search_cpu += pct or 0.0
            continue
        # Without process_type: `splunkd -p 8089 start` on Linux, `splunkd.exe service` on Windows (UNVERIFIED).
        is_server = ptype == "splunkd_server" or (proc in ("splunkd", "splunkd.exe") and not ptype and
                                                  ("-p " in args + " " or args.strip() == "service"))
        if not is_server:
            continue
        if pct is not None and (best is None or pct > best):
            best = pct
    if ents:
        ev.host_cpu.search_processes = searches
        ev.host_cpu.search_cpu_pct = round(search_cpu, 2)
    if best is not None:
        _cpu_sample(ev, time, src, splunkd_cpu_pct=best)


def hostwide(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    for _, c in ents[:1]:
        idle = as_float(get(c, "cpu_idle_pct"))
        used = None
        if idle is not None:
            used = max(0.0, 100.0 - idle)
        else:
            u, s = as_float(get(c, "cpu_user_pct")), as_float(get(c, "cpu_system_pct"))
            if u is not None or s is not None:
                used = (u or 0.0) + (s or 0.0)
        cores = as_int(get(c, "virtual_cpu_count")) or as_int(get(c, "cpu_count"))
        physical = as_int(get(c, "cpu_count"))
        if physical:
            ev.host_cpu.physical_cores = physical
        _cpu_sample(ev, time, src, host_cpu_pct=used, cores=cores)


def server_info(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    for _, c in ents[:1]:
        host = as_str(get(c, "host")) or as_str(get(c, "serverName"))
        if host and not ev.host:
            ev.host = host
        ev.config.version = as_str(get(c, "version")) or ev.config.version
        ev.config.host_fqdn = as_str(get(c, "host_fqdn")) or ev.config.host_fqdn
        ev.config.guid = as_str(get(c, "guid")) or ev.config.guid
        roles = get(c, "server_roles")
        if isinstance(roles, list):
            ev.config.roles = [str(r) for r in roles]
        elif isinstance(roles, dict):
            ev.config.roles = sorted(roles)
        cores = as_int(get(c, "numberOfVirtualCores")) or as_int(get(c, "numberOfCores"))
        if cores and not ev.host_cpu.cores:
            ev.host_cpu.cores = cores
        physical = as_int(get(c, "numberOfCores"))
        if physical and not ev.host_cpu.physical_cores:
            ev.host_cpu.physical_cores = physical


def health(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    def walk(prefix: str, node: Any) -> None:
        if not isinstance(node, dict):
            return
        colour = as_str(node.get("health"))
        if colour and prefix:
            ev.health[prefix] = colour
        for name, child in (node.get("features") or {}).items():
            walk(prefix + "/" + name if prefix else name, child)
    for _, c in ents[:1]:
        walk("", c)


def _hec_global(cfg: Any, c: Dict[str, Any]) -> None:
    cfg.dedicated_io_threads = as_int(get(c, "dedicatedIoThreads"))
    cfg.max_threads = as_int(get(c, "maxThreads"))
    cfg.max_sockets = as_int(get(c, "maxSockets"))
    disabled = as_bool(get(c, "disabled"))
    cfg.hec_enabled = None if disabled is None else not disabled
    cfg.hec_port = as_int(get(c, "port"))
    cfg.hec_ssl = as_bool(c.get("enableSSL", get(c, "enableSSL")))


def hec_tokens(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    """services/data/inputs/http: the token list (`http://<name>`). Real servers list tokens only;
    an `http` entry, when one is there, holds the global settings and is taken too."""
    for name, c in ents:
        if name == "http":
            _hec_global(ev.config, c)
    ev.config.hec_tokens = sum(1 for name, _ in ents if name.startswith("http://"))


def hec_settings(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    """services/data/inputs/http/http: the global [http] settings (entry `http`)."""
    for name, c in ents:
        if name == "http":
            _hec_global(ev.config, c)


def macros(ents: List[Entry]) -> Dict[str, str]:
    """services/configs/conf-macros: the app's `ingest_doctor_*` macros, name -> definition."""
    return {name: as_str(get(c, "definition")) or "" for name, c in ents if name.startswith("ingest_doctor_")}


def server_general(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    for name, c in ents:
        if name == "general":
            ev.config.parallel_ingestion_pipelines = as_int(get(c, "parallelIngestionPipelines"))
            ev.config.pipeline_set_selection_policy = as_str(get(c, "pipelineSetSelectionPolicy"))


def server_queue(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    for name, c in ents:
        size = as_str(get(c, "maxSize"))
        if not size:
            continue
        if name == "queue":
            ev.config.queue_max_size["default"] = size
        elif name.startswith("queue="):
            ev.config.queue_max_size[name[len("queue="):]] = size


def tcpout(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    servers = []
    for name, c in ents:
        if name == "tcpout" or name.startswith("tcpout:"):
            comp = as_bool(get(c, "compressed"))
            ack = as_bool(get(c, "useACK"))
            if name == "tcpout" or ev.config.tcpout_compressed is None:
                ev.config.tcpout_compressed = comp if comp is not None else ev.config.tcpout_compressed
            if name == "tcpout" or ev.config.tcpout_use_ack is None:
                ev.config.tcpout_use_ack = ack if ack is not None else ev.config.tcpout_use_ack
            srv = as_str(get(c, "server"))
            if srv:
                servers.append(srv)
            force = as_bool(get(c, "forceTimebasedAutoLB"))
            if force is not None and (name == "tcpout" or ev.config.tcpout_force_time_lb is None):
                ev.config.tcpout_force_time_lb = force
            ssl = _ssl(c)
            if ssl or ev.config.tcpout_ssl is None:
                ev.config.tcpout_ssl = ssl
            if ssl:
                zip_ = as_bool(get(c, "useClientSSLCompression"))
                ev.config.tcpout_ssl_compression = True if zip_ is None else zip_
    if servers:
        ev.config.tcpout_servers = ",".join(servers)


def _ssl(c: Dict[str, Any]) -> bool:
    """An output group sends over SSL: useSSL = true, or (useSSL absent or `legacy`, its default) a client
    certificate configured (clientCert, or its older name sslCertPath): outputs.conf.spec, useSSL."""
    use = (as_str(get(c, "useSSL")) or "legacy").strip().lower()
    if use == "legacy":
        return bool((as_str(get(c, "clientCert")) or as_str(get(c, "sslCertPath")) or "").strip())
    return as_bool(use) is True


def thruput(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    """limits.conf [thruput] maxKBps: 0 means no limit; universal forwarders ship 256."""
    for name, c in ents:
        if name == "thruput":
            v = as_float(get(c, "maxKBps"))
            if v is not None:
                ev.config.thruput_max_kbps = v


PROPS_KEYS = ("SHOULD_LINEMERGE", "LINE_BREAKER", "BREAK_ONLY_BEFORE", "TIME_PREFIX", "TIME_FORMAT",
              "MAX_TIMESTAMP_LOOKAHEAD", "DATETIME_CONFIG", "TRUNCATE", "CHARSET", "EVENT_BREAKER_ENABLE",
              "EVENT_BREAKER")
PROPS_PREFIXES = ("TRANSFORMS-", "SEDCMD-")


def props(ev: Evidence, ents: List[Entry], time: Optional[float], src: str) -> None:
    for name, c in ents:
        kept = {}
        for k, v in c.items():
            if k in PROPS_KEYS or k.startswith(PROPS_PREFIXES):
                s = as_str(v)
                if s is not None and s != "":
                    kept[k] = s
        ev.config.props[name] = kept
