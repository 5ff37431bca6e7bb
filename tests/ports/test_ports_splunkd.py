"""The one splunkd port (bin/ingest_doctor_ports/splunkd.py) against the loopback HTTPS fake splunkd:
the TLS policy, auth, retries, login, and reads of the endpoint table through the read step."""

import pytest

from fakes.splunkd import Response, envelope, fault
from ingest_doctor.read import endpoints, readstep
from ingest_doctor_ports.splunkd import Splunkd, tls_context


def test_tls_policy():
    assert tls_context("127.0.0.1")[1] == "verified (system CAs)"
    assert tls_context("127.0.0.1", trust_loopback=True)[1] == "loopback, not verified"
    assert tls_context("idx-01.example", trust_loopback=True)[1] == "verified (system CAs)"
    assert tls_context("idx-01.example", insecure=True)[1] == "not verified"


def test_loopback_verified_unless_trusted(fake_splunkd, tls):
    fake_splunkd.route("GET", "/services/server/info", envelope("/services/server/info", [("server-info", {})]))
    f = Splunkd(fake_splunkd.url, 5.0, "Splunk K").request("GET", "/services/server/info")
    assert f.error == "tls" and "CERTIFICATE_VERIFY_FAILED" in f.detail
    for trust in ({"trust_loopback": True}, {"ca_file": tls[0]}):
        assert Splunkd(fake_splunkd.url, 5.0, "Splunk K", **trust).request("GET", "/services/server/info").status == 200


def test_reads_the_table_through_the_read_step_with_the_auth_header(fake_splunkd, tls):
    for ep in endpoints.ENDPOINTS:
        fake_splunkd.route("GET", "/" + ep.path, envelope("/" + ep.path, []))
    fake_splunkd.route("GET", "/services/server/pipelinesets", fault("403"))
    port = Splunkd(fake_splunkd.url, 5.0, "Bearer eyJx.eyJ.sig", ca_file=tls[0])
    reading = readstep.read(port.fetch, endpoints.SNAPSHOT)
    assert [(f.path, f.kind, f.capability()) for f in reading.faults] == [
        ("services/server/pipelinesets", "403", "list_pipeline_sets")]
    assert reading.macros == {} and len(reading.bodies) == len(endpoints.SNAPSHOT) - 1
    reqs = fake_splunkd.requests
    assert all(r.headers["Authorization"] == "Bearer eyJx.eyJ.sig" for r in reqs)
    assert all(r.query["output_mode"] == ["json"] and r.query["count"] == ["0"] for r in reqs)
    assert fake_splunkd.requests_to("/services/configs/conf-macros")[0].query["search"] == ["ingest_doctor_"]


@pytest.mark.parametrize("retries,calls,status", [(0, 1, 503), (3, 3, 200)])
def test_retries_are_an_option(fake_splunkd, tls, retries, calls, status):
    answers = [fault("503"), fault("503"), Response(200, b"{}")]
    fake_splunkd.route("GET", "/x", lambda req: answers.pop(0))
    seen = []
    port = Splunkd(fake_splunkd.url, 5.0, ca_file=tls[0], retries=retries, backoff=0.0,
                   on_retry=lambda attempt, error: seen.append((attempt, error)))
    assert port.request("GET", "/x").status == status
    assert len(fake_splunkd.requests_to("/x")) == calls
    assert seen[:1] == ([] if retries == 0 else [(1, "HTTP 503 KV Store is initializing. Please try again later.")])


def test_login_then_session_key(fake_splunkd, tls):
    fake_splunkd.route("POST", "/services/auth/login", lambda req: Response(
        200, "<response><sessionKey>KEY9</sessionKey></response>", "text/xml")
        if req.form().get("password") == ["pw"] else fault("401"))
    fake_splunkd.route("GET", "/y", Response(200, b"{}"))
    port = Splunkd(fake_splunkd.url, 5.0, ca_file=tls[0])
    assert port.login("admin", "wrong").status == 401 and port.auth is None
    assert port.login("admin", "pw").status == 200
    port.request("GET", "/y")
    assert fake_splunkd.requests_to("/y")[0].headers["Authorization"] == "Splunk KEY9"


def test_exit_codes_of_fault_kinds():
    from ingest_doctor import exitcodes
    assert [endpoints.exit_code(k) for k in ("401", "403", "tls", "404", "4xx", "5xx", "timeout", "refused")] == [
        exitcodes.AUTH, exitcodes.AUTH, exitcodes.BAD_CONFIG, exitcodes.UNEXPECTED, exitcodes.UNEXPECTED,
        exitcodes.TRANSIENT, exitcodes.TRANSIENT, exitcodes.TRANSIENT]
    assert exitcodes.category(exitcodes.AUTH) == "auth"
