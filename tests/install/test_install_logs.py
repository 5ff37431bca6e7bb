"""The collector's and the action's own log files under $SPLUNK_HOME/var/log/splunk/, and their levels.

Run as splunkd runs them: the add-on's modular input streaming (XML on stdin) against the fake
splunkd, which serves the Logging tab's setting (ta_ingest_doctor_settings.conf, written by the
add-on's Configuration > Logging page); the alert action with `--execute` and a JSON payload.
"""
import json
import os
import subprocess
import sys

import pytest

from fakes import instance as fi  # noqa: E402
from fakes.collector_run import start  # noqa: E402
from fakes.paths import ROOT, need_ta_build  # noqa: E402
from fakes.splunkd import route_conf, wait_for  # noqa: E402
from ingest_doctor import exitcodes  # noqa: E402
from ingest_doctor_ports import collector as collector_port, logs  # noqa: E402
from ingest_doctor_ports.splunkd import Http, unverified  # noqa: E402

SETTINGS_CONF = collector_port.SETTINGS_CONF
LOGGING = "/servicesNS/nobody/TA-ingest_doctor/configs/conf-%s/logging" % SETTINGS_CONF


def splunk_home(tmp_path):
    (tmp_path / "var" / "log" / "splunk").mkdir(parents=True)
    return tmp_path


def _read(path):
    return path.read_text(encoding="utf-8") if path.exists() else ""


def run_collector_until(fake_splunkd, runs, home, params, *until):
    """Run the built add-on's collector with SPLUNK_HOME=`home` until each of `until` (given its log file's
    text) holds, stop it (it exits OK); its log file's text and its stderr."""
    need_ta_build()
    log = home / "var" / "log" / "splunk" / logs.COLLECTOR_LOG
    xml = fi.input_xml(fake_splunkd.url, dict({"poll_interval": "1", "thread_cpu": "0"}, **params))
    r = start(runs, xml, env={"SPLUNK_HOME": str(home)})
    for ready in until:
        assert wait_for(lambda: ready(_read(log)), 30), _read(log)
    assert r.terminate() == exitcodes.OK
    return _read(log), r.stderr()


def test_collector_logs_to_its_own_file_at_info_by_default(fake_splunkd, runs, tmp_path):
    fi.Instance(fake_splunkd, host="idx-01", psets=2)          # no Logging tab saved: 404, INFO
    text, err = run_collector_until(fake_splunkd, runs, splunk_home(tmp_path), {},
                                    lambda log: "category=start" in log)
    assert "INFO category=start input=ingest_doctor_introspection://local" in text
    assert "INFO category=stop" in text
    # the same lines still reach splunkd.log through stderr, and never the session key
    assert "category=start" in err
    assert fi.SESSION_KEY not in text
    assert text.splitlines()[0][:4].isdigit()                  # timestamped for indexing


def test_collector_follows_the_logging_tab(fake_splunkd, runs, tmp_path):
    fi.Instance(fake_splunkd, host="idx-01", psets=2)
    route_conf(fake_splunkd, "TA-ingest_doctor", SETTINGS_CONF, {"logging": {"loglevel": "WARNING"}})
    text, err = run_collector_until(
        fake_splunkd, runs, splunk_home(tmp_path), {"hec_tls_verify": "0"},
        lambda log: "category=hec_tls_unverified" in log,
        lambda log: len(fake_splunkd.requests_to("/services/server/introspection/queues")) >= 2)
    assert "WARN category=hec_tls_unverified" in text
    assert "category=start" not in text and "category=stop" not in text         # INFO: below WARNING
    assert "category=start" not in err
    assert fake_splunkd.requests_to(LOGGING)


def test_log_level_reader(fake_splunkd):
    http = Http(2.0, {"splunkd": unverified()})
    assert collector_port.log_level(http, fake_splunkd.url, "k") is None           # 404: keep the level
    route_conf(fake_splunkd, "TA-ingest_doctor", SETTINGS_CONF, {"webhook": {"url": ""}})      # no [logging]: 404
    assert collector_port.log_level(http, fake_splunkd.url, "k") is None
    route_conf(fake_splunkd, "TA-ingest_doctor", SETTINGS_CONF, {"logging": {"loglevel": "DEBUG"}})
    assert collector_port.log_level(http, fake_splunkd.url, "k") == "DEBUG"
    route_conf(fake_splunkd, "TA-ingest_doctor", SETTINGS_CONF, {"logging": {"loglevel": "CRITICAL"}})
    assert collector_port.log_level(http, fake_splunkd.url, "k") == "FATAL"
    # solnlib's conf manager, every call over our port with the session key
    assert all(r.headers.get("Authorization") == "Splunk k" for r in fake_splunkd.requests)


@pytest.mark.parametrize("level, seen", [("INFO", True), ("ERROR", False)])
def test_action_logs_to_its_own_file_at_its_level(tmp_path, level, seen):
    home = splunk_home(tmp_path)
    payload = {"server_uri": "https://127.0.0.1:1", "session_key": "s3cr3t-session-key",
               "results_file": str(tmp_path / "missing.csv.gz"), "sid": "sid1", "search_name": "x",
               "configuration": {"log_level": level}}
    env = dict(os.environ, SPLUNK_HOME=str(home), PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bin", "ingest_doctor_flag.py"), "--execute"],
                       input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == exitcodes.BAD_INPUT, p.stderr
    text = _read(home / "var" / "log" / "splunk" / logs.ACTION_LOG)
    assert "ERROR category=bad_input" in text and "missing.csv.gz" in text
    assert ("INFO category=start" in text) is seen and ("INFO category=start" in p.stderr) is seen
    assert "s3cr3t-session-key" not in text


def test_bad_log_level_is_refused():
    from ingest_doctor.alert.payload import BadConfig, parse_params
    assert parse_params({"log_level": "warning"}).log_level == "WARN"
    with pytest.raises(BadConfig):
        parse_params({"log_level": "loud"})
