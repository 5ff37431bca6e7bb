"""Known splunkd thread names: the one table that maps Linux's 15-character
thread names (`/proc/<pid>/task/<tid>/comm`) back to the names splunkd logs and
the rest of the app uses (lowercase, e.g. `httpinputserverdatathread`).

Linux truncates a thread name to 15 bytes: `IndexerTPoolWorker-3` shows as
`IndexerTPoolWor`. A truncated name maps back when exactly one known name starts
with it; anything else passes through lowercased, so an unknown thread is
reported under the name the kernel gives rather than dropped. Two known names
can share their first 15 characters: `HttpInputServerDataThread` (HEC's data
thread) and `HttpInputServerManagementThread` both show as `HttpInputServer`.
Such a name stays as the kernel gives it (`httpinputserver`) and `candidates()`
names what it may be: /proc alone cannot tell them apart, metrics.log's
dutycycle decides.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ingest_doctor import model


COMM_MAX = 15

# Thread names as splunkd writes them in splunkd.log `[tid name]` and metrics.log
# (dutycycle, pipelinesets), besides the pipeline model's own (model.STAGES, added below).
KNOWN_THREADS = (
    "HttpInputServerManagementThread",
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
_SHARED: Dict[str, List[str]] = {}
for _name in sorted(_ALL):
    _key = _name[:COMM_MAX]
    _SHARED.setdefault(_key, []).append(_name)
    # Two known names sharing the first 15 characters are ambiguous: keep neither.
    _BY_PREFIX[_key] = _name if _key not in _BY_PREFIX else None
AMBIGUOUS: Dict[str, Tuple[str, ...]] = {k: tuple(v) for k, v in _SHARED.items() if len(v) > 1}

# The threads the pipeline model knows, which the collector reads every poll (procthreads.py): each
# stage's threads (HEC's, the pipelines', the output's), the file monitor's, and the names /proc shares
# between two known threads (HEC's data and management threads both show as `httpinputserver`).
FILE_MONITOR_THREADS = ("tailingprocessor", "maintailingthread", "tailreader0", "batchreader0")
WATCHED = frozenset([t for s in model.STAGES for t in s.threads] + list(FILE_MONITOR_THREADS)
                    + list(model.INPUT_THREADS) + list(AMBIGUOUS))

# Worker pools number their threads (`IndexerTPoolWorker-3`): one name for the pool.
POOL = re.compile(r"(?P<base>.*\D)-\d+")


def pool_name(name: str) -> str:
    """`indexertpoolworker-3` -> `indexertpoolworker` for a known pool; anything else unchanged."""
    m = POOL.fullmatch(name)
    return m.group("base") if m and m.group("base") in _ALL else name


def full_name(comm: str) -> str:
    """`IndexerTPoolWor` and `IndexerTPoolWorker-3` -> `indexertpoolworker`; `HttpInputServer` stays
    `httpinputserver` (ambiguous); unknown names lowercased as they are."""
    low = pool_name(comm.strip().lower())
    if len(low) >= COMM_MAX and low not in _ALL:
        hit = _BY_PREFIX.get(low[:COMM_MAX])
        if hit:
            return hit
    return low


def candidates(name: str) -> Tuple[str, ...]:
    """The known threads a truncated, ambiguous name may be (empty when it is not ambiguous)."""
    return AMBIGUOUS.get(name.lower(), ())


def watched(name: str) -> bool:
    """A full name (`full_name`) the pipeline model knows: its thread is read every poll."""
    return name in WATCHED
