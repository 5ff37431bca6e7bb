"""What the gates' tests share: a copy of shipped folders to break, one edit planted in a copied file, and
the tools run as the Makefile runs them."""
import os
import shutil
import subprocess
import sys

from fakes.paths import LIB, ROOT, TOOLS, VENV


def copy_of(dest, *folders):
    """`dest` holding a copy of each of these folders of the repository (paths relative to ROOT)."""
    for folder in folders:
        shutil.copytree(os.path.join(ROOT, folder), os.path.join(str(dest), folder))
    return dest


def edit(path, old, new, count=1):
    """Replace `old` by `new` in the file (the first `count` times; -1: every time); `old` must be there,
    or the fault would not be planted and the test would prove nothing."""
    with open(str(path), encoding="utf-8") as fh:
        text = fh.read()
    assert old in text, (str(path), old)
    with open(str(path), "w", encoding="utf-8") as fh:
        fh.write(text.replace(old, new, count))


def run_tool(name, *args, python=sys.executable, timeout=None):
    """tools/<name> run as the Makefile runs it (its own interpreter, no .pyc), its output captured as text."""
    return subprocess.run([python, "-B", os.path.join(TOOLS, name)] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=timeout)


def build_ta(out, *args):
    """tools/build_ta.py as `make build` runs it: ucc-gen from .venv/ucc, the libraries `make deps` vendored."""
    return run_tool("build_ta.py", *args, "--ucc-python", os.path.join(VENV, "ucc", "bin", "python"), "--lib", LIB,
                    "--ta-lib", os.path.join(ROOT, "build", "ta-lib"), "--out", out, timeout=300)
