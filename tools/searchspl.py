"""What the app's shipped searches are, read from the shipped files, for the search cost model
(tools/searchcost.py) and its gate: every scheduled search (default/savedsearches.conf, its cron and
dispatch range) and every dashboard data source (default/data/ui/views/*.xml, its default range), the
SPL with the app's macros expanded, cut into its generating segments (the search itself and each
`[ ... ]` subsearch, each with the command that reads data: a raw search, tstats, mstats, rest,
inputlookup, makeresults).

Pure Python, stdlib only (the tools venv's 3.11 and 3.13). SPL quoting and brackets are read with
tools/splcheck.py's scanner, conf files with tools/confcheck.py's reader: one parser of each.
"""
from __future__ import annotations

import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, NamedTuple, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from confcheck import read_conf  # noqa: E402
import formviews  # noqa: E402
from splcheck import _blank_quotes, split_top  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATING = ("tstats", "mstats", "rest", "inputlookup", "makeresults", "metadata")
# Commands whose [ ... ] is a pipeline over the results already there, not a search that reads data.
PIPELINE_BRACKETS = ("appendpipe", "foreach")
# Commands whose [ ... ] subsearch is cut at 50,000 rows (limits.conf [append]/[join] maxout...);
# any other [ ... ] (a filter or `format` subsearch) at 10,000 (limits.conf [subsearch] maxout).
APPEND_LIKE = ("append", "appendcols", "join")
LIMIT_APPEND, LIMIT_SUBSEARCH = 50000, 10000


class Segment(NamedTuple):
    """One search that reads data: the top search or a subsearch."""
    kind: str            # raw | tstats | mstats | rest | inputlookup | makeresults
    text: str            # its own SPL (nested subsearches blanked), macros expanded
    via: Optional[str]   # None for the top search; else the command owning the bracket (append, join, ...)
    limit: Optional[int]  # rows the subsearch may return before Splunk cuts it silently
    full: str = ""       # its SPL with its nested subsearches written out (what a filter inside it says)


class Item(NamedTuple):
    """A scheduled search or a dashboard data source."""
    key: str             # stanza name, or "<view>/<data source id>"
    what: str            # scheduled | ds.search | ds.chain
    spl: str             # macros expanded
    range_s: int         # the time range one run or one open reads (s)
    runs_per_day: float  # scheduled searches; 0 for data sources
    sample_ratio: int    # ds queryParameters sampleRatio (1 = every event)
    segments: Tuple[Segment, ...]


# ---------------------------------------------------------------- macros
def load_macros(root: str = ROOT) -> Dict[str, Tuple[List[str], str]]:
    out = {}
    for name, st in read_conf(os.path.join(root, "default", "macros.conf")).items():
        args = [a.strip() for a in st.get("args", "").split(",") if a.strip()]
        out[name] = (args, st.get("definition", ""))
    return out


MACRO_RX = re.compile(r"`([^`]*)`")


def expand(spl: str, macros: Dict[str, Tuple[List[str], str]], depth: int = 0) -> str:
    """`spl` with every macro call replaced by its definition (arguments substituted), recursively."""
    if depth > 20:
        raise ValueError("macro expansion deeper than 20 levels: %r" % spl[:80])

    def one(m: "re.Match[str]") -> str:
        body = m.group(1).strip()
        mm = re.match(r"^([\w:.\-]+)\s*(?:\((.*)\))?$", body, re.S)
        if not mm:
            raise ValueError("malformed macro call `%s`" % body)
        name, args = mm.group(1), mm.group(2)
        values = [] if args is None or not args.strip() else [a.strip() for a in split_top(args)]
        stanza = name if not values else "%s(%d)" % (name, len(values))
        if stanza not in macros:
            raise ValueError("macro `%s` is not in macros.conf" % stanza)
        names, definition = macros[stanza]
        for n, v in zip(names, values):
            definition = definition.replace("$%s$" % n, v)
        return expand(definition, macros, depth + 1)

    return MACRO_RX.sub(one, spl)


# ---------------------------------------------------------------- time
UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
REL_RX = re.compile(r"^-(\d+)(s|m|h|d|w)(?:@\w+)?$")


def relative_s(value: str) -> int:
    """Seconds back of a relative time modifier (-10m, -4h@m, -2d); `now` and `0` are 0."""
    v = value.strip().strip('"')
    if v in ("now", "0", ""):
        return 0
    m = REL_RX.match(v)
    if not m:
        raise ValueError("time %r: not a relative time this model reads (-<n><s|m|h|d|w>[@unit])" % value)
    return int(m.group(1)) * UNIT_S[m.group(2)]


def range_s(earliest: str, latest: str = "now") -> int:
    return relative_s(earliest) - relative_s(latest)


def cron_runs_per_day(cron: str) -> int:
    """Runs a day of a five-field cron expression (minute and hour; day fields taken as every day)."""
    fields = cron.split()
    if len(fields) != 5:
        raise ValueError("cron_schedule %r: five fields expected" % cron)

    def values(field: str, lo: int, hi: int) -> set:
        out = set()
        for part in field.split(","):
            step = 1
            if "/" in part:
                part, s = part.split("/")
                step = int(s)
            if part == "*":
                a, b = lo, hi
            elif "-" in part:
                a, b = (int(x) for x in part.split("-"))
            else:
                a = b = int(part)
                if step > 1:
                    b = hi
            out.update(range(a, b + 1, step))
        return out

    return len(values(fields[0], 0, 59)) * len(values(fields[1], 0, 23))


EARLIEST_RX = re.compile(r"(?<![\w.])earliest\s*=\s*(\"[^\"]*\"|\S+)")


def window_s(segment_text: str) -> Optional[int]:
    """The segment's own `earliest=` (its window), or None when it inherits the search's range."""
    m = EARLIEST_RX.search(segment_text)
    return relative_s(m.group(1)) if m else None


# A subsearch giving its parent the last N seconds of the range (macro ingest_doctor_range_end):
# `[| makeresults | addinfo | eval earliest=floor(info_max_time-N), latest=... | return earliest latest]`.
RANGE_END_RX = re.compile(r"^\[\s*\|\s*makeresults\s*\|\s*addinfo\s*\|\s*eval\s+earliest=(?:floor\()?"
                          r"info_max_time-(\d+)(?:\s*\*\s*(\d+))?\b")


# ---------------------------------------------------------------- segments
def segments(spl: str) -> Tuple[Segment, ...]:
    """The generating searches of an expanded SPL string, the top one first, then each subsearch in
    the order its `[` opens."""
    plain, errors = _blank_quotes(spl)
    if errors:
        raise ValueError("; ".join(errors))
    # bracket pairs on the text without quoted strings
    pairs, stack = [], []
    for i, c in enumerate(plain):
        if c == "[":
            stack.append(i)
        elif c == "]":
            if not stack:
                raise ValueError("unbalanced ']' at %d" % i)
            pairs.append((stack.pop(), i))
    if stack:
        raise ValueError("unclosed '[' at %d" % stack[-1])
    pairs.sort()

    def owner(start: int) -> str:
        before = plain[:start].rstrip()
        m = re.search(r"(?:^|\|)\s*([A-Za-z_]+)\b[^|\[]*$", before)
        return m.group(1).lower() if m else ""

    spans = [(None, 0, len(spl))] + [(owner(a), a + 1, b) for a, b in pairs]
    out = []
    for via, a, b in spans:
        if via in PIPELINE_BRACKETS:
            continue
        own = list(spl[a:b])
        for c, d in pairs:  # blank what nested brackets of this span hold (the brackets stay: a filter shows)
            if a <= c and d < b:
                for k in range(c - a + 1, d - a):
                    own[k] = " "
                # a direct child that returns earliest=info_max_time-N (the last N s of the range) is this
                # span's window: written where the child was, as the model's own earliest= reads it
                recent = RANGE_END_RX.search(spl[c:d + 1])
                direct = not any(a <= e < c and d < f < b for e, f in pairs)
                if recent and direct:
                    window = " earliest=-%ss " % (int(recent.group(1)) * int(recent.group(2) or 1))
                    own[c - a:c - a + len(window)] = list(window)
        text = "".join(own).strip()
        kind = segment_kind(text)
        limit = None if via is None else (LIMIT_APPEND if via in APPEND_LIKE else LIMIT_SUBSEARCH)
        out.append(Segment(kind, text, via, limit, spl[a:b].strip()))
    # Generating commands in append mode inside a pipeline (`| tstats prestats=t append=t ...`,
    # `| inputlookup append=true ...`, in appendpipe too): they read data without a subsearch.
    for m in APPEND_MODE_RX.finditer(plain):
        if not re.search(r"(?<![\w.])append\s*=\s*t(?:rue)?\b", plain[m.start():m.end()], re.I):
            continue
        out.append(Segment(m.group(1).lower(), spl[m.start():m.end()].strip(), "pipeline", None))
    return tuple(out)


# A generating command after a pipe that is not the first command of its search (what precedes the pipe
# is more than an opening bracket), up to the next pipe or bracket.
APPEND_MODE_RX = re.compile(r"(?<=[^\s\[])\s*\|\s*(tstats|mstats|inputlookup)\b[^|\[\]]*", re.I)


def segment_kind(text: str) -> str:
    t = text.lstrip()
    if t.startswith("|"):
        word = re.match(r"\|\s*([A-Za-z_]+)", t)
        w = word.group(1).lower() if word else ""
        if w not in GENERATING:
            raise ValueError("generating command %r: not one this model knows (%s)" % (w, ", ".join(GENERATING)))
        return w
    return "raw"


def clause(text: str) -> str:
    """The part of a segment that selects data: a raw search's terms up to its first pipe, or the
    generating command (tstats, mstats, rest, inputlookup) up to the next pipe."""
    plain, _ = _blank_quotes(text)
    t = plain.lstrip()
    start = len(plain) - len(t)
    if t.startswith("|"):
        start += 1
    end = plain.find("|", start)
    return text[:end] if end >= 0 else text


def source_of(seg: Segment) -> str:
    """Which data a segment reads: metrics.log, splunkd.log, introspection, events (the app's event
    index), applogs (the app's own logs in _internal), hecdata (HEC events), metrics (the collector's
    metrics index), kv, rest, hostmeta (an index's host metadata), none."""
    if seg.kind in ("rest", "makeresults"):
        return "rest" if seg.kind == "rest" else "none"
    if seg.kind == "metadata":       # `| metadata type=hosts`: each bucket's host list, no event read
        return "hostmeta"
    if seg.kind == "inputlookup":
        return "kv"
    if seg.kind == "mstats":
        return "metrics"
    c = clause(seg.text)
    # _introspection first: its HEC file is http_event_collector_metrics.log, no metrics.log
    for rx, name in ((r"index=_introspection", "introspection"), (r"source=\S*metrics\.log", "metrics.log"),
                     (r"source=\S*splunkd\.log", "splunkd.log"), (r"source=\S*ingest_doctor_\S*\.log", "applogs"),
                     (r"index=ingest_doctor\b", "events"), (r"source=http:", "hecdata")):
        if re.search(rx, c):
            return name
    raise ValueError("segment reads no source this model knows: %r" % c[:120])


TERM_RX = re.compile(r"TERM\(([^)]*)\)")


def terms(text: str) -> Tuple[str, ...]:
    """The TERM(...) arguments of a segment, in order, each once."""
    seen = []
    for t in TERM_RX.findall(text):
        if t not in seen:
            seen.append(t)
    return tuple(seen)


def groups(text: str) -> Tuple[str, ...]:
    """metrics.log groups a segment selects (TERM(group=x), group=x)."""
    out = []
    for g in re.findall(r"(?<![\w.])group=([\w*]+)", text):
        if g not in out:
            out.append(g)
    return tuple(out)


def metric_names(text: str) -> Tuple[str, ...]:
    """Metric names an mstats segment reads (metric_name="x" filters and agg(x) measures)."""
    out = []
    for n in re.findall(r"metric_name=\"?([\w.]+)\"?", text) + re.findall(r"\(\s*(ingest_doctor\.[\w.]+)\s*\)", text):
        if n not in out:
            out.append(n)
    return tuple(out)


def sourcetypes(text: str) -> Tuple[str, ...]:
    out = []
    for s in re.findall(r"(?<![\w.])sourcetype=\"?([\w:*]+)\"?", text):
        if s not in out:
            out.append(s)
    return tuple(out)


def rest_path(text: str) -> Optional[str]:
    m = re.search(r"\|\s*rest\b[^|]*?(/\S+)", text)
    return m.group(1) if m else None


def lookup_name(text: str) -> Optional[str]:
    m = re.search(r"\|\s*inputlookup\s+(?:\w+=\S+\s+)*([\w.]+)", text)
    return m.group(1) if m else None


def span_s(text: str) -> Optional[int]:
    m = re.search(r"(?<![\w.])span=(\d+)(s|m|h|d)\b", text)
    return int(m.group(1)) * UNIT_S[m.group(2)] if m else None


# ---------------------------------------------------------------- the shipped searches
def _definition(path: str) -> dict:
    root = ET.parse(path).getroot()
    node = root.find("definition")
    if node is None or not (node.text or "").strip():
        raise ValueError("%s: no Dashboard Studio <definition>" % path)
    return json.loads(node.text)


def view_default_range(defn: dict, ds: dict) -> Tuple[str, str, int]:
    """(earliest, latest, sampleRatio) one open of the view gives this data source."""
    params = dict(((((defn.get("defaults") or {}).get("dataSources") or {}).get(ds["type"]) or {})
                   .get("options") or {}).get("queryParameters") or {})
    params.update((ds.get("options") or {}).get("queryParameters") or {})
    tokens = {}
    for item in (defn.get("inputs") or {}).values():
        if item.get("type") == "input.timerange":
            tok = item["options"]["token"]
            e, _, l = item["options"]["defaultValue"].partition(",")
            tokens["$%s.earliest$" % tok], tokens["$%s.latest$" % tok] = e, l or "now"
    earliest = tokens.get(params.get("earliest", ""), params.get("earliest"))
    latest = tokens.get(params.get("latest", ""), params.get("latest", "now"))
    if earliest is None:
        raise ValueError("data source without an earliest time: %r" % ds.get("name"))
    return earliest, latest or "now", int(params.get("sampleRatio", 1))


def view_tokens(defn: dict) -> Dict[str, str]:
    """Default values of a view's input tokens (what one open substitutes)."""
    out = {}
    for item in (defn.get("inputs") or {}).values():
        opts = item.get("options") or {}
        if item.get("type") != "input.timerange" and "token" in opts and "defaultValue" in opts:
            v = opts["defaultValue"]
            out[opts["token"]] = ",".join(v) if isinstance(v, list) else str(v)
    for scope in (((defn.get("defaults") or {}).get("tokens")) or {}).values():
        for k, v in (scope or {}).items():
            out.setdefault(k, str(v.get("value", "")) if isinstance(v, dict) else str(v))
    return out


def substitute(spl: str, tokens: Dict[str, str]) -> str:
    return re.sub(r"\$([\w.]+)\$", lambda m: tokens.get(m.group(1), m.group(0)), spl)


def scheduled(root: str = ROOT, macros=None) -> List[Item]:
    macros = macros if macros is not None else load_macros(root)
    conf = read_conf(os.path.join(root, "default", "savedsearches.conf"))
    out = []
    for name, st in conf.items():
        if name == "default" or st.get("enableSched", "0").strip() not in ("1", "true"):
            continue
        spl = expand(st["search"], macros)
        r = range_s(st.get("dispatch.earliest_time", "-24h"), st.get("dispatch.latest_time", "now"))
        out.append(Item(name, "scheduled", spl, r, cron_runs_per_day(st["cron_schedule"]), 1, segments(spl)))
    return out


def view_paths(root: str = ROOT) -> List[str]:
    """The views whose searches count: Dashboard Studio; the form views (tools/formviews.py) run none."""
    return formviews.studio_views(root)


def data_sources(root: str = ROOT, macros=None) -> List[Item]:
    macros = macros if macros is not None else load_macros(root)
    out = []
    for path in view_paths(root):
        view = os.path.splitext(os.path.basename(path))[0]
        defn = _definition(path)
        toks = view_tokens(defn)
        for ds_id, ds in (defn.get("dataSources") or {}).items():
            key = "%s/%s" % (view, ds_id)
            q = substitute((ds.get("options") or {}).get("query", ""), toks)
            if ds["type"] == "ds.chain":
                out.append(Item(key, "ds.chain", q, 0, 0, 1, ()))
                continue
            if ds["type"] != "ds.search":
                raise ValueError("%s: data source type %s: not one this model reads" % (key, ds["type"]))
            e, l, ratio = view_default_range(defn, ds)
            spl = expand(q, macros)
            out.append(Item(key, "ds.search", spl, range_s(e, l), 0, ratio, segments(spl)))
    return out


def landing_view(root: str = ROOT) -> str:
    """The view the app opens on (default/data/ui/nav/default.xml, default="true")."""
    nav = ET.parse(os.path.join(root, "default", "data", "ui", "nav", "default.xml")).getroot()
    for v in nav.iter("view"):
        if v.get("default", "").lower() == "true":
            return v.get("name")
    raise ValueError("default.xml names no default view")
