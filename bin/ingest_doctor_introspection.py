#!/usr/bin/env python3
"""Modular input `ingest_doctor_introspection`: poll the local splunkd's pipeline.

splunkd runs this script with --scheme, --validate-arguments, or the input definition on stdin.
The modular input itself is ingest_doctor_modinput.py (splunklib), the collector's core
ingest_doctor/collector.py; this script wires them to the process's streams.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))

from ingest_doctor_modinput import IntrospectionInput, JsonEvent, Lifecycle, run  # noqa: E402,F401


def main(argv, stdin, stdout, stderr) -> int:
    return run(argv, stdin, stdout, stderr)


if __name__ == "__main__":
    code = main(sys.argv, sys.stdin, sys.stdout, sys.stderr)
    sys.exit(code)
