"""The Splunk Web message port (bin/ingest_doctor_ports/messages.py) against the fake splunkd."""
from __future__ import annotations

import time
from urllib.parse import parse_qs

import pytest

from fakes.findings import hec, typing
from fakes.splunkd import Messages, fault
from ingest_doctor.delivery import messages
from ingest_doctor.delivery.messages import Change, message_name
from ingest_doctor_ports.messages import MessageError, WebMessages
from ingest_doctor_ports.splunkd import Http, unverified


# ---------------------------------------------------------------------------- the message port
def test_message_port_faults_are_reported_bounded_and_never_raised(fake_splunkd):
    """The Splunk Web messages port (/services/messages over our splunkd port): a 403 names the HTTP status, a hung splunkd
    costs the port's timeout (solnlib's own handler has none), a missing message deletes fine."""
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


def test_every_post_carries_its_roles_and_an_unknown_role_is_named(fake_splunkd):
    """splunkd shows a message posted with `role` to that role's users only: each POST carries one
    `role` field per role (admin unless configured), the summary post too; a role splunkd does not
    know is refused (HTTP 400) and the error says which roles were asked for."""
    http = Http(1.0, {"splunkd": unverified()})
    shown = Messages(fake_splunkd, roles=Messages.ROLES + ("ops_team",))
    many = messages.plan([Change(hec(str(i)), "new") for i in range(messages.MAX_PER_RUN + 2)])
    assert WebMessages(fake_splunkd.url, "KEY", http).apply(many) is None
    posts = fake_splunkd.requests_to("/services/messages", "POST")
    assert len(posts) == messages.MAX_PER_RUN + 1 and messages.SUMMARY_NAME in shown.visible_to
    assert all(parse_qs(p.body.decode())["role"] == ["admin"] for p in posts)
    assert all(v == ["admin"] for v in shown.visible_to.values())
    web = WebMessages(fake_splunkd.url, "KEY", http, ("admin", "ops_team"))
    assert web.apply(messages.plan([Change(typing(), "new")])) is None
    assert shown.visible_to[message_name(typing().id)] == ["admin", "ops_team"]
    err = WebMessages(fake_splunkd.url, "KEY", http, ("nobody_here",)).apply(messages.plan([Change(hec("z"), "new")]))
    assert "HTTP 400" in err and "nobody_here" in err
    with pytest.raises(ValueError):
        WebMessages(fake_splunkd.url, "KEY", http, ())
