"""The platform floor (tools/floor.py) is stated the same everywhere an admin or Splunkbase reads it.

Splunk 9.3 is the first release that runs app scripts on Python 3.9; README, both packages'
app.conf and app.manifest, the Splunkbase text and every Python entry point say so, minpy checks
against that floor's interpreter, and every vendored library declares a Requires-Python that
includes it.
"""
import glob
import json
import os
import re

import pytest
from packaging.specifiers import SpecifierSet

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


@pytest.mark.parametrize("build", [need_build, need_ta_build], ids=["app", "add-on"])
def test_each_packages_app_conf_states_the_floor(build):
    assert floor.WORDS in read_conf(os.path.join(build(), "default", "app.conf"))["launcher"]["description"]


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


def _allows(spec, python):
    """Does a Requires-Python specifier allow `python`? Read by packaging, as pip reads it."""
    return SpecifierSet(spec).contains(python)


def test_requires_python_reader():
    assert _allows(">=3.9,<3.14", "3.9") and not _allows(">=3.13", "3.9")
    assert _allows("!=3.0.*,>=2.7", "3.9") and not _allows("<3.9", "3.9") and _allows("", "3.9")


def test_every_vendored_library_declares_the_floor_python():
    """What differs on 3.9 is decided by the libraries' own declarations: pip checks Requires-Python
    only for the Python it runs on (3.13 at build time), so a pin declared for 3.13 alone (splunk-sdk
    3.x: `>=3.13`) would build and ship and then run on Splunk 9's 3.9 against its declaration.
    Every shipped dist-info must allow the floor's Python and the newest one; no override."""
    found = {}          # {dist name: Requires-Python or ""} of every library the add-on ships (the app ships none)
    for meta in glob.glob(os.path.join(need_ta_build(), "bin", "lib", "*.dist-info", "METADATA")):
        with open(meta, encoding="utf-8") as fh:
            head = fh.read().split("\n\n", 1)[0]
        name = re.search(r"^Name: (.+)$", head, re.M).group(1).strip().lower().replace("-", "_")
        spec = re.search(r"^Requires-Python: (.+)$", head, re.M)
        found[name] = spec.group(1).strip() if spec else ""
    assert {"splunk_sdk", "solnlib", "urllib3", "sortedcontainers", "splunktaucclib", "defusedxml"} <= set(found)
    for python in (floor.PYTHON, "3.13"):
        excluded = sorted(name for name, spec in found.items() if not _allows(spec, python))
        assert excluded == [], "declared without Python %s: %s" % (python, excluded)
    for req in ("requirements-lib.txt", "requirements-ta.txt"):
        assert "requires-python override" not in _read(req)
    assert not os.path.exists(os.path.join(need_build(), "bin", "lib"))
