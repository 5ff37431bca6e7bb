"""The collector's webhook outbox, as a pure state machine: which finding changes become a
notification, in what order they leave, and what happens after each attempt.

The collector notifies its webhook directly (out of band: nothing here needs indexing or a search)
when a finding opens, escalates or resolves. Rules:
- minimum severity: a finding below it is not notified, nor is its resolution;
- deduplication per finding id: the last state told (open at a severity, or resolved) is kept, so
  a change already told (the same open after a collector restart, a resolve told twice) is not
  queued again; an escalation is always told;
- throttling: a finding that reopens within THROTTLE_S of its last open notification is not told
  again (nor its next resolve), so a finding flapping at its threshold pages once;
- order: notifications leave one at a time, oldest first; one that may pass (5xx, 429, timeout,
  refused connection, a peer hanging up) stays at the head and is retried after outbound.backoff()
  (Retry-After honoured), so every open and resolve arrives once, in order;
- head of line bounded: a head that has failed HOL_ATTEMPTS times in a row and for HOL_S seconds
  moves behind the others, with the later changes of its own finding (so a finding's open still
  precedes its resolve), and is tried again when its turn comes back. A receiver that fails one body
  (a 500 on that payload) holds the others back for about HOL_S, not until MAX_AGE_S; a receiver
  that is down fails every head alike and the order is kept for the first HOL_S of an outage;
- a notification the receiver refuses (4xx, a redirect, a refused target) is dropped with its
  reason, never retried: it would block the rest;
- bounded: at most MAX_ENTRIES wait; beyond, the oldest is dropped and counted; one older than
  MAX_AGE_S is dropped (a stale page helps nobody).
The port (ingest_doctor_ports/notifier.py) keeps this state in a file under the input's checkpoint
dir (written before each attempt and after each answer) and makes the calls off the poll loop.
"""
from __future__ import annotations

import json
import time as _time
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ingest_doctor.delivery import holds, outbound
from ingest_doctor.delivery.messages import Change
from ingest_doctor.delivery.store import hook_value
from ingest_doctor.findings import severity_rank

VERSION = 1
MAX_ENTRIES = 500
MAX_AGE_S = 86400.0
THROTTLE_S = 300.0
BACKOFF_S = 2.0             # the first retry; doubles up to BACKOFF_CAP_S
BACKOFF_CAP_S = 60.0
HOL_ATTEMPTS = 5            # a failing head moves behind the others after this many failures in a row
HOL_S = 300.0               # ... and this many seconds since the first of them


@dataclass
class Entry:
    key: str                  # "<seq>:<finding id>:<event>": the receiver's idempotency key
    finding_id: str
    event: str                # open | escalated | resolved
    severity: str
    body: Dict[str, Any]
    created: float
    attempts: int = 0
    next_at: float = 0.0
    last_error: str = ""
    head_tries: int = 0       # failures in a row since it last became the head
    head_since: float = 0.0   # when the first of them was answered


@dataclass
class Told:
    state: str                # open | resolved
    severity: str
    at: float                 # when the last open was queued (throttling)


@dataclass
class Outcome:
    """What one attempt did to the outbox, for the log."""
    entry: Entry
    kind: str                 # sent | retry | moved (a retry, behind the others) | dropped
    reason: str = ""
    wait_s: float = 0.0


@dataclass
class Outbox:
    seq: int = 0
    entries: List[Entry] = field(default_factory=list)
    told: Dict[str, Told] = field(default_factory=dict)
    sent: int = 0
    dropped: int = 0

    # ------------------------------------------------------------------ offering changes
    def offer(self, changes: Sequence[Change], host: Optional[str], now: float, min_severity: str) -> List[Entry]:
        """Queue what these poll changes should tell the webhook; returns the entries added."""
        added: List[Entry] = []
        floor = severity_rank(min_severity)
        for ch in changes:
            f = ch.finding
            told = self.told.get(f.id)
            if ch.kind == "resolved":
                if told is None or told.state != "open":
                    continue
                event = "resolved"
                self.told[f.id] = Told("resolved", told.severity, told.at)
            else:
                if severity_rank(f.severity) < floor:
                    continue
                if told is not None and told.state == "open":
                    if severity_rank(f.severity) <= severity_rank(told.severity):
                        continue                           # already told (e.g. after a restart)
                    event = "escalated"
                elif told is not None and now - told.at < THROTTLE_S:
                    continue                               # flapping: reopened within the throttle
                else:
                    event = "open"
                self.told[f.id] = Told("open", f.severity, now)
            added.append(self._queue(f.id, event, f.severity, body(ch, event, host, now), now))
        return added

    def _queue(self, fid: str, event: str, severity: str, data: Dict[str, Any], now: float) -> Entry:
        self.seq += 1
        e = Entry("%d:%s:%s" % (self.seq, fid, event), fid, event, severity, data, now, next_at=now)
        e.body["notification_id"] = e.key
        self.entries.append(e)
        while len(self.entries) > MAX_ENTRIES:
            self.entries.pop(0)
            self.dropped += 1
        return e

    # ------------------------------------------------------------------ delivering
    def expire(self, now: float) -> List[Entry]:
        old = [e for e in self.entries if now - e.created > MAX_AGE_S]
        if old:
            self.entries = [e for e in self.entries if now - e.created <= MAX_AGE_S]
            self.dropped += len(old)
        return old

    def head(self, now: float) -> Optional[Entry]:
        """The next notification to attempt now, or None (empty, or the head waits for its retry)."""
        if not self.entries:
            return None
        e = self.entries[0]
        return e if e.next_at <= now else None

    def wait_s(self, now: float) -> Optional[float]:
        """Seconds until the head is due (None when empty)."""
        if not self.entries:
            return None
        return max(0.0, self.entries[0].next_at - now)

    def answered(self, entry: Entry, verdict: outbound.Verdict, now: float, base: float = BACKOFF_S,
                 cap: float = BACKOFF_CAP_S) -> Outcome:
        """Apply one attempt's verdict to `entry` (the head); a retry waits outbound.backoff(base, cap)."""
        if not self.entries or self.entries[0].key != entry.key:
            return Outcome(entry, "dropped", "no longer queued")
        if verdict.kind == "sent":
            self.entries.pop(0)
            self.sent += 1
            return Outcome(entry, "sent", verdict.reason)
        if verdict.kind == "retry":
            entry.attempts += 1
            entry.last_error = verdict.reason
            wait = outbound.backoff(entry.attempts, base, cap, verdict.retry_after)
            entry.next_at = now + wait
            if entry.head_tries == 0:
                entry.head_since = now
            entry.head_tries += 1
            if entry.head_tries >= HOL_ATTEMPTS and now - entry.head_since >= HOL_S and self._behind(entry):
                return Outcome(entry, "moved", verdict.reason, wait)
            return Outcome(entry, "retry", verdict.reason, wait)
        self.entries.pop(0)
        self.dropped += 1
        return Outcome(entry, "dropped", verdict.reason)

    def _behind(self, entry: Entry) -> bool:
        """Move the head and its finding's later changes behind every other finding's; False when no
        other finding waits (nothing would pass it)."""
        mine = [e for e in self.entries if e.finding_id == entry.finding_id]
        others = [e for e in self.entries if e.finding_id != entry.finding_id]
        if not others:
            return False
        entry.head_tries = 0
        self.entries = others + mine
        return True

    # ------------------------------------------------------------------ the file
    def dumps(self) -> str:
        return json.dumps({"version": VERSION, "seq": self.seq, "sent": self.sent, "dropped": self.dropped,
                           "entries": [asdict(e) for e in self.entries],
                           "told": {k: asdict(v) for k, v in sorted(self.told.items())}},
                          separators=(",", ":"), sort_keys=True)

    @classmethod
    def loads(cls, text: str) -> "Outbox":
        """The saved state; a file that is not ours (or damaged) is an error the port reports."""
        d = json.loads(text)
        if not isinstance(d, dict) or d.get("version") != VERSION:
            raise ValueError("not an ingest_doctor outbox (version %r)" % (d.get("version") if isinstance(d, dict)
                                                                           else None))
        box = cls(int(d.get("seq") or 0), [Entry(**e) for e in d.get("entries") or []],
                  {k: Told(**v) for k, v in (d.get("told") or {}).items()}, int(d.get("sent") or 0),
                  int(d.get("dropped") or 0))
        return box


def body(ch: Change, event: str, host: Optional[str], now: float) -> Dict[str, Any]:
    """The compact JSON finding the action also sends (store.webhook_body's fields), from the collector."""
    d = ch.finding.to_dict()
    v = hook_value      # each text as the action sends it: control characters dropped, formula-safe, bounded
    return {
        "id": v(d["id"]), "severity": d["severity"], "host": v(d["host"] or host), "bottleneck": d["bottleneck"],
        "pipeline_set": d["pipeline_set"], "component": v(d["component"]), "summary": v(d["summary"]),
        "recommendations": [v(r["action"]) for r in d["recommendations"]],
        "status": "resolved" if event == "resolved" else "open", "event": event,
        "resolution": v(ch.note) or None if event == "resolved" else None,
        "time": round(now, 3), "detected_by": "collector", "path": "instance",
    }


# ---------------------------------------------------------------------------- the admin's settings
MIN_SEVERITIES = ("warning", "critical")


@dataclass(frozen=True)
class Settings:
    """The add-on's Configuration > Webhook tab (ta_ingest_doctor_settings.conf [webhook])."""
    url: Optional[str] = None
    min_severity: str = "warning"
    allow: Sequence[outbound.AllowEntry] = ()
    auth_header_set: bool = False     # the value itself is encrypted in storage/passwords
    # A snooze of this instance's webhook (a planned change on it): until then nothing is posted, the
    # changes wait in the outbox and go out once it ends. The search head's snoozes (KV store) cannot
    # reach a collector on an indexer or forwarder: this setting is the collector's own (holds.py).
    snooze_until: float = 0.0
    snooze_reason: str = ""

    @property
    def on(self) -> bool:
        return bool(self.url)

    def snoozed(self, now: float) -> bool:
        return now < self.snooze_until


def parse_snooze(content: Dict[str, Any], now: float) -> Tuple[float, str]:
    """(until, reason) of the tab's snooze; an ended one is (0, ""): it expires by itself. Refused: an end
    more than 7 days ahead, an end that is not a time, a running snooze without a reason."""
    text = str(content.get("snooze_until") or "").strip()
    if not text:
        return 0.0, ""
    try:
        until = holds.parse_until(text, now)
    except holds.HoldError as e:
        raise outbound.Refused("snooze_until: %s" % e) from None
    if until <= now:
        return 0.0, ""
    if until - now > holds.MAX_SNOOZE_S:
        raise outbound.Refused("snooze_until is %.1f days ahead: a snooze lasts at most 7 days" % ((until - now) / 86400.0))
    reason = str(content.get("snooze_reason") or "").strip()
    if not reason:
        raise outbound.Refused("snooze_reason is required while a snooze runs (a change ticket)")
    return until, reason[:holds.MAX_TEXT]


def parse_settings(content: Dict[str, Any], now: Optional[float] = None) -> Settings:
    """The [webhook] stanza's content; raises outbound.Refused (a ValueError) naming the bad field."""
    url = str(content.get("url") or "").strip() or None
    if url is not None:
        target = outbound.parse_url(url)
        allow_list = outbound.parse_allow(str(content.get("allow_targets") or ""))
        outbound.check_target(target, allow_list)
        literal = outbound.address_of(target.host)
        if literal is not None:                 # a name is checked by the port, on every address it resolves to
            outbound.check_address(target, literal, allow_list)
    sev = str(content.get("min_severity") or "warning").strip().lower()
    if sev not in MIN_SEVERITIES:
        raise outbound.Refused("min_severity must be one of %s, not %r" % (", ".join(MIN_SEVERITIES), sev))
    allow = outbound.parse_allow(str(content.get("allow_targets") or ""))
    auth = str(content.get("auth_header") or "").strip()
    until, reason = parse_snooze(content, _time.time() if now is None else now)
    return Settings(url, sev, tuple(allow), bool(auth), until, reason)
