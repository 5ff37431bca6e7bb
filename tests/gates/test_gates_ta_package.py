"""Two packages from one tree: what goes where, and the add-on's build is reproducible.

ingest_doctor (search heads): views, searches, alerts, KV store, alert action, macros, lookups.
TA-ingest_doctor (indexers, heavy forwarders): the modular input, index-time props/transforms,
the metrics index. Both get the core package bin/ingest_doctor/ from the build.
"""
import filecmp
import os
import re
import subprocess

from confcheck import read_conf
from fakes.gates_helpers import build_ta, run_tool
from fakes.paths import APP_BUILD, ROOT, need_build, need_ta_build
from ingest_doctor.collector import params as params_mod

def files(base):
    out = set()
    for dirpath, _, names in os.walk(base):
        for n in names:
            out.add(os.path.relpath(os.path.join(dirpath, n), base).replace(os.sep, "/"))
    return out


def test_no_scheduled_search_view_or_kv_store_ships_in_the_addon():
    ta = need_ta_build()
    default = os.path.join(ta, "default")
    for conf in ("savedsearches.conf", "collections.conf", "alert_actions.conf", "macros.conf"):
        assert not os.path.exists(os.path.join(default, conf)), conf
    for dirpath, _, names in os.walk(ta):             # no conf anywhere schedules a search
        for n in names:
            if n.endswith(".conf"):
                with open(os.path.join(dirpath, n), encoding="utf-8") as fh:
                    assert not re.search(r"^\s*(enableSched|cron_schedule)\s*=", fh.read(), re.M), n
    views = sorted(os.listdir(os.path.join(default, "data", "ui", "views")))
    assert views == ["configuration.xml", "inputs.xml"]          # ucc-gen's setup pages only
    assert not os.path.exists(os.path.join(ta, "lookups"))


def test_the_metrics_index_is_defined_in_the_addon_as_a_metrics_index():
    conf = read_conf(os.path.join(need_ta_build(), "default", "indexes.conf"))
    # beside it, the event index ingest_doctor (tests/install/test_install_index.py)
    assert list(conf) == [params_mod.DEFAULT_METRICS_INDEX, "ingest_doctor"]
    idx = conf[params_mod.DEFAULT_METRICS_INDEX]
    assert idx["datatype"] == "metric"
    for key in ("homePath", "coldPath", "thawedPath"):
        assert idx[key].startswith("$SPLUNK_DB/%s/" % params_mod.DEFAULT_METRICS_INDEX)


def test_the_addon_parses_the_collectors_sourcetypes():
    props = read_conf(os.path.join(need_ta_build(), "default", "props.conf"))
    transforms = read_conf(os.path.join(need_ta_build(), "default", "transforms.conf"))
    assert props["ingest_doctor:metrics"]["METRIC-SCHEMA-TRANSFORMS"] in transforms
    drop = props["ingest_doctor:probe"]["TRANSFORMS-ingest_doctor_probe"]
    assert transforms[drop]["FORMAT"] == "nullQueue"


def test_the_search_head_app_has_no_collector_and_no_index_time_settings():
    app = need_build()
    shipped = files(app)
    assert "bin/ingest_doctor_introspection.py" not in shipped
    assert "bin/ingest_doctor_ports/collector.py" not in shipped
    assert "default/inputs.conf" not in shipped
    # only the event index its action writes to (known to a forwarding search head), no metrics index
    assert list(read_conf(os.path.join(app, "default", "indexes.conf"))) == ["ingest_doctor"]
    assert "README/inputs.conf.spec" not in shipped
    props = read_conf(os.path.join(app, "default", "props.conf"))
    for st, settings in props.items():
        if st == "ingest_doctor:finding":   # also written on the search head, by the alert action (issue 21)
            assert set(settings) == {"KV_MODE", "SHOULD_LINEMERGE", "LINE_BREAKER", "TRUNCATE", "DATETIME_CONFIG",
                                     "TRANSFORMS-ingest_doctor_finding_host"}, st
            continue
        assert set(settings) == {"KV_MODE"}, st          # search time only
    saved = read_conf(os.path.join(app, "default", "savedsearches.conf"))
    assert any(st.get("enableSched", "").strip() == "1" for st in saved.values())      # the schedules live here


def test_both_packages_get_their_code_from_the_manifest_not_from_git():
    import manifest
    src = os.path.join(ROOT, "bin")
    for package, built in ((manifest.APP, os.path.join(APP_BUILD, "bin")), (manifest.TA, os.path.join(need_ta_build(), "bin"))):
        wanted = set(manifest.bin_files(package, src))
        # ucc-gen adds its REST handlers (ta_ingest_doctor_rh_*.py, import_declare_test.py) beside ours
        shipped = {f for f in files(built) if f.startswith("ingest_doctor")}
        assert shipped == wanted, (package, sorted(shipped ^ wanted))
        match, mismatch, errors = filecmp.cmpfiles(src, built, sorted(wanted), shallow=False)
        assert not mismatch and not errors, (built, mismatch, errors)
    app = set(manifest.bin_files(manifest.APP, src))
    ta = set(manifest.bin_files(manifest.TA, src))
    # each package ships only the code it runs: the app no collector, the add-on no action
    assert not any(f.startswith(("ingest_doctor/collector/", "ingest_doctor_ports/collector")) for f in app)
    assert "ingest_doctor_introspection.py" not in app
    assert not any(f.startswith("ingest_doctor/alert/") or f == "ingest_doctor_ports/action.py" for f in ta)
    assert "ingest_doctor_flag.py" not in ta and "ingest_doctor/diagnose.py" in ta
    tracked = subprocess.run(["git", "-C", ROOT, "ls-files", "ta"], capture_output=True, text=True).stdout.split()
    assert tracked and not [t for t in tracked if "/ingest_doctor/" in t or t.endswith("introspection.py")]


def _build_ta(out):
    proc = build_ta(out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tgz = str(out) + ".tgz"
    proc = run_tool("package.py", out, tgz, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with open(tgz, "rb") as fh:
        return fh.read()


def test_the_addon_build_is_reproducible(tmp_path):
    """Same sources, two ucc-gen builds at different times, byte-identical packages."""
    a = _build_ta(tmp_path / "a" / "TA-ingest_doctor")
    b = _build_ta(tmp_path / "b" / "TA-ingest_doctor")
    assert a == b
    assert not (set(os.listdir(str(tmp_path / "a"))) - {"TA-ingest_doctor", "TA-ingest_doctor.tgz"})
    with open(os.path.join(ROOT, "ta", "globalConfig.json"), "rb") as fh:
        committed = fh.read()
    assert b"_uccVersion" not in committed        # ucc-gen rewrote only its staged copy


def test_manifests_state_the_tiers_truthfully():
    import json
    with open(os.path.join(ROOT, "app.manifest"), encoding="utf-8") as fh:
        app = json.load(fh)
    with open(os.path.join(need_ta_build(), "app.manifest"), encoding="utf-8") as fh:
        ta = json.load(fh)
    assert app["targetWorkloads"] == ["_search_heads"]
    assert set(ta["targetWorkloads"]) == {"_indexers", "_forwarders"}
    assert ta["info"]["id"]["version"] == app["info"]["id"]["version"]


def test_shipped_schedules_are_staggered_with_a_window():
    """Not every search at minute 0/5: each one has its own offset within its period, a
    schedule_window below that period, and the offsets are spread."""
    offsets = []
    for name, stanza in read_conf(os.path.join(ROOT, "default", "savedsearches.conf")).items():
        if stanza.get("enableSched", "").strip() != "1":
            continue
        cron = stanza["cron_schedule"].split()
        m = re.match(r"^(\d+)-59/(\d+)$", cron[0])
        if not m:                       # an every-minute search has nothing to stagger
            assert cron[0] in ("*", "*/1"), (name, cron)
            continue
        offset, every = int(m.group(1)), int(m.group(2))
        assert 0 < offset < every and offset % 5 != 0, name
        window = stanza.get("schedule_window", "").strip()
        assert window.isdigit() and 0 < int(window) < every, name
        offsets.append(offset % every)
    assert len(offsets) >= 7 and len(set(offsets)) >= 4
