"""The build and package gates: allow-listed build, reproducible archive, and refusals that bite."""
import io
import json
import os
import shutil
import tarfile

import pytest

from fakes.gates_helpers import run_tool
from fakes.paths import ROOT, need_build

import build as build_tool
import package


@pytest.fixture
def app_copy(tmp_path):
    """A copy of the built app, in a folder named like the app."""
    dest = tmp_path / "ingest_doctor"
    shutil.copytree(need_build(), str(dest))
    return dest


def test_two_packages_are_byte_identical(app_copy, tmp_path):
    a, b = tmp_path / "a.tgz", tmp_path / "b.tgz"
    assert run_tool("package.py", app_copy, a, timeout=120).returncode == 0
    # touch every file: mtimes must not leak into the archive
    for dirpath, _, files in os.walk(str(app_copy)):
        for f in files:
            os.utime(os.path.join(dirpath, f), (1, 1))
    assert run_tool("package.py", app_copy, b, timeout=120).returncode == 0
    assert a.read_bytes() == b.read_bytes()


def test_archive_layout(app_copy, tmp_path):
    out = tmp_path / "x.tgz"
    assert run_tool("package.py", app_copy, out, timeout=120).returncode == 0
    data = out.read_bytes()
    assert data[4:8] == b"\0\0\0\0", "gzip mtime must be 0"
    assert data[3] & 0x08 == 0, "gzip header must not carry a file name"
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names)
    assert names[0] == "ingest_doctor"
    assert all(n == "ingest_doctor" or n.startswith("ingest_doctor/") for n in names)
    for m in members:
        assert (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", "")
        assert m.mtime == package.MTIME
        assert m.mode in (0o755, 0o644), (m.name, oct(m.mode))
        assert not m.name.endswith(".pyc") and "__pycache__" not in m.name
    assert "ingest_doctor/default/app.conf" in names
    assert "ingest_doctor/bin/ingest_doctor_flag.py" in names
    # the app imports no vendored library: bin/lib ships in the add-on only
    assert not [n for n in names if n.startswith("ingest_doctor/bin/lib")]
    assert not [n for n in names[1:] if n.split("/")[1] in ("tests", "tools", "local", ".venv", "node_modules")]


def test_package_refuses_pyc_and_local(app_copy, tmp_path):
    (app_copy / "bin" / "ingest_doctor" / "__pycache__").mkdir(parents=True, exist_ok=True)
    (app_copy / "bin" / "ingest_doctor" / "__pycache__" / "model.cpython-313.pyc").write_bytes(b"\0")
    (app_copy / "bin" / "stray.pyc").write_bytes(b"\0")
    (app_copy / "local").mkdir()
    (app_copy / "local" / "macros.conf").write_text("[x]\ndefinition = 1\n")
    out = tmp_path / "refused.tgz"
    proc = run_tool("package.py", app_copy, out, timeout=120)
    assert proc.returncode == 1
    assert "bin/ingest_doctor/__pycache__/: compiled Python cache must not ship" in proc.stderr
    assert "bin/stray.pyc: compiled Python must not ship" in proc.stderr
    assert "local/: a local/ folder must not ship" in proc.stderr
    assert not out.exists()


def test_package_refuses_local_meta_spaces_and_version_mismatch(app_copy, tmp_path):
    (app_copy / "metadata" / "local.meta").write_text("[]\n")
    (app_copy / "lookups" / "my lookup.csv").write_text("a\n1\n")
    manifest = json.loads((app_copy / "app.manifest").read_text())
    manifest["info"]["id"]["version"] = "0.2.0"
    (app_copy / "app.manifest").write_text(json.dumps(manifest))
    proc = run_tool("package.py", app_copy, tmp_path / "refused.tgz", timeout=120)
    assert proc.returncode == 1
    assert "metadata/local.meta: local.meta must not ship" in proc.stderr
    assert "lookups/my lookup.csv: file name contains a space" in proc.stderr
    assert "version mismatch" in proc.stderr and "app.manifest info.id.version = 0.2.0" in proc.stderr


def test_package_refuses_wrong_app_id_and_non_semver(tmp_path, app_copy):
    conf = app_copy / "default" / "app.conf"
    text = conf.read_text()
    conf.write_text(text.replace("[id]\nname = ingest_doctor", "[id]\nname = ingest_doc"))
    found = package.problems(str(app_copy))
    assert any("app.conf [id] name is 'ingest_doc' but the app folder is 'ingest_doctor'" in p for p in found)
    conf.write_text(text.replace("version = ", "version = v"))
    found = package.problems(str(app_copy))
    assert any("is not a semantic version" in p for p in found)


def test_source_identity_is_consistent():
    """The committed app.conf and app.manifest agree (what `make package` will check again)."""
    ident = package.identity(ROOT)
    assert ident["app.conf [launcher] version"] == ident["app.conf [id] version"] == ident["app.manifest info.id.version"]
    assert ident["app.conf [package] id"] == ident["app.conf [id] name"] == ident["app.manifest info.id.name"] == "ingest_doctor"


def test_build_refuses_local_and_stray_pyc(app_copy, tmp_path):
    (app_copy / "local").mkdir()
    (app_copy / "default" / "thing.pyc").write_bytes(b"\0")
    (app_copy / "metadata" / "local.meta").write_text("[]\n")
    found = build_tool.problems(str(app_copy))
    assert any(p.startswith("local/: a local/ folder is in the source") for p in found)
    assert "default/thing.pyc: compiled Python outside __pycache__ must not ship" in found
    assert "metadata/local.meta: local.meta must not ship (use metadata/default.meta)" in found
    proc = run_tool("build.py", "--src", app_copy, "--out", tmp_path / "out" / "ingest_doctor")
    assert proc.returncode == 1 and "build: refused" in proc.stderr
    assert not (tmp_path / "out" / "ingest_doctor").exists()


def test_build_copies_only_the_allow_list(app_copy, tmp_path):
    (app_copy / "tests").mkdir()
    (app_copy / "tests" / "test_x.py").write_text("")
    (app_copy / ".hidden").write_text("")
    (app_copy / "bin" / "ingest_doctor" / "__pycache__").mkdir(exist_ok=True)
    (app_copy / "bin" / "ingest_doctor" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (app_copy / "Makefile").write_text("")
    # a developer's tree has the add-on's libraries in bin/lib (`make deps`): the app takes none
    (app_copy / "bin" / "lib" / "splunklib").mkdir(parents=True)
    (app_copy / "bin" / "lib" / "splunklib" / "client.py").write_text("")
    out = tmp_path / "out" / "ingest_doctor"
    proc = run_tool("build.py", "--src", app_copy, "--out", out)
    assert proc.returncode == 0, proc.stderr
    top = sorted(os.listdir(str(out)))
    assert set(top) <= set(build_tool.ALLOW), top
    assert not (out / "bin" / "ingest_doctor" / "__pycache__").exists()
    assert (out / "bin" / "ingest_doctor_flag.py").exists()
    assert not (out / "bin" / "lib").exists()
