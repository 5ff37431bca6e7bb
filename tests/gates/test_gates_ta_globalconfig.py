"""ta/globalConfig.json is the one source of the collector's parameters.

ucc-gen makes the add-on's Inputs page, default/inputs.conf and README/inputs.conf.spec from
it; the scheme the script prints comes from params_mod.PARAMS. Here: that table equals the
globalConfig (name, title, help, type, default), the built add-on's files carry the same
defaults, the token is an encrypted field stored where the collector reads it, and the REST
handlers ucc-gen generated import from the add-on's bin/lib (Splunk's private `splunk` module
stubbed: it exists only inside splunkd) and validate as the page will.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from confcheck import read_conf
from fakes.gates_helpers import build_ta, copy_of
from fakes.paths import ROOT, need_ta_build
from ingest_doctor.collector import params as params_mod

GLOBAL_CONFIG = os.path.join(ROOT, "ta", "globalConfig.json")
SPLUNK_OWN = {"name", "index"}         # entity fields that are Splunk's own input settings
PYTHONS = {name: os.path.join(ROOT, ".venv", name, "bin", "python") for name in ("py313", "py39")}


def global_config():
    with open(GLOBAL_CONFIG, encoding="utf-8") as fh:
        return json.load(fh)


def service():
    (svc,) = global_config()["pages"]["inputs"]["services"]
    return svc


def _data_type(entity):
    if entity["type"] == "checkbox":
        return "boolean"
    if any(v.get("type") == "number" for v in entity.get("validators", [])):
        return "number"
    return "string"


def test_params_table_equals_the_globalconfig():
    assert service()["name"] == params_mod.SCHEME
    entities = [e for e in service()["entity"] if e["field"] not in SPLUNK_OWN]
    table = [(p.name, p.title, p.description, p.data_type, p.default) for p in params_mod.PARAMS]
    from_gc = [(e["field"], e["label"], e["help"], _data_type(e),
                None if "defaultValue" not in e else str(e["defaultValue"])) for e in entities]
    assert table == from_gc


def test_number_ranges_match_the_parser():
    """The page's number validators allow exactly what parse_params allows."""
    for e in service()["entity"]:
        for v in e.get("validators", []):
            if v.get("type") == "number":
                low, high = v["range"]
                params_mod.parse_params({e["field"]: str(low)})
                params_mod.parse_params({e["field"]: str(high)})
                for bad in (low - 1, high + 1):
                    with pytest.raises(params_mod.ParamError):
                        params_mod.parse_params({e["field"]: str(bad)})


def test_built_inputs_conf_defaults_are_the_globalconfig_defaults():
    scheme = read_conf(os.path.join(need_ta_build(), "default", "inputs.conf"))[params_mod.SCHEME]
    defaults = {p.name: p.default for p in params_mod.PARAMS if p.default is not None}
    assert {k: v for k, v in scheme.items() if k in params_mod.PARAM_NAMES} == defaults
    assert params_mod.parse_params(scheme) == params_mod.Params()


def test_the_probe_token_is_encrypted_where_the_collector_reads_it():
    gc = global_config()
    meta = gc["meta"]
    (tab,) = [t for t in gc["pages"]["configuration"]["tabs"] if t.get("name") == "account"]
    token = [e for e in tab["entity"] if e["field"] == "token"][0]
    assert token["encrypted"] is True
    ref = [e for e in service()["entity"] if e["field"] == "hec_token_credential"][0]
    assert ref["options"]["referenceName"] == "account"
    # splunktaucclib stores encrypted fields under realm __REST_CREDENTIAL__#<app>#<internal endpoint>.
    assert params_mod.CREDENTIAL_APP == meta["name"]
    assert params_mod.DEFAULT_CREDENTIAL_REALM == "__REST_CREDENTIAL__#%s#configs/conf-%s_account" % (
        meta["name"], meta["restRoot"])
    assert params_mod.probe_token('{"token": "abc"}') == "abc"
    assert params_mod.probe_token("11111111-2222-3333-4444-555555555555") == "11111111-2222-3333-4444-555555555555"
    assert meta["supportedPythonVersion"] == ["3.13"] and meta["name"] == "TA-ingest_doctor"


_HANDLER_PROBE = textwrap.dedent("""
    import importlib, json, os, sys, types
    bin_dir = sys.argv[1]
    # Splunk's private modules (only inside splunkd): the minimum the handlers import.
    splunk = types.ModuleType("splunk"); splunk.RESTException = type("RESTException", (Exception,), {})
    admin = types.ModuleType("splunk.admin"); admin.MConfigHandler = type("MConfigHandler", (), {})
    for n in ("ACTION_LIST", "ACTION_REMOVE", "ACTION_CREATE", "ACTION_EDIT", "CONTEXT_APP_ONLY"):
        setattr(admin, n, n)
    splunk.admin = admin
    clilib = types.ModuleType("splunk.clilib"); paths = types.ModuleType("splunk.clilib.bundle_paths")
    paths.make_splunkhome_path = lambda parts: os.path.join(os.environ["SPLUNK_HOME"], *parts)
    sys.modules.update({"splunk": splunk, "splunk.admin": admin, "splunk.clilib": clilib,
                        "splunk.clilib.bundle_paths": paths})
    sys.path.insert(0, bin_dir)
    out = {}
    for name in sorted(os.listdir(bin_dir)):
        if name.startswith("ta_ingest_doctor_rh_"):
            # splunkd runs the handler as __main__ from $SPLUNK_HOME/etc/apps/<app>/bin; the app
            # name (and the credentials' realm) come from that path.
            sys.modules["__main__"].__file__ = os.path.join(bin_dir, name)
            mod = importlib.import_module(name[:-3])
            # a table tab has one `model`; the settings tabs (Webhook) are a MultipleModel of them
            models = [mod.model] if hasattr(mod, "model") else mod.endpoint.models
            models = list(models.values()) if isinstance(models, dict) else list(models)
            fields = [f for m in models for f in m.fields]
            errors = {}
            for f in fields:
                for value in ("0", "10", "3601", "https://127.0.0.1:8088", "a b", "_metrics", "x"):
                    if f.validator is not None and not f.validator.validate(value, {}):
                        errors.setdefault(f.name, []).append(value)
            from splunktaucclib.rest_handler.credentials import RestCredentials
            realm = RestCredentials("https://127.0.0.1:8089", "key", mod.endpoint)._realm
            out[name] = {"fields": [[f.name, bool(f.encrypted)] for f in fields], "rejects": errors, "realm": realm,
                         "lib": os.path.dirname(importlib.import_module("splunktaucclib").__file__)}
    print(json.dumps(out))
""")


@pytest.mark.parametrize("python", sorted(PYTHONS))
def test_generated_rest_handlers_import_from_the_addon_and_validate(python, tmp_path):
    apps = tmp_path / "etc" / "apps"
    apps.mkdir(parents=True)
    os.symlink(need_ta_build(), str(apps / "TA-ingest_doctor"))
    bin_dir = str(apps / "TA-ingest_doctor" / "bin")
    (tmp_path / "var" / "log" / "splunk").mkdir(parents=True)      # solnlib's log folder
    env = dict(os.environ, SPLUNK_HOME=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([PYTHONS[python], "-B", "-c", _HANDLER_PROBE, bin_dir], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    settings = out["ta_ingest_doctor_rh_settings.py"]          # Configuration > Webhook (issue 20)
    # Configuration > Webhook, then Configuration > Logging (the collector's log level, issue 22)
    assert settings["fields"] == [["url", False], ["auth_header", True], ["min_severity", False],
                                  ["allow_targets", False], ["snooze_until", False], ["snooze_reason", False],
                                  ["loglevel", False]]
    from ingest_doctor_ports.notifier import SETTINGS_REALM
    assert settings["realm"] == SETTINGS_REALM
    assert "a b" in settings["rejects"]["url"] and "https://127.0.0.1:8088" not in settings["rejects"]["url"]
    account = out["ta_ingest_doctor_rh_account.py"]
    assert account["fields"] == [["token", True]]
    assert account["realm"] == params_mod.DEFAULT_CREDENTIAL_REALM
    assert account["lib"].startswith(os.path.join(bin_dir, "lib"))
    inputs = out["ta_ingest_doctor_rh_ingest_doctor_introspection.py"]
    names = [n for n, _ in inputs["fields"]]
    assert [n for n in names if n in params_mod.PARAM_NAMES] == list(params_mod.PARAM_NAMES)
    assert not any(enc for _, enc in inputs["fields"])
    rejects = inputs["rejects"]
    assert set(rejects["poll_interval"]) >= {"0", "3601"} and "10" not in rejects["poll_interval"]
    assert "_metrics" in rejects["metrics_index"] and "x" not in rejects["metrics_index"]
    assert "a b" in rejects["hec_sslCommonNameToCheck"]
    assert "https://127.0.0.1:8088" not in rejects["hec_health_url"] and "x" in rejects["hec_health_url"]


def test_ucc_gen_refuses_an_invalid_globalconfig(tmp_path):
    """ucc-gen validates globalConfig against its schema on every build: a broken one stops it."""
    src = copy_of(tmp_path / "src", "default", "static", os.path.join("ta", "package"))  # static/: the add-on's icons
    gc = global_config()
    gc["pages"]["inputs"]["services"][0]["entity"][1]["type"] = "no_such_entity_type"
    (src / "ta" / "globalConfig.json").write_text(json.dumps(gc))
    import manifest
    for f in manifest.bin_files(manifest.TA, os.path.join(ROOT, "bin")):
        (src / "bin" / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, "bin", f), str(src / "bin" / f))
    for f in (os.path.join("ta", "instance_inputs.conf"), "LICENSE"):
        shutil.copyfile(os.path.join(ROOT, f), str(src / f))
    proc = build_ta(tmp_path / "out" / "TA-ingest_doctor", "--src", src)
    assert proc.returncode == 1 and "ucc-gen failed" in proc.stderr + proc.stdout
    assert not (tmp_path / "out" / "TA-ingest_doctor").exists()
