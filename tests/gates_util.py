"""Helpers shared by the tests of the offline gates (tests/test_gates_*.py)."""
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
BUILD = os.path.join(ROOT, "build", "ingest_doctor")
VENV = os.path.join(ROOT, ".venv")
TOOLS_PY = os.path.join(VENV, "tools", "bin", "python")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)


def need_build():
    """The built app folder; `make test` builds it before pytest runs."""
    if not os.path.isfile(os.path.join(BUILD, "default", "app.conf")):
        raise AssertionError("build/ingest_doctor is missing: run `make build` (make test does)")
    return BUILD


def slim_specs():
    """Splunk's .spec files as bundled by splunk-packaging-toolkit in the tools venv, or None."""
    found = glob.glob(os.path.join(VENV, "tools", "lib", "python3*", "site-packages", "slim", "config", "conf-specs"))
    return found[0] if found else None
