"""The app's notification settings (issue 39): the webhook URL kept encrypted in storage/passwords, read
by the action through its port; the allow-list and the minimum severity in macros that hold no secret.
Run as splunkd runs the action (`--execute`) against the fake splunkd: the URL (with the receiver's secret
token) reaches the receiver and appears in no macro, conf, log line, event or KV record."""

import glob
import os
import re

from ingest_doctor import exitcodes
from fakes.action_run import LOOPBACK_HOOK, queue_row
from fakes.alert_helpers import SECRET, STORED
from fakes.paths import ROOT

ALLOW = {"ingest_doctor_webhook_allow": "127.0.0.1"}     # the loopback receiver, named in the settings


def test_the_stored_webhook_url_is_used_and_appears_nowhere_in_clear(sd, flag_logged):
    sd.macros.update(ALLOW)
    sd.passwords[STORED] = sd.fake.url + "/hook?token=" + SECRET
    p, log = flag_logged(sd.fake, [queue_row()], sid="run1")
    assert [h["id"] for h in sd.hooks] == ["idx-01/typing/1"]
    assert sd.fake.requests_to("/hook")[0].query["token"] == [SECRET]      # the receiver got its secret
    assert "webhooks=1" in p.stderr and "category=done" in log
    for where, text in (("stderr", p.stderr), ("stdout", p.stdout), ("log file", log),
                        ("events", repr(sd.events)), ("KV store", repr(sd.kv.records)),
                        ("Splunk Web messages", repr(sd.messages.posts))):
        assert SECRET not in text and "/hook?" not in text, where
    for req in sd.fake.requests:                                    # nothing the action sent splunkd carries it
        assert SECRET.encode() not in req.body and SECRET not in req.path, req.path


def test_no_shipped_macro_or_conf_holds_a_webhook_url():
    for path in glob.glob(os.path.join(ROOT, "default", "*.conf")) + [os.path.join(ROOT, "metadata", "default.meta")]:
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"(?m)^\s*(definition|param\.webhook_url|action\.[\w.]*webhook[\w.]*)\s*=\s*(\S.*)$", text):
            assert not re.search(r"https?://", m.group(2)), (path, m.group(0))


def test_a_url_an_earlier_version_left_in_the_macro_still_works_with_a_warning(sd, fake_splunkd, flag_logged):
    sd.macros.update(ALLOW, ingest_doctor_webhook_url=fake_splunkd.url + "/hook")
    p, _ = flag_logged(sd.fake, [queue_row()], sid="run1")
    assert len(sd.hooks) == 1 and "the webhook URL is in the macro ingest_doctor_webhook_url" in p.stderr
    assert fake_splunkd.url + "/hook" not in p.stderr


def test_the_stored_url_wins_over_the_old_macro_and_the_env_allow_list_still_counts(sd, flag_logged):
    sd.macros["ingest_doctor_webhook_url"] = "https://old.example.invalid/x"
    sd.passwords[STORED] = sd.fake.url + "/hook"
    p, _ = flag_logged(sd.fake, [queue_row()], LOOPBACK_HOOK, sid="run1")
    assert len(sd.hooks) == 1 and "ingest_doctor_webhook_url" not in p.stderr


def test_a_bad_stored_url_or_allow_list_is_refused_naming_the_setting(sd, flag_logged):
    sd.macros["ingest_doctor_webhook_allow"] = "x:y"
    sd.passwords[STORED] = "http://plain.example.com/" + SECRET
    p, _ = flag_logged(sd.fake, [queue_row()], expect=exitcodes.BAD_CONFIG, sid="run1")
    assert "storage/passwords ingest_doctor:webhook_url" in p.stderr
    assert SECRET not in p.stderr
    sd.passwords[STORED] = sd.fake.url + "/hook"
    p, _ = flag_logged(sd.fake, [queue_row()], expect=exitcodes.BAD_CONFIG, sid="run2")
    assert "ingest_doctor_webhook_allow" in p.stderr, p.stderr
