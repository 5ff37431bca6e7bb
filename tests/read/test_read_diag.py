"""Issue 38: `diagnose` reads Splunk diags laid out as `splunk diag` writes them (tests/fakes/diagbuilder.py).

Every scenario's snapshot, laid out as a diag, gives the same findings (id, severity, stage, set) as the snapshot;
what a diag cannot carry is named in not_judged. Deployment cases give the same root causes. Bad input is named
on stderr with its exit code, and a deployment's other diags are still judged.
"""
import io
import json
import os
import shutil
import tarfile

import pytest

from fakes import diagbuilder
from fakes.deploybuilder import Member, receiver, sender, write
from fakes.engine_helpers import copy_scenario, diagnose_cli
from fakes.paths import SCENARIOS
from ingest_doctor import exitcodes
from ingest_doctor.read import conffile, diag, readstep, resourceusage
from ingest_doctor.evidence import Evidence

def judged(report):
    return sorted((f["id"], f["severity"], f.get("stage"), str(f.get("pipeline_set")))
                  for f in report["findings"])


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(SCENARIOS) if os.path.isdir(os.path.join(SCENARIOS, n))))
def test_a_scenario_as_a_diag_gives_the_snapshots_findings(name, tmp_path):
    snap = os.path.join(SCENARIOS, name)
    tarball = diagbuilder.from_snapshot(snap, str(tmp_path))
    assert os.path.basename(tarball).startswith("diag-") and tarball.endswith(".tar.gz")
    rc_s, out_s, _ = diagnose_cli(snap)
    rc_d, out_d, err = diagnose_cli(tarball)
    assert rc_d == rc_s == exitcodes.OK, err
    a, b = json.loads(out_s), json.loads(out_d)
    assert judged(b) == judged(a) and b["healthy"] == a["healthy"]
    assert [line for line in diag.CANNOT_SHOW if line not in b["not_judged"]] == []


def test_an_extracted_diag_folder_reads_as_its_tarball(tmp_path):
    tarball = diagbuilder.from_snapshot(os.path.join(SCENARIOS, "hec_pegged_default_io"), str(tmp_path))
    with tarfile.open(tarball) as tf:
        tf.extractall(str(tmp_path / "x"), filter="data") if hasattr(tarfile, "data_filter") else tf.extractall(
            str(tmp_path / "x"))
    folder = tmp_path / "x" / os.path.basename(tarball)[:-len(".tar.gz")]
    assert json.loads(diagnose_cli(folder)[1])["findings"] == json.loads(diagnose_cli(tarball)[1])["findings"]


def test_the_diag_is_never_extracted_and_is_read_as_a_stream(tmp_path, monkeypatch):
    """tarfile opened in stream mode only (no seek, no extraction)."""
    opened = []
    real = tarfile.open

    def spy(name=None, mode="r", *a, **kw):
        opened.append(mode)
        return real(name, mode, *a, **kw)
    tarball = diagbuilder.from_snapshot(os.path.join(SCENARIOS, "busy_healthy"), str(tmp_path))
    monkeypatch.setattr(tarfile, "open", spy)
    before = set(os.listdir(tmp_path))
    assert diagnose_cli(tarball)[0] == exitcodes.OK
    assert opened and all(m == "r|*" for m in opened)
    assert set(os.listdir(tmp_path)) == before


def _deployment(tmp_path, received=True):
    """A heavy forwarder blocked on its saturated indexer, as a deployment folder and as a folder of their diags;
    `received=False`: no tcpin line names the forwarder (the indexer took nothing from it)."""
    hf = Member("heavy-a", "hf-01", "10.0.0.5", 1)
    idx = Member("indexer-1", "idx-01", "10.0.0.11", 2)
    receiver(idx, [(hf, 5900.0)] if received else [], saturated="indexing")
    sender(hf, [("10.0.0.11", 5900.0)], blocked=True)
    root = write(str(tmp_path / "dep"), [hf, idx])
    out = tmp_path / "diags"
    out.mkdir()
    for m in (hf, idx):
        diagbuilder.from_snapshot(os.path.join(root, m.folder), str(out), host=m.host)
    return root, out


def causes(report):
    return sorted((c["host"], c["id"]) if isinstance(c, dict) and "host" in c else json.dumps(c, sort_keys=True)
                  for c in report.get("root_causes", []))


@pytest.mark.parametrize("received", [True, False], ids=["receiver_named_by_tcpin", "receiver_known_by_address"])
def test_a_deployment_of_diags_gives_the_deployment_folders_root_causes(tmp_path, received):
    """Also when no tcpin line names the receiver (it took nothing): the sender's outputs.conf names it by IP, and
    only the receiver's systeminfo.txt (ifconfig) says that IP is its own, as a snapshot's management URI does."""
    root, diags = _deployment(tmp_path, received)
    rc_f, out_f, _ = diagnose_cli(root)
    rc_d, out_d, err = diagnose_cli(diags)
    assert rc_f == rc_d == exitcodes.OK, err
    a, b = json.loads(out_f), json.loads(out_d)
    assert a["root_causes"] and causes(b) == causes(a)
    # and the same given one by one on the command line
    rc, out, err = diagnose_cli(*sorted(str(diags / n) for n in os.listdir(diags)))
    assert rc == exitcodes.OK and causes(json.loads(out)) == causes(a)
    assert diag.scan(str(diags / sorted(os.listdir(diags))[1])).addresses == ["10.0.0.11"]


def test_a_bad_diag_in_a_deployment_is_named_and_the_others_judged(tmp_path):
    _, diags = _deployment(tmp_path)
    (diags / "diag-broken-2025-11-22_10-00-00.tar.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"junk" * 10)
    rc, out, err = diagnose_cli(diags)
    assert rc == exitcodes.BAD_INPUT and "diag-broken" in err
    assert json.loads(out)["root_causes"]


# -- bad input

def _tar(tmp_path, infos, name="diag-h-2025-11-22_10-00-00.tar.gz"):
    path = str(tmp_path / name)
    with tarfile.open(path, "w:gz") as tf:
        for ti, data in infos:
            tf.addfile(ti, io.BytesIO(data) if data is not None else None)
    return path


def _file(name, data=b""):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    return ti, data


def test_not_a_diag_empty_truncated_and_corrupt_are_named(tmp_path):
    good = diagbuilder.from_snapshot(os.path.join(SCENARIOS, "busy_healthy"), str(tmp_path))
    data = open(good, "rb").read()
    cases = {"diag-empty-2025-11-22.tar.gz": (b"", "empty file"),
             "diag-trunc-2025-11-22.tar.gz": (data[:len(data) // 2], "truncated"),
             "diag-enc-2025-11-22.tar.gz": (b"Salted__" + os.urandom(64), "")}
    for name, (body, words) in cases.items():
        (tmp_path / name).write_bytes(body)
        rc, out, err = diagnose_cli(tmp_path / name)
        assert rc == exitcodes.BAD_INPUT and name in err and words in err and out == "", (name, err)
    rc, _, err = diagnose_cli(_tar(tmp_path, [], "diag-none-2025-11-22.tar.gz"))
    assert rc == exitcodes.BAD_INPUT and "empty archive" in err
    rc, _, err = diagnose_cli(_tar(tmp_path, [_file("diag-x/notes.txt", b"hi")], "diag-x-2025-11-22.tar.gz"))
    assert rc == exitcodes.BAD_INPUT and "not a diag" in err
    (tmp_path / "plain").mkdir()
    rc, _, err = diagnose_cli(tmp_path / "plain", tmp_path / "plain")
    assert rc == exitcodes.BAD_INPUT and "not a diag" in err


@pytest.mark.parametrize("bad", ["/etc/passwd", "diag-h/../../escape", "../x"])
def test_a_member_outside_the_folder_is_refused_and_nothing_written(tmp_path, bad):
    path = _tar(tmp_path, [_file("diag-h/log/metrics.log", b""), _file(bad, b"owned")])
    rc, out, err = diagnose_cli(path)
    assert rc == exitcodes.BAD_INPUT and "outside the diag's folder" in err
    assert not os.path.exists(str(tmp_path / "escape")) and not os.path.exists(str(tmp_path.parent / "x"))


def test_a_symlink_member_is_named_not_followed(tmp_path):
    parts = diagbuilder.members(os.path.join(SCENARIOS, "busy_healthy"), "h")
    link = tarfile.TarInfo("diag-h-2025-11-22_10-00-00/log/splunkd.log.2")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
    path = diagbuilder.write_tar(str(tmp_path), "diag-h-2025-11-22_10-00-00", parts, [link])
    rc, out, err = diagnose_cli(path)
    assert rc == exitcodes.OK
    assert any("splunkd.log.2: a link" in n for n in json.loads(out)["not_judged"])


def test_a_huge_member_is_skipped_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(diag, "MAX_MEMBER_BYTES", 1000)
    path = diagbuilder.from_snapshot(os.path.join(SCENARIOS, "busy_healthy"), str(tmp_path))
    rc, out, err = diagnose_cli(path)
    assert any("larger than any file splunk diag keeps" in n for n in json.loads(out)["not_judged"])


def test_a_universal_forwarders_diag_without_introspection_is_judged_and_says_so(tmp_path):
    path = diagbuilder.from_snapshot(os.path.join(SCENARIOS, "output_blocked"), str(tmp_path), introspection=False)
    rc, out, err = diagnose_cli(path)
    report = json.loads(out)
    assert rc == exitcodes.OK and any(n.startswith("no introspection/") for n in report["not_judged"])
    assert not report["healthy"]


# -- the window

def test_at_and_window_choose_the_stretch_judged(tmp_path):
    snap = os.path.join(SCENARIOS, "hec_pegged_default_io")
    path = diagbuilder.from_snapshot(snap, str(tmp_path))
    assert not json.loads(diagnose_cli(path)[1])["healthy"]
    rc, out, err = diagnose_cli(path, "--at", "2025-11-21T10:00:00Z")       # a day before: no metrics.log lines
    assert rc == exitcodes.OK and "nothing to judge" in err
    assert diagnose_cli(path, "--at", "yesterday")[0] == exitcodes.USAGE
    assert diagnose_cli(path, "--window", "0")[0] == exitcodes.USAGE
    assert diagnose_cli(snap, "--window", "5")[0] == exitcodes.USAGE


def test_diags_that_do_not_overlap_are_judged_each_on_its_own_and_it_is_said(tmp_path):
    _, diags = _deployment(tmp_path)
    first = sorted(os.listdir(diags))[0]
    # Shift one diag's logs a day back: the two no longer overlap.
    with tarfile.open(str(diags / first)) as tf:
        parts = [(ti, tf.extractfile(ti).read() if ti.isfile() else None) for ti in tf.getmembers()]
    for i, (ti, data) in enumerate(parts):
        if data is not None and "/log/" in ti.name:
            parts[i] = ti, data.replace(b"11-22-2025", b"11-21-2025")
            ti.size = len(parts[i][1])
    _tar(diags, parts, first)       # written anew in its place
    assert any("do not overlap in time" in n for n in json.loads(diagnose_cli(diags)[1])["not_judged"])


# -- configuration and logs in the real layouts

def test_conf_precedence_and_redaction():
    sd = conffile.parse("[general]\nparallelIngestionPipelines = 1\nserverName = a\n")
    za = conffile.parse("[general]\nparallelIngestionPipelines = 3\n")
    aa = conffile.parse("[general]\nparallelIngestionPipelines = 2\n# c\n[http://t]\ntoken = "
                        "DIAG_REDACTED_ENCRYPTED_PASSWORD\nLINE = a\\\nb\n")
    sl = conffile.parse("[general]\nserverName = b\n")
    m = conffile.merge([(conffile.SYSTEM_LOCAL, "", sl), (conffile.APP_LOCAL, "zeta", za),
                        (conffile.APP_LOCAL, "alpha", aa), (conffile.SYSTEM_DEFAULT, "", sd)])
    assert m["general"] == {"parallelIngestionPipelines": "2", "serverName": "b"}
    assert m["http://t"]["token"] == conffile.REDACTED and m["http://t"]["LINE"] == "a\nb"
    assert conffile.layer_of("apps/search/local/server.conf") == ("server.conf", conffile.APP_LOCAL, "search")
    assert conffile.layer_of("apps/search/lookups/x.conf") is None


def test_redacted_tokens_are_counted_and_never_shown(tmp_path):
    path = diagbuilder.from_snapshot(os.path.join(SCENARIOS, "hec_pegged_default_io"), str(tmp_path))
    s = diag.scan(path)
    ev = diag.load(s, *diag.window(s, 15))
    assert ev.config.hec_tokens and "DIAG_REDACTED" not in json.dumps(diagnose_cli(path)[1])


REAL_RU = ('{"datetime":"05-02-2023 10:00:48.392 +0000","log_level":"INFO","component":"Hostwide","data":{'
           '"cpu_count":"2","virtual_cpu_count":"4","normalized_load_avg_1min":"0.64","cpu_user_pct":"34.49",'
           '"cpu_system_pct":"5.53","cpu_idle_pct":"59.98"}}\n'
           '{"datetime":"05-02-2023 10:00:48.392 +0000","log_level":"INFO","component":"PerProcess","data":{'
           '"pid":"15715","t_count":"82","pct_cpu":"42.40","process":"splunkd","args":"-p 8089 start",'
           '"process_type":"splunkd_server"}}\n')


def test_resource_usage_log_in_the_real_layout():
    ev = Evidence()
    p = resourceusage.ResourceUsageParser(ev)
    p.feed_all(REAL_RU.splitlines())
    assert p.finish().used == 2
    assert ev.host_cpu.cores == 4 and ev.host_cpu.physical_cores == 2
    assert abs(ev.host_cpu.host_cpu_pct - 40.02) < 0.01 and ev.host_cpu.splunkd_cpu_pct == 42.4


def test_resource_usage_log_in_a_snapshot_is_read(tmp_path):
    snap = copy_scenario(tmp_path, "busy_healthy")
    with open(os.path.join(snap, "snapshot.json")) as f:
        assert json.load(f)["captured_at"] == "2025-11-22T10:00:00Z"      # the stamp below is 10 s before it
    with open(os.path.join(snap, "logs", "resource_usage.log"), "w") as f:
        f.write(REAL_RU.replace("05-02-2023 10:00:48.392 +0000", "11-22-2025 09:59:50.000 +0000"))
    from ingest_doctor.read.snapshot import load_snapshot
    ev = load_snapshot(snap)
    assert "logs/resource_usage.log" in ev.sources and ev.host_cpu.splunkd_cpu_pct == 42.4


def test_a_diag_of_very_many_members_holds_no_header_and_names_a_few(tmp_path):
    """tarfile's stream mode keeps every header it met; the reader keeps none (memory bounded whatever the count),
    and names the first few members it skips, then counts the rest."""
    import tracemalloc
    top = "diag-h-2025-11-22_10-00-00"
    parts = diagbuilder.members(os.path.join(SCENARIOS, "busy_healthy"), "h")
    extra = []
    for n in range(15000):
        ti = tarfile.TarInfo("%s/etc/apps/a%d/bin/x" % (top, n))
        ti.type, ti.linkname = tarfile.SYMTYPE, "/dev/zero"
        extra.append(ti)
    path = diagbuilder.write_tar(str(tmp_path), top, parts, extra)
    tracemalloc.start()
    try:
        s = diag.scan(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak         # 15,000 headers kept would be several MB more
    assert len(s.notes) == diag.MAX_SKIP_NOTES + 1 and s.notes[-1].startswith("14990 more member(s) not read")


def test_a_renamed_diag_is_read_and_a_stray_tarball_leaves_a_snapshot_alone(tmp_path):
    """`splunk diag --diag-name` can name the tarball anything: its content decides. A snapshot or deployment
    folder holding a tarball is still judged as the folder it is."""
    snap = os.path.join(SCENARIOS, "hec_pegged_default_io")
    path = diagbuilder.from_snapshot(snap, str(tmp_path))
    renamed = str(tmp_path / "case-0042.tar.gz")
    os.rename(path, renamed)
    rc, out, err = diagnose_cli(renamed)
    assert rc == exitcodes.OK and diag.CANNOT_SHOW[0] in json.loads(out)["not_judged"]
    copy = copy_scenario(tmp_path, "hec_pegged_default_io")
    shutil.copy(renamed, copy)
    assert json.loads(diagnose_cli(copy)[1]) == json.loads(diagnose_cli(snap)[1])
    root, diags = _deployment(tmp_path / "d")
    shutil.copy(renamed, root)
    rc, out, err = diagnose_cli(root)
    report = json.loads(out)
    assert rc == exitcodes.OK and report["deployment"] is True and report["name"] == "prod-ingest"
    assert report["hosts"] == ["hf-01", "idx-01"] and "case-0042" not in out


def test_several_snapshot_folders_or_a_mix_with_diags_on_the_command_line_are_one_deployment(tmp_path):
    """Contract section 5, deployment inputs: several snapshot folders on the command line are judged as their
    deployment folder is; a diag may stand for one of them."""
    root, diags = _deployment(tmp_path)
    a = json.loads(diagnose_cli(root)[1])
    idx_diag = [n for n in os.listdir(diags) if "idx-01" in n][0]
    for indexer in (os.path.join(root, "indexer-1"), diags / idx_diag):        # its snapshot folder, then its diag
        rc, out, err = diagnose_cli(os.path.join(root, "heavy-a"), indexer)
        assert rc == exitcodes.OK, err
        assert causes(json.loads(out)) == causes(a)
    rc, _, err = diagnose_cli(os.path.join(root, "heavy-a"), tmp_path / "nothing-here")
    assert rc == exitcodes.BAD_INPUT and "nor a snapshot folder" in err


def test_a_diag_without_metrics_log_is_judged_on_its_other_logs_last_minutes(tmp_path):
    snap = os.path.join(SCENARIOS, "output_blocked")
    parts = [(r, d) for r, d in diagbuilder.members(snap, "hf") if not r.startswith("log/metrics.log")]
    path = diagbuilder.write_tar(str(tmp_path), "diag-hf-2025-11-22_10-00-00", parts)
    s = diag.scan(path)
    since, until = diag.window(s, 15)
    last = max(f.last for f in s.logs)          # the latest of splunkd.log and resource_usage.log
    assert since == last - 900 and until == last + 60
    rc, out, err = diagnose_cli(path)
    assert rc == exitcodes.OK and "log/metrics.log: not in the diag" in err


def test_a_maxkbps_capped_forwarders_diag_gives_its_snapshots_output_finding(tmp_path):
    """limits.conf [thruput] from the diag's etc/ (the forwarder app's default over system/default's 0) is read
    as conf-limits/thruput: the same cap, the same words, the same current value as from the snapshot."""
    snap = os.path.join(SCENARIOS, "maxkbps_windows_uf")
    tarball = diagbuilder.from_snapshot(snap, str(tmp_path))
    with tarfile.open(tarball) as tf:
        names = tf.getnames()
    assert any(n.endswith("/etc/apps/SplunkUniversalForwarder/default/limits.conf") for n in names)
    (_, out_s, _), (rc, out_d, err) = diagnose_cli(snap), diagnose_cli(tarball)
    assert rc == exitcodes.OK, err
    a, b = json.loads(out_s)["findings"], json.loads(out_d)["findings"]
    assert [f["summary"] for f in b] == [f["summary"] for f in a]
    assert "limits.conf was not read" not in b[0]["summary"]
    assert [r["current"] for r in b[0]["recommendations"]] == ["256"]
    assert [e["signal"] for e in b[0]["evidence"]] == [e["signal"] for e in a[0]["evidence"]]


def test_limits_conf_thruput_follows_precedence_and_a_redacted_cap_is_no_value():
    s = diag.Scan("x")
    s.conf["limits.conf"] = [(conffile.SYSTEM_DEFAULT, "", {"thruput": {"maxKBps": "0"}}),
                             (conffile.APP_DEFAULT, "SplunkUniversalForwarder", {"thruput": {"maxKBps": "256"}}),
                             (conffile.SYSTEM_LOCAL, "", {"thruput": {"maxKBps": "1024"}})]
    ev = Evidence()
    readstep.merge_config(ev, diag.config_reading(s).config)
    assert ev.config.thruput_max_kbps == 1024
    s.conf["limits.conf"].append((conffile.SYSTEM_LOCAL, "", conffile.parse("[thruput]\nmaxKBps = DIAG_REDACTED_X\n")))
    ev = Evidence()
    readstep.merge_config(ev, diag.config_reading(s).config)
    assert ev.config.thruput_max_kbps is None
