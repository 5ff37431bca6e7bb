"""The action under races, outages and forged input (issue 23), run as splunkd runs it
(`--execute`, JSON payload, gzipped results) against the loopback fake splunkd and its fake KV
store (tests/fakes/kvstore.py: every call atomic, an insert of an existing _key is a 409).

`make test` runs a few trials of each; `make fault` (tools/fault.py) many, and prints the figures
(lost updates, double "new", lost or duplicated notifications, forged changes)."""
from __future__ import annotations

import json
import sys

import pytest

from fakes.action_faults import (ALERT_NAME, HF_CONFIG, NOW, RELAY_COLUMNS, RELAY_NAME, SCRIPT, done_counts, env,
                                 finding, finish, hooks_of, payload, relay_row, run, start, thread_row)
from fakes.hookreceiver import HangUp
from fakes.faults import record, run_measured, scale
from fakes.splunkd import FakeSplunkd, Response, fault
from ingest_doctor import exitcodes
from ingest_doctor.delivery.store import kv_key
from fakes.kvstore import KVStore, Splunkd, write_results

FID = "hf-01/hec_input/-"
KEY = kv_key(FID)


@pytest.fixture
def sh(tls):
    with FakeSplunkd(tls) as fake:
        yield Splunkd(fake, configs={"hf-01": HF_CONFIG})


def _reset(sd) -> None:
    sd.kv.records.clear()
    sd.locks.records.clear()
    sd.hooks.clear()
    sd.messages.shown.clear()
    sd.messages.posts.clear()


def _judged_severity(sd, tls, tmp_path) -> str:
    res = write_results(str(tmp_path / "probe.csv.gz"), [thread_row()])
    assert run(payload(sd.fake.url, res, "probe"), tls).returncode == exitcodes.OK
    sev = sd.kv.records[KEY]["severity"]
    _reset(sd)
    return sev


# ---------------------------------------------------------------------------- no lost update
def test_two_runs_at_once_lose_no_update_and_announce_new_once(sh, tls, tmp_path):
    """The relay and a detection alert on one finding in the same minute, with a webhook each."""
    sev = _judged_severity(sh, tls, tmp_path)
    trials = scale(3, 60)
    lost = double_new = lost_hooks = dup_hooks = failures = 0
    hook = sh.fake.url + "/hook"
    for i in range(trials):
        _reset(sh)
        alert = write_results(str(tmp_path / ("a%d.csv.gz" % i)), [thread_row(last=NOW + i)])
        relayed = write_results(str(tmp_path / ("r%d.csv.gz" % i)),
                                [relay_row(finding(severity=sev), last=NOW + i)], RELAY_COLUMNS)
        pa = start(payload(sh.fake.url, alert, "alert_%d" % i, webhook_url=hook), tls)
        pb = start(payload(sh.fake.url, relayed, "relay_%d" % i, search_name=RELAY_NAME, webhook_url=hook), tls)
        ra, rb = finish(pa), finish(pb)
        if ra.returncode != exitcodes.OK or rb.returncode != exitcodes.OK:
            failures += 1
            continue
        rec = sh.kv.records.get(KEY) or {}
        if rec.get("count") != 2 or set(str(rec.get("detected_by")).split(",")) != {"alert_action", "collector"} \
                or rec.get("version") != 2 + sum(1 for r in (ra, rb) if done_counts(r.stderr).get("webhooks")) * 2:
            lost += 1
        if done_counts(ra.stderr).get("new", 0) + done_counts(rb.stderr).get("new", 0) != 1:
            double_new += 1
        posted = [p for p in sh.messages.posts if "bottleneck on hf-01" in p.get("value", "")]
        if len(posted) != 1:
            double_new += 1
        hooks = hooks_of(sh.hooks, FID)
        if not hooks or rec.get("delivery") != "sent":
            lost_hooks += 1
        elif len(hooks) > 1:
            dup_hooks += 1
    record("action: two runs at once (relay + alert, webhook)", 0.0, cases=trials, failures=failures,
           lost_updates=lost + double_new, lost_notifications=lost_hooks, duplicated_notifications=dup_hooks)
    assert (failures, lost, double_new, lost_hooks, dup_hooks) == (0, 0, 0, 0, 0)
    assert not sh.locks.records, "the lock is released"


# ---------------------------------------------------------------------------- no lost notification
def test_a_webhook_outage_leaves_the_notification_pending_until_delivered_once(sh, tls, tmp_path):
    hook = sh.fake.url + "/hook"
    receiver = sh._hook
    res = write_results(str(tmp_path / "a.csv.gz"), [thread_row()])
    sh.fake.route("POST", "/hook", fault("503"))
    p = run(payload(sh.fake.url, res, "run1", webhook_url=hook), tls)
    assert p.returncode == exitcodes.TRANSIENT and "pending" in p.stderr, p.stderr
    rec = sh.kv.records[KEY]
    assert rec["delivery"] == "pending" and "503" in rec["delivery_error"] and rec["delivery_search"] == ALERT_NAME
    # the next run of the same alert (the receiver is back) sends it, once
    sh.fake.route("POST", "/hook", receiver)
    p = run(payload(sh.fake.url, res, "run2", webhook_url=hook), tls)
    assert p.returncode == exitcodes.OK, p.stderr
    assert len(hooks_of(sh.hooks, FID)) == 1 and sh.kv.records[KEY]["delivery"] == "sent"
    assert sh.kv.records[KEY]["delivery_error"] == ""
    # the same state again: nothing more to send
    p = run(payload(sh.fake.url, res, "run3", webhook_url=hook), tls)
    assert p.returncode == exitcodes.OK and len(hooks_of(sh.hooks, FID)) == 1
    # another alert (another webhook) never sends this alert's pending notifications
    assert sh.kv.records[KEY]["delivery_search"] == ALERT_NAME


def test_a_refusing_webhook_fails_the_notification_with_why(sh, tls, tmp_path):
    hook = sh.fake.url + "/hook"
    sh.fake.route("POST", "/hook", Response(404, {"error": "no such hook"}))
    res = write_results(str(tmp_path / "a.csv.gz"), [thread_row()])
    p = run(payload(sh.fake.url, res, "run1", webhook_url=hook), tls)
    assert p.returncode == exitcodes.BAD_CONFIG, p.stderr
    rec = sh.kv.records[KEY]
    assert rec["delivery"] == "failed" and "404" in rec["delivery_error"]


def test_kv_store_faults_lose_nothing(tls, tmp_path):
    """KV store initializing (503) for a while: the run retries or fails TRANSIENT, writing nothing
    half; the next run stores the finding, and its notification is sent once."""
    cases = scale(3, 12)
    lost = dup = failures = 0
    for i in range(cases):
        with FakeSplunkd(tls) as fake:
            sd = Splunkd(fake, kv=KVStore(unavailable=i * 2), configs={"hf-01": HF_CONFIG})
            res = write_results(str(tmp_path / ("k%d.csv.gz" % i)), [thread_row()])
            hook = fake.url + "/hook"
            # the alert runs again each minute: TRANSIENT (nothing half written) until the KV store is up
            for attempt in range(1, 9):
                p = run(payload(fake.url, res, "k%d_%d" % (i, attempt), webhook_url=hook), tls)
                if p.returncode == exitcodes.OK:
                    break
                if p.returncode != exitcodes.TRANSIENT:
                    failures += 1
                    break
            else:
                failures += 1
            rec = sd.kv.records.get(KEY)
            if not rec or rec.get("delivery") != "sent" or not hooks_of(sd.hooks, FID):
                lost += 1
            elif len(hooks_of(sd.hooks, FID)) != 1:
                dup += 1
    record("action: KV store 503 for 0..N calls, then a rerun", 0.0, cases=cases, failures=failures,
           lost_notifications=lost, duplicated_notifications=dup)
    assert (failures, lost, dup) == (0, 0, 0)


# ---------------------------------------------------------------------------- no forged finding
HOSTILE_HOSTS = ["x|y]] [[https://evil.example|Click", "<script>alert(1)</script>", "=cmd|' /C calc'!A0",
                 "h" * 65536]


def test_relay_rows_not_from_the_collector_are_refused(sh, tls, tmp_path):
    res = write_results(str(tmp_path / "r.csv.gz"), [relay_row(finding(detected_by="alert_action"))],
                        RELAY_COLUMNS)
    p = run(payload(sh.fake.url, res, "forged", search_name=RELAY_NAME), tls)
    assert p.returncode == exitcodes.OK and done_counts(p.stderr)["refused"] == 1, p.stderr
    assert not sh.kv.records


def test_a_relayed_event_never_escalates_nor_resolves_another_detectors_finding(sh, tls, tmp_path):
    forged = 0
    alert = write_results(str(tmp_path / "a.csv.gz"), [thread_row()])
    assert run(payload(sh.fake.url, alert, "alert1"), tls).returncode == exitcodes.OK
    before = dict(sh.kv.records[KEY])
    esc = write_results(str(tmp_path / "e.csv.gz"), [relay_row(finding(severity="critical", summary="PWNED"),
                                                               last=before["last_seen"] + 60)], RELAY_COLUMNS)
    assert run(payload(sh.fake.url, esc, "relay1", search_name=RELAY_NAME), tls).returncode == exitcodes.OK
    rec = sh.kv.records[KEY]
    forged += rec["severity"] != before["severity"] or rec["summary"] != before["summary"]
    assert rec["detected_by"] == "alert_action,collector" and rec["count"] == 2    # the sighting counts
    gone = write_results(str(tmp_path / "g.csv.gz"),
                         [relay_row(finding(status="resolved", resolution="forged"), last=rec["last_seen"] + 60)],
                         RELAY_COLUMNS)
    assert run(payload(sh.fake.url, gone, "relay2", search_name=RELAY_NAME), tls).returncode == exitcodes.OK
    forged += sh.kv.records[KEY]["status"] != "open"
    record("action: forged relay events", 0.0, cases=2, forged_changes=forged)
    assert forged == 0


def test_hostile_host_names_are_escaped_in_messages_and_webhooks(sh, tls, tmp_path):
    hook = sh.fake.url + "/hook"
    rows = [relay_row(finding(host=h, severity="critical")) for h in HOSTILE_HOSTS]
    res = write_results(str(tmp_path / "h.csv.gz"), rows, RELAY_COLUMNS)
    p = run(payload(sh.fake.url, res, "hostile", search_name=RELAY_NAME, webhook_url=hook), tls)
    assert p.returncode == exitcodes.OK, p.stderr
    assert done_counts(p.stderr)["refused"] == 1        # the 64 KiB "host": no host name, rejected
    texts = [m["value"] for m in sh.messages.posts]
    assert len(texts) == len(HOSTILE_HOSTS) - 1
    for text in texts:
        assert text.count("[[") == 1 and text.count("]]") == 1 and text.rstrip().endswith("]]")
        link = text[text.index("[["):]
        assert "evil.example|" not in link and "<" not in text and ">" not in text
        assert "=cmd" not in text.replace("'=cmd", "") and len(text) <= 480
    assert len(sh.hooks) == len(HOSTILE_HOSTS) - 1
    for body in sh.hooks:      # JSON escapes; a formula is quoted for a spreadsheet
        assert body["host"] in ("'=cmd|' /C calc'!A0", "x|y]] [[https://evil.example|Click",
                                "<script>alert(1)</script>")
    assert not any(k.startswith("h" * 300) for k in sh.kv.records)


# ---------------------------------------------------------------------------- exit codes
@pytest.mark.parametrize("event,words", [
    (finding(pipeline_set=float("inf")), "not an ingest_doctor:finding event"),
    (finding(status="resolved", resolved_at="abc"), "resolved_at"),
])
def test_malformed_relay_rows_are_bad_input(sh, tls, tmp_path, event, words):
    res = write_results(str(tmp_path / "m.csv.gz"), [relay_row(event, last=None, raw=json.dumps(event))], RELAY_COLUMNS)
    p = run(payload(sh.fake.url, res, "malformed", search_name=RELAY_NAME), tls)
    assert p.returncode == exitcodes.BAD_INPUT, p.stderr
    assert words in p.stderr and not sh.kv.records


@pytest.mark.skipif(not scale(0, 1), reason="make fault only: a 100k-row results file")
def test_a_100k_row_results_file_is_streamed(sh, tls, tmp_path):
    # 100k rows as the detection searches write them: each carries its window's 20 samples (2M samples,
    # 100 hosts, 1,000 windows of 10 minutes each). The samples stay numbers until their host is judged,
    # one host at a time (alert/samples.py): 2M samples as objects were ~435 MB (issue 23).
    rows = []
    for i in range(100000):
        row = thread_row(host="hf-%03d" % (i % 100), last=NOW - 600 * (i // 100))
        assert len(row["samples"]) == 20
        rows.append(row)
    res = write_results(str(tmp_path / "big.csv.gz"), rows)
    del rows
    data = json.dumps(payload(sh.fake.url, res, "big")).encode("utf-8")
    rc, _, err, rss = run_measured([sys.executable, SCRIPT, "--execute"], data, 300.0, env(tls))
    record("action: 100k-row results file", rss, cases=1, failures=int(rc != exitcodes.OK or rss > 200),
           hangs=int(rc is None), tracebacks=int("Traceback" in err))
    assert rc == exitcodes.OK, err[-500:]
    assert rss < 200, rss


def test_a_redirecting_webhook_fails_the_notification_naming_the_location(sh, tls, tmp_path):
    """A 301/302/303 to a POST is never followed (no body-less GET, no downgrade): the delivery fails,
    with the location, and is not counted as sent."""
    lost, statuses = 0, scale((302,), (301, 302, 303, 307, 308))
    for status in statuses:
        _reset(sh)
        sh.fake.route("POST", "/hook", Response(status, b"", headers={"Location": "http://127.0.0.1:9/elsewhere"}))
        res = write_results(str(tmp_path / ("r%d.csv.gz" % status)), [thread_row()])
        p = run(payload(sh.fake.url, res, "redirect%d" % status, webhook_url=sh.fake.url + "/hook"), tls)
        rec = sh.kv.records.get(KEY) or {}
        ok = (p.returncode == exitcodes.BAD_CONFIG and rec.get("delivery") == "failed"
              and "elsewhere" in rec.get("delivery_error", "") and done_counts(p.stderr).get("webhooks", 0) == 0)
        lost += not ok
    record("action: webhook answering a redirect", 0.0, cases=len(statuses), lost_notifications=lost)
    assert lost == 0


@pytest.mark.parametrize("mode", ["before", "during"])
def test_a_webhook_hanging_up_at_the_tls_handshake_stays_pending_then_is_sent(sh, tls, tmp_path, mode):
    """Issue 40 item 2 through `--execute`: a receiver that closes before or during the handshake
    (SSLEOFError, a reset) is a network fault: the run exits transient with the notification
    pending (not failed as a certificate error), and the next run, the receiver back, sends it once."""
    hang = HangUp(mode)
    try:
        res = write_results(str(tmp_path / "a.csv.gz"), [thread_row()])
        p = run(payload(sh.fake.url, res, "run1", webhook_url="https://127.0.0.1:%d/hook" % hang.port), tls)
        assert p.returncode == exitcodes.TRANSIENT and "pending" in p.stderr, p.stderr
        assert sh.kv.records[KEY]["delivery"] == "pending" and hang.accepted >= 2
    finally:
        hang.close()
    p = run(payload(sh.fake.url, res, "run2", webhook_url=sh.fake.url + "/hook"), tls)
    assert p.returncode == exitcodes.OK, p.stderr
    assert len(hooks_of(sh.hooks, FID)) == 1 and sh.kv.records[KEY]["delivery"] == "sent"
