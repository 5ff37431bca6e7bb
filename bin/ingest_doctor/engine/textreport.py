"""A Report as text for a terminal: the worst finding first, then what was not judged."""
from __future__ import annotations

import textwrap
from typing import List

from ingest_doctor.evidence import window_minutes
from ingest_doctor.findings import Headroom, Recommendation, Report

WIDTH = 100


def wrap(text: str, indent: str) -> List[str]:
    """`text` in lines of the report's width, each starting with `indent` (and two spaces more after the
    first)."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False, break_long_words=False) or [indent]


HEADROOM_HOW = ("Headroom: where each stage would peg one core, from its busy share and the events/s its "
                "pipeline set carries now (events/s x 100 / busy %). A linear estimate: it holds for the same "
                "event mix, not for I/O-bound indexing.")


def _n(v: float) -> str:
    return "{:,.0f}".format(round(v, -2)) if v >= 1000 else "%.0f" % v


def headroom_sentence(h: Headroom) -> str:
    """'typing: 60% of one core for 18,000 events/s: about 30,000 events/s before it pegs (caveat)'."""
    where = h.stage + ("" if h.pipeline_set is None else ", pipeline set %d" % h.pipeline_set)
    if h.eps is not None and h.saturates_eps is not None:
        now, then = "%s events/s" % _n(h.eps), "%s events/s" % _n(h.saturates_eps)
    elif h.saturates_kbps is not None:
        now, then = "%s KB/s" % _n(h.kbps), "%s KB/s" % _n(h.saturates_kbps)
    else:       # a rate too large to be a number (Headroom._pegs_at): none is printed
        now, then = "a rate too large to measure", "%.1fx today's load" % h.at_load_x
    when = "%s averages" % h.window if window_minutes(h.window) is not None else h.window
    if h.pegged:
        return "%s: %.0f%% of one core for %s: at its limit, no headroom (none left; %s)" % (where, h.busy_pct, now,
                                                                                           when)
    text = "%s: %.0f%% of one core for %s: about %s before it pegs" % (where, h.busy_pct, now, then)
    return text + " (%s)" % "; ".join(x for x in (when, h.caveat) if x)


def render(report: Report, judged: bool = True) -> str:
    """`judged` False: no source gave data a rule judges (the caller knows: read/snapshot.nothing_to_judge);
    the first line says "nothing judged", never "healthy"."""
    out: List[str] = []
    worst = [f for f in report.findings if f.severity != "info"]
    state = "healthy" if report.healthy else "NOT healthy: %d finding%s" % (len(worst), "" if len(worst) == 1 else "s")
    if not judged and report.healthy:
        state = "nothing judged (see Not judged)"
    out.append("Ingest Doctor: %s: %s" % (report.host or "unknown host", state))
    for f in report.findings:
        where = "" if f.pipeline_set is None else ", pipeline set %d" % f.pipeline_set
        out.append("")
        out.append("[%s] %s%s (%s)" % (f.severity.upper(), f.bottleneck, where, f.id))
        out.extend(wrap(f.summary, "  "))
        if f.evidence:
            out.append("  Evidence:")
            for e in f.evidence:
                value = "%s%s" % (e.value, "" if e.unit in ("", None) else (e.unit if e.unit == "%" else " " + e.unit))
                out.extend(wrap("- %s = %s (%s; %s)" % (e.signal, value, e.window, e.source), "    "))
        if f.recommendations:
            out.append("  Recommendations:")
            for r in f.recommendations:
                out.extend(recommendation_lines(r))
    if not report.findings:
        out.append("")
        out.append("No bottleneck found in what could be judged.")
    if report.headroom:
        out.append("")
        out.extend(wrap(HEADROOM_HOW, ""))
        for h in report.headroom:
            out.extend(wrap("- " + headroom_sentence(h), "  "))
    out.extend(not_judged_lines(report.not_judged))
    return "\n".join(out) + "\n"


def recommendation_lines(r: Recommendation, with_place: bool = True) -> List[str]:
    """A recommendation's action, then its setting (conf file, stanza, setting: current -> suggested), or
    with `with_place` the conf file and stanza alone when it names no setting."""
    out = wrap("- " + r.action, "    ")
    if r.setting:
        out.append("      %s [%s] %s: %s -> %s" % (r.conf_file, r.stanza or "", r.setting,
                                                  "unknown" if r.current is None else r.current,
                                                  "(see above)" if r.suggested is None else r.suggested))
    elif with_place and r.conf_file and r.stanza:
        out.append("      %s [%s]" % (r.conf_file, r.stanza))
    return out


def not_judged_lines(not_judged: List[str]) -> List[str]:
    """The report's closing "Not judged:" list (nothing when every check was judged)."""
    if not not_judged:
        return []
    return ["", "Not judged:"] + [line for n in not_judged for line in wrap("- " + n, "  ")]
