"""Where things are, for the tests and the benches: the repository, the two built packages, the venvs."""
import glob
import os

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
BIN = os.path.join(ROOT, "bin")
LIB = os.path.join(BIN, "lib")
TOOLS = os.path.join(ROOT, "tools")
SCENARIOS = os.path.join(TESTS, "scenarios")
FIXTURES = os.path.join(TESTS, "fixtures")
VENV = os.path.join(ROOT, ".venv")
TOOLS_PY = os.path.join(VENV, "tools", "bin", "python")
# The two packages as `make build` assembles them (make test builds before pytest runs). The
# modular input's subprocess tests run its script from the built add-on, with the add-on's
# own bin/lib, as Splunk would: TA_BIN is where they find it.
BUILD = APP_BUILD = os.path.join(ROOT, "build", "ingest_doctor")
TA_BUILD = os.path.join(ROOT, "build", "TA-ingest_doctor")
TA_BIN = os.path.join(TA_BUILD, "bin")


def need_build():
    """The built app folder; `make test` builds it before pytest runs."""
    if not os.path.isfile(os.path.join(BUILD, "default", "app.conf")):
        raise AssertionError("build/ingest_doctor is missing: run `make build` (make test does)")
    return BUILD


def need_ta_build() -> str:
    """The built add-on folder, or a clear failure naming the command that builds it."""
    if not os.path.isfile(os.path.join(TA_BUILD, "default", "app.conf")):
        raise AssertionError("build/TA-ingest_doctor is missing: run `make build` (make test does)")
    return TA_BUILD


def slim_specs():
    """Splunk's .spec files as bundled by splunk-packaging-toolkit in the tools venv, or None."""
    found = glob.glob(os.path.join(VENV, "tools", "lib", "python3*", "site-packages", "slim", "config", "conf-specs"))
    return found[0] if found else None
