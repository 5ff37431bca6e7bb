"""The collector core in-process: parameters, fault handling, window, finding and config events.

HTTP is a plain function here (no sockets: tests/fakes/collector_http.py); test_collector_protocol.py runs the real script.
"""
import json
import os
from unittest import mock

import pytest

from ingest_doctor.collector import gate, metrics_events, params as params_mod, poll as collector, window as window_mod
from ingest_doctor.read import endpoints, readstep
from ingest_doctor import thresholds
from ingest_doctor.evidence import Config, Evidence
from ingest_doctor.findings import Finding, Report
from fakes.collector_http import MACROS, Q, FakeHttp, body, collector_for, params, queues, routes


# --------------------------------------------------------------------------- parameters

def test_defaults_and_splunk_keys_ignored():
    p = params_mod.parse_params({"index": "main", "disabled": "0", "host": "x", "interval": "60"})
    assert p == params_mod.Params()
    assert p.poll_interval == 10 and p.request_timeout == 5 and p.thread_cpu and p.hec_tls_verify
    assert p.metrics_index == "ingest_doctor_metrics"


def test_values_parsed():
    p = params_mod.parse_params({"poll_interval": "1", "hec_health_url": "http://hf-01:8088",
                                "hec_token_credential": "hec_probe", "thread_cpu": "false",
                                "hec_tls_verify": "no", "request_timeout": "2.5", "metrics_index": "idx_m"})
    assert p.hec_health_url == "http://hf-01:8088/services/collector/health"
    assert p.credential() == (params_mod.DEFAULT_CREDENTIAL_REALM, "hec_probe")
    assert params_mod.parse_params({"hec_token_credential": "myrealm:tok"}).credential() == ("myrealm", "tok")
    assert (p.thread_cpu, p.hec_tls_verify, p.request_timeout, p.metrics_index) == (False, False, 2.5, "idx_m")


@pytest.mark.parametrize("name,value", [
    ("poll_interval", "0"), ("poll_interval", "3601"), ("poll_interval", "ten"), ("poll_interval", "nan"),
    ("request_timeout", "0.5"), ("request_timeout", "61"),
    ("thread_cpu", "maybe"), ("hec_tls_verify", "2"),
    ("hec_health_url", "ftp://hf-01:8088"), ("hec_health_url", "https://"),
    ("hec_health_url", "https://admin:changeme@hf-01:8088"), ("hec_health_url", "https://hf-01:99999"),
    ("hec_token_credential", "two words"), ("hec_token_credential", "a:b:c"),
    ("hec_token_credential", "11111111-2222-3333-4444-555555555555"),
    ("metrics_index", "_internal"), ("metrics_index", "Bad Index"),
    ("hec_ca_file", "/nonexistent/ca.pem"), ("hec_sslCommonNameToCheck", "a b"),
])
def test_bad_values_name_the_parameter(name, value):
    with pytest.raises(params_mod.ParamError) as e:
        params_mod.parse_params({name: value}, os.path.isfile)
    assert name in str(e.value)


def kinds(res):
    return [o.kind for o in res.events]


def logs_of_polls(c, steps):
    """The log lines of polls at 1000 + 10 * step s (polls 10 s apart), for each step in order."""
    return [line for i in steps for line in c.poll(1000.0 + 10 * i).logs]


def test_poll_reads_every_endpoint_with_the_session_key_and_json_mode():
    http = FakeHttp(routes())
    res = collector_for(http).poll(1000.0)
    urls = [c[1] for c in http.calls if c[4] == "splunkd"]
    assert [u.split("8089/")[1].split("?")[0] for u in urls] == [e.path for e in endpoints.COLLECTOR]
    assert all(u.endswith("?output_mode=json&count=0") for u in urls if MACROS not in u)
    assert [u for u in urls if u.endswith("/%s?search=ingest_doctor_&output_mode=json&count=0" % MACROS)]
    assert all(c[2]["Authorization"] == "Splunk KEY" for c in http.calls if c[4] == "splunkd")
    # HEC health derived from [http]: https (enableSSL=1), port 8088, on the loopback; no token, no POST.
    hec = [c for c in http.calls if c[4] == "hec"]
    assert [(c[0], c[1]) for c in hec] == [("GET", "https://127.0.0.1:8088/services/collector/health")]
    assert "Authorization" not in hec[0][2]
    assert kinds(res)[0] == "config"
    assert "finding" not in kinds(res)


def test_hec_url_follows_enable_ssl_and_port_and_disabled():
    cfg = Config(hec_enabled=True, hec_port=18088, hec_ssl=False)
    assert collector.hec_urls(params(), cfg) == ("http://127.0.0.1:18088/services/collector/health",
                                                 "http://127.0.0.1:18088/services/collector/event")
    assert collector.hec_urls(params(), Config(hec_enabled=False, hec_port=8088)) is None
    assert collector.hec_urls(params(), Config()) is None
    p = params(hec_health_url="https://hec.example:443/services/collector/health")
    assert collector.hec_urls(p, Config(hec_enabled=False))[1] == "https://hec.example:443/services/collector/event"


@pytest.mark.parametrize("fetched,kind", [
    (endpoints.Fetched(401, b'{"messages":[{"type":"WARN","text":"call not properly authenticated"}]}'), "401"),
    (endpoints.Fetched(403, b'{"messages":[{"type":"ERROR","text":"... (requires capability: list_introspection)."}]}'),
     "403"),
    (endpoints.Fetched(404, b'{"messages":[{"type":"ERROR","text":"Not Found"}]}'), "404"),
    (endpoints.Fetched(503, b'{"messages":[{"type":"ERROR","text":"KV Store is initializing."}]}'), "5xx"),
    (endpoints.Fetched(500, b"<!doctype html><html><body>Oops</body></html>"), "5xx"),
    (endpoints.Fetched(200, b"<!doctype html><html><body>login</body></html>"), "malformed"),
    (endpoints.Fetched(200, b'{"links":{},"entry":[{"name":"parsingQueue","content":{"current_'), "malformed"),
    (endpoints.Fetched(None, b"", 5000.0, "timeout", "timed out"), "timeout"),
    (endpoints.Fetched(None, b"", 1.0, "refused", "Connection refused"), "refused"),
    (endpoints.Fetched(None, b"", 1.0, "truncated", "IncompleteRead"), "truncated"),
    (endpoints.Fetched(None, b"", 1.0, "reset", "reset by peer"), "reset"),
])
def test_each_fault_is_classified_counted_logged_and_the_poll_goes_on(fetched, kind):
    c = collector_for(FakeHttp({**routes(), Q: fetched}))
    res = c.poll(1000.0)
    metrics = [o.data for o in res.events if o.kind == "metrics"]
    assert {"endpoint": Q, "kind": kind, "ingest_doctor.endpoint.errors": 1} in metrics
    assert [line for line in res.logs if "endpoint=%s" % Q in line.message and "kind=%s" % kind in line.message]
    # The rest of the poll went on: HEC health, host info and config are there.
    assert any("ingest_doctor.hec.health_rtt_ms" in m for m in metrics)
    assert kinds(res)[0] == "config"
    if kind == "403":
        assert len(res.logs) == 1 and "missing_capability=list_introspection" in res.logs[0].message
    if kind == "404":
        assert Q in c.absent


def test_404_noted_once_then_skipped_and_errors_logged_once_a_minute():
    http = FakeHttp({**routes(), Q: endpoints.Fetched(404, b'{"messages":[{"type":"ERROR","text":"Not Found"}]}'),
                     "services/server/pipelinesets": endpoints.Fetched(None, b"", 5.0, "timeout", "timed out")})
    c = collector_for(http)
    logs = logs_of_polls(c, range(7))                 # 7 polls, 10 s apart: 60 s
    assert sum(1 for c_ in http.calls if Q in c_[1]) == 1
    assert sum(1 for line in logs if "kind=404" in line.message) == 1
    timeouts = [line.message for line in logs if "kind=timeout" in line.message]
    assert len(timeouts) == 2 and "repeated_since_last_log=5" in timeouts[1]


def test_session_key_and_token_never_logged_or_emitted():
    r = routes()
    r["services/server/pipelinesets"] = endpoints.Fetched(401, b'{"messages":[{"type":"WARN","text":"x"}]}')
    r["services/collector/event"] = (403, {"text": "Invalid token", "code": 4})
    c = collector.Collector(params(hec_token_credential="hec_probe"), "https://127.0.0.1:8089", "SECRETKEY",
                            FakeHttp(r), probe_token=lambda: "TOKEN-1234", server_host="idx-01")
    text = ""
    for i in range(3):
        res = c.poll(1000.0 + i)
        text += " ".join(line.message for line in res.logs) + json.dumps([o.data for o in res.events])
    assert "SECRETKEY" not in text and "TOKEN-1234" not in text
    assert "kind=403" in text


def test_credential_failure_is_retried_later_not_every_poll():
    token = mock.Mock(side_effect=RuntimeError("HTTP 403 Forbidden"))     # storage/passwords refuses the read
    c = collector.Collector(params(hec_token_credential="hec_probe"), "https://127.0.0.1:8089", "K",
                            FakeHttp(routes()), probe_token=token)
    logs = logs_of_polls(c, range(10))
    assert token.call_args_list == [mock.call()]
    assert any("category=endpoint_error endpoint=storage/passwords kind=credential" in line.message for line in logs)
    c.poll(1000.0 + collector.CREDENTIAL_RETRY_S + 1)
    assert token.call_args_list == [mock.call()] * 2


def test_config_event_on_start_and_on_change_only_and_kept_through_failures():
    HTTP = "services/data/inputs/http/http"     # the global [http] settings
    state = {"threads": "2"}
    r = {**routes(), HTTP: lambda: body(HTTP, [("http", {
        "dedicatedIoThreads": state["threads"], "disabled": False, "enableSSL": "1", "port": "8088"})])}
    live = r[HTTP]                              # answers with state["threads"] at request time
    http = FakeHttp(r)
    c = collector_for(http)
    t = [1.0]

    def poll_until_read(path):
        """Poll every 10 s until `path` is read again (config endpoints come back about once a minute)."""
        for _ in range(20):
            t[0] += 10.0
            before = len(http.calls)
            res = c.poll(t[0])
            if any(path in call[1] for call in http.calls[before:]):
                return res
        raise AssertionError("%s was not read again within 200 s" % path)

    assert kinds(c.poll(t[0])).count("config") == 1
    assert kinds(poll_until_read(HTTP)).count("config") == 0
    r[HTTP] = endpoints.Fetched(None, b"", 5.0, "timeout")
    assert kinds(poll_until_read(HTTP)).count("config") == 0       # a failed read is not a change
    r[HTTP] = live
    state["threads"] = "8"
    res = poll_until_read(HTTP)
    cfg = [o.data for o in res.events if o.kind == "config"]
    assert len(cfg) == 1 and cfg[0]["config"]["dedicated_io_threads"] == 8 and cfg[0]["host"] == "idx-01"
    assert Config.from_dict(cfg[0]["config"]).parallel_ingestion_pipelines == 2


def test_config_endpoints_are_read_once_a_minute_runtime_endpoints_every_poll():
    http = FakeHttp(routes())
    c = collector_for(http)

    def read(t):
        before = len(http.calls)
        c.poll(t)
        return {u[1].split("8089/")[1].split("?")[0] for u in http.calls[before:] if u[4] == "splunkd"}

    everything = {e.path for e in endpoints.COLLECTOR}
    runtime = {e.path for e in endpoints.COLLECTOR if not e.config}
    config = everything - runtime
    assert read(1000.0) == everything
    assert read(1010.0) == runtime
    # Once due, the config endpoints come back one a poll, so no poll reads them all.
    again = []
    for i in range(len(config)):
        got = read(1000.0 + collector.CONFIG_POLL_S + 10 * i)
        assert runtime <= got and len(got - runtime) == 1
        again.extend(got - runtime)
    assert sorted(again) == sorted(config)


def test_config_event_is_sent_again_daily_without_a_change():
    c = collector_for(FakeHttp(routes()))
    assert kinds(c.poll(1000.0)).count("config") == 1
    assert kinds(c.poll(1000.0 + collector.CONFIG_REFRESH_S - 10)).count("config") == 0
    assert kinds(c.poll(1000.0 + collector.CONFIG_REFRESH_S)).count("config") == 1


def test_sustained_saturation_gives_a_finding_within_three_polls_and_a_spike_none():
    state = {"fill": 2.0}
    c = collector_for(FakeHttp({**routes(), Q: lambda: queues(state["fill"])}))
    for i in range(5):
        assert "finding" not in kinds(c.poll(100.0 + 10 * i))
    state["fill"] = 99.5                     # one-poll spike
    assert "finding" not in kinds(c.poll(150.0))
    state["fill"] = 2.0
    for i in range(4):
        assert "finding" not in kinds(c.poll(160.0 + 10 * i))
    state["fill"] = 98.0                     # sustained from here
    found_at = None
    for i in range(3):
        res = c.poll(200.0 + 10 * i)
        if "finding" in kinds(res):
            found_at = i + 1
            findings = [o.data for o in res.events if o.kind == "finding"]
            break
    assert found_at is not None and found_at <= 3
    assert {f["bottleneck"] for f in findings} == {"indexing"}
    assert {f["pipeline_set"] for f in findings} == {0, 1}
    assert all(f["detected_by"] == "collector" and f["severity"] in ("warning", "critical") for f in findings)


def test_finding_gate_new_severity_change_and_repeat():
    g = gate.FindingGate(repeat_s=900)

    def report(sev):
        return Report("h", [Finding("indexing", sev, "h", 0, "indexQueue", "s")])

    assert len(g.select(report("warning"), 0)) == 1
    assert g.select(report("warning"), 10) == []
    assert len(g.select(report("critical"), 20)) == 1
    assert g.select(report("critical"), 900) == []
    assert len(g.select(report("critical"), 921)) == 1       # still there after 15 minutes
    assert g.select(report("info"), 930) == []               # info is never emitted
    assert g.select(Report("h", []), 940) == []
    assert g.select(report("critical"), 950) == []            # a flap is not news
    assert len(g.select(report("critical"), 950 + 900 + 1)) == 1


def test_window_and_state_stay_bounded_over_many_polls():
    http = FakeHttp({**routes(), "services/server/pipelinesets": endpoints.Fetched(None, b"", 5.0, "refused")})
    c = collector.Collector(params(poll_interval="1"), "https://127.0.0.1:8089", "K", http)
    for i in range(400):
        c.poll(1000.0 + i)
    assert len(c.window.polls) <= window_mod.WINDOW_MAX_POLLS
    assert len(c.errors._last) <= len(endpoints.COLLECTOR) + 2


def test_metric_events_are_dimensions_and_measures_only():
    c = collector_for(FakeHttp(routes()))
    res = c.poll(1.0)
    for o in res.events:
        if o.kind != "metrics":
            continue
        assert metrics_events.measures(o.data)
        for k, v in o.data.items():
            if k.startswith("ingest_doctor."):
                assert isinstance(v, (int, float)) and not isinstance(v, bool)
            else:
                assert isinstance(v, str) and not set(v) & set('",}')
    samples = [o.data for o in res.events if o.data.get("window") == "sample"]
    assert {(s["queue"], s["pipeline_set"]) for s in samples} == {
        (q, p) for q in ("parsingQueue", "aggQueue", "typingQueue", "indexQueue") for p in ("0", "1")}


def test_a_parser_or_engine_bug_never_stops_the_poll(monkeypatch):
    real = endpoints.apply_rest

    def flaky(ev, path, body, time=None):
        if path.endswith("pipelinesets"):
            raise TypeError("unexpected shape")
        return real(ev, path, body, time=time)

    monkeypatch.setattr(readstep, "apply_rest", flaky)
    monkeypatch.setattr(collector.diagnose_mod, "diagnose", lambda ev, th, finite=False: 1 / 0)
    res = collector_for(FakeHttp(routes())).poll(1.0)
    assert any("endpoint=services/server/pipelinesets kind=malformed" in l.message and "TypeError" in l.message
               for l in res.logs)
    assert any("endpoint=diagnose kind=error" in l.message and "ZeroDivisionError" in l.message for l in res.logs)
    assert "config" in kinds(res) and kinds(res).count("metrics") > 10 and "finding" not in kinds(res)


@pytest.mark.parametrize("interval", [1.0, 10.0], ids=["1s", "10s"])
def test_window_keeps_recent_polls_whole_and_older_ones_a_minute_apart(interval):
    w = window_mod.Window(window_mod.WINDOW_MAX_POLLS, 600.0, recent=4)
    for i in range(int(1800 / interval)):
        w.add(Evidence(), 1000.0 + i * interval)
    times = list(w.times)
    now = times[-1]
    assert [now - t for t in times[-4:]] == [3 * interval, 2 * interval, interval, 0.0]
    older = times[:-4]
    assert all(b - a >= 60.0 for a, b in zip(older, older[1:]))
    assert now - times[0] <= 600.0 and now - times[0] >= 540.0      # still covers ~10 minutes
    assert len(times) <= 4 + 11


def test_tuned_macros_are_judged_with_and_the_last_good_reading_stands_through_failures():
    r = routes()
    r[MACROS] = body(MACROS, [("ingest_doctor_thread_busy_pct", {"definition": "80"}),
                              ("ingest_doctor_queue_fill_pct", {"definition": "not a number"})])
    c = collector_for(FakeHttp(r))
    res = c.poll(1000.0)
    assert c.thresholds.thread_busy_pct == 80 and c.thresholds.queue_fill_pct == thresholds.defaults().queue_fill_pct
    line = [l for l in res.logs if "category=thresholds" in l.message]
    assert len(line) == 1 and line[0].severity == "WARN" and "queue_fill_pct" in line[0].message
    r[MACROS] = endpoints.Fetched(None, b"", 5.0, "timeout", "timed out")
    logs = logs_of_polls(c, range(1, 20))                   # past the once-a-minute re-read
    assert c.thresholds.thread_busy_pct == 80
    assert any("endpoint=%s kind=timeout" % MACROS in l.message for l in logs)
    assert not [l for l in logs if "category=thresholds" in l.message]


def test_macros_read_again_unchanged_are_not_judged_again_and_a_change_is(monkeypatch):
    """Issue 21 (cost): the macros are re-read once every few minutes; the same macros give the same
    thresholds, so they are worked out again only when the macros changed."""
    r = routes()
    r[MACROS] = body(MACROS, [("ingest_doctor_thread_busy_pct", {"definition": "80"})])
    http = FakeHttp(r)
    c = collector_for(http)
    judged = mock.Mock(wraps=thresholds.from_macros)
    monkeypatch.setattr(collector.thresholds_mod, "from_macros", judged)
    logs_of_polls(c, range(40))                             # the macros re-read more than once
    assert len([u for _, u, _, _, _ in http.calls if MACROS in u]) >= 3
    assert judged.call_args_list == [mock.call({"ingest_doctor_thread_busy_pct": "80"})]
    assert c.thresholds.thread_busy_pct == 80
    r[MACROS] = body(MACROS, [("ingest_doctor_thread_busy_pct", {"definition": "70"})])
    logs = logs_of_polls(c, range(40, 80))
    assert judged.call_count == 2 and c.thresholds.thread_busy_pct == 70
    assert len([l for l in logs if "category=thresholds" in l.message]) == 1


def test_unreadable_token_list_leaves_hec_tokens_unknown():
    tokens = endpoints.Fetched(403, b'{"messages":[{"type":"ERROR","text":"no"}]}')
    res = collector_for(FakeHttp({**routes(), "services/data/inputs/http": tokens})).poll(1000.0)
    cfg = [o.data["config"] for o in res.events if o.kind == "config"][0]
    assert cfg["hec_tokens"] is None and cfg["dedicated_io_threads"] == 2


def test_429_with_a_hec_code_is_an_answer_not_a_fault():
    """The collector hands a 429 code-26 health answer to the rules as an answer, not as an endpoint fault."""
    busy = (429, {"text": "HEC queue is at capacity and cannot process any more requests", "code": 26})
    c = collector_for(FakeHttp({**routes(), "services/collector/health": busy}))
    res = c.poll(1000.0)
    errs = [o.data for o in res.events if o.kind == "metrics" and "ingest_doctor.endpoint.errors" in o.data]
    assert not [e for e in errs if "health" in e.get("endpoint", "")]
    (probe,) = [p for p in c.window.merged().hec_probes if p.kind == "health"]
    assert (probe.status, probe.code) == (429, 26)
