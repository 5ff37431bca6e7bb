"""`snapshot` with several --uri writes a deployment folder (contract section 5) that `diagnose` judges as one:
two loopback HTTPS fake splunkds, a heavy forwarder and the indexer that names it in tcpin_connections."""
import io
import json
import os
import time

from fakes.deploybuilder import Member, server_info, tcpin_line
from fakes.snapbuilder import dutycycle_long, queue_line, times
from fakes.splunkd import FakeSplunkd, Response, envelope
from ingest_doctor import exitcodes

import ingest_doctor_cli as cli


def serve(fake, s):
    for path, body in s.rest_bodies.items():
        fake.route("GET", "/" + path, envelope("/" + path, [(e["name"], e["content"]) for e in body["entry"]]))
    now = time.time()
    export = "".join(json.dumps({"preview": False, "offset": i, "result": {"_time": "%.3f" % (now - i), "_raw": raw}})
                     + "\n" for i, raw in enumerate(reversed(s.metrics)))
    fake.route("POST", "/services/search/jobs/export", Response(200, export))


def members():
    hf = Member("hf", "hf-live", "10.9.0.5", 91)
    idx = Member("idx", "idx-live", "10.9.0.11", 92)
    server_info(hf, 8, ["heavyweight_forwarder"])
    server_info(idx, 16, ["indexer"])
    hf.snap.tcpout("false", "idx-live:9997")
    for i, t in enumerate(times(6, end=time.time())):
        for q in ("parsingqueue", "indexqueue"):
            queue_line(idx.snap, t, None, q, 3.0)
        dutycycle_long(idx.snap, t, None, {"typing": 0.2, "indexerpipe": 0.3})
        tcpin_line(idx, t, i, hf, 700.0)
        queue_line(hf.snap, t, None, "parsingqueue", 2.0)
    return hf, idx


def test_snapshot_of_two_instances_writes_a_deployment_folder_that_diagnose_judges_together(tls, tmp_path,
                                                                                           monkeypatch):
    hf, idx = members()
    monkeypatch.setenv("SPLUNK_TOKEN", "my-session-key")
    with FakeSplunkd(tls) as a, FakeSplunkd(tls) as b:
        serve(a, hf.snap)
        serve(b, idx.snap)
        out, err = io.StringIO(), io.StringIO()
        dep = tmp_path / "dep"
        code = cli.main(["snapshot", "--uri", a.url, "--uri", b.url, "--out", str(dep), "--token-env", "SPLUNK_TOKEN",
                         "--ca-file", tls[0]], io.StringIO(), out, err)
        assert code == exitcodes.OK, err.getvalue()
    subs = sorted(n for n in os.listdir(str(dep)) if os.path.isdir(str(dep / n)))
    assert len(subs) == 2 and all(n.startswith("127.0.0.1_") for n in subs)
    meta = json.loads((dep / "deployment.json").read_text())
    assert meta["format"] == 1 and sorted(meta["instances"].values()) == sorted([a.url, b.url])
    assert "my-session-key" not in "".join(open(os.path.join(dp, f), errors="replace").read()
                                           for dp, _, fs in os.walk(str(dep)) for f in fs)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["diagnose", str(dep)], io.StringIO(), out, err) == exitcodes.OK, err.getvalue()
    r = json.loads(out.getvalue())
    assert r["deployment"] is True and r["hosts"] == ["hf-live", "idx-live"]
    assert [(e["from"], e["to"]) for e in r["topology"]] == [("hf-live", "idx-live")]
    assert r["topology"][0]["source"] == "idx-live metrics.log group=tcpin_connections hostname=hf-live"


def test_a_deployment_folder_needs_an_empty_out(tmp_path):
    (tmp_path / "dep").mkdir()
    (tmp_path / "dep" / "x").write_text("x")
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["snapshot", "--uri", "https://a:8089", "--uri", "https://b:8089", "--out", str(tmp_path / "dep"),
                     "--token-env", "NOPE"], io.StringIO(), out, err)
    assert code == exitcodes.USAGE and "not empty" in err.getvalue()
