"""The alert action's own calls: KV store, search, event submission, macros and the webhook.

They go to splunkd through the one splunkd port (ingest_doctor_ports/splunkd.py: a 10 s bound a call,
keep-alive, the session key of the payload, the README's TLS policy) with up to ATTEMPTS tries
and a short backoff for what may pass (503 "KV Store is initializing", 502/504, a refused or
reset connection, a timeout). What remains is raised as an AlertError with the exit code
endpoints.py gives the fault: TRANSIENT (retry later), AUTH, BAD_CONFIG, UNEXPECTED.
This splunkd's configuration (when no ingest_doctor:config event exists) is read by the read
step over the endpoint table's alert rows.

TLS to splunkd: with a CA bundle (env INGEST_DOCTOR_SPLUNKD_CA) the certificate and host name
are verified. Without one, the loopback splunkd that runs this script (https://127.0.0.1:8089,
Splunk's own self-signed certificate) is used unverified, and any other address is verified
against the system's trusted CAs. Webhooks are always verified (system CAs, or SSL_CERT_FILE), through the one webhook client
(ingest_doctor_ports/webhook.py): no redirect followed, a wall-clock deadline a request, and no
loopback, link-local, private or port-8089 target unless the allow-list names it (the macro
ingest_doctor_webhook_allow, or INGEST_DOCTOR_WEBHOOK_ALLOW an earlier version read). The webhook URL
itself comes from storage/passwords (alert/payload.py: apply_settings).
"""
from __future__ import annotations

import json
import os
import random
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set
from urllib.parse import quote, urlsplit

from ingest_doctor.read import endpoints, readstep, rest
from ingest_doctor.alert.payload import ALLOW_MACRO, WEBHOOK_NAME, WEBHOOK_REALM, AlertError, BadConfig, Transient
from ingest_doctor.delivery.store import COLLECTION, kv_query, kv_query_runs
from ingest_doctor.read.endpoints import ALERT_CONFIG, BY_PATH, INFO, MACROS, Endpoint, Fetched
from ingest_doctor.evidence import Evidence
from ingest_doctor.delivery import outbound
from ingest_doctor.delivery import holds as holds_mod
from ingest_doctor.delivery.messages import DEFAULT_ROLES, MessagePlan
from ingest_doctor_ports import webhook
from ingest_doctor_ports.messages import MessageError, WebMessages
from ingest_doctor_ports.splunkd import RETRY_KINDS, RETRY_STATUSES, Splunkd, describe, json_body

APP = "ingest_doctor"
OWNER = "nobody"
NS = "/servicesNS/%s/%s/" % (OWNER, APP)
TIMEOUT_S = 10.0
ATTEMPTS = 4
# A KV store read's query, URL-encoded: the request line stays under 8 KB, the least of the common HTTP
# servers' limits (50 keys a read, as before, made 2.5 KB URLs of short keys and over 15 KB of long ones).
KV_QUERY_MAX_BYTES = 7500
KV_SAVE_CHUNK = 500
EVENTS_MAX_BYTES = 1 << 20    # events a request (JSON is ASCII: characters are bytes); 4,000 findings: ~4 requests
CA_ENV = "INGEST_DOCTOR_SPLUNKD_CA"
BACKOFF_ENV = "INGEST_DOCTOR_RETRY_BACKOFF_S"
ALLOW_ENV = "INGEST_DOCTOR_WEBHOOK_ALLOW"   # admin-only (splunk-launch.conf): targets the policy would refuse
WEBHOOK_BACKOFF_CAP_S = 30.0
CONFIG_LOOKBACK = "-2d"   # the collector re-sends its config event at least daily
LOCKS = "ingest_doctor_locks"
LOCK_KEY = "findings"
LOCK_WAIT_S = 60.0        # how long a run waits for the findings store (then TRANSIENT: the next run redoes it)
LOCK_TTL_S = 150.0        # above the action's maxtime (2 min): a lock older than this, its run is dead
PENDING_MAX = 200         # deliveries retried per run, at most


def _quote(value: str) -> str:
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


class SplunkdPort:
    def __init__(self, server_uri: str, session_key: str, log: Callable[..., None],
                 ca_file: Optional[str] = None, sleep: Callable[[float], None] = time.sleep,
                 message_roles: Sequence[str] = DEFAULT_ROLES):
        self.log = log
        self.sleep = sleep
        try:
            self.backoff = float(os.environ.get(BACKOFF_ENV, "0.5"))
        except ValueError:
            self.backoff = 0.5
        ca_file = ca_file if ca_file is not None else os.environ.get(CA_ENV) or None
        if ca_file and not os.path.isfile(ca_file):
            raise BadConfig("%s=%s: no such CA file" % (CA_ENV, ca_file))
        self.what = ""
        self.allow_text = ""        # the macro ingest_doctor_webhook_allow, read with the macros
        self.splunkd = Splunkd(server_uri or "https://127.0.0.1:8089", TIMEOUT_S, "Splunk " + session_key,
                               ca_file=ca_file, trust_loopback=True, retries=ATTEMPTS - 1, backoff=self.backoff,
                               sleep=sleep, on_retry=self._retrying)
        self.host = self.splunkd.host
        self.tls = self.splunkd.tls
        # Splunk Web messages over this same port (TLS, timeout), shown to param.message_roles only.
        self.web = WebMessages(server_uri or "https://127.0.0.1:8089", session_key, self.splunkd.http,
                               message_roles)

    # ------------------------------------------------------------------ transport
    def _retrying(self, attempt: int, error: str) -> None:
        self.log("WARN", "splunkd", msg="call failed, retrying", call=self.what, attempt=attempt, error=error)

    def _call(self, what: str, method: str, path: str, ok: Sequence[int] = (), **kw: Any) -> Fetched:
        """One call, retried by the port; a fault that remains is an AlertError with endpoints.exit_code."""
        self.what = what
        f = self.splunkd.request(method, path, **kw)
        kind = endpoints.error_kind(f)
        if kind is None or f.status in ok:
            return f
        detail = describe(f)
        if f.error in RETRY_KINDS or f.status in RETRY_STATUSES:
            self.log("WARN", "splunkd", msg="call failed", call=what, attempt=ATTEMPTS, error=detail)
            raise Transient("%s failed %d times, last: %s; nothing after it was written, rerun the alert "
                            "(or wait for the next run)" % (what, ATTEMPTS, detail))
        code = endpoints.exit_code(kind)
        if code == endpoints.exitcodes.AUTH:
            raise AlertError("splunkd refused %s: %s (the alert's owner needs the capability to read and write "
                             "the app's KV store and submit events)" % (what, detail), code)
        if kind == "tls":
            raise BadConfig("TLS verification of splunkd at %s failed for %s: %s (set %s to the CA that signed "
                            "splunkd's certificate)" % (self.host, what, f.detail, CA_ENV))
        raise AlertError("splunkd answered %s to %s" % (detail, what), code)

    def _json(self, what: str, f: Fetched) -> Any:
        data = json_body(f)
        if data is None:
            raise Transient("splunkd answered %s with a body that is not JSON (HTTP %s, %d bytes)"
                            % (what, f.status, len(f.body)))
        return data

    # ------------------------------------------------------------------ Port
    def macros(self) -> Dict[str, str]:
        """The app's ingest_doctor_* macros (thresholds, events index) in the app's namespace, by the read step."""
        def fetch(ep: Endpoint) -> Fetched:
            return self._call("read macros", "GET", NS + ep.path[len("services/"):], params=endpoints.query(ep))
        reading = readstep.read(fetch, [BY_PATH[MACROS]])
        if reading.macros is None:
            raise Transient("splunkd answered read macros with %s" % reading.faults[0].message())
        self.allow_text = reading.macros.get(ALLOW_MACRO, "")
        return reading.macros

    def stored_webhook_url(self) -> Optional[str]:
        """The app's webhook URL from storage/passwords (encrypted at rest; splunkd decrypts it for a user
        with list_storage_passwords, as splunk-system-user, the shipped alerts' owner, has). None: unset."""
        name = "%s:%s:" % (WEBHOOK_REALM, WEBHOOK_NAME)
        what = "read the webhook URL (storage/passwords %s)" % name
        f = self._call(what, "GET", NS + "storage/passwords/" + quote(name, safe=""), ok=(404,),
                       params={"output_mode": "json"})
        if f.status == 404:
            return None
        data = self._json(what, f)
        entries = data.get("entry") if isinstance(data, dict) else None
        content = entries[0].get("content") if entries and isinstance(entries[0], dict) else None
        value = content.get("clear_password") if isinstance(content, dict) else None
        return str(value) if value else None

    def latest_configs(self, hosts: Sequence[str]) -> Dict[str, Dict[str, Any]]:
        if not hosts:
            return {}
        spl = ("search `ingest_doctor_events_index` sourcetype=\"ingest_doctor:config\" (%s) "
               "| dedup host | fields host _raw" % " OR ".join("host=%s" % _quote(h) for h in hosts))
        what = "search latest ingest_doctor:config"
        data = self._json(what, self._call(what, "POST", NS + "search/jobs", form={
            "exec_mode": "oneshot", "output_mode": "json", "count": "0", "earliest_time": CONFIG_LOOKBACK,
            "latest_time": "now", "search": spl}))
        out: Dict[str, Dict[str, Any]] = {}
        for r in data.get("results") or []:
            try:
                event = json.loads(r.get("_raw") or "")
            except ValueError:
                self.log("WARN", "config", msg="ingest_doctor:config event is not JSON", host=r.get("host"))
                continue
            cfg = event.get("config") if isinstance(event, dict) else None
            host = r.get("host") or (event.get("host") if isinstance(event, dict) else None)
            if host and isinstance(cfg, dict) and host not in out:
                out[host] = cfg
        return out

    def _server_names(self) -> Set[str]:
        if not hasattr(self, "_local_names"):
            f = self._call("read " + INFO.path, "GET", "/" + INFO.path, params=endpoints.query(INFO))
            names = set()
            for e in rest.entries(f.body) if f.status == 200 else []:
                for k in ("serverName", "host", "host_fqdn"):
                    v = e.content.get(k)
                    if v:
                        names.add(str(v))
            self._local_names = names
        return self._local_names

    def local_config(self, host: str, evidence: Evidence) -> bool:
        """REST fallback: only for the splunkd this action runs on, through the read step."""
        if host not in self._server_names():
            return False
        reading = readstep.read(lambda ep: self._call("read " + ep.path, "GET", "/" + ep.path, ok=(404,),
                                                      params=endpoints.query(ep)),
                                ALERT_CONFIG, evidence=evidence)
        for fault in reading.faults:
            if fault.kind != "404":
                self.log("WARN", "config", msg="REST configuration not read", path=fault.path, kind=fault.kind,
                         error=fault.message())
        readstep.merge_config(evidence, reading.config)
        return True

    def kv_read(self, keys: Sequence[str]) -> Dict[str, Dict[str, Any]]:
        out: Dict[str, Dict[str, Any]] = {}
        for chunk in kv_query_runs(keys, KV_QUERY_MAX_BYTES):     # the query travels in the URL: keep it short
            f = self._call("read KV store %s" % COLLECTION, "GET", NS + "storage/collections/data/" + COLLECTION,
                           params={"output_mode": "json", "query": kv_query(chunk)})
            data = self._json("read KV store", f)
            if not isinstance(data, list):
                raise Transient("KV store %s answered with something that is not a list" % COLLECTION)
            out.update({r["_key"]: r for r in data if isinstance(r, dict) and "_key" in r})
        return out

    def kv_save(self, records: Sequence[Dict[str, Any]]) -> None:
        records = list(records)
        for i in range(0, len(records), KV_SAVE_CHUNK):     # limits.conf [kvstore] max_documents_per_batch_save
            part = records[i:i + KV_SAVE_CHUNK]
            self._call("save %d finding(s) to KV store %s" % (len(part), COLLECTION), "POST",
                       NS + "storage/collections/data/%s/batch_save" % COLLECTION,
                       headers={"Content-Type": "application/json"}, body=json.dumps(part).encode("utf-8"))

    def webhook(self, url: str, body: bytes) -> None:
        post_webhook(url, body, self.log, self.sleep, self.backoff, self.allow_text)

    def kv_pending(self, search_name: str) -> Dict[str, Dict[str, Any]]:
        """Records whose delivery by this alert is pending (retried every run)."""
        q = json.dumps({"delivery": "pending", "delivery_search": search_name}, separators=(",", ":"))
        f = self._call("read pending deliveries from KV store %s" % COLLECTION, "GET",
                       NS + "storage/collections/data/" + COLLECTION,
                       params={"output_mode": "json", "query": q, "limit": str(PENDING_MAX)})
        data = self._json("read pending deliveries", f)
        if not isinstance(data, list):
            raise Transient("KV store %s answered with something that is not a list" % COLLECTION)
        return {r["_key"]: r for r in data if isinstance(r, dict) and "_key" in r}

    # The findings store's lock: one document in the collection ingest_doctor_locks. It rests on one
    # KV store rule: inserting a document whose _key exists fails (409). Held while a run reads, plans
    # and saves; a lock past its expiry (its run died: the action's maxtime is 2 min) is taken over by
    # the one run whose insert of a takeover marker for exactly that lock succeeds.
    def store_lock(self, owner: str) -> None:
        base = NS + "storage/collections/data/" + LOCKS
        deadline = time.monotonic() + LOCK_WAIT_S
        wait = 0.02
        while True:
            doc = {"_key": LOCK_KEY, "owner": owner, "expires": time.time() + LOCK_TTL_S}
            f = self._call("take the findings store lock", "POST", base, ok=(409,),
                           headers={"Content-Type": "application/json"}, body=json.dumps(doc).encode("utf-8"))
            if f.status in (200, 201):
                return
            g = self._call("read the findings store lock", "GET", base + "/" + LOCK_KEY, ok=(404,),
                           params={"output_mode": "json"})
            held = json_body(g) if g.status == 200 else None
            if isinstance(held, dict) and float(held.get("expires") or 0) < time.time():
                marker = {"_key": "takeover~%s~%s" % (held.get("owner"), held.get("expires")), "owner": owner,
                          "expires": time.time() + 86400}
                t = self._call("take over an expired findings store lock", "POST", base, ok=(409,),
                               headers={"Content-Type": "application/json"}, body=json.dumps(marker).encode("utf-8"))
                if t.status in (200, 201):
                    self.log("WARN", "kvstore", msg="took over the findings store lock of a run that died",
                             holder=str(held.get("owner"))[:80])
                    self._call("drop an expired findings store lock", "DELETE", base + "/" + LOCK_KEY, ok=(404,))
                    continue
            if time.monotonic() >= deadline:
                raise Transient("the findings store stayed locked by another run for %d s (%s); nothing was "
                                "written, the next run redoes this one" % (LOCK_WAIT_S, str(
                                    held.get("owner") if isinstance(held, dict) else "?")[:80]))
            self.sleep(wait * (0.5 + random.random()))
            wait = min(wait * 2, 0.5)

    def store_unlock(self, owner: str) -> None:
        base = NS + "storage/collections/data/" + LOCKS
        g = self._call("read the findings store lock", "GET", base + "/" + LOCK_KEY, ok=(404,),
                       params={"output_mode": "json"})
        held = json_body(g) if g.status == 200 else None
        if isinstance(held, dict) and held.get("owner") == owner:
            self._call("release the findings store lock", "DELETE", base + "/" + LOCK_KEY, ok=(404,))

    # Acknowledgements and snoozes (delivery/holds.py): the app's own collections, read once a run.
    def kv_list(self, collection: str, query: Optional[Dict[str, Any]] = None, limit: int = 0) -> List[Dict[str, Any]]:
        params = {"output_mode": "json"}
        if query:
            params["query"] = json.dumps(query, separators=(",", ":"))
        if limit:
            params["limit"] = str(limit)
        what = "read KV store %s" % collection
        data = self._json(what, self._call(what, "GET", NS + "storage/collections/data/" + collection, params=params))
        if not isinstance(data, list):
            raise Transient("KV store %s answered with something that is not a list" % collection)
        return [r for r in data if isinstance(r, dict)]

    def kv_put(self, collection: str, docs: Sequence[Dict[str, Any]]) -> None:
        if docs:
            self._call("save %d document(s) to KV store %s" % (len(docs), collection), "POST",
                       NS + "storage/collections/data/%s/batch_save" % collection,
                       headers={"Content-Type": "application/json"}, body=json.dumps(list(docs)).encode("utf-8"))

    def kv_delete(self, collection: str, key: str) -> None:
        self._call("delete from KV store %s" % collection, "DELETE",
                   NS + "storage/collections/data/%s/%s" % (collection, quote(key, safe="")), ok=(404,))

    def holds(self, now: float) -> holds_mod.Holds:
        return holds_mod.Holds.from_docs(self.kv_list(holds_mod.ACKS, limit=holds_mod.MAX_DOCS),
                                         self.kv_list(holds_mod.SNOOZES, limit=holds_mod.MAX_DOCS), now)

    def end_acks(self, acks: Sequence[Dict[str, Any]], now: float, why: str) -> None:
        self.kv_put(holds_mod.HISTORY, [holds_mod.history("ack_ended", "ingest_doctor_flag", now,
                                                          "finding " + str(a.get("finding_id")), None, why)
                                        for a in acks])
        for a in acks:
            self.kv_delete(holds_mod.ACKS, str(a.get("_key")))

    def current_user(self) -> Dict[str, Any]:
        """Who runs this action (the session's user, for `sendalert`: the one who ran the search) and
        their capabilities (authentication/current-context)."""
        what = "read authentication/current-context"
        f = self._call(what, "GET", "/services/authentication/current-context", params={"output_mode": "json"})
        data = self._json(what, f)
        entries = data.get("entry") if isinstance(data, dict) else None
        content = entries[0].get("content") if entries and isinstance(entries[0], dict) else None
        if not isinstance(content, dict):
            raise Transient("splunkd answered %s without a user" % what)
        return {"username": str(content.get("username") or ""),
                "capabilities": [str(c) for c in content.get("capabilities") or []]}

    # Splunk Web messages over this port (same TLS, same timeout).
    def messages_shown(self) -> Dict[str, str]:
        try:
            return self.web.shown()
        except MessageError as e:
            raise Transient(str(e)) from None

    def post_messages(self, plan: MessagePlan) -> None:
        error = self.web.apply(plan)
        if error:
            raise Transient(error)

    def write_events(self, index: str, host: str, bodies: Sequence[str]) -> None:
        """As few requests as EVENTS_MAX_BYTES allows, on the port's kept-alive connection:
        ingest_doctor:finding breaks events on newlines, and takes each event's host from its JSON at
        index time (default/transforms.conf); `host` (else this splunkd's) is the request's."""
        part: List[str] = []
        size = 0
        for body in bodies:
            if part and size + len(body) + 1 > EVENTS_MAX_BYTES:
                self._post_events(index, host, part)
                part, size = [], 0
            part.append(body)
            size += len(body) + 1
        if part:
            self._post_events(index, host, part)

    def _post_events(self, index: str, host: str, part: Sequence[str]) -> None:
        self._call("write %d ingest_doctor:finding event(s) to index %s" % (len(part), index), "POST",
                   NS + "receivers/simple", params={"index": index, "sourcetype": "ingest_doctor:finding",
                                                    "source": "ingest_doctor_flag", "host": host or self.host},
                   body="\n".join(part).encode("utf-8"))


def post_webhook(url: str, body: bytes, log: Callable[..., None], sleep: Callable[[float], None] = time.sleep,
                 backoff: float = 0.5, allow_text: str = "") -> None:
    """POST one compact JSON finding through the one webhook client (ingest_doctor_ports/webhook.py):
    5xx, 429 and network faults are retried (Retry-After honoured), a redirect or another 4xx is the
    receiver saying no, a target outside the admin's allow-list is refused before any connection."""
    host = urlsplit(url).hostname

    def retrying(attempt: int, reason: str, wait: float) -> None:
        log("WARN", "webhook", msg="post failed, retrying", host=host, attempt=attempt, error=reason,
            wait_s=round(wait, 2))

    # The allow-list: the macro ingest_doctor_webhook_allow (the notification settings), and the
    # environment variable an earlier version read (splunk-launch.conf), kept so an upgrade keeps it.
    allow = []
    for where, text in ((ALLOW_MACRO, allow_text), (ALLOW_ENV, os.environ.get(ALLOW_ENV))):
        text = "" if (text or "").strip().strip('"').lower() in ("", "none", "-") else text
        try:
            allow += outbound.parse_allow(text.strip().strip('"'))
        except outbound.Refused as e:
            raise BadConfig("%s: %s" % (where, e)) from None
    out = webhook.send(url, body, allow, attempts=ATTEMPTS, backoff=backoff, cap=WEBHOOK_BACKOFF_CAP_S,
                       timeout=TIMEOUT_S, sleep=sleep, on_retry=retrying)
    if out.kind == "sent":
        return
    if out.kind == "failed":
        log("WARN", "webhook", msg="post failed", host=host, attempt=out.attempts, error=out.reason)
        raise Transient("webhook at %s failed %d times (last: %s); the findings are in the KV store and the "
                        "event index already" % (host, out.attempts, out.reason))
    if out.reason.startswith("tls"):
        raise BadConfig("TLS verification of the webhook at %s failed: %s" % (host, out.reason))
    if out.kind == "redirect":
        raise BadConfig("webhook at %s answered with a %s" % (host, out.reason))
    raise BadConfig("webhook at %s refused the finding: %s" % (host, out.reason))
