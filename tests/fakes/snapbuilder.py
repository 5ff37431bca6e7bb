"""Write snapshot folders (contract section 1) in the real shapes of shared/reference.

Hand-made data, real shapes: REST bodies use splunkd's JSON envelope (links, origin,
generator, entry[].acl, content with "eai:acl": null, paging, messages) with the value
types seen in real captures (queues: numbers; resource-usage, pipelinesets, HEC and conf
endpoints: strings). metrics.log and splunkd.log lines use the log.cfg layouts.
Used by the tests, tests/scenarios/build.py and tools/gen_bench_snapshot.py.
"""
from __future__ import annotations

import json
import os
import time as _time
from typing import Any, Dict, Iterable, List, Optional, Tuple

T0 = 1763805600.0          # 2025-11-22T10:00:00Z, the capture time of every scenario


def ts(t: float, zone: str = "+0000") -> str:
    g = _time.gmtime(t)
    return "%02d-%02d-%04d %02d:%02d:%02d.%03d %s" % (g.tm_mon, g.tm_mday, g.tm_year, g.tm_hour, g.tm_min,
                                                      g.tm_sec, int(round((t % 1) * 1000)) % 1000, zone)


def iso(t: float) -> str:
    return _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime(t))


def envelope(path: str, entries: List[Tuple[str, Dict[str, Any]]], version: str = "9.3.2",
             host: str = "127.0.0.1") -> Dict[str, Any]:
    """The JSON body a snapshot keeps for `path` (no leading slash), as splunkd answered it."""
    return envelope_body("https://%s:8089/%s" % (host, path), "/" + path, entries, version)


def envelope_body(origin: str, link_path: str, entries: List[Tuple[str, Dict[str, Any]]], version: str = "9.3.2",
                  updated: str = "2025-11-22T10:00:00+00:00", build: str = "d8ae995bf219") -> Dict[str, Any]:
    """splunkd's JSON envelope (output_mode=json) around (name, content) entries: each entry's id is
    `origin`/name, its links `link_path`/name."""
    ents = []
    for name, content in entries:
        c = dict(content)
        c.setdefault("eai:acl", None)
        ents.append({"name": name, "id": "%s/%s" % (origin, name), "updated": "1970-01-01T00:00:00+00:00",
                     "links": {"alternate": "%s/%s" % (link_path, name), "list": "%s/%s" % (link_path, name)},
                     "author": "system",
                     "acl": {"app": "", "can_list": True, "can_write": True, "modifiable": False, "owner": "system",
                             "perms": {"read": ["admin", "splunk-system-role"],
                                       "write": ["admin", "splunk-system-role"]},
                             "removable": False, "sharing": "system"},
                     "content": c})
    return {"links": {}, "origin": origin, "updated": updated, "generator": {"build": build, "version": version},
            "entry": ents, "paging": {"total": len(ents), "perPage": 0, "offset": 0}, "messages": []}


QUEUE_MAX = {"parsingQueue": 512000, "aggQueue": 1024000, "typingQueue": 512000, "indexQueue": 512000,
             "splunktcpin": 512000, "AEQ": 512000, "nullQueue": 512000}


def queue_content(fill_now: float, avg_1m: float, avg_10m: float, avg_15m: float,
                  max_bytes: int = 512000) -> Dict[str, Any]:
    """introspection/queues content: JSON numbers, byte sizes and the three lookback averages."""
    b = lambda pct: int(max_bytes * pct / 100.0)  # noqa: E731
    return {"cntr_1_lookback_time": 60, "cntr_2_lookback_time": 600, "cntr_3_lookback_time": 900,
            "current_size": int(fill_now * 12), "current_size_bytes": b(fill_now),
            "largest_size": int(max(fill_now, avg_1m) * 12) + 1, "max_size_bytes": max_bytes,
            "sampling_interval": 1, "smallest_size": int(min(fill_now, avg_1m) * 10),
            "value_cntr1_size_bytes_lookback": b(avg_1m), "value_cntr1_size_lookback": int(avg_1m * 12),
            "value_cntr2_size_bytes_lookback": b(avg_10m), "value_cntr2_size_lookback": int(avg_10m * 12),
            "value_cntr3_size_bytes_lookback": b(avg_15m), "value_cntr3_size_lookback": int(avg_15m * 12)}


class Snap:
    def __init__(self, host: str, captured_at: float = T0):
        self.host = host
        self.captured_at = captured_at
        self.rest_bodies: Dict[str, Any] = {}
        self.metrics: List[str] = []
        self.splunkd: List[str] = []
        self.probes: Optional[List[Dict[str, Any]]] = None
        self.meta = True

    # -- REST
    def rest(self, path: str, entries: List[Tuple[str, Dict[str, Any]]]) -> "Snap":
        self.rest_bodies[path] = envelope(path, entries)
        return self

    def raw_rest(self, path: str, text: str) -> "Snap":
        self.rest_bodies[path] = text
        return self

    def server_info(self, cores: int, roles: Iterable[str], version: str = "9.3.2") -> "Snap":
        return self.rest("services/server/info", [("server-info", {
            "build": "d8ae995bf219", "cpu_arch": "x86_64", "host": self.host, "host_fqdn": self.host,
            "numberOfCores": cores // 2 or 1, "numberOfVirtualCores": cores, "os_name": "Linux",
            "physicalMemoryMB": 64000, "serverName": self.host, "server_roles": list(roles), "version": version,
            "mode": "normal", "isForwarding": False})])

    def queues(self, per_pset: Dict[Optional[int], Dict[str, Tuple[float, float, float, float]]]) -> "Snap":
        ents = []
        for pset, qs in sorted(per_pset.items(), key=lambda x: -1 if x[0] is None else x[0]):
            for q, (now, a1, a10, a15) in qs.items():
                title = q if pset is None else "%s.%d" % (q, pset)
                ents.append((title, queue_content(now, a1, a10, a15, QUEUE_MAX.get(q, 512000))))
        ents.append(("AEQ", queue_content(0, 0, 0, 0)))
        return self.rest("services/server/introspection/queues", ents)

    def indexer(self, status: str = "normal", reason: str = "", kbps: float = 2510.4) -> "Snap":
        return self.rest("services/server/introspection/indexer",
                         [("indexer", {"average_KBps": kbps, "reason": reason, "status": status})])

    def pipelinesets(self, sets: Dict[int, Tuple[str, float]]) -> "Snap":
        return self.rest("services/server/pipelinesets", [
            ("ingest_pipe_%d" % p, {"busiest_thread_name": th, "dutycycle_ratio": repr(ratio),
                                    "requests_last_period": "12", "share": repr(round(1.0 / len(sets), 4))})
            for p, (th, ratio) in sorted(sets.items())])

    def resources(self, cores: int, host_cpu_pct: float, splunkd_pct_cpu: float, threads: int = 180,
                  searches: Iterable[float] = ()) -> "Snap":
        """searches: the pct_cpu (% of one core) of each search process running (`splunkd search --id=...`)."""
        idle = 100.0 - host_cpu_pct
        self.rest("services/server/status/resource-usage/hostwide", [("hostwide", {
            "cpu_arch": "x86_64", "cpu_count": str(cores // 2 or 1), "cpu_idle_pct": "%.2f" % idle,
            "cpu_system_pct": "%.2f" % (host_cpu_pct * 0.3), "cpu_user_pct": "%.2f" % (host_cpu_pct * 0.7),
            "mem": "64000.000", "mem_used": "21000.000", "normalized_load_avg_1min": "%.2f" % (host_cpu_pct / 100),
            "os_name": "Linux", "splunk_version": "9.3.2", "virtual_cpu_count": str(cores)})])
        return self.rest("services/server/status/resource-usage/splunk-processes", [
            ("splunkd", {"args": "-p 8089 start", "elapsed": "86400.0000", "fd_used": "310",
                         "mem_used": "2313.688", "normalized_pct_cpu": "%.2f" % (splunkd_pct_cpu / cores),
                         "page_faults": "0", "pct_cpu": "%.2f" % splunkd_pct_cpu, "pct_memory": "3.61",
                         "pid": "4211", "ppid": "1", "process": "splunkd", "process_type": "splunkd_server",
                         "read_mb": "12.011", "status": "R", "t_count": str(threads), "written_mb": "91188.965"}),
            ("splunkd", {"args": "process-runner", "elapsed": "86400.0000", "fd_used": "12", "mem_used": "40.1",
                         "normalized_pct_cpu": "0.01", "page_faults": "0", "pct_cpu": "0.10", "pct_memory": "0.06",
                         "pid": "4230", "ppid": "4211", "process": "splunkd", "process_type": "helper",
                         "read_mb": "0.0", "status": "S", "t_count": "4", "written_mb": "0.0"})] + [
            ("splunkd", {"args": "search --id=scheduler__nobody__search__RMD5a1b2c3d4e5f6%04d_at_1763805600_%d "
                                 "--maxbuckets=300 --ttl=120 --maxout=500000 --maxtime=8640000 --lookups=1 "
                                 "--reduce_freq=10 --user=nobody --pro --roles=admin:power:user" % (k, k),
                         "elapsed": "%.4f" % (40.0 + k), "fd_used": "41", "mem_used": "310.5",
                         "normalized_pct_cpu": "%.2f" % (pct / cores), "page_faults": "0", "pct_cpu": "%.2f" % pct,
                         "pct_memory": "0.48", "pid": str(5100 + k), "ppid": "4211", "process": "splunkd",
                         "process_type": "search", "read_mb": "812.0", "search_props.app": "search",
                         "search_props.mode": "historical batch", "search_props.role": "head",
                         "search_props.sid": "scheduler__nobody__search__RMD5a1b2c3d4e5f6%04d_at_1763805600_%d"
                                             % (k, k),
                         "search_props.type": "scheduled", "search_props.user": "nobody", "status": "R",
                         "t_count": "9", "written_mb": "2.1"}) for k, pct in enumerate(searches)])

    def http(self, dedicated_io_threads: str = "2", max_threads: str = "0", max_sockets: str = "0",
             tokens: Iterable[str] = ("app",), global_entry: bool = True) -> "Snap":
        """HEC as a real server lists it: the tokens (`http://<name>`) in services/data/inputs/http,
        the global [http] settings in services/data/inputs/http/http (left out: global_entry=False)."""
        if global_entry:
            self.rest("services/data/inputs/http/http", [("http", {
                "_rcvbuf": 1572864, "ackIdleCleanup": "true", "dedicatedIoThreads": dedicated_io_threads,
                "disabled": False, "enableSSL": "1", "enablessl": "false", "host": self.host,
                "index": "default", "indexes": [], "maxSockets": max_sockets, "maxThreads": max_threads,
                "port": "8088", "sslVersions": "tls1.2", "useDeploymentServer": "0"})])
        return self.rest("services/data/inputs/http", [("http://" + name, {
            "_rcvbuf": 1572864, "description": "%s events" % name, "disabled": False,
            "eai:appName": "splunk_httpinput", "eai:userName": "nobody", "host": "$decideOnStartup",
            "index": "main", "indexes": ["main"], "source": name, "sourcetype": "%s:json" % name,
            "token": "00000000-0000-0000-0000-%012d" % (i + 1), "useACK": "0"}) for i, name in enumerate(tokens)])

    def macros(self, definitions: Dict[str, str]) -> "Snap":
        """services/configs/conf-macros as the CLI records it: name -> definition."""
        return self.rest("services/configs/conf-macros", [(k, {"definition": v, "iseval": "0"})
                                                          for k, v in sorted(definitions.items())])

    def server_general(self, pipelines: str = "1", policy: str = "round_robin") -> "Snap":
        return self.rest("services/configs/conf-server/general", [("general", {
            "parallelIngestionPipelines": pipelines, "pipelineSetSelectionPolicy": policy,
            "pipelineSetWeightsUpdatePeriod": "30", "serverName": self.host, "sessionTimeout": "1h",
            "eai:appName": "system", "eai:userName": "nobody", "disabled": False})])

    def server_queue(self, max_size: str = "500KB") -> "Snap":
        return self.rest("services/configs/conf-server/queue", [("queue", {
            "maxSize": max_size, "cntr_1_lookback_time": "60s", "cntr_2_lookback_time": "600s",
            "cntr_3_lookback_time": "900s", "sampling_interval": "1s", "eai:appName": "system",
            "eai:userName": "nobody", "disabled": False})])

    def tcpout(self, compressed: str = "false", servers: str = "idx1:9997,idx2:9997", ack: str = "false",
               group: str = "splunk_indexers", **settings: str) -> "Snap":
        """outputs.conf as conf-outputs lists it; `settings` go into the output group's stanza (clientCert, ...)."""
        return self.rest("services/configs/conf-outputs/tcpout", [
            ("tcpout", {"compressed": compressed, "defaultGroup": group, "useACK": ack,
                        "maxQueueSize": "auto", "eai:appName": "system", "eai:userName": "nobody",
                        "disabled": False}),
            ("tcpout:%s" % group, dict({"server": servers, "eai:appName": "search", "eai:userName": "nobody",
                                        "disabled": False}, **settings))])

    def limits_thruput(self, max_kbps: str = "256") -> "Snap":
        return self.rest("services/configs/conf-limits/thruput", [("thruput", {
            "maxKBps": max_kbps, "eai:appName": "SplunkUniversalForwarder", "eai:userName": "nobody",
            "disabled": False})])

    def props(self, stanzas: Dict[str, Dict[str, str]]) -> "Snap":
        """conf-props: each stanza's `settings` over props.conf's defaults."""
        defaults = {"ANNOTATE_PUNCT": "True", "BREAK_ONLY_BEFORE_DATE": "True", "CHARSET": "UTF-8",
                    "DATETIME_CONFIG": "/etc/datetime.xml", "LINE_BREAKER": "([\\r\\n]+)",
                    "MAX_TIMESTAMP_LOOKAHEAD": "128", "SHOULD_LINEMERGE": "True", "TRUNCATE": "10000",
                    "eai:appName": "search", "eai:userName": "nobody", "disabled": False}
        return self.rest("services/configs/conf-props", [(name, dict(defaults, **settings))
                                                         for name, settings in stanzas.items()])

    # -- logs
    def metric(self, t: float, body: str) -> None:
        self.metrics.append("%s INFO  Metrics - %s" % (ts(t), body))

    def splunkd_line(self, t: float, level: str, component: str, thread: Optional[str], msg: str,
                     tid: int = 2394001) -> None:
        th = " [%d %s]" % (tid, thread) if thread else ""
        self.splunkd.append("%s %-5s %s%s - %s" % (ts(t), level, component, th, msg))

    def write(self, root: str) -> str:
        os.makedirs(root, exist_ok=True)
        if self.meta:
            with open(os.path.join(root, "snapshot.json"), "w") as f:
                json.dump({"format": 1, "host": self.host, "captured_at": iso(self.captured_at)}, f, indent=1)
                f.write("\n")
        for path, body in self.rest_bodies.items():
            fname = os.path.join(root, "rest", *path.split("/")) + ".json"
            os.makedirs(os.path.dirname(fname), exist_ok=True)
            with open(fname, "w") as f:
                f.write(body if isinstance(body, str) else json.dumps(body, separators=(",", ":")))
        for name, lines in (("metrics.log", self.metrics), ("splunkd.log", self.splunkd)):
            if lines:
                os.makedirs(os.path.join(root, "logs"), exist_ok=True)
                with open(os.path.join(root, "logs", name), "w") as f:
                    f.write("\n".join(lines) + "\n")
        if self.probes is not None:
            os.makedirs(os.path.join(root, "hec"), exist_ok=True)
            with open(os.path.join(root, "hec", "health.json"), "w") as f:
                json.dump(self.probes, f, indent=1)
                f.write("\n")
        return root


# --------------------------------------------------------------------------- metrics.log families

PIPELINE_PROCS = {
    "parsing": ("readerin", "utf8", "linebreaker", "header", "sendout"),
    "merging": ("readerin", "aggregator", "sendout"),
    "typing": ("readerin", "regexreplacement", "annotator", "previewout", "sendout"),
    "indexerpipe": ("indexin", "index_thruput", "indexandforward", "indexer", "signing",
                    "tcp-output-generic-processor"),
}

QUEUE_KB = {"parsingqueue": 512, "aggqueue": 1024, "typingqueue": 512, "indexqueue": 512, "splunktcpin": 500}


def _pipe(pset: Optional[int]) -> str:
    return "" if pset is None else "ingest_pipe=%d, " % pset


def queue_line(s: Snap, t: float, pset: Optional[int], name: str, fill: float, blocked: bool = False) -> None:
    mx = QUEUE_KB.get(name, 500)
    cur = int(mx * fill / 100.0)
    s.metric(t, "group=queue, %sname=%s, %smax_size_kb=%d, current_size_kb=%d, current_size=%d, "
                "largest_size=%d, smallest_size=%d" % (_pipe(pset), name, "blocked=true, " if blocked else "",
                                                       mx, cur, cur * 4, cur * 4 + 7, max(0, cur * 3)))


def pipeline_lines(s: Snap, t: float, pset: Optional[int], cpu: Dict[str, Dict[str, float]]) -> None:
    """cpu: pipeline -> processor -> cpu_seconds in the 30 s interval (others get a small share)."""
    for pipe, procs in PIPELINE_PROCS.items():
        for proc in procs:
            sec = cpu.get(pipe, {}).get(proc, 0.02)
            extra = ""
            if pipe == "indexerpipe" and proc == "indexer":
                extra = ", write_cpu_seconds=%.6f, service_cpu_seconds=%.6f" % (sec * 0.6, sec * 0.2)
            s.metric(t, "group=pipeline, %sname=%s, processor=%s, cpu_seconds=%.6f, executes=%d, "
                        "cumulative_hits=%d%s" % (_pipe(pset), pipe, proc, sec, 4100, 9120334, extra))


def dutycycle_long(s: Snap, t: float, pset: Optional[int], ratios: Dict[str, float]) -> None:
    for thread, ratio in ratios.items():
        s.metric(t, "group=dutycycle, %sname=ingest, thread=%s, ratio=%.3f" % (_pipe(pset), thread, ratio))


def dutycycle_wide(s: Snap, t: float, ratios: Dict[str, float]) -> None:
    s.metric(t, "group=dutycycle, name=misc, " + ", ".join("%s=%.3f" % kv for kv in sorted(ratios.items())))


def pipelineset_line(s: Snap, t: float, pset: int, busiest: str, ratio: float, share: float) -> None:
    s.metric(t, "group=pipelineset, name=load_metrics, ingest_pipe=%d, busiest_thread_name=%s, "
                "dutycycle_ratio=%.6f, share=%.4f, requests_last_period=%d" % (pset, busiest, ratio, share, 30))


def thruput_lines(s: Snap, t: float, pset: Optional[int], sourcetypes: Dict[str, float],
                  age: float = 1.2) -> None:
    """age: avg_age (seconds from an event's timestamp to its indexing); max_age is about twice it."""
    total = sum(sourcetypes.values())
    s.metric(t, "group=thruput, %sname=index_thruput, instantaneous_kbps=%.3f, instantaneous_eps=%.3f, "
                "average_kbps=%.3f, total_k_processed=%.3f, kb=%.3f, ev=%d, load_average=1.20"
             % (_pipe(pset), total, total * 4, total, total * 3000, total * 30, int(total * 120)))
    for st, kbps in sorted(sourcetypes.items(), key=lambda x: -x[1]):
        s.metric(t, 'group=per_sourcetype_thruput, %sseries="%s", kbps=%.3f, eps=%.3f, kb=%.3f, ev=%d, '
                    'avg_age=%s, max_age=%d' % (_pipe(pset), st, kbps, kbps * 4, kbps * 30, int(kbps * 120), age,
                                                  3 if age == 1.2 else int(age * 2)))


def wobble(i: int, amp: float) -> float:
    """Sample `i`'s small repeating offset (within +-amp), so that a steady series is not flat."""
    return ((i * 7) % 5 - 2) / 2.0 * amp


def tcpout_line(s: Snap, t: float, i: int, ip: str, kbps: float, group: str = "splunk_indexers") -> None:
    # Keys as group=tcpin_connections has them on the receiving side (its 8.2.1 line is real); the
    # tcpout_connections line itself is UNVERIFIED (no real capture).
    s.metric(t + 0.002, "group=tcpout_connections, name=%s:%s:9997:0, sourcePort=%d, destIp=%s, "
                        "destPort=9997, _tcp_Bps=%.2f, _tcp_KBps=%.2f, _tcp_avg_thruput=%.2f, _tcp_Kprocessed=%d, "
                        "_tcp_eps=%.2f, kb=%.2f" % (group, ip, 43500 + i % 7, ip, kbps * 1024, kbps, kbps,
                                                    int(kbps * 30 * (i + 1)), kbps * 4, kbps * 30))


def times(minutes: float, end: float = T0, interval: float = 30.0) -> List[float]:
    n = int(minutes * 60 / interval)
    return [end - (n - i) * interval + 0.1 for i in range(1, n + 1)]


# --------------------------------------------------------------------------- splunkd.log lines

def paused_line(s: Snap, t: float, dest: str, blocked_s: int, tid: int = 7812) -> None:
    """TcpOutputProc: forwarding from this host to `dest` has been blocked for `blocked_s` seconds."""
    s.splunkd_line(t, "WARN", "TcpOutputProc", "indexerPipe",
                   "The TCP output processor has paused the data flow. Forwarding to host_dest=%s inside output "
                   "group splunk_indexers from host_src=%s has been blocked for blocked_seconds=%d. This can stall "
                   "the data flow towards indexing and other network outputs. Review the receiving system's health "
                   "in the Splunk Monitoring Console. It is probably not accepting data." % (dest, s.host, blocked_s),
                   tid=tid)


def maxkbps_line(s: Snap, t: float, kbps: float) -> None:
    """ThruputProcessor: the forwarder reached limits.conf [thruput] maxKBps (wording as Splunk Answers threads
    quote it)."""
    s.splunkd_line(t, "INFO", "ThruputProcessor", "parsing",
                   "Current data throughput (%d kb/s) has reached maxKBps. As a result, data forwarding may "
                   "be throttled. Consider increasing the value of maxKBps in limits.conf." % round(kbps + 1),
                   tid=5512)
