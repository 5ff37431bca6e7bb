"""Conventions an admin checks in the first hour: the add-on's icons, an Alerts menu listing the
app's alerts, and `make package` not re-running AppInspect on an unchanged package."""
import json
import os
import xml.etree.ElementTree as ET

import pytest

from fakes.paths import ROOT, need_ta_build

import appinspect_gate
from confcheck import read_conf

ICONS = ("appIcon.png", "appIcon_2x.png", "appIconAlt.png", "appIconAlt_2x.png")


@pytest.mark.parametrize("icon", ICONS)
def test_the_add_on_has_the_apps_icons(icon):
    path = os.path.join(need_ta_build(), "static", icon)
    assert os.path.isfile(path), "%s missing from the add-on (run `make build`)" % icon
    with open(os.path.join(ROOT, "static", icon), "rb") as drawn, open(path, "rb") as shipped:
        assert shipped.read() == drawn.read(), icon


def test_the_alerts_menu_lists_every_alert_of_the_app():
    nav = ET.parse(os.path.join(ROOT, "default", "data", "ui", "nav", "default.xml")).getroot()
    alerts = [c for c in nav.iter("collection") if c.get("label") == "Alerts"]
    assert len(alerts) == 1
    listed = [s.get("name") for s in alerts[0].iter("saved")]
    assert "alerts" in [v.get("name") for v in alerts[0].iter("view")]       # Splunk's list of this app's alerts
    saved = read_conf(os.path.join(ROOT, "default", "savedsearches.conf"))
    tracked = [name for name, st in saved.items() if st.get("alert.track", "").lower() in ("1", "true")]
    assert sorted(listed) == sorted(tracked) and len(listed) == 8


def fake_appinspect(tmp_path, monkeypatch, result):
    """A package file, and appinspect_gate.run faked to write a one-check report of `result`; the runs made."""
    tgz = tmp_path / "ingest_doctor-0.1.0.tgz"
    tgz.write_bytes(b"package bytes")
    runs = []

    def fake_run(path, out_json, extra):
        runs.append((os.path.basename(path), extra))
        with open(out_json, "w", encoding="utf-8") as fh:
            json.dump({"summary": {result: 1}, "reports": [{"groups": [{"checks": [
                {"name": "check_something", "result": result, "messages": []}]}]}]}, fh)
    monkeypatch.setattr(appinspect_gate, "run", fake_run)
    return tgz, runs


def test_an_unchanged_package_is_not_inspected_again(tmp_path, monkeypatch, capsys):
    tgz, runs = fake_appinspect(tmp_path, monkeypatch, "success")
    argv = ["--out", str(tmp_path / "out"), "--docs", str(tmp_path / "none.md"), str(tgz)]
    assert appinspect_gate.main(argv) == 0
    assert len(runs) == 2                                    # precert and cloud
    assert appinspect_gate.main(argv) == 0
    assert len(runs) == 2                                    # same bytes: both reports reused
    assert "package unchanged: report reused" in capsys.readouterr().out
    tgz.write_bytes(b"package bytes, changed")
    assert appinspect_gate.main(argv) == 0
    assert len(runs) == 4
    assert appinspect_gate.main(argv + ["--fresh"]) == 0
    assert len(runs) == 6


def test_a_reused_report_is_still_judged(tmp_path, monkeypatch):
    tgz, _ = fake_appinspect(tmp_path, monkeypatch, "warning")
    docs = tmp_path / "appinspect.md"
    docs.write_text("| check | where | why |\n|---|---|---|\n| `check_something` | | reason |\n")
    argv = ["--out", str(tmp_path / "out"), "--docs", str(docs), str(tgz)]
    assert appinspect_gate.main(argv) == 0
    docs.write_text("nothing explained\n")
    assert appinspect_gate.main(argv) == 1                   # no run, but the warning is now unexplained
