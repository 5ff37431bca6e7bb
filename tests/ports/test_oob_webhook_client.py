"""The one webhook client (ingest_doctor_ports/webhook.py) and its pure rules
(ingest_doctor/delivery/outbound.py): targets only where the admin meant, no redirect followed,
a wall-clock deadline, Retry-After honoured, an answer's body capped. Against loopback receivers,
http and https (the test CA of fakesplunkd.make_tls)."""
from __future__ import annotations

import ipaddress
import ssl

import pytest

from fakes.hookreceiver import HookReceiver, free_port
from ingest_doctor.delivery import outbound
from ingest_doctor.delivery.outbound import Refused, parse_allow, parse_url
from ingest_doctor_ports import webhook

LOOP = parse_allow("127.0.0.1")
BODY = b'{"id":"hf-01/hec_input/-","severity":"critical"}'


def _check(url: str, allow=(), addrs=None):
    t = parse_url(url)
    outbound.check_target(t, allow)
    for a in addrs or ([t.host] if outbound.address_of(t.host) is not None else []):     # an IP literal
        outbound.check_address(t, ipaddress.ip_address(a), allow)


# ---------------------------------------------------------------------------- the pure policy
@pytest.mark.parametrize("url,addrs,words", [
    ("https://127.0.0.1/hook", None, "loopback"),
    ("https://localhost:9443/hook", None, "loopback"),
    ("https://hooks.example.com/x", ["127.0.0.2"], "loopback"),
    ("https://169.254.169.254/latest/meta-data", None, "metadata"),
    ("https://[fd00:ec2::254]/", None, "metadata"),
    ("https://10.1.2.3/hook", None, "private"),
    ("https://192.168.1.10/hook", None, "private"),
    ("https://172.16.0.5/hook", None, "private"),
    ("https://[::ffff:127.0.0.1]/hook", None, "loopback"),
    ("https://hooks.example.com/x", ["93.184.216.34", "10.0.0.7"], "private"),    # any address counts
    ("https://93.184.216.34:8089/services", None, "8089"),
    ("http://93.184.216.34/hook", None, "plain http"),
    # URLs that cannot be a webhook at all
    ("ftp://hooks.example.com/x", None, "https"), ("https://user:pw@hooks.example.com/", None, "credentials"),
    ("https://exa mple.com/", None, "spaces"), ("https:///x", None, "host"),
    ("https://h.example:99999/", None, "not a valid"),
])
def test_refused_targets(url, addrs, words):
    with pytest.raises(Refused, match=words):
        _check(url, (), addrs)


def test_public_https_target_passes():
    _check("https://93.184.216.34/hook")
    _check("https://hooks.example.com:8443/x", (), ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"])


def test_allow_list_names_what_the_admin_meant():
    allow = parse_allow("127.0.0.1, 10.0.0.0/8 hooks.corp.example [::1]:9000 splunk-mc:8089")
    _check("https://127.0.0.1:9443/hook", allow)
    _check("http://127.0.0.1:9443/hook", allow)                       # http only to a named target
    _check("https://10.9.8.7/hook", allow)
    _check("https://hooks.corp.example/x", allow, ["192.168.5.5"])
    _check("https://[::1]:9000/x", allow)
    _check("https://splunk-mc:8089/x", allow, ["10.1.1.1"])
    with pytest.raises(Refused, match="8089"):
        _check("https://127.0.0.1:8089/services", allow)             # 8089 must be named with its port
    with pytest.raises(Refused, match="loopback"):
        _check("https://[::1]:9001/x", allow)                         # the entry names port 9000 only
    with pytest.raises(Refused, match="private"):
        _check("https://192.168.1.1/x", allow)
    with pytest.raises(Refused, match="not a host name"):
        parse_allow("in valid!")


def test_answers_and_schedule():
    assert outbound.judge(200, None).kind == "sent"
    for s in outbound.REDIRECTS:
        v = outbound.judge(s, None, "http://elsewhere.example/")
        assert v.kind == "redirect" and "http://elsewhere.example/" in v.reason and "not followed" in v.reason
    assert outbound.judge(500, None).kind == "retry" and outbound.judge(429, None, None, "7").retry_after == 7.0
    assert outbound.judge(404, None).kind == "refused" and outbound.judge(None, "timeout").kind == "retry"
    assert outbound.judge(None, "tls").kind == "refused"
    assert outbound.parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", 1445412480.0) == 10.0
    assert outbound.parse_retry_after("999999") == outbound.MAX_RETRY_AFTER_S
    assert outbound.parse_retry_after("soon") is None
    assert outbound.schedule(5, 0.5, 3.0) == (0.5, 1.0, 2.0, 3.0)
    assert outbound.backoff(1, 0.5, 30.0, retry_after=12.0) == 12.0


# ---------------------------------------------------------------------------- the client on the wire
@pytest.fixture(params=["http", "https"])
def receiver(request, tls):
    with HookReceiver(tls if request.param == "https" else None) as r:
        yield r


@pytest.fixture
def ctx(tls):
    return ssl.create_default_context(cafile=tls[0])


def test_post_arrives_once(receiver, ctx):
    a = webhook.post(receiver.url, BODY, LOOP, {"Authorization": "Bearer abc"}, context=ctx)
    assert a.status == 200 and a.verdict().kind == "sent"
    assert receiver.bodies == [{"id": "hf-01/hec_input/-", "severity": "critical"}]
    assert receiver.headers[0]["Authorization"] == "Bearer abc"


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_is_a_failure_never_followed(receiver, ctx, status):
    receiver.plan = [(status, {"Location": "http://127.0.0.1:%d/elsewhere" % receiver.port})]
    out = webhook.send(receiver.url, BODY, LOOP, context=ctx, sleep=lambda s: None)
    assert out.kind == "redirect" and out.attempts == 1 and "/elsewhere" in out.reason
    assert len(receiver.seen) == 1 and receiver.bodies == []          # no GET, no second POST anywhere


@pytest.mark.parametrize("plan, timeout", [("trickle_head", 1.5), ("hang", 1.0)],
                         ids=["status-line-a-byte-a-second", "hanging"])
def test_a_trickling_or_hanging_answer_is_cut_at_the_deadline(receiver, ctx, plan, timeout):
    receiver.plan = [plan]
    a = webhook.post(receiver.url, BODY, LOOP, timeout=timeout, context=ctx)
    assert a.error == "timeout" and a.verdict().kind == "retry"


def test_trickling_body_is_cut_at_the_deadline_and_the_status_counts(receiver, ctx):
    receiver.plan = ["trickle"]          # 200, then 100,000 bytes of body one a second (a day)
    a = webhook.post(receiver.url, BODY, LOOP, timeout=1.5, context=ctx)
    assert a.status == 200 and a.verdict().kind == "sent" and "cut at the deadline" in a.detail


def test_retry_after_is_honoured_then_sent(receiver, ctx):
    receiver.plan = [(503, {"Retry-After": "3"}), (429, {"Retry-After": "1"}), 500]
    waits = []
    out = webhook.send(receiver.url, BODY, LOOP, attempts=5, backoff=0.25, context=ctx, sleep=waits.append)
    assert out.kind == "sent" and out.attempts == 4
    assert waits == [3.0, 1.0, 1.0]          # Retry-After, Retry-After (above the 0.5 s backoff), then 2^2 * 0.25
    assert len(receiver.bodies) == 1


def test_receiver_saying_no_is_not_retried(receiver, ctx):
    receiver.plan = [403]
    out = webhook.send(receiver.url, BODY, LOOP, context=ctx, sleep=lambda s: None)
    assert out.kind == "refused" and "403" in out.reason and len(receiver.seen) == 1


def test_refused_target_is_never_contacted(receiver, ctx):
    a = webhook.post(receiver.url, BODY, (), context=ctx)            # no allow-list: loopback refused
    assert a.error == "policy" and a.verdict().kind == "refused"
    assert ("loopback" if receiver.tls else "plain http") in a.detail
    assert receiver.seen == []


def test_answer_body_is_capped(receiver, ctx):
    a = webhook.post(receiver.url, BODY, LOOP, max_body=4, context=ctx)
    assert a.status == 200 and a.body == b'{"ok'


def test_tls_failure_is_refused_not_retried(tls):
    with HookReceiver(tls) as r:
        out = webhook.send(r.url, BODY, LOOP, context=ssl.create_default_context(), sleep=lambda s: None)
        assert out.kind == "refused" and out.reason.startswith("tls") and r.seen == []


def test_receiver_down_is_retried_then_failed():
    url = HookReceiver(port=free_port()).url        # never started: nothing listens there
    waits = []
    out = webhook.send(url, BODY, LOOP, attempts=3, backoff=0.1, sleep=waits.append)
    assert out.kind == "failed" and out.reason.startswith("refused") and waits == [0.1, 0.2]


def test_auth_header_forms():
    assert webhook.auth_headers("Authorization: Bearer x") == {"Authorization": "Bearer x"}
    assert webhook.auth_headers("X-Api-Key: k") == {"X-Api-Key": "k"}
    assert webhook.auth_headers("Bearer x") == {"Authorization": "Bearer x"}
    assert webhook.auth_headers("") == {}
