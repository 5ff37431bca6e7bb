"""The collector's webhook outbox as a pure state machine (ingest_doctor/delivery/outbox.py):
minimum severity, deduplication per finding id (also across a restart: the saved state), throttling
of a flapping finding, order, retries with backoff and Retry-After, refusals dropped, the bound."""
from __future__ import annotations

import pytest

from ingest_doctor.delivery import outbound, outbox
from ingest_doctor.delivery.messages import Change
from ingest_doctor.delivery.outbox import Outbox, parse_settings
from ingest_doctor.findings import Finding

SENT = outbound.Verdict("sent", "HTTP 200")
FAIL = outbound.Verdict("retry", "HTTP 500")


def f(sev="warning", host="hf-01", bottleneck="indexing", pset=0):
    return Finding(bottleneck, sev, host, pset, "indexerpipe", "indexQueue full")


def events(box):
    return [(e.finding_id, e.event) for e in box.entries]


def test_open_escalate_resolve_once_each_and_restart_does_not_repeat():
    box = Outbox()
    box.offer([Change(f(), "new")], "hf-01", 100.0, "warning")
    box.offer([Change(f(), "new")], "hf-01", 110.0, "warning")               # told already (a restart)
    box.offer([Change(f("critical"), "escalated")], "hf-01", 120.0, "warning")
    box.offer([Change(f("warning"), "new")], "hf-01", 125.0, "warning")      # lower: nothing new to tell
    box.offer([Change(f(), "resolved", "resolved: the signal is gone")], "hf-01", 130.0, "warning")
    box.offer([Change(f(), "resolved")], "hf-01", 131.0, "warning")          # told already
    assert events(box) == [("hf-01/indexing/0", "open"), ("hf-01/indexing/0", "escalated"),
                           ("hf-01/indexing/0", "resolved")]
    again = Outbox.loads(box.dumps())
    assert events(again) == events(box) and again.told == box.told
    again.offer([Change(f(), "resolved")], "hf-01", 132.0, "warning")
    assert len(again.entries) == 3
    body = again.entries[2].body
    assert body["status"] == "resolved" and body["resolution"] == "resolved: the signal is gone"
    assert body["notification_id"] == again.entries[2].key and body["detected_by"] == "collector"


def test_minimum_severity_and_its_resolve():
    box = Outbox()
    box.offer([Change(f("warning"), "new")], "hf-01", 100.0, "critical")
    box.offer([Change(f("warning"), "resolved")], "hf-01", 200.0, "critical")
    assert box.entries == []
    box.offer([Change(f("critical", pset=1), "new")], "hf-01", 100.0, "critical")
    assert events(box) == [("hf-01/indexing/1", "open")]


def test_flapping_finding_pages_once_within_the_throttle():
    box = Outbox()
    box.offer([Change(f(), "new")], "hf-01", 0.0, "warning")
    box.offer([Change(f(), "resolved")], "hf-01", 60.0, "warning")
    box.offer([Change(f(), "new")], "hf-01", 120.0, "warning")           # reopened within THROTTLE_S
    box.offer([Change(f(), "resolved")], "hf-01", 180.0, "warning")      # and its resolve: not told
    assert [e for _, e in events(box)] == ["open", "resolved"]
    box.offer([Change(f(), "new")], "hf-01", outbox.THROTTLE_S + 1, "warning")
    assert [e for _, e in events(box)] == ["open", "resolved", "open"]


def test_head_of_line_order_backoff_retry_after_and_refusal():
    box = Outbox()
    box.offer([Change(f(pset=0), "new"), Change(f(pset=1), "new")], "hf-01", 0.0, "warning")
    first = box.head(0.0)
    assert first is not None and first.finding_id == "hf-01/indexing/0"
    out = box.answered(first, FAIL, 0.0, base=2.0, cap=60.0)
    assert out.kind == "retry" and out.wait_s == 2.0 and box.head(1.0) is None and box.wait_s(1.0) == 1.0
    out = box.answered(first, outbound.Verdict("retry", "HTTP 503", 30.0), 2.0, base=2.0, cap=60.0)
    assert out.wait_s == 30.0                                            # Retry-After beats the 4 s backoff
    assert box.head(31.9) is None and box.head(32.0) is first            # the second waits behind it
    assert box.answered(first, SENT, 32.0).kind == "sent"
    second = box.head(32.0)
    assert second is not None and second.finding_id == "hf-01/indexing/1"
    out = box.answered(second, outbound.Verdict("redirect", "HTTP 302 redirect to http://x/"), 33.0)
    assert out.kind == "dropped" and box.entries == [] and (box.sent, box.dropped) == (1, 1)


def test_bounded_and_expiring():
    box = Outbox()
    box.offer([Change(f(host="h%d" % i), "new") for i in range(outbox.MAX_ENTRIES + 5)], None, 0.0, "warning")
    assert len(box.entries) == outbox.MAX_ENTRIES and box.dropped == 5
    assert box.entries[0].finding_id == "h5/indexing/0"
    assert len(box.expire(outbox.MAX_AGE_S + 1)) == outbox.MAX_ENTRIES and box.entries == []


def test_settings_from_the_configuration_page():
    s = parse_settings({"url": "https://hooks.example.com/x", "min_severity": "critical", "auth_header": "******"})
    assert s.on and s.min_severity == "critical" and s.auth_header_set
    assert not parse_settings({"url": ""}).on
    with pytest.raises(outbound.Refused, match="loopback"):
        parse_settings({"url": "https://localhost/x"})
    assert parse_settings({"url": "https://localhost:9000/x", "allow_targets": "localhost"}).on
    with pytest.raises(outbound.Refused, match="min_severity"):
        parse_settings({"url": "https://hooks.example.com/x", "min_severity": "info"})
    with pytest.raises(ValueError):
        Outbox.loads('{"version": 99}')
