"""The splunkd port reads every answer as HTTP/1.1 says, through http.client on its kept connection:
Content-Length, chunked coding (extensions, trailers), 1xx skipped, 204 without a body, read to the
close, and each malformed or cut answer as a fault kind, never an exception; a body over the cap is
refused without being held. (Timeouts: tests/faults/test_faults_port.py.)"""
from __future__ import annotations

import tracemalloc

import pytest

from fakes.faults import CannedServer, FloodServer
from ingest_doctor_ports.splunkd import Http, unverified

BODY = b'{"entry":[{"name":"parsingQueue","content":{"current_size_bytes":10}}]}'
OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)


def get(srv, http=None, path="/services/server/info", **kw):
    """One GET through `http`, or through a port of its own (Http's options `kw`) closed after it."""
    h = http or Http(5.0, {"splunkd": unverified()}, **kw)
    try:
        return h("GET", srv.url + path, {}, None, "splunkd")
    finally:
        if http is None:
            h.close()


@pytest.mark.parametrize("answer, status, body, error, words", [
    (OK, 200, BODY, None, ""),
    (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + BODY, 200, BODY, None, ""),     # read to the close
    (b"HTTP/1.0 200 OK\r\n\r\n" + BODY, 200, BODY, None, ""),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=1\r\n world\r\n0\r\nT: 1\r\n\r\n",
     200, b"hello world", None, ""),
    (b"HTTP/1.1 100 Continue\r\nX: 1\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}",
     404, b"{}", None, ""),
    (b"HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n", 204, b"", None, ""),
    # two Content-Length headers: the first wins
    (b"HTTP/1.1 503 Busy\r\ncontent-length: 3\r\nContent-Length: 1\r\n\r\nabc", 503, b"abc", None, ""),
    # broken or cut answers: a fault kind, never an exception
    (b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + BODY, None, b"", "truncated", "IncompleteRead"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", None, b"", "truncated", "IncompleteRead"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
     None, b"", "truncated", "IncompleteRead"),
    (b"<html>not http</html>\r\n", None, b"", "error", "BadStatusLine"),
    (b"HTTP/2 200 OK\r\n\r\n", None, b"", "error", "UnknownProtocol"),
    (b"HTTP/1.1 99 Low\r\n\r\n", None, b"", "error", "BadStatusLine"),
    (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000 + b"\r\n\r\n", None, b"", "error", "LineTooLong"),
    (b"HTTP/1.1 200 OK\r\n" + b"X-A: 1\r\n" * 120 + b"\r\n", None, b"", "error", "more than 100 headers"),
    (b"", None, b"", "reset", "RemoteDisconnected"),
])
def test_answers_read_as_http_says_and_broken_ones_are_faults(tls, answer, status, body, error, words):
    with CannedServer([answer], tls) as srv:
        f = get(srv)
    assert (f.status, f.body, f.error) == (status, body, error) and words in f.detail, f


def test_one_kept_connection_carries_answers_of_every_framing(tls):
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
    answers = [OK, chunked, b"HTTP/1.1 204 No Content\r\n\r\n",
               b"HTTP/1.1 100 Continue\r\n\r\n" + OK, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + BODY]
    with CannedServer(answers, tls) as srv:
        http = Http(5.0, {"splunkd": unverified()})
        got = [get(srv, http) for _ in answers]
        http.close()
    assert [(f.status, f.body) for f in got] == [(200, BODY), (200, b"{}"), (204, b""), (200, BODY), (200, BODY)]
    assert srv.connections == 1 and srv.requests == len(answers)


def test_a_body_over_the_cap_is_refused_without_being_held(tls):
    """64 MiB without a Content-Length against a 4 MiB cap: the reading stops at the cap and what was
    read is dropped (issue 40: 50 MB answers grew the collector's memory 30 -> 478 MB)."""
    cap = 4 * 1024 * 1024
    with FloodServer(tls, total=64 * 1024 * 1024) as srv:
        http = Http(20.0, {"splunkd": unverified()}, max_body=cap)
        tracemalloc.start()
        try:
            f = get(srv, http, "/services/server/introspection/queues")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            http.close()
    assert (f.error, f.body) == ("too_large", b"") and "cut" in f.detail
    assert peak < 2 * cap, peak               # the pieces up to the cap, never the answer
    assert srv.sent < 32 * 1024 * 1024


def test_a_content_length_over_the_cap_is_refused_before_reading(tls):
    with CannedServer([b"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n" + BODY], tls) as srv:
        f = get(srv, max_body=1024)
    assert f.error == "too_large" and "Content-Length 99999999" in f.detail
