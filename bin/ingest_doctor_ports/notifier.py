"""The collector's out-of-band notifier: finding changes to the admin's webhook, off the poll loop.

The poll loop only calls `submit()` (an in-memory decision and one small file write under a lock);
a worker thread makes the calls through the one webhook client (webhook.py), each bounded by its
wall-clock deadline, so a receiver that hangs, trickles or is down never delays a poll. The outbox
(ingest_doctor.delivery.outbox) is kept in `<checkpoint_dir>/webhook_outbox.json`, written
atomically before each attempt and after each answer, so a notification survives a restart of the
collector and an outage of the receiver; each carries `notification_id`, the receiver's
idempotency key for the one case the file cannot cover (the collector killed between a
receiver's 200 and the write).

A snooze set on that tab (snooze_until, at most 7 days ahead, with snooze_reason) holds every post
until it ends; the changes wait in the outbox and go out then. It is this instance's own setting: the
search head's snoozes live in its KV store, which a collector on an indexer or forwarder cannot read
(docs/notifications.md).

The settings are the add-on's Configuration > Webhook tab, read from splunkd by the worker (the
conf stanza, and the encrypted auth header from storage/passwords through solnlib over the
notifier's own splunkd port, so request_timeout bounds it) at start and every SETTINGS_S. The polls'
changes that come while the settings are unknown (before a first read has succeeded: a read still
running, or one that failed) are held (the last EARLY_MAX polls' changes) and offered once a read
succeeds; a failed read is tried again after SETTINGS_RETRY_S. A failed refresh keeps the last good
settings and auth header (a storage/passwords hiccup must not strip the header: the receiver would
answer 401 and the notification be dropped).

The outbox file is read only when it is a regular file of at most STATE_MAX_BYTES: anything else (a
link to /dev/zero, a FIFO, a folder) is moved aside and named in the log, and the collector starts
with an empty outbox.
"""
from __future__ import annotations

import json
import os
import stat
import threading
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple
from urllib.parse import quote

from ingest_doctor.logfmt import LogLine, kv
from ingest_doctor.collector.params import CREDENTIAL_APP
from ingest_doctor.delivery import outbound, outbox
from ingest_doctor.delivery.messages import Change
from ingest_doctor.read import rest
from ingest_doctor.read.endpoints import Fetched
from ingest_doctor_ports import bounded, webhook

STATE_FILE = "webhook_outbox.json"
SETTINGS_S = 60.0
EARLY_MAX = 30              # polls' changes held while the settings are unknown (no read has succeeded yet)
SETTINGS_RETRY_S = 10.0     # a failed read of unknown settings is tried again this soon (not SETTINGS_S)
STATE_MAX_BYTES = 64 << 20  # MAX_ENTRIES bodies of hook_value-bounded texts stay far below
SETTINGS_PATH = "/servicesNS/nobody/%s/configs/conf-ta_ingest_doctor_settings/webhook" % CREDENTIAL_APP
SETTINGS_REALM = "__REST_CREDENTIAL__#%s#configs/conf-ta_ingest_doctor_settings" % CREDENTIAL_APP
TIMEOUT_ENV = "INGEST_DOCTOR_WEBHOOK_TIMEOUT_S"       # tests and benches shorten the wall-clock bound
BACKOFF_ENV = "INGEST_DOCTOR_WEBHOOK_BACKOFF_S"       # and the first retry's wait (doubling, capped at 30x)


def _env_float(name: str) -> Optional[float]:
    try:
        v = float(os.environ.get(name) or 0)
    except ValueError:
        return None
    return v if v > 0 else None

HttpCall = Callable[[str, str, Any, Optional[bytes], str], Fetched]
Post = Callable[..., webhook.Attempt]


def settings_reader(http: HttpCall, server_uri: str, session_key: str
                    ) -> Callable[[], Tuple[Optional[outbox.Settings], Optional[str], Optional[str]]]:
    """() -> (settings or None when not configured, the auth header or None, an error or None); every
    call (the settings, solnlib's read of the encrypted header) over `http`, the notifier's splunkd port."""

    def read() -> Tuple[Optional[outbox.Settings], Optional[str], Optional[str]]:
        f = http("GET", server_uri.rstrip("/") + SETTINGS_PATH + "?output_mode=json",
                 {"Authorization": "Splunk " + session_key}, None, "splunkd")
        if f.status == 404:
            return None, None, None
        if f.error or f.status != 200:
            return None, None, "settings not read: %s" % (f.error or "HTTP %s" % f.status)
        entries = rest.entries(f.body)
        if not entries:
            return None, None, None
        try:
            s = outbox.parse_settings(entries[0].content, time.time())
        except ValueError as e:
            return None, None, "webhook setting refused: %s" % e
        header = None
        if s.on and s.auth_header_set:
            try:       # solnlib over this port (bounded.py): request_timeout cuts a hung or trickling splunkd
                value = json.loads(bounded.password(http, server_uri, session_key, CREDENTIAL_APP, SETTINGS_REALM,
                                                    "webhook"))
                header = str(value.get("auth_header") or "") or None if isinstance(value, dict) else None
            except Exception as e:     # storage/passwords is outside us: say so, send without the header
                return s, None, "auth header not read from storage/passwords: %s" % (
                    ("%s: %s" % (type(e).__name__, e))[:200] if isinstance(e, OSError) else type(e).__name__)
        return s, header, None
    return read


def _read_state(path: str) -> str:
    """The outbox file's text: a regular file of at most STATE_MAX_BYTES, or OSError/ValueError. Opened
    without blocking (a FIFO) and checked on the open descriptor (no swap between check and read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file (mode %o)" % stat.S_IFMT(st.st_mode))
        data = f.read(STATE_MAX_BYTES + 1)
    if len(data) > STATE_MAX_BYTES:
        raise ValueError("larger than %d bytes" % STATE_MAX_BYTES)
    return data.decode("utf-8")


class Notifier:
    def __init__(self, checkpoint_dir: str, host: Optional[str],
                 read_settings: Callable[[], Tuple[Optional[outbox.Settings], Optional[str], Optional[str]]],
                 post: Post = webhook.post, clock: Callable[[], float] = time.time,
                 timeout: Optional[float] = None):
        self.path = os.path.join(checkpoint_dir, STATE_FILE)
        self.host = host
        self.read_settings = read_settings
        self.post = post
        self.clock = clock
        self.timeout = timeout or _env_float(TIMEOUT_ENV) or outbound.TIMEOUT_S
        self.backoff = _env_float(BACKOFF_ENV) or outbox.BACKOFF_S
        self.cond = threading.Condition()
        self.logs: List[LogLine] = []
        self.settings: Optional[outbox.Settings] = None
        self.header: Optional[str] = None
        self.settings_at = -1e18
        self.read_once = False          # the worker's first read of the settings has ended (well or not)
        self.known = False              # a read has succeeded: the settings (or their absence) are known
        self.early: List[Tuple[List[Change], float]] = []      # the polls' changes while not known
        self.stopping = False
        self.snooze_said = 0.0          # the snooze (its end) the log has announced
        self.box = self._load()
        self.thread: Optional[threading.Thread] = None

    # ------------------------------------------------------------------ state file
    def _load(self) -> outbox.Outbox:
        try:
            box = outbox.Outbox.loads(_read_state(self.path))
            if box.entries:
                self._log("INFO", "webhook", msg="outbox restored", pending=len(box.entries))
            return box
        except FileNotFoundError:
            return outbox.Outbox()
        except (OSError, ValueError, TypeError) as e:
            bad = self.path + ".bad"
            try:
                os.replace(self.path, bad)    # a link is moved itself, never what it points to
            except OSError:
                pass
            self._log("WARN", "webhook", msg="outbox file unreadable, starting empty", moved_to=bad,
                      error=type(e).__name__, detail=str(e)[:200])
            return outbox.Outbox()

    def _save(self) -> None:
        tmp = self.path + ".tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(self.box.dumps())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as e:
            self._log("WARN", "webhook", msg="outbox not saved", path=self.path, error=str(e)[:200])

    def _log(self, severity: str, category: str, **fields: Any) -> None:
        self.logs.append(LogLine(severity, kv(category, **fields)))

    # ------------------------------------------------------------------ the poll loop's side
    def start(self) -> None:
        """Start the worker; its first turn reads the settings (a hung splunkd never delays a poll)."""
        self.thread = threading.Thread(target=self._run, name="ingest_doctor_webhook", daemon=True)
        self.thread.start()

    def submit(self, changes: Sequence[Change], now: float) -> None:
        """This poll's finding changes: queued (and saved) at once; never waits for the network."""
        if not changes:
            return
        with self.cond:
            s = self.settings
            if not self.known:              # the settings are being read (or failed): offered when known
                self.early = (self.early + [(list(changes), now)])[-EARLY_MAX:]
                return
            if s is None or not s.on:
                return
            added = self.box.offer(changes, self.host, now, s.min_severity)
            if added:
                self._save()
                self.cond.notify_all()

    def drain_logs(self) -> List[LogLine]:
        with self.cond:
            out, self.logs = self.logs, []
        return out

    def close(self) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify_all()

    # ------------------------------------------------------------------ the worker
    def _refresh(self, force: bool = False) -> None:
        now = self.clock()
        due = SETTINGS_S if self.known else SETTINGS_RETRY_S
        if not force and now - self.settings_at < due:
            return
        self.settings_at = now
        s, header, error = self.read_settings()          # outside the lock: a network call
        with self.cond:
            self.read_once = True
            if error:
                self._log("WARN", "webhook", msg=error)
            if s is None and error:
                return                    # keep the last good settings; unknown ones keep their early changes
            if error and header is None and s is not None and s.auth_header_set and self.settings is not None \
                    and self.settings.url == s.url:
                header = self.header      # storage/passwords failed: the last good header, for the same URL
            early, self.early, self.known = self.early, [], True
            before = self.settings
            self.settings, self.header = s, header
            if (before is None or before.url != (s.url if s else None)) and s is not None and s.on:
                target = outbound.parse_url(s.url or "")
                self._log("INFO", "webhook", msg="notifying", target="%s://%s:%d" % (target.scheme, target.host,
                                                                                   target.port),
                          min_severity=s.min_severity, pending=len(self.box.entries))
            if s is not None and s.on and early:
                if [e for changes, at in early for e in self.box.offer(changes, self.host, at, s.min_severity)]:
                    self._save()

    def _run(self) -> None:
        while not self.stopping:
            try:
                self._step()
            except Exception as e:     # a bug must not end notifying: say so, go on after a pause
                with self.cond:
                    self._log("ERROR", "webhook", msg="notifier error", error=type(e).__name__,
                              detail=str(e)[:200])
                    self.cond.wait(SETTINGS_S)

    def _step(self) -> None:
        """One turn: refresh the settings when due, then wait for the head or attempt it."""
        self._refresh()
        with self.cond:
            if self.stopping:
                return
            now = self.clock()
            for e in self.box.expire(now):
                self._log("WARN", "webhook", msg="notification expired unsent", id=e.finding_id,
                          event=e.event, attempts=e.attempts, error=e.last_error)
            on = self.settings is not None and self.settings.on
            snoozed = on and self.settings is not None and self.settings.snoozed(now)
            if snoozed and self.settings is not None and self.snooze_said != self.settings.snooze_until:
                self.snooze_said = self.settings.snooze_until
                self._log("INFO", "webhook", msg="snoozed: notifications wait in the outbox until it ends",
                          until=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.settings.snooze_until)),
                          reason=self.settings.snooze_reason[:200], pending=len(self.box.entries))
            entry = self.box.head(now) if on and not snoozed else None
            if entry is None:
                wait = self.box.wait_s(now) if on else None
                if snoozed and self.settings is not None:      # wake when it ends (or the settings are due)
                    wait = max(0.0, self.settings.snooze_until - now)
                idle = SETTINGS_S if self.known else SETTINGS_RETRY_S
                self.cond.wait(min(wait, idle) if wait is not None else idle)
                return
            s, header = self.settings, self.header
            assert s is not None and s.url
            payload = json.dumps(entry.body, separators=(",", ":")).encode("utf-8")
        headers = webhook.auth_headers(header)
        headers["Idempotency-Key"] = quote(entry.key, safe=":/-_.~")
        attempt = self.post(s.url, payload, s.allow, headers, self.timeout)
        with self.cond:
            out = self.box.answered(entry, attempt.verdict(), self.clock(), self.backoff,
                                   max(self.backoff * 30, self.backoff))
            self._save()
            if out.kind == "sent":
                self._log("INFO", "webhook", msg="sent", id=entry.finding_id, event=entry.event,
                          attempts=entry.attempts + 1, notification_id=entry.key)
            elif out.kind == "retry":
                self._log("WARN", "webhook", msg="post failed, will retry", id=entry.finding_id,
                          event=entry.event, attempt=entry.attempts, error=out.reason[:200],
                          retry_in_s=round(out.wait_s, 1))
            elif out.kind == "moved":
                self._log("WARN", "webhook", msg="post keeps failing, moved behind the other notifications",
                          id=entry.finding_id, event=entry.event, attempt=entry.attempts, error=out.reason[:200],
                          pending=len(self.box.entries))
            else:
                self._log("ERROR", "webhook", msg="notification dropped: the receiver refused it",
                          id=entry.finding_id, event=entry.event, error=out.reason[:300],
                          action="fix the webhook URL or receiver on Configuration > Webhook")
