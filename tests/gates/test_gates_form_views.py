"""The two Simple XML form views (tools/formviews.py): accepted by name, each held to its checks (well-formed,
version="1.1", its script and stylesheet in appserver/static, no inline script, no address off the search
head, no eval or HTML written from text), and each check bites on a broken copy."""
from __future__ import annotations

import os
import shutil

import pytest

import formviews
from fakes.gates_helpers import copy_of, edit
from fakes.paths import ROOT


def test_the_shipped_views_are_studio_or_a_named_form_view_and_the_form_views_pass():
    assert formviews.problems(ROOT) == []
    assert formviews.FORM_VIEWS == ("ingest_doctor_hold", "ingest_doctor_notifications")
    studio = [os.path.basename(p) for p in formviews.studio_views(ROOT)]
    assert not set(studio) & {v + ".xml" for v in formviews.FORM_VIEWS}


@pytest.fixture
def app(tmp_path):
    return copy_of(tmp_path, formviews.VIEWS, formviews.STATIC)


VIEW = os.path.join(formviews.VIEWS, "ingest_doctor_notifications.xml")
JS = os.path.join(formviews.STATIC, "ingest_doctor_forms.js")


@pytest.mark.parametrize("where,old,new,said", [
    (VIEW, '<dashboard version="1.1"', '<dashboard version="1.0"', 'the root is not <dashboard version="1.1">'),
    (VIEW, "</fieldset>", "</fieldsett>", "not well-formed XML"),
    (VIEW, 'script="ingest_doctor_forms.js"', 'script="missing.js"', "script='missing.js' names no .js file"),
    (VIEW, 'stylesheet="ingest_doctor_forms.css" ', "", "no stylesheet="),
    (VIEW, "<html>", "<html><script>alert(1)</script>", "an inline <script>"),
    (VIEW, '<button type="button" id="idr-save"', '<button type="button" onclick="x()" id="idr-save"',
     "inline event handler"),
    (VIEW, "<html>", '<html><img src="https://cdn.example.com/x.png"/>', "reaches a URL off the search head"),
    (VIEW, "<html>", "<html><search><query>| makeresults</query></search>", "runs no search of its own"),
    (JS, "el.textContent = text;", "el.innerHTML = text;", "innerHTML/outerHTML"),
    (JS, "var data = null;", "var data = eval(text);", "eval()"),
    (JS, "var APP = 'ingest_doctor';", "var APP = 'ingest_doctor'; fetch('https://cdn.example.com/x');",
     "reaches a URL off the search head"),
])
def test_each_check_bites(app, where, old, new, said):
    edit(app / where, old, new)
    found = formviews.problems(str(app))
    assert any(said in p for p in found), found


def test_a_view_that_is_neither_studio_nor_a_named_form_view_is_named(app):
    shutil.copy(str(app / VIEW), str(app / formviews.VIEWS / "ingest_doctor_other.xml"))
    assert formviews.problems(str(app)) == [
        'ingest_doctor_other: neither a Dashboard Studio view (version="2") nor a form view of tools/formviews.py '
        "FORM_VIEWS"]


def test_the_severity_choices_are_the_findings_severities():
    import xml.etree.ElementTree as ET
    from ingest_doctor.findings import SEVERITIES
    root = ET.parse(os.path.join(ROOT, VIEW)).getroot()
    sel = [s for s in root.iter("select") if s.get("id") == "idr-severity"][0]
    assert sorted(o.get("value") for o in sel.iter("option")) == sorted(SEVERITIES)
    assert "var SEVERITIES = ['info', 'warning', 'critical'];" in open(os.path.join(ROOT, JS), encoding="utf-8").read()
    assert list(SEVERITIES) == ["info", "warning", "critical"]
