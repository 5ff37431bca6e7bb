"""When a finding ends, and what the admin changed to end it.

`applied_changes(finding, config)` compares the finding's recommendations
(each names a setting and its value when the finding was made) with the
instance's configuration now: "dedicatedIoThreads 2 -> 8" when the admin
applied the change. `OpenFindings` is the collector's memory of the findings
it reported: each poll it says which are new, escalated or gone. A finding is
gone once it has been absent (or below `warning`) for `quiet_polls` polls in a
row, so a finding that hovers at its threshold does not open and close on
every poll; its resolution carries the note, so the admin sees that the
change worked ("resolved after dedicatedIoThreads 2 -> 8").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ingest_doctor.evidence import Config
from ingest_doctor.findings import Finding, severity_rank
from ingest_doctor.delivery.messages import Change
from ingest_doctor.read.rest import as_str

QUIET_POLLS = 6         # one minute at the default 10 s poll interval


def _queue_size(cfg: Config, stanza: Optional[str]) -> Optional[str]:
    name = (stanza or "").partition("=")[2] or "default"
    return cfg.queue_max_size.get(name)


# (conf file, setting) -> the setting's value now, read from the collector's Config.
_CURRENT: Dict[Tuple[str, str], Callable[[Config, Optional[str]], Optional[str]]] = {
    ("inputs.conf", "dedicatedIoThreads"): lambda c, s: as_str(c.dedicated_io_threads),
    ("inputs.conf", "maxThreads"): lambda c, s: as_str(c.max_threads),
    ("inputs.conf", "maxSockets"): lambda c, s: as_str(c.max_sockets),
    ("server.conf", "parallelIngestionPipelines"): lambda c, s: as_str(c.parallel_ingestion_pipelines),
    ("server.conf", "pipelineSetSelectionPolicy"): lambda c, s: as_str(c.pipeline_set_selection_policy),
    ("server.conf", "maxSize"): _queue_size,
    ("outputs.conf", "compressed"): lambda c, s: as_str(c.tcpout_compressed),
    ("outputs.conf", "useACK"): lambda c, s: as_str(c.tcpout_use_ack),
}


def current_value(cfg: Config, conf_file: Optional[str], stanza: Optional[str], setting: Optional[str]) -> Optional[str]:
    if not conf_file or not setting:
        return None
    if conf_file == "props.conf":
        return (cfg.props.get(stanza or "") or {}).get(setting)
    read = _CURRENT.get((conf_file, setting))
    return read(cfg, stanza) if read else None


def applied_changes(recommendations: List[Mapping[str, Any]], cfg: Config) -> List[str]:
    """"setting old -> new" for each recommended setting whose value changed since the finding."""
    out: List[str] = []
    for r in recommendations:
        before = r.get("current")
        now = current_value(cfg, r.get("conf_file"), r.get("stanza"), r.get("setting"))
        if before in (None, "") or now is None or str(before).lower() == now.lower():
            continue
        item = "%s %s -> %s" % (r["setting"], before, now)
        if item not in out:
            out.append(item)
    return out


def resolution_note(finding: Finding, cfg: Config) -> str:
    changed = applied_changes([r.to_dict() for r in finding.recommendations], cfg)
    if changed:
        return "resolved after " + ", ".join(changed)
    return "resolved: the signal is gone (no configuration change seen)"


def resolved_event(finding: Finding, note: str, now: float, detected_by: str = "collector") -> Dict[str, Any]:
    """The ingest_doctor:finding event closing a finding (docs/events.md)."""
    d = finding.to_dict()
    d.update({"detected_by": detected_by, "status": "resolved", "resolved_at": round(now, 3), "resolution": note})
    return d


@dataclass
class Tracked:
    changes: List[Change] = field(default_factory=list)
    resolved: List[Dict[str, Any]] = field(default_factory=list)     # events to write


class OpenFindings:
    """The findings (warning and above) one collector has open, across polls."""

    def __init__(self, quiet_polls: int = QUIET_POLLS):
        self.quiet_polls = max(1, quiet_polls)
        self._open: Dict[str, Tuple[Finding, int]] = {}      # id -> (latest finding, polls absent)

    def __len__(self) -> int:
        return len(self._open)

    def update(self, findings: List[Finding], cfg: Config, now: float) -> Tracked:
        out = Tracked()
        present = set()
        for f in findings:
            if severity_rank(f.severity) < severity_rank("warning"):
                continue
            present.add(f.id)
            prev = self._open.get(f.id)
            if prev is None:
                out.changes.append(Change(f, "new"))
            elif severity_rank(f.severity) > severity_rank(prev[0].severity):
                out.changes.append(Change(f, "escalated"))
            self._open[f.id] = (f, 0)
        for fid in sorted(set(self._open) - present):
            f, absent = self._open[fid]
            absent += 1
            if absent < self.quiet_polls:
                self._open[fid] = (f, absent)
                continue
            del self._open[fid]
            note = resolution_note(f, cfg)
            out.changes.append(Change(f, "resolved", note))
            out.resolved.append(resolved_event(f, note, now))
        return out
