"""The alert action's port to the outside world: splunkd (splunklib) and the webhook.

Every call is bounded: a 10 s timeout, and at most ATTEMPTS tries with a short
backoff for what may pass (503 "KV Store is initializing", 502/504, a refused
or reset connection, a timeout). What remains is raised as an AlertError with
the exit code the admin needs: TRANSIENT (retry later), AUTH, BAD_CONFIG.

TLS to splunkd: with a CA bundle (env INGEST_DOCTOR_SPLUNKD_CA) the
certificate and host name are verified. Without one, the loopback splunkd
that runs this script (https://127.0.0.1:8089, Splunk's own self-signed
certificate) is used unverified, and any other address is verified against
the system's trusted CAs. Webhooks are always verified (system CAs, or
SSL_CERT_FILE).
"""
from __future__ import annotations

import ipaddress
import json
import os
import socket
import ssl
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, Optional, Sequence, Tuple
from urllib.parse import urlsplit

from splunklib import binding

from ingest_doctor import exitcodes
from ingest_doctor.alert_payload import AlertError, BadConfig, Transient
from ingest_doctor.alert_store import COLLECTION, kv_query
from ingest_doctor.evidence import Evidence
from ingest_doctor import readstep, rest
from ingest_doctor.endpoints import ALERT_CONFIG, Endpoint, Fetched, query

APP = "ingest_doctor"
OWNER = "nobody"
TIMEOUT_S = 10.0
ATTEMPTS = 4
RETRY_STATUSES = (502, 503, 504)
KV_READ_CHUNK = 50
KV_SAVE_CHUNK = 500
EVENTS_CHUNK = 100
CA_ENV = "INGEST_DOCTOR_SPLUNKD_CA"
BACKOFF_ENV = "INGEST_DOCTOR_RETRY_BACKOFF_S"
CONFIG_LOOKBACK = "-2d"   # the collector re-sends its config event at least daily


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _quote(value: str) -> str:
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


class SplunkdPort:
    def __init__(self, server_uri: str, session_key: str, log: Callable[..., None],
                 ca_file: Optional[str] = None, sleep: Callable[[float], None] = time.sleep):
        parts = urlsplit(server_uri)
        self.host = parts.hostname or "127.0.0.1"
        self.log = log
        self.sleep = sleep
        try:
            self.backoff = float(os.environ.get(BACKOFF_ENV, "0.5"))
        except ValueError:
            self.backoff = 0.5
        ca_file = ca_file if ca_file is not None else os.environ.get(CA_ENV) or None
        if ca_file:
            if not os.path.isfile(ca_file):
                raise BadConfig("%s=%s: no such CA file" % (CA_ENV, ca_file))
            ctx = ssl.create_default_context(cafile=ca_file)
            handler = binding.handler(timeout=TIMEOUT_S, verify=True, context=ctx)
            self.tls = "verified (CA file)"
        elif _is_loopback(self.host):
            handler = binding.handler(timeout=TIMEOUT_S, verify=False)
            self.tls = "loopback, not verified"
        else:
            handler = binding.handler(timeout=TIMEOUT_S, verify=True, context=ssl.create_default_context())
            self.tls = "verified (system CAs)"
        self.ctx = binding.Context(handler=handler, scheme=parts.scheme or "https", host=self.host,
                                   port=parts.port or 8089, token=session_key, owner=OWNER, app=APP)

    # ------------------------------------------------------------------ transport
    def _call(self, what: str, fn: Callable[[], Any], ok: Sequence[int] = ()) -> Tuple[int, bytes]:
        last = ""
        for attempt in range(1, ATTEMPTS + 1):
            try:
                resp = fn()
                return resp["status"], resp["body"].read()
            except binding.HTTPError as e:
                if e.status in ok:
                    return e.status, e.body if isinstance(e.body, bytes) else b""
                detail = _detail(e.body) or e.reason
                if e.status in (401, 403):
                    raise AlertError("splunkd refused %s: HTTP %d %s (the alert's owner needs the capability "
                                     "to read and write the app's KV store and submit events)"
                                     % (what, e.status, detail), exitcodes.AUTH) from None
                if e.status not in RETRY_STATUSES:
                    code = exitcodes.TRANSIENT if e.status >= 500 else exitcodes.UNEXPECTED
                    raise AlertError("splunkd answered HTTP %d to %s: %s" % (e.status, what, detail), code) from None
                last = "HTTP %d %s" % (e.status, detail)
            except ssl.SSLCertVerificationError as e:
                raise BadConfig("TLS verification of splunkd at %s failed for %s: %s (set %s to the CA that "
                                "signed splunkd's certificate)" % (self.host, what, e.verify_message or e, CA_ENV)) \
                    from None
            except (OSError, socket.timeout, ssl.SSLError) as e:
                last = "%s: %s" % (type(e).__name__, e)
            self.log("WARN", "splunkd", msg="call failed, retrying" if attempt < ATTEMPTS else "call failed",
                     call=what, attempt=attempt, error=last)
            if attempt < ATTEMPTS:
                self.sleep(self.backoff * (2 ** (attempt - 1)))
        raise Transient("%s failed %d times, last: %s; nothing after it was written, rerun the alert "
                        "(or wait for the next run)" % (what, ATTEMPTS, last))

    def _json(self, what: str, status: int, body: bytes) -> Any:
        try:
            return json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise Transient("splunkd answered %s with a body that is not JSON (HTTP %d, %d bytes)"
                            % (what, status, len(body))) from None

    # ------------------------------------------------------------------ Port
    def macros(self) -> Dict[str, str]:
        status, body = self._call("read macros", lambda: self.ctx.get(
            "configs/conf-macros", output_mode="json", count=0, search="ingest_doctor_"))
        data = self._json("read macros", status, body)
        out = {}
        for e in data.get("entry") or []:
            c = e.get("content") or {}
            if isinstance(c, dict) and e.get("name"):
                out[e["name"]] = str(c.get("definition") or "")
        return out

    def latest_configs(self, hosts: Sequence[str]) -> Dict[str, Dict[str, Any]]:
        if not hosts:
            return {}
        spl = ("search `ingest_doctor_events_index` sourcetype=\"ingest_doctor:config\" (%s) "
               "| dedup host | fields host _raw" % " OR ".join("host=%s" % _quote(h) for h in hosts))
        status, body = self._call("search latest ingest_doctor:config", lambda: self.ctx.post(
            "search/jobs", exec_mode="oneshot", output_mode="json", count=0, earliest_time=CONFIG_LOOKBACK,
            latest_time="now", search=spl))
        data = self._json("search latest ingest_doctor:config", status, body)
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

    def _server_name(self) -> Optional[str]:
        if not hasattr(self, "_local_name"):
            status, body = self._call("read server/info", lambda: self.ctx.get(
                "/services/server/info", output_mode="json"))
            names = set()
            for e in rest.entries(body) if status == 200 else []:
                for k in ("serverName", "host", "host_fqdn"):
                    v = e.content.get(k)
                    if v:
                        names.add(str(v))
            self._local_name = names
        return self._local_name  # type: ignore[return-value]

    def local_config(self, host: str, evidence: Evidence) -> bool:
        """REST fallback: only for the splunkd this action runs on."""
        if host not in (self._server_name() or set()):
            return False
        def fetch(ep: Endpoint) -> Fetched:
            status, body = self._call("read " + ep.path, lambda: self.ctx.get("/" + ep.path, **query(ep)), ok=(404,))
            return Fetched(status, body)
        reading = readstep.read(fetch, ALERT_CONFIG, evidence=evidence)
        for fault in reading.faults:
            self.log("WARN", "config", msg="REST configuration not read", path=fault.path, kind=fault.kind,
                     error=fault.message())
        readstep.merge_config(evidence, reading.config)
        return True

    def kv_read(self, keys: Sequence[str]) -> Dict[str, Dict[str, Any]]:
        out: Dict[str, Dict[str, Any]] = {}
        keys = sorted(set(keys))
        for i in range(0, len(keys), KV_READ_CHUNK):       # the query travels in the URL: keep it short
            chunk = keys[i:i + KV_READ_CHUNK]
            status, body = self._call("read KV store %s" % COLLECTION, lambda c=chunk: self.ctx.get(
                "storage/collections/data/%s" % COLLECTION, output_mode="json", query=kv_query(c)))
            data = self._json("read KV store", status, body)
            if not isinstance(data, list):
                raise Transient("KV store %s answered with something that is not a list" % COLLECTION)
            out.update({r["_key"]: r for r in data if isinstance(r, dict) and "_key" in r})
        return out

    def kv_save(self, records: Sequence[Dict[str, Any]]) -> None:
        records = list(records)
        for i in range(0, len(records), KV_SAVE_CHUNK):     # limits.conf [kvstore] max_documents_per_batch_save
            payload = json.dumps(records[i:i + KV_SAVE_CHUNK])
            n = len(records[i:i + KV_SAVE_CHUNK])
            self._call("save %d finding(s) to KV store %s" % (n, COLLECTION), lambda p=payload: self.ctx.post(
                "storage/collections/data/%s/batch_save" % COLLECTION,
                headers=[("Content-Type", "application/json")], body=p))

    def webhook(self, url: str, body: bytes) -> None:
        post_webhook(url, body, self.log, self.sleep, self.backoff)

    def write_events(self, index: str, host: str, bodies: Sequence[str]) -> None:
        """One request per EVENTS_CHUNK events: ingest_doctor:finding breaks events on newlines."""
        for i in range(0, len(bodies), EVENTS_CHUNK):
            chunk = "\n".join(bodies[i:i + EVENTS_CHUNK])
            self._call("write %d ingest_doctor:finding event(s) to index %s" % (len(bodies[i:i + EVENTS_CHUNK]), index),
                       lambda c=chunk: self.ctx.post("receivers/simple", index=index,
                                                     sourcetype="ingest_doctor:finding", source="ingest_doctor_flag",
                                                     host=host or self.host, body=c))


def _detail(body: Any) -> str:
    if isinstance(body, bytes):
        try:
            data = json.loads(body.decode("utf-8"))
            msgs = data.get("messages") if isinstance(data, dict) else None
            if msgs:
                return "; ".join(str(m.get("text", "")) for m in msgs)[:300]
        except (ValueError, UnicodeDecodeError, AttributeError):
            pass
        return body.decode("utf-8", "replace").strip()[:200]
    return ""


def post_webhook(url: str, body: bytes, log: Callable[..., None], sleep: Callable[[float], None] = time.sleep,
                 backoff: float = 0.5) -> None:
    """POST one compact JSON finding; 5xx and network errors are retried, 4xx is the receiver saying no."""
    ctx = ssl.create_default_context()
    host = urlsplit(url).hostname
    last = ""
    for attempt in range(1, ATTEMPTS + 1):
        req = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              "User-Agent": "ingest_doctor_flag/0.1"})
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_S, context=ctx) as resp:  # nosec: https only
                resp.read()
                return
        except urllib.error.HTTPError as e:
            if e.code < 500 and e.code != 429:
                raise BadConfig("webhook at %s refused the finding: HTTP %d" % (host, e.code)) from None
            last = "HTTP %d" % e.code
        except ssl.SSLCertVerificationError as e:
            raise BadConfig("TLS verification of the webhook at %s failed: %s" % (host, e.verify_message or e)) \
                from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, ssl.SSLCertVerificationError):
                raise BadConfig("TLS verification of the webhook at %s failed: %s"
                                % (host, reason.verify_message or reason)) from None
            last = str(reason)
        except (OSError, socket.timeout) as e:
            last = "%s: %s" % (type(e).__name__, e)
        log("WARN", "webhook", msg="post failed", host=host, attempt=attempt, error=last)
        if attempt < ATTEMPTS:
            sleep(backoff * (2 ** (attempt - 1)))
    raise Transient("webhook at %s failed %d times (last: %s); the findings are in the KV store and the "
                    "event index already" % (host, ATTEMPTS, last))
