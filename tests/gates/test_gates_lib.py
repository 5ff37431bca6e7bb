"""Each package ships only what it imports: the add-on's vendored libraries (its bin/lib) import on
a clean Python 3.9 and 3.13, and the search-head app ships no bin/lib and runs on the standard
library alone."""
import glob
import io
import json
import os
import subprocess
import sys

import pytest

from fakes.paths import ROOT, need_build, need_ta_build

import manifest

# The interpreters Splunk 9.x and 10.x run app scripts with; `make test` creates both venvs.
PYTHONS = {"3.9": os.path.join(ROOT, ".venv", "py39", "bin", "python"),
           "3.13": os.path.join(ROOT, ".venv", "py313", "bin", "python")}

PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import splunklib.client, splunklib.modularinput, splunklib.binding
import solnlib.credentials, solnlib.splunk_rest_client, solnlib.log, solnlib.conf_manager
top = sorted({m.split('.')[0] for m in sys.modules})
print(json.dumps({"version": list(sys.version_info[:2]), "modules": top,
                  "files": sorted({getattr(m, '__file__', None) or '' for m in list(sys.modules.values())})}))
"""


@pytest.mark.parametrize("version", sorted(PYTHONS))
def test_runtime_imports_with_only_bin_lib(version):
    lib = os.path.join(need_ta_build(), "bin", "lib")
    py = PYTHONS[version]
    assert os.path.exists(py), "%s missing: run `make venv`" % py
    # -I: no environment, no user site; -S: not even the venv's site-packages; -B: no .pyc.
    proc = subprocess.run([py, "-I", "-S", "-B", "-c", PROBE, lib], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["version"] == [int(x) for x in version.split(".")]
    third_party = [f for f in out["files"] if "site-packages" in f]
    assert third_party == [], "imported from outside bin/lib: %s" % third_party
    for absent in ("grpc", "opentelemetry", "google", "requests", "six"):
        assert absent not in out["modules"], "%s was imported" % absent
    assert {"splunklib", "solnlib", "urllib3", "sortedcontainers"} <= set(out["modules"])


def test_bin_lib_is_pinned_pruned_and_pure():
    lib = os.path.join(need_ta_build(), "bin", "lib")
    files = [os.path.relpath(p, lib) for p in glob.glob(os.path.join(lib, "**", "*"), recursive=True)]
    assert not [f for f in files if f.endswith((".pyc", ".pyo", ".so", ".pyd")) or "__pycache__" in f]
    assert not [f for f in files if f.split(os.sep)[0] in ("bin", "tests") or os.sep + "tests" + os.sep in f]
    # AppInspect reads the SDK version from its dist-info; splunklib/ai and searchcommands are pruned.
    assert os.path.isfile(os.path.join(lib, "splunk_sdk-2.1.1.dist-info", "METADATA"))
    assert not os.path.exists(os.path.join(lib, "splunklib", "searchcommands"))
    assert not os.path.exists(os.path.join(lib, "splunklib", "results.py"))
    assert not os.path.exists(os.path.join(lib, "solnlib", "observability.py"))
    # exactly what requirements-lib.txt and requirements-ta.txt pin, nothing more
    pins = []
    for req in ("requirements-lib.txt", "requirements-ta.txt"):
        with open(os.path.join(ROOT, req)) as fh:
            pins += [line.split("==")[0].strip().lower().replace("-", "_") for line in fh
                     if "==" in line and not line.lstrip().startswith("#")]
    pins.sort()
    dists = sorted(d.split("-")[0].lower() for d in os.listdir(lib) if d.endswith(".dist-info"))
    assert dists == pins


def test_prune_lib_rejects_compiled_extensions(tmp_path):
    import prune_lib
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "__pycache__" / "m.cpython-313.pyc").write_bytes(b"x")
    (tmp_path / "pkg" / "tests").mkdir()
    (tmp_path / "pkg" / "fast.cpython-313-x86_64-linux-gnu.so").write_bytes(b"x")
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    (tmp_path / "bin").mkdir()
    out = io.StringIO()
    compiled = prune_lib.prune(str(tmp_path), out)
    assert compiled == [os.path.join("pkg", "fast.cpython-313-x86_64-linux-gnu.so")]
    assert "not pure Python" in out.getvalue()
    left = sorted(os.path.relpath(p, tmp_path) for p in glob.glob(str(tmp_path / "**"), recursive=True))
    assert left == [".", "pkg", os.path.join("pkg", "m.py")]


# Every module the app ships, imported on a bare interpreter with only the app's bin/ on the path:
# nothing outside the standard library and the app's own packages may load.
APP_PROBE = r"""
import importlib, json, sys
bin_dir, names = sys.argv[1], json.loads(sys.argv[2])
sys.path.insert(0, bin_dir)
for name in names:
    importlib.import_module(name)
print(json.dumps(sorted({getattr(m, '__file__', None) or '' for m in list(sys.modules.values())})))
"""


def _app_modules(bin_dir):
    names = []
    for rel in manifest.bin_files(manifest.APP, bin_dir):
        if rel.endswith(".py"):
            mod = rel[:-3].replace("/", ".")
            names.append(mod[:-len(".__init__")] if mod.endswith(".__init__") else mod)
    return names


def test_the_app_ships_no_bin_lib():
    app = need_build()
    assert not os.path.exists(os.path.join(app, "bin", "lib"))
    shipped = [os.path.relpath(os.path.join(d, f), app) for d, _, fs in os.walk(app) for f in fs]
    assert not [f for f in shipped if f.startswith(os.path.join("bin", "lib"))]


@pytest.mark.parametrize("version", sorted(PYTHONS))
def test_the_app_runs_on_the_standard_library_alone(version):
    """The action, the CLI and the relay's modules import with nothing but the app's bin/: a third-party
    import added to what the app ships fails here (the add-on's bin/lib is not beside it)."""
    bin_dir = os.path.join(need_build(), "bin")
    names = _app_modules(bin_dir)
    assert "ingest_doctor_flag" in names and "ingest_doctor_cli" in names
    proc = subprocess.run([PYTHONS[version], "-I", "-S", "-B", "-c", APP_PROBE, bin_dir, json.dumps(names)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    stdlib = os.path.dirname(os.__file__) if version == "%d.%d" % sys.version_info[:2] else None
    files = [f for f in json.loads(proc.stdout) if f]
    outside = [f for f in files if not f.startswith(bin_dir) and "site-packages" in f]
    assert outside == [], "the app imported a third-party module: %s" % outside
    if stdlib:
        assert [f for f in files if not f.startswith((bin_dir, stdlib))] == []
