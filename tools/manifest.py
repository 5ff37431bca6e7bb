"""What each package ships from the repository's bin/: one list, read by both builds and the tests.

The search-head app runs the CLI, the action and the relay; the add-on runs the collector. Each
ships its entry scripts, the ports they use and the pure core without the other's wing. Both
builds fill a `staging` folder and `land` it in place whole.
"""
from __future__ import annotations

import argparse
import os
import shutil
from typing import Dict, List, Tuple

APP = "ingest_doctor"
TA = "TA-ingest_doctor"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Paths under bin/; a trailing "/" takes the whole folder (less EXCLUDE).
SHIPS: Dict[str, Tuple[str, ...]] = {
    APP: ("ingest_doctor_cli.py", "ingest_doctor_flag.py", "ingest_doctor_hold.py", "ingest_doctor/",
          "ingest_doctor_ports/__init__.py", "ingest_doctor_ports/splunkd.py", "ingest_doctor_ports/watchdog.py",
          "ingest_doctor_ports/action.py", "ingest_doctor_ports/messages.py", "ingest_doctor_ports/webhook.py",
          "ingest_doctor_ports/logs.py", "ingest_doctor_ports/alert_shell.py"),
    TA: ("ingest_doctor_introspection.py", "ingest_doctor_diag.py", "ingest_doctor/",
         "ingest_doctor_ports/__init__.py", "ingest_doctor_ports/splunkd.py", "ingest_doctor_ports/watchdog.py",
         "ingest_doctor_ports/collector.py", "ingest_doctor_ports/collector_input.py",
         "ingest_doctor_ports/messages.py", "ingest_doctor_ports/notifier.py", "ingest_doctor_ports/webhook.py",
         "ingest_doctor_ports/logs.py", "ingest_doctor_ports/bounded.py"),
}
EXCLUDE: Dict[str, Tuple[str, ...]] = {
    APP: ("ingest_doctor/collector/",),
    TA: ("ingest_doctor/alert/",),
}


def arg_parser(doc: str) -> argparse.ArgumentParser:
    """A build's command line: the repository it builds from (--src) and the folder it lands in (--out)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=ROOT)
    ap.add_argument("--out", required=True)
    return ap


def staging(out: str) -> str:
    """An empty temporary folder beside `out` (same file system) that a build fills, then `land`s."""
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, ".%s.tmp%d" % (os.path.basename(out), os.getpid()))
    shutil.rmtree(tmp, ignore_errors=True)
    return tmp


def land(tmp: str, out: str) -> None:
    """Swap the build in `tmp` in as `out` whole, so a concurrent reader never sees half a build."""
    old = tmp + ".old"
    if os.path.exists(out):
        os.rename(out, old)
    os.rename(tmp, out)
    shutil.rmtree(old, ignore_errors=True)


def _skip(name: str) -> bool:
    return name.startswith(".") or name == "__pycache__" or name.endswith((".pyc", ".pyo"))


def bin_files(package: str, bin_dir: str) -> List[str]:
    """The files under `bin_dir` (relative, '/'-separated) that `package` ships, sorted; bin/lib apart."""
    out: List[str] = []
    for entry in SHIPS[package]:
        if not entry.endswith("/"):
            out.append(entry)
            continue
        base = os.path.join(bin_dir, entry)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not _skip(d))
            for f in filenames:
                if not _skip(f):
                    out.append(os.path.relpath(os.path.join(dirpath, f), bin_dir).replace(os.sep, "/"))
    return sorted(f for f in out if not f.startswith(EXCLUDE[package]))
