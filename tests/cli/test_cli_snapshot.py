"""`snapshot` against the loopback HTTPS fake splunkd: token or password, TLS verified, faults, no secrets."""
import json
import os
import subprocess
import sys
import time

import pytest

from fakes.engine_helpers import CLI_SCRIPT, cli_main as run
from fakes.hookreceiver import free_port
from fakes.splunkd import Response, envelope, fault
from ingest_doctor import exitcodes, thresholds
from fakes.snapbuilder import Snap, dutycycle_wide, times

HEC_TOKEN = "00000000-0000-0000-0000-000000000001"


def instance():
    s = (Snap("hf-live").server_info(16, ["heavyweight_forwarder"]).resources(16, 18.0, 104.0).http("2")
         .queues({None: {"parsingQueue": (3, 3, 3, 3), "indexQueue": (4, 4, 4, 4)}}).indexer()
         .server_general().server_queue().tcpout("true"))
    for t in times(6, end=time.time()):
        dutycycle_wide(s, t, {"httpinputserverdatathread": 0.99, "tail": 0.01})
    return s


def serve(fake, s, skip=()):
    for path, body in s.rest_bodies.items():
        if path not in skip:
            fake.route("GET", "/" + path, envelope("/" + path, [(e["name"], e["content"]) for e in body["entry"]]))
    now = time.time()
    export = "".join(json.dumps({"preview": False, "offset": i, "result": {"_time": "%.3f" % (now - i), "_raw": raw}})
                     + "\n" for i, raw in enumerate(reversed(s.metrics)))
    fake.route("POST", "/services/search/jobs/export", Response(200, export))


def base(fake, tmp_path, *extra):
    return ["snapshot", "--uri", fake.url, "--out", str(tmp_path / "snap")] + list(extra)


def test_snapshot_with_token_then_diagnose(fake_splunkd, tls, tmp_path, monkeypatch):
    serve(fake_splunkd, instance(), skip=("services/server/health/splunkd/details",))
    monkeypatch.setenv("SPLUNK_TOKEN", "my-session-key")
    code, out, err = run(base(fake_splunkd, tmp_path, "--token-env", "SPLUNK_TOKEN", "--ca-file", tls[0]))
    assert code == exitcodes.OK, err
    snap = tmp_path / "snap"
    assert (snap / "rest" / "services" / "server" / "introspection" / "queues.json").exists()
    assert "services/server/health/splunkd/details: not available on this version (skipped)" in err
    meta = json.loads((snap / "snapshot.json").read_text())
    assert meta["format"] == 1 and meta["host"] == "hf-live" and meta["captured_at"].endswith("Z")
    lines = (snap / "logs" / "metrics.log").read_text().splitlines()
    assert len(lines) == 12 and lines[0] < lines[-1]        # oldest first
    req = fake_splunkd.requests_to("/services/server/queues") or fake_splunkd.requests_to(
        "/services/server/introspection/queues")
    assert req[0].headers["Authorization"] == "Splunk my-session-key"
    assert req[0].query["output_mode"] == ["json"] and req[0].query["count"] == ["0"]
    search = fake_splunkd.requests_to("/services/search/jobs/export")[0].form()["search"][0]
    assert "metrics.log" in search and 'host="hf-live"' in search
    code, out, err = run(["diagnose", str(snap)])
    assert code == exitcodes.OK and json.loads(out)["findings"][0]["bottleneck"] == "hec_input"


def test_snapshot_never_writes_secrets(fake_splunkd, tls, tmp_path, monkeypatch):
    serve(fake_splunkd, instance())
    fake_splunkd.route("GET", "/services/configs/conf-server/general", envelope(
        "/services/configs/conf-server/general", [("general", {
            "parallelIngestionPipelines": "1", "pass4SymmKey": "$7$c2VjcmV0LXN5bW0ta2V5",
            "sslPassword": "$7$c3NsLXBhc3N3b3Jk"})]))
    monkeypatch.setenv("TOK", "Bearer eyJraWQiOiJzcGx1bmsuc2VjcmV0In0.eyJzdWIiOiJhZG1pbiJ9.c2ln")
    code, _, err = run(base(fake_splunkd, tmp_path, "--token-env", "TOK", "--ca-file", tls[0]))
    assert code == exitcodes.OK, err
    assert fake_splunkd.requests_to("/services/server/info")[0].headers["Authorization"].startswith("Bearer eyJ")
    blob = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "snap").rglob("*") if p.is_file())
    assert HEC_TOKEN not in blob and "eyJzdWIiOiJhZG1pbiJ9" not in blob
    assert "c2VjcmV0LXN5bW0ta2V5" not in blob and "c3NsLXBhc3N3b3Jk" not in blob
    http = json.loads((tmp_path / "snap" / "rest" / "services" / "data" / "inputs" / "http.json").read_text())
    assert all("token" not in e["content"] for e in http["entry"])
    assert http["entry"] and all(e["name"].startswith("http://") for e in http["entry"])
    settings = json.loads((tmp_path / "snap" / "rest" / "services" / "data" / "inputs" / "http" / "http.json")
                          .read_text())
    assert settings["entry"][0]["content"]["dedicatedIoThreads"] == "2"
    assert "secret value" in err


def test_snapshot_with_username_and_password_from_stdin(fake_splunkd, tls, tmp_path):
    serve(fake_splunkd, instance())

    def login(req):
        form = req.form()
        if form.get("username") == ["admin"] and form.get("password") == ["s3cret"]:
            return Response(200, "<response><sessionKey>KEY123</sessionKey></response>", "text/xml")
        return fault("401")
    fake_splunkd.route("POST", "/services/auth/login", login)
    code, _, err = run(base(fake_splunkd, tmp_path, "--username", "admin", "--ca-file", tls[0]), stdin="s3cret\n")
    assert code == exitcodes.OK, err
    assert fake_splunkd.requests_to("/services/server/info")[0].headers["Authorization"] == "Splunk KEY123"
    assert "s3cret" not in err
    code, _, err = run(base(fake_splunkd, tmp_path / "again", "--username", "admin", "--ca-file", tls[0]),
                       stdin="wrong\n")
    assert code == exitcodes.AUTH and "rejected the credentials" in err and err.count("\n") == 1


def test_401_with_a_token(fake_splunkd, tls, tmp_path, monkeypatch):
    fake_splunkd.route("GET", "/services/server/info", fault("401"))
    monkeypatch.setenv("TOK", "expired")
    code, _, err = run(base(fake_splunkd, tmp_path, "--token-env", "TOK", "--ca-file", tls[0]))
    assert code == exitcodes.AUTH and "rejected the credentials" in err and err.count("\n") == 1
    assert "expired" not in err


def test_tls_verification_fails_without_ca_or_insecure(fake_splunkd, tmp_path, monkeypatch):
    serve(fake_splunkd, instance())
    monkeypatch.setenv("TOK", "k")
    code, _, err = run(base(fake_splunkd, tmp_path, "--token-env", "TOK"))
    assert code == exitcodes.BAD_CONFIG
    assert "TLS verification" in err and "--ca-file" in err and err.count("\n") == 1
    assert not fake_splunkd.requests_to("/services/server/info")
    code, _, err = run(base(fake_splunkd, tmp_path, "--token-env", "TOK", "--insecure"))
    assert code == exitcodes.OK, err


def test_export_forbidden_is_noted_and_rest_is_kept(fake_splunkd, tls, tmp_path, monkeypatch):
    serve(fake_splunkd, instance())
    fake_splunkd.route("POST", "/services/search/jobs/export", fault("403"))
    fake_splunkd.route("GET", "/services/server/pipelinesets", fault("html"))
    monkeypatch.setenv("TOK", "k")
    code, _, err = run(base(fake_splunkd, tmp_path, "--token-env", "TOK", "--ca-file", tls[0]))
    assert code == exitcodes.OK
    assert "logs/metrics.log: search export answered HTTP 403" in err
    assert "services/server/pipelinesets: HTTP 500 (skipped)" in err
    assert not (tmp_path / "snap" / "logs" / "metrics.log").exists()


@pytest.mark.parametrize("argv,words", [
    (["snapshot", "--uri", "https://h:8089"], "--out"),
    (["snapshot", "--uri", "ftp://h", "--out", "x", "--token-env", "T"], "--uri must look like"),
    (["snapshot", "--uri", "https://u:p@h:8089", "--out", "x", "--token-env", "T"], "must not carry credentials"),
    (["snapshot", "--uri", "https://h:8089", "--out", "x", "--token-env", "NOPE_NOT_SET"], "NOPE_NOT_SET"),
    (["snapshot", "--uri", "https://h:8089", "--out", "x", "--insecure", "--ca-file", "f", "--token-env", "T"],
     "not allowed"),
])
def test_usage_errors(argv, words, monkeypatch, tmp_path):
    monkeypatch.setenv("T", "x")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(argv)
    assert code == exitcodes.USAGE and words in err and err.count("\n") == 1


def test_snapshot_as_a_subprocess(fake_splunkd, tls, tmp_path):
    serve(fake_splunkd, instance())
    env = dict(os.environ, SPLUNK_TOKEN="k", PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, CLI_SCRIPT, "snapshot", "--uri", fake_splunkd.url, "--out", str(tmp_path / "s"),
                        "--token-env", "SPLUNK_TOKEN", "--ca-file", tls[0], "--metrics-log-minutes", "5"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == exitcodes.OK, r.stderr
    assert "wrote" in r.stdout
    assert "earliest=-5m" in fake_splunkd.requests_to("/services/search/jobs/export")[0].form()["search"][0]


def test_out_must_be_new_or_empty_and_logs_can_be_skipped(fake_splunkd, tls, tmp_path, monkeypatch):
    serve(fake_splunkd, instance())
    monkeypatch.setenv("TOK", "k")
    busy = tmp_path / "busy" / "snap"        # the folder base(..., tmp_path / "busy") writes to
    busy.mkdir(parents=True)
    (busy / "keep.txt").write_text("x")
    code, _, err = run(base(fake_splunkd, tmp_path / "busy", "--token-env", "TOK", "--ca-file", tls[0]))
    assert code == exitcodes.USAGE and "not empty" in err and (busy / "keep.txt").exists()
    code, _, err = run(base(fake_splunkd, tmp_path, "--token-env", "TOK", "--ca-file", tls[0],
                            "--metrics-log-minutes", "0"))
    assert code == exitcodes.OK, err
    assert not fake_splunkd.requests_to("/services/search/jobs/export")
    assert not (tmp_path / "snap" / "logs").exists()


def test_unreachable_splunkd_is_transient(tmp_path, monkeypatch):
    monkeypatch.setenv("TOK", "k")
    code, _, err = run(["snapshot", "--uri", "https://127.0.0.1:%d" % free_port(), "--out", str(tmp_path / "s"),
                        "--token-env", "TOK", "--insecure"])
    assert code == exitcodes.TRANSIENT and "cannot reach" in err and err.count("\n") == 1


def test_snapshot_records_the_threshold_macros_and_diagnose_judges_with_them(fake_splunkd, tls, tmp_path,
                                                                               monkeypatch):
    s = instance().macros({"ingest_doctor_thread_busy_pct": "99.5", "ingest_doctor_events_index": "index=main"})
    serve(fake_splunkd, s)
    monkeypatch.setenv("TOK", "k")
    code, _, err = run(base(fake_splunkd, tmp_path, "--token-env", "TOK", "--ca-file", tls[0]))
    assert code == exitcodes.OK, err
    assert fake_splunkd.requests_to("/services/configs/conf-macros")[0].query["search"] == ["ingest_doctor_"]
    recorded = tmp_path / "snap" / "rest" / "services" / "configs" / "conf-macros.json"
    macros = {e["name"]: e["content"]["definition"] for e in json.loads(recorded.read_text())["entry"]}
    assert macros["ingest_doctor_thread_busy_pct"] == "99.5"

    def hec_findings(*extra):
        code, out, err = run(["diagnose", str(tmp_path / "snap")] + list(extra))
        assert code == exitcodes.OK, err
        return [f for f in json.loads(out)["findings"] if f["bottleneck"] == "hec_input"]
    # The HEC thread at 99% is under the recorded, tuned 99.5; --threshold overrides the recording.
    assert not hec_findings()
    assert hec_findings("--threshold", "thread_busy_pct=%g" % thresholds.defaults().thread_busy_pct)
