"""The alert action run as splunkd runs it: `--execute`, JSON payload on stdin,
a gzipped results CSV, against the loopback HTTPS fake splunkd with an
in-memory KV store. Exit codes are compared by name (ingest_doctor.exitcodes).

These hold the action to its contract with any alert whose results keep its columns (alert_actions.conf:
an admin's own alert may mix signals): the results file is handed to it directly. How splunkd dispatches
the shipped searches (one run with every row, no throttling) is tests/alert/test_alert_dispatch.py's, and
the scenarios through that dispatch are in tests/deployment/ and tests/delivery/.
"""

import gzip
import io
import json

import pytest

from ingest_doctor import exitcodes
from ingest_doctor.delivery.store import kv_key
from fakes.action_run import LOOPBACK_HOOK, NOW, payload, queue_row, run_action, signal_rows, thread_row
from fakes.kvstore import Splunkd, write_results
from fakes.splunkd import envelope, fault, make_tls, messages


# ---------------------------------------------------------------------------- the happy path, twice
def test_flags_findings_into_kv_store_and_events(sd, flag):
    rows = [thread_row(), queue_row()]
    p = flag(sd.fake, rows)
    kv = sd.kv
    assert sorted(kv.records) == sorted([kv_key("hf-01/hec_input/-"), kv_key("idx-01/typing/1")])
    assert len(kv.saves) == 1 and len(kv.saves[0]) == 2          # one batch for the run
    hec = kv.records["hf-01~2Fhec_input~2F-"]
    assert hec["id"] == "hf-01/hec_input/-" and hec["status"] == "open" and hec["count"] == 1
    assert hec["host"] == "hf-01" and hec["bottleneck"] == "hec_input" and hec["pipeline_set"] == ""
    assert hec["component"] == "httpinputserverdatathread" and hec["severity"] in ("warning", "critical")
    assert hec["first_seen"] == hec["last_seen"]
    recs = json.loads(hec["recommendations"])
    io_threads = [r for r in recs if r["setting"] == "dedicatedIoThreads"]
    assert io_threads and io_threads[0]["current"] == "2", recs     # completed from ingest_doctor:config
    assert json.loads(hec["evidence"])[0]["signal"] == "thread_busy_pct"
    typing = kv.records["idx-01~2Ftyping~2F1"]
    assert typing["pipeline_set"] == "1" and typing["severity"] == "critical" and typing["bottleneck"] == "typing"
    # one ingest_doctor:finding event per finding, the contract's object plus detected_by
    assert len(sd.events) == 2
    for ev in sd.events:
        assert ev["sourcetype"] == "ingest_doctor:finding" and ev["index"] == "ingest_doctor"
        assert ev["source"] == "ingest_doctor_flag"
        body = ev["event"]
        assert set(body) == {"id", "bottleneck", "severity", "host", "pipeline_set", "component", "summary",
                             "evidence", "recommendations", "detected_by"}
        assert body["detected_by"] == "alert_action" and ev["host"] == body["host"]
        rec = kv.records[kv_key(body["id"])]
        assert rec["summary"] == body["summary"] and json.loads(rec["evidence"]) == body["evidence"]
    # the config came from the oneshot search over the events index macro
    assert sd.searches and "`ingest_doctor_events_index`" in sd.searches[0]
    assert "category=done" in p.stderr and "new=2" in p.stderr

    # The next alert run (another sid) with the same rows updates, never duplicates.
    p2 = flag(sd.fake, rows, sid="scheduler__second_run")
    assert sorted(kv.records) == sorted([kv_key("hf-01/hec_input/-"), kv_key("idx-01/typing/1")])
    hec2 = kv.records["hf-01~2Fhec_input~2F-"]
    assert hec2["count"] == 2 and hec2["first_seen"] == hec["first_seen"] and hec2["last_seen"] >= hec["last_seen"]
    assert hec2["last_sid"] == "scheduler__second_run"
    assert len(sd.events) == 4 and "updated=2" in p2.stderr

    # A retry of that same run writes nothing more and counts nothing twice.
    p3 = flag(sd.fake, rows, sid="scheduler__second_run")
    assert kv.records["hf-01~2Fhec_input~2F-"]["count"] == 2
    assert len(sd.events) == 4 and len(kv.saves) == 2 and "unchanged=2" in p3.stderr


def test_resolved_finding_reopens(sd, flag):
    flag(sd.fake, [thread_row()])
    key = "hf-01~2Fhec_input~2F-"
    sd.kv.records[key].update(status="resolved", resolved_at=NOW)
    p = flag(sd.fake, [thread_row()], sid="later")
    rec = sd.kv.records[key]
    assert rec["status"] == "open" and rec["resolved_at"] == "" and rec["count"] == 2 and "reopened=1" in p.stderr


def test_min_severity_and_index_and_webhook(sd, flag):
    p = flag(sd.fake, [thread_row(), queue_row()], LOOPBACK_HOOK, min_severity="critical",
             index="ingest_doctor_findings", webhook_url=sd.fake.url + "/hook")
    assert list(sd.kv.records) == ["idx-01~2Ftyping~2F1"]      # the warning stayed below the floor
    assert [e["index"] for e in sd.events] == ["ingest_doctor_findings"]
    [hook] = sd.hooks
    assert hook["id"] == "idx-01/typing/1" and hook["severity"] == "critical" and hook["count"] == 1
    assert hook["recommendations"] and all(isinstance(r, str) for r in hook["recommendations"])
    assert "below_min=1" in p.stderr


def test_events_index_follows_the_macro(sd, flag):
    sd.macros["ingest_doctor_events_index"] = "index=ops_findings"
    flag(sd.fake, [thread_row()])
    assert [e["index"] for e in sd.events] == ["ops_findings"]


def test_tuned_threshold_macro_is_what_the_core_judges_with(sd, flag):
    # 85% busy: not saturated at the default 90, saturated once the admin lowers the macro to 80.
    rows = [thread_row(samples=[85] * 20)]
    flag(sd.fake, rows)
    assert sd.kv.records == {}
    sd.macros["ingest_doctor_thread_busy_pct"] = "80"
    flag(sd.fake, rows, sid="tuned")
    assert list(sd.kv.records) == ["hf-01~2Fhec_input~2F-"]


def test_local_rest_fallback_when_no_config_event(fake_splunkd, flag):
    sd = Splunkd(fake_splunkd, configs={}, server_name="hf-01")
    fake_splunkd.route("GET", "/services/data/inputs/http", envelope("/services/data/inputs/http", [
        ("http", {"dedicatedIoThreads": "6", "disabled": "0", "enableSSL": "1", "port": "8088",
                  "maxThreads": "0", "maxSockets": "0"})]))
    flag(fake_splunkd, [thread_row()])
    recs = json.loads(sd.kv.records["hf-01~2Fhec_input~2F-"]["recommendations"])
    # Issue 18: raised (6) and still pegged: the only advice is to scale out, naming the value it read.
    assert any("dedicatedIoThreads is already raised to 6" in r["action"] and r["setting"] is None
               for r in recs), recs
    assert fake_splunkd.requests_to("/services/data/inputs/http")


def test_every_signal_kind_becomes_a_finding(sd, flag):
    """One row of each alert's shape for its own host: each is judged by the core into a finding."""
    flag(sd.fake, signal_rows())
    recs = {r["id"]: r for r in sd.kv.records.values()}
    assert set(recs) == {"hf-02/hec_input/-", "hf-03/hec_input/-", "hf-04/hec_input/-",
                         "idx-02/indexer_throttled/-"}, sorted(recs)
    assert recs["hf-02/hec_input/-"]["severity"] in ("warning", "critical")
    assert "hec_reply_9_server_busy" in recs["hf-02/hec_input/-"]["evidence"]
    assert "hec_latency_ms" in recs["hf-03/hec_input/-"]["evidence"]
    assert any(r["setting"] == "maxThreads" for r in json.loads(recs["hf-04/hec_input/-"]["recommendations"]))
    assert recs["idx-02/indexer_throttled/-"]["severity"] == "critical"
    assert len(sd.events) == 4


def test_large_run_is_chunked(sd, flag):
    rows = [thread_row(host="hf-%03d" % i) for i in range(120)]
    rows += [dict(queue_row(host="idx-001", pset=str(p))) for p in range(3)]
    flag(sd.fake, rows)
    assert len(sd.kv.records) == 123 and len(sd.events) == 123
    reads = [c for c in sd.kv.calls if c.startswith("GET /")]
    assert len(reads) == 1                                  # 123 short keys: one query within KV_QUERY_MAX_BYTES
    # 121 hosts, one events request (issue 21: not one per host): each event's host is set at index time
    assert len(sd.kv.saves) == 1 and sd.posts == 1
    assert sorted({e["host"] for e in sd.events}) == ["hf-%03d" % i for i in range(120)] + ["idx-001"]
    idx = [e for e in sd.events if e["host"] == "idx-001"]
    assert sorted(e["event"]["id"] for e in idx) == ["idx-001/typing/0", "idx-001/typing/1", "idx-001/typing/2"]


def test_hec_thread_behind_full_queues_is_the_queues_finding(sd, flag):
    """Digest mode: both rows of one host are judged together, and the core attributes the pegged HEC
    thread to the stage whose queue is full (no separate hec_input finding)."""
    flag(sd.fake, [thread_row(host="idx-01"), queue_row(host="idx-01", pset="1")])
    assert list(sd.kv.records) == ["idx-01~2Ftyping~2F1"]
    assert any(e["signal"] == "thread_busy_pct" for e in json.loads(sd.kv.records["idx-01~2Ftyping~2F1"]["evidence"]))


def test_thread_outside_the_pipeline_is_logged_not_stored(sd, flag):
    # (`tail` was this test's thread until issue 12 made a pegged tail the file monitor input's finding.)
    p = flag(sd.fake, [thread_row(thread="replicationdatareceiverthread")])
    assert sd.kv.records == {} and sd.events == []
    first_note = [l for l in p.stderr.splitlines() if "category=not_judged" in l][0]
    assert "replicationdatareceiverthread" in first_note and "not part of the ingestion pipeline" in first_note


def test_config_search_failing_still_flags(sd, flag):
    sd.fake.route("POST", "/servicesNS/nobody/ingest_doctor/search/jobs", fault("500"))
    p = flag(sd.fake, [thread_row()])
    assert "category=config" in p.stderr and list(sd.kv.records) == ["hf-01~2Fhec_input~2F-"]
    recs = json.loads(sd.kv.records["hf-01~2Fhec_input~2F-"]["recommendations"])
    assert all(r["current"] is None for r in recs if r["setting"] == "dedicatedIoThreads")


# ---------------------------------------------------------------------------- TLS
def test_verifies_splunkd_with_the_given_ca(sd, flag, tls):
    p = flag(sd.fake, [thread_row()], {"INGEST_DOCTOR_SPLUNKD_CA": tls[0]})
    assert "verified" in p.stderr and "not verified" not in p.stderr


def test_wrong_ca_is_a_config_error(sd, flag, tmp_path):
    wrong_ca, _ = make_tls(str(tmp_path))           # a CA of its own: the tls fixture's lives elsewhere
    p = flag(sd.fake, [thread_row()], {"INGEST_DOCTOR_SPLUNKD_CA": wrong_ca}, exitcodes.BAD_CONFIG)
    assert "TLS verification of splunkd" in p.stderr and sd.kv.records == {}


# ---------------------------------------------------------------------------- bad input loses nothing
@pytest.fixture
def seeded(sd, flag):
    """A store that already holds one finding: every failure below must leave it as it was."""
    flag(sd.fake, [thread_row()], sid="seed")
    before = json.dumps(sd.kv.records, sort_keys=True)
    n_events = len(sd.events)
    yield sd
    assert json.dumps(sd.kv.records, sort_keys=True) == before
    assert len(sd.events) == n_events


def _bad(p, code, *words):
    assert p.returncode == code, (p.returncode, p.stderr)
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ERROR ")
    for w in words:
        assert w in last, (w, last)


GZIPPED = gzip.compress(("signal,host,thread,busy_pct\n" + "thread_busy,hf-01,x,99\n" * 2000).encode())


@pytest.mark.parametrize("data,words", [
    (None, "does not exist"),
    (b"signal,host\nthread_busy,hf-01\n", "not a readable gzipped CSV"),      # plain CSV, not gzip
    (GZIPPED[: len(GZIPPED) // 2], "damaged"),
    (gzip.compress(b""), "empty"),
    (gzip.compress(b"signal,host,thread,busy_pct\n"), "no result rows"),
], ids=["missing", "not_gzip", "truncated", "empty", "header_only"])
def test_a_bad_results_file_is_bad_input(seeded, tls, tmp_path, data, words):
    path = tmp_path / "given.csv.gz"
    if data is not None:
        path.write_bytes(data)
    _bad(run_action(payload(seeded.fake, str(path)), tls), exitcodes.BAD_INPUT, words)


@pytest.mark.parametrize("rows,words", [
    ([dict(thread_row(), cpu_ratio="0.9", owner_team="ops")], ["cpu_ratio, owner_team"]),
    ([thread_row(), dict(thread_row(), busy_pct="lots")], ["result 2", "busy_pct"]),
    ([dict(thread_row(), signal="cpu_melted")], ["signal='cpu_melted'"]),
], ids=["unknown_columns", "bad_value", "unknown_signal"])
def test_bad_rows_are_bad_input(seeded, flag, rows, words):
    _bad(flag(seeded.fake, rows, expect=None), exitcodes.BAD_INPUT, *words)


@pytest.mark.parametrize("conf,words", [
    ({"webhook_url": "http://hooks.example.com/x"}, "must use https"),
    ({"webhook_url": "https://"}, "no valid host"),
    ({"webhook_url": "https://exa mple.com/x"}, "spaces"),
    ({"webhook_url": "https://user:pw@hooks.example.com/x"}, "credentials"),
    ({"webhook_url": "https://hooks.example.com:99999/x"}, "not a valid URL"),
    ({"webhook_url": "ftp://hooks.example.com/x"}, "must use https"),
    ({"min_severity": "urgent"}, "min_severity"),
    ({"index": "_internal"}, "index"),
], ids=["http", "no_host", "space", "credentials", "port", "ftp", "min_severity", "index"])
def test_bad_parameters_are_config_errors(seeded, flag, conf, words):
    _bad(flag(seeded.fake, [thread_row()], expect=None, **conf), exitcodes.BAD_CONFIG, words)


def test_bad_payload_or_command_line(seeded, tls, tmp_path):
    res = write_results(str(tmp_path / "results.csv.gz"), [thread_row()])
    _bad(run_action(None, tls, raw="{not json"), exitcodes.BAD_INPUT, "not JSON")
    _bad(run_action(None, tls, raw=""), exitcodes.BAD_INPUT, "no payload")
    p = payload(seeded.fake, res)
    del p["session_key"]
    _bad(run_action(p, tls), exitcodes.BAD_INPUT, "session_key")
    _bad(run_action(payload(seeded.fake, res), tls, argv=()), exitcodes.USAGE, "--execute")


def test_bad_threshold_macro_is_a_config_error(seeded, flag):
    seeded.macros["ingest_doctor_thread_busy_pct"] = "ninety"
    _bad(flag(seeded.fake, [thread_row()], expect=None), exitcodes.BAD_CONFIG, "thread_busy_pct")


def test_kv_store_initializing_is_retried_then_transient(seeded, flag):
    seeded.kv.unavailable = -1                                     # the 503 twin from now on
    p = flag(seeded.fake, [thread_row(), queue_row()], expect=None, sid="during-kv-init")
    _bad(p, exitcodes.TRANSIENT, "KV Store is initializing", "4 times")
    assert p.stderr.count("call failed") == 4                      # bounded: 4 attempts, then give up
    assert "attempt=4" in p.stderr


def test_kv_store_initializing_briefly_is_ridden_out(sd, flag):
    sd.kv.unavailable = 2
    p = flag(sd.fake, [thread_row()])
    assert list(sd.kv.records) == ["hf-01~2Fhec_input~2F-"] and "retrying" in p.stderr


def test_webhook_down_is_transient_after_the_store_is_written(sd, flag):
    sd.fake.route("POST", "/hook", fault("503"))
    p = flag(sd.fake, [thread_row()], LOOPBACK_HOOK, expect=None, webhook_url=sd.fake.url + "/hook")
    _bad(p, exitcodes.TRANSIENT, "webhook")
    assert list(sd.kv.records) == ["hf-01~2Fhec_input~2F-"] and len(sd.events) == 1


def test_splunkd_rejecting_our_request_is_unexpected(sd, flag):
    sd.fake.route("POST", "/servicesNS/nobody/ingest_doctor/storage/collections/data/"
                          "ingest_doctor_findings/batch_save", messages(400, "Malformed JSON document"))
    _bad(flag(sd.fake, [thread_row()], expect=None), exitcodes.UNEXPECTED, "HTTP 400", "Malformed JSON document")
    # the event went out before the save: it stays, and the next run stores the record
    assert len(sd.events) == 1 and sd.kv.records == {}


def test_session_expired_is_auth(fake_splunkd, flag):
    Splunkd(fake_splunkd)
    fake_splunkd.route("GET", "/servicesNS/nobody/ingest_doctor/configs/conf-macros", fault("401"))
    _bad(flag(fake_splunkd, [thread_row()], expect=None), exitcodes.AUTH, "401")


# ---------------------------------------------------------------------------- in-process, same protocol
def test_main_in_process(sd, tmp_path, monkeypatch):
    import ingest_doctor_flag
    monkeypatch.setenv("INGEST_DOCTOR_RETRY_BACKOFF_S", "0.01")
    res = write_results(str(tmp_path / "results.csv.gz"), [thread_row()])
    out, err = io.StringIO(), io.StringIO()
    code = ingest_doctor_flag.main(["--execute"], io.StringIO(json.dumps(payload(sd.fake, res))), out, err)
    assert code == exitcodes.OK, err.getvalue()
    assert list(sd.kv.records) == ["hf-01~2Fhec_input~2F-"] and out.getvalue() == ""
