"""metrics.log and splunkd.log parsing, by key, as streams (lines in the log.cfg layouts)."""
import pytest

from ingest_doctor.read import logtime, metricslog, splunkdlog
from ingest_doctor.evidence import Evidence

H = "11-22-2025 09:59:30.000 +0000 INFO  Metrics - "
T = 1763805570.0


def parse(*bodies):
    ev = Evidence()
    p = metricslog.MetricsLogParser(ev)
    for b in bodies:
        p.feed(H + b + "\n")
    p.finish()
    return ev, p.stats


def test_timestamp_with_and_without_zone():
    assert logtime.parse_prefix("11-22-2025 09:59:30.000 +0000 INFO")[0] == T
    assert logtime.parse_prefix("11-22-2025 10:59:30.250 +0100 INFO")[0] == T + 0.25
    assert logtime.parse_prefix("11-22-2025 09:59:30.000 INFO")[0] == T
    assert logtime.parse_prefix("garbage")[0] is None


def test_queue_kb_bytes_blocked_and_no_ingest_pipe():
    ev, st = parse("group=queue, name=parsingqueue, max_size_kb=500, current_size_kb=450, current_size=900, "
                   "largest_size=1000, smallest_size=0",
                   "group=queue, ingest_pipe=2, name=typingqueue, blocked=true, max_size_kb=500, current_size_kb=499, "
                   "current_size=1, largest_size=1, smallest_size=1",
                   "group=queue, name=tcpout_splunk_indexers, max_size=512000, current_size=507329, "
                   "largest_size=507329, smallest_size=507329")
    q = {x.queue: x for x in ev.queues}
    assert q["parsingQueue"].fill_pct == 90.0 and q["parsingQueue"].pipeline_set is None
    assert q["typingQueue"].blocked and q["typingQueue"].pipeline_set == 2
    assert q["tcpout"].fill_pct == pytest.approx(99.09, abs=0.01)
    assert q["parsingQueue"].time == T and st.used == 3


def test_dutycycle_long_and_wide_forms_case_insensitive():
    ev, _ = parse("group=dutycycle, ingest_pipe=1, name=ingest, thread=Typing, ratio=0.981",
                  "group=dutycycle, name=misc, HttpInputServerDataThread=0.990, tail=0.088, udpin=0.000")
    t = {(x.thread, x.pipeline_set): round(x.busy_pct, 1) for x in ev.threads}
    assert t == {("typing", 1): 98.1, ("httpinputserverdatathread", None): 99.0, ("tail", None): 8.8,
                 ("udpin", None): 0.0}


def test_pipeline_cpu_interval_measured_from_batches():
    ev = Evidence()
    p = metricslog.MetricsLogParser(ev)
    for sec in ("00", "20", "40"):
        p.feed("11-22-2025 09:59:%s.000 +0000 INFO  Metrics - group=pipeline, name=indexerpipe, processor=indexer, "
               "cpu_seconds=19.5, executes=10, cumulative_hits=99, write_cpu_seconds=11.0, service_cpu_seconds=3.0"
               % sec)
    p.finish()
    assert [x.interval_s for x in ev.processors] == [20.0, 20.0, 20.0]
    assert ev.processors[0].write_cpu_seconds == 11.0 and ev.processors[0].pipeline == "indexerpipe"


def test_pipelineset_thruput_and_regex_cpu():
    ev, _ = parse("group=pipelineset, name=load_metrics, ingest_pipe=3, busiest_thread_name=indexerPipe, "
                  "dutycycle_ratio=0.5, share=0.25, requests_last_period=30",
                  "group=thruput, name=index_thruput, instantaneous_kbps=4.971, instantaneous_eps=19.355, "
                  "average_kbps=1.667, total_k_processed=182424.000, kb=154.094, ev=600",
                  'group=per_sourcetype_thruput, ingest_pipe=0, series="splunkd", kbps=258.62, eps=1367.6, kb=8050.1, '
                  'ev=42571, avg_age=145747.78, max_age=2116525',
                  'group=per_sourcetype_regex_cpu, series="cisco:asa", cpu=1540.000, cpupe=0.3, bytes=1, ev=2')
    (p,) = ev.pipelinesets
    assert (p.pipeline_set, p.busiest_thread, p.dutycycle_pct, p.share) == (3, "indexerpipe", 50.0, 0.25)
    kinds = {(t.kind, t.series) for t in ev.thruput}
    assert kinds == {("thruput", "index_thruput"), ("sourcetype", "splunkd")}
    assert ev.regex_cpu[0].series == "cisco:asa" and ev.regex_cpu[0].cpu_ms == 1540.0


def test_garbage_unknown_groups_and_garbled_lines_are_counted_not_fatal():
    ev = Evidence()
    p = metricslog.MetricsLogParser(ev)
    for line in ("not a metrics line", "\x00\xff\x01", "",
                 H + "group=mpool, max_used_interval=11259, max_used=95646",
                 H + "group=queue, name=parsingqueue",     # no sizes
                 # the partly garbled real UF line shape
                 H + 'group=thruput, name=cooked_output, instantaneous_kbps="0.000", total_k_processed="337.000"'
                     '="0.000", ev=0',
                 # read since issue 19 (the deployment's topology), but without sourceIp/sourceHost it is unusable
                 H + "group=tcpin_connections, 10.1.1.1:50000:9997, connectionType=cooked, kb=1.0"):
        p.feed(line)
    st = p.finish()
    assert st.unknown_groups == 1 and st.garbage == 4 and st.used == 1


def test_window_bounds_lines():
    ev = Evidence()
    p = metricslog.MetricsLogParser(ev, since=T - 10, until=T + 10)
    p.feed("11-22-2025 09:00:00.000 +0000 INFO  Metrics - group=dutycycle, name=misc, tail=0.1")
    p.feed(H + "group=dutycycle, name=misc, tail=0.2")
    st = p.finish()
    assert st.outside_window == 1 and [round(t.busy_pct) for t in ev.threads] == [20]


SPLUNKD = [
    '10-03-2021 08:48:24.792 +1000 ERROR HttpInputDataHandler [2394001 HttpInputServerDataThread] - Failed processing '
    'http input, token name=test, channel=n/a, source_IP=10.0.0.123, reply=9, events_processed=0, '
    'http_input_body_size=183414, parsing_err="Server is busy"',
    "ERROR HttpInputDataHandler - Failed processing http input, token name=n/a, channel=n/a, source_IP=127.0.0.1, "
    "reply=4, events_processed=0, http_input_body_size=369",
    "10-03-2021 08:48:25.000 +1000 WARN  HttpListener [2394000 HttpDedicatedIoThread-0] - Can't handle request for "
    "/services/collector/event, max thread limit for this listener reached",
    "06-06-2025 18:36:25.618 +0100 WARN  TcpOutputProc [107804 indexerPipe] - The TCP output processor has paused "
    "the data flow. Forwarding to host_dest=idx1 inside output group default-autolb-group from host_src=uf has been "
    "blocked for blocked_seconds=10.",
    "06-06-2025 18:36:25.618 +0100 INFO  TailReader [107812 tailreader0] - Batch input finished reading file='x'",
]


def test_splunkd_log_hec_replies_and_signals():
    ev = splunkdlog.parse_lines(iter(SPLUNKD))
    assert [(e.reply, e.token, e.message) for e in ev.hec_errors] == [(9, "test", "Server is busy"), (4, "n/a", "")]
    assert ev.hec_errors[0].time == 1633214904.792 and ev.hec_errors[1].time is None
    assert [s.kind for s in ev.log_signals] == ["hec_listener_overwhelmed", "tcpout_blocked"]
    assert "logs/splunkd.log" in ev.sources


def _reference_pick(body, keys):
    """What a handler sees from parse_kv: every pair, cut to the keys it reads."""
    kv = metricslog.parse_kv(body)
    return {k: kv[k] for k in keys if k in kv}


@pytest.mark.parametrize("seed", range(4))
def test_pick_takes_from_a_line_what_parse_kv_gives_its_keys(seed):
    import random
    rnd = random.Random(seed)
    keys = ("name", "max_size", "max_size_kb", "cpu_seconds", "sourceIp", "guid")
    names = keys + ("write_cpu_seconds", "xname", "name_x", "kb", "")
    pieces = ["", " ", "  ", "\t", ",", "=", "a", "1.5", "x y"]
    for _ in range(3000):
        parts = ["group=g"]
        for _ in range(rnd.randint(0, 8)):
            sp = rnd.choice(["", "", "", " ", "\t", "\x1c"])
            k = rnd.choice(names)
            parts.append(rnd.choice([sp + k + "=" + rnd.choice(pieces) + rnd.choice(pieces),
                                     k + sp + "=" + rnd.choice(pieces), k + "=" + rnd.choice(pieces) + sp,
                                     rnd.choice(pieces) + rnd.choice(pieces), k + "=v"]))
        body = ", ".join(parts)
        if rnd.random() < 0.2:
            body = body.replace(", ", rnd.choice([",  ", ",", " , "]), 1)
        prefix = H[:rnd.choice([0, 10, len(H)])]
        reads = metricslog.reads(*keys)(lambda: None).reads
        assert metricslog.pick(prefix + body, len(prefix), reads) == _reference_pick(body, keys), body


def test_the_groups_read_give_what_they_gave_when_every_pair_was_read():
    """Each handler reads only the keys it names: the evidence is what it was from the whole line."""
    from dataclasses import asdict
    lines = [H + b for b in (
        "group=queue, name=parsingqueue, max_size_kb=500, current_size_kb=450, current_size=900, largest_size=1000",
        "group=queue, ingest_pipe=2, name=typingqueue, blocked=true, max_size=500, current_size=499",
        "group=pipeline, name=indexerpipe, processor=indexer, cpu_seconds=19.5, executes=10, "
        "cumulative_hits=99, write_cpu_seconds=11.0, service_cpu_seconds=3.0",
        "group=pipelineset, name=load_metrics, ingest_pipe=3, busiest_thread_name=indexerPipe, "
        "dutycycle_ratio=0.5, share=0.25, requests_last_period=30",
        "group=thruput, name=index_thruput, instantaneous_kbps=4.971, instantaneous_eps=19.355, average_kbps=1.6",
        "group=per_sourcetype_thruput, ingest_pipe=0, series=splunkd, kbps=258.62, eps=1367.6, avg_age=145747.78",
        "group=per_index_regex_cpu, series=main, cpu=15.0, cpupe=0.3",
        "group=tcpout_connections, name=default-autolb-group:10.0.0.5:9997:0, sourcePort=8089, destIp=10.0.0.5, "
        "destPort=9997, _tcp_Bps=1.0, _tcp_KBps=2.5, _tcp_avg_thruput=2.0",
        "group=tcpin_connections, 10.1.0.0:50000:9997, connectionType=cooked, sourcePort=50000, "
        "sourceHost=10.1.0.0, sourceIp=10.1.0.0, destPort=9997, kb=1500.0, _tcp_KBps=50.0, hostname=uf000, "
        "guid=0000-1, fwdType=uf, ssl=false, lastIndexer=None, ack=false",
        "group=dutycycle, name=misc, HttpInputServerDataThread=0.990, tail=0.088")]
    picked, whole = Evidence(), Evidence()
    p = metricslog.MetricsLogParser(picked)
    for line in lines:
        p.feed(line + "\n")
    p.finish()
    w = metricslog.MetricsLogParser(whole)
    for line in lines:
        i = line.find(" - group=")
        group = line[i + 9:line.find(",", i)]
        handler = metricslog._HANDLERS.get(group) or (metricslog.MetricsLogParser._per_thruput if "thruput" in group
                                                       else metricslog.MetricsLogParser._regex_cpu)
        assert handler(w, T, metricslog.parse_kv(line[i + 3:]))
    w.finish()
    whole.saw("logs/metrics.log")       # it was fed no line
    assert asdict(picked) == asdict(whole)
    assert picked.tcpin and picked.tcpout and picked.regex_cpu and len(picked.queues) == 2


@pytest.mark.parametrize("max_line", [1, 4, 9, 30])
def test_bounded_lines_keeps_lines_up_to_the_limit_and_counts_the_longer(max_line):
    import io
    from ingest_doctor.read.snapshot import bounded_lines
    data = b"ab\ncaf\xc3\xa9 \xff\r\n\n" + b"x" * 40 + b"\n" + b"y" * 8 + b"\n\xc3" + b"\nlast"
    lines = data.split(b"\n")
    want = [(ln + b"\n").decode("utf-8", "replace") for ln in lines[:-1] if len(ln) + 1 <= max_line]
    want += [lines[-1].decode()] if len(lines[-1]) <= max_line else []
    for buffer in (1, 3, 64):
        skipped = [0]
        got = list(bounded_lines(io.BufferedReader(io.BytesIO(data), buffer_size=buffer), max_line, skipped))
        assert got == want and skipped[0] == len(lines) - len(want)


@pytest.mark.parametrize("max_line", [1, 4, 9, 30, 64])
def test_bounded_lines_measure_bytes_whatever_the_characters(max_line):
    """Lines of multi-byte characters and bad bytes near the limit: kept by their bytes, decoded alone."""
    import io
    import random
    from ingest_doctor.read.snapshot import bounded_lines
    rnd = random.Random(max_line)
    pieces = [b"ab", b"caf\xc3\xa9", b"\xe2\x82\xac" * 5, b"\xff", b"\xc3", b"\xed\xb2\x80", b"\r", b"", b"x" * 40,
              b"z" * (max_line - 1), b"z" * max_line]
    for _ in range(300):
        data = b"\n".join(rnd.choice(pieces) + rnd.choice(pieces) for _ in range(rnd.randint(0, 8)))
        data += rnd.choice([b"", b"\n", b"last", b"w" * (max_line + 1), b"\xc3\xa9" * max_line])
        lines = data.split(b"\n")
        want = [(ln + b"\n").decode("utf-8", "replace") for ln in lines[:-1] if len(ln) + 1 <= max_line]
        want += [lines[-1].decode("utf-8", "replace")] if 0 < len(lines[-1]) <= max_line else []
        for buffer in (1, 5, 64):
            skipped = [0]
            got = list(bounded_lines(io.BufferedReader(io.BytesIO(data), buffer_size=buffer), max_line, skipped))
            assert (got, skipped[0]) == (want, len(lines) - (not lines[-1]) - len(want)), (data, buffer)


@pytest.mark.parametrize("line, want", [
    ("02-29-2024 23:59:58.500 +0000 INFO x", (1709251198.5, 29)),
    ("12-31-2024 23:59:58.000 -0130 INFO x", (1735689598.0 + 5400, 29)),
    ("02-31-2026 00:00:00.000 INFO x", (1772496000.0, 23)),        # runs on into March, as timegm counts
    ("13-01-2026 00:00:00.000 INFO x", (None, 0)), ("11-00-2025 09:59:30.000 INFO", (None, 0)),
    ("11-22-2025 09:59:30 INFO", (None, 0)), ("11-22-2025 09:59:30.000 +01 INFO", (T, 23)),
])
def test_log_timestamps(line, want):
    assert logtime.parse_prefix(line) == want


@pytest.mark.parametrize("text, want", [
    ("2026-11-22T10:00:00Z", 1795341600.0), (" 2024-02-29T00:00:01Z", 1709164801.0),
    ("2026-11-22T10:00:00", 1795341600.0), ("2026-11-22T11:00:00+01:00", 1795341600.0),
    ("2026-02-29T10:00:00Z", None), ("2026-11-22T24:00:00Z", None), ("2026-1-22T10:00:00Z", None),
    ("0000-01-01T00:00:00Z", None), ("", None), (None, None), (1795341600, None),
])
def test_iso_times(text, want):
    assert logtime.iso_epoch(text) == want
    assert logtime.iso_epoch(logtime.iso_utc(1795341600.0)) == 1795341600.0


@pytest.mark.parametrize("seed", range(8))
def test_lines_read_by_their_layout_give_what_each_line_read_alone_gives(seed, monkeypatch):
    """Batches, runs of one time and learnt layouts change nothing: every line read by pick alone (no
    layout ever learnt) gives the same evidence and counts, on lines with spaces, quotes, commas,
    repeated or missing keys, repeated lines, other times and groups not read (a quote in a value not
    read, groups whose names are as long)."""
    import random
    from ingest_doctor.read import kvlayout
    from dataclasses import asdict
    rnd = random.Random(seed)
    bodies = [
        "group=tcpin_connections, 10.1.0.%d:5000:9997, connectionType=cooked, sourceHost=10.1.0.%d, "
        "sourceIp=10.1.0.%d, destPort=9997, kb=1.0, _tcp_KBps=%d.5, hostname=uf%d, guid=g-%d, fwdType=uf, "
        "lastIndexer=None, ack=false",
        "group=queue, ingest_pipe=%d, name=parsingqueue, max_size_kb=500, current_size_kb=4%d, current_size=%d, "
        "blocked=true, largest_size=%d",
        "group=pipeline, ingest_pipe=%d, name=typing, processor=regexreplacement, cpu_seconds=%d.5, "
        "executes=%d, cumulative_hits=%d",
        'group=per_sourcetype_thruput, ingest_pipe=%d, series="st%d:x", kbps=%d.5, eps=2.0, kb=%d, avg_age=1.1',
        'group=per_index_regex_cpu, series="main%d", cpu=%d.0, cpupe=0.3, ingest_pipe=%d, bytes=%d',
        "group=dutycycle, name=misc, ingest_pipe=%d, tail=0.%d, udpin=0.0%d, reaper=0.%d",
        "group=per_host_thruput, series=h%d, kbps=%d, eps=%d, ev=%d",
        "group=tcpout_connections, name=g:10.0.0.%d:9997:0, destIp=10.0.0.%d, destPort=9997, _tcp_KBps=%d.0, x=%d",
        "group=mpool, max_used_interval=%d, max_used=%d, avg_rsv=%d, capacity=%d",     # a group name as long as queue
    ]
    odd = [(", ", ",  "), (", ", " , "), ("=", " ="), ("=", "= "), (", ", ","), (", kb=", ", hostname=x, kb="),
           (", kb=", ', kb="1, 2"'), ("sourceIp=", "sourceIp=\t"), (", name=", ", name=, name="), ("=", "=\""),
           ("fwdType=uf", 'fwdType="uf"'), ('series="', 'series= "'), ("kbps=", 'kbps="'), ("eps=", "eps= "),
           ("ack=false", 'ack="false"'), ("largest_size=", 'largest_size="'),
           ("cumulative_hits=", 'cumulative_hits=""')]
    odd = rnd.sample(odd, 5)        # a few odd spellings, each on many lines: their layouts are learnt too
    lines = []
    while len(lines) < 1500:
        template = rnd.choice(bodies)
        if rnd.random() < 0.3:
            template = template.replace(*rnd.choice(odd), 1)
        stamp = "11-22-2025 09:59:%02d.%03d +0000" % (rnd.choice([30, 30, 30, 31, 0]), rnd.choice([0, 0, 1]))
        for _ in range(rnd.randint(1, 6)):     # a run of lines of one group and time, as splunkd writes them
            body = template % tuple(rnd.randint(0, 3) for _ in range(template.count("%d")))
            line = stamp + " INFO  Metrics - " + body + rnd.choice(["\n", "\n", "\r\n", ""])
            lines.append(rnd.choice(lines) if lines and rnd.random() < 0.05 else line)
    lines += ["not a metrics line\n", "\n", H[:20] + "group=queue\n"]

    def parse():
        ev = Evidence()
        p = metricslog.MetricsLogParser(ev, since=T - 20)
        p.feed_all(lines)
        return asdict(ev), p.finish()

    by_layout = parse()
    monkeypatch.setattr(kvlayout, "learn", lambda body, group, keys: None)
    assert by_layout == parse()
