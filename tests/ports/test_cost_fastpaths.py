"""What the kept speed pieces give, and the plain paths that replaced the others (issue 36).

The collector's events go out in one buffered write (the XML splunklib's EventWriter writes event by
event); an idle thread's /proc line, unchanged since the last poll, is not parsed again. Multivalue
columns and sample tokens are read by one pattern each: their values are tested here.
"""
import io
import random

import pytest
from splunklib.modularinput import Event, EventWriter

from ingest_doctor.alert import results
from ingest_doctor.alert import rows as rows_mod
from ingest_doctor.alert.payload import BadInput
from ingest_doctor.alert.results import Row
from ingest_doctor.collector import poll as collector, procthreads
from ingest_doctor_ports import collector_input as shell


# ------------------------------------------------------------------ events: one buffered write

def _result():
    res = collector.PollResult()
    res.events = [
        collector.Out("config", 1763805600.0, {"host": "idx-01", "config": {"a": 1}}),
        collector.Out("metrics", 1763805600.25, {"queue": "typingqueue", "ingest_doctor.queue.fill_pct": 99.5}),
        collector.Out("metrics", 1763805600.5, {"thread": "<&>\"' \u00e9\u4e2d", "x": "]]>"}),
        collector.Out("finding", 1763805601.0, {"id": "idx-01/typing/1", "summary": "a & b < c \u2192 d"}),
    ]
    return res


@pytest.mark.parametrize("indexes", [{"metrics": "m", "config": None, "finding": None},
                                     {"metrics": "ingest_doctor_metrics", "config": "ops&1", "finding": "ops"}])
@pytest.mark.parametrize("name", ["ingest_doctor_introspection://local", 'ingest_doctor_introspection://a "b" <c>'])
def test_one_buffered_write_is_the_xml_of_one_event_at_a_time(indexes, name):
    import json
    res = _result()
    fast, fast_err = io.StringIO(), io.StringIO()
    script = shell.CollectorInput(shell.Lifecycle(None), fast)
    ew = EventWriter(fast, fast_err)
    script._write(name, res, indexes, ew)
    script._write(name, res, indexes, ew)           # the <stream> header only once
    slow = io.StringIO()
    ew2 = EventWriter(slow, io.StringIO())
    for _ in range(2):
        for out in res.events:
            ew2.write_event(Event(data=json.dumps(out.data, separators=(",", ":")), stanza=name,
                                            time="%.3f" % out.time, index=indexes[out.kind],
                                            sourcetype=shell.SOURCETYPES[out.kind]))
    assert _events(fast.getvalue()) == _events(slow.getvalue())        # the same XML, compared as XML
    assert fast.getvalue().count("<stream>") == 1


def _events(text):
    import xml.etree.ElementTree as ET
    root = ET.fromstring(text + "</stream>")
    return [(e.attrib, [(c.tag, c.text) for c in e]) for e in root]


class CountingOut(io.StringIO):
    def __init__(self):
        super().__init__()
        self.writes = 0

    def write(self, s):
        self.writes += 1
        return super().write(s)


def test_a_poll_is_one_write_to_stdout():
    out = CountingOut()
    script = shell.CollectorInput(shell.Lifecycle(None), out)
    ew = EventWriter(out, io.StringIO())
    ew.header_written = True
    script._write("s", _result(), {"metrics": "m", "config": None, "finding": None}, ew)
    assert out.writes == 1


# ------------------------------------------------------------------ multivalue decoding

MV_CASES = [("$a$", ["a"]), ("$a$;$b$", ["a", "b"]), ("$$", [""]), ("$a$;$$;$c$", ["a", "", "c"]),
            ("$a;b$;$c$", ["a;b", "c"]), ("$a$$b$", ["a$b"]), ("$$$$", ["$"]), ("$x$;$y$$$", ["x", "y$"]),
            ("$ $;$\n$", [" ", "\n"]), ("$\u00e9$;$\u4e2d$", ["\u00e9", "\u4e2d"]), ("$a$;", ["a"]), ("", [])]
BAD_MV = ["a", "$", "$a", "a$", "$a$b$", "$a$;b", "$a$x$b$", "$a$;$b"]


@pytest.mark.parametrize("encoded, want", MV_CASES)
def test_decode_mv(encoded, want):
    assert results.decode_mv(encoded) == want


@pytest.mark.parametrize("encoded", BAD_MV)
def test_decode_mv_refuses_what_is_not_splunks_encoding(encoded):
    with pytest.raises(ValueError):
        results.decode_mv(encoded)


def test_decode_mv_random_round_trips():
    rnd = random.Random(21)
    alphabet = "ab$;: \n9"
    for _ in range(3000):
        values = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 6))) for _ in range(rnd.randint(1, 5))]
        encoded = ";".join("$%s$" % v.replace("$", "$$") for v in values)
        assert results.decode_mv(encoded) == values


# ------------------------------------------------------------------ sample tokens

T0 = 1763805600.0
TOKENS = [
    ([], ([], [], None)),
    (["97"], ([T0], [97.0], None)),
    # newest first as the searches write them, whitespace around a token
    (["1763805600:97b", "1763805570:98", " 1763805540:5 "], ([T0 - 60, T0 - 30, T0], [5.0, 98.0, 97.0], b"\0\0\1")),
    # untimed values: oldest first, span_s (30 s) apart, ending at last_time
    (["1.5", "-2", "3.25b"], ([T0 - 60, T0 - 30, T0], [1.5, -2.0, 3.25], b"\0\0\1")),
    (["1763805600:1", "96", "1763805500:2b", "97b"], ([T0 - 100, T0 - 30, T0, T0], [2.0, 96.0, 1.0, 97.0], b"\1\0\0\1")),
    # equal times keep their order
    (["10:1", "9:2", "10:3", "9:4"], ([9.0, 9.0, 10.0, 10.0], [2.0, 4.0, 1.0, 3.0], None)),
]
BAD_TOKENS = [[""], ["1:2 3:4"], ["x"], ["1:2", "1e5"], ["1:+2"], ["nan"], ["1:2", "3:4c"], ["1:2\t3"], [":5"]]


@pytest.mark.parametrize("tokens, want", TOKENS)
def test_sample_tokens(tokens, want):
    ctx = rows_mod.Context(T0, 10.0, 30.0, T0, "")
    assert rows_mod._timed(Row(1, {}, {}), "recent", tokens, ctx) == want


@pytest.mark.parametrize("tokens", BAD_TOKENS)
def test_a_bad_sample_token_is_still_refused(tokens):
    row = Row(7, {}, {})
    ctx = rows_mod.Context(1763805600.0, 10.0, 30.0, 1763805600.0, "")
    with pytest.raises(BadInput, match="result 7: column recent"):
        rows_mod._timed(row, "recent", tokens, ctx)


# ------------------------------------------------------------------ /proc: unchanged lines not parsed again

def _stat(tid, comm, ticks):
    return "%d (%s) S 1 1 1 0 -1 4194560 120 0 0 0 %d 0 0 0 20 0 89 0 1234 0 0\n" % (tid, comm, ticks)


def test_unchanged_stat_lines_give_the_same_busy_as_a_fresh_reader(tmp_path, monkeypatch):
    task = tmp_path / "9" / "task"
    ticks = {10: 100, 11: 5, 12: 0}
    names = {10: "indexerPipe", 11: "TcpChannelThrea", 12: "idle (x) y"}

    def write():
        for tid, t in ticks.items():
            (task / str(tid)).mkdir(parents=True, exist_ok=True)
            (task / str(tid) / "stat").write_text(_stat(tid, names[tid], t))
    parsed = []
    real = procthreads.parse_stat
    monkeypatch.setattr(procthreads, "parse_stat", lambda raw: parsed.append(raw) or real(raw))
    # Every thread read every poll (rest_s=0): what is pinned here is the parse cache, not the cadence
    # of idle unknown threads (tests/collector/test_collector_procthreads.py pins that).
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


def test_plausible_host_refuses_the_characters_the_character_loop_refused():
    from ingest_doctor.alert.action import MAX_HOST, plausible_host
    for c in range(0x3000):
        host = "idx-" + chr(c) + "-01"
        assert plausible_host(host) == (not any(ord(ch) < 32 or ord(ch) == 127 for ch in host)), c
    assert plausible_host(None) and plausible_host("h" * MAX_HOST) and not plausible_host("h" * (MAX_HOST + 1))
