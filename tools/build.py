#!/usr/bin/env python3
"""Assemble the installable search-head app folder build/ingest_doctor/ from an allow-list.

Only what Splunk reads goes in: app.manifest, README.md, LICENSE, default/, metadata/,
bin/, lookups/, appserver/, static/ and the README/ folder of .spec files. Of bin/, never
bin/lib: the app's action and CLI run on the standard library alone (the vendored libraries
ship in the add-on only; tests/gates/test_gates_lib.py imports what the app ships without them). Never: tests, tools, node_modules, dotfiles, __pycache__. Of
bin/, only what tools/manifest.py lists for the app (the collector ships in the add-on
TA-ingest_doctor, which tools/build_ta.py builds from ta/).

It refuses a source tree that holds what must never ship and would otherwise be copied or
silently left out: a local/ folder (an admin's or a developer's own settings), a local.meta,
or a stray .pyc outside __pycache__ (bytecode someone put next to the source). __pycache__
folders are Python's own cache, never tracked by git, and are skipped.

Usage: build.py [--src DIR] --out build/ingest_doctor
"""
from __future__ import annotations

import os
import shutil
import sys
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import manifest  # noqa: E402


ALLOW = ("app.manifest", "README.md", "LICENSE", "default", "metadata", "bin", "lookups",
         "appserver", "static", "README")
REQUIRED = ("app.manifest", "README.md", "LICENSE", "default/app.conf", "metadata/default.meta")
SKIP_DIRS = {"__pycache__", "tests", "test", "tools", "node_modules"}
SKIP_SUFFIXES = (".pyc", ".pyo", ".swp", "~", ".orig", ".rej")


def problems(src: str) -> List[str]:
    """What in the allow-listed parts of `src` must stop the build, one message each."""
    out = []
    if os.path.isdir(os.path.join(src, "local")):
        out.append("local/: a local/ folder is in the source; move its settings into default/ "
                   "or delete it (Splunk apps must not ship local/)")
    for rel in REQUIRED:
        if not os.path.exists(os.path.join(src, rel)):
            out.append("%s: missing" % rel)
    for top in ALLOW:
        base = os.path.join(src, top)
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            rel_dir = os.path.relpath(dirpath, src)
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            if "local" in dirnames:
                out.append("%s/local/: a local/ folder must not ship" % rel_dir)
            for f in filenames:
                rel = os.path.join(rel_dir, f)
                if f == "local.meta":
                    out.append("%s: local.meta must not ship (use metadata/default.meta)" % rel)
                elif f.endswith((".pyc", ".pyo")):
                    out.append("%s: compiled Python outside __pycache__ must not ship" % rel)
    return out


def _skip(name: str) -> bool:
    return name.startswith(".") or name in SKIP_DIRS or name.endswith(SKIP_SUFFIXES)


def assemble(src: str, out: str) -> int:
    """Copy the allow-listed parts of `src` into a fresh `out`; return the file count."""
    tmp = manifest.staging(out)
    os.makedirs(tmp)
    count = 0
    ships = {"bin/" + f for f in manifest.bin_files(manifest.APP, os.path.join(src, "bin"))}
    for top in ALLOW:
        path = os.path.join(src, top)
        if os.path.isfile(path):
            shutil.copyfile(path, os.path.join(tmp, top))
            count += 1
        elif os.path.isdir(path):
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not _skip(d))
                dest = os.path.join(tmp, os.path.relpath(dirpath, src))
                for f in sorted(filenames):
                    rel = os.path.relpath(os.path.join(dirpath, f), src).replace(os.sep, "/")
                    shipped = rel in ships or not rel.startswith("bin/")
                    if not _skip(f) and f != "local.meta" and shipped:
                        # a folder only where a file ships (no empty bin/lib/ from a dev tree)
                        os.makedirs(dest, exist_ok=True)
                        shutil.copyfile(os.path.join(dirpath, f), os.path.join(dest, f))
                        count += 1
    manifest.land(tmp, out)
    return count


def main(argv=None) -> int:
    args = manifest.arg_parser(__doc__).parse_args(argv)
    found = problems(args.src)
    if found:
        for p in found:
            sys.stderr.write("build: %s\n" % p)
        sys.stderr.write("build: refused (%d problem%s)\n" % (len(found), "" if len(found) == 1 else "s"))
        return 1
    n = assemble(args.src, args.out)
    print("build: %s (%d files)" % (args.out, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
