"""Shared test fixtures: paths, the built app, a TLS pair and the fake splunkd."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bin")
if BIN not in sys.path:
    sys.path.insert(0, BIN)
# The ports import splunklib and solnlib as the entry scripts do, from the built bin/lib (`make deps`).
LIB = os.path.join(BIN, "lib")
if LIB not in sys.path:
    sys.path.append(LIB)
TESTS = os.path.dirname(os.path.abspath(__file__))
# The two packages as `make build` assembles them (make test builds before pytest runs). The
# modular input's subprocess tests run its script from the built add-on, with the add-on's
# own bin/lib, as Splunk would: TA_BIN is where they find it.
APP_BUILD = os.path.join(ROOT, "build", "ingest_doctor")
TA_BUILD = os.path.join(ROOT, "build", "TA-ingest_doctor")
TA_BIN = os.path.join(TA_BUILD, "bin")


def need_ta_build() -> str:
    """The built add-on folder, or a clear failure naming the command that builds it."""
    if not os.path.isfile(os.path.join(TA_BUILD, "default", "app.conf")):
        raise AssertionError("build/TA-ingest_doctor is missing: run `make build` (make test does)")
    return TA_BUILD
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from fakesplunkd import FakeSplunkd, make_tls  # noqa: E402


@pytest.fixture(scope="session")
def tls(tmp_path_factory):
    return make_tls(str(tmp_path_factory.mktemp("tls")))


@pytest.fixture
def fake_splunkd(tls):
    with FakeSplunkd(tls) as fake:
        yield fake
