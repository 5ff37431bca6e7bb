"""Issue 38: the add-on's diag extension (bin/ingest_doctor_diag.py), called as splunk diag calls it, with a fake
`diag` object whose add_rest_endpoint asks the loopback fake splunkd (as diag asks the local splunkd), and
`diagnose` preferring that live data when the diag carries it."""
import json
import os
import ssl
import time
import urllib.error
import urllib.request

from fakes import diagbuilder
from fakes.engine_helpers import diagnose_cli
from fakes.instance import load_script
from fakes.paths import BIN, SCENARIOS, need_ta_build
from fakes.splunkd import FakeSplunkd, Response
from ingest_doctor import exitcodes
from ingest_doctor.read import diag as diagread
from ingest_doctor.read.endpoints import SNAPSHOT

SCEN = os.path.join(SCENARIOS, "hec_pegged_default_io")


class FakeDiag:
    """splunk diag's collector object: what the extension adds lands under app_ext/<app>/ (here: in memory)."""

    def __init__(self, base_url: str, cafile: str):
        self.base, self.ctx = base_url, ssl.create_default_context(cafile=cafile)
        self.files, self.asked, self.failed = {}, [], []

    def add_string(self, text, diag_path):
        self.files[diag_path] = text.encode("utf-8")

    def add_rest_endpoint(self, endpoint, diag_path):
        assert endpoint.startswith("/") and "://" not in endpoint    # as diag requires: no host, port, protocol
        self.asked.append(endpoint)
        try:
            with urllib.request.urlopen(self.base + endpoint, context=self.ctx, timeout=10) as r:
                self.files[diag_path] = r.read()
        except urllib.error.HTTPError as e:     # an endpoint this splunkd lacks: recorded as failed, diag goes on
            self.failed.append((endpoint, e.code))

    def add_file(self, *a):
        raise AssertionError("the extension adds no file")

    add_dir = add_file


class Callback:
    def __init__(self):
        self.rest = False

    def will_need_rest(self):
        self.rest = True


def _report(path):
    """`diagnose` of `path` through the CLI, which must exit OK: the report as JSON."""
    rc, out, err = diagnose_cli(path)
    assert rc == exitcodes.OK, err
    return json.loads(out)


def _collect(tls, tmp_path) -> FakeDiag:
    """The extension run as splunk diag runs it, against a splunkd serving the scenario's bodies (and a token)."""
    mod = load_script(os.path.join(BIN, "ingest_doctor_diag.py"), "ingest_doctor_diag")
    cb = Callback()
    mod.setup(parser=None, app_dir=str(tmp_path), callback=cb)
    assert cb.rest
    with FakeSplunkd(tls) as fake:
        for ep in SNAPSHOT:
            fname = os.path.join(SCEN, "rest", *ep.path.split("/")) + ".json"
            if os.path.exists(fname):
                with open(fname, "rb") as f:
                    fake.route("GET", "/" + ep.path, Response(200, f.read()))
        fake.route("GET", "/services/data/inputs/http", Response(200, {"entry": [{"name": "http://t", "content": {
            "token": "SECRET-TOKEN-VALUE"}}]}))
        d = FakeDiag(fake.url, tls[0])
        mod.collect_diag_info(d, options=None, global_options=None, app_dir=str(tmp_path))
        asked = [r.path for r in fake.requests]
    assert all("output_mode=json" in e for e in d.asked)
    assert not [p for p in asked if "inputs/http" in p or "configs" in p]      # no configuration endpoint
    assert b"SECRET-TOKEN-VALUE" not in b"".join(d.files.values())
    assert json.loads(d.files["snapshot.json"])["captured_at"].endswith("Z")
    assert "rest/services/server/introspection/queues.json" in d.files
    return d


def test_the_extension_saves_the_runtime_endpoints_as_json_and_no_secret(tls, tmp_path):
    _collect(tls, tmp_path)


def test_diagnose_prefers_the_extensions_live_data(tls, tmp_path):
    d = _collect(tls, tmp_path)
    host = "hf-pegged"
    parts = diagbuilder.members(SCEN, host)
    ext = [("app_ext/TA-ingest_doctor/" + p, data) for p, data in sorted(d.files.items())]
    parts = parts[:-2] + ext + parts[-2:]        # app_ext before excluded_filelist.txt and diag.log
    with_live = diagbuilder.write_tar(str(tmp_path), "diag-%s-2025-11-22_10-00-00" % host, parts)
    (tmp_path / "plain").mkdir()
    plain = diagbuilder.from_snapshot(SCEN, str(tmp_path / "plain"))
    live, logs = _report(with_live), _report(plain)
    assert diagread.CANNOT_SHOW[0] not in live["not_judged"] and diagread.CANNOT_SHOW[0] in logs["not_judged"]
    ids = lambda r: sorted((f["id"], f["severity"]) for f in r["findings"])     # noqa: E731
    assert ids(live) == ids(_report(SCEN))


def test_a_failed_extension_is_named(tmp_path):
    parts = diagbuilder.members(SCEN, "h")
    parts.insert(-2, ("app_ext/TA-ingest_doctor/data_collect_exception.output", b"Traceback...\nURLError: refused\n"))
    path = diagbuilder.write_tar(str(tmp_path), "diag-h-2025-11-22_10-00-00", parts)
    assert any("diag extension failed (URLError: refused)" in n for n in _report(path)["not_judged"])


def test_the_built_addon_declares_the_extension_and_ships_it():
    """app.conf [diag] names the script diag imports from the add-on's bin/ (a simple file name, app.conf.spec)."""
    from confcheck import read_conf
    ta = need_ta_build()
    diag_stanza = read_conf(os.path.join(ta, "default", "app.conf"))["diag"]
    script = diag_stanza["extension_script"].strip()
    assert "/" not in script and os.path.isfile(os.path.join(ta, "bin", script))
    assert diag_stanza["data_limit"].strip() == "16MB"
    mod = load_script(os.path.join(ta, "bin", script), "built_diag")    # from the built add-on's own bin/, as diag
    assert callable(mod.setup) and callable(mod.collect_diag_info)


def _stamp(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) + ",123"     # logging's asctime, local time


def test_the_extension_saves_the_collector_logs_last_hour_bounded_and_without_secrets(tls, tmp_path, monkeypatch):
    """The collector's window is in its process's memory: the extension saves its log file's tail instead, the
    last hour and at most COLLECTOR_TAIL_BYTES of a file of any size, with no secret in it."""
    from ingest_doctor_ports import logs
    home = tmp_path / "splunk"
    folder = home / "var" / "log" / "splunk"
    folder.mkdir(parents=True)
    now = time.time()
    old = ["%s INFO category=poll host=old-%d" % (_stamp(now - 7200 + i * 0.05), i) for i in range(40000)]
    recent = ["%s INFO category=poll endpoints=7 elapsed_ms=12" % _stamp(now - 600),
              "%s ERROR category=endpoint_error path=services/server/pipelinesets kind=403 capability="
              "list_pipeline_sets" % _stamp(now - 300),
              "  a continuation line of that error",
              "%s WARN category=webhook url=https://hooks.example.com/services/T00/B00/XSECRETX token=tok-SECRET1 "
              "hecToken=\"tok SECRET2\" header=\"Authorization: Splunk 0123456789abcdef-SECRET3\"" % _stamp(now - 60)]
    (folder / logs.COLLECTOR_LOG).write_text("\n".join(old + recent) + "\n")
    assert (folder / logs.COLLECTOR_LOG).stat().st_size > 2 * diagread.COLLECTOR_TAIL_BYTES
    monkeypatch.setenv("SPLUNK_HOME", str(home))
    saved = _collect(tls, tmp_path).files[diagread.COLLECTOR_LOG]
    text = saved.decode("utf-8")
    assert len(saved) <= diagread.COLLECTOR_TAIL_BYTES + 400
    assert "host=old-" not in text                          # older than the hour: left out
    assert "endpoints=7" in text and "kind=403 capability=list_pipeline_sets" in text
    assert "a continuation line of that error" in text
    for secret in ("XSECRETX", "SECRET1", "SECRET2", "SECRET3", "/services/T00"):
        assert secret not in text, secret
    assert "https://hooks.example.com/(hidden)" in text and "token=(hidden)" in text
    assert text.startswith("# ingest_doctor_collector.log, the last 60 minutes") and "4 value(s) hidden" in text


def test_no_collector_log_saves_none_and_the_diag_still_reads(tls, tmp_path, monkeypatch):
    monkeypatch.setenv("SPLUNK_HOME", str(tmp_path / "nowhere"))
    assert diagread.COLLECTOR_LOG not in _collect(tls, tmp_path).files


def test_a_diag_with_the_collector_log_reads_as_one_without(tmp_path):
    parts = diagbuilder.members(SCEN, "h")
    plain = diagbuilder.write_tar(str(tmp_path), "diag-h-2025-11-22_10-00-00", parts)
    (tmp_path / "b").mkdir()
    parts.insert(-2, ("app_ext/TA-ingest_doctor/" + diagread.COLLECTOR_LOG,
                      b"# ingest_doctor_collector.log\n2025-11-22 10:00:00,000 INFO category=poll\n"))
    with_log = diagbuilder.write_tar(str(tmp_path / "b"), "diag-h-2025-11-22_10-00-00", parts)
    assert _report(with_log) == _report(plain)
