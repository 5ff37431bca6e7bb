"""Bench: `diagnose <deployment>` (contract section 5) on a large deployment folder.

40 heavy forwarders load-balancing over 10 indexers (idx-07 with its typing stage saturated, so every
forwarder's output is linked to it), each instance with 12 minutes of metrics.log (the indexers' with a
tcpin_connections line per forwarder every 30 s). Built with tests/fakes/deploybuilder.py into
build/bench/deployment in its own process; measured: reading the folder, every instance diagnosed, the
senders diagnosed again with their receivers' state, linking and next_bottlenecks.
"""
from __future__ import annotations

import os
import subprocess
import sys

from bench import BUILD, ROOT, register

INDEXERS, FORWARDERS = 10, 40

GEN = r'''
import sys
from fakes.deploybuilder import Member, receiver, sender, write
root = sys.argv[1]
idx = [Member("idx-%02d" % i, "idx-%02d" % i, "10.1.0.%d" % (10 + i), 100 + i) for i in range(1, INDEXERS + 1)]
hfs = [Member("fwd-%02d" % i, "hf-%02d" % i, "10.1.1.%d" % (10 + i), 200 + i) for i in range(1, FORWARDERS + 1)]
for m in idx:
    receiver(m, [(h, 300.0) for h in hfs], saturated="typing" if m.host == "idx-07" else None)
for h in hfs:
    sender(h, [(m.ip, 300.0) for m in idx], blocked=True)
write(root, hfs + idx)
'''


@register("diagnose_deployment")
def diagnose_deployment():
    sys.path.insert(0, os.path.join(ROOT, "bin"))
    from ingest_doctor.deployment import folder
    from ingest_doctor.deployment.judge import judge
    root = os.path.join(BUILD, "deployment")
    if not os.path.isdir(root):
        code = "INDEXERS, FORWARDERS = %d, %d\n" % (INDEXERS, FORWARDERS) + GEN
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests"))
        subprocess.run([sys.executable, "-c", code, root], check=True, env=env, stdout=subprocess.DEVNULL)

    def work():
        _, instances, _, _ = folder.load(root)
        dep = judge(instances)
        linked = sum(1 for v in dep.caused_by.values() if v)
        return {"instances": len(instances), "edges": len(dep.topology.edges), "linked": linked,
                "root_causes": len(dep.root_causes)}
    return work
