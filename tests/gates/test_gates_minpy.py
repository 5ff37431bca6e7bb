"""The minimum-Python gate bites: code needing 3.10+ is rejected with vermin's message.

vermin lives in the tools venv (.venv/tools, which `make test` creates before pytest), so the
gate runs as `make test-minpy` does: tools/minpy.py under .venv/tools/bin/python.
"""
import os

import pytest

from fakes.gates_helpers import run_tool
from fakes.paths import TOOLS_PY

pytestmark = pytest.mark.skipif(not os.path.exists(TOOLS_PY),
                                reason="the tools venv .venv/tools is absent (make test creates it first)")


def minpy(*paths):
    return run_tool("minpy.py", *paths, python=TOOLS_PY, timeout=120)


@pytest.mark.parametrize("code, says", [
    ("def kind(x):\n    match x:\n        case 1:\n            return 'one'\n",
     ["pattern matching requires !2, 3.10", "needs a Python newer than 3.9"]),
    ("import itertools\npairs = list(itertools.pairwise([1, 2, 3]))\n", ["itertools.pairwise"]),
], ids=["match_statement", "310_stdlib_api"])
def test_310_code_is_rejected(tmp_path, code, says):
    f = tmp_path / "new.py"
    f.write_text(code)
    proc = minpy(f)
    assert proc.returncode == 1
    for words in says:
        assert words in proc.stdout, proc.stdout


def test_union_annotation_without_future_import_is_rejected(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: int | None) -> None:\n    pass\n")
    good = tmp_path / "good.py"
    good.write_text("from __future__ import annotations\n\ndef f(x: int | None) -> None:\n    pass\n")
    proc = minpy(bad, good)
    assert proc.returncode == 1
    assert "bad.py:1: `X | Y` annotation needs Python 3.10" in proc.stdout
    assert "good.py:" not in proc.stdout


def test_39_code_passes_and_bin_lib_is_skipped(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "vendored.py").write_text("match = 1\nmatch x:\n    case 1: pass\n")
    (tmp_path / "ok.py").write_text("from __future__ import annotations\nimport json\nprint(json.dumps({}))\n")
    proc = minpy(tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "1 files run on Python 3.9" in proc.stdout
