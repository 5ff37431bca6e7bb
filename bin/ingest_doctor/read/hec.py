"""HEC health probes (`hec/health.json`, or the collector's own probes) -> Evidence.

A probe: {"time": 1763805600.0, "status": 200, "rtt_ms": 3.1,
          "body": {"text": "HEC is healthy", "code": 17}}; a failed connection has
status null. Codes 18-20 are the unhealthy answers (queues full, ack service); what each code
means is model.HEC_CODES.
"""
from __future__ import annotations

from typing import Any, List, Optional

from ingest_doctor import model
from ingest_doctor.evidence import Evidence, HecProbe
from ingest_doctor.read.rest import as_float, as_int, as_str, error_message, loads


SOURCE = "hec/health.json"


class HecProbeError(ValueError):
    pass


def probe_from_dict(d: Any, source: str = SOURCE) -> Optional[HecProbe]:
    if not isinstance(d, dict):
        return None
    body = d.get("body")
    code = text = None
    if isinstance(body, dict):
        code, text = as_int(body.get("code")), as_str(body.get("text"))
    elif isinstance(body, str):
        try:
            parsed = loads(body)
            if isinstance(parsed, dict):
                code, text = as_int(parsed.get("code")), as_str(parsed.get("text"))
        except ValueError:
            text = body[:200]
    return HecProbe(as_float(d.get("time")), as_int(d.get("status")), code, as_float(d.get("rtt_ms")),
                    as_str(d.get("kind")) or "health", text or "", source)


def apply_probes(evidence: Evidence, data: Any, source: str = SOURCE) -> int:
    """Add a list of probe dicts; returns how many were usable. Raises HecProbeError if not a list."""
    if not isinstance(data, list):
        raise HecProbeError("not a list of HEC health probes")
    n = 0
    for d in data:
        p = probe_from_dict(d, source)
        if p is not None:
            evidence.hec_probes.append(p)
            n += 1
    evidence.saw(source)
    return n


def parse_text(text: str) -> List[Any]:
    try:
        data = loads(text)
    except ValueError as e:
        raise HecProbeError("malformed JSON (%s)" % error_message(e)) from None
    if not isinstance(data, list):
        raise HecProbeError("not a list of HEC health probes")
    return data
