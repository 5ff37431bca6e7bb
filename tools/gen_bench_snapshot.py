#!/usr/bin/env python3
"""Write the large bench snapshot: a busy indexer with 4 pipeline sets and 30 minutes of
metrics.log (~50,000 lines, every group a real indexer writes), plus its REST bodies.

    python3 tools/gen_bench_snapshot.py build/bench/snapshot
    python3 tools/gen_bench_snapshot.py build/bench/snapshot_long --earlier 18

`--earlier N` writes N more copies of the 30 minutes before them, each 30 minutes earlier (the
same lines, their times moved): a metrics.log of many hours, of which `diagnose` judges the last
`log_window_min` (30) minutes, as it would an indexer's real log.

Generated at bench time into build/ (never committed). Hand-made data in the real shapes
(tests/fakes/snapbuilder.py).
"""
from __future__ import annotations

import calendar
import os
import shutil
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from fakes.snapbuilder import (T0, Snap, ts, dutycycle_long, dutycycle_wide, pipeline_lines,  # noqa: E402
                               pipelineset_line, queue_line, thruput_lines, times)

PSETS = 4
MINUTES = 30
FORWARDERS = 510
SOURCETYPES = ["st%02d:events" % i for i in range(10)]


def build(out: str) -> int:
    s = Snap("idx-bench", captured_at=T0)
    s.server_info(48, ["indexer", "cluster_peer"]).resources(48, 62.0, 1700.0, threads=420).indexer(kbps=61000.0)
    busy = {"parsingQueue": (99, 98, 97, 96), "aggQueue": (98, 97, 96, 95), "typingQueue": (99, 99, 98, 98),
            "indexQueue": (100, 99, 99, 98), "splunktcpin": (97, 96, 95, 95)}
    calm = {"parsingQueue": (40, 38, 35, 33), "aggQueue": (20, 21, 20, 20), "typingQueue": (30, 31, 30, 29),
            "indexQueue": (45, 44, 43, 42), "splunktcpin": (35, 33, 31, 30)}
    s.queues({p: (busy if p == 1 else calm) for p in range(PSETS)})
    s.server_general(str(PSETS), "round_robin").server_queue("10MB").http("4", tokens=["t%03d" % i for i in range(100)])
    s.pipelinesets({p: ("indexerPipe", 0.99 if p == 1 else 0.62) for p in range(PSETS)})
    s.props({st: {"SHOULD_LINEMERGE": "false", "TIME_FORMAT": "%Y-%m-%dT%H:%M:%S", "TRANSFORMS-r": "route"}
             for st in SOURCETYPES})
    for i, t in enumerate(times(MINUTES)):
        for p in range(PSETS):
            hot = p == 1
            for q, f in (("splunktcpin", 96.0 if hot else 35.0), ("parsingqueue", 97.0 if hot else 40.0),
                         ("aggqueue", 96.0 if hot else 21.0), ("typingqueue", 98.0 if hot else 30.0),
                         ("indexqueue", 99.0 if hot else 44.0)):
                queue_line(s, t, p, q, f, blocked=hot and q == "indexqueue" and i % 3 == 0)
            pipeline_lines(s, t, p, {"indexerpipe": {"indexer": 27.0 if hot else 17.0},
                                     "typing": {"regexreplacement": 9.0}, "parsing": {"linebreaker": 4.0},
                                     "merging": {"aggregator": 3.0}})
            dutycycle_long(s, t, p, {"parsing": 0.4, "merging": 0.3, "typing": 0.55,
                                     "indexerpipe": 0.99 if hot else 0.62})
            pipelineset_line(s, t, p, "indexerPipe", 0.99 if hot else 0.62, 0.25)
            thruput_lines(s, t, p, {st: 900.0 - 50 * k for k, st in enumerate(SOURCETYPES)})
            for kind in ("index", "host", "source"):
                for k in range(10):
                    s.metric(t, 'group=per_%s_thruput, ingest_pipe=%d, series="%s%02d", kbps=%.3f, eps=%.3f, '
                                'kb=%.3f, ev=%d, avg_age=1.1, max_age=4' % (kind, p, kind, k, 500.0 - k, 2000.0,
                                                                           15000.0, 60000))
            for k, st in enumerate(SOURCETYPES):
                s.metric(t, 'group=per_sourcetype_regex_cpu, ingest_pipe=%d, series="%s", cpu=%.3f, cpupe=0.01, '
                            'bytes=4000000, ev=40000' % (p, st, 400.0 - 20 * k))
        dutycycle_wide(s, t, {"httpinputserverdatathread": 0.31, "tail": 0.02, "mgmt_httpd": 0.01,
                              "reaper": 0.0, "saved_search_fetcher": 0.0, "udpin": 0.0})
        s.metric(t, "group=mpool, max_used_interval=11259, max_used=95646, avg_rsv=251, capacity=268435456, used=0")
        s.metric(t, "group=map, name=pipelineinputchannel, current_size=23, inactive_channels=4, new_channels=0, "
                    "removed_channels=0, reclaimed_channels=0, timedout_channels=0, abandoned_channels=0")
        for k in range(FORWARDERS):
            s.metric(t, "group=tcpin_connections, 10.1.%d.%d:5%04d:9997, connectionType=cooked, sourcePort=5%04d, "
                        "sourceHost=10.1.%d.%d, sourceIp=10.1.%d.%d, destPort=9997, kb=1500.0, _tcp_Bps=51200.0, "
                        "_tcp_KBps=50.0, _tcp_avg_thruput=49.8, _tcp_Kprocessed=901000, _tcp_eps=210.0, "
                        "_process_time_ms=0, evt_misc_kBps=0.0, evt_raw_kBps=0.0, evt_fields_kBps=0.0, "
                        "evt_fn_kBps=0.0, evt_fv_kBps=0.0, evt_fn_str_kBps=0.0, evt_fn_meta_dyn_kBps=0.0, "
                        "evt_fn_meta_predef_kBps=0.0, evt_fn_meta_str_kBps=0.0, evt_fv_num_kBps=0.0, "
                        "evt_fv_str_kBps=0.0, evt_fv_predef_kBps=0.0, evt_fv_offlen_kBps=0.0, evt_fv_fp_kBps=0.0, "
                        "build=d8ae995bf219, version=9.3.2, os=Linux, arch=x86_64, hostname=uf%03d, "
                        "guid=00000000-0000-0000-0000-%012d, fwdType=uf, ssl=false, lastIndexer=None, ack=false"
                     % (k // 200, k % 200, k, k, k // 200, k % 200, k // 200, k % 200, k, k))
        s.metric(t, "group=searchscheduler, dispatched=3, skipped=0, total_lag=1, max_ready=0, max_pending=0, "
                    "max_lag=1, max_running=1, actions_triggered=0, completed=3, total_runtime=0.9, max_runtime=0.4")
    if os.path.isdir(out):
        shutil.rmtree(out)
    s.write(out)
    return len(s.metrics)


def earlier(out: str, copies: int) -> int:
    """Put `copies` copies of the log's 30 minutes before it, each 30 minutes earlier; streamed, so the
    generator's memory does not grow with them. The lines of the log's own 30 minutes stay last."""
    path = os.path.join(out, "logs", "metrics.log")
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    moved = {}          # a line's first 29 characters (its time) -> the same, `shift` seconds earlier

    def at(head: str, shift: float) -> str:
        key = (head, shift)
        if key not in moved:
            t = calendar.timegm(time.strptime(head[:19], "%m-%d-%Y %H:%M:%S")) + int(head[20:23]) / 1000.0
            moved[key] = ts(t - shift)
        return moved[key]
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        for k in range(copies, 0, -1):
            shift = k * MINUTES * 60.0
            f.writelines(at(line[:29], shift) + line[29:] for line in lines)
        f.writelines(lines)
    os.replace(path + ".tmp", path)
    return len(lines) * (copies + 1)


if __name__ == "__main__":
    args = sys.argv[1:]
    copies = 0
    if "--earlier" in args:
        i = args.index("--earlier")
        copies = int(args[i + 1])
        del args[i:i + 2]
    target = args[0] if args else os.path.join(ROOT, "build", "bench", "snapshot")
    n = build(target)
    if copies:
        n = earlier(target, copies)
    print("wrote %s (%d metrics.log lines)" % (target, n))
