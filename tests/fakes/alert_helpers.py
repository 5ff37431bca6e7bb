"""What the alert tests (tests/alert/) share beyond their fixtures: the webhook receiver's allow-list and
secret, and the form views' check that a page ran clean."""
from __future__ import annotations

# The webhook policy refuses loopback targets unless the admin-only allow-list names them: the tests'
# receiver is the loopback fake, so they name it as an admin would (splunk-launch.conf).
LOOPBACK_HOOK = {"INGEST_DOCTOR_WEBHOOK_ALLOW": "127.0.0.1"}
SECRET = "tok-7f3a9c-do-not-leak"          # a receiver's token in its webhook URL: never to appear in clear
STORED = "ingest_doctor:webhook_url:"      # the webhook URL's storage/passwords entry (realm:name:)


def clean_page(browser, web):
    """No request left the page for another site, no script error, no write refused for its CSRF header;
    returns the browser's report."""
    r = browser.report()
    assert r["external"] == [] and r["errors"] == [], r
    assert web.csrf_refused == 0
    return r
