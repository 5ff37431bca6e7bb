"""Issue 18, point by point, on the scenarios in real shapes (tests/scenarios/*), with the negative cases."""
import os

import pytest

from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine.rules import headroom as headroom_rule
from ingest_doctor.engine.textreport import render
from ingest_doctor.evidence import Evidence, LogSignal
from ingest_doctor.read import splunkdlog
from ingest_doctor.read.snapshot import load_snapshot, recorded_thresholds

from fakes.engine_helpers import signal
from fakes.paths import SCENARIOS as SCEN


def report(name):
    path = os.path.join(SCEN, name)
    th, _ = recorded_thresholds(path)
    return diagnose(load_snapshot(path), th)


def only(r, bottleneck, pset=None):
    hits = [f for f in r.findings if f.bottleneck == bottleneck and f.pipeline_set == pset]
    assert len(hits) == 1, [f.to_dict() for f in r.findings]
    return hits[0]


def settings(f):
    return [(x.stanza, x.setting) for x in f.recommendations if x.setting]


# ---------------------------------------------------------------------------- HEC I/O threads vs physical cores
def test_raised_and_still_pegged_only_scales_out_with_the_numbers():
    f = only(report("hec_io_raised_below_cores"), "hec_input")      # 4 threads, 16 physical cores
    assert [r.setting for r in f.recommendations] == [None]
    action = f.recommendations[0].action
    assert "already raised to 4" in action and "16 physical cores" in action and "98% of one core" in action
    assert "load balancer" in action and "Raise" not in action


def test_at_or_above_the_physical_cores_only_scales_out():
    f = only(report("hec_io_above_physical"), "hec_input")          # 12 threads, 16 logical, 8 physical
    assert not [r for r in f.recommendations if r.setting == "dedicatedIoThreads"]
    assert "dedicatedIoThreads is 12, already at or above the host's 8 physical cores" in f.recommendations[0].action


def test_physical_cores_are_read_from_server_info_and_hostwide():
    ev = load_snapshot(os.path.join(SCEN, "hec_io_above_physical"))
    assert (ev.host_cpu.cores, ev.host_cpu.physical_cores) == (16, 8)


# ---------------------------------------------------------------------------- output receivers by name
def test_every_tcpout_failure_wording_names_its_receiver_and_state():
    f = only(report("output_every_wording"), "output")
    for said in ("10.0.0.21:9997 failed 8 times", "10.0.0.22:9997 refused 6 times", "10.0.0.23:9997 timed out 12 times",
                 "10.0.0.24:9997 quarantined 4 times", "reset by peer 3 times (the receiver dropped the connection) on "
                                                      "connections the lines do not name"):
        assert said in f.summary, f.summary
    assert "unnamed receiver" not in f.summary
    counts = {e.source.split(" ", 1)[1]: e.value for e in f.evidence if e.signal == "tcpout_connect_failures"}
    assert sum(counts.values()) == 8 + 6 + 12 + 4 + 3
    assert "10.0.0.21:9997, 10.0.0.22:9997, 10.0.0.23:9997, 10.0.0.24:9997" in f.recommendations[0].action
    assert "compressed" not in [r.setting for r in f.recommendations]


STAMP = "11-22-2026 10:00:00.000 +0000 "


@pytest.mark.parametrize("line, receiver, state", [
    (STAMP + "ERROR TcpOutputFd [1 TcpOutEloop] - Connection to host=10.1.2.3:9997 failed", "10.1.2.3:9997", "failed"),
    (STAMP + "WARN  TcpOutputFd [1 TcpOutEloop] - Connect to 10.1.2.4:9997 failed. Connection refused",
     "10.1.2.4:9997", "refused"),
    (STAMP + "WARN  AutoLoadBalancedConnectionStrategy [1 TcpOutEloop] - Cooked connection to ip=10.1.2.5:9997 "
     "timed out", "10.1.2.5:9997", "timed out"),
    (STAMP + "WARN  AutoLoadBalancedConnectionStrategy [1 TcpOutEloop] - Applying quarantine to ip=10.1.2.6 port=9997 "
     "connid=0 _numberOfFailures=2", "10.1.2.6:9997", "quarantined"),
    (STAMP + "ERROR TcpOutputFd [1 TcpOutEloop] - Read error. Connection reset by peer", "", "reset by peer"),
    # the real 2025 line (data-shapes.md section 3.1)
    ("06-06-2025 18:36:25.618 +0100 WARN  AutoLoadBalancedConnectionStrategy [107804 TcpOutEloop] - Cooked "
     "connection to ip=192.168.1.84:9997 timed out", "192.168.1.84:9997", "timed out"),
    # issue 37: a receiver connected, with useACK on, that does not acknowledge
    ("11-22-2025 09:59:30.000 +0000 WARN  TcpOutputProc [7812 indexerPipe] - Read operation timed out expecting ACK "
     "from 10.0.2.13:9997 in 300 seconds.", "10.0.2.13:9997", "ACK timed out"),
], ids=["failed", "refused", "timed_out", "quarantined", "reset_by_peer", "real_2025_timed_out", "ack_timed_out"])
def test_each_wording_parses_to_an_address_and_a_state(line, receiver, state):
    ev = splunkdlog.parse_lines([line])
    assert [(s.kind, s.receiver, s.state) for s in ev.log_signals] == [("tcpout_connect_failed", receiver, state)]


def test_a_line_without_address_goes_to_the_only_configured_server():
    ev = load_snapshot(os.path.join(SCEN, "output_receivers_down"))
    ev.config.tcpout_servers = "10.0.0.12:9997"
    ev.log_signals.append(LogSignal(None, "tcpout_connect_failed", "Read error. Connection reset by peer",
                                    "logs/splunkd.log TcpOutputFd", "", "reset by peer"))
    f = only(diagnose(ev), "output")
    assert "10.0.0.12:9997 (the only server in outputs.conf) reset by peer once" in f.summary


# ---------------------------------------------------------------------------- parsing from the configured props
def test_utf8_costs_most_so_charset_and_an_explicit_line_breaker_is_not_a_default():
    f = only(report("parsing_utf8_explicit_breaker"), "parsing")
    share = signal(f, "processor_cpu_share_pct")
    assert share.source.endswith("processor=utf8") and 65 < share.value < 80
    assert "The utf8 processor takes 72% of the parsing pipeline's CPU" in f.summary
    assert "default line breaking" not in f.summary
    assert ("vendor:xml", "CHARSET") == settings(f)[0]
    assert ("vendor:xml", "LINE_BREAKER") not in settings(f)
    trunc = [r for r in f.recommendations if r.setting == "TRUNCATE"][0]
    assert (trunc.current, trunc.suggested) == ("0", "100000") and "24,500 bytes" in trunc.action
    assert "syslog" not in [r.stanza for r in f.recommendations]


def test_linebreaker_costs_most_so_line_breaker_never_charset_when_named():
    f = only(report("parsing_linebreaker_default"), "parsing")
    assert "The linebreaker processor takes 84%" in f.summary
    assert settings(f)[0] == ("app:events", "LINE_BREAKER")
    assert "CHARSET" not in [s for _, s in settings(f)] and "TRUNCATE" not in [s for _, s in settings(f)]


# ---------------------------------------------------------------------------- a busy host says who is busy
def test_busy_host_names_ingestion_and_searches_and_never_looks_idle():
    r = report("host_busy_searches")
    h = only(r, "host_cpu")
    assert "splunkd's ingestion process (the server) uses 290% of one core" in h.summary
    assert "18 search processes use" in h.summary
    assert signal(h, "search_processes").value == 18
    assert h.recommendations[0].action.startswith("Searches take more of the CPU than ingestion")
    t = only(r, "typing")
    assert "idle" not in t.summary and "the host itself is busy (96% CPU)" in t.summary


def test_an_idle_host_still_says_so():
    assert "the host looks idle" in only(report("typing_regex_hidden"), "typing").summary


# ---------------------------------------------------------------------------- words follow the numbers
def test_over_a_tuned_threshold_far_from_a_core_is_not_pegged():
    r = report("thread_over_tuned_threshold")
    f = only(r, "typing")
    assert "over its threshold (85% of one core, threshold 80%; dutycycle share, 10-minute average)" in f.summary
    assert "pegged" not in f.summary and "full core" not in f.summary
    h = [x for x in r.headroom if x.stage == "typing"][0]
    assert h.pegged and h.headroom_eps == 0


def test_a_pegged_thread_names_its_measure_and_window():
    f = only(report("typing_regex_hidden"), "typing")
    assert "pegged at 98% of one core (dutycycle share, 10-minute average)" in f.summary
    assert "(94% of one core, threshold 90%; sum of its processors' CPU" in f.summary


# ---------------------------------------------------------------------------- one hot set among many
def test_a_hot_set_moves_its_stream_before_another_pipeline_set():
    f = only(report("sticky_hot_saturated"), "typing", 0)
    order = [x.setting for x in f.recommendations]
    # The stream first; with 3 sets already, never a fourth (issue 37): distribute instead, last.
    last = f.recommendations[-1]
    assert order.index("pipelineSetSelectionPolicy") < len(order) - 1 and "parallelIngestionPipelines" not in order
    assert last.action.startswith("parallelIngestionPipelines is already 3") and "distribute" in last.action
    assert any("sender" in x.action for x in f.recommendations[:-1])
    assert "Set 0 carries 80% of the throughput of 3 sets" in f.summary


def test_an_even_load_is_no_imbalance_and_gets_no_stream_advice():
    r = report("two_sets_two_stages")
    assert not [f for f in r.findings if f.bottleneck == "pipeline_set_imbalance"]
    f = only(r, "typing", 0)
    assert "pipelineSetSelectionPolicy" not in [x.setting for x in f.recommendations]


# ---------------------------------------------------------------------------- headroom
def test_headroom_over_the_sustained_window_not_a_burst_and_the_thruput_fallback():
    r = report("headroom_burst_fallback")
    assert r.healthy
    typing = [h for h in r.headroom if h.stage == "typing"][0]
    assert 50 <= typing.busy_pct < 55 and not typing.pegged and typing.window == "10m"   # not the 99% burst
    assert "name=thruput" in typing.caveat and "name=index_thruput is missing" in typing.caveat
    assert typing.eps == 12000.0
    assert [h["stage"] for h in r.to_dict()["headroom"]] == ["parsing", "merging", "typing", "indexing"]
    assert "load from group=thruput name=thruput" in render(r)


def test_a_pegged_stage_has_none_left_in_json_text_and_evidence():
    r = report("parsing_utf8_explicit_breaker")
    parsing = [h for h in r.to_dict()["headroom"] if h["stage"] == "parsing"][0]
    assert parsing["pegged"] and parsing["headroom_eps"] == 0 and parsing["headroom"] == "none left"
    assert parsing["at_load_x"] == 1.0
    assert signal(only(r, "parsing"), "headroom_eps").value == 0
    assert "parsing: 98% of one core for 1,600 events/s: at its limit, no headroom" in " ".join(render(r).split())


def test_headroom_is_a_function_of_one_instances_evidence():
    ev = load_snapshot(os.path.join(SCEN, "typing_headroom"))
    alone = headroom_rule.estimate(ev)
    assert [(h.stage, round(h.busy_pct)) for h in alone] == [(h.stage, round(h.busy_pct))
                                                             for h in diagnose(ev).headroom]
    assert headroom_rule.estimate(Evidence()) == []


# ---------------------------------------------------------------------------- issue 37: the stanza's own boundary
def test_a_stanza_with_break_only_before_gets_its_line_breaker_built_from_it():
    ev = load_snapshot(os.path.join(SCEN, "merging_linemerge"))
    ev.config.props["custom:java"]["BREAK_ONLY_BEFORE"] = "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}"
    f = only(diagnose(ev), "merging")
    [lb] = [x for x in f.recommendations if x.stanza == "custom:java" and x.setting == "LINE_BREAKER"]
    assert lb.suggested == "([\\r\\n]+)(?=\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2})"
    assert "its own BREAK_ONLY_BEFORE (^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2})" in lb.action and "e.g." not in lb.action
    # the pattern cuts exactly where BREAK_ONLY_BEFORE starts an event, never inside a multi-line one
    import re
    data = "2025-11-22 10:00 a\n  at x\n  at y\n2025-11-22 10:01 b\n"
    assert [m.start() for m in re.finditer(lb.suggested, data)] == [data.index("\n2025-11-22 10:01")]
    # a stanza without it keeps the generic example
    [other] = [x for x in f.recommendations if x.stanza == "app:log" and x.setting == "LINE_BREAKER"]
    assert other.suggested is None and "e.g." in other.action


def test_the_parsing_line_breaker_advice_uses_break_only_before_too():
    ev = load_snapshot(os.path.join(SCEN, "parsing_linebreaker_default"))
    [st] = [s for s in ev.config.props if s != "default"][:1]
    ev.config.props[st]["BREAK_ONLY_BEFORE"] = "\\[\\d+\\]"
    f = only(diagnose(ev), "parsing")
    hits = [x for x in f.recommendations if x.stanza == st and x.setting == "LINE_BREAKER"]
    assert hits and hits[0].suggested == "([\\r\\n]+)(?=\\[\\d+\\])"
