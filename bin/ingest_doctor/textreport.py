"""A Report as text for a terminal: the worst finding first, then what was not judged."""
from __future__ import annotations

import textwrap
from typing import List

from .findings import Report

WIDTH = 100


def _wrap(text: str, indent: str) -> List[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False, break_long_words=False) or [indent]


def render(report: Report) -> str:
    out: List[str] = []
    worst = [f for f in report.findings if f.severity != "info"]
    state = "healthy" if report.healthy else "NOT healthy: %d finding%s" % (len(worst), "" if len(worst) == 1 else "s")
    out.append("Ingest Doctor: %s: %s" % (report.host or "unknown host", state))
    for f in report.findings:
        where = "" if f.pipeline_set is None else ", pipeline set %d" % f.pipeline_set
        out.append("")
        out.append("[%s] %s%s (%s)" % (f.severity.upper(), f.bottleneck, where, f.id))
        out.extend(_wrap(f.summary, "  "))
        if f.evidence:
            out.append("  Evidence:")
            for e in f.evidence:
                value = "%s%s" % (e.value, "" if e.unit in ("", None) else (e.unit if e.unit == "%" else " " + e.unit))
                out.extend(_wrap("- %s = %s (%s; %s)" % (e.signal, value, e.window, e.source), "    "))
        if f.recommendations:
            out.append("  Recommendations:")
            for r in f.recommendations:
                out.extend(_wrap("- " + r.action, "    "))
                if r.setting:
                    out.append("      %s [%s] %s: %s -> %s" % (r.conf_file, r.stanza or "", r.setting,
                                                              "unknown" if r.current is None else r.current,
                                                              "(see above)" if r.suggested is None else r.suggested))
                elif r.conf_file and r.stanza:
                    out.append("      %s [%s]" % (r.conf_file, r.stanza))
    if not report.findings:
        out.append("")
        out.append("No bottleneck found in what could be judged.")
    if report.not_judged:
        out.append("")
        out.append("Not judged:")
        for n in report.not_judged:
            out.extend(_wrap("- " + n, "  "))
    return "\n".join(out) + "\n"
