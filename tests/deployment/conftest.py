"""The deployment tests' search head: the loopback fake splunkd with its KV store, messages, events and webhook
receiver (fakes/kvstore.py), one per test; and the shipped alerts dispatched to its action."""
import pytest

from fakes.dispatch import AlertDispatch, execute
from fakes.kvstore import Splunkd
from fakes.splunkd import FakeSplunkd
from ingest_doctor import exitcodes


@pytest.fixture
def sh(tls):
    with FakeSplunkd(tls) as fake:
        yield Splunkd(fake)


@pytest.fixture
def dispatch(sh, tls, tmp_path):
    """dispatch(name, rows, at, workdir, extra_env, **conf): the shipped alert `name` returned `rows` at `at`;
    the action runs splunkd starts for it (alert.* of default/savedsearches.conf, fakes/dispatch.py), each
    run as splunkd runs it against `sh`: at least one, each exiting OK; their processes."""
    def run(name, rows, at, workdir=tmp_path, extra_env=None, **conf):
        procs = execute(AlertDispatch(name, str(workdir)).run(rows, at), sh.fake, tls, extra_env, **conf)
        assert procs, "the alert did not trigger"
        assert all(p.returncode == exitcodes.OK for p in procs), [p.stderr for p in procs]
        return procs
    return run
