#!/usr/bin/env python3
"""Assemble the add-on folder build/TA-ingest_doctor/ with ucc-gen (Splunk's add-on framework).

ta/globalConfig.json is the one source of the collector's parameters: ucc-gen validates it and
generates from it the Inputs and Configuration pages, the REST handlers (splunktaucclib),
restmap.conf, default/inputs.conf (the parameter defaults) and README/inputs.conf.spec.

Steps, in a fresh staging folder (ucc-gen rewrites the globalConfig it is given, so it never
sees the committed one):
  1. ta/package/ + LICENSE + the app's icons (static/appIcon*.png) + what tools/manifest.py lists for the add-on from bin/ (the
     collector's entry script, its ports, the core without the action; copied, never committed twice);
  2. ucc-gen build, with its build number fixed to a hash of the inputs (ucc-gen takes the
     clock; the same sources must give the same bytes);
  3. the shipped collector instance (ta/instance_inputs.conf) appended to the generated
     inputs.conf; ucc-gen's `python.version = python3` (scheme stanza, REST handlers) set to the
     floor's interpreter (tools/floor.py: python3.9, which Splunk 9.3 selects even where an
     admin's server.conf says `python3`, i.e. 3.7); bin/lib = the libraries of requirements-lib.txt (bin/lib from `make deps`) plus the
     handlers' own (build/ta-lib from requirements-ta.txt).
Then swapped in whole, like tools/build.py.

Usage: build_ta.py --ucc-python .venv/ucc/bin/python --lib bin/lib --ta-lib build/ta-lib
                   --out build/TA-ingest_doctor
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floor  # noqa: E402
import manifest  # noqa: E402
from confcheck import read_conf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TA_NAME = "TA-ingest_doctor"
SKIP = ("__pycache__",)
ICONS = ("appIcon.png", "appIcon_2x.png", "appIconAlt.png", "appIconAlt_2x.png")

# ucc-gen stamps app.conf [install] build and its page's cache-busting URLs with time.time();
# this runs it with that clock pinned (sys.argv[1] is the build number).
_UCC_MAIN = """
import sys, types
import splunk_add_on_ucc_framework.global_config as g
build = int(sys.argv.pop(1))
g.time = types.SimpleNamespace(time=lambda: build)
from splunk_add_on_ucc_framework.main import main
sys.exit(main())
"""


def version(src: str) -> str:
    return read_conf(os.path.join(src, "default", "app.conf"))["launcher"]["version"].strip()


def _copytree(src: str, dest: str) -> None:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".*"),
                    dirs_exist_ok=True)


def _inputs_digest(paths: List[str]) -> str:
    h = hashlib.sha256()
    for base in paths:
        walk = [(os.path.dirname(base), [], [os.path.basename(base)])] if os.path.isfile(base) else os.walk(base)
        for dirpath, dirnames, filenames in walk:
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP)
            for f in sorted(filenames):
                if f.endswith((".pyc", ".pyo")):
                    continue
                p = os.path.join(dirpath, f)
                h.update(os.path.relpath(p, ROOT).encode() + b"\0")
                with open(p, "rb") as fh:
                    h.update(fh.read())
    return h.hexdigest()


def stage(src: str, staging: str) -> str:
    """The ucc-gen source folder (package/ + globalConfig.json) in `staging`; returns package/."""
    shutil.rmtree(staging, ignore_errors=True)
    package = os.path.join(staging, "package")
    _copytree(os.path.join(src, "ta", "package"), package)
    shutil.copyfile(os.path.join(src, "ta", "globalConfig.json"), os.path.join(staging, "globalConfig.json"))
    shutil.copyfile(os.path.join(src, "LICENSE"), os.path.join(package, "LICENSE"))
    # The add-on shows the app's icons (Apps menu, Manage Apps): the same files, drawn once by
    # tools/draw_icons.py into static/; the app's logo is not needed (the add-on has no app bar).
    os.makedirs(os.path.join(package, "static"), exist_ok=True)
    for icon in ICONS:
        shutil.copyfile(os.path.join(src, "static", icon), os.path.join(package, "static", icon))
    for rel in manifest.bin_files(manifest.TA, os.path.join(src, "bin")):
        dest = os.path.join(package, "bin", rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(src, "bin", rel), dest)
    return package


def run_ucc(ucc_python: str, staging: str, ver: str, build_number: int) -> str:
    out = os.path.join(staging, "out")
    cmd = [ucc_python, "-B", "-c", _UCC_MAIN, str(build_number), "build",
           "--source", os.path.join(staging, "package"), "--config", os.path.join(staging, "globalConfig.json"),
           "--ta-version", ver, "-o", out]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout[-6000:])
        raise SystemExit("build_ta: ucc-gen failed (exit %d)" % proc.returncode)
    return os.path.join(out, TA_NAME)


def pin_python(path: str) -> None:
    """ucc-gen writes `python.version = python3`; every entry point names the floor's Python."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(re.sub(r"(?m)^python\.version = python3$", "python.version = " + floor.PYTHON_VERSION, text))


def finish(built: str, src: str, libs: List[str]) -> None:
    for conf in ("inputs.conf", "restmap.conf"):
        pin_python(os.path.join(built, "default", conf))
    with open(os.path.join(src, "ta", "instance_inputs.conf"), encoding="utf-8") as fh:
        instance = fh.read()
    with open(os.path.join(built, "default", "inputs.conf"), "a", encoding="utf-8") as fh:
        fh.write(instance)
    # ucc-gen writes app.conf from globalConfig.json, which has no [diag]: the diag extension's stanza is added
    with open(os.path.join(src, "ta", "diag_app.conf"), encoding="utf-8") as fh:
        diag_stanza = fh.read()
    with open(os.path.join(built, "default", "app.conf"), "a", encoding="utf-8") as fh:
        fh.write(diag_stanza)
    # ucc-gen's lib/ (empty: no package/lib/requirements.txt) and its VERSION file (the version
    # is in app.conf and app.manifest) are not shipped.
    shutil.rmtree(os.path.join(built, "lib"), ignore_errors=True)
    version_file = os.path.join(built, "VERSION")
    if os.path.exists(version_file):
        os.remove(version_file)
    dest = os.path.join(built, "bin", "lib")
    for lib in libs:
        _copytree(lib, dest)
    stamp = os.path.join(dest, ".stamp")
    if os.path.exists(stamp):
        os.remove(stamp)


def swap(built: str, out: str) -> None:
    tmp = manifest.staging(out)
    shutil.move(built, tmp)
    manifest.land(tmp, out)


def main(argv=None) -> int:
    ap = manifest.arg_parser(__doc__)
    ap.add_argument("--ucc-python", required=True)
    ap.add_argument("--lib", required=True, help="the pruned libraries of requirements-lib.txt (bin/lib)")
    ap.add_argument("--ta-lib", required=True, help="the REST handlers' extra libraries (build/ta-lib)")
    args = ap.parse_args(argv)
    for lib in (args.lib, args.ta_lib):
        if not os.path.isfile(os.path.join(lib, ".stamp")):
            sys.stderr.write("build_ta: %s is missing or incomplete (run `make deps`)\n" % lib)
            return 1
    ver = version(args.src)
    digest = _inputs_digest([os.path.join(args.src, "ta")] + [os.path.join(args.src, "static", i) for i in ICONS]
                            + [os.path.join(args.src, "bin", f) for f in manifest.bin_files(manifest.TA, os.path.join(args.src, "bin"))])
    build_number = int(digest[:8], 16)
    staging = os.path.join(os.path.dirname(os.path.abspath(args.out)), ".ta-stage%d" % os.getpid())
    try:
        stage(args.src, staging)
        built = run_ucc(args.ucc_python, staging, ver, build_number)
        finish(built, args.src, [args.lib, args.ta_lib])
        swap(built, args.out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    count = sum(len(f) for _, _, f in os.walk(args.out))
    print("build_ta: %s (%d files, ucc-gen build %d)" % (args.out, count, build_number))
    return 0


if __name__ == "__main__":
    sys.exit(main())
