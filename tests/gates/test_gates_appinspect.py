"""The AppInspect gate's judgement of a report: failures, future failures and unexplained warnings fail it.

The real run (splunk-appinspect on the package, precert and cloud) is `make test-appinspect`;
here the gate's logic runs on reports in AppInspect's JSON shape.
"""
import os

from fakes.paths import ROOT

import appinspect_gate


def report(*checks):
    return {"summary": {}, "reports": [{"groups": [{"name": "g", "checks": [
        {"name": name, "result": result, "messages": [{"result": result, "message": "msg of " + name}]}
        for name, result in checks]}]}]}


def test_failure_and_future_failure_fail_the_gate(capsys):
    counts, problems = appinspect_gate.judge(
        report(("check_a", "success"), ("check_for_compiled_python", "failure"),
               ("check_modular_inputs_python_required", "future_failure")), set(), "precert")
    assert counts["failure"] == 1 and counts["future_failure"] == 1 and counts["success"] == 1
    assert problems == ["precert: failure check_for_compiled_python",
                        "precert: future_failure check_modular_inputs_python_required"]
    out = capsys.readouterr().out
    assert "FAILURE check_for_compiled_python: msg of check_for_compiled_python" in out


def test_warnings_must_be_explained_in_docs():
    r = report(("check_hostnames_and_ips", "warning"), ("check_new_thing", "warning"))
    counts, problems = appinspect_gate.judge(r, {"check_hostnames_and_ips": []}, "cloud")
    assert problems == ["cloud: warning check_new_thing is not explained in docs/appinspect.md"]


def test_a_row_naming_files_explains_only_those_files():
    r = report(("check_for_possible_threading", "warning"))
    r["reports"][0]["groups"][0]["checks"][0]["messages"] = [
        {"result": "warning", "message": "Popen", "message_filename": "bin/lib/solnlib/splunkenv.py"},
        {"result": "warning", "message": "Thread", "message_filename": "bin/ingest_doctor_introspection.py"}]
    counts, problems = appinspect_gate.judge(r, {"check_for_possible_threading": ["bin/lib/solnlib/splunkenv.py"]}, "precert")
    assert problems == ["precert: warning check_for_possible_threading in bin/ingest_doctor_introspection.py: "
                        "docs/appinspect.md explains it only for bin/lib/solnlib/splunkenv.py"]


def test_docs_explain_by_check_name_and_tell_about_python_required():
    docs = os.path.join(ROOT, "docs", "appinspect.md")
    explained = appinspect_gate.explained(docs)
    assert "check_python_sdk_version" in explained
    assert "bin/lib/solnlib/splunkenv.py" in explained["check_for_possible_threading"]
    # the search-head app ships no bin/lib: no row may excuse a vendored file's warning in it
    app_rows = appinspect_gate.explained(docs, "ingest_doctor")
    assert not [p for paths in app_rows.values() for p in paths if p.startswith("bin/lib/")]
    with open(docs) as fh:
        text = fh.read()
    assert "python.required = 3.13" in text and "python.version = python3.9" in text


def test_a_table_under_a_package_heading_explains_that_package_only(tmp_path):
    docs = tmp_path / "appinspect.md"
    docs.write_text("## Both\n\n| check | where | why |\n|---|---|---|\n| `check_common` | | x |\n\n"
                    "## Only the add-on `TA-ingest_doctor`\n\n| check | where | why |\n|---|---|---|\n"
                    "| `check_for_splunk_js` | `appserver/static/js/build/` | x |\n")
    ta = appinspect_gate.explained(str(docs), "TA-ingest_doctor")
    app = appinspect_gate.explained(str(docs), "ingest_doctor")
    assert set(ta) == {"check_common", "check_for_splunk_js"} and set(app) == {"check_common"}
    assert appinspect_gate.package_of("dist/TA-ingest_doctor-0.1.0.tgz") == "TA-ingest_doctor"
    assert appinspect_gate.package_of("dist/ingest_doctor-0.1.0.tgz") == "ingest_doctor"
    counts, problems = appinspect_gate.judge(report(("check_for_splunk_js", "warning")), app, "ingest_doctor cloud")
    assert problems == ["ingest_doctor cloud: warning check_for_splunk_js is not explained in docs/appinspect.md"]
