"""One process whose instructions `make bench` counts under valgrind (the `alert_action_instructions`
bench in tools/bench_alerts.py): imports, one warm-up action on a small results file, then N runs of
the figure (the action's core on the bench's results file) or of its floor (the parse only), or none.

    python tools/count_action.py figure|floor|none N RESULTS WARMUP

The difference between a process that runs the work and one that runs none is what the work costs.
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "bin"), os.path.join(ROOT, "tests"), os.path.join(ROOT, "tools")]


def main(argv) -> int:
    what, n, path, warmup = argv[0], int(argv[1]), argv[2], argv[3]
    from bench_alerts import NOW, bench_payload as payload, parse_only
    from fakes.memory_port import MemoryPort
    from ingest_doctor.alert.action import run
    from ingest_doctor.diagnose import diagnose

    # Every process pays the same start: what the first run compiles, opens or fills is paid here, and
    # the payload is read outside the work (as alert_action reads it outside its timed runs).
    run(payload(warmup), MemoryPort(), diagnose, now=NOW)
    parse_only(warmup)
    counted = payload(path)
    work = {"figure": lambda: run(counted, MemoryPort(), diagnose, now=NOW),
            "floor": lambda: parse_only(path), "none": lambda: None}[what]
    for _ in range(n):
        work()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
