#!/usr/bin/env python3
"""Ingest Doctor CLI: `diagnose` a snapshot folder, or take a `snapshot` of a live splunkd.

    python3 bin/ingest_doctor_cli.py diagnose <snapshot-dir> [--format json|text] [--threshold NAME=VALUE]
    python3 bin/ingest_doctor_cli.py snapshot --uri https://<host>:8089 --out <snapshot-dir>
            [--token-env NAME | --username U] [--ca-file F | --insecure] [--metrics-log-minutes N]

The commands are ingest_doctor/cli.py; this script gives them the splunkd port.
"""
from __future__ import annotations

import os
import sys

from ingest_doctor import cli

TIMEOUT_S = 30
EXPORT_MAX_BYTES = 512 * 1024 * 1024    # a search export of 30 minutes of a busy indexer's metrics.log


def connect(uri, auth, ca_file, insecure):
    from ingest_doctor_ports.splunkd import Splunkd
    # A snapshot is taken from outside: even a loopback address is verified unless --insecure.
    return Splunkd(uri, TIMEOUT_S, auth, ca_file=ca_file, insecure=insecure, max_body=EXPORT_MAX_BYTES)


def main(argv, stdin, stdout, stderr) -> int:
    return cli.run(argv, stdin, stdout, stderr, os.environ, connect)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, sys.stderr))
