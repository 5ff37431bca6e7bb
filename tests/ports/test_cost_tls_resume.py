"""Issue 21 (cost): with a server that closes every connection (the fake splunkd does), the port
resumes the TLS session of its last connection, so only the first request pays a full handshake;
verification is unchanged (a certificate that fails fails on every request, nothing is resumed)."""
import ssl

from fakes.splunkd import Response
from ingest_doctor_ports import splunkd as port


def _count(monkeypatch):
    seen = []
    connect = port._Resuming.connect

    def counting(self):
        connect(self)
        seen.append(self.sock.session_reused)
    monkeypatch.setattr(port._Resuming, "connect", counting)
    return seen


def test_closed_connections_resume_the_tls_session(fake_splunkd, tls, monkeypatch):
    seen = _count(monkeypatch)
    http = port.Http(5.0, {"splunkd": ssl.create_default_context(cafile=tls[0])})
    fake_splunkd.route("GET", "/services/server/info", Response(200, {"entry": []}))
    for _ in range(4):
        f = http("GET", fake_splunkd.url + "/services/server/info", {}, None, "splunkd")
        assert f.status == 200 and f.error is None
    assert seen == [False, True, True, True]
    http.close()


def test_a_certificate_that_fails_fails_every_time(fake_splunkd, monkeypatch):
    seen = _count(monkeypatch)
    http = port.Http(5.0, {"splunkd": ssl.create_default_context()})     # system CAs: the fake's CA is not one
    for _ in range(2):
        f = http("GET", fake_splunkd.url + "/services/server/info", {}, None, "splunkd")
        assert f.error == "tls" and "CERTIFICATE_VERIFY_FAILED" in f.detail
    assert seen == [] and http.sessions == {}
