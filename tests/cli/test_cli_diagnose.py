"""`diagnose` in-process and as a subprocess, exactly as the contract's section 3 says."""
import json
import os
import subprocess
import sys

import pytest

from ingest_doctor import exitcodes, thresholds

from fakes.engine_helpers import CLI_SCRIPT, cli_main as run, copy_scenario
from fakes.paths import SCENARIOS as SCEN


def test_unhealthy_snapshot_exits_zero_with_the_contract_json():
    code, out, err = run(["diagnose", os.path.join(SCEN, "hec_pegged_default_io")])
    assert code == exitcodes.OK and err == ""
    r = json.loads(out)
    assert r["healthy"] is False and r["host"] == "hf-01"
    assert r["findings"][0]["id"] == "hf-01/hec_input/-"


def test_healthy_snapshot_exits_zero():
    code, out, _ = run(["diagnose", os.path.join(SCEN, "busy_healthy")])
    assert code == exitcodes.OK and json.loads(out)["healthy"] is True


def test_text_format():
    code, out, _ = run(["diagnose", os.path.join(SCEN, "typing_regex_hidden"), "--format", "text"])
    assert code == exitcodes.OK
    assert out.startswith("Ingest Doctor: idx-24c: NOT healthy: 1 finding")
    assert "[WARNING] typing (idx-24c/typing/-)" in out
    assert "server.conf [general] parallelIngestionPipelines: 1 -> 2" in out
    assert "which is one core pegged" in " ".join(out.split())


def test_no_such_folder_is_one_line_and_non_zero(tmp_path):
    code, out, err = run(["diagnose", str(tmp_path / "missing")])
    assert code == exitcodes.BAD_INPUT and out == ""
    assert err.count("\n") == 1 and "no such snapshot folder" in err and "missing" in err


def test_a_file_is_not_a_folder(tmp_path):
    f = tmp_path / "x.json"
    f.write_text("{}")
    code, _, err = run(["diagnose", str(f)])
    assert code == exitcodes.BAD_INPUT and "not a folder" in err


def test_empty_folder_could_not_be_analysed(tmp_path):
    code, out, err = run(["diagnose", str(tmp_path)])
    assert code == exitcodes.BAD_INPUT and err.count("\n") == 1 and "nothing to analyse" in err
    assert json.loads(out)["not_judged"][0] == "no evidence could be read: nothing was judged"


def test_only_malformed_files_is_non_zero_and_names_them(tmp_path):
    d = tmp_path / "s"
    (d / "rest" / "services" / "server").mkdir(parents=True)
    (d / "rest" / "services" / "server" / "info.json").write_text("<html>503</html>")
    code, _, err = run(["diagnose", str(d)])
    assert code == exitcodes.BAD_INPUT and "rest/services/server/info.json: not JSON" in err


def test_partial_snapshot_exits_zero_and_names_the_bad_files_on_one_line():
    code, out, err = run(["diagnose", os.path.join(SCEN, "partial")])
    assert code == exitcodes.OK and err.count("\n") == 1
    assert "queues.json: malformed JSON" in err and "pipelinesets.json: not JSON" in err
    assert any("queues.json" in n for n in json.loads(out)["not_judged"])


@pytest.mark.parametrize("argv,code", [([], exitcodes.USAGE), (["diagnose"], exitcodes.USAGE),
                                       (["diagnose", "x", "--format", "xml"], exitcodes.USAGE),
                                       (["frobnicate"], exitcodes.USAGE)])
def test_usage_errors(argv, code):
    got, _, err = run(argv)
    assert got == code and err.count("\n") == 1


def test_threshold_override_and_bad_threshold():
    code, out, _ = run(["diagnose", os.path.join(SCEN, "busy_healthy"), "--threshold", "thread_busy_pct=70"])
    assert code == exitcodes.OK and json.loads(out)["healthy"] is False
    code, _, err = run(["diagnose", os.path.join(SCEN, "busy_healthy"), "--threshold", "nope=1"])
    assert code == exitcodes.BAD_CONFIG and "unknown threshold" in err


def test_recorded_threshold_macros_are_honoured_and_threshold_overrides_them(tmp_path):
    """The snapshot records its splunkd's tuned macros (rest/services/configs/conf-macros.json):
    busy_healthy's threads are below the default 90% but above a tuned 70%."""
    from fakes.snapbuilder import Snap
    snap = copy_scenario(tmp_path, "busy_healthy")

    def record(macros):
        rest_only = Snap("x")
        rest_only.meta = False          # keep the scenario's snapshot.json
        rest_only.macros(macros).write(snap)
    record({"ingest_doctor_thread_busy_pct": "70", "ingest_doctor_events_index": "index=main"})
    code, out, err = run(["diagnose", snap])
    assert code == exitcodes.OK and json.loads(out)["healthy"] is False, err
    default = "ingest_doctor_thread_busy_pct=%g" % thresholds.defaults().thread_busy_pct
    code, out, err = run(["diagnose", snap, "--threshold", default])
    assert code == exitcodes.OK and json.loads(out)["healthy"] is True, err
    # A tuned macro that is not a number is named, and its default used.
    record({"ingest_doctor_thread_busy_pct": "`oops`"})
    code, out, err = run(["diagnose", snap])
    assert code == exitcodes.OK and json.loads(out)["healthy"] is True
    assert "conf-macros" in err and "thread_busy_pct" in err


def test_help_goes_to_stdout():
    code, out, _ = run(["--help"])
    assert code == 0 and "diagnose" in out and "snapshot" in out


@pytest.mark.parametrize("scenario,healthy", [("hec_503_downstream", False), ("transient_spike", True)])
def test_subprocess(scenario, healthy, tmp_path):
    """As an admin runs it: a fresh interpreter (this test runs under the 3.9 and the 3.13 venv)."""
    snap = copy_scenario(tmp_path, scenario)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, CLI_SCRIPT, "diagnose", snap], capture_output=True, text=True, env=env,
                       timeout=60, cwd=str(tmp_path))
    assert r.returncode == exitcodes.OK, r.stderr
    assert json.loads(r.stdout)["healthy"] is healthy
    r = subprocess.run([sys.executable, CLI_SCRIPT, "diagnose", snap + "-missing"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == exitcodes.BAD_INPUT and r.stderr.count("\n") == 1 and r.stdout == ""

