"""The platform floor (tools/floor.py) is stated the same everywhere an admin or Splunkbase reads it.

Splunk 9.3 is the first release that runs app scripts on Python 3.9; README, both packages'
app.conf and app.manifest, the Splunkbase text and every Python entry point say so, minpy checks
against that floor's interpreter, and a vendored library whose Requires-Python excludes it is
named as an override (and proved on 3.9 by the 3.9 test run).
"""
import glob
import json
import os
import re

import pytest

from fakes.paths import ROOT, need_build, need_ta_build

from confcheck import read_conf
import floor
import minpy

def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return fh.read()


def test_floor_is_the_first_release_with_python_39():
    assert (floor.SPLUNK, floor.PYTHON, floor.PYTHON_VERSION) == ("9.3", "3.9", "python3.9")
    assert floor.MANIFEST_RANGE == ">=9.3,<11.0"
    assert minpy.TARGET == floor.PYTHON


@pytest.mark.parametrize("manifest", ["app.manifest", os.path.join("ta", "package", "app.manifest")])
def test_manifests_state_the_floor(manifest):
    data = json.loads(_read(manifest))
    assert data["platformRequirements"]["splunk"] == {"Enterprise": floor.MANIFEST_RANGE}
    assert floor.WORDS in data["info"]["description"]
    # a 0.x version is not "Production/Stable"
    assert data["info"]["id"]["version"].startswith("0.")
    assert data["info"]["classification"]["developmentStatus"] == "Beta"


def test_both_app_confs_state_the_floor():
    app = read_conf(os.path.join(need_build(), "default", "app.conf"))
    ta = read_conf(os.path.join(need_ta_build(), "default", "app.conf"))
    for cp in (app, ta):
        assert floor.WORDS in cp["launcher"]["description"]


def test_readme_and_splunkbase_text_state_the_same_floor():
    readme = _read("README.md")
    requirements = readme.split("## Requirements", 1)[1].split("\n## ", 1)[0]
    assert floor.WORDS in requirements
    assert "`%s`" % floor.MANIFEST_RANGE in requirements
    assert "Python %s" % floor.PYTHON in requirements
    # no older, dishonest claim left anywhere a user reads
    for stale in ("Splunk Enterprise 9.x", ">=9.0", "9.0 or later", "9.1 or later", "9.2 or later"):
        assert stale not in readme, stale
    splunkbase = _read("docs", "splunkbase.md")
    assert splunkbase.count("**Compatibility.** " + floor.WORDS) == 2
    assert "slim validate" in _read("docs", "appinspect.md")


def test_every_python_entry_point_names_the_floor_interpreter():
    seen = []
    for pkg in (need_build(), need_ta_build()):
        for path in glob.glob(os.path.join(pkg, "default", "*.conf")):
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                m = re.match(r"^python\.(version|required)\s*=\s*(.*?)\s*$", line)
                if m:
                    want = floor.PYTHON_VERSION if m.group(1) == "version" else floor.PYTHON_REQUIRED
                    assert m.group(2) == want, "%s:%d: %s" % (path, n, line.strip())
                    seen.append((os.path.basename(pkg), os.path.basename(path), m.group(1)))
    # the action, the input (scheme and instance), the REST handlers
    assert ("ingest_doctor", "alert_actions.conf", "version") in seen
    assert ("TA-ingest_doctor", "inputs.conf", "version") in seen
    assert ("TA-ingest_doctor", "restmap.conf", "version") in seen


def _version(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def _allows(spec, python):
    """Does a Requires-Python specifier (>=, >, <=, <, ==, !=; no wildcards but a trailing .*) allow `python`?"""
    v = _version(python)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        m = re.match(r"^(>=|<=|==|!=|>|<|~=)\s*([\d.]+)(\.\*)?$", clause)
        assert m, "unreadable Requires-Python clause %r" % clause
        op, ver, wild = m.group(1), _version(m.group(2)), m.group(3)
        n = len(ver)
        cur = v[:n] if wild else v + (0,) * max(0, n - len(v))
        ok = {">=": cur >= ver, "<=": cur <= ver, ">": cur > ver, "<": cur < ver,
              "==": cur == ver, "!=": cur != ver, "~=": cur >= ver and cur[:n - 1] == ver[:n - 1]}[op]
        if not ok:
            return False
    return True


def test_requires_python_reader():
    assert _allows(">=3.9,<3.14", "3.9") and not _allows(">=3.13", "3.9")
    assert _allows("!=3.0.*,>=2.7", "3.9") and not _allows("<3.9", "3.9") and _allows("", "3.9")


def _overrides():
    names = set()
    for req in ("requirements-app.txt", "requirements-ta.txt"):
        names |= {m.lower().replace("-", "_") for m in
                  re.findall(r"^# requires-python override: (\S+)\s*$", _read(req), re.M)}
    return names


def test_a_library_that_excludes_the_floor_python_is_a_named_override():
    """pip's Requires-Python check holds where pip runs (3.13); what Splunk 9.3 runs on 3.9 despite its
    declaration must be named, so the 3.9 test run (imports in test_gates_lib, the modular input's
    protocol in test_modinput_protocol) is known to be its proof."""
    excluded = set()
    for lib in (os.path.join(need_build(), "bin", "lib"), os.path.join(need_ta_build(), "bin", "lib")):
        for meta in glob.glob(os.path.join(lib, "*.dist-info", "METADATA")):
            with open(meta, encoding="utf-8") as fh:
                head = fh.read().split("\n\n", 1)[0]
            name = re.search(r"^Name: (.+)$", head, re.M).group(1).strip().lower().replace("-", "_")
            spec = re.search(r"^Requires-Python: (.+)$", head, re.M)
            if spec and not _allows(spec.group(1).strip(), floor.PYTHON):
                excluded.add(name)
    assert excluded == _overrides()
    assert excluded == {"splunk_sdk"}
    readme = _read("README.md")
    assert "Requires-Python `>=3.13`" in readme or "`Requires-Python >=3.13`" in readme
