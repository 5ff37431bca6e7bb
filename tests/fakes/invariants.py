"""Invariants every report must keep, whatever rule wrote it (issue 18): a recommendation an expert would
sign, words that follow the numbers, headroom never positive where none is left.

`violations(report, text=None, limits=None, th=None)` returns one line per broken invariant, naming the
finding; an empty list is a clean report. `report` is the contract's JSON object (CLI `--format json`) or a
list of findings (the alert action's events); `text` the same report as `--format text`; `limits` the
instance's limits the advice must stay within ({"dedicatedIoThreads": physical cores,
"parallelIngestionPipelines": sets the cores allow}); `th` the thresholds the report was judged with.
New rules are checked for free: nothing here knows a rule, only the report's own words and numbers.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Optional

from ingest_doctor import model
from ingest_doctor import thresholds as thresholds_mod

# A sentence that calls a change useless, and the setting it makes useless (in the same finding).
USELESS = (
    (re.compile(r"compress\w* would (not help|change nothing)", re.I), "compressed"),
    (re.compile(r"more pipeline sets (will|would) not help|another would only compete|more pipeline sets or "
                r"threads will not help", re.I), "parallelIngestionPipelines"),
    (re.compile(r"more (I/O )?threads on this (one|instance) (do not|cannot|barely)|more pipeline sets or "
                r"(HEC )?threads will not help", re.I), "dedicatedIoThreads"),
)
RAISE = re.compile(r"\b(raise|add|increase)\b", re.I)
LOWER = re.compile(r"\b(lower|limit|reduce|bound)\b", re.I)
STATED_CORES = re.compile(r"\b(\d+) (?:physical |logical )?cores\b")
PEGGED_AT = re.compile(r"\bpegged at (\d+(?:\.\d+)?)%")
FULL_CORE = re.compile(r"one core pegged|pegged at a full core|at a full core\b", re.I)
IDLE = re.compile(r"\b(looks|is|are) idle\b|\bhost looks idle\b", re.I)
HEALTHY_WORDS = re.compile(r"\b(is|looks|are) healthy\b", re.I)
SSL_WORDS = re.compile(r"\buses SSL\b", re.I)
# Issue 37: the most pipeline sets an expert advises (past it: distribute), and settings a symptom never carries.
MAX_PIPELINE_SETS = 2
NOT_ON_A_SYMPTOM = ("compressed", "parallelIngestionPipelines")
THREAD_SIGNALS = ("thread_busy_pct", "stage_cpu_pct")
HOST_SIGNALS = ("host_cpu_pct",)


def _num(v: Any) -> Optional[float]:
    try:
        return float(str(v).strip())
    except (TypeError, ValueError):
        return None


def _signals(f: Dict[str, Any], names: Iterable[str]) -> List[float]:
    values = (_num(e.get("value")) for e in f.get("evidence") or [] if e.get("signal") in names)
    return [v for v in values if v is not None]


def _finding_violations(f: Dict[str, Any], limits: Dict[str, int], th: thresholds_mod.Thresholds,
                        host_busy: Optional[float]) -> List[str]:
    out: List[str] = []
    fid = f.get("id", "?")
    summary = f.get("summary") or ""
    recs = f.get("recommendations") or []
    words = " ".join([summary] + [r.get("action") or "" for r in recs])

    for r in recs:
        setting, cur, sug = r.get("setting"), _num(r.get("current")), _num(r.get("suggested"))
        action = r.get("action") or ""
        if setting and cur is not None and sug is not None:
            if sug == cur:
                out.append("%s: recommends %s = %s, its current value" % (fid, setting, r.get("suggested")))
            elif RAISE.search(action) and not LOWER.search(action) and sug <= cur:
                out.append("%s: 'raises' %s from %s to %s, at or below its current value"
                           % (fid, setting, r.get("current"), r.get("suggested")))
        if setting and sug is not None:
            limit = limits.get(setting)
            if limit is not None and sug > limit:
                out.append("%s: suggests %s = %s, past the instance's limit %d" % (fid, setting, r.get("suggested"),
                                                                                    limit))
            stated = [int(n) for n in STATED_CORES.findall(action)]
            if setting == "dedicatedIoThreads" and stated and sug > min(stated):
                out.append("%s: suggests dedicatedIoThreads = %s past the %d cores its own action states"
                           % (fid, r.get("suggested"), min(stated)))
    out.extend(_issue37(f, recs, words, th, host_busy))
    for pattern, setting in USELESS:
        if pattern.search(words):
            for r in recs:
                if r.get("setting") == setting and r.get("suggested") is not None:
                    out.append("%s: recommends %s while its own words call that useless" % (fid, setting))

    busy = _signals(f, THREAD_SIGNALS)
    for m in PEGGED_AT.findall(words):
        if float(m) < thresholds_mod.PEGGED_PCT:
            out.append("%s: says 'pegged at %s%%', far from a full core" % (fid, m))
    if FULL_CORE.search(summary) and busy and max(busy) < thresholds_mod.PEGGED_PCT:
        out.append("%s: says a thread is at a full core while its evidence peaks at %.0f%%" % (fid, max(busy)))
    host = _signals(f, HOST_SIGNALS)
    if IDLE.search(summary) and "host" in summary.lower():
        shown = max(host) if host else host_busy
        if shown is not None and shown >= th.cpu_headroom_pct:
            out.append("%s: says the host looks idle while host CPU is %.0f%%" % (fid, shown))
    if f.get("severity") in ("warning", "critical") and HEALTHY_WORDS.search(summary):
        out.append("%s: a %s finding whose summary says 'healthy'" % (fid, f.get("severity")))

    # A stage at or over its threshold over a window (one sample is a spike, not the stage's state).
    held = [_num(e.get("value")) or 0.0 for e in f.get("evidence") or []
            if e.get("signal") in THREAD_SIGNALS and e.get("window") not in ("sample", "")]
    for e in f.get("evidence") or []:
        if e.get("signal") == "headroom_eps" and (_num(e.get("value")) or 0) > 0 and held and \
                max(held) >= th.thread_busy_pct:
            out.append("%s: headroom %s events/s on a stage at %.0f%% (threshold %.0f%%)"
                       % (fid, e.get("value"), max(held), th.thread_busy_pct))
    return out


def _issue37(f: Dict[str, Any], recs: List[Dict[str, Any]], words: str, th: thresholds_mod.Thresholds,
             host_busy: Optional[float]) -> List[str]:
    """parallelIngestionPipelines never past 2 nor on a CPU-bound host; no compression on an SSL output; a
    symptom (caused_by set) carries no setting its cause makes pointless, not even handed down as 'act there'."""
    out: List[str] = []
    fid = f.get("id", "?")
    host = max(_signals(f, HOST_SIGNALS) + ([host_busy] if host_busy is not None else []), default=None)
    for r in recs:
        setting, sug = r.get("setting"), _num(r.get("suggested"))
        if setting == "parallelIngestionPipelines" and sug is not None:
            if sug > MAX_PIPELINE_SETS:
                out.append("%s: suggests parallelIngestionPipelines = %s, past %d (distribute instead)"
                           % (fid, r.get("suggested"), MAX_PIPELINE_SETS))
            if host is not None and host >= th.host_cpu_pct:
                out.append("%s: suggests another pipeline set on a CPU-bound host (%.0f%%)" % (fid, host))
        if setting == "compressed" and SSL_WORDS.search(words):
            out.append("%s: recommends compressed on an SSL output, where it does not apply" % fid)
    if f.get("caused_by"):
        for r in recs:
            action = r.get("action") or ""
            handed = ["compressed"] if re.search(r"\bcompress", action, re.I) else []   # "act there: compressed"
            if r.get("setting") in NOT_ON_A_SYMPTOM or handed:
                out.append("%s: a symptom of %s carries %s" % (fid, f.get("caused_by"),
                                                              r.get("setting") or ", ".join(handed)))
    return out


def _headroom_violations(entries: List[Dict[str, Any]], th: thresholds_mod.Thresholds) -> List[str]:
    out = []
    for h in entries:
        where = "%s/%s" % (h.get("stage"), h.get("pipeline_set"))
        busy = _num(h.get("busy_pct")) or 0.0
        left = _num(h.get("headroom_eps"))
        if (h.get("pegged") or busy >= th.thread_busy_pct) and left is not None and left > 0:
            out.append("headroom %s: %s events/s left on a stage at %.0f%% (threshold %.0f%%)"
                       % (where, h.get("headroom_eps"), busy, th.thread_busy_pct))
        if busy >= th.thread_busy_pct and not h.get("pegged"):
            out.append("headroom %s: at %.0f%%, over the threshold, but not marked pegged" % (where, busy))
        if h.get("pegged") and h.get("headroom") != "none left":
            out.append("headroom %s: pegged but says %r, not 'none left'" % (where, h.get("headroom")))
    return out


def _text_violations(report: Dict[str, Any], text: str) -> List[str]:
    out = []
    first = text.splitlines()[0] if text else ""
    if report.get("healthy") is True and "NOT healthy" in first:
        out.append("text report says NOT healthy, JSON says healthy")
    if report.get("healthy") is False and "NOT healthy" not in first:
        out.append("text report says healthy, JSON says not")
    for m in PEGGED_AT.findall(text):
        if float(m) < thresholds_mod.PEGGED_PCT:
            out.append("text report says 'pegged at %s%%'" % m)
    for h in report.get("headroom") or []:
        if h.get("pegged"):
            where = h.get("stage") + ("" if h.get("pipeline_set") is None else ", pipeline set %d" % h["pipeline_set"])
            lines = [ln for ln in " ".join(text.split()).split(" - ") if ln.startswith(where + ":")]
            if lines and not any("no headroom" in ln for ln in lines):
                out.append("text report gives %s headroom although it is pegged" % where)
    return out


def limits_of(cores: Optional[int], physical: Optional[int]) -> Dict[str, int]:
    out: Dict[str, int] = {}
    if physical or cores:
        out["dedicatedIoThreads"] = int(physical or cores)
    if cores:
        out["parallelIngestionPipelines"] = max(1, int(cores) // model.cores_per_pipeline_set())
    return out


def violations(report: Any, text: Optional[str] = None, limits: Optional[Dict[str, int]] = None,
               th: Optional[thresholds_mod.Thresholds] = None) -> List[str]:
    th = th or thresholds_mod.defaults()
    findings = report.get("findings", []) if isinstance(report, dict) else list(report)
    host_busy: Dict[Any, float] = {}       # per host: a deployment report holds several
    for f in findings:
        if f.get("bottleneck") == model.HOST_CPU and f.get("severity") in ("warning", "critical"):
            vals = _signals(f, HOST_SIGNALS)
            if vals:
                host_busy[f.get("host")] = max(vals)
    out: List[str] = []
    for f in findings:
        out.extend(_finding_violations(f, limits or {}, th, host_busy.get(f.get("host"))))
    if isinstance(report, dict):
        out.extend(_headroom_violations(report.get("headroom") or [], th))
        if report.get("healthy") != (not any(f.get("severity") in ("warning", "critical") for f in findings)):
            out.append("healthy is %r with these findings' severities" % report.get("healthy"))
        if text is not None:
            out.extend(_text_violations(report, text))
    return out
