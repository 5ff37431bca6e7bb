"""A DeploymentReport as text: the root causes first, each with the symptoms it causes under it."""
from __future__ import annotations

from typing import Collection, List

from ingest_doctor.deployment.judge import DeploymentReport, where
from ingest_doctor.engine.textreport import not_judged_lines, recommendation_lines, render as render_one, wrap

NEXT_HOW = ("What saturates next, as the load grows (each stage pegs one core at about 100 / its busy % times "
            "today's load; a linear estimate with the caveats of headroom, and a sender held back today carries "
            "more once its cause is fixed):")


def next_sentence(dep: DeploymentReport) -> List[str]:
    out = []
    for n in dep.next_bottlenecks:
        pset = "" if n.pipeline_set is None else ", pipeline set %d" % n.pipeline_set
        place = "%s %s%s" % (n.host, n.bottleneck, pset)
        out.append("%s at about %.1fx today's load%s" % (place, n.at_load_x, " (%s)" % n.caveat if n.caveat else ""))
    return out


def render(dep: DeploymentReport, unjudged: Collection[str] = ()) -> str:
    """`unjudged`: the hosts with nothing to judge (read/snapshot.nothing_to_judge): their sections, and the
    first line when no host was judged, say "nothing judged", never "healthy"."""
    out: List[str] = []
    roots = dep.root_causes
    byid = {f.id: f for f in dep.findings}
    state = "healthy" if dep.healthy else "NOT healthy: %d root cause%s" % (len(roots), "" if len(roots) == 1 else "s")
    if dep.healthy and dep.hosts and set(dep.hosts) <= set(unjudged):
        state = "nothing judged (see Not judged)"
    out.append("Ingest Doctor: deployment %s(%d instances: %s): %s"
               % ("%s " % dep.name if dep.name else "", len(dep.hosts), ", ".join(dep.hosts), state))
    for i, rid in enumerate(roots, 1):
        f = byid[rid]
        out.append("")
        out.append("Root cause %d: %s [%s] (%s)" % (i, where(f), f.severity.upper(), f.id))
        out.extend(wrap(f.summary, "  "))
        for r in f.recommendations[:3]:
            out.extend(recommendation_lines(r, with_place=False))
        symptoms = dep.symptoms_of(rid)
        if symptoms:
            hosts = sorted({s.host or "-" for s in symptoms})
            out.append("  Holds back %d instance%s: %s"
                       % (len(hosts), "" if len(hosts) == 1 else "s", ", ".join(hosts)))
            for s in symptoms:
                via = dep.caused_by.get(s.id)
                how = dep.mechanisms.get(s.id)
                out.extend(wrap("- %s [%s] (%s)%s%s" % (where(s), s.severity.upper(), s.id,
                                                          "" if via == rid else ", through %s" % via,
                                                          ": %s" % how if how else ""), "    "))
    if dep.next_bottlenecks:
        out.append("")
        out.extend(wrap(NEXT_HOW, ""))
        first = ", ".join(where(byid[r]) for r in roots) if roots else "today's load"
        out.append("  After %s:" % first)
        for s in next_sentence(dep):
            out.extend(wrap("- " + s, "  "))
    if dep.topology.edges:
        out.append("")
        out.append("Topology (who sends to whom, from the data):")
        for e in dep.topology.edges:
            out.extend(wrap("- %s -> %s%s%s%s (%s)" % (e.sender, e.receiver,
                                                      "" if e.kind == "forwarding" else " [%s]" % e.kind,
                                                      "" if e.kbps is None else
                                                      ", %.0f KB/s" % e.kbps, ", BLOCKED" if e.blocked else "",
                                                      e.source), "  "))
    if dep.clocks:
        out.append("")
        out.append("Clocks (each instance judged on its own):")
        for c in dep.clocks:
            out.extend(wrap("- " + c, "  "))
    out.extend(not_judged_lines(dep.not_judged))
    out.append("")
    out.append("=" * 40 + " each instance " + "=" * 40)
    for host in dep.hosts:
        out.append("")
        out.append(render_one(dep.reports[host], judged=host not in unjudged).rstrip("\n"))
    return "\n".join(out) + "\n"
