"""What the shipped Queues alert ("Ingest Doctor - Queues - Blocked or saturated pipeline queues") returns over
a deployment's logs: its SPL, step by step, over the metrics.log and splunkd.log lines of fakes/deploybuilder.py
members, as their forwarders would have indexed them in `_internal` (issue 37: the search head's side).

Each branch follows default/savedsearches.conf, command by command:
- the queue rows: `tstats max(PREFIX(...)) ... BY _time span=30s host PREFIX(name=) PREFIX(ingest_pipe=)
  PREFIX(blocked=)` over the chain's queues of the instances with `group=pipelineset` lines
  (`ingest_doctor_pipeline_hosts`), the stage lookup (lookups/ingest_doctor_pipeline.csv), the window's median,
  blocked and over-threshold counts, the sets with a full queue, one row per host and set;
- the tcpin rows of the flagged hosts from the topology lookup (the keeper's tstats over the last
  `ingest_doctor_silence_after_min` minutes of `group=tcpin_connections`, one row per sender);
- the replication rows (`tstats count ... BY host PREFIX(peer=)`, the guid lower-cased as the lexicon keeps it,
  the target's name from the search head's search peers: `search_peers`, guid -> peerName);
- the replication receiver thread of a host whose window average is at `thread_busy_pct`;
- the maxKBps lines (`rex` of the rate, count, latest rate).
PREFIX() returns the lexicon's lower-case terms (docs/searches.md): names and guids are lower-cased here too.
Splunk's `median` of an even count is the higher of the two middle values.
"""
from __future__ import annotations

import csv
import os
import re
from collections import defaultdict
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from fakes.paths import ROOT
from fakes.snapbuilder import pipelineset_line, times
from ingest_doctor import model, thresholds
from ingest_doctor.read import splunkdlog
from ingest_doctor.read.logtime import parse_prefix

TH = thresholds.defaults()
WINDOW_S = 60.0 * TH.sustained_window_min            # ingest_doctor_alert_window
TOPOLOGY_S = 60.0 * 5                                  # ingest_doctor_silence_after_min
_KV = re.compile(r"(?:^|[\s,])([A-Za-z_][\w.]*)=([^,\s]*)")
_RATE = re.compile(splunkdlog.MAXKBPS_RX, re.I)        # the alert's rex (tests/deployment checks they agree)
CHAIN = ("parsingqueue", "aggqueue", "typingqueue", "indexqueue", "splunktcpin", "tcpin_queue", "tcpin_cooked_pqueue")


def _stages() -> Dict[str, Tuple[str, int]]:
    with open(os.path.join(ROOT, "lookups", "ingest_doctor_pipeline.csv"), encoding="utf-8") as f:
        return {r["metrics_queue"]: (r["stage"], int(r["stage_order"])) for r in csv.DictReader(f) if r["metrics_queue"]}


def with_pipelineset_lines(members: Iterable[Any], minutes: float = 12) -> None:
    """A 9.x instance that runs a pipeline writes one `group=pipelineset` line per set every 30 s (the queue
    alert's `ingest_doctor_pipeline_hosts` reads them); the deployment builder writes none: add them to every
    member with stage threads (its long dutycycle layout), so the CLI and the search see the same logs."""
    for m in members:
        sets = sorted({kv.get("ingest_pipe") for _, kv in _lines(m.snap.metrics)
                       if kv.get("group") == "dutycycle" and kv.get("name") == "ingest"})
        if not sets:
            continue
        for t in times(minutes):
            for p in sets:
                pipelineset_line(m.snap, t + 0.005, int(p) if p is not None else 0, "indexerpipe", 0.3, 1.0 / len(sets))
        m.snap.metrics.sort()


def _lines(lines: Sequence[str]) -> Iterable[Tuple[float, Dict[str, str]]]:
    for line in lines:
        t, start = parse_prefix(line)
        msg = line[start:].split(" - ", 1)[-1]
        yield t, {k: v for k, v in _KV.findall(msg)}


def _num(v: Optional[str]) -> Optional[float]:
    try:
        return float(v) if v not in (None, "") else None
    except ValueError:
        return None


def _median(vals: List[float]) -> float:
    s = sorted(vals)
    return s[len(s) // 2]


def _fmt(x: float) -> str:
    return ("%.1f" % x).rstrip("0").rstrip(".") if x != int(x) else "%d" % x


def queue_rows(members: Sequence[Any], now: float) -> List[Dict[str, Any]]:
    stages = _stages()
    out = []
    for m in members:
        lines = [(t, kv) for t, kv in _lines(m.snap.metrics) if now - WINDOW_S <= t <= now]
        if not any(kv.get("group") == "pipelineset" for _, kv in lines):
            continue
        # tstats groups by PREFIX(blocked=) too: a blocked line and a plain one in one bin are two rows
        bins: Dict[Tuple[str, str], Dict[Tuple[float, bool], float]] = defaultdict(dict)
        for t, kv in lines:
            name = (kv.get("name") or "").lower()
            if kv.get("group") != "queue" or not (name in CHAIN or name.startswith("tcpout")):
                continue
            queue = "tcpout" if name.startswith("tcpout") else name
            cur_kb, max_kb = _num(kv.get("current_size_kb")), _num(kv.get("max_size_kb"))
            cur, mx = _num(kv.get("current_size")), _num(kv.get("max_size"))
            ratio = cur_kb / max_kb if cur_kb is not None and max_kb else (cur / mx if cur is not None and mx else None)
            blocked = kv.get("blocked") == "true"
            fill = round(100 * ratio, 1) if ratio is not None else (100.0 if blocked else None)
            if fill is None:
                continue
            key = (t - t % 30, blocked)
            slot = bins[(kv.get("ingest_pipe") or "none", queue)]
            slot[key] = max(fill, slot.get(key, fill))
        per_set: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
        for (pset, queue), samples in bins.items():
            stage, order = stages[queue]
            fills = list(samples.values())
            newest = sorted(samples.items(), reverse=True)
            per_set[pset].append({"queue": queue, "stage": stage, "order": order, "fill": _median(fills),
                                  "blocked": sum(b for _, b in samples),
                                  "over": sum(1 for f in fills if f >= TH.queue_fill_pct),
                                  "last": max(t for t, _ in samples),
                                  "recent": " ".join("%d:%s%s" % (round(t), _fmt(f), "b" if b else "")
                                                     for (t, b), f in newest)})
        for pset, qs in sorted(per_set.items()):
            full = [q["order"] for q in qs if q["blocked"] >= TH.sustained_samples or q["over"] >= TH.sustained_samples
                    or q["fill"] >= TH.queue_fill_pct]
            if not full:
                continue
            qs.sort(key=lambda q: q["order"])
            stage = [q["stage"] for q in qs if q["order"] == max(full)][0]
            out.append({"signal": "queue_fill", "host": m.host, "component": stage, "pipeline_set": pset,
                        "bottleneck": stage, "stage": stage, "queue": [q["queue"] for q in qs],
                        "fill_pct": [_fmt(q["fill"]) for q in qs], "recent": [q["recent"] for q in qs],
                        "blocked_samples": [str(q["blocked"]) for q in qs], "span_s": 30,
                        "last_time": max(q["last"] for q in qs), "window_min": TH.sustained_window_min,
                        "threshold": TH.queue_fill_pct, "source": "metrics.log group=queue"})
    return out


def topology_lookup(members: Sequence[Any], now: float) -> Dict[str, Dict[str, Any]]:
    """The keeper's rows (ingest_doctor_topology), by the sender's short lower-case name."""
    acc: Dict[str, Dict[str, Any]] = {}
    for m in members:
        for t, kv in _lines(m.snap.metrics):
            if kv.get("group") != "tcpin_connections" or not now - TOPOLOGY_S <= t <= now or not kv.get("hostname"):
                continue
            peer = kv["hostname"].lower()
            name = peer.split(".")[0]
            r = acc.setdefault(name, {"peer": peer, "guid": (kv.get("guid") or "-").lower(),
                                      "fwd_type": (kv.get("fwdType") or "-").lower(),
                                      "peer_ip": kv.get("sourceIp") or "-", "receivers": set(), "kb": 0.0,
                                      "last_time": t})
            r["receivers"].add(m.host.lower())
            r["kb"] += _num(kv.get("kb")) or 0.0
            r["last_time"] = max(r["last_time"], t)
    for r in acc.values():
        r["kbps"] = round(r["kb"] / TOPOLOGY_S, 1)
    return acc


def tcpin_rows(flagged: Iterable[str], members: Sequence[Any], now: float) -> List[Dict[str, Any]]:
    topo = topology_lookup(members, now)
    out = []
    for name in sorted({h.lower().split(".")[0] for h in flagged}):
        r = topo.get(name)
        for rcv in sorted(r["receivers"]) if r else ():
            out.append({"signal": "tcpin", "host": rcv, "peer": r["peer"], "peer_ip": r["peer_ip"], "guid": r["guid"],
                        "fwd_type": r["fwd_type"], "kbps": r["kbps"], "last_time": r["last_time"],
                        "source": "metrics.log group=tcpin_connections (lookup ingest_doctor_topology)"})
    return out


def replication_rows(members: Sequence[Any], now: float, search_peers: Mapping[str, str]) -> List[Dict[str, Any]]:
    names = {g.lower(): n for g, n in search_peers.items()}
    out = []
    for m in members:
        counts: Dict[str, List[float]] = defaultdict(list)
        for line in m.snap.splunkd:
            t, start = parse_prefix(line)
            low = line[start:].lower()
            if not now - WINDOW_S <= t <= now or not all(w in low.split() for w in ("replication", "queue", "full")):
                continue
            guid = re.search(r"\bpeer=(\S+)", low)
            if guid:
                counts[guid.group(1)].append(t)
        for guid, ts in sorted(counts.items()):
            out.append({"signal": "replication", "host": m.host, "peer": guid, "target": names.get(guid, ""),
                        "lines": len(ts), "last_time": max(ts),
                        "source": "splunkd.log replication queue for peer=<guid> full"})
    return out


def replication_thread_rows(members: Sequence[Any], now: float) -> List[Dict[str, Any]]:
    out = []
    for m in members:
        bins: Dict[float, float] = {}
        for t, kv in _lines(m.snap.metrics):
            if kv.get("group") == "dutycycle" and kv.get("thread") == "replicationdatareceiverthread" \
                    and now - WINDOW_S <= t <= now:
                bins[t - t % 30] = max(bins.get(t - t % 30, 0.0), float(kv["ratio"]))
        if not bins:
            continue
        busy = {t: round(100 * r, 1) for t, r in bins.items()}
        avg = sum(busy.values()) / len(busy)
        if avg >= TH.thread_busy_pct:
            out.append({"signal": "thread_busy", "host": m.host, "component": "replicationdatareceiverthread",
                        "thread": "replicationdatareceiverthread", "pipeline_set": "none", "busy_pct": round(avg, 1),
                        "samples": ["%d:%s" % (round(t), _fmt(v)) for t, v in sorted(busy.items(), reverse=True)],
                        "span_s": 30, "last_time": max(busy), "window_min": TH.sustained_window_min,
                        "threshold": TH.thread_busy_pct, "source": "metrics.log group=dutycycle"})
    return out


def maxkbps_rows(members: Sequence[Any], now: float) -> List[Dict[str, Any]]:
    out = []
    for m in members:
        hits = []
        for line in m.snap.splunkd:
            t, start = parse_prefix(line)
            low = line[start:].lower().split()
            if now - WINDOW_S <= t <= now and "thruputprocessor" in low and "maxkbps" in low:
                rate = _RATE.search(line)
                hits.append((t, rate.group(1) if rate else None))
        if hits:
            hits.sort()
            out.append({"signal": "thruput_capped", "host": m.host, "lines": len(hits),
                        "kbps": [r for _, r in hits if r is not None][-1], "last_time": hits[-1][0],
                        "source": "splunkd.log ThruputProcessor"})
    return out


def hec_busy_rows(members: Sequence[Any], now: float) -> List[Dict[str, Any]]:
    """tstats count of HttpInputDataHandler lines with a back-pressure reply code (ingest_doctor_hec_backpressure_terms)."""
    codes = {"reply=%d" % c for c in model.HEC_BACKPRESSURE_CODES}
    out = []
    for m in members:
        ts = []
        for line in m.snap.splunkd:
            t, start = parse_prefix(line)
            words = set(line[start:].replace(",", " ").split())
            if now - WINDOW_S <= t <= now and "HttpInputDataHandler" in words and words & codes:
                ts.append(t)
        if len(ts) >= TH.hec_busy_replies:
            out.append({"signal": "hec_busy", "host": m.host, "component": "hec", "stage": "hec_input",
                        "busy_replies": len(ts), "span_s": 10, "last_time": max(ts),
                        "source": "splunkd.log HttpInputDataHandler back-pressure reply codes"})
    return out


def queues_alert_rows(members: Sequence[Any], now: float, search_peers: Mapping[str, str]) -> List[Dict[str, Any]]:
    """Every row of one run of the Queues alert at `now`, in the SPL's order (the HEC rows of flagged hosts only:
    its eventstats)."""
    rows = queue_rows(members, now)
    flagged = {r["host"] for r in rows}
    rows += tcpin_rows(flagged, members, now)
    rows += replication_rows(members, now, search_peers) + replication_thread_rows(members, now) \
        + maxkbps_rows(members, now)
    return rows + [r for r in hec_busy_rows(members, now) if r["host"] in flagged]
