"""One HTTP/1.1 exchange on an open socket, lean: the request written in one piece, the response
read through one buffer.

Why not http.client's request()/getresponse(): per request they build the head line by line,
make a file object over the socket, and parse the headers with the email package. With a kept
connection that was about three times the CPU of the exchange itself (measured: 8 keep-alive
requests, 2.9 ms against 1.0 ms), and the collector pays it every poll. The connection (connect,
TLS, session resumption) stays http.client's (splunkd.py).

What a response means is http.client's, rule for rule: the status line, the headers (the email
package's reading of them: first value wins, folded lines joined), Content-Length, chunked
transfer coding, 1xx skipped, when the connection closes. Its faults are http.client's exceptions
with the same arguments (RemoteDisconnected, BadStatusLine, LineTooLong, IncompleteRead, ...), so
the port's fault kinds and details do not change. tests/ports/test_http1.py checks both readings
against each other over well-formed, malformed and truncated responses.
"""
from __future__ import annotations

import http.client as hc
import re
from typing import Callable, Dict, List, Mapping, Optional

MAX_LINE = 65536                # http.client's _MAXLINE: a longer status, header or chunk line is a fault
MAX_HEADERS = 100               # http.client's _MAXHEADERS
RECV_BYTES = 65536
_BODY_METHODS = ("PATCH", "POST", "PUT")        # sent with Content-Length: 0 when there is no body
_BAD_PATH = re.compile("[\x00-\x20\x7f]")       # http.client refuses these in a request target ...
_LEGAL_NAME = re.compile(rb"[^:\s][^:\r\n]*")     # ... and header names and values (no header injection)
_ILLEGAL_VALUE = re.compile(rb"\n(?![ \t])|\r(?![ \t\n])")
_HEADER_START = re.compile(r"^(From |[\041-\071\073-\176]*:|[\t ])")     # email.feedparser's headerRE
_LINE_ENDS = re.compile(r"(\r\n|\r|\n)")       # email.feedparser's NLCRE_crack


def host_header(host: str, port: int, default_port: int) -> str:
    """The Host header http.client sends: brackets around an IPv6 address, the port unless default."""
    if ":" in host and not host.startswith("["):
        host = "[%s]" % host
    return host if port == default_port else "%s:%d" % (host, port)


def request_bytes(method: str, target: str, host: str, headers: Mapping[str, str], body: Optional[bytes]) -> bytes:
    """The request as http.client writes it: request line, Host and Accept-Encoding (unless given),
    Content-Length (unless given), then the caller's headers in their order, then the body."""
    match = _BAD_PATH.search(target)
    if match:
        raise hc.InvalidURL("URL can't contain control characters. %r (found at least %r)"
                            % (target, match.group()))
    names = {k.lower() for k in headers}
    lines = ["%s %s HTTP/1.1" % (method, target)]
    if "host" not in names:
        lines.append("Host: " + host)
    if "accept-encoding" not in names:
        lines.append("Accept-Encoding: identity")
    if "content-length" not in names and "transfer-encoding" not in names:
        if body is not None:
            lines.append("Content-Length: %d" % len(body))
        elif method.upper() in _BODY_METHODS:
            lines.append("Content-Length: 0")
    for name, value in headers.items():
        if not _LEGAL_NAME.fullmatch(name.encode("ascii")):
            raise ValueError("Invalid header name %r" % (name.encode("ascii"),))
        if _ILLEGAL_VALUE.search(value.encode("latin-1")):
            raise ValueError("Invalid header value %r" % (value.encode("latin-1"),))
        lines.append("%s: %s" % (name, value))
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + body if body else head


class Reader:
    """The bytes of one response from `recv` (a socket's), through one buffer read from `pos` on
    (lines are cut without copying the rest of the buffer each time)."""

    def __init__(self, recv: Callable[[int], bytes]):
        self.recv = recv
        self.buf = b""
        self.pos = 0

    def _more(self) -> bool:
        chunk = self.recv(RECV_BYTES)
        if not chunk:
            return False
        self.buf = self.buf[self.pos:] + chunk if self.pos < len(self.buf) else chunk
        self.pos = 0
        return True

    def _take(self, end: int) -> bytes:
        out = self.buf[self.pos:end]
        self.pos = end
        return out

    def line(self, limit: int) -> bytes:
        """Up to and with the next b"\\n", at most `limit` bytes (fewer at the end): readline(limit)."""
        while True:
            end = self.buf.find(b"\n", self.pos, self.pos + limit)
            if end >= 0:
                return self._take(end + 1)
            if len(self.buf) - self.pos >= limit or not self._more():
                return self._take(min(self.pos + limit, len(self.buf)))

    def read1(self, n: int) -> bytes:
        """At most `n` bytes, with at most one receive (what is buffered first)."""
        if n <= 0:
            return b""
        if self.pos >= len(self.buf) and not self._more():
            return b""
        return self._take(min(self.pos + n, len(self.buf)))

    def read(self, n: int) -> bytes:
        """`n` bytes, fewer only at the end."""
        while len(self.buf) - self.pos < n and self._more():
            pass
        return self._take(min(self.pos + n, len(self.buf)))


def _header_lines(reader: Reader) -> List[bytes]:
    """http.client's _read_headers: the lines up to and with the empty one."""
    lines = []
    while True:
        line = reader.line(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise hc.LineTooLong("header line")
        lines.append(line)
        if len(lines) > MAX_HEADERS:
            raise hc.HTTPException("got more than %d headers" % MAX_HEADERS)
        if line in (b"\r\n", b"\n", b""):
            return lines


# A header block of plain "Name: value" lines, each ending in CRLF (what servers send): read at once.
# Anything else (folded lines, bare CR or LF, odd names) is read line by line as the email package does.
_PLAIN_BLOCK = re.compile(r"(?:[\x21-\x39\x3b-\x7e]+:[^\r\n]*\r\n)*\r\n\Z")
_PLAIN_FIELD = re.compile(r"([\x21-\x39\x3b-\x7e]+):[ \t]*([^\r\n]*)\r\n")


def parse_fields(raw: List[bytes]) -> Dict[str, str]:
    """Lowercased header name -> its first value, as http.client's message (email, compat32) gives them."""
    text = b"".join(raw).decode("iso-8859-1")
    if not _PLAIN_BLOCK.match(text):
        return email_fields(text)
    fields: Dict[str, str] = {}
    for name, value in _PLAIN_FIELD.findall(text):
        fields.setdefault(name.lower(), value)
    return fields


def email_fields(text: str) -> Dict[str, str]:
    """`parse_fields` of any header block, line by line as email.feedparser splits and reads it."""
    parts = _LINE_ENDS.split(text)
    lines = [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)]
    fields: Dict[str, str] = {}
    current: List[str] = []         # the source lines of the header being read

    def done() -> None:
        if current:
            name, value = current[0].split(":", 1)
            value = value.lstrip(" \t") + "".join(current[1:])
            fields.setdefault(name.lower(), value.rstrip("\r\n"))

    for line in lines:
        if not line or not _HEADER_START.match(line):
            break                   # the end of the headers (the email parser reads the rest as a body)
        if line[0] in " \t":
            if current:
                current.append(line)
            continue
        done()
        current = []
        if line.startswith("From ") or line.find(":") == 0:
            continue                # a mailbox line, or no name: the email parser skips them
        current = [line]
    done()
    return fields


class Response:
    """One response, read as http.client's HTTPResponse reads it (status, headers, then `read1`)."""

    def __init__(self, reader: Reader, method: str):
        self.reader = reader
        self.method = method
        self.status = 0
        self.version = 11
        self.headers: Dict[str, str] = {}
        self.length: Optional[int] = None      # body bytes still to come (None: unknown)
        self.chunked = False
        self.chunk_left: Optional[int] = None
        self.will_close = False
        self.done = False                      # the whole body was read (or there is none)

    def _status(self) -> tuple:
        line = str(self.reader.line(MAX_LINE + 1), "iso-8859-1")
        if len(line) > MAX_LINE:
            raise hc.LineTooLong("status line")
        if not line:
            raise hc.RemoteDisconnected("Remote end closed connection without response")
        try:
            version, status, _ = line.split(None, 2)
        except ValueError:
            try:
                version, status = line.split(None, 1)
            except ValueError:
                version = ""
        if not version.startswith("HTTP/"):
            raise hc.BadStatusLine(line)
        try:
            code = int(status)
        except ValueError:
            raise hc.BadStatusLine(line) from None
        if code < 100 or code > 999:
            raise hc.BadStatusLine(line)
        return version, code

    def begin(self) -> None:
        while True:
            version, status = self._status()
            if status != 100:
                break
            _header_lines(self.reader)          # a 100 Continue's headers: skipped
        self.status = status
        if version in ("HTTP/1.0", "HTTP/0.9"):
            self.version = 10
        elif version.startswith("HTTP/1."):
            self.version = 11
        else:
            raise hc.UnknownProtocol(version)
        self.headers = headers = parse_fields(_header_lines(self.reader))
        coding = headers.get("transfer-encoding")
        self.chunked = bool(coding) and coding.lower() == "chunked"
        self.will_close = self._closes()
        length = headers.get("content-length")
        if length and not self.chunked:
            try:
                self.length = int(length)
            except ValueError:
                self.length = None
            else:
                if self.length < 0:
                    self.length = None
        if status in (204, 304) or 100 <= status < 200 or self.method == "HEAD":
            self.length = 0
        if not self.will_close and not self.chunked and self.length is None:
            self.will_close = True
        self.done = self.method == "HEAD"

    def _closes(self) -> bool:
        """http.client's _check_close: does the server close the connection after this response?"""
        conn = self.headers.get("connection")
        if self.version == 11:
            return bool(conn) and "close" in conn.lower()
        if self.headers.get("keep-alive"):
            return False
        if conn and "keep-alive" in conn.lower():
            return False
        proxy = self.headers.get("proxy-connection")
        return not (proxy and "keep-alive" in proxy.lower())

    def getheader(self, name: str) -> Optional[str]:
        return self.headers.get(name.lower())

    def read1(self, n: int) -> bytes:
        """At most `n` body bytes with at most one receive; b"" at the end (HTTPResponse.read1)."""
        if self.done:
            return b""
        if self.chunked:
            return self._read1_chunked(n)
        if self.length is not None and (n < 0 or n > self.length):
            n = self.length
        data = self.reader.read1(n)
        if not data and n:
            self.done = True
        elif self.length is not None:
            self.length -= len(data)
        return data

    def _read1_chunked(self, n: int) -> bytes:
        left = self._chunk_left()
        if left is None or n == 0:
            return b""
        if not 0 <= n <= left:
            n = left
        data = self.reader.read1(n)
        self.chunk_left = left - len(data)
        if not data:
            raise hc.IncompleteRead(b"")
        return data

    def _chunk_left(self) -> Optional[int]:
        left = self.chunk_left
        if not left:
            if left is not None:
                end = self.reader.read(2)           # the CRLF after a chunk
                if len(end) < 2:
                    raise hc.IncompleteRead(end, 2 - len(end))
            line = self.reader.line(MAX_LINE + 1)
            if len(line) > MAX_LINE:
                raise hc.LineTooLong("chunk size")
            cut = line.find(b";")
            if cut >= 0:
                line = line[:cut]
            try:
                left = int(line, 16)
            except ValueError:
                raise hc.IncompleteRead(b"") from None
            if left == 0:
                self._trailer()
                self.done = True
                left = None
            self.chunk_left = left
        return left

    def _trailer(self) -> None:
        while True:
            line = self.reader.line(MAX_LINE + 1)
            if len(line) > MAX_LINE:
                raise hc.LineTooLong("trailer line")
            if line in (b"\r\n", b"\n", b""):
                return
