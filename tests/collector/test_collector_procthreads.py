"""Per-thread CPU from /proc: a synthetic tree, then the test process's own threads."""
import os
import threading
import time

import pytest

from ingest_doctor.collector import procthreads
from ingest_doctor import threadnames

CLK = 100
# A /proc/<pid>/task/<tid>/stat line: tid (comm), then state ppid pgrp session tty_nr tpgid flags minflt cminflt
# majflt cmajflt utime stime ...
STAT = "%d (%s) S 1 1 1 0 -1 4194560 120 0 0 0 %d %d 0 0 20 0 89 0 1234 0 0\n"


def _write(root, pid, threads):
    """threads: {tid: (comm, utime, stime)}; replaces the task folder's content."""
    task = root / str(pid) / "task"
    task.mkdir(parents=True, exist_ok=True)
    for old in task.iterdir():
        if int(old.name) not in threads:
            (old / "stat").unlink()
            old.rmdir()
    for tid, (comm, u, s) in threads.items():
        d = task / str(tid)
        d.mkdir(exist_ok=True)
        (d / "stat").write_text(STAT % (tid, comm, u, s))


def test_busy_percent_of_one_core_per_thread(tmp_path):
    _write(tmp_path, 1703, {1703: ("splunkd", 500, 100), 1801: ("HttpInputServer", 1000, 0),
                            1802: ("indexerPipe", 200, 10), 1803: ("TcpChannelThread", 5, 5)})
    cpu = procthreads.ThreadCpu(str(tmp_path), CLK)
    assert cpu.sample(1703, 100.0) == []          # the first reading is the baseline
    # 10 s later: HEC thread used 9.9 s of CPU (990 ticks), indexerPipe 2 s, the channel thread nothing.
    _write(tmp_path, 1703, {1703: ("splunkd", 510, 100), 1801: ("HttpInputServer", 1900, 90),
                            1802: ("indexerPipe", 350, 60), 1803: ("TcpChannelThread", 5, 5)})
    got = {t.tid: t for t in cpu.sample(1703, 110.0)}
    # HttpInputServerDataThread and HttpInputServerManagementThread both show as HttpInputServer (issue 12).
    assert got[1801].thread == "httpinputserver"
    assert got[1801].comm == "HttpInputServer"
    assert got[1801].busy_pct == pytest.approx(99.0)
    assert got[1802].thread == "indexerpipe" and got[1802].busy_pct == pytest.approx(20.0)
    assert got[1803].busy_pct == 0.0
    assert got[1703].busy_pct == pytest.approx(1.0)


def test_new_ended_and_reused_threads(tmp_path):
    _write(tmp_path, 9, {10: ("parsing", 100, 0), 11: ("typing", 100, 0)})
    cpu = procthreads.ThreadCpu(str(tmp_path), CLK)
    cpu.sample(9, 0.0)
    # 11 ended, 12 appeared, 10's counter went backwards (tid reused by a new thread).
    _write(tmp_path, 9, {10: ("parsing", 50, 0), 12: ("merging", 300, 0)})
    assert cpu.sample(9, 1.0) == []
    _write(tmp_path, 9, {10: ("parsing", 100, 0), 12: ("merging", 350, 0)})
    got = {t.tid: t.busy_pct for t in cpu.sample(9, 2.0)}
    assert got == {10: pytest.approx(50.0), 12: pytest.approx(50.0)}
    assert set(cpu._last) == {10, 12}             # state follows the live threads only


def test_comm_with_spaces_and_parentheses_and_garbage(tmp_path):
    _write(tmp_path, 5, {6: ("odd) name (x", 10, 10)})
    task = tmp_path / "5" / "task"
    (task / "7").mkdir()
    (task / "7" / "stat").write_text("garbage without fields")
    (task / "notatid").mkdir()
    assert procthreads.read_threads(str(tmp_path), 5) == {6: (b"odd) name (x", 20)}
    assert procthreads.read_threads(str(tmp_path), 999) == {}


def test_truncated_names_map_back_to_full_names():
    # HEC's data thread and its management thread share their first 15 characters: /proc cannot tell them
    # apart, so the name stays as the kernel gives it and names what it may be (issue 12).
    assert threadnames.full_name("HttpInputServer") == "httpinputserver"
    assert threadnames.candidates("httpinputserver") == ("httpinputserverdatathread",
                                                         "httpinputservermanagementthread")
    assert threadnames.candidates("indexerpipe") == ()
    # 9.x index writer pool: IndexerTPoolWorker-N, truncated or numbered, is one pool of the indexing stage.
    assert threadnames.full_name("IndexerTPoolWor") == threadnames.full_name("IndexerTPoolWorker-3") == \
        "indexertpoolworker"
    assert threadnames.full_name("DistributedPeer") == "distributedpeermonitorthread"
    assert threadnames.full_name("indexerPipe") == "indexerpipe"
    assert threadnames.full_name("tailreader0") == "tailreader0"
    # Unknown 15-character names pass through lowercased, never dropped.
    assert threadnames.full_name("SomethingNewThr") == "somethingnewthr"
    # Two known names share "Distributed" but differ within 15 characters: both map.
    assert threadnames.full_name("DistributedRest") == "distributedrestcallerthread"


def test_splunkd_pid_from_pid_file_else_parent(tmp_path):
    proc = tmp_path / "proc"
    (proc / "4242" / "task").mkdir(parents=True)
    (proc / "77" / "task").mkdir(parents=True)
    home = tmp_path / "splunk"
    run = home / "var" / "run" / "splunk"
    run.mkdir(parents=True)
    (run / "splunkd.pid").write_text("4242\n4243\n")
    assert procthreads.splunkd_pid(str(home), str(proc), 77) == (4242, "splunkd.pid")
    for text in ("999\n", "not a pid"):                 # stale (that process is gone), then unreadable
        (run / "splunkd.pid").write_text(text)
        assert procthreads.splunkd_pid(str(home), str(proc), 77) == (77, "parent"), text
    assert procthreads.splunkd_pid(None, str(proc), 78) == (None, "none")


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_own_process_busy_thread_shows_busy():
    """A thread spinning in this process reads near one core; a sleeping one near zero.
    The spinning thread is renamed like splunkd's HEC thread, which Linux cuts to 15
    characters: the accounting maps it back to its full name."""
    stop = threading.Event()
    tids = {}

    def spin():
        tids["busy"] = threading.get_native_id()
        tids["clock"] = time.pthread_getcpuclockid(threading.get_ident())
        while not stop.is_set():
            pass

    def sleep():
        tids["idle"] = threading.get_native_id()
        stop.wait(30)

    threads = [threading.Thread(target=spin, daemon=True), threading.Thread(target=sleep, daemon=True)]
    for t in threads:
        t.start()
    try:
        while len(tids) < 3:
            time.sleep(0.01)
        comm = "/proc/self/task/%d/comm" % tids["busy"]
        try:
            with open(comm, "w") as f:
                f.write("HttpInputServerDataThread")
        except OSError:
            pass
        cpu = procthreads.ThreadCpu()
        pid = os.getpid()

        def sample(now):
            # The spinner's own CPU clock, read from here on both sides of the /proc read: while this
            # thread holds the GIL the spinner cannot run, so the two readings bracket what /proc saw
            # however late the scheduler lets this thread in.
            before = time.clock_gettime(tids["clock"])
            got = cpu.sample(pid, now)
            return got, (before + time.clock_gettime(tids["clock"])) / 2.0

        t0 = time.monotonic()
        _, cpu0 = sample(t0)
        time.sleep(1.0)
        t1 = time.monotonic()
        got, cpu1 = sample(t1)
        got = {t.tid: t for t in got}
        busy, idle = got[tids["busy"]], got[tids["idle"]]
        # How much CPU the spinner gets depends on the machine's load; what the accounting must get
        # right is the share it did get, as the thread's own clock measured it (ticks are 10 ms).
        truth = (cpu1 - cpu0) / (t1 - t0) * 100.0
        assert truth > 0.0
        assert abs(busy.busy_pct - truth) < 3.0, (busy.busy_pct, truth)
        assert busy.busy_pct > idle.busy_pct
        assert idle.busy_pct < 5.0
        if busy.comm == "HttpInputServer":
            assert busy.thread == "httpinputserver"
        assert busy.busy_pct == max(s.busy_pct for s in got.values() if s.thread == busy.thread)
    finally:
        stop.set()
        for t in threads:
            t.join(5)


def test_stat_files_stay_open_follow_the_listing_and_are_capped(tmp_path):
    _write(tmp_path, 3, {4: ("parsing", 1, 0), 5: ("typing", 2, 0), 6: ("merging", 3, 0)})
    files = procthreads.StatFiles(str(tmp_path))
    assert files.read(3) == {4: (b"parsing", 1), 5: (b"typing", 2), 6: (b"merging", 3)}
    assert set(files.fds) == {4, 5, 6}
    _write(tmp_path, 3, {4: ("parsing", 10, 5), 6: ("merging", 3, 0), 7: ("indexerPipe", 1, 1)})
    assert files.read(3) == {4: (b"parsing", 15), 6: (b"merging", 3), 7: (b"indexerPipe", 2)}
    assert set(files.fds) == {4, 6, 7}               # 5 left the listing: its file was closed
    files.cap = 1
    files.close()
    assert files.read(3)[7] == (b"indexerPipe", 2) and len(files.fds) == 1
    # At the cap, the one kept file's thread ends while more threads are read than kept: still closed.
    kept = set(files.fds)
    _write(tmp_path, 3, {t: c for t, c in {4: ("parsing", 10, 5), 6: ("merging", 3, 0), 7: ("indexerPipe", 1, 1),
                                           8: ("typing", 1, 0)}.items() if t not in kept})
    assert len(files.read(3)) == 3 and not set(files.fds) & kept
    assert files.read(999) == {} and files.fds == {}
    files.close()


def test_idle_threads_sampled_again_keep_their_own_name_across_a_restart(tmp_path):
    # An idle thread's sample is reused poll to poll; a new splunkd (pid) with the same tid is a new thread.
    _write(tmp_path, 3, {4: ("parsing", 1, 0)})
    _write(tmp_path, 5, {4: ("typing", 1, 0)})
    cpu = procthreads.ThreadCpu(str(tmp_path), CLK)
    for now in (0.0, 1.0, 2.0):
        got = cpu.sample(3, now)
    assert [(t.tid, t.thread, t.busy_pct) for t in got] == [(4, "parsing", 0.0)]
    for now in (3.0, 4.0, 5.0):
        got = cpu.sample(5, now)
    assert [(t.tid, t.thread, t.busy_pct) for t in got] == [(4, "typing", 0.0)]


def test_idle_threads_the_model_does_not_know_are_read_once_a_minute(tmp_path):
    """Known threads every poll; an idle unknown thread rests and is read at the first poll a minute
    (`REST_S`) after its last read, its busy % then its share over that whole interval."""
    threads = {10: ["parsing", 0], 11: ["HttpInputServer", 0], 12: ["TcpChannelThread", 0],
               13: ["SchedulerThread", 0]}

    def write():
        _write(tmp_path, 9, {tid: (comm, ticks, 0) for tid, (comm, ticks) in threads.items()})

    write()
    cpu = procthreads.ThreadCpu(str(tmp_path), CLK)
    assert cpu.sample(9, 0.0) == []
    assert {t.tid for t in cpu.sample(9, 10.0)} == {10, 11, 12, 13}     # all read: put to rest now
    seen = {}
    for now in range(20, 200, 10):
        threads[10][1] += 100                     # parsing: 10% of one core every poll
        threads[12][1] += 100                     # the channel thread starts working at 20 s: 10% too
        write()
        for t in cpu.sample(9, float(now)):
            seen.setdefault(t.tid, []).append((now, t.busy_pct))
    # Known threads (a pipeline stage, HEC's) every poll.
    assert [now for now, _ in seen[10]] == list(range(20, 200, 10))
    assert all(pct == pytest.approx(10.0) for _, pct in seen[10])
    assert [now for now, _ in seen[11]] == list(range(20, 200, 10))
    # The unknown thread that became busy: reported within a minute of its last read (10 s), with its share
    # over that interval (the same 10%); from then on busy, so read every poll.
    first_at, first_pct = seen[12][0]
    assert first_at - 10 <= procthreads.REST_S and first_pct == pytest.approx(10.0)
    assert [now for now, _ in seen[12]] == list(range(first_at, 200, 10))
    assert all(pct == pytest.approx(10.0) for _, pct in seen[12])
    # The idle unknown one: at most once a minute, never left out longer.
    times = [10] + [now for now, _ in seen[13]]
    assert len(times) >= 3 and all(0 < b - a <= procthreads.REST_S + 10 for a, b in zip(times, times[1:]))
    assert all(pct == 0.0 for _, pct in seen[13])


def test_a_resting_thread_reports_the_same_busy_share_as_reading_it_every_poll(tmp_path):
    """Below the reporting floor a thread rests; its CPU over the rest is not lost: the read after it
    reports the share over the whole interval, what polls read every poll would average to."""
    _write(tmp_path, 9, {12: ("TcpChannelThread", 0, 0)})
    cpu = procthreads.ThreadCpu(str(tmp_path), CLK)
    cpu.sample(9, 0.0)
    cpu.sample(9, 10.0)                           # idle: rests
    ticks, got = 0, []
    for now in range(20, 150, 10):
        ticks += 3                                # 0.3% of one core: below the floor, so it keeps resting
        _write(tmp_path, 9, {12: ("TcpChannelThread", ticks, 0)})
        got += [(now, t.busy_pct) for t in cpu.sample(9, float(now))]
    assert got and all(pct == pytest.approx(0.3) for _, pct in got)
    assert len(got) <= 3                          # read about once a minute, not every poll
    # Gone while resting: its state goes with it.
    _write(tmp_path, 9, {})
    cpu.sample(9, 200.0)
    assert cpu._last == {} and cpu._resting == {}


def test_unchanged_stat_lines_give_the_same_busy_as_a_fresh_reader(tmp_path, monkeypatch):
    """A speed piece a budget needs (docs/performance.md): an idle thread's /proc line, unchanged since
    the last poll, is not parsed again; the busy % is what parsing every line gives."""
    task = tmp_path / "9" / "task"
    ticks = {10: 100, 11: 5, 12: 0}
    names = {10: "indexerPipe", 11: "TcpChannelThrea", 12: "idle (x) y"}

    def write():
        _write(tmp_path, 9, {tid: (names[tid], t, 0) for tid, t in ticks.items()})
    parsed = []
    real = procthreads.parse_stat
    monkeypatch.setattr(procthreads, "parse_stat", lambda raw: parsed.append(raw) or real(raw))
    # Every thread read every poll (rest_s=0): what is pinned here is the parse cache, not the cadence
    # of idle unknown threads (the tests above pin that).
    kept = procthreads.ThreadCpu(str(tmp_path), clk_tck=100, rest_s=0.0)
    write()
    kept.sample(9, 0.0)
    for step in range(1, 6):
        ticks[10] += 90
        if step % 2:
            ticks[11] += 3
        write()
        fresh = {tid: procthreads.parse_stat(open(task / str(tid) / "stat", "rb").read()) for tid in ticks}
        del parsed[:]
        got = kept.sample(9, float(step))
        assert {b.tid: b.busy_pct for b in got} == {10: 90.0, 11: 3.0 if step % 2 else 0.0, 12: 0.0}
        assert kept.files._parsed == fresh
        assert len(parsed) == (2 if step % 2 else 1)    # the idle thread's line is never parsed again
