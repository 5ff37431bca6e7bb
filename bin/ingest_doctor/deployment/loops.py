"""Forwarding loops in a link graph: found, broken, and named as the root cause.

Two forwarders that send to each other (A -> B -> A, or A -> B -> C -> A) both show a blocked output, and
each is a "saturated receiver" of the other. Linked naively, each finding is `caused_by` the other: no
finding is a root, so no message and no webhook go out, and each recommendation nests the other's.

The rule that breaks it, in both linkers (judge.py for a deployment folder, link.py on the search head):
a receiver's finding whose chain of causes leads back to the sender itself is not a cause of the sender
(the sender is only blocked by its own traffic coming round). A sender whose receivers are blocked only
that way is the loop's root: its output finding is rewritten as "a forwarding loop" (bottleneck `output`,
the loop's members, the fix in outputs.conf), and every other member is `caused_by` a chain that ends at
it. Which member becomes the root depends only on the order the linkers visit the hosts (sorted), so the
report is the same from one run to the next.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, List, Optional

from ingest_doctor.findings import EvidenceItem, Finding, Recommendation


HostOf = Callable[[str], Optional[str]]


def leads_to(fid: Optional[str], host: str, caused: Dict[str, Optional[str]], host_of: HostOf) -> bool:
    """True when the chain of causes from `fid` (itself included) passes a finding on `host`."""
    seen = set()
    while fid and fid not in seen:
        if host_of(fid) == host:
            return True
        seen.add(fid)
        fid = caused.get(fid)
    return False


def members(host: str, via: str, caused: Dict[str, Optional[str]], host_of: HostOf) -> List[str]:
    """The loop's hosts in forwarding order: `host` (the root), then the chain of causes from `via` (the
    finding of the receiver that leads back) up to `host`."""
    out, seen, fid = [host], set(), via
    while fid and fid not in seen and host_of(fid) != host:
        seen.add(fid)
        h = host_of(fid) or "-"
        if h not in out:
            out.append(h)
        fid = caused.get(fid)
    return out


def ring(hosts: List[str]) -> str:
    """'hf-a -> hf-b -> hf-a'."""
    return " -> ".join(hosts + hosts[:1])


def loop_finding(f: Finding, hosts: List[str], servers: Optional[str]) -> Finding:
    """The root's blocked output as what it is: a forwarding loop, with its members and the fix (the
    outputs.conf server lists). Its evidence is kept, and the loop added to it."""
    nxt = hosts[1] if len(hosts) > 1 else "its receiver"
    prev = hosts[-1] if len(hosts) > 1 else "it"
    summary = ("A forwarding loop: %s. Each of these instances forwards to the next, so this output is blocked by "
               "%s, whose own output waits on this one: data goes round the loop instead of reaching the indexers, "
               "and no receiver outside the loop explains it. Break the loop in outputs.conf."
               % (ring(hosts), nxt))
    rec = Recommendation("Remove %s from this instance's server list in outputs.conf (the [tcpout:<group>] stanza "
                         "that names it), or this instance from %s's: a forwarder sends only to the next tier "
                         "(indexers, or the forwarders in front of them), never to an instance that forwards back "
                         "to it." % (nxt, prev), "outputs.conf", "tcpout:<group>", "server", servers, None)
    loop = EvidenceItem("forwarding_loop", ring(hosts), "instances", "deployment",
                        "the deployment's topology and its members' findings")
    return replace(f, summary=summary, evidence=list(f.evidence) + [loop], recommendations=[rec])
