#!/usr/bin/env python3
"""Write the Dashboard Studio views in default/data/ui/views/ from one description.

Why a generator: five dashboards share their inputs, their base searches per data family and
their layout grid; writing them from one place keeps the SPL of a family identical wherever it
is used. One module per view in views/; what they share in studio.py (the definition and its
grid), spl.py (base searches), spl_macros.py (the macros those call, written to macros.conf)
and widgets.py (inputs, links, chart and table options). The XML files are committed;
`--check` (run by the tests) fails when they are stale.

    python3 tools/dashboards/gen_views.py          # write
    python3 tools/dashboards/gen_views.py --check  # exit 1 when a view differs
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from spl import ROOT  # noqa: E402
from spl_macros import MACROS_CONF, macros_conf  # noqa: E402
from views import cpu_by_processor, findings, hec_performance, pipeline_sets, thread_activity  # noqa: E402

VIEWS = os.path.join(ROOT, "default", "data", "ui", "views")
DASHBOARDS = (hec_performance.build, thread_activity.build, pipeline_sets.build, cpu_by_processor.build,
              findings.build)


def build() -> dict:
    out = {}
    for make in DASHBOARDS:
        d = make()
        out[os.path.join(VIEWS, d.name + ".xml")] = d.xml()
    with open(MACROS_CONF, encoding="utf-8") as fh:
        out[MACROS_CONF] = macros_conf(fh.read())
    return out


def main(argv) -> int:
    check = "--check" in argv
    stale = []
    for path, text in build().items():
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            continue
        if check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print("wrote " + os.path.relpath(path, ROOT))
    if stale:
        print("stale (run python3 tools/dashboards/gen_views.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
