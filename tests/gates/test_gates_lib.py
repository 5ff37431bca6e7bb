"""The vendored runtime libraries (bin/lib of the built app) import on a clean Python 3.9 and 3.13."""
import glob
import json
import os
import subprocess

import pytest

from fakes.paths import ROOT, need_build

# The interpreters Splunk 9.x and 10.x run app scripts with; `make test` creates both venvs.
PYTHONS = {"3.9": os.path.join(ROOT, ".venv", "py39", "bin", "python"),
           "3.13": os.path.join(ROOT, ".venv", "py313", "bin", "python")}

PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import splunklib.client, splunklib.modularinput, splunklib.binding, splunklib.results
import solnlib.credentials, solnlib.splunk_rest_client
top = sorted({m.split('.')[0] for m in sys.modules})
print(json.dumps({"version": list(sys.version_info[:2]), "modules": top,
                  "files": sorted({getattr(m, '__file__', None) or '' for m in list(sys.modules.values())})}))
"""


@pytest.mark.parametrize("version", sorted(PYTHONS))
def test_runtime_imports_with_only_bin_lib(version):
    lib = os.path.join(need_build(), "bin", "lib")
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
    lib = os.path.join(need_build(), "bin", "lib")
    files = [os.path.relpath(p, lib) for p in glob.glob(os.path.join(lib, "**", "*"), recursive=True)]
    assert not [f for f in files if f.endswith((".pyc", ".pyo", ".so", ".pyd")) or "__pycache__" in f]
    assert not [f for f in files if f.split(os.sep)[0] in ("bin", "tests") or os.sep + "tests" + os.sep in f]
    # AppInspect reads the SDK version from its dist-info; splunklib/ai and searchcommands are pruned.
    assert os.path.isfile(os.path.join(lib, "splunk_sdk-3.0.1.dist-info", "METADATA"))
    assert not os.path.exists(os.path.join(lib, "splunklib", "ai"))
    assert not os.path.exists(os.path.join(lib, "splunklib", "searchcommands"))
    assert not os.path.exists(os.path.join(lib, "solnlib", "observability.py"))
    # exactly what requirements-app.txt pins, nothing more
    with open(os.path.join(ROOT, "requirements-app.txt")) as fh:
        pins = sorted(line.split("==")[0].strip().lower().replace("-", "_") for line in fh
                      if "==" in line and not line.lstrip().startswith("#"))
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
    messages = []

    class Out:
        def write(self, s):
            messages.append(s)
    compiled = prune_lib.prune(str(tmp_path), Out())
    assert compiled == [os.path.join("pkg", "fast.cpython-313-x86_64-linux-gnu.so")]
    assert "not pure Python" in "".join(messages)
    left = sorted(os.path.relpath(p, tmp_path) for p in glob.glob(str(tmp_path / "**"), recursive=True))
    assert left == [".", "pkg", os.path.join("pkg", "m.py")]
