"""The collector's own snooze (issue 39): the search head's snoozes live in its KV store, which a collector on
an indexer or heavy forwarder cannot read, so the add-on's Configuration > Webhook tab has its own
(snooze_until, snooze_reason). While it runs the notifier posts nothing (the changes wait in the outbox);
when it ends they go out, with no one removing it. Read from the fake splunkd as Splunk stores the tab."""
from __future__ import annotations

import time

import pytest

from fakes.collector_run import SETTINGS_PATH
from fakes.hookreceiver import HookReceiver
from fakes.splunkd import FakeSplunkd, envelope, wait_for
from ingest_doctor.delivery import outbound, outbox
from ingest_doctor.delivery.messages import Change
from ingest_doctor.findings import Finding


def test_a_snoozed_instance_sends_nothing_until_the_snooze_ends(tls, make_notifier):
    until = time.time() + 3.0
    with FakeSplunkd(tls) as fake, HookReceiver(tls) as rec:
        fake.route("GET", SETTINGS_PATH, envelope(SETTINGS_PATH.rsplit("/", 1)[0], [("webhook", {
            "url": rec.url, "min_severity": "warning", "allow_targets": "127.0.0.1", "auth_header": "",
            "snooze_until": "%.3f" % until, "snooze_reason": "CHG-1234 rolling restart"})]))
        n = make_notifier(fake)
        n.start()
        assert wait_for(lambda: n.read_once, 15)
        crit = Finding("indexing", "critical", "hf-01", 1, "indexerpipe", "indexQueue blocked")
        n.submit([Change(crit, "new")], time.time())
        time.sleep(max(0.0, until - time.time() - 1.0))
        assert rec.bodies == [] and len(n.box.entries) == 1          # held in the outbox
        assert wait_for(lambda: len(rec.bodies) == 1, 15)            # the snooze ended: sent
        assert time.time() >= until
        n.close()
        logs = " ".join(line.message for line in n.drain_logs())
        assert "snoozed: notifications wait in the outbox" in logs and "CHG-1234 rolling restart" in logs
        assert rec.bodies[0]["id"] == "hf-01/indexing/1"


@pytest.mark.parametrize("content, words", [
    ({"snooze_until": "+8d", "snooze_reason": "CHG-1"}, "at most 7 days"),
    ({"snooze_until": "+1h"}, "snooze_reason is required"),
    ({"snooze_until": "soon", "snooze_reason": "CHG-1"}, "snooze_until: until='soon'"),
])
def test_a_bad_snooze_setting_is_refused_naming_it(content, words):
    with pytest.raises(outbound.Refused, match=words):
        outbox.parse_settings(dict(content, url="https://hooks.example.com/x"), 1_800_000_000.0)


def test_an_ended_snooze_holds_nothing_and_a_running_one_says_until_when():
    now = 1_800_000_000.0
    s = outbox.parse_settings({"url": "https://hooks.example.com/x", "snooze_until": "%d" % (now - 1),
                               "snooze_reason": "CHG-1"}, now)
    assert not s.snoozed(now)
    s = outbox.parse_settings({"url": "https://hooks.example.com/x", "snooze_until": "+2h", "snooze_reason": "CHG-1"},
                              now)
    assert s.snoozed(now) and s.snooze_until == now + 7200 and not s.snoozed(now + 7200)
