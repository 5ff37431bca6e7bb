"""Shared test fixtures: paths, the built app, a TLS pair and the fake splunkd."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bin")
if BIN not in sys.path:
    sys.path.insert(0, BIN)
TESTS = os.path.dirname(os.path.abspath(__file__))
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
