"""Recommendations per bottleneck, from the instance's own configuration.

Each function returns Recommendations; a configuration change names conf_file,
stanza, setting, current (as read, None when unknown) and suggested. Advice
that is not a setting leaves `setting` None and says so in `action`.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from ingest_doctor import model
from ingest_doctor.read.endpoints import HEC_SETTINGS
from ingest_doctor.evidence import Evidence
from ingest_doctor.findings import Recommendation
from ingest_doctor.thresholds import PEGGED_PCT


HEC_DEFAULT_IO_THREADS = 2       # splunk_httpinput/default/inputs.conf ships dedicatedIoThreads=2
UNKNOWN = "current value unknown (could not read %s)" % HEC_SETTINGS
DEFAULT_LINE_BREAKER = "([\\r\\n]+)"
MAX_SOURCETYPES = 3

_FMT_WIDTH = {"Y": 4, "y": 2, "m": 2, "d": 2, "H": 2, "I": 2, "M": 2, "S": 2, "b": 3, "B": 9, "a": 3,
              "A": 9, "p": 2, "Z": 5, "z": 5, "j": 3, "e": 2, "N": 3, "Q": 3, "s": 10, "f": 6, "T": 8}


def _s(v: object) -> Optional[str]:
    return None if v is None else str(v)


def _timestamp_width(fmt: str) -> Optional[int]:
    """Characters a TIME_FORMAT produces, roughly; the lookahead needs little more."""
    width = 0
    i = 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            j = i + 1
            digits = ""
            while j < len(fmt) and fmt[j].isdigit():
                digits += fmt[j]
                j += 1
            if j >= len(fmt):
                return None
            code = fmt[j]
            width += int(digits) if digits and code == "N" else _FMT_WIDTH.get(code, 4)
            i = j + 1
        else:
            width += 1
            i += 1
    return width


# --------------------------------------------------------------------------- HEC

def _scale_out_hec(why: str) -> Recommendation:
    return Recommendation(
        "%s: more I/O threads on this instance cannot add capacity, so scale the HEC tier out: put more HEC "
        "receivers (heavy forwarders or indexers) behind a load balancer and spread the clients over them; this "
        "is not a setting." % why)


def hec_input(ev: Evidence, cores: Optional[int], listener_overwhelmed: bool, physical: Optional[int] = None,
              pegged: bool = False, busy_pct: Optional[float] = None) -> Tuple[List[Recommendation], bool]:
    """(recommendations, scale_out). dedicatedIoThreads is judged against the physical cores (the logical
    count when the physical one was not read): below them, raise it to them, exactly, first; at or above
    them, or raised already while the HEC thread stays pegged, the only advice is to scale out."""
    cfg = ev.config
    cur = cfg.dedicated_io_threads
    limit = physical or cores
    kind = "physical" if physical else "logical"
    recs: List[Recommendation] = []
    scale_out = False
    # Words follow the number: "pegged" only near a full core.
    still = "stays pegged" if busy_pct is None or busy_pct >= PEGGED_PCT else "stays over its threshold"
    busy = "" if busy_pct is None else " at %.0f%% of one core" % busy_pct
    if cur is not None and limit and cur >= limit:
        scale_out = True
        recs.append(_scale_out_hec("dedicatedIoThreads is %d, already at or above the host's %d %s cores%s"
                                   % (cur, limit, kind, "" if busy_pct is None else
                                      ", and the HEC thread is at %.0f%% of one core" % busy_pct)))
    elif cur is not None and cur > HEC_DEFAULT_IO_THREADS and pegged:
        scale_out = True
        recs.append(_scale_out_hec(
            "dedicatedIoThreads is already raised to %d (default %d%s) and the HEC thread %s%s"
            % (cur, HEC_DEFAULT_IO_THREADS, "; the host has %d %s cores" % (limit, kind) if limit else "", still,
               busy)))
    elif cur is None:
        # Unknown is not the default: an admin may already run 16, so no number (it could be lower).
        recs.append(Recommendation(
            "Check dedicatedIoThreads in the [http] stanza of inputs.conf (%s): while it is below the number of "
            "%s cores%s, raise it to that and restart splunkd; if it is already there and the HEC thread stays "
            "pegged, scale the HEC tier out behind a load balancer (more heavy forwarders or indexers receiving "
            "HEC)." % (UNKNOWN, kind, " (%d)" % limit if limit else ""),
            "inputs.conf", "http", "dedicatedIoThreads", None, None))
    elif limit:
        recs.append(Recommendation(
            "Raise the HEC I/O threads from %d to the host's %d %s cores, then restart splunkd; if the HEC thread "
            "stays pegged after that, scale out behind a load balancer instead of raising it further."
            % (cur, limit, kind), "inputs.conf", "http", "dedicatedIoThreads", str(cur), str(limit)))
    else:
        recs.append(Recommendation(
            "Raise the HEC I/O threads towards the number of physical cores (the core count was not read, so no "
            "value is suggested), then restart splunkd.", "inputs.conf", "http", "dedicatedIoThreads", str(cur),
            None))
    if listener_overwhelmed:
        for setting, cur_v in (("maxThreads", cfg.max_threads), ("maxSockets", cfg.max_sockets)):
            recs.append(Recommendation(
                "The HTTP listener refused requests: raise %s above its automatic limit (0 = one third of the "
                "process limits) and raise the process ulimits to match%s." % (setting, "" if cur_v is not None
                                                                               else "; " + UNKNOWN),
                "inputs.conf", "http", setting, _s(cur_v), None))
    return recs, scale_out


# --------------------------------------------------------------------------- props.conf

def busy_sourcetypes(ev: Evidence, pipeline_set: Optional[int]) -> List[str]:
    kb: Dict[str, float] = defaultdict(float)
    for t in ev.thruput:
        if t.kind == "sourcetype" and (pipeline_set is None or t.pipeline_set in (None, pipeline_set)):
            kb[t.series] += t.kbps
    return [s for s, _ in sorted(kb.items(), key=lambda x: -x[1])]


# Which processor of the parsing and merging pipelines costs most decides the first setting to change.
PARSING_PROCESSORS = {"parsing": ("utf8", "linebreaker", "header"), "merging": ("aggregator",)}
WHAT_MOVES = {
    "utf8": "CHARSET (naming the encoding instead of detecting it)",
    "linebreaker": "LINE_BREAKER (a cheaper pattern, cut where events start) and TRUNCATE",
    "header": "the source typing of the input (its header and rule-based sourcetype checks)",
    "aggregator": "SHOULD_LINEMERGE = false with a LINE_BREAKER, then TIME_PREFIX, TIME_FORMAT and "
                  "MAX_TIMESTAMP_LOOKAHEAD (the aggregator merges lines and finds timestamps)",
}
TRUNCATE_DEFAULT = 10000


def processor_shares(ev: Evidence, pipeline_set: Optional[int], pipeline: str) -> Dict[str, float]:
    """Each processor's share (%) of the CPU of `pipeline` (metrics.log group=pipeline), over the window."""
    cpu: Dict[str, float] = defaultdict(float)
    for p in ev.processors:
        if p.pipeline == pipeline and (pipeline_set is None or p.pipeline_set in (None, pipeline_set)):
            cpu[p.processor] += p.cpu_seconds
    total = sum(cpu.values())
    return {k: v / total * 100.0 for k, v in cpu.items()} if total > 0 else {}


def costliest(ev: Evidence, pipeline_set: Optional[int], stage: str) -> Optional[Tuple[str, float]]:
    """(processor, share %) of the stage's named processors costing most, or None without group=pipeline."""
    shares = processor_shares(ev, pipeline_set, stage)
    named = [(p, shares[p]) for p in PARSING_PROCESSORS.get(stage, ()) if p in shares]
    return max(named, key=lambda x: x[1]) if named else None


def _true(v: Optional[str]) -> bool:
    return (v or "").strip().lower() in ("true", "1", "yes")


def _event_bytes(ev: Evidence, st: str) -> Optional[float]:
    kb = eps = 0.0
    for t in ev.thruput:
        if t.kind == "sourcetype" and t.series == st and t.eps:
            kb += t.kbps
            eps += t.eps
    return kb * 1024.0 / eps if eps > 0 else None


def _truncate(ev: Evidence, st: str, p: Dict[str, str]) -> Optional[Recommendation]:
    """TRUNCATE = 0 (no limit) on a hot sourcetype: one runaway event (a missing line break, a binary file) is
    read whole and holds the parsing thread. A risk to name, with the bound to set."""
    if (p.get("TRUNCATE") or "").strip() != "0":
        return None
    size = _event_bytes(ev, st)
    bound = TRUNCATE_DEFAULT if size is None else max(TRUNCATE_DEFAULT, int(-(-size * 4 // TRUNCATE_DEFAULT))
                                                      * TRUNCATE_DEFAULT)
    return Recommendation(
        "TRUNCATE = 0 lets one %s event grow without limit%s: a runaway event (a missing line break, a binary "
        "file) is read whole and holds the parsing thread. Set a bound above the largest legitimate event."
        % (st, "" if size is None else " (its events average about {:,.0f} bytes)".format(size)),
        "props.conf", st, "TRUNCATE", "0", str(bound))


def _hot(ev: Evidence, pipeline_set: Optional[int]) -> List[str]:
    props = ev.config.props
    hot = busy_sourcetypes(ev, pipeline_set)
    if props and not hot:
        hot = [st for st in sorted(props) if st != "default" and not st.startswith(("source::", "host::"))]
    return hot[:MAX_SOURCETYPES]


def _utf8(st: str, p: Dict[str, str], known: bool) -> List[Recommendation]:
    charset = p.get("CHARSET")
    if (charset or "").upper() == "AUTO":
        return [Recommendation("Name the encoding of %s instead of detecting it for every event (CHARSET = AUTO "
                               "now)." % st, "props.conf", st, "CHARSET", charset, "UTF-8")]
    if not known:
        return [Recommendation("Check the CHARSET of %s (conf-props was not read): AUTO detects the encoding for "
                               "every event; name the real one." % st, "props.conf", st, "CHARSET", None, None)]
    return []


def _linebreaker(st: str, p: Dict[str, str], known: bool) -> List[Recommendation]:
    lb = p.get("LINE_BREAKER")
    if known and lb and lb != DEFAULT_LINE_BREAKER:
        return [Recommendation(
            "%s already has an explicit LINE_BREAKER (%s): make that pattern cheaper (anchor it, no leading .*, no "
            "alternations scanned at every character); tuning a regex is not a setting." % (st, lb),
            "props.conf", st, None, lb, None)]
    own = _own_breaker(st, p)
    return [own] if own else [Recommendation(
        "Give %s a LINE_BREAKER that matches where its events start (with SHOULD_LINEMERGE = false), so events "
        "are cut once, in the parsing stage (the pattern depends on your data)." % st,
        "props.conf", st, "LINE_BREAKER", lb, None)]


def breaker_from(break_only_before: str) -> str:
    """The LINE_BREAKER that cuts where BREAK_ONLY_BEFORE starts an event: the newlines, then the same
    pattern as a lookahead. Its leading ^ goes: after the newlines the lookahead already sits at a line start,
    and ^ there would only match at the start of the whole data."""
    return "([\\r\\n]+)(?=%s)" % break_only_before.strip().lstrip("^")


def _own_breaker(st: str, p: Dict[str, str]) -> Optional[Recommendation]:
    """The stanza's own BREAK_ONLY_BEFORE gives the event boundary: a LINE_BREAKER built from it, not an example."""
    bob = (p.get("BREAK_ONLY_BEFORE") or "").strip()
    if not bob or bob == "^":
        return None
    return Recommendation(
        "Break %s's events with a LINE_BREAKER built from its own BREAK_ONLY_BEFORE (%s), with SHOULD_LINEMERGE "
        "= false: events are then cut once, in the parsing stage, at the same boundary." % (st, bob),
        "props.conf", st, "LINE_BREAKER", p.get("LINE_BREAKER"), breaker_from(bob))


def _header(st: str) -> List[Recommendation]:
    return [Recommendation(
        "The header processor costs most: set the sourcetype of the inputs carrying %s explicitly in inputs.conf "
        "(no rule-based or learned source typing) and keep CHECK_FOR_HEADER off; this is not a props.conf "
        "parsing setting." % st, "inputs.conf")]


def _aggregator(st: str, p: Dict[str, str], known: bool) -> List[Recommendation]:
    recs: List[Recommendation] = []
    merge = p.get("SHOULD_LINEMERGE", "true" if known else None)
    if merge is None or _true(merge):
        recs.append(Recommendation(
            ("Sourcetype %s merges lines into events (SHOULD_LINEMERGE = %s): break events with LINE_BREAKER "
             "instead of merging lines." % (st, merge)) if merge is not None else
            ("Check SHOULD_LINEMERGE of %s (conf-props was not read): if it merges lines (the default), break "
             "events with LINE_BREAKER instead." % st), "props.conf", st, "SHOULD_LINEMERGE", merge, "false"))
        lb = p.get("LINE_BREAKER")
        if not lb or lb == DEFAULT_LINE_BREAKER:
            recs.append(_own_breaker(st, p) or Recommendation(
                "Set a LINE_BREAKER for %s that matches where a new event starts, e.g. "
                "([\\r\\n]+)(?=\\d{4}-\\d{2}-\\d{2}) for events starting with a date (the pattern "
                "depends on your data)." % st, "props.conf", st, "LINE_BREAKER", lb, None))
    fmt = p.get("TIME_FORMAT")
    if not fmt:
        recs.append(Recommendation(
            "Set TIME_PREFIX and TIME_FORMAT for %s so splunkd stops guessing timestamps (the format depends "
            "on your data)." % st, "props.conf", st, "TIME_FORMAT", None, None))
    look = p.get("MAX_TIMESTAMP_LOOKAHEAD")
    width = _timestamp_width(fmt) if fmt else None
    if width and look and look.isdigit() and int(look) > width + 8:
        recs.append(Recommendation(
            "Limit how far %s is scanned for a timestamp after TIME_PREFIX to the width of its TIME_FORMAT."
            % st, "props.conf", st, "MAX_TIMESTAMP_LOOKAHEAD", look, str(width + 2)))
    elif not fmt and (look is None or look == "128"):
        recs.append(Recommendation(
            "Once TIME_FORMAT is set for %s, limit MAX_TIMESTAMP_LOOKAHEAD to its width (%s now)."
            % (st, look or "unknown"), "props.conf", st, "MAX_TIMESTAMP_LOOKAHEAD", look, None))
    elif width and look is None:
        recs.append(Recommendation(
            "Limit how far %s is scanned for a timestamp after TIME_PREFIX to the width of its TIME_FORMAT."
            % st, "props.conf", st, "MAX_TIMESTAMP_LOOKAHEAD", None, str(width + 2)))
    return recs


def parsing(ev: Evidence, pipeline_set: Optional[int], stage: str) -> Tuple[List[Recommendation], List[str]]:
    """Parsing and merging stages: for each hot sourcetype, the setting that moves the processor costing most
    (utf8 -> CHARSET, linebreaker -> LINE_BREAKER, header -> source typing, aggregator -> SHOULD_LINEMERGE and
    the timestamp settings), read as configured; TRUNCATE = 0 named as a risk. Returns (recs, detail sentences)."""
    props = ev.config.props
    top = costliest(ev, pipeline_set, stage)
    if top is not None:
        order = [top[0]]
    else:
        order = list(PARSING_PROCESSORS.get(stage, ()))
    recs: List[Recommendation] = []
    details: List[str] = []
    if top is not None:
        details.append("The %s processor takes %.0f%% of the %s pipeline's CPU (metrics.log group=pipeline): "
                       "what moves it is %s." % (top[0], top[1], stage, WHAT_MOVES[top[0]]))
    named: List[str] = []
    for st in _hot(ev, pipeline_set):
        p = props.get(st, {})
        known = st in props
        mine: List[Recommendation] = []
        for proc in order:
            if proc == "utf8":
                mine.extend(_utf8(st, p, known))
            elif proc == "linebreaker":
                mine.extend(_linebreaker(st, p, known) if top is not None or not known or
                            not p.get("LINE_BREAKER") or p.get("LINE_BREAKER") == DEFAULT_LINE_BREAKER else [])
            elif proc == "header" and top is not None:
                mine.extend(_header(st))
            elif proc == "aggregator":
                mine.extend(_aggregator(st, p, known))
        t = _truncate(ev, st, p)
        if t is not None:
            mine.append(t)
        if mine:
            named.append(st)
            recs.extend(mine)
    if named:
        details.append("Hot sourcetypes with a setting to change: %s." % ", ".join(named))
    if not recs:
        if not props:
            recs.append(Recommendation(
                "Set an explicit LINE_BREAKER (with SHOULD_LINEMERGE = false), CHARSET, TIME_FORMAT and "
                "MAX_TIMESTAMP_LOOKAHEAD for the busiest sourcetypes; conf-props was not read, so they are not "
                "named.", "props.conf"))
        else:
            recs.append(Recommendation(
                "The hot sourcetypes' parsing settings are already explicit%s: what is left is the volume on this "
                "one thread; this is not a setting." % (" (%s)" % ", ".join(_hot(ev, pipeline_set))
                                                        if _hot(ev, pipeline_set) else "")))
    return recs, details


def regex_sourcetypes(ev: Evidence, pipeline_set: Optional[int]) -> List[Tuple[str, float]]:
    cpu: Dict[str, float] = defaultdict(float)
    for r in ev.regex_cpu:
        if r.kind == "sourcetype" and (pipeline_set is None or r.pipeline_set in (None, pipeline_set)):
            cpu[r.series] += r.cpu_ms
    return sorted(cpu.items(), key=lambda x: -x[1])


def typing_regex(ev: Evidence, pipeline_set: Optional[int]) -> Tuple[List[Recommendation], List[str]]:
    props = ev.config.props
    ranked = [st for st, _ in regex_sourcetypes(ev, pipeline_set)]
    if not ranked and props:
        busy = busy_sourcetypes(ev, pipeline_set)
        ranked = [st for st in busy if any(k.startswith(("TRANSFORMS-", "SEDCMD-")) for k in props.get(st, {}))]
    scored = dict(regex_sourcetypes(ev, pipeline_set))
    top = max(scored.values()) if scored else 0.0
    # Name only the sourcetypes that matter: at least a tenth of the busiest one's regex CPU.
    ranked = [st for st in ranked if not scored or scored.get(st, 0.0) >= top / 10.0]
    recs: List[Recommendation] = []
    named: List[str] = []
    for st in ranked[:MAX_SOURCETYPES]:
        p = props.get(st, {})
        regexes = sorted(k for k in p if k.startswith(("TRANSFORMS-", "SEDCMD-")))
        named.append(st)
        listed = ", ".join("%s = %s" % (k, p[k]) for k in regexes) if regexes else None
        recs.append(Recommendation(
            "Review the index-time regexes of sourcetype %s (%s): anchor them, drop the ones not needed at "
            "index time, or move them to search time; tuning a regex is not a setting."
            % (st, ", ".join(regexes) if regexes else "TRANSFORMS-* / SEDCMD-*"),
            "props.conf", st, None, listed, None))
    if not named:
        recs.append(Recommendation(
            "Review the index-time TRANSFORMS-* and SEDCMD-* regexes of the busiest sourcetypes (metrics.log "
            "group=per_sourcetype_regex_cpu names them); tuning a regex is not a setting.", "props.conf"))
    return recs, named


# --------------------------------------------------------------------------- pipelines, indexers, output

def pipelines_the_cores_allow(cores: Optional[int]) -> Optional[int]:
    return None if not cores else max(1, cores // model.cores_per_pipeline_set())


def more_pipelines(ev: Evidence, headroom: Optional[bool], why: str, cores: Optional[int] = None,
                   host_cpu_pct: Optional[float] = None) -> List[Recommendation]:
    """Another pipeline set only where it can help: idle cores, and fewer sets than the cores allow."""
    cur = ev.config.parallel_ingestion_pipelines
    if headroom is False:
        busy = "" if host_cpu_pct is None else " (host CPU %.0f%%)" % host_cpu_pct
        return [Recommendation(
            "The host has no CPU headroom%s: more pipeline sets will not help. Scale out (add indexers or "
            "forwarders sharing the load); this is not a setting." % busy)]
    allow = pipelines_the_cores_allow(cores)
    if cur is not None and allow is not None and cur >= allow:
        return [Recommendation(
            "parallelIngestionPipelines is already %d: each set keeps up to %d cores busy, so %d cores allow %d "
            "set%s and another would only compete for the same cores. Scale out (add indexers or forwarders "
            "sharing the load); this is not a setting." % (cur, model.cores_per_pipeline_set(), cores, allow,
                                                          "" if allow == 1 else "s"))]
    if cur is not None and cur >= model.MAX_PIPELINE_SETS_ADVISED:
        return [Recommendation(
            "parallelIngestionPipelines is already %d, and more than %d sets rarely pay (each needs cores of its "
            "own): distribute instead, with more indexers or heavy forwarders sharing the load, or lower the cost "
            "per event; this is not a setting." % (cur, model.MAX_PIPELINE_SETS_ADVISED))]
    base = cur if cur is not None else 1
    cond = "" if headroom else " if the host has idle cores (host CPU was not read)"
    return [Recommendation(
        "Add a pipeline set%s so %s runs on another core." % (cond, why),
        "server.conf", "general", "parallelIngestionPipelines", _s(cur), str(base + 1))]


def indexing(ev: Evidence, headroom: Optional[bool], more: bool = True, cores: Optional[int] = None,
             host_cpu_pct: Optional[float] = None) -> List[Recommendation]:
    recs = more_pipelines(ev, headroom, "indexing", cores, host_cpu_pct) if more or headroom is False else []
    if headroom is False:
        recs.append(Recommendation("Add indexers and spread the forwarders/HEC clients over them; this is not a "
                                   "setting."))
    recs.append(Recommendation("Check the storage under the hot buckets (I/O wait, latency); slow disks keep "
                               "indexQueue full; this is not a setting."))
    return recs


def compression(ev: Evidence) -> List[Recommendation]:
    """Compression where it applies. outputs.conf.spec: `compressed` does not apply to SSL outputs, which
    compress with useClientSSLCompression (default true); so on SSL only that setting, and only when it is off."""
    cfg = ev.config
    if cfg.tcpout_ssl:
        if cfg.tcpout_ssl_compression is False:
            return [Recommendation(
                "The output uses SSL, where `compressed` does not apply: turn SSL compression back on (the "
                "receiver must allow it).", "outputs.conf", "tcpout", "useClientSSLCompression", "false", "true")]
        return []
    if cfg.tcpout_ssl is None:
        # outputs.conf was not read (the search head's alert rows carry no configuration and the instance sent no
        # ingest_doctor:config event; a snapshot without conf-outputs): whether `compressed` applies is unknown,
        # and an SSL output (a Splunk Cloud stack's) must never be told to set it. Say what decides instead.
        return [Recommendation(
            "Read this instance's outputs.conf before any compression change (it was not read; the collector on "
            "the instance sends it): `compressed` does not apply to SSL outputs, which useClientSSLCompression, on "
            "by default, already compresses; this is not a setting.")]
    if cfg.tcpout_compressed is True:
        return []
    return [Recommendation(
        "Compress forwarded data (the receiving splunktcp input must allow it).",
        "outputs.conf", "tcpout", "compressed", _s(cfg.tcpout_compressed).lower()
        if cfg.tcpout_compressed is not None else None, "true")]


def output(ev: Evidence) -> List[Recommendation]:
    cfg = ev.config
    recs: List[Recommendation] = compression(ev)
    recs.append(Recommendation(
        "Add indexers to the output group so the forwarder can load-balance%s; this is not a setting."
        % (" (now: %s)" % cfg.tcpout_servers if cfg.tcpout_servers else "")))
    recs.append(Recommendation("Check the network between this instance and its indexers (bandwidth, latency, "
                               "blocked receivers); this is not a setting."))
    return recs


def imbalance(ev: Evidence) -> List[Recommendation]:
    cur = ev.config.pipeline_set_selection_policy
    recs = []
    if (cur or "round_robin") != "weighted_random":
        recs.append(Recommendation(
            "Let splunkd weight pipeline-set selection by load instead of taking turns.",
            "server.conf", "general", "pipelineSetSelectionPolicy", cur, "weighted_random"))
    recs.append(Recommendation(
        "A long-lived input (one busy forwarder connection or HEC channel) stays on one pipeline set: on the "
        "sending universal forwarder let it change receivers mid-stream (props.conf EVENT_BREAKER_ENABLE = true "
        "with an EVENT_BREAKER for its sourcetype, or outputs.conf forceTimebasedAutoLB = true); spread a HEC "
        "client over several channels; these are settings of the sender, not of this instance."))
    return recs


def sticky_sender(ev: Evidence, sourcetypes: List[str]) -> List[Recommendation]:
    """A universal forwarder switches receivers only at an event boundary it can see: without EVENT_BREAKER
    (or forceTimebasedAutoLB) a file or stream it never stops reading keeps it on one receiver."""
    cfg = ev.config
    recs: List[Recommendation] = []
    for st in sourcetypes[:MAX_SOURCETYPES] or ["<sourcetype>"]:
        p = cfg.props.get(st) or {}
        known = st in cfg.props                 # conf-props lists a stanza's effective settings: absent = default
        recs.append(Recommendation(
            "Let this forwarder see event boundaries in %s so autoLB can switch receivers mid-stream." % st,
            "props.conf", st, "EVENT_BREAKER_ENABLE", p.get("EVENT_BREAKER_ENABLE", "false" if known else None),
            "true"))
        lb = p.get("LINE_BREAKER")
        breaker = lb if lb and lb != DEFAULT_LINE_BREAKER else (
            breaker_from(p["BREAK_ONLY_BEFORE"]) if p.get("BREAK_ONLY_BEFORE") else None)
        recs.append(Recommendation(
            "EVENT_BREAKER for %s: the pattern that starts its events, %s." % (
                st, "its own LINE_BREAKER" if breaker and breaker == lb else
                "built from its BREAK_ONLY_BEFORE" if breaker else
                "as its LINE_BREAKER on the indexers (the pattern depends on your data)"),
            "props.conf", st, "EVENT_BREAKER", p.get("EVENT_BREAKER"), breaker))
    read = cfg.tcpout_ssl is not None           # outputs.conf was read: absent forceTimebasedAutoLB is false
    recs.append(Recommendation(
        "Or, where the data has no reliable boundary, switch receivers on time regardless (events may then be cut "
        "at a switch for sourcetypes the forwarder does not break).", "outputs.conf", "tcpout",
        "forceTimebasedAutoLB", _s(cfg.tcpout_force_time_lb).lower() if cfg.tcpout_force_time_lb is not None
        else "false" if read else None, "true"))
    return recs


def host_cpu(splunkd_pct: Optional[float] = None, searches: Optional[int] = None,
             search_pct: Optional[float] = None) -> List[Recommendation]:
    recs = [Recommendation("Every core is busy: more pipeline sets or HEC threads will not help. Move load off "
                           "this host or add hosts; this is not a setting.")]
    if searches and search_pct is not None and (splunkd_pct is None or search_pct > splunkd_pct):
        recs.insert(0, Recommendation(
            "Searches take more of the CPU than ingestion (%d search processes, about %.1f cores): move searching "
            "off this host, spread scheduled searches over time or limit how many run at once; this is not an "
            "ingestion setting." % (searches, search_pct / 100.0)))
    return recs


_THROTTLE_ADVICE = (      # patterns compiled on first use: most runs never need them
    (r"disk|space|partition",
     "Free disk space on the partition holding the indexes (or move them); the index processor pauses below "
     "server.conf [diskUsage] minFreeSpace."),
    (r"tsidx|optimi",
     "Too many tsidx files: check that splunk-optimize keeps up (disk I/O, indexes.conf "
     "maxRunningProcessGroups)."),
)


def indexer_throttled(reason: str) -> List[Recommendation]:
    recs = []
    for pattern, text in _THROTTLE_ADVICE:
        if re.search(pattern, reason or "", re.I):
            recs.append(Recommendation(text + " This is not a setting to raise."))
    if not recs:
        recs.append(Recommendation(
            "Read the index processor's reason in splunkd.log (IndexProcessor, \"paused data flow\") and fix it: "
            "usually disk space or a bucket backlog; this is not a setting."))
    return recs


# --------------------------------------------------------------------------- file monitor input

def file_monitor(ev: Evidence) -> List[Recommendation]:
    """The file monitor's `tail` thread is pegged: it has too much to walk or read, on one thread."""
    return [
        Recommendation("Make the file monitor walk less: on [monitor://...] stanzas over large directories or many "
                       "rotated files, set ignoreOlderThan and a whitelist/blacklist, and move archived files out "
                       "of the monitored paths (per stanza, no single setting).", "inputs.conf"),
        Recommendation("For a one-time load of many files use a [batch://...] input instead of monitor; for a "
                       "steady high volume, split the monitored files across more forwarders."),
    ]
