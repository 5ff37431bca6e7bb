"""The conf gate bites: a misspelled setting in a copy of default/ is reported with file, stanza and line."""
import textwrap

import pytest

from fakes.gates_helpers import copy_of
from fakes.paths import slim_specs

import confcheck

SPECS = slim_specs()
needs_specs = pytest.mark.skipif(SPECS is None, reason="the tools venv (.venv/tools, splunk-packaging-toolkit) "
                                                       "is absent; `make test` creates it before pytest")


@needs_specs
def test_misspelled_setting_in_a_copy_is_rejected(tmp_path):
    app = copy_of(tmp_path / "ingest_doctor", "default", "README")
    conf = app / "default" / "macros.conf"
    lines = conf.read_text().split("\n")
    at = lines.index("iseval = 0")
    lines[at] = "isevall = 0"
    conf.write_text("\n".join(lines))
    count, found = confcheck.check_app(str(app), SPECS)
    stanza = [l for l in lines[:at] if l.startswith("[")][-1]
    # (the rest of default/ is checked by `make test-conf`; here only the typo matters)
    assert ("default/macros.conf:%d: %s unknown setting 'isevall' (not in Splunk's macros.conf.spec "
            "nor README/macros.conf.spec)" % (at + 1, stanza)) in found
    assert not [p for p in found if "isevall" not in p and "macros.conf" in p]


@needs_specs
def test_each_kind_of_problem(tmp_path):
    app = tmp_path / "app"
    (app / "default").mkdir(parents=True)
    (app / "README").mkdir()
    (app / "README" / "inputs.conf.spec").write_text("[ingest_doctor_introspection://<name>]\npoll_interval = <integer>\n")
    (app / "default" / "inputs.conf").write_text(textwrap.dedent("""\
        [ingest_doctor_introspection]
        python.version = python3.9
        python.required = 3.13

        [ingest_doctor_introspection://local]
        poll_intervall = 10
        disabled = 1
        python.version = python3.9
        """))
    (app / "default" / "savedsearches.conf").write_text(textwrap.dedent("""\
        [Queue full]
        search = | makeresults
        alert.trak = 1
        cron_schedule = */5 * * * *
        cron_schedule = */1 * * * *
        actions = ingest_doctor_flag
        action.ingest_doctor_flag = 1
        action.ingest_doctor_flag.param.min_severity = warning
        action.ingest_doctor_flag.param.min_severty = warning
        [Queue full]
        description = twice
        [broken
        """))
    (app / "README" / "alert_actions.conf.spec").write_text("[ingest_doctor_flag]\nparam.min_severity = <string>\n")
    (app / "default" / "alert_actions.conf").write_text("[ingest_doctor_flag]\nis_custom = 1\nlabel = Flag\n"
                                                        "param.min_severity = warning\n")
    (app / "default" / "nosuch.conf").write_text("[x]\ny = 1\n")
    count, found = confcheck.check_app(str(app), SPECS)
    text = "\n".join(found)
    assert "default/inputs.conf:6: [ingest_doctor_introspection://local] unknown setting 'poll_intervall'" in text
    assert "default/inputs.conf:5: [ingest_doctor_introspection://local] python.required missing" in text
    assert "default/savedsearches.conf:3: [Queue full] unknown setting 'alert.trak'" in text
    assert "default/savedsearches.conf:5: [Queue full] duplicate setting 'cron_schedule' (first at line 4)" in text
    assert ("default/savedsearches.conf:9: [Queue full] 'action.ingest_doctor_flag.param.min_severty': alert action "
            "ingest_doctor_flag has no parameter 'min_severty'") in text
    assert "default/savedsearches.conf:10: [Queue full] duplicate stanza (first at line 1)" in text
    assert "default/savedsearches.conf:12: malformed stanza header '[broken'" in text
    assert "default/alert_actions.conf:1: [ingest_doctor_flag] python.version missing" in text
    assert "default/nosuch.conf: no spec for nosuch.conf" in text
    # the allow-listed and spec-pattern settings are not reported
    assert "'actions'" not in text and "param.min_severity" not in text and "'disabled'" not in text
    assert len(found) == 10, text


def test_parse_conf_continuation_and_syntax(tmp_path):
    p = tmp_path / "x.conf"
    p.write_text("# c\n[a]\nsearch = one \\\n| two\n  indented = 1\nnot a setting\n")
    stanzas, errors = confcheck.parse_conf(str(p))
    assert stanzas[1].settings[0].value == "one \n| two"
    assert [e[0] for e in errors] == [5, 6]


def test_allow_list_entries_all_carry_a_reason():
    entries = confcheck.load_allow()
    assert entries and all(len(e) == 3 for e in entries)
