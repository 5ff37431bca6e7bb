#!/usr/bin/env python3
"""Modular input `ingest_doctor_introspection`: poll the local splunkd's pipeline.

splunkd runs this script with --scheme, --validate-arguments, or the input definition on stdin.
It runs the collector: the modular input is ingest_doctor_ports/collector_input.py (splunklib),
the collector's core bin/ingest_doctor/collector/; this script wires them to the process's streams.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))

from ingest_doctor_ports.collector_input import run  # noqa: E402


def main(argv, stdin, stdout, stderr) -> int:
    return run(argv, stdin, stdout, stderr)


if __name__ == "__main__":
    code = main(sys.argv, sys.stdin, sys.stdout, sys.stderr)
    sys.exit(code)
