"""Custom alert action `ingest_doctor_hold`: acknowledge a finding, snooze or unsnooze a host, stage or alert.

Run by `sendalert` from the Acknowledge and snooze page (view ingest_doctor_hold; splunkd starts `ingest_doctor_hold.py --execute`
with the JSON payload on stdin, the session key of the user who ran the search). The work is done by
ingest_doctor.alert.hold.run over the port in ingest_doctor_ports.action; this script only wires
streams, logging and exit codes. Its lines go to splunkd.log and to
$SPLUNK_HOME/var/log/splunk/ingest_doctor_hold.log.
"""
from __future__ import annotations

import sys
import time
from typing import IO, List

from ingest_doctor import exitcodes
from ingest_doctor.alert.payload import Logger, parse_payload
from ingest_doctor_ports import alert_shell, logs


def main(argv: List[str], stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> int:
    return alert_shell.execute("ingest_doctor_hold.py", logs.HOLD_LOG, argv, stdin, stderr, _work)


def _work(text: str, log: Logger) -> int:
    payload = parse_payload(text)
    from ingest_doctor.alert import hold
    from ingest_doctor_ports.action import SplunkdPort

    conf = hold.configuration(text)
    log("INFO", "start", sid=payload.sid, request=" ".join(hold.describe(conf)))
    port = SplunkdPort(payload.server_uri, payload.session_key, log)
    done = hold.run(payload, conf, port, time.time())
    log("INFO", "done", msg=done)
    return exitcodes.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, sys.stderr))
