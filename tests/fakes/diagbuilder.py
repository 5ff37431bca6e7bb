"""Turn a snapshot folder (a scenario, a deployment case's member) into a diag as `splunk diag` lays it out.

docs/diag.md holds the layout: `diag-<host>-<YYYY-MM-DD_HH-MM-SS>.tar.gz`, every member under one top folder
of that name, members in splunk diag's order (systeminfo.txt, etc/, log/, introspection/, ..., diag.log
last). The snapshot's metrics.log and splunkd.log become log/ (split into rotated files when asked: the
newest lines in metrics.log, older ones in metrics.log.1), its REST configuration bodies become .conf
files in etc/ (part in system/default, part in an app's local, so precedence matters), tokens carry
`DIAG_REDACTED_ENCRYPTED_PASSWORD` as splunk diag writes them, server/info's guid goes to
etc/instance.cfg, its cores to systeminfo.txt's /proc/cpuinfo, resource-usage bodies become
introspection/resource_usage.log lines. What a diag cannot carry (queue lookbacks, HEC probes,
pipelinesets REST, indexer status) is left out, as splunk diag leaves it out.
"""
from __future__ import annotations

import io
import json
import os
import tarfile
import time
from typing import Dict, List, Optional, Tuple
from urllib.parse import urlsplit

REDACTED = "DIAG_REDACTED_ENCRYPTED_PASSWORD"


def _rest(snap: str, path: str) -> List[Tuple[str, Dict]]:
    fname = os.path.join(snap, "rest", *path.split("/")) + ".json"
    if not os.path.exists(fname):
        return []
    with open(fname) as f:
        body = json.load(f)
    return [(e["name"], e.get("content") or {}) for e in body.get("entry", [])]


def _conf(stanzas: List[Tuple[str, Dict]]) -> str:
    out = []
    for name, c in stanzas:
        out.append("[%s]" % name)
        for k, v in c.items():
            if k.startswith("eai:") or v is None or isinstance(v, (dict, list)):
                continue
            if isinstance(v, bool):
                v = "1" if v else "0"
            out.append("%s = %s" % (k, v))
        out.append("")
    return "\n".join(out) + "\n"


def _log_lines(snap: str, name: str) -> List[str]:
    fname = os.path.join(snap, "logs", name)
    if not os.path.exists(fname):
        return []
    with open(fname, encoding="utf-8") as f:
        return f.readlines()


def _resource_usage(snap: str, end: float, minutes: int = 30) -> List[str]:
    """Every 10 s, as splunkd writes it, for `minutes` before `end`: the snapshot's one reading, held."""
    return [line for i in range(minutes * 6, -1, -1) for line in _resource_usage_at(snap, end - i * 10.0)]


def _resource_usage_at(snap: str, t: float) -> List[str]:
    stamp = time.strftime("%m-%d-%Y %H:%M:%S", time.gmtime(t)) + ".000 +0000"
    readings = ([("Hostwide", c) for _, c in _rest(snap, "services/server/status/resource-usage/hostwide")[:1]]
                + [("PerProcess", c) for _, c in _rest(snap, "services/server/status/resource-usage/splunk-processes")])
    return [json.dumps({"datetime": stamp, "log_level": "INFO", "component": component,
                        "data": {k: str(v) for k, v in c.items() if not k.startswith("eai:")}},
                       separators=(",", ":")) + "\n" for component, c in readings]


def members(snap: str, host: str, rotate: bool = True, introspection: bool = True) -> List[Tuple[str, bytes]]:
    """(path under the top folder, bytes) in splunk diag's order."""
    with open(os.path.join(snap, "snapshot.json")) as f:
        meta = json.load(f)
    from ingest_doctor.read.logtime import iso_epoch
    captured = iso_epoch(meta.get("captured_at")) or time.time()
    info = dict((_rest(snap, "services/server/info") or [("", {})])[0][1])
    out: List[Tuple[str, bytes]] = []
    cores = int(info.get("numberOfVirtualCores") or 0)
    sysinfo = ["********** splunk version **********", "Splunk %s" % info.get("version", "9.3.2"), "",
               "********** uname **********", "Linux %s 5.15.0 x86_64" % host, "",
               "********** /proc/cpuinfo **********"]
    for n in range(cores):
        sysinfo += ["processor\t: %d" % n, "model name\t: Intel(R) Xeon(R)", ""]
    source = meta.get("source")
    ip = urlsplit(source).hostname if isinstance(source, str) else None
    if ip:
        sysinfo += ["********** ifconfig -a **********",
                    "lo: flags=73<UP,LOOPBACK,RUNNING>  mtu 65536", "        inet 127.0.0.1  netmask 255.0.0.0", "",
                    "eth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500",
                    "        inet %s  netmask 255.255.255.0  broadcast 10.0.0.255" % ip, ""]
    out.append(("systeminfo.txt", ("\n".join(sysinfo) + "\n").encode()))
    # etc/: system/default holds [general] without the pipelines setting; the app's local has it (it wins).
    general = _rest(snap, "services/configs/conf-server/general")
    queue = _rest(snap, "services/configs/conf-server/queue")
    server_local = [("general", dict(c, serverName=info.get("host") or host)) for _, c in general] + queue
    out.append(("etc/system/default/server.conf", _conf([("general", {"parallelIngestionPipelines": "1",
                                                                      "serverName": "$HOSTNAME"})]).encode()))
    out.append(("etc/apps/search/local/server.conf", _conf(server_local).encode()))
    tokens = [(n, dict(c, token=REDACTED)) for n, c in _rest(snap, "services/data/inputs/http") if n != "http"]
    http = _rest(snap, "services/data/inputs/http/http")
    if tokens or http:
        out.append(("etc/system/default/inputs.conf", _conf([("http", {"disabled": "1", "port": "8088"})]).encode()))
        out.append(("etc/apps/splunk_httpinput/local/inputs.conf", _conf(http + tokens).encode()))
    tcpout = _rest(snap, "services/configs/conf-outputs/tcpout")
    if tcpout:
        out.append(("etc/system/local/outputs.conf", _conf(tcpout).encode()))
    props = _rest(snap, "services/configs/conf-props")
    if props:
        out.append(("etc/apps/search/default/props.conf", _conf(props).encode()))
    thruput = _rest(snap, "services/configs/conf-limits/thruput")
    if thruput:
        # As a universal forwarder's diag carries it: system/default says 0 (no cap), the forwarder's own app
        # default (the snapshot's eai:appName) sets its value, and wins by precedence.
        app = thruput[0][1].get("eai:appName") or "search"
        out.append(("etc/system/default/limits.conf", _conf([("thruput", {"maxKBps": "0"})]).encode()))
        out.append(("etc/apps/%s/default/limits.conf" % app, _conf(thruput).encode()))
    macros = _rest(snap, "services/configs/conf-macros")
    if macros:
        out.append(("etc/apps/ingest_doctor/local/macros.conf", _conf(macros).encode()))
    if info.get("guid"):
        out.append(("etc/instance.cfg", ("[general]\nguid = %s\n" % info["guid"]).encode()))
    out.append(("etc/splunk.version", ("VERSION=%s\nBUILD=d8ae995bf219\n" % info.get("version", "9.3.2")).encode()))
    for name in ("metrics.log", "splunkd.log"):
        lines = _log_lines(snap, name)
        if not lines:
            continue
        cut = len(lines) // 2 if rotate and len(lines) > 10 else 0
        # The rotated (older) file first in the archive: a reader must put files in time order itself.
        if cut:
            out.append(("log/%s.1" % name, "".join(lines[:cut]).encode()))
        out.append(("log/%s" % name, "".join(lines[cut:]).encode()))
    if introspection:
        ru = _resource_usage(snap, captured - 5)
        out.append(("introspection/resource_usage.log", "".join(ru).encode()))
        out.append(("introspection/http_event_collector_metrics.log", b""))
    out.append(("excluded_filelist.txt", b""))
    out.append(("diag.log", b"Collecting components: etc, log, introspection\n"))
    return out


def diag_name(host: str, t: float) -> str:
    return "diag-%s-%s" % (host, time.strftime("%Y-%m-%d_%H-%M-%S", time.gmtime(t)))


def write_tar(dest_dir: str, top: str, parts: List[Tuple[str, bytes]], extra: Optional[List[tarfile.TarInfo]] = None
              ) -> str:
    path = os.path.join(dest_dir, top + ".tar.gz")
    with tarfile.open(path, "w:gz") as tf:
        for rel, data in parts:
            ti = tarfile.TarInfo("%s/%s" % (top, rel))
            ti.size, ti.mtime, ti.mode = len(data), 1763805600, 0o644
            tf.addfile(ti, io.BytesIO(data))
        for ti in extra or []:
            tf.addfile(ti)
    return path


def from_snapshot(snap: str, dest_dir: str, host: Optional[str] = None, **kw) -> str:
    """A diag tarball of the snapshot folder `snap`, written in `dest_dir`; its path."""
    with open(os.path.join(snap, "snapshot.json")) as f:
        meta = json.load(f)
    from ingest_doctor.read.logtime import iso_epoch
    host = host or meta.get("host") or "splunk"
    top = diag_name(host, iso_epoch(meta.get("captured_at")) or 0)
    return write_tar(dest_dir, top, members(snap, host, **kw))
