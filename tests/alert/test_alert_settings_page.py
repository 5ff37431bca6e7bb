"""The Notifications page (issue 39): the Simple XML view ingest_doctor_notifications and its script, run in
headless Chromium against the fake Splunk Web in front of the fake splunkd. What it writes is what the
ingest_doctor_flag action then reads, run as splunkd runs it (`--execute`): the webhook URL only in
storage/passwords (never echoed, never in a macro), the allow-list and the minimum severity in their
macros. A URL the action would refuse is refused on the page in the action's words, before any write;
splunkd's 403 is shown as it came."""

import ssl
import urllib.error
import urllib.request

import pytest

from ingest_doctor.alert.payload import BadConfig, validate_webhook_url
from ingest_doctor.delivery import outbound
from fakes.action_run import HF_CONFIG, queue_row
from fakes.alert_helpers import SECRET, STORED, clean_page
from fakes.kvstore import NS, Splunkd

ALLOW = "ingest_doctor_webhook_allow"
SEVERITY = "ingest_doctor_min_severity"


@pytest.fixture
def site(fake_splunkd, splunk_web, browser):
    """`site(opened=True, **kw)`: (the fake splunkd's search-head routes, the Splunk Web in front of it, the
    status the page shows once opened there, or None when not opened); a test sets the user."""
    def make(opened=True, **kw):
        sd, web = Splunkd(fake_splunkd, configs={"hf-01": HF_CONFIG}, **kw), splunk_web(fake_splunkd)
        return sd, web, open_page(browser, web) if opened else None
    return make


def open_page(browser, web):
    browser.goto(web.view_url("ingest_doctor_notifications"))
    return browser.wait_text("#idr-status", r"Settings read|Not allowed|refused")


def save(browser, expect=r"Saved|Nothing|refused|Not allowed|must|has no|not a|resolves|points|loopback|out of range",
         url=None, allow=None):
    """Fill the allow-list and the URL given (in that order), save, and return what the page answers."""
    if allow is not None:
        browser.fill("#idr-allow", allow)
    if url is not None:
        browser.fill("#idr-url", url)
    browser.click("#idr-save")
    return browser.wait_text("#idr-result", expect)


# ---------------------------------------------------------------------------- store, replace, clear
def test_a_url_saved_on_the_page_is_kept_only_in_passwords(site, browser):
    sd, web, status = site()
    assert status == "Settings read from this search head."
    assert browser.text("#idr-url-state") == "not set"
    assert browser.value("#idr-allow") == "" and browser.value("#idr-severity") == "warning"
    url = sd.fake.url + "/hook?token=" + SECRET
    browser.fill("#idr-url", url)
    browser.fill("#idr-allow", "127.0.0.1")        # the loopback receiver, named as an admin would
    browser.select("#idr-severity", "critical")
    assert save(browser).startswith("Saved: allow-list 127.0.0.1, minimum severity critical, webhook URL stored")
    assert sd.passwords == {STORED: url}
    assert sd.passwords_written == ["POST %s/storage/passwords" % NS]          # created: it did not exist
    assert sd.macros[ALLOW] == "127.0.0.1" and sd.macros[SEVERITY] == "critical"
    assert browser.text("#idr-url-state") == "set" and browser.value("#idr-url") == ""

    # reopened: "set", and the URL never reaches the page (splunkd is asked for the names only)
    open_page(browser, web)
    assert browser.text("#idr-url-state") == "set"
    report = clean_page(browser, web)
    assert SECRET not in browser.html() and SECRET not in repr(report["console"])
    reads = [r for r in web.requests if r["method"] == "GET" and "storage/passwords" in r["path"]]
    assert reads and all("f=realm" in r["query"] and "f=username" in r["query"] for r in reads)
    assert not any(SECRET in v for v in sd.macros.values())
    # The action run over these settings (this URL in storage/passwords, the allow-list 127.0.0.1, severity
    # back to warning) posts to it and logs it nowhere: test_alert_notification_settings' first test.


def test_replace_and_clear_the_stored_url(site, browser, flag_logged):
    sd, web, _ = site(opened=False, macro_overrides={ALLOW: "127.0.0.1"})
    sd.passwords[STORED] = "https://old.example.com/x"
    open_page(browser, web)
    assert browser.text("#idr-url-state") == "set" and browser.value("#idr-allow") == "127.0.0.1"
    new = sd.fake.url + "/hook"
    assert save(browser, url=new) == "Saved: webhook URL stored (encrypted). The alerts use them from their next run."
    assert sd.passwords == {STORED: new}
    assert sd.passwords_written == ["POST %s/storage/passwords/ingest_doctor%%3Awebhook_url%%3A" % NS]   # updated
    flag_logged(sd.fake, [queue_row()], sid="run1")
    assert len(sd.hooks) == 1

    browser.click("#idr-clear-url")
    assert browser.wait_text("#idr-result", "cleared").startswith("The stored webhook URL is cleared")
    assert sd.passwords == {} and browser.text("#idr-url-state") == "not set"
    flag_logged(sd.fake, [queue_row()], sid="run2")
    assert len(sd.hooks) == 1                                                  # no webhook any more
    clean_page(browser, web)


def test_a_url_created_meanwhile_by_someone_else_is_updated_not_duplicated(site, browser):
    sd, web, _ = site()                              # read: not set
    sd.passwords[STORED] = "https://other.example.com/y"   # another admin stores one now
    assert save(browser, url="https://hooks.example.com/new").startswith("Saved: webhook URL stored")
    assert sd.passwords == {STORED: "https://hooks.example.com/new"}
    assert [w.split()[1].endswith("passwords") for w in sd.passwords_written] == [True, False]  # 409, then update


# ---------------------------------------------------------------------------- refused on the page
def action_words(url, allow_text=""):
    """What the ingest_doctor_flag action says of `url` (stored in the settings) with this allow-list:
    validate_webhook_url's words, then the outbound policy's for a target it judges before resolving a
    name (webhook.send: check_target, then check_address for a target written as an address)."""
    try:
        validate_webhook_url(url)
    except BadConfig as e:
        return str(e)
    entries = outbound.parse_allow(allow_text)
    target = outbound.parse_url(url)
    try:
        outbound.check_target(target, entries)
        addr = outbound.address_of(target.host)
        if addr is not None:
            outbound.check_address(target, addr, entries)
    except outbound.Refused as e:
        return str(e)
    return None


# (webhook URL, allow-list) pairs the action refuses: malformed or not https, or a target the policy refuses
# with no allow-list, then targets refused under an allow-list that names something else
REFUSED = [(url, "") for url in (
    "http://hooks.example.com/x", "hooks.example.com/x", "https://hooks example.com/x",
    "https://user:pw@hooks.example.com/x", "https://hooks.example.com:99999/x", "https://hooks.example.com:0/x",
    "https://hooks.example.com:8x/x", "https://bad_host!/x", "https://a..b/x", "https://127.0.0.1/x",
    "https://169.254.169.254/latest", "https://100.64.0.1/x", "https://224.0.0.1/x", "https://[::1]/x",
    "https://[fe80::1]/x", "https://[fd00:ec2::254]/x", "https://localhost/x")] + [
    ("https://10.1.2.3/x", "10.1.2.4"), ("https://192.168.1.5:9000/x", "192.168.1.5:9001"),
    ("https://hooks.example.com:8089/x", "hooks.example.com")]
ACCEPTED = [("https://hooks.example.com/T0K3N", ""), ("https://10.1.2.3:9000/x", "10.0.0.0/8"),
            ("https://localhost:9000/x", "localhost:9000"), ("https://hooks.example.com:8089/x", "hooks.example.com:8089"),
            ("https://8.8.8.8/x", ""), ("https://[::1]:9000/x", "[::1]:9000")]


def test_a_url_the_action_would_refuse_is_refused_on_the_page_in_its_words_and_nothing_is_written(site, browser):
    sd, web, _ = site()
    for url, allow in REFUSED:
        said = action_words(url, allow)
        assert said, "the action accepts %s: not a refusal case" % url
        assert save(browser, url=url, allow=allow) == said, url
    assert sd.passwords_written == [] and sd.passwords == {}
    assert sd.macros[ALLOW] == "none"                           # nothing written, not even the allow-list
    for url, allow in ACCEPTED:
        assert action_words(url, allow) is None, url
    clean_page(browser, web)


def test_accepted_urls_are_stored_and_a_bad_allow_list_is_refused_in_the_actions_words(site, browser):
    sd, web, _ = site()
    for url, allow in ACCEPTED:
        assert save(browser, url=url, allow=allow).startswith("Saved:"), url
        assert sd.passwords[STORED] == url
    for bad in ("x:y", "10.0.0.1:70000", "bad_host!"):
        with pytest.raises(outbound.Refused) as e:
            outbound.parse_allow(bad)
        assert save(browser, url="", allow=bad) == "%s: %s" % (ALLOW, e.value)
    clean_page(browser, web)


# ---------------------------------------------------------------------------- who may
def test_splunkds_403_is_shown_and_a_user_who_may_not_read_passwords_is_told(site, browser):
    sd, web, _ = site(user="analyst", roles=["user"], capabilities=["list_storage_passwords"])
    said = save(browser, r"Not allowed", url="https://hooks.example.com/T0K3N")
    assert said == ("Not allowed to store the webhook URL: You (user=analyst) do not have permission to perform "
                    "this operation (requires capability: admin_all_objects or edit_storage_passwords). (needs the "
                    "capability admin_all_objects or edit_storage_passwords)")
    assert save(browser, r"Not allowed", url="", allow="10.0.0.0/8").startswith(
        "Not allowed to change the macro ingest_doctor_webhook_allow: You (user=analyst) do not have permission")
    assert sd.passwords == {} and sd.macros[ALLOW] == "none"
    clean_page(browser, web)


def test_a_user_who_may_not_list_passwords_is_told_so(site, browser):
    sd, web, status = site(user="viewer", roles=["user"], capabilities=[])
    assert status.startswith("Not allowed to read whether a webhook URL is stored: You (user=viewer) do not have "
                             "permission"), status
    assert browser.text("#idr-url-state") == "unknown"


def test_the_fake_splunk_web_refuses_a_write_without_the_csrf_header(site):
    sd, web, _ = site(opened=False)
    ctx = ssl.create_default_context()
    req = urllib.request.Request(web.url + "/en-US/splunkd/__raw" + NS + "/storage/passwords",
                                 data=b"name=webhook_url&realm=ingest_doctor&password=https://x.example.com/",
                                 headers={"Cookie": "splunkd_%d=s3cr3t-session-key" % web.port}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, context=ctx, timeout=10)
    assert e.value.code == 401 and b"CSRF validation failed" in e.value.read()
    assert sd.passwords == {} and web.csrf_refused == 1
