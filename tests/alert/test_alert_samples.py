"""Samples as numbers (alert/samples.py, issue 23) give the core exactly the evidence the rows always gave.

The reference below is the token-by-token reading the action had before its samples became flat arrays:
every `<epoch>:<value>[b]` token parsed alone, plain values placed `span_s` apart ending at last_time, a
stable sort by time, one ThreadSample / QueueSample per token. Seeded rows in every order the searches
(and hand-written rows) use: newest first, oldest first, shuffled, equal times, untimed, blocked marks.
"""

import random
import re
import tracemalloc

import pytest

from ingest_doctor import model, thresholds
from ingest_doctor.alert.action import judge
from ingest_doctor.alert.results import Row
from ingest_doctor.alert.rows import RowError, collect, rows_to_evidence
from ingest_doctor.diagnose import diagnose
from ingest_doctor.evidence import QueueSample, ThreadSample

NOW = 1763805600.0
_TOK = re.compile(r"^(?:(?P<t>[0-9]+(?:\.[0-9]+)?):)?(?P<v>-?[0-9]+(?:\.[0-9]+)?)(?P<b>b?)$")


def _reference_timed(tokens, last, span):
    parsed, untimed = [], 0
    for tok in tokens:
        m = _TOK.match(tok.strip())
        assert m, tok
        t, v, b = m.groups()
        parsed.append((float(t) if t else None, float(v), b == "b"))
        untimed += not t
    if untimed:
        times = iter([last - (untimed - 1 - i) * span for i in range(untimed)])
        parsed = [(p[0] if p[0] is not None else next(times), p[1], p[2]) for p in parsed]
    return sorted(parsed, key=lambda p: p[0])


def _reference(row):
    """(threads, queues) of one row, the way the rows were read before."""
    last = float(row._single.get("last_time") or NOW)
    span = float(row._single.get("span_s") or 30)
    pset = int(row._single["pipeline_set"])
    if row._single["signal"] == "thread_busy":
        thread = row._single["thread"].lower()
        s = _reference_timed(row.values("samples"), last, span)
        src = "logs/metrics.log group=dutycycle"
        if not s:
            return [ThreadSample(last, thread, float(row._single["busy_pct"]), pset, "10m", src)], []
        return [ThreadSample(t, thread, v, pset, "sample", src) for t, v, _ in s], []
    out = []
    recent = row.values("recent")
    for i, name in enumerate(row.values("queue")):
        q = model.canonical_queue(name)
        s = _reference_timed(recent[i].split() if recent else [], last, span)
        src = "logs/metrics.log group=queue"
        if not s:
            blocked = int(row.values("blocked_samples")[i]) > 0 if row.values("blocked_samples") else False
            out.append(QueueSample(last, q, pset, float(row.values("fill_pct")[i]), "10m", blocked, src))
        out.extend(QueueSample(t, q, pset, v, "sample", b, src) for t, v, b in s)
    return [], out


def _tokens(rng, n, blocked=False):
    times = [NOW - 30 * i for i in range(n)]
    order = rng.choice(["newest", "oldest", "shuffled", "ties", "untimed", "mixed"])
    if order == "oldest":
        times.reverse()
    elif order == "shuffled":
        rng.shuffle(times)
    elif order == "ties":
        times = [NOW - 30 * (i // 3) for i in range(n)]
        rng.shuffle(times)
    toks = []
    for t in times:
        v = rng.choice(["97", "100", "3.5", "-1", "99.25", "0"])
        b = "b" if blocked and rng.random() < 0.5 else ""
        untimed = order == "untimed" or (order == "mixed" and rng.random() < 0.3)
        toks.append("%s%s%s" % ("" if untimed else "%d:" % t if t == int(t) else "%s:" % t, v, b))
    return toks


def _rows(seed, count=60):
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        host = "idx-%d" % rng.randrange(4)
        common = {"host": host, "pipeline_set": str(rng.randrange(3)), "last_time": str(NOW - rng.randrange(5) * 7),
                  "span_s": rng.choice(["30", "10"]), "window_min": "10"}
        n = rng.choice([0, 1, 4, 20])
        if rng.random() < 0.5:
            rows.append(Row(i + 1, dict(common, signal="thread_busy", thread=rng.choice(["TcpChannelThread", "typing"]),
                                        busy_pct="95"), {"samples": _tokens(rng, n)} if n else {}))
        else:
            queues = ["parsingqueue", "aggQueue", "typingqueue", "indexqueue"][:rng.randrange(1, 5)]
            multi = {"queue": queues, "fill_pct": ["97"] * len(queues),
                     "blocked_samples": [str(rng.randrange(2)) for _ in queues]}
            if n:
                multi["recent"] = [" ".join(_tokens(rng, n, blocked=True)) for _ in queues]
            rows.append(Row(i + 1, dict(common, signal="queue_fill"), multi))
    return rows


@pytest.mark.parametrize("seed", range(12))
def test_samples_as_numbers_give_the_evidence_the_rows_always_gave(seed):
    rows = _rows(seed)
    got = rows_to_evidence(rows, now=NOW)
    want = {}
    for row in rows:
        threads, queues = _reference(row)
        ev = want.setdefault(row._single["host"], ([], []))
        ev[0].extend(threads)
        ev[1].extend(queues)
    assert sorted(got) == sorted(want)
    for host, (threads, queues) in want.items():
        assert got[host].threads == threads, host
        assert got[host].queues == queues, host


@pytest.mark.parametrize("bad", ["1763805600:97 x", "1763805600:97 1763805570:", "1763805600:nan",
                                 "1763805600:1e5", "1763805600:97 1763805570:96c", ":97"])
def test_a_malformed_sample_is_still_refused(bad):
    row = Row(7, {"signal": "queue_fill", "host": "idx-01", "pipeline_set": "0"},
              {"queue": ["typingqueue"], "fill_pct": ["97"], "recent": [bad]})
    with pytest.raises(RowError, match="result 7: column recent"):
        collect([row], NOW)
    thread = Row(8, {"signal": "thread_busy", "host": "idx-01", "thread": "typing", "busy_pct": "95"},
                 {"samples": bad.split(" ")})
    with pytest.raises(RowError, match="result 8: column samples"):
        collect([thread], NOW)


def test_a_host_costs_its_numbers_until_it_is_judged():
    """2,000 rows of 20 samples on 50 hosts: held as numbers (17 bytes a sample), built as objects only
    for the host being judged."""
    rows = []
    for i in range(2000):
        toks = ["%d:%d" % (NOW - 30 * k, 90 + k % 10) for k in range(20)]
        rows.append(Row(i + 1, {"signal": "thread_busy", "host": "hf-%02d" % (i % 50), "thread": "typing",
                                "busy_pct": "95", "pipeline_set": str(i % 4)}, {"samples": toks}))
    tracemalloc.start()
    c = collect(rows, NOW)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert sum(len(s) for s in c.samples.values()) == 40000
    assert held < 40000 * 40                   # as objects these samples take well over 200 bytes each
    assert c.light["hf-00"].threads == [] and len(c["hf-00"].threads) == 40 * 20


@pytest.mark.parametrize("seed", range(6))
def test_the_action_judges_each_host_as_diagnose_judges_its_whole_evidence(seed):
    """The action judges a Collected host by host (its samples as runs of numbers, never objects): the
    findings are those of `diagnose` on each host's whole evidence, every field, in the same order."""
    rows = _rows(seed, count=120)
    _judged_as_whole(rows, collect(rows, NOW))


def test_the_action_frees_each_hosts_samples_once_it_is_judged():
    """Nothing after the diagnosis reads a host's samples: judge drops them host by host (the action's
    memory at 80,000 rows, docs/performance.md), and the light evidence the deployment links stays."""
    rows = _rows(3, count=120)
    c = collect(rows, NOW)
    hosts = sorted(c.samples)
    assert len(hosts) > 1
    seen = []

    def diagnose_seeing(ev, th, finite=None):
        seen.append(sorted(c.samples))       # what is still held when this host is judged
        return diagnose(ev, th, finite=finite)
    judge(c, thresholds.defaults(), "info", diagnose_seeing)
    assert seen == [hosts[i:] for i in range(len(hosts))]
    assert c.samples == {} and sorted(c.light) == sorted(rows_to_evidence(rows, now=NOW))


def _judged_as_whole(rows, collected):
    """judge() over `collected` (rows collected) finds what `diagnose` finds on each host's whole evidence
    (rows_to_evidence), every field, in the same order, with the same notes; returns the notes."""
    th = thresholds.defaults()
    found, below, notes = judge(collected, th, "info", diagnose)
    want, want_notes = [], []
    for host, ev in sorted(rows_to_evidence(rows, now=NOW).items()):
        report = diagnose(ev, th)
        want.extend(report.findings)
        want_notes.extend("%s: %s" % (host, n) for n in report.not_judged)
    assert [f.to_dict() for f in found] == [f.to_dict() for f in want]
    assert below == 0 and notes == want_notes
    return notes


def test_a_host_with_an_infinite_sample_is_checked_sample_by_sample():
    """The action tells the diagnosis its samples are finite only when they are (Collected.finite): a
    value too large for a float (read as infinity) leaves the check to the diagnosis, which drops that
    sample and says so, exactly as for the host's whole evidence."""
    huge = "9" * 400
    rows = [Row(1, {"signal": "thread_busy", "host": "hf-01", "thread": "typing", "busy_pct": "95",
                    "pipeline_set": "0"},
                {"samples": ["%d:%s" % (NOW - 30 * k, huge if k == 3 else "97") for k in range(20)]}),
            Row(2, {"signal": "thread_busy", "host": "hf-02", "thread": "typing", "busy_pct": "95",
                    "pipeline_set": "0"}, {"samples": ["%d:97" % (NOW - 30 * k) for k in range(20)]})]
    c = collect(rows, NOW)
    assert not c.finite("hf-01") and c.finite("hf-02")
    assert any("hf-01: 1 samples with a non-numeric value" in n for n in _judged_as_whole(rows, c))
