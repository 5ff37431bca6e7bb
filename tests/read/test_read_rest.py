"""REST envelope parsing and apply_rest for every endpoint of the contract (real shapes, hand-made values)."""
import json

import pytest

from ingest_doctor.read import endpoints, rest
from ingest_doctor.evidence import Evidence
from fakes.instance import load_script
from fakes.paths import SCENARIOS
from fakes.snapbuilder import Snap, envelope, queue_content


def test_entries_from_bytes_str_and_dict():
    body = envelope("services/server/introspection/indexer", [("indexer", {"status": "normal", "reason": ""})])
    for form in (body, json.dumps(body), json.dumps(body).encode()):
        (e,) = rest.entries(form)
        assert e.name == "indexer" and e.content["status"] == "normal" and e.content["eai:acl"] is None
        name, content = e           # unpacks as a pair
        assert name == "indexer"


@pytest.mark.parametrize("body,words", [
    (b'{"links":{},"entry":[{"name":"parsingQueue","content":{"current_', "malformed JSON"),
    (b"<!doctype html><html><body><h1>Oops.</h1></body></html>", "HTML"),
    (b"", "empty"),
    (b'{"messages":[{"type":"ERROR","text":"You (user=x) do not have permission"}]}', "do not have permission"),
    (b'[1, 2]', "not a splunkd envelope"),
])
def test_entries_rejects_what_is_not_an_envelope(body, words):
    with pytest.raises(rest.RestError) as e:
        rest.entries(body)
    assert words in str(e.value)


@pytest.mark.parametrize("value,expected", [("2", 2), (2, 2), (2.0, 2), ("13.90", 13), (None, None), ("n/a", None),
                                            (True, None)])
def test_as_int(value, expected):
    assert rest.as_int(value) == expected


@pytest.mark.parametrize("value,expected", [("1", True), ("0", False), ("true", True), ("False", False), (True, True),
                                            (0, False), ("maybe", None), (None, None)])
def test_as_bool(value, expected):
    assert rest.as_bool(value) == expected


def test_exact_key_wins_over_lowercased_duplicate():
    assert rest.get({"enableSSL": "1", "enablessl": "false"}, "enableSSL") == "1"
    assert rest.get({"enablessl": "false"}, "enableSSL") == "false"


def test_normalise_path():
    assert rest.normalise_path("/servicesNS/nobody/splunk_httpinput/data/inputs/http?output_mode=json") == \
        "services/data/inputs/http"
    assert rest.normalise_path("services/server/info.json") == "services/server/info"


def test_unknown_path_adds_nothing():
    ev = Evidence()
    assert endpoints.apply_rest(ev, "/services/apps/local", envelope("services/apps/local", [("x", {})])) is False
    assert ev.sources == []


def _apply(path, entries, time=None, ev=None):
    ev = ev or Evidence()
    assert endpoints.apply_rest(ev, "/" + path, json.dumps(envelope(path, entries)), time=time)
    return ev


def test_queues_with_pipeline_sets_and_lookback_windows():
    ev = _apply("services/server/introspection/queues",
                [("parsingQueue.0", queue_content(50, 40, 91, 95)), ("typingQueue.3", queue_content(10, 10, 10, 10)),
                 ("AEQ", queue_content(0, 0, 0, 0))], time=100.0)
    by = {(q.queue, q.pipeline_set, q.window): q for q in ev.queues}
    fills = [by[("parsingQueue", 0, window)].fill_pct for window in ("sample", "10m", "15m")]
    assert fills == pytest.approx([50, 91, 95], abs=0.1)
    assert by[("typingQueue", 3, "1m")].time == 100.0
    assert ("AEQ", None, "sample") in by


def test_indexer_status_and_dot_reason():
    ev = _apply("services/server/introspection/indexer",
                [("indexer", {"average_KBps": 25.5, "reason": ".", "status": "throttled"})])
    assert (ev.indexer.status, ev.indexer.reason, ev.indexer.average_kbps) == ("throttled", "", 25.5)


def test_pipelinesets_strings():
    ev = _apply("services/server/pipelinesets", [("ingest_pipe_1", {
        "busiest_thread_name": "indexerPipe", "dutycycle_ratio": "0.98", "requests_last_period": "12", "share": "1"})])
    (p,) = ev.pipelinesets
    assert (p.pipeline_set, p.busiest_thread, round(p.dutycycle_pct, 1), p.share) == (1, "indexerpipe", 98.0, 1.0)


def test_resource_usage_host_and_splunkd_cpu_merge_into_one_poll_sample():
    s = Snap("idx").resources(24, 6.5, 102.5)
    ev = Evidence()
    for path in ("services/server/status/resource-usage/hostwide",
                 "services/server/status/resource-usage/splunk-processes"):
        endpoints.apply_rest(ev, path, s.rest_bodies[path], time=50.0)
    (c,) = ev.cpu
    assert (c.cores, c.host_cpu_pct, c.splunkd_cpu_pct) == (24, 6.5, 102.5)
    assert ev.host_cpu.splunkd_cpu_pct == 102.5        # only splunkd_server, not helper processes


def test_server_info_and_http_and_conf_endpoints():
    s = (Snap("hf-01").server_info(16, ["heavyweight_forwarder"]).http("4", "0", "0", tokens=("a", "b"))
         .server_general("2", "weighted_random").server_queue("10MB").tcpout("true", "idx1:9997")
         .props({"app:log": {"TRANSFORMS-x": "route_x", "SHOULD_LINEMERGE": "false"}}))
    ev = Evidence()
    for path, body in s.rest_bodies.items():
        assert endpoints.apply_rest(ev, path, body)
    cfg = ev.config
    assert ev.host == "hf-01" and ev.host_cpu.cores == 16 and cfg.roles == ["heavyweight_forwarder"]
    assert (cfg.dedicated_io_threads, cfg.max_threads, cfg.hec_enabled, cfg.hec_port, cfg.hec_ssl) == (4, 0, True, 8088,
                                                                                                       True)
    assert cfg.hec_tokens == 2
    assert (cfg.parallel_ingestion_pipelines, cfg.pipeline_set_selection_policy) == (2, "weighted_random")
    assert cfg.queue_max_size == {"default": "10MB"}
    assert (cfg.tcpout_compressed, cfg.tcpout_use_ack, cfg.tcpout_servers) == (True, False, "idx1:9997")
    assert cfg.props["app:log"]["TRANSFORMS-x"] == "route_x" and cfg.props["app:log"]["SHOULD_LINEMERGE"] == "false"
    assert "eai:appName" not in cfg.props["app:log"]
    assert set(ev.sources) == set(s.rest_bodies)


def test_tcpout_ssl_and_thruput_are_read():
    # A Splunk Cloud credentials app: clientCert with useSSL absent (legacy) is SSL; useClientSSLCompression
    # defaults to true. limits.conf [thruput] maxKBps as the universal forwarder ships it.
    ev = _apply("services/configs/conf-outputs/tcpout", [
        ("tcpout", {"compressed": "false", "defaultGroup": "splunkcloud"}),
        ("tcpout:splunkcloud", {"server": "inputs1.acme.splunkcloud.com:9997", "clientCert": "$SPLUNK_HOME/etc/apps/"
                                "100_acme_splunkcloud/default/acme_server.pem", "sslVerifyServerCert": "true"})])
    assert (ev.config.tcpout_ssl, ev.config.tcpout_ssl_compression) == (True, True)
    ev = _apply("services/configs/conf-outputs/tcpout", [
        ("tcpout:tls", {"server": "idx1:9997", "useSSL": "true", "useClientSSLCompression": "false"})])
    assert (ev.config.tcpout_ssl, ev.config.tcpout_ssl_compression) == (True, False)
    ev = _apply("services/configs/conf-outputs/tcpout", [
        ("tcpout:plain", {"server": "idx1:9997", "useSSL": "legacy", "clientCert": ""})])
    assert (ev.config.tcpout_ssl, ev.config.tcpout_ssl_compression) == (False, None)
    ev = _apply("services/configs/conf-limits/thruput", [("thruput", {"maxKBps": "256"})])
    assert ev.config.thruput_max_kbps == 256.0


def test_health_tree_is_flattened():
    ev = _apply("services/server/health/splunkd/details", [("splunkd", {
        "health": "yellow", "features": {"Resource Usage": {"health": "yellow", "features": {
            "IOWait": {"health": "yellow", "reasons": {"yellow": {"1": {"indicator": "x", "reason": "y"}}}}}},
            "Index Processor": {"health": "green"}}})])
    assert ev.health == {"Resource Usage": "yellow", "Resource Usage/IOWait": "yellow", "Index Processor": "green"}


def test_every_contract_path_is_known():
    assert {e.path for e in endpoints.SNAPSHOT} == {
        "services/server/info", "services/server/introspection/queues", "services/server/introspection/indexer",
        "services/server/pipelinesets", "services/server/status/resource-usage/splunk-processes",
        "services/server/status/resource-usage/hostwide", "services/server/health/splunkd/details",
        "services/data/inputs/http", "services/data/inputs/http/http", "services/configs/conf-macros",
        "services/configs/conf-server/general", "services/configs/conf-server/queue",
        "services/configs/conf-outputs/tcpout", "services/configs/conf-props",
        "services/configs/conf-limits/thruput"}       # issue 37: limits.conf [thruput] maxKBps, an addition


# --------------------------------------------------------------------------- HEC global settings (issue 12)

def _hec_snapshot(tmp_path, **http):
    import os
    build = load_script(os.path.join(SCENARIOS, "build.py"), "scenario_build")
    from ingest_doctor.diagnose import diagnose
    from ingest_doctor.read.snapshot import load_snapshot
    s = build.hec_forwarder("hf-09", "16")
    s.rest_bodies.pop("services/data/inputs/http/http")
    s.http("16", tokens=("app", "k8s"), **http)
    ev = load_snapshot(s.write(str(tmp_path / "snap")))
    return ev, diagnose(ev)


def _io_threads_advice(report):
    return [r for f in report.findings for r in f.recommendations if r.setting == "dedicatedIoThreads"]


def test_global_hec_settings_come_from_their_own_endpoint(tmp_path):
    ev, report = _hec_snapshot(tmp_path)
    assert (ev.config.dedicated_io_threads, ev.config.hec_tokens) == (16, 2)
    # Already at the number of cores (16) and pegged: scale out, never "raise to 8".
    assert not [r for r in _io_threads_advice(report) if r.suggested is not None]
    assert any("scale the HEC tier out" in r.action for f in report.findings for r in f.recommendations)


def test_token_list_without_http_entry_never_lowers_or_blindly_raises_io_threads(tmp_path):
    """A real token list holds `http://<name>` entries only; without services/data/inputs/http/http the
    current dedicatedIoThreads is unknown (the admin may run 16), so no number is suggested."""
    ev, report = _hec_snapshot(tmp_path, global_entry=False)
    assert ev.config.dedicated_io_threads is None and ev.config.hec_tokens == 2
    recs = _io_threads_advice(report)
    assert recs, report.to_dict()
    for r in recs:
        assert r.current is None and r.suggested is None
        assert "current value unknown (could not read services/data/inputs/http/http)" in r.action
        assert "scale the HEC tier out" in r.action


def test_an_http_entry_in_the_token_list_is_accepted_and_an_unread_list_is_unknown():
    ev = _apply("services/data/inputs/http", [("http", {"dedicatedIoThreads": "4", "port": "8088"}),
                                              ("http://a", {"index": "main"})])
    assert (ev.config.dedicated_io_threads, ev.config.hec_port, ev.config.hec_tokens) == (4, 8088, 1)
    assert Evidence().config.hec_tokens is None
    _apply("services/data/inputs/http", [], ev=ev)
    assert ev.config.hec_tokens == 0


@pytest.mark.parametrize("doc, expected", [
    ('{"n": %s}' % ("9" * 64), {"n": int("9" * 64)}),                       # as long as an integer may be
    ('{"n": %s}' % ("9" * 65), {"n": float("9" * 65)}),                     # one digit more: a float
    ('{"n": %s, "m": 7}' % ("9" * 5000), {"n": float("inf"), "m": 7}),      # past Python's integer limit
    ('{"n": 1%s2}' % ("0" * 70), {"n": float("1%s2" % ("0" * 70))}),
    ('{"s": "%s", "n": 12}' % ("5" * 80), {"s": "5" * 80, "n": 12}),        # a long run in a string
    ('{"s": "caf\\u00e9 \u00e9\ud800", "n": [1, -2, 3.5]}', {"s": "caf\u00e9 \u00e9\ud800", "n": [1, -2, 3.5]}),
])
def test_loads_reads_long_integers_as_floats_and_every_other_body_as_json_does(doc, expected):
    got = rest.loads(doc)
    assert got == expected
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]
