"""The collector's HTTP port against the loopback fake splunkd: every network fault is a kind."""
import ssl
from http.client import RemoteDisconnected
from unittest import mock

import pytest

from ingest_doctor_ports import collector as port
from fakes.hookreceiver import free_port
from fakes.splunkd import FakeSplunkd, Response, envelope, fault
from ingest_doctor.collector import params as params_mod, poll as collector, tls
from ingest_doctor.read import endpoints


def http(tls=None, verify=True, timeout=2.0, max_body=collector.MAX_BODY_BYTES):
    params = params_mod.Params(hec_tls_verify=verify, hec_ca_file=tls[0] if tls else None)
    return port.Http(timeout, port.hec_context(params), max_body)


def test_ok_and_session_key_header(fake_splunkd):
    fake_splunkd.route("GET", "/services/server/info", envelope("/services/server/info", [("server-info", {})]))
    f = http()("GET", fake_splunkd.url + "/services/server/info?output_mode=json&count=0",
               {"Authorization": "Splunk K"}, None, "splunkd")
    assert (f.status, f.error) == (200, None) and b'"server-info"' in f.body
    req = fake_splunkd.requests_to("/services/server/info")[0]
    assert req.headers["Authorization"] == "Splunk K" and req.query == {"output_mode": ["json"], "count": ["0"]}


@pytest.mark.parametrize("name,status,error", [
    ("401", 401, None), ("403", 403, None), ("404", 404, None), ("503", 503, None), ("html", 500, None),
    ("truncated", None, "truncated"), ("timeout", None, "timeout"), ("reset", None, "reset"),
])
def test_faults(fake_splunkd, name, status, error):
    fake_splunkd.route("GET", "/x", fault(name))
    f = http(timeout=1.0)("GET", fake_splunkd.url + "/x", {}, None, "splunkd")
    assert (f.status, f.error) == (status, error)
    assert endpoints.error_kind(f) == {"503": "5xx", "html": "5xx"}.get(name, error or name)


def test_refused_and_too_large(fake_splunkd):
    url = "http://127.0.0.1:%d" % free_port()          # a port nothing listens on
    assert http()("GET", url + "/services/collector/health", {}, None, "hec").error == "refused"
    fake_splunkd.route("GET", "/big", Response(200, b"x" * 5000))
    f = http(max_body=1000)("GET", fake_splunkd.url + "/big", {}, None, "splunkd")
    assert f.error == "too_large"


def test_hec_tls_verified_with_the_ca_file_refused_without(tls):
    with FakeSplunkd(tls) as hec:
        hec.route("GET", "/services/collector/health", Response(200, {"text": "HEC is healthy", "code": 17}))
        url = hec.url + "/services/collector/health"
        assert http(tls)("GET", url, {}, None, "hec").status == 200
        f = http(None)("GET", url, {}, None, "hec")         # system CA store: self-signed is refused
        assert f.error == "tls" and "CERTIFICATE_VERIFY_FAILED" in f.detail
        assert http(None, verify=False)("GET", url, {}, None, "hec").status == 200


def test_keep_alive_connection_is_reused_and_a_stale_one_retried(fake_splunkd, monkeypatch):
    """A connection kept open is reused; when the server dropped it while idle (the first
    exchange fails at once) the call is retried once on a fresh connection."""
    fake_splunkd.route("GET", "/a", Response(200, b"{}"))
    h = http()
    assert h("GET", fake_splunkd.url + "/a", {}, None, "splunkd").status == 200
    conn = next(iter(h.conns.values()))
    assert conn.sock is None                         # the fake said Connection: close: closed
    conn.connect()                                   # now pretend it was kept alive
    # The first exchange fails as on a connection the server dropped; the retry goes through (wraps).
    stale_once = mock.Mock(wraps=h._exchange, side_effect=[
        RemoteDisconnected("Remote end closed connection without response"), mock.DEFAULT])
    monkeypatch.setattr(h, "_exchange", stale_once)
    f = h("GET", fake_splunkd.url + "/a", {}, None, "splunkd")
    assert (f.status, f.error, stale_once.call_count) == (200, None, 2)
    # A fresh connection failing the same way is not retried: it is a fault.
    monkeypatch.setattr(h, "_exchange", mock.Mock(side_effect=RemoteDisconnected("closed")))
    f = h("GET", fake_splunkd.url + "/a", {}, None, "splunkd")
    assert f.error == "reset"
    h.close()


def test_unverified_local_context_is_only_for_splunkd():
    h = http()
    assert h.contexts["splunkd"].verify_mode == ssl.CERT_NONE
    # HEC's names are checked by tls.NameCheckingContext (the URL's host or hec_sslCommonNameToCheck)
    hec = h.contexts["hec"]
    assert hec.verify_mode == ssl.CERT_REQUIRED and (hec.check_hostname or isinstance(hec, tls.NameCheckingContext))
