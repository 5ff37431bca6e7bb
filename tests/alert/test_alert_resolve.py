"""Resolving findings no longer seen, under the findings store's lock (issue 35, defect 7).

The housekeeping search "Ingest Doctor - Findings - Resolve findings no longer seen" used to write its
copy of the stale records back itself (`outputlookup`), outside the action's lock: a finding flagged
between its read and its write was resolved although live. It now lists them (fakes.searches.stale_rows
replays its SPL over the store) for the action, dispatched as splunkd dispatches the shipped stanza and
run as splunkd runs it; the action resolves each one in its locked read-modify-write, judged on the
record as it is then."""

import time

from fakes.action_faults import finish, start
from fakes.action_run import LOOPBACK_HOOK, thread_row
from fakes.alert_helpers import all_ok
from fakes.dispatch import AlertDispatch, execute
from fakes.searches import HOUSEKEEPING, stale_rows
from ingest_doctor import thresholds
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key, plan_stale

(RESOLVE,) = HOUSEKEEPING
THREAD = "Ingest Doctor - Thread - Saturated splunkd thread"
AFTER_MIN = thresholds.defaults().resolve_after_min
FID = "hf-01/hec_input/-"
KEY = kv_key(FID)


def flag(sh, tls, tmp_path, host="hf-01"):
    """The thread alert finds hf-01's HEC thread pegged (one run, dispatched as shipped)."""
    return all_ok(execute(AlertDispatch(THREAD, str(tmp_path)).run([thread_row(host=host)], time.time()), sh.fake, tls))


def stale_once_unseen(sh):
    """The housekeeping search's rows over the store once nothing has flagged hf-01's finding for
    resolve_after_min + 5 minutes (its record's last_seen as the store then holds it)."""
    sh.kv.records[KEY]["last_seen"] = time.time() - 60 * (AFTER_MIN + 5)
    return stale_rows(sh.kv.records, time.time(), AFTER_MIN)


def test_unseen_finding_is_resolved_by_the_action_and_its_message_removed(sh, tls, tmp_path):
    flag(sh, tls, tmp_path)
    flag(sh, tls, tmp_path, host="hf-05")
    assert message_name(FID) in sh.messages.shown
    events = len(sh.events)
    rows = stale_once_unseen(sh)
    assert [r["id"] for r in rows] == [FID]                     # hf-05 was flagged just now: not listed
    d = AlertDispatch(RESOLVE, str(tmp_path))
    [p] = all_ok(execute(d.run(rows, time.time()), sh.fake, tls))
    rec = sh.kv.records[KEY]
    assert rec["status"] == "resolved" and rec["resolved_at"] and "not seen for %d minutes" % AFTER_MIN in \
        rec["resolution"]
    assert rec["last_search"] == RESOLVE and "resolved=1" in p.stderr
    assert sh.kv.records[kv_key("hf-05/hec_input/-")]["status"] == "open"
    assert message_name(FID) not in sh.messages.shown and message_name(FID) in sh.messages.deletes
    assert message_name("hf-05/hec_input/-") in sh.messages.shown
    assert len(sh.events) == events                              # no finding event for a resolution
    assert d.triggered == []                                     # housekeeping: no Triggered Alerts entry
    assert d.run([], time.time()) == []                          # nothing stale: the action does not run
    # a resolved finding reopens when an alert flags it again
    flag(sh, tls, tmp_path)
    assert sh.kv.records[KEY]["status"] == "open"


def test_the_resolution_reaches_the_webhook_once(sh, tls, tmp_path):
    flag(sh, tls, tmp_path)
    d = AlertDispatch(RESOLVE, str(tmp_path))
    rows = stale_once_unseen(sh)
    all_ok(execute(d.run(rows, time.time()), sh.fake, tls, LOOPBACK_HOOK, webhook_url=sh.fake.url + "/hook"))
    assert [(h["id"], h["status"]) for h in sh.hooks] == [(FID, "resolved")]
    assert sh.kv.records[KEY]["delivery"] == "sent"
    assert d.run(stale_rows(sh.kv.records, time.time(), AFTER_MIN), time.time()) == []     # listed no more


def test_a_finding_flagged_after_the_search_read_the_store_stays_open(sh, tls, tmp_path):
    """The race's worst order: the search reads the store, the alert flags the finding again, then the
    resolution is written. The old search wrote its stale copy back here and resolved a live finding."""
    flag(sh, tls, tmp_path)
    rows = stale_once_unseen(sh)                                   # the search's read
    assert [r["id"] for r in rows] == [FID]
    flag(sh, tls, tmp_path)                                        # flagged meanwhile
    seen = sh.kv.records[KEY]["last_seen"]
    [p] = all_ok(execute(AlertDispatch(RESOLVE, str(tmp_path)).run(rows, time.time()), sh.fake, tls))
    rec = sh.kv.records[KEY]
    assert rec["status"] == "open" and rec["last_seen"] == seen and rec["count"] == 2
    assert "resolved=0" in p.stderr and "unchanged=1" in p.stderr
    assert message_name(FID) in sh.messages.shown


def test_a_flag_and_a_resolution_at_once_never_lose_the_flag(sh, tls, tmp_path):
    """Both runs started together, as splunkd starts two alerts due in the same minute, in both orders:
    whichever takes the store's lock first, the finding ends open, last seen by the flag."""
    for trial in range(4):
        sh.kv.records.clear()
        sh.locks.records.clear()
        flag(sh, tls, tmp_path)
        rows = stale_once_unseen(sh)
        assert rows
        before = sh.kv.records[KEY]["last_seen"]
        [resolve] = AlertDispatch(RESOLVE, str(tmp_path)).run(rows, time.time())
        [again] = AlertDispatch(THREAD, str(tmp_path)).run([thread_row()], time.time())
        runs = [resolve, again] if trial % 2 == 0 else [again, resolve]
        procs = [start(e.payload(sh.fake), tls) for e in runs]
        all_ok([finish(p) for p in procs])
        rec = sh.kv.records[KEY]
        assert rec["status"] == "open" and rec["last_seen"] > before, (trial, rec)
        assert "findings" not in sh.locks.records              # both released the store's lock


def test_plan_stale_decides_on_the_record_it_is_given():
    now = 1763805600.0
    cutoff = now - 60 * AFTER_MIN
    old = {"_key": KEY, "id": FID, "status": "open", "last_seen": cutoff - 1, "count": 3, "opened_by": "collector",
           "detected_by": "collector", "version": 4, "delivery": "sent"}
    up = plan_stale(old, FID, cutoff, now, "resolved: not seen", "sid1", RESOLVE)
    assert up.record["status"] == "resolved" and up.record["resolved_at"] == now and up.record["version"] == 5
    assert up.record["delivery"] == "sent" and up.record["opened_by"] == "collector"    # nothing else dropped
    assert plan_stale(dict(old, last_seen=cutoff), FID, cutoff, now, "", "sid1", RESOLVE) is None
    assert plan_stale(dict(old, status="resolved"), FID, cutoff, now, "", "sid1", RESOLVE) is None
    assert plan_stale(None, FID, cutoff, now, "", "sid1", RESOLVE) is None
