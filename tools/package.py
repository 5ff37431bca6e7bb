#!/usr/bin/env python3
"""Write the installable dist/ingest_doctor-<version>.tgz from the built app folder.

Before writing, it refuses a tree that Splunk or AppInspect would reject, naming each problem:
compiled Python (.pyc, __pycache__), a local/ folder, local.meta, file names with spaces,
an app id that differs between the folder, app.conf and app.manifest, or a version that
differs between app.conf [launcher], app.conf [id] and app.manifest (or is not semver).

The archive is reproducible: sorted entries, one top folder named after the app, fixed
mtime, uid/gid 0, fixed modes (0755 for folders and bin/ scripts, 0644 otherwise), and a
gzip header with mtime 0 and no file name. Two runs on the same tree give identical bytes.

Usage: package.py BUILD_DIR OUT.tgz
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import re
import sys
import tarfile
from typing import Dict, List

from confcheck import read_conf

MTIME = 1704067200          # 2024-01-01T00:00:00Z; fixed so archives are byte-identical
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
SCRIPT_SUFFIXES = (".py", ".sh", ".path")


def identity(tree: str) -> Dict[str, str]:
    """Every place the app id and version are declared, as {where: value}."""
    out = {}
    conf = os.path.join(tree, "default", "app.conf")
    if os.path.exists(conf):
        stanzas = read_conf(conf)
        for section, key, label in (("launcher", "version", "app.conf [launcher] version"),
                                    ("id", "version", "app.conf [id] version"),
                                    ("id", "name", "app.conf [id] name"),
                                    ("package", "id", "app.conf [package] id")):
            if key in stanzas.get(section, {}):
                out[label] = stanzas[section][key].strip()
    manifest = os.path.join(tree, "app.manifest")
    if os.path.exists(manifest):
        with open(manifest, encoding="utf-8") as fh:
            ident = (json.load(fh).get("info") or {}).get("id") or {}
        out["app.manifest info.id.version"] = str(ident.get("version"))
        out["app.manifest info.id.name"] = str(ident.get("name"))
    return out


def problems(tree: str) -> List[str]:
    """Everything that must stop packaging `tree`, one message each naming the problem."""
    found = []
    if not os.path.isfile(os.path.join(tree, "default", "app.conf")):
        return ["default/app.conf: missing (is %s a built app folder?)" % tree]
    for dirpath, dirnames, filenames in os.walk(tree):
        rel_dir = os.path.relpath(dirpath, tree)
        for d in dirnames:
            rel = os.path.normpath(os.path.join(rel_dir, d))
            if d == "__pycache__":
                found.append("%s/: compiled Python cache must not ship" % rel)
            elif d == "local" and not rel.startswith("bin" + os.sep + "lib"):
                found.append("%s/: a local/ folder must not ship (settings belong in default/)" % rel)
            if " " in d:
                found.append("%s/: folder name contains a space" % rel)
        for f in filenames:
            rel = os.path.normpath(os.path.join(rel_dir, f))
            if f.endswith((".pyc", ".pyo")):
                found.append("%s: compiled Python must not ship" % rel)
            if f == "local.meta":
                found.append("%s: local.meta must not ship (use metadata/default.meta)" % rel)
            if " " in f:
                found.append("%s: file name contains a space" % rel)
    ident = identity(tree)
    app = os.path.basename(os.path.abspath(tree))
    names = {k: v for k, v in ident.items() if k.endswith(("name", "] id"))}
    for where, name in sorted(names.items()):
        if name != app:
            found.append("%s is %r but the app folder is %r" % (where, name, app))
    versions = {k: v for k, v in ident.items() if k.endswith("version")}
    for where in ("app.conf [launcher] version", "app.conf [id] version", "app.manifest info.id.version"):
        if where not in versions:
            found.append("%s: missing" % where)
    if len(set(versions.values())) > 1:
        found.append("version mismatch: " + ", ".join("%s = %s" % kv for kv in sorted(versions.items())))
    for where, v in sorted(versions.items()):
        if not SEMVER.match(v):
            found.append("%s = %r is not a semantic version (MAJOR.MINOR.PATCH)" % (where, v))
    return found


def _mode(rel: str, is_dir: bool) -> int:
    if is_dir:
        return 0o755
    parts = rel.split("/")
    # Entry scripts directly in bin/ (not the libraries under bin/lib or bin/<package>/).
    if len(parts) == 3 and parts[1] == "bin" and parts[2].endswith(SCRIPT_SUFFIXES):
        return 0o755
    return 0o644


def tar_bytes(tree: str) -> bytes:
    """The reproducible .tgz of `tree` with top folder = the folder's name."""
    app = os.path.basename(os.path.abspath(tree))
    entries = []
    for dirpath, dirnames, filenames in os.walk(tree):
        rel_dir = os.path.relpath(dirpath, tree)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        for d in dirnames:
            entries.append((app + "/" + (rel_dir + "/" if rel_dir else "") + d, os.path.join(dirpath, d), True))
        for f in filenames:
            entries.append((app + "/" + (rel_dir + "/" if rel_dir else "") + f, os.path.join(dirpath, f), False))
    entries.sort(key=lambda e: e[0])
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, path, is_dir in [(app, tree, True)] + entries:
            info = tarfile.TarInfo(name)
            info.mtime = MTIME
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mode = _mode(name, is_dir)
            if is_dir:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                with open(path, "rb") as fh:
                    data = fh.read()
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    # filename="" and mtime=0 keep the gzip header free of the path and the clock.
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help="the built package folder")
    ap.add_argument("target", help="the .tgz to write")
    args = ap.parse_args(argv)
    tree, target = args.tree, args.target
    found = problems(tree)
    if found:
        for p in found:
            sys.stderr.write("package: %s\n" % p)
        sys.stderr.write("package: refused %s (%d problem%s)\n" % (tree, len(found), "" if len(found) == 1 else "s"))
        return 1
    data = tar_bytes(tree)
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    tmp = "%s.tmp%d" % (target, os.getpid())
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, target)
    print("package: %s (%d bytes)" % (target, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
