"""The alert action's fakes of the search head (tests/fakes/kvstore.py) answer as splunkd does."""
import json

import pytest

from fakes.kvstore import KV_BASE, KVStore, write_results


def test_kv_fake_upserts_by_key(fake_splunkd, tls):
    import ssl
    import urllib.request
    kv = KVStore().install(fake_splunkd)
    ctx = ssl.create_default_context(cafile=tls[0])

    def call(method, path, body=None):
        req = urllib.request.Request(fake_splunkd.url + path, data=body, method=method)
        return json.load(urllib.request.urlopen(req, context=ctx, timeout=5))

    docs = json.dumps([{"_key": "a", "n": 1}, {"_key": "b", "n": 2}]).encode()
    assert call("POST", KV_BASE + "/batch_save", docs) == ["a", "b"]
    call("POST", KV_BASE + "/batch_save", json.dumps([{"_key": "a", "n": 3}]).encode())
    assert len(kv.records) == 2 and kv.records["a"]["n"] == 3
    q = json.dumps({"$or": [{"_key": "a"}, {"_key": "zz"}]})
    from urllib.parse import quote
    assert [r["_key"] for r in call("GET", KV_BASE + "?query=" + quote(q))] == ["a"]


def test_kv_twin_answers_503(fake_splunkd, tls):
    import ssl
    import urllib.error
    import urllib.request
    KVStore(unavailable=-1).install(fake_splunkd)
    ctx = ssl.create_default_context(cafile=tls[0])
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(fake_splunkd.url + KV_BASE, context=ctx, timeout=5)
    assert e.value.code == 503
    assert "KV Store is initializing" in e.value.read().decode()


def test_results_writer_round_trip(tmp_path):
    from ingest_doctor.alert.results import read_rows
    p = write_results(str(tmp_path / "r.csv.gz"), [{"signal": "thread_busy", "host": "a", "samples": ["1", "2$"]},
                                                   {"signal": "thread_busy", "host": "b", "samples": ["3"]}])
    rows = list(read_rows(p, ["signal", "host", "samples"]))
    assert rows[0].values("samples") == ["1", "2$"] and rows[1].values("samples") == ["3"]
