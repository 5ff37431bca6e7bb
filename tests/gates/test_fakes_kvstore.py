"""The alert action's fakes of the search head (tests/fakes/kvstore.py) answer as splunkd does."""
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request

from fakes.kvstore import KV_BASE, KVStore, Splunkd, spl_args, write_results
from ingest_doctor import exitcodes
from ingest_doctor.alert.results import read_rows


def _call(fake, tls, method, path, form=None, body=None, timeout=60):
    """(status, parsed body) of one request to the fake splunkd: a form encoded as splunkd takes it, or a
    JSON body as the KV store takes it."""
    data = urllib.parse.urlencode(form).encode() if form is not None else body
    req = urllib.request.Request(fake.url + path, data=data, method=method,
                                 headers={"Authorization": "Splunk s3cr3t-session-key"})
    try:
        with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=tls[0]), timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def test_kv_fake_upserts_by_key(fake_splunkd, tls):
    kv = KVStore().install(fake_splunkd)

    def call(method, path, body=None):
        return _call(fake_splunkd, tls, method, path, body=body, timeout=5)

    docs = json.dumps([{"_key": "a", "n": 1}, {"_key": "b", "n": 2}]).encode()
    assert call("POST", KV_BASE + "/batch_save", docs) == (200, ["a", "b"])
    call("POST", KV_BASE + "/batch_save", json.dumps([{"_key": "a", "n": 3}]).encode())
    assert len(kv.records) == 2 and kv.records["a"]["n"] == 3
    q = urllib.parse.quote(json.dumps({"$or": [{"_key": "a"}, {"_key": "zz"}]}))
    assert [r["_key"] for r in call("GET", KV_BASE + "?query=" + q)[1]] == ["a"]


def test_kv_twin_answers_503(fake_splunkd, tls):
    KVStore(unavailable=-1).install(fake_splunkd)
    status, body = _call(fake_splunkd, tls, "GET", KV_BASE, timeout=5)
    assert status == 503
    assert "KV Store is initializing" in body["messages"][0]["text"]


def test_results_writer_round_trip(tmp_path):
    p = write_results(str(tmp_path / "r.csv.gz"), [{"signal": "thread_busy", "host": "a", "samples": ["1", "2$"]},
                                                   {"signal": "thread_busy", "host": "b", "samples": ["3"]}])
    rows = list(read_rows(p, ["signal", "host", "samples"]))
    assert rows[0].values("samples") == ["1", "2$"] and rows[1].values("samples") == ["3"]


# ---------------------------------------------------------------------------- storage/passwords, macros, sendalert
PW = "/servicesNS/nobody/ingest_doctor/storage/passwords"


def test_passwords_create_409_update_404_delete_and_the_field_filter(fake_splunkd, tls):
    sd = Splunkd(fake_splunkd)
    form = {"name": "webhook_url", "realm": "ingest_doctor", "password": "https://h.example.com/t"}
    assert _call(fake_splunkd, tls, "POST", PW, form)[0] == 201
    status, body = _call(fake_splunkd, tls, "POST", PW, form)
    assert status == 409 and "already exists" in body["messages"][0]["text"]
    entity = PW + "/ingest_doctor%3Awebhook_url%3A"
    assert _call(fake_splunkd, tls, "POST", entity, {"password": "https://h.example.com/u"})[0] == 200
    assert sd.passwords == {"ingest_doctor:webhook_url:": "https://h.example.com/u"}
    status, body = _call(fake_splunkd, tls, "GET", entity + "?output_mode=json&f=realm&f=username")
    content = body["entry"][0]["content"]
    assert status == 200 and "clear_password" not in content and content["username"] == "webhook_url"
    assert _call(fake_splunkd, tls, "GET", entity + "?output_mode=json")[1]["entry"][0]["content"][
        "clear_password"] == "https://h.example.com/u"
    assert _call(fake_splunkd, tls, "DELETE", entity)[0] == 200
    assert _call(fake_splunkd, tls, "DELETE", entity)[0] == 404
    assert _call(fake_splunkd, tls, "POST", entity, {"password": "x"})[0] == 404


def test_passwords_and_macros_answer_403_without_the_capability(fake_splunkd, tls):
    sd = Splunkd(fake_splunkd, user="analyst", roles=["user"], capabilities=["list_storage_passwords"])
    status, body = _call(fake_splunkd, tls, "POST", PW, {"name": "webhook_url", "realm": "ingest_doctor",
                                                        "password": "https://h.example.com/t"})
    assert status == 403 and "requires capability: admin_all_objects or edit_storage_passwords" in \
        body["messages"][0]["text"]
    macro = "/servicesNS/nobody/ingest_doctor/configs/conf-macros/ingest_doctor_webhook_allow"
    assert _call(fake_splunkd, tls, "POST", macro, {"definition": "10.0.0.0/8"})[0] == 403
    assert sd.passwords == {} and sd.macros["ingest_doctor_webhook_allow"] == "none"


def test_a_macro_written_is_what_the_list_answers(fake_splunkd, tls):
    Splunkd(fake_splunkd)
    base = "/servicesNS/nobody/ingest_doctor/configs/conf-macros"
    assert _call(fake_splunkd, tls, "POST", base + "/ingest_doctor_min_severity", {"definition": "critical"})[0] == 200
    entries = {e["name"]: e["content"]["definition"] for e in _call(fake_splunkd, tls, "GET", base)[1]["entry"]}
    assert entries["ingest_doctor_min_severity"] == "critical"
    assert _call(fake_splunkd, tls, "POST", base + "/no_such_macro", {"definition": "x"})[0] == 404


def test_kv_comparison_operators(fake_splunkd, tls):
    kv = KVStore().install(fake_splunkd)
    kv.records = {"a": {"_key": "a", "time": 5}, "b": {"_key": "b", "time": 9}, "c": {"_key": "c"}}
    q = urllib.parse.quote(json.dumps({"time": {"$gte": 6}}))
    assert [r["_key"] for r in _call(fake_splunkd, tls, "GET", KV_BASE + "?query=" + q)[1]] == ["b"]
    assert [r["_key"] for r in _call(fake_splunkd, tls, "GET", KV_BASE + "?sort=time:-1&limit=2")[1]] == ["b", "a"]
    assert [r["_key"] for r in _call(fake_splunkd, tls, "GET", KV_BASE + "?sort=time")[1]] == ["c", "a", "b"]


def test_spl_arguments_are_read_as_splunk_quotes_them():
    assert spl_args(r' param.op=ack param.note="say \"hi\" \\ ok | x" param.v=idx-01') == [
        ("param.op", "ack"), ("param.note", 'say "hi" \\ ok | x'), ("param.v", "idx-01")]
    assert spl_args(' param.note="open') == "Unbalanced quotes."
    assert spl_args(' param.note="a"b') == "Invalid argument: 'param.note=\"a\"b'"


def test_sendalert_runs_the_hold_action_and_fails_the_search_with_its_exit_code(fake_splunkd, tls):
    sd = Splunkd(fake_splunkd)
    jobs = "/servicesNS/nobody/ingest_doctor/search/jobs"
    spl = ('| makeresults | sendalert ingest_doctor_hold param.op=snooze param.scope=host param.value=idx-01 '
           'param.until=+1h param.reason="CHG \\"1\\""')
    status, _ = _call(fake_splunkd, tls, "POST", jobs, {"search": spl, "exec_mode": "oneshot", "output_mode": "json"})
    assert status == 200 and sd.snoozes.records["host~idx-01"]["reason"] == 'CHG "1"'
    spl = "| makeresults | sendalert ingest_doctor_hold param.op=ack param.finding=nope/typing/1"
    status, body = _call(fake_splunkd, tls, "POST", jobs, {"search": spl, "exec_mode": "oneshot", "output_mode": "json"})
    assert status == 400 and body["messages"] == [
        {"type": "FATAL", "text": "Error in 'sendalert' command: Alert script returned error code %d." % exitcodes.BAD_INPUT}]
