import json
import ssl
import urllib.error
import urllib.request

import pytest

from fakes.splunkd import envelope, fault


def _get(fake, tls, path, timeout=5):
    ctx = ssl.create_default_context(cafile=tls[0])
    return urllib.request.urlopen(fake.url + path, context=ctx, timeout=timeout)


def test_envelope_round_trip(fake_splunkd, tls):
    fake_splunkd.route("GET", "/services/server/info", envelope("/services/server/info", [("server-info", {"host": "hf-01"})]))
    body = json.load(_get(fake_splunkd, tls, "/services/server/info?output_mode=json"))
    assert body["entry"][0]["content"]["host"] == "hf-01"
    assert body["entry"][0]["content"]["eai:acl"] is None
    assert fake_splunkd.requests_to("/services/server/info")[0].query["output_mode"] == ["json"]


@pytest.mark.parametrize("name,status", [("401", 401), ("403", 403), ("404", 404), ("503", 503), ("html", 500)])
def test_error_faults(fake_splunkd, tls, name, status):
    fake_splunkd.route("GET", "/x", fault(name))
    with pytest.raises(urllib.error.HTTPError) as e:
        _get(fake_splunkd, tls, "/x")
    assert e.value.code == status


def test_truncated_and_timeout(fake_splunkd, tls):
    import http.client
    import socket
    fake_splunkd.route("GET", "/t", fault("truncated"))
    with pytest.raises(http.client.IncompleteRead):
        _get(fake_splunkd, tls, "/t").read()
    fake_splunkd.route("GET", "/slow", fault("timeout"))
    with pytest.raises((socket.timeout, TimeoutError, urllib.error.URLError)):
        _get(fake_splunkd, tls, "/slow", timeout=0.5)
