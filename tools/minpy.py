#!/usr/bin/env python3
"""The minimum Python version of our code in bin/ (not the vendored bin/lib) must be <= the floor's.

The oldest Splunk we support (tools/floor.py, 9.3) runs app scripts on Python 3.9. Runs `vermin --no-tips --violations -t=3.9-` (pinned
in requirements-tools.txt; run from .venv/tools) on every .py file under the given folders,
skipping bin/lib and __pycache__, and fails with vermin's own message naming each file, line
and feature that needs a newer Python.

vermin does not see `X | Y` unions in annotations, which Python 3.9 evaluates (and rejects)
at import time unless the module starts with `from __future__ import annotations`; this
script checks that case itself (ast) and reports file and line.

Usage: minpy.py [DIR_OR_FILE ...]    (default: bin)
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floor  # noqa: E402

TARGET = floor.PYTHON


def python_files(paths: List[str]) -> List[str]:
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        for dirpath, dirnames, filenames in os.walk(p):
            rel = os.path.relpath(dirpath, p)
            dirnames[:] = sorted(d for d in dirnames
                                 if d != "__pycache__" and not d.startswith(".")
                                 and not (rel == "." and d == "lib"))
            out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
    return out


def _has_union(node) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) for n in ast.walk(node))


def annotation_unions(path: str) -> List[str]:
    """`X | Y` annotations in a module without `from __future__ import annotations`."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__" and \
                any(a.name == "annotations" for a in node.names):
            return []
    out = []
    for node in ast.walk(tree):
        anns = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            anns = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                    if x is not None and x.annotation is not None] + [node.returns]
        elif isinstance(node, (ast.Module, ast.ClassDef)):
            # module and class variable annotations are evaluated; local ones are not
            anns = [n.annotation for n in node.body if isinstance(n, ast.AnnAssign)]
        for ann in anns:
            if ann is not None and _has_union(ann):
                out.append("%s:%d: `X | Y` annotation needs Python 3.10 at import time; add "
                           "`from __future__ import annotations`" % (path, ann.lineno))
    return out


def vermin_cmd() -> List[str]:
    here = os.path.join(os.path.dirname(sys.executable), "vermin")
    return [here if os.path.exists(here) else "vermin"]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv) or ["bin"]
    files = python_files(argv)
    if not files:
        print("minpy: FAILED, no Python files under %s" % " ".join(argv))
        return 1
    cmd = vermin_cmd() + ["--no-tips", "--violations", "-t=%s-" % TARGET, "--no-parse-comments"] + files
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    except FileNotFoundError:
        print("minpy: vermin not found: run from .venv/tools (make test-minpy installs it)")
        return 1
    unions = [msg for f in files for msg in annotation_unions(f)]
    if proc.returncode != 0 or unions:
        sys.stdout.write(proc.stdout if proc.returncode != 0 else "")
        for msg in unions:
            print("minpy: " + msg)
        print("minpy: FAILED, code in %s needs a Python newer than %s (Splunk %s runs %s)" % (" ".join(argv), TARGET, floor.SPLUNK, TARGET))
        return 1
    print("minpy: %d files run on Python %s (vermin)" % (len(files), TARGET))
    return 0


if __name__ == "__main__":
    sys.exit(main())
