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

Ownership (issue 23, no forged finding): `opened_by` names the detector that opened
the record. A relayed event (`event_time` given) of another detector may add itself
to `detected_by` and count the sighting, never change the record's severity, summary
or status; and it never resolves a record another detector opened.

Every save carries `version` (+1 per save) and keeps the fields it does not know
(another branch's, the delivery state) as they were: a save never drops a field.

Delivery (issue 23, no lost notification): a record whose state changed (new,
reopened, escalated, resolved) in a run with a webhook gets `delivery = pending`
for that state (`delivery_state` "status:severity", `delivery_since`,
`delivery_search`: only runs of that alert retry it, with its own webhook).
`claim_delivery` / `delivery_result` move it to sent, keep it pending (with the
error, retried on every run of that alert) or fail it (refused, or still pending
after DELIVERY_EXPIRY_S), exactly once per state: a claim keeps two concurrent
runs from sending the same state twice.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence
from urllib.parse import quote_plus

from ingest_doctor.findings import Finding, severity_rank
from ingest_doctor.textsafe import formula_safe

COLLECTION = "ingest_doctor_findings"
# Field order of the collection and of its lookup (collections.conf, transforms.conf).
DELIVERY_FIELDS = ("delivery", "delivery_state", "delivery_error", "delivery_since", "delivery_attempts",
                   "delivery_search", "delivery_claim")
FIELDS = ("id", "host", "bottleneck", "pipeline_set", "component", "severity", "status", "summary",
          "evidence", "recommendations", "first_seen", "last_seen", "count", "resolved_at",
          "detected_by", "last_search", "last_sid", "resolution", "opened_by", "version", "caused_by",
          "mechanism") + DELIVERY_FIELDS
DELIVERY_EXPIRY_S = 24 * 3600.0    # a notification still pending after this is failed ("expired")
CLAIM_TTL_S = 180.0                # a claim older than this (its run died) is taken over
MAX_ERROR = 300
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def kv_key(finding_id: str) -> str:
    """A finding id as a KV store `_key`: each character outside [A-Za-z0-9_.-] as `~XX` per UTF-8 byte,
    so the key is one segment of the REST path (`/` would split it)."""
    return _UNSAFE.sub(lambda m: "".join("~%02X" % b for b in m.group().encode("utf-8")), finding_id)


def _dumps(value: Any) -> str:
    """Compact JSON with its keys sorted: a record's evidence, recommendations and KV store queries."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def record_content(finding: Finding, caused_by: Optional[str] = None,
                   as_dict: Optional[Dict[str, Any]] = None, mechanism: Optional[str] = None) -> Dict[str, Any]:
    """`caused_by`: the id of the finding on another instance that explains this one (contract section 5),
    `mechanism`: with a cause, the sentence saying how it produces this symptom (empty without a cause);
    `as_dict`: finding.to_dict(), when the caller has it already."""
    d = finding.to_dict() if as_dict is None else as_dict
    # The findings lookup is exported to spreadsheets: its free-text cells are formula-safe (the JSON cells
    # start with '[', the others are the app's own words).
    return {
        "id": formula_safe(d["id"]), "host": formula_safe(d["host"] or ""), "bottleneck": d["bottleneck"],
        "pipeline_set": "" if d["pipeline_set"] is None else str(d["pipeline_set"]),
        "component": formula_safe(d["component"] or ""), "severity": d["severity"],
        "summary": formula_safe(d["summary"]),
        "evidence": _dumps(d["evidence"]),
        "recommendations": _dumps(d["recommendations"]),
        "caused_by": formula_safe(caused_by or ""),
        "mechanism": formula_safe(mechanism or "") if caused_by else "",
    }


@dataclass
class Upsert:
    key: str
    record: Dict[str, Any]  # the full record to save (with _key)
    new: bool
    reopened: bool
    escalated: bool = False  # open before, and now more severe
    finding: Optional[Dict[str, Any]] = None  # the finding's to_dict() the record was planned from


def detectors(existing: Optional[str], detected_by: str) -> str:
    """Every detector that flagged the record, sorted, comma-separated."""
    names = {d.strip() for d in (existing or "").split(",") if d.strip()}
    names.add(detected_by)
    return ",".join(sorted(names))


def owner(record: Dict[str, Any]) -> str:
    """The detector that opened a record; for a record saved before `opened_by` existed: the alert
    action when it is among its detectors (it is the trusted one), else its only detector."""
    if record.get("opened_by"):
        return str(record["opened_by"])
    names = [d.strip() for d in str(record.get("detected_by") or "").split(",") if d.strip()]
    if "alert_action" in names or not names:
        return "alert_action"
    return names[0]


def _kept(existing: Dict[str, Any]) -> Dict[str, Any]:
    """What a save carries over: every field but the KV store's own (_user, ...), _key excepted."""
    return {k: v for k, v in existing.items() if not k.startswith("_")}


def _version(existing: Optional[Dict[str, Any]]) -> int:
    return int(_float((existing or {}).get("version") or 0, 0.0)) + 1


def _float(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def plan(existing: Optional[Dict[str, Any]], finding: Finding, now: float, sid: str, search_name: str,
         detected_by: str = "alert_action", event_time: Optional[float] = None,
         caused_by: Optional[str] = None, mechanism: Optional[str] = None) -> Optional[Upsert]:
    """What to save for `finding`; None when this exact run (or this reported event) is already saved.

    `event_time`: the time of the collector's event that reported the finding; it is then the
    time the finding was seen (first_seen, last_seen) instead of `now`.
    """
    key = kv_key(finding.id)
    as_dict = finding.to_dict()
    content = record_content(finding, caused_by, as_dict, mechanism)
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
        if event_time is not None and owner(existing) != detected_by:
            # Another detector's record: count the sighting, change nothing it said.
            if existing.get("status") != "open":
                return None
            rec = _kept(existing)
            rec.update({"_key": key, "last_seen": max(last, seen), "count": count if same_run else count + 1,
                        "detected_by": detectors(existing.get("detected_by"), detected_by),
                        "opened_by": owner(existing), "last_search": search_name, "last_sid": sid,
                        "version": _version(existing)})
            return Upsert(key, rec, False, False, False, as_dict)
        first = _float(existing.get("first_seen") or seen, seen)
        reopened = existing.get("status") == "resolved"
        escalated = not reopened and existing.get("severity") in ("info", "warning", "critical") and \
            severity_rank(finding.severity) > severity_rank(existing["severity"])
        rec = _kept(existing)
        rec.update(content)
        rec.update({"_key": key, "first_seen": min(first, seen), "last_seen": max(last, seen),
                    "count": count if same_run else count + 1, "status": "open", "resolved_at": "",
                    "resolution": "", "detected_by": detectors(existing.get("detected_by"), detected_by),
                    "opened_by": detected_by if reopened else owner(existing),
                    "last_search": search_name, "last_sid": sid, "version": _version(existing)})
        return Upsert(key, rec, False, reopened, escalated, as_dict)
    rec = dict(content)
    rec.update({"_key": key, "first_seen": seen, "last_seen": seen, "count": 1, "status": "open",
                "resolved_at": "", "resolution": "", "detected_by": detected_by, "last_search": search_name,
                "last_sid": sid, "opened_by": detected_by, "version": 1})
    return Upsert(key, rec, True, False, False, as_dict)


def plan_resolution(existing: Optional[Dict[str, Any]], finding_id: str, resolved_at: float, note: str,
                    sid: str, search_name: str, detected_by: str = "collector") -> Optional[Upsert]:
    """Close an open record the collector reports gone; None when there is nothing to close
    (no record, already resolved, flagged again after the collector saw it end, or opened by
    another detector: a relayed event never resolves what it did not open)."""
    if not existing or existing.get("status") != "open":
        return None
    if _float(existing.get("last_seen"), 0.0) > resolved_at:
        return None
    if owner(existing) != detected_by:
        return None
    rec = _kept(existing)
    rec.update({"_key": kv_key(finding_id), "status": "resolved", "resolved_at": resolved_at,
                "resolution": note, "last_search": search_name, "last_sid": sid, "opened_by": owner(existing),
                "version": _version(existing)})
    return Upsert(rec["_key"], rec, False, False)


def plan_stale(existing: Optional[Dict[str, Any]], finding_id: str, cutoff: float, now: float, note: str,
               sid: str, search_name: str) -> Optional[Upsert]:
    """Close an open record nothing has flagged since `cutoff` (the housekeeping search's "resolve findings
    no longer seen"); None when there is nothing to close. Judged on the record as read under the findings
    store's lock, not on what the search listed: a finding flagged after the search read the store has a
    newer last_seen and stays open (issue 35: the search used to write its stale copy back, outside the
    lock, and could resolve a live finding)."""
    if not existing or existing.get("status") != "open":
        return None
    if _float(existing.get("last_seen"), now) >= cutoff:
        return None
    rec = _kept(existing)
    rec.update({"_key": kv_key(finding_id), "status": "resolved", "resolved_at": now, "resolution": note,
                "last_search": search_name, "last_sid": sid, "opened_by": owner(existing),
                "version": _version(existing)})
    return Upsert(rec["_key"], rec, False, False)


def record_finding(record: Dict[str, Any]) -> Finding:
    """The finding a record holds, without its evidence and advice (what a message about it needs)."""
    pset = str(record.get("pipeline_set") or "")
    return Finding(str(record.get("bottleneck") or ""), str(record.get("severity") or "warning"),
                   str(record.get("host") or "") or None, int(pset) if pset.isdigit() else None,
                   str(record.get("component") or "") or None, str(record.get("summary") or ""), [], [])


# ---------------------------------------------------------------------------- delivery state
def delivery_state(record: Dict[str, Any]) -> str:
    return "%s:%s" % (record.get("status") or "open", record.get("severity") or "")


def mark_pending(record: Dict[str, Any], now: float, search_name: str) -> None:
    """This record's state (just changed) is to be sent by this alert's webhook."""
    record.update({"delivery": "pending", "delivery_state": delivery_state(record), "delivery_since": now,
                   "delivery_attempts": 0, "delivery_error": "", "delivery_search": search_name,
                   "delivery_claim": ""})


def _claim_time(record: Dict[str, Any]) -> float:
    claim = str(record.get("delivery_claim") or "")
    return _float(claim.rsplit("@", 1)[-1], 0.0) if "@" in claim else 0.0


def claimable(record: Dict[str, Any], search_name: str, now: float) -> bool:
    """A pending delivery of this alert that no live run has claimed."""
    return (record.get("delivery") == "pending" and record.get("delivery_search") == search_name
            and now - _claim_time(record) > CLAIM_TTL_S)


def claim(record: Dict[str, Any], run_id: str, now: float) -> Dict[str, Any]:
    rec = _kept(record)
    rec.update({"_key": record.get("_key") or kv_key(str(record.get("id"))),
                "delivery_claim": "%s@%.3f" % (run_id, now), "version": _version(record)})
    return rec


def delivery_result(current: Optional[Dict[str, Any]], claimed: Dict[str, Any], outcome: str, error: str,
                    now: float) -> Optional[Dict[str, Any]]:
    """The record to save after one delivery attempt (`outcome` sent | retry | refused), or None
    when the record moved on meanwhile (another state to send, or claimed by another run)."""
    if not current or current.get("delivery_claim") != claimed.get("delivery_claim") \
            or current.get("delivery_state") != claimed.get("delivery_state"):
        return None
    rec = _kept(current)
    rec.update({"_key": current.get("_key") or claimed.get("_key"), "delivery_claim": "",
                "version": _version(current)})
    attempts = int(_float(current.get("delivery_attempts") or 0, 0.0)) + 1
    if outcome == "sent":
        rec.update({"delivery": "sent", "delivery_error": "", "delivery_attempts": attempts})
    elif outcome == "refused":
        rec.update({"delivery": "failed", "delivery_error": error[:MAX_ERROR], "delivery_attempts": attempts})
    elif now - _float(current.get("delivery_since"), now) >= DELIVERY_EXPIRY_S:
        rec.update({"delivery": "failed", "delivery_attempts": attempts,
                    "delivery_error": ("expired: still undelivered after %d attempts over %d h (last: %s)"
                                       % (attempts, DELIVERY_EXPIRY_S // 3600, error))[:MAX_ERROR]})
    else:
        rec.update({"delivery": "pending", "delivery_error": error[:MAX_ERROR], "delivery_attempts": attempts})
    return rec


def kv_query(keys: List[str]) -> str:
    """A KV store query selecting these keys (one request for the whole run)."""
    return _dumps({"$or": [{"_key": k} for k in sorted(set(keys))]})


def kv_query_runs(keys: Sequence[str], max_bytes: int) -> List[List[str]]:
    """The keys, sorted and unique, in runs whose kv_query, URL-encoded (a KV store query travels in the
    URL of a GET), takes at most `max_bytes`; a key too long for that alone is a run of its own. Runs
    bounded by bytes, not by a count of keys: short keys share a request, and long ones (a host name
    may have 255 characters) never make a URL longer than the bound."""
    runs: List[List[str]] = []
    run: List[str] = []
    size = _QUERY_BYTES - _COMMA_BYTES          # the first key of a run has no comma before it
    for key in sorted(set(keys)):
        more = (len(key) + _PLAIN_KEY_BYTES if _URL_PLAIN.fullmatch(key)
                else len(quote_plus(_dumps({"_key": key})))) + _COMMA_BYTES
        if run and size + more > max_bytes:
            runs.append(run)
            run, size = [], _QUERY_BYTES - _COMMA_BYTES
        run.append(key)
        size += more
    if run:
        runs.append(run)
    return runs


_QUERY_BYTES = len(quote_plus(_dumps({"$or": []})))       # what a query costs around its keys
_COMMA_BYTES = len(quote_plus(","))                       # between two keys
# A key of these characters (every kv_key is) is itself in JSON and in a URL: only its clause's frame costs.
_URL_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*")
_PLAIN_KEY_BYTES = len(quote_plus(_dumps({"_key": ""})))


def finding_event(finding: Finding, detected_by: str = "alert_action", caused_by: Optional[str] = None,
                  as_dict: Optional[Dict[str, Any]] = None, mechanism: Optional[str] = None) -> str:
    """The `ingest_doctor:finding` event: the contract's finding object plus detected_by (and caused_by with
    its mechanism when another instance's finding explains it); `as_dict`: finding.to_dict(), when the caller
    has it already (a plan's Upsert.finding)."""
    d = finding.to_dict() if as_dict is None else dict(as_dict)
    d["detected_by"] = detected_by
    if caused_by:
        d["caused_by"] = caused_by
        d["mechanism"] = mechanism or ""
    return json.dumps(d, separators=(",", ":"))


def host_in_event(host: Optional[str]) -> bool:
    """Whether the index-time transform `ingest_doctor_finding_host` (the app's default/transforms.conf)
    takes this host from the event's JSON text: only when that text is the host itself (printable ASCII
    without `"` or `\\`, which JSON escapes). Such events, and those without a host, go out together in
    a few batched requests; any other host keeps a request of its own, with the host as its parameter."""
    return not host or (host.isascii() and host.isprintable() and '"' not in host and "\\" not in host)


MAX_WEBHOOK_VALUE = 2000


def hook_value(value: Any) -> Any:
    """A data value for a webhook receiver (the action's and the collector's): JSON escapes the rest; a text a
    spreadsheet would run as a formula gets a leading apostrophe (textsafe.formula_safe); no value longer than
    MAX_WEBHOOK_VALUE."""
    if not isinstance(value, str):
        return value
    text = formula_safe("".join(ch for ch in value if ch >= " " or ch in "\n\t"))
    return text if len(text) <= MAX_WEBHOOK_VALUE else text[:MAX_WEBHOOK_VALUE - 3] + "..."


def webhook_body(finding: Finding, record: Dict[str, Any], search_name: str, results_link: str,
                 symptoms: Sequence[Finding] = ()) -> bytes:
    """A compact JSON finding for a webhook receiver (chat, paging, ticketing); a root cause carries the
    findings it causes on other instances (`symptoms`), which are not sent on their own."""
    rec = dict(record)
    rec.update(record_content(finding))
    return record_webhook_body(rec, search_name, results_link, symptoms)


def record_webhook_body(record: Dict[str, Any], search_name: str, results_link: str,
                        symptoms: Sequence[Finding] = (), mechanisms: Optional[Dict[str, str]] = None) -> bytes:
    """The webhook body from a stored record (a delivery retried in a later run has only that); the
    root cause's symptoms when this run knows them, each with its mechanism (`mechanisms`: id -> sentence)."""
    try:
        recs = json.loads(record.get("recommendations") or "[]")
    except ValueError:
        recs = []
    pset = str(record.get("pipeline_set") or "")
    body = {
        "id": record.get("id"), "severity": record.get("severity"), "host": record.get("host") or None,
        "bottleneck": record.get("bottleneck"), "pipeline_set": int(pset) if pset.isdigit() else None,
        "component": record.get("component") or None, "summary": record.get("summary"),
        "recommendations": [r.get("action") for r in recs if isinstance(r, dict)] if isinstance(recs, list) else [],
        "status": record.get("status"), "count": record.get("count"),
        "first_seen": record.get("first_seen"), "last_seen": record.get("last_seen"),
        "resolution": record.get("resolution") or None,
        "search_name": search_name, "results_link": results_link or None,
        "caused_by": record.get("caused_by") or None,
        "mechanism": (record.get("mechanism") or None) if record.get("caused_by") else None,
        "symptoms": [{"id": s.id, "host": s.host, "bottleneck": s.bottleneck, "severity": s.severity,
                      "mechanism": (mechanisms or {}).get(s.id) or None} for s in symptoms],
    }
    body = {k: ([({kk: hook_value(vv) for kk, vv in x.items()} if isinstance(x, dict) else hook_value(x))
                 for x in v] if isinstance(v, list) else hook_value(v)) for k, v in body.items()}
    return json.dumps(body, separators=(",", ":")).encode("utf-8")
