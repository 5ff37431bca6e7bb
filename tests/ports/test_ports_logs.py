"""The entry points' own log files (ingest_doctor_ports/logs.py, logging's RotatingFileHandler; the
collector's through solnlib.log): their names under $SPLUNK_HOME/var/log/splunk, the line (logging's
timestamp, then our `LEVEL category=... key=value`), rotation at 10 MB with 5 kept, and no line or
traceback of theirs on stderr (splunkd.log) when there is no folder or the file cannot be written."""
import logging.handlers
import re
import sys
from unittest import mock

import pytest

from ingest_doctor.alert.payload import make_logger
from ingest_doctor_ports import collector_input, logs

STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "


def home(tmp_path):
    folder = tmp_path / "var" / "log" / "splunk"
    folder.mkdir(parents=True)
    return {"SPLUNK_HOME": str(tmp_path)}, folder


def run(env, lines):
    file = logs.file_logger(logs.ACTION_LOG, env)
    try:
        log = make_logger(sys.stderr, logs.Sink(file))      # the stderr capsys holds
        log.level = "INFO"
        for level, category in lines:
            log(level, category, run=1)
    finally:
        logs.close(file)


def test_the_action_appends_timestamped_lines_across_runs(tmp_path, capsys):
    env, folder = home(tmp_path)
    run(env, [("INFO", "start"), ("DEBUG", "detail"), ("WARN", "splunkd")])
    run(env, [("ERROR", "transient")])
    text = (folder / logs.ACTION_LOG).read_text(encoding="utf-8").splitlines()
    assert [re.sub(STAMP, "", line, count=1) for line in text] == [
        "INFO category=start run=1", "WARN category=splunkd run=1", "ERROR category=transient run=1"]
    assert all(re.match(STAMP, line) for line in text)
    assert capsys.readouterr().err.count("category=") == 3      # stderr once each, as splunkd files it


def test_rotation_is_logging_s_at_10_mb_with_5_kept(tmp_path, monkeypatch):
    env, folder = home(tmp_path)
    file = logs.file_logger(logs.ACTION_LOG, env)
    (handler,) = file.handlers
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    assert (handler.maxBytes, handler.backupCount) == (10 * 1024 * 1024, 5)
    handler.maxBytes = 200
    for i in range(30):
        logs.Sink(file).write("INFO category=line n=%d %s" % (i, "x" * 60))
    logs.close(file)
    names = sorted(p.name for p in folder.iterdir())
    assert names == [logs.ACTION_LOG] + ["%s.%d" % (logs.ACTION_LOG, i) for i in range(1, 6)]


def test_outside_splunk_nothing_is_written_and_stderr_gets_each_line_once(tmp_path, capsys):
    run({}, [("WARN", "splunkd"), ("ERROR", "transient")])
    run({"SPLUNK_HOME": str(tmp_path)}, [("WARN", "splunkd")])      # no var/log/splunk
    assert capsys.readouterr().err.count("category=") == 3
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_cannot_be_written_loses_the_line_not_the_run(tmp_path, capsys):
    env, folder = home(tmp_path)
    (folder / logs.ACTION_LOG).mkdir()           # not a file: every write fails
    run(env, [("WARN", "splunkd")])
    err = capsys.readouterr().err
    assert err.count("category=") == 1 and "Traceback" not in err and "Logging error" not in err


@pytest.mark.parametrize("value, name", [("warning", "WARN"), ("Error", "ERROR"), ("CRITICAL", "FATAL"),
                                         ("debug", "DEBUG"), ("nonsense", "INFO"), (None, "INFO")])
def test_level_names(value, name):
    assert logs.level_name(value) == name


def test_the_collector_logs_through_solnlib_to_its_own_file(tmp_path, monkeypatch):
    env, folder = home(tmp_path)
    monkeypatch.setenv("SPLUNK_HOME", env["SPLUNK_HOME"])
    file = collector_input.file_logger()
    (handler,) = file.handlers
    assert (handler.baseFilename, handler.maxBytes, handler.backupCount) == (
        str(folder / logs.COLLECTOR_LOG), logs.MAX_BYTES, logs.BACKUPS)
    ew = mock.Mock(spec=["log"])         # the EventWriter's log, which splunkd files in splunkd.log
    lines = collector_input.Logs(ew, file)
    lines.level = "WARNING"
    lines.log("INFO", "category=start input=x")
    lines.log("WARN", "category=hec_tls_unverified input=x")
    handler.flush()
    text = (folder / logs.COLLECTOR_LOG).read_text(encoding="utf-8").splitlines()
    assert [re.sub(STAMP, "", line, count=1) for line in text] == ["WARN category=hec_tls_unverified input=x"]
    assert ew.log.call_args_list == [mock.call("WARN", "category=hec_tls_unverified input=x")]
