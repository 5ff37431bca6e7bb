"""Shared test fixtures: the import path, a TLS pair, the fake splunkd, the modular input runs.

Test modules live in folders that mirror the code's wings (read/, engine/, collector/, ...); what
they share is the package tests/fakes/ (pytest puts tests/ on sys.path for this file)."""
import os
import sys

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from fakes.paths import BIN, LIB, TOOLS  # noqa: E402

if BIN not in sys.path:
    sys.path.insert(0, BIN)
# The ports import splunklib and solnlib as the entry scripts do, from the built bin/lib (`make deps`).
if LIB not in sys.path:
    sys.path.append(LIB)
# The offline gates and several tests drive the tools (splcheck, confcheck, build, ...) in process.
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

from fakes.splunkd import FakeSplunkd, make_tls  # noqa: E402


@pytest.fixture(scope="session")
def tls(tmp_path_factory):
    return make_tls(str(tmp_path_factory.mktemp("tls")))


@pytest.fixture
def fake_splunkd(tls):
    with FakeSplunkd(tls) as fake:
        yield fake


@pytest.fixture
def runs():
    """Modular input runs a test starts (fakes.collector_run.start); killed when it ends."""
    started = []
    yield started
    for r in started:
        r.kill()
