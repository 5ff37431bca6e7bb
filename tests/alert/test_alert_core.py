"""The alert action's pure core, with plain data: payload, results, store plan, latency."""

import gzip
import json
from types import SimpleNamespace

import pytest

from ingest_doctor import exitcodes, thresholds
from ingest_doctor.alert.action import events_index, judge, load_thresholds
from ingest_doctor.alert.payload import (AlertParams, BadConfig, BadInput, index_from_macro, parse_params,
                                         parse_payload, validate_webhook_url)
from ingest_doctor.alert.results import decode_mv, read_rows
from ingest_doctor.delivery.store import kv_key, kv_query, kv_query_runs, plan
from ingest_doctor.diagnose import diagnose
from ingest_doctor.evidence import Evidence, HecProbe
from ingest_doctor.findings import Finding

TH = thresholds.defaults()


# ---------------------------------------------------------------------------- payload
def test_params_defaults_and_validation():
    assert parse_params({}) == AlertParams("warning", None, None)
    assert parse_params({"min_severity": "CRITICAL ", "index": "ops"}) == AlertParams("critical", None, "ops",
                                                                               given=frozenset({"min_severity"}))
    for bad in [{"min_severity": "high"}] + [{"index": i} for i in ("Main", "_internal", "-x", "a b", "x" * 81)]:
        with pytest.raises(BadConfig):
            parse_params(bad)


@pytest.mark.parametrize("url", ["https://hooks.example.com/a?b=c", "https://10.0.0.5:8443/x",
                                 "https://[2001:db8::1]/hook", "HTTPS://Hooks.Example.com"])
def test_good_webhook_urls(url):
    assert validate_webhook_url(url) == url


@pytest.mark.parametrize("url", ["http://x.example.com", "https:///path", "https://-bad-.example.com/",
                                 "https://a..b/", "https://x.example.com:0/", "javascript:alert(1)",
                                 "https://x.example.com/\nHost: evil"])
def test_bad_webhook_urls(url):
    with pytest.raises(BadConfig) as e:
        validate_webhook_url(url)
    assert e.value.code == exitcodes.BAD_CONFIG


def test_payload_errors_are_bad_input():
    for text in ("", "[]", "{", json.dumps({"server_uri": "x", "session_key": "k", "results_file": "f"})):
        with pytest.raises(BadInput):
            parse_payload(text)
    p = parse_payload(json.dumps({"server_uri": "https://127.0.0.1:8089/", "session_key": "k",
                                  "results_file": "/r.csv.gz", "configuration": {"webhook_url": ""}}))
    assert p.server_uri == "https://127.0.0.1:8089" and p.params.webhook_url is None


def test_index_from_macro():
    assert index_from_macro("index=main") == "main"
    assert index_from_macro(' index = "ops_findings" ') == "ops_findings"
    assert index_from_macro("index=a OR index=b") is None and index_from_macro(None) is None


# ---------------------------------------------------------------------------- results
def test_decode_mv():
    assert decode_mv("$a$;$b$$c$;$$") == ["a", "b$c", ""]
    for bad in ("a", "$a", "$a$b$"):
        with pytest.raises(ValueError):
            decode_mv(bad)


def test_rows_stream_with_internal_columns(tmp_path):
    p = tmp_path / "r.csv.gz"
    p.write_bytes(gzip.compress(b'signal,host,_time,__mv_host\nthread_busy,"a\nb",1,$a$;$b$\n'))
    rows = list(read_rows(str(p), ["signal", "host"]))
    assert rows[0].values("host") == ["a", "b"] and rows[0].get("_time") == "1" and rows[0].line == 1


# ---------------------------------------------------------------------------- store plan
def _finding(sev="warning", summary="s"):
    return Finding("typing", sev, "idx/01", 2, "typingQueue", summary)


def test_kv_key_is_safe_and_injective():
    ids = ["a/b/-", "a~2Fb/-", "a b/c/1", "é/x/-", "a_b/c/1", "a.b/c/1"]
    keys = [kv_key(i) for i in ids]
    assert len(set(keys)) == len(ids)
    assert all(all(c.isalnum() or c in "_.-~" for c in k) for k in keys)
    assert kv_key("hf-01/hec_input/-") == "hf-01~2Fhec_input~2F-"
    assert json.loads(kv_query(["b", "a", "a"])) == {"$or": [{"_key": "a"}, {"_key": "b"}]}


@pytest.mark.parametrize("max_bytes", [1, 200, 1000, 1001, 1002, 1003, 7500])
def test_kv_reads_are_runs_of_keys_whose_url_query_fits_the_bound(max_bytes):
    from urllib.parse import urlencode
    keys = ["idx-%03d~2Ftyping~2F%d" % (i, i % 4) for i in range(300)] + ["h" * 255 + "~2Fx~2F-", "a~7E~2Fb"] * 2
    keys += ["odd key \u00e9\"\\/%d" % i for i in range(20)]          # not kv_key made: quoted in full
    runs = kv_query_runs(keys, max_bytes)
    assert [k for run in runs for k in run] == sorted(set(keys))       # every key once, in order
    for run in runs:
        size = len(urlencode({"query": kv_query(run)})) - len("query=")
        assert size <= max_bytes or len(run) == 1                       # only a key too long alone exceeds it
    for a, b in zip(runs, runs[1:]):                                    # and a run is cut only when full
        assert len(urlencode({"query": kv_query(a + b[:1])})) - len("query=") > max_bytes
    assert kv_query_runs([], max_bytes) == []


def test_plan_new_update_retry_reopen():
    f = _finding()
    up = plan(None, f, 100.0, "sid1", "s")
    assert up.new and up.record["count"] == 1 and up.record["first_seen"] == up.record["last_seen"] == 100.0
    assert up.record["_key"] == kv_key("idx/01/typing/2") and up.record["pipeline_set"] == "2"
    again = plan(up.record, f, 400.0, "sid2", "s")
    assert not again.new and again.record["count"] == 2 and again.record["first_seen"] == 100.0
    assert plan(again.record, f, 500.0, "sid2", "s") is None                    # a retry
    changed = plan(again.record, _finding("critical"), 500.0, "sid2", "s")      # same run, new content
    assert changed.record["count"] == 2 and changed.record["severity"] == "critical"
    resolved = dict(again.record, status="resolved", resolved_at=450.0)
    re_open = plan(resolved, f, 600.0, "sid3", "s")
    assert re_open.reopened and re_open.record["status"] == "open" and re_open.record["resolved_at"] == ""
    assert plan(dict(up.record, count="7", first_seen="90"), f, 700.0, "sid4", "s").record["count"] == 8


# ---------------------------------------------------------------------------- thresholds from macros
def test_thresholds_come_from_the_macros():
    th = load_thresholds({"ingest_doctor_thread_busy_pct": "80", "other": "x"})
    assert th.thread_busy_pct == 80 and th.queue_fill_pct == thresholds.defaults().queue_fill_pct
    with pytest.raises(BadConfig):
        load_thresholds({"ingest_doctor_queue_fill_pct": "180"})


# ---------------------------------------------------------------------------- judging through the core
def test_judge_dedups_by_id_and_applies_the_floor():
    ev = Evidence(host="hf")
    ev.hec_probes = [HecProbe(1000.0 + 10 * i, 200, None, v, "event") for i, v in enumerate([1500, 1600, 1700, 1800])]
    found, below, _ = judge({"hf": ev}, TH, "critical", diagnose)
    assert found == [] and below == 1
    found, below, _ = judge({"hf": ev}, TH, "info", diagnose)
    assert [f.id for f in found] == ["hf/hec_input/-"] and below == 0


def test_events_index_falls_back_when_the_macro_is_not_plain():
    logged = []
    port = SimpleNamespace(log=lambda *a, **k: logged.append(a))        # the port's log, recorded
    p = parse_payload(json.dumps({"server_uri": "https://127.0.0.1:8089", "session_key": "k",
                                  "results_file": "/r"}))
    macros = {"ingest_doctor_events_index": "index=weird OR index=main"}
    assert events_index(p, macros, port) == "ingest_doctor" and logged[0][0] == "WARN"
