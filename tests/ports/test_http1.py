"""http1's lean exchange reads every response as http.client's HTTPResponse does: the same status,
body, connection close and the same exception (type and words), over well-formed, malformed and
truncated responses, however the bytes arrive; and writes the request http.client writes."""
from __future__ import annotations

import http.client
import io
import random
import sys

import pytest

from fakes.paths import BIN

if BIN not in sys.path:
    sys.path.insert(0, BIN)
from ingest_doctor_ports import http1  # noqa: E402

BODY = b'{"entry":[{"name":"parsingQueue","content":{"current_size_bytes":10}}]}'
RESPONSES = [
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY),
    b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + BODY,                      # truncated
    b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + BODY,                       # read to the end
    b"HTTP/1.0 200 OK\r\n\r\n" + BODY,
    b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=1\r\n world\r\n0\r\nT: 1\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",                 # chunk cut
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",   # bad chunk size
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXY6\r\n",
    b"HTTP/1.1 100 Continue\r\nX: 1\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}",
    b"HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n",
    b"HTTP/1.1 503 Busy\r\ncontent-length: 3\r\nContent-Length: 1\r\n\r\nabc",       # the first wins
    b"HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\nabc",
    b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nabc",
    b"HTTP/1.1 200 OK\r\nContent-Length:\r\n 3\r\n\r\nabc",                         # folded
    b"HTTP/1.1 200 OK\r\nBroken line\r\nContent-Length: 3\r\n\r\nabc",             # the headers end there
    b"HTTP/1.1 200 OK\r\n:empty\r\n\tcont\r\nContent-Length: 2\r\n\r\nab",
    b"HTTP/1.1 200 OK\rContent-Length: 2\r\n\r\nab",
    b"HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nab",
    b"HTTP/2 200 OK\r\n\r\n",
    b"HTTP/1.1 99 Low\r\n\r\n",
    b"HTTP/1.1 OK\r\n\r\n",
    b"<html>not http</html>",
    b"",
    b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n",                                   # cut in the headers
    b"HTTP/1.1 200 OK\r\n" + b"X-A: 1\r\n" * 120 + b"\r\n",
    b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000 + b"\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 3\r\n\r\nabcdef",
]


class FakeSock:
    """Serves `data` in the given chunk sizes: the same bytes to http.client and to http1."""

    def __init__(self, data: bytes, sizes):
        self.data, self.sizes = data, list(sizes)

    def recv(self, n: int) -> bytes:
        size = min(n, self.sizes.pop(0) if self.sizes else n)
        out, self.data = self.data[:size], self.data[size:]
        return out

    def makefile(self, mode: str):
        return io.BufferedReader(_Raw(self))


class _Raw(io.RawIOBase):
    def __init__(self, sock: FakeSock):
        self.sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        data = self.sock.recv(len(b))
        b[:len(data)] = data
        return len(data)


def _read(resp, read1):
    chunks = []
    while True:
        chunk = read1(resp, 8192)
        if not chunk:
            break
        chunks.append(chunk)
    return resp.status, b"".join(chunks), resp.length


def reference(data: bytes, sizes, method: str = "GET"):
    resp = http.client.HTTPResponse(FakeSock(data, sizes), method=method)
    try:
        resp.begin()
        return ("ok",) + _read(resp, lambda r, n: r.read1(n)) + (resp.will_close,)
    except Exception as e:
        return ("raised", type(e).__name__, str(e), repr(e))


def lean(data: bytes, sizes, method: str = "GET"):
    resp = http1.Response(http1.Reader(FakeSock(data, sizes).recv), method)
    try:
        resp.begin()
        return ("ok",) + _read(resp, lambda r, n: r.read1(n)) + (resp.will_close,)
    except Exception as e:
        return ("raised", type(e).__name__, str(e), repr(e))


@pytest.mark.parametrize("data", RESPONSES)
def test_each_response_reads_as_http_client_reads_it(data):
    rng = random.Random(len(data))
    for sizes in ([len(data) + 1], [1] * (len(data) + 1), [rng.randint(1, 40) for _ in range(len(data) + 1)]):
        for method in ("GET", "HEAD"):
            assert lean(data, sizes, method) == reference(data, sizes, method)


def test_cut_anywhere_reads_as_http_client_reads_it():
    """Every response cut at every point: truncated bodies, headers and status lines."""
    for data in RESPONSES[:12]:
        for cut in range(len(data) + 1):
            part = data[:cut]
            assert lean(part, [7] * (cut + 1)) == reference(part, [7] * (cut + 1)), (data, cut)


def test_the_request_is_the_one_http_client_writes():
    class Capture:
        def __init__(self):
            self.sent = b""

        def sendall(self, data):
            self.sent += data

    cases = [("GET", "/services/server/info?output_mode=json&count=0", {"Authorization": "Splunk k"}, None),
             ("POST", "/services/collector/event", {"Authorization": "Splunk t", "Content-Type": "application/json"},
              b'{"event":"x"}'),
             ("POST", "/x", {}, None), ("DELETE", "/y", {"Host": "other"}, None), ("PUT", "/z", {}, b"")]
    for host, port in (("127.0.0.1", 8089), ("localhost", 443), ("::1", 8089)):
        for method, target, headers, body in cases:
            conn = http.client.HTTPConnection(host, port)
            conn.sock = Capture()
            conn.request(method, target, body=body, headers=headers)
            mine = http1.request_bytes(method, target, http1.host_header(host, port, 443), headers, body)
            if port == 443:     # HTTPConnection's default port is 80: compare with the port it wrote
                mine = mine.replace(b"Host: localhost\r\n", b"Host: localhost:443\r\n")
            assert mine == conn.sock.sent


def test_bad_targets_and_headers_raise_as_http_client_does():
    for target, headers in (("/a b", {}), ("/x", {"Bad\r\nName": "v"}), ("/x", {"N": "v\r\nInjected: 1"})):
        conn = http.client.HTTPConnection("127.0.0.1", 8089)
        with pytest.raises(Exception) as theirs:
            conn.putrequest("GET", target)
            for k, v in headers.items():
                conn.putheader(k, v)
        with pytest.raises(Exception) as mine:
            http1.request_bytes("GET", target, "127.0.0.1:8089", headers, None)
        assert (type(mine.value), str(mine.value)) == (type(theirs.value), str(theirs.value))


def test_plain_header_blocks_read_at_once_equal_the_line_by_line_reading():
    blocks = [b"Server: x\r\nContent-Length: 5\r\n\r\n", b"A:\r\nB:  \t v \r\nb: 2\r\n\r\n", b"\r\n",
              b"From: me\r\nX: 1\r\n\r\n", b"X-\xe9: 1\r\nY: \xe9\r\n\r\n", b"X: 1\r\n Y\r\n\r\n",
              b"X: 1\n\r\n", b"X: 1\r\rY: 2\r\n\r\n", b"X 1\r\nY: 2\r\n\r\n", b"X: 1\r\n",
              b"Content-Length: 3\r\nContent-Length: 4\r\n\r\n", b"X:\x00\x7f\r\n\r\n"]
    for block in blocks:
        text = block.decode("iso-8859-1")
        assert http1.parse_fields([block]) == http1.email_fields(text), block
        msg = http.client.parse_headers(io.BytesIO(block))
        for name in {k.lower() for k in msg.keys()} | {"x", "content-length", "y"}:
            assert http1.parse_fields([block]).get(name) == msg.get(name), (block, name)
