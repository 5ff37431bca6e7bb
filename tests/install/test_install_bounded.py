"""Every outbound call is bounded by the port's timeout: the probe-token read from storage/passwords
(through solnlib) and the Splunk Web messages, against a fake splunkd that never answers.

A request that hangs is held until the test ends; each call runs in a worker thread that the test
waits for at most HANG_GUARD_S, so an unbounded call fails the test instead of hanging it (a guard,
not a measurement: no speed is asserted). The pin: if solnlib stops sending the credential read through
the Service our port is wired into (CredentialManager.service), the read hangs here and the test fails.
"""
import inspect
import threading
from unittest import mock

import pytest

from fakes import instance as fi  # noqa: E402
from fakes.collector_run import SETTINGS_PATH, start  # noqa: E402
from fakes.splunkd import Response, envelope, trickle, wait_for  # noqa: E402
from ingest_doctor.collector import params as params_mod  # noqa: E402
from ingest_doctor.delivery import messages  # noqa: E402
from ingest_doctor_ports import bounded, collector as collector_port, messages as messages_port  # noqa: E402
from ingest_doctor_ports.messages import MessageError, WebMessages  # noqa: E402
from ingest_doctor_ports.splunkd import Http, unverified  # noqa: E402

PASSWORDS = "/servicesNS/nobody/TA-ingest_doctor/storage/passwords"
HANG_GUARD_S = 60.0
PORT_TIMEOUT_S = 0.5


@pytest.fixture
def hang(fake_splunkd):
    """A route that never answers until released (the end of the test); a Mock, so it counts its requests."""
    release = threading.Event()

    def never_answers(req):
        release.wait(HANG_GUARD_S + 30)
        return Response(200, b"", fault="reset")
    yield mock.Mock(side_effect=never_answers)
    release.set()


def counted(timeout):
    """Our port (Http) with a Mock around it that records every call made through it."""
    return mock.Mock(wraps=Http(timeout, {"splunkd": unverified()}))


def in_thread(fn):
    """fn() in a worker; (finished, result or exception)."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:       # the call's own failure is the result under test
            out["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(HANG_GUARD_S)
    return not t.is_alive(), out


def reader(fake, http):
    params = params_mod.parse_params({"hec_token_credential": "hec_probe", "index": "x"})
    return collector_port.credential_reader(params, fi.SESSION_KEY, fake.url, http)


def test_probe_token_is_read_through_the_port(fake_splunkd):
    fi.Instance(fake_splunkd)           # its storage/passwords holds the probe token, for the session key only
    http = counted(5.0)
    done, out = in_thread(reader(fake_splunkd, http))
    assert done and out.get("value") == fi.PROBE_TOKEN, out
    # every request solnlib made went through our port
    assert http.called and all(c.args[1].split("?")[0].endswith("/storage/passwords") for c in http.call_args_list)
    assert http.call_count == len(fake_splunkd.requests_to(PASSWORDS))


def test_probe_token_read_is_bounded_by_the_port_timeout(fake_splunkd, hang):
    fake_splunkd.route("GET", PASSWORDS, hang)
    http = counted(PORT_TIMEOUT_S)
    done, out = in_thread(reader(fake_splunkd, http))
    assert done, "the storage/passwords read hung: solnlib no longer uses the Service our port is wired into"
    assert "timeout" in str(out.get("error")), out
    assert hang.call_count >= 1 and http.called


def test_solnlib_seam_is_where_we_wire_it():
    """solnlib 8.2.0: CredentialManager keeps a public splunklib Service whose handler lives in
    Context.http.handler, and its password collection is bound to that same Service."""
    from solnlib.credentials import CredentialManager
    from splunklib import binding, client
    m = CredentialManager(fi.SESSION_KEY, "TA-ingest_doctor", realm="r", scheme="https", host="127.0.0.1",
                          port=8089)
    assert isinstance(m.service, client.Service) and isinstance(m.service.http, binding.HttpLib)
    mark = object()
    bounded.bound_service(m.service, lambda *a: mark)
    assert m._storage_passwords.service is m.service and m.service.http.handler is not None


def test_messages_are_bounded_by_the_port_timeout(fake_splunkd, hang):
    fake_splunkd.route("GET", "/services/messages", hang)
    fake_splunkd.route("POST", "/services/messages", hang)
    http = counted(PORT_TIMEOUT_S)
    web = WebMessages(fake_splunkd.url, "KEY", http)
    done, out = in_thread(web.shown)
    assert done and isinstance(out.get("error"), MessageError) and "timeout" in str(out["error"]), out
    plan = messages.MessagePlan(posts=[messages.Post("ingest_doctor_finding_x", "text", "warn")])
    done, out = in_thread(lambda: web.apply(plan))
    assert done and "timeout" in (out.get("value") or ""), out
    assert [c.args[0] for c in http.call_args_list] == ["GET", "POST"]


def test_messages_port_uses_no_solnlib_internals():
    src = inspect.getsource(messages_port)
    assert "solnlib" not in "".join(l for l in src.splitlines() if l.startswith(("import", "from")))
    assert "._rest_client" not in src


def test_the_collectors_webhook_header_read_is_bounded_and_off_the_first_poll(fake_splunkd, tls, tmp_path, runs):
    """Through the process boundary (the built add-on's modular input): storage/passwords trickles
    the webhook's auth header a byte a second. The first poll does not wait for it, solnlib's read
    over the notifier's port ends at request_timeout and is said in one line, and no traceback of
    solnlib's reaches stderr (splunkd.log)."""
    fi.Instance(fake_splunkd, host="hf-01", psets=1)
    fake_splunkd.route("GET", SETTINGS_PATH, envelope(SETTINGS_PATH.rsplit("/", 1)[0], [("webhook", {
        "url": "https://127.0.0.1:9/hook", "min_severity": "warning", "allow_targets": "127.0.0.1",
        "auth_header": "******"})]))
    atom = fi.webhook_passwords_atom(fake_splunkd.url, "x")
    fake_splunkd.route("GET", PASSWORDS, lambda req: trickle(Response(200, atom, content_type="text/xml")))
    xml = fi.input_xml(fake_splunkd.url, {"poll_interval": "1", "thread_cpu": "0", "request_timeout": "1"}, "hf-01",
                       checkpoint_dir=str(tmp_path))
    run = start(runs, xml)
    run.wait_polls(1, timeout=15)
    assert wait_for(lambda: "auth header not read from storage/passwords" in run.stderr(), 15), run.stderr()
    assert run.terminate() == 0
    err = run.stderr()
    assert "timeout" in err and "Traceback" not in err and fi.SESSION_KEY not in err, err
    assert fake_splunkd.requests_to(PASSWORDS)
