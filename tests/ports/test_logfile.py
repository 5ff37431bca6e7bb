"""The entry points' own log file (ingest_doctor_ports/logfile.py) writes and rotates as logging's
RotatingFileHandler with the "%(asctime)s %(message)s" format did, which it replaced (importing logging
was a tenth of the action's start, issue 21): the same files, with the same lines in each, and a line
that cannot be written never stops the run."""
from __future__ import annotations

import logging
import logging.handlers
import os
import random
import re
import sys

from fakes.paths import BIN

if BIN not in sys.path:
    sys.path.insert(0, BIN)
from ingest_doctor_ports import logfile  # noqa: E402

STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ")


def home(tmp_path, name):
    (tmp_path / name / "var" / "log" / "splunk").mkdir(parents=True)
    return {"SPLUNK_HOME": str(tmp_path / name)}


def reference(path, lines, max_bytes, backups):
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=max_bytes, backupCount=backups,
                                                   encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger = logging.getLogger("test_logfile.reference.%d" % id(handler))
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    for line in lines:
        logger.info(line)
    handler.close()
    logger.removeHandler(handler)


def files(folder):
    """{file name: its lines without their timestamps}, every line checked to carry one."""
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            lines = f.read().splitlines()
        assert all(STAMP.match(ln) for ln in lines), (name, lines[:3])
        out[name] = [STAMP.sub("", ln) for ln in lines]
    return out


def test_lines_are_timestamped_as_logging_wrote_them_and_appended_across_runs(tmp_path):
    env = home(tmp_path, "h")
    for run in range(2):
        f = logfile.LogFile(logfile.ACTION_LOG, env)
        f.write("INFO category=start run=%d\n" % run)
        f.write("INFO category=done run=%d" % run)
        f.close()
    ours = files(os.path.join(env["SPLUNK_HOME"], "var", "log", "splunk"))
    assert ours == {logfile.ACTION_LOG: ["INFO category=start run=0", "INFO category=done run=0",
                                         "INFO category=start run=1", "INFO category=done run=1"]}


def test_rotation_keeps_the_same_files_and_lines_as_the_rotating_handler(tmp_path, monkeypatch):
    rnd = random.Random(21)
    for case in range(30):
        max_bytes, backups = rnd.choice([60, 200, 1000]), rnd.randint(1, 5)
        # Each line shorter than the file may grow (with its 24-character time stamp): a longer one on an
        # empty file is where the handler's Python versions differ (next test).
        lines = ["INFO category=c%d %s" % (i, "x" * rnd.randint(0, max_bytes - 50)) for i in range(rnd.randint(1, 80))]
        monkeypatch.setattr(logfile, "MAX_BYTES", max_bytes)
        monkeypatch.setattr(logfile, "BACKUPS", backups)
        env = home(tmp_path, "ours%d" % case)
        f = logfile.LogFile(logfile.ACTION_LOG, env)
        for line in lines:
            f.write(line)
        f.close()
        theirs = tmp_path / ("theirs%d" % case)
        theirs.mkdir()
        reference(str(theirs / logfile.ACTION_LOG), lines, max_bytes, backups)
        assert files(os.path.join(env["SPLUNK_HOME"], "var", "log", "splunk")) == files(str(theirs)), case


def test_an_empty_file_is_never_rotated(tmp_path, monkeypatch):
    """A line longer than MAX_BYTES on an empty file: written there (as RotatingFileHandler does since
    Python 3.12, gh-116263; 3.9's moved the empty file to a backup first)."""
    monkeypatch.setattr(logfile, "MAX_BYTES", 60)
    env = home(tmp_path, "h")
    f = logfile.LogFile(logfile.ACTION_LOG, env)
    for line in ("INFO category=long %s" % ("x" * 80), "INFO category=short", "INFO category=long2 %s" % ("y" * 80)):
        f.write(line)
    f.close()
    assert files(os.path.join(env["SPLUNK_HOME"], "var", "log", "splunk")) == {
        logfile.ACTION_LOG: ["INFO category=long2 %s" % ("y" * 80)],
        logfile.ACTION_LOG + ".1": ["INFO category=short"],
        logfile.ACTION_LOG + ".2": ["INFO category=long %s" % ("x" * 80)]}


def test_a_line_that_cannot_be_written_is_lost_and_the_run_goes_on(tmp_path):
    env = home(tmp_path, "h")
    folder = os.path.join(env["SPLUNK_HOME"], "var", "log", "splunk")
    f = logfile.LogFile(logfile.ACTION_LOG, env)
    os.rmdir(folder)                        # the folder is gone before the first line
    f.write("INFO category=start")          # no exception
    os.mkdir(folder)
    f.write("INFO category=done")           # written once the folder is back
    f.close()
    assert files(folder) == {logfile.ACTION_LOG: ["INFO category=done"]}


def test_outside_splunk_there_is_no_file(tmp_path):
    assert logfile.LogFile(logfile.ACTION_LOG, {}).path is None
    assert logfile.LogFile(logfile.ACTION_LOG, {"SPLUNK_HOME": str(tmp_path)}).path is None   # no var/log/splunk
    logfile.LogFile(logfile.ACTION_LOG, {}).write("INFO category=start")                     # and no error
