"""What every custom alert action's entry script does around its work: the one shell they share.

splunkd runs `<script> --execute` with the JSON payload on stdin and files stderr lines in splunkd.log.
This wires that: the action's own log file (logs.py) beside stderr, the usage check, and the exit codes
an admin reads in splunkd.log (exitcodes.py): an AlertError exits with its own code, anything else is
our bug and is said with where it happened. `work(text, log)` does the rest and returns the exit code.
"""
from __future__ import annotations

import os
import traceback
from typing import IO, Callable, List

from ingest_doctor import exitcodes
from ingest_doctor.alert.payload import AlertError, Logger, make_logger
from ingest_doctor_ports import logs


def execute(script: str, log_file: str, argv: List[str], stdin: IO[str], stderr: IO[str],
            work: Callable[[str, Logger], int]) -> int:
    file = logs.file_logger(log_file)       # $SPLUNK_HOME/var/log/splunk/<log_file>
    try:
        log = make_logger(stderr, logs.Sink(file))
        if argv != ["--execute"]:
            log("ERROR", "usage", msg="run by splunkd as: %s --execute (JSON payload on stdin)" % script)
            return exitcodes.USAGE
        try:
            return work(stdin.read(), log)
        except AlertError as e:
            log("ERROR", exitcodes.category(e.code), msg=str(e), exit_code=e.code)
            return e.code
        except Exception as e:  # our bug: say so and where, exit with its own code
            frame = traceback.extract_tb(e.__traceback__)[-1]
            log("ERROR", "unexpected", msg="%s: %s" % (type(e).__name__, e),
                at="%s:%d" % (os.path.basename(frame.filename), frame.lineno), exit_code=exitcodes.UNEXPECTED)
            return exitcodes.UNEXPECTED
    finally:
        logs.close(file)
