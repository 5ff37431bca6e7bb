"""A deployment folder (contract section 5): `deployment.json` (optional) and one snapshot folder per instance."""
from __future__ import annotations

import json
import os
from typing import List, Mapping, Optional, Tuple

from ingest_doctor.deployment.topology import Instance, uri_host
from ingest_doctor.read.snapshot import SnapshotError, load_snapshot, recorded_thresholds

META = "deployment.json"
SNAPSHOT_PARTS = ("snapshot.json", "rest", "logs", "hec")


def is_snapshot(path: str) -> bool:
    return os.path.isdir(path) and any(os.path.exists(os.path.join(path, p)) for p in SNAPSHOT_PARTS)


def members(path: str) -> List[str]:
    """The instance folders of a deployment folder, by name."""
    if not os.path.isdir(path):
        return []
    return sorted(n for n in os.listdir(path) if not n.startswith(".") and is_snapshot(os.path.join(path, n)))


def is_deployment(path: str) -> bool:
    """A folder whose subfolders are snapshots (and that is not a snapshot itself)."""
    return os.path.isdir(path) and not is_snapshot(path) and bool(members(path))


def load(path: str, overrides: Optional[Mapping[str, object]] = None
         ) -> Tuple[Optional[str], List[Instance], List[str]]:
    """(name, instances, problems). Raises SnapshotError when `path` is not a deployment folder and
    thresholds.ThresholdError when an override is invalid."""
    if not is_deployment(path):
        raise SnapshotError("not a deployment folder (no snapshot subfolders): %s" % path)
    name, problems = None, []
    meta_file = os.path.join(path, META)
    if os.path.exists(meta_file):
        try:
            with open(meta_file, encoding="utf-8") as f:
                meta = json.load(f)
            name = meta.get("name") if isinstance(meta, dict) and isinstance(meta.get("name"), str) else None
        except (OSError, ValueError) as e:
            problems.append("%s: unreadable (%s)" % (META, e))
    instances = []
    hosts = set()
    for sub in members(path):
        root = os.path.join(path, sub)
        th, probs = recorded_thresholds(root, overrides)
        ev = load_snapshot(root, th)
        ev.problems.extend(probs)
        problems.extend("%s/%s" % (sub, p) for p in ev.problems)
        address = None
        try:
            with open(os.path.join(root, "snapshot.json"), encoding="utf-8") as f:
                meta = json.load(f)
            address = uri_host(meta.get("source")) if isinstance(meta, dict) else None
        except (OSError, ValueError):
            pass
        inst = Instance(sub, ev, th, address)
        if inst.host in hosts:
            problems.append("%s: host %s appears twice in the folder; judged under its folder name" % (sub, inst.host))
            ev.host = sub
        hosts.add(inst.host)
        instances.append(inst)
    return name, instances, problems
