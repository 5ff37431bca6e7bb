"""The `ingest_doctor_hold` alert action: acknowledge a finding, snooze or unsnooze a host, stage or alert.

Run from the Acknowledge and snooze page (view ingest_doctor_hold) by a search such as
    | makeresults | sendalert ingest_doctor_hold param.op=snooze param.scope=host param.value=idx-01
      param.until=+4h param.reason="CHG-1234 rolling restart"
`sendalert` runs the action with the payload of the user who ran the search (its session key):
the action asks splunkd who that is (authentication/current-context) and refuses, writing
nothing, a user without the capability `ingest_doctor_acknowledge` (the role ingest_doctor_admin,
default/authorize.conf, or admin). What is asked is checked (delivery/holds.py) before any write;
an authorized user's refused request is kept in the history too, so the view shows why.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence

from ingest_doctor import exitcodes
from ingest_doctor.alert.payload import AlertError, BadInput, Payload
from ingest_doctor.delivery import holds
from ingest_doctor.delivery.store import kv_key


class HoldPort(Protocol):
    def current_user(self) -> Dict[str, Any]:     # {"username": ..., "capabilities": [...]}
        ...

    def kv_read(self, keys: Sequence[str]) -> Dict[str, Dict[str, Any]]:     # the findings store
        ...

    def kv_put(self, collection: str, docs: Sequence[Dict[str, Any]]) -> None:
        ...

    def kv_delete(self, collection: str, key: str) -> None:
        ...

    def log(self, level: str, category: str, **fields: Any) -> None:
        ...


def configuration(text: str) -> Dict[str, str]:
    """The payload's `configuration` (sendalert's param.*), as strings."""
    data = json.loads(text)
    conf = data.get("configuration") if isinstance(data, dict) else None
    if not isinstance(conf, Mapping):
        raise BadInput("payload 'configuration' is not an object")
    return {str(k): "" if v is None else str(v) for k, v in conf.items()}


def run(payload: Payload, conf: Mapping[str, str], port: HoldPort, now: float) -> str:
    """Do what `conf` asks; return what was done, in words. AlertError when refused."""
    who = port.current_user()
    user = str(who.get("username") or "")
    if holds.CAPABILITY not in (who.get("capabilities") or []):
        raise AlertError("user %r lacks the capability %s (role ingest_doctor_admin): nothing written"
                         % (user, holds.CAPABILITY), exitcodes.AUTH)
    op = (conf.get("op") or "").strip().lower()
    try:
        if op not in holds.OPS:
            raise holds.HoldError("op=%r is not one of %s" % (op, ", ".join(holds.OPS)))
        return _apply(op, conf, port, user, now)
    except holds.HoldError as e:
        port.kv_put(holds.HISTORY, [holds.history("refused", user, now, op or "-", None, str(e)[:holds.MAX_TEXT])])
        raise BadInput(str(e)) from None


def _apply(op: str, conf: Mapping[str, str], port: HoldPort, user: str, now: float) -> str:
    if op == "ack":
        fid = (conf.get("finding") or "").strip()
        if not fid:
            raise holds.HoldError("finding is required: the id of an open finding (Findings view)")
        record: Optional[Dict[str, Any]] = port.kv_read([kv_key(fid)]).get(kv_key(fid))
        ack, hist = holds.ack_docs(record, fid, conf.get("note") or "", user, now)
        port.kv_put(holds.ACKS, [ack])
        port.kv_put(holds.HISTORY, [hist])
        return "acknowledged %s (%s) by %s" % (fid, ack["severity"], user)
    if op == "snooze":
        snooze, hist = holds.snooze_docs(conf.get("scope") or "", conf.get("value") or "", conf.get("until") or "",
                                         conf.get("reason") or "", user, now)
        port.kv_put(holds.SNOOZES, [snooze])
        port.kv_put(holds.HISTORY, [hist])
        return "snoozed %s %s until %.0f by %s" % (snooze["scope"], snooze["value"], snooze["until"], user)
    scope = (conf.get("scope") or "").strip().lower()
    value = (conf.get("value") or "").strip().lower()
    if scope not in holds.SCOPES or not value:
        raise holds.HoldError("unsnooze needs scope (%s) and value" % ", ".join(holds.SCOPES))
    port.kv_delete(holds.SNOOZES, "%s~%s" % (scope, value))
    port.kv_put(holds.HISTORY, [holds.history("unsnooze", user, now, "%s %s" % (scope, value))])
    return "unsnoozed %s %s by %s" % (scope, value, user)


def describe(conf: Mapping[str, str]) -> List[str]:
    """What may be logged about a request (all of it: nothing in it is secret)."""
    return ["%s=%s" % (k, conf[k][:80]) for k in ("op", "finding", "scope", "value", "until") if conf.get(k)]
