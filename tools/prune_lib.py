#!/usr/bin/env python3
"""Prune a `pip install --target` directory down to what the add-on runs.

Removes what never runs inside Splunk: tests, bytecode, console scripts, and the parts of
splunklib and solnlib we do not use (splunklib/ai needs Python 3.13 and LLM packages;
splunklib/searchcommands starts threads and subprocesses, which AppInspect flags; see
DROP_PATHS for solnlib). Keeps every
*.dist-info: AppInspect reads the splunk-sdk version from it.

A compiled extension (.so/.pyd) means a dependency that is not pure Python slipped into
requirements-lib.txt or requirements-ta.txt; it would not run on another platform (AppInspect's aarch64 check), so
this fails instead of quietly shipping or dropping it.

Usage: prune_lib.py DIR        exit 0 when pruned, 1 when a compiled extension was found.
"""
from __future__ import annotations

import os
import shutil
import sys

# Directories removed wherever they appear.
DROP_DIRS = {"__pycache__", "tests", "test", "testing"}
# Paths (relative to DIR) removed when present.
DROP_PATHS = (
    "bin",                      # console scripts pip writes for --target installs
    "splunklib/ai",
    "splunklib/searchcommands",
    # splunklib.results imports `deprecation`, which we do not vendor; only Job.results and
    # friends import it (lazily), and nothing we run calls them.
    "splunklib/results.py",
    # solnlib parts nothing imports from solnlib/__init__, credentials or splunk_rest_client
    # (tests/gates/test_gates_lib.py proves the rest imports): observability needs grpc and
    # opentelemetry, which we do not ship; rest.py calls requests with verify=False;
    # modular_input, concurrent and schedule start subprocesses and threads (we use
    # splunklib's modular input instead).
    "solnlib/observability.py",
    "solnlib/_observability_flush.py",
    "solnlib/rest.py",
    "solnlib/modular_input",
    "solnlib/concurrent",
    "solnlib/schedule",
    # splunktaucclib (the add-on's REST handlers only need rest_handler and common): the
    # alert-action, modular-input and add-on-builder helpers import requests and Splunk's
    # private modules and are not used.
    "splunktaucclib/splunk_aoblib",
    "splunktaucclib/legacy",
    "splunktaucclib/modinput_wrapper",
    "splunktaucclib/alert_actions_base.py",
    "splunktaucclib/cim_actions.py",
    "splunktaucclib/global_config",          # a ThreadPool; the handlers do not import it
    "splunktaucclib/config.py",
)
DROP_SUFFIXES = (".pyc", ".pyo", ".pyi", ".exe")
COMPILED_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")


def prune(root: str, out=sys.stdout) -> list:
    """Prune `root` in place; return the compiled extensions found (and removed)."""
    if not os.path.isdir(root):
        raise SystemExit("prune_lib: %s is not a directory" % root)
    for rel in DROP_PATHS:
        path = os.path.join(root, rel)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    compiled = []
    for dirpath, dirnames, filenames in os.walk(root, topdown=True):
        for d in list(dirnames):
            if d in DROP_DIRS:
                shutil.rmtree(os.path.join(dirpath, d))
                dirnames.remove(d)
        for f in filenames:
            path = os.path.join(dirpath, f)
            if f.endswith(COMPILED_SUFFIXES) or ".so." in f:
                compiled.append(os.path.relpath(path, root))
                os.remove(path)
            elif f.endswith(DROP_SUFFIXES):
                os.remove(path)
    for rel in compiled:
        out.write("prune_lib: compiled extension %s: a runtime dependency is not pure Python; "
                  "fix requirements-lib.txt or requirements-ta.txt\n" % rel)
    return compiled


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    return 1 if prune(argv[0]) else 0


if __name__ == "__main__":
    sys.exit(main())
