"""Issue 37: limits.conf [thruput] maxKBps reached is a root of its own, with the setting and its value
(once diagnosed as a parsing bottleneck)."""
from dataclasses import replace

from ingest_doctor import thresholds
from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine import rules
from ingest_doctor.engine.rules import thruput_cap
from ingest_doctor.evidence import LogSignal
from ingest_doctor.read import splunkdlog

from fakes.engine_helpers import scenario, serious

LINE = ("11-22-2025 09:59:37.000 +0000 INFO  ThruputProcessor [5512 parsing] - Current data throughput (257 kb/s) "
        "has reached maxKBps. As a result, data forwarding may be throttled. Consider increasing the value of "
        "maxKBps in limits.conf.")


def test_the_maxkbps_line_is_read_with_its_rate():
    [s] = splunkdlog.parse_lines([LINE]).log_signals
    assert (s.kind, s.state, s.source) == ("thruput_capped", "257", "logs/splunkd.log ThruputProcessor")


def test_a_forwarder_at_its_cap_is_the_cap_not_parsing():
    [f] = serious(diagnose(scenario("maxkbps_windows_uf")))
    assert (f.bottleneck, f.component) == ("output", "ThruputProcessor (limits.conf [thruput] maxKBps)")
    assert "limits.conf [thruput] maxKBps caps this instance at 256 KB/s" in f.summary
    [r] = f.recommendations
    assert (r.conf_file, r.stanza, r.setting, r.current, r.suggested) == ("limits.conf", "thruput", "maxKBps",
                                                                          "256", "0")
    assert "universal forwarder's default" in r.action
    signals = {e.signal: e.value for e in f.evidence}
    assert signals["maxkbps_reached_messages"] == 8 and 250 < signals["thruput_kbps"] < 257
    assert signals["queue_fill_pct"] == 98.0            # the parsingQueue it backs up is its evidence


def test_without_the_rule_the_same_forwarder_reads_as_parsing():
    # What the rule corrects: a full parsingQueue with idle threads read as a parsing bottleneck.
    without = tuple(r for r in rules.RULES if r is not thruput_cap.run)
    report = rules.run(scenario("maxkbps_windows_uf"), thresholds.defaults(), without)
    assert [f.bottleneck for f in serious(report)] == ["parsing"]


def test_the_line_alone_names_the_cap_with_the_rate_it_states():
    ev = scenario("maxkbps_windows_uf")
    ev.config.thruput_max_kbps = None
    ev.thruput = [t for t in ev.thruput if t.series != "thruput"]
    [f] = serious(diagnose(ev))
    assert "caps this instance at 256 KB/s (as splunkd.log states it; limits.conf was not read)" in f.summary
    assert [(r.setting, r.current, r.suggested) for r in f.recommendations] == [("maxKBps", None, "0")]


def test_the_throughput_flat_at_the_cap_alone_names_it():
    ev = scenario("maxkbps_windows_uf")
    ev.log_signals = [s for s in ev.log_signals if s.kind != "thruput_capped"]
    [f] = serious(diagnose(ev))
    assert f.component.startswith("ThruputProcessor") and "maxkbps_reached_messages" not in [
        e.signal for e in f.evidence]


def test_below_the_cap_and_no_line_is_not_the_cap():
    ev = scenario("maxkbps_windows_uf")
    ev.log_signals = [s for s in ev.log_signals if s.kind != "thruput_capped"]
    ev.config.thruput_max_kbps = 512.0
    assert [f.bottleneck for f in serious(diagnose(ev))] == ["parsing"]


def test_receivers_holding_the_output_back_come_first_the_cap_second():
    ev = scenario("output_receivers_down")
    ev.log_signals += [LogSignal(1763805000.0 + 60 * i, "thruput_capped", "", "logs/splunkd.log ThruputProcessor",
                                 "", "256") for i in range(3)]
    [f] = serious(diagnose(ev))
    assert "The receivers hold it back" in f.summary and "Its own cap is reached too" in f.summary
    assert "maxKBps" not in [r.setting for r in f.recommendations]
    assert replace(f, summary="").component != "ThruputProcessor (limits.conf [thruput] maxKBps)"


def test_the_cap_over_output_bursts_is_a_warning_not_info():
    # The cap reached while tcpout only filled in bursts (an info finding): the cap takes the output finding
    # over and warns.
    ev = scenario("hec_503_output_bursts")
    ev.hec_errors, ev.hec_probes = [], []
    ev.log_signals += [LogSignal(1763805000.0 + 60 * i, "thruput_capped", "", "logs/splunkd.log ThruputProcessor",
                                 "", "256") for i in range(3)]
    [f] = [f for f in diagnose(ev).findings if f.bottleneck == "output"]
    assert (f.severity, f.component) == ("warning", "ThruputProcessor (limits.conf [thruput] maxKBps)")
