"""The speed pieces a budget needs (docs/performance.md) give what the plain path gives.

The collector's events go out in one buffered write (the XML splunklib's EventWriter writes event by
event; an idle thread's /proc line, unchanged since the last poll, is not parsed again: pinned in
tests/collector/test_collector_procthreads.py beside the reader's other tests). The alert
action's results are read by fast paths the 10,000-host budget needs (measured one at a time against
the plain path, callgrind, 500 hosts: multivalue columns split when no value holds a `$`, +116% without;
a queue row's series read at once, +25%; sample tokens read by counts, +20%, and in one match, +17%;
number texts parsed once, +4.8%). Each is pinned here against the plain path it stands for, including
the inputs that must fall back to it (and its errors).
"""
import io
import json
import random
import xml.etree.ElementTree as ET
from unittest import mock

import pytest
from splunklib.modularinput import Event, EventWriter

from ingest_doctor.alert import results, rows as rows_mod
from ingest_doctor.alert.action import MAX_HOST, plausible_host
from ingest_doctor.alert.payload import BadInput
from ingest_doctor.alert.results import Row
from ingest_doctor.collector import poll as collector
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
    root = ET.fromstring(text + "</stream>")
    return [(e.attrib, [(c.tag, c.text) for c in e]) for e in root]


def test_a_poll_is_one_write_to_stdout():
    out = mock.Mock(wraps=io.StringIO())        # a StringIO that counts its calls
    script = shell.CollectorInput(shell.Lifecycle(None), out)
    ew = EventWriter(out, io.StringIO())
    ew.header_written = True
    script._write("s", _result(), {"metrics": "m", "config": None, "finding": None}, ew)
    assert out.write.call_count == 1


# ------------------------------------------------------------------ multivalue decoding

MV_CASES = ["$a$", "$a$;$b$", "$$", "$a$;$$;$c$", "$a;b$;$c$", "$a$$b$", "$$$$", "$x$;$y$$$", "$ $;$\n$",
            "$\u00e9$;$\u4e2d$", "$1763805600:97b 1763805570:98$;$5$", "$a$;"]
BAD_MV = ["", "a", "$", "$a", "a$", "$a$b$", "$a$;b", "$a$x$b$", "$a$;$b"]


@pytest.mark.parametrize("encoded", MV_CASES)
def test_decode_mv_fast_path_equals_the_character_loop(encoded):
    assert results.decode_mv(encoded) == results._decode_mv_slow(encoded)


@pytest.mark.parametrize("encoded", BAD_MV)
def test_decode_mv_refuses_what_the_character_loop_refuses(encoded):
    if encoded == "":
        assert results.decode_mv(encoded) == results._decode_mv_slow(encoded) == []
        return
    with pytest.raises(ValueError) as slow:
        results._decode_mv_slow(encoded)
    with pytest.raises(ValueError) as fast:
        results.decode_mv(encoded)
    assert str(fast.value) == str(slow.value)


def test_decode_mv_random_round_trips():
    rnd = random.Random(21)
    alphabet = "ab$;: \n9"
    for _ in range(3000):
        values = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 6))) for _ in range(rnd.randint(1, 5))]
        encoded = ";".join("$%s$" % v.replace("$", "$$") for v in values)
        assert results.decode_mv(encoded) == results._decode_mv_slow(encoded) == values


# ------------------------------------------------------------------ sample tokens

def _slow_timed(tokens, ctx):
    """The token loop the fast path replaced, kept here as the reference."""
    parsed = []
    for tok in tokens:
        m = rows_mod._TIMED.match(tok.strip())
        if not m:
            raise rows_mod.RowError("bad %r" % tok)
        parsed.append((float(m.group("t")) if m.group("t") else None, float(m.group("v")), bool(m.group("b"))))
    untimed = [p for p in parsed if p[0] is None]
    if untimed:
        it = iter(rows_mod._times(ctx.last_time, ctx.span_s, len(untimed)))
        parsed = [(p[0] if p[0] is not None else next(it), p[1], p[2]) for p in parsed]
    return sorted(((float(t), v, b) for t, v, b in parsed), key=lambda x: x[0])


TOKENS = [[], ["97"], ["1763805600:97b", "1763805570:98", " 1763805540:5 "], ["1.5", "-2", "3.25b"],
          ["1763805600:1", "96", "1763805500:2b", "97b"], ["1763805600:1", "1763805600:2", "1763805600:3"],
          ["10:1", "9:2", "10:3", "9:4"]]
BAD_TOKENS = [[""], ["1:2 3:4"], ["x"], ["1:2", "1e5"], ["1:+2"], ["nan"], ["1:2", "3:4c"], ["1:2\t3"], [":5"]]
CTX = rows_mod.Context(1763805600.0, 10.0, 30.0, 1763805600.0, "")


@pytest.mark.parametrize("tokens", TOKENS)
def test_sample_tokens_read_in_one_match_equal_the_token_loop(tokens):
    row = Row(1, {}, {})
    times, values, marks = rows_mod._timed(row, "recent", tokens, CTX)     # columns: times, values, blocked marks
    rows = [(t, v, bool(marks[i]) if marks is not None else False) for i, (t, v) in enumerate(zip(times, values))]
    assert len(times) == len(values) == len(tokens) and (marks is None or len(marks) == len(tokens))
    assert rows == _slow_timed(tokens, CTX)


@pytest.mark.parametrize("tokens", BAD_TOKENS)
def test_a_bad_sample_token_is_still_refused(tokens):
    with pytest.raises(BadInput, match="result 7: column recent"):
        rows_mod._timed(Row(7, {}, {}), "recent", tokens, CTX)


def test_plausible_host_refuses_the_characters_the_character_loop_refused():
    for c in range(0x3000):
        host = "idx-" + chr(c) + "-01"
        assert plausible_host(host) == (not any(ord(ch) < 32 or ord(ch) == 127 for ch in host)), c
    assert plausible_host(None) and plausible_host("h" * MAX_HOST) and not plausible_host("h" * (MAX_HOST + 1))


def _timed_each_by_splitting(texts):
    """_timed_each as it split every text and joined the tokens again: the reference."""
    split = [t.split() for t in texts]
    joined = " ".join(" ".join(tokens) for tokens in split if tokens)
    n = joined.count(" ") + 1 if joined else 0
    if n != sum(map(len, split)) or n != joined.count(":") or not rows_mod._TIMED_ALL.fullmatch(joined):
        return None
    nums = list(map(float, joined.replace("b", "").replace(":", " ").split(" ")))
    out, at = [], 0
    for tokens in split:
        k = len(tokens)
        blocked = bytes(t.endswith("b") for t in tokens) if any(t.endswith("b") for t in tokens) else None
        out.append(rows_mod._oldest_first(nums[2 * at:2 * (at + k):2], nums[2 * at + 1:2 * (at + k):2], blocked)
                   if k else ([], [], None))
        at += k
    return out


def test_queue_series_read_at_once_equal_the_split_tokens():
    rnd = random.Random(21)
    pieces = ["1763805600:97", "1763805570:100b", "10:1.5", "9:-2", "7", "x:1", "1:2c", "", " ", "  ", "\t",
              "\u00a0", "1763805540:5b", "1:2:3"]
    cases = [[], [""], ["", ""], ["1:2", ""], ["", "1:2"], [" 1:2  3:4b ", "5:6"], ["1:2\n3:4", "5:6"]]
    for _ in range(4000):
        cases.append([" ".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 4))) for _ in range(rnd.randint(0, 4))])
    for texts in cases:
        assert rows_mod._timed_each(list(texts)) == _timed_each_by_splitting(list(texts)), texts


def _timed_by_pattern(joined):
    """What _read_timed must give: the pattern's verdict (every token timed), then the numbers."""
    if not rows_mod._TIMED_ALL.fullmatch(joined) or joined.count(" ") + 1 != joined.count(":"):
        return None
    return list(map(float, joined.replace("b", "").replace(":", " ").split(" ")))


def test_timed_text_read_by_counts_equals_the_pattern():
    rnd = random.Random(2111)
    good = ["1763805600:97", "1763805570:100b", "10:1.5", "9:-2", "0:0", "007:-0.50b", "1.25:3"]
    bad = ["7", ".5:1", "1.:2", "1:.5", "1:2.", "1:-.5", "-1:2", "1:--2", "1:2-3", "1:2:3", "1:2bb", "1b:2", "1:b",
           ":5", "5:", "1..2:3", "1.2.3:4", "1:2e5", "1:+2", "1:nan", "\u0663:1", "1:\u0663", "1:2\t", "", "-",
           "1:2b3", "1:2 b", "1:-", "1:-b", "1:2.b", "1.:-2"]
    cases = [" ".join(good), " ".join(good) + " ", " " + " ".join(good), "  ".join(good), "1:2"]
    for _ in range(20000):
        toks = [rnd.choice(good if rnd.random() < 0.85 else bad) for _ in range(rnd.randint(1, 6))]
        cases.append(" ".join(toks))
    alphabet = "0123456789.:-b  "
    for _ in range(20000):      # anything over the characters a token may hold
        cases.append("".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 12))))
    for joined in cases:
        want, got = _timed_by_pattern(joined), rows_mod._read_timed(joined)
        assert got == want and (got is None or [repr(x) for x in got] == [repr(x) for x in want]), joined


def test_timed_text_read_by_counts_catches_a_planted_slip(monkeypatch):
    """The counts are the check: drop one (a dot at the end read as the pattern's number) and the
    comparison above finds it."""
    monkeypatch.setattr(rows_mod, "_LONE_DOTS", ())
    assert rows_mod._read_timed("1.:2") == [1.0, 2.0] and _timed_by_pattern("1.:2") is None


def test_number_texts_read_once_are_the_floats_of_each():
    """_floats looks a number text up once it was read: the same floats (-0.0, huge, fractions), the same
    ValueError for a text float() refuses, and a memo that never holds much more than its bound."""
    rnd = random.Random(2112)
    pool = ["97", "100", "-0", "0", "1763805600", "1763805570.25", "9" * 400, "007", "1.5", "-2.75", "abc", ""]
    rows_mod._NUMBERS.clear()
    for _ in range(4000):
        texts = [rnd.choice(pool) if rnd.random() < 0.7 else str(rnd.randint(0, 10 ** 6)) for _ in range(rnd.randint(1, 9))]
        try:
            want = list(map(float, texts))
        except ValueError as e:
            with pytest.raises(ValueError) as got:
                rows_mod._floats(texts)
            assert str(got.value) == str(e)
            continue
        got = rows_mod._floats(texts)
        assert [repr(x) for x in got] == [repr(x) for x in want], texts
        assert len(rows_mod._NUMBERS) <= rows_mod._NUMBERS_MAX + 9
