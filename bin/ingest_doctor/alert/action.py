"""The "flag bottleneck" alert action, as one pure function over an injected port.

`run` reads the payload's results, judges them through the diagnosis core, and
tells the port what to write. The port (bin/ingest_doctor_ports/action.py in
production, an in-memory fake in tests) is the only thing that talks to
splunkd or a webhook. Order of effects, chosen so that nothing is lost:

1. everything that can be refused is checked first (payload, results file,
   rows, thresholds): a bad input writes nothing;
2. the KV store records of the run's findings are read, PLAN_CHUNK findings at
   a time (the action's memory at 80,000 rows: docs/performance.md);
3. the chunk's `ingest_doctor:finding` events (a few requests: the sourcetype
   breaks events on newlines and takes each event's host from its JSON at index
   time, default/transforms.conf [ingest_doctor_finding_host]), then its records
   in batch saves (an event is never lost: a run cut short after the events is
   redone in full, and the KV store keeps one record per id whatever happens);
4. the Splunk Web messages of new, reopened or escalated findings (and the
   deletion of resolved ones' messages): a failure is logged, never fatal;
5. the webhook, last: a receiver that is down does not keep findings out of
   Splunk.
Rows of the `finding` signal carry findings the collector already judged
(alert_rows.rows_to_reported): they are stored as they are, not judged again,
and no second event is written for them; a resolved one closes its record.
Rows of the `stale` signal (the housekeeping search "Resolve findings no longer seen")
name open records nothing flagged for resolve_after_min minutes: each is resolved in the
same locked read-modify-write, judged on the record as read under the lock, so a finding
flagged after the search listed it stays open (issue 35; the search writes nothing itself).

Issue 23 (nothing lost, nothing forged):
- steps 2-3 run, every chunk, under one hold of the findings store's lock (port.store_lock), so two runs at
  once (the relay and a detection alert in the same minute) never lose an update,
  never both announce "new", and merge `detected_by` and counts;
- a relayed row is taken only from the collector (`detected_by=collector`; the relay
  search also asks for the collector's source in the app's events index), and
  opens or updates only the collector's own records (store.plan / plan_resolution);
- with a webhook, each state change (new, reopened, escalated, resolved) is marked
  pending in its record, in the same save; pending ones of this alert are claimed
  under the lock, posted after it, and their outcome saved under it again: sent,
  still pending (retried on every run of this alert), or failed with why.

A deployment (contract section 5): when the rows carry `tcpin`/`tcpout` connections or cluster peers'
`replication` lines, the findings of the run are linked across instances (deployment/link.py): waiting peers
to their replication target first, then a sender's blocked output (or HEC refusals) to its saturated
receiver; each symptom is stored with `caused_by`, its `mechanism` and a summary naming the cause; only root
causes get a Splunk Web message (naming how many instances they hold back) and a webhook (carrying their
symptoms, each with its mechanism).
"""
from __future__ import annotations

import gc
import os
import re
import time as _time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Protocol, Sequence, Tuple

from ingest_doctor import exitcodes, model
from ingest_doctor.delivery import messages as messages_mod
from ingest_doctor.delivery.holds import Holds
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.alert.payload import (AlertError, BadConfig, Payload, Transient, apply_settings, index_from_macro,
                                         legacy_webhook)
from ingest_doctor.alert.results import read_rows
from ingest_doctor.alert.rows import KNOWN_COLUMNS, Collected, Reported, Stale, split_rows
from ingest_doctor.delivery.store import (Upsert, claim, claimable, delivery_result, finding_event, host_in_event,
                                          kv_key, mark_pending, plan, plan_resolution, plan_stale, record_finding,
                                          record_webhook_body)
from ingest_doctor.deployment import causes, link as link_mod, loops
from ingest_doctor.deployment import topology
from ingest_doctor.evidence import Config, Evidence
from ingest_doctor.findings import Finding, Report, severity_rank

EVENTS_INDEX_MACRO = "ingest_doctor_events_index"
FALLBACK_INDEX = "ingest_doctor"
SOURCE = "ingest_doctor_flag"
DETECTED_BY = "alert_action"
RELAY_DETECTOR = "collector"    # the only detector whose findings the relay search hands over
NOTIFIED_KINDS = ("new", "reopened", "escalated", "resolved")
MAX_HOST = 255                  # a longer "host" is no host name (and its KV key would not fit a URL)


_CONTROL = re.compile("[\x00-\x1f\x7f]")      # a control character (one search, not a loop a character)


def plausible_host(host: Optional[str]) -> bool:
    return host is None or (len(host) <= MAX_HOST and not _CONTROL.search(host))

# diagnose.diagnose, or one called as it is: (evidence, thresholds, finite=...) -> Report
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
        ...                                         # host "": the events name theirs (or this splunkd's)

    def webhook(self, url: str, body: bytes) -> None:
        ...

    def kv_pending(self, search_name: str) -> Dict[str, Dict[str, Any]]:   # this alert's pending deliveries
        ...

    def store_lock(self, owner: str) -> None:      # the findings store's lock (waits, bounded; else Transient)
        ...

    def store_unlock(self, owner: str) -> None:
        ...

    def messages_shown(self) -> Dict[str, str]:     # our Splunk Web messages: name -> severity (info|warn|error)
        ...

    def post_messages(self, plan: messages_mod.MessagePlan) -> None:
        ...

    def stored_webhook_url(self) -> Optional[str]:  # the app's webhook URL, from storage/passwords (None: unset)
        ...

    def holds(self, now: float) -> Holds:           # acknowledgements and running snoozes (delivery/holds.py)
        ...

    def end_acks(self, acks: Sequence[Dict[str, Any]], now: float, why: str) -> None:   # ended, with history
        ...

    def log(self, level: str, category: str, **fields: Any) -> None:
        ...


@dataclass
class Summary:
    """What a run did, counted (the action's closing log line)."""
    rows_hosts: int = 0
    findings: int = 0
    below_min: int = 0
    new: int = 0
    updated: int = 0
    reopened: int = 0
    unchanged: int = 0
    events: int = 0
    webhooks: int = 0
    pending: int = 0  # notifications left pending (retried on the next run of this alert)
    refused: int = 0  # forged or foreign relay rows refused
    reported: int = 0  # findings the collector reported (1-minute search)
    resolved: int = 0
    messages: int = 0
    held: int = 0     # state changes not notified: acknowledged or snoozed (stored as always)
    not_judged: List[str] = field(default_factory=list)


def load_thresholds(macros: Mapping[str, str]) -> thresholds_mod.Thresholds:
    """The generated threshold macros as the admin tuned them: the numbers the searches used."""
    try:
        return thresholds_mod.from_macros(macros, strict=True)[0]
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


def judge(by_host: Mapping[str, Evidence], th: thresholds_mod.Thresholds, min_severity: str,
          diagnose: Diagnose) -> Tuple[List[Finding], int, List[str]]:
    """Each host's evidence through the diagnosis core, one host at a time: with a Collected
    (alert/rows.py) a host's samples reach the core as runs of numbers, never as sample objects, and
    are dropped from it once that host is judged (nothing after the diagnosis reads them)."""
    keep: List[Finding] = []
    below = 0
    notes: List[str] = []
    floor = severity_rank(min_severity)
    for host in sorted(by_host):
        if isinstance(by_host, Collected):         # samples as runs of numbers, checked finite on them
            report = diagnose(by_host.lean(host), th, finite=by_host.finite(host))
            by_host.samples.pop(host, None)        # action RSS budget (300 MB at 80,000 rows): freed as judged
        else:
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
    """One run of the action. Python's cycle collector is paused for it: a run makes hundreds of thousands
    of objects (rows, samples, series, findings) and no reference cycle among them (a 4,000-row run leaves
    none to collect), so the collector's passes, one every 2,000 new objects, would only walk them: ~15%
    of the run's CPU (issue 21). Reference counting frees everything as before; a cycle made anyway is
    collected once the run ends and the collector resumes as it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(payload, port, diagnose, now, rows)
    finally:
        if was_enabled:
            gc.enable()


def _run(payload: Payload, port: Port, diagnose: Diagnose, now: Optional[float],
         rows: Optional[Iterable[Any]]) -> Summary:
    now = _time.time() if now is None else now
    summary = Summary()
    # 1. everything that can be refused, before any write
    stale: List[Stale] = []
    collected, reported = split_rows(rows if rows is not None else read_rows(payload.results_file, KNOWN_COLUMNS),
                                     now, stale)
    by_host = collected.light          # each host's evidence without its samples (they stay numbers)
    peers = collected.cluster_peers    # replication targets by guid, as the search head's search peers name them
    # Hosts that only appear in connection rows (tcpin/tcpout: who sends to whom) are not judged.
    measured = collected.only(h for h, ev in by_host.items() if ev.sources)
    del collected       # action RSS budget (300 MB at 80,000 rows): `measured` alone holds the samples judge frees
    summary.rows_hosts = len(measured)
    macros = port.macros()
    th = load_thresholds(macros)
    index = events_index(payload, macros, port)
    stored = None if "webhook_url" in payload.params.given else port.stored_webhook_url()
    params = apply_settings(payload.params, macros, stored)
    if not stored and legacy_webhook(payload.params, macros):
        port.log("WARN", "config", msg="the webhook URL is in the macro ingest_doctor_webhook_url, readable in "
                                       "clear: save it in the app's notification settings (kept encrypted in "
                                       "storage/passwords) and set the macro back to none")
    payload = replace(payload, params=params)      # the app's settings macros filled in
    summary.not_judged.extend(complete_config(measured.light, port))
    findings, summary.below_min, notes = judge(measured, th, params.min_severity, diagnose)
    summary.not_judged.extend(notes)
    floor = severity_rank(payload.params.min_severity)

    def trusted(r: Reported) -> bool:        # a relayed event only from the collector, and on a plausible host
        return (not r.relayed or r.detected_by == RELAY_DETECTOR) and plausible_host(r.finding.host)
    foreign = [r for r in reported if not trusted(r)]
    if foreign:
        summary.refused = len(foreign)
        port.log("WARN", "relay", msg="finding rows not from the collector (or with no plausible host name) "
                                      "refused: a relayed row may only be the collector's own", refused=len(foreign),
                 detected_by=",".join(sorted({r.detected_by[:40] for r in foreign}))[:200])
    reported = [r for r in reported if trusted(r)]
    odd = [f for f in findings if not plausible_host(f.host)]
    if odd:
        summary.refused += len(odd)
        port.log("WARN", "judge", msg="findings on a host name longer than %d characters or with control "
                                      "characters refused" % MAX_HOST, refused=len(odd))
        findings = [f for f in findings if plausible_host(f.host)]
    kept = [r for r in reported if r.status == "resolved" or severity_rank(r.finding.severity) >= floor]
    summary.below_min += len(reported) - len(kept)
    findings, kept, caused, mechanisms = link_deployment(by_host, findings, kept, peers)
    findings = link_stored(port, findings, caused, mechanisms)
    held_by = link_mod.symptoms(caused)         # root id -> the ids it holds back: the store's and the webhook's
    summary.reported = len(kept)
    summary.findings = len(findings) + sum(1 for r in kept if r.status == "open")
    webhook = payload.params.webhook_url
    if not findings and not kept and not stale:
        port.log("INFO", "judge", msg="no finding at or above min_severity", hosts=len(by_host),
                 below_min=summary.below_min, min_severity=payload.params.min_severity)
        if not webhook:
            return summary
    holds = port.holds(now)
    run_id = "%s#%s" % ((payload.sid or "run")[:80], os.urandom(4).hex())   # secrets.token_hex(4), unimported
    items = ([(kv_key(f.id), f, None, None) for f in sorted(findings, key=lambda x: x.id)]
             + [(kv_key(r.finding.id), r.finding, r, None) for r in sorted(kept, key=lambda r: (r.time, r.finding.id))]
             + [(kv_key(s.id), None, None, s) for s in sorted(stale, key=lambda x: x.id)])
    keys = {it[0] for it in items}
    claimed: List[Dict[str, Any]] = []
    port.store_lock(run_id)
    try:
        # 2. and 3.: read, events, records, a chunk at a time
        planned, changes = _store(port, items, index, now, now - 60.0 * th.resolve_after_min, payload, summary,
                                  caused, held_by, bool(webhook), holds, mechanisms)
        if webhook:
            claimed = [claim(r, run_id, now) for r in port.kv_pending(payload.search_name).values()
                       if claimable(r, payload.search_name, now) and not _snoozed(r, holds, payload.search_name)]
            if claimed:
                port.kv_save(claimed)
    finally:
        _unlock(port, run_id)
    # 4. Splunk Web messages (none for an acknowledged or snoozed change; a resolution still removes its message)
    told = [c for c in changes if c.kind == "resolved" or not holds.held(c.finding, c.kind, payload.search_name)]
    summary.held = len(changes) - len(told)
    if summary.held:
        port.log("INFO", "holds", msg="changes not notified: acknowledged or snoozed (stored as always)",
                 held=summary.held)
    changes = told
    if payload.params.web_messages and (findings or kept or stale):
        summary.messages = post_messages(port, changes, payload.params.min_severity)
    # 5. the webhook: this run's state changes and the earlier ones still pending
    if claimed:
        byid = {f.id: f for f in findings + [r.finding for r in kept]}
        symptoms = {kv_key(f.id): [byid[s] for s in held_by.get(f.id, ()) if s in byid] for f in planned}
        deliver(port, payload, claimed, keys, run_id, now, summary, symptoms, mechanisms)
    return summary


def _snoozed(record: Dict[str, Any], holds: Holds, search_name: str) -> bool:
    """A pending delivery held by a running snooze: it stays pending, sent on the first run after the snooze."""
    try:
        return holds.snoozed(record_finding(record), search_name) is not None
    except ValueError:
        return False


def _unlock(port: Port, run_id: str) -> None:
    """Release the findings store's lock; a failure is logged (the lock expires on its own), never
    raised over what the run is already raising or has done."""
    try:
        port.store_unlock(run_id)
    except AlertError as e:
        port.log("WARN", "kvstore", msg="findings store lock not released; it expires on its own",
                 error=str(e)[:300])


def deliver(port: Port, payload: Payload, claimed: List[Dict[str, Any]], this_run: set, run_id: str, now: float,
            summary: Summary, symptoms: Optional[Dict[str, List[Finding]]] = None,
            mechanisms: Optional[Dict[str, str]] = None) -> None:
    """Post each claimed delivery; then, under the lock, save what became of it. A receiver that is
    down stops this run's posting (the rest stay pending); one that refuses fails that state."""
    outcomes: List[Tuple[Dict[str, Any], str, str]] = []
    down = ""
    refused = ""
    for rec in claimed:
        if down:
            outcomes.append((rec, "retry", "not tried this run: " + down))
            continue
        link = payload.results_link if rec.get("_key") in this_run else ""
        try:
            port.webhook(payload.params.webhook_url, record_webhook_body(rec, payload.search_name, link,
                                                                         (symptoms or {}).get(rec.get("_key"), ()),
                                                                         mechanisms))
            outcomes.append((rec, "sent", ""))
            summary.webhooks += 1
        except AlertError as e:
            if e.code == exitcodes.TRANSIENT:
                down = str(e)[:300]
                outcomes.append((rec, "retry", down))
            else:
                refused = str(e)[:300]
                outcomes.append((rec, "refused", refused))
    port.store_lock(run_id)
    try:
        current = port.kv_read([r["_key"] for r, _, _ in outcomes])
        saves = [x for x in (delivery_result(current.get(r["_key"]), r, o, e, now) for r, o, e in outcomes) if x]
        if saves:
            port.kv_save(saves)
    finally:
        _unlock(port, run_id)
    summary.pending = sum(1 for _, o, _ in outcomes if o == "retry")
    if down:
        raise Transient("%s; %d notification(s) stay pending and are retried on the next run of this alert"
                        % (down, summary.pending))
    if refused:
        raise BadConfig(refused)


def link_deployment(by_host: Dict[str, Evidence], findings: List[Finding], reported: List[Reported],
                    cluster_peers: Sequence[Tuple[str, str, str, str]] = ()
                    ) -> Tuple[List[Finding], List[Reported], Dict[str, Optional[str]], Dict[str, str]]:
    """Link the run's findings across instances when the rows say who sends to whom, or which cluster peers
    wait on which replication target (`cluster_peers`: the targets' guids as the search peers name them);
    otherwise unchanged. Returns the findings (a replication target's receiver thread added when it holds its
    peers back), the reported rows, caused_by and each linked finding's mechanism."""
    hosts = dict(by_host)
    for r in reported:
        h = r.finding.host or ""
        if h and h not in hosts:
            hosts[h] = Evidence(host=h)
    instances = [topology.Instance(h, ev) for h, ev in sorted(hosts.items())]
    if instances and cluster_peers:
        # The search head's list of its search peers, not any instance's: handed to the topology as a cluster
        # manager's peer list is (deployment/topology.py ties each guid to the instance of that name).
        instances[0] = replace(instances[0], cluster_peers=list(cluster_peers))
    topo = topology.build(instances)

    def hosts_ev(host: Optional[str]) -> Evidence:
        return hosts.get(host or "") or Evidence(host=host)
    if not topo.receivers and not topo.replication:
        return findings, reported, {}, {}
    ids = {f.id for f in findings} | {r.finding.id for r in reported}
    linked, rep_caused, mechanisms = link_mod.replication(
        findings + [r.finding for r in reported if r.status == "open"], topo, instances)
    rewritten = {f.id: f for f in linked}
    findings = [rewritten.get(f.id, f) for f in findings] + [f for f in linked if f.id not in ids]
    reported = [replace(r, finding=rewritten[r.finding.id]) if r.status == "open" and r.finding.id in rewritten
                else r for r in reported]
    open_findings = findings + [r.finding for r in reported if r.status == "open"]
    caused = link_mod.link(open_findings, topo)
    caused.update(rep_caused)       # the waiting peers first: a sender's chain ends at their target
    mechanisms.update(link_mod.mechanisms(open_findings, topo, caused))
    # A forwarding loop's root is rewritten as the loop first: its symptoms' advice names the loop's fix.
    looped = {fid: loops.loop_finding(f, hosts, hosts_ev(f.host).config.tcpout_servers)
              for fid, hosts in link_mod.loop_roots(open_findings, topo, caused).items()
              for f in open_findings if f.id == fid}
    byid = {f.id: looped.get(f.id, f) for f in open_findings}

    def fix(f: Finding) -> Finding:
        cause = caused.get(f.id)
        if not cause or cause not in byid or f.id in rep_caused:
            return byid.get(f.id, f)
        return link_mod.explain(f, byid[cause], byid[link_mod.root_of(f.id, caused)], mechanisms.get(f.id, ""))

    return ([fix(f) for f in findings],
            [replace(r, finding=fix(r.finding)) if r.status == "open" else r for r in reported],
            {k: v for k, v in caused.items() if v}, {k: v for k, v in mechanisms.items() if caused.get(k)})


def link_stored(port: Port, findings: List[Finding], caused: Dict[str, Optional[str]],
                mechanisms: Dict[str, str]) -> List[Finding]:
    """A host's HEC refusals this run could not link (the HEC busy alert reads no queues and no receivers) while
    the store holds that host's output open as a receiver's symptom (the Queues alert saw the output's bursts, the
    refusals and the receiver together): linked to the same receiver (link.refusals_behind), so they are no root
    raising HEC threads. `caused` and `mechanisms` are completed in place; nothing is read without such a finding."""
    limit = thresholds_mod.defaults().thread_busy_pct
    loose = {f.id: f for f in findings if f.bottleneck == model.HEC_INPUT and not caused.get(f.id)
             and causes.back_pressure(f, limit)}
    if not loose:
        return findings
    out_key = {fid: kv_key("%s/output/-" % (f.host or "")) for fid, f in loose.items()}
    outputs = port.kv_read(sorted(set(out_key.values())))
    held = {fid: outputs[k] for fid, k in out_key.items()
            if outputs.get(k, {}).get("status") == "open" and outputs[k].get("caused_by")}
    if not held:
        return findings
    cause_recs = port.kv_read(sorted({kv_key(str(r["caused_by"])) for r in held.values()}))
    linked: Dict[str, Finding] = {}
    for fid, rec in sorted(held.items()):
        crec = cause_recs.get(kv_key(str(rec["caused_by"])))
        if not crec or crec.get("status") != "open":
            continue
        try:
            cause = record_finding(crec)
        except ValueError:
            continue
        linked[fid], mechanisms[fid] = link_mod.refusals_behind(loose[fid], cause, str(rec.get("mechanism") or ""))
        caused[fid] = cause.id
    return [linked.get(f.id, f) for f in findings]


# Findings planned, written and saved at a time under the store's lock: action RSS budget (300 MB at 80,000 rows).
PLAN_CHUNK = 2000

# One finding to store, in the order the run plans them: (its KV key, the finding, the collector's row it
# came from, the housekeeping search's row); judged findings have neither row, stale ones only theirs.
Item = Tuple[str, Optional[Finding], Optional[Reported], Optional[Stale]]


def _store(port: Port, items: List[Item], index: str, now: float, cutoff: float, payload: Payload,
           summary: Summary, caused: Dict[str, Optional[str]], held_by: Dict[str, List[str]], webhook: bool,
           holds: Holds, mechanisms: Optional[Dict[str, str]] = None) -> Tuple[List[Finding], List[messages_mod.Change]]:
    """Steps 2 and 3 under the findings store's lock, PLAN_CHUNK items at a time: read the chunk's records,
    plan them (a record planned twice in one run builds on itself), write the events of its judged
    findings, then save the records whose every item is planned. A record waits for a later chunk when its
    key comes again there, or, with a webhook, until its root cause is planned (a symptom whose root is in
    this run rides with the root's notification). So every event is written before its record is saved,
    each record is saved once, with what the whole run planned for it, and a chunk's records, events and
    reads are freed before the next chunk's. An acknowledged finding's change is never marked to send (a
    snoozed one's waits, pending); acknowledgements its saved records end (resolved, escalated) are ended
    once, after the last chunk. Returns the planned findings and the run's state changes."""
    last = {it[0]: i for i, it in enumerate(items)}              # key -> its last item
    stale_last = max((i for i, it in enumerate(items) if it[3] is not None), default=-1)
    note = "resolved: not seen for %d minutes (ingest_doctor_resolve_after_min)" % round((now - cutoff) / 60.0)
    hosts = {it[1].id: it[1].host or "-" for it in items if it[1] is not None} if caused else {}
    existing: Dict[str, Dict[str, Any]] = {}
    read: set = set()
    held: Dict[str, List[Tuple[Finding, Upsert, int]]] = {}      # key -> its planned items, each with its wait
    kinds: Dict[str, str] = {}
    in_run: set = set()
    planned_all: List[Finding] = []
    changes: List[messages_mod.Change] = []
    ended: Dict[str, Dict[str, Any]] = {}
    for start in range(0, len(items), PLAN_CHUNK):
        chunk = items[start:start + PLAN_CHUNK]
        end = start + len(chunk) - 1
        want = list(dict.fromkeys(it[0] for it in chunk if it[0] not in read))
        if want:
            read.update(want)
            existing.update(port.kv_read(want))
        planned: List[Tuple[Finding, Upsert, bool]] = []
        for it in chunk:
            n = len(changes)
            p = _plan_item(it, existing, now, cutoff, note, payload, summary, caused, hosts, held_by, changes,
                           mechanisms)
            if p is None:
                continue
            planned.append(p)
            f, up, _ = p
            planned_all.append(f)
            wait = last[up.key]
            if webhook:     # whether it is notified is known once its id's changes and its root's plan are
                in_run.add(f.id)
                kinds.update((c.finding.id, c.kind) for c in changes[n:])
                root = link_mod.root_of(f.id, caused)
                wait = max(wait, last.get(kv_key(f.id), -1), last.get(kv_key(root), -1),
                           stale_last if root != f.id else -1)
            held.setdefault(up.key, []).append((f, up, wait))
        _write_events(port, index, planned, caused, summary, mechanisms)
        saves: List[Dict[str, Any]] = []
        for key in [k for k, entries in held.items() if max(w for _, _, w in entries) <= end]:
            entries = held.pop(key)
            if webhook:
                for f, up, _ in entries:
                    root = link_mod.root_of(f.id, caused)
                    if kinds.get(f.id) in NOTIFIED_KINDS and not (root != f.id and root in in_run):
                        # an acknowledged finding's change is not sent, ever; a snoozed one's waits (pending)
                        if holds.acked(f, kinds[f.id]) is None:
                            mark_pending(up.record, now, payload.search_name)
            for f, up, _ in entries:
                a = holds.ended(f, str(up.record.get("status")))
                if a is not None:
                    ended[a["finding_id"]] = a
            saves.append(entries[-1][1].record)              # the record as the run last planned it
        if saves:
            port.kv_save(saves)
        for it in chunk:
            if last[it[0]] <= end:
                existing.pop(it[0], None)
    if ended:
        port.end_acks(list(ended.values()), now, "the finding resolved or escalated")
    return planned_all, changes


def _write_events(port: Port, index: str, planned: List[Tuple[Finding, Upsert, bool]],
                  caused: Dict[str, Optional[str]], summary: Summary, mechanisms: Optional[Dict[str, str]] = None
                  ) -> None:
    """The events of the judged findings planned. Events that name their host (the index-time transform sets
    it from the event) go out together: a few requests on one kept-alive connection, whatever the number of
    hosts; any other host's events get a request of their own, with the host as its parameter."""
    batch: List[str] = []
    alone: Dict[str, List[str]] = {}
    for f, up, judged in planned:
        if judged:
            event = finding_event(f, DETECTED_BY, caused.get(f.id), up.finding, (mechanisms or {}).get(f.id))
            if host_in_event(f.host):
                batch.append(event)
            else:
                alone.setdefault(f.host or "", []).append(event)
    for host, events in ([("", batch)] if batch else []) + sorted(alone.items()):
        port.write_events(index, host, events)
        summary.events += len(events)


def _plan_item(it: Item, existing: Dict[str, Dict[str, Any]], now: float, cutoff: float, note: str,
               payload: Payload, summary: Summary, caused: Dict[str, Optional[str]], hosts: Dict[str, str],
               held_by: Dict[str, List[str]], changes: List[messages_mod.Change],
               mechanisms: Optional[Dict[str, str]] = None
               ) -> Optional[Tuple[Finding, Upsert, bool]]:
    """One item's upsert (None: nothing to write), counted in `summary`, its state change appended to
    `changes`; `existing[key]` becomes the planned record, so a key planned again builds on it."""
    key, f, rep, st = it
    if st is not None:
        return _plan_stale_item(key, st, existing, now, cutoff, note, payload, summary, changes)
    fid = f.id
    if rep is not None and rep.status == "resolved":
        up = plan_resolution(existing.get(key), fid, rep.time, rep.resolution, payload.sid, payload.search_name,
                             rep.detected_by)
    elif rep is not None:
        up = plan(existing.get(key), f, now, payload.sid, payload.search_name, rep.detected_by, rep.time,
                  caused.get(fid), (mechanisms or {}).get(fid))
    else:
        up = plan(existing.get(key), f, now, payload.sid, payload.search_name, DETECTED_BY,
                  caused_by=caused.get(fid), mechanism=(mechanisms or {}).get(fid))
    if up is None:
        summary.unchanged += 1
        return None
    existing[key] = up.record
    if up.record.get("status") == "resolved":
        summary.resolved += 1
        changes.append(messages_mod.Change(f, "resolved", rep.resolution if rep else ""))
        return f, up, rep is None
    if up.new:
        summary.new += 1
    else:
        summary.updated += 1
    if up.reopened:
        summary.reopened += 1
    kind = "new" if up.new else "reopened" if up.reopened else "escalated" if up.escalated else "updated"
    if not caused.get(fid):         # a symptom has no message: its root cause's message names it
        held = tuple(sorted({hosts.get(s, s.split("/", 1)[0]) for s in held_by.get(fid, ())}))
        changes.append(messages_mod.Change(f, kind, "", held))
    return f, up, rep is None


def _plan_stale_item(key: str, s: Stale, existing: Dict[str, Dict[str, Any]], now: float, cutoff: float, note: str,
                     payload: Payload, summary: Summary, changes: List[messages_mod.Change]
                     ) -> Optional[Tuple[Finding, Upsert, bool]]:
    """Resolve an open record the housekeeping search listed, judged on the record read under the lock
    (store.plan_stale); no event is written, the message of the one resolved is removed."""
    up = plan_stale(existing.get(key), s.id, cutoff, now, note, payload.sid, payload.search_name)
    try:
        f = None if up is None else record_finding(up.record)
    except ValueError:      # not a record the app wrote (no known bottleneck or severity): left as it is
        f = None
    if up is None or f is None:
        summary.unchanged += 1
        return None
    existing[key] = up.record
    summary.resolved += 1
    if f.id == s.id:
        changes.append(messages_mod.Change(f, "resolved", note))
    return f, up, False


def post_messages(port: Port, changes: List[messages_mod.Change], min_severity: str) -> int:
    """Post and delete this run's Splunk Web messages, and sweep the messages of findings resolved
    since by a run whose messages failed, or by hand. A failure is logged: the findings are stored."""
    floor = max(("warning", min_severity), key=severity_rank)
    try:
        shown = port.messages_shown()
        mplan = messages_mod.plan(changes, messages_mod.MAX_PER_RUN, floor, shown)
        keys = messages_mod.shown_keys(shown)
        if keys:
            gone = messages_mod.stale(shown, port.kv_read(keys), [p.name for p in mplan.posts])
            mplan.deletes.extend(n for n in gone if n not in mplan.deletes)
        if mplan:
            port.post_messages(mplan)
    except AlertError as e:
        if e.code == exitcodes.AUTH:
            raise
        port.log("WARN", "messages", msg="Splunk Web messages not posted; the findings are stored",
                 error=str(e)[:300])
        return 0
    if mplan.held:
        port.log("INFO", "messages", msg="message cap reached; the rest are summed up in one message",
                 cap=messages_mod.MAX_PER_RUN, held=mplan.held)
    return len(mplan.posts)
