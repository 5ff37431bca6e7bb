"""The collector's notifier reads the add-on's Configuration > Webhook tab as Splunk stores it: the
conf stanza from splunkd (configs/conf-ta_ingest_doctor_settings/webhook) and the encrypted auth
header from storage/passwords (solnlib), against the loopback HTTPS fake splunkd; a refused target
in the settings is said, not used; the header reaches the receiver, never a log line."""
from __future__ import annotations

import time

from fakes.collector_run import SETTINGS_PATH
from fakes.instance import SESSION_KEY as KEY, webhook_passwords_atom
from fakes.splunkd import FakeSplunkd, Response, envelope, trickle, wait_for
from fakes.hookreceiver import HookReceiver
from ingest_doctor.delivery.messages import Change
from ingest_doctor.findings import Finding

SECRET = "Bearer s3cr3t-hook-token"


def _serve(fake, url, allow="127.0.0.1", header="******"):
    fake.route("GET", SETTINGS_PATH, envelope(SETTINGS_PATH.rsplit("/", 1)[0], [("webhook", {
        "url": url, "min_severity": "critical", "allow_targets": allow, "auth_header": header})]))
    fake.route("GET", "/servicesNS/nobody/TA-ingest_doctor/storage/passwords",
               lambda req: Response(200, webhook_passwords_atom(fake.url, SECRET),
                                    content_type="text/xml; charset=UTF-8"))


def test_settings_and_encrypted_header_reach_the_receiver(tls, make_notifier):
    with FakeSplunkd(tls) as fake, HookReceiver(tls) as rec:
        _serve(fake, rec.url)
        n = make_notifier(fake)
        n.start()
        assert wait_for(lambda: n.read_once, 15)
        assert n.settings is not None and n.settings.min_severity == "critical" and n.header == SECRET
        warn = Finding("indexing", "warning", "hf-01", 0, "indexerpipe", "indexQueue 91% full")
        crit = Finding("indexing", "critical", "hf-01", 1, "indexerpipe", "indexQueue blocked")
        n.submit([Change(warn, "new"), Change(crit, "new")], time.time())      # the warning: below the floor
        assert wait_for(lambda: len(rec.bodies) == 1, 15), [l.message for l in n.logs]
        # the receiver has the body before the worker reads its answer and logs it
        assert wait_for(lambda: any("sent" in l.message for l in list(n.logs)), 15), [l.message for l in n.logs]
        n.close()
        assert rec.bodies[0]["id"] == "hf-01/indexing/1" and rec.headers[0]["Authorization"] == SECRET
        assert rec.headers[0]["Idempotency-Key"] == rec.bodies[0]["notification_id"]
        logs = " ".join(line.message for line in n.drain_logs())
        assert "category=webhook" in logs and "sent" in logs and SECRET not in logs and KEY not in logs


def test_refused_target_in_the_settings_is_said_and_not_used(fake_splunkd, make_notifier):
    _serve(fake_splunkd, "https://169.254.169.254/latest/meta-data", allow="", header="")
    n = make_notifier(fake_splunkd)
    n.start()
    assert wait_for(lambda: n.read_once, 15)
    n.close()
    assert n.settings is None
    logs = " ".join(line.message for line in n.drain_logs())
    assert "webhook setting refused" in logs and "metadata" in logs


def test_a_trickling_storage_passwords_is_cut_at_the_port_timeout_off_the_poll_path(tls, make_notifier):
    """storage/passwords sends its answer a byte a second: the notifier's start returns at once, the
    header read (solnlib over the notifier's port) ends at the port's timeout and is said, and the
    changes a poll submitted meanwhile go out (without the header) once the settings are known."""
    with FakeSplunkd(tls) as fake, HookReceiver(tls) as rec:
        _serve(fake, rec.url)
        fake.route("GET", "/servicesNS/nobody/TA-ingest_doctor/storage/passwords",
                   lambda req: trickle(Response(200, webhook_passwords_atom(fake.url, SECRET),
                                                content_type="text/xml")))
        n = make_notifier(fake, port_timeout=1.0)
        began = time.monotonic()
        n.start()
        crit = Finding("indexing", "critical", "hf-01", 1, "indexerpipe", "indexQueue blocked")
        n.submit([Change(crit, "new")], time.time())            # the first poll's, before the settings
        assert time.monotonic() - began < 0.5 and not n.read_once
        assert wait_for(lambda: n.read_once, 15)
        read_s = time.monotonic() - began
        assert wait_for(lambda: len(rec.bodies) == 1, 15), [l.message for l in n.logs]
        n.close()
        assert read_s < 4.0, read_s             # the port's 1 s, not the trickle's 200-odd seconds
        assert rec.bodies[0]["id"] == "hf-01/indexing/1" and "Authorization" not in rec.headers[0]
        logs = " ".join(line.message for line in n.drain_logs())
        assert "auth header not read from storage/passwords" in logs and "timeout" in logs, logs
        assert KEY not in logs
