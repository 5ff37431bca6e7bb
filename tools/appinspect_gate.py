#!/usr/bin/env python3
"""Run Splunk AppInspect on each package, precert and cloud, and gate on the JSON reports.

Runs, per package (from the tools venv; never touches the network: --skip-trusted-libraries-update):
  splunk-appinspect inspect TGZ --mode precert --skip-trusted-libraries-update --data-format json
      --output-file build/appinspect/<app>/precert.json --max-messages all
  ... the same with --included-tags cloud       -> build/appinspect/<app>/cloud.json

For each report it prints the count per result and every error, failure, future_failure and
warning with its check name and message. It fails on any error, failure or future_failure,
and on any warning whose check name is not explained for that package in docs/appinspect.md
(as `check_name` in a table row under a heading naming the package in backticks, or under a
heading naming none; when the row names paths, only warnings in those files are explained).

A report is reused when the package has not changed: beside each report, `<mode>.key` holds the
sha256 of the .tgz, the AppInspect version and the mode's arguments; the packages are reproducible
(same sources, same bytes), so an unchanged tree costs no AppInspect run (`make package` twice
inspects once). The report is still judged every time (docs/appinspect.md may have changed).
`--fresh` always runs.

Usage: appinspect_gate.py [--docs docs/appinspect.md] [--out build/appinspect] [--fresh] TGZ [TGZ ...]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = (("precert", []), ("cloud", ["--included-tags", "cloud"]))
RESULTS = ("error", "failure", "future_failure", "warning", "skipped", "not_applicable", "success")
BLOCKING = ("error", "failure", "future_failure")


def appinspect_bin() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "splunk-appinspect")
    return here if os.path.exists(here) else "splunk-appinspect"


def run(tgz: str, out_json: str, extra: List[str]) -> None:
    if os.path.exists(out_json):
        os.remove(out_json)
    cmd = [appinspect_bin(), "inspect", tgz, "--mode", "precert", "--skip-trusted-libraries-update",
           "--data-format", "json", "--output-file", out_json, "--max-messages", "all"] + extra
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if proc.returncode != 0 or not os.path.exists(out_json):
        sys.stdout.write(proc.stdout[-4000:])
        raise SystemExit("appinspect: `%s` exited %d without a report" % (" ".join(cmd), proc.returncode))


def appinspect_version() -> str:
    try:
        from importlib import metadata
        return metadata.version("splunk-appinspect")
    except Exception:       # not installed here: the key still changes with the package
        return "unknown"


def cache_key(tgz: str, extra: List[str]) -> str:
    h = hashlib.sha256()
    with open(tgz, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "%s appinspect=%s args=%s\n" % (h.hexdigest(), appinspect_version(), " ".join(extra) or "-")


def inspect(tgz: str, out_json: str, extra: List[str], fresh: bool = False) -> bool:
    """Runs AppInspect unless the report of this exact package is there; True when it ran."""
    key_file = out_json[:-len(".json")] + ".key"
    key = cache_key(tgz, extra)
    if not fresh and os.path.exists(out_json) and os.path.exists(key_file):
        with open(key_file, encoding="utf-8") as fh:
            if fh.read() == key:
                return False
    if os.path.exists(key_file):
        os.remove(key_file)
    run(tgz, out_json, extra)
    with open(key_file, "w", encoding="utf-8") as fh:
        fh.write(key)
    return True


def checks(report: dict) -> List[dict]:
    return [c for r in report.get("reports", []) for g in r.get("groups", []) for c in g.get("checks", [])]


def summary(report: dict) -> Dict[str, int]:
    s = report.get("summary") or {}
    if not s:
        for c in checks(report):
            s[c["result"]] = s.get(c["result"], 0) + 1
    return {k: int(s.get(k, 0)) for k in RESULTS}


PACKAGES = ("TA-ingest_doctor", "ingest_doctor")


def package_of(tgz: str) -> str:
    """The app id of dist/<app>-<version>.tgz."""
    base = os.path.basename(tgz)
    for app in PACKAGES:
        if base.startswith(app + "-"):
            return app
    return base.split("-")[0]


def explained(docs: str, app: str = "") -> Dict[str, List[str]]:
    """{check name: the paths its table row names} from docs/appinspect.md, for package `app`.

    A row that names paths (`bin/lib/...`, `default/...`) explains the warning only for those
    files, so a new occurrence elsewhere (say, in our own code) fails the gate until it is
    looked at; a row naming no path explains the check wherever it fires. Rows under a `##`
    heading that names a package in backticks explain warnings of that package only; with
    `app` empty, every row counts.
    """
    out: Dict[str, List[str]] = {}
    if not os.path.exists(docs):
        return out
    scope = None
    with open(docs, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("## "):
                named = [p for p in PACKAGES if "`%s`" % p in line]
                scope = named[0] if named else None
                continue
            if not line.startswith("|") or (app and scope not in (None, app)):
                continue
            names = re.findall(r"`(check_[a-z0-9_]+)`", line)
            paths = [p for p in re.findall(r"`([^`\s]+/[^`\s]*)`", line)]
            for name in names:
                out.setdefault(name, []).extend(paths)
    return out


def _unexplained_files(check: dict, paths: List[str]) -> List[str]:
    if not paths:
        return []
    files = sorted({str(m.get("message_filename")) for m in check.get("messages", [])
                    if m.get("result") == "warning" and m.get("message_filename") not in (None, "None", "")})
    return [f for f in files if not any(f == p or f.startswith(p.rstrip("/") + "/") for p in paths)]


def judge(report: dict, docs_checks: Dict[str, List[str]], label: str) -> Tuple[Dict[str, int], List[str]]:
    """(counts, problems) for one report; problems empty when the gate passes."""
    counts = summary(report)
    problems = []
    for c in checks(report):
        result = c.get("result")
        if result == "skipped":  # shown, not blocking: AppInspect could not apply the check
            for m in c.get("messages", []) or [{"message": "(no message)"}]:
                print("  %s: SKIPPED %s: %s" % (label, c["name"], m.get("message", "").strip()))
            continue
        if result not in BLOCKING and result != "warning":
            continue
        msgs = [m for m in c.get("messages", []) if m.get("result") == result] or c.get("messages", [])
        for m in msgs or [{"message": "(no message)"}]:
            print("  %s: %s %s: %s" % (label, result.upper(), c["name"], m.get("message", "").strip()))
        if result in BLOCKING:
            problems.append("%s: %s %s" % (label, result, c["name"]))
        elif c["name"] not in docs_checks:
            problems.append("%s: warning %s is not explained in docs/appinspect.md" % (label, c["name"]))
        else:
            for f in _unexplained_files(c, docs_checks[c["name"]]):
                problems.append("%s: warning %s in %s: docs/appinspect.md explains it only for %s"
                                % (label, c["name"], f, ", ".join(docs_checks[c["name"]])))
    return counts, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tgz", nargs="+")
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "appinspect.md"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "appinspect"))
    ap.add_argument("--fresh", action="store_true", help="run AppInspect even for an unchanged package")
    args = ap.parse_args(argv)
    all_problems = []
    for tgz in args.tgz:
        if not os.path.isfile(tgz):
            sys.stderr.write("appinspect: %s does not exist (run `make package`)\n" % tgz)
            return 1
        app = package_of(tgz)
        out_dir = os.path.join(args.out, app)
        os.makedirs(out_dir, exist_ok=True)
        docs_checks = explained(args.docs, app)
        for mode, extra in MODES:
            out_json = os.path.join(out_dir, mode + ".json")
            ran = inspect(tgz, out_json, extra, args.fresh)
            with open(out_json, encoding="utf-8") as fh:
                report = json.load(fh)
            label = "%s %s" % (app, mode)
            print("appinspect %s (%s%s):" % (label, os.path.relpath(out_json, ROOT),
                                             "" if ran else ", package unchanged: report reused"))
            counts, problems = judge(report, docs_checks, label)
            print("  " + ", ".join("%s=%d" % kv for kv in counts.items()))
            all_problems += problems
    if all_problems:
        for p in all_problems:
            sys.stderr.write("appinspect: %s\n" % p)
        sys.stderr.write("appinspect: gate FAILED (%d problem%s)\n"
                         % (len(all_problems), "" if len(all_problems) == 1 else "s"))
        return 1
    print("appinspect: gate passed (0 failure, 0 future_failure; every warning explained in docs/appinspect.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
