"""Known splunkd thread names: the one table that maps Linux's 15-character
thread names (`/proc/<pid>/task/<tid>/comm`) back to the names splunkd logs and
the rest of the app uses (lowercase, e.g. `httpinputserverdatathread`).

Linux truncates a thread name to 15 bytes: `HttpInputServerDataThread` shows
as `HttpInputServer`. A truncated name maps back when exactly one known name
starts with it; anything else passes through lowercased, so an unknown thread
is reported under the name the kernel gives rather than dropped.
"""
from __future__ import annotations

from typing import Dict, Optional

from . import model

COMM_MAX = 15

# Thread names as splunkd writes them in splunkd.log `[tid name]` and metrics.log
# (dutycycle, pipelinesets). The pipeline model's own threads come first.
KNOWN_THREADS = (
    "HttpInputServerDataThread",
    "TcpOutEloop",
    "indexerPipe",
    "parsing",
    "merging",
    "aggregator",
    "typing",
    "indexing",
    "TcpChannelThread",
    "TcpListenerThread",
    "HTTPDispatch",
    "HttpClientPollingThread",
    "DistributedPeerMonitorThread",
    "DistributedRestCallerThread",
    "AuditTrailManagerTimerThread",
    "CallbackRunnerThread",
    "ExecProcessor",
    "ArchiveProcessor",
    "TailingProcessor",
    "FilesystemChangeWatcher",
    "SchedulerThread",
    "DispatchReaper",
    "BucketSummaryActorThread",
    "ApplicationLicenseThread",
    "MainTailingThread",
    "tailreader0",
    "batchreader0",
)

# Every stage thread of the model is known too (one source: model.STAGES).
_ALL = {t.lower() for t in KNOWN_THREADS}
for _stage in model.STAGES:
    _ALL.update(t.lower() for t in _stage.threads)

_BY_PREFIX: Dict[str, Optional[str]] = {}
for _name in sorted(_ALL):
    _key = _name[:COMM_MAX]
    # Two known names sharing the first 15 characters are ambiguous: keep neither.
    _BY_PREFIX[_key] = _name if _key not in _BY_PREFIX else None


def full_name(comm: str) -> str:
    """`HttpInputServer` -> `httpinputserverdatathread`; unknown names lowercased as they are."""
    low = comm.strip().lower()
    if len(low) >= COMM_MAX:
        hit = _BY_PREFIX.get(low[:COMM_MAX])
        if hit:
            return hit
    return low
