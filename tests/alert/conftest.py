"""Fixtures of the alert tests: the fake splunkd as the action and the form views meet it, the action run
over result rows, and the form views' browser (test_alert_hold_page.py, test_alert_settings_page.py)."""

import glob

import pytest

from fakes.action_run import HF_CONFIG, payload, run_action
from fakes.browser import Browser, missing
from fakes.kvstore import Splunkd, write_results
from fakes.splunkweb import FakeSplunkWeb
from ingest_doctor import exitcodes


@pytest.fixture
def sd(fake_splunkd):
    """The fake splunkd's search-head routes, with hf-01's ingest_doctor:config event."""
    return Splunkd(fake_splunkd, configs={"hf-01": HF_CONFIG})


@pytest.fixture
def sh(fake_splunkd):
    """The search head sh-01's fake splunkd, no config event (the dispatched runs' tests)."""
    return Splunkd(fake_splunkd, server_name="sh-01")


@pytest.fixture
def flag(tls, tmp_path):
    """`flag(fake, rows, env=None, expect=OK, **conf)`: the ingest_doctor_flag action run as splunkd runs it
    (fakes.action_run) over `rows` as its results.csv.gz, `conf` the payload's (sid, webhook_url, ...);
    each run gets a results file of its own, as each sid has its own dispatch directory. The run must
    exit with `expect` (None: the test judges the exit itself)."""
    files = []

    def run(fake, rows, env=None, expect=exitcodes.OK, **conf):
        files.append(write_results(str(tmp_path / ("results-%d.csv.gz" % len(files))), rows))
        p = run_action(payload(fake, files[-1], **conf), tls, env)
        assert expect is None or p.returncode == expect, (p.returncode, p.stderr)
        return p
    return run


@pytest.fixture
def flag_logged(flag, tmp_path):
    """`flag` with $SPLUNK_HOME in tmp_path: returns (the process, the text of the log files it wrote)."""
    home = tmp_path / "splunk"
    (home / "var" / "log" / "splunk").mkdir(parents=True)

    def run(fake, rows, env=None, expect=exitcodes.OK, **conf):
        p = flag(fake, rows, dict(env or {}, SPLUNK_HOME=str(home)), expect, **conf)
        return p, "".join(open(f, encoding="utf-8").read() for f in glob.glob(str(home / "var/log/splunk/*.log")))
    return run


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module's pages (tests/fakes/browser.py drives it); the tests that
    need it are skipped, saying why, where it cannot run."""
    if missing():
        pytest.skip(missing())
    b = Browser()
    yield b
    b.close()


@pytest.fixture
def splunk_web():
    """Start a fake Splunk Web in front of a fake splunkd: `splunk_web(fake)`; each is stopped after the test."""
    made = []

    def start(fake):
        made.append(FakeSplunkWeb(fake).start())
        return made[-1]
    yield start
    for web in made:
        web.stop()
