"""No hang, no flood: the splunkd port (bin/ingest_doctor_ports/splunkd.py `Http`) bounds a whole
call by wall-clock time and cuts a body at its cap, with or without a Content-Length.

The servers (tests/fakes/faults.py) trickle one byte per 0.2 s for up to 30 s: a per-read timeout
never fires against them, so a `timeout` fault proves the call's own deadline ended it."""
from __future__ import annotations

import pytest

from fakes.faults import DripServer, FloodServer
from ingest_doctor_ports.splunkd import Http, Splunkd, unverified


@pytest.mark.parametrize("mode,https", [("headers", True), ("body", True), ("body", False)],
                         ids=["headers", "body", "plain-http-body"])
def test_a_dripping_server_ends_at_the_call_deadline(tls, mode, https):
    with DripServer(tls if https else None, mode=mode) as srv:
        http = Http(1.0, {"splunkd": unverified()} if https else {})
        f = http("GET", srv.url + "/services/server/info", {}, None, "splunkd" if https else "")
        http.close()
    assert f.error == "timeout", f
    assert srv.sent < 100    # ended long before the server's own 30 s limit


def test_a_dripping_server_bounds_a_call_with_retries_too(tls):
    with DripServer(tls, mode="body") as srv:
        s = Splunkd(srv.url, 0.8, insecure=True, retries=0)
        f = s.request("GET", "/services/server/info")
    assert f.error == "timeout" and srv.connections == 1


def test_a_body_without_content_length_is_cut_at_the_cap(tls):
    with FloodServer(tls, total=64 * 1024 * 1024) as srv:
        http = Http(20.0, {"splunkd": unverified()}, max_body=1024 * 1024)
        f = http("GET", srv.url + "/services/server/introspection/queues", {}, None, "splunkd")
        http.close()
    assert f.error == "too_large" and "cut" in f.detail
    assert f.body == b""
    assert srv.sent < 16 * 1024 * 1024      # the reader stopped; the server did not get to send it all

