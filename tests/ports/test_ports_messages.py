"""The Splunk Web message port (bin/ingest_doctor_ports/messages.py) against the fake splunkd."""
from __future__ import annotations

import pytest

from fakes.findings import hec, typing
from ingest_doctor.delivery import messages
from ingest_doctor.delivery.messages import Change, message_name


# ---------------------------------------------------------------------------- the message port
def test_message_port_faults_are_reported_bounded_and_never_raised(fake_splunkd):
    """solnlib's BulletinRestClient over our splunkd port: a 403 names the HTTP status, a hung splunkd
    costs the port's timeout (solnlib's own handler has none), a missing message deletes fine."""
    import time
    from fakes.splunkd import Messages, fault
    from ingest_doctor_ports.messages import MessageError, WebMessages
    from ingest_doctor_ports.splunkd import Http, unverified
    web = WebMessages(fake_splunkd.url, "KEY", Http(1.0, {"splunkd": unverified()}))
    shown = Messages(fake_splunkd)
    ok = messages.plan([Change(hec(), "new")])
    assert web.apply(ok) is None and list(shown.shown) == [message_name(hec().id)]
    assert web.shown() == {message_name(hec().id): "warn"}
    fake_splunkd.route("POST", "/services/messages", fault("403"))
    err = web.apply(messages.plan([Change(typing(), "new"), Change(hec("b"), "new")]))
    assert "HTTP 403" in err and len(fake_splunkd.requests_to("/services/messages", "POST")) == 3   # went on
    gone = messages.MessagePlan(deletes=[message_name("nobody/typing/1")])
    assert web.apply(gone) is None                                   # 404: already gone
    fake_splunkd.route("GET", "/services/messages", fault("timeout"))
    t0 = time.monotonic()
    with pytest.raises(MessageError):
        web.shown()
    assert time.monotonic() - t0 < 5
