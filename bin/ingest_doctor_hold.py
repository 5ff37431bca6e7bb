"""Custom alert action `ingest_doctor_hold`: acknowledge a finding, snooze or unsnooze a host, stage or alert.

Run by `sendalert` from the Acknowledge and snooze page (view ingest_doctor_hold; splunkd starts `ingest_doctor_hold.py --execute`
with the JSON payload on stdin, the session key of the user who ran the search). The work is done by
ingest_doctor.alert.hold.run over the port in ingest_doctor_ports.action; this script only wires
streams, logging and exit codes. Its lines go to splunkd.log and to
$SPLUNK_HOME/var/log/splunk/ingest_doctor_hold.log.
"""
from __future__ import annotations

import os
import sys
import time
from typing import IO, List

from ingest_doctor import exitcodes
from ingest_doctor.alert.payload import AlertError, Logger, make_logger, parse_payload
from ingest_doctor_ports import logs


def main(argv: List[str], stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> int:
    file = logs.file_logger(logs.HOLD_LOG)
    try:
        return _run(argv, stdin, make_logger(stderr, logs.Sink(file)))
    finally:
        logs.close(file)


def _run(argv: List[str], stdin: IO[str], log: Logger) -> int:
    if argv != ["--execute"]:
        log("ERROR", "usage", msg="run by splunkd as: ingest_doctor_hold.py --execute (JSON payload on stdin)")
        return exitcodes.USAGE
    try:
        text = stdin.read()
        payload = parse_payload(text)
        from ingest_doctor.alert import hold
        from ingest_doctor_ports.action import SplunkdPort

        conf = hold.configuration(text)
        log("INFO", "start", sid=payload.sid, request=" ".join(hold.describe(conf)))
        port = SplunkdPort(payload.server_uri, payload.session_key, log)
        done = hold.run(payload, conf, port, time.time())
    except AlertError as e:
        log("ERROR", exitcodes.category(e.code), msg=str(e), exit_code=e.code)
        return e.code
    except Exception as e:  # our bug: say so and where, exit with its own code
        import traceback
        frame = traceback.extract_tb(e.__traceback__)[-1]
        log("ERROR", "unexpected", msg="%s: %s" % (type(e).__name__, e),
            at="%s:%d" % (os.path.basename(frame.filename), frame.lineno), exit_code=exitcodes.UNEXPECTED)
        return exitcodes.UNEXPECTED
    log("INFO", "done", msg=done)
    return exitcodes.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, sys.stderr))
