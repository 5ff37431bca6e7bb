"""One place for every alert's notification settings, as the shipped conf files really merge.

Splunk hands the action `configuration` = alert_actions.conf [ingest_doctor_flag] param.* overlaid
with the saved search's own action.ingest_doctor_flag.param.*. If the shipped alerts set their own
min_severity, a global setting would do nothing; so none does, the global param is empty, and the
app's settings macros (editable in Splunk Web) decide, unless an admin sets a param for all alerts
(local/alert_actions.conf) or for one alert.
"""
import os
import re
from unittest import mock

import pytest

from fakes.memory_port import MemoryPort
from fakes.paths import ROOT

from confcheck import read_conf

from ingest_doctor.alert import action
from ingest_doctor.alert.payload import (MIN_SEVERITY_MACRO, WEBHOOK_MACRO, BadConfig, Payload, apply_settings,
                                         parse_params)
from ingest_doctor.alert.results import Row
from ingest_doctor.evidence import Evidence
from ingest_doctor.findings import Finding, Report

ACTION = "ingest_doctor_flag"


def shipped_macros(**local):
    cp = read_conf(os.path.join(ROOT, "default", "macros.conf"))
    macros = {s: st["definition"] for s, st in cp.items() if "definition" in st}
    macros.update(local)          # what local/macros.conf (Splunk Web's macro editor) overrides
    return macros


def configurations(local_alert_actions=None):
    """{alert: the payload's `configuration`} for every shipped alert that triggers the action."""
    actions = read_conf(os.path.join(ROOT, "default", "alert_actions.conf"))
    glob = {k[len("param."):]: v for k, v in actions[ACTION].items() if k.startswith("param.")}
    glob.update(local_alert_actions or {})
    saved = read_conf(os.path.join(ROOT, "default", "savedsearches.conf"))
    out = {}
    for name, opts in saved.items():
        if opts.get("action." + ACTION, "0").strip() != "1":
            continue
        conf = dict(glob)
        prefix = "action.%s.param." % ACTION
        conf.update({k[len(prefix):]: v for k, v in opts.items() if k.startswith(prefix)})
        out[name] = conf
    return out


def test_no_shipped_alert_sets_its_own_notification_settings():
    confs = configurations()
    # seven detection alerts (with Silence), the relay, and the housekeeping search that hands stale
    # findings to the action to resolve under its lock (issue 35)
    assert len(confs) == 9
    text = open(os.path.join(ROOT, "default", "savedsearches.conf"), encoding="utf-8").read()
    assert not re.search(r"^action\.%s\.param\.(min_severity|webhook_url)\s*=" % ACTION, text, re.M)
    for conf in confs.values():
        assert conf["min_severity"] == "" and conf["webhook_url"] == ""


@pytest.mark.parametrize("macros, local_alert_actions, want", [
    ({}, None, ("warning", None)),
    ({MIN_SEVERITY_MACRO: "critical", WEBHOOK_MACRO: "https://hooks.example.com/ingest"}, None,
     ("critical", "https://hooks.example.com/ingest")),
    ({MIN_SEVERITY_MACRO: "critical"}, {"min_severity": "info"}, ("info", None)),
], ids=["as-shipped-warning-and-up-without-webhook", "the-settings-macros-apply",
        "a-global-param-in-local-alert-actions-beats-the-macro"])
def test_every_shipped_alert_follows_the_settings(macros, local_alert_actions, want):
    for name, conf in configurations(local_alert_actions).items():
        params = apply_settings(parse_params(conf), shipped_macros(**macros))
        assert (params.min_severity, params.webhook_url) == want, name


def test_one_alerts_own_param_still_wins():
    params = apply_settings(parse_params({"min_severity": "info", "webhook_url": ""}),
                            shipped_macros(**{MIN_SEVERITY_MACRO: "critical"}))
    assert params.min_severity == "info"


@pytest.mark.parametrize("value", ["none", '""', "", "  None "])
def test_webhook_macro_off_values(value):
    assert apply_settings(parse_params({}), {WEBHOOK_MACRO: value}).webhook_url is None


@pytest.mark.parametrize("macros, words", [({MIN_SEVERITY_MACRO: "high"}, MIN_SEVERITY_MACRO),
                                           ({WEBHOOK_MACRO: "http://plain.example.com/x"}, WEBHOOK_MACRO)])
def test_a_bad_setting_is_refused_naming_its_macro(macros, words):
    with pytest.raises(BadConfig) as e:
        apply_settings(parse_params({}), macros)
    assert words in str(e.value)


def test_the_alert_form_keeps_the_app_setting_unless_chosen():
    html = open(os.path.join(ROOT, "default", "data", "ui", "alerts", ACTION + ".html"), encoding="utf-8").read()
    select = html.split('name="action.%s.param.min_severity"' % ACTION, 1)[1].split("</select>", 1)[0]
    assert re.findall(r'<option value="([^"]*)"', select)[0] == ""     # first (preselected): the app's setting


def test_only_admins_read_the_webhook_macro():
    meta = read_conf(os.path.join(ROOT, "metadata", "default.meta"))
    access = meta["macros/" + WEBHOOK_MACRO]["access"]
    assert "read : [ admin, sc_admin ]" in access and "*" not in access


def _diagnose(evidence: Evidence, thresholds=None, finite=False) -> Report:
    """A warning and a critical finding for every host judged (the engine is not what is tested here)."""
    return Report(host=evidence.host, findings=[
        Finding("hec_input", "warning", evidence.host, None, "httpinputserverdatathread", "s"),
        Finding("typing", "critical", evidence.host, 1, "typing", "s")])


@pytest.mark.parametrize("setting, stored", [("warning", 2), ("critical", 1)])
def test_a_run_of_a_shipped_alert_follows_the_settings_macros(setting, stored):
    name = "Ingest Doctor - HEC - Listener limits reached"
    payload = Payload("https://127.0.0.1:8089", "k", "/r", "sid1", name, "ingest_doctor", "nobody", "",
                      parse_params(configurations()[name]))
    port = MemoryPort()                     # its KV store holds what the run saves
    macros = shipped_macros(**{MIN_SEVERITY_MACRO: setting, WEBHOOK_MACRO: "https://hooks.example.com/x"})
    port.macros = lambda: dict(macros)
    port.latest_configs = lambda hosts: {}
    port.webhook = mock.Mock()              # records what the run posts
    rows = [Row(2, {"signal": "hec_listener", "host": "hf-01", "overwhelmed": "3", "last_time": "990", "span_s": "60"},
                {})]
    summary = action.run(payload, port, _diagnose, now=1000.0, rows=rows)
    assert len(port.kv) == stored and summary.below_min == 2 - stored
    assert [c.args[0] for c in port.webhook.call_args_list] == ["https://hooks.example.com/x"] * stored
