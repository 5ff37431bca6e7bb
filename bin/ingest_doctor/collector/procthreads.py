"""Per-thread CPU of one process from a /proc tree: busy % of one core, by thread.

No REST endpoint gives per-thread CPU (resource-usage only counts threads), so
the collector reads `/proc/<pid>/task/<tid>/stat` on each poll: utime + stime
(clock ticks) between two polls, divided by the elapsed time and CLK_TCK, is
the share of one core that thread used. 100 means one core pegged, whatever
the host's core count: the "4% of 24 cores is one core pegged" trap is visible
here directly.

The /proc root is a parameter so tests use a synthetic tree. Reads are raw
bytes through os.open/os.read: this runs every poll over a few hundred threads.
"""
from __future__ import annotations

import heapq
import os
from dataclasses import dataclass
from typing import Container, Dict, List, Optional, Tuple

from ingest_doctor.collector.metrics_events import THREAD_MIN_PCT
from ingest_doctor.threadnames import full_name, watched

DEFAULT_PROC = "/proc"
REST_S = 60.0           # an idle thread the pipeline model does not know is read this often (ThreadCpu)


def clock_ticks() -> int:
    try:
        return int(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100


def splunkd_pid(splunk_home: Optional[str], proc_root: str = DEFAULT_PROC,
                fallback: Optional[int] = None) -> Tuple[Optional[int], str]:
    """The main splunkd pid and where it came from.

    `$SPLUNK_HOME/var/run/splunk/splunkd.pid` holds it (first number of the first
    line); when that file is missing, unreadable or names a process that is gone,
    the fallback (the modular input's parent, which is splunkd) is used.
    """
    if splunk_home:
        path = os.path.join(splunk_home, "var", "run", "splunk", "splunkd.pid")
        try:
            with open(path, "rb") as f:
                first = f.readline().split()
            pid = int(first[0]) if first else None
        except (OSError, ValueError):
            pid = None
        if pid and os.path.isdir(os.path.join(proc_root, str(pid), "task")):
            return pid, "splunkd.pid"
    if fallback and os.path.isdir(os.path.join(proc_root, str(fallback), "task")):
        return fallback, "parent"
    return None, "none"


def _read(path: str) -> Optional[bytes]:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)


def parse_stat(raw: bytes) -> Optional[Tuple[bytes, int]]:
    """(comm, utime + stime ticks) from one `stat` line.

    comm sits in parentheses and may itself hold spaces or ')': split at the
    last ')'. After it come field 3 (state) onwards; utime and stime are
    fields 14 and 15.
    """
    open_at = raw.find(b"(")
    close_at = raw.rfind(b")")
    if open_at < 0 or close_at < open_at:
        return None
    rest = raw[close_at + 1:].split()
    if len(rest) < 13:
        return None
    try:
        ticks = int(rest[11]) + int(rest[12])
    except ValueError:
        return None
    return raw[open_at + 1:close_at], ticks


def _pread(fd: int) -> Optional[bytes]:
    """A stat file's content from its start, or None when the thread is gone."""
    try:
        return os.pread(fd, 4096, 0)
    except OSError:
        return None


def _tasks(proc_root: str, pid: int) -> Optional[Tuple[str, List[str]]]:
    """(the task folder of `pid`, the thread ids it lists), or None when it cannot be listed."""
    task_dir = os.path.join(proc_root, str(pid), "task")
    try:
        return task_dir, [name for name in os.listdir(task_dir) if name.isdigit()]
    except OSError:
        return None


def read_threads(proc_root: str, pid: int) -> Dict[int, Tuple[bytes, int]]:
    """tid -> (comm as bytes, cumulative CPU ticks) for every thread of `pid` readable now."""
    out: Dict[int, Tuple[bytes, int]] = {}
    task_dir, names = _tasks(proc_root, pid) or ("", [])
    for name in names:
        raw = _read(task_dir + "/" + name + "/stat")
        if raw is None:          # the thread ended between listdir and open
            continue
        parsed = parse_stat(raw)
        if parsed is not None:
            out[int(name)] = parsed
    return out


def _open_cap() -> int:
    """How many stat files may stay open: at most 1024 and a quarter of the descriptor limit."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 256
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return 1024
    return max(0, min(1024, soft // 4))


class StatFiles:
    """Each thread's stat file kept open between polls.

    Reading /proc/<pid>/task/<tid>/stat again from offset 0 regenerates it, so a
    poll costs one pread per thread instead of open + read + close. The task
    folder's listing is the truth: a file of a thread no longer listed is closed,
    and a read that fails (the thread ended, its id maybe reused) reopens by path.
    Open descriptors are capped (`_open_cap`); beyond the cap files are read and
    closed as `read_threads` does.
    """

    def __init__(self, proc_root: str = DEFAULT_PROC):
        self.proc_root = proc_root
        self.pid: Optional[int] = None
        self.fds: Dict[int, int] = {}
        self.cap = _open_cap()
        # The readings of the listed threads (their last read, for those left unread), and their bytes.
        self._parsed: Dict[int, Tuple[bytes, int]] = {}
        self._raw: Dict[int, bytes] = {}
        self._names: List[str] = []                         # the last listing, its thread ids, and both
        self._task_dir: Optional[str] = None                # the task folder of `pid`
        self._tids: List[int] = []
        self._pairs: List[Tuple[int, str]] = []
        self.listing_changed = False                        # the last read's listing differed from the one before
        self.failed: List[int] = []                         # the last read's threads tried but without a reading

    @property
    def tids(self) -> List[int]:
        """The thread ids of the last listing."""
        return self._tids

    def read(self, pid: int, skip: Container[int] = ()) -> Dict[int, Tuple[bytes, int]]:
        """tid -> (comm, ticks) of the listed threads, but those in `skip`: they are left unread, their
        files kept open and their last readings kept (`_parsed`). Only the threads read cost a step:
        what is kept for the others changes only when the listing does."""
        if pid != self.pid:
            self.close()
            self.pid = pid
        out: Dict[int, Tuple[bytes, int]] = {}
        task_dir = self._task_dir
        if task_dir is None:
            task_dir = self._task_dir = os.path.join(self.proc_root, str(pid), "task")
        try:
            listing = os.listdir(task_dir)
        except OSError:
            self.close()
            self.listing_changed, self.failed = True, []
            return out
        parsed, last_raw, fds = self._parsed, self._raw, self.fds
        self.listing_changed = listing != self._names
        if self.listing_changed:                # the listing changed (or is new): its thread ids, once
            self._names = listing
            names = [name for name in listing if name.isdigit()]
            self._tids = [int(name) for name in names]
            self._pairs = list(zip(self._tids, names))
            live = set(self._tids)
            for tid in [t for t in fds if t not in live]:       # files of threads no longer listed: closed
                os.close(fds.pop(tid))
            for tid in [t for t in parsed if t not in live]:
                del parsed[tid]
                last_raw.pop(tid, None)
        pairs = [p for p in self._pairs if p[0] not in skip] if skip else self._pairs
        pread = os.pread
        failed: List[int] = []
        # The common case first: a kept file, the same bytes as last poll (an idle thread).
        for tid, name in pairs:
            fd = fds.get(tid)
            raw = None
            if fd is not None:
                try:
                    raw = pread(fd, 4096, 0)
                except OSError:
                    raw = None
                if not raw:
                    os.close(fds.pop(tid))
                    raw = None
            if raw is None:
                try:
                    fd = os.open(task_dir + "/" + name + "/stat", os.O_RDONLY)
                except OSError:          # the thread ended between listdir and open
                    failed.append(tid)
                    continue
                raw = _pread(fd)
                if raw and len(fds) < self.cap:
                    fds[tid] = fd
                else:
                    os.close(fd)
                if not raw:
                    failed.append(tid)
                    continue
            if raw == last_raw.get(tid):
                out[tid] = parsed[tid]          # the same bytes as last poll: parsed already
                continue
            reading = parse_stat(raw)
            if reading is not None:
                out[tid] = parsed[tid] = reading
                last_raw[tid] = raw
            else:
                failed.append(tid)
        for tid in failed:                      # no reading now: none kept
            parsed.pop(tid, None)
            last_raw.pop(tid, None)
        self.failed = failed
        return out

    def close(self) -> None:
        for fd in self.fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = {}
        self._parsed, self._raw = {}, {}
        self._names, self._tids, self._pairs = [], [], []
        self._task_dir = None


@dataclass
class ThreadBusy:
    tid: int
    comm: str          # as the kernel gives it (15 characters at most)
    thread: str        # full lowercase name where known
    busy_pct: float    # % of one core over the last interval


class ThreadCpu:
    """Turns successive readings into busy % per thread.

    The first reading only sets the baseline; a thread seen for the first time
    gets a value from its second reading on. State is pruned to the threads
    alive in the last reading, so memory follows the live thread count.

    Not every thread is read every poll. Read every poll: the threads whose
    names the pipeline model knows (`threadnames.watched`: the stages' threads,
    HEC's, the file monitor's), any thread busy at least `floor_pct` (the
    metrics' reporting floor) at its last read, and new threads. The others
    (idle, and not the pipeline's: most of splunkd's few hundred) rest and are
    read once every `rest_s` (a minute), at the first poll that long after
    their last read; their busy % is then their share of one core over that
    whole interval, reported on that poll. So nothing is dropped: a thread that
    starts working is reported within about a minute, only at a coarser
    cadence while its name is not one the model knows. When a resting thread is
    first put to rest its first read comes a fraction of `rest_s` later (by
    its tid), so the resting threads' reads spread over the polls instead of
    all landing on one poll a minute.
    """

    def __init__(self, proc_root: str = DEFAULT_PROC, clk_tck: Optional[int] = None,
                 floor_pct: float = THREAD_MIN_PCT, rest_s: float = REST_S):
        self.proc_root = proc_root
        self.files = StatFiles(proc_root)
        self.clk_tck = clk_tck or clock_ticks()
        self.floor_pct = floor_pct
        self.rest_s = rest_s
        self.pid: Optional[int] = None
        self._last: Dict[int, Tuple[bytes, int]] = {}
        self._last_time: Optional[float] = None
        self._names: Dict[bytes, Tuple[str, str, bool]] = {}   # comm -> (comm text, full name, watched)
        self._idle: Dict[int, ThreadBusy] = {}             # tid -> its sample, of threads idle last poll
        self._resting: Dict[int, Tuple[float, float]] = {}  # tid -> (its last read, its next read)
        self._dues: List[Tuple[float, int]] = []            # heap of (next read, tid) of the resting threads

    def sample(self, pid: int, now: float) -> List[ThreadBusy]:
        if pid != self.pid:                 # splunkd restarted: new baseline
            self.pid, self._last, self._last_time, self._idle, self._resting = pid, {}, None, {}, {}
            self._dues = []
        resting, dues = self._resting, self._dues
        # The resting threads due now wake (are read); the others stay resting, unread, their state as it is.
        waking: Dict[int, Tuple[float, float]] = {}
        while dues and dues[0][0] <= now:
            due, tid = heapq.heappop(dues)
            at = resting.get(tid)
            if at is not None and at[1] == due:
                waking[tid] = resting.pop(tid)
        files = self.files
        current = files.read(pid, resting)
        last = self._last
        if files.listing_changed:           # state follows the live threads
            live = set(files.tids)
            for state in (last, resting):
                for tid in [t for t in state if t not in live]:
                    del state[tid]
        out: List[ThreadBusy] = []
        last_time = self._last_time
        if last_time is not None and now > last_time:
            scales = {last_time: 100.0 / ((now - last_time) * self.clk_tck)}   # read at -> ticks to %
            names = self._names
            idle, was_idle = {}, self._idle
            floor, rest_s = self.floor_pct, self.rest_s
            append = out.append
            for tid, cur in current.items():
                before = last.get(tid)
                if before is None:
                    continue
                comm = cur[0]
                name = names.get(comm)
                if name is None:
                    text = comm.decode("utf-8", "replace")
                    full = full_name(text)
                    name = names[comm] = (text, full, watched(full))
                    if len(names) > 4096:          # bounded even if thread names churn
                        names.clear()
                if cur is before:                   # the same reading (an idle thread): no CPU used
                    busy = was_idle.get(tid)        # idle last poll too: the same sample again
                    if busy is None:
                        busy = ThreadBusy(tid, name[0], name[1], 0.0)
                    idle[tid] = busy
                else:
                    ticks = cur[1]
                    if ticks < before[1]:
                        continue
                    read_at = waking[tid][0] if tid in waking else last_time
                    scale = scales.get(read_at)
                    if scale is None:
                        scale = scales[read_at] = 100.0 / ((now - read_at) * self.clk_tck)
                    busy = ThreadBusy(tid, name[0], name[1], (ticks - before[1]) * scale)
                append(busy)
                if busy.busy_pct < floor and not name[2]:    # idle, and not the pipeline's: rests
                    due = now + (rest_s * (1 + tid % 6) / 6.0 if tid not in waking else rest_s)
                    resting[tid] = (now, due)
                    heapq.heappush(dues, (due, tid))
            self._idle = idle
        # The threads read are the baseline now; the resting threads' last readings stay it.
        last.update(current)
        for tid in files.failed:
            last.pop(tid, None)
        self._last_time = now
        return out
