"""Issue 40's webhook delivery faults, against loopback fakes that behave as the real peers do:
- a receiver that hangs up before or during the TLS handshake (restarting, a load balancer without a
  healthy backend) is a network fault, retried with backoff, by the one client (the action's path,
  webhook.send) and by the collector's notifier; a certificate that does not verify is still refused;
- a storage/passwords 503 at the collector's settings refresh keeps the last good auth header;
- a finding that opens while the settings cannot be read (the first read failed) is sent once they are;
- one notification that keeps failing moves behind the others (the bound outbox.py states);
- an outbox file that is a link to /dev/zero, or a FIFO, is moved aside, the collector starts."""
from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import time

import pytest

from fakes.collector_run import SETTINGS_PATH
from fakes.hookreceiver import HangUp, HookReceiver
from fakes.splunkd import FakeSplunkd, Response, envelope, wait_for
from ingest_doctor.delivery import outbound, outbox
from ingest_doctor.delivery.messages import Change
from ingest_doctor.findings import Finding
from ingest_doctor_ports import notifier as notifier_mod, webhook
from ingest_doctor_ports.splunkd import Http, unverified

from fakes.instance import webhook_passwords_atom

KEY = "0123456789abcdef-fake-session-key"
SECRET = "Bearer s3cr3t-hook-token"
PASSWORDS = "/servicesNS/nobody/TA-ingest_doctor/storage/passwords"
BIN = os.path.join(os.path.dirname(__file__), "..", "..", "bin")


def _finding(n: int, severity: str = "critical") -> Finding:
    return Finding("indexing", severity, "hf-01", n, "indexerpipe", "indexQueue blocked %d" % n)


@pytest.mark.parametrize("mode", ["before", "during"])
def test_a_receiver_hanging_up_at_the_handshake_is_retried_then_sent(tls, mode):
    """The action's path (webhook.send, what `--execute` calls): attempt 1 meets the hang-up, the
    receiver is back on the same port during the backoff, attempt 2 is delivered."""
    hang = HangUp(mode)
    rec = HookReceiver(tls, port=hang.port)
    ctx = ssl.create_default_context(cafile=tls[0])
    waits = []

    def back_up(wait):
        waits.append(wait)
        if hang.accepted and rec.server is None:
            hang.close()
            rec.start()
    try:
        out = webhook.send("https://127.0.0.1:%d/hook" % hang.port, b'{"id":"x"}', outbound.parse_allow("127.0.0.1"),
                           attempts=3, backoff=0.1, sleep=back_up, context=ctx)
    finally:
        hang.close()
        rec.stop()
    assert out.kind == "sent" and out.attempts == 2, out
    assert len(rec.bodies) == 1 and len(waits) == 1 and hang.accepted == 1


def test_a_certificate_that_does_not_verify_is_still_refused(tls):
    with HookReceiver(tls) as rec:
        out = webhook.send(rec.url, b"{}", outbound.parse_allow("127.0.0.1"), attempts=3, backoff=0.01,
                           sleep=lambda s: None, context=ssl.create_default_context())
    assert out.kind == "refused" and out.reason.startswith("tls") and out.attempts == 1 and rec.seen == []


@pytest.mark.parametrize("mode", ["before", "during"])
def test_the_collector_retries_a_hang_up_at_the_handshake(tls, tmp_path, monkeypatch, mode):
    monkeypatch.setenv(notifier_mod.BACKOFF_ENV, "0.5")
    hang = HangUp(mode)
    rec = HookReceiver(tls, port=hang.port)
    ctx = ssl.create_default_context(cafile=tls[0])
    url = "https://127.0.0.1:%d/hook" % hang.port
    settings = outbox.Settings(url, "warning", tuple(outbound.parse_allow("127.0.0.1")))

    def post(url, body, allow, headers, timeout):
        got = webhook.post(url, body, allow, headers, timeout, context=ctx)
        if hang.accepted and rec.server is None:       # the receiver is back before the retry
            hang.close()
            rec.start()
        return got
    n = notifier_mod.Notifier(str(tmp_path), "hf-01", lambda: (settings, None, None), post)
    n.start()
    try:
        assert wait_for(lambda: n.read_once, 10)
        n.submit([Change(_finding(i), "new") for i in range(4)], time.time())
        assert wait_for(lambda: len(rec.bodies) == 4, 20), [l.message for l in n.logs]
    finally:
        n.close()
        hang.close()
        rec.stop()
    logs = " ".join(l.message for l in n.drain_logs())
    assert "will retry" in logs and "dropped" not in logs
    assert [b["id"] for b in rec.bodies] == ["hf-01/indexing/%d" % i for i in range(4)]


def _settings_route(fake, url):
    return envelope(SETTINGS_PATH.rsplit("/", 1)[0], [("webhook", {
        "url": url, "min_severity": "warning", "allow_targets": "127.0.0.1", "auth_header": "******"})])


def _notifier(fake, tmp_path, tls):
    http = Http(5.0, {"splunkd": unverified()})
    ctx = ssl.create_default_context(cafile=tls[0])

    def post(url, body, allow, headers, timeout):
        return webhook.post(url, body, allow, headers, timeout, context=ctx)
    return notifier_mod.Notifier(str(tmp_path), "hf-01", notifier_mod.settings_reader(http, fake.url, KEY), post)


def _drain(n, rec, want):
    """Run the worker's turns in this thread until the receiver has `want` bodies."""
    end = time.time() + 15
    while len(rec.bodies) < want and time.time() < end:
        with n.cond:
            empty = not n.box.entries
        if empty:
            break
        n._step()
    return len(rec.bodies)


def test_a_storage_passwords_503_at_the_refresh_keeps_the_auth_header(tls, tmp_path):
    with FakeSplunkd(tls) as fake, HookReceiver(tls) as rec:
        fake.route("GET", SETTINGS_PATH, _settings_route(fake, rec.url))
        fake.route("GET", PASSWORDS, lambda req: Response(200, webhook_passwords_atom(fake.url, SECRET),
                                                          content_type="text/xml; charset=UTF-8"))
        n = _notifier(fake, tmp_path, tls)
        n._refresh(force=True)
        n.submit([Change(_finding(1), "new")], time.time())
        assert _drain(n, rec, 1) == 1
        fake.route("GET", PASSWORDS, Response(503, '{"messages":[{"type":"ERROR","text":"busy"}]}'))
        n._refresh(force=True)                              # the hiccup
        n.submit([Change(_finding(2), "new")], time.time())
        assert _drain(n, rec, 2) == 2
    assert [h.get("Authorization") for h in rec.headers] == [SECRET, SECRET]
    logs = " ".join(l.message for l in n.drain_logs())
    assert "auth header not read" in logs and SECRET not in logs


def test_a_finding_opened_while_the_first_settings_read_fails_is_sent_once_read(tls, tmp_path):
    with FakeSplunkd(tls) as fake, HookReceiver(tls) as rec:
        fake.route("GET", SETTINGS_PATH, Response(503, '{"messages":[{"type":"ERROR","text":"busy"}]}'))
        fake.route("GET", PASSWORDS, lambda req: Response(200, webhook_passwords_atom(fake.url, SECRET),
                                                          content_type="text/xml; charset=UTF-8"))
        n = _notifier(fake, tmp_path, tls)
        n._refresh(force=True)                              # the first read fails
        assert n.read_once and n.settings is None
        n.submit([Change(_finding(1), "new")], time.time())
        for i in range(notifier_mod.EARLY_MAX + 5):         # bounded: the oldest polls go first
            n.submit([Change(_finding(100 + i), "new")], time.time())
        assert len(n.early) == notifier_mod.EARLY_MAX
        fake.route("GET", SETTINGS_PATH, _settings_route(fake, rec.url))
        n._refresh(force=True)
        assert _drain(n, rec, notifier_mod.EARLY_MAX) == notifier_mod.EARLY_MAX
    ids = [b["id"] for b in rec.bodies]
    assert ids == ["hf-01/indexing/%d" % (105 + i) for i in range(notifier_mod.EARLY_MAX)]
    assert all(h.get("Authorization") == SECRET for h in rec.headers)


def test_a_first_read_that_fails_is_tried_again_soon(tmp_path, monkeypatch):
    monkeypatch.setattr(notifier_mod, "SETTINGS_RETRY_S", 0.2)
    calls = []

    def read():
        calls.append(time.time())
        return None, None, "settings not read: HTTP 503"
    n = notifier_mod.Notifier(str(tmp_path), "hf-01", read)
    n.start()
    try:
        assert wait_for(lambda: len(calls) >= 3, 5), calls
    finally:
        n.close()


def test_one_failing_notification_moves_behind_the_others_after_the_stated_bound():
    box = outbox.Outbox()
    t0 = 1000.0
    a, b = _finding(1), _finding(2)
    box.offer([Change(a, "new")], "hf-01", t0, "warning")
    box.offer([Change(b, "new")], "hf-01", t0, "warning")
    box.offer([Change(a, "resolved", "cleared")], "hf-01", t0, "warning")
    fail = outbound.Verdict("retry", "HTTP 500")
    now = t0
    moved_at = None
    for _ in range(100):
        head = box.head(now)
        if head is None:
            now = now + box.wait_s(now)
            continue
        if head.finding_id != a.id:
            break
        out = box.answered(head, fail, now)
        if out.kind == "moved":
            moved_at = now
        now += 0.001
    assert moved_at is not None
    assert moved_at - t0 >= outbox.HOL_S and moved_at - t0 <= outbox.HOL_S + outbox.BACKOFF_CAP_S
    # b goes first; a's open still precedes its resolve
    assert [(e.finding_id, e.event) for e in box.entries] == [(b.id, "open"), (a.id, "open"), (a.id, "resolved")]
    assert box.answered(box.head(now), outbound.Verdict("sent", "HTTP 200"), now).kind == "sent"
    assert box.entries[0].event == "open" and box.entries[0].finding_id == a.id


def test_a_lone_failing_notification_stays_at_the_head():
    box = outbox.Outbox()
    box.offer([Change(_finding(1), "new")], "hf-01", 0.0, "warning")
    now = 0.0
    for _ in range(20):
        now += 1000.0
        assert box.answered(box.head(now), outbound.Verdict("retry", "HTTP 500"), now).kind == "retry"


@pytest.mark.parametrize("kind", ["devzero", "fifo"])
def test_an_outbox_file_that_is_not_a_regular_file_is_moved_aside(tmp_path, kind):
    """In a process of its own with 1 GB of address space: on a link to /dev/zero a reader without a
    guard dies (MemoryError), on a FIFO it hangs (the timeout)."""
    path = tmp_path / notifier_mod.STATE_FILE
    if kind == "devzero":
        os.symlink("/dev/zero", str(path))
    else:
        os.mkfifo(str(path))
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
            "sys.path.insert(0, %r); from ingest_doctor_ports import notifier as m; "
            "n = m.Notifier(%r, 'hf-01', lambda: (None, None, None)); "
            "print(len(n.box.entries)); print(' '.join(l.message for l in n.drain_logs()))" % (BIN, str(tmp_path)))
    got = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True, timeout=30)
    assert got.returncode == 0, got.stderr[-2000:]
    lines = got.stdout.splitlines()
    assert lines[0] == "0" and "outbox file unreadable" in lines[1] and "not a regular file" in lines[1]
    assert not os.path.lexists(str(path)) and os.path.lexists(str(path) + ".bad")


def test_the_collector_sends_the_others_past_a_failing_notification(tmp_path, monkeypatch):
    """The notifier with the bound shortened: a receiver answering 500 to one body (as webhook.post
    reports it) no longer holds the next two back; the move is logged."""
    monkeypatch.setenv(notifier_mod.BACKOFF_ENV, "0.05")
    monkeypatch.setattr(outbox, "HOL_ATTEMPTS", 2)
    monkeypatch.setattr(outbox, "HOL_S", 0.1)
    got = []

    def post(url, body, allow, headers, timeout):
        fid = json.loads(body)["id"]
        got.append(fid)
        return webhook.Attempt(500 if fid.endswith("/1") else 200, body=b'{"ok":true}')
    settings = outbox.Settings("https://hooks.example.com/x", "warning")
    n = notifier_mod.Notifier(str(tmp_path), "hf-01", lambda: (settings, None, None), post)
    n.start()
    try:
        assert wait_for(lambda: n.read_once, 10)
        n.submit([Change(_finding(i), "new") for i in (1, 2, 3)], time.time())
        assert wait_for(lambda: "hf-01/indexing/3" in got, 10), got
    finally:
        n.close()
    assert [g for g in got if not g.endswith("/1")] == ["hf-01/indexing/2", "hf-01/indexing/3"]
    assert got.count("hf-01/indexing/1") >= 2
    assert "moved behind the other notifications" in " ".join(l.message for l in n.drain_logs())
