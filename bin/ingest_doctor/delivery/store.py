"""The findings store (KV store collection `ingest_doctor_findings`), as pure data.

One record per finding id. `_key` is the id made safe for a KV store key and
for a REST path (`/` and everything outside [A-Za-z0-9_.-] escaped as `~XX`,
`~` itself included, so two ids never share a key); the id is stored too.

`plan` turns (existing record or None, finding, now, sid) into what to write:
- new finding: first_seen = last_seen = now, count 1, status open;
- seen again in another alert run (another sid): last_seen, count + 1, the
  current severity/summary/evidence/recommendations, status open (reopened
  when it had been resolved);
- the same run again (a retry, same sid, same content): nothing to write, so
  a retry never counts twice nor writes a second event;
- a finding the collector reported (handed over by the 1-minute search, with
  the time of its event): the same, and also nothing to write when the record
  already holds that event (the search windows overlap, so each event is
  handed over twice);
- `detected_by` keeps every detector that flagged the record
  ("alert_action,collector"), so the Findings view can say "both".

`plan_resolution` closes a record when the collector reports the finding gone
(its resolution note says what changed), unless something flagged it since.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from ingest_doctor.findings import Finding, severity_rank

COLLECTION = "ingest_doctor_findings"
# Field order of the collection and of its lookup (collections.conf, transforms.conf).
FIELDS = ("id", "host", "bottleneck", "pipeline_set", "component", "severity", "status", "summary",
          "evidence", "recommendations", "first_seen", "last_seen", "count", "resolved_at",
          "detected_by", "last_search", "last_sid", "resolution", "caused_by")
JSON_FIELDS = ("evidence", "recommendations")
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def kv_key(finding_id: str) -> str:
    out = []
    for ch in finding_id:
        if ch in _SAFE:
            out.append(ch)
        else:
            out.extend("~%02X" % b for b in ch.encode("utf-8"))
    return "".join(out)


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def record_content(finding: Finding, caused_by: Optional[str] = None) -> Dict[str, Any]:
    """`caused_by`: the id of the finding on another instance that explains this one (contract section 5)."""
    d = finding.to_dict()
    return {
        "id": d["id"], "host": d["host"] or "", "bottleneck": d["bottleneck"],
        "pipeline_set": "" if d["pipeline_set"] is None else str(d["pipeline_set"]),
        "component": d["component"] or "", "severity": d["severity"], "summary": d["summary"],
        "evidence": _dumps(d["evidence"]), "recommendations": _dumps(d["recommendations"]),
        "caused_by": caused_by or "",
    }


@dataclass
class Upsert:
    key: str
    record: Dict[str, Any]       # the full record to save (with _key)
    new: bool
    reopened: bool
    escalated: bool = False      # open before, and now more severe


def detectors(existing: Optional[str], detected_by: str) -> str:
    """Every detector that flagged the record, sorted, comma-separated."""
    names = {d.strip() for d in (existing or "").split(",") if d.strip()}
    names.add(detected_by)
    return ",".join(sorted(names))


def _float(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def plan(existing: Optional[Dict[str, Any]], finding: Finding, now: float, sid: str, search_name: str,
         detected_by: str = "alert_action", event_time: Optional[float] = None,
         caused_by: Optional[str] = None) -> Optional[Upsert]:
    """What to save for `finding`; None when this exact run (or this reported event) is already saved.

    `event_time`: the time of the collector's event that reported the finding; it is then the
    time the finding was seen (first_seen, last_seen) instead of `now`.
    """
    key = kv_key(finding.id)
    content = record_content(finding, caused_by)
    seen = now if event_time is None else event_time
    if existing:
        same_run = bool(sid) and existing.get("last_sid") == sid
        unchanged = all(existing.get(k) == v for k, v in content.items()) and existing.get("status") == "open"
        known = detected_by in (existing.get("detected_by") or "").split(",")
        last = _float(existing.get("last_seen"), 0.0)
        if unchanged and same_run:
            return None
        if event_time is not None:
            # An event no newer than what the record holds: handed over again, or superseded.
            if known and last >= event_time:
                return None
            if existing.get("status") == "resolved" and _float(existing.get("resolved_at"), 0.0) >= event_time:
                return None
        count = int(_float(existing.get("count") or 0, 0.0))
        first = _float(existing.get("first_seen") or seen, seen)
        reopened = existing.get("status") == "resolved"
        escalated = not reopened and existing.get("severity") in ("info", "warning", "critical") and \
            severity_rank(finding.severity) > severity_rank(existing["severity"])
        rec = dict(content)
        rec.update({"_key": key, "first_seen": min(first, seen), "last_seen": max(last, seen),
                    "count": count if same_run else count + 1, "status": "open", "resolved_at": "",
                    "resolution": "", "detected_by": detectors(existing.get("detected_by"), detected_by),
                    "last_search": search_name, "last_sid": sid})
        return Upsert(key, rec, False, reopened, escalated)
    rec = dict(content)
    rec.update({"_key": key, "first_seen": seen, "last_seen": seen, "count": 1, "status": "open",
                "resolved_at": "", "resolution": "", "detected_by": detected_by, "last_search": search_name,
                "last_sid": sid})
    return Upsert(key, rec, True, False)


def plan_resolution(existing: Optional[Dict[str, Any]], finding_id: str, resolved_at: float, note: str,
                    sid: str, search_name: str) -> Optional[Upsert]:
    """Close an open record the collector reports gone; None when there is nothing to close
    (no record, already resolved, or flagged again after the collector saw it end)."""
    if not existing or existing.get("status") != "open":
        return None
    if _float(existing.get("last_seen"), 0.0) > resolved_at:
        return None
    rec = {k: v for k, v in existing.items() if not k.startswith("_") or k == "_key"}
    rec.update({"_key": kv_key(finding_id), "status": "resolved", "resolved_at": resolved_at,
                "resolution": note, "last_search": search_name, "last_sid": sid})
    return Upsert(rec["_key"], rec, False, False)


def kv_query(keys: List[str]) -> str:
    """A KV store query selecting these keys (one request for the whole run)."""
    return _dumps({"$or": [{"_key": k} for k in sorted(set(keys))]})


def finding_event(finding: Finding, detected_by: str = "alert_action", caused_by: Optional[str] = None) -> str:
    """The `ingest_doctor:finding` event: the contract's finding object plus detected_by (and caused_by when
    another instance's finding explains it)."""
    d = finding.to_dict()
    d["detected_by"] = detected_by
    if caused_by:
        d["caused_by"] = caused_by
    return json.dumps(d, separators=(",", ":"))


def webhook_body(finding: Finding, record: Dict[str, Any], search_name: str, results_link: str,
                 symptoms: Sequence[Finding] = ()) -> bytes:
    """A compact JSON finding for a webhook receiver (chat, paging, ticketing); a root cause carries the
    findings it causes on other instances (`symptoms`), which are not sent on their own."""
    d = finding.to_dict()
    body = {
        "id": d["id"], "severity": d["severity"], "host": d["host"], "bottleneck": d["bottleneck"],
        "pipeline_set": d["pipeline_set"], "component": d["component"], "summary": d["summary"],
        "recommendations": [r["action"] for r in d["recommendations"]],
        "status": record.get("status"), "count": record.get("count"),
        "first_seen": record.get("first_seen"), "last_seen": record.get("last_seen"),
        "search_name": search_name, "results_link": results_link or None,
        "caused_by": record.get("caused_by") or None,
        "symptoms": [{"id": s.id, "host": s.host, "bottleneck": s.bottleneck, "severity": s.severity}
                     for s in symptoms],
    }
    return json.dumps(body, separators=(",", ":")).encode("utf-8")
