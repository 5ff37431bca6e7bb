"""Custom alert action `ingest_doctor_flag`: turn an alert's rows into findings.

splunkd runs `ingest_doctor_flag.py --execute` with a JSON payload on stdin
(alert_actions.conf: payload_format = json). The work is done by
ingest_doctor.alert.action.run over the port in ingest_doctor_ports.action; this
script only wires streams, logging and exit codes. stderr lines are
`LEVEL category=... key=value`; splunkd files them in splunkd.log; the same lines,
timestamped, go to $SPLUNK_HOME/var/log/splunk/ingest_doctor_flag.log.
"""
from __future__ import annotations

import sys

from typing import IO, List

from ingest_doctor import exitcodes
from ingest_doctor.alert.payload import Logger, describe, parse_payload
from ingest_doctor_ports import alert_shell, logs


def main(argv: List[str], stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> int:
    return alert_shell.execute("ingest_doctor_flag.py", logs.ACTION_LOG, argv, stdin, stderr, _work)


def _work(text: str, log: Logger) -> int:
    payload = parse_payload(text)
    log.level = payload.params.log_level              # param.log_level (alert_actions.conf)
    log("INFO", "start", **describe(payload))
    from ingest_doctor.alert.action import run
    from ingest_doctor.diagnose import diagnose
    from ingest_doctor_ports.action import SplunkdPort

    port = SplunkdPort(payload.server_uri, payload.session_key, log,
                       message_roles=payload.params.message_roles)
    log("INFO", "splunkd", tls=port.tls)
    summary = run(payload, port, diagnose)
    # What the engine could not judge. Most alerts carry one kind of evidence, so the generic
    # "no <source>" notes are expected; the specific ones (a pegged thread outside the pipeline) first.
    notes = sorted(summary.not_judged, key=lambda n: ": no " in n)
    for note in notes[:5]:
        log("INFO", "not_judged", msg=note)
    log("INFO", "done", hosts=summary.rows_hosts, findings=summary.findings, below_min=summary.below_min,
        new=summary.new, updated=summary.updated, reopened=summary.reopened, unchanged=summary.unchanged,
        events=summary.events, webhooks=summary.webhooks, reported=summary.reported, resolved=summary.resolved,
        messages=summary.messages, pending=summary.pending, refused=summary.refused)
    return exitcodes.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, sys.stderr))
