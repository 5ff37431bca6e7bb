"""Acknowledgements and snoozes: what an admin said about findings, and whether a change is notified.

Two KV store collections on the search head (default/collections.conf), written by the
`ingest_doctor_hold` alert action (alert/hold.py) and read by the `ingest_doctor_flag` action:

- `ingest_doctor_acks`, one document per acknowledged finding (`_key`: the finding's KV key): who,
  when, a note, and the severity it had. The finding stays open and is stored as always; its
  changes are not notified (no Splunk Web message, no webhook) while it stays open at that severity
  or below. It ends by itself: when the finding escalates above it or resolves, the flag action
  removes it (so a reopened finding notifies again, as a new problem).
- `ingest_doctor_snoozes`, one document per snooze: a host, a stage (bottleneck) or an alert (its
  saved search name), until a time at most MAX_SNOOZE_S ahead, with a reason (a change ticket).
  While it runs, matching findings are stored but neither messaged nor posted; their webhook
  deliveries stay pending and go out on the first run after it ends (it expires by itself: no
  process has to remove it).
- `ingest_doctor_hold_history`: one document per act (ack, snooze, unsnooze, ack ended), never
  rewritten: who, when, what, until, why.

All pure: the alert action's port reads and writes the collections.
"""
from __future__ import annotations

import calendar
import re
import time as _time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ingest_doctor.findings import SEVERITIES, Finding, severity_rank

ACKS = "ingest_doctor_acks"
SNOOZES = "ingest_doctor_snoozes"
HISTORY = "ingest_doctor_hold_history"
CAPABILITY = "ingest_doctor_acknowledge"     # default/authorize.conf, held by the role ingest_doctor_admin
MAX_SNOOZE_S = 7 * 86400
SCOPES = ("host", "bottleneck", "alert")
OPS = ("ack", "snooze", "unsnooze")
MAX_TEXT = 500
MAX_DOCS = 5000      # acknowledgements (and snoozes) read a run, at most
_RELATIVE = re.compile(r"^\+(\d+)([mhd])$")
_UNITS = {"m": 60, "h": 3600, "d": 86400}
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?Z?$")


class HoldError(ValueError):
    """A request refused; the message says what to change."""


def parse_until(text: str, now: float) -> float:
    """The end of a snooze: epoch seconds, `YYYY-MM-DDTHH:MM[:SS]Z` (UTC), or `+<n>m|h|d` from now."""
    raw = (text or "").strip()
    if not raw:
        raise HoldError("a snooze needs an end (until=): epoch seconds, YYYY-MM-DDTHH:MMZ (UTC) or +4h; "
                        "at most 7 days ahead")
    m = _RELATIVE.match(raw)
    if m:
        return now + int(m.group(1)) * _UNITS[m.group(2)]
    m = _ISO.match(raw)
    if m:
        y, mo, d, h, mi, s = (int(x or 0) for x in m.groups())
        try:
            return float(calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)))
        except (ValueError, OverflowError):
            raise HoldError("until=%r is not a date" % raw) from None
    try:
        value = float(raw)
    except ValueError:
        raise HoldError("until=%r is neither epoch seconds, YYYY-MM-DDTHH:MMZ nor +<n>m|h|d" % raw) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise HoldError("until=%r is not a time" % raw)
    return value


def _text(value: Any, name: str, required: bool) -> str:
    v = str(value or "").strip()
    if required and not v:
        raise HoldError("%s is required" % name)
    if len(v) > MAX_TEXT:
        raise HoldError("%s is longer than %d characters" % (name, MAX_TEXT))
    if any(ord(c) < 32 for c in v):
        raise HoldError("%s has control characters" % name)
    return v


def history(op: str, user: str, now: float, what: str, until: Optional[float] = None, note: str = "") -> Dict[str, Any]:
    return {"op": op, "user": user, "time": now, "what": what, "until": until if until is not None else "",
            "note": note}


def ack_docs(record: Optional[Mapping[str, Any]], finding_id: str, note: str, user: str, now: float
             ) -> List[Dict[str, Any]]:
    """(ack document, history document) for acknowledging the stored finding `record`."""
    fid = _text(finding_id, "finding", True)
    note = _text(note, "note", False)
    if not record:
        raise HoldError("unknown finding %r: no record in the findings store (copy its id from the Findings view)"
                        % fid)
    if record.get("status") != "open":
        raise HoldError("finding %r is %s, not open: only an open finding can be acknowledged"
                        % (fid, record.get("status") or "unknown"))
    sev = str(record.get("severity") or "")
    if sev not in SEVERITIES:
        raise HoldError("finding %r has no known severity" % fid)
    ack = {"_key": record.get("_key"), "finding_id": fid, "host": record.get("host") or "",
           "bottleneck": record.get("bottleneck") or "", "severity": sev, "user": user, "time": now, "note": note}
    return [ack, history("ack", user, now, "finding " + fid, None, note)]


def snooze_docs(scope: str, value: str, until_text: str, reason: str, user: str, now: float
                ) -> List[Dict[str, Any]]:
    """(snooze document, history document); refused: an unknown scope, no value, no reason, no end,
    an end in the past or more than 7 days ahead."""
    scope = _text(scope, "scope", True).lower()
    if scope not in SCOPES:
        raise HoldError("scope=%r is not one of %s" % (scope, ", ".join(SCOPES)))
    value = _text(value, scope, True)
    reason = _text(reason, "reason (a change ticket)", True)
    until = parse_until(until_text, now)
    if until <= now:
        raise HoldError("until is in the past: a snooze ends in the future")
    if until - now > MAX_SNOOZE_S:
        raise HoldError("until is %.1f days ahead: a snooze lasts at most 7 days" % ((until - now) / 86400.0))
    key = "%s~%s" % (scope, value.lower())
    doc = {"_key": key, "scope": scope, "value": value.lower(), "until": until, "reason": reason, "user": user,
           "time": now}
    return [doc, history("snooze", user, now, "%s %s" % (scope, value), until, reason)]


@dataclass
class Holds:
    """The acknowledgements and the snoozes still running at `now`."""
    acks: Dict[str, Dict[str, Any]] = field(default_factory=dict)      # finding id -> ack document
    snoozes: List[Dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_docs(cls, acks: Sequence[Mapping[str, Any]], snoozes: Sequence[Mapping[str, Any]], now: float
                  ) -> "Holds":
        running = []
        for s in snoozes:
            try:
                until = float(s.get("until") or 0)
            except (TypeError, ValueError):
                continue                  # not a document this app wrote: holds nothing
            if until > now and s.get("scope") in SCOPES:
                running.append(dict(s))
        return cls({str(a["finding_id"]): dict(a) for a in acks
                    if a.get("finding_id") and a.get("severity") in SEVERITIES}, running)

    def snoozed(self, finding: Finding, search_name: str) -> Optional[Dict[str, Any]]:
        """The snooze that holds this finding (in this alert), if any."""
        want = {"host": (finding.host or "").lower(), "bottleneck": finding.bottleneck.lower(),
                "alert": (search_name or "").lower()}
        for s in self.snoozes:
            if want[s["scope"]] and s.get("value") == want[s["scope"]]:
                return s
        return None

    def acked(self, finding: Finding, kind: str) -> Optional[Dict[str, Any]]:
        """The acknowledgement that holds this change: the finding stays open at or below the acked
        severity (a new or reopened finding, or one more severe, is notified)."""
        ack = self.acks.get(finding.id)
        if ack is None or kind in ("new", "reopened", "resolved"):
            return None
        if severity_rank(finding.severity) > severity_rank(str(ack["severity"])):
            return None
        return ack

    def held(self, finding: Finding, kind: str, search_name: str) -> str:
        """Why this change is not notified ("" when it is)."""
        s = self.snoozed(finding, search_name)
        if s is not None:
            return "snoozed (%s %s until %s: %s)" % (s["scope"], s["value"], _utc(float(s["until"])),
                                                     s.get("reason") or "")
        if self.acked(finding, kind) is not None:
            return "acknowledged"
        return ""

    def ended(self, finding: Finding, status: str) -> Optional[Dict[str, Any]]:
        """The acknowledgement that ends with this state: the finding resolved or escalated above it."""
        ack = self.acks.get(finding.id)
        if ack is None:
            return None
        if status == "resolved" or severity_rank(finding.severity) > severity_rank(str(ack["severity"])):
            return ack
        return None


def _utc(t: float) -> str:
    return _time.strftime("%Y-%m-%dT%H:%MZ", _time.gmtime(t))
