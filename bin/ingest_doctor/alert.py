"""The "flag bottleneck" alert action, as one pure function over an injected port.

`run` reads the payload's results, judges them through the diagnosis core, and
tells the port what to write. The port (bin/ingest_doctor_flag_splunkd.py in
production, an in-memory fake in tests) is the only thing that talks to
splunkd or a webhook. Order of effects, chosen so that nothing is lost:

1. everything that can be refused is checked first (payload, results file,
   rows, thresholds): a bad input writes nothing;
2. the KV store records of the run's findings are read in one request;
3. the `ingest_doctor:finding` events (one request per host: the sourcetype
   breaks events on newlines), then the records in batch saves (an event is
   never lost: a run cut short after the events is redone in full, and the KV
   store keeps one record per id whatever happens);
4. the webhook, last: a receiver that is down does not keep findings out of
   Splunk.
"""
from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Protocol, Sequence, Tuple

from . import exitcodes
from . import thresholds as thresholds_mod
from .alert_payload import AlertError, BadConfig, Payload, index_from_macro
from .alert_results import read_rows
from .alert_rows import KNOWN_COLUMNS, rows_to_evidence
from .alert_store import Upsert, finding_event, kv_key, plan, webhook_body
from .evidence import Config, Evidence
from .findings import Finding, Report, severity_rank

EVENTS_INDEX_MACRO = "ingest_doctor_events_index"
FALLBACK_INDEX = "main"
SOURCETYPE = "ingest_doctor:finding"
SOURCE = "ingest_doctor_flag"
DETECTED_BY = "alert_action"

Diagnose = Callable[..., Report]


class Port(Protocol):
    """What the action needs from the outside world; every method may raise AlertError."""

    def macros(self) -> Dict[str, str]:              # macro name -> definition (our app's view)
        ...

    def latest_configs(self, hosts: Sequence[str]) -> Dict[str, Dict[str, Any]]:  # host -> event["config"]
        ...

    def local_config(self, host: str, evidence: Evidence) -> bool:  # REST fallback for this splunkd
        ...

    def kv_read(self, keys: Sequence[str]) -> Dict[str, Dict[str, Any]]:
        ...

    def kv_save(self, records: Sequence[Dict[str, Any]]) -> None:
        ...

    def write_events(self, index: str, host: str, bodies: Sequence[str]) -> None:  # one JSON line each
        ...

    def webhook(self, url: str, body: bytes) -> None:
        ...

    def log(self, level: str, category: str, **fields: Any) -> None:
        ...


@dataclass
class Summary:
    rows_hosts: int = 0
    findings: int = 0
    below_min: int = 0
    new: int = 0
    updated: int = 0
    reopened: int = 0
    unchanged: int = 0
    events: int = 0
    webhooks: int = 0
    not_judged: List[str] = field(default_factory=list)


def load_thresholds(macros: Mapping[str, str]) -> thresholds_mod.Thresholds:
    """The generated threshold macros as the admin tuned them: the numbers the searches used."""
    overrides = {s.macro: macros[s.macro] for s in thresholds_mod.SETTINGS if s.macro in macros}
    try:
        return thresholds_mod.load(overrides)
    except thresholds_mod.ThresholdError as e:
        raise BadConfig("a threshold macro is invalid: %s (fix it in local/macros.conf)" % e) from None


def events_index(payload: Payload, macros: Mapping[str, str], port: Port) -> str:
    if payload.params.index:
        return payload.params.index
    idx = index_from_macro(macros.get(EVENTS_INDEX_MACRO))
    if idx:
        return idx
    port.log("WARN", "config", msg="macro ingest_doctor_events_index is not a plain index=<name>; "
                                   "writing findings to the fallback index", index=FALLBACK_INDEX)
    return FALLBACK_INDEX


def complete_config(by_host: Dict[str, Evidence], port: Port) -> List[str]:
    """Give each host's evidence its configuration: latest ingest_doctor:config, else local REST."""
    notes: List[str] = []
    # Configuration only sharpens the advice (current values): when it cannot be read, the
    # findings are still flagged, and the log says why their `current` is empty.
    try:
        configs = port.latest_configs(sorted(by_host))
    except AlertError as e:
        if e.code == exitcodes.AUTH:
            raise
        port.log("WARN", "config", msg="latest ingest_doctor:config not read; recommendations without "
                                       "current values", error=str(e)[:300])
        configs = {}
    for host, ev in sorted(by_host.items()):
        raw = configs.get(host)
        if isinstance(raw, Mapping):
            try:
                ev.config = Config.from_dict(raw)
                continue
            except TypeError as e:
                port.log("WARN", "config", msg="ingest_doctor:config event not understood", host=host,
                         error=str(e)[:200])
        try:
            if port.local_config(host, ev):
                continue
        except AlertError as e:
            if e.code == exitcodes.AUTH:
                raise
            port.log("WARN", "config", msg="REST configuration not read", host=host, error=str(e)[:300])
        notes.append("%s: no ingest_doctor:config event and not this search head; recommendations cannot "
                     "show current settings (enable the collector on that instance)" % host)
    return notes


def judge(by_host: Dict[str, Evidence], th: thresholds_mod.Thresholds, min_severity: str,
          diagnose: Diagnose) -> Tuple[List[Finding], int, List[str]]:
    keep: List[Finding] = []
    below = 0
    notes: List[str] = []
    floor = severity_rank(min_severity)
    for host in sorted(by_host):
        report = diagnose(by_host[host], th)
        notes.extend("%s: %s" % (host, n) for n in report.not_judged)
        for f in report.findings:
            if severity_rank(f.severity) >= floor:
                keep.append(f)
            else:
                below += 1
    # One finding per id: the same problem seen through two rows is one record.
    unique: Dict[str, Finding] = {}
    for f in keep:
        old = unique.get(f.id)
        if old is None or severity_rank(f.severity) > severity_rank(old.severity):
            unique[f.id] = f
    return list(unique.values()), below, notes


def run(payload: Payload, port: Port, diagnose: Diagnose, now: Optional[float] = None,
        rows: Optional[Iterable[Any]] = None) -> Summary:
    now = _time.time() if now is None else now
    summary = Summary()
    # 1. everything that can be refused, before any write
    by_host = rows_to_evidence(rows if rows is not None else read_rows(payload.results_file, KNOWN_COLUMNS), now)
    summary.rows_hosts = len(by_host)
    macros = port.macros()
    th = load_thresholds(macros)
    index = events_index(payload, macros, port)
    summary.not_judged.extend(complete_config(by_host, port))
    findings, summary.below_min, notes = judge(by_host, th, payload.params.min_severity, diagnose)
    summary.not_judged.extend(notes)
    summary.findings = len(findings)
    if not findings:
        port.log("INFO", "judge", msg="no finding at or above min_severity", hosts=len(by_host),
                 below_min=summary.below_min, min_severity=payload.params.min_severity)
        return summary
    # 2. read what the store knows
    existing = port.kv_read([kv_key(f.id) for f in findings])
    # 3. events, then records
    planned: List[Tuple[Finding, Upsert]] = []
    for f in sorted(findings, key=lambda x: x.id):
        up = plan(existing.get(kv_key(f.id)), f, now, payload.sid, payload.search_name, DETECTED_BY)
        if up is None:
            summary.unchanged += 1
            continue
        planned.append((f, up))
    by_event_host: Dict[str, List[str]] = {}
    for f, up in planned:
        by_event_host.setdefault(f.host or "", []).append(finding_event(f, DETECTED_BY))
    for host in sorted(by_event_host):
        port.write_events(index, host, by_event_host[host])
        summary.events += len(by_event_host[host])
    if planned:
        port.kv_save([up.record for _, up in planned])
    for _, up in planned:
        if up.new:
            summary.new += 1
        else:
            summary.updated += 1
        if up.reopened:
            summary.reopened += 1
    # 4. the webhook
    if payload.params.webhook_url:
        for f, up in planned:
            port.webhook(payload.params.webhook_url,
                         webhook_body(f, up.record, payload.search_name, payload.results_link))
            summary.webhooks += 1
    return summary
