"""Splunk Web messages (`/services/messages`) for findings, as a pure plan.

An admin who configured nothing still sees a new bottleneck in the Messages
menu of Splunk Web. Rules, shared by the collector (on its own instance) and
the alert action (on the search head):
- only a finding that is new, reopened or escalated, at `warning` or above,
  is posted; one that merely persists posts nothing;
- the message name is stable per finding id (`message_name`), so posting
  again replaces it and a resolved finding's message is deleted by name;
- at most one message per finding id per run, and at most `cap` per run: the
  rest are counted in one summary message (also with a stable name), so a
  site-wide incident never floods the bar.
- every message is posted for a role (`role` on splunkd's POST /services/messages, default
  `admin`): only users holding it see the message, since only they can act on it.
The port (bin/ingest_doctor_ports/messages.py) performs the plan.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple
from urllib.parse import quote

from ingest_doctor import model
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.findings import Finding, severity_rank
from ingest_doctor.textsafe import formula_safe

NAME_PREFIX = "ingest_doctor_finding_"
SUMMARY_NAME = "ingest_doctor_findings_more"
MAX_PER_RUN = 5
# Who sees the messages: splunkd shows a message posted with `role` only to users holding one of
# those roles (POST /services/messages, parameters `role` and `capability`, each repeatable; an
# unknown role is refused with HTTP 400: solnlib's BulletinRestClient.create_message documents both).
DEFAULT_ROLES = ("admin",)
# Splunk role names: lowercase, no spaces, colons or semicolons (authorize.conf.spec [role_<name>]).
_ROLE = re.compile(r"^[a-z0-9_][a-z0-9_.-]{0,99}$")
FINDINGS_VIEW = "/app/ingest_doctor/ingest_doctor_findings"
# Splunk's message severities (BulletinRestClient.Severity): info | warn | error.
LEVEL = {"info": "info", "warning": "warn", "critical": "error"}
POSTED_KINDS = ("new", "reopened", "escalated")
KINDS = POSTED_KINDS + ("updated", "resolved")
MAX_TEXT = 480
MAX_VALUE = 120                 # one data value (host, setting, summary part) in a message, at most
# Splunk Web renders `[[path|text]]` in a message as a link: a data value never carries the markup's
# characters, nor angle brackets, nor control characters (a host name cannot hold any of them).
_UNSAFE = re.compile(r"[\[\]|<>\x00-\x1f\x7f]")


def safe_text(value: Any, limit: int = MAX_VALUE) -> str:
    """A data value as message text: link markup, HTML and control characters replaced, a value
    a spreadsheet would run as a formula quoted (textsafe.formula_safe), at most `limit` characters."""
    text = formula_safe(_UNSAFE.sub("_", "" if value is None else str(value)))
    return text if len(text) <= limit else text[:max(0, limit - 3)] + "..."


@dataclass(frozen=True)
class Change:
    """What happened to one finding in one run (collector poll or alert run)."""
    finding: Finding
    kind: str  # new | reopened | escalated | updated | resolved
    note: str = ""  # for resolved: "resolved after dedicatedIoThreads 2 -> 8"
    holds_back: Tuple[str, ...] = ()  # a root cause: the other instances whose findings it causes

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError("unknown change kind %r" % self.kind)


@dataclass(frozen=True)
class Post:
    name: str
    text: str
    severity: str  # info | warn | error


@dataclass
class MessagePlan:
    posts: List[Post] = field(default_factory=list)
    deletes: List[str] = field(default_factory=list)
    held: int = 0  # postable findings beyond the cap (counted in the summary post)

    def __bool__(self) -> bool:
        return bool(self.posts or self.deletes)


def parse_roles(text: Any, setting: str = "message_roles") -> Tuple[str, ...]:
    """The roles that see the messages, from a comma-separated setting; empty means DEFAULT_ROLES.
    Raises ValueError naming the setting and the bad name (a message for every user is not offered:
    the POST without a role is what this setting exists to avoid)."""
    names = [n.strip() for n in str(text or "").split(",") if n.strip()]
    for n in names:
        if not _ROLE.match(n):
            raise ValueError("%s: %r is not a Splunk role name (lowercase letters, digits, _ . -; "
                             "comma-separated, e.g. admin,sc_admin)" % (setting, n))
    return tuple(dict.fromkeys(names)) or DEFAULT_ROLES


def message_name(finding_id: str) -> str:
    """Stable, URL-safe name for one finding id (the KV store key's escaping: `/` as ~2F)."""
    return NAME_PREFIX + kv_key(finding_id)


def _where(f: Finding) -> str:
    stage = model.STAGE_BY_NAME.get(f.bottleneck)
    what = stage.label if stage else f.bottleneck.replace("_", " ")
    pset = "all pipeline sets" if f.pipeline_set is None else "pipeline set %d" % f.pipeline_set
    return "%s, %s stage, %s" % (safe_text(f.host or "unknown host"), safe_text(what), pset)


def _change_to_make(f: Finding) -> str:
    for r in f.recommendations:
        if r.setting:
            where = " in %s" % safe_text(r.conf_file) if r.conf_file else ""
            if r.stanza:
                where += " [%s]" % safe_text(r.stanza)
            now = " (now %s)" % safe_text(r.current) if r.current not in (None, "") else ""
            to = " = %s" % safe_text(r.suggested) if r.suggested not in (None, "") else ""
            return "Change %s%s%s%s." % (safe_text(r.setting), to, where, now)
    return safe_text(f.recommendations[0].action, 240) if f.recommendations else ""


def findings_link(f: Finding) -> str:
    """Splunk Web's link markup in messages: [[path|text]]; the host is URL-encoded (a host name
    never ends the markup), and one longer than a host name can be is left out (all hosts)."""
    host = f.host if f.host and len(f.host) <= 255 else "*"
    return "[[%s?form.host=%s|Open the Findings view]]" % (FINDINGS_VIEW, quote(host, safe="*.-_:"))


def message_text(f: Finding, kind: str = "new", holds_back: Sequence[str] = ()) -> str:
    """Where, what to change and the link always fit; the summary is shortened to make room. A root cause
    names how many instances it holds back (their own findings get no message of their own)."""
    head = "Ingest Doctor: %s%s bottleneck on %s." % (
        "escalated to " if kind == "escalated" else "", f.severity, _where(f))
    if holds_back:
        head += " It holds back %d other instance%s (%s)." % (len(holds_back), "" if len(holds_back) == 1 else "s",
                                                            ", ".join(holds_back[:3]) +
                                                            (" and %d more" % (len(holds_back) - 3)
                                                             if len(holds_back) > 3 else ""))
    change = _change_to_make(f)
    link = findings_link(f)
    room = MAX_TEXT - len(head) - len(change) - len(link) - 3
    summary = safe_text(f.summary, max(3, room))
    text = " ".join(p for p in (head, summary, change, link) if p)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - len(link) - 4].rstrip() + "... " + link


def summary_text(held: List[Finding]) -> str:
    critical = sum(1 for f in held if f.severity == "critical")
    hosts = sorted({safe_text(f.host or "unknown host", 64) for f in held})
    shown = ", ".join(hosts[:5]) + (" and %d more" % (len(hosts) - 5) if len(hosts) > 5 else "")
    return ("Ingest Doctor: %d more new bottleneck finding(s)%s on %s, not posted one by one. "
            "[[%s|Open the Findings view]]" % (len(held), " (%d critical)" % critical if critical else "",
                                               shown, FINDINGS_VIEW))


def plan(changes: Iterable[Change], cap: int = MAX_PER_RUN, floor: str = "warning",
         present: Optional[Dict[str, str]] = None) -> MessagePlan:
    """The messages one run posts and deletes.

    `present`: message name -> Splunk severity of messages already shown (e.g.
    posted by a search peer's collector): a finding whose message is already
    there at the same or a higher level is not posted again.
    """
    last: Dict[str, Change] = {}
    for c in changes:                       # one change per id: the run's latest
        last[c.finding.id] = c
    out = MessagePlan()
    # (-rank, id, change): most severe first, then by id. A run may hold thousands of changes and post
    # a handful: each id and rank is found once, and a name made only where it is needed.
    wanted: List[Tuple[int, str, Change]] = []
    present = present or {}
    levels = ("info", "warn", "error")
    for fid in sorted(last):
        c = last[fid]
        if c.kind == "resolved":
            out.deletes.append(message_name(fid))
        elif c.kind in POSTED_KINDS and severity_rank(c.finding.severity) >= severity_rank(floor):
            shown = present.get(message_name(fid)) if present else None
            if shown in levels and levels.index(shown) >= levels.index(LEVEL[c.finding.severity]):
                continue
            wanted.append((-severity_rank(c.finding.severity), fid, c))
    wanted.sort(key=lambda w: (w[0], w[1]))
    cap = max(0, cap)
    for _, fid, c in wanted[:cap]:
        out.posts.append(Post(message_name(fid), message_text(c.finding, c.kind, c.holds_back),
                              LEVEL[c.finding.severity]))
    held = [c.finding for _, _, c in wanted[cap:]]
    if held:
        out.held = len(held)
        worst = max(severity_rank(f.severity) for f in held)
        out.posts.append(Post(SUMMARY_NAME, summary_text(held), LEVEL[("info", "warning", "critical")[worst]]))
    return out


def stale(shown: Dict[str, str], records: Dict[str, Dict[str, object]], keep: Iterable[str] = ()) -> List[str]:
    """Names of our finding messages still shown whose finding is resolved, gone from the store, or now another
    instance's symptom (`caused_by`: its root's message names it; a root stored before its cause was known).

    `records`: KV store records by `_key` (message name minus NAME_PREFIX); `keep`: names this run posts.
    Catches findings resolved by the "resolve when not seen" search, which posts nothing.
    """
    kept = set(keep)
    out = []
    for name in sorted(shown):
        if not name.startswith(NAME_PREFIX) or name in kept:
            continue
        rec = records.get(name[len(NAME_PREFIX):])
        if rec is None or rec.get("status") == "resolved" or rec.get("caused_by"):
            out.append(name)
    return out


def shown_keys(shown: Dict[str, str]) -> List[str]:
    return sorted(n[len(NAME_PREFIX):] for n in shown if n.startswith(NAME_PREFIX))
