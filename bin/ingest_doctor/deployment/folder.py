"""A deployment folder (contract section 5): `deployment.json` (optional) and one snapshot folder per instance."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ingest_doctor.deployment.topology import CLOCK_SLACK_S, Instance, uri_host
from ingest_doctor.evidence import Evidence
from ingest_doctor.read.snapshot import (SnapshotError, clock_ahead, load_snapshot, read_json, read_meta,
                                         recorded_thresholds, short_error)
from ingest_doctor.textsafe import printable


META = "deployment.json"
# An indexer cluster manager's peer list (its REST path before and after 9.0's renaming), as a snapshot of the
# manager keeps it: entries named by the peer's guid, `content.label` its server name, `content.host_port_pair`
# its management address, `content.site` its site.
CLUSTER_PEERS = ("rest/services/cluster/manager/peers.json", "rest/services/cluster/master/peers.json")
SNAPSHOT_PARTS = ("snapshot.json", "rest", "logs", "hec")


def is_snapshot(path: str) -> bool:
    return os.path.isdir(path) and any(os.path.exists(os.path.join(path, p)) for p in SNAPSHOT_PARTS)


def members(path: str) -> List[str]:
    """The instance folders of a deployment folder, by name ([] when it cannot be listed: `diagnose` then
    reads it as one snapshot, whose guard names why)."""
    try:
        names = os.listdir(path)
    except OSError:
        return []
    return sorted(n for n in names if not n.startswith(".") and is_snapshot(os.path.join(path, n)))


def is_deployment(path: str) -> bool:
    """A folder whose subfolders are snapshots (and that is not a snapshot itself)."""
    return os.path.isdir(path) and not is_snapshot(path) and bool(members(path))


def load(path: str, overrides: Optional[Mapping[str, object]] = None
         ) -> Tuple[Optional[str], List[Instance], List[str], List[str]]:
    """(name, instances, problems, unjudged: the instances deployment.json lists that are not here).
    Every file goes through the single-snapshot guards (read/snapshot.py) and every name through
    textsafe.printable. Raises SnapshotError when `path` is not a deployment folder and
    thresholds.ThresholdError when an override is invalid."""
    if not is_deployment(path):
        raise SnapshotError("not a deployment folder (no snapshot subfolders): %s" % path)
    name, problems, unjudged = None, [], []
    meta = _meta(path, problems)
    if isinstance(meta.get("name"), str) and meta["name"]:
        name = printable(meta["name"])
    found = members(path)
    unjudged.extend(_listed_missing(path, meta.get("instances"), found))
    instances = []
    hosts = set()
    for sub in found:
        root = os.path.join(path, sub)
        shown = printable(sub)          # the folder's name as the report and stderr show it
        th, probs = recorded_thresholds(root, overrides)
        clock = clock_ahead(root)
        ahead = clock[0] if clock is not None and clock[0] > CLOCK_SLACK_S else 0.0
        ev = load_snapshot(root, th, ahead)
        ev.problems.extend(probs)
        problems.extend("%s/%s" % (shown, p) for p in ev.problems)
        source = read_meta(root, Evidence()).get("source")     # load_snapshot named it when unreadable
        if not isinstance(source, str) and isinstance(meta.get("instances"), dict):
            source = meta["instances"].get(sub)     # deployment.json ties the folder to its address
        inst = Instance(shown, ev, th, uri_host(source) if isinstance(source, str) else None,
                        None if clock is None else clock[0], cluster_peers(root, problems, shown))
        if inst.host in hosts:
            problems.append("%s: host %s appears twice in the folder; judged under its folder name"
                            % (shown, inst.host))
            ev.host = shown
        hosts.add(inst.host)
        instances.append(inst)
    return name, instances, problems, unjudged


def cluster_peers(root: str, problems: List[str], shown: str) -> List[Tuple[str, str, str, str]]:
    """(guid, label, host:port, site) of each peer an instance's cluster peer list names; [] when it has none.
    Read through the single-snapshot guards; an unreadable list is named in `problems`."""
    for rel in CLUSTER_PEERS:
        fname = os.path.join(root, *rel.split("/"))
        if not os.path.lexists(fname):
            continue
        try:
            body = read_json(fname)
        except (OSError, ValueError) as e:
            problems.append("%s/%s: unreadable (%s)" % (shown, rel, short_error(e)))
            return []
        out = []
        for entry in body.get("entry", []) if isinstance(body, dict) else []:
            content = entry.get("content") if isinstance(entry, dict) else None
            if not isinstance(content, dict) or not isinstance(entry.get("name"), str):
                continue
            out.append((printable(entry["name"]), _text(content.get("label")), _text(content.get("host_port_pair")),
                        _text(content.get("site"))))
        return out
    return []


def _text(value: Any) -> str:
    return printable(value) if isinstance(value, str) else ""


def _meta(path: str, problems: List[str]) -> Dict[str, Any]:
    """deployment.json through the single-snapshot guards (a regular file, at most MAX_META_BYTES, bounded
    nesting): {} when absent; named in `problems` when unreadable."""
    fname = os.path.join(path, META)
    if not os.path.lexists(fname):
        return {}
    try:
        meta = read_json(fname)
        if not isinstance(meta, dict):
            raise ValueError("not an object")
    except (OSError, ValueError) as e:
        problems.append("%s: unreadable (%s)" % (META, short_error(e)))
        return {}
    return meta


def _listed_missing(path: str, listed: Any, found: List[str]) -> List[str]:
    """The instances deployment.json lists (`instances`: folder -> URI, as `snapshot` writes it) that are not
    an instance folder here: each named, with why."""
    if not isinstance(listed, dict):
        return []
    out = []
    for sub in sorted(k for k in listed if isinstance(k, str)):
        if sub in found:
            continue
        where = os.path.join(path, sub)
        uri = listed[sub] if isinstance(listed[sub], str) else ""
        if not sub or sub in (".", "..") or os.sep in sub or (os.altsep and os.altsep in sub):
            why = "not a folder name"
        elif not os.path.lexists(where):
            why = "absent from the folder"
        elif not os.path.isdir(where):
            why = "not a folder"
        else:
            why = "a folder without a snapshot in it (no snapshot.json, rest/, logs/ or hec/)"
        out.append("%s%s: listed in %s but %s: not judged" % (printable(sub), " (%s)" % printable(uri) if uri else "",
                                                             META, why))
    return out
