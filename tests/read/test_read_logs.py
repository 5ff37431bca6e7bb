"""metrics.log and splunkd.log parsing, by key, as streams (lines in the log.cfg layouts)."""
import io
import random

import pytest

from ingest_doctor.read import logtime, metricslog, splunkdlog
from ingest_doctor.read.snapshot import bounded_lines, load_snapshot
from ingest_doctor.evidence import Evidence
from fakes.snapbuilder import Snap

H = "11-22-2025 09:59:30.000 +0000 INFO  Metrics - "
T = 1763805570.0


def feed(lines, **window):
    """`lines` fed in order to a metrics.log parser (since/until as given): the Evidence and the parser's stats."""
    ev = Evidence()
    return ev, metricslog.MetricsLogParser(ev, **window).feed_all(lines).finish()


def parse(*bodies):
    """Metrics lines of these bodies, each at 09:59:30 UTC and ending its line, fed as `feed` does."""
    return feed([H + b + "\n" for b in bodies])


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
    ev, _ = feed(["11-22-2025 09:59:%s.000 +0000 INFO  Metrics - group=pipeline, name=indexerpipe, processor=indexer, "
                  "cpu_seconds=19.5, executes=10, cumulative_hits=99, write_cpu_seconds=11.0, service_cpu_seconds=3.0"
                  % sec for sec in ("00", "20", "40")])
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
    _, st = feed(["not a metrics line", "\x00\xff\x01", "",
                  H + "group=mpool, max_used_interval=11259, max_used=95646",
                  H + "group=queue, name=parsingqueue",     # no sizes
                  # the partly garbled real UF line shape
                  H + 'group=thruput, name=cooked_output, instantaneous_kbps="0.000", total_k_processed="337.000"'
                      '="0.000", ev=0',
                  # read since issue 19 (the deployment's topology), but without sourceIp/sourceHost it is unusable
                  H + "group=tcpin_connections, 10.1.1.1:50000:9997, connectionType=cooked, kb=1.0"])
    assert st.unknown_groups == 1 and st.garbage == 4 and st.used == 1


def test_window_bounds_lines():
    ev, st = feed(["11-22-2025 09:00:00.000 +0000 INFO  Metrics - group=dutycycle, name=misc, tail=0.1",
                   H + "group=dutycycle, name=misc, tail=0.2"], since=T - 10, until=T + 10)
    assert st.outside_window == 1 and [round(t.busy_pct) for t in ev.threads] == [20]


def test_pairs_and_parse_kv_read_by_key_with_or_without_quotes():
    body = "group=queue,  name = parsingqueue , 10.1.1.1:5000:9997, max_size_kb=500, max_size_kb=512"
    assert list(metricslog.pairs(body)) == [("group", "queue"), ("name", "parsingqueue"), ("max_size_kb", "500"),
                                            ("max_size_kb", "512")]
    assert metricslog.parse_kv(body) == {"group": "queue", "name": "parsingqueue", "max_size_kb": "512"}
    quoted = 'group=per_sourcetype_thruput, series="a, b", kbps=1.5, series="c"'
    assert list(metricslog.pairs(quoted)) == [("group", "per_sourcetype_thruput"), ("series", "a, b"),
                                              ("kbps", "1.5"), ("series", "c")]


def test_a_thread_line_with_several_ratios_keeps_the_busiest():
    """Issue 38: a real 9.0.4.1 writes two `ratio=` on its tcpouteloop dutycycle line; the busiest share
    is kept, wherever it stands (before: only the last)."""
    ev, st = parse("group=dutycycle, name=ingest, ingest_pipe=0, thread=TcpOutEloop, ratio=0.987, ratio=0.012",
                   "group=dutycycle, name=ingest, ingest_pipe=1, thread=tcpouteloop, ratio=0.004, ratio=0.991",
                   "group=dutycycle, name=misc, tail=0.088, tail=0.500, udpin=0.000")
    got = [(x.thread, x.pipeline_set, round(x.busy_pct, 1)) for x in ev.threads]
    assert got == [("tcpouteloop", 0, 98.7), ("tcpouteloop", 1, 99.1), ("tail", None, 50.0), ("udpin", None, 0.0)]
    assert st.used == 3 and st.garbage == 0


# Queue lines as a 9.x indexer writes them each interval: inputs that are off report `max_size_kb=0`.
QUEUES_OFF = [
    "group=queue, ingest_pipe=0, name=parsingqueue, max_size_kb=6144, current_size_kb=0, current_size=0, "
    "largest_size=3, smallest_size=0",
    "group=queue, ingest_pipe=0, name=tcpin_cooked_pqueue, max_size_kb=0, current_size_kb=0, current_size=0, "
    "largest_size=0, smallest_size=0",
    "group=queue, name=httpinputq, max_size_kb=0, current_size_kb=0, current_size=0, largest_size=0, "
    "smallest_size=0",
    "group=queue, name=aeq, max_size_kb=500, current_size_kb=0, current_size=0, largest_size=0, smallest_size=0",
]


def test_queues_of_inputs_that_are_off_are_read_not_unusable():
    """Issue 38: a queue of an input that is off is a line read (no fill to judge), not an unusable one."""
    ev, st = parse(*QUEUES_OFF)
    assert [q.queue for q in ev.queues] == ["parsingQueue", "aeq"]
    assert (st.used, st.garbage) == (4, 0)


def test_a_normal_metrics_log_with_queues_off_names_no_unusable_lines(tmp_path):
    s = Snap("idx")         # captured at 10:00 UTC
    s.metrics = ["11-22-2025 09:%02d:%02d.000 +0000 INFO  Metrics - %s" % (m, sec, body)
                 for m in range(50, 60) for sec in (0, 30) for body in QUEUES_OFF]
    ev = load_snapshot(s.write(str(tmp_path)))
    assert "logs/metrics.log" in ev.sources and len(ev.queues) == 40
    assert not [n for n in ev.not_judged + ev.problems if "usable" in n], ev.not_judged + ev.problems


def test_lines_outside_the_window_are_skipped_by_their_timestamp_without_reading_their_pairs(monkeypatch):
    """The skip the budget of a long metrics.log rests on: a batch of lines older than the window is
    told by its timestamp prefix alone, and no pair of it is parsed."""
    read = []
    real = metricslog.pairs
    monkeypatch.setattr(metricslog, "pairs", lambda body: read.append(body) or real(body))
    old = ["11-22-2025 09:00:00.000 +0000 INFO  Metrics - group=queue, name=q%d, max_size_kb=500, current_size_kb=1"
           % i for i in range(50)]
    ev, st = feed(old + [H + "group=dutycycle, name=misc, tail=0.2"], since=T - 10)
    assert (st.outside_window, st.used, st.garbage) == (50, 1, 0) and not ev.queues
    assert read == ["group=dutycycle, name=misc, tail=0.2"]


TCPIN = ("group=tcpin_connections, 10.1.0.7:50000:9997, connectionType=cooked, sourcePort=50000, "
         "sourceHost=10.1.0.7, sourceIp=10.1.0.7, destPort=9997, _tcp_KBps=50.0, hostname=uf007, "
         "guid=00000000-0000-0000-0000-000000000007, fwdType=uf, lastIndexer=None")


def test_one_instance_s_diagnosis_skips_connection_lines_by_their_group_a_deployment_reads_them(tmp_path, monkeypatch):
    """The skip the 30-minute diagnose budget rests on: the senders' connection lines, which only a deployment's
    topology reads, are not parsed when one instance is judged (`connections=False`, the CLI's single snapshot)."""
    s = Snap("idx")         # captured at 10:00 UTC
    s.metrics = ["11-22-2025 09:59:%02d.000 +0000 INFO  Metrics - %s" % (sec, body) for sec in (0, 30)
                 for body in (TCPIN, "group=queue, name=parsingqueue, max_size_kb=500, current_size_kb=1")]
    root = s.write(str(tmp_path))
    read = []
    real = metricslog.pairs
    monkeypatch.setattr(metricslog, "pairs", lambda body: read.append(body) or real(body))
    deployment = load_snapshot(root)
    assert [c.hostname for c in deployment.tcpin] == ["uf007", "uf007"] and len(read) == 4
    del read[:]
    one = load_snapshot(root, connections=False)
    assert not one.tcpin and len(one.queues) == 2 and len(read) == 2
    assert not [n for n in one.not_judged + one.problems if "usable" in n], one.not_judged + one.problems


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


@pytest.mark.parametrize("buffer", [1, 3, 5, 64])
@pytest.mark.parametrize("max_line", [1, 4, 9, 30, 64])
def test_bounded_lines_keep_lines_up_to_the_limit_by_their_bytes_and_count_the_longer(max_line, buffer):
    """A fixed text, then lines of multi-byte characters and bad bytes near the limit: kept by their bytes, decoded
    alone, the longer counted, whatever the size of the reader's buffer."""
    rnd = random.Random(max_line)
    pieces = [b"ab", b"caf\xc3\xa9", b"\xe2\x82\xac" * 5, b"\xff", b"\xc3", b"\xed\xb2\x80", b"\r", b"", b"x" * 40,
              b"z" * (max_line - 1), b"z" * max_line]
    texts = [b"ab\ncaf\xc3\xa9 \xff\r\n\n" + b"x" * 40 + b"\n" + b"y" * 8 + b"\n\xc3" + b"\nlast"]
    for _ in range(300):
        data = b"\n".join(rnd.choice(pieces) + rnd.choice(pieces) for _ in range(rnd.randint(0, 8)))
        texts.append(data + rnd.choice([b"", b"\n", b"last", b"w" * (max_line + 1), b"\xc3\xa9" * max_line]))
    for data in texts:
        lines = data.split(b"\n")
        want = [(ln + b"\n").decode("utf-8", "replace") for ln in lines[:-1] if len(ln) + 1 <= max_line]
        want += [lines[-1].decode("utf-8", "replace")] if 0 < len(lines[-1]) <= max_line else []
        skipped = [0]
        got = list(bounded_lines(io.BufferedReader(io.BytesIO(data), buffer_size=buffer), max_line, skipped))
        assert (got, skipped[0]) == (want, len(lines) - (not lines[-1]) - len(want)), data


@pytest.mark.parametrize("line, want", [
    # with and without the zone
    ("11-22-2025 09:59:30.000 +0000 INFO", (T, 29)), ("11-22-2025 10:59:30.250 +0100 INFO", (T + 0.25, 29)),
    ("11-22-2025 09:59:30.000 INFO", (T, 23)), ("garbage", (None, 0)),
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
