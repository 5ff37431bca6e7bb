"""The deployment tests' search head: the loopback fake splunkd with its KV store, messages, events and webhook
receiver (fakes/kvstore.py), one per test."""
import pytest

from fakes.kvstore import Splunkd
from fakes.splunkd import FakeSplunkd


@pytest.fixture
def sh(tls):
    with FakeSplunkd(tls) as fake:
        yield Splunkd(fake)
