"""The Acknowledge and snooze page (issue 39): the Simple XML view ingest_doctor_hold and its script, in headless
Chromium against the fake Splunk Web in front of the fake splunkd. Its forms submit a
`| makeresults | sendalert ingest_doctor_hold param.<...>` search through the proxy; the fake splunkd runs the
ingest_doctor_hold action for it as splunkd does (`--execute`, the payload of the signed-in user) and fails the
search with the action's exit code, as splunkd does. User text reaches the action verbatim whatever quotes or
backslashes it holds; the action's refusal is shown with its reason."""

import pytest

from ingest_doctor import exitcodes
from ingest_doctor.delivery.store import kv_key
from fakes.action_run import HF_CONFIG, queue_row
from fakes.alert_helpers import LACKS, clean_page
from fakes.kvstore import Splunkd

TYPING = "idx-01/typing/1"


@pytest.fixture
def site(fake_splunkd, flag, splunk_web, browser):
    """`site(query, **kw)`: the search head's fake splunkd with one open finding, idx-01/typing/1, the Splunk
    Web in front of it, and the page opened there with `query`: (sd, web, the status the page shows). Once
    the test is done, the page must have run clean (clean_page)."""
    webs = []

    def make(query="", **kw):
        sd = Splunkd(fake_splunkd, configs={"hf-01": HF_CONFIG}, **kw)
        flag(fake_splunkd, [queue_row()], sid="run1")
        assert sd.kv.records[kv_key(TYPING)]["status"] == "open"
        webs.append(splunk_web(fake_splunkd))
        browser.goto(webs[-1].view_url("ingest_doctor_hold", query))
        return sd, webs[-1], browser.wait_text("#idr-hold-status", r"Signed in|lacks|Not allowed|refused")
    yield make
    for web in webs:
        clean_page(browser, web)


def submit(browser, button):
    browser.click(button)
    return browser.wait_text("#idr-hold-result", r"^(Done|Refused|Error|user|Not allowed|splunkd|\w+: )")


def sendalert_searches(sd):
    return [s for s in sd.searches if "sendalert" in s]


def test_the_page_opens_filled_in_from_the_findings_row(site, browser):
    sd, web, status = site("finding=idx-01%2Ftyping%2F1&host=idx-01")
    assert status == "Signed in as admin, who may acknowledge and snooze."
    assert browser.value("#idr-finding") == TYPING
    assert browser.value("#idr-value") == "idx-01" and browser.value("#idr-scope") == "host"


NOTE = 'disk swap "tonight" \\\\ C:\\temp\\ | delete param.op="unsnooze" ] [search *'


def test_acknowledge_sends_the_note_verbatim_whatever_it_holds(site, browser):
    sd, web, _ = site("finding=idx-01%2Ftyping%2F1&host=idx-01")
    browser.fill("#idr-note", NOTE)
    assert submit(browser, "#idr-ack") == "Done: finding %s acknowledged (kept in ingest_doctor_hold_history)." % TYPING
    [spl] = sendalert_searches(sd)
    assert spl.startswith("| makeresults | sendalert ingest_doctor_hold param.op=\"ack\" param.finding=\"idx-01/typing/1\" ")
    assert browser.text("#idr-hold-search") == spl
    [(conf, proc)] = sd.sendalerts
    assert proc.returncode == exitcodes.OK and conf["op"] == "ack" and conf["note"] == NOTE
    [ack] = sd.acks.records.values()
    assert ack["finding_id"] == TYPING and ack["note"] == NOTE and ack["user"] == "admin"


def test_snooze_then_lift_it(site, browser):
    sd, web, _ = site("host=idx-01")
    browser.fill("#idr-until", "+4h")
    browser.fill("#idr-reason", 'CHG-1234 "rolling" restart')
    assert submit(browser, "#idr-snooze") == "Done: host idx-01 snoozed until +4h (kept in ingest_doctor_hold_history)."
    assert sd.snoozes.records["host~idx-01"]["reason"] == 'CHG-1234 "rolling" restart'
    browser.select("#idr-scope", "bottleneck")
    browser.fill("#idr-value", "typing")
    browser.fill("#idr-until", "+1h")
    browser.fill("#idr-reason", "CHG-9 reindex")
    assert submit(browser, "#idr-snooze").startswith("Done: bottleneck typing snoozed")
    browser.select("#idr-scope", "host")
    browser.fill("#idr-value", "idx-01")
    assert submit(browser, "#idr-unsnooze") == "Done: snooze of host idx-01 lifted (kept in ingest_doctor_hold_history)."
    assert list(sd.snoozes.records) == ["bottleneck~typing"]
    assert [h["op"] for h in sd.history.records.values()] == ["snooze", "snooze", "unsnooze"]


@pytest.mark.parametrize("button,fill", [
    ("#idr-ack", {"#idr-finding": "idx-99/typing/1"}),                              # unknown finding
    ("#idr-snooze", {"#idr-value": "idx-01", "#idr-reason": "CHG-1"}),              # no end
    ("#idr-snooze", {"#idr-value": "idx-01", "#idr-until": "+8d", "#idr-reason": "CHG-1"}),   # over 7 days
    ("#idr-snooze", {"#idr-value": "idx-01", "#idr-until": "+1h"}),                 # no reason
])
def test_the_actions_refusal_is_shown_with_its_reason_and_nothing_is_held(site, browser, button, fill):
    sd, web, _ = site()
    for sel, v in fill.items():
        browser.fill(sel, v)
    said = submit(browser, button)
    [(conf, proc)] = sd.sendalerts
    assert proc.returncode == exitcodes.BAD_INPUT
    [refusal] = [h for h in sd.history.records.values() if h["op"] == "refused"]
    assert said == "Refused: %s (Error in 'sendalert' command: Alert script returned error code %d.)" % (
        refusal["note"], exitcodes.BAD_INPUT)
    assert refusal["note"] in proc.stderr                      # the action's own words, as it logged them
    assert not sd.acks.records and not sd.snoozes.records


def test_each_refusal_shows_its_own_reason_not_an_earlier_one(site, browser):
    sd, web, _ = site()
    browser.fill("#idr-finding", "idx-99/typing/1")
    assert "idx-99/typing/1" in submit(browser, "#idr-ack")
    browser.fill("#idr-value", "idx-01")
    browser.fill("#idr-reason", "CHG-1")
    second = submit(browser, "#idr-snooze")        # no end: another reason
    notes = [h["note"] for h in sorted(sd.history.records.values(), key=lambda h: h["time"])]
    assert len(notes) == 2 and notes[0] != notes[1]
    assert second.startswith("Refused: %s (" % notes[1])


def test_a_user_without_the_capability_is_told_and_nothing_runs(site, browser):
    sd, web, status = site("finding=idx-01%2Ftyping%2F1", user="analyst", roles=["user"],
                           capabilities=["list_storage_passwords"])
    assert status == LACKS % "analyst" + ": ask an admin for the role"
    assert submit(browser, "#idr-ack") == LACKS % "analyst" + ": nothing written"
    assert sendalert_searches(sd) == [] and not sd.acks.records


def test_the_action_refusing_the_user_is_shown_in_its_words(site, browser):
    """The page's own check passed (the capability was there when it opened); the action's check is the one
    that counts: the role was taken away meanwhile."""
    sd, web, _ = site("finding=idx-01%2Ftyping%2F1")
    sd.capabilities.remove("ingest_doctor_acknowledge")
    said = submit(browser, "#idr-ack")
    [(conf, proc)] = sd.sendalerts
    assert proc.returncode == exitcodes.AUTH
    assert LACKS % "admin" + ": nothing written" in proc.stderr
    assert said == "Error in 'sendalert' command: Alert script returned error code %d. %s: nothing written" % (
        exitcodes.AUTH, LACKS % "admin")
    assert not sd.acks.records and not sd.history.records


def test_a_backtick_is_refused_on_the_page(site, browser):
    sd, web, _ = site("finding=idx-01%2Ftyping%2F1")
    browser.fill("#idr-note", "see `ingest_doctor_events_index`")
    assert submit(browser, "#idr-ack") == "note: a backtick (`) is read by Splunk as a search macro; leave it out"
    assert sendalert_searches(sd) == []
