"""Bench: `diagnose` of a Splunk diag whose metrics.log is about 150 MB, inside its tarball (issue 38).

The bench indexer of tools/gen_bench_snapshot.py (4 pipeline sets, every group a real indexer writes) laid out as
a diag (tests/fakes/diagbuilder.py), once with its 30 minutes of metrics.log and once with 6 x 30 minutes
(`--earlier 5`, ~158 MiB: what a diag keeps of a busy indexer's metrics.log, 25 MB x 6 files), as
`diag-<host>-<date>.tar.gz`. `diagnose` reads the tarball as a stream (never extracted) and judges the last
30 minutes: its peak memory must stay flat (the big diag's minus the small one's), whatever the archive's size.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tarfile

from bench import BUILD, ROOT, TOOLS, installed_env, measured, register

RUNS = 3


def _diag_of(snap: str, dest: str) -> str:
    """The bench snapshot as a diag tarball: its configuration from diagbuilder, its metrics.log added as a
    stream (tarfile.add reads the file in pieces) where splunk diag puts log/."""
    from fakes import diagbuilder
    rest_only = snap + "_nolog"
    shutil.rmtree(rest_only, ignore_errors=True)
    shutil.copytree(snap, rest_only, ignore=shutil.ignore_patterns("logs"))
    top = diagbuilder.diag_name("idx-bench", 1763805600)
    os.makedirs(dest, exist_ok=True)
    path = os.path.join(dest, top + ".tar.gz")
    import io
    with tarfile.open(path, "w:gz", compresslevel=1) as tf:
        logged = False
        for rel, data in diagbuilder.members(rest_only, "idx-bench", introspection=True):
            if not logged and (rel.startswith("introspection/") or rel == "diag.log"):
                tf.add(os.path.join(snap, "logs", "metrics.log"), "%s/log/metrics.log" % top)
                logged = True
            ti = tarfile.TarInfo("%s/%s" % (top, rel))
            ti.size = len(data)
            tf.addfile(ti, io.BytesIO(data))
    return path


@register("diag")
def diag():
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    small, big = os.path.join(BUILD, "diag_snapshot"), os.path.join(BUILD, "diag_snapshot_150mb")
    gen = os.path.join(TOOLS, "gen_bench_snapshot.py")
    subprocess.run([sys.executable, gen, small], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, gen, big, "--earlier", "5"], check=True, stdout=subprocess.DEVNULL)
    d_small = _diag_of(small, os.path.join(BUILD, "diag_small"))
    d_big = _diag_of(big, os.path.join(BUILD, "diag_big"))
    mb = os.path.getsize(os.path.join(big, "logs", "metrics.log")) / 1048576.0
    env = installed_env()
    cli = [sys.executable, os.path.join(ROOT, "bin", "ingest_doctor_cli.py"), "diagnose"]

    def runs(path):
        out = [measured(cli + [path], env=env) for _ in range(RUNS)]
        bad = [r for r in out if r.returncode != 0]
        if bad:
            raise RuntimeError("diagnose %s exited %d: %s" % (path, bad[0].returncode, bad[0].stderr[-2000:]))
        return out
    runs(d_small)       # bytecode written once

    def work():
        r_small, r_big = runs(d_small), runs(d_big)
        base = statistics.median(r.rss_mb for r in r_small)
        return {"diag_150mb_s": [round(r.wall_s, 3) for r in r_big],
                "diag_rss_growth_mb": [round(r.rss_mb - base, 1) for r in r_big],
                "diag_rss_mb_30m_150mb": [round(base, 1), round(statistics.median(r.rss_mb for r in r_big), 1)],
                "metrics_log_mb": round(mb, 1), "tarball_mb": round(os.path.getsize(d_big) / 1048576.0, 1)}
    return work
